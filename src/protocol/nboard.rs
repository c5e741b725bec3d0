//! NBoard protocol version 2: commands, and the session that answers them.

use super::Output;
use super::engine::Engine;
use crate::board::{Color, Position};
use crate::game::GameRecord;
use crate::game::clock::{GgfClock, nboard_budget};
use crate::game::ggf::{GgfGame, parse_ggf};
use crate::game::notation::{MoveItem, integer, move_item};
use crate::search::{Levels, Limits, SearchReport, Value, limits_for};
use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{space0, space1};
use nom::combinator::{all_consuming, map, rest, value};
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The engine's name; `set myname` adds the version and depth (one word, as NBoard reads
/// only the first).
pub const ENGINE_NAME: &str = "othello-engine";

/// A line from NBoard, parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum NBoardCommand {
    /// `nboard <version>`.
    NBoard(i64),
    /// `set game <GGF>`; the text is parsed when applied.
    SetGame(String),
    /// `move <mv>[/<eval>[/<time>]]`, or a bare move.
    Move(MoveItem),
    /// `set depth <n>`.
    SetDepth(i64),
    /// `set contempt <n>`.
    SetContempt(i64),
    /// `hint <n>`.
    Hint(i64),
    /// `go`.
    Go,
    /// `ping <n>`.
    Ping(i64),
    /// `learn`.
    Learn,
    /// `analyze`.
    Analyze,
    /// `clear`.
    Clear,
    /// `quit`.
    Quit,
}

fn keyword_with_integer<'a>(
    keyword: &'static str,
) -> impl Parser<&'a str, Output = i64, Error = nom::error::Error<&'a str>> {
    preceded((tag(keyword), space1), integer)
}

fn command(input: &str) -> IResult<&str, NBoardCommand> {
    all_consuming(terminated(
        alt((
            map(keyword_with_integer("nboard"), NBoardCommand::NBoard),
            map(
                preceded((tag("set"), space1, tag("game"), space1), rest),
                |g: &str| NBoardCommand::SetGame(g.to_string()),
            ),
            map(
                preceded((tag("set"), space1), keyword_with_integer("depth")),
                NBoardCommand::SetDepth,
            ),
            map(
                preceded((tag("set"), space1), keyword_with_integer("contempt")),
                NBoardCommand::SetContempt,
            ),
            map(
                preceded((tag("move"), space1), move_item),
                NBoardCommand::Move,
            ),
            map(keyword_with_integer("hint"), NBoardCommand::Hint),
            map(keyword_with_integer("ping"), NBoardCommand::Ping),
            value(NBoardCommand::Go, tag("go")),
            value(NBoardCommand::Learn, tag("learn")),
            value(NBoardCommand::Analyze, tag("analyze")),
            value(NBoardCommand::Clear, tag("clear")),
            value(NBoardCommand::Quit, tag("quit")),
            // NBoard version 1 sent bare moves; NTest treats any two-letter token as one.
            map(move_item, NBoardCommand::Move),
        )),
        space0,
    ))
    .parse(input)
}

/// Parses one NBoard line (already stripped of its line end); `None` for a line to ignore.
pub fn parse_command(line: &str) -> Option<NBoardCommand> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    command(line).ok().map(|(_, c)| c)
}

/// An NBoard session: the game, the clocks, the levels and the running request.
pub struct NBoardSession {
    game: GameRecord,
    clocks: [Option<GgfClock>; 2],
    /// The command line's settings: `set depth` changes only the depths of these.
    base: Levels,
    levels: Levels,
    contempt: i64,
    output: Output,
    /// Raised by `ping` so the running request prints nothing more (its `===` included).
    cancelled: Arc<AtomicBool>,
    /// Whether the running (or last) search answers a `hint` or `analyze`, which may run long
    /// and owe nothing once a new request comes.
    cancellable: bool,
}

impl NBoardSession {
    /// A session at the start position with the command line's levels.
    pub fn new(levels: Levels, output: Output) -> NBoardSession {
        NBoardSession {
            game: GameRecord::new(Position::start()),
            clocks: [None, None],
            base: levels,
            levels,
            contempt: 0,
            output,
            cancelled: Arc::new(AtomicBool::new(false)),
            cancellable: false,
        }
    }

    /// `set myname` with our name, version and depth, as NBoard shows it.
    fn announce_name(&self) {
        self.output.line(&format!(
            "set myname {ENGINE_NAME}-{}-d{}",
            env!("CARGO_PKG_VERSION"),
            self.levels.midgame.depth
        ));
    }

    /// Makes way for a new request: a running `hint` or `analyze` is cancelled (it may run
    /// long, and a new request makes its lines stale), a running `go` is waited for, since it
    /// owes exactly one `===`.
    fn make_way(&mut self, engine: &mut Engine) {
        if self.cancellable && engine.is_searching() {
            self.cancel(engine);
        }
        engine.wait();
        self.cancellable = false;
    }

