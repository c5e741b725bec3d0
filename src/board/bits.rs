//! Bit-parallel primitives on 64-bit boards: move generation and flips.
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

/// Whether this CPU runs AVX2: known at compile time when the build targets it, else asked of
/// the CPU once and cached by the standard library.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn has_avx2() -> bool {
    cfg!(target_feature = "avx2") || std::is_x86_feature_detected!("avx2")
}

/// Whether this CPU runs BMI2 (`pext`, for the evaluation's bit gathers), as [`has_avx2`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn has_bmi2() -> bool {
    cfg!(target_feature = "bmi2") || std::is_x86_feature_detected!("bmi2")
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
    let moves = _mm256_or_si256(
        _mm256_sllv_epi64(left, shift),
        _mm256_srlv_epi64(right, shift),
    );
    let half = _mm_or_si128(
        _mm256_castsi256_si128(moves),
        _mm256_extracti128_si256::<1>(moves),
    );
    let all = (_mm_cvtsi128_si64(half) | _mm_extract_epi64::<1>(half)) as u64;
    all & !(player | opponent)
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

/// Direction steps as (file delta, rank delta); the first four increase the bit index.
const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (-1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

/// For each square and direction, the squares seen from it to the edge (the square excluded).
static RAYS: [[u64; 8]; 64] = build_rays();

const fn build_rays() -> [[u64; 8]; 64] {
    let mut rays = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = DIRECTIONS[d];
            let mut f = (sq % 8) as i32 + df;
            let mut r = (sq / 8) as i32 + dr;
            let mut ray = 0u64;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                ray |= 1u64 << (r * 8 + f);
                f += df;
                r += dr;
            }
            rays[sq][d] = ray;
            d += 1;
        }
        sq += 1;
    }
    rays
}

/// Per square: the four rays that climb in index (lanes 0-3), then the four rays that descend,
/// bit-reversed so that they climb too (lanes 4-7).
static LANE_RAYS: [[u64; 8]; 64] = build_lane_rays();

const fn build_lane_rays() -> [[u64; 8]; 64] {
    let mut lanes = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            lanes[sq][d] = RAYS[sq][d];
            lanes[sq][d + 4] = RAYS[sq][d + 4].reverse_bits();
            d += 1;
        }
        sq += 1;
    }
    lanes
}

/// The discs that `player` flips by playing on square index `sq` (0..64); empty if none.
/// The square itself must be empty.
///
/// Every ray is handled as a climbing one (the descending rays on bit-reversed boards), so that
/// the eight directions run as one eight-lane computation the compiler can vectorise: the
/// nearest non-opponent square on the ray is its lowest set bit, and the run below it flips
/// when that square is the player's.
#[inline(always)]
pub fn flips(player: u64, opponent: u64, sq: usize) -> u64 {
    let rays = &LANE_RAYS[sq];
    let (rp, ro) = (player.reverse_bits(), opponent.reverse_bits());
    let mut out = [0u64; 8];
    for lane in 0..8 {
        let (p, o) = if lane < 4 {
            (player, opponent)
        } else {
            (rp, ro)
        };
        let ray = rays[lane];
        let stop = ray & !o;
        let first = stop & stop.wrapping_neg();
        let run = first.wrapping_sub(1) & ray;
        out[lane] = run & 0u64.wrapping_sub(((first & p) != 0) as u64);
    }
    (out[0] | out[1] | out[2] | out[3]) | (out[4] | out[5] | out[6] | out[7]).reverse_bits()
}

