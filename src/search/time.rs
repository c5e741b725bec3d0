//! The time manager: from the time a move may use (a clock, its increment, how many moves it
//! must last) to the search's soft and hard deadlines, and between two iterations of the
//! deepening, whether another can finish. The protocols and the match runner only read their
//! clocks (the records layer converts them to a [`TimeBudget`]); how to spend the time is
//! decided here.
//!
//! **The plan.** A move gets a share of the time left to spend (the clock less a reserve,
//! plus the increments its later moves will earn) weighted by how much its phase of the game
//! repays thought ([`move_weight`]): the midgame, where games are decided and each ply of
//! depth pays, most; the opening less. The plan also predicts the move that will solve the
//! endgame (the first whose hard deadline holds the solver's expected time): the moves after
//! it play from the solve's table at once and weigh almost nothing, and the solve weighs what
//! its time needs, so the time the end cannot use goes to the moves before it
//! ([`planned_weights`]; before this, games at `10+0.1` left about a quarter of their clock
//! and increments unused). The share is this move's weight over the weights of all the
//! mover's moves left. The soft deadline (no new iteration) is a part of the share, the hard
//! deadline (the search stops) a multiple of it but never more than 0.7 of the usable time, so
//! no single move can lose the game on time.
//!
//! **Lag and stalls.** The clock that counts is the controller's, and it charges each move
//! more than the search took: the pipes, the controller's own turn, and on a machine busy
//! with other work a stall of the engine's process between its deadline and its answer. The
//! sessions measure that lag on the engine's moves ([`LagMeter`]: GTP's `time_left` against
//! the engine's own watch). The usual lag is kept for every move left (from this move's
//! time, only what the later moves' increments do not cover); the largest recent
//! sample, a stall, is kept once, as a floor of the reserve ([`LOW_CLOCK_FLOOR`] at least),
//! so that one stall does not leave the next move with nothing, nor the rest of the game
//! with a tenth of its clock unplanned. Reports in whole seconds hide any lag below a second
//! until it is too late, so while they come so, a lag of [`UNSEEN_LAG`] is charged anyway.
//!
//! **Iterations.** Each iteration of the deepening costs a few times the one before. The
//! [`IterationPlanner`] predicts the next one's time from the last two and starts it only if
//! half of it should end before the hard deadline (a depth cut short still plays the move it
//! proved best); when the best move changed at the last depth the position is unsettled, and
//! the soft deadline moves out by half its span.
//!
//! **Solving.** A search that time decides solves the endgame exactly once the solve should
//! take no more than half of the time the move may use ([`worth_solving`]), from a rough model
//! of the solver's time by empties measured on the FFO suite; a solve the limits stop leaves
//! the move of a selective search made first.

use super::Limits;

