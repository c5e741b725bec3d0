//! Searching with several threads: every thread runs the same search of the same position
//! over the one shared transposition table, and they keep out of each other's way by the
//! "simplified ABDADA" rule.
//!
//! **Why this scheme.** The table already lets a search reuse what another found: a thread
//! that reaches a position another thread finished reads its bounds and best move. Left at
//! that (the "lazy" scheme), threads mostly search the same moves at the same time. ABDADA
//! (Weill, 1996) spreads them: at a node deep enough to be worth it, once the first move is
//! searched (young brothers wait for the eldest, as in YBWC), a thread skips a move another
//! thread is searching at that moment and comes back to it after its other moves; by then the
//! other thread has usually stored its result, and the table answers. The "simplified" form
//! keeps the moves being searched in a small table of their own ([`Busy`]) instead of a
//! counter in every table entry.
//!
//! **Exactness.** No thread trusts another's result beyond the table's bounds, which are true
//! bounds whoever stored them, so the main thread's exact score is exact whatever the others
//! do; only the number of nodes and, among equal moves, the move chosen depend on timing. With
//! one thread nothing of this runs, and searches are deterministic.
//!
//! **Who answers.** The calling thread runs the search that reports and decides; helpers run
//! the same search without reports or deadlines of their own, and stop when it returns
//! ([`with_helpers`]).

use super::limits::Limits;
use crate::board::flips;
use std::ops::AddAssign;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The most threads a search may be given: more than any machine this runs on has cores, and
/// few enough that a typing slip (`--threads 10000`) is refused instead of obeyed.
pub const MAX_THREADS: usize = 256;

/// The threads to search with when none are asked for: the cores this process may use.
pub fn available_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
}

/// A thread count as a user writes it (`--threads`, GTP's `othello-engine-threads`): a whole
/// number from 1 to [`MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_THREADS).contains(n))
        .ok_or_else(|| {
            format!("bad thread count '{text}': expected a whole number from 1 to {MAX_THREADS}")
        })
}

/// Slots of the table of moves being searched: a few per thread and level of the tree.
const BUSY_SLOTS: usize = 1 << 12;

/// The positions some thread is searching now, by hash (see the module's header).
pub(crate) struct Busy {
    slots: Vec<AtomicU64>,
}

