//! Faces: the NBoard and GTP protocol servers that let GUIs and scripts play and analyse with
//! the engine over stdin/stdout.
//!
//! One reader thread turns stdin into lines on a channel; searches run on their own thread
//! (see [`worker::Worker`]) so that the next command can stop them; the session of the chosen
//! protocol processes lines strictly in order, and asks the play controller
//! ([`play::Controller`]) for every search. stdout carries protocol lines only.

pub mod gtp;
mod io;
pub mod nboard;
pub mod play;
pub mod worker;

use crate::search::book::Book;
use crate::search::{Levels, Searcher};
pub use io::{Output, init_logging, spawn_stdin_reader};
use play::Controller;
use std::sync::Arc;
use worker::Worker;

/// The protocols the server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// NBoard protocol version 2.
    NBoard,
    /// GTP version 2 with the Othello conventions.
    Gtp,
}

/// What the command line gives a server: the search settings and the table size.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The phase and level settings the protocol may refine later.
    pub levels: Levels,
    /// Transposition table size in MiB.
    pub hash_mib: usize,
    /// The threads each search runs on.
    pub threads: usize,
    /// Whether the engine thinks on the opponent's time after its moves.
    pub ponder: bool,
    /// Seed for the random evaluator and the book's choices, for reproducible games.
    pub seed: Option<u64>,
    /// The opening book to play from, if any.
    pub book: Option<Arc<Book>>,
    /// How far below the best book move (hundredths of a disc) a book move may be drawn.
    pub book_randomness: i32,
    /// Out of the book, how far below the best (hundredths of a disc) a root move may be drawn.
    pub randomness: i32,
    /// The book's file, where NBoard's `learn` saves it (none: learned lines last the session).
    pub book_path: Option<String>,
    /// The controller's delay per move as the user told it (`--move-overhead`).
    pub move_overhead: Option<std::time::Duration>,
}

/// Serves `forced` (or the protocol the first non-empty line implies) on stdin/stdout until
/// `quit` or end of input.
pub fn serve(forced: Option<Protocol>, config: ServeConfig) {
    let (sender, events) = std::sync::mpsc::channel();
    spawn_stdin_reader(sender.clone());
    let mut searcher = Searcher::new(config.hash_mib, config.seed);
    searcher.set_book(config.book.clone(), config.book_randomness);
    searcher.set_randomness(config.randomness);
    searcher.set_threads(config.threads);
    crate::search::warm_up();
    let mut worker = Worker::new(searcher, config.hash_mib, sender, events);
    worker.set_ponder(config.ponder);
    let protocol = forced.unwrap_or_else(|| match worker.peek_first_command() {
        Some(line) if line.trim_start().starts_with("nboard") => Protocol::NBoard,
        _ => Protocol::Gtp,
    });
    log::info!("serving {protocol:?} with levels: {}", config.levels);
    let output = Output::stdout();
    let mut play = Controller::new(worker);
    match protocol {
        Protocol::NBoard => {
            let mut session = nboard::NBoardSession::new(config.levels, output);
            session.set_book_path(config.book_path.clone());
            session.set_overhead(config.move_overhead);
            session.run(&mut play)
        }
        Protocol::Gtp => {
            let mut session = gtp::GtpSession::new(config.levels, output);
            session.set_overhead(config.move_overhead);
            session.run(&mut play)
        }
    }
}
