//! Faces: the NBoard and GTP protocol servers that let GUIs and scripts play and analyse with
//! the engine over stdin/stdout.
//!
//! One reader thread turns stdin into lines on a channel; searches run on their own thread
//! (see [`engine::Engine`]) so that the next command can stop them; the session of the chosen
//! protocol processes lines strictly in order. stdout carries protocol lines only.

pub mod engine;
pub mod gtp;
pub mod nboard;

use crate::search::{Levels, Searcher};
use engine::{Engine, Event};
use std::io::{self, BufRead, Write};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

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
    /// Seed for the random evaluator, for reproducible games.
    pub seed: Option<u64>,
}

/// A shared, line-flushed writer for protocol output (stdout in the server).
#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    /// Output to the process's stdout.
    pub fn stdout() -> Output {
        Output::new(Box::new(io::stdout()))
    }

    /// Output to any writer (tests use a buffer).
    pub fn new(sink: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(sink)),
        }
    }

    /// Writes `text` and a newline, then flushes: GUIs see nothing until a flush.
    pub fn line(&self, text: &str) {
        log::debug!("> {text}");
        // A poisoned lock only means another thread panicked mid-write; the writer itself is
        // still usable, and losing output would hang the GUI.
        let mut sink = self.sink.lock().unwrap_or_else(|p| p.into_inner());
        let written = writeln!(sink, "{text}").and_then(|()| sink.flush());
        if let Err(e) = written {
            log::warn!("cannot write protocol output: {e}");
        }
    }
}

/// Reads stdin on a thread of its own, sending each line without its `\n` or `\r\n`, then
/// [`Event::EndOfInput`]. Bytes that are not UTF-8 are replaced, never fatal.
pub fn spawn_stdin_reader(sender: Sender<Event>) {
    std::thread::spawn(move || {
        let stdin = io::stdin();
        let mut reader = stdin.lock();
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match reader.read_until(b'\n', &mut buffer) {
                Ok(0) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&buffer);
                    let line = text.trim_end_matches('\n').trim_end_matches('\r');
                    log::debug!("< {line}");
                    if sender.send(Event::Line(line.to_string())).is_err() {
                        return;
                    }
                }
                Err(e) => {
                    log::warn!("cannot read stdin: {e}");
                    break;
                }
            }
        }
        let _ = sender.send(Event::EndOfInput);
    });
}

/// Starts logging to stderr, quiet unless `RUST_LOG` asks, or to `log_file` at debug level.
/// NBoard reads the engine's stderr as protocol, so nothing is logged there by default.
pub fn init_logging(log_file: Option<&str>) -> Result<(), String> {
    let mut builder = env_logger::Builder::new();
    match log_file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open log file '{path}': {e}"))?;
            builder
                .filter_level(log::LevelFilter::Debug)
                .parse_env("RUST_LOG")
                .target(env_logger::Target::Pipe(Box::new(file)));
        }
        None => {
            builder
                .filter_level(log::LevelFilter::Off)
                .parse_env("RUST_LOG");
        }
    }
    builder
        .try_init()
        .map_err(|e| format!("cannot start logging: {e}"))
}

/// Serves `forced` (or the protocol the first non-empty line implies) on stdin/stdout until
/// `quit` or end of input.
pub fn serve(forced: Option<Protocol>, config: ServeConfig) {
    let (sender, events) = std::sync::mpsc::channel();
    spawn_stdin_reader(sender.clone());
    let searcher = Searcher::new(config.hash_mib, config.seed);
    let mut engine = Engine::new(searcher, config.hash_mib, sender, events);
    let protocol = forced.unwrap_or_else(|| match engine.peek_first_command() {
        Some(line) if line.trim_start().starts_with("nboard") => Protocol::NBoard,
        _ => Protocol::Gtp,
    });
    log::info!("serving {protocol:?} with levels: {}", config.levels);
    let output = Output::stdout();
    match protocol {
        Protocol::NBoard => nboard::NBoardSession::new(config.levels, output).run(&mut engine),
        Protocol::Gtp => gtp::GtpSession::new(config.levels, output).run(&mut engine),
    }
}
