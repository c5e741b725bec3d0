//! GTP version 2 with the Othello conventions: commands, and the session that answers them.

use super::Output;
use super::engine::Engine;
use crate::board::{Color, Move, Position};
use crate::game::GameRecord;
use crate::game::clock::{GtpClock, GtpTimeSettings, gtp_budget};
use crate::game::notation::{decimal, integer, word};
use crate::search::limits_for;
use crate::search::{Levels, SETTING_NAMES};
use nom::character::complete::{digit1, space0, space1};
use nom::combinator::{all_consuming, map_res, opt, rest};
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The commands we answer, as `list_commands` prints them.
pub const COMMANDS: [&str; 21] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "reg_genmove",
    "undo",
    "showboard",
    "final_score",
    "time_settings",
    "time_left",
    "set_game",
    "list_games",
    "othello-engine-levels",
    "othello-engine-set",
];

/// A GTP command with its arguments checked.
#[derive(Clone, Debug, PartialEq)]
pub enum GtpCommand {
    /// `protocol_version`.
    ProtocolVersion,
    /// `name`.
    Name,
    /// `version`.
    Version,
    /// `known_command <name>`.
    KnownCommand(String),
    /// `list_commands`.
    ListCommands,
    /// `quit`.
    Quit,
    /// `boardsize <n>`.
    BoardSize(i64),
    /// `clear_board`.
    ClearBoard,
    /// `komi <x>` (ignored: Othello has none).
    Komi,
    /// `play <colour> <move|pass>`.
    Play(Color, Move),
    /// `genmove <colour>`.
    GenMove(Color),
    /// `reg_genmove <colour>`: the move we would play, not played.
    RegGenMove(Color),
    /// `undo`.
    Undo,
    /// `showboard`.
    ShowBoard,
    /// `final_score`.
    FinalScore,
    /// `time_settings <main> <byo-yomi> <stones>`.
    TimeSettings(GtpTimeSettings),
    /// `time_left <colour> <seconds> <stones>`.
    TimeLeft(Color, GtpClock),
    /// `set_game <name>`.
    SetGame(String),
    /// `list_games`.
    ListGames,
    /// `othello-engine-levels`: the current level settings.
    ShowLevels,
    /// `othello-engine-set <setting> <value>` (setting one of [`SETTING_NAMES`]).
    SetLevel(String, String),
}

/// One input line: its id, and the command or why it was refused.
#[derive(Clone, Debug, PartialEq)]
pub struct GtpLine {
    /// The numeric id the controller gave, echoed in the reply.
    pub id: Option<u64>,
    /// The command, or the error message to answer with.
    pub command: Result<GtpCommand, String>,
}

/// Removes control characters but tab, turns tabs into spaces, drops comments: GTP's
/// preprocessing.
fn preprocess(line: &str) -> String {
    let without_comment = line.split('#').next().unwrap_or("");
    without_comment
        .chars()
        .filter(|c| !c.is_control() || *c == '\t')
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// `black`, `white`, `b` or `w` in any ASCII case. A whole word is compared: matching a prefix
/// without regard to case by Unicode rules could end inside a multi-byte letter.
fn color(input: &str) -> IResult<&str, Color> {
    map_res(word, |w: &str| {
        if w.eq_ignore_ascii_case("black") || w.eq_ignore_ascii_case("b") {
            Ok(Color::Black)
        } else if w.eq_ignore_ascii_case("white") || w.eq_ignore_ascii_case("w") {
            Ok(Color::White)
        } else {
            Err(())
        }
    })
    .parse(input)
}

fn gtp_move(input: &str) -> IResult<&str, Move> {
    map_res(word, |w: &str| w.parse::<Move>()).parse(input)
}

fn seconds(input: &str) -> IResult<&str, f64> {
    decimal
        .map_res(|s| {
            if s.is_finite() && s >= 0.0 {
                Ok(s)
            } else {
                Err(())
            }
        })
        .parse(input)
}

fn stones(input: &str) -> IResult<&str, u32> {
    map_res(integer, u32::try_from).parse(input)
}

/// Runs `parser` on the whole argument text.
fn arguments<'a, O>(
    args: &'a str,
    parser: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
    usage: &str,
) -> Result<O, String> {
    all_consuming(terminated(parser, space0))
        .parse(args)
        .map(|(_, o)| o)
        .map_err(|_| format!("syntax error: expected {usage}"))
}

fn no_arguments(args: &str, command: GtpCommand) -> Result<GtpCommand, String> {
    if args.is_empty() {
        Ok(command)
    } else {
        Err("syntax error: this command takes no arguments".into())
    }
}

