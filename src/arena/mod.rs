//! `othello-engine match`: engine-against-engine tournaments. The runner is the referee: it
//! checks every move with the rules core, handles passes and the end of the game, keeps the
//! clocks, and scores the match.
//!
//! Files, each importing only files below it in this list (no circle):
//! - [`runner`]: a match from its checks to its summary; [`merge`]: `match merge`.
//! - [`pool`]: the worker pool (threads that play the games); [`recorder`]: the files kept up
//!   to date after every game; [`schedule`]: the games in order, shards, what a resumed match
//!   may take from its results file.
//! - [`referee`]: one game refereed; [`display`]: game lines and the status line;
//!   [`summary`]: the closing summary; [`config`]: the match's settings, typed.
//! - [`ggf`]: games in GGF (the records, and NBoard's `set game`); [`outcome`]: a refereed game
//!   and how it ended (forfeit kinds).
//! - [`client`]: the engine processes, GTP and NBoard; [`spec`]: one engine's specification.
//! - [`results`]: results files (the model, CSV, JSON); [`stats`]: Elo, LOS, SPRT.
//! - [`error`]: what stops a match or a merge ([`MatchError`]).
//!
//! The arena knows no command-line flags: `cli` reads them into a [`MatchConfig`] and prints a
//! [`MatchError`] as its one-line refusal. Signals and atomic files come from `crate::sys`.

pub mod client;
pub mod config;
pub mod display;
pub mod error;
pub mod ggf;
pub mod merge;
pub mod outcome;
pub mod pool;
pub mod recorder;
pub mod referee;
pub mod results;
pub mod runner;
pub mod schedule;
pub mod spec;
pub mod stats;
pub mod summary;

pub use config::MatchConfig;
pub use error::{MatchError, MatchFile};
pub use merge::run_merge;
pub use runner::run_match;
