//! Measuring the Multi-ProbCut regressions (`othello-engine mpc calibrate`). A full-width
//! iterative deepening of a sample position finds a value at every depth; the value at each
//! deep depth paired with the value at its shallow depth is one point of that depth's
//! regression, in the position's stage. [`calibrate`] searches the positions and collects the
//! pairs, which `probcut/fit.rs` turns into the table. The endgame's cuts are measured the same way
//! against exact scores ([`calibrate_endgame`]); the engine uses a model fitted to that
//! table (`endgame_regression`).
//!
//! The command line picks the data, keeps the checkpoint file of a long run and shows
//! progress; this file only searches, telling its caller of each position searched.

use super::levels::PhaseLevel;
use super::limits::Limits;
use super::probcut::{CalibrationPairs, ENDGAME_MIN_EMPTIES, Regression, fit};
use super::report::Value;
use super::score::WIN;
use super::searcher::Searcher;
use crate::board::Position;
use crate::eval::EvaluatorKind;
use crate::eval::pattern::full_weights;
use std::sync::atomic::Ordering;

/// Positions with fewer empties are the solver's, not the midgame search's: a midgame
/// calibration takes positions with at least this many.
pub const MIN_EMPTIES: u32 = 14;
/// The deepest search of an endgame calibration: its rows are for depths 0 (the static
/// evaluation) to this.
pub const ENDGAME_MAX_DEPTH: u32 = 8;

/// `wanted` of `candidates` (all if fewer), spread evenly over them.
pub fn spread<T: Copy>(candidates: &[T], wanted: usize) -> Vec<T> {
    let step = (candidates.len() as f64 / wanted as f64).max(1.0);
    (0..wanted.min(candidates.len()))
        .map(|i| candidates[(i as f64 * step) as usize])
        .collect()
}

/// The value of each finished depth of a full-width iterative deepening of `position` at
/// `level` (its depth and evaluator) (`None` where proven or not reached; `slots` + 1
/// entries), and the nodes searched.
fn values_by_depth(
    searcher: &mut Searcher,
    position: &Position,
    level: PhaseLevel,
    slots: u32,
    limits: &Limits,
) -> (Vec<Option<i32>>, u64) {
    let mut values = vec![None; slots as usize + 1];
    let report = searcher.search(position, level, limits, &mut |r| {
        if let Value::Estimate(v) = r.value
            && v.abs() < WIN
            && let Some(slot) = values.get_mut(r.depth as usize)
        {
            *slot = Some(v);
        }
    });
    (values, report.nodes)
}

/// How a midgame calibration searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CalibrationSettings {
    /// The deepest search, `MIN_DEPTH` + 1 to `MAX_CALIBRATED_DEPTH` (positions with
    /// fewer empties are searched to one less than their empties).
    pub max_depth: u32,
    /// The searcher's table size in MiB (cleared before each position).
    pub hash_mib: usize,
    /// The evaluator whose searches are measured ([`CALIBRATED_EVALUATOR`] for the built-in
    /// table).
    pub eval: EvaluatorKind,
}

/// One position a calibration run has just searched, as its caller hears of it.
#[derive(Clone, Copy, Debug)]
pub struct Searched<'a> {
    /// Its index in the positions.
    pub index: usize,
    /// Its value at each depth 0 to the deepest (`None` where proven or not reached).
    pub values: &'a [Option<i32>],
    /// The nodes this run has searched so far.
    pub nodes: u64,
}

/// Searches each of `positions` full width with `settings.eval` to
/// `settings.max_depth`, in order, and pairs its values by depth ([`CalibrationPairs::add`]);
/// `pairs.table()` is then the `MpcTable`. `done[i]`, where given, holds the values of
/// position `i` found by an earlier run (a resumed run): it is not searched again. After each
/// position searched, `searched` hears of it (to keep a checkpoint, show progress); an error
/// it returns ends the run. A stop through `limits` ends it too, before the unfinished
/// position is paired or reported: the pairs so far are returned.
pub fn calibrate<E>(
    positions: &[Position],
    mut done: Vec<Option<Vec<Option<i32>>>>,
    settings: CalibrationSettings,
    limits: &Limits,
    mut searched: impl FnMut(Searched<'_>) -> Result<(), E>,
) -> Result<CalibrationPairs, E> {
    let mut searcher = Searcher::new(settings.hash_mib, None);
    let mut pairs = CalibrationPairs::default();
    let mut nodes = 0u64;
    for (index, position) in positions.iter().enumerate() {
        if let Some(values) = done.get_mut(index).and_then(Option::take) {
            pairs.add(position.empty_count(), &values);
            continue;
        }
        if limits.stop.load(Ordering::Relaxed) {
            break;
        }
        searcher.clear();
        let depth = settings.max_depth.min(position.empty_count() - 1);
        let level = PhaseLevel {
            depth,
            eval: settings.eval,
        };
        let (values, n) =
            values_by_depth(&mut searcher, position, level, settings.max_depth, limits);
        nodes += n;
        if limits.stop.load(Ordering::Relaxed) {
            break;
        }
        searched(Searched {
            index,
            values: &values,
            nodes,
        })?;
        pairs.add(position.empty_count(), &values);
    }
    Ok(pairs)
}

/// One row of an endgame calibration: the regression of exact scores (hundredths of a disc)
/// on the values of `depth` deep searches at `empties` empties.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EndgameFit {
    /// The empties of the positions.
    pub empties: u32,
    /// The depth of the searches (0: the static evaluation).
    pub depth: u32,
    /// The positions behind the fit.
    pub pairs: usize,
    /// The fit.
    pub regression: Regression,
}

