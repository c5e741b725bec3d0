//! `othello-engine train`: fits the pattern evaluator's weights to the WTHOR games of a folder.

use super::args::error;
use crate::arena::options::{CliError, parse_in_range};
use crate::eval::pattern::PHASE_EMPTIES;
use crate::eval::train::{TrainSettings, train_weights};
use crate::game::wthor::load_wthor_dir;
use clap::Args;
use std::time::Instant;

/// Where the weights built into the engine live.
const DEFAULT_OUT: &str = "data/pattern-weights.bin";
/// Every this-many-th game is held out to measure the error.
const HOLDOUT_EVERY: usize = 10;

/// Arguments of `train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// A folder of WTHOR .wtb files.
    #[arg(long, value_name = "DIR")]
    wthor: Option<String>,
    /// Where to write the weights (default data/pattern-weights.bin, the built-in file).
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Passes over the training positions.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    epochs: Option<String>,
    /// The learning rate, between 0 and 1.
    #[arg(long, value_name = "R", allow_hyphen_values = true)]
    rate: Option<String>,
    /// Seed of the shuffles, for weights that repeat.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    seed: Option<String>,
}

/// Reads the games, trains, reports the error per phase and writes the weights.
pub fn run(args: TrainArgs) -> Result<(), CliError> {
    let dir = args
        .wthor
        .as_deref()
        .ok_or_else(|| error("train needs --wthor DIR (a folder of WTHOR .wtb files)"))?;
    let out = args.out.as_deref().unwrap_or(DEFAULT_OUT);
    let mut settings = TrainSettings::default();
    if let Some(e) = &args.epochs {
        settings.epochs = parse_in_range(e, "epochs", 1..=1000)? as usize;
    }
    if let Some(r) = &args.rate {
        match r.trim().parse::<f32>() {
            Ok(r) if r > 0.0 && r < 1.0 => settings.learning_rate = r,
            _ => {
                return Err(error(format!(
                    "bad --rate {r}: expected a number between 0 and 1"
                )));
            }
        }
    }
    if let Some(s) = &args.seed {
        settings.seed = s
            .trim()
            .parse()
            .map_err(|_| error(format!("bad --seed '{s}': expected a whole number")))?;
    }
    let start = Instant::now();
    let (train, validation) =
        load_wthor_dir(std::path::Path::new(dir), HOLDOUT_EVERY).map_err(error)?;
    println!(
        "{} training and {} validation positions read in {:.1} s",
        train.len(),
        validation.len(),
        start.elapsed().as_secs_f64()
    );
    println!("phase  empties  positions  train-rmse  validation-rmse (discs)");
    let weights = train_weights(&train, &validation, settings, |r| {
        println!(
            "{:>5}  {:>7}  {:>9}  {:>10.2}  {:>15.2}",
            r.phase,
            format!(
                "{}-{}",
                r.phase * PHASE_EMPTIES,
                (r.phase + 1) * PHASE_EMPTIES - 1
            ),
            r.train_positions,
            r.train_rmse,
            r.validation_rmse
        );
    })
    .map_err(error)?;
    std::fs::write(out, weights.to_bytes())
        .map_err(|e| error(format!("cannot write {out}: {e}")))?;
    println!("wrote {out} in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
