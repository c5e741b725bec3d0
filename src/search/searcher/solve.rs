//! The endgame solve at the root: the quick search whose move stands if the solve is stopped,
//! the searched guess that centres the solver's first window, the solve on every thread, and
//! the principal variation, proven move by move near the end.

use super::{FALLBACK_MAX_DEPTH, Searcher};
use crate::board::{Move, Position, Square};
use crate::eval::EvaluatorKind;
use crate::search::endgame::Endgame;
use crate::search::levels::{EndgameMode, PhaseLevel};
use crate::search::limits::{Limits, Stopper};
use crate::search::report::{SearchReport, Value, principal_variation};
use crate::search::{threads, tt};
use web_time::Instant;

/// At and below this many empties, a solve's principal variation is proven move by move.
const PV_PROOF_EMPTIES: u32 = 14;
/// From this many empties on, an exact solve starts from a searched guess of its score.
const GUESS_MIN_EMPTIES: u32 = 16;
/// The guess searches this deep at [`GUESS_MIN_EMPTIES`], one ply deeper for each further
/// empty, up to [`GUESS_MAX_DEPTH`]...
const GUESS_MIN_DEPTH: u32 = 2;
/// ... so that the guess stays cheap beside the solve it steers.
const GUESS_MAX_DEPTH: u32 = 8;

impl Searcher {
    /// Solves the endgame of `position` in `mode`. A quick search with `fallback` (at most
    /// `FALLBACK_MAX_DEPTH` plies) gives a move first, which stands if `limits` stop the solve.
    pub fn solve(
        &mut self,
        position: &Position,
        mode: EndgameMode,
        fallback: PhaseLevel,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        let quick = PhaseLevel {
            depth: fallback.depth.min(FALLBACK_MAX_DEPTH),
            ..fallback
        };
        self.solve_after(position, mode, quick, limits, progress)
    }

    /// Solves the endgame of `position` in `mode` after a search with `quick`, whose move
    /// stands if `limits` stop the solve.
    pub(super) fn solve_after(
        &mut self,
        position: &Position,
        mode: EndgameMode,
        quick: PhaseLevel,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        let mut inner = |s: &mut Searcher, p: &Position, prog: &mut dyn FnMut(&SearchReport)| {
            s.solve_after(p, mode, quick, limits, prog)
        };
        if let Some(r) = self.no_move_report(position, &mut inner, progress) {
            return r;
        }
        let start = Instant::now();
        let backup = self.search(position, quick, limits, progress);
        let (guess, guess_nodes) = self.score_guess(position, limits);
        let (p, o, n) = (
            position.player(),
            position.opponent(),
            position.empty_count(),
        );
        let (tt, busy) = (&self.tt, (self.threads > 1).then_some(&self.busy));
        let solve = |limits: &Limits| {
            let mut stopper = Stopper::new(limits);
            let mut solver = Endgame::new(tt, &mut stopper, busy);
            let (mut score, mut best) = match mode {
                EndgameMode::Exact => solver.solve_selective(p, o, guess, n, false),
                EndgameMode::Wld | EndgameMode::WinElseLeast => {
                    solver.solve_selective(p, o, guess, n, true)
                }
            };
            let mut value = match mode {
                EndgameMode::Exact => Value::Exact(score),
                _ => Value::Wld(score.signum()),
            };
            if mode == EndgameMode::WinElseLeast && score < 0 && !solver.stopper.stopped() {
                (score, best) = solver.solve_exact(p, o, score, n);
                value = Value::Exact(score);
            }
            let mut stats = std::mem::take(&mut solver.stats);
            stats.nodes = solver.nodes;
            (value, best, stats, stopper.stopped())
        };
        let ((value, best, mut stats, stopped), helper_stats) =
            threads::with_helpers(self.threads, limits, || solve(limits), |l| solve(l).2);
        stats += helper_stats;
        if log::log_enabled!(log::Level::Debug) {
            stats.lines().iter().for_each(|line| log::debug!("{line}"));
        }
        let nodes = stats.nodes + backup.nodes + guess_nodes;
        if stopped {
            let mut r = backup;
            r.nodes = nodes;
            r.elapsed = start.elapsed();
            r.complete = false;
            return r;
        }
        let best_move = Square::new(best as usize)
            .map(Move::Play)
            .filter(|&m| position.is_legal(m))
            .unwrap_or(backup.best_move);
        let report = SearchReport {
            depth: n,
            pv: match value {
                // Without a clock the line can be proven to its end; with one, the table's.
                Value::Exact(v) if limits.hard_deadline.is_none() => {
                    self.exact_principal_variation(position, best_move, v, limits)
                }
                _ => {
                    principal_variation(&self.tt, position, tt::KIND_ENDGAME, best_move, n as usize)
                }
            },
            nodes,
            elapsed: start.elapsed(),
            ..SearchReport::immediate(best_move, value)
        };
        progress(&report);
        report
    }

