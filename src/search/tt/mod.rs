//! The transposition table: bounds on a position's value at a depth, and its best move.
//!
//! Entries hold the whole position, so a hit is never a collision. Buckets have two slots: one
//! kept for the deepest result, one always replaced. Each entry records the search that wrote
//! it (its age): the table is kept from move to move of a game, so that a search finds the
//! previous ones' work, but a deep entry of an earlier search no longer guards its slot
//! against the current search's results.

// The slots' words are the only atomics the `loom` model tests (`--cfg loom`) need to see; the
// table's age is written between searches, never during one. loom is a dev-dependency: the
// library itself keeps std's atomics in any build.
#[cfg(all(test, loom))]
use loom::sync::atomic::AtomicU64;
#[cfg(not(all(test, loom)))]
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicU8, Ordering};

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

impl Entry {
    /// The entry's data words: the bounds, and the move, depth, kind and age.
    fn data(&self) -> (u64, u64) {
        let bounds = u64::from(self.lower as u32) | (u64::from(self.upper as u32) << 32);
        let info = u64::from(self.best)
            | (u64::from(self.depth) << 8)
            | (u64::from(self.kind) << 16)
            | (u64::from(self.age) << 24);
        (bounds, info)
    }

    fn is_of(&self, player: u64, opponent: u64, kind: u8) -> bool {
        self.age != 0 && self.player == player && self.opponent == opponent && self.kind == kind
    }
}

/// No best move stored.
pub const NO_MOVE: u8 = 64;

/// One slot, four words that threads read and write without locks. The key words hold the
/// position XORed with a check of both data words ([`Slot::check`]), so a slot read while
/// other threads were writing it (words of different entries) decodes to a position that is
/// not the one probed, and counts as a miss: a probe only ever returns an entry some search
/// stored whole.
#[derive(Default)]
struct Slot {
    key: [AtomicU64; 2],
    bounds: AtomicU64,
    info: AtomicU64,
}

impl Slot {
    /// The slot's words as they are: keys, bounds, info.
    #[inline]
    fn raw(&self) -> [u64; 4] {
        [
            self.key[0].load(Ordering::Relaxed),
            self.key[1].load(Ordering::Relaxed),
            self.bounds.load(Ordering::Relaxed),
            self.info.load(Ordering::Relaxed),
        ]
    }

    /// Writes words read by [`Slot::raw`] (a torn entry stays detectably torn).
    #[inline]
    fn write_raw(&self, [key0, key1, bounds, info]: [u64; 4]) {
        self.key[0].store(key0, Ordering::Relaxed);
        self.key[1].store(key1, Ordering::Relaxed);
        self.bounds.store(bounds, Ordering::Relaxed);
        self.info.store(info, Ordering::Relaxed);
    }

    #[inline]
    fn load(&self) -> Entry {
        Slot::decode(self.raw())
    }

    /// The word the position is XORed with. A plain `bounds ^ info` is the same for entries
    /// whose bounds and info differ by the same bits, which results for one position often do
    /// (lower 2 and best 5, lower 3 and best 4): the key of one with the bounds of a second
    /// and the info of a third read as a whole entry (the loom test
    /// `a_slot_written_with_results_for_one_position_reads_whole_or_misses` found it).
    /// Multiplying the info word by an odd constant spreads any change of it over the high
    /// bits, which small bounds never reach.
    #[inline]
    fn check(bounds: u64, info: u64) -> u64 {
        bounds ^ info.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    #[inline]
    fn decode([key0, key1, bounds, info]: [u64; 4]) -> Entry {
        let check = Slot::check(bounds, info);
        Entry {
            player: key0 ^ check,
            opponent: key1 ^ check,
            lower: bounds as u32 as i32,
            upper: (bounds >> 32) as u32 as i32,
            best: info as u8,
            depth: (info >> 8) as u8,
            kind: (info >> 16) as u8,
            age: (info >> 24) as u8,
        }
    }

    #[inline]
    fn save(&self, entry: &Entry) {
        let (bounds, info) = entry.data();
        let check = Slot::check(bounds, info);
        self.write_raw([entry.player ^ check, entry.opponent ^ check, bounds, info]);
    }

    fn clear(&self) {
        self.save(&Entry::default());
    }
}

/// A bucket: two slots in one cache line. Aligned to the line: the allocator gives a vector
/// of slots only 16-byte alignment, so every bucket straddled two lines, and a probe waited
/// on the second line after the prefetch had brought the first (a profile of FFO #49 put 6%
/// of the null-window search's samples on that load).
#[derive(Default)]
#[repr(align(64))]
struct Bucket([Slot; 2]);

/// A fixed-size table of [`Entry`] values, shared by the threads of a search: every method
/// takes `&self`, and no lock is taken (see [`Slot`]). Two threads storing into one bucket
/// at once may lose one of the results, never corrupt one.
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    /// The number of buckets less one (a power of two less one).
    mask: usize,
    /// The age of the current search's entries, never 0.
    age: AtomicU8,
}

pub(crate) fn hash(player: u64, opponent: u64) -> u64 {
    let h = (player ^ opponent.rotate_left(29).wrapping_mul(0xD6E8_FEB8_6659_FD93))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^ (h >> 29)
}

/// Asks the processor to bring the cache line that holds `value` into the cache (a hint: it
/// never faults and changes nothing else). Nothing on other processors.
#[inline(always)]
pub(crate) fn prefetch_line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch only hints the cache and never faults, whatever the address; this
        // one is a live reference's.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Asks Linux to back the table's reserved (not yet touched) memory with 2 MiB pages: probes
