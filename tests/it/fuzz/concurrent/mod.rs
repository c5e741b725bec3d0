//! A concurrency fuzzer: both servers with threads and pondering, driven the way an impatient
//! client drives them, checked against the same model of `protocol.md` as the line fuzzer.
//!
//! The line fuzzer (`super`) sends one line and waits for its answer, on one thread, with
//! searches that end in milliseconds. The failures it cannot see are those of timing: a reply
//! that waits on a ponder, a stop flag that a helper thread misses, a search line printed after
//! the `pong` that should have silenced it, a move chosen for a position that has changed since,
//! a `quit` that leaves a process behind. Here every server runs with `--threads 2..4` (the
//! count drawn per run, the flags in each of the forms the command line reads, before or after
//! the command) and pondering on or off, and the session switches both at run time. Lines go
//! out in batches without waiting for answers, with short random pauses between them so that
//! searches are caught at every stage, and searches run under clocks of a fraction of a second
//! as well as under clocks of ten minutes that only a `ping` or a `quit` ends.
//!
//! What is checked, on every line the server writes:
//! * framing: GTP replies are `=`/`?`, the id exactly when the command had one, the expected
//!   body, one blank line; NBoard lines are those of protocol.md's table and formats;
//! * legality: every move a reply names (`genmove`, `===`, the first move of each `search`
//!   line) is legal in the model's position of the request that printed it, and `showboard`
//!   matches the model;
//! * order: NBoard output is attributed to the requests still able to print it (a request runs
//!   only once the one before it has finished or been cancelled, and `pong n` silences every
//!   request sent before `ping n`), so a stale line after a `pong`, a `go` that never gave the
//!   `===` it owed, or a line no open request could have printed fails the run;
//! * latency: a `genmove`/`go` under a clock of under a second answers within the clock plus
//!   [`CLOCK_MARGIN`]; a reply that needs no search (GTP) and every `pong` come within
//!   [`PROMPT`] even while a search or a ponder runs; a `quit` in the middle of a search ends
//!   the process within [`QUIT_WITHIN`] and nothing is left running.
//!
//! * `gtp`, `nboard`: each protocol's batches, runs and checks.

mod attribution;
mod gtp;
mod nboard;

pub use gtp::fuzz_gtp_concurrently;
pub use nboard::fuzz_nboard_concurrently;

use crate::common::rng::Rng;
use std::collections::BTreeSet;
use std::time::Duration;

/// How long a reply that needs no search, or a `pong`, may take. Without contention such
/// replies take well under a millisecond; the margin is for a loaded machine (the test
/// machine's two cores are shared with other jobs and with the server's own threads).
pub const PROMPT: Duration = Duration::from_secs(2);

/// What a timed move may take beyond its whole clock. The time manager spends at most half
/// of what is left, so a correct server is far inside this; it is a margin for load.
pub const CLOCK_MARGIN: Duration = Duration::from_secs(2);

/// How long the process may live after a `quit` (or the end of input) cut a search short.
pub const QUIT_WITHIN: Duration = Duration::from_secs(5);

/// Clocks of at most this many seconds are "tiny": a move under one must answer within the
/// clock plus [`CLOCK_MARGIN`], and such a move is the only kind allowed at deep levels
/// except when a `quit`/`ping` will cut it short.
pub const TINY_CLOCK: f64 = 0.5;

/// What the runs of one protocol saw, for the closing report.
#[derive(Debug, Default)]
pub struct Tally {
    /// Server processes started, each with its own threads and ponder setting.
    pub runs: usize,
    /// Lines sent.
    pub lines: usize,
    /// Lines the server wrote, each checked.
    pub replies: usize,
    /// Moves under a tiny clock whose latency was checked.
    pub timed_moves: usize,
    /// Replies checked for promptness (GTP commands without a search, NBoard `pong`s).
    pub prompt_checks: usize,
    /// Runs ended by `quit` or the end of input while a search or a ponder ran.
    pub quits_mid_search: usize,
    /// Thread counts the servers ran with (start flags and run-time switches).
    pub threads: BTreeSet<usize>,
    /// Runs started with pondering on, and with it off.
    pub ponder_runs: [usize; 2],
    /// Run-time ponder switches sent (accepted ones).
    pub ponder_switches: usize,
}

