//! The build runs on x86-64 CPUs below the build machine's (`.cargo/config.toml` targets
//! x86-64-v2 and picks AVX2 at run time): the engine binary, run by `qemu-x86_64` (Debian
//! package qemu-user, which `.ci/run` installs) as a CPU without AVX2, plays a whole game with
//! legal moves only; as a CPU below the baseline, it refuses in one line instead of dying of an
//! illegal instruction.

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

#[cfg(target_arch = "x86_64")]
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

#[cfg(target_arch = "x86_64")]
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
