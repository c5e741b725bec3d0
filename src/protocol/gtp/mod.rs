//! GTP version 2 with the Othello conventions: the command grammar and the session.

mod command;
mod session;

pub use command::{COMMANDS, GtpCommand, GtpLine, parse_line};
pub use session::GtpSession;
