//! NBoard commands: the grammar (nom) and the typed commands it gives.

use crate::game::notation::{MoveItem, integer, move_item};
use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::bytes::complete::take_till1;
use nom::character::complete::{space0, space1};
use nom::combinator::{all_consuming, map, map_res, rest, value};
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};

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
    /// `set ponder on|off` (our extension): think on the opponent's time after each move.
    SetPonder(bool),
    /// `set move-overhead <seconds>` (our extension): the GUI's delay per move, kept back on
    /// every move.
    SetMoveOverhead(std::time::Duration),
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
                preceded(
                    (tag("set"), space1, tag("ponder"), space1),
                    alt((value(true, tag("on")), value(false, tag("off")))),
                ),
                NBoardCommand::SetPonder,
            ),
            map_res(
                preceded(
                    (tag("set"), space1, tag("move-overhead"), space1),
                    take_till1(|c: char| c.is_whitespace()),
                ),
                |s: &str| crate::search::parse_move_overhead(s).map(NBoardCommand::SetMoveOverhead),
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
        assert_eq!(
            parse_command("set ponder on"),
            Some(NBoardCommand::SetPonder(true))
        );
        assert_eq!(
            parse_command("set ponder off"),
            Some(NBoardCommand::SetPonder(false))
        );
        assert_eq!(parse_command("set ponder maybe"), None);
        assert_eq!(
            parse_command("set move-overhead 0.15"),
            Some(NBoardCommand::SetMoveOverhead(
                std::time::Duration::from_millis(150)
            ))
        );
        assert_eq!(parse_command("set move-overhead -1"), None);
        assert_eq!(parse_command("set move-overhead 1e9"), None);
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