/// [`flips`], with the descending rays read by leading-zero counts instead of on bit-reversed
/// boards: the nearest non-opponent square below the move is the highest set bit. Where the
/// CPU counts leading zeros in one instruction (LZCNT, and AVX-512 CD for four lanes at once)
/// this is about twice as fast as [`flips`] (a loop of flips on random positions: 0.44-0.75 of
/// the time compiled for AVX2, 0.42-0.59 for AVX-512); without it the count is emulated and
/// no faster. So code compiled for x86-64-v3 or above calls this one ([`flips_with`]).
#[inline(always)]
pub fn flips_lzcnt(player: u64, opponent: u64, sq: usize) -> u64 {
    let rays = &RAYS[sq];
    let mut out = [0u64; 8];
    for lane in 0..4 {
        // Climbing: the nearest non-opponent square is the lowest set bit.
        let stop = rays[lane] & !opponent;
        let first = stop & stop.wrapping_neg();
        let run = first.wrapping_sub(1) & rays[lane];
        out[lane] = run & 0u64.wrapping_sub(((first & player) != 0) as u64);
    }
    for lane in 4..8 {
        // Descending: the highest set bit (none when `stop` is empty: the mask clears it).
        let stop = rays[lane] & !opponent;
        let first = (1u64 << 63).wrapping_shr(stop.leading_zeros()) & stop;
        let run = (first.wrapping_neg() << 1) & rays[lane];
        out[lane] = run & 0u64.wrapping_sub(((first & player) != 0) as u64);
    }
    (out[0] | out[1] | out[2] | out[3]) | (out[4] | out[5] | out[6] | out[7])
}

/// [`flips_lzcnt`] when `LZCNT`, else [`flips`]: for code compiled once per instruction set
/// (the solver's copies), which names its choice once.
#[inline(always)]
pub fn flips_with<const LZCNT: bool>(player: u64, opponent: u64, sq: usize) -> u64 {
    if LZCNT {
        flips_lzcnt(player, opponent, sq)
    } else {
        flips(player, opponent, sq)
    }
}

/// For a disc placed at `pos` (0..8) on a line whose other squares hold `player` discs where the
/// 8-bit pattern has a one and opponent discs elsewhere: how many discs it flips along that line.
/// Squares off the board read as zeros, which is harmless: a run through them never ends on a
/// player disc.
static LINE_FLIP_COUNT: [[u8; 256]; 8] = build_line_flip_count();

const fn build_line_flip_count() -> [[u8; 256]; 8] {
    let mut table = [[0u8; 256]; 8];
    let mut pos = 0;
    while pos < 8 {
        let mut pattern = 0;
        while pattern < 256 {
            let mut count = 0;
            // Towards lower positions, then higher ones.
            let mut run = 0;
            let mut i = pos as i32 - 1;
            while i >= 0 && pattern & (1 << i) == 0 {
                run += 1;
                i -= 1;
            }
            if i >= 0 {
                count += run;
            }
            run = 0;
            let mut i = pos + 1;
            while i < 8 && pattern & (1 << i) == 0 {
                run += 1;
                i += 1;
            }
            if i < 8 {
                count += run;
            }
            table[pos][pattern] = count as u8;
            pattern += 1;
        }
        pos += 1;
    }
    table
}

/// Per square: the masks of its diagonal (file - rank constant) and anti-diagonal.
static DIAGONALS: [(u64, u64); 64] = build_diagonals();

const fn build_diagonals() -> [(u64, u64); 64] {
    let mut out = [(0u64, 0u64); 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut diag = 0u64;
        let mut anti = 0u64;
        let mut i = 0;
        while i < 64 {
            let (fi, ri) = (i % 8, i / 8);
            if fi - ri == f - r {
                diag |= 1u64 << i;
            }
            if fi + ri == f + r {
                anti |= 1u64 << i;
            }
            i += 1;
        }
        out[sq] = (diag, anti);
        sq += 1;
    }
    out
}

