//! The command line as a user meets it: exit statuses and messages for good and bad input.

use crate::common::{run, temp_dir};
use std::process::Output;

mod matches;

/// Runs the binary with `args`: exit status 2 and one line on stderr holding `needle`, no
/// panic.
fn refused_in_one_line(args: &[String], needle: &str) {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&refs);
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    let err = stderr(&o);
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn perft_prints_each_depth() {
    let o = run(&["perft", "5"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    let counts: Vec<&str> = out
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 4 && f[0].parse::<u32>().is_ok()).then(|| f[1])
        })
        .collect();
    assert_eq!(counts, ["4", "12", "56", "244", "1396"]);
}

#[test]
fn perft_from_a_given_position() {
    // FFO #1 at depth 2, counted against the mailbox implementation in tests/it/perft.rs.
    let o = run(&[
        "perft",
        "1",
        "--position",
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["1", "8"])),
        "{out}"
    );
}

#[test]
fn bad_input_gets_one_line_and_status_2() {
    let start = "---------------------------OX------XO--------------------------- X";
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["perft".into(), "0".into()], "bad depth"),
        (vec!["perft".into(), "ten".into()], "bad depth"),
        (vec!["perft".into(), "-1".into()], "bad depth"),
        (vec!["perft".into()], "needs a depth"),
        (
            vec![
                "perft".into(),
                "3".into(),
                "--position".into(),
                start[..60].into(),
            ],
            "60 characters",
        ),
        (
            vec![
                "perft".into(),
                "3".into(),
                "--position".into(),
                start.replacen('-', "Q", 1),
            ],
            "square a1",
        ),
        (
            vec![
                "perft".into(),
                "3".into(),
                "--position".into(),
                start[..64].into(),
            ],
            "side to move",
        ),
        (
            vec![
                "perft".into(),
                "3".into(),
                "--position".into(),
                format!("{} B", &start[..64]),
            ],
            "side to move 'B'",
        ),
        (
            vec!["perft".into(), "3".into(), "--position".into()],
            "needs a value",
        ),
        (
            vec!["perft".into(), "3".into(), "--bogus".into()],
            "unknown option",
        ),
        (vec!["frobnicate".into()], "unknown command"),
    ];
    for (args, needle) in cases {
        refused_in_one_line(&args, needle);
    }
}

