//! `othello-engine perft`: leaves of the game tree to each depth, with time and speed.

use super::args::{CliError, parse_in_range};
use super::args::{error, position};
use crate::board::{MAX_EMPTIES, Position, perft, perft_divide};
use clap::Args;
use std::time::Instant;

/// Arguments of `perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The deepest depth to count (1 to 60).
    #[arg(value_name = "DEPTH", allow_hyphen_values = true)]
    depth: Option<String>,
    /// Count from this position (OBF) instead of the start.
    #[arg(long, value_name = "OBF", value_parser = position, allow_hyphen_values = true)]
    position: Option<Position>,
    /// Split the last depth by first move.
    #[arg(long)]
    divide: bool,
}

/// Counts and prints.
pub fn run(args: PerftArgs) -> Result<(), CliError> {
    let depth = match &args.depth {
        Some(d) => parse_in_range(d, "depth", 1..=MAX_EMPTIES)?,
        None => return Err(error("perft needs a depth, e.g. 'perft 10'")),
    };
    let position = args.position.unwrap_or_else(Position::start);
    println!("{position}");
    if args.divide {
        let start = Instant::now();
        let mut total = 0;
        for (mv, n) in perft_divide(&position, depth) {
            println!("{mv:>4} {n:>16}");
            total += n;
        }
        println!("total {total} in {:.3} s", start.elapsed().as_secs_f64());
        return Ok(());
    }
    println!(
        "{:>5} {:>16} {:>10} {:>16}",
        "depth", "leaves", "seconds", "leaves/s"
    );
    for d in 1..=depth {
        let start = Instant::now();
        let leaves = perft(&position, d);
        let secs = start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            leaves as f64 / secs
        } else {
            0.0
        };
        println!("{d:>5} {leaves:>16} {secs:>10.3} {rate:>16.0}");
    }
    Ok(())
}
