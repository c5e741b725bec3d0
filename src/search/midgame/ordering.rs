//! The order a node searches its moves in, past the table move: a one-ply evaluation far
//! from the leaves, the opponent's replies near them; the list lives on the stack.

use super::Midgame;
use super::SearchLevel;
use crate::board::{Bits, CORNERS, Position, legal_moves_on};
use crate::eval::{EVAL_LIMIT, Evaluator};
use crate::search::tt::TranspositionTable;

/// From this many plies left on, children are sorted by their static evaluation: the subtree
/// below is big enough to repay an evaluation per child. Nearer the leaves, the opponent's
/// mobility is cheaper and orders as well (measured on `bench --depth 13 --eval pattern`:
/// 104.6 M nodes from 5 plies on, 116.5 M from 3).
const EVAL_ORDER_DEPTH: u32 = 5;
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
    #[inline(always)]
    pub(super) fn ordered_moves<L: SearchLevel>(
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
        for sq in Bits(moves) {
            let bit = 1u64 << sq;
            let flips = crate::board::flips(p, o, sq);
            let key = if depth >= EVAL_ORDER_DEPTH {
                let child = position.play_flips(bit, flips);
                tt.prefetch(child.player(), child.opponent());
                // Only the child's score is wanted: the leaf update, not the full state.
                eval.leaf_score(state, &child, sq, flips)
                    .clamp(-EVAL_LIMIT, EVAL_LIMIT)
            } else {
                // SAFETY: `ordered_moves::<L>` is only called from `search_body::<L>`, which
                // runs inside `L::search`'s copy: the CPU runs `L`.
                let replies = unsafe { legal_moves_on(L::AVX2, o & !flips, p | flips | bit) };
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
}
