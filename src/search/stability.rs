//! Stable discs: discs that no sequence of moves can flip. Their count bounds the final score,
//! which lets the endgame solver cut off hopeless branches.

const A_FILE: u64 = 0x0101_0101_0101_0101;
const H_FILE: u64 = 0x8080_8080_8080_8080;
const RANK_1: u64 = 0x0000_0000_0000_00FF;
const RANK_8: u64 = 0xFF00_0000_0000_0000;
const BORDER: u64 = A_FILE | H_FILE | RANK_1 | RANK_8;

/// Squares whose `k`-th neighbour in the direction (`df` files, `dr` ranks) is off the board.
const fn beyond(df: i32, dr: i32, k: i32) -> u64 {
    let mut mask = 0u64;
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = (sq % 8 + df * k, sq / 8 + dr * k);
        if f < 0 || f > 7 || r < 0 || r > 7 {
            mask |= 1u64 << sq;
        }
        sq += 1;
    }
    mask
}

/// For one direction and its opposite: the squares with no 1st, 2nd or 4th neighbour that way.
const fn edges(df: i32, dr: i32) -> ([u64; 3], [u64; 3]) {
    (
        [beyond(df, dr, 1), beyond(df, dr, 2), beyond(df, dr, 4)],
        [
            beyond(-df, -dr, 1),
            beyond(-df, -dr, 2),
            beyond(-df, -dr, 4),
        ],
    )
}

const EDGES_H: ([u64; 3], [u64; 3]) = edges(1, 0);
const EDGES_V: ([u64; 3], [u64; 3]) = edges(0, 1);
const EDGES_D9: ([u64; 3], [u64; 3]) = edges(1, 1);
const EDGES_D7: ([u64; 3], [u64; 3]) = edges(-1, 1);

/// The filled squares whose whole line along `step` (1, 8, 9 or 7: the bit distance to the
/// next square of the line) is filled. Each way, a square keeps its mark while the squares
/// 1, then 2 and 3, then 4 to 7 further hold theirs (or the line ends first): three shifts a
/// way. A shift that wraps round the board only ever lands on a square whose line has ended,
/// which the edge masks already let through.
#[inline]
fn full_along(filled: u64, step: u32, (ahead, behind): ([u64; 3], [u64; 3])) -> u64 {
    let mut forward = filled & (ahead[0] | (filled >> step));
    forward &= ahead[1] | (forward >> (2 * step));
    forward &= ahead[2] | (forward >> (4 * step));
    let mut backward = filled & (behind[0] | (filled << step));
    backward &= behind[1] | (backward << (2 * step));
    backward &= behind[2] | (backward << (4 * step));
    forward & backward
}

/// Squares on full lines: (horizontal, vertical, +9 diagonal, +7 diagonal).
#[inline]
fn full_lines(filled: u64) -> (u64, u64, u64, u64) {
    (
        full_along(filled, 1, EDGES_H),
        full_along(filled, 8, EDGES_V),
        full_along(filled, 9, EDGES_D9),
        full_along(filled, 7, EDGES_D7),
    )
}

/// A subset of the stable discs of `own`: along each of the four lines through such a disc,
/// the line is full, or the disc is on the border, or a neighbour on the line is stable.
#[inline(always)]
pub fn stable_discs(own: u64, other: u64) -> u64 {
    let (full_h, full_v, full_d9, full_d7) = full_lines(own | other);
    // Wrapped shifts below only ever land on border squares, which count as safe anyway.
    let safe_h = full_h | A_FILE | H_FILE;
    let safe_v = full_v | RANK_1 | RANK_8;
    let safe_d9 = full_d9 | BORDER;
    let safe_d7 = full_d7 | BORDER;
    let mut stable = own & safe_h & safe_v & safe_d9 & safe_d7;
    loop {
        let next = own
            & (safe_h | (stable << 1) | (stable >> 1))
            & (safe_v | (stable << 8) | (stable >> 8))
            & (safe_d9 | (stable << 9) | (stable >> 9))
            & (safe_d7 | (stable << 7) | (stable >> 7));
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Bits, flips, legal_moves};

    /// The full lines by walking every line of the board, square by square.
    fn naive_full_lines(filled: u64) -> (u64, u64, u64, u64) {
        let at = |f: i32, r: i32| (0..8).contains(&f) && (0..8).contains(&r);
        let mut out = [0u64; 4];
        for (i, (df, dr)) in [(1, 0), (0, 1), (1, 1), (-1, 1)].into_iter().enumerate() {
            for sq in 0..64 {
                let (f, r) = (sq % 8, sq / 8);
                let mut full = true;
                for sign in [-1, 1] {
                    let (mut x, mut y) = (f, r);
                    while at(x, y) {
                        full &= filled & (1u64 << (y * 8 + x)) != 0;
                        (x, y) = (x + sign * df, y + sign * dr);
                    }
                }
                if full {
                    out[i] |= 1u64 << sq;
                }
            }
        }
        (out[0], out[1], out[2], out[3])
    }

    #[test]
    fn full_lines_match_a_walk_along_every_line() {
        let mut seed = 7u64;
        for round in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Mostly full boards, where lines are full often enough to matter.
            let holes = seed.rotate_left(17) & seed.rotate_left(41) & seed.rotate_left(5);
            let filled = if round % 2 == 0 { !holes } else { seed };
            assert_eq!(full_lines(filled), naive_full_lines(filled), "{filled:#x}");
        }
    }

    #[test]
    fn corners_and_full_boards() {
        assert_eq!(stable_discs(1, 0), 1);
        assert_eq!(stable_discs(1 << 9, 0), 0);
        // A full board: every disc is stable.
        let own = 0x0F0F_0F0F_0F0F_0F0F;
        assert_eq!(stable_discs(own, !own), own);
        // A full top edge owned from a1: all of it stable.
        assert_eq!(stable_discs(0xFF, 0) & 0xFF, 0xFF);
    }

    /// Plays random games and checks that discs called stable never change colour.
    #[test]
    fn stable_discs_never_flip() {
        let mut seed = 99u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..300 {
            let (mut p, mut o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
            let mut stable_p = 0u64;
            let mut stable_o = 0u64;
            loop {
                stable_p |= stable_discs(p, o);
                stable_o |= stable_discs(o, p);
                assert_eq!(stable_p & !p, 0, "a stable disc changed colour");
                assert_eq!(stable_o & !o, 0, "a stable disc changed colour");
                let moves = legal_moves(p, o);
                if moves == 0 {
                    if legal_moves(o, p) == 0 {
                        break;
                    }
                    std::mem::swap(&mut p, &mut o);
                    std::mem::swap(&mut stable_p, &mut stable_o);
                    continue;
                }
                let all: Vec<usize> = Bits(moves).collect();
                let sq = all[(next() % all.len() as u64) as usize];
                let f = flips(p, o, sq);
                let (np, no) = (o & !f, p | f | (1u64 << sq));
                p = np;
                o = no;
                std::mem::swap(&mut stable_p, &mut stable_o);
            }
        }
    }
}
