//! Iterative deepening with aspiration windows: the midgame search run at depth 1, 2, 3, ...,
//! each depth's value centring the next depth's window.

use super::limits::{Limits, Stopper};
use super::midgame::Midgame;
use super::probcut::{self, Selectivity};
use super::report::{SearchReport, Value, principal_variation};
use super::score::{INFINITY, WIN};
use super::threads::{Busy, with_helpers};
use super::time::IterationPlanner;
use super::tt::{NO_MOVE, TranspositionTable};
use crate::board::{Move, Position, Square};
use crate::eval::{Evaluator, EvaluatorVisitor};
use std::time::Duration;
use web_time::Instant;

/// From this depth on, a depth starts with a window around the last depth's value; the first
/// depths are cheap enough to search with the full window.
const ASPIRATION_MIN_DEPTH: u32 = 3;
/// Half the width of the first window, in the evaluator's units.
const ASPIRATION_DELTA: i32 = 100;
/// Each failure widens the window on the failing side by this factor.
const ASPIRATION_GROWTH: i32 = 4;
/// Once the widening step passes this, the window opens fully: the value is far from the guess.
const ASPIRATION_MAX_DELTA: i32 = 3000;

/// [`deepen`] as a visit, for [`crate::eval::EvaluatorKind::dispatch`].
pub(crate) struct Deepen<'a> {
    pub tt: &'a TranspositionTable,
    pub position: &'a Position,
    pub max_depth: u32,
    pub selectivity: Selectivity,
    pub limits: &'a Limits,
    pub progress: &'a mut dyn FnMut(&SearchReport),
    /// The threads that search (1: this one alone), and the moves they are searching.
    pub threads: usize,
    pub busy: &'a Busy,
    /// What an earlier search of this position (a ponder) did, whose results the table
    /// holds: see [`deepen`].
    pub earlier: &'a Earlier,
}

/// What an earlier search of a position (a ponder on the reply that came) did: the time each
/// depth took, from 1 on, and the time it then spent on the next depth without finishing it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Earlier {
    pub depths: Vec<Duration>,
    pub unfinished: Duration,
}

impl EvaluatorVisitor for Deepen<'_> {
    type Output = Option<SearchReport>;

    fn visit<E: Evaluator>(self, eval: &E) -> Option<SearchReport> {
        let task = Task {
            tt: self.tt,
            position: self.position,
            max_depth: self.max_depth,
            selectivity: self.selectivity,
            busy: (self.threads > 1).then_some(self.busy),
            earlier: self.earlier,
        };
        let progress = self.progress;
        let (report, helper_nodes) = with_helpers(
            self.threads,
            self.limits,
            || deepen(task, eval, self.limits, progress),
            |limits| deepen(task, eval, limits, &mut |_| {}).map_or(0, |r| r.nodes),
        );
        report.map(|mut r| {
            r.nodes += helper_nodes;
            r
        })
    }
}

/// The root moves of `position` other than `best` that a null-window search at `depth` (one
/// ply below them) finds worth at least `threshold` hundredths of a disc, for
/// `--randomness`: the moves the search may choose among. Stopped tests count as failed.
pub(crate) struct RootAlternatives<'a> {
    pub tt: &'a TranspositionTable,
    pub position: &'a Position,
    pub depth: u32,
    pub selectivity: Selectivity,
    pub best: Move,
    pub threshold: i32,
    pub limits: &'a Limits,
}

impl EvaluatorVisitor for RootAlternatives<'_> {
    type Output = Vec<Move>;

    fn visit<E: Evaluator>(self, eval: &E) -> Vec<Move> {
        let mut stopper = Stopper::new(self.limits);
        let table = probcut::table_for::<E>();
        let selectivity = if table.is_some() {
            self.selectivity
        } else {
            Selectivity::FULL
        };
        let mut search = Midgame {
            tt: self.tt,
            eval,
            nodes: 0,
            stopper: &mut stopper,
            selectivity,
            probcut: table.filter(|_| selectivity.is_selective()),
            busy: None,
        };
        let threshold = (f64::from(self.threshold) / eval.centidiscs_per_unit()).round() as i32;
        let mut out = Vec::new();
        for square in self.position.legal_squares() {
            let mv = Move::Play(square);
            if mv == self.best {
                continue;
            }
            let Ok(child) = self.position.play(mv) else {
                continue;
            };
            let state = eval.state(&child);
            let depth = self.depth.saturating_sub(1);
            let (v, _) = search.search(&child, &state, depth, -threshold, -threshold + 1);
            if search.stopper.stopped() {
                break;
            }
            if -v >= threshold {
                out.push(mv);
            }
        }
        out
    }
}

