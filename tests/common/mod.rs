//! Helpers shared by the integration tests; each test binary includes them with `mod common;`.
//!
//! * `server`: the process harness that drives a line-protocol program (ours or a peer).
//! * `obf`: the OBF files of `../shared/positions/`.
//! * `reference`: a second, deliberately simple implementation of the rules.
//! * `rng`: seeded generators.

// Every test binary compiles this module but uses only part of it.
#![allow(dead_code)]

pub mod obf;
pub mod reference;
pub mod rng;
pub mod server;
