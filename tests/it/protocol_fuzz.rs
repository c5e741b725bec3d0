//! The protocol fuzzer (see `tests/it/fuzz/mod.rs`) on both protocols: a fixed seed and a modest
//! number of lines in the normal test run (`OTHELLO_FUZZ_LINES` sets another count), and a
//! million lines per protocol with `cargo test --release --test it protocol_fuzz:: -- --ignored`.

use crate::fuzz;

const CI_LINES: usize = 4000;
const LONG_LINES: usize = 1_000_000;

fn report(protocol: &str, tally: &fuzz::Tally) {
    eprintln!(
        "{protocol}: {} lines ({} mutated or junk), {} replies, {} position checks, 0 crashes, 0 mismatches",
        tally.lines, tally.junk, tally.replies, tally.position_checks
    );
}

#[test]
fn gtp_fuzz_against_the_model() {
    let tally = fuzz::fuzz_gtp(
        0x2545_f491_4f6c_dd1d,
        fuzz::line_budget("OTHELLO_FUZZ_LINES", CI_LINES),
    );
    report("gtp", &tally);
}

#[test]
fn nboard_fuzz_against_the_model() {
    let tally = fuzz::fuzz_nboard(
        0x9e37_79b9_7f4a_7c15,
        fuzz::line_budget("OTHELLO_FUZZ_LINES", CI_LINES),
    );
    report("nboard", &tally);
}

#[test]
#[ignore = "a million lines per protocol: minutes; run by hand"]
fn gtp_fuzz_a_million_lines() {
    let tally = fuzz::fuzz_gtp(0x0123_4567_89ab_cdef, LONG_LINES);
    report("gtp", &tally);
}

#[test]
#[ignore = "a million lines per protocol: minutes; run by hand"]
fn nboard_fuzz_a_million_lines() {
    let tally = fuzz::fuzz_nboard(0xfedc_ba98_7654_3210, LONG_LINES);
    report("nboard", &tally);
}
