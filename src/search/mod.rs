//! Thinking: how the engine chooses a move.
//!
//! **Phases.** A game is cut in three ([`Levels`], `levels.rs`): the opening (the first few
//! moves), the midgame, and the endgame from a set number of empties on. The opening and the
//! midgame search to a fixed depth with an evaluator; the endgame is solved exactly, or for
//! win/draw/loss only. [`Searcher::think`] picks the phase and runs [`Searcher::search`] or
//! [`Searcher::solve`]. A level may name `random`, which is not an evaluator but a move policy
//! ([`Play`]): outside the endgame it plays a random legal move without searching.
//!
//! **The midgame search** (`midgame/`) is a fail-soft principal-variation search (PVS): the
//! first move gets the full window, the others a null window that only asks whether they beat
//! the best so far, and a second, full search when they do. Moves are ordered by the table
//! move, then, with three plies or more left, by the evaluation of the position after each
//! move, and nearer the leaves by the mobility left to the opponent. The evaluator is chosen
//! once per search ([`EvaluatorKind::dispatch`]), so the search is compiled for each
//! evaluator and pays nothing per node for the choice. Scores are the evaluator's own units;
//! a finished game scores beyond [`WIN`] (`WIN` plus 100 per disc, `score.rs`), above every
//! evaluation, so a proven result is known as such; [`Value`] turns both into discs for the reports
//! (`report.rs`).
//!
//! **Iterative deepening** (`deepen.rs`) searches depth 1, 2, 3... up to the level's depth.
//! Each depth fills the table with best moves that order the next one, and leaves a finished
//! answer should time run out. From depth 3 each depth starts with an aspiration window
//! around the last value, widened on the failing side (4 times wider each time, fully open
//! past a limit) until the value falls inside. Deepening ends early on a proven result.
//!
//! **Limits** (`limits.rs`) and **time** (`time/mod.rs`, whose header tells the plan): the time
//! manager turns a clock into a soft and a hard deadline; no depth starts after the soft one
//! (moved out when the best move just changed) nor when it should end after the hard one; the
//! stop flag and the hard deadline are polled every few thousand nodes, and a depth they cut
//! short is dropped (the previous depth's move stands). When [`Levels::time_decides`] (the
//! default) and a clock runs, [`Searcher::think`] ignores the levels' depths and solve point:
//! it deepens until the time manager stops it, and solves once the solve should fit.
//!
//! **The transposition table** (`tt/mod.rs`) is shared by every search of a [`Searcher`]. Entries
//! hold the whole position (a hit is never a collision), bounds on its value, the best move
//! and the depth. Each entry has a kind: the midgame's entries are kept per evaluator (the
//! evaluator's `ID`), since units differ, and the endgame solver's exact disc scores under a
//! kind of their own, with the number of empties as the depth. The principal variation of a
//! report is read back from it.
//!
//! **The endgame** (`endgame/`, whose header tells the solver) is reached through
//! [`Searcher::solve`] (`searcher/solve.rs`), which first runs a quick search (at most
//! `FALLBACK_MAX_DEPTH` plies, the level's evaluator) whose move stands if the limits stop the
//! solve. An exact solve with `GUESS_MIN_EMPTIES` or more empties then runs a short `pattern-full`
//! search (the solver's own evaluator), whose value in discs is the score guess that centres the solver's first window; a
//! good guess saves much of a hard solve. Win-else-least solves for win/draw/loss first and, on a loss, exactly.
//!
//! **Passes.** A position whose side must pass is answered from the position after the pass:
//! the search or solve runs there, and the report gets the pass in front and its value
//! negated. Inside the searches a pass costs no depth, and a finished game is scored by its
//! final disc difference.
//!
//! **Threads** (`threads.rs`, whose header tells the scheme): with `--threads N` every thread
//! runs the same deepening or solve over the one table, which takes no locks; at nodes deep
//! enough, a thread puts off the moves another thread is searching (simplified ABDADA). The
//! calling thread reports and decides; exact scores stay exact. One thread is deterministic.
//!
//! **Pondering** ([`Searcher::ponder`]): after the engine's move, the protocol's worker may
//! search the replies (the expected one first) until the opponent's move comes; the table
//! carries the work over to the search on the engine's turn.
//!
//! **Also here:** the per-phase settings and presets (`levels.rs`), a value for every move for
//! NBoard's hints ([`Searcher::top_moves`], `searcher/analysis.rs`), stable discs for the
//! solver's cut-offs (`stability.rs`), a game's review (`review.rs`), and the opening book
//! (`book/`; grown by `book_build/`) and the Multi-ProbCut table (`probcut/`; measured by
//! `probcut_calibrate.rs`).
//!
//! **Floors.** A file imports only files on the floors below its own. On the ground, what the
//! searches share and what imports nothing of `search`: the score scale and its windows
//! (`score.rs`), the limits, the table, stable discs, the Multi-ProbCut cuts and their table
//! (`probcut/`) and the book itself (`book/`). Above them what is built on those: the levels,
//! the time manager, the reports and the threads' bookkeeping. Then the searches:
//! `midgame/`, and on it `deepen.rs` and `endgame/`. Above those the [`Searcher`]
//! (`searcher/`), the one door to them all, with the root solve, the analysis, and its play
//! from and learning into its book. Above the searcher what drives one: `review.rs`,
//! `book_build/`, `probcut_calibrate.rs`. This file only names the modules and hands their
//! public names on: nothing in `search/` imports it, so a change to a shared type never
//! touches it.

pub mod book;
pub mod book_build;
mod deepen;
mod endgame;
mod levels;
mod limits;
mod midgame;
pub mod probcut;
pub mod probcut_calibrate;
mod report;
mod review;
mod score;
mod searcher;
mod stability;
mod threads;
mod time;
mod tt;

pub use levels::{
    DEFAULT_LEVEL, EndgameMode, LevelSetting, Levels, MAX_LEVEL, Phase, PhaseLevel, Play,
    SETTING_NAMES,
};
pub use limits::Limits;
pub use probcut::Selectivity;
pub use report::{SearchReport, Value};
pub use review::MoveReview;
pub use score::{INFINITY, WIN, terminal_score};
pub use searcher::{DEFAULT_HASH_MIB, LEARN_POSITIONS, Searcher, warm_up};
pub use stability::stable_discs;
pub use threads::{MAX_THREADS, available_threads, parse_threads};
pub use time::{
    GUI_DELAY, LagMeter, MAX_MOVE_OVERHEAD_SECONDS, REPLY_MARGIN, TimeBudget, limits_for,
    move_time, parse_move_overhead,
};
pub use tt::TranspositionTable;
