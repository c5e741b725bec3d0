//! `othello-engine match merge FILE... [--results OUT]`: one summary from the results files
//! of the shards of one tournament (`--shard i/n`), worked out again from their games.

use super::error::{MatchError, MatchFile};
use super::results::{Results, read_results, write_results};
use super::summary::summary;
use std::collections::HashMap;

/// Reads, checks and combines the results files `paths`, prints the summary and writes `out`
/// if asked. Files that cannot be read or parsed, that come from
/// different engines or schedules, or that hold the same game are refused (exit status 2).
pub fn run_merge(paths: &[String], out: Option<&str>) -> Result<(), MatchError> {
    if paths.is_empty() {
        return Err(MatchError::NothingToMerge);
    }
    let mut files = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|error| MatchError::CannotRead {
            path: path.clone(),
            error,
            resuming: false,
        })?;
        let results = read_results(&text).map_err(|error| MatchError::BadResults {
            path: path.clone(),
            error,
            resuming: false,
        })?;
        files.push((path.as_str(), results));
    }
    let merged = merge(&files).map_err(MatchError::Unmergeable)?;
    let shards: Vec<String> = files
        .iter()
        .filter_map(|(_, r)| r.shard.map(|(i, n)| format!("{i}/{n}")))
        .collect();
    println!(
        "merged {} files{}: {} games{}",
        files.len(),
        if shards.is_empty() {
            String::new()
        } else {
            format!(" (shards {})", shards.join(", "))
        },
        merged.games.len(),
        merged
            .scheduled
            .map_or(String::new(), |n| format!(" of {n} scheduled")),
    );
    println!("{}", summary(&merged, None));
    if let Some(path) = out {
        write_results(path, &merged).map_err(|error| MatchError::CannotWrite {
            file: MatchFile::Results,
            path: path.to_string(),
            error,
        })?;
    }
    Ok(())
}

