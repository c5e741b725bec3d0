//! The cut-offs a null-window node tries before its moves: a child's table bound that
//! already answers it, and the opponent's stable discs.

use super::{Endgame, MAX_MOVES};
use crate::board::Bits;
use crate::search::stability::stable_discs;
use crate::search::tt::KIND_ENDGAME;

impl Endgame<'_> {
    /// Enhanced transposition cut-off: a child whose stored upper bound already proves the
    /// value above `alpha` ends the node before any move is searched. Each move's flips are
    /// left in `flips_by_square` for the node's own moves. Always inlined, so that each
    /// instruction set's copy of the null-window search compiles its flips.
    #[inline(always)]
    pub(super) fn transposition_cutoff(
        &self,
        (player, opponent): (u64, u64),
        moves: u64,
        alpha: i32,
        n: u32,
        flips: impl Fn(u64, u64, usize) -> u64,
        flips_by_square: &mut [u64; 64],
    ) -> Option<i32> {
        let child_depth = self.table_depth(n - 1);
        // All the children's buckets are asked for first, so that their memory reads overlap.
        let mut children = [(0u64, 0u64); MAX_MOVES];
        let mut count = 0;
        for sq in Bits(moves).take(MAX_MOVES) {
            let f = flips(player, opponent, sq);
            flips_by_square[sq] = f;
            let child = (opponent & !f, player | f | (1u64 << sq));
            self.tt.prefetch(child.0, child.1);
            children[count] = child;
            count += 1;
        }
        children[..count].iter().find_map(|&(np, no)| {
            self.tt
                .probe(np, no, KIND_ENDGAME)
                .filter(|e| e.depth >= child_depth && -e.upper > alpha)
                .map(|e| -e.upper)
        })
    }

    /// Upper bound from the opponent's stable discs, when it can cut below `alpha`. Always
    /// inlined, as [`Endgame::transposition_cutoff`].
    #[inline(always)]
    pub(super) fn stability_cutoff(&self, player: u64, opponent: u64, alpha: i32) -> Option<i32> {
        // The opponent keeps at least its stable discs; only worth computing when it has enough
        // discs for the bound to reach alpha.
        if 64 - 2 * (opponent.count_ones() as i32) > alpha {
            return None;
        }
        let bound = 64 - 2 * stable_discs(opponent, player).count_ones() as i32;
        (bound <= alpha).then_some(bound)
    }
}
