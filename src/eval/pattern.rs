//! The trained evaluators: a sum of weights selected by the position's features (see
//! `features.rs`), one weight table per game stage, in hundredths of a disc for the side to
//! move, so the value estimates the final disc difference under good play.
//!
//! - `pattern` ([`Pattern`], the default): the patterns and optionally count features, one
//!   stage per few empties (the weights file says which shapes, counts and stages), fitted
//!   (`othello-engine train`) to positions our own solver and search labelled (`othello-engine
//!   datagen`); its built-in weights leave out the short diagonals and count only the parity,
//!   for speed. `--weights FILE` replaces its weights.
//! - `pattern-full` ([`PatternFull`]): every shape with potential mobility and parity, fitted
//!   the same way: the endgame solver orders its moves by it.
//! - `pattern-wthor` ([`PatternWthor`]): the same patterns without the counts, one stage per six
//!   empties, fitted to the final results of the WTHOR expert games: the weights the engine
//!   had before it labelled its own data, kept as a sparring level and a yardstick.
//!
//! The weight tables themselves ([`PatternWeights`]), their file format and the built-in sets
//! live in `weights.rs`; this file scores with them.

use super::eighths::QUANTUM;
use super::evaluator::Evaluator;
use super::features::{
    Counts, LANE_OFFSETS, LANES, PATTERNS_END, PLACEMENTS, SHORT_DIAGONAL_LANES, Shapes,
    count_features, joint_count_features, pattern_sum,
};
use super::state::FeatureState;
use super::weights::{FULL, INDEX_SLACK, WTHOR};
pub use super::weights::{
    MAGIC, PatternWeights, active_weights, full_weights, use_weights, wthor_weights,
};
use crate::board::Position;

/// Empty-square counts per stage of the `pattern` weights `train` makes by default.
pub const STAGE_EMPTIES: usize = 2;
/// The count features of the `pattern` weights `train` makes by default.
pub const COUNTS: Counts = Counts::All;
/// The shapes of the `pattern` weights `train` makes by default.
pub const SHAPES: Shapes = Shapes::Lean;

/// Scores stay within this many hundredths of a disc.
const SCORE_LIMIT: i32 = 6400;

/// The sum of the weights of `table` (a stage's, with `INDEX_SLACK` after it) that the
/// pattern indices `mine` select, lanes listed (a macro writes the lookups out).
macro_rules! lanes {
    ($table:ident, $mine:ident; $($k:literal)*) => {{
        assert!($table.len() >= PATTERNS_END + INDEX_SLACK);
        // Written out lane by lane, so that each load carries its placement's start as a
        // constant in its address (a loop keeps the starts in memory and adds them).
        // SAFETY: `get_unchecked` needs the offset inside `table`. A lane's start
        // (`LANE_OFFSETS`: a shape's start, or 0 for padding) is below `PATTERNS_END`, and an
        // index is a `u16`, below `INDEX_SLACK` = 2^16 whatever the incremental state holds:
        // their sum is below `PATTERNS_END + INDEX_SLACK`, which `table.len()` is at least
        // (asserted above).
        0 $(+ i32::from(unsafe {
            *$table.get_unchecked(LANE_OFFSETS[$k] as usize + usize::from($mine[$k]))
        }))*
    }};
}

/// The sum of the weights of `table` (a stage's, with `INDEX_SLACK` after it) that the
/// pattern indices `mine` select, every placement.
#[inline]
fn lookup_sum(table: &[i8], mine: &[u16; LANES]) -> i32 {
    const _: () = assert!(PLACEMENTS == 46, "lookup_sum lists 46 lanes");
    lanes!(table, mine; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45)
}

/// [`lookup_sum`] of a lean layout: the short diagonals' lanes left out.
#[inline]
fn lookup_sum_lean(table: &[i8], mine: &[u16; LANES]) -> i32 {
    const _: () = assert!(
        SHORT_DIAGONAL_LANES.start == 22 && SHORT_DIAGONAL_LANES.end == 30,
        "lookup_sum_lean leaves out lanes 22 to 29"
    );
    lanes!(table, mine; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45)
}

impl PatternWeights {
    /// All-zero weights in the layout of `pattern`.
    pub fn zeros() -> PatternWeights {
        PatternWeights::zeros_with(STAGE_EMPTIES, COUNTS, SHAPES)
    }

    /// One stage's quantized weights, as the evaluation reads them.
    #[inline]
    fn quantized_stage(&self, empties: u32) -> &[i8] {
        // The stage's table and what follows it, at least `INDEX_SLACK` more weights.
        &self.quantized[self.stage_of(empties) * self.stage_size..][..self.stage_size + INDEX_SLACK]
    }

