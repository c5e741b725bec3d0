//! The clients that drive one engine process each: the process and its pipes, then GTP and
//! NBoard (protocol 2) on top.
//!
//! Both clients share [`process::EngineProcess`]: the engine's standard output is read by a
//! thread that forwards each line over a channel, so every reply can be waited for with a
//! deadline: a hung engine costs its game, never the match. Another thread drains its
//! standard error and keeps the last lines, which say why an engine that exits did.

pub mod error;
pub mod gtp;
pub mod nboard;
pub mod process;

pub use error::EngineError;
pub use gtp::GtpEngine;
pub use nboard::NBoardEngine;
