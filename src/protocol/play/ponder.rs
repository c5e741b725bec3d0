//! The ponder after the engine's move: what it searches, and how the log names it.

use super::Think;
use crate::board::{Move, Position};
use crate::protocol::worker::{PonderJob, PonderPlan, SearchJob};
use crate::search::Limits;

/// The plan of a ponder after the engine's search of `think`'s position (with its levels,
/// and its budget, the engine's clock if one runs): [`Searcher::ponder`] on the position
/// after the move played, the reply its principal variation expects first.
pub(super) fn ponder_plan(think: Think) -> PonderPlan {
    let (position, levels, budget) = (think.position, think.levels, think.budget);
    Box::new(move |report, stop| {
        let root = position.play(report.best_move).ok()?;
        if root.is_game_over() {
            return None;
        }
        let expected = report.pv.get(1).copied();
        let expected_position = expected.and_then(|m| root.play(m).ok());
        let limits = Limits {
            stop,
            ..Limits::none()
        };
        let job: SearchJob = Box::new(move |searcher| {
            let nodes = searcher.ponder(&root, expected, &levels, budget, &limits);
            log::debug!("pondered {nodes} nodes ({})", ponder_name(&root, expected));
            None
        });
        Some(PonderJob {
            root,
            expected: expected_position,
            job,
        })
    })
}

/// How a log line names a ponder.
fn ponder_name(root: &Position, expected: Option<Move>) -> String {
    match expected {
        Some(m) if root.is_legal(m) => format!("expecting {m}"),
        _ => "no expected reply".to_string(),
    }
}
