//! The [`Searcher`]: the engine's thinking state (the transposition table, the book, the
//! threads, the random source) and the one door through which the faces reach every search.
//! [`Searcher::think`] plays from the book (`book_moves.rs`) or picks the phase and runs the
//! midgame deepening ([`Searcher::search`]) or the solve (`solve.rs`); the searcher also
//! ponders, values every move for NBoard's hints (`analysis.rs`) and learns games into its
//! book (`learn.rs`).
//!
//! It stands on top of the sub-searches: they take the table, the limits and the levels as
//! arguments and know nothing of it, so a change to the searcher's state never reaches them.
//! What drives a searcher from outside (a game review, growing the book, the Multi-ProbCut
//! calibration) stands above it. `search/mod.rs` says where each idea lives.

mod analysis;
mod book_moves;
mod learn;
mod solve;

pub use learn::{LEARN_POSITIONS, value_moves};

use super::book::Book;
use super::deepen::{self, Deepen, Earlier};
use super::levels::{Levels, Phase, PhaseLevel, Play};
use super::limits::Limits;
use super::probcut::{self, Selectivity};
use super::report::{SearchReport, Value, pass_report};
use super::score::WIN;
use super::threads::Busy;
use super::time::{self, TimeBudget};
use super::tt::TranspositionTable;
use crate::board::{Bits, MAX_EMPTIES, Move, Position, Square};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;
use std::time::Duration;
use web_time::Instant;

/// A search of the position after a forced pass, as `no_move_report` runs it.
type InnerSearch<'a> =
    dyn FnMut(&mut Searcher, &Position, &mut dyn FnMut(&SearchReport)) -> SearchReport + 'a;

/// The engine's thinking state: the transposition table and the random source of `random`.
pub struct Searcher {
    tt: TranspositionTable,
    rng: Xoshiro256PlusPlus,
    selectivity: Selectivity,
    /// The opening book [`Searcher::think`] plays from, if any, and how far below the best
    /// value (hundredths of a disc) its moves may be drawn.
    book: Option<Arc<Book>>,
    book_randomness: i32,
    /// Out of the book, the midgame search plays any root move within this many hundredths of
    /// a disc of the best, drawn at random (0: always the best).
    randomness: i32,
    /// The threads a search or solve runs on, and the moves they are searching at the moment
    /// (see `threads.rs`).
    threads: usize,
    busy: Busy,
    /// The position the last ponder expected and the times its depths took, one by one, and
    /// the time of the depth it did not finish; on a ponder hit, what the deepening of the
    /// same position knows of its depths' cost (`earlier`: the table answers them in
    /// microseconds, which would make the next depth look cheap).
    pondered: Option<(Position, Earlier)>,
    earlier: Earlier,
}

/// The quick search that gives a solve its fallback move goes at most this deep: it is
/// insurance against a stopped solve, not worth much time.
const FALLBACK_MAX_DEPTH: u32 = 4;
/// When the clock decides, the search before a solve goes this deep (selective, a few
/// milliseconds near the end): its move stands if the solve does not finish in time.
const TIMED_FALLBACK_DEPTH: u32 = 10;

/// Loads now what the first search would otherwise load on its own clock (about 70 ms for
/// each evaluator): the `pattern` weights (inflated and made symmetric), the `neural`
/// network (inflated and checked) and their Multi-ProbCut tables; and what the
/// first solve would (about 25 ms): the `pattern-full` weights that order the solver's moves.
/// The first solve often comes late in a game with little on the clock, and under pondering
/// it came in a ponder that the opponent's reply then waited on. A server calls it before
/// it reads its first command.
pub fn warm_up() {
    let _ = crate::eval::pattern::active_weights();
    let _ = crate::eval::pattern::full_weights();
    let _ = &*probcut::BUILT_IN;
    crate::eval::network::warm_up();
    let _ = probcut::neural_table();
}

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
            selectivity: Selectivity::FULL,
            book: None,
            book_randomness: 0,
            randomness: 0,
            threads: 1,
            busy: Busy::default(),
            pondered: None,
            earlier: Earlier::default(),
        }
    }

    /// Searches and solves with `threads` threads (at least 1; 1, the default, is
    /// deterministic).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The threads searches and solves run on.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Out of the book, lets the midgame search play any root move within `randomness`
    /// hundredths of a disc of the best (drawn uniformly with the searcher's random source,
    /// which `--seed` fixes), for sparring and varied self-play; 0 always plays the best.
    pub fn set_randomness(&mut self, randomness: i32) {
        self.randomness = randomness.max(0);
    }

    /// Plays from `book` while a position is in it (none: always search), drawing among the
    /// moves within `randomness` hundredths of a disc of the best (see [`Book::choose`]).
    pub fn set_book(&mut self, book: Option<Arc<Book>>, randomness: i32) {
        self.book = book;
        self.book_randomness = randomness.max(0);
    }

    /// Sets how selective the midgame searches are (Multi-ProbCut; [`Selectivity::FULL`]:
    /// full width, the default).
    pub fn set_selectivity(&mut self, selectivity: Selectivity) {
        self.selectivity = selectivity;
    }

    /// How selective the midgame searches are.
    pub fn selectivity(&self) -> Selectivity {
        self.selectivity
    }

    /// Forgets all stored results (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// The book this searcher plays from, if any.
    pub fn book(&self) -> Option<&Book> {
        self.book.as_deref()
    }
}

