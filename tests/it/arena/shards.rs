//! Shards: each plays every nth game of the schedule, and `match merge` joins their results
//! into the whole tournament's, refusing files it cannot combine.

use super::{fixture, game_lines, run, summary_of, text, without_times};
use crate::common::temp_dir;
use std::path::PathBuf;

#[test]
fn a_shard_plays_every_nth_game_of_the_schedule() {
    let engine = fixture();
    let spec = format!("gtp:{engine}");
    let o = run(&[
        "--engine",
        &spec,
        "--engine",
        &spec,
        "--opening-plies",
        "2",
        "--move-time",
        "0.5",
        "--shard",
        "2/3",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // 3 openings x 2 colours = 6 games in 3 pairs; shard 2 of 3 plays the second pair.
    let mut numbers: Vec<&str> = game_lines(&out)
        .iter()
        .filter_map(|l| l.strip_prefix("game ")?.split('/').next())
        .collect();
    numbers.sort();
    assert_eq!(numbers, ["3", "4"], "{out}");
}

#[test]
fn shards_merge_into_the_totals_of_the_whole_tournament() {
    // Fixed-depth games between two of our levels are deterministic, so the two shards of a
    // schedule played apart and merged must give what the whole schedule gives at once.
    let dir = temp_dir("arena-shards-merge");
    let whole = dir.join("whole.json");
    let first = dir.join("shard1.json");
    let second = dir.join("shard2.csv");
    let merged = dir.join("merged.json");
    let play = |results: &PathBuf, shard: Option<&str>| {
        let mut args = vec![
            "--engine",
            "name=classic,self:--level 1",
            "--engine",
            "name=discs,self:--level 1 --midgame-eval discs --opening-eval discs",
            "--opening-plies",
            "4",
            "--max-openings",
            "4",
            "--depth",
            "2",
            "--concurrency",
            "2",
            "--results",
            results.to_str().unwrap(),
        ];
        if let Some(shard) = shard {
            args.extend(["--shard", shard]);
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let all = play(&whole, None);
    let one = play(&first, Some("1/2"));
    let two = play(&second, Some("2/2"));
    assert_eq!(game_lines(&all).len(), 8, "{all}");
    assert_eq!(game_lines(&one).len(), 4, "{one}");
    assert_eq!(game_lines(&two).len(), 4, "{two}");
    let o = run(&[
        "merge",
        first.to_str().unwrap(),
        second.to_str().unwrap(),
        "--results",
        merged.to_str().unwrap(),
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        out.starts_with("merged 2 files (shards 1/2): 8 games of 8 scheduled"),
        "{out}"
    );
    assert_eq!(summary_of(&out), summary_of(&all));
    // The merged results file is the whole run's, byte for byte but for the thinking times.
    let read = |p: &PathBuf| without_times(&std::fs::read_to_string(p).unwrap_or_default());
    assert_eq!(read(&merged), read(&whole));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_refuses_files_it_cannot_combine() {
    let game = |n: usize, black: &str, white: &str| {
        format!(
            "{{\"game\": {n}, \"opening\": \"f5\", \"black\": \"{black}\", \"white\": \"{white}\", \"black_margin\": 2, \"forfeit\": null}}"
        )
    };
    let json = |engines: &str, games: &[String]| {
        format!(
            "{{\"engines\": [{engines}], \"scheduled_games\": 4, \"shard\": null, \"pairings\": [], \"games\": [{}]}}",
            games.join(", ")
        )
    };
    let files = [
        ("ab.json", json("\"a\", \"b\"", &[game(1, "a", "b")])),
        ("ac.json", json("\"a\", \"c\"", &[game(3, "a", "c")])),
        ("ab-again.json", json("\"a\", \"b\"", &[game(1, "a", "b")])),
        (
            "broken.json",
            "{\"engines\": [\"a\", \"b\"], \"games\": [".into(),
        ),
        ("broken.csv", "game,opening,black\n1,f5,a\n".into()),
        ("beyond.json", json("\"a\", \"b\"", &[game(5, "a", "b")])),
        ("itself.json", json("\"a\", \"b\"", &[game(3, "a", "a")])),
    ];
    let dir = temp_dir("arena-merge-refusals");
    let path = |name: &str| dir.join(format!("merge-{name}"));
    for (name, contents) in &files {
        std::fs::write(path(name), contents).unwrap();
    }
    let missing = path("missing.json");
    let cases = [
        (vec![path("ab.json"), path("ac.json")], "different engines"),
        (
            vec![path("ab.json"), path("ab-again.json")],
            "game 1 is in both",
        ),
        (
            vec![path("ab.json"), path("broken.json")],
            "cannot be read: line 1",
        ),
        (vec![path("broken.csv")], "no 'white' column"),
        (
            vec![path("ab.json"), path("beyond.json")],
            "merge-beyond.json' cannot be read: game 5 is numbered beyond the 4 scheduled games",
        ),
        (
            vec![path("itself.json")],
            "merge-itself.json' cannot be read: game 3 has engine 'a' playing itself",
        ),
        (vec![path("ab.json"), missing], "cannot read results file"),
        (vec![], "needs one or more results files"),
    ];
    for (paths, expected) in cases {
        let mut args = vec!["merge".to_string()];
        args.extend(paths.iter().map(|p| p.display().to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&refs);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
