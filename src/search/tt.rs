//! The transposition table: bounds on a position's value at a depth, and its best move.
//!
//! Entries hold the whole position, so a hit is never a collision. Buckets have two slots: one
//! kept for the deepest result, one always replaced. Each entry records the search that wrote
//! it (its age): the table is kept from move to move of a game, so that a search finds the
//! previous ones' work, but a deep entry of an earlier search no longer guards its slot
//! against the current search's results.

/// Scores of different searches are kept apart by `kind`: [`KIND_ENDGAME`] for exact disc
/// scores, an evaluator's [`crate::eval::Evaluator::ID`] for its midgame scores.
pub const KIND_ENDGAME: u8 = 0;

/// A stored result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    player: u64,
    opponent: u64,
    /// A lower bound on the value.
    pub lower: i32,
    /// An upper bound on the value.
    pub upper: i32,
    /// The best move found (square index), or [`NO_MOVE`].
    pub best: u8,
    /// The depth searched (the number of empties for endgame results).
    pub depth: u8,
    kind: u8,
    /// The search that wrote it ([`TranspositionTable::new_search`]); 0 for an empty slot.
    age: u8,
}

/// No best move stored.
pub const NO_MOVE: u8 = 64;

/// A fixed-size table of [`Entry`] values.
pub struct TranspositionTable {
    entries: Vec<Entry>,
    mask: usize,
    /// The age of the current search's entries, never 0.
    age: u8,
}