/// What one thread of a deepening searches, and with what it shares.
#[derive(Clone, Copy)]
struct Task<'a> {
    tt: &'a TranspositionTable,
    position: &'a Position,
    max_depth: u32,
    selectivity: Selectivity,
    /// With several threads, the moves being searched.
    busy: Option<&'a Busy>,
    earlier: &'a Earlier,
}

/// Searches `task.position` at depths 1 to `task.max_depth` (at most its empties) with `eval` at
/// `selectivity` (selective only with the evaluator the ProbCut table was calibrated for),
/// calling `progress` after each finished depth. When the last depth reaches the end of the
/// game, the selectivity is then raised step by step to full width, as time allows. A depth
/// cut short by the limits is dropped unless it is the first or it proved its best move
/// (below); the time manager's
/// [`IterationPlanner`] decides whether a depth may start, and a proven result (full width)
/// ends the deepening. Returns the last report (`None` only if no depth ran).
///
/// A depth that an earlier search of the position (`task.earlier`: a ponder on the reply
/// that came) finished comes back from the table at once; the planner is told the time it
/// took then, so that it knows what the next depth costs and stops when that cannot fit: the
/// move is then made early, and the time pondering saved goes to the moves after it. Told the
/// microseconds instead, it started a depth that the hard deadline cut off. The time the
/// earlier search spent on the depth after those it finished is credited to that depth (the
/// table holds that work too), so a depth that the ponder half searched starts when its rest
/// fits: the ponder's time buys depth on this move, not only time for later ones.
fn deepen<E: Evaluator>(
    task: Task<'_>,
    eval: &E,
    limits: &Limits,
    progress: &mut dyn FnMut(&SearchReport),
) -> Option<SearchReport> {
    let Task {
        tt,
        position,
        max_depth,
        selectivity,
        busy,
        earlier,
    } = task;
    let start = Instant::now();
    let mut planner = IterationPlanner::new(limits);
    let mut stopper = Stopper::new(limits);
    let table = probcut::table_for::<E>();
    let selectivity = if table.is_some() {
        selectivity
    } else {
        Selectivity::FULL
    };
    let search_selectivity = selectivity;
    let mut search = Midgame {
        tt,
        eval,
        nodes: 0,
        stopper: &mut stopper,
        selectivity,
        probcut: None,
        busy,
    };
    let empties = position.empty_count();
    let max_depth = max_depth.clamp(1, empties.max(1));
    // Depth by depth at the set selectivity; at the end of the game, ever less selective.
    let wider = std::iter::successors(selectivity.wider(), |s| s.wider());
    let steps = (1..=max_depth).map(|depth| (depth, selectivity)).chain(
        wider
            .filter(|_| max_depth == empties)
            .map(|s| (max_depth, s)),
    );
    let state = eval.state(position);
    let mut last: Option<SearchReport> = None;
    let mut guess = 0;
    for (depth, selectivity) in steps {
        if last.is_some() && (limits.stop_requested() || !planner.may_start_next()) {
            break;
        }
        search.selectivity = selectivity;
        search.probcut = table.filter(|_| selectivity.is_selective());
        let iteration_start = Instant::now();
        let (value, best, proven) = aspiration(&mut search, position, &state, depth, guess);
        if search.stopper.stopped() && last.is_some() && !proven {
            break;
        }
        let best_move = Square::new(best as usize)
            .map(Move::Play)
            .filter(|&m| position.is_legal(m))
            .or_else(|| position.legal_squares().first().map(|&s| Move::Play(s)))
            .unwrap_or(Move::Pass);
        guess = value;
        let report = SearchReport {
            best_move,
            value: Value::estimate(value, eval),
            depth,
            pv: principal_variation(
                search.tt,
                position,
                Midgame::<E>::KIND,
                best_move,
                depth as usize,
            ),
            nodes: search.nodes,
            elapsed: start.elapsed(),
            complete: !search.stopper.stopped(),
            selectivity,
            book: None,
        };
        if !report.complete {
            return Some(report);
        }
        progress(&report);
        let changed = last.as_ref().is_some_and(|l| l.best_move != best_move);
        let took = iteration_start.elapsed();
        let pondered = selectivity == search_selectivity;
        let took = match earlier.depths.get(depth as usize - 1) {
            Some(&then) if pondered => took.max(then),
            _ => took,
        };
        planner.finished(took, changed);
        if pondered && depth as usize == earlier.depths.len() {
            planner.credit(earlier.unfinished);
        }
        // A selective search may have cut the line that refutes a "proven" result.
        let proven = value.abs() > WIN && !selectivity.is_selective();
        last = Some(report);
        if proven {
            break;
        }
    }
    // Every node and every second counts, those of a depth cut short too: the report of
    // the last finished depth is played, but the move cost all the time until now.
    let nodes = search.nodes;
    let stopped = stopper.stopped();
    last.map(|mut report| {
        report.complete = !stopped;
        report.nodes = nodes;
        report.elapsed = start.elapsed();
        report
    })
}

