//! An engine process with line-based pipes, whatever its protocol: its output forwarded line
//! by line by a reader thread, so that every wait has a deadline, and the last lines of its
//! standard error kept, which say why an engine that exits did.

use super::error::{EngineError, quote_long};
use crate::arena::spec::EngineSpec;
use crate::sys::signals;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How many lines of an engine's standard error are kept: enough for the message of an
/// engine that exits, few enough that a chatty engine costs nothing.
const STDERR_LINES: usize = 5;

/// The longest standard error line kept, in bytes (the rest of a longer line is dropped).
const STDERR_LINE_LIMIT: usize = 200;

/// How long an engine that closed its output is given to close its standard error too, so
/// that its last words can be quoted.
const STDERR_CLOSE_WAIT: Duration = Duration::from_millis(300);

/// How long a stopped engine is given to exit on its own before it is killed.
const EXIT_WAIT: Duration = Duration::from_millis(300);

/// How often a wait for an engine looks whether the match was interrupted.
const POLL: Duration = Duration::from_millis(50);

/// The last lines of an engine's standard error, and whether it is closed.
#[derive(Default)]
struct StderrTail {
    state: Mutex<(VecDeque<String>, bool)>,
    closed: Condvar,
}

impl StderrTail {
    /// Keeps a finished line (blank ones say nothing).
    fn push(&self, bytes: &[u8]) {
        let line = String::from_utf8_lossy(bytes);
        let line = line.trim_end_matches(['\n', '\r']).replace('\t', " ");
        if line.trim().is_empty() {
            return;
        }
        if let Ok(mut state) = self.state.lock() {
            if state.0.len() == STDERR_LINES {
                state.0.pop_front();
            }
            state.0.push_back(line.trim().to_string());
        }
    }

    /// Reads `stream` to its end, keeping the last lines; each line is cut to
    /// [`STDERR_LINE_LIMIT`] bytes, so memory stays bounded whatever the engine writes.
    fn drain(&self, mut stream: impl Read) {
        let mut chunk = [0u8; 4096];
        let mut line = Vec::new();
        loop {
            let n = match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for &byte in &chunk[..n] {
                if byte == b'\n' {
                    self.push(&line);
                    line.clear();
                } else if line.len() < STDERR_LINE_LIMIT {
                    line.push(byte);
                }
            }
        }
        self.push(&line);
        if let Ok(mut state) = self.state.lock() {
            state.1 = true;
        }
        self.closed.notify_all();
    }

    /// The last line, once the stream is closed or `wait` has passed (an engine that exits
    /// closes its standard error a moment after its output).
    fn last_line(&self, wait: Duration) -> Option<String> {
        let state = self.state.lock().ok()?;
        let (state, _) = self
            .closed
            .wait_timeout_while(state, wait, |state| !state.1)
            .ok()?;
        state.0.back().cloned()
    }
}

/// Sends every line of `stream` to `sender` until the stream ends or nobody listens: line
/// ends and a trailing `\r` removed, tabs made spaces, bytes that are not UTF-8 replaced.
/// Dropping the sender at the end tells the receiver that the stream is closed.
fn forward_lines(stream: impl Read, sender: Sender<String>) {
    let mut reader = BufReader::new(stream);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buffer);
                let line = line.trim_end_matches(['\n', '\r']).replace('\t', " ");
                if sender.send(line).is_err() {
                    break;
                }
            }
        }
    }
}

/// A running engine process with line-based pipes, whatever its protocol. Dropping it closes
/// the engine's input and, if it does not exit at once, kills it; either way it is waited
/// for, so no zombie is left.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<StderrTail>,
}

impl EngineProcess {
    /// Starts the engine with piped standard input, output and error, and threads that read
    /// them: the output line by line (line ends removed, tabs made spaces, bytes that are not
    /// UTF-8 replaced), the error keeping its last lines only. On Unix the engine gets its
    /// own process group, so that a Ctrl-C at the terminal reaches the runner alone and the
    /// runner stops its engines itself.
    pub fn start(spec: &EngineSpec) -> Result<EngineProcess, EngineError> {
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.dir {
            command.current_dir(dir);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|e| EngineError::Start(format!("{}: {e}", spec.program.display())))?;
        let stdin = child.stdin.take();
        let stderr = Arc::new(StderrTail::default());
        if let Some(stream) = child.stderr.take() {
            let tail = stderr.clone();
            std::thread::spawn(move || tail.drain(stream));
        } else {
            stderr.drain(std::io::empty());
        }
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineError::Start("no standard output pipe".into()))?;
        let (sender, lines) = channel();
        std::thread::spawn(move || forward_lines(stdout, sender));
        Ok(EngineProcess {
            child,
            stdin,
            lines,
            stderr,
        })
    }

    /// The error for an engine that closed its pipes, with its last standard error line.
    fn exited(&self) -> EngineError {
        EngineError::Exited(
            self.stderr
                .last_line(STDERR_CLOSE_WAIT)
                .map(|l| quote_long(&l)),
        )
    }

    /// Writes one line to the engine and flushes it.
    pub fn write_line(&mut self, line: &str) -> Result<(), EngineError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.exited());
        };
        let written = stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stdin.flush());
        written.map_err(|_| self.exited())
    }

    /// The most resident memory the engine process has held so far, in KiB, where the system
    /// tells ([`crate::sys::memory`]).
    pub fn peak_memory_kib(&self) -> Option<u64> {
        crate::sys::memory::peak_resident_kib(self.child.id())
    }

    /// The next line the engine writes, waiting until `deadline` at the most; an interrupted
    /// match ends the wait at once.
    pub fn read_line(&mut self, deadline: Instant) -> Result<String, EngineError> {
        loop {
            if signals::caught().is_some() {
                return Err(EngineError::Aborted);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left.min(POLL)) {
                Ok(line) => return Ok(line),
                Err(RecvTimeoutError::Timeout) if left <= POLL => {
                    return Err(EngineError::Timeout(None));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(self.exited()),
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.stdin = None; // closing input asks a well-behaved engine to exit
        let until = Instant::now() + EXIT_WAIT;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_keeps_only_its_last_few_short_lines() {
        let tail = StderrTail::default();
        let mut text = String::new();
        for i in 0..100 {
            text += &format!("line {i}\n");
        }
        text += &"x".repeat(1_000_000);
        text += "\n\n  \nfatal:\tbad flag\r\n";
        tail.drain(text.as_bytes());
        let state = tail.state.lock().map(|s| s.clone());
        let (lines, closed) = state.as_ref().expect("not poisoned");
        assert!(closed);
        let long = "x".repeat(STDERR_LINE_LIMIT);
        let expected = ["line 97", "line 98", "line 99", &long, "fatal: bad flag"];
        assert_eq!(lines.iter().collect::<Vec<_>>(), expected);
        assert_eq!(
            tail.last_line(Duration::ZERO).as_deref(),
            Some("fatal: bad flag")
        );
        // A stream not closed yet gives what it has after the wait.
        assert_eq!(
            StderrTail::default().last_line(Duration::from_millis(1)),
            None
        );
    }

    #[test]
    fn output_lines_are_forwarded_clean() {
        let (sender, lines) = channel();
        forward_lines(&b"= e6\r\n\tx\xff\nlast"[..], sender);
        let lines: Vec<String> = lines.iter().collect();
        assert_eq!(lines, ["= e6", " x\u{fffd}", "last"]);
    }
}
