//! What a search tells: the [`Value`] of a position in discs, the [`SearchReport`] of a finished
//! depth, and the principal variation read back from the transposition table.

use super::probcut::Selectivity;
use super::score::WIN;
use super::tt::TranspositionTable;
use crate::board::{Move, Position, Square};
use crate::eval::Evaluator;
use std::time::Duration;

/// The largest estimate a report gives, in hundredths of a disc: a whole board.
const MAX_ESTIMATE: f64 = 6400.0;

/// The value of a position as a search found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// An evaluation in hundredths of a disc (a proven result beyond [`WIN`]).
    Estimate(i32),
    /// The exact final disc difference.
    Exact(i32),
    /// Win (1), draw (0) or loss (-1).
    Wld(i32),
}

impl Value {
    /// The value in discs for the side to move (for `Wld`: +1, 0 or -1).
    pub fn discs(self) -> f64 {
        match self {
            Value::Estimate(v) if v > WIN => f64::from(v - WIN) / 100.0,
            Value::Estimate(v) if v < -WIN => f64::from(v + WIN) / 100.0,
            Value::Estimate(v) => f64::from(v) / 100.0,
            Value::Exact(d) | Value::Wld(d) => f64::from(d),
        }
    }

    /// The value of a search score in the units of `eval`: an estimate in hundredths of a
    /// disc, since the search compares the evaluator's own units but reports speak discs.
    /// Proven results (beyond [`WIN`]) pass unchanged; estimates stay within 64 discs.
    pub fn estimate<E: Evaluator>(score: i32, eval: &E) -> Value {
        if score.abs() > WIN {
            return Value::Estimate(score);
        }
        let scaled = (f64::from(score) * eval.centidiscs_per_unit()).round();
        Value::Estimate(scaled.clamp(-MAX_ESTIMATE, MAX_ESTIMATE) as i32)
    }

    /// The same value for the other side.
    pub fn negate(self) -> Value {
        match self {
            Value::Estimate(v) => Value::Estimate(-v),
            Value::Exact(d) => Value::Exact(-d),
            Value::Wld(d) => Value::Wld(-d),
        }
    }
}

/// A search result: after each finished depth (progress) and at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchReport {
    /// The move to play (`Pass` when there is none).
    pub best_move: Move,
    /// The position's value for the side to move.
    pub value: Value,
    /// The depth finished (the number of empties for a solve).
    pub depth: u32,
    /// The principal variation, starting with `best_move`.
    pub pv: Vec<Move>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time spent so far.
    pub elapsed: Duration,
    /// False when a limit cut the search short.
    pub complete: bool,
    /// How selective the search was (100%: full width; solves are exact).
    pub selectivity: Selectivity,
    /// `Some(games)` when the move came from the opening book: the WTHOR games that reached
    /// the position after it (0 when none were counted).
    pub book: Option<u32>,
}

impl SearchReport {
    /// The report of a move decided without searching (a random move, a book move, a finished
    /// game): `best_move` with `value`, depth 0, the line `best_move` alone, no nodes, no time,
    /// complete, full width, not from the book. Others start from it with `..`.
    pub fn immediate(best_move: Move, value: Value) -> SearchReport {
        SearchReport {
            best_move,
            value,
            depth: 0,
            pv: vec![best_move],
            nodes: 0,
            elapsed: Duration::ZERO,
            complete: true,
            selectivity: Selectivity::FULL,
            book: None,
        }
    }
}

/// The report for a position that had to pass, built from the report of the position after
/// the pass.
pub(crate) fn pass_report(after: &SearchReport) -> SearchReport {
    let mut pv = vec![Move::Pass];
    pv.extend_from_slice(&after.pv);
    SearchReport {
        best_move: Move::Pass,
        value: after.value.negate(),
        selectivity: after.selectivity,
        pv,
        ..after.clone()
    }
}

/// The best line from the table entries of `kind`, starting with `first`, at most `max_len`
/// moves; forced passes are written in.
pub(crate) fn principal_variation(
    tt: &TranspositionTable,
    position: &Position,
    kind: u8,
    first: Move,
    max_len: usize,
) -> Vec<Move> {
    let mut pv = vec![first];
    let Ok(mut at) = position.play(first) else {
        return pv;
    };
    while pv.len() < max_len && !at.is_game_over() {
        if at.must_pass() {
            pv.push(Move::Pass);
            at = at.pass();
            continue;
        }
        let Some(entry) = tt.probe(at.player(), at.opponent(), kind) else {
            break;
        };
        let Some(mv) = Square::new(entry.best as usize).map(Move::Play) else {
            break;
        };
        match at.play(mv) {
            Ok(next) => {
                pv.push(mv);
                at = next;
            }
            Err(_) => break,
        }
    }
    pv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_in_discs_and_proven_results_beyond_win() {
        assert_eq!(Value::Estimate(-250).discs(), -2.5);
        assert_eq!(Value::Estimate(WIN + 600).discs(), 6.0);
        assert_eq!(Value::Estimate(-WIN - 200).negate().discs(), 2.0);
        assert_eq!(Value::Exact(-4).negate(), Value::Exact(4));
        assert_eq!(Value::Wld(1).discs(), 1.0);
    }
}
