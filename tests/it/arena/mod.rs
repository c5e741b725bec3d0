//! `othello-engine match` end to end, against the misbehaving GTP and NBoard engine of
//! tests/fixtures/gtp_fixture.rs (built by `cargo test` as the example `gtp_fixture`), our own
//! engine over both protocols, and `match merge`.
//!
//! * `faults`: misbehaving engines lose their games with the reason, and the match goes on.
//! * `games`: clean games, clocks, round robins, SPRT, peers (gtp-rhino, our own engine).
//! * `refusals`: bad flags and files are refused before any game.
//! * `shards`: a shard plays its part of the schedule, and `match merge` joins the parts.
//! * `interrupt`: SIGTERM stops a match, and `--resume` completes it.

mod faults;
mod games;
mod interrupt;
mod refusals;
mod shards;

use crate::common;
use std::path::Path;
use std::process::{Command, Output};

/// The fixture engine beside the binary; `cargo test` builds examples with the tests.
fn fixture() -> String {
    let path = Path::new(common::ENGINE)
        .parent()
        .map(|dir| dir.join("examples").join("gtp_fixture"))
        .unwrap_or_default();
    assert!(
        path.exists(),
        "{} is missing: run the whole 'cargo test', which builds examples",
        path.display()
    );
    path.display().to_string()
}

/// `othello-engine match`, to be given more arguments.
fn match_command() -> Command {
    let mut command = Command::new(common::ENGINE);
    command.arg("match");
    command
}

/// Runs `othello-engine match <args>` (`merge` included) to the end.
fn run(args: &[&str]) -> Output {
    common::run(&[&["match"], args].concat())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn game_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("game ")).collect()
}

/// The summary of a match's output (everything from the line `finished N games` on), without
/// the thinking times, which differ between runs.
fn summary_of(out: &str) -> String {
    out.lines()
        .skip_while(|l| !l.starts_with("finished "))
        .filter(|l| !l.starts_with("thinking time per game: ") && !l.starts_with("peak memory: "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A results file without the games' thinking times (`, "black_seconds": 1.234,
/// "white_seconds": 0.567`), which differ between runs.
fn without_times(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(", \"black_seconds\": ") {
            Some(at) => {
                let close = line[at..].find('}').map_or(line.len(), |c| at + c);
                format!("{}{}", &line[..at], &line[close..])
            }
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The fixture processes started so far, by the pid files in `dir`.
fn pids(dir: &Path) -> Vec<u32> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether process `pid` still runs (a zombie does not count: its parent is gone and init
/// reaps it).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(") ").map(|(_, rest)| rest.to_string()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}