impl Default for Busy {
    fn default() -> Busy {
        Busy {
            slots: (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

/// A mark of one thread searching one position, cleared by [`Busy::release`].
#[derive(Clone, Copy)]
pub(crate) struct Claim(u64);

impl Busy {
    fn key(player: u64, opponent: u64) -> u64 {
        super::tt::hash(player, opponent) | 1
    }

    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key >> 1) as usize & (BUSY_SLOTS - 1)]
    }

    /// True when another thread marked this position as being searched.
    #[inline]
    pub fn is_busy(&self, player: u64, opponent: u64) -> bool {
        let key = Busy::key(player, opponent);
        self.slot(key).load(Ordering::Relaxed) == key
    }

    /// Marks this position as being searched by the caller (over any older mark in its slot).
    #[inline]
    pub fn claim(&self, player: u64, opponent: u64) -> Claim {
        let key = Busy::key(player, opponent);
        self.slot(key).store(key, Ordering::Relaxed);
        Claim(key)
    }

    /// Clears the caller's mark, unless another mark took its slot since.
    #[inline]
    pub fn release(&self, claim: Claim) {
        let _ =
            self.slot(claim.0)
                .compare_exchange(claim.0, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// The ABDADA rule at one node, as its moves are met in search order: the first is always
/// searched; a later one that another thread is searching is put off ([`Deferrer::start`]
/// says skip) and comes back after the node's other moves ([`Deferrer::next_deferred`]).
/// Without a [`Busy`] table (one thread, or a node too shallow to share) every move is
/// searched in order.
pub(crate) struct Deferrer<'a> {
    busy: Option<&'a Busy>,
    deferred: u64,
    started: bool,
    revisiting: bool,
}

impl<'a> Deferrer<'a> {
    /// The rule for a node, with `busy` when the node is worth sharing.
    #[inline]
    pub fn new(busy: Option<&'a Busy>) -> Deferrer<'a> {
        Deferrer {
            busy,
            deferred: 0,
            started: false,
            revisiting: false,
        }
    }

    /// Whether to search move `square` (leading to `player` to move against `opponent`) now:
    /// `None` to put it off, else the mark to hand back to [`Deferrer::finish`].
    #[inline]
    pub fn start(&mut self, square: u8, player: u64, opponent: u64) -> Option<Option<Claim>> {
        let Some(busy) = self.busy else {
            return Some(None);
        };
        if !self.started || self.revisiting {
            self.started = true;
            return Some(None);
        }
        if busy.is_busy(player, opponent) {
            self.deferred |= 1u64 << square;
            return None;
        }
        Some(Some(busy.claim(player, opponent)))
    }

    /// Ends the search of a move [`Deferrer::start`] let through.
    #[inline]
    pub fn finish(&self, claim: Option<Claim>) {
        if let (Some(busy), Some(claim)) = (self.busy, claim) {
            busy.release(claim);
        }
    }

    /// The next move of a node where `player` is to move against `opponent`: from `listed`
    /// (the node's moves in search order, with their flips), then the moves put off.
    #[inline]
    pub fn next_move(
        &mut self,
        listed: &mut impl Iterator<Item = (u8, u64)>,
        player: u64,
        opponent: u64,
    ) -> Option<(u8, u64)> {
        match listed.next() {
            Some(listed) => Some(listed),
            None if self.deferred == 0 => None,
            None => self.next_deferred(player, opponent),
        }
    }

    /// Once the node's move list is done, the next move put off, with its flips. Out of line:
    /// only nodes of several threads get here, and the hot path stays small.
    #[cold]
    #[inline(never)]
    fn next_deferred(&mut self, player: u64, opponent: u64) -> Option<(u8, u64)> {
        self.revisiting = true;
        let square = self.deferred.trailing_zeros() as u8;
        self.deferred &= self.deferred - 1;
        Some((square, flips(player, opponent, usize::from(square))))
    }
}

/// Runs `main` on this thread with `limits`, and `helper` on `threads - 1` other threads at
/// once; the helpers share the hard deadline but get a stop flag of their own, raised when
/// `main` returns. Returns `main`'s result and the sum of what the helpers return (their
/// node counts, or the counts of what they did).
pub(crate) fn with_helpers<R, H>(
    threads: usize,
    limits: &Limits,
    main: impl FnOnce() -> R,
    helper: impl Fn(&Limits) -> H + Sync,
) -> (R, H)
where
    H: Default + AddAssign + Send,
{
    if threads <= 1 {
        return (main(), H::default());
    }
    let helper_limits = Limits {
        stop: Arc::new(AtomicBool::new(false)),
        soft_deadline: None,
        hard_deadline: limits.hard_deadline,
        spend_all: limits.spend_all,
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads)
            .map(|_| scope.spawn(|| helper(&helper_limits)))
            .collect();
        let result = main();
        helper_limits.stop.store(true, Ordering::Relaxed);
        // A helper that panicked has already said so on stderr; its nodes are lost, the
        // main thread's answer stands.
        let mut sum = H::default();
        for counts in handles.into_iter().filter_map(|h| h.join().ok()) {
            sum += counts;
        }
        (result, sum)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_checked() {
        assert_eq!(parse_threads(" 2 "), Ok(2));
        assert_eq!(parse_threads("256"), Ok(MAX_THREADS));
        for bad in ["0", "-1", "257", "1e3", "two", ""] {
            assert!(parse_threads(bad).is_err(), "{bad}");
        }
        assert!((1..=MAX_THREADS).contains(&available_threads()));
    }

    #[test]
    fn a_claim_is_seen_until_released() {
        let busy = Busy::default();
        assert!(!busy.is_busy(1, 2));
        let claim = busy.claim(1, 2);
        assert!(busy.is_busy(1, 2));
        assert!(!busy.is_busy(2, 1));
        busy.release(claim);
        assert!(!busy.is_busy(1, 2));
    }

    #[test]
    fn helpers_run_until_the_main_search_returns() {
        let limits = Limits::none();
        let (answer, nodes) = with_helpers(
            3,
            &limits,
            || 42,
            |l| {
                let mut n = 0;
                while !l.stop_requested() {
                    n = 1;
                    std::thread::yield_now();
                }
                n
            },
        );
        assert_eq!(answer, 42);
        assert!(nodes <= 2);
        assert_eq!(with_helpers(1, &limits, || 7, |_| 1), (7, 0));
    }
}
