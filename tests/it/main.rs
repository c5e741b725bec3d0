//! The integration tests, one binary (as ripgrep's `tests/tests.rs`): `cargo test --release
//! --test it` runs them all, `cargo test --release --test it book::` one file's.
//!
//! * `common`: the helpers every file shares (runs of the binary, the server harness, the
//!   test data's paths, a reference implementation of the rules, seeded generators).
//! * `fuzz`: the protocol fuzzer and its model of `protocol.md`, which `protocol_fuzz` runs.
//! * `layers`: the import rule of `src/` (board ← eval ← search ← game ← protocol, arena ← cli).
//! * `architecture`: every path ARCHITECTURE.md names exists.
//! * every other module is one feature's tests.

mod common;
mod fuzz;

mod architecture;
mod arena;
mod bench;
mod book;
mod cli;
mod concurrency_fuzz;
mod datagen;
mod eval_scale;
mod gui_clock;
mod layers;
mod memory;
mod per_move_clock;
mod perft;
mod ponder;
mod portable;
mod protocol_fuzz;
mod protocol_grhino;
mod protocol_gtp;
mod protocol_hardening;
mod protocol_nboard;
mod review;
mod rules_differential;
mod search;
mod train;
