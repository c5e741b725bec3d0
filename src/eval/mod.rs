//! Evaluation: the registry of every evaluator, the one place that turns an evaluator's name
//! into its type ([`EvaluatorKind::dispatch`]). The [`Evaluator`] trait, [`EVAL_LIMIT`] and
//! the table helpers the evaluators share are in `evaluator.rs`.
//!
//! Scores are for the side to move. The evaluators that estimate a disc difference (`discs`,
//! `discs-inverse`, `pattern`) score in hundredths of a disc; the hand-made ones (`classic`,
//! `weighted`) keep their own units, which the search compares, and say through
//! [`Evaluator::centidiscs_per_unit`] how to read them as discs, so that every value a protocol
//! reports is in discs whatever the evaluator.
//! Every evaluator stays within [`EVAL_LIMIT`] so that finished games always rank above it.
//!
//! Adding an evaluator takes a file with a unit struct that implements [`Evaluator`] under an
//! `ID` of its own, and one line in the `evaluator_kinds!` list below, which gives it a name
//! and a place in the dispatch.

mod classic;
mod counts;
mod discs;
mod eighths;
mod evaluator;
pub mod features;
pub mod network;
pub mod pattern;
mod shapes;
pub mod state;
mod weighted;
mod weights;

pub use classic::{Classic, protected_discs};
pub use discs::{Discs, DiscsInverse};
pub use evaluator::{EVAL_LIMIT, Evaluator};
pub use network::Neural;
pub use pattern::{Pattern, PatternFull, PatternWthor};
pub use weighted::Weighted;

use crate::board::Position;
use std::fmt;
use std::str::FromStr;

/// Code to run with one evaluator, statically typed: what [`EvaluatorKind::dispatch`] calls,
/// so that a search is compiled once per evaluator and never pays for a `match` per node.
pub trait EvaluatorVisitor {
    /// What the visit gives back.
    type Output;

    /// Runs with `eval`.
    fn visit<E: Evaluator>(self, eval: &E) -> Self::Output;
}

/// The static evaluation of `position` by `kind`, in discs for the side to move.
pub fn evaluate_in_discs(kind: EvaluatorKind, position: &Position) -> f64 {
    f64::from(kind.evaluate(position)) * kind.centidiscs_per_unit() / 100.0
}

