//! The match's settings, read and checked from its command line (`othello-engine match
//! ARGS`): engines, openings, clocks, concurrency, the sequential test, output files, shard.

use super::opening_flags::openings;
use super::spec::{EngineProtocol, EngineSpec};
use super::stats::Sprt;
use crate::arena::options::{CliError, parse_in_range};
use crate::game::clock::TimeControl;
use crate::game::openings::Opening;
use std::collections::HashMap;
use std::time::Duration;

/// The deepest `--depth` (the moves of a game).
const MAX_DEPTH: u32 = 60;

/// The time per move without `--tc`, `--move-time` or `--depth`.
const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);

/// The extra time past a limit before a move counts as late, without `--timeout-margin`.
const DEFAULT_MARGIN: Duration = Duration::from_millis(200);

/// The most games played at once.
const MAX_CONCURRENCY: u32 = 256;

/// The longest time any seconds option takes (a day).
const MAX_SECONDS: f64 = 86_400.0;

/// The shortest `--move-time`.
const MIN_MOVE_TIME: f64 = 0.001;

/// Everything a match needs, read and checked from the command line.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines; two play a match, more a round robin.
    pub engines: Vec<EngineSpec>,
    /// The openings in playing order.
    pub openings: Vec<Opening>,
    /// Each side's time.
    pub control: TimeControl,
    /// Extra time allowed past the limit before a move counts as late.
    pub margin: Duration,
    /// Games played at once.
    pub concurrency: usize,
    /// The sequential test, if any (two-engine matches only).
    pub sprt: Option<Sprt>,
    /// Where to write the games in GGF.
    pub ggf: Option<String>,
    /// Where to write the summary.
    pub results: Option<String>,
    /// Continue the match of the results file: play only the games it lacks.
    pub resume: bool,
    /// `(i, n)`: play only opening pairs i, i + n, i + 2n, ... of the schedule (1-based), so
    /// that one tournament can be spread over n machines; both games of an opening stay in
    /// one shard, which keeps the pentanomial counts whole.
    pub shard: Option<(usize, usize)>,
}

/// Makes engine names distinct: a name given again gets ` #2`, ` #3`, ... (two engines with
/// one name could not be told apart in the results).
pub fn distinct_names(engines: &mut [EngineSpec]) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for spec in engines {
        let n = seen.entry(spec.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            spec.name = format!("{} #{}", spec.name, n);
        }
    }
}

/// Reads `--shard i/n` with 1 <= i <= n.
fn parse_shard(text: &str) -> Result<(usize, usize), CliError> {
    let bad = || {
        CliError(format!(
            "bad --shard '{text}': expected i/n with 1 <= i <= n"
        ))
    };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The `match` command line as clap reads it. Values stay text here and are checked by
/// [`MatchConfig::from_args`], whose messages name the option and what it expects.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MatchArgs {
    /// An engine (give two or more): [name=NAME,][dir=DIR,][depth=N,]gtp:COMMAND,
    /// nboard:COMMAND or self:LEVEL-FLAGS.
    #[arg(long = "engine", value_name = "SPEC", allow_hyphen_values = true)]
    pub engines: Vec<String>,
    /// Time control: seconds for the game plus an increment per move, e.g. 60+0.5.
    #[arg(long, value_name = "BASE+INC", allow_hyphen_values = true)]
    pub tc: Option<String>,
    /// A fixed time for each move, in seconds.
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub move_time: Option<String>,
    /// Search depth for self: and nboard: engines (no clock unless one is given).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub depth: Option<String>,
    /// Play every opening of N plies (one per symmetry class, shuffled by --seed) instead of
    /// the built-in balanced set.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub opening_plies: Option<String>,
    /// Read the openings from FILE (move lines or OBF), played in the file's order, instead of
    /// the built-in balanced set (`builtin`, the default, shuffled by --seed).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<String>,
    /// Play the first N openings (each twice, colours swapped).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub max_openings: Option<String>,
    /// Play N openings drawn at random (by --seed) from the file or set.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub sample: Option<String>,
    /// Seed of the opening shuffle and of --sample (default 1).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// Games played at once (default 1).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub concurrency: Option<String>,
    /// Extra seconds past a limit before a move counts as late (default 0.2).
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub timeout_margin: Option<String>,
    /// Stop early by a sequential test, e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05.
    #[arg(long, value_name = "SPEC")]
    pub sprt: Option<String>,
    /// Write every game in GGF to FILE.
    #[arg(long, value_name = "FILE")]
    pub ggf: Option<String>,
    /// Write the results (JSON or CSV by the name) to FILE after every game.
    #[arg(long, value_name = "FILE")]
    pub results: Option<String>,
    /// Play only opening pairs i, i + n, ... of the schedule (i/n).
    #[arg(long, value_name = "i/n")]
    pub shard: Option<String>,
    /// Play only the games the results file lacks (same command line).
    #[arg(long)]
    pub resume: bool,
}