impl Searcher {
    /// Picks a move for `position` as `levels` say for its phase, within `limits`, calling
    /// `progress` after each finished depth.
    pub fn think(
        &mut self,
        position: &Position,
        levels: &Levels,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        if let Some(report) = self.book_move(position) {
            progress(&report);
            return report;
        }
        self.earlier = match self.pondered.take() {
            Some((pondered, earlier)) if pondered == *position => earlier,
            _ => Earlier::default(),
        };
        self.think_out_of_book(position, levels, limits.time_left(), limits, progress)
    }

    /// [`Searcher::think`] without the book: when `time_left` (the time the move may take) is
    /// known and the levels let the time decide, the time decides depth and solve; otherwise
    /// the levels' depths and solve point do.
    fn think_out_of_book(
        &mut self,
        position: &Position,
        levels: &Levels,
        time_left: Option<Duration>,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        self.tt.new_search();
        self.selectivity = levels.selectivity;
        let phase = levels.phase(position);
        let level = levels.phase_level(phase);
        if level.play() == Play::Random && phase != Phase::Endgame {
            return self.random_move(position);
        }
        if levels.time_decides
            && let Some(time_left) = time_left
        {
            return self.think_in_time(position, levels, level, time_left, limits, progress);
        }
        match phase {
            Phase::Endgame => {
                let quick = PhaseLevel {
                    depth: level.depth.min(FALLBACK_MAX_DEPTH),
                    ..level
                };
                self.solve_after(position, levels.endgame_mode, quick, limits, progress)
            }
            _ => {
                let report = self.search(position, level, limits, progress);
                // A level's depth is a cap, not a promise: under a clock too short for it,
                // the clock decides, and the log says so (issue 83).
                let now = Instant::now();
                let past = |deadline: Option<Instant>| deadline.is_some_and(|d| now >= d);
                if report.depth < level.depth.min(position.empty_count())
                    && (past(limits.soft_deadline) || past(limits.hard_deadline))
                {
                    log::info!(
                        "the clock cut the search at depth {} of the level's {} ({:.3} s)",
                        report.depth,
                        level.depth,
                        report.elapsed.as_secs_f64()
                    );
                }
                report
            }
        }
    }

