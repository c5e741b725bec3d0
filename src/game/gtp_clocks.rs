//! Both sides' clocks as a GTP controller tells them (`time_settings`, `time_left`) and as the
//! engine charges its own moves, with the lag measured on each side's moves: what a GTP
//! session keeps between commands, kept here so that a simulated controller (a GUI's
//! whole-second, rounded clock with its own delay; `tests/it/gui_clock.rs`) drives exactly
//! the code the server runs.

use super::clock::{GtpClock, GtpTimeSettings, clock_duration, gtp_budget};
use crate::board::Color;
use crate::search::{LagMeter, TimeBudget};
use std::time::Duration;

/// The longest clock a controller may tell, in seconds (a day): more is taken as this, and
/// said in the log, so that an absurd `time_left` cannot make a move think for months.
pub const MOST_CLOCK_SECONDS: f64 = 86_400.0;

/// `seconds` within [`MOST_CLOCK_SECONDS`], logging what was assumed.
fn sane(what: &str, seconds: f64) -> f64 {
    if seconds > MOST_CLOCK_SECONDS {
        log::warn!("{what} of {seconds} s is more than a day: taken as {MOST_CLOCK_SECONDS} s");
        MOST_CLOCK_SECONDS
    } else {
        seconds
    }
}

/// The clocks of a GTP game.
#[derive(Clone, Copy, Debug, Default)]
pub struct GtpClocks {
    settings: Option<GtpTimeSettings>,
    clocks: [Option<GtpClock>; 2],
    /// Each side's lag: what the controller charges beyond the engine's own time.
    lag: [LagMeter; 2],
    /// The controller's delay per move as the user told it (`--move-overhead`).
    overhead: Option<Duration>,
}

impl GtpClocks {
    /// `time_settings`: a new clock for both sides.
    pub fn set(&mut self, mut settings: GtpTimeSettings) {
        settings.main = sane("time_settings' main time", settings.main);
        settings.byo_yomi = sane("time_settings' byo-yomi", settings.byo_yomi);
        if settings.main == 0.0 && settings.byo_yomi == 0.0 {
            log::info!("time_settings 0 0 0: no time at all; every move is made at once");
        }
        self.settings = Some(settings);
        self.clocks = [None, None];
        self.lag.iter_mut().for_each(LagMeter::forget_move);
    }

    /// The controller's delay per move as the user tells it (`--move-overhead`,
    /// `othello-engine-move-overhead`): kept back on every move ([`TimeBudget::overhead`]).
    pub fn set_overhead(&mut self, overhead: Option<Duration>) {
        self.overhead = overhead;
    }

    /// A new game (`clear_board`): the settings stay, the clocks start afresh.
    pub fn restart(&mut self) {
        self.clocks = [None, None];
    }

    /// `time_left`: the controller tells `color`'s clock. A whole-second main-time clock is
    /// read by the engine's own watch within the span the figure may mean (`GtpClock::bounds`,
    /// `LagMeter::told_between`); a clock just set is exactly its main time; a byo-yomi
    /// period starts afresh.
    pub fn told(&mut self, color: Color, mut clock: GtpClock) {
        clock.seconds = sane("time_left", clock.seconds);
        let lag = &mut self.lag[color.index()];
        if clock.stones == 0 {
            let (mut lower, mut upper) = clock.bounds();
            let told = clock_duration(clock.seconds);
            let main = self.settings.map(|s| clock_duration(s.main));
            if lag.is_fresh() && main == Some(told) {
                (lower, upper) = (told, told);
            }
            clock.seconds = lag.told_between(lower, upper).as_secs_f64();
        } else {
            // A period starts afresh: no lag sample. A whole-second figure may be rounded
            // up (Quarry's), so it is read as its least, but for a period just begun.
            lag.forget_move();
            let fresh = self
                .settings
                .is_some_and(|s| s.stones == clock.stones && s.byo_yomi == clock.seconds);
            if !fresh {
                clock.seconds = clock.bounds().0.as_secs_f64();
            }
        }
        self.clocks[color.index()] = Some(clock);
    }

    /// `color`'s budget for its next move: its clock as told (or as charged since), with the
    /// lag measured on its moves; `None` without a clock.
    pub fn budget(&self, color: Color) -> Option<TimeBudget> {
        let lag = &self.lag[color.index()];
        gtp_budget(self.settings, self.clocks[color.index()]).map(|budget| TimeBudget {
            lag: lag.lag(),
            stall: lag.stall(),
            // A per-move limit in whole seconds is a GUI's (Quarry's `time_settings 0 10 1`):
            // its delay is a GUI's. Its reports, each a fresh period, show no lag.
            coarse: lag.coarse()
                || (budget.per_move() && self.settings.is_some_and(|s| s.whole_seconds)),
            overhead: self.overhead,
            // GTP cannot tell an increment: the one the clock was seen to earn.
            increment: match budget.moves_to_go {
                None => budget.increment.max(lag.increment()),
                Some(_) => budget.increment,
            },
            ..budget
        })
    }

    /// `color` moved, taking `spent` from the command to the reply: charged to its clock.
    pub fn moved(&mut self, color: Color, spent: Duration) {
        let Some(settings) = self.settings else {
            return;
        };
        let index = color.index();
        let clock = self.clocks[index].unwrap_or_else(|| settings.fresh_clock());
        if clock.stones == 0 {
            self.lag[index].moved(clock_duration(clock.seconds), spent);
        }
        self.clocks[index] = Some(settings.charge(clock, spent.as_secs_f64()));
    }
}
