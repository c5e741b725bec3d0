//! The [`Evaluator`] trait every evaluator implements, the bound [`EVAL_LIMIT`] on their
//! scores, and the square-table helpers the hand-made evaluators share. The registry that
//! names the evaluators (`evaluator_kinds!`) is `mod.rs`'s.

use crate::board::{Bits, Position};

/// Evaluators return values strictly inside `-EVAL_LIMIT..=EVAL_LIMIT`.
pub const EVAL_LIMIT: i32 = 30_000;

/// A static evaluation of a position for the side to move; higher is better for it. Shared
/// by the threads of a search, hence `Sync`.
pub trait Evaluator: Sync {
    /// Tells this evaluator's scores from other evaluators' where they share a table (the
    /// search's transposition table keys on it, as units differ): unique among evaluators,
    /// and never 0, which marks the endgame solver's exact scores.
    const ID: u8;

    /// What the evaluator carries down a search's moves to score a node cheaply (the trained
    /// evaluators' pattern indices); `()` for the evaluators that score from scratch.
    type State: Copy + Default;

    /// The score of `position` for its side to move.
    fn evaluate(&self, position: &Position) -> i32;

    /// The state of `position`, computed from scratch.
    fn state(&self, _position: &Position) -> Self::State {
        Self::State::default()
    }

    /// The state after the side to move plays on `square`, turning `flips`.
    #[inline]
    fn play(&self, state: &Self::State, _square: usize, _flips: u64) -> Self::State {
        *state
    }

    /// The state after a pass.
    #[inline]
    fn pass(&self, state: &Self::State) -> Self::State {
        *state
    }

    /// The score of `child`, reached from a position whose state is `state` by its side to
    /// move playing on `square` and turning `flips`: equal to [`Evaluator::evaluate`] of it.
    #[inline]
    fn leaf_score(&self, state: &Self::State, child: &Position, square: usize, flips: u64) -> i32 {
        self.evaluate_with(&self.play(state, square, flips), child)
    }

    /// The score of `position`, whose state is `state`: equal to [`Evaluator::evaluate`].
    #[inline]
    fn evaluate_with(&self, _state: &Self::State, position: &Position) -> i32 {
        self.evaluate(position)
    }

    /// Hundredths of a disc per unit of [`Evaluator::evaluate`]: 1 for the evaluators that
    /// estimate discs; for the hand-made ones, the least-squares fit of exact final scores on
    /// their scores (see `tests/eval_scale.rs`).
    fn centidiscs_per_unit(&self) -> f64 {
        1.0
    }
}

/// Expands a quarter table (rows 1-4, top-left origin) to all 64 squares by mirroring
/// top-bottom, as the classic tables are given.
pub(super) const fn mirror_rows(top: [[i32; 8]; 4]) -> [i32; 64] {
    let mut table = [0; 64];
    let mut r = 0;
    while r < 4 {
        let mut f = 0;
        while f < 8 {
            table[r * 8 + f] = top[r][f];
            table[(7 - r) * 8 + f] = top[r][f];
            f += 1;
        }
        r += 1;
    }
    table
}

/// The sum of `table` over the squares set in `discs`.
#[inline]
pub(super) fn table_sum(table: &[i32; 64], discs: u64) -> i32 {
    Bits(discs).map(|sq| table[sq]).sum()
}
