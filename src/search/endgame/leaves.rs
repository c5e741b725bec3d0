//! The last empties (at `SHALLOW_EMPTIES` and fewer): null-window search in parity order,
//! without the table or move lists, and the last two empties and the last one solved by hand.
//!
//! Most of a solve's nodes and time are here, in `flips` and bit counting, which the portable
//! build (x86-64-v2) compiles for two 64-bit lanes and without BMI. So one macro compiles this
//! search three times: for the build's baseline and, on x86-64, for AVX2 with BMI1/2 and LZCNT
//! and for AVX-512; [`Endgame::nws_shallow`] runs the copy the CPU has ([`LeafIsa::detect`],
//! once per solver). `flips` and the other helpers are inlined into each copy and compiled
//! with its features.
//!
//! No stability cut-off here: it saves nodes and costs more time than they did. From 4
//! empties on, FFO #40-#59 on one thread took 15.33 G nodes and 1067 s against the baseline
//! d2ced72's 17.00 G and 1006 s (side by side); FFO #20-#39 by callgrind (instructions,
//! exact on any machine): 85.5 M nodes and 35.81 G instructions from 4 empties, 88.2 M and
//! 35.23 G from 5, 91.5 M and 34.89 G without.

use super::Endgame;
use super::ordering::odd_quadrant_squares;
use crate::board::{Bits, NEIGHBOURS, final_score, flips, last_flip_count, legal_moves};

/// The shallow search's three functions under the names given, each with the attributes given
/// (the instruction set to compile them for).
macro_rules! shallow_search {
    ($(#[$feature:meta])* $nws:ident, $solve2:ident, $solve1:ident) => {
        impl Endgame<'_> {
            /// Null-window search with few empties: is the value above `alpha`? Fail-soft.
            $(#[$feature])*
            fn $nws(
                &mut self,
                player: u64,
                opponent: u64,
                alpha: i32,
                empties: u64,
            ) -> i32 {
                let n = empties.count_ones();
                if n == 2 {
                    let first = empties.trailing_zeros() as usize;
                    let second = 63 - empties.leading_zeros() as usize;
                    return self.$solve2(player, opponent, alpha, first, second);
                }
                if n == 1 {
                    return self.$solve1(player, opponent, empties.trailing_zeros() as usize);
                }
                self.nodes += 1;
                let odd = odd_quadrant_squares(empties);
                let mut best = -65;
                for group in [odd, empties & !odd] {
                    for sq in Bits(group) {
                        // No opponent disc around: nothing to flip, and flips cost more than this.
                        if opponent & NEIGHBOURS[sq] == 0 {
                            continue;
                        }
                        let f = flips(player, opponent, sq);
                        if f == 0 {
                            continue;
                        }
                        let bit = 1u64 << sq;
                        let v =
                            -self.$nws(opponent & !f, player | f | bit, -alpha - 1, empties & !bit);
                        if v > best {
                            best = v;
                            if v > alpha {
                                return v;
                            }
                        }
                    }
                }
                if best == -65 {
                    // No move: pass if the opponent can move, otherwise the game is over.
                    if legal_moves(opponent, player) & empties == 0 {
                        return final_score(player, opponent);
                    }
                    return -self.$nws(opponent, player, -alpha - 1, empties);
                }
                best
            }

            /// Two empties left (`a` and `b`): try both, then the opponent's, without lists
            /// or loops.
            $(#[$feature])*
            #[inline]
            fn $solve2(
                &mut self,
                player: u64,
                opponent: u64,
                alpha: i32,
                a: usize,
                b: usize,
            ) -> i32 {
                self.nodes += 1;
                let (bit_a, bit_b) = (1u64 << a, 1u64 << b);
                let mut best = -65;
                let f = flips(player, opponent, a);
                if f != 0 {
                    best = -self.$solve1(opponent & !f, player | f | bit_a, b);
                    if best > alpha {
                        return best;
                    }
                }
                let f = flips(player, opponent, b);
                if f != 0 {
                    return best.max(-self.$solve1(opponent & !f, player | f | bit_b, a));
                }
                if best > -65 {
                    return best;
                }
                // The side to move passes: the opponent tries both squares the same way.
                self.nodes += 1;
                let mut theirs = -65;
                let f = flips(opponent, player, a);
                if f != 0 {
                    theirs = -self.$solve1(player & !f, opponent | f | bit_a, b);
                    if -theirs <= alpha {
                        return -theirs;
                    }
                }
                let f = flips(opponent, player, b);
                if f != 0 {
                    theirs = theirs.max(-self.$solve1(player & !f, opponent | f | bit_b, a));
                }
                if theirs > -65 {
                    -theirs
                } else {
                    final_score(player, opponent)
                }
            }

            /// Score with one empty square left (`sq`), player to move.
            $(#[$feature])*
            #[inline]
            fn $solve1(&mut self, player: u64, opponent: u64, sq: usize) -> i32 {
                self.nodes += 1;
                let p = player.count_ones() as i32;
                let f = last_flip_count(player, sq) as i32;
                if f > 0 {
                    return 2 * (p + f + 1) - 64;
                }
                let g = last_flip_count(opponent, sq) as i32;
                if g > 0 {
                    // Opponent plays the last square: it has 63 - p discs before the move.
                    return 64 - 2 * (63 - p + g + 1);
                }
                // Nobody can play it: the empty square goes to the winner (63 discs, never a draw).
                let diff = 2 * p - 63;
                if diff > 0 { diff + 1 } else { diff - 1 }
            }

        }
    };
}

shallow_search!(nws_shallow_baseline, solve2_baseline, solve1_baseline);
#[cfg(target_arch = "x86_64")]
shallow_search!(
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    nws_shallow_avx2,
    solve2_avx2,
    solve1_avx2
);
#[cfg(target_arch = "x86_64")]
shallow_search!(
    #[target_feature(
        enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq,avx512cd"
    )]
    nws_shallow_avx512,
    solve2_avx512,
    solve1_avx512
);

/// The instruction sets the shallow search is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) enum LeafIsa {
    /// The build's own target.
    Baseline,
    /// x86-64 with AVX2, BMI1/2 and LZCNT (x86-64-v3).
    Avx2,
    /// x86-64-v3 with AVX-512 F, VL, BW, DQ and CD (x86-64-v4).
    Avx512,
}

