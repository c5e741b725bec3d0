//! GTP commands: the grammar (nom), the typed commands it gives, and the one table that
//! names them for `list_commands`, `known_command` and the parser.

use crate::board::{Color, Move};
use crate::game::clock::{GtpClock, GtpTimeSettings};
use crate::game::notation::{decimal, integer, on_off, word};
use crate::search::LevelSetting;
use nom::character::complete::{digit1, space0, space1};
use nom::combinator::{all_consuming, consumed, map_res, opt, rest};
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};

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
    /// `othello-engine-set <setting> <value>` (setting one of [`crate::search::SETTING_NAMES`]).
    SetLevel(LevelSetting),
    /// `othello-engine-book`: the book moves of the current position with their values,
    /// best first, so that a controller can tell whether `genmove` plays from the book.
    ShowBook,
    /// `othello-engine-threads <n>`: the threads of the next searches (1 to
    /// [`crate::search::MAX_THREADS`]).
    SetThreads(usize),
    /// `othello-engine-ponder on|off`: think on the opponent's time after each move.
    SetPonder(bool),
    /// `othello-engine-move-overhead <seconds>`: the controller's delay per move, kept back
    /// on every move (as `--move-overhead`).
    SetMoveOverhead(std::time::Duration),
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

/// How a command's arguments become the command, or the error to answer with.
type ArgumentParser = fn(&str) -> Result<GtpCommand, String>;

/// Every command we answer with the parser of its arguments: the one list that
/// `list_commands` prints (in this order), `known_command` consults and [`parse_line`]
/// dispatches on. A new command is a [`GtpCommand`] variant, a row here and its arm in the
/// session.
const TABLE: [(&str, ArgumentParser); 25] = {
    use GtpCommand as C;
    [
        ("protocol_version", |a| no_arguments(a, C::ProtocolVersion)),
        ("name", |a| no_arguments(a, C::Name)),
        ("version", |a| no_arguments(a, C::Version)),
        ("known_command", |a| {
            arguments(a, word, "a command name").map(|w| C::KnownCommand(w.into()))
        }),
        ("list_commands", |a| no_arguments(a, C::ListCommands)),
        ("quit", |a| no_arguments(a, C::Quit)),
        ("boardsize", |a| {
            arguments(a, integer, "a size").map(C::BoardSize)
        }),
        ("clear_board", |a| no_arguments(a, C::ClearBoard)),
        ("komi", |a| {
            arguments(a, decimal, "a number").map(|_| C::Komi)
        }),
        ("play", |a| {
            arguments(
                a,
                (terminated(color, space1), gtp_move),
                "a colour and a move, e.g. 'play black f5'",
            )
            .map(|(c, m)| C::Play(c, m))
        }),
        ("genmove", |a| {
            arguments(a, color, "a colour").map(C::GenMove)
        }),
        ("reg_genmove", |a| {
            arguments(a, color, "a colour").map(C::RegGenMove)
        }),
        ("undo", |a| no_arguments(a, C::Undo)),
        ("showboard", |a| no_arguments(a, C::ShowBoard)),
        ("final_score", |a| no_arguments(a, C::FinalScore)),
        ("time_settings", |a| {
            arguments(
                a,
                (
                    terminated(consumed(seconds), space1),
                    terminated(consumed(seconds), space1),
                    stones,
                ),
                "main time, byo-yomi time and stones",
            )
            .map(|((main_text, main), (byo_yomi_text, byo_yomi), stones)| {
                let whole = |text: &str| text.bytes().all(|b| b.is_ascii_digit());
                C::TimeSettings(GtpTimeSettings {
                    main,
                    byo_yomi,
                    stones,
                    whole_seconds: whole(main_text) && whole(byo_yomi_text),
                })
            })
        }),
        ("time_left", |a| {
            arguments(
                a,
                (
                    terminated(color, space1),
                    terminated(seconds, space1),
                    stones,
                ),
                "a colour, seconds and stones",
            )
            .map(|(c, seconds, stones)| C::TimeLeft(c, GtpClock { seconds, stones }))
        }),
        ("set_game", |a| {
            arguments(a, rest, "a game name").map(|g| C::SetGame(g.trim().into()))
        }),
        ("list_games", |a| no_arguments(a, C::ListGames)),
        ("othello-engine-levels", |a| no_arguments(a, C::ShowLevels)),
        ("othello-engine-set", |a| {
            arguments(a, (terminated(word, space1), word), "a setting and a value")
                .and_then(|(s, v)| LevelSetting::parse(s, v).map(C::SetLevel))
        }),
        ("othello-engine-book", |a| no_arguments(a, C::ShowBook)),
        ("othello-engine-threads", |a| {
            arguments(a, word, "a thread count")
                .and_then(|n| crate::search::parse_threads(n).map(C::SetThreads))
        }),
        ("othello-engine-ponder", |a| {
            arguments(a, word, "on or off").and_then(|v| on_off(v).map(C::SetPonder))
        }),
        ("othello-engine-move-overhead", |a| {
            arguments(a, word, "seconds")
                .and_then(|s| crate::search::parse_move_overhead(s).map(C::SetMoveOverhead))
        }),
    ]
};

