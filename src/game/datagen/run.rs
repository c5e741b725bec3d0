//! A generation run that writes shards: the games `0..total` cut into shards of
//! `games_per_shard` consecutive games, each made, sealed and entered in the folder's manifest
//! in turn, so that a run of any length can be stopped at any moment and loses at most the
//! shard under way, and at most one game of it when the machine lives on.
//!
//! While a shard is being made, its finished games go to a work file
//! (`DIR/.work/NAME.bin`, the 24-byte format of [`crate::fit::dataset`], one write per game)
//! and its core-seconds to `NAME.secs` beside it. A resumed run skips the shards already
//! sealed (checking that they were made with the same recipe), cuts the work file back to its
//! last whole game, plays that game again and goes on. A game depends only on the run's
//! settings and its index, so a run stopped and resumed any number of times seals the shards
//! of one uninterrupted run. `--shard i/n` spreads the shards, not the games, over machines:
//! machine `i` makes shards `j` with `j % n = i - 1`, so each shard file comes whole from one
//! machine and the folders join by copying.

use super::files::resume_point;
use super::manifest::{Manifest, short_fingerprint};
use super::shard::{
    MAX_SHARD_BYTES, SHARD_EXTENSION, ShardHeader, encode_shard, read_shard_header, split_games,
};
use crate::fit::dataset::{DatasetWriter, Sample, parse_dataset};
use crate::game::wthor::WthorFolder;
use crate::sys::cpu_time::CoreClock;
use crate::sys::files::write_atomically;
use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// One shard of a run: its file name (without the extension) and its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedShard {
    /// The file name without `.oes`.
    pub name: String,
    /// The first game.
    pub first: u32,
    /// One past the last game.
    pub end: u32,
}

/// A run's shape: where it writes and which games each shard holds.
pub struct ShardRun<'a> {
    /// The shard folder.
    pub dir: PathBuf,
    /// The start of every shard's file name (`self-s67`, `wthor`).
    pub prefix: String,
    /// The header every shard gets, before its games are counted.
    pub header: ShardHeader,
    /// Games `first..total` make the run (`first` is 0 but for a relabelled shard).
    pub first: u32,
    /// One past the run's last game.
    pub total: u32,
    /// Games per shard.
    pub games_per_shard: u32,
    /// `Some((i, n))`: only shards `j` with `j % n = i - 1`.
    pub machine: Option<(u32, u32)>,
    /// The WTHOR folder, for WTHOR runs.
    pub wthor: Option<&'a WthorFolder>,
}

/// What happened to one shard, for progress reports.
#[derive(Clone, Debug, PartialEq)]
pub enum RunEvent {
    /// A sealed shard from an earlier run was found and kept.
    Kept {
        name: String,
        games: u32,
        positions: u64,
    },
    /// A shard's work file was found and is resumed: positions kept, the next game.
    Resumed {
        name: String,
        positions: usize,
        next: u32,
    },
    /// A game was finished: its shard, the game, its positions.
    Game {
        name: String,
        game: u32,
        positions: usize,
    },
    /// A shard was sealed and entered in the manifest.
    Sealed {
        name: String,
        games: u32,
        positions: u64,
        bytes: usize,
    },
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every planned shard is sealed.
    Finished,
    /// The stop flag was raised: the shard under way keeps its finished games for a resume.
    Stopped,
}

