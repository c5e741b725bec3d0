//! The match's settings, typed: engines, openings, clocks, concurrency, the sequential test,
//! output files, shard. The command line (`cli`) reads and checks them from its flags; the
//! arena knows no flags.

use super::spec::EngineSpec;
use super::stats::Sprt;
use crate::game::clock::TimeControl;
use crate::game::openings::Opening;
use std::collections::HashMap;
use std::time::Duration;

/// The time per move when no clock is asked for.
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);

/// The extra time past a limit before a move counts as late, when none is asked for.
pub const DEFAULT_MARGIN: Duration = Duration::from_millis(200);

/// Everything a match needs.
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
    /// Time charged to every move beyond the engine's answer, as a GUI's own delay is; with
    /// it, GTP engines (ours too) are told their clock in whole seconds rounded to the
    /// nearest, as GNU Quarry tells it (`--latency`).
    pub latency: Duration,
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
    /// Keep each engine's process from game to game (a worker's own engines), as a GUI does
    /// over an evening of games, instead of starting both engines for every game; an engine
    /// is started again after a game lost by a fault.
    pub keep_engines: bool,
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

impl MatchConfig {
    /// A match of `engines` (names made distinct) over `openings`, one game at a time,
    /// [`DEFAULT_MOVE_TIME`] a move with [`DEFAULT_MARGIN`], no sequential test, no files,
    /// the whole schedule.
    pub fn new(mut engines: Vec<EngineSpec>, openings: Vec<Opening>) -> MatchConfig {
        distinct_names(&mut engines);
        MatchConfig {
            engines,
            openings,
            control: TimeControl::PerMove(DEFAULT_MOVE_TIME),
            margin: DEFAULT_MARGIN,
            latency: Duration::ZERO,
            concurrency: 1,
            sprt: None,
            ggf: None,
            results: None,
            resume: false,
            shard: None,
            keep_engines: false,
        }
    }

    /// The clock of engine `engine`: its own `tc=`, else the match's.
    pub fn control_of(&self, engine: usize) -> TimeControl {
        self.engines[engine].control.unwrap_or(self.control)
    }

    /// The engines' names, in the order of the command line.
    pub fn names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_of_one_name_are_told_apart() {
        let spec = |text: &str| EngineSpec::parse(text).expect("a good engine");
        let config = MatchConfig::new(
            vec![
                spec("name=a,self:"),
                spec("name=a,self:"),
                spec("name=b,self:"),
            ],
            Vec::new(),
        );
        assert_eq!(config.names(), ["a", "a #2", "b"]);
        assert_eq!(
            config.control_of(1),
            TimeControl::PerMove(DEFAULT_MOVE_TIME)
        );
    }
}
