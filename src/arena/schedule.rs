//! The schedule of a match: every game in order, the share of a shard, and the bookkeeping of
//! `--resume` (the games a results file already holds, once checked to be this match's).

use super::config::MatchConfig;
use super::error::MatchError;
use super::results::{GameRow, Results, read_results};
use super::stats::pairings;
use std::collections::HashSet;

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// 1-based game number in the schedule.
    pub number: usize,
    /// Index of the opening.
    pub opening: usize,
    /// Engine index playing black.
    pub black: usize,
    /// Engine index playing white.
    pub white: usize,
}

impl Job {
    /// The opening pair the game belongs to (its opening and pairing): 0 for games 1 and 2.
    pub fn pair(&self) -> usize {
        (self.number - 1) / 2
    }
}

/// Every game of the whole schedule in order: for each opening, each pairing, the two
/// colourings side by side.
pub fn schedule(config: &MatchConfig) -> Vec<Job> {
    let mut jobs = Vec::new();
    for opening in 0..config.openings.len() {
        for &(a, b) in pairings(config.engines.len()).iter().map(|s| &s.engines) {
            for (black, white) in [(a, b), (b, a)] {
                jobs.push(Job {
                    number: jobs.len() + 1,
                    opening,
                    black,
                    white,
                });
            }
        }
    }
    jobs
}

/// Whether shard `(i, n)` plays `job`: the opening pairs i, i + n, ... (both games of a pair
/// stay together).
pub fn in_shard(job: &Job, shard: Option<(usize, usize)>) -> bool {
    shard.is_none_or(|(i, n)| job.pair() % n == i - 1)
}

/// The part of the schedule a file or a run holds, for messages.
fn shard_text(shard: Option<(usize, usize)>) -> String {
    shard.map_or("the whole schedule".into(), |(i, n)| {
        format!("shard {i}/{n}")
    })
}

/// The results file a resumed match continues, if there is one yet.
pub fn read_previous(path: &str) -> Result<Option<Results>, MatchError> {
    let text = match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(MatchError::CannotRead {
                path: path.to_string(),
                error,
                resuming: true,
            });
        }
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
    };
    read_results(&text)
        .map(Some)
        .map_err(|error| MatchError::BadResults {
            path: path.to_string(),
            error,
            resuming: true,
        })
}

