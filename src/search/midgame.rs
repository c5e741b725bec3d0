//! Depth-limited principal-variation search with an evaluator and the transposition table, and
//! the score scale it shares with the reports: evaluations below [`WIN`], finished games above.

use super::limits::Stopper;
use super::tt::{KIND_ENDGAME, NO_MOVE, TranspositionTable};
use crate::board::{Bits, CORNERS, Position, legal_moves};
use crate::eval::{EVAL_LIMIT, Evaluator, EvaluatorKind};

/// Scores beyond this are finished games: `WIN + 100 x discs` (negated for losses).
pub const WIN: i32 = 40_000;
/// Wider than any score.
pub const INFINITY: i32 = 100_000;

/// The score of a finished game for the side to move, above every evaluation.
#[inline]
pub fn terminal_score(position: &Position) -> i32 {
    let s = position.final_score();
    match s.signum() {
        1 => WIN + 100 * s,
        -1 => -WIN + 100 * s,
        _ => 0,
    }
}

/// From this many plies left on, children are sorted by their static evaluation: the subtree
/// below is big enough to repay an evaluation per child. Nearer the leaves, mobility is cheaper.
const EVAL_ORDER_DEPTH: u32 = 3;
/// The mobility sort key: this much per reply left to the opponent (corner replies twice)...
const REPLY_WEIGHT: i32 = 16;
/// ... less this much for taking a corner (worth two replies).
const CORNER_BONUS: i32 = 32;

/// The midgame search's state for one search.
pub(crate) struct Midgame<'a, E: Evaluator> {
    pub tt: &'a mut TranspositionTable,
    pub eval: &'a E,
    pub nodes: u64,
    pub stopper: &'a mut Stopper,
}

impl<E: Evaluator> Midgame<'_, E> {
    /// The table kind of this search's entries: the evaluator's ID. Compiling the search for
    /// an evaluator whose ID is the endgame's, or for the run-time [`EvaluatorKind`], fails.
    pub const KIND: u8 = {
        assert!(E::ID != KIND_ENDGAME, "the endgame's table kind");
        assert!(
            E::ID != <EvaluatorKind as Evaluator>::ID,
            "search with a concrete evaluator (EvaluatorKind::dispatch)"
        );
        E::ID
    };

    #[inline]
    fn evaluate(&self, position: &Position) -> i32 {
        self.eval.evaluate(position).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// Children in search order: the table move, then by a one-ply evaluation when deep enough
    /// (lowest first: it is the opponent's score), else by the opponent's mobility (corners
    /// count double) with corners early.
    fn ordered_children(
        &self,
        position: &Position,
        moves: u64,
        tt_move: u8,
        depth: u32,
    ) -> Vec<(u8, Position, i32)> {
        let mut children: Vec<(u8, Position, i32)> = Bits(moves)
            .map(|sq| {
                let bit = 1u64 << sq;
                let child = position.play_flips(
                    bit,
                    crate::board::flips(position.player(), position.opponent(), sq),
                );
                let key = if sq as u8 == tt_move {
                    i32::MIN
                } else if depth >= EVAL_ORDER_DEPTH {
                    self.evaluate(&child)
                } else {
                    let replies = child.legal_moves();
                    let mut key = REPLY_WEIGHT
                        * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
                    if bit & CORNERS != 0 {
                        key -= CORNER_BONUS;
                    }
                    key
                };
                (sq as u8, child, key)
            })
            .collect();
        children.sort_by_key(|c| c.2);
        children
    }

    /// The value of `position` searched `depth` plies deep in the window `alpha..beta`
    /// (fail-soft), and its best move (`NO_MOVE` when it has none). A pass costs no depth.
    pub fn search(
        &mut self,
        position: &Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, u8) {
        self.nodes += 1;
        if self.stopper.poll(self.nodes) {
            return (0, NO_MOVE);
        }
        let moves = position.legal_moves();
        if moves == 0 {
            if legal_moves(position.opponent(), position.player()) == 0 {
                return (terminal_score(position), NO_MOVE);
            }
            if depth == 0 {
                return (self.evaluate(position), NO_MOVE);
            }
            return (
                -self.search(&position.pass(), depth, -beta, -alpha).0,
                NO_MOVE,
            );
        }
        if depth == 0 {
            return (self.evaluate(position), NO_MOVE);
        }
        let (p, o) = (position.player(), position.opponent());
        let mut tt_move = NO_MOVE;
        if let Some(e) = self.tt.probe(p, o, Self::KIND) {
            if u32::from(e.depth) >= depth {
                if e.lower >= beta || e.lower == e.upper {
                    return (e.lower, e.best);
                }
                if e.upper <= alpha {
                    return (e.upper, e.best);
                }
            }
            tt_move = e.best;
        }
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        for (i, (sq, child, _)) in self
            .ordered_children(position, moves, tt_move, depth)
            .into_iter()
            .enumerate()
        {
            let v = if i == 0 {
                -self.search(&child, depth - 1, -beta, -alpha).0
            } else {
                let mut v = -self.search(&child, depth - 1, -alpha - 1, -alpha).0;
                if v > alpha && v < beta {
                    v = -self.search(&child, depth - 1, -beta, -v).0;
                }
                v
            };
            if self.stopper.stopped() {
                return (best, best_move);
            }
            if v > best {
                best = v;
                best_move = sq;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let lower = if best > original_alpha {
            best
        } else {
            -INFINITY
        };
        let upper = if best < beta { best } else { INFINITY };
        self.tt.store(
            (p, o),
            Self::KIND,
            depth.min(255) as u8,
            lower,
            upper,
            best_move,
        );
        (best, best_move)
    }
}