    /// The position later commands relate to.
    pub fn position(&self) -> Position {
        self.game.current()
    }

    /// Serves lines until `quit` or end of input.
    pub fn run(&mut self, engine: &mut Engine) {
        while let Some(line) = engine.next_line() {
            match parse_command(&line) {
                Some(NBoardCommand::Quit) => break,
                Some(command) => self.execute(command, engine),
                None => log::info!("ignored line: {line}"),
            }
        }
        // Stopped, not cancelled: a request cut short by the end of input still answers
        // with its best so far, which scripts piping a fixed input rely on.
        engine.stop();
    }

    /// Stops the running request so that it prints nothing more.
    fn cancel(&mut self, engine: &mut Engine) {
        self.cancelled.store(true, Ordering::SeqCst);
        engine.stop();
        self.cancelled = Arc::new(AtomicBool::new(false));
    }

    /// Carries out one command.
    pub fn execute(&mut self, command: NBoardCommand, engine: &mut Engine) {
        match command {
            NBoardCommand::NBoard(version) => {
                if version != 2 {
                    log::warn!("NBoard protocol version {version}; speaking version 2");
                }
                self.announce_name();
            }
            NBoardCommand::SetGame(text) => match parse_ggf(&text) {
                Ok(GgfGame { record, clocks }) => {
                    self.game = record;
                    self.clocks = clocks;
                }
                Err(e) => log::warn!("set game refused, position unchanged: {}", e.0),
            },
            NBoardCommand::Move(item) => {
                if self.game.play(item.mv, item.eval, item.seconds).is_err() {
                    log::warn!("illegal move {} ignored", item.mv);
                }
            }
            NBoardCommand::SetDepth(depth) => {
                match u32::try_from(depth)
                    .ok()
                    .and_then(|d| self.base.with_depth(d))
                {
                    Some(levels) => {
                        let changed = levels.midgame.depth != self.levels.midgame.depth;
                        self.levels = levels;
                        if changed {
                            self.announce_name();
                        }
                    }
                    None => log::warn!("set depth {depth} ignored: expected 1 to 60"),
                }
            }
            NBoardCommand::SetContempt(contempt) => {
                // Kept for the record; the search scores draws as 0 for now.
                self.contempt = contempt;
            }
            NBoardCommand::Ping(n) => {
                self.cancel(engine);
                self.output.line(&format!("pong {n}"));
            }
            NBoardCommand::Go => self.go(engine),
            NBoardCommand::Hint(n) => self.hint(n, engine),
            NBoardCommand::Learn => {
                self.make_way(engine);
                self.output.line("learned");
            }
            NBoardCommand::Analyze => self.analyze(engine),
            NBoardCommand::Clear => {
                self.make_way(engine);
                if let Some(searcher) = engine.searcher() {
                    searcher.clear();
                }
            }
            NBoardCommand::Quit => {}
        }
    }

    fn go(&mut self, engine: &mut Engine) {
        self.make_way(engine);
        let position = self.position();
        let output = self.output.clone();
        if position.legal_moves() == 0 {
            // A forced pass (or a finished game, where no answer is legal): answer at once.
            output.line("=== PA");
            return;
        }
        let started = Instant::now();
        let stop = Arc::new(AtomicBool::new(false));
        let limits = limits_for(
            &position,
            nboard_budget(&self.clocks, &self.game),
            stop.clone(),
        );
        let levels = self.levels;
        let cancelled = self.cancelled.clone();
        engine.start(
            stop,
            Box::new(move |searcher| {
                let report = searcher.think(&position, &levels, &limits, &mut |r| {
                    if !cancelled.load(Ordering::SeqCst) {
                        output.line(&search_line(r));
                    }
                });
                if !cancelled.load(Ordering::SeqCst) {
                    let seconds = started.elapsed().as_secs_f64();
                    output.line(&nodestats_line(report.nodes, started.elapsed()));
                    output.line(&format!(
                        "=== {}/{:.2}/{seconds:.3}",
                        report.best_move.to_string().to_uppercase(),
                        report.value.discs()
                    ));
                }
                Some(report)
            }),
        );
    }