/// One depth of the deepening, with an aspiration window around `guess` widened on failure.
///
/// Also whether the best move holds at this depth. A search the limits cut short returns the
/// best of the root moves it finished; when that move's value beat the window's low end, the
/// move was searched to the end at this depth and beat every move finished before it (the
/// first, last depth's best, is searched first), so it is the depth's best so far, a move
/// worth playing: the time of a depth cut short is not lost. A value at or below the low end
/// is only a bound (the first move failed low and nothing beat it yet): not proven.
fn aspiration<E: Evaluator>(
    search: &mut Midgame<'_, E>,
    position: &Position,
    state: &E::State,
    depth: u32,
    guess: i32,
) -> (i32, u8, bool) {
    let proven = |search: &Midgame<'_, E>, (v, best): (i32, u8), alpha: i32| {
        !search.stopper.stopped() || (best != NO_MOVE && v > alpha)
    };
    if depth < ASPIRATION_MIN_DEPTH || guess.abs() > WIN {
        let (v, best) = search.search(position, state, depth, -INFINITY, INFINITY);
        return (v, best, proven(search, (v, best), -INFINITY));
    }
    let mut delta = ASPIRATION_DELTA;
    let (mut alpha, mut beta) = (guess - delta, guess + delta);
    loop {
        let (v, best) = search.search(position, state, depth, alpha, beta);
        if search.stopper.stopped() {
            return (v, best, proven(search, (v, best), alpha));
        }
        if v <= alpha && alpha > -INFINITY {
            alpha = (v - delta).max(-INFINITY);
        } else if v >= beta && beta < INFINITY {
            beta = (v + delta).min(INFINITY);
        } else {
            return (v, best, true);
        }
        delta *= ASPIRATION_GROWTH;
        if delta > ASPIRATION_MAX_DELTA {
            alpha = -INFINITY;
            beta = INFINITY;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Pattern;
    use crate::search::midgame::tests::{full_width, negamax, random_positions};

    /// A window that misses the value, low or high, by a little or by far, is widened and
    /// searched again until the value falls inside: the answer is the full window's, the
    /// plain negamax value, whatever the guess.
    #[test]
    fn a_failed_aspiration_window_re_searches_to_the_full_window_value() {
        let (positions, _) = random_positions(6, 23);
        let eval = Pattern;
        let (mut failed_low, mut failed_high) = (0, 0);
        for (i, position) in positions.iter().enumerate().step_by(7) {
            let depth = ASPIRATION_MIN_DEPTH + (i as u32 % 2);
            let exact = negamax(&eval, position, depth);
            if exact.abs() > WIN {
                continue;
            }
            for miss in [-5000, -1500, -450, -150, 0, 60, 150, 450, 1500, 5000] {
                // The guess is `miss` away from the value: above it, the first window fails low.
                let guess = exact + miss;
                let tt = TranspositionTable::new(1);
                let mut stopper = Stopper::new(&Limits::none());
                let mut search = full_width(&tt, &eval, &mut stopper);
                let state = eval.state(position);
                let (value, _, _) = aspiration(&mut search, position, &state, depth, guess);
                assert_eq!(value, exact, "{position:?} depth {depth}, guess {guess}");
                if miss > ASPIRATION_DELTA {
                    failed_low += 1;
                } else if miss < -ASPIRATION_DELTA {
                    failed_high += 1;
                }
            }
        }
        assert!(
            failed_low > 20 && failed_high > 20,
            "{failed_low} {failed_high}"
        );
    }
    /// A depth the limits cut short proves its best move only when that move was searched to
    /// the end: then its value is the move's full-depth value, and the root's value is at
    /// least that. Both kinds of cut (proven and not) must occur for the test to mean much.
    #[test]
    fn a_depth_cut_short_proves_only_a_move_searched_to_the_end() {
        let (positions, _) = random_positions(6, 37);
        let eval = Pattern;
        let (mut proven_cuts, mut unproven_cuts) = (0, 0);
        for position in positions
            .iter()
            .filter(|p| (24..=44).contains(&p.empty_count()))
        {
            let depth = 6;
            // The full-width search equals negamax (tested in `midgame`), and is faster.
            let full = |p: &Position, depth| {
                let tt = TranspositionTable::new(1);
                let mut stopper = Stopper::new(&Limits::none());
                let state = eval.state(p);
                let mut search = full_width(&tt, &eval, &mut stopper);
                search.search(p, &state, depth, -INFINITY, INFINITY).0
            };
            let exact = full(position, depth);
            if exact.abs() > WIN {
                continue;
            }
            let tt = TranspositionTable::new(1);
            // Stopped from the start: the search polls, and stops, after its first nodes.
            let limits = Limits::none();
            limits
                .stop
                .store(true, std::sync::atomic::Ordering::Relaxed);
            let mut stopper = Stopper::new(&limits);
            let mut search = full_width(&tt, &eval, &mut stopper);
            let state = eval.state(position);
            let (value, best, proven) = aspiration(&mut search, position, &state, depth, exact);
            if !search.stopper.stopped() {
                continue;
            }
            if !proven {
                unproven_cuts += 1;
                continue;
            }
            proven_cuts += 1;
            let child = position.play(Move::Play(Square::new(usize::from(best)).unwrap()));
            let child = child.expect("a proven move is legal");
            assert_eq!(value, -full(&child, depth - 1), "{position:?}");
            assert!(
                value <= exact,
                "{position:?}: {value} above the root's {exact}"
            );
        }
        assert!(
            proven_cuts > 5 && unproven_cuts > 5,
            "{proven_cuts} proven, {unproven_cuts} not"
        );
    }

    /// On a ponder hit the table gives back the depths the ponder finished at once. Told the
    /// time they took then, the planner does not start a depth that cannot fit; told nothing,
    /// it goes on. (The times are made up, so that no timing decides the test.)
    #[test]
    fn a_ponder_hit_is_planned_with_the_pondered_depths_times() {
        let (positions, _) = random_positions(1, 5);
        let position = positions[20];
        let tt = TranspositionTable::new(1);
        let depth = |depths: &[Duration], unfinished: Duration| {
            let earlier = Earlier {
                depths: depths.to_vec(),
                unfinished,
            };
            let task = Task {
                tt: &tt,
                position: &position,
                max_depth: 6,
                selectivity: Selectivity::FULL,
                busy: None,
                earlier: &earlier,
            };
            let limits = Limits::time(Duration::from_secs(60));
            let report = deepen(task, &Pattern, &limits, &mut |_| {});
            report.expect("a depth ran").depth
        };
        let none = Duration::ZERO;
        assert_eq!(depth(&[], none), 6);
        // Depth 2 took 50 s when pondered: depth 3 (growth 8 at most: 400 s) cannot fit in
        // the minute, even with 200 s of it searched.
        let pondered = [Duration::from_secs(5), Duration::from_secs(50)];
        assert_eq!(depth(&pondered, none), 2);
        assert_eq!(depth(&pondered, Duration::from_secs(200)), 2);
        // With 350 s of it searched, the rest fits.
        assert_eq!(depth(&pondered, Duration::from_secs(350)), 6);
        // Pondered depths that were cheap say nothing against going on.
        assert_eq!(depth(&[Duration::from_micros(1); 4], none), 6);
    }
}
