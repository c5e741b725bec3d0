//! The last empties (at `SHALLOW_EMPTIES` and fewer): null-window search in parity order,
//! without the table or move lists, and the last two empties and the last one solved by hand.
//! The X- and C-squares of an empty corner come after all the others (each half in parity
//! order), since they usually give the corner away: FFO #20-#39 71.2 M -> 68.9 M nodes for the
//! X-squares alone, for 0.995 of the instructions.
//!
//! Most of a solve's nodes and time are here, in `flips` and bit counting, which the portable
//! build (x86-64-v2) compiles for two 64-bit lanes and without BMI. So one macro compiles this
//! search three times: for the build's baseline and, on x86-64, for AVX2 with BMI1/2 and LZCNT
//! and for AVX-512; each copy of the null-window search above it (`null_window.rs`) calls the
//! copy of its own instruction set, the one [`crate::board::cpu::isa`] chose once.
//! `flips` and the other helpers are inlined into each copy and compiled with its features;
//! the AVX2 and AVX-512 copies find flips in vector registers (`flips_avx2`, `flips_avx512`),
//! which the baseline has no instructions for.
//!
//! No stability cut-off here: it saves nodes and costs more time than they did (measured
//! when this search ran up to 6 empties; the nodes of 6 empties now try it). From 4
//! empties on, FFO #40-#59 on one thread took 15.33 G nodes and 1067 s against the baseline
//! d2ced72's 17.00 G and 1006 s (side by side); FFO #20-#39 by callgrind (instructions,
//! exact on any machine): 85.5 M nodes and 35.81 G instructions from 4 empties, 88.2 M and
//! 35.23 G from 5, 91.5 M and 34.89 G without.

use super::Endgame;
use super::ordering::{odd_quadrant_squares, squares_next_to_empty_corners};
use crate::board::{Bits, NEIGHBOURS, final_score, flips, last_flip_count, legal_moves};
#[cfg(target_arch = "x86_64")]
use crate::board::{flips_avx2, flips_avx512};

/// The shallow search's three functions under the names given, each with the attributes given
/// (the instruction set to compile them for), finding flips with the function `$flips`
/// (compiled for the same instructions).
macro_rules! shallow_search {
    ($(#[$feature:meta])* $nws:ident, $solve2:ident, $solve1:ident, $flips:ident) => {
        impl Endgame<'_> {
            /// Null-window search with few empties: is the value above `alpha`? Fail-soft.
            $(#[$feature])*
            pub(super) fn $nws(
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
                let even = empties & !odd;
                let (x, c) = squares_next_to_empty_corners(empties);
                let risky = x | c;
                let mut best = -65;
                // The squares next to an empty corner last, and in each half parity first.
                for group in [odd & !risky, even & !risky, odd & risky, even & risky] {
                    for sq in Bits(group) {
                        // No opponent disc around: nothing to flip, and flips cost more than this.
                        if opponent & NEIGHBOURS[sq] == 0 {
                            continue;
                        }
                        let f = $flips(player, opponent, sq);
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
                let f = $flips(player, opponent, a);
                if f != 0 {
                    best = -self.$solve1(opponent & !f, player | f | bit_a, b);
                    if best > alpha {
                        return best;
                    }
                }
                let f = $flips(player, opponent, b);
                if f != 0 {
                    return best.max(-self.$solve1(opponent & !f, player | f | bit_b, a));
                }
                if best > -65 {
                    return best;
                }
                // The side to move passes: the opponent tries both squares the same way.
                self.nodes += 1;
                let mut theirs = -65;
                let f = $flips(opponent, player, a);
                if f != 0 {
                    theirs = -self.$solve1(player & !f, opponent | f | bit_a, b);
                    if -theirs <= alpha {
                        return -theirs;
                    }
                }
                let f = $flips(opponent, player, b);
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

shallow_search!(
    nws_shallow_baseline,
    solve2_baseline,
    solve1_baseline,
    flips
);
#[cfg(target_arch = "x86_64")]
shallow_search!(
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    nws_shallow_avx2,
    solve2_avx2,
    solve1_avx2,
    flips_avx2
);
#[cfg(target_arch = "x86_64")]
shallow_search!(
    #[target_feature(
        enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq,avx512cd,gfni"
    )]
    nws_shallow_avx512,
    solve2_avx512,
    solve1_avx512,
    flips_avx512
);
