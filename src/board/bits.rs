//! Bit-parallel primitives on 64-bit boards: move generation, set bits, symmetries (the
//! flips of a move are in `flips.rs`).
//!
//! Square `a1` is bit 0, `h1` bit 7, `a2` bit 8, …, `h8` bit 63 (row-major, rank 1 at the top).

/// All squares except the a-file and the h-file: shifting east or west must not wrap.
const NOT_EDGE_FILES: u64 = 0x7E7E_7E7E_7E7E_7E7E;

/// Moves in one direction family (shift `dir` left and right), by parallel-prefix fill.
#[inline(always)]
fn moves_along(player: u64, mask: u64, dir: u32) -> u64 {
    let mut left = mask & (player << dir);
    let mut right = mask & (player >> dir);
    left |= mask & (left << dir);
    right |= mask & (right >> dir);
    let mask_left = mask & (mask << dir);
    let mask_right = mask & (mask >> dir);
    let dir2 = dir * 2;
    left |= mask_left & (left << dir2);
    right |= mask_right & (right >> dir2);
    left |= mask_left & (left << dir2);
    right |= mask_right & (right >> dir2);
    (left << dir) | (right >> dir)
}

/// The legal moves of `player` against `opponent`, as a bitboard.
///
/// The build targets a baseline every x86-64 machine of the last decade has (x86-64-v2:
/// POPCNT, SSE4.2); AVX2 is chosen here at run time, where the CPU has it (one cached flag,
/// a branch that always goes the same way).
#[inline]
pub fn legal_moves(player: u64, opponent: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: `legal_moves_avx2` is safe code compiled for AVX2; the only thing its
        // `target_feature` asks of the caller is a CPU that runs AVX2, which `has_avx2`
        // (the build's target or the CPU's answer, checked just above) confirms.
        return unsafe { legal_moves_avx2(player, opponent) };
    }
    legal_moves_scalar(player, opponent)
}

/// [`legal_moves`] inside code compiled once per level (the search's and perft's copies),
/// which knows when compiled whether its level has AVX2: with `avx2` (a constant there) the
/// AVX2 fill is used without [`has_avx2`]'s run-time check, which cost perft 4% of its time.
///
/// # Safety
/// With `avx2`, the CPU must run AVX2.
#[inline(always)]
pub unsafe fn legal_moves_on(avx2: bool, player: u64, opponent: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the caller's promise.
        return unsafe { legal_moves_avx2(player, opponent) };
    }
    let _ = avx2;
    legal_moves(player, opponent)
}

/// [`legal_moves_both`] as [`legal_moves_on`] is [`legal_moves`].
///
/// # Safety
/// With `avx2`, the CPU must run AVX2.
#[inline(always)]
pub unsafe fn legal_moves_both_on(avx2: bool, player: u64, opponent: u64) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the caller's promise.
        return unsafe { legal_moves_both_avx2(player, opponent) };
    }
    let _ = avx2;
    legal_moves_both(player, opponent)
}

/// Whether the engine runs AVX2: known at compile time when the build targets it, else the
/// level chosen at start ([`super::cpu::level`]: the CPU's, or a lower one forced).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn has_avx2() -> bool {
    cfg!(target_feature = "avx2") || super::cpu::level() >= super::cpu::Level::V3
}

/// Whether this CPU runs BMI2 (`pext`, for the evaluation's bit gathers), as [`has_avx2`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn has_bmi2() -> bool {
    cfg!(target_feature = "bmi2") || super::cpu::level() >= super::cpu::Level::V3
}

/// [`legal_moves`] with the four direction families in the four lanes of one AVX2 register:
/// the same parallel-prefix fill, a quarter of the instructions.
///
/// # Safety
/// Called from code not compiled for AVX2, the CPU must run AVX2 (see [`has_avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn legal_moves_avx2(player: u64, opponent: u64) -> u64 {
    or_lanes_avx2(move_lanes_avx2(player, opponent)) & !(player | opponent)
}

/// Both sides' legal moves, `(player's, opponent's)`: the two fills are independent, so the
/// CPU runs them side by side in little more than the time of one (the evaluation's mobility
/// wants both at every leaf). Always inlined, so that inside a caller compiled for AVX2 (the
/// network's copies) the AVX2 fill inlines too.
#[inline(always)]
pub fn legal_moves_both(player: u64, opponent: u64) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: as in `legal_moves`: the CPU runs AVX2, `has_avx2` has just said so.
        return unsafe { legal_moves_both_avx2(player, opponent) };
    }
    (
        legal_moves_scalar(player, opponent),
        legal_moves_scalar(opponent, player),
    )
}

/// [`legal_moves_both`] in AVX2, the two fills interleaved.
///
/// # Safety
/// As [`legal_moves_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn legal_moves_both_avx2(player: u64, opponent: u64) -> (u64, u64) {
    let mine = move_lanes_avx2(player, opponent);
    let theirs = move_lanes_avx2(opponent, player);
    let empty = !(player | opponent);
    (or_lanes_avx2(mine) & empty, or_lanes_avx2(theirs) & empty)
}