/// The games of `previous`, once it is checked to come from this very match: the same
/// engines, schedule and shard, and every game the one this schedule has at its number (same
/// players, same opening: the same openings and seed).
pub fn resumed_games(
    config: &MatchConfig,
    schedule: &[Job],
    previous: Results,
    path: &str,
) -> Result<Vec<GameRow>, MatchError> {
    let refuse = |why: String| MatchError::CannotResume {
        path: path.to_string(),
        why,
    };
    let names = config.names();
    if previous.listed && previous.engines != names {
        return Err(refuse(format!(
            "its engines are [{}], this match's [{}]",
            previous.engines.join(", "),
            names.join(", ")
        )));
    }
    if let Some(n) = previous.scheduled
        && n != schedule.len()
    {
        return Err(refuse(format!(
            "its schedule has {n} games, this match's {}",
            schedule.len()
        )));
    }
    if previous.listed && previous.shard != config.shard {
        return Err(refuse(format!(
            "it holds {}, this match plays {}",
            shard_text(previous.shard),
            shard_text(config.shard)
        )));
    }
    let mut seen = HashSet::new();
    for game in &previous.games {
        let job = schedule
            .get(game.number.wrapping_sub(1))
            .filter(|job| in_shard(job, config.shard))
            .ok_or_else(|| {
                refuse(format!(
                    "game {} is not one this match plays ({} of {} games)",
                    game.number,
                    shard_text(config.shard),
                    schedule.len()
                ))
            })?;
        let opening = config.openings[job.opening].to_string();
        let (black, white) = (&names[job.black], &names[job.white]);
        if (&game.black, &game.white, &game.opening) != (black, white, &opening) {
            return Err(refuse(format!(
                "game {} is {} (black) vs {} (white) from opening {}, where this match has {black} vs {white} from {opening}",
                game.number, game.black, game.white, game.opening
            )));
        }
        if !seen.insert(game.number) {
            return Err(refuse(format!("game {} is listed twice", game.number)));
        }
    }
    let mut games = previous.games;
    games.sort_by_key(|g| g.number);
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::spec::EngineSpec;
    use crate::game::openings::generate;

    fn config(
        engines: usize,
        openings_wanted: usize,
        shard: Option<(usize, usize)>,
    ) -> MatchConfig {
        let engines = (0..engines)
            .map(|i| EngineSpec::parse(&format!("name=e{i},self:")).expect("a good engine"))
            .collect();
        let mut openings = generate(3);
        openings.truncate(openings_wanted);
        let mut config = MatchConfig::new(engines, openings);
        config.shard = shard;
        config
    }

    #[test]
    fn every_pairing_plays_every_opening_with_both_colours_and_shards_keep_pairs() {
        let c = config(3, 2, None);
        let jobs = schedule(&c);
        let pairs: Vec<(usize, usize, usize)> =
            jobs.iter().map(|j| (j.opening, j.black, j.white)).collect();
        assert_eq!(
            pairs,
            [
                (0, 0, 1),
                (0, 1, 0),
                (0, 0, 2),
                (0, 2, 0),
                (0, 1, 2),
                (0, 2, 1),
                (1, 0, 1),
                (1, 1, 0),
                (1, 0, 2),
                (1, 2, 0),
                (1, 1, 2),
                (1, 2, 1)
            ]
        );
        assert!(jobs.iter().enumerate().all(|(k, j)| j.number == k + 1));
        let second: Vec<usize> = jobs
            .iter()
            .filter(|j| in_shard(j, Some((2, 2))))
            .map(|j| j.number)
            .collect();
        assert_eq!(second, [3, 4, 7, 8, 11, 12]);
        assert!(jobs.iter().all(|j| in_shard(j, None)));
    }

    #[test]
    fn only_this_matchs_games_resume() {
        let c = config(2, 2, Some((2, 2)));
        let jobs = schedule(&c);
        let opening = c.openings[1].to_string();
        let row = |number: usize, black: &str, white: &str| GameRow {
            number,
            opening: opening.clone(),
            black: black.into(),
            white: white.into(),
            black_margin: 2,
            forfeit: None,
            black_seconds: None,
            white_seconds: None,
            black_peak_kib: None,
            white_peak_kib: None,
        };
        let previous = |games: Vec<GameRow>| Results {
            engines: vec!["e0".into(), "e1".into()],
            listed: true,
            scheduled: Some(4),
            shard: Some((2, 2)),
            games,
        };
        let resumed = resumed_games(&c, &jobs, previous(vec![row(4, "e1", "e0")]), "r.json");
        assert_eq!(resumed.map(|g| g.len()).ok(), Some(1));
        for (games, expected) in [
            (
                vec![row(1, "e0", "e1")],
                "game 1 is not one this match plays (shard 2/2 of 4 games)",
            ),
            (
                vec![row(3, "e1", "e0")],
                "game 3 is e1 (black) vs e0 (white)",
            ),
            (
                vec![row(3, "e0", "e1"), row(3, "e0", "e1")],
                "game 3 is listed twice",
            ),
        ] {
            let e = resumed_games(&c, &jobs, previous(games), "r.json").err();
            let text = e.map(|e| e.to_string()).unwrap_or_default();
            assert!(text.contains(expected), "{text}");
        }
        let mut whole = previous(Vec::new());
        whole.shard = None;
        let e = resumed_games(&c, &jobs, whole, "r.json").err();
        assert!(e.is_some_and(|e| {
            e.to_string()
                .contains("it holds the whole schedule, this match plays shard 2/2")
        }),);
    }
}
