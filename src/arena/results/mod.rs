//! Results files (`--results`): the machine-readable summary of a match, in JSON (engines,
//! schedule, pairings with their statistics, games) or CSV (one row per game), and the reader
//! `match merge` and `--resume` use. Every game is there with its place in the schedule, so
//! the pairing statistics, pentanomial counts included, can be worked out again from any set
//! of files.
//!
//! - [`model`]: the results and their checks; [`csv`] and [`json`]: the two file formats.

pub mod csv;
pub mod json;
pub mod model;

pub use model::{GameRow, Results};

/// The results as a file's text: JSON when `json`, otherwise CSV.
pub fn results_text(results: &Results, json: bool) -> String {
    if json {
        json::write(results)
    } else {
        csv::write(results)
    }
}

/// Writes the results to `path`, atomically (a reader or a crash never sees half a file):
/// JSON when it ends in `.json`, otherwise CSV.
pub fn write_results(path: &str, results: &Results) -> std::io::Result<()> {
    let text = results_text(results, path.ends_with(".json"));
    crate::sys::files::write_atomically(std::path::Path::new(path), text.as_bytes())
}

/// Reads a results file's text: JSON when it starts with `{`, otherwise CSV (see
/// [`csv::read`] for the engines of a CSV file). Games that no match writes are refused
/// (see [`Results::check`]).
pub fn read_results(text: &str) -> Result<Results, String> {
    let results = if text.trim_start().starts_with('{') {
        json::read(text)
    } else {
        csv::read(text)
    }?;
    results.check()?;
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Results {
        let row = |number, black: &str, white: &str, black_margin, forfeit: Option<&str>| GameRow {
            number,
            opening: "f5d6c3".into(),
            black: black.into(),
            white: white.into(),
            black_margin,
            forfeit: forfeit.map(str::to_string),
            black_seconds: None,
            white_seconds: None,
            black_peak_kib: None,
            white_peak_kib: None,
        };
        let timed = GameRow {
            black_seconds: Some(4.5),
            white_seconds: Some(0.25),
            ..row(3, "one", "two, \"quoted\"", 10, None)
        };
        Results {
            engines: vec!["one".into(), "two, \"quoted\"".into()],
            listed: true,
            scheduled: Some(8),
            shard: Some((2, 3)),
            games: vec![
                timed,
                row(
                    4,
                    "two, \"quoted\"",
                    "one",
                    64,
                    Some("white forfeits: unparsable reply 'a\tb'"),
                ),
            ],
        }
    }

    #[test]
    fn results_files_read_back_as_written() {
        let results = sample();
        let json = results_text(&results, true);
        assert_eq!(read_results(&json), Ok(results.clone()));
        let csv = results_text(&results, false);
        // CSV keeps the games; the engines come back from them, the schedule does not.
        let back = read_results(&csv);
        assert_eq!(back.as_ref().map(|r| &r.games), Ok(&results.games));
        assert_eq!(back.map(|r| r.engines), Ok(results.engines.clone()));
        // The statistics: engine one won its black game by 10 and lost the other by forfeit.
        let s = &results.scores()[0];
        assert_eq!(
            (s.wdl.wins, s.wdl.losses, s.penta.0),
            (1, 1, [0, 0, 1, 0, 0])
        );
        assert!(json.contains("\"pentanomial\": [0, 0, 1, 0, 0]"), "{json}");
        // Thinking times: one game gives them (the forfeited one has none).
        let times = results.think_times();
        assert_eq!(times.len(), 2);
        assert_eq!((times[0].games, times[0].mean, times[0].max), (1, 4.5, 4.5));
        assert_eq!(times[1].mean, 0.25);
        for bad in ["-1", "NaN", "x"] {
            let text = csv.replace("4.500", bad);
            assert!(read_results(&text).is_err(), "{bad}");
        }
    }

    #[test]
    fn engines_peak_memory_is_kept_in_json_and_compared_first_games_to_last() {
        let mut results = sample();
        results.games = (1..=300)
            .map(|number| GameRow {
                number,
                opening: "start".into(),
                black: if number % 2 == 1 { "one" } else { "two" }.into(),
                white: if number % 2 == 1 { "two" } else { "one" }.into(),
                black_margin: 0,
                forfeit: None,
                black_seconds: None,
                white_seconds: None,
                // Engine one grows by 1 KiB a game; engine two gives no figure after game 10.
                black_peak_kib: Some(if number % 2 == 1 {
                    80_000 + number as u64
                } else {
                    70_000
                })
                .filter(|_| number % 2 == 1 || number <= 10),
                white_peak_kib: Some(if number % 2 == 1 {
                    70_000
                } else {
                    80_000 + number as u64
                })
                .filter(|_| number % 2 == 0 || number <= 10),
            })
            .collect();
        results.engines = vec!["one".into(), "two".into()];
        results.scheduled = Some(300);
        results.shard = None;
        let json = results_text(&results, true);
        assert!(json.contains("\"black_peak_kib\": 80001"), "{json}");
        assert_eq!(read_results(&json), Ok(results.clone()));
        let memory = results.peak_memory();
        assert_eq!(memory.len(), 2);
        assert_eq!(
            (memory[0].window, memory[0].first_kib, memory[0].last_kib),
            (100, 80_100, 80_300)
        );
        // Ten figures for engine two: windows of five.
        assert_eq!((memory[1].window, memory[1].first_kib), (5, 70_000));
        let text = crate::arena::summary::summary(&results, None);
        assert!(
            text.ends_with("peak memory: one 82.0 MB in the first 100 games, 82.2 MB in the last 100; two 71.7 MB in the first 5 games, 71.7 MB in the last 5"),
            "{text}"
        );
        let bad = json.replace("\"black_peak_kib\": 80001", "\"black_peak_kib\": -3");
        assert!(read_results(&bad).is_err());
    }

    /// Files written before the JSON moved to serde (tests/fixtures/results/README.md).
    const EARLIER_FILES: [(&str, &str); 5] = [
        (
            "match.json",
            include_str!("../../../tests/fixtures/results/match.json"),
        ),
        (
            "match.csv",
            include_str!("../../../tests/fixtures/results/match.csv"),
        ),
        (
            "escapes.json",
            include_str!("../../../tests/fixtures/results/escapes.json"),
        ),
        (
            "escapes.csv",
            include_str!("../../../tests/fixtures/results/escapes.csv"),
        ),
        (
            "empty.json",
            include_str!("../../../tests/fixtures/results/empty.json"),
        ),
    ];

    #[test]
    fn files_of_earlier_versions_read_and_write_back_byte_for_byte() {
        for (name, text) in EARLIER_FILES {
            let results = read_results(text);
            let results = results.as_ref().map_err(|e| format!("{name}: {e}"));
            let results = results.expect("an earlier file reads");
            assert_eq!(
                results_text(results, name.ends_with(".json")),
                text,
                "{name}"
            );
        }
        let results = read_results(EARLIER_FILES[0].1);
        let results = results.as_ref().expect("reads");
        assert_eq!((results.games.len(), results.forfeits()), (20, 18));
        assert_eq!((results.scheduled, results.shard), (Some(20), Some((1, 1))));
        assert_eq!(results.engines[1], "bad \"q\" \\ x");
        let escapes = read_results(EARLIER_FILES[2].1);
        let forfeit = escapes.as_ref().map(|r| r.games[1].forfeit.as_deref());
        assert_eq!(
            forfeit,
            Ok(Some("white forfeits: unparsable reply 'a\tb\\c\r\n'"))
        );
    }

    #[test]
    fn files_written_before_the_schedule_fields_still_read() {
        let old = "{\n\"engines\": [\"a\", \"b\"],\n\"pairings\": [],\n\"games\": [\n{\"game\": 1, \"opening\": \"start\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": -2, \"forfeit\": null}\n]\n}\n";
        let r = read_results(old);
        assert_eq!(r.as_ref().map(|r| (r.scheduled, r.shard)), Ok((None, None)));
        assert_eq!(r.map(|r| r.games[0].black_margin), Ok(-2));
        let old_csv = "game,opening,black,white,black_margin,forfeit\r\n2,start,b,a,0,\r\n";
        let r = read_results(old_csv);
        assert_eq!(
            r.map(|r| (r.engines, r.games[0].pair())),
            Ok((vec!["a".into(), "b".into()], 0))
        );
    }

    #[test]
    fn bad_files_are_refused_with_the_place() {
        for (text, expected) in [
            ("{\"engines\": [\"a\"], \"games\": [", "line 1"),
            ("{\"engines\": [\"a\"]}", "no \"games\""),
            (
                "{\"engines\": [1], \"games\": []}",
                "line 1: invalid type: integer `1`, expected a string",
            ),
            (
                "{\"engines\": [], \"games\": [{\"game\": 0, \"opening\": \"x\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": 0}]}",
                "start at 1",
            ),
            (
                "{\"engines\": [], \"games\": [{\"game\": 1, \"opening\": \"x\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": 65}]}",
                "-64 to 64",
            ),
            ("{} x", "line 1: trailing characters"),
            ("game,opening\n1,x\n", "no 'black' column"),
            (
                "game,opening,black,white,black_margin,forfeit\n1,x,a,b,zero,\n",
                "line 2",
            ),
            (
                "game,opening,black,white,black_margin,forfeit\n1,\"x,a,b,0,\n",
                "not closed",
            ),
            ("", "empty file"),
            (
                "{\"engines\": [\"a\", \"b\"], \"scheduled_games\": 2, \"games\": [{\"game\": 3, \"opening\": \"x\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": 0}]}",
                "game 3 is numbered beyond the 2 scheduled games",
            ),
            (
                "game,opening,black,white,black_margin,forfeit\n2,x,a,a,0,\n",
                "game 2 has engine 'a' playing itself",
            ),
            (
                "game,opening,black,white,black_margin,forfeit\n2,x,a,b,0,\n2,x,a,b,0,\n",
                "game 2 is listed twice",
            ),
            (
                "{\"engines\": [\"a\", \"b\"], \"shard\": \"2\", \"games\": []}",
                "\"shard\" is not \"i/n\"",
            ),
            (
                "{\"engines\": [], \"games\": [{\"game\": 1, \"opening\": \"x\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": 2.5}]}",
                "game 1 of the list: black_margin 2.5 is not -64 to 64 discs",
            ),
            (
                "{\"engines\": [], \"games\": [{\"game\": 1.5, \"opening\": \"x\", \"black\": \"a\", \"white\": \"b\", \"black_margin\": 2}]}",
                "game 1 of the list: \"game\" is not a whole number",
            ),
        ] {
            let e = read_results(text).err().unwrap_or_default();
            assert!(e.contains(expected), "{text}: {e}");
        }
    }

    #[test]
    fn json_files_read_whatever_their_layout() {
        // Members in any order, unknown ones skipped, any white space, escapes of every kind.
        let text = " {\"games\":[{\"forfeit\":\"\",\"black_margin\":-2.0,\"white\":\"b\",\"black\":\"\\u00e9\\ud83d\\ude00\",\"opening\":\"start\",\"game\":1e0,\"note\":[1,true,null]}],\r\n\t\"engines\":[\"é😀\",\"b\"],\"scheduled_games\":null} ";
        let r = read_results(text);
        assert_eq!(
            r.as_ref()
                .map(|r| (&r.engines[0], &r.games[0].black, &r.games[0].forfeit)),
            Ok((&"é😀".to_string(), &"é😀".to_string(), &None))
        );
        assert_eq!(
            r.map(|r| (r.scheduled, r.shard, r.listed)),
            Ok((None, None, true))
        );
        // Nesting, however deep, in a member that is not read costs no stack.
        let deep = format!(
            "{{\"pairings\": {}{}, \"engines\": [], \"games\": []}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(read_results(&deep).is_ok());
    }

    #[test]
    fn empty_lists_keep_their_layout() {
        let empty = Results {
            engines: Vec::new(),
            listed: true,
            scheduled: None,
            shard: None,
            games: Vec::new(),
        };
        assert_eq!(
            results_text(&empty, true),
            "{\n\"engines\": [],\n\"scheduled_games\": null,\n\"shard\": null,\n\"pairings\": [\n\n],\n\"games\": [\n\n]\n}\n"
        );
    }
}
