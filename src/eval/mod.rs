//! Evaluation: the [`Evaluator`] trait and every evaluator, selectable by name.
//!
//! Scores are for the side to move. The evaluators that estimate a disc difference (`discs`,
//! `discs-inverse`, `pattern`) score in hundredths of a disc; the hand-made ones (`classic`,
//! `weighted`) keep their own units, which the search compares, and say through
//! [`Evaluator::centidiscs_per_unit`] how to read them as discs, so that every value a protocol
//! reports is in discs whatever the evaluator.
//! Every evaluator stays within [`EVAL_LIMIT`] so that finished games always rank above it.

mod classic;
pub mod pattern;
pub mod train;
mod weighted;

pub use classic::{Classic, protected_discs};
pub use pattern::Pattern;
pub use weighted::Weighted;

use crate::board::Position;
use std::fmt;
use std::str::FromStr;

/// Evaluators return values strictly inside `-EVAL_LIMIT..=EVAL_LIMIT`.
pub const EVAL_LIMIT: i32 = 30_000;

/// A static evaluation of a position for the side to move; higher is better for it.
pub trait Evaluator {
    /// The score of `position` for its side to move.
    fn evaluate(&self, position: &Position) -> i32;

    /// Hundredths of a disc per unit of [`Evaluator::evaluate`]: 1 for the evaluators that
    /// estimate discs; for the hand-made ones, the least-squares fit of exact final scores on
    /// their scores (see `tests/eval_scale.rs`).
    fn centidiscs_per_unit(&self) -> f64 {
        1.0
    }
}

/// The static evaluation of `position` by `kind`, in discs for the side to move.
pub fn evaluate_in_discs(kind: EvaluatorKind, position: &Position) -> f64 {
    f64::from(kind.evaluate(position)) * kind.centidiscs_per_unit() / 100.0
}

/// Own discs minus the opponent's, in hundredths of a disc.
#[derive(Clone, Copy, Debug, Default)]
pub struct Discs;

impl Evaluator for Discs {
    fn evaluate(&self, p: &Position) -> i32 {
        100 * (p.player().count_ones() as i32 - p.opponent().count_ones() as i32)
    }
}

/// The opponent's discs minus own: an engine that plays to lose discs.
#[derive(Clone, Copy, Debug, Default)]
pub struct DiscsInverse;

impl Evaluator for DiscsInverse {
    fn evaluate(&self, p: &Position) -> i32 {
        -Discs.evaluate(p)
    }
}

/// The evaluators the engine can be told to use, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EvaluatorKind {
    /// A uniformly random legal move (the search is skipped).
    Random,
    /// [`Discs`].
    Discs,
    /// [`DiscsInverse`].
    DiscsInverse,
    /// [`Classic`].
    Classic,
    /// [`Weighted`].
    Weighted,
    /// [`Pattern`], trained on expert games.
    Pattern,
}

impl EvaluatorKind {
    /// Every evaluator, in the order `list` shows them.
    pub const ALL: [EvaluatorKind; 6] = [
        EvaluatorKind::Random,
        EvaluatorKind::Discs,
        EvaluatorKind::DiscsInverse,
        EvaluatorKind::Classic,
        EvaluatorKind::Weighted,
        EvaluatorKind::Pattern,
    ];

    /// The name used on the command line and in protocols.
    pub fn name(self) -> &'static str {
        match self {
            EvaluatorKind::Random => "random",
            EvaluatorKind::Discs => "discs",
            EvaluatorKind::DiscsInverse => "discs-inverse",
            EvaluatorKind::Classic => "classic",
            EvaluatorKind::Weighted => "weighted",
            EvaluatorKind::Pattern => "pattern",
        }
    }

    /// A small number that tells apart scores of different evaluators in shared tables.
    pub fn id(self) -> u8 {
        self as u8 + 1
    }
}

impl fmt::Display for EvaluatorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EvaluatorKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        EvaluatorKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                let names: Vec<&str> = EvaluatorKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown evaluator '{s}' (known: {})", names.join(", "))
            })
    }
}

impl Evaluator for EvaluatorKind {
    /// Dispatches to the named evaluator; `random` scores every position 0.
    fn evaluate(&self, position: &Position) -> i32 {
        match self {
            EvaluatorKind::Random => 0,
            EvaluatorKind::Discs => Discs.evaluate(position),
            EvaluatorKind::DiscsInverse => DiscsInverse.evaluate(position),
            EvaluatorKind::Classic => Classic.evaluate(position),
            EvaluatorKind::Weighted => Weighted.evaluate(position),
            EvaluatorKind::Pattern => Pattern.evaluate(position),
        }
    }

    fn centidiscs_per_unit(&self) -> f64 {
        match self {
            EvaluatorKind::Classic => Classic.centidiscs_per_unit(),
            EvaluatorKind::Weighted => Weighted.centidiscs_per_unit(),
            _ => 1.0,
        }
    }
}

/// Expands a quarter table (rows 1-4, top-left origin) to all 64 squares by mirroring
/// top-bottom, as the classic tables are given.
pub(crate) const fn mirror_rows(top: [[i32; 8]; 4]) -> [i32; 64] {
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
pub(crate) fn table_sum(table: &[i32; 64], discs: u64) -> i32 {
    crate::board::Bits(discs).map(|sq| table[sq]).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for k in EvaluatorKind::ALL {
            assert_eq!(k.name().parse::<EvaluatorKind>(), Ok(k));
        }
        assert!("nonsense".parse::<EvaluatorKind>().is_err());
    }

    #[test]
    fn disc_evaluators_count_discs() {
        let p = Position::start().play("f5".parse().unwrap()).unwrap();
        // White to move with 1 disc against 4.
        assert_eq!(Discs.evaluate(&p), -300);
        assert_eq!(DiscsInverse.evaluate(&p), 300);
    }
}