fn hash(player: u64, opponent: u64) -> u64 {
    let h = (player ^ opponent.rotate_left(29).wrapping_mul(0xD6E8_FEB8_6659_FD93))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

/// Asks Linux to back the table's reserved (not yet touched) memory with 2 MiB pages: probes
/// land all over the table, and with 4 KiB pages nearly each one also misses the address
/// translation cache. Only a hint: where the kernel declines, nothing changes.
fn advise_huge_pages(entries: &Vec<Entry>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = entries.as_ptr() as usize;
        let end = start + entries.capacity() * std::mem::size_of::<Entry>();
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if last > first {
            // SAFETY: the range lies inside the vector's own allocation; the advice changes
            // how pages are backed, never their contents.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = entries;
}

impl TranspositionTable {
    /// A table of about `mib` mebibytes (at least 1024 entries), rounded down to a power of two.
    pub fn new(mib: usize) -> TranspositionTable {
        let bytes = mib.saturating_mul(1 << 20);
        let wanted = (bytes / std::mem::size_of::<Entry>()).max(1024);
        let mut size = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        // A size the allocator refuses would abort the process: halve it until it fits.
        let mut entries = Vec::new();
        while entries.try_reserve_exact(size).is_err() && size > 1024 {
            size /= 2;
            log::warn!("cannot allocate the hash table; trying {size} entries");
        }
        advise_huge_pages(&entries);
        entries.resize(size, Entry::default());
        TranspositionTable {
            entries,
            mask: size - 2,
            age: 1,
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
        self.age = 1;
    }

    /// Starts a new search: entries of earlier ones stay readable, but give way to this one's.
    pub fn new_search(&mut self) {
        self.age = if self.age == u8::MAX { 1 } else { self.age + 1 };
    }

    /// The number of slots.
    pub fn capacity(&self) -> usize {
        self.entries.len()
    }

    /// Asks the processor to bring this position's bucket into the cache: a probe soon after
    /// then finds it there instead of waiting on memory.
    #[inline]
    pub fn prefetch(&self, player: u64, opponent: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let i = hash(player, opponent) as usize & self.mask;
            let bucket = self.entries[i..].as_ptr().cast::<i8>();
            // SAFETY: a prefetch only hints the cache; the address is inside the table.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (player, opponent);
    }

    /// The stored result for this position and kind, if any.
    #[inline]
    pub fn probe(&self, player: u64, opponent: u64, kind: u8) -> Option<Entry> {
        let i = hash(player, opponent) as usize & self.mask;
        self.entries[i..i + 2]
            .iter()
            .find(|e| e.age != 0 && e.player == player && e.opponent == opponent && e.kind == kind)
            .copied()
    }

    /// Stores bounds `lower..=upper` at `depth` with the best move `best`.
    #[inline]
    pub fn store(
        &mut self,
        (player, opponent): (u64, u64),
        kind: u8,
        depth: u8,
        lower: i32,
        upper: i32,
        best: u8,
    ) {
        let i = hash(player, opponent) as usize & self.mask;
        let mut entry = Entry {
            player,
            opponent,
            lower,
            upper,
            best,
            depth,
            kind,
            age: self.age,
        };
        let bucket = &mut self.entries[i..i + 2];
        if let Some(slot) = bucket
            .iter_mut()
            .find(|e| e.age != 0 && e.player == player && e.opponent == opponent && e.kind == kind)
        {
            if slot.depth == depth {
                // Same search depth: both bounds hold, so keep the tighter of each. The best
                // move is the one that proved the lower bound kept: a search that failed low
                // names a move that is only no better than its bound, and an exact entry
                // (both bounds equal) must name a move that reaches its value.
                let slot_proves_lower = slot.lower > lower;
                entry.lower = entry.lower.max(slot.lower);
                entry.upper = entry.upper.min(slot.upper);
                if entry.lower > entry.upper {
                    entry.lower = lower;
                    entry.upper = upper;
                } else if slot_proves_lower || best == NO_MOVE {
                    entry.best = slot.best;
                }
            } else if slot.depth > depth {
                // A deeper result stands; it now belongs to this search too.
                slot.age = entry.age;
                return;
            }
            *slot = entry;
        } else if bucket[0].age != entry.age || bucket[0].depth <= depth {
            bucket[1] = bucket[0];
            bucket[0] = entry;
        } else {
            bucket[1] = entry;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_merges_bounds() {
        let mut tt = TranspositionTable::new(1);
        assert!(tt.probe(1, 2, KIND_ENDGAME).is_none());
        tt.store((1, 2), KIND_ENDGAME, 10, -64, 8, 5);
        tt.store((1, 2), KIND_ENDGAME, 10, 4, 64, NO_MOVE);
        let e = tt.probe(1, 2, KIND_ENDGAME).unwrap();
        assert_eq!((e.lower, e.upper, e.best), (4, 8, 5));
        assert!(tt.probe(1, 2, 3).is_none());
        assert!(tt.probe(2, 1, KIND_ENDGAME).is_none());
    }

    #[test]
    fn an_exact_entry_names_the_move_that_proved_its_value() {
        // Move 12 proved the value at least 24; a later search that failed low at 24 names
        // move 30, which is only known to be no better than 24.
        let mut tt = TranspositionTable::new(1);
        tt.store((1, 2), KIND_ENDGAME, 12, 24, 64, 12);
        tt.store((1, 2), KIND_ENDGAME, 12, -64, 24, 30);
        let e = tt.probe(1, 2, KIND_ENDGAME).unwrap();
        assert_eq!((e.lower, e.upper, e.best), (24, 24, 12));
        // In the other order, the later search proves the lower bound with its move.
        let mut tt = TranspositionTable::new(1);
        tt.store((1, 2), KIND_ENDGAME, 12, -64, 24, 30);
        tt.store((1, 2), KIND_ENDGAME, 12, 24, 64, 12);
        let e = tt.probe(1, 2, KIND_ENDGAME).unwrap();
        assert_eq!((e.lower, e.upper, e.best), (24, 24, 12));
    }

    #[test]
    fn a_deep_entry_guards_its_slot_only_in_the_search_that_wrote_it() {
        let mut tt = TranspositionTable::new(0);
        let mask = tt.mask;
        let bucket = |p: u64| hash(p, 0) as usize & mask;
        let same: Vec<u64> = (2..).filter(|&p| bucket(p) == bucket(1)).take(2).collect();
        let (a, b) = (same[0], same[1]);
        tt.store((1, 0), 3, 30, 0, 0, 5);
        // In the same search, shallower results of other positions take the other slot.
        tt.store((a, 0), 3, 10, 0, 0, 5);
        tt.store((b, 0), 3, 10, 0, 0, 5);
        assert!(tt.probe(1, 0, 3).is_some());
        assert!(tt.probe(a, 0, 3).is_none());
        // In the next search the deep entry is still read, but gives way.
        tt.new_search();
        assert!(tt.probe(1, 0, 3).is_some());
        tt.store((a, 0), 3, 10, 0, 0, 5);
        tt.store((b, 0), 3, 10, 0, 0, 5);
        assert!(tt.probe(1, 0, 3).is_none());
        assert!(tt.probe(a, 0, 3).is_some() && tt.probe(b, 0, 3).is_some());
    }
}
