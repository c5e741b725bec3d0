//! Thinking: iterative deepening PVS with a transposition table, an exact endgame solver, the
//! per-phase levels and the stop/time limits that bound every search.

mod analysis;
mod deepen;
mod endgame;
mod levels;
mod limits;
mod midgame;
mod report;
mod stability;
mod tt;

pub use endgame::final_score;
pub use levels::{
    DEFAULT_LEVEL, EndgameMode, Levels, MAX_LEVEL, Phase, PhaseLevel, Play, SETTING_NAMES,
};
pub use limits::Limits;
pub use midgame::{INFINITY, WIN, terminal_score};
pub use report::{SearchReport, Value};
pub use stability::stable_discs;
pub use tt::TranspositionTable;

use crate::board::{Bits, Move, Position, Square};
use crate::eval::EvaluatorKind;
use deepen::Deepen;
use endgame::Endgame;
use limits::Stopper;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use report::{pass_report, principal_variation};
use std::time::{Duration, Instant};

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
/// The guess searches this deep at [`GUESS_MIN_EMPTIES`], one ply deeper for each further
/// empty, up to [`GUESS_MAX_DEPTH`]...
const GUESS_MIN_DEPTH: u32 = 2;
/// ... so that the guess stays cheap beside the solve it steers.
const GUESS_MAX_DEPTH: u32 = 8;
/// The quick search that gives a solve its fallback move goes at most this deep: it is
/// insurance against a stopped solve, not worth much time.
const FALLBACK_MAX_DEPTH: u32 = 4;

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
        if level.play() == Play::Random && phase != Phase::Endgame {
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

    /// Iterative deepening to `level.depth` with the level's evaluator (`classic` for a random
    /// level, see [`PhaseLevel::search_evaluator`]), within `limits`.
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
        let deepen = Deepen {
            tt: &mut self.tt,
            position,
            max_depth: level.depth,
            limits,
            progress,
        };
        let report = level.search_evaluator().dispatch(deepen).flatten();
        // Neither is `None` in practice (a search evaluator is never `random`, and depth 1
        // always runs), but a move is owed whatever happens.
        report.unwrap_or_else(|| self.random_move(position))
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
            depth: fallback.depth.min(FALLBACK_MAX_DEPTH),
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
            depth: (n - GUESS_MIN_EMPTIES + GUESS_MIN_DEPTH).min(GUESS_MAX_DEPTH),
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
