//! The last ply: each child a leaf, scored as a finished game or evaluated.

use super::Midgame;
use crate::board::{Bits, Position};
use crate::eval::{EVAL_LIMIT, Evaluator};
use crate::search::score::{INFINITY, terminal_score};
use crate::search::tt::NO_MOVE;

impl<E: Evaluator> Midgame<'_, E> {
    /// The value of the leaf `child`, reached by the side to move of a position whose state
    /// is `state` playing on `square` and turning `flips`: the final score of a finished game
    /// (a full board or a side without discs; the rare game where both sides are blocked
    /// with squares left is evaluated), else the evaluation.
    #[inline(always)]
    fn leaf(&self, child: &Position, state: &E::State, square: usize, flips: u64) -> i32 {
        if child.empty() == 0 || child.player() == 0 {
            return terminal_score(child);
        }
        self.eval
            .leaf_score(state, child, square, flips)
            .clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// A node with one ply left: each child is a leaf, searched in board order with no table
    /// and no sorting (they would cost more than the leaves), until one refutes `beta`.
    #[inline(always)]
    pub(super) fn last_ply(
        &mut self,
        position: &Position,
        state: &E::State,
        moves: u64,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, u8) {
        let (p, o) = (position.player(), position.opponent());
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        for sq in Bits(moves) {
            let flips = crate::board::flips(p, o, sq);
            let child = position.play_flips(1u64 << sq, flips);
            self.nodes += 1;
            let v = -self.leaf(&child, state, sq, flips);
            if v > best {
                best = v;
                best_move = sq as u8;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_move)
    }
}