/// Writes [`EvaluatorKind`] from one list of `Variant => Type, "name";` lines: the enum,
/// `ALL`, `name` and `dispatch`, and a compile-time check that the IDs are distinct.
macro_rules! evaluator_kinds {
    ($($(#[$doc:meta])* $variant:ident => $evaluator:ident, $name:literal;)+) => {
        /// The names a phase's evaluator can be given on the command line and in protocols:
        /// `random`, a move policy, then every evaluator.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EvaluatorKind {
            /// A uniformly random legal move: a move policy, not an evaluator (it has none to
            /// dispatch to); the search layer's `Play` says what it plays.
            Random,
            $($(#[$doc])* $variant,)+
        }

        impl EvaluatorKind {
            /// Every name, `random` first, in the order `list` shows them.
            pub const ALL: [EvaluatorKind; 1 + [$($name),+].len()] =
                [EvaluatorKind::Random, $(EvaluatorKind::$variant),+];

            /// The name used on the command line and in protocols.
            pub fn name(self) -> &'static str {
                match self {
                    EvaluatorKind::Random => "random",
                    $(EvaluatorKind::$variant => $name,)+
                }
            }

            /// Runs `visitor` with the evaluator of this name as its own type: the one place
            /// where a name becomes an evaluator. `None` for `random`, which names none.
            pub fn dispatch<V: EvaluatorVisitor>(self, visitor: V) -> Option<V::Output> {
                match self {
                    EvaluatorKind::Random => None,
                    $(EvaluatorKind::$variant => Some(visitor.visit(&$evaluator)),)+
                }
            }
        }

        // Scores of two evaluators with one ID would mix in the transposition table.
        const _: () = {
            let ids = [$(<$evaluator as Evaluator>::ID),+];
            let mut i = 0;
            while i < ids.len() {
                assert!(ids[i] != 0, "evaluator ID 0 is the endgame solver's");
                assert!(ids[i] != <EvaluatorKind as Evaluator>::ID, "evaluator ID is reserved");
                let mut j = i + 1;
                while j < ids.len() {
                    assert!(ids[i] != ids[j], "two evaluators share an ID");
                    j += 1;
                }
                i += 1;
            }
        };
    };
}

evaluator_kinds! {
    /// [`Discs`].
    Discs => Discs, "discs";
    /// [`DiscsInverse`].
    DiscsInverse => DiscsInverse, "discs-inverse";
    /// [`Classic`].
    Classic => Classic, "classic";
    /// [`Weighted`].
    Weighted => Weighted, "weighted";
    /// [`PatternWthor`], trained on the results of expert games.
    PatternWthor => PatternWthor, "pattern-wthor";
    /// [`Pattern`], trained on positions labelled by our own solver and search.
    Pattern => Pattern, "pattern";
    /// [`PatternFull`], the same with every shape and potential mobility: the solver's.
    PatternFull => PatternFull, "pattern-full";
    /// [`Neural`], a small network on the pattern features (the default's evaluator).
    Neural => Neural, "neural";
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

/// The evaluator of a name chosen at run time, one `match` per call, for tools and tests that
/// hold a name; `random` scores every position 0. The search does not use it: it dispatches
/// once and runs on the evaluator's own type.
impl Evaluator for EvaluatorKind {
    /// Keys no table: the search refuses this evaluator when it is compiled, so that one ID
    /// never stands for several evaluators' scores.
    const ID: u8 = u8::MAX;
    type State = ();

    fn evaluate(&self, position: &Position) -> i32 {
        self.dispatch(Evaluate(position)).unwrap_or(0)
    }

    fn centidiscs_per_unit(&self) -> f64 {
        self.dispatch(Scale).unwrap_or(1.0)
    }
}

/// Visits with [`Evaluator::evaluate`] of a position.
struct Evaluate<'a>(&'a Position);

impl EvaluatorVisitor for Evaluate<'_> {
    type Output = i32;

    fn visit<E: Evaluator>(self, eval: &E) -> i32 {
        eval.evaluate(self.0)
    }
}

/// Visits with [`Evaluator::centidiscs_per_unit`].
struct Scale;

impl EvaluatorVisitor for Scale {
    type Output = f64;

    fn visit<E: Evaluator>(self, eval: &E) -> f64 {
        eval.centidiscs_per_unit()
    }
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

    struct Id;

    impl EvaluatorVisitor for Id {
        type Output = u8;

        fn visit<E: Evaluator>(self, _: &E) -> u8 {
            E::ID
        }
    }

    #[test]
    fn every_name_but_random_dispatches_to_its_evaluator_and_keeps_its_id() {
        let ids: Vec<Option<u8>> = EvaluatorKind::ALL.iter().map(|k| k.dispatch(Id)).collect();
        // The transposition table keys on these: they stay what they were.
        assert_eq!(
            ids,
            [
                None,
                Some(2),
                Some(3),
                Some(4),
                Some(5),
                Some(6),
                Some(7),
                Some(8),
                Some(9)
            ]
        );
        let p = Position::start().play("f5".parse().unwrap()).unwrap();
        assert_eq!(EvaluatorKind::Discs.evaluate(&p), Discs.evaluate(&p));
        assert_eq!(EvaluatorKind::Pattern.evaluate(&p), Pattern.evaluate(&p));
        assert_eq!(
            EvaluatorKind::PatternFull.evaluate(&p),
            PatternFull.evaluate(&p)
        );
        assert_eq!(EvaluatorKind::Random.evaluate(&p), 0);
        assert_eq!(EvaluatorKind::Classic.centidiscs_per_unit(), 38.0);
        assert_eq!(EvaluatorKind::Random.centidiscs_per_unit(), 1.0);
    }
}
