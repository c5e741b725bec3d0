//! `othello-engine solve`: solves every position of an OBF test file and judges the answers.

use super::args::{error, hash_mib};
use super::error::CliError;
use crate::board::{Move, ObfLine, parse_obf_line};
use crate::search::{
    DEFAULT_HASH_MIB, EndgameMode, Levels, Limits, Searcher, Value, available_threads,
    parse_threads,
};
use clap::Args;

/// Arguments of `solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The OBF file (one position per line, with the known answers).
    #[arg(value_name = "FILE.obf")]
    file: Option<String>,
    /// exact (the disc difference) or wld (win, draw or loss).
    #[arg(long, value_name = "MODE")]
    mode: Option<String>,
    /// Transposition table size in MiB (default 64).
    #[arg(long, value_name = "MIB", value_parser = hash_mib, allow_hyphen_values = true)]
    hash: Option<usize>,
    /// Threads for the solver, 1 to 256 (default: the cores available).
    #[arg(long, value_name = "N", value_parser = parse_threads, allow_hyphen_values = true)]
    threads: Option<usize>,
}

/// Reads every position of an OBF file. A malformed line is reported on stderr with its
/// file and line number and skipped; the second value counts them.
fn read_obf_file(path: &str) -> Result<(Vec<ObfLine>, usize), CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| error(format!("cannot read OBF file '{path}': {e}")))?;
    let mut lines = Vec::new();
    let mut skipped = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('%') {
            continue;
        }
        match parse_obf_line(line) {
            Ok(l) => lines.push(l),
            Err(e) => {
                eprintln!("othello-engine: {path}:{}: {e} (line skipped)", i + 1);
                skipped += 1;
            }
        }
    }
    Ok((lines, skipped))
}

/// Solves and prints a table; `Ok(false)` when an answer disagrees with the file or a line
/// of it was malformed.
pub fn run(args: SolveArgs) -> Result<bool, CliError> {
    let Some(path) = &args.file else {
        return Err(error(
            "solve takes one OBF file, e.g. 'solve fforum-20-39.obf'",
        ));
    };
    let mode = match &args.mode {
        None => EndgameMode::Exact,
        Some(m) => match m.parse::<EndgameMode>() {
            Ok(EndgameMode::WinElseLeast) | Err(_) => {
                return Err(error(format!("bad --mode '{m}': expected exact or wld")));
            }
            Ok(mode) => mode,
        },
    };
    let (lines, skipped) = read_obf_file(path)?;
    // RUST_LOG=debug shows the solver's pre-searches on stderr.
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .try_init();
    let mut searcher = Searcher::new(args.hash.unwrap_or(DEFAULT_HASH_MIB), None);
    searcher.set_threads(args.threads.unwrap_or_else(available_threads));
    let fallback = Levels::default().midgame;
    println!(
        "{:>3} {:>3} {:>5} {:>5} {:>12} {:>5} {:>14} {:>9} {:>12}  pv",
        "#", "emp", "move", "score", "expected", "ok", "nodes", "seconds", "nodes/s"
    );
    let (mut total_nodes, mut total_time, mut wrong) = (0u64, 0f64, 0usize);
    for (i, line) in lines.iter().enumerate() {
        searcher.clear();
        let report = searcher.solve(&line.position, mode, fallback, &Limits::none(), &mut |_| {});
        let secs = report.elapsed.as_secs_f64();
        let score = match report.value {
            Value::Exact(s) | Value::Wld(s) => s,
            Value::Estimate(_) => 0,
        };
        let (expected, ok) = judge(line, report.best_move, score, mode);
        if !ok {
            wrong += 1;
        }
        total_nodes += report.nodes;
        total_time += secs;
        println!(
            "{:>3} {:>3} {:>5} {:>+5} {:>12} {:>5} {:>14} {:>9.3} {:>12.0}  {}",
            i + 1,
            line.position.empty_count(),
            report.best_move.to_string(),
            score,
            expected,
            if ok { "yes" } else { "NO" },
            report.nodes,
            secs,
            report.nodes as f64 / secs.max(1e-9),
            report
                .pv
                .iter()
                .map(Move::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    let skipped_note = if skipped > 0 {
        format!(" ({skipped} malformed skipped)")
    } else {
        String::new()
    };
    println!(
        "total: {} positions{skipped_note}, {} wrong, {} nodes, {:.3} s, {:.0} nodes/s",
        lines.len(),
        wrong,
        total_nodes,
        total_time,
        total_nodes as f64 / total_time.max(1e-9)
    );
    Ok(wrong == 0 && skipped == 0)
}

/// The file's answer as text, and whether `best`/`score` agree with it: the same score (in wld
/// mode the same sign) and a move the file scores that well. A line without moves is judged
/// by nothing and counts as agreeing.
fn judge(line: &ObfLine, best: Move, score: i32, mode: EndgameMode) -> (String, bool) {
    let Some(&(_, top)) = line.moves.first() else {
        return ("-".into(), true);
    };
    let class = |s: i32| {
        if mode == EndgameMode::Exact {
            s
        } else {
            s.signum()
        }
    };
    let good: Vec<String> = line
        .moves
        .iter()
        .filter(|(_, s)| class(*s) == class(top))
        .map(|(m, _)| m.to_string())
        .collect();
    let ok = class(score) == class(top)
        && line
            .moves
            .iter()
            .any(|&(m, s)| m == best && class(s) == class(top));
    (format!("{}:{:+}", good.join("/"), class(top)), ok)
}
