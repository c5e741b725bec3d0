//! `othello-engine datagen` run as a program: the same flags give the same bytes, shards run by
//! GNU parallel and merged give the bytes of one run, a cut file resumed gives them too, the
//! exact labels agree with the solver, and bad input changes no file.
//!
//! * `wthor`: WTHOR games as the source of positions.
//! * `consumers`: `mpc calibrate` and `train` on datagen's files.
//! * `shards`: shard folders (`--out-dir`), their resume, and the files they refuse.
//! * `labellers`: the network as labeller, and `train` over several folders.
//! * `pilot`: the label pilot's `datagen reference`, `compare` and `swing`.

mod consumers;
mod labellers;
mod pilot;
mod shards;
mod wthor;

use crate::common::{ENGINE, run, stop_with_sigterm, temp_dir};
use othello_engine::board::{Color, Position};
use othello_engine::fit::dataset::{FLAG_WTHOR, Sample, read_dataset};
use othello_engine::search::Searcher;
use std::path::Path;
use std::process::{Command, Output};

/// Small games, so that the whole file runs in seconds.
const SMALL: &[&str] = &["--games", "6", "--solve-empties", "12", "--depth", "2"];

/// Runs `datagen` with `flags` and `--out out`; asserts success.
fn datagen(flags: &[&str], out: &Path) -> Output {
    let mut args = vec!["datagen"];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--out", out.to_str().expect("a UTF-8 path")]);
    let o = run(&args);
    assert!(
        o.status.success(),
        "datagen {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn position(s: &Sample) -> Position {
    Position::from_player_opponent(s.player, s.opponent, Color::Black)
}

#[test]
fn the_same_flags_give_the_same_bytes_and_another_seed_other_games() {
    let dir = temp_dir("datagen-repeat");
    let (a, b, c) = (dir.join("a.bin"), dir.join("b.bin"), dir.join("c.bin"));
    datagen(&[SMALL, &["--seed", "5"]].concat(), &a);
    datagen(&[SMALL, &["--seed", "5"]].concat(), &b);
    datagen(&[SMALL, &["--seed", "6"]].concat(), &c);
    assert_eq!(bytes(&a), bytes(&b));
    assert_ne!(bytes(&a), bytes(&c));
    let samples = read_dataset(&a).unwrap();
    let mut games: Vec<u32> = samples.iter().map(|s| s.game).collect();
    games.dedup();
    assert_eq!(games, [0, 1, 2, 3, 4, 5], "six games in order");
    // A game has at least 30 positions with a move: no game of Othello ends sooner than that.
    assert!(samples.len() >= 6 * 30, "{} records", samples.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_run_by_gnu_parallel_merge_into_the_bytes_of_one_run() {
    let dir = temp_dir("datagen-shards");
    let whole = dir.join("whole.bin");
    datagen(SMALL, &whole);
    let parts = dir.join("part{}.bin");
    let status = Command::new("parallel")
        .arg(ENGINE)
        .arg("datagen")
        .args(SMALL)
        .args(["--shard", "{}/2", "--out"])
        .arg(&parts)
        .args([":::", "1", "2"])
        .output();
    let output = match status {
        Ok(o) => o,
        Err(e) => {
            assert!(
                std::env::var_os("OTHELLO_REQUIRE_PARALLEL").is_none(),
                "GNU parallel is required here but cannot run: {e}"
            );
            eprintln!("GNU parallel not installed (apt-get install parallel); skipping");
            return;
        }
    };
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let (one, two) = (dir.join("part1.bin"), dir.join("part2.bin"));
    // Shard 1/2 plays games 0, 2, 4 and shard 2/2 games 1, 3, 5.
    let games = |p: &Path| {
        let mut g: Vec<u32> = read_dataset(p).unwrap().iter().map(|s| s.game).collect();
        g.dedup();
        g
    };
    assert_eq!(games(&one), [0, 2, 4]);
    assert_eq!(games(&two), [1, 3, 5]);
    let merged = dir.join("merged.bin");
    let o = run(&[
        "datagen",
        "merge",
        two.to_str().unwrap(),
        one.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(bytes(&merged), bytes(&whole));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cut_file_resumed_gives_the_bytes_of_the_uninterrupted_run() {
    let dir = temp_dir("datagen-resume");
    let (whole, cut) = (dir.join("whole.bin"), dir.join("cut.bin"));
    datagen(SMALL, &whole);
    let full = bytes(&whole);
    // Cut in the middle of a record of the third game, and right after the header.
    for keep in [16 + 24 * 150 + 11, 16, 16 + 24 * 61] {
        std::fs::write(&cut, &full[..keep]).unwrap();
        datagen(&[SMALL, &["--resume"]].concat(), &cut);
        assert_eq!(bytes(&cut), full, "cut at {keep} bytes");
    }
    // Resuming a finished run keeps it as it is.
    datagen(&[SMALL, &["--resume"]].concat(), &cut);
    assert_eq!(bytes(&cut), full);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exact_labels_agree_with_the_solver_and_endings_with_perfect_play() {
    let dir = temp_dir("datagen-labels");
    let out = dir.join("labels.bin");
    datagen(SMALL, &out);
    let samples = read_dataset(&out).unwrap();
    let mut searcher = Searcher::new(16, None);
    for s in &samples {
        let p = position(s);
        assert_ne!(p.legal_moves(), 0, "a recorded position has a move: {s:?}");
        assert_eq!(u32::from(s.empties), p.empty_count());
        assert_eq!(s.flags & FLAG_WTHOR, 0);
        assert_eq!(s.is_exact(), s.empties <= 12, "{s:?}");
        if s.is_exact() {
            assert_eq!(
                s.ending, s.value,
                "perfect play from the solve point: {s:?}"
            );
        }
    }
    // Every game's first exact position (its hardest), against a fresh solver.
    let mut checked = 0;
    for (i, s) in samples.iter().enumerate() {
        if s.is_exact() && (i == 0 || samples[i - 1].game != s.game || !samples[i - 1].is_exact()) {
            let (exact, _) = searcher.solve_window(&position(s), -65, 65);
            assert_eq!(i32::from(s.value), exact, "{s:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `datagen args` expecting exit status 2 and one line on stderr; returns the line.
#[test]
fn the_searches_value_positions_with_the_weights_given() {
    // `scripts/make-data` extends data/train/d6 with the weights that labelled it, whatever the
    // binary's own: those weights give their own labels, the same ones each time.
    let dir = temp_dir("datagen-weights");
    let (own, given, again) = (dir.join("a.bin"), dir.join("b.bin"), dir.join("c.bin"));
    let weights = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/train/d6/label-weights.bin"
    );
    let flags = [SMALL, &["--seed", "5", "--eval", "pattern"]].concat();
    datagen(&flags, &own);
    datagen(&[&flags[..], &["--weights", weights]].concat(), &given);
    datagen(&[&flags[..], &["--weights", weights]].concat(), &again);
    assert_eq!(bytes(&given), bytes(&again));
    let values = |path: &Path| -> Vec<i8> {
        read_dataset(path)
            .unwrap()
            .iter()
            .map(|s| s.value)
            .collect()
    };
    assert_ne!(
        values(&own),
        values(&given),
        "the built-in weights gave the same labels"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn refused(args: &[&str]) -> String {
    let o = run(args);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    stderr
}

#[test]
fn bad_input_gets_one_line_and_exit_status_2_and_changes_no_file() {
    let dir = temp_dir("datagen-bad");
    let good = dir.join("good.bin");
    datagen(SMALL, &good);
    let good_bytes = bytes(&good);
    let out = dir.join("new.bin");
    let out_s = out.to_str().unwrap();
    for (flags, says) in [
        (&["--games", "-1"][..], "bad games '-1'"),
        (&["--games", "6", "--shard", "3/2"], "bad --shard '3/2'"),
        (&["--games", "6", "--depth", "0"], "bad depth '0'"),
        (&["--games", "6", "--eval", "nosuch"], "unknown evaluator"),
        (&["--games", "6", "--eval", "random"], "not random"),
        (&["--games", "6", "--random-plies", "9-3"], "--random-plies"),
        (&["--games", "6", "--epsilon", "2"], "--epsilon"),
        (&["--games", "6", "--wthor", "/nonexistent"], "/nonexistent"),
        (
            &["--games", "6", "--weights", "/nonexistent.bin"],
            "/nonexistent.bin",
        ),
    ] {
        let mut args = vec!["datagen"];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["--out", out_s]);
        let line = refused(&args);
        assert!(line.contains(says), "{args:?}: {line}");
        assert!(!out.exists(), "{args:?} left {out_s}");
    }
    // An existing output file without --resume is kept as it is.
    let good_s = good.to_str().unwrap();
    let line = refused(&[&["datagen"], SMALL, &["--out", good_s]].concat());
    assert!(line.contains("--resume"), "{line}");
    assert_eq!(bytes(&good), good_bytes);

    // Files that are not whole data files: to merge, to count, to resume.
    let cut = dir.join("cut.bin");
    std::fs::write(&cut, &good_bytes[..good_bytes.len() - 5]).unwrap();
    let garbage = dir.join("garbage.bin");
    std::fs::write(&garbage, b"this is not a data file at all").unwrap();
    let (cut_s, garbage_s) = (cut.to_str().unwrap(), garbage.to_str().unwrap());
    let merged = dir.join("merged.bin");
    let merged_s = merged.to_str().unwrap();
    for (args, says) in [
        (
            vec!["datagen", "merge", good_s, cut_s, "--out", merged_s],
            "truncated",
        ),
        (
            vec!["datagen", "merge", good_s, garbage_s, "--out", merged_s],
            "OEDATA01",
        ),
        (
            vec!["datagen", "merge", good_s, good_s, "--out", merged_s],
            "game 0 is in both",
        ),
        (vec!["datagen", "stats", cut_s], "truncated"),
        (vec!["datagen", "stats", garbage_s], "OEDATA01"),
    ] {
        let line = refused(&args);
        assert!(line.contains(says), "{args:?}: {line}");
        assert!(!merged.exists());
    }
    let line = refused(&[&["datagen"], SMALL, &["--resume", "--out", garbage_s]].concat());
    assert!(line.contains("OEDATA01"), "{line}");
    assert_eq!(bytes(&garbage), b"this is not a data file at all");
    // A file of shard 1/2 is not resumed as shard 2/2.
    let shard = dir.join("shard.bin");
    datagen(&[SMALL, &["--shard", "1/2"]].concat(), &shard);
    let shard_bytes = bytes(&shard);
    let line = refused(
        &[
            &["datagen"],
            SMALL,
            &[
                "--shard",
                "2/2",
                "--resume",
                "--out",
                shard.to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    assert!(line.contains("shard 2/2"), "{line}");
    assert_eq!(bytes(&shard), shard_bytes);
    assert_eq!(bytes(&good), good_bytes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stats_count_what_the_file_holds() {
    let dir = temp_dir("datagen-stats");
    let out = dir.join("s.bin");
    datagen(SMALL, &out);
    let samples = read_dataset(&out).unwrap();
    let exact = samples.iter().filter(|s| s.is_exact()).count();
    let o = run(&["datagen", "stats", out.to_str().unwrap()]);
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(&format!(
            "{} records, 6 games, {exact} exact labels",
            samples.len()
        )),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_keeps_the_finished_games_and_resume_completes_the_run() {
    let dir = temp_dir("datagen-signal");
    let (whole, stopped) = (dir.join("whole.bin"), dir.join("stopped.bin"));
    // Games slow enough (depth 4, solved from 16 empties) to stop one under way.
    let flags = ["--games", "12", "--solve-empties", "16", "--depth", "4"];
    datagen(&flags, &whole);
    let out = stopped.to_str().unwrap();
    let args = [&["datagen"], &flags[..], &["--out", out]].concat();
    // Stopped once the first game is on disk.
    let status = stop_with_sigterm(&args, || {
        std::fs::metadata(&stopped).map_or(0, |m| m.len()) > 16
    });
    let partial = bytes(&stopped);
    let full = bytes(&whole);
    if status.code() == Some(143) {
        // Whole games only, the first ones of the run.
        assert!(partial.len() < full.len());
        assert_eq!((partial.len() - 16) % 24, 0);
        assert_eq!(partial[..], full[..partial.len()]);
    } else {
        // The run finished before the signal came.
        assert_eq!(status.code(), Some(0));
    }
    datagen(&[&flags[..], &["--resume"]].concat(), &stopped);
    assert_eq!(bytes(&stopped), full);
    let _ = std::fs::remove_dir_all(&dir);
}
