//! The lag meter: how much more than the engine's own watch saw the controller's clock is
//! charged per move, read off the clocks the controller tells (see [`LagMeter`]).

use super::MAX_LAG;
use std::time::Duration;

/// Measures the lag: time the controller charges for a move beyond what the engine's own watch
/// saw (the pipes, the controller's turn, a machine busy with other work). After each move
/// the clock it should show is noted ([`LagMeter::moved`]); when the controller next tells
/// the clock ([`LagMeter::told`]), the shortfall is a sample. Two figures come of the samples:
/// the lag, charged for every move left, a moving average that grows only step by step
/// (a sample counts at most twice the lag and [`LAG_STEP`] more), so a load that lasts raises
/// it within a few moves and one stall hardly; and the stall, the largest recent sample,
/// decaying move by move, kept once as a floor. Charging one stall for every move left
/// kept a tenth of the clock unplanned for the rest of the game.
///
/// The meter also reads the increment off the clock ([`LagMeter::increment`]): GTP has no
/// word for a Fischer increment, so a controller that adds one (`match` does) only shows it
/// in its `time_left` reports. Over the moves since the first report, the clock told, plus
/// the engine's own time spent, less the first clock, is what the increments brought less
/// what the lag took; its least value per move is a lower bound of the increment that
/// whole-second reports tighten as the game goes on. Before this, the engine planned a
/// `10+0.1` game as `10+0` and left its increments unspent.
///
/// **Whole seconds.** A GUI tells its clock in whole seconds, and not all alike: GNU Quarry
/// rounds to the nearest (`time_left b 29 0` is 28.5 to 29.5 s), our referee and most
/// controllers round down (29 to 30 s). A lag below a second hides inside those spans move by
/// move, but not over a game: since the first report, the clock fell by the engine's time
/// plus the lag of every move, so each report bounds the lag per move from below (the first
/// clock, less the clock now at the most its figure can mean, less the engine's time, over
/// the moves) and from above (with the clock at its least), and the bounds tighten as the
/// game goes on ([`LagSpan`]). Quarry charged a move 20 to 150 ms beyond the engine's watch;
/// unseen, that lost games on time. Both roundings are weighed: the reports are read as
/// rounded to the nearest until they cannot be (a clock rounded down shows it within a few
/// moves), then as rounded down. The meter charges the middle of what the reports allow,
/// and reads the clock itself by that lag: the engine's watch, which misses every move's lag,
/// believed a clock told `3` to hold 3.46 s when it held 2.64 s, so the first clock, less the
/// time spent and the lag of the moves since, within what the figure may mean, is the
/// reading. Charging only the least (as until the 2026-12-03 session), a lag of 0.15 s a move
/// at `--tc 10` took 1.3 s of the 2-second reserve; taking a figure rounded down as Quarry's,
/// the engine ended `10+0` games with 4.2 s of its 10 s.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LagMeter {
    expected: Option<Duration>,
    lag: Duration,
    stall: Duration,
    /// Since the first report of this clock: what is needed to read its increment.
    tally: Option<IncrementTally>,
    increment: Duration,
    /// What the whole-second reports since the first allow of the lag per move, read as
    /// rounded to the nearest (`[0]`) and as rounded down (`[1]`).
    spans: [LagSpan; 2],
    /// Whether the last report was a span (whole seconds) rather than a clock to the
    /// millisecond: then the lag below a second cannot be seen ([`UNSEEN_LAG`]).
    coarse: bool,
}

/// The moves and time spent since a clock's first report, and that report's upper bound.
#[derive(Clone, Copy, Debug, PartialEq)]
struct IncrementTally {
    first_lower: Duration,
    first_upper: Duration,
    most: Duration,
    spent: Duration,
    moves: u32,
}

/// The least and the most lag per move, in seconds, that the whole-second reports of a clock
/// allow under one reading of their figures (negative: the clock gained, an increment).
#[derive(Clone, Copy, Debug, PartialEq)]
struct LagSpan {
    least: f64,
    most: f64,
}

impl Default for LagSpan {
    fn default() -> LagSpan {
        LagSpan {
            least: f64::NEG_INFINITY,
            most: f64::INFINITY,
        }
    }
}

/// Where a whole-second figure `N` puts the clock, from `N + offset` to a second above:
/// rounded to the nearest (GNU Quarry), and rounded down (our referee, most controllers).
const ROUNDING_OFFSETS: [f64; 2] = [-0.5, 0.0];

