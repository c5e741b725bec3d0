//! Why an exchange with an engine failed, and how much of an engine's text a message quotes.

/// Why an exchange with an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The process could not be started.
    Start(String),
    /// No complete reply within the time allowed; with the last line skipped while waiting
    /// because it was not the protocol's (a GTP engine writing something else), if any.
    Timeout(Option<String>),
    /// The engine closed its output or its input (it exited or crashed); with the last line
    /// it wrote on its standard error, if any.
    Exited(Option<String>),
    /// The match was interrupted (SIGINT or SIGTERM) while waiting.
    Aborted,
    /// A reply that is not GTP (`= ...` or `? ...`).
    Garbage(String),
    /// A `? message` reply.
    Failure(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Start(e) => write!(f, "could not start: {e}"),
            EngineError::Timeout(None) => f.write_str("no reply in time"),
            EngineError::Timeout(Some(line)) => write!(
                f,
                "no reply in time; skipped output that is not GTP: '{line}'"
            ),
            EngineError::Exited(None) => f.write_str("exited (crash or early quit)"),
            EngineError::Exited(Some(line)) => write!(
                f,
                "exited (crash or early quit); last stderr line: '{line}'"
            ),
            EngineError::Aborted => f.write_str("stopped: the match was interrupted"),
            EngineError::Garbage(line) => write!(f, "unparsable reply '{line}'"),
            EngineError::Failure(message) => write!(f, "replied '? {message}'"),
        }
    }
}

/// The longest line kept from an engine reply in messages.
const QUOTE_LIMIT: usize = 80;

/// The start of an engine's reply line, as messages quote it.
pub fn quote(line: &str) -> String {
    line.chars().take(QUOTE_LIMIT).collect()
}

/// The longest standard error line quoted in messages: an engine's own error message is
/// worth more room than a reply.
const LONG_QUOTE_LIMIT: usize = 160;

/// The start of an engine's standard error line, as messages quote it.
pub fn quote_long(line: &str) -> String {
    line.chars().take(LONG_QUOTE_LIMIT).collect()
}
