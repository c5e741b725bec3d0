//! The GTP session: the game, the clocks and the levels, and the answer to each command.

use super::command::{COMMANDS, GtpCommand, parse_line};
use crate::board::{Color, Move, Position};
use crate::game::GameRecord;
use crate::game::gtp_clocks::GtpClocks;
use crate::protocol::Output;
use crate::protocol::play::{Controller, Think};
use crate::search::{Levels, TimeBudget};
use std::time::Instant;

/// A GTP session: the game, the clocks and the levels.
pub struct GtpSession {
    game: GameRecord,
    levels: Levels,
    /// Both sides' clocks, as told and as charged.
    clocks: GtpClocks,
    output: Output,
}

impl GtpSession {
    /// A session at the start position with the command line's levels.
    pub fn new(levels: Levels, output: Output) -> GtpSession {
        GtpSession {
            game: GameRecord::new(Position::start()),
            levels,
            clocks: GtpClocks::default(),
            output,
        }
    }

    /// The controller's delay per move as the user told it (`--move-overhead`).
    pub fn set_overhead(&mut self, overhead: Option<std::time::Duration>) {
        self.clocks.set_overhead(overhead);
    }

    /// The current position.
    pub fn position(&self) -> Position {
        self.game.current()
    }

    /// Serves lines until `quit` or end of input.
    pub fn run(&mut self, play: &mut Controller) {
        while let Some(line) = play.next_line() {
            let Some(parsed) = parse_line(&line) else {
                continue;
            };
            let quit = parsed.command == Ok(GtpCommand::Quit);
            let reply = parsed
                .command
                .and_then(|command| self.execute(command, play));
            self.respond(parsed.id, reply);
            if quit {
                break;
            }
        }
        play.stop();
    }

    fn respond(&self, id: Option<u64>, reply: Result<String, String>) {
        let id = id.map(|i| i.to_string()).unwrap_or_default();
        let (mark, text) = match reply {
            Ok(text) => ('=', text),
            Err(text) => ('?', text),
        };
        // A blank line ends the reply, so none may appear inside it.
        let body: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let head = if body.is_empty() || text.starts_with('\n') {
            format!("{mark}{id}")
        } else {
            format!("{mark}{id} {}", body[0])
        };
        let skip = usize::from(!text.starts_with('\n') && !body.is_empty());
        let mut lines = vec![head];
        lines.extend(body.iter().skip(skip).map(|l| l.to_string()));
        lines.push(String::new());
        self.output.line(&lines.join("\n"));
    }

