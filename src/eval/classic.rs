//! The classic weighted-square evaluator of early Othello programs.

use super::evaluator::{EVAL_LIMIT, Evaluator, mirror_rows, table_sum};
use crate::board::{Position, legal_moves};

const SQUARE_VALUES: [i32; 64] = mirror_rows([
    [20, -3, -1, -1, -1, -1, -3, 20],
    [-3, -6, -2, -2, -2, -2, -6, -3],
    [-1, -2, 0, 0, 0, 0, -2, -1],
    [-1, -2, 0, 0, 0, 0, -2, -1],
]);

/// Returned (with the sign of the side that still has discs) when one side has none.
const WIPEOUT: i32 = EVAL_LIMIT - 1;

/// For each side: minus its discs, plus 2 x its mobility, plus its square values, plus 3 x its
/// protected discs; the score is own total minus the opponent's.
#[derive(Clone, Copy, Debug, Default)]
pub struct Classic;

fn side_total(own: u64, other: u64) -> i32 {
    -(own.count_ones() as i32)
        + 2 * legal_moves(own, other).count_ones() as i32
        + table_sum(&SQUARE_VALUES, own)
        + 3 * protected_discs(own, other).count_ones() as i32
}

impl Evaluator for Classic {
    const ID: u8 = 4;
    type State = ();

    fn evaluate(&self, p: &Position) -> i32 {
        let (own, other) = (p.player(), p.opponent());
        if own == 0 {
            return -WIPEOUT;
        }
        if other == 0 {
            return WIPEOUT;
        }
        side_total(own, other) - side_total(other, own)
    }

    /// A classic point is worth about a third of a disc: the least-squares fit of exact scores
    /// at 12-18 empties of expert games (`tests/eval_scale.rs`) of six years gives 33 to 46 hundredths.
    fn centidiscs_per_unit(&self) -> f64 {
        38.0
    }
}

/// Shifts one step along direction `shift` (positive: towards higher indices), dropping
/// squares that would wrap around a side edge.
#[inline]
fn step(b: u64, shift: i32) -> u64 {
    const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
    const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    match shift {
        1 => (b << 1) & NOT_A,
        -1 => (b >> 1) & NOT_H,
        8 => b << 8,
        -8 => b >> 8,
        9 => (b << 9) & NOT_A,
        -9 => (b >> 9) & NOT_H,
        7 => (b << 7) & NOT_H,
        -7 => (b >> 7) & NOT_A,
        _ => 0,
    }
}

/// Own discs whose neighbour `shift` away satisfies `seed`, extended through runs of own discs:
/// the discs from which walking along `shift` over own discs ends on a square in `seed`.
fn run_ends_in(own: u64, seed: u64, shift: i32) -> u64 {
    let mut set = own & step(seed, -shift);
    loop {
        let next = set | (own & step(set, -shift));
        if next == set {
            return set;
        }
        set = next;
    }
}

/// Protected discs of `own`: along each of the four lines through the disc, either one side runs
/// over own discs to the edge, or both sides end on opponent discs.
pub fn protected_discs(own: u64, other: u64) -> u64 {
    let mut protected = own;
    for shift in [1, 8, 9, 7] {
        // Squares just outside the board in each direction: a disc whose next square along
        // `shift` is off the board reaches the edge at once.
        let edge_fwd = own & !step(u64::MAX, -shift);
        let edge_back = own & !step(u64::MAX, shift);
        let to_edge_fwd = edge_fwd | run_ends_in(own, edge_fwd, shift);
        let to_edge_back = edge_back | run_ends_in(own, edge_back, -shift);
        let opp_fwd = run_ends_in(own, other, shift);
        let opp_back = run_ends_in(own, other, -shift);
        protected &= to_edge_fwd | to_edge_back | (opp_fwd & opp_back);
    }
    protected
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;

    /// Walks one line from `sq` by (df, dr) over own discs; what ends the walk.
    fn walk(own: u64, other: u64, sq: i32, df: i32, dr: i32) -> &'static str {
        let (mut f, mut r) = (sq % 8 + df, sq / 8 + dr);
        while (0..8).contains(&f) && (0..8).contains(&r) {
            let bit = 1u64 << (r * 8 + f);
            if own & bit == 0 {
                return if other & bit != 0 { "opp" } else { "empty" };
            }
            f += df;
            r += dr;
        }
        "edge"
    }

    fn naive_protected(own: u64, other: u64) -> u64 {
        (0..64)
            .filter(|&sq| own & (1u64 << sq) != 0)
            .filter(|&sq| {
                [(1, 0), (0, 1), (1, 1), (1, -1)].iter().all(|&(df, dr)| {
                    let a = walk(own, other, sq, df, dr);
                    let b = walk(own, other, sq, -df, -dr);
                    a == "edge" || b == "edge" || (a == "opp" && b == "opp")
                })
            })
            .fold(0, |acc, sq| acc | 1u64 << sq)
    }

    #[test]
    fn protected_discs_match_the_definition() {
        let mut seed = 12345u64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let a = seed;
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let own = a & seed;
            let other = !a & seed.rotate_left(11) & !own;
            assert_eq!(protected_discs(own, other), naive_protected(own, other));
        }
    }

    #[test]
    fn classic_is_antisymmetric_and_prefers_corners() {
        let p: Position = "X-----------------------------------O--------------------------- X"
            .parse()
            .unwrap();
        let q = Position::from_colors(p.discs(Color::Black), p.discs(Color::White), Color::White)
            .unwrap();
        assert_eq!(Classic.evaluate(&p), -Classic.evaluate(&q));
        // X: -1 disc + 20 corner value + 3 x 1 protected; O on e5: -1 disc, value 0.
        assert_eq!(Classic.evaluate(&p), 22 - (-1));
    }
}
