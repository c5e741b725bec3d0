//! Long searches keep their memory: a `hint 64` at depth 30 and an `analyze` of a whole game,
//! each watched for seconds, must not grow the server's resident memory (the table is
//! allocated and touched at start; nothing a search keeps may grow with its length) nor its
//! output lines. Linux only: the memory is read from /proc.
#![cfg(target_os = "linux")]

use crate::common::server::Server;
use std::time::{Duration, Instant};

/// The server's resident memory in KiB (`VmRSS` of /proc/<pid>/status).
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("a VmRSS line");
    line.split_whitespace()
        .nth(1)
        .expect("a number")
        .parse()
        .expect("KiB")
}

/// What a search did while watched.
struct Watched {
    /// Resident memory (KiB), about every `SAMPLE` from the request on.
    samples: Vec<u64>,
    lines: Vec<String>,
}

const SAMPLE: Duration = Duration::from_millis(250);

/// Sends `request`, reads the output and samples the memory for `length`, then stops the
/// search with a `ping` and waits for its `pong`.
fn watch(server: &mut Server, request: &str, length: Duration, ping: u32) -> Watched {
    let pid = server.pid();
    server.send(request);
    let start = Instant::now();
    let mut watched = Watched {
        samples: vec![resident_kib(pid)],
        lines: Vec::new(),
    };
    let mut next_sample = start + SAMPLE;
    while next_sample < start + length {
        let now = Instant::now();
        if now >= next_sample {
            watched.samples.push(resident_kib(pid));
            next_sample += SAMPLE;
        } else if let Some(line) = server.quiet_for(next_sample - now) {
            watched.lines.push(line);
        }
    }
    server.send(&format!("ping {ping}"));
    let pong = format!("pong {ping}");
    watched.lines.extend(server.until(|l| l == pong));
    watched
}

fn report(name: &str, watched: &Watched) {
    let s = &watched.samples;
    eprintln!(
        "{name}: RSS {} KiB at start, {} KiB after warm-up, {} KiB at the end, {} KiB peak; {} lines, the longest {} bytes",
        s[0],
        s[WARM_UP],
        s[s.len() - 1],
        s.iter().max().unwrap(),
        watched.lines.len(),
        watched.lines.iter().map(String::len).max().unwrap_or(0),
    );
}

/// Samples of the first two seconds: the search's own buffers fill then.
const WARM_UP: usize = 8;

/// Growth allowed after the warm-up, in KiB. Measured: 4 KiB over 10 s of `hint 64`, 4 KiB
/// over 10 s of `analyze`, 264 KiB from the one to the other (the table, 64 MiB, is touched
/// when allocated, so the whole process sits at about 80 MiB from the start).
const GROWTH_KIB: u64 = 4 << 10;

/// The longest output line allowed: a `search` line with a principal variation of 60 moves
/// is about 150 bytes (measured: at most 60 bytes in 12 s of `hint 64` at depth 30).
const LONGEST_LINE: usize = 200;

/// Checks that the memory stayed flat after the warm-up, from `baseline` (KiB) on, and that
/// the lines stay short and few (a round of `hint 64` reports at most 64 moves, and rounds
/// grow longer: measured 157 lines in 12 s).
fn assert_bounded(name: &str, watched: &Watched, baseline: u64) {
    report(name, watched);
    let peak = watched.samples[WARM_UP..].iter().max().unwrap();
    assert!(
        *peak <= baseline + GROWTH_KIB,
        "{name}: {peak} KiB resident, more than {GROWTH_KIB} KiB over {baseline} KiB: {:?}",
        watched.samples
    );
    let longest = watched.lines.iter().map(String::len).max().unwrap_or(0);
    assert!(longest <= LONGEST_LINE, "{name}: a line of {longest} bytes");
    assert!(
        watched.lines.len() < 2000,
        "{name}: {} lines",
        watched.lines.len()
    );
}

#[test]
fn long_searches_keep_their_memory() {
    let mut server = Server::start(&["nboard", "--no-book", "--threads", "1"]);
    server.send("nboard 2");
    server.send("set depth 30");
    let game = "(;GM[Othello]PC[NBoard]DT[2026-11-21 02:19:07 GMT]PB[]PW[]RE[?]TI[5:00]TY[8]\
        BO[8 ---------------------------O*------*O--------------------------- *]\
        B[f5]W[d6]B[c3]W[d3]B[c4]W[f4]B[f6]W[f3]B[e6]W[e7];)";
    server.send(&format!("set game {game}"));
    server.send("ping 1");
    server.until(|l| l == "pong 1");
    let hint = watch(&mut server, "hint 64", Duration::from_secs(12), 2);
    let baseline = hint.samples[WARM_UP];
    assert_bounded("hint 64 at depth 30", &hint, baseline);
    let analyze = watch(&mut server, "analyze", Duration::from_secs(12), 3);
    assert_bounded("analyze at depth 30", &analyze, baseline);
    drop(server.finish());
}
