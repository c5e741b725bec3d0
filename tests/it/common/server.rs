//! Drives the server binary like a GUI: lines in, lines out, with a deadline on every wait so a
//! hang fails the test instead of stalling it.

use othello_engine::board::{Move, Position};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long any single expected answer may take; generous for a loaded 2-core machine.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A running server with its output lines on a channel.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Each output line with the moment the reader thread got it (for latency checks).
    lines: Receiver<(String, Instant)>,
    stderr: std::thread::JoinHandle<String>,
    /// What [`Server::send`] ends a line with: `\n`, or `\r\n` as GUIs on Windows send.
    line_end: &'static str,
}

impl Server {
    /// Starts `othello-engine <args>` (the build [`super::engine_command`] names).
    pub fn start(args: &[&str]) -> Server {
        Server::spawn(super::engine_command(), args)
    }

    /// Starts any program speaking a line protocol (a peer engine).
    pub fn start_program(program: &str, args: &[&str]) -> Server {
        Server::spawn(Command::new(program), args)
    }

    fn spawn(mut command: Command, args: &[&str]) -> Server {
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            // Only `\n` ends a line: a `\r` the engine wrote (as a Windows build might) stays
            // in the line, where the transcripts see it.
            let mut stdout = BufReader::new(stdout);
            let mut line = String::new();
            while matches!(stdout.read_line(&mut line), Ok(n) if n > 0) {
                let text = line.strip_suffix('\n').unwrap_or(&line).to_string();
                if sender.send((text, Instant::now())).is_err() {
                    break;
                }
                line.clear();
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            line_end: "\n",
        }
    }

    /// The server's process id (to read its memory in /proc).
    #[cfg(target_os = "linux")]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends raw bytes (for CRLF and invalid UTF-8).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("the server reads");
        stdin.flush().expect("the server reads");
    }

    /// From now on ends every line sent with `\r\n`, as GUIs on Windows do.
    pub fn crlf(mut self) -> Server {
        self.line_end = "\r\n";
        self
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        let bytes = format!("{line}{}", self.line_end);
        self.send_raw(bytes.as_bytes());
    }

    /// The next output line; panics after [`PATIENCE`].
    pub fn next(&mut self) -> String {
        self.next_timed().0
    }

    /// The next output line and when it arrived; panics after [`PATIENCE`].
    pub fn next_timed(&mut self) -> (String, Instant) {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(timed) => timed,
            Err(RecvTimeoutError::Timeout) => panic!("no output within {PATIENCE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        }
    }

    /// Lines up to and including the first one `done` accepts.
    pub fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self.next();
            let finished = done(&line);
            seen.push(line);
            if finished {
                return seen;
            }
        }
    }

    /// The next output line and when it arrived, if one arrives within `wait`.
    pub fn next_within(&mut self, wait: Duration) -> Option<(String, Instant)> {
        self.lines.recv_timeout(wait).ok()
    }

    /// Whether a line arrives within `wait`.
    pub fn quiet_for(&mut self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok().map(|(line, _)| line)
    }

    /// One GTP reply: its lines up to the blank line that ends it (the blank line dropped).
    pub fn gtp(&mut self, command: &str) -> Vec<String> {
        self.send(command);
        let mut reply = self.until(str::is_empty);
        reply.pop();
        reply
    }

    /// Closes the server's input (the end of input, as when a GUI dies).
    pub fn close_input(&mut self) {
        drop(self.stdin.take());
    }

    /// Waits for the process to exit of its own accord (after `quit` or the end of input);
    /// returns the stdout lines not yet read and stderr, or kills it and says how long it
    /// lingered, so that no process is ever left behind.
    pub fn exits_within(mut self, within: Duration) -> Result<(Vec<String>, String), String> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return Err(format!(
                    "the server was still running {within:?} after quit"
                ));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Ok((line, _)) = self.lines.recv_timeout(PATIENCE) {
            rest.push(line);
        }
        Ok((rest, self.stderr.join().unwrap_or_default()))
    }

    /// Closes stdin and waits for the exit; returns stdout lines not yet read and stderr.
    pub fn finish(mut self) -> (Vec<String>, String) {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit at end of input");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut rest = Vec::new();
        while let Ok((line, _)) = self.lines.recv_timeout(PATIENCE) {
            rest.push(line);
        }
        let stderr = self.stderr.join().unwrap_or_default();
        (rest, stderr)
    }
}

/// The move of the next NBoard `=== MOVE/EVAL/TIME` line, checked legal in `position`.
pub fn go_answer(s: &mut Server, position: &Position) -> Move {
    let line = s.until(|l| l.starts_with("===")).pop().expect("a line");
    let text = line.trim_start_matches("=== ");
    let mv: Move = text
        .split('/')
        .next()
        .unwrap_or("")
        .parse()
        .expect("a move");
    assert!(position.is_legal(mv), "{line} in\n{position}");
    mv
}
