//! `othello-engine review`: the values and losses it gives against known facts (FFO #1's move
//! values, a WTHOR game's players and score), its four outputs, batches, and bad input.

use crate::common::{self, data, run, temp_dir};
use othello_engine::game::ggf::parse_ggf;
use std::process::Output;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    text(&o.stdout)
}

/// FFO #1 as a GGF game from its set-up board, with Black's first move `first`.
fn ffo1_game(first: &str) -> String {
    let obf = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO--";
    format!(
        "(;GM[Othello]PB[Alice]PW[Bob]TY[8]BO[8 {} *]B[{first}];)",
        obf.replace('X', "*")
    )
}

#[test]
fn losses_in_the_solvers_reach_are_exact_and_match_ffo() {
    // FFO #1: G8 +18, H1 +12, B1 -4 (the suite's values for Black); a loss of 6 discs or
    // more is a blunder.
    let dir = temp_dir("review-ffo");
    for (first, value, loss) in [
        ("B1", "-4", "22.00"),
        ("H1", "+12", "6.00"),
        ("G8", "+18", "0.00"),
    ] {
        let path = dir.join(format!("{first}.ggf"));
        std::fs::write(&path, ffo1_game(first)).unwrap();
        let out = ok(&run(&["review", path.to_str().unwrap(), "--threads", "1"]));
        let row = out
            .lines()
            .find(|l| l.trim_start().starts_with("1 black"))
            .unwrap_or_else(|| panic!("no row: {out}"));
        let words: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            words[2..8],
            [
                &first.to_ascii_lowercase(),
                value,
                "g8",
                "+18",
                loss,
                "exact"
            ],
            "{out}"
        );
        assert_eq!(
            words.get(8).copied(),
            (first != "G8").then_some("blunder"),
            "{out}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_wthor_game_in_every_output() {
    let wthor = data("wthor/WTH_2019.wtb");
    let wthor = wthor.to_str().unwrap();
    let dir = temp_dir("review-wthor");
    let svg = dir.join("game.svg");
    let quick = ["--wthor-game", "1", "--time", "0.02", "--threads", "1"];
    let out = ok(&run(&[
        &["review", wthor, "--svg", svg.to_str().unwrap()],
        &quick[..],
    ]
    .concat()));
    // The players from WTHOR.JOU and Black's score from the record (22 discs).
    assert!(
        out.starts_with("WTH_2019.wtb #1: Hand David (black) vs Leader Imre (white), 22-42\n"),
        "{out}"
    );
    let rows = out
        .lines()
        .filter(|l| l.contains(" black ") || l.contains(" white "))
        .count();
    assert!((55..=60).contains(&rows), "{out}");
    assert!(out.contains("\nblack (Hand David): lost "), "{out}");
    let picture = std::fs::read_to_string(&svg).expect("an SVG file");
    assert!(picture.starts_with("<svg"), "{picture}");
    assert!(picture.contains("Hand David (black) vs Leader Imre (white), 22-42"));

    let json = ok(&run(
        &[&["review", wthor, "--format", "json"], &quick[..]].concat()
    ));
    let game: serde_json::Value = serde_json::from_str(json.trim()).expect("one JSON line");
    // Values as the text table shows them, to the hundredth (sums once wrote
    // `10.629999999999999`): no number has more than two decimals.
    for number in json.split(|c: char| !(c.is_ascii_digit() || c == '.')) {
        let decimals = number.split_once('.').map_or(0, |(_, d)| d.len());
        assert!(decimals <= 2, "{number} in {json}");
    }
    assert_eq!(game["black"], "Hand David");
    assert_eq!(
        (game["black_discs"].as_i64(), game["white_discs"].as_i64()),
        (Some(22), Some(42))
    );
    let moves = game["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), rows);
    assert!(
        moves
            .iter()
            .all(|m| m["loss"].as_f64().is_some_and(|l| l >= 0.0))
    );
    assert_eq!(moves[0]["played"], "f5");

    let ggf = ok(&run(
        &[&["review", wthor, "--format", "ggf"], &quick[..]].concat()
    ));
    let read = parse_ggf(ggf.trim()).expect("the GGF reads back");
    // NBoard opens it (it refused the `GN` property this file once had).
    assert_eq!(crate::common::strict_ggf::nboard_reads(ggf.trim()), Ok(()));
    assert_eq!(
        read.players,
        ["Hand David".to_string(), "Leader Imre".to_string()]
    );
    let evals = read
        .record
        .moves()
        .iter()
        .filter(|m| m.eval.is_some())
        .count();
    assert_eq!(evals, rows);
    assert!(read.record.current().is_game_over());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_batch_prints_a_line_per_game_and_a_table_per_player() {
    let wthor = data("wthor/WTH_2019.wtb");
    let o = run(&[
        "review",
        wthor.to_str().unwrap(),
        "--wthor-game",
        "1-3",
        "--time",
        "0.01",
        "--threads",
        "1",
    ]);
    let out = ok(&o);
    let games: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("WTH_2019.wtb #"))
        .collect();
    assert_eq!(games.len(), 3, "{out}");
    assert!(games[0].starts_with("WTH_2019.wtb #1: Hand David vs Leader Imre 22-42: black lost "));
    let table = out.split("\n\n").nth(1).expect("the players' table");
    assert!(table.starts_with("player "), "{out}");
    // A header and a row per player name (three games: two to six names).
    assert!((3..=7).contains(&table.lines().count()), "{out}");
    assert!(table.contains("Hand David "), "{out}");
    // Progress goes to stderr, as plain lines without a terminal.
    assert!(text(&o.stderr).contains("review: "), "{}", text(&o.stderr));
}

#[test]
fn bad_games_are_named_and_skipped_and_bad_flags_refused() {
    let dir = temp_dir("review-bad");
    let games = dir.join("games.ggf");
    let good = ffo1_game("G8");
    let bad = good.replace("B[G8]", "B[A1]");
    std::fs::write(&games, format!("{good}\n{bad}\n")).unwrap();
    let o = run(&["review", games.to_str().unwrap(), "--threads", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("review: skipped games.ggf #2: illegal move B[A1]"));
    assert_eq!(
        text(&o.stdout)
            .lines()
            .filter(|l| l.starts_with("games.ggf #"))
            .count(),
        1
    );
    let missing = dir.join("missing.ggf");
    for args in [
        vec!["review", missing.to_str().unwrap()],
        vec!["review", "f5f5"],
        vec!["review", "f5", "--time", "-1"],
        vec!["review", "f5", "--wthor-game", "0"],
        vec!["review", "f5", "--format", "pdf"],
        vec!["review"],
    ] {
        let o = common::run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