    /// A guess at the exact score of `position` (even, in discs) and the nodes it took: a
    /// shallow search with the solver's own evaluator (`pattern-full`), which estimates disc
    /// differences. (From `pattern`, once it learnt mobility, FFO #40-#59 took 11.91 G nodes;
    /// from `pattern-full`, 11.59 G.) The exact
    /// solve starts its windows there; a guess near the truth saves a third of a hard solve,
    /// while a search far from the end is not worth its cost.
    fn score_guess(&mut self, position: &Position, limits: &Limits) -> (i32, u64) {
        let n = position.empty_count();
        if n < GUESS_MIN_EMPTIES {
            return (0, 0);
        }
        let level = PhaseLevel {
            depth: (n - GUESS_MIN_EMPTIES + GUESS_MIN_DEPTH).min(GUESS_MAX_DEPTH),
            eval: EvaluatorKind::PatternFull,
        };
        let r = self.search(position, level, limits, &mut |_| {});
        let discs = r.value.discs().clamp(-64.0, 64.0);
        ((discs / 2.0).round() as i32 * 2, r.nodes)
    }

    /// The principal variation of a solved `position` whose exact value is `value` when
    /// `first` is played, to the end of the game: each ply the table's best move while more
    /// than [`PV_PROOF_EMPTIES`] empties are left, then a move whose solved value keeps the
    /// score (the table holds no entries near the end, and the line should be right there).
    /// A stop (a ponder ended by the opponent's move, which has no deadline but must give way
    /// at once) cuts the line where it is: each proof is a solve of up to 14 empties, and a
    /// whole line of them took tens of milliseconds that the next move's clock paid.
    fn exact_principal_variation(
        &mut self,
        position: &Position,
        first: Move,
        value: i32,
        limits: &Limits,
    ) -> Vec<Move> {
        let mut pv = vec![first];
        let Ok(mut at) = position.play(first) else {
            return pv;
        };
        // The value for the side to move at `at`.
        let mut expected = -value;
        while !at.is_game_over() && !limits.stop_requested() {
            if at.must_pass() {
                pv.push(Move::Pass);
                at = at.pass();
                expected = -expected;
                continue;
            }
            let table_move = self
                .tt
                .probe(at.player(), at.opponent(), tt::KIND_ENDGAME)
                .and_then(|e| Square::new(e.best as usize))
                .map(Move::Play)
                .filter(|&m| at.is_legal(m));
            let next = if at.empty_count() > PV_PROOF_EMPTIES {
                table_move
            } else {
                let all = at.legal_squares().into_iter().map(Move::Play);
                table_move.into_iter().chain(all).find(|&m| {
                    at.play(m).is_ok_and(|child| {
                        let proof =
                            self.solve_window_within(&child, -expected - 1, -expected + 1, limits);
                        proof.is_some_and(|(v, _)| -v == expected)
                    })
                })
            };
            let Some(mv) = next else { break };
            pv.push(mv);
            let Ok(child) = at.play(mv) else { break };
            at = child;
            expected = -expected;
        }
        pv
    }

    /// The exact value of `position` in the window `alpha..beta` (fail-soft), and the number of
    /// nodes searched; no move choice, no limits. For tests and tools.
    pub fn solve_window(&mut self, position: &Position, alpha: i32, beta: i32) -> (i32, u64) {
        self.solve_window_within(position, alpha, beta, &Limits::none())
            .expect("no limit stops it")
    }

    /// [`Searcher::solve_window`] within `limits`: `None` when they stopped it.
    fn solve_window_within(
        &mut self,
        position: &Position,
        alpha: i32,
        beta: i32,
        limits: &Limits,
    ) -> Option<(i32, u64)> {
        let mut stopper = Stopper::new(limits);
        let mut solver = Endgame::new(&self.tt, &mut stopper, None);
        let n = position.empty_count();
        let (v, _) = solver.pvs(position.player(), position.opponent(), alpha, beta, n);
        let nodes = solver.nodes;
        (!stopper.stopped()).then_some((v, nodes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    /// A position 12 empties from the end, reached by playing each side's first legal move.
    fn twelve_empties() -> Position {
        let mut at = Position::start();
        while at.empty_count() > 12 {
            at = if at.must_pass() {
                at.pass()
            } else {
                at.play(Move::Play(at.legal_squares()[0])).expect("legal")
            };
        }
        at
    }

    /// The proven line ends the game with the solved score, for the side to move; a raised
    /// stop (a ponder the opponent's move ended) cuts it at once, after the first move.
    #[test]
    fn the_proven_line_reaches_the_solved_score_and_a_stop_cuts_it() {
        let position = twelve_empties();
        let mut searcher = Searcher::new(16, None);
        let fallback = PhaseLevel {
            depth: 4,
            eval: EvaluatorKind::Pattern,
        };
        let report = searcher.solve(
            &position,
            EndgameMode::Exact,
            fallback,
            &Limits::none(),
            &mut |_| {},
        );
        let Value::Exact(score) = report.value else {
            panic!("no exact value: {:?}", report.value);
        };
        let line =
            searcher.exact_principal_variation(&position, report.best_move, score, &Limits::none());
        let mut at = position;
        for &mv in &line {
            at = if mv == Move::Pass {
                at.pass()
            } else {
                at.play(mv).expect("a legal line")
            };
        }
        assert!(at.is_game_over(), "the line stops short: {line:?}");
        let sign = if at.side_to_move() == position.side_to_move() {
            1
        } else {
            -1
        };
        assert_eq!(sign * at.final_score(), score, "{line:?}");

        let stopped = Limits::none();
        stopped.stop.store(true, Ordering::Relaxed);
        let cut = searcher.exact_principal_variation(&position, report.best_move, score, &stopped);
        assert_eq!(cut, vec![report.best_move]);
    }
}
