//! `datagen --out-dir DIR` (a run that writes shards), `datagen relabel`, `datagen pack`,
//! `datagen index` and `datagen stats` of a shard folder. The shards, their manifest and the
//! run's resume logic are in `game::datagen`; this file turns flags into a run, shows its
//! progress and says what it made.

use super::{DatagenArgs, total_games};
use crate::cli::args::{CliError, error};
use crate::cli::error::catch_signals;
use crate::fit::dataset::{Sample, read_dataset};
use crate::game::datagen::manifest::{
    Manifest, checked_manifest, folder_wthor, read_checked, shard_files,
};
use crate::game::datagen::run::{RunEnd, RunEvent, ShardRun};
use crate::game::datagen::shard::{
    ShardHeader, ShardSource, decode_shard, read_shard_header, split_games,
};
use crate::game::datagen::{
    DatagenSettings, STATS_BRACKET, dataset_stats, relabel_game, self_play_game, wthor_game,
};
use crate::game::wthor::WthorFolder;
use crate::search::{Limits, Searcher};
use crate::sys::progress::Progress;
use crate::sys::signals::exit_if_caught;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The commit this binary was built from.
pub const COMMIT: &str = env!("OTHELLO_COMMIT");

/// The command line that started this process, for shard headers.
fn command_line() -> String {
    let mut words: Vec<String> = std::env::args().collect();
    if let Some(first) = words.first_mut() {
        *first = "othello-engine".into();
    }
    words.join(" ")
}

/// The games per shard when `--games-per-shard` is not given: a shard of self-play games at
/// the default recipe takes well under an hour of one core, so a machine that dies loses less.
pub const DEFAULT_GAMES_PER_SHARD: u32 = 2000;

/// Shows a run's events as progress lines.
fn reporter<'a>(
    progress: &'a mut Progress,
    done: &'a mut usize,
    positions: &'a mut u64,
) -> impl FnMut(RunEvent) + 'a {
    move |event| match event {
        RunEvent::Kept {
            name,
            games,
            positions: p,
        } => {
            progress.suspend(|| {
                eprintln!("datagen: {name} is sealed already ({games} games, {p} positions)")
            });
        }
        RunEvent::Resumed {
            name,
            positions: p,
            next,
        } => {
            progress.suspend(|| {
                eprintln!("datagen: resuming {name}: {p} positions kept, from game {next}")
            });
        }
        RunEvent::Game { positions: p, .. } => {
            *done += 1;
            *positions += p as u64;
            progress.show(*done, &format!("{positions} positions"));
        }
        RunEvent::Sealed {
            name,
            games,
            positions: p,
            bytes,
        } => {
            progress.suspend(|| {
                eprintln!(
                    "datagen: sealed {name}: {games} games, {p} positions, {bytes} bytes ({:.2} bytes a position)",
                    bytes as f64 / p.max(1) as f64
                )
            });
        }
    }
}

/// The WTHOR folder `dir` read, when one is needed.
fn wthor_folder(dir: Option<&str>) -> Result<Option<WthorFolder>, CliError> {
    dir.map(|d| WthorFolder::read(Path::new(d)).map_err(error))
        .transpose()
}

/// `datagen --out-dir DIR`: self-play or WTHOR games into shards.
pub(super) fn generate_shards(
    args: &DatagenArgs,
    settings: DatagenSettings,
    out_dir: &str,
) -> Result<(), CliError> {
    let machine = args
        .shard
        .as_deref()
        .map(crate::cli::args::shard)
        .transpose()?;
    let games_per_shard = games_per_shard(args)?;
    let dir = PathBuf::from(out_dir);
    std::fs::create_dir_all(&dir).map_err(|e| error(format!("cannot create {out_dir}: {e}")))?;
    let wthor = wthor_folder(args.wthor.as_deref())?;
    let total = total_games(args, wthor.as_ref().map(WthorFolder::game_count))?;
    let run = new_run(
        dir,
        &settings,
        total,
        games_per_shard,
        machine,
        wthor.as_ref(),
    );
    let planned: usize = run.plan().iter().map(|s| (s.end - s.first) as usize).sum();
    let (stop, limits, mut searcher) = labeller(args, &settings)?;
    let mut play_game = |game: u32| -> Result<Option<Vec<Sample>>, String> {
        match &wthor {
            None => Ok(self_play_game(&mut searcher, &settings, game, &limits)),
            Some(folder) => {
                let played = folder
                    .game(game as usize)
                    .ok_or_else(|| format!("the WTHOR folder has no game {game}"))?;
                wthor_game(&mut searcher, &settings, &played.moves, game, &limits)
                    .map_err(|e| format!("WTHOR game {game}: {e}"))
            }
        }
    };
    finish_run(&run, &mut play_game, &stop, planned, out_dir)
}