/// `match ARGS` as one command line, for tests and scripts that hold it as words.
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

/// `text` (the value of `--name`) in seconds, from `min` to a day.
fn seconds(text: Option<&str>, name: &str, min: f64) -> Result<Option<Duration>, CliError> {
    text.map(|t| {
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= min && *s <= MAX_SECONDS)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| CliError(format!("bad --{name} '{t}': expected seconds")))
    })
    .transpose()
}

/// The engines of `--engine`, with `--depth` (`depth`) given to those that take it: level
/// flags of `self:` engines, the `set depth` of `nboard:` engines without their own.
fn engines(args: &MatchArgs, depth: Option<u32>) -> Result<Vec<EngineSpec>, CliError> {
    let mut engines = args
        .engines
        .iter()
        .map(|s| EngineSpec::parse(s).map_err(CliError))
        .collect::<Result<Vec<_>, _>>()?;
    if engines.len() < 2 {
        return Err(CliError(format!(
            "match needs at least two --engine SPEC, got {}",
            engines.len()
        )));
    }
    for spec in &mut engines {
        match (depth, spec.protocol) {
            (Some(d), EngineProtocol::Gtp) if spec.is_self => {
                for flag in ["--opening-depth", "--midgame-depth"] {
                    spec.args.push(flag.into());
                    spec.args.push(d.to_string());
                }
            }
            (Some(d), EngineProtocol::NBoard) => {
                spec.depth = spec.depth.or(Some(d));
            }
            _ => {}
        }
    }
    distinct_names(&mut engines);
    if depth.is_some()
        && engines
            .iter()
            .any(|e| e.protocol == EngineProtocol::Gtp && !e.is_self)
    {
        eprintln!("match: note: --depth does not limit gtp: engines; GTP has no depth command");
    }
    Ok(engines)
}

/// The time control: `--tc`, `--move-time`, none under `--depth` alone, else a second a move.
fn control(args: &MatchArgs, depth: Option<u32>) -> Result<TimeControl, CliError> {
    Ok(
        match (
            args.tc.as_deref(),
            seconds(args.move_time.as_deref(), "move-time", MIN_MOVE_TIME)?,
        ) {
            (Some(_), Some(_)) => {
                return Err(CliError("give --tc or --move-time, not both".into()));
            }
            (Some(tc), None) => TimeControl::parse_fischer(tc).map_err(CliError)?,
            (None, Some(t)) => TimeControl::PerMove(t),
            (None, None) if depth.is_some() => TimeControl::Untimed,
            (None, None) => TimeControl::PerMove(DEFAULT_MOVE_TIME),
        },
    )
}

impl MatchConfig {
    /// The clock of engine `engine`: its own `tc=`, else the match's.
    pub fn control_of(&self, engine: usize) -> TimeControl {
        self.engines[engine].control.unwrap_or(self.control)
    }

    /// Reads and checks the `match` arguments given as words (engines are not started here).
    pub fn parse(words: &[String]) -> Result<MatchConfig, CliError> {
        use clap::Parser;
        let line = MatchLine::try_parse_from(words).map_err(|e| {
            let text = e.render().to_string();
            CliError(
                text.lines()
                    .next()
                    .unwrap_or("bad match command line")
                    .trim_start_matches("error: ")
                    .to_string(),
            )
        })?;
        MatchConfig::from_args(line.args)
    }

