//! The match's files kept up to date: after every game the GGF file gets the game's record
//! and then the results file is replaced, so the results file never lists a game the GGF file
//! lacks; a resumed match keeps only the records of the games it resumes.

use super::config::MatchConfig;
use super::error::{MatchError, MatchFile};
use super::ggf::{ggf_game_number, write_ggf};
use super::outcome::Played;
use super::results::{GameRow, Results, write_results};
use crate::board::Color;
use crate::sys::files::write_atomically;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// A finished game as the results file lists it.
fn row_of(played: &Played, config: &MatchConfig) -> GameRow {
    let name = |i: usize| config.engines[i].name.clone();
    GameRow {
        number: played.number,
        opening: played.game.opening.to_string(),
        black: name(played.black),
        white: name(played.white),
        black_margin: played.game.black_margin,
        forfeit: played.game.ending.forfeit_text(),
        black_seconds: Some(played.game.think_seconds(Color::Black)),
        white_seconds: Some(played.game.think_seconds(Color::White)),
        black_peak_kib: played.game.peak_memory_kib[0],
        white_peak_kib: played.game.peak_memory_kib[1],
    }
}

/// Opens the GGF file for appending. A new match empties it; a resumed one keeps only the
/// records of the games resumed, each once (a game recorded there but not in the results
/// file, cut off by a crash between the two writes, is played again), rewritten atomically.
fn open_ggf(path: &str, resumed: &[GameRow]) -> std::io::Result<File> {
    if resumed.is_empty() {
        return File::create(path);
    }
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let wanted: HashSet<usize> = resumed.iter().map(|g| g.number).collect();
    let mut seen = HashSet::new();
    let mut kept = String::new();
    for line in text.lines() {
        if let Some(number) = ggf_game_number(line)
            && wanted.contains(&number)
            && seen.insert(number)
        {
            kept.push_str(line.trim());
            kept.push('\n');
        }
    }
    if seen.len() < wanted.len() {
        eprintln!(
            "match: note: {} of the {} games resumed are not in GGF file '{path}'",
            wanted.len() - seen.len(),
            wanted.len()
        );
    }
    write_atomically(Path::new(path), kept.as_bytes())?;
    OpenOptions::new().append(true).open(path)
}

/// Keeps the match's files up to date (see the module's documentation).
pub struct Recorder {
    /// The results so far, games in schedule order (resumed ones included).
    pub results: Results,
    results_path: Option<String>,
    ggf: Option<(String, File)>,
}

impl Recorder {
    /// Writes the results file at once (the games resumed, or none), so that it always
    /// describes this match, and opens the GGF file.
    pub fn open(
        config: &MatchConfig,
        total: usize,
        games: Vec<GameRow>,
    ) -> Result<Recorder, MatchError> {
        let ggf = match &config.ggf {
            Some(path) => Some((
                path.clone(),
                open_ggf(path, &games).map_err(|error| MatchError::CannotWrite {
                    file: MatchFile::Ggf,
                    path: path.clone(),
                    error,
                })?,
            )),
            None => None,
        };
        let recorder = Recorder {
            results: Results {
                engines: config.names(),
                listed: true,
                scheduled: Some(total),
                shard: config.shard,
                games,
            },
            results_path: config.results.clone(),
            ggf,
        };
        recorder.write_results()?;
        Ok(recorder)
    }

    /// Replaces the results file with the results so far.
    pub fn write_results(&self) -> Result<(), MatchError> {
        match &self.results_path {
            Some(path) => {
                write_results(path, &self.results).map_err(|error| MatchError::CannotWrite {
                    file: MatchFile::Results,
                    path: path.clone(),
                    error,
                })
            }
            None => Ok(()),
        }
    }

    /// Records a finished game in both files; a failure is reported and the match goes on
    /// (the next game writes the whole results file again).
    pub fn add(&mut self, played: &Played, config: &MatchConfig) {
        if let Some((path, file)) = &mut self.ggf {
            // One write of the whole line: the file never holds half a game.
            let names = [
                config.engines[played.black].name.as_str(),
                config.engines[played.white].name.as_str(),
            ];
            let record = format!(
                "{}\n",
                write_ggf(
                    played,
                    names,
                    [
                        config.control_of(played.black),
                        config.control_of(played.white),
                    ],
                )
            );
            if let Err(e) = file.write_all(record.as_bytes()) {
                eprintln!("match: cannot write GGF file '{path}': {e}");
            }
        }
        let row = row_of(played, config);
        let at = self
            .results
            .games
            .partition_point(|g| g.number < row.number);
        self.results.games.insert(at, row);
        if let Err(e) = self.write_results() {
            eprintln!("match: {e}");
        }
    }
}
