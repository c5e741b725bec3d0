//! The `othello-engine` command line.

use othello_engine::board::{Position, perft, perft_divide};
use othello_engine::cli::{Arity, CliError, Options, parse_in_range};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "\
usage: othello-engine <command> [arguments]

commands:
  perft <depth> [--position \"<OBF>\"] [--divide]
      count the leaves of the game tree to each depth from 1 to <depth>
      (a pass is a ply; a finished game is one leaf)
  help
      show this text";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("perft") => run_perft(&args[1..]),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(CliError(format!(
            "unknown command '{other}'; run 'othello-engine help'"
        ))),
        None => Err(CliError(format!("no command given\n{USAGE}"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("othello-engine: {e}");
            ExitCode::from(2)
        }
    }
}

/// Reads `--position` if given, else the start position.
fn position_option(options: &Options) -> Result<Position, CliError> {
    match options.get("position") {
        Some(text) => text
            .parse()
            .map_err(|e| CliError(format!("--position: {e}"))),
        None => Ok(Position::start()),
    }
}

fn run_perft(args: &[String]) -> Result<(), CliError> {
    let options = Options::parse(
        args,
        &[("position", Arity::Value), ("divide", Arity::Switch)],
    )?;
    let depth = match options.positional.as_slice() {
        [d] => parse_in_range(d, "depth", 1..=60)?,
        [] => return Err(CliError("perft needs a depth, e.g. 'perft 10'".into())),
        more => {
            return Err(CliError(format!(
                "perft takes one depth, got {} arguments",
                more.len()
            )));
        }
    };
    let position = position_option(&options)?;
    println!("{position}");
    if options.has("divide") {
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
