//! The score scale every search shares: evaluations stay below [`WIN`], a finished game scores
//! beyond it, and [`INFINITY`] is wider than both, the bound of a fully open window. The
//! midgame search, the solver's pre-searches, iterative deepening and the reports all read
//! scores on this one scale, so it sits below them all rather than in any one of them.

use crate::board::Position;

/// Scores beyond this are finished games: `WIN + 100 x discs` (negated for losses).
pub const WIN: i32 = 40_000;
/// Wider than any score.
pub const INFINITY: i32 = 100_000;

/// The score of a finished game for the side to move, above every evaluation.
#[inline]
pub fn terminal_score(position: &Position) -> i32 {
    let s = position.final_score();
    match s.signum() {
        1 => WIN + 100 * s,
        -1 => -WIN + 100 * s,
        _ => 0,
    }
}
