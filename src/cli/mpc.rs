//! `othello-engine mpc calibrate`: measures the Multi-ProbCut regressions of the search with
//! the `pattern` evaluator (see `search/probcut.rs`) on positions of `datagen` files, and
//! writes the table the engine builds in (`data/mpc-table.txt`).

use super::args::error;
use crate::arena::options::{CliError, parse_in_range};
use crate::board::{Color, Position};
use crate::eval::dataset::read_dataset;
use crate::search::probcut::{
    CALIBRATED_EVALUATOR, CalibrationPairs, MAX_CALIBRATED_DEPTH, MIN_DEPTH, STAGES, shallow_depth,
};
use crate::search::{Limits, PhaseLevel, Searcher, Value, WIN};
use clap::{Args, Subcommand};
use std::path::Path;
use std::time::Instant;

/// Where the table built into the engine lives.
const DEFAULT_OUT: &str = "data/mpc-table.txt";
/// Positions with fewer empties are the solver's, not the midgame search's.
const MIN_EMPTIES: u32 = 14;

/// `mpc` commands.
#[derive(Subcommand, Debug)]
pub enum MpcCommand {
    /// Fit the Multi-ProbCut regressions (deep value on shallow value, per stage and depth)
    /// from full-width searches of positions of datagen files.
    Calibrate(CalibrateArgs),
}

/// Arguments of `mpc calibrate`.
#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Data files written by `othello-engine datagen`: their positions are searched.
    #[arg(value_name = "FILE", required = true)]
    data: Vec<String>,
    /// How many positions to search, spread evenly over the files (default 600).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    positions: Option<String>,
    /// The deepest search, 4 to 14 (default 12).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    max_depth: Option<String>,
    /// Hash table size in MiB (default 64).
    #[arg(long, value_name = "MIB", allow_hyphen_values = true)]
    hash: Option<String>,
    /// Where to write the table (default data/mpc-table.txt, the built-in one).
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
}

/// Runs an `mpc` command.
pub fn run(command: MpcCommand) -> Result<(), CliError> {
    match command {
        MpcCommand::Calibrate(args) => calibrate(args),
    }
}

fn calibrate(args: CalibrateArgs) -> Result<(), CliError> {
    let wanted = match &args.positions {
        Some(n) => parse_in_range(n, "positions", 1..=1_000_000)? as usize,
        None => 600,
    };
    let max_depth = match &args.max_depth {
        Some(d) => parse_in_range(d, "max-depth", MIN_DEPTH + 1..=MAX_CALIBRATED_DEPTH)?,
        None => 12,
    };
    let hash = match &args.hash {
        Some(h) => parse_in_range(h, "hash", 1..=65_536)? as usize,
        None => 64,
    };
    let out = args.out.as_deref().unwrap_or(DEFAULT_OUT);
    let mut candidates = Vec::new();
    for path in &args.data {
        for s in read_dataset(Path::new(path)).map_err(|e| error(format!("{path}: {e}")))? {
            let position = Position::from_player_opponent(s.player, s.opponent, Color::Black);
            if position.empty_count() >= MIN_EMPTIES && position.legal_moves() != 0 {
                candidates.push(position);
            }
        }
    }
    if candidates.is_empty() {
        return Err(error(format!(
            "no positions with {MIN_EMPTIES} or more empties and a move in the data"
        )));
    }
    let step = (candidates.len() as f64 / wanted as f64).max(1.0);
    let chosen: Vec<Position> = (0..wanted.min(candidates.len()))
        .map(|i| candidates[(i as f64 * step) as usize])
        .collect();
    eprintln!(
        "searching {} of {} positions to depth {max_depth}, full width, with {}",
        chosen.len(),
        candidates.len(),
        CALIBRATED_EVALUATOR.name()
    );
    let start = Instant::now();
    let mut searcher = Searcher::new(hash, None);
    let mut pairs = CalibrationPairs::default();
    let mut nodes = 0u64;
    for (i, position) in chosen.iter().enumerate() {
        searcher.clear();
        let mut values = vec![None; max_depth as usize + 1];
        let level = PhaseLevel {
            depth: max_depth.min(position.empty_count() - 1),
            eval: CALIBRATED_EVALUATOR,
        };
        let report = searcher.search(position, level, &Limits::none(), &mut |r| {
            if let Value::Estimate(v) = r.value
                && v.abs() < WIN
                && let Some(slot) = values.get_mut(r.depth as usize)
            {
                *slot = Some(v);
            }
        });
        nodes += report.nodes;
        pairs.add(position.empty_count(), &values);
        let done = i + 1;
        if done % 20 == 0 || done == chosen.len() {
            let elapsed = start.elapsed().as_secs_f64();
            let eta = elapsed / done as f64 * (chosen.len() - done) as f64;
            eprintln!(
                "{done}/{} positions, {nodes} nodes, {elapsed:.0} s, ETA {eta:.0} s",
                chosen.len()
            );
        }
    }
    let table = pairs.table();
    let header = format!(
        "Multi-ProbCut regressions of the search with `{}`: deep value = slope x shallow value\n\
         + offset, residuals of sigma (hundredths of a disc), per stage of 10 empties.\n\
         Made by `othello-engine mpc calibrate` from {} positions, depth {max_depth}, {:.0} s.",
        CALIBRATED_EVALUATOR.name(),
        chosen.len(),
        start.elapsed().as_secs_f64()
    );
    let text = table.to_text(&header);
    println!("stage depth shallow pairs slope offset sigma");
    for (stage, depth, r) in table.rows() {
        println!(
            "{stage:>5} {depth:>5} {:>7} {:>5} {:>5.3} {:>6.1} {:>5.1}",
            shallow_depth(depth),
            pairs.count(stage, depth),
            r.slope,
            r.offset,
            r.sigma
        );
    }
    if table.rows().count() == 0 {
        return Err(error(format!(
            "too few positions per stage ({STAGES} stages) for a regression"
        )));
    }
    let temp = format!("{out}.tmp");
    std::fs::write(&temp, text.as_bytes())
        .and_then(|()| std::fs::rename(&temp, out))
        .map_err(|e| error(format!("cannot write {out}: {e}")))?;
    println!("wrote {out} in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
