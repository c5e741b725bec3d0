//! Engine specifications (`gtp:COMMAND`, `nboard:COMMAND`, `self:FLAGS`, with `name=`, `dir=`
//! and `depth=`) and the clients that drive one engine process: GTP and NBoard (protocol 2).
//!
//! Both clients share [`EngineProcess`]: the engine's standard output is read by a thread that
//! forwards each line over a channel, so every reply can be waited for with a deadline: a hung
//! engine costs its game, never the match. Another thread drains its standard error and keeps
//! the last lines, which say why an engine that exits did.

use super::signals;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineProtocol {
    /// GTP version 2 with the Othello conventions (`gtp:` and `self:` engines).
    Gtp,
    /// NBoard protocol version 2 (`nboard:` engines).
    NBoard,
}

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name shown in results and game records.
    pub name: String,
    /// True when the name came from `name=`; otherwise an NBoard engine's `set myname`
    /// replaces it.
    pub name_given: bool,
    /// The program to run.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory, if not the runner's.
    pub dir: Option<PathBuf>,
    /// True for `self:` engines, which accept level flags such as `--midgame-depth`.
    pub is_self: bool,
    /// The protocol the engine speaks.
    pub protocol: EngineProtocol,
    /// The search depth sent to an NBoard engine with `set depth` (from `depth=` or the
    /// match's `--depth`); none leaves the engine's own setting.
    pub depth: Option<u32>,
}

/// Splits a command line into words: white space separates, and single or double quotes keep
/// spaces inside a word. No other shell syntax is interpreted.
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!("unmatched {q} in '{text}'"));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

impl EngineSpec {
    /// Reads `[name=NAME,][dir=DIR,][depth=N,]KIND:COMMAND` where KIND is `gtp` or `nboard`
    /// (COMMAND is a program and its arguments) or `self` (COMMAND is level flags for this
    /// program's `gtp` server); `depth=` (1 to 60) is for `nboard:` engines.
    pub fn parse(text: &str) -> Result<EngineSpec, String> {
        let mut rest = text.trim();
        let (mut name, mut dir, mut depth) = (None, None, None);
        while let Some(key) = ["name", "dir", "depth"]
            .into_iter()
            .find(|k| rest.strip_prefix(k).is_some_and(|r| r.starts_with('=')))
        {
            let after = &rest[key.len() + 1..];
            let (value, tail) = after.split_once(',').ok_or_else(|| {
                format!("engine '{text}': {key}= must be followed by ',' and the engine")
            })?;
            let value = value.trim();
            if value.is_empty() {
                return Err(format!("engine '{text}': empty {key}="));
            }
            match key {
                "name" => name = Some(value.to_string()),
                "dir" => dir = Some(value.to_string()),
                _ => {
                    depth = Some(
                        value
                            .parse::<u32>()
                            .ok()
                            .filter(|d| (1..=60).contains(d))
                            .ok_or_else(|| {
                                format!("engine '{text}': bad depth={value} (1 to 60)")
                            })?,
                    );
                }
            }
            rest = tail.trim_start();
        }
        let (kind, command) = rest.split_once(':').ok_or_else(|| {
            format!("engine '{text}': expected gtp:COMMAND, nboard:COMMAND or self:FLAGS")
        })?;
        let words = split_command(command).map_err(|e| format!("engine '{text}': {e}"))?;
        let (program, args, is_self, protocol) = match kind {
            "gtp" | "nboard" => {
                let Some((program, args)) = words.split_first() else {
                    return Err(format!("engine '{text}': {kind}: needs a command"));
                };
                let protocol = if kind == "gtp" {
                    EngineProtocol::Gtp
                } else {
                    EngineProtocol::NBoard
                };
                (PathBuf::from(program), args.to_vec(), false, protocol)
            }
            "self" => {
                let exe = std::env::current_exe()
                    .map_err(|e| format!("cannot find this program to run self: ({e})"))?;
                let mut args = vec!["gtp".to_string()];
                args.extend(words.iter().cloned());
                (exe, args, true, EngineProtocol::Gtp)
            }
            other => {
                return Err(format!(
                    "engine '{text}': unknown kind '{other}' (expected gtp:, nboard: or self:)"
                ));
            }
        };
        if depth.is_some() && protocol != EngineProtocol::NBoard {
            return Err(format!(
                "engine '{text}': depth= is for nboard: engines (GTP has no depth command; \
                 give self: engines level flags)"
            ));
        }
        let name_given = name.is_some();
        let name = name.unwrap_or_else(|| {
            if is_self {
                format!("self {}", words.join(" ")).trim_end().to_string()
            } else {
                program
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_else(|| program.display().to_string())
            }
        });
        // A relative program path given with a working directory is found inside it.
        let program = match &dir {
            Some(d) if program.is_relative() && program.components().count() > 1 => {
                PathBuf::from(d).join(program)
            }
            _ => program,
        };
        Ok(EngineSpec {
            name,
            name_given,
            program,
            args,
            dir: dir.map(PathBuf::from),
            is_self,
            protocol,
            depth,
        })
    }
}

