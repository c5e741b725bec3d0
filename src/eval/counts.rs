//! The count features that may follow the patterns in a stage's table: mobility, potential
//! mobility and the parity of the empties. They read counts of the whole board, not square
//! groups, so they live apart from the patterns of `features.rs`; they follow the patterns' weights,
//! whose end `shapes.rs` gives.

use super::shapes::PATTERNS_END;
use crate::board::legal_moves_both;

/// The most moves counted by the mobility features; more count as this many.
pub const MOBILITY_MAX: usize = 24;
/// The most squares counted by the potential mobility features.
pub const POTENTIAL_MAX: usize = 32;
/// Weights of the count features after the patterns: the side to move's mobility, the other
/// side's, both sides' potential mobility, then the parity of the empties (which side would
/// play last if nobody passed; it also absorbs what the labels owe to whose turn it is).
pub const COUNT_WEIGHTS: usize = 2 * (MOBILITY_MAX + 1) + 2 * (POTENTIAL_MAX + 1) + 2;
/// The most moves a side counts in the joint mobility table of [`Counts::Joint`].
pub const JOINT_MOBILITY_MAX: usize = 12;
/// Weights of [`Counts::Joint`] after [`COUNT_WEIGHTS`]: both sides' move counts together
/// (capped at [`JOINT_MOBILITY_MAX`]), then both sides' corner moves together.
pub const JOINT_WEIGHTS: usize = (JOINT_MOBILITY_MAX + 1) * (JOINT_MOBILITY_MAX + 1) + 25;
/// Where the parity weights (even, then odd empties) lie in a stage's table.
pub const PARITY_WEIGHTS: usize = PATTERNS_END + COUNT_WEIGHTS - 2;

/// The empty squares next to a disc of `discs` (where the other side may later move): the
/// discs spread one square sideways, then that spread one square up and down.
#[inline]
fn frontier(discs: u64, empty: u64) -> u64 {
    const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let row = discs | ((discs << 1) & NOT_A) | ((discs >> 1) & NOT_H);
    (row | (row << 8) | (row >> 8)) & empty
}

/// Which count features follow the patterns in a layout of weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counts {
    /// The patterns alone.
    None,
    /// The parity of the empties alone: one lookup.
    Parity,
    /// Potential mobility and parity: a few bit operations per evaluation.
    Potential,
    /// Those and both sides' mobility, which costs two move generations per evaluation.
    All,
    /// Those and what the two sides' moves say together: the pair of move counts, and the
    /// pair of corner-move counts (interactions, which the sums of `All` cannot hold).
    /// Scored apart ([`joint_count_features`]), so that the other layouts' path stays as it
    /// was.
    Joint,
}

/// The offsets in a stage's table (after the pattern weights, which end at [`PATTERNS_END`])
/// of the count features of `counts` that `player` to move against `opponent` selects, and
/// how many there are: potential mobility and parity, then mobility.
#[inline(always)]
pub fn count_features(player: u64, opponent: u64, counts: Counts) -> ([u32; 5], usize) {
    let mut out = [0u32; 5];
    let empty = !(player | opponent);
    match counts {
        Counts::None => return (out, 0),
        Counts::Parity => {
            out[0] = (PARITY_WEIGHTS + (empty.count_ones() & 1) as usize) as u32;
            return (out, 1);
        }
        Counts::Potential | Counts::All | Counts::Joint => {}
    }
    // Potential mobility: empty squares beside the other side's discs are where the side to
    // move may later play.
    let mine_potential = (frontier(opponent, empty).count_ones() as usize).min(POTENTIAL_MAX);
    let theirs_potential = (frontier(player, empty).count_ones() as usize).min(POTENTIAL_MAX);
    let mobility = PATTERNS_END;
    let third = mobility + 2 * (MOBILITY_MAX + 1);
    let fourth = third + POTENTIAL_MAX + 1;
    let parity = PARITY_WEIGHTS + (empty.count_ones() & 1) as usize;
    out[0] = (third + mine_potential) as u32;
    out[1] = (fourth + theirs_potential) as u32;
    out[2] = parity as u32;
    if counts == Counts::Potential {
        return (out, 3);
    }
    let (mine, theirs) = legal_moves_both(player, opponent);
    [out[3], out[4]] = mobility_features(mine, theirs);
    (out, 5)
}

/// The offsets of both sides' mobility features, from their moves.
#[inline(always)]
fn mobility_features(mine: u64, theirs: u64) -> [u32; 2] {
    let mine_count = (mine.count_ones() as usize).min(MOBILITY_MAX);
    let theirs_count = (theirs.count_ones() as usize).min(MOBILITY_MAX);
    [
        (PATTERNS_END + mine_count) as u32,
        (PATTERNS_END + MOBILITY_MAX + 1 + theirs_count) as u32,
    ]
}

/// The count features of [`Counts::Joint`] (as [`count_features`]): those of [`Counts::All`],
/// then the pair of both sides' move counts and the pair of their corner moves.
#[inline(always)]
pub fn joint_count_features(player: u64, opponent: u64) -> [u32; 7] {
    const CORNERS: u64 = 0x8100_0000_0000_0081;
    // Potential mobility and parity, then the moves generated once for both kinds of
    // mobility feature.
    let (potential, _) = count_features(player, opponent, Counts::Potential);
    let (mine, theirs) = legal_moves_both(player, opponent);
    let side = JOINT_MOBILITY_MAX + 1;
    let joint = PATTERNS_END + COUNT_WEIGHTS;
    let capped = |moves: u64| (moves.count_ones() as usize).min(JOINT_MOBILITY_MAX);
    let corners = |moves: u64| (moves & CORNERS).count_ones() as usize;
    let pair = capped(mine) * side + capped(theirs);
    let corner_pair = corners(mine) * 5 + corners(theirs);
    let mut out = [0u32; 7];
    out[..3].copy_from_slice(&potential[..3]);
    [out[3], out[4]] = mobility_features(mine, theirs);
    out[5] = (joint + pair) as u32;
    out[6] = (joint + side * side + corner_pair) as u32;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;

    #[test]
    fn frontier_counts_the_empty_neighbours() {
        let start = Position::start();
        // Each side's two diagonal centre discs touch 10 empty squares.
        let empty = start.empty();
        assert_eq!(frontier(start.player(), empty).count_ones(), 10);
        assert_eq!(frontier(start.opponent(), empty).count_ones(), 10);
        // A lone corner disc has three neighbours, none across the edge.
        // A lone disc on a1 touches b1, a2 and b2, and nothing across the edges.
        assert_eq!(frontier(1, !1), 0x302);
    }

    #[test]
    fn joint_counts_pair_the_move_counts_and_the_corner_moves() {
        let joint = PATTERNS_END + COUNT_WEIGHTS;
        let side = JOINT_MOBILITY_MAX + 1;
        // The start: four moves each, no corner; All's features first, unchanged.
        let start = Position::start();
        let out = joint_count_features(start.player(), start.opponent());
        let (all, five) = count_features(start.player(), start.opponent(), Counts::All);
        assert_eq!((&out[..5], five), (&all[..], 5));
        assert_eq!(out[5] as usize, joint + 4 * side + 4);
        assert_eq!(out[6] as usize, joint + side * side);
        // White on b2 and c3 with black on d4: black (to move) has one move, the corner a1;
        // white one, e5.
        let (black, white) = (1u64 << 27, (1u64 << 9) | (1u64 << 18));
        let out = joint_count_features(black, white);
        assert_eq!(out[5] as usize, joint + side + 1);
        assert_eq!(out[6] as usize, joint + side * side + 5);
    }
}
