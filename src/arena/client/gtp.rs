//! The GTP client: commands sent one at a time, each reply waited for with a deadline, and
//! the command texts the referee sends (GTP for Othello: colours `black`/`white`, moves `e6`
//! or `pass`).

use super::error::{EngineError, quote};
use super::process::EngineProcess;
use crate::arena::spec::EngineSpec;
use crate::board::{Color, Move};
use crate::game::clock::TimeControl;
use std::time::{Duration, Instant};

/// How long `quit` is waited for.
const QUIT_TIMEOUT: Duration = Duration::from_millis(500);

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
    /// True when whole seconds are rounded to the nearest (GNU Quarry's way) rather than
    /// down.
    pub rounded_seconds: bool,
}

impl GtpEngine {
    /// Starts the engine process.
    pub fn start(spec: &EngineSpec) -> Result<GtpEngine, EngineError> {
        Ok(GtpEngine {
            process: EngineProcess::start(spec)?,
            name: spec.name.clone(),
            skipped: 0,
            fractional_seconds: spec.is_self,
            rounded_seconds: false,
        })
    }

    /// Tells this engine its game clock as GNU Quarry does: whole seconds rounded to the
    /// nearest, whatever the engine could read.
    pub fn tell_like_a_gui(&mut self) {
        self.rounded_seconds = true;
    }

    /// `time` in seconds as this engine reads them: whole seconds rounded to the nearest as a
    /// GUI tells them, else exact to the millisecond for engines that take fractions, else
    /// whole seconds rounded down (at least `floor` of them).
    pub fn seconds(&self, time: Duration, floor: u64) -> String {
        if self.rounded_seconds {
            ((time.as_secs_f64() + 0.5).floor() as u64)
                .max(floor)
                .to_string()
        } else if self.fractional_seconds {
            format!("{:.3}", time.as_secs_f64())
        } else {
            time.as_secs().max(floor).to_string()
        }
    }

    /// A per-move limit `t` as this engine is told it. A GUI's is whole seconds (Quarry's
    /// `time_settings 0 10 1`); a limit a GUI could not set (`--move-time 0.5` with
    /// `--latency`) is told exactly to an engine that reads fractions, rather than rounded
    /// to a second it does not have, and otherwise rounded down (at least a second).
    fn per_move_seconds(&self, t: Duration) -> String {
        let gui_whole = self.rounded_seconds && t.subsec_nanos() == 0;
        if self.fractional_seconds && !gui_whole {
            format!("{:.3}", t.as_secs_f64())
        } else {
            t.as_secs().max(1).to_string()
        }
    }

    /// The `time_settings` command for `control`: a game clock with no byo-yomi, or a
    /// per-move limit as one move per byo-yomi period; none when no clock runs.
    pub fn time_settings(&self, control: TimeControl) -> Option<String> {
        match control {
            TimeControl::Fischer { base, .. } => {
                Some(format!("time_settings {} 0 0", self.seconds(base, 0)))
            }
            TimeControl::PerMove(t) => {
                Some(format!("time_settings 0 {} 1", self.per_move_seconds(t)))
            }
            TimeControl::Untimed => None,
        }
    }

    /// The `time_left` command telling `side` its clock before it moves: `left` of a game
    /// clock, or the per-move limit; none when no clock runs.
    pub fn time_left(&self, side: Color, control: TimeControl, left: Duration) -> Option<String> {
        match control {
            TimeControl::Fischer { .. } => {
                Some(format!("time_left {side} {} 0", self.seconds(left, 0)))
            }
            TimeControl::PerMove(t) => {
                Some(format!("time_left {side} {} 1", self.per_move_seconds(t)))
            }
            TimeControl::Untimed => None,
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

    /// The most resident memory the engine process has held so far, in KiB.
    pub fn peak_memory_kib(&self) -> Option<u64> {
        self.process.peak_memory_kib()
    }

    /// Sends `quit`, gives the engine a moment to exit, and stops it.
    pub fn quit(mut self) {
        let _ = self.send("quit", QUIT_TIMEOUT);
    }
}

/// A move as GTP writes it: `e6` or `pass`.
fn move_word(mv: Move) -> String {
    match mv {
        Move::Pass => "pass".into(),
        Move::Play(sq) => sq.to_string(),
    }
}

/// The command that plays `mv` for `color`: `play black e6`, `play white pass`.
pub fn play_command(color: Color, mv: Move) -> String {
    format!("play {color} {}", move_word(mv))
}

/// The command that asks `color` for its move.
pub fn genmove_command(color: Color) -> String {
    format!("genmove {color}")
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn commands_name_colours_and_moves_as_gtp_does() {
        let e6: Move = "e6".parse().unwrap_or(Move::Pass);
        assert_eq!(play_command(Color::Black, e6), "play black e6");
        assert_eq!(play_command(Color::White, Move::Pass), "play white pass");
        assert_eq!(genmove_command(Color::White), "genmove white");
    }
}
