//! `othello-engine mpc calibrate`: measures the Multi-ProbCut regressions of the search with
//! the `pattern` evaluator on positions of `datagen` files, and writes the table the engine
//! builds in (`data/mpc-table.txt`). The searches are `search/probcut_calibrate.rs`'s, the
//! fits `search/probcut/fit.rs`'s; this file reads the flags and the data, keeps the
//! checkpoint and shows progress.

use super::args::error;
use super::args::{CliError, parse_in_range};
use crate::board::{Color, Position};
use crate::cli::error::catch_signals;
use crate::game::datagen::{describe_sources, read_all_training_data};
use crate::game::wthor::DEFAULT_WTHOR_DIR;
use crate::search::Limits;
use crate::search::probcut::{
    self, CALIBRATED_EVALUATOR, MAX_CALIBRATED_DEPTH, MIN_DEPTH, STAGES, shallow_depth,
};
use crate::search::probcut_calibrate::{
    self, CalibrationSettings, ENDGAME_MAX_DEPTH, MIN_EMPTIES, Searched, spread,
};
use crate::sys::files::write_atomically;
use crate::sys::progress::Progress;
use crate::sys::signals::exit_if_caught;
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Where the table built into the engine lives.
const DEFAULT_OUT: &str = "data/mpc-table.txt";

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
    /// Shard folders, shards or files written by `othello-engine datagen`: their positions
    /// are searched.
    #[arg(value_name = "DATA", required = true)]
    data: Vec<String>,
    /// The WTHOR folder whose games WTHOR shards label.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_WTHOR_DIR)]
    wthor: String,
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
    /// Calibrate the endgame's cuts instead: the exact score on shallow search values, per
    /// empties and shallow depth, from positions with exact labels.
    #[arg(long)]
    endgame: bool,
    /// The evaluator to measure: `pattern` (the default; the built-in table) or `neural`
    /// (a table for `--mpc-table` beside `--network`).
    #[arg(long, value_name = "NAME")]
    eval: Option<String>,
    /// The `neural` evaluator's network, from FILE.
    #[arg(long, value_name = "FILE", value_parser = super::args::network_file)]
    network: Option<crate::eval::network::Network>,
    /// Go on with a run that was stopped: the positions already searched are read from
    /// `OUT.progress` (the same files, positions and depth must be given).
    #[arg(long)]
    resume: bool,
}

/// Runs an `mpc` command.
pub fn run(command: MpcCommand) -> Result<(), CliError> {
    match command {
        MpcCommand::Calibrate(args) => calibrate(args),
    }
}

