//! The lines the NBoard server writes: formats NBoard 2.0's parser accepts.

use crate::board::{Color, Position};
use crate::search::{SearchReport, Value};
use std::time::Duration;

/// The engine's name; `set myname` adds the version and depth (one word, as NBoard reads
/// only the first).
pub const ENGINE_NAME: &str = "othello-engine";

/// A `nodestats <nodes> <seconds>` line. NBoard divides by the time for its speed display and
/// reads no exponent, so the time has microseconds and is never 0.
pub fn nodestats_line(nodes: u64, elapsed: Duration) -> String {
    format!("nodestats {nodes} {:.6}", elapsed.as_secs_f64().max(1e-6))
}

/// The `=== <move>/<eval>/<seconds>` line that answers `go` with the move of `report`, found
/// in `elapsed`.
pub fn move_line(report: &SearchReport, elapsed: Duration) -> String {
    format!(
        "=== {}/{:.2}/{:.3}",
        report.best_move.to_string().to_uppercase(),
        report.value.discs(),
        elapsed.as_secs_f64()
    )
}

/// An `analysis <moves made> <eval>` line for `value`, the value of `position` for its side
/// to move. The eval is given for Black, as NBoard's own engine gives it (the protocol's
/// comment and its reference engine disagree; see protocol.md).
pub fn analysis_line(moves_made: usize, position: &Position, value: Value) -> String {
    let for_black = match position.side_to_move() {
        Color::Black => value.discs(),
        Color::White => -value.discs(),
    };
    format!("analysis {moves_made} {for_black:.2}")
}

/// A `search <pv> <eval> 0 <depth>` line for a finished depth, or for a book move a `book
/// <pv> <eval> <games> <depth>` line (the WTHOR games that reached the position after it).
pub fn search_line(report: &SearchReport) -> String {
    let pv: Vec<String> = report
        .pv
        .iter()
        .map(|m| m.to_string().to_uppercase())
        .collect();
    let pv = if pv.is_empty() {
        report.best_move.to_string().to_uppercase()
    } else {
        pv.join("-")
    };
    let depth = match report.value {
        Value::Exact(_) => "100%".to_string(),
        Value::Wld(_) => "100%W".to_string(),
        Value::Estimate(_) => report.depth.to_string(),
    };
    let (kind, games) = match report.book {
        Some(games) => ("book", games),
        None => ("search", 0),
    };
    format!("{kind} {pv} {:.2} {games} {depth}", report.value.discs())
}