/// How many discs `player` flips by playing square `sq` when `sq` is the only empty square, so
/// that every other square not in `player` holds an opponent disc. Zero means the move is not
/// legal. Four table lookups, one per line, instead of a full flip computation: the last move
/// of every endgame solve goes through here.
#[inline(always)]
pub fn last_flip_count(player: u64, sq: usize) -> u32 {
    let (file, rank) = (sq & 7, sq >> 3);
    let row = (player >> (rank * 8)) & 0xFF;
    let column =
        ((player >> file) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56;
    let (diag, anti) = DIAGONALS[sq];
    let diagonal = (player & diag).wrapping_mul(0x0101_0101_0101_0101) >> 56;
    let anti_diagonal = (player & anti).wrapping_mul(0x0101_0101_0101_0101) >> 56;
    u32::from(LINE_FLIP_COUNT[file][row as usize])
        + u32::from(LINE_FLIP_COUNT[rank][column as usize])
        + u32::from(LINE_FLIP_COUNT[file][diagonal as usize])
        + u32::from(LINE_FLIP_COUNT[file][anti_diagonal as usize])
}

/// The squares around each square (up to 8): a move on a square with no opponent disc among
/// them flips nothing, which the solver's last plies test before counting flips.
pub static NEIGHBOURS: [u64; 64] = build_neighbours();

const fn build_neighbours() -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut around = 0u64;
        let mut df = -1;
        while df <= 1 {
            let mut dr = -1;
            while dr <= 1 {
                let (f, r) = (file + df, rank + dr);
                if (df != 0 || dr != 0) && f >= 0 && f < 8 && r >= 0 && r < 8 {
                    around |= 1u64 << (r * 8 + f);
                }
                dr += 1;
            }
            df += 1;
        }
        table[sq] = around;
        sq += 1;
    }
    table
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
        }
    }

    #[test]
    fn last_flip_count_matches_flips_on_full_boards() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let sq = (state >> 58) as usize;
            let player = state.rotate_left(23) & !(1u64 << sq);
            let opponent = !player & !(1u64 << sq);
            assert_eq!(
                last_flip_count(player, sq),
                flips(player, opponent, sq).count_ones(),
                "player {player:#x} square {sq}"
            );
            assert_eq!(
                last_flip_count(opponent, sq),
                flips(opponent, player, sq).count_ones(),
                "opponent {opponent:#x} square {sq}"
            );
        }
    }

    #[test]
    fn both_ways_of_finding_flips_agree_on_random_boards() {
        // `flips` itself is checked by the perft counts; densities from sparse to full.
        let mut state = 0x6A09_E667_F3BC_C908u64;
        for i in 0..300_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let sq = (state >> 58) as usize;
            let mut occupied = state.rotate_left(17);
            for _ in 0..i % 3 {
                occupied |= occupied.rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            }
            let occupied = occupied & !(1u64 << sq);
            let player = occupied & state.rotate_left(41);
            let opponent = occupied & !player;
            assert_eq!(
                flips_lzcnt(player, opponent, sq),
                flips(player, opponent, sq),
                "{player:#x} {opponent:#x} {sq}"
            );
            assert_eq!(
                flips_with::<true>(opponent, player, sq),
                flips(opponent, player, sq)
            );
        }
    }

    #[test]
    fn neighbours_are_the_eight_around_and_every_flip_starts_among_them() {
        // a1 has b1, a2, b2; b1 five; d4 eight.
        assert_eq!(NEIGHBOURS[0], 0x302);
        assert_eq!(NEIGHBOURS[1].count_ones(), 5);
        assert_eq!(NEIGHBOURS[27].count_ones(), 8);
        assert!((0..64).all(|sq| NEIGHBOURS[sq] & (1u64 << sq) == 0));
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let other = state.rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let sq = (state >> 58) as usize;
            let (player, opponent) = (state & !other & !(1 << sq), other & !state & !(1 << sq));
            if opponent & NEIGHBOURS[sq] == 0 {
                assert_eq!(
                    flips(player, opponent, sq),
                    0,
                    "{player:#x} {opponent:#x} {sq}"
                );
            }
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
        assert_eq!(flips(black, white, 19), 1u64 << 27);
    }
}
