//! `othello-engine match`: the match's flags, each read by a typed value parser, then checked
//! together into the arena's [`MatchConfig`] ([`config`], its openings in [`openings`]); and
//! `match merge`. The arena plays and knows no flags; its [`MatchError`] becomes the one-line
//! refusal here.
//!
//! [`MatchError`]: crate::arena::MatchError

mod config;
mod openings;

use super::args::{CliError, error, parse_in_range, seed, shard};
use crate::arena::spec::EngineSpec;
use crate::arena::stats::Sprt;
use crate::arena::{run_match, run_merge};
use crate::board::MAX_EMPTIES;
use crate::game::clock::TimeControl;
use clap::{Args, Subcommand};
use std::time::Duration;

/// The most games played at once.
const MAX_CONCURRENCY: u32 = 256;

/// The longest time any seconds option takes (a day).
const MAX_SECONDS: f64 = 86_400.0;

/// The shortest `--move-time`.
const MIN_MOVE_TIME: f64 = 0.001;

/// The longest `--opening-plies`.
const MAX_OPENING_PLIES: u32 = 10;

/// `match`: a match, or `match merge`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct MatchCommand {
    #[command(subcommand)]
    merge: Option<MatchSubcommand>,
    #[command(flatten)]
    args: MatchArgs,
}

#[derive(Subcommand, Debug)]
enum MatchSubcommand {
    /// One summary from the results files of a tournament's shards.
    Merge {
        /// Results files written by `match --results`.
        #[arg(value_name = "FILE")]
        files: Vec<String>,
        /// Write the merged results to FILE (JSON or CSV by the name).
        #[arg(long, value_name = "FILE")]
        results: Option<String>,
    },
}

/// The `match` command line as clap reads it. Each value is typed by its parser, whose
/// [`CliError`] names the option and what it expects; [`config::config`] checks them
/// together.
#[derive(Args, Debug, Clone)]
pub struct MatchArgs {
    /// An engine (give two or more): [name=NAME,][dir=DIR,][depth=N,]gtp:COMMAND,
    /// nboard:COMMAND or self:LEVEL-FLAGS.
    #[arg(long = "engine", value_name = "SPEC", allow_hyphen_values = true, value_parser = engine)]
    pub engines: Vec<EngineSpec>,
    /// Time control: seconds for the game plus an increment per move, e.g. 60+0.5.
    #[arg(long, value_name = "BASE+INC", allow_hyphen_values = true, value_parser = fischer)]
    pub tc: Option<TimeControl>,
    /// A fixed time for each move, in seconds.
    #[arg(long, value_name = "S", allow_hyphen_values = true,
          value_parser = |s: &str| seconds(s, "move-time", MIN_MOVE_TIME))]
    pub move_time: Option<Duration>,
    /// Search depth for self: and nboard: engines (no clock unless one is given).
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          value_parser = |s: &str| parse_in_range(s, "--depth", 1..=MAX_EMPTIES))]
    pub depth: Option<u32>,
    /// Play every opening of N plies (one per symmetry class, shuffled by --seed) instead of
    /// the built-in balanced set.
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          value_parser = |s: &str| parse_in_range(s, "--opening-plies", 0..=MAX_OPENING_PLIES))]
    pub opening_plies: Option<u32>,
    /// Read the openings from FILE (move lines or OBF), played in the file's order, instead of
    /// the built-in balanced set (`builtin`, the default, shuffled by --seed).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<String>,
    /// Play the first N openings (each twice, colours swapped).
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          value_parser = |s: &str| parse_in_range(s, "--max-openings", 1..=u32::MAX))]
    pub max_openings: Option<u32>,
    /// Play N openings drawn at random (by --seed) from the file or set.
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          value_parser = |s: &str| parse_in_range(s, "--sample", 1..=u32::MAX))]
    pub sample: Option<u32>,
    /// Seed of the opening shuffle and of --sample (default 1).
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          value_parser = |s: &str| seed(s).map_err(CliError))]
    pub seed: Option<u64>,
    /// Games played at once (default 1).
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          value_parser = |s: &str| parse_in_range(s, "--concurrency", 1..=MAX_CONCURRENCY))]
    pub concurrency: Option<u32>,
    /// Keep each engine running from game to game (as a GUI does) instead of starting it for
    /// every game; an engine that lost a game by a fault is started again.
    #[arg(long)]
    pub keep_engines: bool,
    /// Extra seconds past a limit before a move counts as late (default 0.2).
    #[arg(long, value_name = "S", allow_hyphen_values = true,
          value_parser = |s: &str| seconds(s, "timeout-margin", 0.0))]
    pub timeout_margin: Option<Duration>,
    /// Play like a GUI: charge every move this many seconds more than the engine took (a
    /// GUI's own delay), tell GTP engines, ours too, their clock in whole seconds rounded to
    /// the nearest (as GNU Quarry does), and forgive no time past a limit unless
    /// --timeout-margin says otherwise.
    #[arg(long, value_name = "S", allow_hyphen_values = true,
          value_parser = |s: &str| seconds(s, "latency", 0.0))]
    pub latency: Option<Duration>,
    /// Stop early by a sequential test, e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05.
    #[arg(long, value_name = "SPEC", value_parser = sprt)]
    pub sprt: Option<Sprt>,
    /// Write every game in GGF to FILE.
    #[arg(long, value_name = "FILE")]
    pub ggf: Option<String>,
    /// Write the results (JSON or CSV by the name) to FILE after every game.
    #[arg(long, value_name = "FILE")]
    pub results: Option<String>,
    /// Play only opening pairs i, i + n, ... of the schedule (i/n).
    #[arg(long, value_name = "i/n", value_parser = shard)]
    pub shard: Option<(u32, u32)>,
    /// Play only the games the results file lacks (same command line).
    #[arg(long)]
    pub resume: bool,
}