/// A run of games `0..total` of self-play by `settings`, or of the WTHOR folder's games.
fn new_run<'a>(
    dir: PathBuf,
    settings: &DatagenSettings,
    total: u32,
    games_per_shard: u32,
    machine: Option<(u32, u32)>,
    wthor: Option<&'a WthorFolder>,
) -> ShardRun<'a> {
    let (source, prefix, play) = match wthor {
        Some(_) => (ShardSource::Wthor, "wthor".to_string(), String::new()),
        None => (
            ShardSource::SelfPlay,
            format!("self-s{}", settings.seed),
            settings.play_recipe(),
        ),
    };
    ShardRun {
        dir,
        prefix,
        header: ShardHeader {
            label_weights: settings.label_weights(),
            ..header(source, settings.label_recipe(), play, settings.seed)
        },
        first: 0,
        total,
        games_per_shard,
        machine,
        wthor,
    }
}

/// The stop flag (raised by SIGINT or SIGTERM), the limits that carry it, and the searcher
/// that labels by `settings`.
fn labeller(
    args: &DatagenArgs,
    settings: &DatagenSettings,
) -> Result<(Arc<AtomicBool>, Limits, Searcher), CliError> {
    let stop = catch_signals()?;
    let limits = Limits {
        stop: Arc::clone(&stop),
        ..Limits::none()
    };
    let mut searcher = Searcher::new(
        args.hash.unwrap_or(super::DEFAULT_HASH_MIB),
        Some(settings.seed),
    );
    searcher.set_selectivity(settings.selectivity);
    Ok((stop, limits, searcher))
}

/// A header for a run's shards; the counts and game range are filled in as each is sealed.
fn header(source: ShardSource, labels: String, play: String, seed: u64) -> ShardHeader {
    ShardHeader {
        source,
        labels,
        label_weights: None,
        play,
        seed,
        first_game: 0,
        end_game: 0,
        games: 0,
        positions: 0,
        exact: 0,
        wthor_files: Vec::new(),
        command: command_line(),
        commit: COMMIT.into(),
        core_seconds: 0.0,
    }
}

fn games_per_shard(args: &DatagenArgs) -> Result<u32, CliError> {
    args.games_per_shard
        .as_deref()
        .map(|g| crate::cli::args::parse_in_range(g, "games-per-shard", 1..=1_000_000))
        .transpose()
        .map(|g| g.unwrap_or(DEFAULT_GAMES_PER_SHARD))
}

/// Runs `run` to its end or to a signal, with progress, and says what it made.
fn finish_run(
    run: &ShardRun,
    play: &mut dyn FnMut(u32) -> Result<Option<Vec<Sample>>, String>,
    stop: &AtomicBool,
    planned: usize,
    out_dir: &str,
) -> Result<(), CliError> {
    let mut progress = Progress::new("datagen", "games", planned, 0);
    let (mut done, mut positions) = (0usize, 0u64);
    let start = Instant::now();
    let end = {
        let mut report = reporter(&mut progress, &mut done, &mut positions);
        run.run(play, stop, &mut report).map_err(error)?
    };
    progress.finish();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "datagen: {done} games, {positions} positions, {:.0} positions/s, {secs:.1} s; {out_dir}: {}",
        positions as f64 / secs.max(1e-9),
        if end == RunEnd::Finished {
            "every planned shard sealed"
        } else {
            "stopped"
        }
    );
    exit_if_caught(
        "datagen",
        &format!(
            "{out_dir} holds every sealed shard, and .work/ the shard under way: rerun the same command to go on"
        ),
    );
    Ok(())
}

