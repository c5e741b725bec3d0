//! Clocks as the protocols tell them: GGF's `TI`/`TB`/`TW` (NBoard), GTP's `time_settings` and
//! `time_left`, and the match runner's time control, each converted to the search's
//! [`TimeBudget`] for one move. GGF clock text is read and written here, so that the clock
//! NBoard engines are sent and the clock our NBoard server reads are one contract.

use super::record::GameRecord;
use crate::board::Color;
use crate::search::TimeBudget;
use std::time::Duration;

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
    /// Whether the figures came in whole seconds (no fraction written): a GUI's clock, whose
    /// own delay a per-move limit must leave room for ([`crate::search::GUI_DELAY`]); a
    /// script's referee writes fractions.
    pub whole_seconds: bool,
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

/// A clock told in whole seconds may be up to this much less than its figure (GNU Quarry
/// rounds to the nearest second)...
const ROUNDED_BELOW: Duration = Duration::from_millis(500);
/// ... or anywhere in the second that follows (most controllers round down), less a margin.
const WHOLE_SECOND_SPAN: Duration = Duration::from_millis(990);

impl GtpClock {
    /// The least and the most time this clock can mean. GTP writes whole seconds: rounded
    /// down by most controllers (`1` may be 1.9 s), to the nearest by GNU Quarry (`1` may be
    /// 0.5 s). Fractions are taken as exact.
    pub fn bounds(&self) -> (Duration, Duration) {
        let told = clock_duration(self.seconds);
        if self.seconds.fract() == 0.0 {
            (told.saturating_sub(ROUNDED_BELOW), told + WHOLE_SECOND_SPAN)
        } else {
            (told, told)
        }
    }
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
                lag: Duration::ZERO,
                stall: Duration::ZERO,
                main: clock_duration(self.byo_yomi),
                coarse: false,
                overhead: None,
            }
        } else if clock.seconds <= 0.0 && self.stones > 0 {
            // Main time is gone and the controller has not said so yet: the first period.
            TimeBudget {
                remaining: clock_duration(self.byo_yomi),
                increment: Duration::ZERO,
                moves_to_go: Some(self.stones),
                lag: Duration::ZERO,
                stall: Duration::ZERO,
                main: clock_duration(self.byo_yomi),
                coarse: false,
                overhead: None,
            }
        } else {
            TimeBudget {
                remaining,
                increment: Duration::ZERO,
                moves_to_go: None,
                lag: Duration::ZERO,
                stall: Duration::ZERO,
                // Sudden death keeps a reserve of its main time; with byo-yomi to come,
                // running out of main time loses nothing.
                main: if self.stones == 0 {
                    clock_duration(self.main)
                } else {
                    Duration::ZERO
                },
                coarse: false,
                overhead: None,
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

/// The time each side gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Seconds for the game plus an increment after each move (`--tc 60+0.5`).
    Fischer {
        /// The starting clock.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
    /// A fixed time for each move (`--move-time 0.5`).
    PerMove(Duration),
    /// No clock (the engines are limited some other way, e.g. by `--depth`).
    Untimed,
}

impl TimeControl {
    /// Reads `60+0.5` or `60` (seconds, increment optional).
    pub fn parse_fischer(text: &str) -> Result<TimeControl, String> {
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |t: &str, what: &str, min: f64| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= min && *s <= 86_400.0)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| {
                    format!("bad time control '{text}': the {what} '{t}' is not seconds")
                })
        };
        let base = seconds(base, "base time", f64::MIN_POSITIVE)?;
        let increment = seconds(increment, "increment", 0.0)?;
        Ok(TimeControl::Fischer { base, increment })
    }

    /// The GGF clock text (`TI`) of the game record, in the form NBoard and GGS read: whole
    /// seconds (`m:ss`; NBoard 2.0 refuses a fraction, `0:10.000`, and opens nothing), the
    /// increment left out when it is none, as NBoard writes it. A figure that is not whole is
    /// rounded to the nearest second: [`TimeControl::exact_text`] says it exactly. None
    /// without a clock, and none for a per-move limit: GGF's clocks are a game's (main time,
    /// increment, grace), and the one way to write a limit a move, an increment on an empty
    /// clock, showed in NBoard as both clocks at 0:00 all game; the limit is said in the
    /// record's comment ([`TimeControl::exact_text`]).
    pub fn ggf_clock(&self) -> Option<String> {
        let (main, increment) = match self {
            TimeControl::Fischer { base, increment } => (*base, *increment),
            TimeControl::PerMove(_) | TimeControl::Untimed => return None,
        };
        let increment = whole_seconds(increment);
        Some(if increment == 0 {
            ggf_whole_time(whole_seconds(main))
        } else {
            format!(
                "{}/{}",
                ggf_whole_time(whole_seconds(main)),
                ggf_whole_time(increment)
            )
        })
    }

    /// The time control in seconds (`10+0.1`, `per move 0.5`) when a GGF clock cannot write
    /// it (a fraction of a second, a per-move limit), for a record's comment; none when it
    /// can.
    pub fn exact_text(&self) -> Option<String> {
        let whole = |d: Duration| d.subsec_nanos() == 0;
        match self {
            TimeControl::Fischer { base, increment } if !whole(*base) || !whole(*increment) => {
                Some(format!(
                    "{}+{}",
                    base.as_secs_f64(),
                    increment.as_secs_f64()
                ))
            }
            TimeControl::PerMove(t) => Some(format!("per move {}", t.as_secs_f64())),
            _ => None,
        }
    }
}