fn calibrate(args: CalibrateArgs) -> Result<(), CliError> {
    if args.endgame {
        return calibrate_endgame(args);
    }
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
    let eval = match args.eval.as_deref().map(str::trim) {
        None | Some("pattern") => CALIBRATED_EVALUATOR,
        Some("neural") => {
            super::args::install_network(args.network.clone())?;
            crate::eval::EvaluatorKind::Neural
        }
        Some(other) => {
            return Err(error(format!(
                "bad --eval '{other}': expected pattern or neural"
            )));
        }
    };
    if eval == CALIBRATED_EVALUATOR && args.network.is_some() {
        return Err(error("--network goes with --eval neural"));
    }
    let out = args.out.as_deref().unwrap_or(DEFAULT_OUT);
    if eval != CALIBRATED_EVALUATOR && args.out.is_none() {
        return Err(error(
            "give --out FILE: the built-in table (data/mpc-table.txt) is the pattern evaluator's",
        ));
    }
    let mut candidates = Vec::new();
    let sources = read_all_training_data(&args.data, Path::new(&args.wthor), &mut |_, samples| {
        for s in samples {
            let position = Position::from_player_opponent(s.player, s.opponent, Color::Black);
            if position.empty_count() >= MIN_EMPTIES && position.legal_moves() != 0 {
                candidates.push(position);
            }
        }
    })
    .map_err(error)?;
    for line in describe_sources(&sources) {
        eprintln!("data: {line}");
    }
    if candidates.is_empty() {
        return Err(error(format!(
            "no positions with {MIN_EMPTIES} or more empties and a move in the data"
        )));
    }
    let chosen = spread(&candidates, wanted);
    eprintln!(
        "searching {} of {} positions to depth {max_depth}, full width, with {}",
        chosen.len(),
        candidates.len(),
        eval.name()
    );
    let progress_path = format!("{out}.progress");
    let header = format!(
        "# mpc calibrate progress: {} positions, max-depth {max_depth}, files {}",
        chosen.len(),
        args.data.join(" ")
    );
    let done_values = open_progress(
        &progress_path,
        &header,
        args.resume,
        chosen.len(),
        max_depth,
    )?;
    let mut progress = std::fs::OpenOptions::new()
        .append(true)
        .open(&progress_path)
        .map_err(|e| error(format!("cannot write {progress_path}: {e}")))?;
    let stop = catch_signals()?;
    let limits = Limits {
        stop: std::sync::Arc::clone(&stop),
        ..Limits::none()
    };
    let start = Instant::now();
    let resumed = done_values.iter().filter(|v| v.is_some()).count();
    if resumed > 0 {
        eprintln!("resuming: {resumed} positions already searched ({progress_path})");
    }
    let settings = CalibrationSettings {
        max_depth,
        hash_mib: hash,
        eval,
    };
    let mut shown = Progress::new("mpc calibrate", "positions", chosen.len(), resumed);
    let pairs = probcut_calibrate::calibrate(
        &chosen,
        done_values,
        settings,
        &limits,
        |searched: Searched<'_>| {
            writeln!(
                progress,
                "{} {}",
                searched.index,
                progress_line(searched.values)
            )
            .and_then(|()| progress.flush())
            .map_err(|e| error(format!("cannot write {progress_path}: {e}")))?;
            shown.show(searched.index + 1, &format!("{} nodes", searched.nodes));
            Ok::<(), CliError>(())
        },
    )?;
    shown.finish();
    exit_if_caught(
        "mpc calibrate",
        &format!("{progress_path} holds every finished position: rerun with --resume to go on"),
    );
    let table = pairs.table();
    let header = format!(
        "Multi-ProbCut regressions of the search with `{}`: deep value = slope x shallow value\n\
         + offset, residuals of sigma (hundredths of a disc), per stage of 10 empties.\n\
         Made by `othello-engine mpc calibrate` from {} positions, depth {max_depth}, {:.0} s.",
        eval.name(),
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
    write_atomically(Path::new(out), text.as_bytes())
        .map_err(|e| error(format!("cannot write {out}: {e}")))?;
    // The run is complete: its checkpoint has served.
    let _ = std::fs::remove_file(&progress_path);
    println!("wrote {out} in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// The searched values of one position on a progress line: one per depth, `-` for none.
fn progress_line(values: &[Option<i32>]) -> String {
    values
        .iter()
        .map(|v| v.map_or("-".to_string(), |v| v.to_string()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The values per depth of every position a stopped run finished, read from its progress
/// file (`resume`), or an empty progress file for a new run. A progress file of another run
/// (other files, positions or depth) or a malformed one is refused and left as it is.
fn open_progress(
    path: &str,
    header: &str,
    resume: bool,
    positions: usize,
    max_depth: u32,
) -> Result<Vec<Option<Vec<Option<i32>>>>, CliError> {
    let mut done = vec![None; positions];
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::write(path, format!("{header}\n"))
                .map_err(|e| error(format!("cannot write {path}: {e}")))?;
            return Ok(done);
        }
        Err(e) => return Err(error(format!("cannot read {path}: {e}"))),
    };
    if !resume {
        return Err(error(format!(
            "{path} exists (a stopped run): add --resume to go on with it, or remove it"
        )));
    }
    // A line cut short by a crash is dropped: its position is searched again.
    let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    if whole.len() < text.len() {
        std::fs::write(path, whole).map_err(|e| error(format!("cannot write {path}: {e}")))?;
    }
    let mut lines = whole.lines();
    if lines.next() != Some(header) {
        return Err(error(format!(
            "cannot resume {path}: it is the progress of another run (its first line is not '{header}')"
        )));
    }
    for (n, line) in lines.enumerate() {
        let bad = |why: &str| error(format!("cannot resume {path}: line {}: {why}", n + 2));
        let mut words = line.split_whitespace();
        let index: usize = words
            .next()
            .and_then(|w| w.parse().ok())
            .filter(|&i| i < positions)
            .ok_or_else(|| bad("no position number"))?;
        let values: Vec<Option<i32>> = words
            .map(|w| match w {
                "-" => Ok(None),
                w => w
                    .parse()
                    .map(Some)
                    .map_err(|_| bad(&format!("bad value '{w}'"))),
            })
            .collect::<Result<_, _>>()?;
        if values.len() != max_depth as usize + 1 {
            return Err(bad(&format!(
                "{} values, expected {}",
                values.len(),
                max_depth + 1
            )));
        }
        done[index] = Some(values);
    }
    Ok(done)
}

/// `mpc calibrate --endgame`: the regression of exact scores (positions of the data with exact
/// labels, 12 empties or more) on the values of full-width `pattern-full` searches (the
/// solver's evaluator) of depth 0 to 8,
/// per number of empties and depth, printed as a table (the endgame's cuts use a model fitted
/// to it: `probcut::endgame_regression`). A few thousand positions take seconds.
fn calibrate_endgame(args: CalibrateArgs) -> Result<(), CliError> {
    use crate::fit::dataset::FLAG_EXACT;
    let wanted = match &args.positions {
        Some(n) => parse_in_range(n, "positions", 1..=1_000_000)? as usize,
        None => 2000,
    };
    let max_depth = ENDGAME_MAX_DEPTH;
    let min_empties = probcut::ENDGAME_MIN_EMPTIES;
    let mut candidates = Vec::new();
    let sources = read_all_training_data(&args.data, Path::new(&args.wthor), &mut |_, samples| {
        for s in samples {
            let position = Position::from_player_opponent(s.player, s.opponent, Color::Black);
            if s.flags & FLAG_EXACT != 0
                && position.empty_count() >= min_empties
                && position.legal_moves() != 0
            {
                candidates.push((position, i32::from(s.value)));
            }
        }
    })
    .map_err(error)?;
    for line in describe_sources(&sources) {
        eprintln!("data: {line}");
    }
    let chosen = spread(&candidates, wanted);
    if chosen.is_empty() {
        return Err(error(format!(
            "no positions with exact labels and {min_empties} or more empties in the data"
        )));
    }
    eprintln!(
        "searching {} of {} positions with exact labels to depth {max_depth}",
        chosen.len(),
        candidates.len()
    );
    let hash = match &args.hash {
        Some(h) => parse_in_range(h, "hash", 1..=65_536)? as usize,
        None => 64,
    };
    let mut shown = Progress::new("mpc calibrate", "positions", chosen.len(), 0);
    let fits = probcut_calibrate::calibrate_endgame(&chosen, hash, |done| shown.show(done, ""));
    shown.finish();
    println!("empties depth pairs slope offset sigma");
    for f in fits {
        let (n, d, r) = (f.empties, f.depth, f.regression);
        println!(
            "{n:>3} {d:>2} {:>5} {:.3} {:>7.1} {:>6.1}",
            f.pairs, r.slope, r.offset, r.sigma
        );
    }
    Ok(())
}
