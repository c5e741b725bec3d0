//! `othello-engine match`: engine-against-engine tournaments. The runner is the referee: it
//! checks every move with the rules core, handles passes and the end of the game, keeps the
//! clocks, and scores the match.

pub mod client;
pub mod files;
pub mod merge;
pub mod progress;
pub mod records;
pub mod referee;
pub mod results;
pub mod runner;
pub mod signals;
pub mod spec;
pub mod stats;

pub use runner::{USAGE, run_match};
