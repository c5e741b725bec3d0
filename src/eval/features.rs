//! The features the trained evaluators read: placements of fixed square groups (patterns)
//! whose contents index weight tables, and a few counts (mobility, potential mobility).
//!
//! **Patterns.** Every shape of [`SHAPES`] is placed on the board in all its distinct
//! orientations under the 8 symmetries; the placements of one shape share one weight table, so
//! a position and its mirror images score alike. A placement's index is its squares' contents
//! read as a base-3 number: 0 empty, 1 the side to move's disc, 2 the other side's; the first
//! square is the lowest digit.
//!
//! **Incremental indices.** Rebuilding 46 indices square by square at every node costs more
//! than the rest of a search node. [`FeatureState`] keeps the indices of both sides' views and
//! updates them along a move from one table row per changed square ([`FeatureState::play`]):
//! a move changes a handful of squares, each in about six placements, and the update is a few
//! vector additions over 48 lanes. A search carries the state down the tree; nothing is
//! allocated per node.

use crate::board::{Bits, apply_symmetry, legal_moves};
use std::sync::LazyLock;

/// The pattern shapes in one orientation, as square indices (`a1` = 0, `h1` = 7, `a2` = 8):
/// the family the strong engines use.
pub const SHAPES: [&[u8]; 11] = [
    // Second, third and fourth rows.
    &[8, 9, 10, 11, 12, 13, 14, 15],
    &[16, 17, 18, 19, 20, 21, 22, 23],
    &[24, 25, 26, 27, 28, 29, 30, 31],
    // Diagonals of 8, 7, 6, 5 and 4 squares.
    &[0, 9, 18, 27, 36, 45, 54, 63],
    &[1, 10, 19, 28, 37, 46, 55],
    &[2, 11, 20, 29, 38, 47],
    &[3, 12, 21, 30, 39],
    &[4, 13, 22, 31],
    // The edge with both X-squares.
    &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14],
    // A corner's 2 x 5 block.
    &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
    // A corner's 3 x 3 block.
    &[0, 1, 2, 8, 9, 10, 16, 17, 18],
];

/// The number of placements of all shapes.
pub const PLACEMENTS: usize = 46;
/// Lanes of the index vectors: the placements, padded to a multiple of 16.
pub const LANES: usize = 48;
/// The most squares in one shape.
const MAX_SHAPE: usize = 10;

/// Where each shape's weights start in a stage's table; entry 0 of a table is the bias. Also
/// returns the end of the pattern weights. Evaluated at compile time ([`PATTERNS_END`]).
pub const fn shape_offsets() -> ([u32; SHAPES.len()], usize) {
    let mut offsets = [0u32; SHAPES.len()];
    let mut at = 1usize;
    let mut i = 0;
    while i < SHAPES.len() {
        offsets[i] = at as u32;
        at += 3usize.pow(SHAPES[i].len() as u32);
        i += 1;
    }
    (offsets, at)
}

/// The end of the pattern weights in a stage's table: the count features follow.
pub const PATTERNS_END: usize = shape_offsets().1;

/// The placements and the update table, built once.
struct Tables {
    /// Each placement's squares, first digit first (`len` of them).
    squares: [[u8; MAX_SHAPE]; PLACEMENTS],
    len: [usize; PLACEMENTS],
    /// Where each placement's shape table starts (see [`shape_offsets`]).
    offsets: [u32; PLACEMENTS],
    /// For each square, `3^k` in the lane of every placement whose `k`-th digit it is.
    delta: [[u16; LANES]; 64],
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let (shape_start, _) = shape_offsets();
    let mut tables = Tables {
        squares: [[0; MAX_SHAPE]; PLACEMENTS],
        len: [0; PLACEMENTS],
        offsets: [0; PLACEMENTS],
        delta: [[0; LANES]; 64],
    };
    let mut n = 0;
    for (i, shape) in SHAPES.iter().enumerate() {
        let mut seen = Vec::new();
        for sym in 0..8 {
            let squares: Vec<u8> = shape
                .iter()
                .map(|&sq| apply_symmetry(1u64 << sq, sym).trailing_zeros() as u8)
                .collect();
            let set = squares.iter().fold(0u64, |acc, &sq| acc | (1u64 << sq));
            if seen.contains(&set) {
                continue;
            }
            seen.push(set);
            tables.squares[n][..squares.len()].copy_from_slice(&squares);
            tables.len[n] = squares.len();
            tables.offsets[n] = shape_start[i];
            for (k, &sq) in squares.iter().enumerate() {
                tables.delta[sq as usize][n] = 3u16.pow(k as u32);
            }
            n += 1;
        }
    }
    assert_eq!(n, PLACEMENTS, "the shapes have {n} placements");
    assert_eq!(
        tables.offsets[..],
        LANE_OFFSETS[..PLACEMENTS],
        "the lanes' shapes"
    );
    tables
});

