//! The command line's one error type: a refusal printed as one line on stderr, after which
//! the process exits with status 2. Value parsers that return it give the whole line (see
//! [`usage_error`]); the arena's typed [`MatchError`] becomes one here.

use crate::arena::MatchError;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A command-line mistake; the binary prints it and exits with status 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

impl From<MatchError> for CliError {
    fn from(e: MatchError) -> CliError {
        CliError(e.to_string())
    }
}

/// A `CliError` from a message.
pub fn error(message: impl Into<String>) -> CliError {
    CliError(message.into())
}

/// The stop flag of a long job, raised by SIGINT or SIGTERM (a second one ends the process;
/// see `sys::signals`).
pub fn catch_signals() -> Result<Arc<AtomicBool>, CliError> {
    crate::sys::signals::catch().map_err(|e| error(format!("cannot catch signals: {e}")))
}

/// A clap error as one line, in the words our own errors use where clap's differ. A value
/// parser that returns a [`CliError`] gives the whole line (`bad --depth '0': ...`); one that
/// returns a plain message gets clap's words around it (`invalid value ... for '--hash'`).
pub fn usage_error(e: &clap::Error) -> String {
    if let Some(own) = std::error::Error::source(e).and_then(|s| s.downcast_ref::<CliError>()) {
        return own.0.clone();
    }
    let context = |kind: ContextKind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(s)) => s.join(", "),
        _ => String::new(),
    };
    match e.kind() {
        ErrorKind::UnknownArgument => format!(
            "unknown option '{}'; run 'othello-engine help' for the options",
            context(ContextKind::InvalidArg)
        ),
        ErrorKind::InvalidSubcommand => format!(
            "unknown command '{}'; run 'othello-engine help'",
            context(ContextKind::InvalidSubcommand)
        ),
        ErrorKind::InvalidValue if context(ContextKind::InvalidValue).is_empty() => {
            let arg = context(ContextKind::InvalidArg);
            let name = arg.split_whitespace().next().unwrap_or(&arg);
            format!("option '{name}' needs a value")
        }
        _ => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("bad command line");
            first.trim_start_matches("error: ").to_string()
        }
    }
}
