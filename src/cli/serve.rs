//! `othello-engine [nboard|gtp]`: serves a protocol on stdin/stdout.

use super::args::{LevelArgs, error};
use super::error::CliError;
use crate::game::notation::on_off;
use crate::protocol::{Protocol, ServeConfig, init_logging, serve};
use crate::search::DEFAULT_HASH_MIB;
use clap::Args;

/// Arguments of the servers: the level flags and a log file.
#[derive(Args, Debug, Default)]
pub struct ServeArgs {
    #[command(flatten)]
    levels: LevelArgs,
    /// Append a debug log to FILE (nothing is logged to stderr by default: NBoard reads it).
    #[arg(long, value_name = "FILE")]
    log_file: Option<String>,
    /// Think on the opponent's time after each move: `--ponder` or `--ponder=on|off` (default
    /// off). The value takes `=`, so that a word after the flag is never read as its value
    /// (`othello-engine --ponder gtp`).
    #[arg(long, value_name = "on|off", num_args = 0..=1, require_equals = true, default_missing_value = "on", value_parser = on_off)]
    ponder: Option<bool>,
    /// The controller's delay per move in seconds (pipes, a GUI's own turn), kept back on
    /// every move, as chess engines' "Move Overhead" (default: what the clock reports show;
    /// under a per-move limit, none when it is told to the millisecond, 200 ms in whole
    /// seconds; the engine keeps 15 ms for its own reply besides).
    #[arg(long, value_name = "S", value_parser = crate::search::parse_move_overhead, allow_hyphen_values = true)]
    move_overhead: Option<std::time::Duration>,
}

/// Serves `protocol` (or the one the first input line implies) until `quit` or end of input.
pub fn run(protocol: Option<Protocol>, args: ServeArgs) -> Result<(), CliError> {
    init_logging(args.log_file.as_deref()).map_err(error)?;
    args.levels.install_weights()?;
    let config = ServeConfig {
        levels: args.levels.levels(),
        hash_mib: args.levels.hash.unwrap_or(DEFAULT_HASH_MIB),
        threads: args.levels.threads(),
        ponder: args.ponder.unwrap_or(false),
        seed: args.levels.seed,
        book: args.levels.opening_book(),
        book_randomness: args.levels.book_randomness(),
        randomness: args.levels.randomness.unwrap_or(0),
        book_path: args.levels.book_path(),
        move_overhead: args.move_overhead,
    };
    serve(protocol, config);
    Ok(())
}
