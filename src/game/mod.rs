//! Records: what the faces keep and exchange about games, below them and above the thinking.
//!
//! - [`record`]: the game record (start position, every move with its mover, eval and time).
//! - [`clock`]: the clocks each protocol and the match runner speak, converted to the search's
//!   time budget; GGF clock text both ways.
//! - [`ggf`]: GGF games read and written, with a round-trip test.
//! - [`notation`]: moves and numbers as NBoard, GGF and GTP write them (nom parsers).
//! - [`openings`]: opening sets for matches (generated, or read from a file).
//! - [`wthor`]: the WTHOR archive format, read into training samples.
//! - [`datagen`]: training data from self-play and WTHOR games, labelled by search and solver;
//!   resuming, merging and counting its files.

pub mod balanced;
pub mod clock;
pub mod datagen;
pub mod ggf;
pub mod ggf_date;
pub mod gtp_clocks;
pub mod notation;
pub mod openings;
pub mod record;
pub mod wthor;

pub use record::{GameRecord, RecordedMove};
