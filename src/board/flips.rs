//! Flips: the discs a move turns, found ray by ray on bitboards, and the tables the
//! solver's last plies use to count them without making the move.
//!
//! Two ways to find the flips of a move, both computing the eight rays as eight 64-bit lanes
//! that the compiler vectorises: [`flips`] reads every descending ray on bit-reversed boards,
//! [`flips_lzcnt`] by leading-zero counts; which is faster depends on the instructions the
//! code is compiled for ([`flips_with`]).
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
}
