//! `othello-engine bench`: fixed-depth searches of ten built-in midgame positions; the node
//! total is a signature that changes only when the search does.

use super::args::{CliError, parse_in_range};
use super::args::{error, hash_mib, weights_file};
use crate::board::parse_obf_line;
use crate::eval::EvaluatorKind;
use crate::eval::pattern::PatternWeights;
use crate::search::{Limits, PhaseLevel, Searcher, parse_threads};
use clap::Args;

/// The positions `bench` searches, built into the binary so that it needs no file at run time.
const BENCH_POSITIONS: &str = include_str!("../../data/positions/midgame10.obf");

/// The table size of the signature run, in MiB.
const BENCH_HASH_MIB: usize = 16;
/// The depth of the signature run.
const BENCH_DEPTH: u32 = 9;

/// Arguments of `bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Search depth, 1 to 30 (default 9).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    depth: Option<String>,
    /// The evaluator (default weighted).
    #[arg(long, value_name = "NAME")]
    eval: Option<String>,
    /// Transposition table size in MiB (default 16).
    #[arg(long, value_name = "MIB", value_parser = hash_mib, allow_hyphen_values = true)]
    hash: Option<usize>,
    /// Weights for `pattern` from FILE instead of the built-in ones.
    #[arg(long, value_name = "FILE", value_parser = weights_file)]
    weights: Option<PatternWeights>,
    /// The `neural` evaluator's network, from FILE.
    #[arg(long, value_name = "FILE", value_parser = super::args::network_file)]
    network: Option<crate::eval::network::Network>,
    /// The `neural` evaluator's Multi-ProbCut table, from FILE.
    #[arg(long, value_name = "FILE", value_parser = super::args::mpc_table_file)]
    mpc_table: Option<crate::search::probcut::MpcTable>,
    /// Multi-ProbCut confidence in percent: 73, 87, 95, 98, 99 or 100 (default: full width).
    #[arg(long, value_name = "PERCENT", allow_hyphen_values = true)]
    selectivity: Option<String>,
    /// Threads, 1 to 256 (default 1: the node total is a signature only with one thread).
    #[arg(long, value_name = "N", value_parser = parse_threads, allow_hyphen_values = true)]
    threads: Option<usize>,
}

/// Searches and prints each position, then the total.
pub fn run(args: BenchArgs) -> Result<(), CliError> {
    let depth = match &args.depth {
        Some(d) => parse_in_range(d, "depth", 1..=30)?,
        None => BENCH_DEPTH,
    };
    let eval = match &args.eval {
        Some(e) => e
            .parse::<EvaluatorKind>()
            .map_err(|e| error(format!("--eval: {e}")))?,
        None => EvaluatorKind::Weighted,
    };
    if eval == EvaluatorKind::Random {
        return Err(error("bench needs a searching evaluator, not random"));
    }
    if let Some(w) = args.weights {
        crate::eval::pattern::use_weights(w).map_err(error)?;
    }
    super::args::install_network(args.network)?;
    super::args::install_mpc_table(args.mpc_table)?;
    // The weights are inflated before the clock starts, as a server does before its first
    // command: nodes per second measure the search, not a one-time load.
    crate::search::warm_up();
    let mut searcher = Searcher::new(args.hash.unwrap_or(BENCH_HASH_MIB), Some(0));
    searcher.set_threads(args.threads.unwrap_or(1));
    if let Some(s) = &args.selectivity {
        searcher.set_selectivity(s.parse().map_err(error)?);
    }
    let level = PhaseLevel { depth, eval };
    let (mut nodes, mut secs) = (0u64, 0f64);
    for (i, line) in BENCH_POSITIONS
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
    {
        let position = parse_obf_line(line)
            .map_err(|e| error(format!("built-in bench position {}: {e}", i + 1)))?
            .position;
        searcher.clear();
        let r = searcher.search(&position, level, &Limits::none(), &mut |_| {});
        println!(
            "{:>2} {:>5} {:>+8.2} {:>12} {:>8.3}",
            i + 1,
            r.best_move.to_string(),
            r.value.discs(),
            r.nodes,
            r.elapsed.as_secs_f64()
        );
        nodes += r.nodes;
        secs += r.elapsed.as_secs_f64();
    }
    println!(
        "bench: depth {depth}, evaluator {eval}{}{}: {nodes} nodes {:.0} nps ({secs:.3} s)",
        if searcher.selectivity().is_selective() {
            format!(", selectivity {}", searcher.selectivity())
        } else {
            String::new()
        },
        match searcher.threads() {
            1 => String::new(),
            n => format!(", {n} threads"),
        },
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}
