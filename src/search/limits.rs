//! What bounds a search: a stop flag and deadlines ([`Limits`]), and the cheap check of them
//! that the searches make as they go ([`Stopper`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
// std's own `Instant` on native targets (web-time re-exports it); in a browser, where std's
// `Instant::now` panics, one read from `performance.now()`. The search's other files take the
// same one.
use web_time::Instant;

/// Nodes between two looks at the stop flag and the clock: reading the clock at every node
/// would cost more than the nodes, while a few thousand nodes take well under a millisecond.
pub const POLL_INTERVAL: u64 = 4096;

/// What bounds a search: a flag another thread may raise, and deadlines.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Raised to stop the search; the best move of the last finished iteration stands.
    pub stop: Arc<AtomicBool>,
    /// No new iteration starts after this.
    pub soft_deadline: Option<Instant>,
    /// The search stops at this instant.
    pub hard_deadline: Option<Instant>,
    /// Whether the time up to the hard deadline is lost if not spent (a per-move clock):
    /// then a new depth starts whenever there is time left, since a depth cut short still
    /// plays the best move it proved.
    pub spend_all: bool,
}

impl Limits {
    /// No limit but the stop flag.
    pub fn none() -> Limits {
        Limits::default()
    }

    /// Stop after `time` (both deadlines at once).
    pub fn time(time: Duration) -> Limits {
        // A time too long for an instant is no limit.
        let at = Instant::now().checked_add(time);
        Limits {
            soft_deadline: at,
            hard_deadline: at,
            ..Limits::default()
        }
    }

    /// True once the stop flag is raised.
    pub(crate) fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The time until the hard deadline, if there is one: a clock is running.
    pub fn time_left(&self) -> Option<Duration> {
        self.hard_deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }
}

/// Checks the limits every [`POLL_INTERVAL`] nodes, cheaply.
pub(crate) struct Stopper {
    flag: Arc<AtomicBool>,
    deadline: Option<Instant>,
    next_poll: u64,
    stopped: bool,
}

impl Stopper {
    /// A stopper for the flag and the hard deadline of `limits`. The first poll comes after
    /// [`POLL_INTERVAL`] nodes, so that a search always finishes its first depths (a fraction
    /// of a millisecond) and has a move to give: with a deadline already passed, a search
    /// stopped at its first node once answered with the first legal square.
    pub fn new(limits: &Limits) -> Stopper {
        Stopper {
            flag: limits.stop.clone(),
            deadline: limits.hard_deadline,
            next_poll: POLL_INTERVAL,
            stopped: false,
        }
    }

    /// True once the search must stop; looks at the flag and the clock only every
    /// [`POLL_INTERVAL`] nodes (`nodes` is the search's count so far).
    #[inline]
    pub fn poll(&mut self, nodes: u64) -> bool {
        if nodes >= self.next_poll && !self.stopped {
            self.next_poll = nodes + POLL_INTERVAL;
            self.stopped = self.flag.load(Ordering::Relaxed)
                || self.deadline.is_some_and(|d| Instant::now() >= d);
        }
        self.stopped
    }

    /// True once a poll saw a limit.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_flag_is_seen_at_the_next_poll() {
        let limits = Limits::none();
        let mut stopper = Stopper::new(&limits);
        assert!(!stopper.poll(POLL_INTERVAL));
        limits.stop.store(true, Ordering::Relaxed);
        // Between polls the flag is not read.
        assert!(!stopper.poll(2 * POLL_INTERVAL - 1));
        assert!(stopper.poll(2 * POLL_INTERVAL));
        assert!(stopper.stopped());
        assert!(limits.stop_requested());
    }

    #[test]
    fn a_passed_deadline_stops() {
        let limits = Limits::time(Duration::ZERO);
        let mut stopper = Stopper::new(&limits);
        // The first nodes always run, then the deadline is seen.
        assert!(!stopper.poll(0));
        assert!(stopper.poll(POLL_INTERVAL));
        assert!(!Stopper::new(&Limits::time(Duration::MAX)).poll(POLL_INTERVAL));
    }
}
