//! A small table of its own for the solver's nodes just above the shallow search (6 to 8
//! empties), where the shared table costs more than it saves.
//!
//! Transpositions are as common near the leaves as anywhere: two move orders that reach the
//! same position a few plies from the end are searched twice without a table. But these nodes
//! are many (5-7% of a solve's nodes are at 7 to 10 empties, most of the rest below them),
//! and each probe of the shared table, tens of megabytes, is a miss in the processor's
//! caches: with the shared table from 7 empties on, FFO #40-#49 took 10% fewer nodes and 9%
//! more time. The transpositions near the leaves are close in time too (both paths lie in one
//! small subtree), so a table of a few hundred kilobytes, which stays in the cache, finds most
//! of them. It belongs to one thread and one solve, is direct-mapped and always replaces; its
//! results are exact in every pre-search, since nothing is cut this near the end.

use crate::search::tt::prefetch_line;

/// One position's bounds and best move. Aligned to 32 bytes, so that no slot straddles two
/// cache lines and one prefetch brings a whole slot.
#[derive(Clone, Copy, Default)]
#[repr(align(32))]
struct Slot {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
    best: u8,
}

/// The table: 2^[`LEAF_TABLE_BITS`] slots, indexed by a hash of the position.
pub(super) struct LeafTable {
    slots: Vec<Slot>,
}

/// The table's size in slots, as a power of two (32 bytes a slot: 512 KiB). FFO #40-#49:
/// 682.6 M nodes; with 2^16 slots 679.9 M, about 4% slower (FFO #20-#39, paired runs).
const LEAF_TABLE_BITS: u32 = 14;

/// Bounds and best move for a position, as stored.
pub(super) struct LeafEntry {
    pub lower: i32,
    pub upper: i32,
    pub best: u8,
}

impl LeafTable {
    pub(super) fn new() -> LeafTable {
        LeafTable {
            slots: vec![Slot::default(); 1 << LEAF_TABLE_BITS],
        }
    }

    #[inline]
    fn index(player: u64, opponent: u64) -> usize {
        let h = player.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ opponent.rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (h >> (64 - LEAF_TABLE_BITS)) as usize
    }

    /// Asks the processor to bring this position's slot into the cache (a node orders its
    /// moves before it searches them, time enough for the slot to arrive).
    #[inline]
    pub(super) fn prefetch(&self, player: u64, opponent: u64) {
        prefetch_line(&self.slots[Self::index(player, opponent)]);
    }

    /// The entry for the position, if it is there. An empty slot (both boards 0) matches no
    /// position with discs.
    #[inline]
    pub(super) fn probe(&self, player: u64, opponent: u64) -> Option<LeafEntry> {
        let slot = &self.slots[Self::index(player, opponent)];
        (slot.player == player && slot.opponent == opponent).then_some(LeafEntry {
            lower: i32::from(slot.lower),
            upper: i32::from(slot.upper),
            best: slot.best,
        })
    }

    /// Stores the bounds `lower..=upper` and best move of a position (scores -64..=64). An
    /// entry for the same position keeps the tighter of each bound; any other is replaced.
    #[inline]
    pub(super) fn store(&mut self, player: u64, opponent: u64, lower: i32, upper: i32, best: u8) {
        let slot = &mut self.slots[Self::index(player, opponent)];
        let mut new = Slot {
            player,
            opponent,
            lower: lower as i8,
            upper: upper as i8,
            best,
        };
        if slot.player == player && slot.opponent == opponent {
            // Bounds of exact searches never cross; should they, the new ones stand alone.
            let (lower, upper) = (new.lower.max(slot.lower), new.upper.min(slot.upper));
            if lower <= upper {
                if slot.lower > new.lower {
                    new.best = slot.best;
                }
                (new.lower, new.upper) = (lower, upper);
            }
        }
        *slot = new;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two positions that fall in the same slot, and a third in another.
    fn colliding() -> ((u64, u64), (u64, u64)) {
        let first = (0x0000_0010_0800_0000u64, 0x0000_0008_1000_0000u64);
        let slot = LeafTable::index(first.0, first.1);
        let second = (1u64..)
            .map(|k| (first.0 ^ (k << 40), first.1))
            .find(|&(p, o)| p & o == 0 && LeafTable::index(p, o) == slot)
            .expect("some position shares the slot");
        (first, second)
    }

    #[test]
    fn bounds_of_one_position_tighten_and_another_replaces_them() {
        let mut table = LeafTable::new();
        let ((p, o), (q, r)) = colliding();
        assert!(table.probe(p, o).is_none(), "an empty table knows nothing");
        table.store(p, o, 4, 64, 19);
        table.store(p, o, -64, 10, 3);
        let e = table.probe(p, o).expect("stored");
        assert_eq!(
            (e.lower, e.upper, e.best),
            (4, 10, 19),
            "the move that proved 4 stays"
        );
        table.store(p, o, 6, 64, 27);
        let e = table.probe(p, o).expect("stored");
        assert_eq!((e.lower, e.upper, e.best), (6, 10, 27));
        table.store(q, r, -64, -8, 0);
        assert!(
            table.probe(p, o).is_none(),
            "the slot's new position replaced it"
        );
        let e = table.probe(q, r).expect("stored");
        assert_eq!((e.lower, e.upper), (-64, -8));
    }
}