/// For each shape of [`SHAPES`], the digit permutations of the symmetries that map its squares
/// onto themselves, the identity excluded: entry `k` of a permutation is where the image of
/// the shape's `k`-th square stands in the shape. A placement is stored in one order only, so
/// the mirror image of a position reads such a shape's digits in permuted order: its weights
/// must agree on indices that differ by these permutations, or mirror images would score
/// differently ([`symmetrize_patterns`]).
static SELF_SYMMETRIES: LazyLock<Vec<Vec<Vec<usize>>>> = LazyLock::new(|| {
    SHAPES
        .iter()
        .map(|shape| {
            (1..8u8)
                .filter_map(|sym| {
                    let image: Vec<u8> = shape
                        .iter()
                        .map(|&sq| apply_symmetry(1u64 << sq, sym).trailing_zeros() as u8)
                        .collect();
                    image
                        .iter()
                        .map(|sq| shape.iter().position(|s| s == sq))
                        .collect::<Option<Vec<usize>>>()
                })
                .collect()
        })
        .collect()
});

/// Per shape with self-symmetries, the classes of its indices that those symmetries relate
/// (only classes of two or more), as offsets from the start of a stage's table: the classes
/// one after another in `.0`, where each ends in `.1`. The same for every stage, so made
/// once: [`symmetrize_patterns`] runs over every stage of the weights each time they are
/// loaded, and making the classes took most of that time.
static SYMMETRY_CLASSES: LazyLock<(Vec<u32>, Vec<u32>)> = LazyLock::new(|| {
    let (starts, _) = shape_offsets();
    let (mut members, mut ends) = (Vec::new(), Vec::new());
    for (i, shape) in SHAPES.iter().enumerate() {
        let permutations = &SELF_SYMMETRIES[i];
        if permutations.is_empty() {
            continue;
        }
        let (len, start) = (shape.len(), starts[i] as usize);
        let size = 3usize.pow(len as u32);
        let mut done = vec![false; size];
        let mut digits = [0usize; MAX_SHAPE];
        for index in 0..size {
            if done[index] {
                continue;
            }
            let mut rest = index;
            for d in digits.iter_mut().take(len) {
                *d = rest % 3;
                rest /= 3;
            }
            let mut class = vec![index];
            for sigma in permutations {
                let image = (0..len).rev().fold(0, |acc, k| acc * 3 + digits[sigma[k]]);
                if !class.contains(&image) {
                    class.push(image);
                }
            }
            for &j in &class {
                done[j] = true;
            }
            if class.len() > 1 {
                members.extend(class.iter().map(|&j| (start + j) as u32));
                ends.push(members.len() as u32);
            }
        }
    }
    (members, ends)
});

/// For each of a stage's `size` weights, the weight that stands for it when weights that
/// must agree ([`symmetrize_patterns`]) are fitted as one: the first of its class, or itself.
pub fn canonical_indices(size: usize) -> Vec<u32> {
    let mut map: Vec<u32> = (0..size as u32).collect();
    let (members, ends) = &*SYMMETRY_CLASSES;
    let mut begin = 0;
    for &end in ends {
        let class = &members[begin..end as usize];
        begin = end as usize;
        for &j in class {
            map[j as usize] = class[0];
        }
    }
    map
}

/// Makes one stage's pattern weights (a stage's table, bias first) agree between the indices
/// a shape's own symmetries relate (see [`SELF_SYMMETRIES`]): each class of such indices gets
/// its average, so that every position and its mirror images score alike. Idempotent.
pub fn symmetrize_patterns(stage: &mut [i16]) {
    let (members, ends) = &*SYMMETRY_CLASSES;
    let mut begin = 0;
    for &end in ends {
        let class = &members[begin..end as usize];
        begin = end as usize;
        let sum: i32 = class.iter().map(|&j| i32::from(stage[j as usize])).sum();
        let average = (f64::from(sum) / class.len() as f64).round() as i16;
        for &j in class {
            stage[j as usize] = average;
        }
    }
}

/// How many placements each shape of [`SHAPES`] has (its distinct orientations).
const PLACEMENTS_PER_SHAPE: [usize; SHAPES.len()] = [4, 4, 4, 2, 4, 4, 4, 4, 4, 8, 4];