/// The regression of exact scores on full-width `pattern-full` search values (the solver's
/// evaluator) of depth 0 to [`ENDGAME_MAX_DEPTH`], per number of empties and depth: each of
/// `positions` (with its exact score in discs for the side to move, and a move) is searched
/// once; depth 0 is the static evaluation. Rows from [`ENDGAME_MIN_EMPTIES`] empties on with
/// enough pairs (`MIN_PAIRS`), by empties then depth. `searched` hears how many positions
/// are done after each.
pub fn calibrate_endgame(
    positions: &[(Position, i32)],
    hash_mib: usize,
    mut searched: impl FnMut(usize),
) -> Vec<EndgameFit> {
    let max_depth = ENDGAME_MAX_DEPTH;
    let mut pairs = vec![vec![Vec::new(); max_depth as usize + 1]; 61];
    let mut searcher = Searcher::new(hash_mib, None);
    for (i, (position, exact)) in positions.iter().enumerate() {
        searcher.clear();
        let n = position.empty_count();
        let level = PhaseLevel {
            depth: max_depth,
            eval: EvaluatorKind::PatternFull,
        };
        let (mut values, _) =
            values_by_depth(&mut searcher, position, level, max_depth, &Limits::none());
        // Depth 0: the static evaluation.
        values[0] = Some(full_weights().score(position.player(), position.opponent()));
        for (d, v) in values.iter().enumerate() {
            if let Some(v) = v {
                pairs[n as usize][d].push((f64::from(*v), f64::from(*exact) * 100.0));
            }
        }
        searched(i + 1);
    }
    let mut fits = Vec::new();
    for (n, by_depth) in pairs.iter().enumerate().skip(ENDGAME_MIN_EMPTIES as usize) {
        for (d, depth_pairs) in by_depth.iter().enumerate() {
            if let Some(regression) = fit(depth_pairs) {
                fits.push(EndgameFit {
                    empties: n as u32,
                    depth: d as u32,
                    pairs: depth_pairs.len(),
                    regression,
                });
            }
        }
    }
    fits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::probcut::CALIBRATED_EVALUATOR;
    use crate::search::probcut::MIN_DEPTH;
    use crate::search::probcut::fit::tests::Mix;

    /// `count` positions with a move, each `plies` random moves (and the forced passes)
    /// from the start.
    fn random_positions(count: usize, plies: u32, seed: u64) -> Vec<Position> {
        let mut rng = Mix(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let mut p = Position::start();
            for _ in 0..plies {
                if p.must_pass() && !p.is_game_over() {
                    p = p.pass();
                }
                let moves = p.legal_squares();
                if moves.is_empty() {
                    break;
                }
                let square = moves[rng.below(moves.len())];
                p = p.play(crate::board::Move::Play(square)).unwrap();
            }
            if p.empty_count() == 60 - plies && p.legal_moves() != 0 {
                out.push(p);
            }
        }
        out
    }

    #[test]
    fn spread_takes_evenly_and_all_when_there_are_few() {
        let all: Vec<u32> = (0..10).collect();
        assert_eq!(spread(&all, 3), [0, 3, 6]);
        assert_eq!(spread(&all, 5), [0, 2, 4, 6, 8]);
        assert_eq!(spread(&all, 50), all);
        assert!(spread(&all, 0).is_empty());
    }

    #[test]
    fn a_run_searches_each_position_once_and_a_resumed_run_gives_the_same_table() {
        let positions = random_positions(24, 20, 3);
        let settings = CalibrationSettings {
            max_depth: 5,
            hash_mib: 1,
            eval: CALIBRATED_EVALUATOR,
        };
        let mut heard = Vec::new();
        let pairs = calibrate::<()>(&positions, Vec::new(), settings, &Limits::none(), |s| {
            heard.push((s.index, s.values.to_vec(), s.nodes));
            Ok(())
        })
        .unwrap();
        let indices: Vec<usize> = heard.iter().map(|h| h.0).collect();
        assert_eq!(indices, (0..24).collect::<Vec<_>>());
        assert!(heard.windows(2).all(|w| w[0].2 < w[1].2), "nodes add up");
        for (_, values, _) in &heard {
            assert_eq!(values.len(), 6);
            assert!(values[0].is_none() && values[1..].iter().all(Option::is_some));
        }
        // 40 empties: stage 4, where each searched depth from 3 on has a regression, and
        // the deeper value follows the shallower one.
        let table = pairs.table();
        for depth in MIN_DEPTH..=5 {
            assert_eq!(pairs.count(4, depth), 24);
            let r = table.regression(40, depth).unwrap();
            assert!(r.slope > 0.5 && r.slope < 2.0, "{depth}: {r:?}");
        }
        assert_eq!(table.rows().count(), 3);
        // Resumed with the first half's values: only the second half is searched, and the
        // table is the same.
        let done = heard.iter().take(12).map(|h| Some(h.1.clone())).collect();
        let mut again = Vec::new();
        let resumed = calibrate::<()>(&positions, done, settings, &Limits::none(), |s| {
            again.push(s.index);
            Ok(())
        })
        .unwrap();
        assert_eq!(again, (12..24).collect::<Vec<_>>());
        assert_eq!(resumed.table(), table);
    }

    #[test]
    fn a_stop_or_an_error_of_the_caller_ends_a_run() {
        let positions = random_positions(4, 20, 4);
        let settings = CalibrationSettings {
            max_depth: 4,
            hash_mib: 1,
            eval: CALIBRATED_EVALUATOR,
        };
        // Stopped before it starts: the resumed position is paired, nothing is searched.
        let stopped = Limits::none();
        stopped.stop.store(true, Ordering::Relaxed);
        let done = vec![Some(vec![None, Some(5), Some(8), Some(6), Some(9)])];
        let mut calls = 0;
        let pairs = calibrate::<()>(&positions, done, settings, &stopped, |_| {
            calls += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(calls, 0);
        assert_eq!((pairs.count(4, 3), pairs.count(4, 4)), (1, 1));
        // The caller's error (say, a full disk) after the second position ends the run.
        let mut calls = 0;
        let result = calibrate(&positions, Vec::new(), settings, &Limits::none(), |s| {
            calls += 1;
            if s.index == 1 {
                Err("disk full")
            } else {
                Ok(())
            }
        });
        assert_eq!(result.err(), Some("disk full"));
        assert_eq!(calls, 2);
    }

    #[test]
    fn endgame_labels_that_are_the_deepest_search_s_value_fit_it_as_a_line_of_slope_1() {
        // Positions of 14 empties labelled with their own depth-8 value in whole discs: at
        // depth 8 the fit is the identity line, off only by the rounding to whole discs
        // (at most 50 hundredths); every depth from 0 (the static evaluation) has a row.
        let mut searcher = Searcher::new(1, None);
        let level = PhaseLevel {
            depth: ENDGAME_MAX_DEPTH,
            eval: EvaluatorKind::PatternFull,
        };
        let labelled: Vec<(Position, i32)> = random_positions(30, 46, 5)
            .into_iter()
            .filter_map(|p| {
                searcher.clear();
                let (values, _) = values_by_depth(&mut searcher, &p, level, 8, &Limits::none());
                let deepest = values[ENDGAME_MAX_DEPTH as usize]?;
                Some((p, (f64::from(deepest) / 100.0).round() as i32))
            })
            .take(24)
            .collect();
        assert_eq!(labelled.len(), 24);
        let mut heard = Vec::new();
        let fits = calibrate_endgame(&labelled, 1, |done| heard.push(done));
        assert_eq!(heard, (1..=24).collect::<Vec<_>>());
        let depths: Vec<u32> = fits.iter().map(|f| f.depth).collect();
        assert_eq!(depths, (0..=ENDGAME_MAX_DEPTH).collect::<Vec<_>>());
        assert!(fits.iter().all(|f| f.empties == 14 && f.pairs == 24));
        let r = fits[ENDGAME_MAX_DEPTH as usize].regression;
        assert!((r.slope - 1.0).abs() < 0.05, "{r:?}");
        assert!(r.offset.abs() < 30.0, "{r:?}");
        assert!(r.sigma < 55.0, "{r:?}");
    }
}