fn command(name: &str, args: &str) -> Result<GtpCommand, String> {
    use GtpCommand as C;
    match name {
        "protocol_version" => no_arguments(args, C::ProtocolVersion),
        "name" => no_arguments(args, C::Name),
        "version" => no_arguments(args, C::Version),
        "known_command" => {
            arguments(args, word, "a command name").map(|w| C::KnownCommand(w.into()))
        }
        "list_commands" => no_arguments(args, C::ListCommands),
        "quit" => no_arguments(args, C::Quit),
        "boardsize" => arguments(args, integer, "a size").map(C::BoardSize),
        "clear_board" => no_arguments(args, C::ClearBoard),
        "komi" => arguments(args, decimal, "a number").map(|_| C::Komi),
        "play" => arguments(
            args,
            (terminated(color, space1), gtp_move),
            "a colour and a move, e.g. 'play black f5'",
        )
        .map(|(c, m)| C::Play(c, m)),
        "genmove" => arguments(args, color, "a colour").map(C::GenMove),
        "reg_genmove" => arguments(args, color, "a colour").map(C::RegGenMove),
        "undo" => no_arguments(args, C::Undo),
        "showboard" => no_arguments(args, C::ShowBoard),
        "final_score" => no_arguments(args, C::FinalScore),
        "time_settings" => arguments(
            args,
            (
                terminated(seconds, space1),
                terminated(seconds, space1),
                stones,
            ),
            "main time, byo-yomi time and stones",
        )
        .map(|(main, byo_yomi, stones)| {
            C::TimeSettings(GtpTimeSettings {
                main,
                byo_yomi,
                stones,
            })
        }),
        "time_left" => arguments(
            args,
            (
                terminated(color, space1),
                terminated(seconds, space1),
                stones,
            ),
            "a colour, seconds and stones",
        )
        .map(|(c, seconds, stones)| C::TimeLeft(c, GtpClock { seconds, stones })),
        "set_game" => arguments(args, rest, "a game name").map(|g| C::SetGame(g.trim().into())),
        "list_games" => no_arguments(args, C::ListGames),
        "othello-engine-levels" => no_arguments(args, C::ShowLevels),
        "othello-engine-set" => arguments(
            args,
            (terminated(word, space1), word),
            "a setting and a value",
        )
        .map(|(s, v)| C::SetLevel(s.into(), v.into())),
        _ => Err("unknown command".into()),
    }
}

fn id_and_name(input: &str) -> IResult<&str, (Option<&str>, &str)> {
    (opt(terminated(digit1, space1)), word).parse(input)
}

/// Parses one GTP line; `None` for a line with nothing to answer (blank or comment).
pub fn parse_line(line: &str) -> Option<GtpLine> {
    let text = preprocess(line);
    if text.is_empty() {
        return None;
    }
    let only_id = text.chars().all(|c| c.is_ascii_digit());
    let parsed = id_and_name(&text).ok().filter(|_| !only_id);
    let Some((args, (id, name))) = parsed else {
        return Some(GtpLine {
            id: text.parse::<u64>().ok(),
            command: Err("syntax error: no command".into()),
        });
    };
    let id = match id.map(str::parse::<u64>) {
        None => None,
        Some(Ok(id)) => Some(id),
        // An id we cannot echo would let the controller pair the reply with the wrong
        // command; refuse the line instead of running it.
        Some(Err(_)) => {
            return Some(GtpLine {
                id: None,
                command: Err("syntax error: id out of range (at most 2^64 - 1)".into()),
            });
        }
    };
    let args = preceded(space0::<&str, nom::error::Error<&str>>, rest)
        .parse(args)
        .map(|(_, a)| a)
        .unwrap_or(args);
    Some(GtpLine {
        id,
        command: command(name, args.trim()),
    })
}

/// A GTP session: the game, the clocks and the levels.
pub struct GtpSession {
    game: GameRecord,
    levels: Levels,
    time_settings: Option<GtpTimeSettings>,
    clocks: [Option<GtpClock>; 2],
    output: Output,
}

fn colour_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn clock_index(color: Color) -> usize {
    usize::from(color == Color::White)
}

impl GtpSession {
    /// A session at the start position with the command line's levels.
    pub fn new(levels: Levels, output: Output) -> GtpSession {
        GtpSession {
            game: GameRecord::new(Position::start()),
            levels,
            time_settings: None,
            clocks: [None, None],
            output,
        }
    }

    /// The current position.
    pub fn position(&self) -> Position {
        self.game.current()
    }