/// Each lane's placement start in a stage's table (0 in the padding lanes): lanes hold the
/// placements shape by shape. A constant, so that the evaluation's loads carry it in their
/// address instead of adding it (the build of the placements checks it).
pub const LANE_OFFSETS: [u32; LANES] = {
    let (starts, _) = shape_offsets();
    let mut lanes = [0u32; LANES];
    let (mut shape, mut lane) = (0, 0);
    while shape < SHAPES.len() {
        let mut k = 0;
        while k < PLACEMENTS_PER_SHAPE[shape] {
            lanes[lane] = starts[shape];
            lane += 1;
            k += 1;
        }
        shape += 1;
    }
    assert!(lane == PLACEMENTS);
    lanes
};

/// Which pattern shapes a layout of weights reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shapes {
    /// Every shape of [`SHAPES`]: 46 lookups per evaluation.
    All,
    /// All but the 4- and 5-square diagonals, which add the least: 38 lookups.
    Lean,
}

/// The shapes a lean layout leaves out: the 5- and 4-square diagonals, entries 6 and 7 of
/// [`SHAPES`].
const SHORT_DIAGONALS: std::ops::Range<usize> = 6..8;

/// The lanes of the shapes a lean layout leaves out (lanes hold the placements shape by
/// shape).
pub const SHORT_DIAGONAL_LANES: std::ops::Range<usize> = {
    let (mut start, mut end, mut shape) = (0, 0, 0);
    while shape < SHORT_DIAGONALS.end {
        if shape == SHORT_DIAGONALS.start {
            start = end;
        }
        end += PLACEMENTS_PER_SHAPE[shape];
        shape += 1;
    }
    start..end
};

/// Where the weights of the shapes a lean layout leaves out lie in a stage's table.
pub const SHORT_DIAGONAL_WEIGHTS: std::ops::Range<usize> = {
    let (starts, _) = shape_offsets();
    starts[SHORT_DIAGONALS.start] as usize..starts[SHORT_DIAGONALS.end] as usize
};

impl Shapes {
    /// Whether this layout reads placement (lane) `i`.
    pub fn reads_lane(self, i: usize) -> bool {
        self == Shapes::All || !SHORT_DIAGONAL_LANES.contains(&i)
    }
}

/// The index of placement `i` for `player` to move, computed square by square.
fn placement_index(i: usize, player: u64, opponent: u64) -> u16 {
    TABLES.squares[i][..TABLES.len[i]]
        .iter()
        .rev()
        .fold(0u16, |index, &sq| {
            let bit = 1u64 << sq;
            index * 3 + u16::from(player & bit != 0) + 2 * u16::from(opponent & bit != 0)
        })
}

/// The sum of the weights in `table` (one stage's, quantized) that the placements select for `player` to move,
/// computed from scratch (no [`FeatureState`]): by bit gathers where the processor has them.
#[inline]
pub fn pattern_sum(table: &[i8], player: u64, opponent: u64) -> i32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        gather::pattern_sum(table, player, opponent)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        slow_pattern_sum(table, player, opponent)
    }
}

/// [`pattern_sum`] square by square: the reference the fast paths are tested against.
pub fn slow_pattern_sum(table: &[i8], player: u64, opponent: u64) -> i32 {
    (0..PLACEMENTS)
        .map(|i| {
            let at = LANE_OFFSETS[i] + u32::from(placement_index(i, player, opponent));
            i32::from(table[at as usize])
        })
        .sum()
}

/// Indices by BMI2's `pext`: a placement's squares, seen under a symmetry that lists them in
/// ascending order, are gathered into a bit mask whose base-3 reading is a table lookup.
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
mod gather {
    use super::{MAX_SHAPE, PLACEMENTS, TABLES};
    use crate::board::apply_symmetry;
    use std::sync::LazyLock;

    /// Base-3 values of binary digit masks: bit `k` set adds `3^k`.
    static TERNARY: [u16; 1 << MAX_SHAPE] = {
        let mut t = [0u16; 1 << MAX_SHAPE];
        let mut mask = 1;
        while mask < t.len() {
            t[mask] = 3 * t[mask >> 1] + (mask & 1) as u16;
            mask += 1;
        }
        t
    };

    /// One placement: its squares on the board turned by the group's symmetry, and its start.
    struct Gather {
        mask: u64,
        offset: u32,
    }

