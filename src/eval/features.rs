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
//! allocated per node. The state lives in `state.rs`, above this file: it reads the update
//! table built here.

pub use super::counts::{
    COUNT_WEIGHTS, Counts, JOINT_WEIGHTS, MOBILITY_MAX, PARITY_WEIGHTS, POTENTIAL_MAX,
    count_features, joint_count_features,
};
use super::shapes::MAX_SHAPE;
pub use super::shapes::{
    LANES, PATTERNS_END, PLACEMENTS, SHAPES, canonical_indices, shape_offsets, symmetrize_patterns,
};
use crate::board::apply_symmetry;
use std::sync::LazyLock;

/// The placements and the update table, built once.
pub(super) struct Tables {
    /// Each placement's squares, first digit first (`len` of them).
    squares: [[u8; MAX_SHAPE]; PLACEMENTS],
    len: [usize; PLACEMENTS],
    /// Where each placement's shape table starts (see [`shape_offsets`]).
    offsets: [u32; PLACEMENTS],
    /// For each square, `3^k` in the lane of every placement whose `k`-th digit it is.
    pub(super) delta: [[u16; LANES]; 64],
}

pub(super) static TABLES: LazyLock<Tables> = LazyLock::new(|| {
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

/// Every placement's index from both sides (`mine`: `player` to move), as [`pattern_sum`].
pub(super) fn placement_indices(player: u64, opponent: u64, mine: &mut [u16], theirs: &mut [u16]) {
    #[cfg(target_arch = "x86_64")]
    if crate::board::has_bmi2() {
        // SAFETY: as in `pattern_sum`: safe code compiled for BMI2, on a CPU that has it.
        return unsafe { gather::indices(player, opponent, mine, theirs) };
    }
    for i in 0..PLACEMENTS {
        mine[i] = placement_index(i, player, opponent);
        theirs[i] = placement_index(i, opponent, player);
    }
}

/// The index of placement `i` for `player` to move, computed square by square.
pub(super) fn placement_index(i: usize, player: u64, opponent: u64) -> u16 {
    TABLES.squares[i][..TABLES.len[i]]
        .iter()
        .rev()
        .fold(0u16, |index, &sq| {
            let bit = 1u64 << sq;
            index * 3 + u16::from(player & bit != 0) + 2 * u16::from(opponent & bit != 0)
        })
}

/// The sum of the weights in `table` (one stage's, quantized) that the placements select for `player` to move,
/// computed from scratch (no [`FeatureState`]): by bit gathers where the processor has them
/// (BMI2, asked at run time: the build targets a baseline without it).
#[inline]
pub fn pattern_sum(table: &[i8], player: u64, opponent: u64) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if crate::board::has_bmi2() {
        // SAFETY: `gather::pattern_sum` is safe code (bounds-checked indexing) compiled for
        // BMI2; the only thing its `target_feature` asks of the caller is a CPU that runs
        // BMI2 (`pext`), which `has_bmi2` (the build's target or the CPU's answer, checked just
        // above) confirms.
        return unsafe { gather::pattern_sum(table, player, opponent) };
    }
    slow_pattern_sum(table, player, opponent)
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
#[cfg(target_arch = "x86_64")]
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

    /// One placement (its lane): its squares turned by the group's symmetry, and its start.
    struct Gather {
        mask: u64,
        offset: u32,
        lane: usize,
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
                lane: i,
            };
            match groups.iter_mut().find(|(s, _)| *s == sym) {
                Some((_, group)) => group.push(gather),
                None => groups.push((sym, vec![gather])),
            }
        }
        groups.sort_by_key(|(sym, _)| *sym);
        groups
    });

    #[target_feature(enable = "bmi2")]
    pub(super) fn pattern_sum(table: &[i8], player: u64, opponent: u64) -> i32 {
        use std::arch::x86_64::_pext_u64;
        let mut sum = 0i32;
        for (sym, group) in GATHERS.iter() {
            let p = apply_symmetry(player, *sym);
            let o = apply_symmetry(opponent, *sym);
            for g in group {
                let (pm, om) = (_pext_u64(p, g.mask), _pext_u64(o, g.mask));
                let index = u32::from(TERNARY[pm as usize]) + 2 * u32::from(TERNARY[om as usize]);
                sum += i32::from(table[(g.offset + index) as usize]);
            }
        }
        sum
    }

    /// [`super::placement_indices`] by gathers.
    #[target_feature(enable = "bmi2")]
    pub(super) fn indices(player: u64, opponent: u64, mine: &mut [u16], theirs: &mut [u16]) {
        use std::arch::x86_64::_pext_u64;
        for (sym, group) in GATHERS.iter() {
            let p = apply_symmetry(player, *sym);
            let o = apply_symmetry(opponent, *sym);
            for g in group {
                let pm = TERNARY[_pext_u64(p, g.mask) as usize];
                let om = TERNARY[_pext_u64(o, g.mask) as usize];
                mine[g.lane] = pm + 2 * om;
                theirs[g.lane] = om + 2 * pm;
            }
        }
    }
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
        }
    }
}