    /// Serves lines until `quit` or end of input.
    pub fn run(&mut self, engine: &mut Engine) {
        while let Some(line) = engine.next_line() {
            let Some(parsed) = parse_line(&line) else {
                continue;
            };
            let quit = parsed.command == Ok(GtpCommand::Quit);
            let reply = parsed
                .command
                .and_then(|command| self.execute(command, engine));
            self.respond(parsed.id, reply);
            if quit {
                break;
            }
        }
        engine.stop();
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
    pub fn execute(&mut self, command: GtpCommand, engine: &mut Engine) -> Result<String, String> {
        use GtpCommand as C;
        match command {
            C::ProtocolVersion => Ok("2".into()),
            C::Name => Ok("othello-engine".into()),
            C::Version => Ok(env!("CARGO_PKG_VERSION").into()),
            C::KnownCommand(name) => Ok(COMMANDS.contains(&name.as_str()).to_string()),
            C::ListCommands => Ok(COMMANDS.join("\n")),
            C::Quit | C::Komi => Ok(String::new()),
            C::BoardSize(8) => Ok(String::new()),
            C::BoardSize(_) => Err("unacceptable size".into()),
            C::ClearBoard => {
                self.game = GameRecord::new(Position::start());
                self.clocks = [None, None];
                if let Some(searcher) = engine.searcher() {
                    searcher.clear();
                }
                Ok(String::new())
            }
            C::Play(color, mv) => {
                let mut next = self.game.clone();
                infer_pass(&mut next, color)?;
                next.play(mv, None, None)
                    .map_err(|_| format!("illegal move: {mv}"))?;
                self.game = next;
                Ok(String::new())
            }
            C::GenMove(color) => self.genmove(color, true, engine),
            C::RegGenMove(color) => self.genmove(color, false, engine),
            C::Undo => {
                if self.game.undo() {
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
                self.time_settings = Some(settings);
                self.clocks = [None, None];
                Ok(String::new())
            }
            C::TimeLeft(color, clock) => {
                self.clocks[clock_index(color)] = Some(clock);
                Ok(String::new())
            }
            C::SetGame(name) if name.eq_ignore_ascii_case("othello") => Ok(String::new()),
            C::SetGame(_) => Err("unsupported game".into()),
            C::ListGames => Ok("Othello".into()),
            C::ShowLevels => Ok(self.levels.to_string()),
            C::SetLevel(name, setting) => {
                if !SETTING_NAMES.contains(&name.as_str()) {
                    return Err(format!(
                        "unknown setting '{name}' (known: {})",
                        SETTING_NAMES.join(", ")
                    ));
                }
                let mut levels = self.levels;
                levels.set(&name, &setting)?;
                self.levels = levels;
                Ok(String::new())
            }
        }
    }

    fn genmove(&mut self, color: Color, play: bool, engine: &mut Engine) -> Result<String, String> {
        let mut next = self.game.clone();
        if next.current().is_game_over() {
            // Controllers may ask after the end (GoGui does); a pass is the honest answer.
            return Ok("pass".into());
        }
        infer_pass(&mut next, color)?;
        let position = next.current();
        let started = Instant::now();
        let mv = if position.must_pass() {
            Move::Pass
        } else {
            let stop = Arc::new(AtomicBool::new(false));
            let budget = gtp_budget(self.time_settings, self.clocks[clock_index(color)]);
            let limits = limits_for(&position, budget, stop.clone());
            let levels = self.levels;
            engine.start(
                stop,
                Box::new(move |searcher| {
                    Some(searcher.think(&position, &levels, &limits, &mut |_| {}))
                }),
            );
            // `quit` must not wait for a long search: it stops it, this reply goes out with
            // the best move so far, then `quit` is answered in turn.
            let is_quit =
                |line: &str| parse_line(line).is_some_and(|l| l.command == Ok(GtpCommand::Quit));
            match engine.wait_interruptible(&is_quit) {
                Some(report) if position.is_legal(report.best_move) => report.best_move,
                _ => {
                    // Never answer an illegal move: fall back to the first legal one.
                    log::error!("the search gave no legal move; playing the first legal one");
                    position
                        .legal_squares()
                        .first()
                        .map_or(Move::Pass, |&sq| Move::Play(sq))
                }
            }
        };
        if play {
            next.play(mv, None, Some(started.elapsed().as_secs_f64()))
                .map_err(|_| format!("internal error: {mv} is illegal"))?;
            self.game = next;
            if let Some(settings) = self.time_settings {
                let index = clock_index(color);
                let clock = self.clocks[index].unwrap_or_else(|| settings.fresh_clock());
                self.clocks[index] = Some(settings.charge(clock, started.elapsed().as_secs_f64()));
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
            colour_name(position.side_to_move())
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ids_and_arguments() {
        let line = parse_line("12 play B f5");
        assert_eq!(line.as_ref().map(|l| l.id), Some(Some(12)));
        assert!(matches!(
            line.map(|l| l.command),
            Some(Ok(GtpCommand::Play(Color::Black, Move::Play(_))))
        ));
        assert_eq!(
            parse_line("genmove white # comment").map(|l| l.command),
            Some(Ok(GtpCommand::GenMove(Color::White)))
        );
        assert_eq!(parse_line("  # only a comment"), None);
        assert!(matches!(
            parse_line("play black z9").map(|l| l.command),
            Some(Err(_))
        ));
        assert!(matches!(
            parse_line("frobnicate").map(|l| l.command),
            Some(Err(_))
        ));
        assert!(matches!(
            parse_line("7").map(|l| (l.id, l.command.is_err())),
            Some((Some(7), true))
        ));
        assert_eq!(
            parse_line("time_settings 0 1 0").map(|l| l.command),
            Some(Ok(GtpCommand::TimeSettings(GtpTimeSettings {
                main: 0.0,
                byo_yomi: 1.0,
                stones: 0
            })))
        );
    }
}