/// Why an exchange with an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The process could not be started.
    Start(String),
    /// No complete reply within the time allowed; with the last line skipped while waiting
    /// because it was not the protocol's (a GTP engine writing something else), if any.
    Timeout(Option<String>),
    /// The engine closed its output or its input (it exited or crashed); with the last line
    /// it wrote on its standard error, if any.
    Exited(Option<String>),
    /// The match was interrupted (SIGINT or SIGTERM) while waiting.
    Aborted,
    /// A reply that is not GTP (`= ...` or `? ...`).
    Garbage(String),
    /// A `? message` reply.
    Failure(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Start(e) => write!(f, "could not start: {e}"),
            EngineError::Timeout(None) => f.write_str("no reply in time"),
            EngineError::Timeout(Some(line)) => write!(
                f,
                "no reply in time; skipped output that is not GTP: '{line}'"
            ),
            EngineError::Exited(None) => f.write_str("exited (crash or early quit)"),
            EngineError::Exited(Some(line)) => write!(
                f,
                "exited (crash or early quit); last stderr line: '{line}'"
            ),
            EngineError::Aborted => f.write_str("stopped: the match was interrupted"),
            EngineError::Garbage(line) => write!(f, "unparsable reply '{line}'"),
            EngineError::Failure(message) => write!(f, "replied '? {message}'"),
        }
    }
}

/// The longest line kept from an engine reply in messages.
const QUOTE_LIMIT: usize = 80;

fn quote(line: &str) -> String {
    line.chars().take(QUOTE_LIMIT).collect()
}

/// The longest standard error line quoted in messages: an engine's own error message is
/// worth more room than a reply.
const LONG_QUOTE_LIMIT: usize = 160;

fn quote_long(line: &str) -> String {
    line.chars().take(LONG_QUOTE_LIMIT).collect()
}

/// How many lines of an engine's standard error are kept: enough for the message of an
/// engine that exits, few enough that a chatty engine costs nothing.
const STDERR_LINES: usize = 5;

/// The longest standard error line kept, in bytes (the rest of a longer line is dropped).
const STDERR_LINE_LIMIT: usize = 200;

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
    /// them: the output line by line (line ends and a trailing `\r` removed, tabs made spaces,
    /// bytes that are not UTF-8 replaced), the error keeping its last lines only. On Unix the
    /// engine gets its own process group, so that a Ctrl-C at the terminal reaches the runner
    /// alone and the runner stops its engines itself.
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
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
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
            // Dropping the sender tells the client that the output is closed.
        });
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
                .last_line(Duration::from_millis(300))
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
        let until = Instant::now() + Duration::from_millis(300);
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

/// A running GTP engine. Dropping it stops the process.
pub struct GtpEngine {
    process: EngineProcess,
    /// The engine's name, for warnings.
    name: String,
    /// Lines skipped so far because they were not GTP replies.
    skipped: usize,
    /// True when the engine reads fractional seconds in time commands (our own `self:`
    /// engines); others get whole seconds, as GTP writes them.
    pub fractional_seconds: bool,
}

impl GtpEngine {
    /// Starts the engine process.
    pub fn start(spec: &EngineSpec) -> Result<GtpEngine, EngineError> {
        Ok(GtpEngine {
            process: EngineProcess::start(spec)?,
            name: spec.name.clone(),
            skipped: 0,
            fractional_seconds: spec.is_self,
        })
    }

    /// `time` in seconds as this engine reads them: exact to the millisecond for engines that
    /// take fractions, else whole seconds rounded down (at least `floor` of them).
    pub fn seconds(&self, time: Duration, floor: u64) -> String {
        if self.fractional_seconds {
            format!("{:.3}", time.as_secs_f64())
        } else {
            time.as_secs().max(floor).to_string()
        }
    }

