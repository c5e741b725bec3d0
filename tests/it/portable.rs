//! The build runs on x86-64 CPUs below the build machine's (`.cargo/config.toml` targets
//! x86-64-v2 and picks AVX2 at run time): the engine binary, run by `qemu-x86_64` (Debian
//! package qemu-user, which `.ci/run` installs) as a CPU without AVX2, plays a whole game with
//! legal moves only; as a CPU below the baseline, it refuses in one line instead of dying of an
//! illegal instruction.

#![cfg(target_arch = "x86_64")]

use crate::common::server::Server;
use crate::common::{ENGINE, colour};
use othello_engine::board::{Move, Position};

/// qemu's user-mode x86-64 emulator, if installed.
fn find_qemu() -> Option<String> {
    let found = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(|d| format!("{d}/qemu-x86_64"))
        .find(|p| std::path::Path::new(p).is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("OTHELLO_REQUIRE_QEMU").is_none(),
            "qemu-x86_64 is required here but not installed"
        );
        eprintln!("qemu-x86_64 not installed (apt-get install qemu-user); skipping");
    }
    found
}

#[test]
fn a_cpu_without_avx2_plays_a_whole_game() {
    let Some(qemu) = find_qemu() else { return };
    // Nehalem (2008): POPCNT and SSE4.2, no AVX.
    let mut engine = Server::start_program(
        &qemu,
        &[
            "-cpu",
            "Nehalem",
            ENGINE,
            "gtp",
            "--level",
            "2",
            "--threads",
            "1",
        ],
    );
    let mut position = Position::start();
    while !position.is_game_over() {
        if position.must_pass() {
            position = position.pass();
            continue;
        }
        let mover = position.side_to_move();
        let reply = engine.gtp(&format!("genmove {}", colour(mover)));
        let text = reply[0].strip_prefix("= ").expect("a success reply");
        let mv: Move = text.parse().expect("a move");
        assert!(position.is_legal(mv), "{mv} in\n{position}");
        position = position.play(mv).expect("legal");
    }
    assert_eq!(
        engine.gtp("final_score"),
        [crate::common::final_score_reply(&position)]
    );
    engine.finish();
}

#[test]
fn a_cpu_below_the_baseline_is_refused_in_one_line() {
    let Some(qemu) = find_qemu() else { return };
    // Core 2 (2006): no SSE4.2, no POPCNT.
    let out = std::process::Command::new(qemu)
        .args(["-cpu", "core2duo", ENGINE, "perft", "3"])
        .output()
        .expect("qemu runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("needs an x86-64-v2 CPU") && stderr.contains("popcnt"),
        "{stderr}"
    );
}

/// `othello-engine <args>` with `OTHELLO_CPU_LEVEL` set (or not): status, stdout, stderr.
fn run_at_level(level: Option<&str>, args: &[&str]) -> (bool, String, String) {
    let mut command = crate::common::engine_command();
    command.args(args);
    command.env_remove("OTHELLO_CPU_LEVEL");
    if let Some(level) = level {
        command.env("OTHELLO_CPU_LEVEL", level);
    }
    let o = command.output().expect("the binary starts");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (o.status.success(), text(&o.stdout), text(&o.stderr))
}

/// The last line of `bench`, `solve` and `perft 10` (their node and leaf totals).
fn totals(level: Option<&str>) -> (String, String, String) {
    let ffo = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/positions/fforum-1-19.obf"
    );
    let last = |args: &[&str]| {
        let (ok, stdout, stderr) = run_at_level(level, args);
        assert!(ok, "{args:?} at {level:?}: {stdout}{stderr}");
        let line = stdout.lines().last().unwrap_or_default();
        // Drop the timings: nodes and answers must agree, not the speed.
        let words: Vec<&str> = line.split_whitespace().collect();
        let nodes = words
            .iter()
            .position(|&w| w.starts_with("nodes"))
            .unwrap_or(0);
        words[..nodes].join(" ")
    };
    let (ok, stdout, _) = run_at_level(level, &["perft", "10"]);
    assert!(ok, "perft at {level:?}: {stdout}");
    // `   10   24571284   0.041   ...`: the depth and the leaves.
    let perft = stdout.lines().last().unwrap_or_default();
    let perft: Vec<&str> = perft.split_whitespace().take(2).collect();
    (
        last(&["bench"]),
        last(&["solve", "--threads", "1", ffo]),
        perft.join(" "),
    )
}

/// Every lower level a CPU can be forced to runs the same search: the same bench nodes and the
/// same FFO #1–#19 answers and nodes, and the same perft, as the level chosen by default. On a CPU with AVX-512
/// this covers the three copies of the solver, AVX2 move generation and `pext` gathers.
#[test]
fn forced_lower_levels_search_the_same_nodes() {
    use othello_engine::board::cpu::{Level, detected};
    let default = totals(None);
    assert!(default.1.contains("0 wrong"), "{default:?}");
    assert_eq!(default.2, "10 24571284", "perft 10 of the start");
    for (name, level) in [("v2", Level::V2), ("v3", Level::V3)] {
        if level > detected() {
            continue;
        }
        let (ok, version, _) = run_at_level(Some(name), &["--version"]);
        assert!(
            ok && version.contains(&format!("x86-64-{name}, forced")),
            "{version}"
        );
        assert_eq!(
            totals(Some(name)),
            default,
            "forced {name} against the default"
        );
    }
}

/// A level the CPU lacks, or none known, is refused in one line with status 1.
#[test]
fn a_forced_level_the_cpu_lacks_is_refused_in_one_line() {
    use othello_engine::board::cpu::{Level, detected};
    let mut bad = vec!["v9"];
    if detected() < Level::V4 {
        bad.push("v4");
    }
    for level in bad {
        let mut command = crate::common::engine_command();
        let o = command
            .env("OTHELLO_CPU_LEVEL", level)
            .arg("--version")
            .output()
            .expect("the binary starts");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{level}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{level}: {stderr}");
        assert!(stderr.contains("OTHELLO_CPU_LEVEL"), "{stderr}");
        assert!(o.stdout.is_empty());
    }
}
