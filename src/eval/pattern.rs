//! The trained pattern evaluator: a sum of weights looked up by the contents of fixed groups of
//! squares (lines, diagonals, edges, corner regions), one table per game phase, fitted to the
//! final disc differences of expert games (see [`super::train`]).
//!
//! Scores are hundredths of a disc for the side to move, so the value estimates the final disc
//! difference under good play.

use super::Evaluator;
use crate::board::Position;
use std::sync::LazyLock;

/// The pattern shapes in one orientation, as square indices (`a1` = 0, `h1` = 7, `a2` = 8).
/// Every shape is used in all its distinct orientations under the 8 board symmetries; the
/// orientations share one weight table.
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

/// Weight tables, one per phase: the phase of a position is its number of empty squares
/// divided by [`PHASE_EMPTIES`].
pub const PHASES: usize = 11;
/// How many empty-square counts share one phase.
pub const PHASE_EMPTIES: usize = 6;

/// The phase (weight table) of a position with `empties` empty squares.
#[inline]
pub fn phase_of(empties: u32) -> usize {
    (empties as usize / PHASE_EMPTIES).min(PHASES - 1)
}

/// One placement of a shape on the board.
struct Instance {
    /// Where its weights start in a phase's table.
    offset: u32,
    /// The squares, first digit first; only the first `len` count (no heap hop per lookup).
    squares: [u8; MAX_SHAPE],
    len: usize,
}

/// The most squares in one shape.
const MAX_SHAPE: usize = 10;

/// Where each shape's weights start in a phase's table; entry 0 of a table is the bias.
fn shape_offsets() -> ([u32; SHAPES.len()], usize) {
    let mut offsets = [0u32; SHAPES.len()];
    let mut at = 1usize;
    for (i, shape) in SHAPES.iter().enumerate() {
        offsets[i] = at as u32;
        at += 3usize.pow(shape.len() as u32);
    }
    (offsets, at)
}

/// The number of weights in one phase's table (the bias included).
pub fn phase_size() -> usize {
    shape_offsets().1
}

/// Every placement of every shape: the 8 symmetries of each, kept once per set of squares.
static INSTANCES: LazyLock<Vec<Instance>> = LazyLock::new(|| {
    let (offsets, _) = shape_offsets();
    let mut out = Vec::new();
    for (i, shape) in SHAPES.iter().enumerate() {
        let mut seen = Vec::new();
        for sym in 0..8 {
            let squares: Vec<u8> = shape
                .iter()
                .map(|&sq| crate::board::apply_symmetry(1u64 << sq, sym).trailing_zeros() as u8)
                .collect();
            let set = squares.iter().fold(0u64, |acc, &sq| acc | (1u64 << sq));
            if !seen.contains(&set) {
                seen.push(set);
                let mut fixed = [0u8; MAX_SHAPE];
                fixed[..squares.len()].copy_from_slice(&squares);
                out.push(Instance {
                    offset: offsets[i],
                    squares: fixed,
                    len: squares.len(),
                });
            }
        }
    }
    out
});

/// The number of shape placements, hence of weights summed per evaluation.
pub fn instance_count() -> usize {
    INSTANCES.len()
}

/// The positions in a phase's table of the weights that `player`/`opponent` (side to move
/// first) selects: one per placement, in the order of [`INSTANCES`]. `out` must hold
/// [`instance_count`] entries.
pub fn feature_indices(player: u64, opponent: u64, out: &mut [u32]) {
    for (slot, instance) in out.iter_mut().zip(INSTANCES.iter()) {
        *slot = instance.offset + instance.index(player, opponent);
    }
}

impl Instance {
    /// The contents of the placement's squares as a base-3 number: 0 empty, 1 the side to
    /// move, 2 the other side; the first square is the lowest digit.
    #[inline]
    fn index(&self, player: u64, opponent: u64) -> u32 {
        self.squares[..self.len].iter().rev().fold(0, |index, &sq| {
            let bit = 1u64 << sq;
            index * 3 + u32::from(player & bit != 0) + 2 * u32::from(opponent & bit != 0)
        })
    }
}

/// The weights of all phases, in hundredths of a disc.
pub struct PatternWeights {
    weights: Vec<i16>,
    phase_size: usize,
}

/// The first bytes of a weights file, with the format's version.
pub const MAGIC: &[u8; 8] = b"OEPATW01";

