//! Thinking: iterative deepening PVS with a transposition table, an exact endgame solver, the
//! per-phase levels and the stop/time limits that bound every search.

mod endgame;
mod levels;
mod midgame;
mod stability;
mod time;
mod tt;

pub use endgame::final_score;
pub use levels::{DEFAULT_LEVEL, EndgameMode, Levels, MAX_LEVEL, Phase, PhaseLevel, SETTING_NAMES};
pub use midgame::{INFINITY, WIN, terminal_score};
pub use stability::stable_discs;
pub use time::{TimeBudget, limits_for, move_time};
pub use tt::TranspositionTable;

use crate::board::{Bits, Move, Position, Square};
use crate::eval::{Classic, Discs, DiscsInverse, Evaluator, EvaluatorKind, Pattern, Weighted};
use endgame::Endgame;
use midgame::Midgame;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What bounds a search: a flag another thread may raise, and deadlines.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Raised to stop the search; the best move of the last finished iteration stands.
    pub stop: Arc<AtomicBool>,
    /// No new iteration starts after this.
    pub soft_deadline: Option<Instant>,
    /// The search stops at this instant.
    pub hard_deadline: Option<Instant>,
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

    fn soft_expired(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.soft_deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Checks the limits every few thousand nodes, cheaply.
pub(crate) struct Stopper {
    flag: Arc<AtomicBool>,
    deadline: Option<Instant>,
    next_poll: u64,
    stopped: bool,
}

impl Stopper {
    fn new(limits: &Limits) -> Stopper {
        Stopper {
            flag: limits.stop.clone(),
            deadline: limits.hard_deadline,
            next_poll: 0,
            stopped: false,
        }
    }

    /// True once the search must stop; looks at the clock only every 4096 nodes.
    #[inline]
    pub fn poll(&mut self, nodes: u64) -> bool {
        if nodes >= self.next_poll && !self.stopped {
            self.next_poll = nodes + 4096;
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

/// The value of a position as a search found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// An evaluation in hundredths of a disc (a proven result beyond [`WIN`]).
    Estimate(i32),
    /// The exact final disc difference.
    Exact(i32),
    /// Win (1), draw (0) or loss (-1).
    Wld(i32),
}

impl Value {
    /// The value in discs for the side to move (for `Wld`: +1, 0 or -1).
    pub fn discs(self) -> f64 {
        match self {
            Value::Estimate(v) if v > WIN => f64::from(v - WIN) / 100.0,
            Value::Estimate(v) if v < -WIN => f64::from(v + WIN) / 100.0,
            Value::Estimate(v) => f64::from(v) / 100.0,
            Value::Exact(d) | Value::Wld(d) => f64::from(d),
        }
    }

    /// The value of a search score in the units of `eval`: an estimate in hundredths of a
    /// disc, since the search compares the evaluator's own units but reports speak discs.
    /// Proven results (beyond [`WIN`]) pass unchanged; estimates stay within 64 discs.
    pub fn estimate<E: Evaluator + ?Sized>(score: i32, eval: &E) -> Value {
        if score.abs() > WIN {
            return Value::Estimate(score);
        }
        let scaled = (f64::from(score) * eval.centidiscs_per_unit()).round();
        Value::Estimate(scaled.clamp(-6400.0, 6400.0) as i32)
    }

    /// The same value for the other side.
    pub fn negate(self) -> Value {
        match self {
            Value::Estimate(v) => Value::Estimate(-v),
            Value::Exact(d) => Value::Exact(-d),
            Value::Wld(d) => Value::Wld(-d),
        }
    }
}

/// A search result: after each finished depth (progress) and at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchReport {
    /// The move to play (`Pass` when there is none).
    pub best_move: Move,
    /// The position's value for the side to move.
    pub value: Value,
    /// The depth finished (the number of empties for a solve).
    pub depth: u32,
    /// The principal variation, starting with `best_move`.
    pub pv: Vec<Move>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time spent so far.
    pub elapsed: Duration,
    /// False when a limit cut the search short.
    pub complete: bool,
}

/// A search of the position after a forced pass, as `no_move_report` runs it.
type InnerSearch<'a> =
    dyn FnMut(&mut Searcher, &Position, &mut dyn FnMut(&SearchReport)) -> SearchReport + 'a;

/// The engine's thinking state: the transposition table and the random source of `random`.
pub struct Searcher {
    tt: TranspositionTable,
    rng: Xoshiro256PlusPlus,
}

/// From this many empties on, an exact solve starts from a searched guess of its score.
const GUESS_MIN_EMPTIES: u32 = 16;

/// Hash table size when none is given, in MiB.
pub const DEFAULT_HASH_MIB: usize = 64;

impl Searcher {
    /// A searcher with a table of `hash_mib` MiB; `seed` makes `random` reproducible.
    pub fn new(hash_mib: usize, seed: Option<u64>) -> Searcher {
        let rng = match seed {
            Some(s) => Xoshiro256PlusPlus::seed_from_u64(s),
            None => rand::make_rng(),
        };
        Searcher {
            tt: TranspositionTable::new(hash_mib),
            rng,
        }
    }

    /// Forgets all stored results (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// Picks a move for `position` as `levels` say for its phase, within `limits`, calling
    /// `progress` after each finished depth.
    pub fn think(
        &mut self,
        position: &Position,
        levels: &Levels,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        let phase = levels.phase(position);
        let level = levels.phase_level(phase);
        if level.eval == EvaluatorKind::Random && phase != Phase::Endgame {
            return self.random_move(position);
        }
        match phase {
            Phase::Endgame => self.solve(position, levels.endgame_mode, level, limits, progress),
            _ => self.search(position, level, limits, progress),
        }
    }

    /// A uniformly random legal move.
    pub fn random_move(&mut self, position: &Position) -> SearchReport {
        let squares: Vec<usize> = Bits(position.legal_moves()).collect();
        let best_move = if squares.is_empty() {
            Move::Pass
        } else {
            let i = self.rng.random_range(0..squares.len());
            Square::new(squares[i]).map_or(Move::Pass, Move::Play)
        };
        SearchReport {
            best_move,
            value: Value::Estimate(0),
            depth: 0,
            pv: vec![best_move],
            nodes: 0,
            elapsed: Duration::ZERO,
            complete: true,
        }
    }

    /// Handles positions with no move: a finished game or a forced pass. Returns the report, or
    /// `None` when the side to move has a move.
    fn no_move_report(
        &mut self,
        position: &Position,
        inner: &mut InnerSearch<'_>,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> Option<SearchReport> {
        if !position.must_pass() {
            return None;
        }
        if position.is_game_over() {
            return Some(SearchReport {
                best_move: Move::Pass,
                value: Value::Exact(position.final_score()),
                depth: 0,
                pv: Vec::new(),
                nodes: 0,
                elapsed: Duration::ZERO,
                complete: true,
            });
        }
        let mut flip = |r: &SearchReport| progress(&pass_report(r));
        let report = inner(self, &position.pass(), &mut flip);
        Some(pass_report(&report))
    }

    /// Iterative deepening to `level.depth` with `level.eval`, within `limits`.
    pub fn search(
        &mut self,
        position: &Position,
        level: PhaseLevel,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        let mut inner = |s: &mut Searcher, p: &Position, prog: &mut dyn FnMut(&SearchReport)| {
            s.search(p, level, limits, prog)
        };
        if let Some(r) = self.no_move_report(position, &mut inner, progress) {
            return r;
        }
        match level.eval {
            EvaluatorKind::Random | EvaluatorKind::Classic => self.deepen(
                position,
                level.depth,
                &Classic,
                EvaluatorKind::Classic.id(),
                limits,
                progress,
            ),
            EvaluatorKind::Discs => self.deepen(
                position,
                level.depth,
                &Discs,
                level.eval.id(),
                limits,
                progress,
            ),
            EvaluatorKind::DiscsInverse => self.deepen(
                position,
                level.depth,
                &DiscsInverse,
                level.eval.id(),
                limits,
                progress,
            ),
            EvaluatorKind::Weighted => self.deepen(
                position,
                level.depth,
                &Weighted,
                level.eval.id(),
                limits,
                progress,
            ),
            EvaluatorKind::Pattern => self.deepen(
                position,
                level.depth,
                &Pattern,
                level.eval.id(),
                limits,
                progress,
            ),
        }
    }

    fn deepen<E: Evaluator>(
        &mut self,
        position: &Position,
        max_depth: u32,
        eval: &E,
        kind: u8,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        let start = Instant::now();
        let mut stopper = Stopper::new(limits);
        let mut search = Midgame {
            tt: &mut self.tt,
            eval,
            kind,
            nodes: 0,
            stopper: &mut stopper,
        };
        let max_depth = max_depth.clamp(1, position.empty_count().max(1));
        let mut last: Option<SearchReport> = None;
        let mut guess = 0;
        for depth in 1..=max_depth {
            if last.is_some() && limits.soft_expired() {
                break;
            }
            let (value, best) = aspiration(&mut search, position, depth, guess);
            if search.stopper.stopped() && last.is_some() {
                break;
            }
            let best_move = Square::new(best as usize)
                .map(Move::Play)
                .filter(|&m| position.is_legal(m))
                .or_else(|| position.legal_squares().first().map(|&s| Move::Play(s)))
                .unwrap_or(Move::Pass);
            guess = value;
            let report = SearchReport {
                best_move,
                value: Value::estimate(value, eval),
                depth,
                pv: principal_variation(search.tt, position, kind, best_move, depth as usize),
                nodes: search.nodes,
                elapsed: start.elapsed(),
                complete: !search.stopper.stopped(),
            };
            if !report.complete {
                return report;
            }
            progress(&report);
            let proven = value.abs() > WIN;
            last = Some(report);
            if proven {
                break;
            }
        }
        let mut report = last.unwrap_or_else(|| self.random_move(position));
        report.complete = !stopper.stopped();
        report
    }

    /// Solves the endgame of `position` in `mode`. A quick search with `fallback` gives a move
    /// first, which stands if `limits` stop the solve.
    pub fn solve(
        &mut self,
        position: &Position,
        mode: EndgameMode,
        fallback: PhaseLevel,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        let mut inner = |s: &mut Searcher, p: &Position, prog: &mut dyn FnMut(&SearchReport)| {
            s.solve(p, mode, fallback, limits, prog)
        };
        if let Some(r) = self.no_move_report(position, &mut inner, progress) {
            return r;
        }
        let start = Instant::now();
        let quick = PhaseLevel {
            depth: fallback.depth.min(4),
            eval: fallback.eval,
        };
        let backup = self.search(position, quick, limits, progress);
        let (guess, guess_nodes) = if mode == EndgameMode::Exact {
            self.score_guess(position, limits)
        } else {
            (0, 0)
        };
        let mut stopper = Stopper::new(limits);
        let mut solver = Endgame {
            tt: &mut self.tt,
            nodes: 0,
            stopper: &mut stopper,
        };
        let (p, o, n) = (
            position.player(),
            position.opponent(),
            position.empty_count(),
        );
        let (mut score, mut best) = match mode {
            EndgameMode::Exact => solver.solve_exact(p, o, guess, n),
            EndgameMode::Wld | EndgameMode::WinElseLeast => solver.pvs(p, o, -1, 1, n),
        };
        let mut value = match mode {
            EndgameMode::Exact => Value::Exact(score),
            _ => Value::Wld(score.signum()),
        };
        if mode == EndgameMode::WinElseLeast && score < 0 && !solver.stopper.stopped() {
            (score, best) = solver.solve_exact(p, o, score, n);
            value = Value::Exact(score);
        }
        let nodes = solver.nodes + backup.nodes + guess_nodes;
        if stopper.stopped() {
            let mut r = backup;
            r.nodes = nodes;
            r.elapsed = start.elapsed();
            r.complete = false;
            return r;
        }
        let best_move = Square::new(best as usize)
            .map(Move::Play)
            .filter(|&m| position.is_legal(m))
            .unwrap_or(backup.best_move);
        let report = SearchReport {
            best_move,
            value,
            depth: n,
            pv: principal_variation(&self.tt, position, tt::KIND_ENDGAME, best_move, n as usize),
            nodes,
            elapsed: start.elapsed(),
            complete: true,
        };
        progress(&report);
        report
    }

    /// A guess at the exact score of `position` (even, in discs) and the nodes it took: a
    /// shallow search with the pattern evaluator, which estimates disc differences. The exact
    /// solve starts its windows there; a guess near the truth saves a third of a hard solve,
    /// while a search far from the end is not worth its cost.
    fn score_guess(&mut self, position: &Position, limits: &Limits) -> (i32, u64) {
        let n = position.empty_count();
        if n < GUESS_MIN_EMPTIES {
            return (0, 0);
        }
        let level = PhaseLevel {
            depth: (n - GUESS_MIN_EMPTIES + 2).min(8),
            eval: EvaluatorKind::Pattern,
        };
        let r = self.search(position, level, limits, &mut |_| {});
        let discs = r.value.discs().clamp(-64.0, 64.0);
        ((discs / 2.0).round() as i32 * 2, r.nodes)
    }

    /// The exact value of `position` in the window `alpha..beta` (fail-soft), and the number of
    /// nodes searched; no move choice, no limits. For tests and tools.
    pub fn solve_window(&mut self, position: &Position, alpha: i32, beta: i32) -> (i32, u64) {
        let mut stopper = Stopper::new(&Limits::none());
        let mut solver = Endgame {
            tt: &mut self.tt,
            nodes: 0,
            stopper: &mut stopper,
        };
        let n = position.empty_count();
        let (v, _) = solver.pvs(position.player(), position.opponent(), alpha, beta, n);
        (v, solver.nodes)
    }
}

/// Deepening step with an aspiration window around `guess`, widened on failure.
fn aspiration<E: Evaluator>(
    search: &mut Midgame<'_, E>,
    position: &Position,
    depth: u32,
    guess: i32,
) -> (i32, u8) {
    if depth < 3 || guess.abs() > WIN {
        return search.search(position, depth, -INFINITY, INFINITY);
    }
    let mut delta = 100;
    let (mut alpha, mut beta) = (guess - delta, guess + delta);
    loop {
        let (v, best) = search.search(position, depth, alpha, beta);
        if search.stopper.stopped() {
            return (v, best);
        }
        if v <= alpha && alpha > -INFINITY {
            alpha = (v - delta).max(-INFINITY);
        } else if v >= beta && beta < INFINITY {
            beta = (v + delta).min(INFINITY);
        } else {
            return (v, best);
        }
        delta *= 4;
        if delta > 3000 {
            alpha = -INFINITY;
            beta = INFINITY;
        }
    }
}

/// The report for a position that had to pass, built from the report of the position after
/// the pass.
fn pass_report(after: &SearchReport) -> SearchReport {
    let mut pv = vec![Move::Pass];
    pv.extend_from_slice(&after.pv);
    SearchReport {
        best_move: Move::Pass,
        value: after.value.negate(),
        pv,
        ..after.clone()
    }
}

/// The best line from the table, starting with `first`, at most `max_len` moves.
fn principal_variation(
    tt: &TranspositionTable,
    position: &Position,
    kind: u8,
    first: Move,
    max_len: usize,
) -> Vec<Move> {
    let mut pv = vec![first];
    let Ok(mut at) = position.play(first) else {
        return pv;
    };
    while pv.len() < max_len && !at.is_game_over() {
        if at.must_pass() {
            pv.push(Move::Pass);
            at = at.pass();
            continue;
        }
        let Some(entry) = tt.probe(at.player(), at.opponent(), kind) else {
            break;
        };
        let Some(mv) = Square::new(entry.best as usize).map(Move::Play) else {
            break;
        };
        match at.play(mv) {
            Ok(next) => {
                pv.push(mv);
                at = next;
            }
            Err(_) => break,
        }
    }
    pv
}
