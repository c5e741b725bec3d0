//! `othello-engine match`: engine-against-engine tournaments. The runner is the referee: it
//! checks every move with the rules core, handles passes and the end of the game, keeps the
//! clocks, and scores the match.
//!
//! Files, each importing only files below it in this list (no circle):
//! - [`runner`]: the match command from start to summary; [`merge`]: `match merge`.
//! - [`pool`]: the worker pool (threads that play the games); [`recorder`]: the files kept up to date after every game;
//!   [`schedule`]: the games in order, shards, what `--resume` may take from a results file.
//! - [`referee`]: one game refereed; [`progress`]: game lines and the status line;
//!   [`summary`]: the closing summary; [`config`]: the match's command line.
//! - [`ggf`]: games in GGF (records and NBoard's `set game`); [`outcome`]: a refereed game and how it ended (forfeit kinds).
//! - [`client`]: the engine processes, GTP and NBoard; [`spec`]: one `--engine`.
//! - [`results`]: results files (the model, CSV, JSON); [`stats`]: Elo, LOS, SPRT;
//!   [`options`]: the command-line error type and whole-number reader (still shared with
//!   `cli`).
//!
//! Signals, atomic files and the like come from `crate::sys`.

pub mod client;
pub mod config;
pub mod ggf;
pub mod merge;
mod opening_flags;
pub mod options;
pub mod outcome;
pub mod pool;
pub mod progress;
pub mod recorder;
pub mod referee;
pub mod results;
pub mod runner;
pub mod schedule;
pub mod spec;
pub mod stats;
pub mod summary;

pub use config::{MatchArgs, MatchConfig};
pub use merge::run_merge;
pub use runner::run_match;
