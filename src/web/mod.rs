//! The web face: the engine in a browser page, compiled to WebAssembly (`wasm32-unknown-unknown`)
//! with the feature `web` by `scripts/web`, which also copies the page (`web/`) beside it.
//!
//! **Two objects, two threads.** A page must never freeze, yet a search runs as long as it is
//! allowed to, and WebAssembly in a browser has one thread per instance. So the page loads the
//! same module twice. On the page's own thread a [`Game`] keeps the record (the rules, undo and
//! redo, positions and transcripts pasted in, the transcript and GGF copied out): everything a
//! click needs, answered at once. In a Web Worker an [`Engine`] owns the searcher and its table
//! and only thinks: it is given a position (OBF) and returns a move, the values of every move
//! (hints), or a benchmark's counts, reporting each finished depth on the way through a
//! callback. The page matches each answer to the request it made and drops stale ones; to stop
//! a search early it ends the worker and starts another, since a worker busy in WebAssembly
//! reads no messages (a shared stop flag would need cross-origin isolation, which a plain
//! static server does not give).
//!
//! **Time.** There is no clock of the operating system in a browser: the search's instants come
//! from `performance.now()` (the crate `web-time`, which is std's `Instant` on native targets),
//! so a time per move is a deadline the page's own clock measures.
//!
//! **Errors.** Nothing given to these objects panics: every input is checked by the layers
//! below (OBF, transcripts, squares, legality) and refused with a JavaScript `Error` whose
//! message is one plain sentence. A panic would be a bug; [`install_panic_report`] makes it
//! visible instead of an opaque `unreachable` trap.
//!
//! **Layers.** This is a face beside `protocol` and `arena`: it imports `board`, `search` and
//! `game`, never another face, and formats what they return as JSON text for the page.

mod engine;
mod game;
mod panic;

pub use engine::Engine;
pub use game::Game;
pub use panic::install_panic_report;
