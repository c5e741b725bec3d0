//! The NBoard session: the game, the clocks and the levels, and what each command does; the
//! requests run on the play controller, and the session writes their lines.

use super::command::{NBoardCommand, parse_command};
use super::reply::{ENGINE_NAME, analysis_line, move_line, nodestats_line, search_line};
use crate::board::Position;
use crate::game::GameRecord;
use crate::game::clock::{GgfClock, nboard_budget};
use crate::game::ggf::{GgfGame, parse_ggf};
use crate::protocol::Output;
use crate::protocol::play::{Begun, Controller, Listener, Progress, Think};
use crate::search::{Levels, TimeBudget};

/// An NBoard session: the game, the clocks and the levels.
pub struct NBoardSession {
    game: GameRecord,
    clocks: [Option<GgfClock>; 2],
    /// The command line's settings: `set depth` changes only the depths of these.
    base: Levels,
    levels: Levels,
    contempt: i64,
    output: Output,
    /// Where `learn` saves the book (none: learned lines last the session).
    book_path: Option<String>,
    /// The GUI's delay per move as the user told it (`--move-overhead`, `set move-overhead`).
    overhead: Option<std::time::Duration>,
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
            book_path: None,
            overhead: None,
        }
    }

    /// The GUI's delay per move as the user told it (`--move-overhead`).
    pub fn set_overhead(&mut self, overhead: Option<std::time::Duration>) {
        self.overhead = overhead;
    }

    /// Makes `learn` save the book to `path` after adding a game.
    pub fn set_book_path(&mut self, path: Option<String>) {
        self.book_path = path;
    }

    /// `set myname` with our name, version and depth, as NBoard shows it.
    fn announce_name(&self) {
        self.output.line(&format!(
            "set myname {ENGINE_NAME}-{}-d{}",
            env!("CARGO_PKG_VERSION"),
            self.levels.midgame.depth
        ));
    }

    /// The position later commands relate to.
    pub fn position(&self) -> Position {
        self.game.current()
    }

    /// Serves lines until `quit` or end of input.
    pub fn run(&mut self, play: &mut Controller) {
        while let Some(line) = play.next_line() {
            match parse_command(&line) {
                Some(NBoardCommand::Quit) => break,
                Some(command) => self.execute(command, play),
                None => log::info!("ignored line: {line}"),
            }
        }
        // Stopped, not cancelled: a request cut short by the end of input still answers
        // with its best so far, which scripts piping a fixed input rely on.
        play.stop();
    }

    /// Carries out one command.
    pub fn execute(&mut self, command: NBoardCommand, play: &mut Controller) {
        match command {
            NBoardCommand::NBoard(version) => {
                if version != 2 {
                    log::warn!("NBoard protocol version {version}; speaking version 2");
                }
                self.announce_name();
            }
            NBoardCommand::SetGame(text) => match parse_ggf(&text) {
                Ok(GgfGame {
                    record,
                    clocks,
                    skipped,
                    ..
                }) => {
                    for what in skipped {
                        log::warn!("set game: {what}");
                    }
                    self.game = record;
                    self.clocks = clocks;
                    play.position_changed(&self.position());
                }
                Err(e) => log::warn!("set game refused, position unchanged: {}", e.0),
            },
            NBoardCommand::Move(item) => {
                if self.game.play(item.mv, item.eval, item.seconds).is_err() {
                    log::warn!("illegal move {} ignored", item.mv);
                }
                play.position_changed(&self.position());
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
            NBoardCommand::SetPonder(on) => play.set_ponder(on),
            NBoardCommand::SetMoveOverhead(overhead) => self.overhead = Some(overhead),
            NBoardCommand::Ping(n) => {
                // The running request prints nothing more (a `go` not even its `===`).
                play.cancel_search();
                self.output.line(&format!("pong {n}"));
            }
            NBoardCommand::Go => self.go(play),
            NBoardCommand::Hint(n) => self.hint(n, play),
            // The game goes into the book (saved to its file if it has one), then `learned`.
            NBoardCommand::Learn => {
                let positions = self.game.positions().to_vec();
                play.learn(positions, self.book_path.clone(), self.listener());
            }
            // NBoard's Analyze Game: `analysis <moves made> <eval>` for every position.
            NBoardCommand::Analyze => {
                let positions = self.game.positions().to_vec();
                play.analyze(positions, self.levels, self.listener());
            }
            NBoardCommand::Clear => play.clear(),
            NBoardCommand::Quit => {}
        }
    }

    /// A listener that writes a request's progress as NBoard's lines.
    fn listener(&self) -> Listener {
        let output = self.output.clone();
        Box::new(move |progress| match progress {
            Progress::Depth(report) => output.line(&search_line(report)),
            Progress::Moved(report, elapsed) => {
                output.line(&nodestats_line(report.nodes, elapsed));
                output.line(&move_line(report, elapsed));
            }
            Progress::Searched(nodes, elapsed) => output.line(&nodestats_line(nodes, elapsed)),
            Progress::Valued(moves_made, position, value) => {
                output.line(&analysis_line(moves_made, position, value))
            }
            Progress::Learned => output.line("learned"),
        })
    }

    /// `go`: the engine's move, as `===` once searched (a forced pass at once).
    fn go(&mut self, play: &mut Controller) {
        let think = Think {
            position: self.position(),
            levels: self.levels,
            budget: nboard_budget(&self.clocks, &self.game).map(|budget| TimeBudget {
                overhead: self.overhead,
                ..budget
            }),
        };
        if play.go(think, self.listener()) == Begun::Pass {
            self.output.line("=== PA");
        }
    }

    /// `hint <count>`: the best moves as `search` lines, then `nodestats`.
    fn hint(&mut self, count: i64, play: &mut Controller) {
        let listener = self.listener();
        if play.hint(self.position(), self.levels, count, listener) == Begun::Pass {
            self.output.line("search PA 0.00 0 0");
        }
    }
}