mod planner;
use crate::board::Position;
pub(crate) use planner::IterationPlanner;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Time kept back on every move for process start-up, pipes and the GUI's own lag.
const OVERHEAD: Duration = Duration::from_millis(60);
/// The part of the clock kept in reserve, on top of [`OVERHEAD`].
const RESERVE: f64 = 0.05;
/// Time never planned while the clock runs low (at most half of what is left), and more when
/// a stall was seen lately ([`TimeBudget::stall`]): a machine busy with other work can stall
/// the engine for a tenth of a second or two between the deadline and the answer, and with
/// nothing left the next move has only that stall's time. On a quiet machine the samples
/// are a few milliseconds and this floor is what is kept.
const LOW_CLOCK_FLOOR: Duration = Duration::from_millis(80);
/// The most the floor grows to for the stalls seen.
const MAX_STALL_FLOOR: Duration = Duration::from_millis(400);
/// The measured lag counted against a move is at most this (beyond it the measure is wrong,
/// or the machine is too slow for any plan).
const MAX_LAG: Duration = Duration::from_secs(2);
/// The soft deadline, as a part of the move's share.
const SOFT_PART: f64 = 1.0;
/// The hard deadline, as a multiple of the move's share.
const HARD_MULTIPLE: f64 = 3.0;
/// A single move never plans more than this part of the usable time (a whole game's clock).
/// It binds in the last moves before the solve: at half, each of them left half the clock
/// to the next and the solve came with 0.8 s of `10+0.1` unspent (87% of the clock used;
/// 89% at 0.7, 100 games, and 2+0 90.7% against 89.9%).
const MAX_PART_OF_CLOCK: f64 = 0.7;
/// The move predicted to solve may plan this part: it is the last one that needs time, and
/// a solve the deadline stops still plays the move of the selective search made first.
const SOLVE_PART_OF_CLOCK: f64 = 0.8;
/// The part of each increment a move plans to spend (the rest builds a cushion).
const INCREMENT_PART: f64 = 0.9;
/// The solver's time at 20 empties on this kind of machine (FFO #40 took 0.43 s; in games at
/// `10+0.1` the last move that took time, at 19 or 20 empties, took 0.06 to 0.8 s, most
/// about 0.1 to 0.2 s), and its growth per further empty.
const SOLVE_SECONDS_AT_20: f64 = 0.2;
const SOLVE_GROWTH: f64 = 2.0;
/// A solve is tried when it should take at most this part of the time a move may use.
const SOLVE_PART: f64 = 0.5;

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
    /// Time the clock is charged for each move beyond the search's own, as measured on
    /// earlier moves (pipes, the controller, a busy machine): [`LagMeter`].
    pub lag: Duration,
    /// The longest recent stall (a lag sample far beyond the usual), kept once as a floor
    /// rather than for every move left: [`LagMeter::stall`].
    pub stall: Duration,
}

/// Limits for a search of `position` with `budget` (or with no clock at all), watching `stop`.
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
    log::debug!(
        "time: {} empties, {:.3} s left (+{:.3} s), lag {:.3} s: soft {:.3} s, hard {:.3} s",
        position.empty_count(),
        budget.remaining.as_secs_f64(),
        budget.increment.as_secs_f64(),
        budget.lag.as_secs_f64(),
        soft.as_secs_f64(),
        hard.as_secs_f64()
    );
    Limits {
        stop,
        soft_deadline: now.checked_add(soft),
        hard_deadline: now.checked_add(hard),
    }
}

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
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LagMeter {
    expected: Option<Duration>,
    lag: Duration,
    stall: Duration,
    /// Since the first report of this clock: what is needed to read its increment.
    tally: Option<IncrementTally>,
    increment: Duration,
    /// Whether the last report was a span (whole seconds) rather than a clock to the
    /// millisecond: then the lag below a second cannot be seen ([`UNSEEN_LAG`]).
    coarse: bool,
}

/// The moves and time spent since a clock's first report, and that report's upper bound.
#[derive(Clone, Copy, Debug, PartialEq)]
struct IncrementTally {
    first_upper: Duration,
    most: Duration,
    spent: Duration,
    moves: u32,
}

/// An increment read off the clock is at most this part of its first report (a controller
/// that sets a clock anew in the middle of a game must not look like a huge increment).
const MOST_INCREMENT_PART: f64 = 0.1;

/// The lag charged for each move left while the reports come in whole seconds, whatever was
/// measured: a shortfall shows only when it crosses a whole second, often at the end of the
/// game, when it is too late. On a loaded machine, moves planned to take nothing cost the
/// controller's clock 10 to 15 ms each (a 3-second game lost on time by 0.1 s over its last
/// ten moves); on a quiet one about 2 ms.
const UNSEEN_LAG: Duration = Duration::from_millis(15);

