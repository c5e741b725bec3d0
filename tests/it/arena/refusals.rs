//! Bad flags, specs and files are refused with exit status 2 and one line, before any game
//! (and before any engine starts when an output file cannot be written).

use super::{fixture, game_lines, match_command, pids, run, text};
use crate::common::temp_dir;
use std::time::{Duration, Instant};

#[test]
fn bad_input_exits_2_before_any_game() {
    let engine = fixture();
    let good = format!("gtp:{engine}");
    let dir = temp_dir("arena-bad-input");
    let missing_file = dir.join("no-such-openings.txt");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![good.clone(), "uci:stockfish".into()],
            "unknown kind 'uci'",
        ),
        (
            vec![good.clone(), "gtp:/no/such/engine".into()],
            "does not work",
        ),
        (vec![good.clone()], "at least two"),
        (vec![good.clone(), "nboard:true".into()], "does not work"),
        (
            vec![good.clone(), format!("depth=4,{good}")],
            "depth= is for nboard",
        ),
        (
            vec![good.clone(), good.clone(), "--tc".into(), "60+x".into()],
            "increment",
        ),
        (
            vec![good.clone(), good.clone(), "--tc".into(), "0".into()],
            "base time",
        ),
        (
            vec![
                good.clone(),
                good.clone(),
                "--tc".into(),
                "1".into(),
                "--move-time".into(),
                "1".into(),
            ],
            "not both",
        ),
        (
            vec![
                good.clone(),
                good.clone(),
                "--openings".into(),
                missing_file.display().to_string(),
            ],
            "cannot read openings file",
        ),
        (
            vec![
                good.clone(),
                good.clone(),
                "--sprt".into(),
                "elo0=5,elo1=0".into(),
            ],
            "bad --sprt",
        ),
        // A self: engine that refuses its flags is reported with its own error message.
        (
            vec![good.clone(), "name=x,self:--no-such-flag".into()],
            "unknown option '--no-such-flag'",
        ),
        (
            vec![good.clone(), good.clone(), "--resume".into()],
            "--resume needs --results",
        ),
    ];
    for (args, expected) in cases {
        let mut full = Vec::new();
        let mut rest = args.iter();
        // The leading SPECs become --engine options; the rest is passed as is.
        for a in rest.by_ref() {
            if a.starts_with("--") {
                full.push(a.clone());
                break;
            }
            full.push("--engine".into());
            full.push(a.clone());
        }
        full.extend(rest.cloned());
        let refs: Vec<&str> = full.iter().map(String::as_str).collect();
        let o = run(&refs);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{full:?}: {err}");
        assert!(err.contains(expected), "{full:?}: {err}");
        assert!(game_lines(&text(&o.stdout)).is_empty(), "{full:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_illegal_line_in_an_openings_file_is_named() {
    let engine = fixture();
    let dir = temp_dir("arena-illegal-opening");
    let path = dir.join("openings.txt");
    std::fs::write(&path, "f5d6\nf5f5\n").unwrap();
    let good = format!("gtp:{engine}");
    let o = run(&[
        "--engine",
        &good,
        "--engine",
        &good,
        "--openings",
        path.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(":2:") && err.contains("illegal"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unwritable_output_files_are_refused_before_any_engine_starts() {
    let engine = fixture();
    let good = format!("gtp:{engine}");
    let dir = temp_dir("arena-unwritable");
    let missing = dir.join("no-such-dir").join("none");
    let results = missing.join("r.json");
    let ggf = missing.join("g.ggf");
    for (n, (flag, path, expected)) in [
        (
            "--results",
            results.display().to_string(),
            format!("cannot write results file '{}'", results.display()),
        ),
        (
            "--ggf",
            ggf.display().to_string(),
            format!("cannot write GGF file '{}'", ggf.display()),
        ),
        (
            "--results",
            dir.display().to_string(),
            "is a directory".to_string(),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let started = temp_dir(&format!("arena-unwritable-pids-{n}"));
        let clock = Instant::now();
        let o = match_command()
            .args(["--engine", &good, "--engine", &good])
            .args(["--opening-plies", "4", "--move-time", "0.2", flag, &path])
            .env("GTP_FIXTURE_PID_DIR", &started)
            .output()
            .expect("the binary starts");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {path}: {err}");
        assert!(err.contains(&expected), "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(game_lines(&text(&o.stdout)).is_empty());
        assert!(pids(&started).is_empty(), "no engine may start: {err}");
        assert!(clock.elapsed() < Duration::from_secs(5), "refused at once");
        let _ = std::fs::remove_dir_all(started);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
