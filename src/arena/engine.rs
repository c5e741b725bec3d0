//! Engine specifications (`gtp:COMMAND`, `self:FLAGS`, with `name=` and `dir=`) and the GTP
//! client that drives one engine process.
//!
//! The engine's standard output is read by a thread that forwards each line over a channel,
//! so every reply can be waited for with a deadline: a hung engine costs its game, never the
//! match.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name shown in results and game records.
    pub name: String,
    /// The program to run.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory, if not the runner's.
    pub dir: Option<PathBuf>,
    /// True for `self:` engines, which accept level flags such as `--midgame-depth`.
    pub is_self: bool,
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
    /// Reads `[name=NAME,][dir=DIR,]KIND:COMMAND` where KIND is `gtp` (COMMAND is a program
    /// and its arguments) or `self` (COMMAND is level flags for this program's `gtp` server).
    pub fn parse(text: &str) -> Result<EngineSpec, String> {
        let mut rest = text.trim();
        let (mut name, mut dir) = (None, None);
        loop {
            let key = if rest.starts_with("name=") {
                "name"
            } else if rest.starts_with("dir=") {
                "dir"
            } else {
                break;
            };
            let after = &rest[key.len() + 1..];
            let (value, tail) = after.split_once(',').ok_or_else(|| {
                format!("engine '{text}': {key}= must be followed by ',' and the engine")
            })?;
            let value = value.trim();
            if value.is_empty() {
                return Err(format!("engine '{text}': empty {key}="));
            }
            if key == "name" {
                name = Some(value.to_string());
            } else {
                dir = Some(value.to_string());
            }
            rest = tail.trim_start();
        }
        let (kind, command) = rest.split_once(':').ok_or_else(|| {
            format!(
                "engine '{text}': expected gtp:COMMAND or self:FLAGS (nboard: is not supported yet)"
            )
        })?;
        let words = split_command(command).map_err(|e| format!("engine '{text}': {e}"))?;
        let (program, args, is_self) = match kind {
            "gtp" => {
                let Some((program, args)) = words.split_first() else {
                    return Err(format!("engine '{text}': gtp: needs a command"));
                };
                (PathBuf::from(program), args.to_vec(), false)
            }
            "self" => {
                let exe = std::env::current_exe()
                    .map_err(|e| format!("cannot find this program to run self: ({e})"))?;
                let mut args = vec!["gtp".to_string()];
                args.extend(words.iter().cloned());
                (exe, args, true)
            }
            "nboard" => {
                return Err(format!(
                    "engine '{text}': nboard: engines are not supported yet; use gtp:"
                ));
            }
            other => {
                return Err(format!(
                    "engine '{text}': unknown kind '{other}' (expected gtp: or self:)"
                ));
            }
        };
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
            program,
            args,
            dir: dir.map(PathBuf::from),
            is_self,
        })
    }
}

/// Why a GTP exchange failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The process could not be started.
    Start(String),
    /// No complete reply within the time allowed.
    Timeout,
    /// The engine closed its output or its input (it exited or crashed).
    Exited,
    /// A reply that is not GTP (`= ...` or `? ...`).
    Garbage(String),
    /// A `? message` reply.
    Failure(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Start(e) => write!(f, "could not start: {e}"),
            EngineError::Timeout => f.write_str("no reply in time"),
            EngineError::Exited => f.write_str("exited (crash or early quit)"),
            EngineError::Garbage(line) => write!(f, "unparsable reply '{line}'"),
            EngineError::Failure(message) => write!(f, "replied '? {message}'"),
        }
    }
}

/// A running GTP engine. Dropping it stops the process.
pub struct GtpEngine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// True when the engine reads fractional seconds in time commands (our own `self:`
    /// engines); others get whole seconds, as GTP writes them.
    pub fractional_seconds: bool,
}

/// The longest line kept from an engine reply in messages.
const QUOTE_LIMIT: usize = 80;

fn quote(line: &str) -> String {
    line.chars().take(QUOTE_LIMIT).collect()
}

impl GtpEngine {
    /// Starts the engine process with piped standard input and output (its standard error is
    /// discarded, as GTP controllers do).
    pub fn start(spec: &EngineSpec) -> Result<GtpEngine, EngineError> {
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &spec.dir {
            command.current_dir(dir);
        }
        let mut child = command
            .spawn()
            .map_err(|e| EngineError::Start(format!("{}: {e}", spec.program.display())))?;
        let stdin = child.stdin.take();
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
        Ok(GtpEngine {
            child,
            stdin,
            lines,
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
    /// after `=` (lines joined by newlines), or the error.
    pub fn send(&mut self, command: &str, timeout: Duration) -> Result<String, EngineError> {
        let deadline = Instant::now() + timeout;
        let stdin = self.stdin.as_mut().ok_or(EngineError::Exited)?;
        stdin
            .write_all(format!("{command}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|_| EngineError::Exited)?;
        let mut reply: Vec<String> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(EngineError::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(EngineError::Exited),
            };
            if line.trim().is_empty() {
                if reply.is_empty() {
                    continue; // blank lines before a reply are allowed
                }
                break;
            }
            reply.push(line);
        }
        parse_reply(&reply)
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

impl Drop for GtpEngine {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let s = EngineSpec::parse("name=Rhino,dir=/tmp,gtp:gtp-rhino --level 3").unwrap();
        assert_eq!(s.name, "Rhino");
        assert_eq!(s.program, PathBuf::from("gtp-rhino"));
        assert_eq!(s.args, ["--level", "3"]);
        assert_eq!(s.dir, Some(PathBuf::from("/tmp")));
        let s = EngineSpec::parse("gtp:'/opt/my engine/run' -q").unwrap();
        assert_eq!(s.name, "run");
        assert_eq!(s.args, ["-q"]);
        let s = EngineSpec::parse("self:--level 5").unwrap();
        assert!(s.is_self);
        assert_eq!(s.args, ["gtp", "--level", "5"]);
        assert_eq!(s.name, "self --level 5");
        for bad in [
            "uci:stockfish",
            "gtp:",
            "edax",
            "nboard:edax",
            "name=x",
            "gtp:'a",
        ] {
            assert!(EngineSpec::parse(bad).is_err(), "{bad}");
        }
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