/// The weight of the newest sample in the lag's moving average.
const LAG_SAMPLE_WEIGHT: f64 = 0.25;
/// A sample counts in the moving average for at most twice the lag and this much more.
const LAG_STEP: Duration = Duration::from_millis(10);
/// The stall kept falls by this part on each move without a larger one.
const STALL_DECAY: f64 = 0.8;

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
    /// `time_left b 1 0` is anything from 1 to 2 s). Only the certain shortfall, against
    /// `upper`, is a sample. Returns the best reading of the clock: the expected one when it
    /// lies between the two, else the nearer bound (`lower` when nothing was expected).
    pub fn told_between(&mut self, lower: Duration, upper: Duration) -> Duration {
        self.read_increment(lower, upper);
        self.coarse = upper > lower;
        let Some(expected) = self.expected.take() else {
            return lower;
        };
        let sample = expected.saturating_sub(upper).min(MAX_LAG);
        let counted = sample.min(self.lag * 2 + LAG_STEP);
        self.lag = self.lag.mul_f64(1.0 - LAG_SAMPLE_WEIGHT) + counted.mul_f64(LAG_SAMPLE_WEIGHT);
        self.stall = sample.max(self.stall.mul_f64(STALL_DECAY));
        expected.clamp(lower, upper.max(lower))
    }

    /// A report of the clock between `lower` and `upper`: the first one starts the tally, a
    /// later one raises the increment to what the clock must have earned per move since.
    fn read_increment(&mut self, lower: Duration, upper: Duration) {
        match &self.tally {
            None => {
                self.tally = Some(IncrementTally {
                    first_upper: upper,
                    most: lower.mul_f64(MOST_INCREMENT_PART),
                    spent: Duration::ZERO,
                    moves: 0,
                });
            }
            Some(tally) if tally.moves > 0 => {
                let earned = (lower + tally.spent).saturating_sub(tally.first_upper) / tally.moves;
                self.increment = self.increment.max(earned.min(tally.most));
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
        if self.coarse {
            self.lag.max(UNSEEN_LAG)
        } else {
            self.lag
        }
    }

    /// The largest recent sample, decayed by the moves since.
    pub fn stall(&self) -> Duration {
        self.stall
    }
}

/// How much thought a move with `empties` empty squares deserves, relative to the others.
pub fn move_weight(empties: u32) -> f64 {
    match empties {
        50.. => 0.6,
        36..=49 => 1.0,
        22..=35 => 1.3,
        14..=21 => 0.5,
        _ => 0.1,
    }
}

/// The share of a move that solves `empties` empties: its hard deadline holds the solve's
/// expected time as [`worth_solving`] asks, with a tenth to spare.
fn solve_share(empties: u32) -> f64 {
    1.1 * expected_solve_time(empties).as_secs_f64() / SOLVE_PART / HARD_MULTIPLE
}

/// The weight of a move after the solve: it plays from the solve's table at once.
const AFTER_SOLVE_WEIGHT: f64 = 0.02;

/// This move's weight, the weights of all the mover's moves left, and whether this is the
/// move predicted to solve, for a game with `total` time to spend and `cap` at most for the
/// move that solves.
///
/// The solve comes at the first move whose planned hard time holds the solve's expected time
/// ([`worth_solving`]); the moves after it are instant ([`AFTER_SOLVE_WEIGHT`]) and the solve
/// itself weighs what its time needs, so what the phase weights would have kept for the end
/// goes to the moves before it. Planned again at every move, so a solve that comes later
/// than predicted still finds the time kept for it.
fn planned_weights(empties: u32, total: f64, cap: f64) -> (f64, f64, bool) {
    let moves = || (1..=empties.max(1)).rev().step_by(2);
    let phase_weights: f64 = moves().map(move_weight).sum();
    let solve_at = moves().find(|&e| {
        let hard = (HARD_MULTIPLE * total * move_weight(e) / phase_weights).min(cap);
        expected_solve_time(e).as_secs_f64() <= hard * SOLVE_PART
    });
    let weight = |e: u32| match solve_at {
        Some(s) if e < s => AFTER_SOLVE_WEIGHT,
        Some(s) if e == s => {
            let needed = solve_share(e) / total.max(1e-9) * phase_weights;
            move_weight(e).min(needed).max(AFTER_SOLVE_WEIGHT)
        }
        _ => move_weight(e),
    };
    let weights: f64 = moves().map(weight).sum();
    (weight(empties), weights, solve_at == Some(empties.max(1)))
}

/// The soft and hard time for one move with `empties` empty squares.
///
/// The reserve is the larger of a part of the clock with the overhead (twice the measured
/// lag when that is more) and, while the clock runs low, a floor: [`LOW_CLOCK_FLOOR`], or
/// the recent stall with half again when that is more. Each of the mover's moves left is
/// then charged its lag, and this move's deadline leaves room for its own.
pub fn move_time(empties: u32, budget: TimeBudget) -> (Duration, Duration) {
    let lag = budget.lag.min(MAX_LAG);
    let overhead = OVERHEAD.max(lag * 2);
    let floor = LOW_CLOCK_FLOOR.max(budget.stall.mul_f64(1.5).min(MAX_STALL_FLOOR));
    let reserve =
        (budget.remaining.mul_f64(RESERVE) + overhead).max(floor.min(budget.remaining / 2));
    let kept = budget.remaining.saturating_sub(reserve).as_secs_f64();
    let lag = lag.as_secs_f64();
    let increment = budget.increment.as_secs_f64();
    let (share, cap, usable) = match budget.moves_to_go {
        // A period of so many moves: an even share, and the whole period for its last move.
        Some(moves) => {
            let usable = (kept - lag * f64::from(moves.saturating_sub(1))).max(0.0);
            (
                usable / f64::from(moves.max(1)) + increment * INCREMENT_PART,
                usable + increment * INCREMENT_PART,
                usable,
            )
        }
        None => {
            // The mover's moves left: this one, then every second empty square. Each earns
            // an increment after it; the moves after the solve are instant and cannot spend
            // theirs, so the plan spends them all before, where they count.
            let moves_left = empties.max(1).div_ceil(2);
            let later = f64::from(moves_left - 1);
            let total =
                (kept - lag * later).max(0.0) + increment * INCREMENT_PART * f64::from(moves_left);
            // What this move may use: the later moves pay their lag from their increments,
            // and only what an increment does not cover is kept back from the clock now.
            let shortfall = (lag - increment * INCREMENT_PART).max(0.0);
            let usable = (kept - shortfall * later).max(0.0);
            let cap = usable * MAX_PART_OF_CLOCK + increment * INCREMENT_PART * MAX_PART_OF_CLOCK;
            let solve_cap = usable * SOLVE_PART_OF_CLOCK;
            let (weight, weights, solves) = planned_weights(empties, total, solve_cap);
            let mut share = total * weight / weights;
            if solves {
                // The move that should solve gets the solve's time (and the hard deadline
                // its multiple), no more: what the solve does not need goes to the midgame.
                share = share.max(solve_share(empties));
            }
            (share, if solves { cap.max(solve_cap) } else { cap }, usable)
        }
    };
    // The increment comes after the move: the move itself must fit in what is left.
    let hard = (share * HARD_MULTIPLE).min(cap).min(usable).max(0.0);
    let soft = (share * SOFT_PART).min(hard);
    // Budgets come clamped from the records layer; a value beyond a Duration is no limit.
    let duration = |s: f64| Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX);
    (duration(soft), duration(hard))
}

/// The solver's expected time for a position with `empties` empty squares (a rough model:
/// hard positions take several times longer, easy ones far less).
pub fn expected_solve_time(empties: u32) -> Duration {
    let exponent = f64::from(empties) - 20.0;
    let seconds = SOLVE_SECONDS_AT_20 * SOLVE_GROWTH.powf(exponent.min(60.0));
    Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
}

/// Whether a search with `available` time until its hard deadline should solve a position
/// with `empties` empty squares exactly rather than search it.
pub fn worth_solving(empties: u32, available: Duration) -> bool {
    expected_solve_time(empties).as_secs_f64() <= available.as_secs_f64() * SOLVE_PART
}

#[cfg(test)]
mod tests;