/// The reading as rounded to the nearest is given up when the least lag it allows is this
/// much above the most (a clock rounded down shows that within a few moves: a move of 0.2 s
/// from 10 s told `9` would need 0.3 s of lag, and one told `9` at 9.1 s about none). A lag
/// that changes over the game may also look so; then the figures are read as rounded down,
/// which counts the lag a little short, as before both readings were weighed.
const NEAREST_REFUTED_BY: f64 = 0.05;

/// An increment read off the clock is at most this part of its first report (a controller
/// that sets a clock anew in the middle of a game must not look like a huge increment).
const MOST_INCREMENT_PART: f64 = 0.1;

/// An increment is read off the clock only when the clock gained at least this much a move:
/// a clock told to the millisecond is rounded (up, at times), so a clock without one can seem
/// to gain a fraction of a millisecond (the ponder test's 6-second game read 0.3 ms, planned
/// as an increment).
const LEAST_INCREMENT: Duration = Duration::from_millis(5);

/// The lag charged for each move left while the reports come in whole seconds, whatever was
/// measured: a shortfall shows only when it crosses a whole second, often at the end of the
/// game, when it is too late. On a loaded machine, moves planned to take nothing cost the
/// controller's clock 10 to 15 ms each (a 3-second game lost on time by 0.1 s over its last
/// ten moves); on a quiet one about 2 ms.
pub(super) const UNSEEN_LAG: Duration = Duration::from_millis(15);

/// The span of a whole-second report: `N` is `lower = N - 0.5` to `upper = N + 1`.
const WHOLE_SECOND: Duration = Duration::from_secs(1);

/// The most a clock told between `lower` and `upper` is taken to show: within a second of
/// `lower` (a whole-second report, read from half a second below its figure, may be a
/// rounded one), else `upper`.
fn likely_most(lower: Duration, upper: Duration) -> Duration {
    upper.min(lower + Duration::from_secs(1))
}

/// The lag charged under whole seconds is the middle of what the reports allow, but no more
/// than half this above the least: after a move or two the span is most of a second a move,
/// and its middle charged for every move left would leave the midgame nothing.
const CENTRAL_SPAN_MOST: f64 = 0.5;

/// The weight of the newest sample in the lag's moving average.
pub(super) const LAG_SAMPLE_WEIGHT: f64 = 0.25;
/// A sample counts in the moving average for at most twice the lag and this much more.
pub(super) const LAG_STEP: Duration = Duration::from_millis(10);
/// The stall kept falls by this part on each move without a larger one.
pub(super) const STALL_DECAY: f64 = 0.8;

impl LagMeter {
    /// A move was made with `before` on the clock and took `spent` by the engine's watch.
    pub fn moved(&mut self, before: Duration, spent: Duration) {
        self.expected = Some(before.saturating_sub(spent) + self.increment);
        if let Some(tally) = &mut self.tally {
            tally.spent += spent;
            tally.moves += 1;
        }
    }

    /// The controller says the clock shows `remaining`: the shortfall against the expected
    /// clock is a sample (none when no move was noted since, or the clock did not run down as
    /// a main time does).
    pub fn told(&mut self, remaining: Duration) {
        self.told_between(remaining, remaining);
    }

    /// The controller says the clock shows between `lower` and `upper` (GTP's whole seconds:
    /// `time_left b 1 0` is anything from 0.5 to 2 s). Only the certain shortfall, against
    /// `upper`, is a sample. Returns the best reading of the clock: the expected one when it
    /// lies between the two, else the nearer bound (`lower` when nothing was expected).
    pub fn told_between(&mut self, lower: Duration, upper: Duration) -> Duration {
        self.read_increment(lower, upper, self.expected.is_some());
        self.coarse = upper > lower;
        let Some(expected) = self.expected.take() else {
            return lower;
        };
        let sample = expected.saturating_sub(upper).min(MAX_LAG);
        let counted = sample.min(self.lag * 2 + LAG_STEP);
        self.lag = self.lag.mul_f64(1.0 - LAG_SAMPLE_WEIGHT) + counted.mul_f64(LAG_SAMPLE_WEIGHT);
        self.stall = sample.max(self.stall.mul_f64(STALL_DECAY));
        let (least, most) = self.reading(lower, upper);
        let believed = match &self.tally {
            // Under whole seconds the engine's watch misses every move's lag: the clock is
            // the first one, less the time spent and the lag of the moves since.
            Some(tally) if self.coarse && tally.moves > 0 => {
                let earned = tally.first_upper + self.increment * tally.moves;
                expected.min(earned.saturating_sub(tally.spent + self.lag() * tally.moves))
            }
            _ => expected,
        };
        believed.clamp(least, most)
    }