    /// Thinks on the opponent's time (pondering) after the engine played into `root`: the
    /// reply `expected` first (the second move of the engine's principal variation, if
    /// legal), then the other replies, each searched as [`Searcher::think`] would search it
    /// on the engine's turn (`budget`: the engine's clock then, if one runs), until `limits`
    /// stop it. Nothing is reported: what counts is the table, which the search on the
    /// engine's turn reads. When the reply comes as expected, that search finds the ponder's
    /// depths already done and spends its own time deeper; after another reply, the table
    /// still holds what the two lines share. No randomness is drawn, so `--seed` games stay
    /// as they are. Returns the nodes searched.
    pub fn ponder(
        &mut self,
        root: &Position,
        expected: Option<Move>,
        levels: &Levels,
        budget: Option<TimeBudget>,
        limits: &Limits,
    ) -> u64 {
        let mut replies: Vec<Move> = if root.must_pass() {
            vec![Move::Pass]
        } else {
            root.legal_squares().into_iter().map(Move::Play).collect()
        };
        if let Some(i) = expected.and_then(|e| replies.iter().position(|&m| m == e)) {
            replies[..=i].rotate_right(1);
        }
        let randomness = std::mem::take(&mut self.randomness);
        let mut nodes = 0;
        self.pondered = None;
        for reply in replies {
            let Ok(child) = root.play(reply) else {
                continue;
            };
            let in_book = self
                .book
                .as_ref()
                .is_some_and(|b| b.moves(&child).is_some());
            let phase = levels.phase(&child);
            let random =
                levels.phase_level(phase).play() == Play::Random && phase != Phase::Endgame;
            if child.is_game_over() || in_book || random {
                continue;
            }
            let time_left = budget.map(|b| time::move_time(child.empty_count(), b).1);
            // The depths' times of the expected reply's ponder, for a ponder hit.
            let mut times = Vec::new();
            let mut record = |report: &SearchReport| {
                let done: Duration = times.iter().sum();
                if report.depth as usize == times.len() + 1 {
                    times.push(report.elapsed.saturating_sub(done));
                }
            };
            self.earlier = Earlier::default();
            let started = Instant::now();
            nodes += self
                .think_out_of_book(&child, levels, time_left, limits, &mut record)
                .nodes;
            if Some(reply) == expected {
                let unfinished = started.elapsed().saturating_sub(times.iter().sum());
                let earlier = Earlier {
                    depths: times,
                    unfinished,
                };
                self.pondered = Some((child, earlier));
            }
            if limits.stop_requested() {
                break;
            }
        }
        self.randomness = randomness;
        nodes
    }

    /// A move when the clock decides: solve if the solve should fit in the time (after a
    /// selective search whose move stands if it does not), else search as deep as the time
    /// allows with the phase's evaluator.
    fn think_in_time(
        &mut self,
        position: &Position,
        levels: &Levels,
        level: PhaseLevel,
        time_left: Duration,
        limits: &Limits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        let eval = level.search_evaluator();
        if time::worth_solving(position.empty_count(), time_left) {
            self.earlier = Earlier::default();
            let quick = PhaseLevel {
                depth: TIMED_FALLBACK_DEPTH,
                eval,
            };
            return self.solve_after(position, levels.endgame_mode, quick, limits, progress);
        }
        let deepest = PhaseLevel {
            depth: MAX_EMPTIES,
            eval,
        };
        self.search(position, deepest, limits, progress)
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
        SearchReport::immediate(best_move, Value::Estimate(0))
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
                pv: Vec::new(),
                ..SearchReport::immediate(Move::Pass, Value::Exact(position.final_score()))
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
        let earlier = std::mem::take(&mut self.earlier);
        let deepen = Deepen {
            tt: &self.tt,
            position,
            max_depth: level.depth,
            selectivity: self.selectivity,
            limits,
            progress,
            threads: self.threads,
            busy: &self.busy,
            earlier: &earlier,
        };
        let report = level.search_evaluator().dispatch(deepen).flatten();
        // Neither is `None` in practice (a search evaluator is never `random`, and depth 1
        // always runs), but a move is owed whatever happens.
        let report = report.unwrap_or_else(|| self.random_move(position));
        self.randomized(position, level, limits, report)
    }

    /// `report` with its move drawn among the root moves within the randomness of its value
    /// (when there is randomness, the search finished and its value is an estimate).
    fn randomized(
        &mut self,
        position: &Position,
        level: PhaseLevel,
        limits: &Limits,
        report: SearchReport,
    ) -> SearchReport {
        let Value::Estimate(value) = report.value else {
            return report;
        };
        if self.randomness == 0 || !report.complete || value.abs() > WIN {
            return report;
        }
        let alternatives = level
            .search_evaluator()
            .dispatch(deepen::RootAlternatives {
                tt: &self.tt,
                position,
                depth: report.depth,
                selectivity: self.selectivity,
                best: report.best_move,
                threshold: value - self.randomness,
                limits,
            })
            .unwrap_or_default();
        let pick = self.rng.random_range(0..=alternatives.len());
        match alternatives.get(pick) {
            Some(&mv) => SearchReport {
                best_move: mv,
                pv: vec![mv],
                ..report
            },
            None => report,
        }
    }
}