/// land all over the table, and with 4 KiB pages nearly each one also misses the address
/// translation cache. Only a hint: where the kernel declines, nothing changes.
fn advise_huge_pages(buckets: &Vec<Bucket>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = buckets.as_ptr() as usize;
        let end = start + buckets.capacity() * std::mem::size_of::<Bucket>();
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if last > first {
            // SAFETY: `madvise` works on raw memory: the range [first, last) lies inside the
            // vector's own allocation (rounded inward to whole huge pages), which lives as long
            // as the table; MADV_HUGEPAGE changes how pages are backed, never their contents,
            // and its failure (an ignored return value) leaves everything as it was.
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
    let _ = buckets;
}

impl TranspositionTable {
    /// A table of about `mib` mebibytes (at least 1024 entries), rounded down to a power of two.
    pub fn new(mib: usize) -> TranspositionTable {
        let bytes = mib.saturating_mul(1 << 20);
        let wanted = (bytes / std::mem::size_of::<Slot>()).max(1024);
        let mut size = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        // A size the allocator refuses would abort the process: halve it until it fits.
        let mut buckets = Vec::new();
        while buckets.try_reserve_exact(size / 2).is_err() && size > 1024 {
            size /= 2;
            log::warn!("cannot allocate the hash table; trying {size} entries");
        }
        advise_huge_pages(&buckets);
        buckets.resize_with(size / 2, Bucket::default);
        TranspositionTable {
            buckets,
            mask: size / 2 - 1,
            age: AtomicU8::new(1),
        }
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for slot in self.buckets.iter().flat_map(|bucket| &bucket.0) {
            slot.clear();
        }
        self.age.store(1, Ordering::Relaxed);
    }

    /// Starts a new search: entries of earlier ones stay readable, but give way to this one's.
    pub fn new_search(&self) {
        let age = self.age.load(Ordering::Relaxed);
        self.age
            .store(if age == u8::MAX { 1 } else { age + 1 }, Ordering::Relaxed);
    }

    /// The number of slots.
    pub fn capacity(&self) -> usize {
        2 * self.buckets.len()
    }

    /// The bucket of a position: the hash's bits from the second up (the lowest is left out,
    /// as when the table was a vector of slots indexed by even numbers).
    #[inline]
    fn bucket(&self, player: u64, opponent: u64) -> &[Slot; 2] {
        &self.buckets[(hash(player, opponent) >> 1) as usize & self.mask].0
    }

    /// Asks the processor to bring this position's bucket into the cache: a probe soon after
    /// then finds it there instead of waiting on memory.
    #[inline]
    pub fn prefetch(&self, player: u64, opponent: u64) {
        prefetch_line(self.bucket(player, opponent));
    }

    /// The stored result for this position and kind, if any.
    #[inline]
    pub fn probe(&self, player: u64, opponent: u64, kind: u8) -> Option<Entry> {
        self.bucket(player, opponent)
            .iter()
            .map(Slot::load)
            .find(|e| e.is_of(player, opponent, kind))
    }

    /// Stores bounds `lower..=upper` at `depth` with the best move `best`.
    #[inline]
    pub fn store(
        &self,
        (player, opponent): (u64, u64),
        kind: u8,
        depth: u8,
        lower: i32,
        upper: i32,
        best: u8,
    ) {
        let mut entry = Entry {
            player,
            opponent,
            lower,
            upper,
            best,
            depth,
            kind,
            age: self.age.load(Ordering::Relaxed),
        };
        let bucket = self.bucket(player, opponent);
        let first = bucket[0].raw();
        let stored = [Slot::decode(first), bucket[1].load()];
        if let Some(k) = stored.iter().position(|e| e.is_of(player, opponent, kind)) {
            let slot = &stored[k];
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
                bucket[k].save(&Entry {
                    age: entry.age,
                    ..*slot
                });
                return;
            }
            bucket[k].save(&entry);
        } else if stored[0].age != entry.age || stored[0].depth <= depth {
            bucket[1].write_raw(first);
            bucket[0].save(&entry);
        } else {
            bucket[1].save(&entry);
        }
    }
}

// Under `--cfg loom` the slots' atomics exist only inside a model: these tests would panic.
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn stores_and_merges_bounds() {
        let tt = TranspositionTable::new(1);
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
        let tt = TranspositionTable::new(1);
        tt.store((1, 2), KIND_ENDGAME, 12, 24, 64, 12);
        tt.store((1, 2), KIND_ENDGAME, 12, -64, 24, 30);
        let e = tt.probe(1, 2, KIND_ENDGAME).unwrap();
        assert_eq!((e.lower, e.upper, e.best), (24, 24, 12));
        // In the other order, the later search proves the lower bound with its move.
        let tt = TranspositionTable::new(1);
        tt.store((1, 2), KIND_ENDGAME, 12, -64, 24, 30);
        tt.store((1, 2), KIND_ENDGAME, 12, 24, 64, 12);
        let e = tt.probe(1, 2, KIND_ENDGAME).unwrap();
        assert_eq!((e.lower, e.upper, e.best), (24, 24, 12));
    }

    #[test]
    fn a_deep_entry_guards_its_slot_only_in_the_search_that_wrote_it() {
        let tt = TranspositionTable::new(0);
        let bucket = |p: u64| std::ptr::from_ref(tt.bucket(p, 0));
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

/// Model tests of the lock-free slots under every interleaving (`--cfg loom`, see .ci/run).
#[cfg(all(test, loom))]
mod loom_tests;
