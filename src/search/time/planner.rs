//! Between two iterations of the deepening, whether another can finish before the deadlines
//! (see the time manager's essay in `time/mod.rs`).

use crate::search::limits::Limits;
use std::time::Duration;
use web_time::Instant;

/// How much later the soft deadline comes, as a part of its span, when the best move
/// changed at the last depth.
const UNSETTLED_EXTENSION: f64 = 0.5;
/// Iteration time growth assumed before two iterations were measured, and its bounds.
const GROWTH_GUESS: f64 = 3.0;
const GROWTH_MIN: f64 = 1.5;
const GROWTH_MAX: f64 = 8.0;
/// An iteration may start when this part of it should end before the hard deadline: a depth
/// cut short still plays the best move it proved (its first move, most of its time, is the
/// last depth's best searched again, and any move that beats it is proven better), so the
/// time before the deadline is not lost to an iteration that would not have finished whole.
const CUT_ITERATION_PART: f64 = 0.5;

/// Decides between two iterations of the deepening whether another may start: not after the
/// soft deadline (moved out when the best move keeps changing), and not when less than
/// [`CUT_ITERATION_PART`] of it should end before the hard deadline.
pub(crate) struct IterationPlanner {
    /// The soft deadline as planned, and as it stands after the last iteration.
    planned_soft: Option<Instant>,
    soft: Option<Instant>,
    hard: Option<Instant>,
    /// A per-move clock's time, lost if not spent: any depth may start before the deadline.
    spend_all: bool,
    /// The soft deadline's span from the start, as planned.
    soft_span: Duration,
    /// The last two iterations' times, newest last.
    last: Option<Duration>,
    before_last: Option<Duration>,
    /// Work on the next iteration already done (by a ponder), taken off its expected time.
    credit: Duration,
}

impl IterationPlanner {
    /// A planner for the deadlines of `limits`, starting now.
    pub fn new(limits: &Limits) -> IterationPlanner {
        let start = Instant::now();
        IterationPlanner {
            planned_soft: limits.soft_deadline,
            soft: limits.soft_deadline,
            hard: limits.hard_deadline,
            spend_all: limits.spend_all,
            soft_span: limits
                .soft_deadline
                .map_or(Duration::ZERO, |s| s.saturating_duration_since(start)),
            last: None,
            before_last: None,
            credit: Duration::ZERO,
        }
    }

    /// Notes an iteration that took `took`; `best_changed` when its best move differs from
    /// the previous iteration's, which moves the soft deadline out until an iteration agrees
    /// with the one before.
    pub fn finished(&mut self, took: Duration, best_changed: bool) {
        self.before_last = self.last;
        self.last = Some(took);
        self.credit = Duration::ZERO;
        self.soft = self.planned_soft.map(|soft| {
            if best_changed {
                let later = soft + self.soft_span.mul_f64(UNSETTLED_EXTENSION);
                self.hard.map_or(later, |hard| later.min(hard))
            } else {
                soft
            }
        });
    }

    /// Notes that `done` of the next iteration's work was already done (a ponder searched part
    /// of it and the table holds that part).
    pub fn credit(&mut self, done: Duration) {
        self.credit = done;
    }

    /// The next iteration's expected time: the last one's times its growth over the one
    /// before (bounded, since the first depths take microseconds and their ratios are noise),
    /// less the part already done.
    pub fn next_iteration_time(&self) -> Duration {
        let Some(last) = self.last else {
            return Duration::ZERO;
        };
        let growth = match self.before_last {
            Some(before) if before > Duration::ZERO => {
                (last.as_secs_f64() / before.as_secs_f64()).clamp(GROWTH_MIN, GROWTH_MAX)
            }
            _ => GROWTH_GUESS,
        };
        last.mul_f64(growth).saturating_sub(self.credit)
    }

    /// Whether another iteration may start now.
    pub fn may_start_next(&self) -> bool {
        let now = Instant::now();
        if self.spend_all {
            return self.hard.is_none_or(|hard| now < hard);
        }
        if self.soft.is_some_and(|soft| now >= soft) {
            return false;
        }
        match self.hard {
            Some(hard) => now + self.next_iteration_time().mul_f64(CUT_ITERATION_PART) <= hard,
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_planner_stops_before_an_iteration_that_cannot_finish() {
        let limits = Limits::time(Duration::from_millis(200));
        let mut planner = IterationPlanner::new(&limits);
        assert!(planner.may_start_next());
        planner.finished(Duration::from_millis(10), false);
        planner.finished(Duration::from_millis(40), false);
        // Growth 4: the next takes about 160 ms, within 200 ms.
        assert!(planner.may_start_next());
        planner.finished(Duration::from_millis(160), false);
        assert!(!planner.may_start_next());
        assert!(IterationPlanner::new(&Limits::none()).may_start_next());
        // Under a per-move clock the time is lost if not spent: the next depth starts.
        let mut planner = IterationPlanner::new(&Limits {
            spend_all: true,
            ..Limits::time(Duration::from_millis(200))
        });
        planner.finished(Duration::from_millis(10), false);
        planner.finished(Duration::from_millis(40), false);
        planner.finished(Duration::from_millis(160), false);
        assert!(planner.may_start_next());
    }

    #[test]
    fn an_unsettled_best_move_moves_the_soft_deadline_out() {
        let now = Instant::now();
        let limits = Limits {
            soft_deadline: Some(now + Duration::from_secs(10)),
            hard_deadline: Some(now + Duration::from_secs(12)),
            ..Limits::none()
        };
        let mut planner = IterationPlanner::new(&limits);
        planner.finished(Duration::ZERO, true);
        // Half the soft span later, but never past the hard deadline.
        assert_eq!(planner.soft, limits.hard_deadline);
        planner.finished(Duration::ZERO, false);
        assert_eq!(planner.soft, limits.soft_deadline);
        let limits = Limits {
            soft_deadline: Some(now + Duration::from_secs(10)),
            hard_deadline: Some(now + Duration::from_secs(30)),
            ..Limits::none()
        };
        let mut planner = IterationPlanner::new(&limits);
        planner.finished(Duration::ZERO, true);
        let soft = planner.soft.unwrap_or(now);
        assert!(soft > now + Duration::from_secs(14) && soft < now + Duration::from_secs(16));
    }
}