    /// Checks the `match` arguments and makes the match's settings (engines are not started
    /// here).
    pub fn from_args(args: MatchArgs) -> Result<MatchConfig, CliError> {
        let depth = args
            .depth
            .as_deref()
            .map(|d| parse_in_range(d, "--depth", 1..=MAX_DEPTH))
            .transpose()?;
        let engines = engines(&args, depth)?;
        let control = control(&args, depth)?;
        let margin = seconds(args.timeout_margin.as_deref(), "timeout-margin", 0.0)?
            .unwrap_or(DEFAULT_MARGIN);
        let openings = openings(&args)?;
        let concurrency = match &args.concurrency {
            Some(c) => parse_in_range(c, "--concurrency", 1..=MAX_CONCURRENCY)? as usize,
            None => 1,
        };
        // A game keeps one engine busy, both when one ponders.
        let threads = engines.iter().map(EngineSpec::threads).max().unwrap_or(1);
        let busy = if engines.iter().any(EngineSpec::ponders) {
            2
        } else {
            1
        };
        let (needed, cores) = (
            threads * busy * concurrency,
            crate::search::available_threads(),
        );
        if needed > cores {
            eprintln!(
                "match: warning: {concurrency} games at once with engines of {threads} \
                 threads{} need {needed} cores, and this machine gives {cores}: the engines \
                 will slow each other down",
                if busy == 2 { ", pondering," } else { "" }
            );
        }
        let sprt = args
            .sprt
            .as_deref()
            .map(|s| Sprt::parse(s).map_err(|e| CliError(format!("bad --sprt '{s}': {e}"))))
            .transpose()?;
        if sprt.is_some() && engines.len() != 2 {
            return Err(CliError("--sprt needs exactly two engines".into()));
        }
        if args.resume && args.results.is_none() {
            return Err(CliError(
                "--resume needs --results FILE: the games played so far are read from it".into(),
            ));
        }
        Ok(MatchConfig {
            engines,
            openings,
            control,
            margin,
            concurrency,
            sprt,
            ggf: args.ggf,
            results: args.results,
            resume: args.resume,
            shard: args.shard.as_deref().map(parse_shard).transpose()?,
        })
    }

    /// The engines' names, in the order of the command line.
    pub fn names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::openings::balanced_set;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reads_a_match_command_line() {
        let c = MatchConfig::parse(&args(&[
            "--engine",
            "self:--level 3",
            "--engine",
            "self:--level 3",
            "--depth",
            "4",
            "--opening-plies",
            "2",
            "--concurrency",
            "3",
            "--tc",
            "30+0.25",
        ]))
        .unwrap();
        // Same names are told apart; --depth becomes level flags of self: engines and the
        // `set depth` of nboard: engines without their own depth=.
        assert_eq!(c.engines[0].name, "self --level 3");
        assert_eq!(c.engines[1].name, "self --level 3 #2");
        assert_eq!(
            c.engines[0].args,
            [
                "gtp",
                "--level",
                "3",
                "--no-book",
                "--threads",
                "1",
                "--opening-depth",
                "4",
                "--midgame-depth",
                "4"
            ]
        );
        assert_eq!(c.openings.len(), 3);
        assert_eq!(c.concurrency, 3);
        assert_eq!(
            c.control,
            TimeControl::Fischer {
                base: Duration::from_secs(30),
                increment: Duration::from_millis(250)
            }
        );
        let untimed = MatchConfig::parse(&args(&[
            "--engine", "self:", "--engine", "self:", "--depth", "2",
        ]))
        .unwrap();
        assert_eq!(untimed.control, TimeControl::Untimed);
        assert_eq!(untimed.openings.len(), balanced_set().len());
        let nboard = MatchConfig::parse(&args(&[
            "--engine",
            "nboard:edax -nboard",
            "--engine",
            "depth=3,nboard:edax -nboard",
            "--depth",
            "5",
        ]))
        .unwrap();
        let depths: Vec<_> = nboard.engines.iter().map(|e| e.depth).collect();
        assert_eq!(depths, [Some(5), Some(3)]);
        assert_eq!(nboard.engines[1].name, "edax #2");
        assert_eq!(nboard.engines[1].args, ["-nboard"]);
        for bad in [
            &["--engine", "self:", "--engine", "self:", "--depth", "0"][..],
            &[
                "--engine",
                "self:",
                "--engine",
                "self:",
                "--move-time",
                "-1",
            ],
            &[
                "--engine",
                "self:",
                "--engine",
                "self:",
                "--concurrency",
                "0",
            ],
            &["--engine", "self:", "--engine", "self:", "stray"],
            &[
                "--engine",
                "self:",
                "--engine",
                "self:",
                "--opening-plies",
                "11",
            ],
            &["--engine", "self:", "--engine", "self:", "--shard", "3/2"],
            &["--engine", "self:", "--engine", "self:", "--shard", "0/2"],
            &["--engine", "self:", "--engine", "self:", "--shard", "1"],
        ] {
            assert!(MatchConfig::parse(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
