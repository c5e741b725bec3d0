//! The files of a data run: where a stopped run resumes, how shard files join, what a file
//! holds.

use super::in_shard;
use crate::fit::dataset::{FLAG_WTHOR, HEADER_SIZE, RECORD_SIZE, Sample, parse_dataset};
use std::collections::HashMap;

/// Where a resumed run goes on: the file is cut to `keep_bytes` (its header and every game
/// before the last one it holds), and the run continues from game `next_game` (that last
/// game, played again: it may be incomplete).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResumePoint {
    /// The bytes of the file to keep.
    pub keep_bytes: u64,
    /// The first game the resumed run plays; `None` when the file holds no game yet.
    pub next_game: Option<u32>,
    /// Records kept.
    pub kept_records: usize,
}

/// Reads a file a run wrote (`bytes`) to find where it goes on: checks the header, drops a
/// truncated last record and the last game (which a kill may have cut short; the same game is
/// played again), and checks that every game is one this run plays (in its shard, below
/// `games`, in increasing order).
pub fn resume_point(
    bytes: &[u8],
    shard: Option<(u32, u32)>,
    games: u32,
) -> Result<ResumePoint, String> {
    let (samples, _) = parse_dataset(bytes, true)?;
    let mut previous: Option<u32> = None;
    for s in &samples {
        if !in_shard(s.game, shard) || s.game >= games {
            let part = shard.map_or("the whole run".into(), |(i, n)| format!("shard {i}/{n}"));
            return Err(format!(
                "it holds game {}, which {part} of {games} games does not play",
                s.game
            ));
        }
        if previous.is_some_and(|p| s.game < p) {
            return Err(format!(
                "game {} comes after game {}",
                s.game,
                previous.unwrap_or(0)
            ));
        }
        previous = Some(s.game);
    }
    let Some(last) = previous else {
        return Ok(ResumePoint {
            keep_bytes: HEADER_SIZE as u64,
            next_game: None,
            kept_records: 0,
        });
    };
    let kept_records = samples.iter().take_while(|s| s.game != last).count();
    Ok(ResumePoint {
        keep_bytes: (HEADER_SIZE + kept_records * RECORD_SIZE) as u64,
        next_game: Some(last),
        kept_records,
    })
}

/// Joins the records of shard files (name and records of each) into one list ordered by game
/// index, each game's records in their order. Refuses a game found in two files, and a file
/// whose game's records are not together.
pub fn merge_shards(files: &[(String, Vec<Sample>)]) -> Result<Vec<Sample>, String> {
    let mut owner: HashMap<u32, usize> = HashMap::new();
    let mut games: Vec<(u32, &[Sample])> = Vec::new();
    for (index, (name, samples)) in files.iter().enumerate() {
        let mut start = 0;
        while start < samples.len() {
            let game = samples[start].game;
            let end = start
                + samples[start..]
                    .iter()
                    .take_while(|s| s.game == game)
                    .count();
            if let Some(other) = owner.insert(game, index) {
                return Err(if other == index {
                    format!("{name}: the records of game {game} are not together")
                } else {
                    format!(
                        "game {game} is in both {} and {name} (the same shard twice?)",
                        files[other].0
                    )
                });
            }
            games.push((game, &samples[start..end]));
            start = end;
        }
    }
    games.sort_by_key(|&(game, _)| game);
    Ok(games
        .into_iter()
        .flat_map(|(_, s)| s.iter().copied())
        .collect())
}

/// Counts of a data file, for `datagen stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatasetStats {
    /// Records.
    pub records: usize,
    /// Distinct games.
    pub games: usize,
    /// Records whose value is exact.
    pub exact: usize,
    /// Records from WTHOR games.
    pub wthor: usize,
    /// Records and exact records per bracket of [`STATS_BRACKET`] empties (bracket `b` holds
    /// `b * STATS_BRACKET` to `(b + 1) * STATS_BRACKET - 1` empties).
    pub by_empties: Vec<(usize, usize)>,
}

/// The width in empties of a bracket of [`DatasetStats::by_empties`].
pub const STATS_BRACKET: usize = 10;

/// The counts of `samples`.
pub fn dataset_stats(samples: &[Sample]) -> DatasetStats {
    let mut stats = DatasetStats {
        records: samples.len(),
        by_empties: vec![(0, 0); 64 / STATS_BRACKET + 1],
        ..DatasetStats::default()
    };
    let mut games: Vec<u32> = samples.iter().map(|s| s.game).collect();
    games.sort_unstable();
    games.dedup();
    stats.games = games.len();
    for s in samples {
        let bracket = (usize::from(s.empties) / STATS_BRACKET).min(stats.by_empties.len() - 1);
        stats.by_empties[bracket].0 += 1;
        if s.is_exact() {
            stats.exact += 1;
            stats.by_empties[bracket].1 += 1;
        }
        if s.flags & FLAG_WTHOR != 0 {
            stats.wthor += 1;
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::dataset::DatasetWriter;

    fn sample(game: u32, empties: u8) -> Sample {
        Sample {
            player: 1,
            opponent: 2,
            game,
            ending: 0,
            value: 0,
            empties,
            flags: 0,
        }
    }

    fn file(samples: &[Sample]) -> Vec<u8> {
        let mut w = DatasetWriter::create(Vec::new()).unwrap();
        w.write_game(samples).unwrap();
        w.into_inner()
    }

    #[test]
    fn resume_drops_the_last_game_and_a_cut_record() {
        let bytes = file(&[sample(1, 60), sample(1, 59), sample(3, 60), sample(3, 59)]);
        let cut = &bytes[..bytes.len() - 7];
        let point = resume_point(cut, Some((2, 2)), 10).unwrap();
        assert_eq!(point.next_game, Some(3));
        assert_eq!(point.kept_records, 2);
        assert_eq!(point.keep_bytes, (HEADER_SIZE + 2 * RECORD_SIZE) as u64);
        assert!(
            resume_point(&bytes, Some((1, 2)), 10)
                .unwrap_err()
                .contains("shard 1/2")
        );
        assert!(
            resume_point(&bytes, None, 3)
                .unwrap_err()
                .contains("game 3")
        );
        let empty = resume_point(&file(&[]), None, 3).unwrap();
        assert_eq!(empty.next_game, None);
    }

    #[test]
    fn merge_orders_games_and_refuses_duplicates() {
        let a = vec![sample(0, 60), sample(0, 59), sample(2, 60)];
        let b = vec![sample(1, 60), sample(3, 60), sample(3, 59)];
        let merged = merge_shards(&[("a".into(), a.clone()), ("b".into(), b.clone())]).unwrap();
        let order: Vec<(u32, u8)> = merged.iter().map(|s| (s.game, s.empties)).collect();
        assert_eq!(
            order,
            [(0, 60), (0, 59), (1, 60), (2, 60), (3, 60), (3, 59)]
        );
        let twice = merge_shards(&[("a".into(), a.clone()), ("c".into(), a)]).unwrap_err();
        assert!(twice.contains("game 0 is in both a and c"), "{twice}");
        let apart = vec![sample(1, 60), sample(3, 60), sample(1, 59)];
        assert!(
            merge_shards(&[("d".into(), apart)])
                .unwrap_err()
                .contains("not together")
        );
        let stats = dataset_stats(&b);
        assert_eq!((stats.records, stats.games, stats.exact), (3, 2, 0));
        assert_eq!(stats.by_empties[5], (1, 0));
        assert_eq!(stats.by_empties[6], (2, 0));
    }
}