#[test]
fn search_commands_refuse_bad_input_with_status_2() {
    let dir = temp_dir("cli-refusals");
    let bad_obf = dir.join("bad.obf");
    std::fs::write(
        &bad_obf,
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18;\nnot a position\n",
    )
    .expect("write");
    let bad = bad_obf.to_string_lossy().into_owned();
    // A file that is neither training data nor weights.
    let garbage_file = dir.join("garbage.bin");
    std::fs::write(&garbage_file, b"these bytes are no weights and no data").expect("write");
    let garbage = garbage_file.to_string_lossy().into_owned();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["train"], "required arguments"),
        (vec!["train", "/nonexistent/data.bin"], "cannot read"),
        (vec!["train", &garbage], "garbage.bin"),
        (vec!["train", &garbage, "--epochs", "0"], "bad epochs"),
        (vec!["train", &garbage, "--rate", "2"], "bad --rate"),
        (vec!["train", &garbage, "--l2", "-1"], "bad --l2"),
        (vec!["train", &garbage, "--label", "guess"], "guess"),
        (vec!["train", &garbage, "--shapes", "round"], "bad --shapes"),
        (
            vec!["train", &garbage, "--method", "newton"],
            "bad --method",
        ),
        (vec!["train", &garbage, "--ridge", "-1"], "bad --ridge"),
        (
            vec!["train", &garbage, "--iterations", "0"],
            "bad iterations",
        ),
        (vec!["train", &garbage, "--threads", "0"], "bad threads"),
        (
            vec!["train", &garbage, "--counts", "corners"],
            "bad --counts",
        ),
        (vec!["analyse", "--weights", &garbage], "bad magic"),
        (
            vec!["bench", "--weights", "/nonexistent/w.bin"],
            "cannot read",
        ),
        (vec!["gtp", "--weights", &garbage], "bad magic"),
        (vec!["solve", "/nonexistent/file.obf"], "cannot read"),
        (vec!["solve", &bad, "--mode", "sometimes"], "bad --mode"),
        (
            vec!["analyse", "--midgame-eval", "psychic"],
            "unknown evaluator 'psychic'",
        ),
        (
            vec!["analyse", "--midgame-depth", "-4"],
            "bad midgame-depth '-4'",
        ),
        (
            vec!["analyse", "--endgame-mode", "maybe"],
            "unknown endgame mode",
        ),
        (vec!["analyse", "--level", "0"], "bad level"),
        (vec!["analyse", "--hash", "lots"], "bad hash size"),
        (vec!["analyse", "--time", "-1"], "bad --time"),
        (vec!["bench", "--eval", "nope"], "unknown evaluator"),
        (vec!["bench", "--depth", "-2"], "bad depth"),
        (vec!["analyse", "--threads", "0"], "bad thread count '0'"),
        (vec!["gtp", "--threads", "-3"], "bad thread count '-3'"),
        (
            vec!["solve", &bad, "--threads", "100000"],
            "bad thread count",
        ),
        (vec!["bench", "--threads", "many"], "bad thread count"),
        (vec!["gtp", "--ponder=maybe"], "bad switch 'maybe'"),
        (vec!["gtp", "--ponder", "on"], "unknown option 'on'"),
        (vec!["nboard", "--ponder=yes"], "bad switch 'yes'"),
    ];
    for (args, needle) in cases {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_reports_agreement_and_fails_on_a_wrong_answer_or_a_malformed_line() {
    let dir = temp_dir("cli-solve");
    let right = dir.join("right.obf");
    let wrong = dir.join("wrong.obf");
    let ffo1 = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";
    std::fs::write(&right, format!("{ffo1}; G8:+18; H1:+12;\n")).expect("write");
    std::fs::write(&wrong, format!("{ffo1}; H1:+12;\n")).expect("write");
    let o = run(&["solve", &right.to_string_lossy()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("g8") && out.contains("0 wrong"), "{out}");
    let o = run(&["solve", &wrong.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    // A malformed line is named and skipped; the others are solved; the status says so.
    let mixed = dir.join("mixed.obf");
    std::fs::write(
        &mixed,
        format!("{ffo1}; G8:+18;\nnot a position\n{ffo1}; G8:+18;\n"),
    )
    .expect("write");
    let o = run(&["solve", &mixed.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("mixed.obf:2") && err.contains("skipped"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("total: 2 positions (1 malformed skipped), 0 wrong"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn analyse_prints_depths_and_a_best_move() {
    let o = run(&["analyse", "--midgame-depth", "4", "--opening-depth", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let last = out.lines().last().unwrap_or_default();
    let mv = last.split_whitespace().nth(2).unwrap_or_default();
    assert!(["d3", "c4", "f5", "e6"].contains(&mv), "{out}");
}

#[test]
fn a_time_too_long_for_a_duration_is_no_limit() {
    // Once a Duration overflow panic.
    let o = run(&["analyse", "--time", "1e300", "--level", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
}

#[test]
fn a_hash_table_larger_than_memory_is_refused() {
    // 65536 MiB is within the flag's range; on a machine with less memory allocating it
    // aborted the process (status 134). Now it is refused up front.
    let total_mib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| {
                    l.split_whitespace()
                        .nth(1)
                        .and_then(|k| k.parse::<u64>().ok())
                })
        })
        .map(|kib| kib / 1024);
    if total_mib.is_none_or(|t| t > 65536) {
        eprintln!("skipped: this machine has 64 GiB or more, or no /proc/meminfo");
        return;
    }
    for args in [
        &["bench", "--hash", "65536"][..],
        &["analyse", "--hash", "65536"],
        &["gtp", "--hash", "65536"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let message = stderr(&o);
        assert!(message.contains("does not fit"), "{message}");
        assert_eq!(message.trim().lines().count(), 1, "{message}");
    }
}

#[cfg(unix)]
#[test]
fn a_closed_output_ends_a_report_quietly() {
    // `othello-engine book show | head -0`: the reader is gone before the first line, so the
    // first write fails; the process must end by SIGPIPE like other tools, not panic.
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::common::ENGINE)
        .args(["book", "show"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        out.status.signal(),
        Some(13),
        "ended by SIGPIPE: {:?}",
        out.status
    );
}

/// `openings build`: every kept line reads back as an opening whose position a fresh search
/// of the same depth values within the margin; a run stopped and resumed writes the file one
/// run writes; bad flags change nothing.
#[test]
fn openings_build_keeps_balanced_lines_and_resumes_to_the_same_file() {
    use othello_engine::eval::EvaluatorKind;
    use othello_engine::game::openings::parse_openings;
    use othello_engine::search::{Limits, PhaseLevel, Searcher, Selectivity};
    let dir = temp_dir("cli-openings");
    let whole = dir.join("whole.txt");
    let parts = dir.join("parts.txt");
    let flags = ["openings", "build", "--depth", "4", "--seed", "9"];
    let build = |out: &std::path::Path, more: &[&str]| {
        let mut a = flags.to_vec();
        a.extend_from_slice(&["--out", out.to_str().unwrap()]);
        a.extend_from_slice(more);
        let o = run(&a);
        assert!(o.status.success(), "{a:?}: {}", stderr(&o));
    };
    build(&whole, &["--count", "6"]);
    // A run stopped before its first opening leaves only the header; resuming it must not
    // write the header again.
    let header_only = dir.join("header.txt");
    build(&header_only, &["--count", "1"]);
    let first = std::fs::read_to_string(&header_only).unwrap();
    std::fs::write(&header_only, format!("{}\n", first.lines().next().unwrap())).unwrap();
    build(&header_only, &["--count", "1", "--resume"]);
    assert_eq!(std::fs::read_to_string(&header_only).unwrap(), first);
    build(&parts, &["--count", "2"]);
    build(&parts, &["--count", "6", "--resume"]);
    let text = std::fs::read_to_string(&whole).unwrap();
    assert_eq!(text, std::fs::read_to_string(&parts).unwrap());
    let openings = parse_openings(&text, "whole").unwrap();
    assert_eq!(openings.len(), 6);
    for (opening, line) in openings.iter().zip(text.lines().skip(1)) {
        let position = opening.position();
        let mut searcher = Searcher::new(4, Some(9));
        searcher.set_selectivity(Selectivity::ALL[2]);
        let level = PhaseLevel {
            depth: 4,
            eval: EvaluatorKind::Pattern,
        };
        let value = searcher
            .search(&position, level, &Limits::none(), &mut |_| {})
            .value
            .discs();
        assert!(value.abs() <= 2.0, "{line}: {value}");
    }

    for (bad, says) in [
        (vec!["--count", "0"], "count"),
        (vec!["--plies", "9-3"], "--plies"),
        (vec!["--max-discs", "x"], "--max-discs"),
        (vec!["--depth", "99"], "depth"),
        (vec![], "exists"),
    ] {
        let mut a = flags.to_vec();
        a.extend_from_slice(&["--out", whole.to_str().unwrap()]);
        a.extend_from_slice(&bad);
        let o = run(&a);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        assert_eq!(stderr(&o).lines().count(), 1, "{bad:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{bad:?}: {}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&whole).unwrap(), text);
    }
    let other = run(&[
        "openings",
        "build",
        "--depth",
        "5",
        "--seed",
        "9",
        "--count",
        "7",
        "--resume",
        "--out",
        whole.to_str().unwrap(),
    ]);
    assert_eq!(other.status.code(), Some(2));
    assert!(
        stderr(&other).contains("not made with these flags"),
        "{}",
        stderr(&other)
    );
    assert_eq!(std::fs::read_to_string(&whole).unwrap(), text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn network_flags_and_files_are_refused_with_status_2() {
    let dir = temp_dir("cli-network-refusals");
    let garbage_file = dir.join("garbage.net");
    std::fs::write(&garbage_file, b"no network here").expect("write");
    let garbage = garbage_file.to_string_lossy().into_owned();
    // A file `train` would overwrite: every refusal must leave it as it was.
    let out_file = dir.join("kept.net");
    std::fs::write(&out_file, b"kept").expect("write");
    let out = out_file.to_string_lossy().into_owned();
    let data = crate::common::data("train/pilot/d6");
    let data = data.to_string_lossy().into_owned();
    let train = |extra: &[&'static str]| {
        let mut args = vec![
            "train".to_string(),
            data.clone(),
            "--out".into(),
            out.clone(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (train(&["--model", "net", "--width", "24"]), "bad --width"),
        (train(&["--model", "net", "--hidden", "12"]), "bad --hidden"),
        (train(&["--model", "net", "--buckets", "0"]), "bad buckets"),
        (train(&["--model", "net", "--decay", "1.5"]), "bad --decay"),
        (
            train(&["--model", "net", "--ridge", "3"]),
            "--ridge is a flag of the linear fit",
        ),
        (train(&["--model", "forest"]), "bad --model 'forest'"),
        (
            vec![
                "bench".into(),
                "--eval".into(),
                "neural".into(),
                "--network".into(),
                garbage.clone(),
            ],
            "garbage.net",
        ),
    ];
    for (args, needle) in cases {
        refused_in_one_line(&args, needle);
        assert_eq!(std::fs::read(&out_file).expect("read"), b"kept", "{args:?}");
    }
}
