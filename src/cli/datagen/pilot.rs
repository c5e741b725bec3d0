//! The label pilot's measures: `datagen reference` values held-out positions of a shard
//! folder as well as we can (exact up to `--exact-empties`, else a deep selective search),
//! and `datagen compare` holds the labels of shard folders (the same games labelled by other
//! recipes), and the static values of weights fitted to them, against those values, per
//! bracket of empties.

use super::DatagenArgs;
use crate::board::{Color, Position};
use crate::cli::args::{CliError, error, network_file, parse_in_range, span, weights_file};
use crate::cli::error::catch_signals;
use crate::fit::dataset::{DatasetWriter, Sample, read_dataset};
use crate::fit::linear::HOLDOUT_EVERY;
use crate::game::datagen::{STATS_BRACKET, read_training_data};
use crate::search::{EndgameMode, Limits, PhaseLevel, Searcher};
use crate::sys::progress::Progress;
use crate::sys::signals::exit_if_caught;
use std::collections::HashMap;
use std::fs::OpenOptions;
use std::path::Path;
use std::sync::Arc;

/// The positions `datagen reference` values when `--positions` is not given.
const DEFAULT_POSITIONS: usize = 5000;
/// Positions with at most this many empties are solved, unless `--exact-empties` says.
const DEFAULT_EXACT_EMPTIES: u32 = 24;
/// The depth of the search that values the others, unless `--depth` says...
const DEFAULT_DEPTH: u32 = 16;
/// ... and its selectivity (87%, the engine's own), unless `--selectivity` says.
const DEFAULT_SELECTIVITY: crate::search::Selectivity = crate::search::Selectivity::ALL[1];

/// `positions` of the held-out games of `samples` (every [`HOLDOUT_EVERY`]th game, as `train`
/// holds them out), spread evenly over them in file order.
fn held_out(samples: &[Sample], positions: usize, empties: (u32, u32)) -> Vec<Sample> {
    let pool: Vec<Sample> = samples
        .iter()
        .filter(|s| s.game % HOLDOUT_EVERY == 0)
        .filter(|s| (empties.0..=empties.1).contains(&u32::from(s.empties)))
        .copied()
        .collect();
    let step = (pool.len() / positions.max(1)).max(1);
    pool.into_iter().step_by(step).take(positions).collect()
}

/// `datagen reference DIR --out FILE`: reference values of held-out positions, written as a
/// 24-byte file (one record a position, `value` the reference and the exact flag where
/// solved) a record at a time, so that a stopped run goes on where it stopped.
pub(super) fn reference(
    dir: &str,
    empties: Option<&str>,
    args: &DatagenArgs,
    wthor_dir: &str,
) -> Result<(), CliError> {
    let empties = match empties {
        Some(text) => span(text, "empties", 0, 60)?,
        None => (0, 60),
    };
    let out = args
        .out
        .as_deref()
        .ok_or_else(|| error("datagen reference needs --out FILE"))?;
    let positions = match &args.games {
        Some(n) => parse_in_range(n, "games", 1..=1_000_000)? as usize,
        None => DEFAULT_POSITIONS,
    };
    let exact_empties = match &args.solve_empties {
        Some(n) => parse_in_range(n, "solve-empties", 0..=30)?,
        None => DEFAULT_EXACT_EMPTIES,
    };
    let depth = match &args.depth {
        Some(d) => parse_in_range(d, "depth", 1..=30)?,
        None => DEFAULT_DEPTH,
    };
    let selectivity = match &args.selectivity {
        Some(text) => text
            .parse()
            .map_err(|e| error(format!("--selectivity: {e}")))?,
        None => DEFAULT_SELECTIVITY,
    };
    let (_, samples) = read_training_data(Path::new(dir), Path::new(wthor_dir)).map_err(error)?;
    let chosen = held_out(&samples, positions, empties);
    if chosen.is_empty() {
        return Err(error(format!(
            "{dir}: no held-out position has {} to {} empties",
            empties.0, empties.1
        )));
    }
    let done = if Path::new(out).exists() {
        read_dataset(Path::new(out)).map_err(error)?.len()
    } else {
        0
    };
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| error(format!("cannot open {out}: {e}")))?;
    let mut writer = if done == 0 {
        DatasetWriter::create(file)
    } else {
        Ok(DatasetWriter::append(file))
    }
    .map_err(|e| error(format!("cannot write {out}: {e}")))?;
    let stop = catch_signals()?;
    let limits = Limits {
        stop: Arc::clone(&stop),
        ..Limits::none()
    };
    let mut searcher = Searcher::new(args.hash.unwrap_or(64), Some(0));
    searcher.set_selectivity(selectivity);
    let level = PhaseLevel {
        depth,
        eval: crate::eval::EvaluatorKind::Pattern,
    };
    let mut progress = Progress::new("datagen reference", "positions", chosen.len(), done);
    for (i, s) in chosen.iter().enumerate().skip(done) {
        let position = Position::from_player_opponent(s.player, s.opponent, Color::Black);
        searcher.clear();
        let exact = u32::from(s.empties) <= exact_empties;
        let report = if exact {
            searcher.solve(&position, EndgameMode::Exact, level, &limits, &mut |_| {})
        } else {
            searcher.search(&position, level, &limits, &mut |_| {})
        };
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let record = Sample {
            value: report.value.discs().round().clamp(-64.0, 64.0) as i8,
            flags: u8::from(exact),
            ..*s
        };
        writer
            .write_game(&[record])
            .map_err(|e| error(format!("cannot write {out}: {e}")))?;
        progress.show(i + 1, "");
    }
    progress.finish();
    exit_if_caught(
        "datagen reference",
        &format!("{out} keeps every position valued: rerun to go on"),
    );
    Ok(())
}

