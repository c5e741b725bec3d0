//! `train` (the linear model): fits the `pattern` weights to data files that `datagen` wrote,
//! and reports the held-out error per stage beside that of other weights (`--compare`; by
//! default the built-in ones) on the same positions. The fits are `fit::linear`'s; this file
//! reads the flags, prints and writes the weights.

use super::args::{TrainArgs, fraction, read_data, write_model};
use crate::cli::args::{CliError, error, parse_in_range, weights_file};
use crate::eval::features::{Counts, Shapes};
use crate::eval::pattern::{
    COUNTS, PatternWeights, SHAPES, STAGE_EMPTIES, active_weights, wthor_weights,
};
use crate::fit::linear::{DEFAULT_OPENING_EMPTIES, Method, TrainSettings, train_and_compare};
use std::time::Instant;

/// Where the weights built into the engine live.
const DEFAULT_OUT: &str = "data/pattern-weights.bin";

/// Reads the data, trains, reports the error per stage and writes the weights.
pub(super) fn run(args: TrainArgs) -> Result<(), CliError> {
    let out = args.out.as_deref().unwrap_or(DEFAULT_OUT);
    let mut settings = TrainSettings::default();
    if let Some(e) = &args.epochs {
        settings.epochs = parse_in_range(e, "epochs", 1..=1000)? as usize;
    }
    if let Some(r) = &args.rate {
        settings.learning_rate = fraction(r, "rate")?;
    }
    if let Some(l) = &args.l2 {
        settings.l2 = fraction(l, "l2")?;
    }
    match args.method.as_deref().map(str::trim) {
        None | Some("cg") => settings.method = Method::LeastSquares,
        Some("sgd") => settings.method = Method::Sgd,
        Some(other) => {
            return Err(error(format!("bad --method '{other}': expected cg or sgd")));
        }
    }
    if let Some(l) = &args.ridge {
        settings.lambda = match l.trim().parse::<f64>() {
            Ok(v) if (0.0..=100_000.0).contains(&v) => v,
            _ => {
                return Err(error(format!(
                    "bad --ridge {l}: expected a number from 0 to 100000"
                )));
            }
        };
    }
    if let Some(n) = &args.iterations {
        settings.iterations = parse_in_range(n, "iterations", 1..=10_000)? as usize;
    }
    if let Some(n) = &args.threads {
        settings.threads = parse_in_range(n, "threads", 1..=64)? as usize;
    }
    if let Some(s) = &args.seed {
        settings.seed = s
            .trim()
            .parse()
            .map_err(|_| error(format!("bad --seed '{s}': expected a whole number")))?;
    }
    let stage_empties = match &args.stage_empties {
        Some(n) => parse_in_range(n, "stage-empties", 1..=60)? as usize,
        None => STAGE_EMPTIES,
    };
    let counts = match args.counts.as_deref().map(str::trim) {
        None => COUNTS,
        Some("none") => Counts::None,
        Some("parity") => Counts::Parity,
        Some("potential") => Counts::Potential,
        Some("all") => Counts::All,
        Some("joint") => Counts::Joint,
        Some(other) => {
            return Err(error(format!(
                "bad --counts '{other}': expected none, parity, potential, all or joint"
            )));
        }
    };
    let shapes = match args.shapes.as_deref().map(str::trim) {
        None => SHAPES,
        Some("all") => Shapes::All,
        Some("lean") => Shapes::Lean,
        Some(other) => {
            return Err(error(format!(
                "bad --shapes '{other}': expected all or lean"
            )));
        }
    };
    let layout = PatternWeights::zeros_with(stage_empties, counts, shapes);
    let opening_empties = match &args.opening_empties {
        Some(n) => parse_in_range(n, "opening-empties", 0..=60)? as u8,
        None => DEFAULT_OPENING_EMPTIES,
    };
    let loaded;
    // Read before the data, so that a bad file is refused at once.
    let (old, old_name): (&PatternWeights, &str) = match args.compare.as_deref() {
        None | Some("builtin") => (active_weights(), "built-in"),
        Some("wthor") => (wthor_weights(), "pattern-wthor"),
        Some(path) => {
            loaded = weights_file(path).map_err(error)?;
            (&loaded, path)
        }
    };
    let start = Instant::now();
    let data = read_data(&args, opening_empties, start)?;
    println!(
        "stage  empties  positions  iterations  train-mae  held-out  held-out-mae  compare-mae (discs)"
    );
    let trained = train_and_compare(layout, &data, settings, old, |r, compare_mae| {
        println!(
            "{:>5}  {:>7}  {:>9}  {:>10}  {:>9.2}  {:>8}  {:>12.2}  {:>11.2}",
            r.stage,
            format!("{}-{}", r.empties.0, r.empties.1),
            r.train_positions,
            r.iterations,
            r.train_mae,
            r.validation_positions,
            r.validation_mae,
            compare_mae
        );
    });
    println!(
        "held-out mean absolute error: {:.2} discs ({old_name} {:.2}, compare-mae above)",
        trained.held_out_mae, trained.compare_mae
    );
    write_model(out, &trained.weights.to_bytes(), start)
}
