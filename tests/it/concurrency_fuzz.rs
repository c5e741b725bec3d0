//! The concurrency fuzzer (see `tests/it/fuzz/concurrent/mod.rs`) on both protocols: a fixed
//! seed and a few thousand lines per protocol in the normal test run (`OTHELLO_CFUZZ_LINES`
//! sets another count), and a million lines per protocol with
//! `cargo test --release --test it concurrency_fuzz:: -- --ignored`.

use crate::fuzz::concurrent;

const CI_LINES: usize = 2000;
const LONG_LINES: usize = 1_000_000;

#[test]
fn gtp_with_threads_and_pondering_against_the_model() {
    let lines = crate::fuzz::line_budget("OTHELLO_CFUZZ_LINES", CI_LINES);
    let tally = concurrent::fuzz_gtp_concurrently(0x5851_f42d_4c95_7f2d, lines);
    eprintln!("{}", tally.summary("gtp"));
}

#[test]
fn nboard_with_threads_and_pondering_against_the_model() {
    let lines = crate::fuzz::line_budget("OTHELLO_CFUZZ_LINES", CI_LINES);
    let tally = concurrent::fuzz_nboard_concurrently(0x1405_7b7e_f767_814f, lines);
    eprintln!("{}", tally.summary("nboard"));
}

#[test]
#[ignore = "a million lines per protocol: hours on a loaded machine; run by hand"]
fn gtp_with_threads_and_pondering_a_million_lines() {
    let tally = concurrent::fuzz_gtp_concurrently(0x2127_599b_f432_5c37, LONG_LINES);
    eprintln!("{}", tally.summary("gtp"));
}

#[test]
#[ignore = "a million lines per protocol: hours on a loaded machine; run by hand"]
fn nboard_with_threads_and_pondering_a_million_lines() {
    let tally = concurrent::fuzz_nboard_concurrently(0x9fb2_1c65_1e98_df25, LONG_LINES);
    eprintln!("{}", tally.summary("nboard"));
}
