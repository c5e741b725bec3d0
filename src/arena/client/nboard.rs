//! The NBoard client (protocol version 2): the whole game with `set game` before every `go`,
//! so that it never relays moves, and `ping`/`pong` to know the engine has read it.

use super::error::{EngineError, quote};
use super::process::EngineProcess;
use crate::arena::spec::EngineSpec;
use std::time::{Duration, Instant};

/// A running NBoard engine (protocol version 2). Dropping it stops the process.
pub struct NBoardEngine {
    process: EngineProcess,
    last_ping: u64,
    /// The last name the engine gave with `set myname`.
    pub myname: Option<String>,
}

impl NBoardEngine {
    /// Starts the engine process and sends `nboard 2`, then `set depth N` when the spec has a
    /// depth.
    pub fn start(spec: &EngineSpec) -> Result<NBoardEngine, EngineError> {
        let mut engine = NBoardEngine {
            process: EngineProcess::start(spec)?,
            last_ping: 0,
            myname: None,
        };
        engine.process.write_line("nboard 2")?;
        if let Some(depth) = spec.depth {
            engine.process.write_line(&format!("set depth {depth}"))?;
        }
        Ok(engine)
    }

    /// Sends `set game GGF`: every later request relates to the end of that game.
    pub fn set_game(&mut self, ggf: &str) -> Result<(), EngineError> {
        self.process.write_line(&format!("set game {ggf}"))
    }

    /// Sends `ping n` with a fresh n and waits up to `timeout` for `pong n`; lines before it
    /// are skipped, except that a `set myname` is kept.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), EngineError> {
        let deadline = Instant::now() + timeout;
        self.last_ping += 1;
        self.process
            .write_line(&format!("ping {}", self.last_ping))?;
        loop {
            let line = self.process.read_line(deadline)?;
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some("pong"), Some(n)) if n.parse() == Ok(self.last_ping) => return Ok(()),
                (Some("set"), Some("myname")) => {
                    let name = words.collect::<Vec<_>>().join(" ");
                    if !name.is_empty() {
                        self.myname = Some(name);
                    }
                }
                _ => {}
            }
        }
    }

    /// Sends `go` and waits up to `timeout` for the `=== MOVE[/EVAL[/TIME]]` line; returns
    /// the text after `===`. Other lines (`search`, `nodestats`, `status`, ...) are skipped.
    pub fn go(&mut self, timeout: Duration) -> Result<String, EngineError> {
        let deadline = Instant::now() + timeout;
        self.process.write_line("go")?;
        loop {
            let line = self.process.read_line(deadline)?;
            if let Some(answer) = line.trim_start().strip_prefix("===") {
                return Ok(quote(answer.trim()));
            }
        }
    }

    /// The most resident memory the engine process has held so far, in KiB.
    pub fn peak_memory_kib(&self) -> Option<u64> {
        self.process.peak_memory_kib()
    }

    /// Sends `quit` and stops the engine (after a moment to exit on its own).
    pub fn quit(mut self) {
        let _ = self.process.write_line("quit");
    }
}