/// The commands we answer, as `list_commands` prints them: the names of the table.
pub const COMMANDS: [&str; TABLE.len()] = {
    let mut names = [""; TABLE.len()];
    let mut i = 0;
    while i < TABLE.len() {
        names[i] = TABLE[i].0;
        i += 1;
    }
    names
};

/// The command `name` with its arguments `args`, by the table's parser for it.
fn command(name: &str, args: &str) -> Result<GtpCommand, String> {
    match TABLE.iter().find(|(known, _)| *known == name) {
        Some((_, parse)) => parse(args),
        None => Err("unknown command".into()),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Which variant a command is. The match is exhaustive, so a new command fails to compile
    /// here until it is counted, and then [`every_listed_name_is_a_command`] asks for its row.
    fn variant(command: &GtpCommand) -> usize {
        use GtpCommand as C;
        match command {
            C::ProtocolVersion => 0,
            C::Name => 1,
            C::Version => 2,
            C::KnownCommand(_) => 3,
            C::ListCommands => 4,
            C::Quit => 5,
            C::BoardSize(_) => 6,
            C::ClearBoard => 7,
            C::Komi => 8,
            C::Play(..) => 9,
            C::GenMove(_) => 10,
            C::RegGenMove(_) => 11,
            C::Undo => 12,
            C::ShowBoard => 13,
            C::FinalScore => 14,
            C::TimeSettings(_) => 15,
            C::TimeLeft(..) => 16,
            C::SetGame(_) => 17,
            C::ListGames => 18,
            C::ShowLevels => 19,
            C::SetLevel(_) => 20,
            C::ShowBook => 21,
            C::SetThreads(_) => 22,
            C::SetPonder(_) => 23,
            C::SetMoveOverhead(_) => 24,
        }
    }

    #[test]
    fn every_listed_name_is_a_command() {
        // Arguments that some command takes; each listed name must accept one of them.
        let samples = [
            "",
            "8",
            "black",
            "black f5",
            "0 1 0",
            "black 10 0",
            "othello",
            "on",
            "2",
            "level 4",
        ];
        let mut seen = [false; 25];
        for name in COMMANDS {
            let parsed = samples.iter().find_map(|args| {
                let line = parse_line(&format!("{name} {args}"))?;
                line.command.ok()
            });
            let Some(parsed) = parsed else {
                panic!("listed command '{name}' parses with none of the samples");
            };
            assert!(!seen[variant(&parsed)], "'{name}' gives a command twice");
            seen[variant(&parsed)] = true;
            // `known_command` and the parser agree.
            assert_ne!(command(name, "x y z"), Err("unknown command".into()));
        }
        // Every command the parser gives comes from a listed name.
        assert!(seen.iter().all(|&s| s), "a command is not listed: {seen:?}");
        assert_eq!(COMMANDS.len(), seen.len());
        for unlisted in ["frobnicate", "Genmove", "othello-engine", "help"] {
            assert_eq!(command(unlisted, ""), Err("unknown command".into()));
        }
    }

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
                stones: 0,
                whole_seconds: true,
            })))
        );
        // A script's referee tells fractions: its clock is not a GUI's.
        let Some(Ok(GtpCommand::TimeSettings(settings))) =
            parse_line("time_settings 0 0.100 1").map(|l| l.command)
        else {
            panic!("time_settings 0 0.100 1 is read");
        };
        assert_eq!(
            (settings.byo_yomi, settings.stones, settings.whole_seconds),
            (0.1, 1, false)
        );
    }
}