    /// The placements grouped by the symmetry that lists their squares in ascending order, so
    /// the board is turned once per group. The cheap symmetries are preferred.
    static GATHERS: LazyLock<Vec<(u8, Vec<Gather>)>> = LazyLock::new(|| {
        const PREFERENCE: [u8; 8] = [0, 2, 3, 1, 4, 6, 7, 5];
        let mut groups: Vec<(u8, Vec<Gather>)> = Vec::new();
        for i in 0..PLACEMENTS {
            let squares = &TABLES.squares[i][..TABLES.len[i]];
            let found = PREFERENCE.iter().find_map(|&sym| {
                let turned: Vec<u64> = squares
                    .iter()
                    .map(|&sq| apply_symmetry(1u64 << sq, sym))
                    .collect();
                let ascending = turned.windows(2).all(|w| w[0] < w[1]);
                ascending.then(|| (sym, turned.iter().fold(0, |acc, b| acc | b)))
            });
            // Every placement is a shape seen under a symmetry, and the inverse symmetry lists
            // the shape's squares, which are in ascending order.
            let Some((sym, mask)) = found else {
                unreachable!("placement {i} has no ascending view")
            };
            let gather = Gather {
                mask,
                offset: TABLES.offsets[i],
            };
            match groups.iter_mut().find(|(s, _)| *s == sym) {
                Some((_, group)) => group.push(gather),
                None => groups.push((sym, vec![gather])),
            }
        }
        groups.sort_by_key(|(sym, _)| *sym);
        groups
    });

    #[inline]
    pub(super) fn pattern_sum(table: &[i8], player: u64, opponent: u64) -> i32 {
        use std::arch::x86_64::_pext_u64;
        let mut sum = 0i32;
        for (sym, group) in GATHERS.iter() {
            let p = apply_symmetry(player, *sym);
            let o = apply_symmetry(opponent, *sym);
            for g in group {
                // SAFETY: compiled only where the target has BMI2.
                let (pm, om) = unsafe { (_pext_u64(p, g.mask), _pext_u64(o, g.mask)) };
                let index = u32::from(TERNARY[pm as usize]) + 2 * u32::from(TERNARY[om as usize]);
                sum += i32::from(table[(g.offset + index) as usize]);
            }
        }
        sum
    }
}

/// The pattern indices of a position from both sides' views, kept up to date along moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureState {
    /// The indices with digit 1 for the side to move.
    pub mine: [u16; LANES],
    /// The indices with digit 1 for the other side.
    pub theirs: [u16; LANES],
}

impl Default for FeatureState {
    fn default() -> FeatureState {
        FeatureState {
            mine: [0; LANES],
            theirs: [0; LANES],
        }
    }
}

impl FeatureState {
    /// The indices of `player` (to move) against `opponent`, computed from scratch.
    pub fn new(player: u64, opponent: u64) -> FeatureState {
        let mut state = FeatureState::default();
        for i in 0..PLACEMENTS {
            state.mine[i] = placement_index(i, player, opponent);
            state.theirs[i] = placement_index(i, opponent, player);
        }
        state
    }

    /// The state after the side to move plays on `square`, turning `flips`: the views swap,
    /// since the other side is then to move.
    #[inline]
    pub fn play(&self, square: usize, flips: u64) -> FeatureState {
        let delta = &TABLES.delta;
        let mut flipped = [0u16; LANES];
        for f in Bits(flips) {
            for (sum, d) in flipped.iter_mut().zip(&delta[f]) {
                *sum = sum.wrapping_add(*d);
            }
        }
        let placed = &delta[square];
        let mut next = FeatureState::default();
        for k in 0..LANES {
            // Mover's view: the square goes 0 -> 1, each flip 2 -> 1. Other view: 0 -> 2, 1 -> 2.
            next.theirs[k] = self.mine[k]
                .wrapping_add(placed[k])
                .wrapping_sub(flipped[k]);
            next.mine[k] = self.theirs[k]
                .wrapping_add(placed[k].wrapping_mul(2))
                .wrapping_add(flipped[k]);
        }
        next
    }

    /// The indices of the side to move after the side to move here plays on `square`,
    /// turning `flips`: [`FeatureState::play`]'s `mine` alone, which is all a leaf needs.
    #[inline]
    pub fn mine_after(&self, square: usize, flips: u64) -> [u16; LANES] {
        let delta = &TABLES.delta;
        let placed = &delta[square];
        let mut mine = [0u16; LANES];
        for k in 0..LANES {
            mine[k] = self.theirs[k].wrapping_add(placed[k].wrapping_mul(2));
        }
        for f in Bits(flips) {
            for (index, d) in mine.iter_mut().zip(&delta[f]) {
                *index = index.wrapping_add(*d);
            }
        }
        mine
    }

