//! The null-window search from [`SHALLOW_EMPTIES`] + 1 empties up: the bulk of a solve's
//! nodes above the shallow search, each with the table, the cut-offs and move ordering (the
//! module essay in `mod.rs` says what a node does at each depth).
//!
//! Like the shallow search (`leaves.rs`), it is compiled three times by one macro: for the
//! build's baseline and, on x86-64, for AVX2 with BMI1/2 and LZCNT and for AVX-512; each copy
//! calls its own copy of itself and of the shallow search, and inlines `flips`, move
//! generation, the ordering's mobility counts and the stability cut-off, so they run with its
//! instructions. [`Endgame::nws`] runs the copy the CPU has ([`crate::board::cpu::isa`], once per
//! solver). On an AVX-512 machine, FFO #40-#49 took 0.92 of the time of the search without
//! these copies (paired runs; docs/measurements/endgame.md, session 18).

use super::ordering::{
    MoveList, fastest_first_key, odd_quadrant_squares, order_moves, squares_next_to_empty_corners,
};
use super::stats::Ending;
use super::{ETC_EMPTIES, Endgame, NO_MOVE, SEARCH_ORDER_EMPTIES, SHALLOW_EMPTIES, SPLIT_EMPTIES};
use super::{KIND_ENDGAME, TT_EMPTIES, probcut};
use crate::board::cpu::Isa;
#[cfg(target_arch = "x86_64")]
use crate::board::legal_moves_avx2;
use crate::board::{Bits, final_score, flips, legal_moves};
#[cfg(target_arch = "x86_64")]
use crate::board::{flips_avx2, flips_avx512};
use crate::search::threads::Deferrer;
use std::ops::ControlFlow;

/// Below this many empties a node takes the lean path (`nws_near_leaves`): all the nodes that
/// do not look their children up in the table.
const NEAR_EMPTIES: u32 = ETC_EMPTIES;
/// The most moves a node of fewer than [`NEAR_EMPTIES`] empties has (one per empty square).
const NEAR_MOVES: usize = NEAR_EMPTIES as usize - 1;

