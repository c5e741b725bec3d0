//! The disc counters: the plainest evaluator and its mirror image.

use super::evaluator::Evaluator;
use crate::board::Position;

/// Own discs minus the opponent's, in hundredths of a disc.
#[derive(Clone, Copy, Debug, Default)]
pub struct Discs;

impl Evaluator for Discs {
    const ID: u8 = 2;
    type State = ();

    fn evaluate(&self, p: &Position) -> i32 {
        100 * (p.player().count_ones() as i32 - p.opponent().count_ones() as i32)
    }
}

/// The opponent's discs minus own: an engine that plays to lose discs.
#[derive(Clone, Copy, Debug, Default)]
pub struct DiscsInverse;

impl Evaluator for DiscsInverse {
    const ID: u8 = 3;
    type State = ();

    fn evaluate(&self, p: &Position) -> i32 {
        -Discs.evaluate(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disc_evaluators_count_discs() {
        let p = Position::start().play("f5".parse().unwrap()).unwrap();
        // White to move with 1 disc against 4.
        assert_eq!(Discs.evaluate(&p), -300);
        assert_eq!(DiscsInverse.evaluate(&p), 300);
    }
}