/// `time` rounded to the nearest whole second.
fn whole_seconds(time: Duration) -> u64 {
    (time.as_millis().saturating_add(500) / 1000) as u64
}

/// Whole seconds as NBoard writes a clock: `m:ss`, or `h:mm:ss` from an hour.
pub fn ggf_whole_time(seconds: u64) -> String {
    let (hours, minutes, seconds) = (seconds / 3600, (seconds / 60) % 60, seconds % 60);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

/// A time as GGF writes it for engines, `minutes:seconds.milliseconds` (rounded down to the
/// millisecond, so that a clock never says more than is left): exact, which our server and
/// other engines read, though NBoard itself does not (records use [`TimeControl::ggf_clock`]).
pub fn ggf_time(time: Duration) -> String {
    let ms = time.as_millis();
    format!("{}:{:02}.{:03}", ms / 60_000, (ms / 1000) % 60, ms % 1000)
}

/// The clock tags that tell an NBoard engine the runner's clocks.
///
/// NBoard engines work out their time from the game: the clock's main time, minus each of
/// their moves' times, plus the increment after each of their moves, passes and opening moves
/// included (protocols.md §1.9; our server does the same). The moves are sent without times,
/// so each side's clock is written as `MAIN/INCREMENT/0` with `MAIN` = the time it has left
/// minus the increments its `moves` so far will add back: exact, with no grace to count on.
/// When that would be negative (an increment large against the clock) the clock is written as
/// what is left with no increment. A per-move limit `t` is written as `t` left with no
/// increment: GGF has no per-move clocks. `TI` carries the side to move's clock (all that
/// readers of `TI` alone need), then `TB` and `TW` both; untimed games have no clock tags.
/// `controls` are black's and white's (a match may give each engine its own).
pub fn nboard_clocks(
    controls: [TimeControl; 2],
    left: [Duration; 2],
    moves: [u32; 2],
    mover: Color,
) -> String {
    if controls == [TimeControl::Untimed; 2] {
        return String::new();
    }
    let clock = |side: usize| {
        let (main, increment) = match controls[side] {
            TimeControl::Fischer { increment, .. } => increment
                .checked_mul(moves[side])
                .and_then(|added| left[side].checked_sub(added))
                .map_or((left[side], Duration::ZERO), |main| (main, increment)),
            TimeControl::PerMove(t) => (t, Duration::ZERO),
            TimeControl::Untimed => (Duration::ZERO, Duration::ZERO),
        };
        format!(
            "{}/{}/{}",
            ggf_time(main),
            ggf_time(increment),
            ggf_time(Duration::ZERO)
        )
    };
    let mover = mover.index();
    format!("TI[{}]TB[{}]TW[{}]", clock(mover), clock(0), clock(1))
}

/// The side to move's budget in an NBoard game: its GGF clock less the times of its moves in
/// `record`, counted as NBoard counts them ([`GgfClock::remaining_after`]); none without a
/// clock for that side.
pub fn nboard_budget(clocks: &[Option<GgfClock>; 2], record: &GameRecord) -> Option<TimeBudget> {
    let mover = record.current().side_to_move();
    let clock = clocks[mover.index()]?;
    let spent = record
        .moves()
        .iter()
        .filter(|m| m.color == mover)
        .map(|m| m.seconds.unwrap_or(0.0));
    Some(TimeBudget {
        remaining: clock_duration(clock.remaining_after(spent)),
        increment: clock_duration(clock.increment),
        moves_to_go: None,
        lag: Duration::ZERO,
        stall: Duration::ZERO,
        main: clock_duration(clock.main),
        coarse: false,
        overhead: None,
    })
}

/// A GTP side's budget from what the controller said: the settings and the side's clock, or
/// the clock alone when `time_left` came without `time_settings` (then it is all we know:
/// its seconds for its stones, or for the rest of the game); none without either.
pub fn gtp_budget(
    settings: Option<GtpTimeSettings>,
    clock: Option<GtpClock>,
) -> Option<TimeBudget> {
    match (settings, clock) {
        (Some(settings), clock) => settings.budget(clock.unwrap_or_else(|| settings.fresh_clock())),
        (None, Some(clock)) => Some(TimeBudget {
            remaining: clock_duration(clock.seconds),
            increment: Duration::ZERO,
            moves_to_go: (clock.stones > 0).then_some(clock.stones),
            lag: Duration::ZERO,
            stall: Duration::ZERO,
            main: Duration::ZERO,
            coarse: false,
            overhead: None,
        }),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests;