/// `datagen relabel`: the games of a shard folder labelled again by another recipe, into
/// another folder (same shard names, same games and moves).
pub(super) fn relabel(
    from: &str,
    args: &DatagenArgs,
    settings: DatagenSettings,
    wthor_dir: &str,
) -> Result<(), CliError> {
    let out_dir = args
        .out_dir
        .as_deref()
        .ok_or_else(|| error("datagen relabel needs --out-dir DIR"))?;
    let from_dir = Path::new(from);
    if Path::new(out_dir) == from_dir {
        return Err(error(
            "datagen relabel writes to another folder than it reads",
        ));
    }
    std::fs::create_dir_all(out_dir).map_err(|e| error(format!("cannot create {out_dir}: {e}")))?;
    let manifest = checked_manifest(from_dir).map_err(error)?;
    let wthor = folder_wthor(from_dir, &manifest, Path::new(wthor_dir)).map_err(error)?;
    let (stop, limits, mut searcher) = labeller(args, &settings)?;
    for entry in &manifest.shards {
        let bytes = read_checked(from_dir, entry).map_err(error)?;
        let (source_header, samples) = decode_shard(&bytes, wthor.as_ref())
            .map_err(|e| error(format!("{}: {e}", from_dir.join(&entry.file).display())))?;
        let games: BTreeMap<u32, Vec<Sample>> = split_games(&samples)
            .into_iter()
            .map(|g| (g[0].game, g))
            .collect();
        let name = entry.file.trim_end_matches(".oes");
        let prefix_end = name.rfind('-').unwrap_or(name.len());
        let run = ShardRun {
            dir: PathBuf::from(out_dir),
            prefix: name[..prefix_end].to_string(),
            header: ShardHeader {
                labels: settings.label_recipe(),
                label_weights: settings.label_weights(),
                ..header(
                    source_header.source,
                    String::new(),
                    source_header.play.clone(),
                    source_header.seed,
                )
            },
            first: source_header.first_game,
            total: source_header.end_game,
            games_per_shard: source_header.end_game - source_header.first_game,
            machine: None,
            wthor: wthor.as_ref(),
        };
        let mut play = |game: u32| -> Result<Option<Vec<Sample>>, String> {
            match games.get(&game) {
                None => Ok(Some(Vec::new())),
                Some(g) => Ok(relabel_game(&mut searcher, &settings, g, &limits)),
            }
        };
        let planned = (source_header.end_game - source_header.first_game) as usize;
        finish_run(&run, &mut play, &stop, planned, out_dir)?;
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
    }
    Ok(())
}

/// `datagen pack`: a file of the 24-byte format made into shards.
pub(super) fn pack(
    file: &str,
    args: &DatagenArgs,
    settings: DatagenSettings,
) -> Result<(), CliError> {
    let out_dir = args
        .out_dir
        .as_deref()
        .ok_or_else(|| error("datagen pack needs --out-dir DIR"))?;
    std::fs::create_dir_all(out_dir).map_err(|e| error(format!("cannot create {out_dir}: {e}")))?;
    let samples = read_dataset(Path::new(file)).map_err(error)?;
    let wthor = wthor_folder(args.wthor.as_deref())?;
    let games: BTreeMap<u32, Vec<Sample>> = split_games(&samples)
        .into_iter()
        .map(|g| (g[0].game, g))
        .collect();
    let total = games.keys().next_back().map_or(0, |&g| g + 1);
    let mut run = new_run(
        PathBuf::from(out_dir),
        &settings,
        total,
        games_per_shard(args)?,
        None,
        wthor.as_ref(),
    );
    // The file does not say which weights labelled it.
    run.header.label_weights = None;
    let stop = catch_signals()?;
    let mut play = |game: u32| -> Result<Option<Vec<Sample>>, String> {
        Ok(Some(games.get(&game).cloned().unwrap_or_default()))
    };
    finish_run(&run, &mut play, &stop, total as usize, out_dir)
}

