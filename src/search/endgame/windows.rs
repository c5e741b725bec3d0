//! The solve at the root: the windows around the guess, the pre-searches at rising
//! selectivity before the full-width one, and the win/draw/loss question.

use super::{Endgame, PRESEARCH_EMPTIES, PRESEARCHES, WLD_EXACT_MARGIN};
use crate::board::{Color, Position};
use crate::eval::{EVAL_LIMIT, Evaluator, PatternFull};
use crate::search::limits::Stopper;
use crate::search::midgame::Midgame;
use crate::search::probcut::{self, Selectivity};
use crate::search::tt::{NO_MOVE, TranspositionTable};

impl Endgame<'_> {
    /// The exact value and best move (with `wld`, the value's sign only: a search of the
    /// window -1..1), after pre-searches at rising selectivity from [`PRESEARCH_EMPTIES`]
    /// empties on: each leaves best moves in the table and, when exact, a value to start the
    /// next one's window from, so the full-width search that ends the series finds its window
    /// and its ordering mostly made. `guess` is a quick estimate of the value; with `wld`,
    /// it decides whether the pre-searches look for the value or only its sign (see
    /// [`WLD_EXACT_MARGIN`]).
    pub fn solve_selective(
        &mut self,
        player: u64,
        opponent: u64,
        guess: i32,
        n: u32,
        wld: bool,
    ) -> (i32, u8) {
        let mut guess = guess;
        if n >= PRESEARCH_EMPTIES {
            for selectivity in PRESEARCHES {
                self.selectivity = selectivity;
                let exact = !wld || guess.abs() < WLD_EXACT_MARGIN;
                let (v, _) = self.solve_value_or_sign(player, opponent, exact, guess, n);
                if self.stopper.stopped() {
                    break;
                }
                log::debug!(
                    "{n} empties, pre-search at {selectivity}: {v:+}, {} nodes so far",
                    self.nodes
                );
                if exact {
                    guess = v;
                }
            }
        }
        self.selectivity = Selectivity::FULL;
        self.solve_value_or_sign(player, opponent, !wld, guess, n)
    }

    /// With `exact`, [`Endgame::solve_exact`] from `guess`; else the sign of the value alone
    /// (the window -1..1).
    fn solve_value_or_sign(
        &mut self,
        player: u64,
        opponent: u64,
        exact: bool,
        guess: i32,
        n: u32,
    ) -> (i32, u8) {
        if exact {
            self.solve_exact(player, opponent, guess, n)
        } else {
            self.pvs(player, opponent, -1, 1, n)
        }
    }

    /// A full-width `pattern-full` midgame search sharing this solve's table and stopper, for
    /// the shallow searches that cut (Multi-ProbCut) and order moves; its nodes are added to
    /// the solve's by the caller. Takes the two fields it borrows, so that the caller can
    /// still count its nodes.
    pub(super) fn pattern_search<'s>(
        tt: &'s TranspositionTable,
        stopper: &'s mut Stopper,
    ) -> Midgame<'s, PatternFull> {
        Midgame {
            tt,
            eval: &PatternFull,
            nodes: 0,
            stopper,
            selectivity: Selectivity::FULL,
            probcut: None,
            busy: None,
        }
    }

    /// Multi-ProbCut at a null-window node: `Some(bound)` when a shallow `pattern-full` search
    /// predicts, with the solve's confidence, that the exact value is above `alpha` (then
    /// `alpha + 1`) or at most `alpha` (then `alpha`).
    pub(super) fn probcut(
        &mut self,
        player: u64,
        opponent: u64,
        alpha: i32,
        n: u32,
    ) -> Option<i32> {
        let cut = probcut::endgame_cut(n, alpha, self.selectivity.t());
        let position = Position::from_player_opponent(player, opponent, Color::Black);
        let state = PatternFull.state(&position);
        let mut shallow = Self::pattern_search(self.tt, self.stopper);
        let mut result = None;
        if cut.high <= EVAL_LIMIT {
            let (v, _) = shallow.search(&position, &state, cut.depth, cut.high - 1, cut.high);
            if v >= cut.high {
                result = Some(alpha + 1);
            }
        }
        if result.is_none() && cut.low >= -EVAL_LIMIT {
            let (v, _) = shallow.search(&position, &state, cut.depth, cut.low, cut.low + 1);
            if v <= cut.low {
                result = Some(alpha);
            }
        }
        self.nodes += shallow.nodes;
        self.stats.probcut_nodes += shallow.nodes;
        result.filter(|_| !self.stopper.stopped())
    }

    /// The exact value and best move, found by windows of width 2: the first around `guess`;
    /// after a failure, the bound it returned is known, and the next window only asks whether
    /// the value lies beyond it (scores of finished games are even, so a window of width 2 is
    /// a null-window test). Each failure thus costs only the proof of its own side, never a
    /// re-proof of the bound just found.
    pub fn solve_exact(&mut self, player: u64, opponent: u64, guess: i32, n: u32) -> (i32, u8) {
        let guess = (guess.clamp(-64, 64) / 2) * 2;
        let (mut alpha, mut beta) = (guess - 1, guess + 1);
        let (mut lower, mut upper) = (-64, 64);
        let mut lower_move = NO_MOVE;
        loop {
            let (v, best) = self.pvs(player, opponent, alpha, beta, n);
            log::debug!(
                "{n} empties, window {alpha:+}..{beta:+} at {}: {v:+}, {} nodes so far",
                self.selectivity,
                self.nodes
            );
            if self.stopper.stopped() || (v > alpha && v < beta) {
                return (v, if best == NO_MOVE { lower_move } else { best });
            }
            if v >= beta {
                // A fail-high's best move reaches its bound: the best move if nothing beats it.
                (lower, lower_move) = (v, best);
                (alpha, beta) = (v, v + 2);
            } else {
                upper = v;
                (alpha, beta) = (v - 2, v);
            }
            if lower >= upper {
                return (lower, lower_move);
            }
        }
    }
}
