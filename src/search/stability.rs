//! Stable discs: discs that no sequence of moves can flip. Their count bounds the final score,
//! which lets the endgame solver cut off hopeless branches.

const A_FILE: u64 = 0x0101_0101_0101_0101;
const H_FILE: u64 = 0x8080_8080_8080_8080;
const RANK_1: u64 = 0x0000_0000_0000_00FF;
const RANK_8: u64 = 0xFF00_0000_0000_0000;
const BORDER: u64 = A_FILE | H_FILE | RANK_1 | RANK_8;

/// The 15 diagonals along +9 (a1-h8 direction) and the 15 along +7 (h1-a8 direction).
static DIAGONALS: ([u64; 15], [u64; 15]) = build_diagonals();

const fn build_diagonals() -> ([u64; 15], [u64; 15]) {
    let mut d9 = [0u64; 15];
    let mut d7 = [0u64; 15];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = (sq % 8, sq / 8);
        d9[7 + f - r] |= 1u64 << sq;
        d7[f + r] |= 1u64 << sq;
        sq += 1;
    }
    (d9, d7)
}

/// Squares on full lines: (horizontal, vertical, +9 diagonal, +7 diagonal).
#[inline]
fn full_lines(filled: u64) -> (u64, u64, u64, u64) {
    let mut h = 0;
    for r in 0..8 {
        let row = RANK_1 << (8 * r);
        if filled & row == row {
            h |= row;
        }
    }
    let mut c = filled;
    c &= c >> 32;
    c &= c >> 16;
    c &= c >> 8;
    let v = (c & 0xFF).wrapping_mul(A_FILE);
    let mut d9 = 0;
    let mut d7 = 0;
    for i in 0..15 {
        if filled & DIAGONALS.0[i] == DIAGONALS.0[i] {
            d9 |= DIAGONALS.0[i];
        }
        if filled & DIAGONALS.1[i] == DIAGONALS.1[i] {
            d7 |= DIAGONALS.1[i];
        }
    }
    (h, v, d9, d7)
}

/// A subset of the stable discs of `own`: along each of the four lines through such a disc,
/// the line is full, or the disc is on the border, or a neighbour on the line is stable.
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