    /// Where a report between `lower` and `upper` puts the clock, by the reading of whole
    /// seconds that the reports so far allow.
    fn reading(&self, lower: Duration, upper: Duration) -> (Duration, Duration) {
        if upper > lower && self.rounds_down() {
            (upper.saturating_sub(WHOLE_SECOND), upper)
        } else {
            (lower, likely_most(lower, upper))
        }
    }

    /// Whether the whole-second reports cannot be rounded to the nearest.
    fn rounds_down(&self) -> bool {
        let nearest = self.spans[0];
        nearest.least > nearest.most + NEAREST_REFUTED_BY
    }

    /// A report of the clock between `lower` and `upper`: the first one starts the tally, a
    /// later one raises the increment to what the clock must have earned per move since, and
    /// (a whole-second report after a move) narrows what it may have lost beyond the engine's
    /// time under either rounding.
    fn read_increment(&mut self, lower: Duration, upper: Duration, after_move: bool) {
        match &self.tally {
            None => {
                self.tally = Some(IncrementTally {
                    first_lower: lower,
                    first_upper: upper,
                    most: lower.mul_f64(MOST_INCREMENT_PART),
                    spent: Duration::ZERO,
                    moves: 0,
                });
            }
            Some(tally) if tally.moves > 0 => {
                let earned = (lower + tally.spent).saturating_sub(tally.first_upper) / tally.moves;
                if earned >= LEAST_INCREMENT {
                    self.increment = self.increment.max(earned.min(tally.most));
                }
                // Only whole seconds hide the lag of single moves; a clock told to the
                // millisecond shows each, and the samples judge them (a stall once).
                if after_move && upper > lower {
                    let told = upper.saturating_sub(WHOLE_SECOND).as_secs_f64();
                    let spent = tally.spent.as_secs_f64();
                    let moves = f64::from(tally.moves);
                    let first_exact = tally.first_lower == tally.first_upper;
                    let first_told = tally.first_upper.saturating_sub(WHOLE_SECOND);
                    for (span, offset) in self.spans.iter_mut().zip(ROUNDING_OFFSETS) {
                        // Where a figure puts the clock under this rounding.
                        let clock =
                            |figure: f64| ((figure + offset).max(0.0), figure + offset + 1.0);
                        let (first_least, first_most) = if first_exact {
                            let first = tally.first_lower.as_secs_f64();
                            (first, first)
                        } else {
                            clock(first_told.as_secs_f64())
                        };
                        let (clock_least, clock_most) = clock(told);
                        span.least = span.least.max((first_least - spent - clock_most) / moves);
                        span.most = span.most.min((first_most - spent - clock_least) / moves);
                    }
                }
            }
            Some(_) => {}
        }
    }

    /// The clock changed in a way that is no move's (new settings, a new period): the next
    /// report is no sample, and starts the increment's reading afresh.
    pub fn forget_move(&mut self) {
        self.expected = None;
        self.tally = None;
        self.increment = Duration::ZERO;
        self.spans = [LagSpan::default(); 2];
    }

    /// Whether no report of this clock was read since it was set (the first report of a
    /// clock that was just set is exactly its main time).
    pub fn is_fresh(&self) -> bool {
        self.tally.is_none()
    }

    /// The increment the clock was seen to earn per move (a lower bound; zero until seen).
    pub fn increment(&self) -> Duration {
        self.increment
    }

    /// The lag to charge for every move left: as measured so far, and at least
    /// [`UNSEEN_LAG`] while the reports come in whole seconds.
    pub fn lag(&self) -> Duration {
        let span = self.spans[usize::from(self.rounds_down())];
        let central = if span.least.is_finite() && span.most.is_finite() {
            let middle = span.least + (span.most - span.least).clamp(0.0, CENTRAL_SPAN_MOST) / 2.0;
            Duration::from_secs_f64(middle.clamp(0.0, MAX_LAG.as_secs_f64()))
        } else {
            Duration::ZERO
        };
        let lag = self.lag.max(central);
        if self.coarse {
            lag.max(UNSEEN_LAG)
        } else {
            lag
        }
    }

    /// Whether the last report came in whole seconds (a GUI's clock).
    pub fn coarse(&self) -> bool {
        self.coarse
    }

    /// The largest recent sample, decayed by the moves since.
    pub fn stall(&self) -> Duration {
        self.stall
    }
}
