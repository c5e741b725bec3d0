//! NBoard protocol version 2: the command grammar, the session, and the reply formats.

mod command;
mod reply;
mod session;

pub use command::{NBoardCommand, parse_command};
pub use reply::{ENGINE_NAME, analysis_line, move_line, nodestats_line, search_line};
pub use session::NBoardSession;
