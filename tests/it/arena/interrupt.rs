//! SIGTERM stops a match promptly, keeps the finished games in its files and stops its
//! engines; `--resume` then plays only what is missing.

use super::{fixture, game_lines, match_command, pids, running, summary_of, text, without_times};
use crate::common::{sigterm, temp_dir};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The resumable match of the interruption test: our level 2 at depth 2 against the fixture
/// slowed down to 15 ms a move, both deterministic, 12 games two at a time.
fn resumable_match(results: &Path, ggf: &Path, extra: &[&str]) -> Command {
    let mut command = match_command();
    command
        .args(["--engine", "name=self2,self:--level 2"])
        .args(["--engine", &format!("name=fixture,gtp:{}", fixture())])
        .args(["--opening-plies", "4", "--max-openings", "6", "--seed", "5"])
        .args(["--depth", "2", "--concurrency", "2"])
        .args(["--results", results.to_str().unwrap()])
        .args(["--ggf", ggf.to_str().unwrap()])
        .args(extra)
        .env("GTP_FIXTURE_DELAY_MS", "15");
    command
}

/// The schedule numbers of the records of a GGF file, in file order.
fn ggf_numbers(ggf: &Path) -> Vec<usize> {
    std::fs::read_to_string(ggf)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            l.split_once("PC[othello-engine match, game ")?
                .1
                .split_once(']')?
                .0
                .parse()
                .ok()
        })
        .collect()
}

#[test]
fn a_match_stopped_by_sigterm_resumes_to_the_results_of_an_uninterrupted_run() {
    let dir = temp_dir("arena-resume");
    let whole = dir.join("resume-whole.json");
    let whole_ggf = dir.join("resume-whole.ggf");
    let cut = dir.join("resume-cut.json");
    let cut_ggf = dir.join("resume-cut.ggf");
    let read = |p: &PathBuf| without_times(&std::fs::read_to_string(p).unwrap_or_default());

    let o = resumable_match(&whole, &whole_ggf, &[])
        .output()
        .expect("the binary starts");
    let all = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(game_lines(&all).len(), 12, "{all}");

    // The same match, stopped by SIGTERM once three games are done.
    let mut child = resumable_match(&cut, &cut_ggf, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut before = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let game = line.starts_with("game ");
        before.push(line);
        if before.iter().filter(|l| l.starts_with("game ")).count() == 3 && game {
            break;
        }
    }
    let clock = Instant::now();
    sigterm(child.id());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    let mut err = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    let stopped = format!("{}\n{}", before.join("\n"), rest.join("\n"));
    assert_eq!(status.code(), Some(143), "{stopped}\n{err}");
    assert!(clock.elapsed() < Duration::from_secs(5), "stops promptly");
    assert!(
        stopped.contains("match interrupted by SIGTERM"),
        "{stopped}"
    );
    assert!(
        stopped.contains("finished "),
        "the summary so far: {stopped}"
    );
    let kept = game_lines(&stopped).len();
    assert!((3..12).contains(&kept), "{stopped}");
    // Every finished game is in both files, and nothing else.
    assert_eq!(
        read(&cut).matches("\"game\":").count(),
        kept,
        "{}",
        read(&cut)
    );
    assert_eq!(ggf_numbers(&cut_ggf).len(), kept);

    // Resumed: only the missing games are played, and the files end as the whole run's.
    let o = resumable_match(&cut, &cut_ggf, &["--resume"])
        .output()
        .expect("the binary starts");
    let resumed = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        resumed.contains(&format!(
            "resuming: {kept} games already played, {} to play",
            12 - kept
        )),
        "{resumed}"
    );
    assert_eq!(game_lines(&resumed).len(), 12 - kept, "{resumed}");
    assert_eq!(summary_of(&resumed), summary_of(&all));
    assert_eq!(read(&cut), read(&whole), "byte for byte, times aside");
    let mut numbers = ggf_numbers(&cut_ggf);
    numbers.sort();
    assert_eq!(numbers, (1..=12).collect::<Vec<_>>(), "each game once");

    // Resuming a complete match plays nothing and changes nothing.
    let o = resumable_match(&cut, &cut_ggf, &["--resume"])
        .output()
        .expect("the binary starts");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(game_lines(&text(&o.stdout)).is_empty());
    assert_eq!(read(&cut), read(&whole));
    assert_eq!(ggf_numbers(&cut_ggf).len(), 12);

    // The results file of another match is refused.
    let o = resumable_match(&cut, &cut_ggf, &["--resume", "--max-openings", "5"])
        .output()
        .expect("the binary starts");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot resume from results file")
            && err.contains("its schedule has 12 games, this match's 10"),
        "{err}"
    );
    assert!(game_lines(&text(&o.stdout)).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_stops_a_hung_engine_and_keeps_the_results_file() {
    let engine = fixture();
    let started = temp_dir("arena-hung-pids");
    let dir = temp_dir("arena-hung");
    let results = dir.join("hung.json");
    // The stuck engine plays one move, then never answers; no clock (--depth), so only
    // the interruption can end the game before its two minutes are up.
    let mut child = match_command()
        .args(["--engine", &format!("name=good,gtp:{engine}")])
        .args(["--engine", &format!("name=stuck,gtp:{engine} hang 1")])
        .args([
            "--opening-plies",
            "2",
            "--max-openings",
            "1",
            "--depth",
            "1",
        ])
        .args(["--results", results.to_str().unwrap()])
        .env("GTP_FIXTURE_PID_DIR", &started)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    // Two engines probed, then the two of the first game.
    let clock = Instant::now();
    while pids(&started).len() < 4 && clock.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(pids(&started).len(), 4);
    std::thread::sleep(Duration::from_millis(500));
    let clock = Instant::now();
    sigterm(child.id());
    let mut out = String::new();
    let _ = child.stdout.take().unwrap().read_to_string(&mut out);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{out}");
    assert!(clock.elapsed() < Duration::from_secs(5), "stops promptly");
    assert!(
        out.contains("match interrupted by SIGTERM: 0 games finished, 1 under way abandoned"),
        "{out}"
    );
    assert!(out.contains("finished 0 games"), "{out}");
    for pid in pids(&started) {
        assert!(!running(pid), "engine {pid} is still running");
    }
    let written = std::fs::read_to_string(&results).unwrap_or_default();
    assert!(written.contains("\"scheduled_games\": 2"), "{written}");
    assert_eq!(written.matches("\"game\":").count(), 0, "{written}");
    let _ = std::fs::remove_dir_all(started);
    let _ = std::fs::remove_dir_all(dir);
}