/// `--engine SPEC`.
fn engine(text: &str) -> Result<EngineSpec, CliError> {
    EngineSpec::parse(text).map_err(CliError)
}

/// `--tc BASE+INC`.
fn fischer(text: &str) -> Result<TimeControl, CliError> {
    TimeControl::parse_fischer(text).map_err(CliError)
}

/// `--sprt SPEC`.
fn sprt(text: &str) -> Result<Sprt, CliError> {
    Sprt::parse(text).map_err(|e| error(format!("bad --sprt '{text}': {e}")))
}

/// `text`, the value of `--name`, in seconds from `min` to a day.
fn seconds(text: &str, name: &str, min: f64) -> Result<Duration, CliError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= min && *s <= MAX_SECONDS)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            error(format!(
                "bad --{name} '{text}': expected seconds from {min} to {MAX_SECONDS}"
            ))
        })
}

/// Runs `match` (a match, or `match merge`).
pub fn run(command: MatchCommand) -> Result<(), CliError> {
    match command.merge {
        Some(MatchSubcommand::Merge { files, results }) => {
            Ok(run_merge(&files, results.as_deref())?)
        }
        None => Ok(run_match(config::config(command.args)?)?),
    }
}

/// Reads and checks `match` arguments given as words, as the command line would (for tests).
#[cfg(test)]
fn parse(words: &[&str]) -> Result<crate::arena::MatchConfig, CliError> {
    use clap::Parser;
    /// `match ARGS` as one command line.
    #[derive(clap::Parser, Debug)]
    #[command(
        no_binary_name = true,
        disable_help_flag = true,
        args_override_self = true
    )]
    struct MatchLine {
        #[command(flatten)]
        args: MatchArgs,
    }
    let line = MatchLine::try_parse_from(words)
        .map_err(|e| CliError(crate::cli::error::usage_error(&e)))?;
    config::config(line.args)
}
