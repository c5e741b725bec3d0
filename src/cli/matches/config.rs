//! The match's settings from its flags, checked together: at least two engines, `--depth`
//! given to the engines that take it, one clock (`--tc`, `--move-time`, none under `--depth`
//! alone, else a second a move), the openings, and what needs what (`--sprt` two engines,
//! `--resume` a results file); with a warning when the games would need more cores than the
//! machine gives.

use super::MatchArgs;
use super::openings::openings;
use crate::arena::MatchConfig;
use crate::arena::config::{DEFAULT_MARGIN, DEFAULT_MOVE_TIME, distinct_names};
use crate::arena::spec::{EngineProtocol, EngineSpec};
use crate::cli::args::{CliError, error};
use crate::game::clock::TimeControl;
use std::time::Duration;

/// The engines of `--engine`, with `--depth` given to those that take it: level flags of
/// `self:` engines, the `set depth` of `nboard:` engines without their own.
fn engines(args: &MatchArgs) -> Result<Vec<EngineSpec>, CliError> {
    let mut engines = args.engines.clone();
    if engines.len() < 2 {
        return Err(error(format!(
            "match needs at least two --engine SPEC, got {}",
            engines.len()
        )));
    }
    for spec in &mut engines {
        match (args.depth, spec.protocol) {
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
    if args.depth.is_some()
        && engines
            .iter()
            .any(|e| e.protocol == EngineProtocol::Gtp && !e.is_self)
    {
        eprintln!("match: note: --depth does not limit gtp: engines; GTP has no depth command");
    }
    Ok(engines)
}

/// The time control: `--tc`, `--move-time`, none under `--depth` alone, else a second a move.
fn control(args: &MatchArgs) -> Result<TimeControl, CliError> {
    Ok(match (args.tc, args.move_time) {
        (Some(_), Some(_)) => return Err(error("give --tc or --move-time, not both")),
        (Some(tc), None) => tc,
        (None, Some(t)) => TimeControl::PerMove(t),
        (None, None) if args.depth.is_some() => TimeControl::Untimed,
        (None, None) => TimeControl::PerMove(DEFAULT_MOVE_TIME),
    })
}

/// Checks the `match` arguments together and makes the match's settings (engines are not
/// started here).
pub fn config(args: MatchArgs) -> Result<MatchConfig, CliError> {
    let engines = engines(&args)?;
    let control = control(&args)?;
    let latency = args.latency.unwrap_or(Duration::ZERO);
    // A GUI forgives nothing past a limit.
    let margin = args.timeout_margin.unwrap_or(if args.latency.is_some() {
        Duration::ZERO
    } else {
        DEFAULT_MARGIN
    });
    let openings = openings(&args)?;
    let concurrency = args.concurrency.map_or(1, |c| c as usize);
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
    if args.sprt.is_some() && engines.len() != 2 {
        return Err(error("--sprt needs exactly two engines"));
    }
    if args.resume && args.results.is_none() {
        return Err(error(
            "--resume needs --results FILE: the games played so far are read from it",
        ));
    }
    Ok(MatchConfig {
        engines,
        openings,
        control,
        margin,
        latency,
        concurrency,
        sprt: args.sprt,
        ggf: args.ggf,
        results: args.results,
        resume: args.resume,
        shard: args.shard.map(|(i, n)| (i as usize, n as usize)),
        keep_engines: args.keep_engines,
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use crate::game::clock::TimeControl;
    use crate::game::openings::balanced_set;
    use std::time::Duration;

    #[test]
    fn reads_a_match_command_line() {
        let c = parse(&[
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
        ])
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
        let untimed = parse(&["--engine", "self:", "--engine", "self:", "--depth", "2"]).unwrap();
        assert_eq!(untimed.control, TimeControl::Untimed);
        assert_eq!(untimed.openings.len(), balanced_set().len());
        let nboard = parse(&[
            "--engine",
            "nboard:edax -nboard",
            "--engine",
            "depth=3,nboard:edax -nboard",
            "--depth",
            "5",
        ])
        .unwrap();
        let depths: Vec<_> = nboard.engines.iter().map(|e| e.depth).collect();
        assert_eq!(depths, [Some(5), Some(3)]);
        assert_eq!(nboard.engines[1].name, "edax #2");
        assert_eq!(nboard.engines[1].args, ["-nboard"]);
        // Each refusal is the one line the command line prints, whether a value parser or the
        // checks of the whole line found it.
        let two = ["--engine", "self:", "--engine", "self:"];
        for (extra, expected) in [
            (
                &["--depth", "0"][..],
                "bad --depth '0': expected a whole number from 1 to 60",
            ),
            (
                &["--move-time", "-1"],
                "bad --move-time '-1': expected seconds from 0.001 to 86400",
            ),
            (
                &["--timeout-margin", "x"],
                "bad --timeout-margin 'x': expected seconds from 0 to 86400",
            ),
            (
                &["--concurrency", "0"],
                "bad --concurrency '0': expected a whole number from 1 to 256",
            ),
            (
                &["--opening-plies", "11"],
                "bad --opening-plies '11': expected a whole number from 0 to 10",
            ),
            (
                &["--max-openings", "0"],
                "bad --max-openings '0': expected a whole number from 1 to 4294967295",
            ),
            (
                &["--seed", "-1"],
                "bad --seed '-1': expected a whole number",
            ),
            (
                &["--shard", "3/2"],
                "bad --shard '3/2': expected i/n with 1 <= i <= n",
            ),
            (
                &["--shard", "0/2"],
                "bad --shard '0/2': expected i/n with 1 <= i <= n",
            ),
            (
                &["--shard", "1"],
                "bad --shard '1': expected i/n with 1 <= i <= n",
            ),
            (
                &["--tc", "1", "--move-time", "1"],
                "give --tc or --move-time, not both",
            ),
            (
                &["--openings", "builtin", "--opening-plies", "2"],
                "give --openings or --opening-plies, not both",
            ),
            (
                &["--sample", "2", "--max-openings", "2"],
                "give --max-openings or --sample, not both",
            ),
            (
                &["--resume"],
                "--resume needs --results FILE: the games played so far are read from it",
            ),
            (
                &["--engine", "self:", "--sprt", "elo0=0,elo1=5"],
                "--sprt needs exactly two engines",
            ),
            (
                &["--engine", "depth=4,self:"],
                "engine 'depth=4,self:': depth= is for nboard: engines (GTP has no depth \
                 command; give self: engines level flags)",
            ),
        ] {
            let words: Vec<&str> = two.iter().chain(extra).copied().collect();
            let e = parse(&words).expect_err(expected);
            assert_eq!(e.0, expected, "{words:?}");
        }
        assert_eq!(
            parse(&["--engine", "self:"]).unwrap_err().0,
            "match needs at least two --engine SPEC, got 1"
        );
        assert!(parse(&["--engine", "self:", "--engine", "self:", "stray"]).is_err());
    }
}