/// `datagen compare --reference FILE DIR...`: each folder's labels against the reference
/// values, the mean absolute difference per bracket of empties.
pub(super) fn compare(
    reference: &str,
    dirs: &[String],
    weights: &[String],
    networks: &[String],
    wthor_dir: &str,
) -> Result<(), CliError> {
    let reference = read_dataset(Path::new(reference)).map_err(error)?;
    let nets = networks
        .iter()
        .map(|path| network_file(path).map_err(error))
        .collect::<Result<Vec<_>, _>>()?;
    // Every weights file is read before anything is printed: a bad one is one line.
    let tables = weights
        .iter()
        .map(|path| weights_file(path).map_err(error))
        .collect::<Result<Vec<_>, _>>()?;
    // Each folder's labels, and the reference positions every folder holds: a pilot that
    // relabels part of the games is compared on the part it has.
    let mut label_maps = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let (_, samples) =
            read_training_data(Path::new(dir), Path::new(wthor_dir)).map_err(error)?;
        let labels: HashMap<(u64, u64), i8> = samples
            .iter()
            .map(|s| ((s.player, s.opponent), s.value))
            .collect();
        label_maps.push(labels);
    }
    let given = reference.len();
    let reference: Vec<Sample> = reference
        .into_iter()
        .filter(|r| {
            label_maps
                .iter()
                .all(|m| m.contains_key(&(r.player, r.opponent)))
        })
        .collect();
    if reference.is_empty() {
        return Err(error(
            "no reference position is in every folder given (other games?)",
        ));
    }
    if reference.len() < given {
        eprintln!(
            "datagen compare: {} of the {given} reference positions are in every folder; the others are left out",
            reference.len()
        );
    }
    let columns = dirs.len() + weights.len() + networks.len();
    let brackets = 64 / STATS_BRACKET + 1;
    print!("{:>7} {:>9}", "empties", "positions");
    for name in dirs.iter().chain(weights).chain(networks) {
        print!(
            " {:>14}",
            Path::new(name)
                .file_name()
                .map_or(name.clone(), |n| n.to_string_lossy().into_owned())
        );
    }
    println!();
    let mut rows = vec![(0usize, vec![0.0f64; columns]); brackets];
    let mut totals = vec![0.0f64; columns];
    let bracket = |r: &Sample| (usize::from(r.empties) / STATS_BRACKET).min(brackets - 1);
    for r in &reference {
        rows[bracket(r)].0 += 1;
    }
    for (k, labels) in label_maps.iter().enumerate() {
        for r in &reference {
            let label = labels[&(r.player, r.opponent)];
            let miss = f64::from((i32::from(label) - i32::from(r.value)).abs());
            rows[bracket(r)].1[k] += miss;
            totals[k] += miss;
        }
    }
    // A weights file's value of a position, in hundredths of a disc for the side to move.
    // A network's likewise (its static value, as the search's leaves see it).
    let scorers = tables
        .iter()
        .map(|t| Box::new(|p, o| t.score(p, o)) as Box<dyn Fn(u64, u64) -> i32>)
        .chain(
            nets.iter()
                .map(|n| Box::new(|p, o| n.score(p, o)) as Box<dyn Fn(u64, u64) -> i32>),
        );
    for (k, score) in scorers.enumerate() {
        let k = dirs.len() + k;
        for r in &reference {
            let value = f64::from(score(r.player, r.opponent)) / 100.0;
            let miss = (value - f64::from(r.value)).abs();
            rows[bracket(r)].1[k] += miss;
            totals[k] += miss;
        }
    }
    for (b, (n, misses)) in rows.iter().enumerate() {
        if *n == 0 {
            continue;
        }
        let low = b * STATS_BRACKET;
        print!("{:>7} {n:>9}", format!("{low}-{}", low + STATS_BRACKET - 1));
        for m in misses {
            print!(" {:>14.2}", m / *n as f64);
        }
        println!();
    }
    print!("{:>7} {:>9}", "all", reference.len());
    for t in &totals {
        print!(" {:>14.2}", t / reference.len().max(1) as f64);
    }
    println!();
    Ok(())
}
