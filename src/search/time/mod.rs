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
//! deadline (the search stops) a multiple of it but never more than a fifth of the usable time
//! in sudden death (less while many moves remain), so no single move can lose the game on
//! time; with an increment, which refills the clock every move, at most 0.4 of it.
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
//! **Per-move clocks.** A clock of one move a period (GTP's `time_settings 0 T 1`, what a
//! tournament script or `match --move-time T` sends) is spent, not planned: a move keeps back
//! [`PER_MOVE_RESERVE_PART`] of `T`, its own reply's margin ([`REPLY_MARGIN`]) and the
//! controller's delay, and may use the rest. The delay is what the user told
//! (`--move-overhead`, also over GTP and NBoard), or the lag measured if more; untold, none
//! when the clock comes to the millisecond (a script's referee) and [`GUI_DELAY`] when in
//! whole seconds (a GUI's, which charges its own turn). Before this a per-move clock kept the game clock's reserve, about 70 ms a move: a
//! third of a 0.1-second move, all of a 0.05-second one. A per-move clock tells nothing of
//! what the controller charged (every period starts afresh), so a delay larger than the
//! default must be told.
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

use super::limits::Limits;

mod lag;
mod planner;
use crate::board::Position;
pub use lag::LagMeter;
pub(crate) use planner::IterationPlanner;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use web_time::Instant;

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
/// A per-move clock (a period of one move) keeps back this part of it, for the search's own
/// stop (a deadline is checked every few thousand nodes) and the reply...
const PER_MOVE_RESERVE_PART: f64 = 0.02;
/// ... and at least this...
const PER_MOVE_RESERVE_MIN: Duration = Duration::from_millis(4);
/// ... and the engine's own reply: the search's stop, the pipes and a process switch (a few
/// milliseconds on a quiet machine, 10 to 15 on a loaded one), whatever the controller
/// adds...
pub const REPLY_MARGIN: Duration = Duration::from_millis(15);
/// ... and the controller's delay: what the user told, or the lag measured if more; untold,
/// none for a clock told to the millisecond (a script's referee), and this for one told in
/// whole seconds, a GUI's, which charges its own turn too (GNU Quarry charged a move 20 to
/// 150 ms beyond the engine's watch).
pub const GUI_DELAY: Duration = Duration::from_millis(200);
/// The soft deadline, as a part of the move's share.
const SOFT_PART: f64 = 1.0;
/// The hard deadline, as a multiple of the move's share.
const HARD_MULTIPLE: f64 = 3.0;
/// A single move's hard deadline is never more than this part of the usable time, and less
/// while many moves remain ([`CAP_MOVES`]). At 0.7 a move at 34 empties with 29.6 s of a
/// minute left could take 14.2 s, and did: the engine reached 25 empties with 1 to 2 s and
/// lost on time in Quarry at one minute and at five.
const MAX_PART_OF_CLOCK: f64 = 0.2;
/// With `m` of the mover's moves left, a move's hard deadline is at most `CAP_MOVES / m` of
/// the usable time (at most [`MAX_PART_OF_CLOCK`]): 0.15 at 26 moves, a fifth from 20.
const CAP_MOVES: f64 = 4.0;
/// The move predicted to solve may plan this part: it is the last one that needs time, and
/// a solve the deadline stops still plays the move of the selective search made first; half
/// is left for the moves after it should the solve not finish.
const SOLVE_PART_OF_CLOCK: f64 = 0.5;
/// With an increment every move refills the clock, so a move may plan more of it than in
/// sudden death: at most this part, and the move predicted to solve
/// [`SOLVE_PART_WITH_INCREMENT`]. Under the sudden-death caps, games at `10+0.1` spent 9.2 to
/// 9.7 s of their 12.6 s (28df1d8: 11.5 s; the spending model 0.82 of the clock); with
/// these, 11.0 s (the model 0.90).
const MAX_PART_WITH_INCREMENT: f64 = 0.4;
const SOLVE_PART_WITH_INCREMENT: f64 = 0.8;
/// ... when the increments to come are at least this part of all the time left to spend
/// (at `10+0.1` and `60+0.6` about a fifth at the start, more later; `300+1` a tenth);
/// below it the clock is planned as sudden death.
const LEAST_INCREMENT_SHARE: f64 = 0.05;
/// In sudden death (no increment, no byo-yomi to come) the plan never spends the last
/// part of the main time: this part, and at least [`SUDDEN_DEATH_RESERVE_MIN`]...
const SUDDEN_DEATH_RESERVE_PART: f64 = 0.05;
const SUDDEN_DEATH_RESERVE_MIN: Duration = Duration::from_secs(1);
/// ... and this much more when the clock comes in whole seconds (a GUI's, whose own delay
/// the engine sees only over several moves).
const WHOLE_SECOND_RESERVE: Duration = Duration::from_secs(1);
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
#[derive(Clone, Copy, Debug, Default, PartialEq)]
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
    /// The clock's main time when it runs out for good (sudden death, or a byo-yomi
    /// period's length), for the reserve it keeps; zero when unknown or not sudden death.
    pub main: Duration,
    /// Whether the clock is told in whole seconds (a GUI's): the reserve is larger.
    pub coarse: bool,
    /// The controller's delay per move as the user told it (`--move-overhead`): charged on
    /// every move like the measured lag (the larger of the two counts), and what a per-move
    /// clock keeps back in place of its default (none, or [`GUI_DELAY`]).
    pub overhead: Option<Duration>,
}