impl ShardRun<'_> {
    /// The shards this machine makes, in order.
    pub fn plan(&self) -> Vec<PlannedShard> {
        let per = self.games_per_shard.max(1);
        (0..self.total.saturating_sub(self.first).div_ceil(per))
            .filter(|&j| self.machine.is_none_or(|(i, n)| j % n == i - 1))
            .map(|j| {
                let first = self.first + j * per;
                PlannedShard {
                    name: format!("{}-{first:07}", self.prefix),
                    first,
                    end: (first + per).min(self.total),
                }
            })
            .collect()
    }

    fn work_dir(&self) -> PathBuf {
        self.dir.join(".work")
    }

    /// Checks that a sealed shard was made by this run's recipe for these games.
    fn check_sealed(&self, path: &Path, shard: &PlannedShard) -> Result<ShardHeader, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (header, _) =
            read_shard_header(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let h = &self.header;
        let other_weights = matches!(
            (&header.label_weights, &h.label_weights),
            (Some(theirs), Some(ours)) if theirs != ours
        );
        if header.source != h.source
            || header.labels != h.labels
            || other_weights
            || header.play != h.play
            || header.seed != h.seed
            || (header.first_game, header.end_game) != (shard.first, shard.end)
        {
            return Err(format!(
                "{} exists but was made by another recipe or for other games (labels \"{}\", play \"{}\", games {}..{}): remove it or write to another folder",
                path.display(),
                header.labels,
                header.play,
                header.first_game,
                header.end_game
            ));
        }
        Ok(header)
    }

    /// Refuses to add to a folder whose shards were labelled by another recipe or by other
    /// weights (or another network) than this run's: a folder never mixes two teachers, and a
    /// later build's own weights would label the same positions otherwise.
    fn check_label_weights(&self) -> Result<(), String> {
        let manifest = Manifest::load(&self.dir)?;
        if let Some(first) = manifest.shards.first()
            && first.labels != self.header.labels
        {
            return Err(format!(
                "{}: its shards are labelled by \"{}\", this run's by \"{}\": a folder holds one recipe; write to another folder",
                self.dir.display(),
                first.labels,
                self.header.labels
            ));
        }
        match (manifest.labelled_by(), &self.header.label_weights) {
            (Some(folder), Some(ours)) if folder != ours => Err(format!(
                "{}: its shards are labelled by the weights (or network) {}, this run's are {}: give those with --weights or --network (a folder may keep them beside its shards, as label-weights.bin or label.net) or write to another folder",
                self.dir.display(),
                short_fingerprint(folder),
                short_fingerprint(ours)
            )),
            _ => Ok(()),
        }
    }

    /// Enters a sealed shard in the manifest if a stop came between the two.
    fn enter_if_missing(&self, path: &Path) -> Result<(), String> {
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut manifest = Manifest::load(&self.dir)?;
        if manifest.entry(&file).is_some() {
            return Ok(());
        }
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (header, _) =
            read_shard_header(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        manifest.record(&file, &bytes, &header);
        manifest.save(&self.dir)
    }

    /// Runs every planned shard: `play(game)` gives a game's records (`Ok(None)`: the stop flag
    /// cut it short; an empty list: the game gives no records). `report` hears of each step.
    pub fn run(
        &self,
        play: &mut dyn FnMut(u32) -> Result<Option<Vec<Sample>>, String>,
        stop: &AtomicBool,
        report: &mut dyn FnMut(RunEvent),
    ) -> Result<RunEnd, String> {
        self.check_label_weights()?;
        std::fs::create_dir_all(self.work_dir())
            .map_err(|e| format!("cannot create {}: {e}", self.work_dir().display()))?;
        for shard in self.plan() {
            let path = self.dir.join(format!("{}.{SHARD_EXTENSION}", shard.name));
            if path.exists() {
                let header = self.check_sealed(&path, &shard)?;
                self.enter_if_missing(&path)?;
                report(RunEvent::Kept {
                    name: shard.name.clone(),
                    games: header.games,
                    positions: header.positions,
                });
                continue;
            }
            if self.make(&shard, play, stop, report)? == RunEnd::Stopped {
                return Ok(RunEnd::Stopped);
            }
        }
        Ok(RunEnd::Finished)
    }

    /// Makes one shard from its work file on: plays its remaining games, then seals it.
    fn make(
        &self,
        shard: &PlannedShard,
        play: &mut dyn FnMut(u32) -> Result<Option<Vec<Sample>>, String>,
        stop: &AtomicBool,
        report: &mut dyn FnMut(RunEvent),
    ) -> Result<RunEnd, String> {
        let work = self.work_dir().join(format!("{}.bin", shard.name));
        let secs_path = self.work_dir().join(format!("{}.secs", shard.name));
        let shown = work.display().to_string();
        let (mut writer, mut next) = if work.exists() {
            let bytes = std::fs::read(&work).map_err(|e| format!("cannot read {shown}: {e}"))?;
            let point = resume_point(&bytes, None, shard.end)
                .map_err(|e| format!("cannot resume {shown}: {e}"))?;
            let mut file = OpenOptions::new()
                .write(true)
                .open(&work)
                .map_err(|e| format!("cannot open {shown}: {e}"))?;
            file.set_len(point.keep_bytes)
                .and_then(|()| file.seek(SeekFrom::End(0)).map(|_| ()))
                .map_err(|e| format!("cannot cut {shown} back to its last whole game: {e}"))?;
            let next = point.next_game.unwrap_or(shard.first).max(shard.first);
            report(RunEvent::Resumed {
                name: shard.name.clone(),
                positions: point.kept_records,
                next,
            });
            (DatasetWriter::append(file), next)
        } else {
            let file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&work)
                .map_err(|e| format!("cannot create {shown}: {e}"))?;
            let writer =
                DatasetWriter::create(file).map_err(|e| format!("cannot write {shown}: {e}"))?;
            (writer, shard.first)
        };
        let earlier: f64 = std::fs::read_to_string(&secs_path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0.0);
        let start = CoreClock::start();
        while next < shard.end {
            if stop.load(Ordering::Relaxed) {
                return Ok(RunEnd::Stopped);
            }
            let Some(samples) = play(next)? else {
                return Ok(RunEnd::Stopped);
            };
            writer
                .write_game(&samples)
                .map_err(|e| format!("cannot write {shown}: {e}"))?;
            let secs = earlier + start.seconds();
            // Losing this file costs only the core-hours figure, never a game.
            let _ = write_atomically(&secs_path, format!("{secs:.1}\n").as_bytes());
            report(RunEvent::Game {
                name: shard.name.clone(),
                game: next,
                positions: samples.len(),
            });
            next += 1;
        }
        drop(writer);
        let core_seconds = earlier + start.seconds();
        self.seal(shard, &work, core_seconds, report)?;
        let _ = std::fs::remove_file(&work);
        let _ = std::fs::remove_file(&secs_path);
        Ok(RunEnd::Finished)
    }

    /// Turns a finished work file into a shard and enters it in the manifest.
    fn seal(
        &self,
        shard: &PlannedShard,
        work: &Path,
        core_seconds: f64,
        report: &mut dyn FnMut(RunEvent),
    ) -> Result<(), String> {
        let bytes =
            std::fs::read(work).map_err(|e| format!("cannot read {}: {e}", work.display()))?;
        let (samples, _) =
            parse_dataset(&bytes, false).map_err(|e| format!("{}: {e}", work.display()))?;
        let header = ShardHeader {
            first_game: shard.first,
            end_game: shard.end,
            core_seconds,
            ..self.header.clone()
        };
        let encoded = encode_shard(&header, &split_games(&samples), self.wthor)
            .map_err(|e| format!("{}: {e}", shard.name))?;
        if encoded.len() > MAX_SHARD_BYTES {
            return Err(format!(
                "shard {} would be {} bytes, over the {MAX_SHARD_BYTES}-byte limit: use fewer --games-per-shard",
                shard.name,
                encoded.len()
            ));
        }
        let (sealed, _) = read_shard_header(&encoded)?;
        let file = format!("{}.{SHARD_EXTENSION}", shard.name);
        let path = self.dir.join(&file);
        write_atomically(&path, &encoded)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let mut manifest = Manifest::load(&self.dir)?;
        manifest.record(&file, &encoded, &sealed);
        manifest.save(&self.dir)?;
        report(RunEvent::Sealed {
            name: shard.name.clone(),
            games: sealed.games,
            positions: sealed.positions,
            bytes: encoded.len(),
        });
        Ok(())
    }
}