    fn hint(&mut self, count: i64, engine: &mut Engine) {
        self.make_way(engine);
        let position = self.position();
        let output = self.output.clone();
        if count < 1 {
            log::warn!("hint {count} ignored");
            return;
        }
        if position.is_game_over() {
            return;
        }
        if position.legal_moves() == 0 {
            output.line("search PA 0.00 0 0");
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let limits = limits_for(&position, None, stop.clone());
        let levels = self.levels;
        let cancelled = self.cancelled.clone();
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        self.cancellable = true;
        engine.start(
            stop,
            Box::new(move |searcher| {
                let started = Instant::now();
                let mut print = |r: &SearchReport| {
                    if !cancelled.load(Ordering::SeqCst) {
                        output.line(&search_line(r));
                    }
                };
                let (report, nodes) = if count > 1 {
                    searcher.top_moves(&position, &levels, &limits, count, &mut print)
                } else {
                    let r = searcher.think(&position, &levels, &limits, &mut print);
                    let nodes = r.nodes;
                    (Some(r), nodes)
                };
                if !cancelled.load(Ordering::SeqCst) {
                    output.line(&nodestats_line(nodes, started.elapsed()));
                }
                report
            }),
        );
    }

    /// NBoard's Analyze Game: a value for every position of the game, from the last back to
    /// the first (each search then finds the later positions' work in the table), as
    /// `analysis <moves made> <eval>` lines. A new request or `ping` cancels it.
    fn analyze(&mut self, engine: &mut Engine) {
        self.make_way(engine);
        let positions = self.game.positions().to_vec();
        let output = self.output.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let limits = Limits {
            stop: stop.clone(),
            ..Limits::none()
        };
        let levels = self.levels;
        let cancelled = self.cancelled.clone();
        self.cancellable = true;
        engine.start(
            stop,
            Box::new(move |searcher| {
                let started = Instant::now();
                let mut nodes = 0;
                for (moves_made, position) in positions.iter().enumerate().rev() {
                    let report = searcher.think(position, &levels, &limits, &mut |_| {});
                    nodes += report.nodes;
                    if !report.complete || cancelled.load(Ordering::SeqCst) {
                        return None;
                    }
                    output.line(&analysis_line(moves_made, position, report.value));
                }
                output.line(&nodestats_line(nodes, started.elapsed()));
                None
            }),
        );
    }
}

/// A `nodestats <nodes> <seconds>` line. NBoard divides by the time for its speed display and
/// reads no exponent, so the time has microseconds and is never 0.
pub fn nodestats_line(nodes: u64, elapsed: Duration) -> String {
    format!("nodestats {nodes} {:.6}", elapsed.as_secs_f64().max(1e-6))
}

/// An `analysis <moves made> <eval>` line for `value`, the value of `position` for its side
/// to move. The eval is given for Black, as NBoard's own engine gives it (the protocol's
/// comment and its reference engine disagree; see protocol.md).
pub fn analysis_line(moves_made: usize, position: &Position, value: Value) -> String {
    let for_black = match position.side_to_move() {
        Color::Black => value.discs(),
        Color::White => -value.discs(),
    };
    format!("analysis {moves_made} {for_black:.2}")
}

/// A `search <pv> <eval> 0 <depth>` line for a finished depth.
pub fn search_line(report: &SearchReport) -> String {
    let pv: Vec<String> = report
        .pv
        .iter()
        .map(|m| m.to_string().to_uppercase())
        .collect();
    let pv = if pv.is_empty() {
        report.best_move.to_string().to_uppercase()
    } else {
        pv.join("-")
    };
    let depth = match report.value {
        Value::Exact(_) => "100%".to_string(),
        Value::Wld(_) => "100%W".to_string(),
        Value::Estimate(_) => report.depth.to_string(),
    };
    format!("search {pv} {:.2} 0 {depth}", report.value.discs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_nboard_sends() {
        assert_eq!(parse_command("nboard 2"), Some(NBoardCommand::NBoard(2)));
        assert_eq!(parse_command("ping 7"), Some(NBoardCommand::Ping(7)));
        assert_eq!(
            parse_command("set depth 12"),
            Some(NBoardCommand::SetDepth(12))
        );
        assert_eq!(
            parse_command("set contempt -100"),
            Some(NBoardCommand::SetContempt(-100))
        );
        assert_eq!(parse_command("hint 4"), Some(NBoardCommand::Hint(4)));
        assert_eq!(parse_command("go"), Some(NBoardCommand::Go));
        assert!(matches!(
            parse_command("move F5//2.449"),
            Some(NBoardCommand::Move(_))
        ));
        assert!(matches!(
            parse_command("move d6 -1.00 0.0"),
            Some(NBoardCommand::Move(_))
        ));
        assert!(matches!(parse_command("F5"), Some(NBoardCommand::Move(_))));
        assert!(matches!(
            parse_command("set game (;;)"),
            Some(NBoardCommand::SetGame(_))
        ));
        assert_eq!(parse_command("gopher"), None);
        assert_eq!(parse_command("ping"), None);
        assert_eq!(parse_command("ping 1 2"), None);
        assert_eq!(parse_command("set myname x"), None);
        assert_eq!(parse_command(""), None);
    }
}