impl TimeBudget {
    /// Whether this clock gives each move its own time: a period of one move.
    pub fn per_move(&self) -> bool {
        self.moves_to_go == Some(1)
    }

    /// The delay a move of this clock keeps back for the controller: the told overhead, or
    /// the default of a script's (none) or a GUI's clock, or the measured lag when that is
    /// more.
    pub fn delay(&self) -> Duration {
        let default = if self.coarse {
            GUI_DELAY
        } else {
            Duration::ZERO
        };
        self.overhead.unwrap_or(default).max(self.lag.min(MAX_LAG))
    }
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
            ..Limits::none()
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
        spend_all: budget.per_move(),
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
    if budget.per_move() {
        return per_move_time(budget);
    }
    let lag = budget
        .lag
        .max(budget.overhead.unwrap_or_default())
        .min(MAX_LAG);
    let overhead = OVERHEAD.max(lag * 2);
    let floor = LOW_CLOCK_FLOOR.max(budget.stall.mul_f64(1.5).min(MAX_STALL_FLOOR));
    // The sudden-death reserve is never planned while the clock is above it; a side below it
    // (a stall, a GUI's delay it could not see) plans from a fifth of what is left, and so
    // ever less. The floor of stalls is at most half of what is left.
    let sudden_death = sudden_death_reserve(budget);
    let sudden_death = if budget.remaining > sudden_death {
        sudden_death
    } else {
        budget.remaining.mul_f64(0.8)
    };
    let reserve = (budget.remaining.mul_f64(RESERVE) + overhead)
        .max(floor.min(budget.remaining / 2))
        .max(sudden_death);
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
            // The increments' caps only when the increments to come are worth something
            // against the clock: a millisecond a move must not double a move's deadline.
            let increments = increment * INCREMENT_PART * f64::from(moves_left);
            let (part, solve_part) = if increments >= total * LEAST_INCREMENT_SHARE {
                (MAX_PART_WITH_INCREMENT, SOLVE_PART_WITH_INCREMENT)
            } else {
                let part = MAX_PART_OF_CLOCK.min(CAP_MOVES / f64::from(moves_left));
                (part, SOLVE_PART_OF_CLOCK)
            };
            let cap = (usable + increment * INCREMENT_PART) * part;
            let solve_cap = usable * solve_part;
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

/// The soft and hard time of a move under a per-move clock: all of it but
/// [`PER_MOVE_RESERVE_PART`] (at least [`PER_MOVE_RESERVE_MIN`]), [`REPLY_MARGIN`] and the
/// controller's delay ([`TimeBudget::delay`]), both deadlines alike; the search's limits say the time is lost
/// if not spent ([`Limits::spend_all`]), so depths start until the deadline.
fn per_move_time(budget: TimeBudget) -> (Duration, Duration) {
    let kept = budget
        .remaining
        .mul_f64(PER_MOVE_RESERVE_PART)
        .max(PER_MOVE_RESERVE_MIN)
        + REPLY_MARGIN
        + budget.delay();
    let usable = budget.remaining.saturating_sub(kept);
    (usable, usable)
}

/// The most a told move overhead may be, in seconds: more is a mistake (a minute a move
/// would leave nothing of most clocks).
pub const MAX_MOVE_OVERHEAD_SECONDS: f64 = 10.0;

/// Reads a move overhead in seconds (`--move-overhead`, GTP's `othello-engine-move-overhead`,
/// NBoard's `set move-overhead`): 0 to [`MAX_MOVE_OVERHEAD_SECONDS`], fractions allowed.
pub fn parse_move_overhead(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| (0.0..=MAX_MOVE_OVERHEAD_SECONDS).contains(s))
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            format!(
                "bad move overhead '{text}': expected seconds from 0 to {MAX_MOVE_OVERHEAD_SECONDS}"
            )
        })
}

/// The part of a clock that runs out for good which the plan never spends: the larger of
/// [`SUDDEN_DEATH_RESERVE_PART`] of its main time and [`SUDDEN_DEATH_RESERVE_MIN`], and
/// [`WHOLE_SECOND_RESERVE`] more under whole-second reports (a byo-yomi period keeps only
/// its part and the latter). None with an increment, or when the main time is unknown.
pub fn sudden_death_reserve(budget: TimeBudget) -> Duration {
    if !budget.increment.is_zero() || budget.main.is_zero() {
        return Duration::ZERO;
    }
    let part = budget.main.mul_f64(SUDDEN_DEATH_RESERVE_PART);
    // A byo-yomi period (or a per-move limit) keeps only its part: a second of a second a
    // move would leave nothing to think with.
    let reserve = if budget.moves_to_go.is_some() {
        part
    } else {
        part.max(SUDDEN_DEATH_RESERVE_MIN)
    };
    if budget.coarse {
        reserve + WHOLE_SECOND_RESERVE
    } else {
        reserve
    }
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
mod per_move_tests;
#[cfg(test)]
mod tests;