    /// The state after a pass.
    #[inline]
    pub fn pass(&self) -> FeatureState {
        FeatureState {
            mine: self.theirs,
            theirs: self.mine,
        }
    }
}

/// The most moves counted by the mobility features; more count as this many.
pub const MOBILITY_MAX: usize = 24;
/// The most squares counted by the potential mobility features.
pub const POTENTIAL_MAX: usize = 32;
/// Weights of the count features after the patterns: the side to move's mobility, the other
/// side's, both sides' potential mobility, then the parity of the empties (which side would
/// play last if nobody passed; it also absorbs what the labels owe to whose turn it is).
pub const COUNT_WEIGHTS: usize = 2 * (MOBILITY_MAX + 1) + 2 * (POTENTIAL_MAX + 1) + 2;
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
        Counts::Potential | Counts::All => {}
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
    let mine_count = (legal_moves(player, opponent).count_ones() as usize).min(MOBILITY_MAX);
    let theirs_count = (legal_moves(opponent, player).count_ones() as usize).min(MOBILITY_MAX);
    out[3] = (mobility + mine_count) as u32;
    out[4] = (mobility + MOBILITY_MAX + 1 + theirs_count) as u32;
    (out, 5)
}

/// Pseudo-random disjoint pairs of bitboards (not necessarily reachable positions), for tests
/// of the index and weight arithmetic.
#[cfg(test)]
pub(crate) fn random_disc_pairs(mut seed: u64, count: usize) -> impl Iterator<Item = (u64, u64)> {
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed
    };
    (0..count).map(move |_| {
        let (a, b) = (next(), next());
        (a & !b, b & !a)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Position, flips};

    #[test]
    fn every_shape_has_the_expected_number_of_placements() {
        let (offsets, _) = shape_offsets();
        let mut per_shape = [0usize; SHAPES.len()];
        for o in &LANE_OFFSETS[..PLACEMENTS] {
            per_shape[offsets.iter().position(|s| s == o).unwrap()] += 1;
        }
        // Rows: 4 each; the long diagonal 2; other diagonals 4; edge 4; 2 x 5 block 8; 3 x 3 4.
        assert_eq!(per_shape, [4, 4, 4, 2, 4, 4, 4, 4, 4, 8, 4]);
    }

    #[test]
    fn the_lean_layout_leaves_out_exactly_the_short_diagonals() {
        let (starts, _) = shape_offsets();
        for (i, &offset) in LANE_OFFSETS[..PLACEMENTS].iter().enumerate() {
            let short = offset == starts[6] || offset == starts[7];
            assert_eq!(SHORT_DIAGONAL_LANES.contains(&i), short, "lane {i}");
            assert_eq!(Shapes::Lean.reads_lane(i), !short, "lane {i}");
            assert!(Shapes::All.reads_lane(i));
            if short {
                assert_eq!(TABLES.len[i], if offset == starts[6] { 5 } else { 4 });
            }
        }
        // 3^5 + 3^4 weights.
        assert_eq!(SHORT_DIAGONAL_WEIGHTS.len(), 243 + 81);
    }

    #[test]
    fn incremental_indices_equal_fresh_ones_along_random_games() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            let mut position = Position::start();
            let mut state = FeatureState::new(position.player(), position.opponent());
            while !position.is_game_over() {
                if position.must_pass() {
                    position = position.pass();
                    state = state.pass();
                } else {
                    let moves: Vec<usize> = Bits(position.legal_moves()).collect();
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let sq = moves[(seed >> 33) as usize % moves.len()];
                    let f = flips(position.player(), position.opponent(), sq);
                    state = state.play(sq, f);
                    position = position.play_flips(1u64 << sq, f);
                }
                assert_eq!(
                    state,
                    FeatureState::new(position.player(), position.opponent())
                );
            }
        }
    }

    #[test]
    fn fast_sums_equal_square_by_square_sums() {
        // A table of distinct pseudo-random weights, so that any wrong index shows.
        let (_, end) = shape_offsets();
        let table: Vec<i8> = (0..end as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as i8)
            .collect();
        for (player, opponent) in random_disc_pairs(7, 20_000) {
            assert_eq!(
                pattern_sum(&table, player, opponent),
                slow_pattern_sum(&table, player, opponent)
            );
            let state = FeatureState::new(player, opponent);
            let incremental: i32 = (0..PLACEMENTS)
                .map(|i| i32::from(table[(LANE_OFFSETS[i] + u32::from(state.mine[i])) as usize]))
                .sum();
            assert_eq!(incremental, slow_pattern_sum(&table, player, opponent));
        }
    }

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
}