impl LeafIsa {
    /// The fastest copy this CPU runs.
    pub(super) fn detect() -> LeafIsa {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let v3 =
                has!("avx2") && has!("bmi1") && has!("bmi2") && has!("lzcnt") && has!("popcnt");
            let v4 = has!("avx512f")
                && has!("avx512vl")
                && has!("avx512bw")
                && has!("avx512dq")
                && has!("avx512cd");
            if v3 && v4 {
                return LeafIsa::Avx512;
            }
            if v3 {
                return LeafIsa::Avx2;
            }
        }
        LeafIsa::Baseline
    }
}

impl Endgame<'_> {
    /// Null-window search with few empties: is the value above `alpha`? Fail-soft. The copy
    /// for this CPU's instruction set.
    #[inline]
    pub(super) fn nws_shallow(
        &mut self,
        player: u64,
        opponent: u64,
        alpha: i32,
        empties: u64,
    ) -> i32 {
        match self.leaf_isa {
            LeafIsa::Baseline => self.nws_shallow_baseline(player, opponent, alpha, empties),
            #[cfg(target_arch = "x86_64")]
            LeafIsa::Avx2 => {
                // SAFETY: safe code whose `target_feature` asks only for a CPU with AVX2, BMI1/2
                // and LZCNT, which `LeafIsa::detect` found when the solver was made.
                unsafe { self.nws_shallow_avx2(player, opponent, alpha, empties) }
            }
            #[cfg(target_arch = "x86_64")]
            LeafIsa::Avx512 => {
                // SAFETY: as above, with the AVX-512 features `LeafIsa::detect` also found.
                unsafe { self.nws_shallow_avx512(player, opponent, alpha, empties) }
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => self.nws_shallow_baseline(player, opponent, alpha, empties),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::limits::{Limits, Stopper};
    use crate::search::tt::TranspositionTable;

    /// Plain negamax over the whole tree: the value of `player` to move.
    fn negamax(player: u64, opponent: u64) -> i32 {
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if legal_moves(opponent, player) == 0 {
                return final_score(player, opponent);
            }
            return -negamax(opponent, player);
        }
        Bits(moves)
            .map(|sq| {
                let f = flips(player, opponent, sq);
                -negamax(opponent & !f, player | f | (1u64 << sq))
            })
            .max()
            .expect("a move")
    }

    /// Every copy of the shallow search this CPU runs answers every window as plain negamax
    /// does, and visits the same nodes as the baseline copy, on positions of 1-6 empties from
    /// random games (passes and finished games included).
    #[test]
    fn every_copy_of_the_shallow_search_agrees_with_negamax() {
        let isas: Vec<LeafIsa> = match LeafIsa::detect() {
            LeafIsa::Baseline => vec![LeafIsa::Baseline],
            LeafIsa::Avx2 => vec![LeafIsa::Baseline, LeafIsa::Avx2],
            LeafIsa::Avx512 => vec![LeafIsa::Baseline, LeafIsa::Avx2, LeafIsa::Avx512],
        };
        let tt = TranspositionTable::new(1);
        let mut stopper = Stopper::new(&Limits::none());
        let mut solver = Endgame::new(&tt, &mut stopper, None);
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut checked = [0usize; 7];
        for game in 0..400 {
            let target = 1 + game % 6;
            let (mut player, mut opponent) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
            loop {
                let empties = !(player | opponent);
                if empties.count_ones() <= target {
                    break;
                }
                let moves = legal_moves(player, opponent);
                if moves == 0 {
                    if legal_moves(opponent, player) == 0 {
                        break;
                    }
                    (player, opponent) = (opponent, player);
                    continue;
                }
                let squares: Vec<usize> = Bits(moves).collect();
                let sq = squares[(next() % squares.len() as u64) as usize];
                let f = flips(player, opponent, sq);
                (player, opponent) = (opponent & !f, player | f | (1u64 << sq));
            }
            let empties = !(player | opponent);
            let exact = negamax(player, opponent);
            for alpha in [exact - 2, exact - 1, exact, exact + 1] {
                let mut nodes = None;
                for &isa in &isas {
                    solver.leaf_isa = isa;
                    solver.nodes = 0;
                    let v = solver.nws_shallow(player, opponent, alpha, empties);
                    assert_eq!(
                        v > alpha,
                        exact > alpha,
                        "{isa:?}, alpha {alpha}, {player:#x} {opponent:#x}"
                    );
                    assert!(
                        v <= alpha || v <= exact,
                        "fail-high bound {v} above {exact}"
                    );
                    assert!(v > alpha || v >= exact, "fail-low bound {v} below {exact}");
                    assert_eq!(*nodes.get_or_insert(solver.nodes), solver.nodes, "{isa:?}");
                }
            }
            checked[empties.count_ones().min(6) as usize] += 1;
        }
        assert!(checked[1..].iter().all(|&n| n > 30), "{checked:?}");
    }
}