    /// The positions in its stage's table of the weights `player` to move against `opponent`
    /// selects, bias excluded: the placements' and then the counts'.
    pub fn features(&self, player: u64, opponent: u64, out: &mut Vec<u32>) {
        out.clear();
        let state = FeatureState::new(player, opponent);
        out.extend(
            (0..PLACEMENTS)
                .filter(|&i| self.shapes.reads_lane(i))
                .map(|i| LANE_OFFSETS[i] + u32::from(state.mine[i])),
        );
        if self.counts == Counts::Joint {
            out.extend_from_slice(&joint_count_features(player, opponent));
        } else {
            let (counts, n) = count_features(player, opponent, self.counts);
            out.extend_from_slice(&counts[..n]);
        }
    }

    /// The score from the incremental `state` of `player` to move against `opponent`.
    #[inline]
    pub fn score_with(&self, state: &FeatureState, player: u64, opponent: u64) -> i32 {
        self.score_indices(&state.mine, player, opponent)
    }

    /// The score from the pattern indices `mine` of `player` to move against `opponent`.
    #[inline]
    pub fn score_indices(&self, mine: &[u16; LANES], player: u64, opponent: u64) -> i32 {
        match self.shapes {
            Shapes::All => self.score_lanes::<false>(mine, player, opponent),
            Shapes::Lean => self.score_lanes::<true>(mine, player, opponent),
        }
    }

    /// [`PatternWeights::score_indices`] for one layout of shapes. Kept out of line: inlined
    /// side by side, the two layouts' lookups were merged into one sequence whose placement
    /// starts came from the stack instead of the instructions (twice the instructions).
    #[inline(never)]
    fn score_lanes<const LEAN: bool>(
        &self,
        mine: &[u16; LANES],
        player: u64,
        opponent: u64,
    ) -> i32 {
        let table = self.quantized_stage(64 - (player | opponent).count_ones());
        // The counts first: a call after the lookups would keep their values on the stack.
        let counts = self.count_sum(table, player, opponent);
        let patterns = if LEAN {
            lookup_sum_lean(table, mine)
        } else {
            lookup_sum(table, mine)
        };
        let sum = i32::from(table[0]) + patterns + counts;
        (sum * QUANTUM.0 / QUANTUM.1).clamp(-SCORE_LIMIT, SCORE_LIMIT)
    }

    /// The score of `player` to move against `opponent`, computed from scratch.
    #[inline]
    pub fn score(&self, player: u64, opponent: u64) -> i32 {
        let table = self.quantized_stage(64 - (player | opponent).count_ones());
        let sum = i32::from(table[0])
            + pattern_sum(table, player, opponent)
            + self.count_sum(table, player, opponent);
        (sum * QUANTUM.0 / QUANTUM.1).clamp(-SCORE_LIMIT, SCORE_LIMIT)
    }

    #[inline]
    fn count_sum(&self, table: &[i8], player: u64, opponent: u64) -> i32 {
        match self.counts {
            Counts::None => 0,
            // The parity alone, inline (`count_features` is, and folds to one offset here).
            Counts::Parity => {
                i32::from(table[count_features(player, opponent, Counts::Parity).0[0] as usize])
            }
            Counts::Potential | Counts::All | Counts::Joint => {
                self.count_sum_general(table, player, opponent)
            }
        }
    }

    /// [`PatternWeights::count_sum`] of the layouts with more than the parity.
    #[inline(never)]
    fn count_sum_general(&self, table: &[i8], player: u64, opponent: u64) -> i32 {
        if self.counts == Counts::Joint {
            return joint_count_features(player, opponent)
                .iter()
                .map(|&at| i32::from(table[at as usize]))
                .sum();
        }
        let (counts, n) = count_features(player, opponent, self.counts);
        counts[..n]
            .iter()
            .map(|&at| i32::from(table[at as usize]))
            .sum()
    }
}

/// The trained evaluator with the active weights (see [`use_weights`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pattern;

impl Pattern {
    /// The score of `player` to move against `opponent`, in hundredths of a disc: for callers
    /// that hold bitboards and no incremental state.
    #[inline]
    pub fn score(player: u64, opponent: u64) -> i32 {
        active_weights().score(player, opponent)
    }
}

/// The [`Evaluator`] of a trained evaluator type: its ID and where its weights are; both
/// share the incremental pattern state.
macro_rules! trained_evaluator {
    ($evaluator:ty, $id:expr, $weights:expr) => {
        impl Evaluator for $evaluator {
            const ID: u8 = $id;
            type State = FeatureState;

            fn evaluate(&self, position: &Position) -> i32 {
                $weights.score(position.player(), position.opponent())
            }

            fn state(&self, position: &Position) -> FeatureState {
                FeatureState::new(position.player(), position.opponent())
            }

            #[inline]
            fn play(&self, state: &FeatureState, square: usize, flips: u64) -> FeatureState {
                state.play(square, flips)
            }

            #[inline]
            fn pass(&self, state: &FeatureState) -> FeatureState {
                state.pass()
            }

            #[inline]
            fn evaluate_with(&self, state: &FeatureState, position: &Position) -> i32 {
                $weights.score_with(state, position.player(), position.opponent())
            }

            #[inline]
            fn leaf_score(
                &self,
                state: &FeatureState,
                child: &Position,
                square: usize,
                flips: u64,
            ) -> i32 {
                let mine = state.mine_after(square, flips);
                $weights.score_indices(&mine, child.player(), child.opponent())
            }
        }
    };
}