impl PatternWeights {
    /// Weights from the file format [`PatternWeights::to_bytes`] writes.
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternWeights, String> {
        let header = MAGIC.len() + 8;
        if bytes.len() < header || &bytes[..MAGIC.len()] != MAGIC {
            return Err("not a pattern weights file (bad magic)".to_string());
        }
        let read_u32 = |at: usize| {
            let mut b = [0u8; 4];
            b.copy_from_slice(&bytes[at..at + 4]);
            u32::from_le_bytes(b) as usize
        };
        let (phases, size) = (read_u32(MAGIC.len()), read_u32(MAGIC.len() + 4));
        if phases != PHASES || size != phase_size() {
            return Err(format!(
                "pattern weights for {phases} phases of {size} weights; this build expects \
                 {PHASES} of {}",
                phase_size()
            ));
        }
        let body = &bytes[header..];
        if body.len() != phases * size * 2 {
            return Err(format!(
                "pattern weights file holds {} bytes of weights, expected {}",
                body.len(),
                phases * size * 2
            ));
        }
        let weights = body
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        Ok(PatternWeights {
            weights,
            phase_size: size,
        })
    }

    /// Weights from hundredths of a disc, `PHASES * phase_size()` of them, phase by phase.
    pub fn from_centi_discs(weights: Vec<i16>) -> Result<PatternWeights, String> {
        if weights.len() != PHASES * phase_size() {
            return Err(format!(
                "{} weights given, expected {}",
                weights.len(),
                PHASES * phase_size()
            ));
        }
        Ok(PatternWeights {
            weights,
            phase_size: phase_size(),
        })
    }

    /// The file format: [`MAGIC`], the number of phases and the weights per phase (u32 little
    /// endian), then every weight as i16 little endian, phase by phase.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(PHASES as u32).to_le_bytes());
        out.extend_from_slice(&(self.phase_size as u32).to_le_bytes());
        for w in &self.weights {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// The estimated final disc difference for the side to move, in hundredths of a disc.
    pub fn score(&self, player: u64, opponent: u64) -> i32 {
        let empties = 64 - (player | opponent).count_ones();
        let table = &self.weights[phase_of(empties) * self.phase_size..][..self.phase_size];
        let mut sum = i32::from(table[0]);
        for instance in INSTANCES.iter() {
            let at = instance.offset + instance.index(player, opponent);
            sum += i32::from(table[at as usize]);
        }
        sum.clamp(-6400, 6400)
    }
}

/// The weights built into the engine, trained by `othello-engine train` on the WTHOR games.
static BUILT_IN: LazyLock<PatternWeights> = LazyLock::new(|| {
    PatternWeights::from_bytes(include_bytes!("../../data/pattern-weights.bin"))
        .unwrap_or_else(|e| panic!("the built-in pattern weights are broken: {e}"))
});

/// The trained pattern evaluator with the built-in weights.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pattern;

impl Pattern {
    /// The built-in weights' score for `player` to move against `opponent`, in hundredths of
    /// a disc: [`Evaluator::evaluate`] for callers that hold bitboards.
    #[inline]
    pub fn score(player: u64, opponent: u64) -> i32 {
        BUILT_IN.score(player, opponent)
    }
}

impl Evaluator for Pattern {
    const ID: u8 = 6;

    fn evaluate(&self, position: &Position) -> i32 {
        Pattern::score(position.player(), position.opponent())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_has_the_expected_number_of_placements() {
        let mut per_shape = [0usize; SHAPES.len()];
        let (offsets, _) = shape_offsets();
        for instance in INSTANCES.iter() {
            let shape = offsets.iter().position(|&o| o == instance.offset).unwrap();
            per_shape[shape] += 1;
        }
        // Rows: 4 each; the long diagonal 2; other diagonals 4; edge 4; 2 x 5 block 8; 3 x 3 4.
        assert_eq!(per_shape, [4, 4, 4, 2, 4, 4, 4, 4, 4, 8, 4]);
        assert_eq!(instance_count(), 46);
    }

    #[test]
    fn built_in_weights_see_the_start_as_even() {
        // The start is a draw under perfect play (known from its solution); a fitted estimate
        // lands within a few discs of it.
        let start = Pattern.evaluate(&Position::start());
        assert!(start.abs() <= 400, "start position scored {start}");
    }

    #[test]
    fn weights_round_trip_through_bytes_and_bad_files_are_refused() {
        let bytes = BUILT_IN.to_bytes();
        let again = PatternWeights::from_bytes(&bytes).unwrap();
        assert_eq!(again.weights, BUILT_IN.weights);
        assert!(PatternWeights::from_bytes(b"nonsense").is_err());
        assert!(PatternWeights::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    }
}