    /// Carries out one command; the text of the reply or of the error.
    pub fn execute(
        &mut self,
        command: GtpCommand,
        play: &mut Controller,
    ) -> Result<String, String> {
        use GtpCommand as C;
        match command {
            C::ProtocolVersion => Ok("2".into()),
            C::Name => Ok("othello-engine".into()),
            C::Version => Ok(crate::board::cpu::version_text().into()),
            C::KnownCommand(name) => Ok(COMMANDS.contains(&name.as_str()).to_string()),
            C::ListCommands => Ok(COMMANDS.join("\n")),
            C::Quit | C::Komi => Ok(String::new()),
            C::BoardSize(8) => Ok(String::new()),
            C::BoardSize(_) => Err("unacceptable size".into()),
            C::ClearBoard => {
                self.game = GameRecord::new(Position::start());
                self.clocks.restart();
                play.clear();
                Ok(String::new())
            }
            C::Play(color, mv) => {
                let mut next = self.game.clone();
                infer_pass(&mut next, color)?;
                next.play(mv, None, None)
                    .map_err(|_| format!("illegal move: {mv}"))?;
                self.game = next;
                play.position_changed(&self.position());
                Ok(String::new())
            }
            C::GenMove(color) => self.genmove(color, true, play),
            C::RegGenMove(color) => self.genmove(color, false, play),
            C::Undo => {
                if self.game.undo() {
                    play.position_changed(&self.position());
                    Ok(String::new())
                } else {
                    Err("cannot undo".into())
                }
            }
            C::ShowBoard => Ok(format!("\n{}", self.position())),
            C::FinalScore => {
                let position = self.position();
                if !position.is_game_over() {
                    return Err("cannot score: the game is not over".into());
                }
                let mut black = position.final_score();
                if position.side_to_move() == Color::White {
                    black = -black;
                }
                Ok(match black {
                    0 => "0".into(),
                    s if s > 0 => format!("B+{s}"),
                    s => format!("W+{}", -s),
                })
            }
            C::TimeSettings(settings) => {
                self.clocks.set(settings);
                Ok(String::new())
            }
            C::TimeLeft(color, clock) => {
                self.clocks.told(color, clock);
                Ok(String::new())
            }
            C::SetGame(name) if name.eq_ignore_ascii_case("othello") => Ok(String::new()),
            C::SetGame(_) => Err("unsupported game".into()),
            C::ListGames => Ok("Othello".into()),
            C::ShowLevels => Ok(self.levels.to_string()),
            C::SetLevel(setting) => {
                self.levels.apply(setting);
                Ok(String::new())
            }
            C::SetPonder(on) => {
                play.set_ponder(on);
                Ok(String::new())
            }
            C::SetMoveOverhead(overhead) => {
                self.clocks.set_overhead(Some(overhead));
                Ok(String::new())
            }
            C::SetThreads(threads) => {
                if let Some(searcher) = play.searcher() {
                    searcher.set_threads(threads);
                }
                Ok(String::new())
            }
            C::ShowBook => {
                let position = self.position();
                let reports = play
                    .searcher()
                    .and_then(|s| s.book_reports(&position))
                    .unwrap_or_default();
                if reports.is_empty() {
                    return Ok("not in the book".into());
                }
                let lines: Vec<String> = reports
                    .iter()
                    .map(|r| format!("{} {:+.2}", r.best_move, r.value.discs()))
                    .collect();
                Ok(lines.join("\n"))
            }
        }
    }

    /// `color`'s budget: its clock as the controller told it (or as charged since), with
    /// the lag measured on its moves.
    fn budget(&self, color: Color) -> Option<TimeBudget> {
        self.clocks.budget(color)
    }

    /// `genmove` (`reg_genmove` when not `playing`): the controller's move for `color`, played
    /// and charged to its clock when `playing`, then pondered on.
    fn genmove(
        &mut self,
        color: Color,
        playing: bool,
        play: &mut Controller,
    ) -> Result<String, String> {
        let mut next = self.game.clone();
        if next.current().is_game_over() {
            // Controllers may ask after the end (GoGui does); a pass is the honest answer.
            return Ok("pass".into());
        }
        infer_pass(&mut next, color)?;
        let started = Instant::now();
        let mut think = Think {
            position: next.current(),
            levels: self.levels,
            budget: self.budget(color),
        };
        // `quit` must not wait for a long search: it stops it, this reply goes out with the
        // best move so far, then `quit` is answered in turn.
        let is_quit =
            |line: &str| parse_line(line).is_some_and(|l| l.command == Ok(GtpCommand::Quit));
        let choice = play.genmove(think, &is_quit);
        let mv = choice.mv;
        if playing {
            next.play(mv, None, Some(started.elapsed().as_secs_f64()))
                .map_err(|_| format!("internal error: {mv} is illegal"))?;
            self.game = next;
            self.clocks.moved(color, started.elapsed());
            if let Some(report) = &choice.report {
                // The ponder thinks with the clock the engine's next move will have.
                think.budget = self.budget(color);
                play.ponder_after(report, think);
            }
        }
        Ok(match mv {
            Move::Pass => "pass".into(),
            Move::Play(sq) => sq.to_string(),
        })
    }
}

/// Makes `color` the side to move by a pass of the other side, when that side has no move;
/// an error when the other side could move.
fn infer_pass(game: &mut GameRecord, color: Color) -> Result<(), String> {
    let position = game.current();
    if position.is_game_over() {
        return Err("illegal move: the game is over".into());
    }
    if position.side_to_move() == color {
        return Ok(());
    }
    if position.must_pass() {
        game.play_inferred_pass()
            .map_err(|_| "internal error: the pass is illegal".to_string())
    } else {
        Err(format!(
            "wrong color: {} is to move",
            position.side_to_move()
        ))
    }
}