trained_evaluator!(Pattern, 7, active_weights());

/// The trained evaluator with every shape and both sides' potential mobility (the layout
/// `pattern` had before the lean one), fitted to the same kind of data. Its evaluations cost
/// about 11% more search instructions than `pattern`'s, but it orders the endgame solver's
/// moves better (FFO #40-#52 took 37% more nodes ordered by the lean weights), so the solver
/// uses it.
#[derive(Clone, Copy, Debug, Default)]
pub struct PatternFull;

trained_evaluator!(PatternFull, 8, FULL);

/// The evaluator with the weights fitted to the WTHOR games' results.
#[derive(Clone, Copy, Debug, Default)]
pub struct PatternWthor;

trained_evaluator!(PatternWthor, 6, WTHOR);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_weights_see_the_start_as_even() {
        // The start is a draw under perfect play (known from its solution); a fitted estimate
        // lands within a few discs of it.
        for score in [
            Pattern.evaluate(&Position::start()),
            PatternFull.evaluate(&Position::start()),
            PatternWthor.evaluate(&Position::start()),
        ] {
            assert!(score.abs() <= 400, "start position scored {score}");
        }
    }

    #[test]
    fn mirror_images_score_alike() {
        // Random positions reached by random games, under all 8 symmetries, by both trained
        // evaluators. (Before the weights were symmetrized, the position after f5 scored
        // from -2.25 to +11.87 discs depending on its orientation.)
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            let mut p = Position::start();
            for _ in 0..(state % 50) {
                let moves = p.legal_squares();
                if moves.is_empty() {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                p = p
                    .play(crate::board::Move::Play(
                        moves[(state % moves.len() as u64) as usize],
                    ))
                    .unwrap();
            }
            for sym in 1..8 {
                let image = p.transform(sym);
                assert_eq!(Pattern.evaluate(&image), Pattern.evaluate(&p), "{p}");
                assert_eq!(
                    PatternFull.evaluate(&image),
                    PatternFull.evaluate(&p),
                    "{p}"
                );
                assert_eq!(
                    PatternWthor.evaluate(&image),
                    PatternWthor.evaluate(&p),
                    "{p}"
                );
            }
            state = state.wrapping_add(1);
        }
    }

    #[test]
    fn incremental_and_fresh_scores_agree() {
        let mut position = Position::start();
        let mut state = Pattern.state(&position);
        for mv in ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"] {
            let sq = mv.parse::<crate::board::Square>().unwrap();
            let flips = position.flips(sq);
            state = Pattern.play(&state, sq.index(), flips);
            position = position.play_flips(1u64 << sq.index(), flips);
            assert_eq!(
                Pattern.evaluate_with(&state, &position),
                Pattern.evaluate(&position)
            );
            assert_eq!(
                PatternWthor.evaluate_with(&state, &position),
                PatternWthor.evaluate(&position)
            );
            assert_eq!(
                PatternFull.evaluate_with(&state, &position),
                PatternFull.evaluate(&position)
            );
        }
    }

    #[test]
    fn every_layout_scores_alike_from_scratch_and_from_indices() {
        // Weights of every stage made up, so that a wrong lane list shows; in a lean layout
        // the short diagonals' weights must read as zero both ways.
        for (counts, shapes) in [
            (Counts::Parity, Shapes::Lean),
            (Counts::Potential, Shapes::Lean),
            (Counts::All, Shapes::Lean),
            (Counts::None, Shapes::All),
            (Counts::All, Shapes::All),
            (Counts::Joint, Shapes::Lean),
            (Counts::Joint, Shapes::All),
        ] {
            let mut weights = PatternWeights::zeros_with(4, counts, shapes);
            for stage in 0..weights.stages() {
                let discs: Vec<f32> = (0..weights.stage_size())
                    .map(|i| ((i * 7919 + stage * 104_729) % 97) as f32 / 12.0 - 4.0)
                    .collect();
                weights.set_stage(stage, &discs);
            }
            let reread = PatternWeights::from_bytes(&weights.to_bytes()).unwrap();
            assert_eq!(reread, weights);
            for (player, opponent) in crate::eval::features::random_disc_pairs(11, 5_000) {
                let state = FeatureState::new(player, opponent);
                assert_eq!(
                    weights.score_with(&state, player, opponent),
                    weights.score(player, opponent),
                    "{counts:?} {shapes:?}"
                );
            }
            let mut row = Vec::new();
            weights.features(0x0000_0008_1000_0000, 0x0000_0010_0800_0000, &mut row);
            let placements = if shapes == Shapes::Lean { 38 } else { 46 };
            let count_features = match counts {
                Counts::None => 0,
                Counts::Parity => 1,
                Counts::Potential => 3,
                Counts::All => 5,
                Counts::Joint => 7,
            };
            assert_eq!(
                row.len(),
                placements + count_features,
                "{counts:?} {shapes:?}"
            );
        }
    }
}
