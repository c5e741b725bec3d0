//! The time manager: from the time a move may use (a clock, its increment, how many moves it
//! must last) to the search's soft and hard deadlines. The protocols and the match runner
//! only read their clocks (the records layer converts them to a [`TimeBudget`]); how to spend
//! the time is decided here.

use super::Limits;
use crate::board::Position;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Time kept back on every move for process start-up, pipes and the GUI's own lag.
const OVERHEAD: Duration = Duration::from_millis(60);

/// The time a move may use: its remaining main time, the increment it earns, and how many
/// moves that time must cover (`None`: the rest of the game).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeBudget {
    /// Time left on the clock.
    pub remaining: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves the remaining time must last for, when the clock says (byo-yomi periods).
    pub moves_to_go: Option<u32>,
}

/// Limits for a search of `position` with `budget` (or with no clock at all), watching `stop`.
///
/// The target is an even share of the usable time over the mover's remaining moves, weighted
/// up in the midgame, where extra depth pays most; the soft deadline (no new iteration) is
/// half of it, because an iteration costs several times the one before; the hard deadline
/// never exceeds half the usable time, so one slow move cannot lose the game on time.
pub fn limits_for(
    position: &Position,
    budget: Option<TimeBudget>,
    stop: Arc<AtomicBool>,
) -> Limits {
    let now = Instant::now();
    let Some(budget) = budget else {
        return Limits {
            stop,
            soft_deadline: None,
            hard_deadline: None,
        };
    };
    let (soft, hard) = move_time(position.empty_count(), budget);
    Limits {
        stop,
        soft_deadline: now.checked_add(soft),
        hard_deadline: now.checked_add(hard),
    }
}

/// The soft and hard time for one move with `empties` empty squares.
pub fn move_time(empties: u32, budget: TimeBudget) -> (Duration, Duration) {
    let safety = budget.remaining / 20 + OVERHEAD;
    let usable = budget.remaining.saturating_sub(safety);
    let own_moves_left = budget.moves_to_go.unwrap_or(empties.div_ceil(2)).max(1);
    let weight = if (18..=44).contains(&empties) {
        1.3
    } else {
        1.0
    };
    let share = usable.as_secs_f64() / f64::from(own_moves_left) * weight
        + budget.increment.as_secs_f64() * 0.75;
    let cap = if budget.moves_to_go.is_some() {
        usable.as_secs_f64() + budget.increment.as_secs_f64() * 0.75
    } else {
        usable.as_secs_f64() / 2.0 + budget.increment.as_secs_f64() * 0.5
    };
    let hard = (share * 1.8).min(cap).max(0.0);
    let soft = (share / 2.0).min(hard);
    // Budgets come clamped from the records layer; a value beyond a Duration is no limit.
    let duration = |s: f64| Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX);
    (duration(soft), duration(hard))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_times_stay_inside_the_clock() {
        for remaining in [0.0, 0.05, 1.0, 10.0, 60.0, 900.0] {
            for empties in 0..=60 {
                let budget = TimeBudget {
                    remaining: Duration::from_secs_f64(remaining),
                    increment: Duration::ZERO,
                    moves_to_go: None,
                };
                let (soft, hard) = move_time(empties, budget);
                assert!(soft <= hard);
                assert!(hard.as_secs_f64() <= remaining / 2.0 + 1e-9);
            }
        }
    }
}