    /// Sends one command and waits up to `timeout` for its whole reply; returns the text
    /// after `=` (lines joined by newlines), or the error. A reply starts with `=` or `?`:
    /// other lines before it are skipped as GUIs do (Edax writes `*** SEARCH STILL RUNNING ?
    /// (0) ***` before some replies), with a warning for the first of each engine process.
    pub fn send(&mut self, command: &str, timeout: Duration) -> Result<String, EngineError> {
        let deadline = Instant::now() + timeout;
        self.process.write_line(command)?;
        let mut reply: Vec<String> = Vec::new();
        let mut stray: Option<String> = None;
        loop {
            let line = match self.process.read_line(deadline) {
                Ok(line) => line,
                Err(EngineError::Timeout(_)) => return Err(EngineError::Timeout(stray)),
                Err(e) => return Err(e),
            };
            if reply.is_empty() {
                if line.trim().is_empty() {
                    continue; // blank lines before a reply are allowed
                }
                if !line.starts_with(['=', '?']) {
                    self.skip(&line);
                    stray = Some(quote(&line));
                    continue;
                }
            } else if line.trim().is_empty() {
                break;
            }
            reply.push(line);
        }
        parse_reply(&reply)
    }

    /// Logs a line skipped before a reply: a warning the first time, so that a chatty
    /// engine does not flood the log, later ones at debug level.
    fn skip(&mut self, line: &str) {
        if self.skipped == 0 {
            log::warn!(
                "engine '{}': skipped a line that is not a GTP reply: '{}' (later ones are logged at debug level)",
                self.name,
                quote(line)
            );
        } else {
            log::debug!("engine '{}': skipped '{}'", self.name, quote(line));
        }
        self.skipped += 1;
    }

    /// Sends `quit`, gives the engine a moment to exit, and stops it.
    pub fn quit(mut self) {
        let _ = self.send("quit", Duration::from_millis(500));
    }
}

/// Reads a GTP reply: `=` or `?`, an optional id, then the text.
fn parse_reply(lines: &[String]) -> Result<String, EngineError> {
    let first = lines.first().map(String::as_str).unwrap_or("");
    let (ok, rest) = match first.chars().next() {
        Some('=') => (true, &first[1..]),
        Some('?') => (false, &first[1..]),
        _ => return Err(EngineError::Garbage(quote(first))),
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
    let mut text = rest.to_string();
    for line in &lines[1..] {
        text.push('\n');
        text.push_str(line.trim());
    }
    if ok {
        Ok(text.trim().to_string())
    } else {
        Err(EngineError::Failure(quote(text.trim())))
    }
}

/// A running NBoard engine (protocol version 2). The client tells it the whole game with
/// `set game` before every `go`, so it never relays moves. Dropping it stops the process.
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

    /// Sends `quit` and stops the engine (after a moment to exit on its own).
    pub fn quit(mut self) {
        let _ = self.process.write_line("quit");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let s = EngineSpec::parse("name=Rhino,dir=/tmp,gtp:gtp-rhino --level 3").unwrap();
        assert_eq!(s.name, "Rhino");
        assert!(s.name_given);
        assert_eq!(s.program, PathBuf::from("gtp-rhino"));
        assert_eq!(s.args, ["--level", "3"]);
        assert_eq!(s.dir, Some(PathBuf::from("/tmp")));
        assert_eq!(s.protocol, EngineProtocol::Gtp);
        let s = EngineSpec::parse("gtp:'/opt/my engine/run' -q").unwrap();
        assert_eq!(s.name, "run");
        assert!(!s.name_given);
        assert_eq!(s.args, ["-q"]);
        let s = EngineSpec::parse("self:--level 5").unwrap();
        assert!(s.is_self);
        assert_eq!(s.args, ["gtp", "--level", "5"]);
        assert_eq!(s.name, "self --level 5");
        let s = EngineSpec::parse("depth=12,dir=/opt/edax,nboard:bin/lEdax -nboard").unwrap();
        assert_eq!(s.protocol, EngineProtocol::NBoard);
        assert_eq!(s.depth, Some(12));
        assert_eq!(s.program, PathBuf::from("/opt/edax/bin/lEdax"));
        assert_eq!(s.args, ["-nboard"]);
        assert_eq!(s.name, "lEdax");
        for bad in [
            "uci:stockfish",
            "gtp:",
            "nboard:",
            "edax",
            "name=x",
            "gtp:'a",
            "depth=0,nboard:edax",
            "depth=x,nboard:edax",
            "depth=8,gtp:edax",
            "depth=8,self:",
        ] {
            assert!(EngineSpec::parse(bad).is_err(), "{bad}");
        }
    }

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
    fn replies() {
        let lines = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(parse_reply(&lines(&["= e6"])), Ok("e6".into()));
        assert_eq!(parse_reply(&lines(&["=12 PASS"])), Ok("PASS".into()));
        assert_eq!(parse_reply(&lines(&["="])), Ok(String::new()));
        assert_eq!(
            parse_reply(&lines(&["? illegal move"])),
            Err(EngineError::Failure("illegal move".into()))
        );
        assert_eq!(
            parse_reply(&lines(&["bestmove e6"])),
            Err(EngineError::Garbage("bestmove e6".into()))
        );
    }
}