/// `datagen index DIR`: the manifest written anew from the shards of a folder (after shards
/// from several machines were copied into one).
pub(super) fn index(dir: &str) -> Result<(), CliError> {
    let path = Path::new(dir);
    // The folder's label weights, where its manifest named them, outlive the rewrite.
    let mut manifest = Manifest {
        label_weights: Manifest::load(path).ok().and_then(|m| m.label_weights),
        ..Manifest::default()
    };
    for file in shard_files(path).map_err(error)? {
        let full = path.join(&file);
        let bytes = std::fs::read(&full)
            .map_err(|e| error(format!("cannot read {}: {e}", full.display())))?;
        let (header, _) =
            read_shard_header(&bytes).map_err(|e| error(format!("{}: {e}", full.display())))?;
        manifest.record(&file, &bytes, &header);
    }
    manifest.save(path).map_err(error)?;
    println!("datagen index: {} shards in {dir}", manifest.shards.len());
    Ok(())
}

/// `datagen stats DIR`: what a shard folder holds, per source and per bracket of empties.
pub(super) fn folder_stats(dir: &str, wthor_dir: &str) -> Result<(), CliError> {
    let path = Path::new(dir);
    let manifest = checked_manifest(path).map_err(error)?;
    let wthor = folder_wthor(path, &manifest, Path::new(wthor_dir)).map_err(error)?;
    let mut by_source: BTreeMap<&'static str, Vec<Sample>> = BTreeMap::new();
    let (mut bytes, mut hours) = (0u64, 0f64);
    for entry in &manifest.shards {
        let data = read_checked(path, entry).map_err(error)?;
        let (_, samples) = decode_shard(&data, wthor.as_ref())
            .map_err(|e| error(format!("{}: {e}", path.join(&entry.file).display())))?;
        by_source
            .entry(entry.source.name())
            .or_default()
            .extend(samples);
        bytes += entry.bytes;
        hours += entry.core_hours;
    }
    let all: Vec<Sample> = by_source.values().flatten().copied().collect();
    let total = dataset_stats(&all);
    println!(
        "{dir}: {} shards, {} positions ({} exact, {:.1}%), {} games; {bytes} bytes of shards, {:.3} bytes a position; {hours:.2} core-hours",
        manifest.shards.len(),
        total.records,
        total.exact,
        100.0 * total.exact as f64 / total.records.max(1) as f64,
        manifest
            .shards
            .iter()
            .map(|e| u64::from(e.games))
            .sum::<u64>(),
        bytes as f64 / total.records.max(1) as f64,
    );
    if let Some(first) = manifest.shards.first() {
        println!("labels: {}", first.labels);
    }
    if let Some(weights) = manifest.labelled_by() {
        let by_network = manifest
            .shards
            .first()
            .is_some_and(|e| e.labels.contains("with neural"));
        let what = if by_network { "network" } else { "weights" };
        println!("label {what}: {weights}");
    }
    let sources: Vec<(&str, _)> = by_source
        .iter()
        .map(|(k, v)| (*k, dataset_stats(v)))
        .collect();
    print!("{:>7}", "empties");
    for (name, _) in &sources {
        print!("  {:>10} {:>9}", name, "exact");
    }
    println!("  {:>10}", "all");
    for (bracket, &(records, _)) in total.by_empties.iter().enumerate() {
        if records == 0 {
            continue;
        }
        let low = bracket * STATS_BRACKET;
        print!("{:>7}", format!("{low}-{}", low + STATS_BRACKET - 1));
        for (_, s) in &sources {
            let (r, e) = s.by_empties[bracket];
            print!("  {r:>10} {e:>9}");
        }
        println!("  {records:>10}");
    }
    for (name, s) in &sources {
        println!(
            "{name}: {} positions, {} exact, {} games",
            s.records, s.exact, s.games
        );
    }
    Ok(())
}
