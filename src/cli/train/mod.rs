//! `othello-engine train`: fits what the evaluators read to data files that `datagen` wrote.
//! Its parts stand on each other in one direction: `args.rs` (the flags, and the data read
//! and split into training and held-out games) below, the linear fit (`linear.rs`) and the
//! network's (`net.rs`) above it, and this file, which picks one by `--model`, on top.

mod args;
mod linear;
mod net;

pub use args::TrainArgs;

use super::args::{CliError, error};

/// Runs `train`: the linear fit (`--model linear`, the default) or the network's.
pub fn run(args: TrainArgs) -> Result<(), CliError> {
    match args.model.as_deref().map(str::trim) {
        None | Some("linear") => linear::run(args),
        Some("net") => net::run(args),
        Some(other) => Err(error(format!(
            "bad --model '{other}': expected linear or net"
        ))),
    }
}
