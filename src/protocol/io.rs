//! The server's input and output: a reader thread that turns stdin into events, a shared
//! line-flushed writer for protocol lines, and logging that keeps stderr quiet.

use super::worker::Event;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

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
            // Milliseconds, so that a move's reported time can be held against the times
            // its command came and its reply went.
            builder
                .filter_level(log::LevelFilter::Debug)
                .format_timestamp_millis()
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