impl Tally {
    pub fn summary(&self, protocol: &str) -> String {
        format!(
            "{protocol}: {} runs, {} lines, {} replies checked, {} timed moves, {} prompt checks, \
             {} quits mid-search, threads {:?}, ponder on/off at start {}/{}, {} ponder switches, \
             0 failures",
            self.runs,
            self.lines,
            self.replies,
            self.timed_moves,
            self.prompt_checks,
            self.quits_mid_search,
            self.threads,
            self.ponder_runs[0],
            self.ponder_runs[1],
            self.ponder_switches
        )
    }
}

/// One server process's settings, in the spellings a user may give them.
pub struct RunShape {
    pub threads: usize,
    pub ponder: bool,
    /// `--level 1` (searches of milliseconds) rather than the default (time-decided depth).
    pub shallow_level: bool,
    /// The flags before the protocol's name (`othello-engine --threads 2 gtp`), not after.
    flags_first: bool,
    ponder_spelling: usize,
}

impl RunShape {
    pub fn random(rng: &mut Rng) -> RunShape {
        let ponder = rng.below(3) != 0;
        RunShape {
            threads: 2 + rng.below(3),
            ponder,
            shallow_level: rng.one_in(2),
            flags_first: rng.one_in(2),
            ponder_spelling: rng.below(2),
        }
    }

    /// The command line (without the program), e.g. `["gtp", "--threads", "3", "--ponder"]`.
    pub fn args(&self, protocol: &str) -> Vec<String> {
        let mut flags: Vec<String> = vec!["--threads".into(), self.threads.to_string()];
        flags.push("--no-book".into());
        match (self.ponder, self.ponder_spelling) {
            (true, 0) => flags.push("--ponder".into()),
            (true, _) => flags.push("--ponder=on".into()),
            (false, 0) => {}
            (false, _) => flags.push("--ponder=off".into()),
        }
        if self.shallow_level {
            flags.extend(["--level".into(), "1".into()]);
        }
        if self.flags_first {
            flags.push(protocol.into());
            flags
        } else {
            let mut args = vec![protocol.to_string()];
            args.extend(flags);
            args
        }
    }

    pub fn count(&self, tally: &mut Tally) {
        tally.runs += 1;
        tally.threads.insert(self.threads);
        tally.ponder_runs[usize::from(!self.ponder)] += 1;
    }
}

/// Server runs of `run` (one process each, 150 to 600 lines) for `lines` lines in all, from
/// `seed`; a run panics on the first disagreement.
pub fn runs(seed: u64, lines: usize, run: fn(&mut Rng, &mut Tally, usize)) -> Tally {
    let mut rng = Rng(seed);
    let mut tally = Tally::default();
    while tally.lines < lines {
        let run_lines = (lines - tally.lines).min(150 + rng.below(450));
        run(&mut rng, &mut tally, run_lines);
    }
    tally
}

/// A pause between two lines of a batch: mostly none (lines arrive together and queue), else
/// long enough for a search to be caught at its start, in its middle, or after it ended.
pub fn pause(rng: &mut Rng) {
    let millis = match rng.below(10) {
        0..=5 => 0,
        6..=8 => 1 + rng.below(20),
        _ => 30 + rng.below(200),
    };
    if millis > 0 {
        std::thread::sleep(Duration::from_millis(millis as u64));
    }
}

/// A tiny clock in seconds: from nothing left to [`TINY_CLOCK`].
pub fn tiny_seconds(rng: &mut Rng) -> f64 {
    [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, TINY_CLOCK][rng.below(7)]
}

/// The first 200 characters of a line, for failure messages.
pub fn shown(line: &str) -> String {
    line.chars().take(200).collect()
}
