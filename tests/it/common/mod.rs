//! Helpers shared by the integration tests, which reach them as `crate::common`.
//!
//! * here: the engine binary and the one-shot runner [`run`], [`temp_dir`], the paths of the
//!   repository's test data, GTP colours and scores, the gtp-rhino lookup, SIGTERM.
//! * `server`: the process harness that drives a line-protocol program (ours or a peer).
//! * `obf`: the OBF files of `data/positions/`.
//! * `reference`: a second, deliberately simple implementation of the rules.
//! * `rng`: seeded generators.

pub mod obf;
pub mod reference;
pub mod rng;
pub mod server;
pub mod strict_ggf;

use othello_engine::board::{Color, Position};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::{Mutex, PoisonError};

/// The engine binary cargo built for the tests.
pub const ENGINE: &str = env!("CARGO_BIN_EXE_othello-engine");

/// The command that starts the engine under test: [`ENGINE`], or another build of it named by
/// `OTHELLO_TEST_ENGINE` and started through the words of `OTHELLO_TEST_RUNNER` (for example
/// the Windows `.exe` under `wine`, or the ARM build under `qemu-aarch64`: see .ci/run).
pub fn engine_command() -> Command {
    let engine = std::env::var("OTHELLO_TEST_ENGINE").unwrap_or_else(|_| ENGINE.to_string());
    let runner = std::env::var("OTHELLO_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            command.args(words).arg(engine);
            command
        }
        None => Command::new(engine),
    }
}

/// Runs `othello-engine <args>` to the end, with its output.
pub fn run(args: &[&str]) -> Output {
    engine_command()
        .args(args)
        .output()
        .expect("the binary starts")
}

/// A fresh, empty folder for one test, `<temp>/othello-engine-<pid>-<name>` (what an earlier
/// run left there is removed). All tests share one process, so a name is taken once: by
/// custom `<module>-<what>`, and a second `temp_dir` of the same name panics.
pub fn temp_dir(name: &str) -> PathBuf {
    static TAKEN: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut taken = TAKEN.lock().unwrap_or_else(PoisonError::into_inner);
    assert!(
        !taken.iter().any(|n| n == name),
        "temp_dir({name:?}) is already another test's"
    );
    taken.push(name.to_string());
    let dir = std::env::temp_dir().join(format!("othello-engine-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// `data/<relative>` of the crate, wherever the tests run from: the test positions and WTHOR
/// games are in the repository, so that a checkout alone passes its tests.
pub fn data(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(relative)
}

/// A colour as GTP writes it.
pub fn colour(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// The GTP `final_score` reply the rules give for a finished game: `= 0`, `= B+n` or `= W+n`.
pub fn final_score_reply(position: &Position) -> String {
    let mut black = position.final_score();
    if position.side_to_move() == Color::White {
        black = -black;
    }
    match black {
        0 => "= 0".to_string(),
        b if b > 0 => format!("= B+{b}"),
        b => format!("= W+{}", -b),
    }
}

/// gtp-rhino (Debian package grhino, which `.ci/run` installs): on PATH or in /usr/games.
pub fn find_gtp_rhino() -> Option<String> {
    let mut dirs: Vec<String> = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(str::to_string)
        .collect();
    dirs.push("/usr/games".into());
    dirs.into_iter()
        .map(|d| format!("{d}/gtp-rhino"))
        .find(|p| std::path::Path::new(p).is_file())
}

/// The moves NBoard `search` and `book` lines name (the first two characters of each
/// principal variation), lower case, sorted, each once.
pub fn moves_named(lines: &[String]) -> Vec<String> {
    let mut named: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("search ") || l.starts_with("book "))
        .filter_map(|l| {
            l.split(' ')
                .nth(1)
                .and_then(|pv| pv.get(..2))
                .map(str::to_lowercase)
        })
        .collect();
    named.sort();
    named.dedup();
    named
}

/// Runs the engine with `args`, sends it SIGTERM once `started` holds, and returns how it
/// ended.
pub fn stop_with_sigterm(args: &[&str], started: impl Fn() -> bool) -> std::process::ExitStatus {
    let mut child = Command::new(ENGINE)
        .args(args)
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !started() {
        assert!(
            std::time::Instant::now() < deadline,
            "the run made no progress"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    sigterm(child.id());
    child.wait().expect("the run ends")
}

/// Sends SIGTERM to process `pid`.
pub fn sigterm(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -TERM {pid}");
}
