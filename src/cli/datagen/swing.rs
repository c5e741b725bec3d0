//! `datagen swing`: how a search's root value moves with the parity of its depth. A minimax
//! over noisy leaf values favours the side that chose last, so a search of odd depth (the
//! mover's last choice) values positions above their exact score and one of even depth below;
//! the swing between them grows with the evaluation's error, and blurs every comparison
//! between depths (aspiration windows, Multi-ProbCut's regressions, the deepening's choice).
//! Measured here on exactly solved positions (`datagen reference --solve-empties 30
//! --empties 26-30`), one deepening per position, its depths' values read as they finish.

use crate::board::{Color, Position};
use crate::cli::args::{CliError, error, hash_mib, install_network_files, number_in};
use crate::eval::EvaluatorKind;
use crate::fit::dataset::read_dataset;
use crate::search::{Limits, PhaseLevel, Searcher, Selectivity};
use crate::sys::progress::Progress;
use clap::Args;
use std::path::Path;

/// The flags of `datagen swing`.
#[derive(Args, Debug)]
pub struct SwingArgs {
    /// Exact reference values (`datagen reference ... --solve-empties 30`).
    #[arg(long, value_name = "FILE")]
    reference: String,
    /// The depths whose root values are measured, e.g. 13,14 (each 1 to 30).
    #[arg(long, value_name = "LIST", default_value = "13,14")]
    depths: String,
    /// Multi-ProbCut confidence, in percent: 73, 87, 95, 98, 99 or 100.
    #[arg(long, value_name = "P", default_value = "73")]
    selectivity: String,
    /// The evaluator at the leaves.
    #[arg(long, value_name = "NAME", default_value = "pattern")]
    eval: String,
    /// The network of the `neural` evaluator (written by `train --model net`).
    #[arg(long, value_name = "FILE")]
    network: Option<String>,
    /// The network's Multi-ProbCut table (written by `mpc calibrate --eval neural`).
    #[arg(long, value_name = "FILE")]
    mpc_table: Option<String>,
    /// Transposition table size in MiB (default 64).
    #[arg(long, value_name = "MIB", value_parser = hash_mib)]
    hash: Option<usize>,
    /// The bonus, in discs, the `neural` evaluator gives the side to move (default: the
    /// built-in one), -10 to 10.
    #[arg(long, value_name = "DISCS", allow_hyphen_values = true)]
    tempo: Option<String>,
    /// Take reference values that are searches, not exact scores: the swing between depths
    /// needs none; the errors are then against those values.
    #[arg(long)]
    inexact: bool,
}

/// Runs `datagen swing`: prints, per depth, the positions' mean signed and mean absolute
/// difference between the root value and the exact score, then the swing between
/// consecutive depths.
pub(super) fn run(args: &SwingArgs) -> Result<(), CliError> {
    let depths = parse_depths(&args.depths)?;
    let selectivity: Selectivity = args
        .selectivity
        .parse()
        .map_err(|e| error(format!("--selectivity: {e}")))?;
    let eval: EvaluatorKind = args
        .eval
        .parse()
        .map_err(|e| error(format!("--eval: {e}")))?;
    install_network_files(args.network.as_deref(), args.mpc_table.as_deref())?;
    if let Some(text) = &args.tempo {
        let discs = number_in(text, "tempo", -10.0..=10.0)?;
        crate::eval::network::tempo::set_tempo((discs * 100.0).round() as i32).map_err(error)?;
    }
    let reference = read_dataset(Path::new(&args.reference)).map_err(error)?;
    let inexact = reference.iter().filter(|r| r.flags & 1 == 0).count();
    if reference.is_empty() || (inexact > 0 && !args.inexact) {
        return Err(error(format!(
            "{}: the swing needs exact values only (datagen reference --solve-empties 30; \
             --inexact takes searched ones); this file has {} positions, {inexact} not exact",
            args.reference,
            reference.len(),
        )));
    }
    let deepest = *depths.iter().max().unwrap_or(&1);
    let level = PhaseLevel {
        depth: deepest,
        eval,
    };
    let mut searcher = Searcher::new(args.hash.unwrap_or(64), Some(0));
    let mut signed = vec![0.0f64; depths.len()];
    let mut absolute = vec![0.0f64; depths.len()];
    let mut progress = Progress::new("datagen swing", "positions", reference.len(), 0);
    for (i, r) in reference.iter().enumerate() {
        let position = Position::from_player_opponent(r.player, r.opponent, Color::Black);
        searcher.clear();
        searcher.set_selectivity(selectivity);
        let mut values = vec![None; depths.len()];
        searcher.search(&position, level, &Limits::none(), &mut |report| {
            if let Some(k) = depths.iter().position(|&d| d == report.depth) {
                values[k] = Some(report.value.discs());
            }
        });
        for (k, value) in values.iter().enumerate() {
            // A depth beyond the end of the game is the exact score itself.
            let miss = value.unwrap_or(f64::from(r.value)) - f64::from(r.value);
            signed[k] += miss;
            absolute[k] += miss.abs();
        }
        progress.show(i + 1, "");
    }
    progress.finish();
    let n = reference.len() as f64;
    let tempo = if eval == EvaluatorKind::Neural {
        format!(
            ", tempo {:.2} discs",
            f64::from(crate::eval::network::tempo::tempo()) / 100.0
        )
    } else {
        String::new()
    };
    let values = if inexact > 0 {
        format!(" (against reference values of which {inexact} are searches)")
    } else {
        String::new()
    };
    println!(
        "{} positions ({}), {eval} at {selectivity}{tempo}{values}",
        reference.len(),
        args.reference
    );
    println!("{:>5} {:>12} {:>12}", "depth", "mean signed", "mean abs");
    for (k, depth) in depths.iter().enumerate() {
        println!(
            "{depth:>5} {:>+12.2} {:>12.2}",
            signed[k] / n,
            absolute[k] / n
        );
    }
    for k in 1..depths.len() {
        println!(
            "swing {} - {}: {:+.2} discs",
            depths[k - 1],
            depths[k],
            (signed[k - 1] - signed[k]) / n
        );
    }
    Ok(())
}

/// `13,14`: depths 1 to 30, in increasing order.
fn parse_depths(text: &str) -> Result<Vec<u32>, CliError> {
    let bad = || {
        error(format!(
            "bad --depths '{text}': expected depths 1 to 30, e.g. 13,14"
        ))
    };
    let depths = text
        .split(',')
        .map(|d| {
            d.trim()
                .parse::<u32>()
                .ok()
                .filter(|d| (1..=30).contains(d))
        })
        .collect::<Option<Vec<u32>>>()
        .ok_or_else(bad)?;
    if depths.is_empty() || depths.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad());
    }
    Ok(depths)
}
