//! Flips: the discs a move turns, found ray by ray on bitboards, and the tables the
//! solver's last plies use to count them without making the move.
//!
//! Three ways to find the flips of a move, each computing the eight rays as eight 64-bit
//! lanes: [`flips`] in portable code that the compiler vectorises, reading every descending
//! ray on bit-reversed boards; [`flips_avx2`] and [`flips_avx512`] in AVX2 registers, for the
//! solver's copies compiled for those instruction sets.
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

/// Per square: its rays as two vectors of four lanes, the four that climb in index
/// (steps +1, +7, +8, +9) and the four that descend (-1, -7, -8, -9), aligned for one load.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
#[repr(align(32))]
struct RayLanes([u64; 4]);

#[cfg(target_arch = "x86_64")]
static CLIMBING: [RayLanes; 64] = ray_lanes(0);
#[cfg(target_arch = "x86_64")]
static DESCENDING: [RayLanes; 64] = ray_lanes(4);

/// The four rays of each square from direction `first` on (in [`DIRECTIONS`] order).
#[cfg(target_arch = "x86_64")]
const fn ray_lanes(first: usize) -> [RayLanes; 64] {
    let mut out = [RayLanes([0; 4]); 64];
    let mut sq = 0;
    while sq < 64 {
        let mut lane = 0;
        while lane < 4 {
            out[sq].0[lane] = RAYS[sq][first + lane];
            lane += 1;
        }
        sq += 1;
    }
    out
}

/// [`flips`] in AVX2 registers: the four climbing rays in one register, the four descending
/// rays in another. Climbing, the nearest non-opponent square is the lowest set bit, as in
/// [`flips`]; descending it is the highest, which AVX2 cannot count to: each lane smears its
/// non-opponent squares down its own ray (three shifts by 1, 2 and 4 steps), so that the
/// squares above the smear are the run of opponent discs next to the move, and the smear's
/// top square is where it ends. About 42 instructions against 55 for the same eight lanes in
/// 64-bit registers with LZCNT; 0.64 of the time in a loop of independent flips.
///
/// # Safety
/// Code not itself compiled for AVX2 may call it only on a CPU that runs AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn flips_avx2(player: u64, opponent: u64, sq: usize) -> u64 {
    use std::arch::x86_64::*;
    let (p, o, down, climbed) = climbing_flips(player, opponent, sq);
    let step = _mm256_set_epi64x(9, 8, 7, 1);
    let stop = _mm256_andnot_si256(o, down);
    let mut smear = _mm256_or_si256(stop, _mm256_srlv_epi64(stop, step));
    smear = _mm256_or_si256(
        smear,
        _mm256_srlv_epi64(smear, _mm256_add_epi64(step, step)),
    );
    smear = _mm256_or_si256(
        smear,
        _mm256_srlv_epi64(smear, _mm256_slli_epi64::<2>(step)),
    );
    let end = _mm256_andnot_si256(_mm256_srlv_epi64(smear, step), stop);
    let run = _mm256_andnot_si256(smear, down);
    let open = _mm256_cmpeq_epi64(_mm256_and_si256(end, p), _mm256_setzero_si256());
    or_lanes(_mm256_or_si256(climbed, _mm256_andnot_si256(open, run)))
}

/// [`flips_avx2`] with AVX-512's leading-zero count of four lanes at once, which finds the
/// end of each descending ray in one instruction (0.6-0.7 of the time of the same loop over
/// 64-bit registers with LZCNT, compiled for AVX-512).
///
/// # Safety
/// Code not itself compiled for these features may call it only on a CPU that runs them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512cd")]
#[inline]
pub fn flips_avx512(player: u64, opponent: u64, sq: usize) -> u64 {
    use std::arch::x86_64::*;
    let (p, o, down, climbed) = climbing_flips(player, opponent, sq);
    // The highest non-opponent square (none when the count is 64: the shift clears it).
    let stop = _mm256_andnot_si256(o, down);
    let end = _mm256_srlv_epi64(_mm256_set1_epi64x(i64::MIN), _mm256_lzcnt_epi64(stop));
    let above_end = _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_add_epi64(end, end));
    let run = _mm256_and_si256(above_end, down);
    let descended = _mm256_maskz_mov_epi64(_mm256_test_epi64_mask(end, p), run);
    or_lanes(_mm256_or_si256(climbed, descended))
}

/// What both vector flips share: the boards in every lane, the descending rays of `sq`, and
/// the flips along the climbing rays.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn climbing_flips(
    player: u64,
    opponent: u64,
    sq: usize,
) -> (
    std::arch::x86_64::__m256i,
    std::arch::x86_64::__m256i,
    std::arch::x86_64::__m256i,
    std::arch::x86_64::__m256i,
) {
    use std::arch::x86_64::*;
    let p = _mm256_set1_epi64x(player as i64);
    let o = _mm256_set1_epi64x(opponent as i64);
    let zero = _mm256_setzero_si256();
    let (climbing, descending) = (&CLIMBING[sq & 63].0, &DESCENDING[sq & 63].0);
    // SAFETY: each table row is 32 bytes aligned to 32 (`RayLanes`), as the load needs.
    let (up, down) = unsafe {
        (
            _mm256_load_si256(climbing.as_ptr().cast()),
            _mm256_load_si256(descending.as_ptr().cast()),
        )
    };
    let stop = _mm256_andnot_si256(o, up);
    let first = _mm256_and_si256(stop, _mm256_sub_epi64(zero, stop));
    let run = _mm256_and_si256(_mm256_add_epi64(first, _mm256_set1_epi64x(-1)), up);
    let open = _mm256_cmpeq_epi64(_mm256_and_si256(first, p), zero);
    (p, o, down, _mm256_andnot_si256(open, run))
}

/// The four lanes of `v` ORed into one word.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn or_lanes(v: std::arch::x86_64::__m256i) -> u64 {
    use std::arch::x86_64::*;
    let half = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    (_mm_cvtsi128_si64(half) | _mm_extract_epi64::<1>(half)) as u64
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_way_of_finding_flips_agrees_on_random_boards() {
        // `flips` itself is checked by the perft counts; densities from sparse to full.
        let (avx2, avx512) = {
            use std::arch::is_x86_feature_detected as has;
            (
                has!("avx2"),
                has!("avx2") && has!("avx512f") && has!("avx512vl") && has!("avx512cd"),
            )
        };
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
            let expected = flips(player, opponent, sq);
            if avx2 {
                // SAFETY: the CPU runs AVX2 (checked above).
                let f = unsafe { flips_avx2(player, opponent, sq) };
                assert_eq!(f, expected, "{player:#x} {opponent:#x} {sq}");
            }
            if avx512 {
                // SAFETY: the CPU runs AVX2 and these AVX-512 parts (checked above).
                let f = unsafe { flips_avx512(player, opponent, sq) };
                assert_eq!(f, expected, "{player:#x} {opponent:#x} {sq}");
            }
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
}