/// The null-window search under the name given, with the attributes given (the instruction
/// set to compile it for), calling the near-leaves and shallow searches, move generation and
/// flips named (each compiled for the same instructions).
macro_rules! null_window_search {
    (
        $(#[$feature:meta])*
        $nws:ident,
        $near:ident,
        $shallow:ident,
        $legal_moves:ident,
        $flips:ident
    ) => {
        impl Endgame<'_> {
            /// Null-window search: is the value above `alpha`? Fail-soft; `n` is the number of
            /// empties.
            $(#[$feature])*
            fn $nws(&mut self, player: u64, opponent: u64, alpha: i32, n: u32) -> i32 {
                if n <= SHALLOW_EMPTIES {
                    return self.$shallow(player, opponent, alpha, !(player | opponent));
                }
                if self.stopper.poll(self.nodes) {
                    return 0;
                }
                self.nodes += 1;
                self.stats.node(n);
                let moves = $legal_moves(player, opponent);
                if moves == 0 {
                    if $legal_moves(opponent, player) == 0 {
                        return final_score(player, opponent);
                    }
                    return -self.$nws(opponent, player, -alpha - 1, n);
                }
                if let Some(bound) = self.stability_cutoff(player, opponent, alpha) {
                    self.stats.ended(Ending::Stability);
                    return bound;
                }
                if n < NEAR_EMPTIES {
                    return self.$near(player, opponent, alpha, n, moves);
                }
                let tt_move = match self.shared_entry(player, opponent, alpha, n) {
                    ControlFlow::Break(bound) => return bound,
                    ControlFlow::Continue(tt_move) => tt_move,
                };
                // Every node here looks its children up (n >= ETC_EMPTIES), which makes each
                // move's flips: the moves below take them from there.
                let mut known = [0u64; 64];
                let flips = |p, o, sq| $flips(p, o, sq);
                let node = (player, opponent);
                let cutoff = self.transposition_cutoff(node, moves, alpha, n, flips, &mut known);
                if let Some(v) = cutoff {
                    self.stats.ended(Ending::Transposition);
                    return v;
                }
                if n >= probcut::ENDGAME_MIN_EMPTIES
                    && self.selectivity.is_selective()
                    && let Some(v) = self.probcut(player, opponent, alpha, n)
                {
                    self.stats.ended(Ending::ProbCut);
                    return v;
                }
                // The table move first, and the others ordered only if it does not refute the node:
                // it usually does, and ordering costs every move its flips and its replies.
                let table_move = (tt_move < 64 && moves & (1u64 << tt_move) != 0)
                    .then(|| (tt_move, known[usize::from(tt_move)]));
                let rest = moves & !table_move.map_or(0, |(sq, _)| 1u64 << sq);
                // Made only when the table move does not refute the node, from the solver's
                // spare lists (a fresh one would be a kilobyte to clear at every node).
                let mut list: Option<Box<MoveList>> = None;
                let mut next = 0;
                let mut pending_table = table_move;
                let mut best = -65;
                let mut best_move = NO_MOVE;
                let mut split = Deferrer::new(self.busy.filter(|_| n >= SPLIT_EMPTIES));
                let mut searched = 0;
                let mut refuted = 0;
                loop {
                    let candidate = if let Some(t) = pending_table.take() {
                        Some(t)
                    } else {
                        if list.is_none() {
                            let list = list.insert(self.spare_lists.pop().unwrap_or_default());
                            list.clear();
                            if n >= SEARCH_ORDER_EMPTIES {
                                self.order_by_search(node, rest, NO_MOVE, n, list);
                            } else {
                                let children = self.child_table(n);
                                let flips = |_, _, sq: usize| known[sq];
                                order_moves(node, rest, NO_MOVE, n, list, children, flips);
                            }
                        }
                        let move_at = list.as_ref().and_then(|list| list.get(next));
                        next += 1;
                        move_at
                    };
                    let mut candidates = candidate.into_iter();
                    let Some((sq, f)) = split.next_move(&mut candidates, player, opponent) else {
                        break;
                    };
                    let (np, no) = (opponent & !f, player | f | (1u64 << sq));
                    let Some(claim) = split.start(sq, np, no) else {
                        continue;
                    };
                    let before = self.nodes;
                    let v = -self.$nws(np, no, -alpha - 1, n - 1);
                    split.finish(claim);
                    searched += 1;
                    if v > best {
                        best = v;
                        best_move = sq;
                        if v > alpha {
                            break;
                        }
                    }
                    refuted += self.nodes - before;
                }
                if let Some(list) = list {
                    self.spare_lists.push(list);
                }
                self.stats.searched(n, best > alpha, searched, refuted);
                self.store_shared(player, opponent, alpha, n, best, best_move);
                best
            }

            /// The rest of a null-window node just above the shallow search (fewer than
            /// [`NEAR_EMPTIES`] empties, so at most 10 `moves`), after the cut-offs every node
            /// tries: the table (the own one below [`TT_EMPTIES`], the shared one from it), the
            /// table move first, then the others fastest first, without what these nodes never
            /// use (ETC, ProbCut, sharing with other threads) and without a move list: the
            /// moves sit in two small arrays on the stack, and the next one is picked when it
            /// is needed, since most nodes end after the first (FFO #20-#39: 0.95 of the
            /// instructions of the same nodes through the general code; taking the nodes of
            /// 9-10 empties too, the same nodes in 0.94-0.99 of the time in paired runs on FFO
            /// #40-#49 + #53 and #55, docs/measurements/endgame.md, session 28).
            $(#[$feature])*
            fn $near(&mut self, player: u64, opponent: u64, alpha: i32, n: u32, moves: u64) -> i32 {
                let mut table_move = NO_MOVE;
                let shared = n >= TT_EMPTIES;
                if shared {
                    match self.shared_entry(player, opponent, alpha, n) {
                        ControlFlow::Break(bound) => return bound,
                        ControlFlow::Continue(tt_move) => table_move = tt_move,
                    }
                } else if let Some(e) = self.leaf_table.probe(player, opponent) {
                    if e.lower > alpha || e.upper <= alpha {
                        self.stats.ended(Ending::Table);
                        return if e.lower > alpha { e.lower } else { e.upper };
                    }
                    table_move = e.best;
                }
                let child_shallow = n - 1 <= SHALLOW_EMPTIES;
                let child_shared = n > TT_EMPTIES;
                let mut best = -65;
                let mut best_move = NO_MOVE;
                let mut searched = 0;
                let mut refuted = 0;
                let mut rest = moves;
                if table_move < 64 && moves & (1u64 << table_move) != 0 {
                    let sq = usize::from(table_move);
                    let f = $flips(player, opponent, sq);
                    let bit = 1u64 << sq;
                    rest &= !bit;
                    let (np, no) = (opponent & !f, player | f | bit);
                    let before = self.nodes;
                    best = if child_shallow {
                        -self.$shallow(np, no, -alpha - 1, !(np | no))
                    } else {
                        -self.$nws(np, no, -alpha - 1, n - 1)
                    };
                    best_move = table_move;
                    searched = 1;
                    refuted = self.nodes - before;
                }
                if best <= alpha && rest != 0 {
                    // Each move's key (biased to be unsigned) above its square, and its flips.
                    let mut keys = [0u64; NEAR_MOVES];
                    let mut flips = [0u64; NEAR_MOVES];
                    let mut count = 0;
                    let empties = !(player | opponent);
                    let odd = odd_quadrant_squares(empties);
                    let risky = squares_next_to_empty_corners(empties);
                    for sq in Bits(rest) {
                        let f = $flips(player, opponent, sq);
                        let bit = 1u64 << sq;
                        let (np, no) = (opponent & !f, player | f | bit);
                        if child_shared {
                            self.tt.prefetch(np, no);
                        } else if !child_shallow {
                            self.leaf_table.prefetch(np, no);
                        }
                        let replies = $legal_moves(np, no);
                        let key = fastest_first_key((np, no), replies, bit, n, odd, risky);
                        let biased = (i64::from(key) - i64::from(i32::MIN)) as u64;
                        keys[count % NEAR_MOVES] = biased << 8 | sq as u64;
                        flips[count % NEAR_MOVES] = f;
                        count += 1;
                    }
                    let count = count.min(NEAR_MOVES);
                    for i in 0..count {
                        // The lowest key left goes next (ties by square, as the keys hold it).
                        let mut pick = i;
                        for j in i + 1..count {
                            if keys[j] < keys[pick] {
                                pick = j;
                            }
                        }
                        keys.swap(i, pick);
                        flips.swap(i, pick);
                        let sq = (keys[i] & 63) as u8;
                        let f = flips[i];
                        let (np, no) = (opponent & !f, player | f | (1u64 << sq));
                        let before = self.nodes;
                        let v = if child_shallow {
                            -self.$shallow(np, no, -alpha - 1, !(np | no))
                        } else {
                            -self.$nws(np, no, -alpha - 1, n - 1)
                        };
                        searched += 1;
                        if v > best {
                            best = v;
                            best_move = sq;
                            if v > alpha {
                                break;
                            }
                        }
                        refuted += self.nodes - before;
                    }
                }
                self.stats.searched(n, best > alpha, searched, refuted);
                if shared {
                    self.store_shared(player, opponent, alpha, n, best, best_move);
                } else if !self.stopper.stopped() {
                    if best > alpha {
                        self.leaf_table.store(player, opponent, best, 64, best_move);
                    } else {
                        self.leaf_table.store(player, opponent, -64, best, NO_MOVE);
                    }
                }
                best
            }
        }
    };
}

null_window_search!(
    nws_baseline,
    nws_near_leaves_baseline,
    nws_shallow_baseline,
    legal_moves,
    flips
);
#[cfg(target_arch = "x86_64")]
null_window_search!(
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    nws_avx2,
    nws_near_leaves_avx2,
    nws_shallow_avx2,
    legal_moves_avx2,
    flips_avx2
);
#[cfg(target_arch = "x86_64")]
null_window_search!(
    #[target_feature(
        enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq,avx512cd,gfni"
    )]
    nws_avx512,
    nws_near_leaves_avx512,
    nws_shallow_avx512,
    legal_moves_avx2,
    flips_avx512
);

