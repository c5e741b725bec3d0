//! Clocks (GGF `TI` for NBoard, `time_settings`/`time_left` for GTP) and the time manager that
//! turns the remaining time into a search's soft and hard deadlines.

use crate::board::Position;
use crate::search::Limits;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Time kept back on every move for process start-up, pipes and the GUI's own lag.
const OVERHEAD: Duration = Duration::from_millis(60);

/// The longest clock we plan with (about three years): more is the same as no limit for a
/// game, and keeps every deadline a representable instant.
pub const MAX_CLOCK_SECONDS: f64 = 1.0e8;

/// `seconds` as a duration, clamped to `0..=MAX_CLOCK_SECONDS` (NaN counts as 0), so that no
/// clock value a protocol sends can overflow a `Duration` or an `Instant`.
pub fn clock_duration(seconds: f64) -> Duration {
    if seconds.is_nan() {
        return Duration::ZERO;
    }
    Duration::from_secs_f64(seconds.clamp(0.0, MAX_CLOCK_SECONDS))
}

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
    (clock_duration(soft), clock_duration(hard))
}

/// A GGF clock (`TI`, `TB`, `TW`): main time, increment and grace, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfClock {
    /// Time until the first timeout.
    pub main: f64,
    /// Added after each of the player's moves.
    pub increment: f64,
    /// Extra time once after a timeout before the player is wiped out.
    pub grace: f64,
}

impl GgfClock {
    /// Reads `MAIN[/INCREMENT[/GRACE]]`, each `[[days.]hours:]minutes:seconds` or plain
    /// seconds; empty fields are 0, a missing grace is GGS's default of 2 minutes.
    pub fn parse(text: &str) -> Option<GgfClock> {
        let mut fields = text.trim().split('/');
        let main = parse_ggf_time(fields.next()?)?;
        let increment = fields.next().map_or(Some(0.0), parse_ggf_time)?;
        let grace = fields.next().map_or(Some(120.0), parse_ggf_time)?;
        if fields.next().is_some() {
            return None;
        }
        Some(GgfClock {
            main,
            increment,
            grace,
        })
    }

    /// The time left after moves that took `seconds` each, as NBoard's clock counts it:
    /// a move's time comes off; the first overrun is forgiven up to the grace period; an
    /// overrun beyond it leaves nothing; the increment follows every move but a wipe-out.
    pub fn remaining_after(&self, seconds: impl IntoIterator<Item = f64>) -> f64 {
        let mut left = self.main;
        let mut timed_out = false;
        for spent in seconds {
            left -= spent.max(0.0);
            if left < 0.0 && !timed_out {
                timed_out = true;
                left += self.grace;
            }
            if left < 0.0 {
                left = 0.0;
            } else {
                left += self.increment;
            }
        }
        left
    }
}

fn parse_ggf_time(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() {
        return Some(0.0);
    }
    let (days, clock) = match text.split_once('.') {
        // A dot before a colon is the days separator; after it, a fraction of seconds.
        Some((d, rest)) if rest.contains(':') => (d.parse::<f64>().ok()?, rest),
        _ => (0.0, text),
    };
    let mut seconds = 0.0;
    for part in clock.split(':') {
        let value = part.trim().parse::<f64>().ok()?;
        if !value.is_finite() || value < 0.0 {
            return None;
        }
        seconds = seconds * 60.0 + value;
    }
    Some(days * 86400.0 + seconds)
}

/// GTP `time_settings`: main time, then byo-yomi periods of `byo_yomi` seconds for
/// `stones` moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GtpTimeSettings {
    /// Main time in seconds.
    pub main: f64,
    /// Length of a byo-yomi period in seconds.
    pub byo_yomi: f64,
    /// Moves per byo-yomi period; 0 with a positive period means no limit.
    pub stones: u32,
}

/// One player's GTP clock: seconds left, and the stones left in the byo-yomi period
/// (0 while main time runs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GtpClock {
    /// Seconds left in the main time or the current period.
    pub seconds: f64,
    /// Moves left in the period, 0 in main time.
    pub stones: u32,
}

impl GtpTimeSettings {
    /// Whether these settings mean "no time limit" (the GTP spec's reading of
    /// `byo_yomi > 0, stones = 0`).
    pub fn unlimited(&self) -> bool {
        self.byo_yomi > 0.0 && self.stones == 0
    }

    /// A fresh clock under these settings.
    pub fn fresh_clock(&self) -> GtpClock {
        if self.main <= 0.0 && self.stones > 0 {
            GtpClock {
                seconds: self.byo_yomi,
                stones: self.stones,
            }
        } else {
            GtpClock {
                seconds: self.main,
                stones: 0,
            }
        }
    }

    /// The budget for a move made with `clock`.
    pub fn budget(&self, clock: GtpClock) -> Option<TimeBudget> {
        if self.unlimited() {
            return None;
        }
        let remaining = clock_duration(clock.seconds);
        Some(if clock.stones > 0 {
            TimeBudget {
                remaining,
                increment: Duration::ZERO,
                moves_to_go: Some(clock.stones),
            }
        } else if clock.seconds <= 0.0 && self.stones > 0 {
            // Main time is gone and the controller has not said so yet: the first period.
            TimeBudget {
                remaining: clock_duration(self.byo_yomi),
                increment: Duration::ZERO,
                moves_to_go: Some(self.stones),
            }
        } else {
            TimeBudget {
                remaining,
                increment: Duration::ZERO,
                moves_to_go: None,
            }
        })
    }

    /// `clock` after a move that took `spent` seconds, for when no `time_left` follows.
    pub fn charge(&self, clock: GtpClock, spent: f64) -> GtpClock {
        let seconds = clock.seconds - spent;
        if clock.stones > 1 {
            GtpClock {
                seconds,
                stones: clock.stones - 1,
            }
        } else if clock.stones == 1 || (seconds <= 0.0 && self.stones > 0) {
            GtpClock {
                seconds: self.byo_yomi,
                stones: self.stones,
            }
        } else {
            GtpClock { seconds, stones: 0 }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ggf_clocks_read_like_nboard() {
        let c = GgfClock::parse("15:00").unwrap_or(GgfClock {
            main: 0.0,
            increment: 0.0,
            grace: 0.0,
        });
        assert_eq!((c.main, c.increment, c.grace), (900.0, 0.0, 120.0));
        let c = GgfClock::parse("30:00/00:05/02:00");
        assert_eq!(
            c.map(|c| (c.main, c.increment, c.grace)),
            Some((1800.0, 5.0, 120.0))
        );
        assert_eq!(
            GgfClock::parse("05:00//02:00").map(|c| c.increment),
            Some(0.0)
        );
        assert_eq!(GgfClock::parse("15:0").map(|c| c.main), Some(900.0));
        assert_eq!(GgfClock::parse("1.00:00:10").map(|c| c.main), Some(86410.0));
        assert!(GgfClock::parse("abc").is_none());
        let c = GgfClock {
            main: 10.0,
            increment: 1.0,
            grace: 5.0,
        };
        assert_eq!(c.remaining_after([3.0]), 8.0);
        assert_eq!(c.remaining_after([12.0]), 4.0);
        assert_eq!(c.remaining_after([20.0]), 0.0);
    }

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
