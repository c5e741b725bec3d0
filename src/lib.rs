//! othello-engine: an Othello (Reversi) engine that serves the NBoard and GTP protocols.
//!
//! Layers, each knowing only those below it: `board` (rules), `eval` (knowledge), `search`
//! (thinking) and beside it `fit` (fitting what `eval` reads), `game` (records), then the
//! faces: `protocol` and `arena` (peers that never
//! import each other) and `cli` (the command line). Beside them, `sys` (signals, progress on
//! stderr, atomic files) serves the faces and imports nothing from the crate. The `web` face
//! (the engine in a browser page, a peer of `protocol` and `arena`) is built for wasm32 with
//! the feature `web`; the faces that need an operating system come with `native`, the default.

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
// Only in a wasm build: its crates (wasm-bindgen, js-sys) are the wasm target's alone.
#[cfg(all(feature = "web", target_arch = "wasm32"))]
pub mod web;
