//! `othello-engine openings build`: a set of balanced match openings (see `game::balanced`),
//! one line a kept opening, written as it is found, so that a stopped run keeps its work and
//! `--resume` goes on from the candidate after the last one written.

use super::args::{CliError, error, hash_mib, number_in, parse_in_range, seed, span};
use crate::cli::error::catch_signals;
use crate::game::balanced::{BalancedBuilder, BalancedSettings, Verdict, format_line, line_index};
use crate::game::openings::parse_openings;
use crate::search::Limits;
use crate::sys::progress::Progress;
use crate::sys::signals::exit_if_caught;
use clap::{Args, Subcommand};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Openings kept without `--count`.
const DEFAULT_COUNT: u32 = 3000;
/// Search depth without `--depth`.
const DEFAULT_DEPTH: u32 = 14;
/// The table size without `--hash`, in MiB.
const DEFAULT_HASH_MIB: usize = 64;

/// `openings`: tools for match openings.
#[derive(Subcommand, Debug)]
pub enum OpeningsCommand {
    /// Build a set of balanced openings: random lines of 8-12 plies whose deep-search value is
    /// within a margin of even, one per symmetry class.
    #[command(args_override_self = true)]
    Build(BuildArgs),
}

/// The flags of `openings build`; values stay text and are checked here, for our own errors.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The file to write (one opening a line); it must not exist unless --resume.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Openings to keep (default 3000).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    count: Option<String>,
    /// The length of the random lines, drawn per candidate (default 8-12).
    #[arg(long, value_name = "MIN-MAX", allow_hyphen_values = true)]
    plies: Option<String>,
    /// Depth of the search that values a candidate, 1 to 30 (default 14, selective).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    depth: Option<String>,
    /// Keep candidates valued within this many discs of even (default 2).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    max_discs: Option<String>,
    /// The run's seed: with a candidate's index it fixes the candidate (default 0).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    seed: Option<String>,
    /// Transposition table size in MiB (default 64).
    #[arg(long, value_name = "MIB", allow_hyphen_values = true)]
    hash: Option<String>,
    /// Continue the --out file of a stopped run (same flags).
    #[arg(long)]
    resume: bool,
}

/// Runs an `openings` command.
pub fn run(command: OpeningsCommand) -> Result<(), CliError> {
    match command {
        OpeningsCommand::Build(args) => build(&args),
    }
}

/// The settings the flags give, checked.
fn settings(args: &BuildArgs) -> Result<BalancedSettings, CliError> {
    let seed = args.seed.as_deref().map(seed).transpose().map_err(error)?;
    let plies = args.plies.as_deref().map(|t| span(t, "plies", 1, 20));
    let depth = match &args.depth {
        Some(d) => parse_in_range(d, "depth", 1..=30)?,
        None => DEFAULT_DEPTH,
    };
    let max_discs = args
        .max_discs
        .as_deref()
        .map(|t| number_in(t, "max-discs", 0.0..=64.0));
    Ok(BalancedSettings {
        seed: seed.unwrap_or(0),
        plies: plies.transpose()?.unwrap_or((8, 12)),
        depth,
        max_discs: max_discs.transpose()?.unwrap_or(2.0),
    })
}

/// The file's first line: the run's settings, which `--resume` checks.
fn header(s: &BalancedSettings) -> String {
    format!(
        "% balanced openings: seed {}, plies {}-{}, depth {}, within {} discs",
        s.seed, s.plies.0, s.plies.1, s.depth, s.max_discs
    )
}

/// `openings build`.
fn build(args: &BuildArgs) -> Result<(), CliError> {
    let out = args
        .out
        .as_deref()
        .ok_or_else(|| error("openings build needs --out FILE"))?;
    let settings = settings(args)?;
    let count = match &args.count {
        Some(n) => parse_in_range(n, "count", 1..=1_000_000)? as usize,
        None => DEFAULT_COUNT as usize,
    };
    let hash = match &args.hash {
        Some(h) => hash_mib(h).map_err(error)?,
        None => DEFAULT_HASH_MIB,
    };
    let mut builder = BalancedBuilder::new(settings, hash);
    let (mut kept, mut next) = (0usize, 0u32);
    let resumed = args.resume && Path::new(out).exists();
    if resumed {
        (kept, next) = resume(out, &settings, &mut builder)?;
        eprintln!("openings: resuming {out}: {kept} openings kept, from candidate {next}");
    } else if Path::new(out).exists() {
        return Err(error(format!(
            "{out} exists: remove it, or give --resume to continue it"
        )));
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| error(format!("cannot write {out}: {e}")))?;
    let write_err = |e: std::io::Error| error(format!("cannot write {out}: {e}"));
    // A resumed file has its header already, even when a stop came before any opening.
    if !resumed {
        writeln!(file, "{}", header(&settings)).map_err(write_err)?;
    }

    let stop = catch_signals()?;
    let limits = Limits {
        stop: Arc::clone(&stop),
        ..Limits::none()
    };
    let mut progress = Progress::new("openings", "openings", count, kept);
    let start = Instant::now();
    let (mut tried, mut searched) = (0u64, 0u64);
    while kept < count && !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let index = next;
        next = next
            .checked_add(1)
            .ok_or_else(|| error("openings: no candidates left for this seed"))?;
        tried += 1;
        match builder.judge(index, &limits) {
            Verdict::Stopped => break,
            Verdict::Skipped => continue,
            Verdict::Lopsided(_) => searched += 1,
            Verdict::Balanced(opening, value) => {
                searched += 1;
                writeln!(file, "{}", format_line(&opening, value, index)).map_err(write_err)?;
                file.flush().map_err(write_err)?;
                kept += 1;
            }
        }
        progress.show(kept, &format!("{searched} valued"));
    }
    progress.finish();
    println!(
        "openings: {kept} kept in {out}, {searched} of {tried} candidates valued this run, {:.1} s",
        start.elapsed().as_secs_f64()
    );
    exit_if_caught(
        "openings",
        &format!("{out} holds every opening kept: rerun with --resume to go on"),
    );
    Ok(())
}

/// Reads the file of a stopped run: checks its header against `settings`, drops a cut last
/// line, remembers every opening, and returns (openings kept, next candidate).
fn resume(
    out: &str,
    settings: &BalancedSettings,
    builder: &mut BalancedBuilder,
) -> Result<(usize, u32), CliError> {
    let mut text =
        std::fs::read_to_string(out).map_err(|e| error(format!("cannot read {out}: {e}")))?;
    if !text.ends_with('\n') {
        // A kill cut the last line short: drop it, its candidate is judged again.
        let keep = text.rfind('\n').map_or(0, |i| i + 1);
        text.truncate(keep);
        std::fs::write(out, &text).map_err(|e| error(format!("cannot write {out}: {e}")))?;
    }
    let first = text.lines().next().unwrap_or_default();
    if first != header(settings) {
        return Err(error(format!(
            "{out} was not made with these flags (its first line: '{first}'; expected '{}')",
            header(settings)
        )));
    }
    let body: Vec<&str> = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .collect();
    if body.is_empty() {
        return Ok((0, 0));
    }
    let openings = parse_openings(&body.join("\n"), out).map_err(error)?;
    let mut next = 0u32;
    for (line, opening) in body.iter().zip(&openings) {
        let index = line_index(line)
            .ok_or_else(|| error(format!("{out}: line '{line}' names no candidate (#N)")))?;
        next = next.max(index + 1);
        builder.remember(opening);
    }
    Ok((openings.len(), next))
}
