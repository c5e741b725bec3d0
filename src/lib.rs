//! othello-engine: an Othello (Reversi) engine that serves the NBoard and GTP protocols.
//!
//! Layers, each knowing only those below it: `board` (rules), `eval` (knowledge), `search`
//! (thinking), `game` (records), then the faces: `protocol` and `arena` (peers that never
//! import each other) and `cli` (the command line).

pub mod arena;
pub mod board;
pub mod cli;
pub mod eval;
pub mod game;
pub mod protocol;
pub mod search;