/// The moves of `player` in each of the four direction families, one per lane, empty squares
/// not yet masked.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn move_lanes_avx2(player: u64, opponent: u64) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let shift = _mm256_set_epi64x(9, 7, 8, 1);
    let shift2 = _mm256_set_epi64x(18, 14, 16, 2);
    let inner = (opponent & NOT_EDGE_FILES) as i64;
    let mask = _mm256_set_epi64x(inner, inner, opponent as i64, inner);
    let p = _mm256_set1_epi64x(player as i64);
    let mut left = _mm256_and_si256(mask, _mm256_sllv_epi64(p, shift));
    let mut right = _mm256_and_si256(mask, _mm256_srlv_epi64(p, shift));
    left = _mm256_or_si256(left, _mm256_and_si256(mask, _mm256_sllv_epi64(left, shift)));
    right = _mm256_or_si256(
        right,
        _mm256_and_si256(mask, _mm256_srlv_epi64(right, shift)),
    );
    let mask_left = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, shift));
    let mask_right = _mm256_and_si256(mask, _mm256_srlv_epi64(mask, shift));
    for _ in 0..2 {
        left = _mm256_or_si256(
            left,
            _mm256_and_si256(mask_left, _mm256_sllv_epi64(left, shift2)),
        );
        right = _mm256_or_si256(
            right,
            _mm256_and_si256(mask_right, _mm256_srlv_epi64(right, shift2)),
        );
    }
    _mm256_or_si256(
        _mm256_sllv_epi64(left, shift),
        _mm256_srlv_epi64(right, shift),
    )
}

/// The union of a register's four lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn or_lanes_avx2(lanes: std::arch::x86_64::__m256i) -> u64 {
    use std::arch::x86_64::*;
    let half = _mm_or_si128(
        _mm256_castsi256_si128(lanes),
        _mm256_extracti128_si256::<1>(lanes),
    );
    (_mm_cvtsi128_si64(half) | _mm_extract_epi64::<1>(half)) as u64
}

/// [`legal_moves`] one direction family at a time.
#[inline]
fn legal_moves_scalar(player: u64, opponent: u64) -> u64 {
    let inner = opponent & NOT_EDGE_FILES;
    let moves = moves_along(player, inner, 1)
        | moves_along(player, opponent, 8)
        | moves_along(player, inner, 7)
        | moves_along(player, inner, 9);
    moves & !(player | opponent)
}

/// Iterator over the set bits of a bitboard, lowest first, as square indices.
#[derive(Clone, Copy, Debug)]
pub struct Bits(pub u64);

impl Iterator for Bits {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bits {}

/// Mirror left-right: file a <-> file h.
#[inline]
pub fn mirror_horizontal(b: u64) -> u64 {
    b.reverse_bits().swap_bytes()
}

/// Mirror top-bottom: rank 1 <-> rank 8.
#[inline]
pub fn flip_vertical(b: u64) -> u64 {
    b.swap_bytes()
}

/// Transpose about the a1-h8 diagonal: (file, rank) -> (rank, file), by three delta swaps.
#[inline]
pub fn transpose(mut b: u64) -> u64 {
    let t = 0x0F0F_0F0F_0000_0000 & (b ^ (b << 28));
    b ^= t ^ (t >> 28);
    let t = 0x3333_0000_3333_0000 & (b ^ (b << 14));
    b ^= t ^ (t >> 14);
    let t = 0x5500_5500_5500_5500 & (b ^ (b << 7));
    b ^= t ^ (t >> 7);
    b
}

/// Apply symmetry `sym` (0..8) to a bitboard: bit 2 transposes first, then bit 0 mirrors
/// left-right, then bit 1 flips top-bottom. Symmetry 0 is the identity.
#[inline]
pub fn apply_symmetry(mut b: u64, sym: u8) -> u64 {
    if sym & 4 != 0 {
        b = transpose(b);
    }
    if sym & 1 != 0 {
        b = mirror_horizontal(b);
    }
    if sym & 2 != 0 {
        b = flip_vertical(b);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_moves_agree_with_the_scalar_fill_on_random_boards() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let other = state.rotate_left(31).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let (player, opponent) = (state & !other, other & !state);
            assert_eq!(
                legal_moves(player, opponent),
                legal_moves_scalar(player, opponent),
                "{player:#x} {opponent:#x}"
            );
            #[cfg(target_arch = "x86_64")]
            let levels = [false, has_avx2()];
            #[cfg(not(target_arch = "x86_64"))]
            let levels = [false];
            for avx2 in levels {
                // SAFETY: AVX2 is asked for only where the CPU runs it.
                let (one, both) = unsafe {
                    (
                        legal_moves_on(avx2, player, opponent),
                        legal_moves_both_on(avx2, player, opponent),
                    )
                };
                assert_eq!(one, legal_moves_scalar(player, opponent));
                assert_eq!(both, (one, legal_moves_scalar(opponent, player)));
            }
            assert_eq!(
                legal_moves_both(player, opponent),
                (
                    legal_moves_scalar(player, opponent),
                    legal_moves_scalar(opponent, player)
                ),
                "{player:#x} {opponent:#x}"
            );
        }
    }

    fn naive_symmetry(sq: usize, sym: u8) -> usize {
        let (mut f, mut r) = (sq % 8, sq / 8);
        if sym & 4 != 0 {
            std::mem::swap(&mut f, &mut r);
        }
        if sym & 1 != 0 {
            f = 7 - f;
        }
        if sym & 2 != 0 {
            r = 7 - r;
        }
        r * 8 + f
    }

    #[test]
    fn symmetries_map_each_square_like_the_naive_formula() {
        for sym in 0..8 {
            for sq in 0..64 {
                assert_eq!(
                    apply_symmetry(1u64 << sq, sym),
                    1u64 << naive_symmetry(sq, sym),
                    "sym {sym} sq {sq}"
                );
            }
        }
    }

    #[test]
    fn start_position_has_four_moves() {
        // d5 and e4 black; d4 and e5 white (a1 top-left).
        let black = (1u64 << 35) | (1u64 << 28);
        let white = (1u64 << 27) | (1u64 << 36);
        let moves = legal_moves(black, white);
        // d3, c4, f5, e6
        let expected = (1u64 << 19) | (1u64 << 26) | (1u64 << 37) | (1u64 << 44);
        assert_eq!(moves, expected);
        assert_eq!(super::super::flips(black, white, 19), 1u64 << 27);
    }
}
