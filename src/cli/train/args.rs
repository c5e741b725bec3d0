//! The flags of `train` (both models) and the reading of its data: what the linear fit
//! (`linear.rs`) and the network's (`net.rs`) stand on.

use crate::cli::args::{CliError, error};
use crate::fit::linear::{self, TrainingData};
use crate::game::datagen::{describe_sources, read_all_training_data};
use crate::game::wthor::DEFAULT_WTHOR_DIR;
use clap::{Args, ValueEnum};
use std::path::Path;
use std::time::Instant;

/// Which label a position is trained on (the flag's words for [`linear::Label`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Label {
    /// The exact value where known, else the mean of the search value and the game's ending.
    Mix,
    /// The exact value where known, else the search value.
    Value,
    /// The game's exact ending.
    Ending,
}

/// Arguments of `train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Shard folders (`datagen --out-dir`), shards, or files of `datagen --out`.
    #[arg(value_name = "DATA", required = true)]
    pub(super) data: Vec<String>,
    /// The WTHOR folder whose games WTHOR shards label.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_WTHOR_DIR)]
    pub(super) wthor: String,
    /// Where to write the weights (default data/pattern-weights.bin, the built-in file).
    #[arg(long, value_name = "FILE")]
    pub(super) out: Option<String>,
    /// The label to fit.
    #[arg(long, value_enum, default_value = "mix")]
    pub(super) label: Label,
    /// The solver: `cg` (the exact ridge fit by conjugate gradients; the default) or `sgd`
    /// (stochastic gradient descent, as the built-in weights were first made).
    #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
    pub(super) method: Option<String>,
    /// The ridge penalty of `cg`, 0 to 100000: as if each weight were also seen this many
    /// times with target zero (default 8).
    #[arg(long, value_name = "L", allow_hyphen_values = true)]
    pub(super) ridge: Option<String>,
    /// The most conjugate-gradient iterations per stage, 1 to 10000 (default 200).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) iterations: Option<String>,
    /// Threads of `cg`, 1 to 64 (default: the cores).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) threads: Option<String>,
    /// Passes over the training positions: of each stage with `sgd` (default 12), of all of
    /// them with `--model net` (default 10).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) epochs: Option<String>,
    /// The learning rate of the first pass, between 0 and 1: `sgd`'s (default 0.004), or the
    /// network's Adam steps (default 0.001).
    #[arg(long, value_name = "R", allow_hyphen_values = true)]
    pub(super) rate: Option<String>,
    /// The L2 penalty of `sgd`, per use, between 0 and 1 (default 0.0005).
    #[arg(long, value_name = "L", allow_hyphen_values = true)]
    pub(super) l2: Option<String>,
    /// Empty squares per stage (weight table), 1 to 60 (default 2).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) stage_empties: Option<String>,
    /// The count features after the patterns: `none`, `parity` (the parity of the empties),
    /// `potential` (potential mobility and parity), `all` (those and both sides' mobility:
    /// two move generations per evaluation; the default) or `joint` (those and the pair of
    /// move counts and the pair of corner-move counts, each pair as one feature: what the two
    /// sides' moves say together).
    #[arg(long, value_name = "SET", allow_hyphen_values = true)]
    pub(super) counts: Option<String>,
    /// The pattern shapes: `all` (46 placements) or `lean` (without the 4- and 5-square
    /// diagonals: 38 placements, a faster evaluation; the default).
    #[arg(long, value_name = "SET", allow_hyphen_values = true)]
    pub(super) shapes: Option<String>,
    /// Leave out self-play positions with more empties than this (default 48): datagen's
    /// random openings (up to 12 plies) make them, and their labels carry the luck of the
    /// random moves still to come (WTHOR positions are kept).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) opening_empties: Option<String>,
    /// Weights to measure beside the new ones on the same held-out positions: a file `train`
    /// wrote, `builtin` (the default: the weights built into the engine) or `wthor`.
    #[arg(long, value_name = "FILE")]
    pub(super) compare: Option<String>,
    /// Seed of the shuffles of `sgd` and of `--model net`, for weights that repeat (`cg`
    /// needs none).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) seed: Option<String>,
    /// What to fit: `linear` (the `pattern` weights; the default) or `net` (the `neural`
    /// evaluator's network: see the flags below and docs/training.md).
    #[arg(long, value_name = "MODEL", allow_hyphen_values = true)]
    pub(super) model: Option<String>,
    /// `net`: the width of the rows, 16, 32 or 64 (default 32).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) width: Option<String>,
    /// `net`: how the rows are stored, `i16` (the default) or `i8` (half the memory a row,
    /// fitted on the 8-bit grid; see docs/training.md).
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    pub(super) rows: Option<String>,
    /// `net`: units of the dense layer, 8, 16 or 32 (default 16).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) hidden: Option<String>,
    /// `net`: phase buckets (tables of rows by empties), 1 to 16 (default 4).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) buckets: Option<String>,
    /// `net`: positions a step, 1 to 1048576 (default 1024).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) batch: Option<String>,
    /// `net`: the rate's factor from one epoch to the next, between 0 and 1 (default 0.75).
    #[arg(long, value_name = "F", allow_hyphen_values = true)]
    pub(super) decay: Option<String>,
    /// `net`: the checkpoint file (default: the output file's name with `.checkpoint`); a run
    /// stopped or killed resumes from it when started again with the same data and flags.
    #[arg(long, value_name = "FILE")]
    pub(super) checkpoint: Option<String>,
}

/// A number strictly between 0 and 1.
pub(super) fn fraction(text: &str, name: &str) -> Result<f32, CliError> {
    match text.trim().parse::<f32>() {
        Ok(r) if r > 0.0 && r < 1.0 => Ok(r),
        _ => Err(error(format!(
            "bad --{name} {text}: expected a number between 0 and 1"
        ))),
    }
}

impl From<Label> for linear::Label {
    fn from(label: Label) -> linear::Label {
        match label {
            Label::Mix => linear::Label::Mix,
            Label::Value => linear::Label::Value,
            Label::Ending => linear::Label::Ending,
        }
    }
}

/// The labelled positions of `args.data`, split into training and held-out games, with a
/// line on stderr saying how many (timed from `start`); an error when none trains.
pub(super) fn read_data(
    args: &TrainArgs,
    opening_empties: u8,
    start: Instant,
) -> Result<TrainingData, CliError> {
    let mut data = TrainingData::default();
    let sources = read_all_training_data(&args.data, Path::new(&args.wthor), &mut |_, samples| {
        data.add(&samples, args.label.into(), opening_empties)
    })
    .map_err(error)?;
    for line in describe_sources(&sources) {
        eprintln!("data: {line}");
    }
    if data.train.is_empty() {
        return Err(error("no training positions in the data"));
    }
    eprintln!(
        "{} training and {} held-out positions read in {:.1} s",
        data.train.len(),
        data.validation.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(data)
}

/// Writes a fitted model's `bytes` to `out` at once (never half a file) and says so, with the
/// time since `start`.
pub(super) fn write_model(out: &str, bytes: &[u8], start: Instant) -> Result<(), CliError> {
    crate::sys::files::write_atomically(Path::new(out), bytes)
        .map_err(|e| error(format!("cannot write {out}: {e}")))?;
    println!(
        "wrote {out} ({} bytes) in {:.1} s",
        bytes.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