/// Combines results files (with their names, for messages): the engines must be the same,
/// in the same order (a CSV file, which does not list them, must name only engines of the
/// others, or, among CSV files alone, the same ones); the schedules the same size where
/// the files say; and no game may appear twice. The games come out in schedule order.
pub fn merge(files: &[(&str, Results)]) -> Result<Results, String> {
    // JSON files list their engines in command-line order; CSV files only those they name.
    let listed = files.iter().find(|(_, r)| r.listed);
    let mut engines: Option<(&str, &Vec<String>)> = listed.map(|(p, r)| (*p, &r.engines));
    for (path, results) in files {
        results
            .check()
            .map_err(|e| format!("results file '{path}': {e}"))?;
        for game in &results.games {
            for name in [&game.black, &game.white] {
                if !results.engines.contains(name) {
                    return Err(format!(
                        "results file '{path}': game {} names engine '{name}', which the file does not list",
                        game.number
                    ));
                }
            }
        }
        match engines {
            None => engines = Some((path, &results.engines)),
            Some((first, list)) => {
                let same = if results.listed {
                    &results.engines == list
                } else {
                    let mut a: Vec<_> = results.engines.iter().collect();
                    let mut b: Vec<_> = list.iter().collect();
                    a.sort();
                    b.sort();
                    if listed.is_some() {
                        a.iter().all(|name| b.contains(name))
                    } else {
                        a == b
                    }
                };
                if !same {
                    return Err(format!(
                        "results files '{first}' and '{path}' come from different engines: [{}] and [{}]",
                        list.join(", "),
                        results.engines.join(", ")
                    ));
                }
            }
        }
    }
    let mut scheduled: Option<(&str, usize)> = None;
    for (path, results) in files {
        match (scheduled, results.scheduled) {
            (Some((first, n)), Some(m)) if n != m => {
                return Err(format!(
                    "results files '{first}' and '{path}' come from different schedules: {n} and {m} games"
                ));
            }
            (None, Some(m)) => scheduled = Some((path, m)),
            _ => {}
        }
    }
    let mut seen: HashMap<usize, &str> = HashMap::new();
    let mut games = Vec::new();
    for (path, results) in files {
        for game in &results.games {
            if let Some(other) = seen.insert(game.number, path) {
                return Err(format!(
                    "game {} is in both '{other}' and '{path}' (the same shard twice?)",
                    game.number
                ));
            }
            games.push(game.clone());
        }
    }
    games.sort_by_key(|g| g.number);
    Ok(Results {
        engines: engines.map(|(_, e)| e.clone()).unwrap_or_default(),
        listed: true,
        scheduled: scheduled.map(|(_, n)| n),
        shard: None,
        games,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::results::GameRow;

    fn results(
        engines: &[&str],
        games: &[(usize, &str, &str, i32)],
        scheduled: Option<usize>,
    ) -> Results {
        Results {
            engines: engines.iter().map(|e| e.to_string()).collect(),
            listed: scheduled.is_some(),
            scheduled,
            shard: None,
            games: games
                .iter()
                .map(|&(number, black, white, black_margin)| GameRow {
                    number,
                    opening: "start".into(),
                    black: black.into(),
                    white: white.into(),
                    black_margin,
                    forfeit: None,
                    black_seconds: None,
                    white_seconds: None,
                    black_peak_kib: None,
                    white_peak_kib: None,
                })
                .collect(),
        }
    }

    #[test]
    fn shards_merge_into_one_tournament() {
        let one = results(&["a", "b"], &[(1, "a", "b", 4), (2, "b", "a", -6)], Some(4));
        let two = results(&["a", "b"], &[(4, "b", "a", 2), (3, "a", "b", 0)], Some(4));
        let merged = merge(&[("one", one), ("two", two)]);
        let merged = merged.as_ref().map_err(String::clone);
        let numbers: Vec<usize> = merged
            .iter()
            .flat_map(|r| r.games.iter().map(|g| g.number))
            .collect();
        assert_eq!(numbers, [1, 2, 3, 4]);
        let scores = merged.map(|r| r.scores());
        let s = scores.as_ref().map(|s| &s[0]);
        // Engine a: won both games of pair 0 (2-0); drew and lost pair 1 (1/2 of 2).
        assert_eq!(
            s.map(|s| (s.wdl.wins, s.wdl.draws, s.wdl.losses)),
            Ok((2, 1, 1))
        );
        assert_eq!(s.map(|s| s.penta.0), Ok([0, 1, 0, 0, 1]));
    }

    #[test]
    fn mismatched_files_are_refused() {
        let ab = results(&["a", "b"], &[(1, "a", "b", 4)], Some(4));
        let ac = results(&["a", "c"], &[(3, "a", "c", 4)], Some(4));
        let ba = results(&["b", "a"], &[(3, "b", "a", 4)], Some(4));
        let longer = results(&["a", "b"], &[(3, "a", "b", 4)], Some(8));
        let csv_ab = results(&["a", "b"], &[(3, "a", "b", 4)], None);
        let csv_ac = results(&["a", "c"], &[(3, "a", "c", 4)], None);
        let again = results(&["a", "b"], &[(1, "a", "b", 4)], Some(4));
        let stray = results(&["a", "b"], &[(3, "a", "x", 4)], Some(4));
        let beyond = results(&["a", "b"], &[(5, "a", "b", 4)], Some(4));
        let itself = results(&["a", "b"], &[(3, "a", "a", 4)], Some(4));
        for (other, expected) in [
            (&ac, "different engines"),
            (&ba, "different engines"),
            (&csv_ac, "different engines"),
            (&longer, "different schedules"),
            (&again, "game 1 is in both"),
            (&stray, "engine 'x'"),
            (
                &beyond,
                "'second': game 5 is numbered beyond the 4 scheduled games",
            ),
            (&itself, "'second': game 3 has engine 'a' playing itself"),
        ] {
            let e = merge(&[("first", ab.clone()), ("second", other.clone())]).err();
            assert!(e.as_deref().is_some_and(|e| e.contains(expected)), "{e:?}");
        }
        assert!(merge(&[("first", ab.clone()), ("second", csv_ab.clone())]).is_ok());
        let csv_only = merge(&[("x", csv_ab), ("y", csv_ac)]).err();
        assert!(csv_only.is_some_and(|e| e.contains("different engines")));
    }
}
