//! The match's settings, read and checked from its command line (`othello-engine match
//! ARGS`): engines, openings, clocks, concurrency, the sequential test, output files, shard.

use super::spec::{EngineProtocol, EngineSpec};
use super::stats::Sprt;
use crate::arena::options::{Arity, CliError, Options, parse_in_range};
use crate::game::clock::TimeControl;
use crate::game::openings::{Opening, generate, parse_openings, shuffle};
use std::collections::HashMap;
use std::time::Duration;

/// The usage text of `match`, for the binary's help.
pub const USAGE: &str = "\
  match --engine SPEC --engine SPEC [...] [--tc 60+0.5 | --move-time S] [--depth N]
        [--opening-plies N | --openings FILE] [--max-openings N] [--seed N]
        [--concurrency N] [--timeout-margin S] [--sprt elo0=0,elo1=5,alpha=0.05,beta=0.05]
        [--ggf FILE] [--results FILE.json|FILE.csv [--resume]] [--shard i/n]
      engine-against-engine games, each opening twice with colours swapped; SPEC is
      [name=NAME,][dir=DIR,][depth=N,]gtp:COMMAND, nboard:COMMAND or self:LEVEL-FLAGS;
      --resume plays only the games the results file lacks (same command line)
  match merge FILE... [--results FILE.json|FILE.csv]
      one summary of results files written by shards of one tournament";

/// The deepest `--depth` (the moves of a game).
const MAX_DEPTH: u32 = 60;

/// The seed of the opening shuffle without `--seed`.
const DEFAULT_SEED: u64 = 1;

/// The opening length without `--opening-plies` or `--openings`, and the longest allowed.
const DEFAULT_OPENING_PLIES: u32 = 6;
const MAX_OPENING_PLIES: u32 = 10;

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

const OPTIONS: &[(&str, Arity)] = &[
    ("engine", Arity::Value),
    ("tc", Arity::Value),
    ("move-time", Arity::Value),
    ("depth", Arity::Value),
    ("opening-plies", Arity::Value),
    ("openings", Arity::Value),
    ("max-openings", Arity::Value),
    ("seed", Arity::Value),
    ("concurrency", Arity::Value),
    ("timeout-margin", Arity::Value),
    ("sprt", Arity::Value),
    ("ggf", Arity::Value),
    ("results", Arity::Value),
    ("shard", Arity::Value),
    ("resume", Arity::Switch),
];

/// The option `--name` in seconds, from `min` to a day.
fn seconds_option(options: &Options, name: &str, min: f64) -> Result<Option<Duration>, CliError> {
    options
        .get(name)
        .map(|t| {
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
fn engines(options: &Options, depth: Option<u32>) -> Result<Vec<EngineSpec>, CliError> {
    let mut engines = options
        .all("engine")
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
fn control(options: &Options, depth: Option<u32>) -> Result<TimeControl, CliError> {
    Ok(
        match (
            options.get("tc"),
            seconds_option(options, "move-time", MIN_MOVE_TIME)?,
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

/// The openings in playing order: read from `--openings`, or every opening of
/// `--opening-plies` shuffled by `--seed`; cut to `--max-openings`.
fn openings(options: &Options) -> Result<Vec<Opening>, CliError> {
    let seed = match options.get("seed") {
        Some(s) => s
            .trim()
            .parse::<u64>()
            .map_err(|_| CliError(format!("bad --seed '{s}': expected a whole number")))?,
        None => DEFAULT_SEED,
    };
    let mut openings = match options.get("openings") {
        Some(path) => {
            if options.has("opening-plies") {
                return Err(CliError(
                    "give --openings or --opening-plies, not both".into(),
                ));
            }
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError(format!("cannot read openings file '{path}': {e}")))?;
            parse_openings(&text, path).map_err(CliError)?
        }
        None => {
            let plies = match options.get("opening-plies") {
                Some(p) => parse_in_range(p, "--opening-plies", 0..=MAX_OPENING_PLIES)?,
                None => DEFAULT_OPENING_PLIES,
            };
            let mut all = generate(plies);
            shuffle(&mut all, seed);
            all
        }
    };
    if let Some(n) = options.get("max-openings") {
        openings.truncate(parse_in_range(n, "--max-openings", 1..=u32::MAX)? as usize);
    }
    Ok(openings)
}

impl MatchConfig {
    /// Reads and checks the `match` arguments (engines are not started here).
    pub fn parse(args: &[String]) -> Result<MatchConfig, CliError> {
        let options = Options::parse(args, OPTIONS)?;
        if let Some(extra) = options.positional.first() {
            return Err(CliError(format!("match takes no argument '{extra}'")));
        }
        let depth = options
            .get("depth")
            .map(|d| parse_in_range(d, "--depth", 1..=MAX_DEPTH))
            .transpose()?;
        let engines = engines(&options, depth)?;
        let control = control(&options, depth)?;
        let margin = seconds_option(&options, "timeout-margin", 0.0)?.unwrap_or(DEFAULT_MARGIN);
        let openings = openings(&options)?;
        let concurrency = match options.get("concurrency") {
            Some(c) => parse_in_range(c, "--concurrency", 1..=MAX_CONCURRENCY)? as usize,
            None => 1,
        };
        let sprt = options
            .get("sprt")
            .map(|s| Sprt::parse(s).map_err(|e| CliError(format!("bad --sprt '{s}': {e}"))))
            .transpose()?;
        if sprt.is_some() && engines.len() != 2 {
            return Err(CliError("--sprt needs exactly two engines".into()));
        }
        let resume = options.has("resume");
        if resume && !options.has("results") {
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
            ggf: options.get("ggf").map(str::to_string),
            results: options.get("results").map(str::to_string),
            resume,
            shard: options.get("shard").map(parse_shard).transpose()?,
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
        assert_eq!(untimed.openings.len(), generate(6).len());
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
