//! The order a node searches its moves in, past the table move: far from the leaves a
//! two-ply search of each, nearer a one-ply evaluation with the opponent's mobility, near the
//! leaves the opponent's replies alone; the list lives on the stack.

use super::{INFINITY, Midgame};
use crate::board::{Bits, CORNERS, Position, legal_moves};
use crate::eval::{EVAL_LIMIT, Evaluator};
use crate::search::tt::TranspositionTable;

/// From this many plies left on, children are sorted by their static evaluation: the subtree
/// below is big enough to repay an evaluation per child. Nearer the leaves, the opponent's
/// mobility is cheaper and orders as well (measured on `bench --depth 13 --eval pattern`:
/// 104.6 M nodes from 5 plies on, 116.5 M from 3).
const EVAL_ORDER_DEPTH: u32 = 5;
/// With the evaluation, each reply left to the opponent (corners twice) counts this many
/// hundredths of a disc against a move (converted to the evaluator's units): the evaluation
/// sees mobility only through its patterns. Measured on `bench --eval pattern --selectivity
/// 95`, 10 positions: with the shallow search below, depth 14 22.7 M nodes against 23.5 M
/// without (100: 22.2 M; 200, alone: 22.9 M), depth 16 109.9 M against 110.8 M with 100.
const MOBILITY_WEIGHT: i32 = 50;
/// From this many plies left on, the moves after the table move are sorted by a search of
/// [`SHALLOW_ORDER_PLIES`] of each (its nodes count): deep in the tree the order decides
/// most of a subtree's cost, and a two-ply value orders better than one evaluation (same
/// bench, depth 14: 23.5 M nodes against 24.6 M; from 8 plies on 27.1 M, from 12 22.7 M;
/// four plies from 12 on 25.2 M).
pub(super) const SHALLOW_ORDER_DEPTH: u32 = 10;
const SHALLOW_ORDER_PLIES: u32 = 2;
/// The mobility sort key: this much per reply left to the opponent (corner replies twice)...
const REPLY_WEIGHT: i32 = 16;
/// ... less this much for taking a corner (worth two replies).
const CORNER_BONUS: i32 = 32;
/// More legal moves than any Othello position has.
const MAX_MOVES: usize = 36;

/// A node's moves on the stack: square, flips and sort key, picked best first.
pub(super) struct MoveList {
    moves: [(u8, u64, i32); MAX_MOVES],
    len: usize,
}

impl MoveList {
    /// Takes out the move with the lowest key (the best for the side to move), if any.
    #[inline]
    pub(super) fn next_best(&mut self) -> Option<(u8, u64)> {
        if self.len == 0 {
            return None;
        }
        let mut best = 0;
        for i in 1..self.len {
            if self.moves[i].2 < self.moves[best].2 {
                best = i;
            }
        }
        let (sq, flips, _) = self.moves[best];
        self.len -= 1;
        self.moves[best] = self.moves[self.len];
        Some((sq, flips))
    }
}

impl<E: Evaluator> Midgame<'_, E> {
    /// The moves of `moves` in search order by their keys: by a one-ply evaluation when deep
    /// enough (lowest first: it is the opponent's score), else by the opponent's mobility
    /// (corners count double) with corners early. The table move is not among them: it is
    /// searched before the list is made (see [`Midgame::search`]).
    pub(super) fn ordered_moves(
        tt: &TranspositionTable,
        eval: &E,
        position: &Position,
        state: &E::State,
        moves: u64,
        depth: u32,
    ) -> MoveList {
        let mut list = MoveList {
            moves: [(0, 0, 0); MAX_MOVES],
            len: 0,
        };
        let (p, o) = (position.player(), position.opponent());
        let mobility_weight = (f64::from(MOBILITY_WEIGHT) / eval.centidiscs_per_unit()) as i32;
        for sq in Bits(moves) {
            let bit = 1u64 << sq;
            let flips = crate::board::flips(p, o, sq);
            let key = if depth >= EVAL_ORDER_DEPTH {
                let child = position.play_flips(bit, flips);
                tt.prefetch(child.player(), child.opponent());
                // Only the child's score is wanted: the leaf update, not the full state.
                let score = eval
                    .leaf_score(state, &child, sq, flips)
                    .clamp(-EVAL_LIMIT, EVAL_LIMIT);
                let replies = legal_moves(child.player(), child.opponent());
                score
                    + mobility_weight
                        * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32
            } else {
                let replies = legal_moves(o & !flips, p | flips | bit);
                let mut key =
                    REPLY_WEIGHT * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
                if bit & CORNERS != 0 {
                    key -= CORNER_BONUS;
                }
                key
            };
            list.moves[list.len] = (sq as u8, flips, key);
            list.len += 1;
        }
        list
    }

    /// `list`, the moves of `position` (whose state is `state`), sorted again by a search of
    /// [`SHALLOW_ORDER_PLIES`] of each: the child's value, lowest first.
    pub(super) fn sort_by_shallow_search(
        &mut self,
        list: &mut MoveList,
        position: &Position,
        state: &E::State,
    ) {
        for entry in &mut list.moves[..list.len] {
            let (sq, flips, _) = *entry;
            let child = position.play_flips(1u64 << sq, flips);
            let child_state = self.eval.play(state, usize::from(sq), flips);
            entry.2 = self
                .search(
                    &child,
                    &child_state,
                    SHALLOW_ORDER_PLIES,
                    -INFINITY,
                    INFINITY,
                )
                .0;
        }
    }
}
