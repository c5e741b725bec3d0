//! othello-engine: an Othello (Reversi) engine that serves the NBoard and GTP protocols.
//!
//! Layers, each knowing only those below it: `board` (rules), then the knowledge, thinking,
//! records and faces layers that later modules add.

pub mod arena;
pub mod board;
pub mod cli;
pub mod eval;
pub mod protocol;
pub mod search;