impl Endgame<'_> {
    /// A null-window node's look into the shared table: `Break` with the bound that answers
    /// the node at `alpha` (only an entry searched as wide does), else `Continue` with the
    /// entry's best move (`NO_MOVE` without one).
    #[inline(always)]
    fn shared_entry(
        &mut self,
        player: u64,
        opponent: u64,
        alpha: i32,
        n: u32,
    ) -> ControlFlow<i32, u8> {
        let Some(e) = self.tt.probe(player, opponent, KIND_ENDGAME) else {
            return ControlFlow::Continue(NO_MOVE);
        };
        if e.depth >= self.table_depth(n) && (e.lower > alpha || e.upper <= alpha) {
            self.stats.ended(Ending::Table);
            return ControlFlow::Break(if e.lower > alpha { e.lower } else { e.upper });
        }
        ControlFlow::Continue(e.best)
    }

    /// Stores a null-window node's result `best` at `alpha` (a lower bound with its move when
    /// above `alpha`, else an upper bound) in the shared table, unless the search was stopped.
    #[inline(always)]
    fn store_shared(
        &self,
        player: u64,
        opponent: u64,
        alpha: i32,
        n: u32,
        best: i32,
        best_move: u8,
    ) {
        if self.stopper.stopped() {
            return;
        }
        let (lower, upper, best_move) = if best > alpha {
            (best, 64, best_move)
        } else {
            (-64, best, NO_MOVE)
        };
        let depth = self.table_depth(n);
        self.tt.store(
            (player, opponent),
            KIND_ENDGAME,
            depth,
            lower,
            upper,
            best_move,
        );
    }

    /// Null-window search: is the value above `alpha`? Fail-soft; `n` is the number of empties.
    /// The copy for this CPU's instruction set.
    #[inline]
    pub fn nws(&mut self, player: u64, opponent: u64, alpha: i32, n: u32) -> i32 {
        match self.isa {
            Isa::Baseline => self.nws_baseline(player, opponent, alpha, n),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => {
                // SAFETY: safe code whose `target_feature` asks only for a CPU with AVX2, BMI1/2
                // and LZCNT, which `cpu::isa` found when the solver was made.
                unsafe { self.nws_avx2(player, opponent, alpha, n) }
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                // SAFETY: as above, with the AVX-512 features `cpu::isa` also found.
                unsafe { self.nws_avx512(player, opponent, alpha, n) }
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => self.nws_baseline(player, opponent, alpha, n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::endgame::stats::Ending;
    use crate::search::endgame::test_positions::{Xorshift, alpha_beta, negamax, random_position};
    use crate::search::limits::{Limits, Stopper};
    use crate::search::tt::TranspositionTable;

    /// `v`, a null-window search's answer at `alpha` (`at` says where), is right for the
    /// value `exact`: on the right side of `alpha`, and a true bound (fail-soft).
    fn assert_fail_soft_answer(v: i32, alpha: i32, exact: i32, at: &str) {
        assert_eq!(v > alpha, exact > alpha, "{at}");
        assert!(
            v <= alpha || v <= exact,
            "fail-high bound {v} above {exact}, {at}"
        );
        assert!(
            v > alpha || v >= exact,
            "fail-low bound {v} below {exact}, {at}"
        );
    }

    /// Every copy of the null-window search (and so of the shallow search below it) this CPU
    /// runs answers every window as plain negamax does, and visits the same nodes as the
    /// baseline copy (each with a table of its own), on positions of 1-9 empties from random
    /// games, passes and finished games included.
    #[test]
    fn every_copy_of_the_solver_agrees_with_negamax() {
        let mut rng = Xorshift::new(0x9E37_79B9_7F4A_7C15);
        let mut checked = [0usize; 10];
        for game in 0..450 {
            let (player, opponent) = random_position(&mut rng, 1 + game % 9);
            let n = (!(player | opponent)).count_ones();
            let exact = negamax(player, opponent);
            for alpha in [exact - 2, exact - 1, exact, exact + 1] {
                let mut nodes = None;
                for isa in crate::board::cpu::isa().with_lesser() {
                    let tt = TranspositionTable::new(1);
                    let mut stopper = Stopper::new(&Limits::none());
                    let mut solver = Endgame::new(&tt, &mut stopper, None);
                    solver.isa = isa;
                    let v = solver.nws(player, opponent, alpha, n);
                    let at = format!("{isa:?}, alpha {alpha}, {player:#x} {opponent:#x}");
                    assert_fail_soft_answer(v, alpha, exact, &at);
                    assert_eq!(*nodes.get_or_insert(solver.nodes), solver.nodes, "{isa:?}");
                }
            }
            checked[n.min(9) as usize] += 1;
        }
        assert!(checked[1..].iter().all(|&n| n > 30), "{checked:?}");
    }

    /// The enhanced transposition cut-off (a child's table entry that answers the node) never
    /// changes a value: positions of 11 to 13 empties from random games, each asked every
    /// window near its value twice by one solver, so that the second round finds the first
    /// one's entries; each answer agrees with plain alpha-beta, and cut-offs did happen.
    #[test]
    fn the_table_cutoffs_never_change_a_value() {
        let mut rng = Xorshift::new(0x5851_F42D_4C95_7F2D);
        let mut cutoffs = 0;
        for game in 0..18 {
            let (player, opponent) = random_position(&mut rng, 11 + game % 3);
            let n = (!(player | opponent)).count_ones();
            let exact = alpha_beta(player, opponent, -65, 65);
            let tt = TranspositionTable::new(4);
            let mut stopper = Stopper::new(&Limits::none());
            let mut solver = Endgame::new(&tt, &mut stopper, None);
            for alpha in [exact - 3, exact - 1, exact, exact + 1, exact - 2, exact + 2].repeat(2) {
                let v = solver.nws(player, opponent, alpha, n);
                let at = format!("alpha {alpha}, {player:#x} {opponent:#x}");
                assert_fail_soft_answer(v, alpha, exact, &at);
            }
            cutoffs += solver.stats.endings(Ending::Transposition);
        }
        assert!(cutoffs > 0, "no cut-off by a child's entry");
    }
}
