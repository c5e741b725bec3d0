//! othello-engine: an Othello (Reversi) engine that serves the NBoard and GTP protocols.
//!
//! Layers, each knowing only those below it: `board` (rules), `eval` (knowledge), `search`
//! (thinking) and beside it `fit` (fitting what `eval` reads), `game` (records), then the
//! faces: `protocol` and `arena` (peers that never
//! import each other) and `cli` (the command line). Beside them, `sys` (signals, progress on
//! stderr, atomic files) serves the faces and imports nothing from the crate. The faces that
//! need an operating system (`cli`, `protocol`, `arena`) come with the feature `native`, the
//! default; without it the layers below build for wasm32.

#[cfg(feature = "native")]
pub mod arena;
pub mod board;
#[cfg(feature = "native")]
pub mod cli;
pub mod eval;
pub mod fit;
pub mod game;
#[cfg(feature = "native")]
pub mod protocol;
pub mod search;
pub mod sys;
