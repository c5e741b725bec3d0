//! The command line's one error type: a refusal printed as one line on stderr, after which
//! the process exits with status 2. Value parsers that return it give the whole line (see
//! `usage_error` in `cli/mod.rs`); the arena's typed [`MatchError`] becomes one here.

use crate::arena::MatchError;
use std::fmt;

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
