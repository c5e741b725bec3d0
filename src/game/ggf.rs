//! GGF games, read and written: NBoard's `set game` (set-up board, moves with explicit passes,
//! clocks) and the records the match runner writes (`--ggf`) and sends NBoard engines.

use super::clock::GgfClock;
use super::ggf_date::parse_ggf_date;
use super::notation::move_item;
use super::record::GameRecord;
use crate::board::{Color, Position};
use nom::bytes::complete::{tag, take_till, take_while1};
use nom::character::complete::{char, digit1, multispace0};
use nom::combinator::opt;
use nom::multi::many0;
use nom::sequence::{delimited, preceded, terminated};
use nom::{IResult, Parser};
use std::fmt::Write as _;

/// A game read from GGF.
#[derive(Clone, Debug, PartialEq)]
pub struct GgfGame {
    /// The set-up position and the moves played from it.
    pub record: GameRecord,
    /// Black's clock, then White's, when the game has one.
    pub clocks: [Option<GgfClock>; 2],
    /// Black's name, then White's (`PB`, `PW`), empty when the game gives none.
    pub players: [String; 2],
    /// When the game was played (`DT`), in Unix seconds, when it says in a form we read
    /// ([`super::ggf_date::parse_ggf_date`]).
    pub date: Option<i64>,
    /// What the reader left out, one line each (a clock or date in a form it does not read):
    /// the game stands without it.
    pub skipped: Vec<String>,
}

/// Why a GGF text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgfError(pub String);

fn property(input: &str) -> IResult<&str, (&str, &str)> {
    preceded(
        multispace0,
        (
            take_while1(|c: char| c.is_ascii_uppercase()),
            delimited(char('['), take_till(|c| c == ']'), char(']')),
        ),
    )
    .parse(input)
}

fn game(input: &str) -> IResult<&str, Vec<(&str, &str)>> {
    preceded(
        (multispace0, opt((digit1, multispace0)), tag("(;")),
        terminated(many0(property), (multispace0, tag(";)"))),
    )
    .parse(input)
}

/// The `BO` value: `8 <64 cells, blanks allowed> <side>`.
fn board(value: &str) -> Result<Position, GgfError> {
    let bad = |why: &str| GgfError(format!("bad BO '{value}': {why}"));
    let rest = value
        .trim_start()
        .strip_prefix('8')
        .filter(|r| r.starts_with(char::is_whitespace))
        .ok_or_else(|| bad("only 8x8 boards are played"))?;
    let symbols: Vec<char> = rest.chars().filter(|c| !c.is_whitespace()).collect();
    if symbols.len() != 65 {
        return Err(bad("expected 64 squares and the side to move"));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (i, c) in symbols[..64].iter().enumerate() {
        match c {
            '*' | 'x' | 'X' | 'b' | 'B' => black |= 1 << i,
            'O' | 'o' | '0' | 'w' | 'W' => white |= 1 << i,
            '-' | '.' | '_' => {}
            _ => return Err(bad("unknown square symbol")),
        }
    }
    let side = match symbols[64] {
        '*' | 'x' | 'X' | 'b' | 'B' => Color::Black,
        'O' | 'o' | '0' | 'w' | 'W' => Color::White,
        _ => return Err(bad("unknown side to move")),
    };
    Position::from_colors(black, white, side).ok_or_else(|| bad("impossible position"))
}

/// Reads one GGF game; every move must be legal (passes explicit), or nothing is returned.
pub fn parse_ggf(text: &str) -> Result<GgfGame, GgfError> {
    let (_, properties) = game(text).map_err(|_| GgfError("not a GGF game".into()))?;
    let mut start = Position::start();
    let mut clocks = [None, None];
    let mut players = [String::new(), String::new()];
    let mut date = None;
    let mut skipped = Vec::new();
    for &(name, value) in &properties {
        match name {
            "PB" => players[0] = value.trim().to_string(),
            "PW" => players[1] = value.trim().to_string(),
            "GM" if !value.trim().eq_ignore_ascii_case("othello") => {
                return Err(GgfError(format!("unsupported game '{value}'")));
            }
            "BO" => start = board(value)?,
            "TI" => match GgfClock::parse(value) {
                Some(clock) => clocks = [Some(clock), Some(clock)],
                None => skipped.push(format!("clock TI[{value}] not read: left out")),
            },
            "TB" | "TW" if GgfClock::parse(value).is_none() => {
                skipped.push(format!("clock {name}[{value}] not read: left out"));
            }
            "DT" => match parse_ggf_date(value) {
                Some(seconds) => date = Some(seconds),
                None => skipped.push(format!("date DT[{value}] not read: left out")),
            },
            _ => {}
        }
    }
    // A TI after TB/TW would overwrite them, so the individual clocks are applied last.
    for &(name, value) in &properties {
        let slot = match name {
            "TB" => 0,
            "TW" => 1,
            _ => continue,
        };
        if let Some(clock) = GgfClock::parse(value) {
            clocks[slot] = Some(clock);
        }
    }
    let mut record = GameRecord::new(start);
    for &(name, value) in &properties {
        if name != "B" && name != "W" {
            continue;
        }
        let item = match move_item(value.trim()) {
            Ok((_, item)) => item,
            Err(_) => return Err(GgfError(format!("bad move {name}[{value}]"))),
        };
        // GGF writes every pass, so each element must be the side to move's.
        let mover = if name == "B" {
            Color::Black
        } else {
            Color::White
        };
        if record.current().side_to_move() != mover {
            return Err(GgfError(format!(
                "move {name}[{value}] out of turn: {} is to move",
                match mover {
                    Color::Black => "White",
                    Color::White => "Black",
                }
            )));
        }
        record
            .play(item.mv, item.eval, item.seconds)
            .map_err(|_| GgfError(format!("illegal move {name}[{value}]")))?;
    }
    Ok(GgfGame {
        record,
        clocks,
        players,
        date,
        skipped,
    })
}

/// Every game of a GGF text (GGS and NBoard save many to a file, each `(;...;)`, often one
/// a line with a number or other words between them), each read by [`parse_ggf`] or refused
/// with its reason; a text without a game is one error.
pub fn parse_ggf_games(text: &str) -> Vec<Result<GgfGame, GgfError>> {
    let mut games = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("(;") {
        let body = &rest[start..];
        let Some(end) = body.find(";)") else {
            games.push(Err(GgfError("a game without its end ';)'".into())));
            break;
        };
        games.push(parse_ggf(&body[..end + 2]));
        rest = &body[end + 2..];
    }
    if games.is_empty() {
        games.push(Err(GgfError("no GGF game '(;...;)' in it".into())));
    }
    games
}

/// A GGF tag value: GGF has no escapes, so `]` cannot appear.
pub fn tag_value(text: &str) -> String {
    text.replace(']', ")")
}

/// The `BO` value: `8`, 64 cells (`*` black, `O` white, `-` empty) and the side to move (the
/// OBF form with black written `*`).
pub fn board_text(position: &Position) -> String {
    format!("8 {}", position.to_obf().replace('X', "*"))
}

/// `record` in GGF: `(;GM[Othello]PC[place]`, `tags` as given (`XX[...]` each), `TY` and the
/// start board, every move as `B[F5]` (passes `PA`), with its eval `B[F5/-1.50]` when the record
/// has one and its time `B[F5//1.234]` when it has one and `with_times`, then `trailer` tags
/// and `;)`. [`parse_ggf`] reads it back.
pub fn write_game(
    record: &GameRecord,
    place: &str,
    tags: &str,
    with_times: bool,
    trailer: &str,
) -> String {
    let mut out = format!(
        "(;GM[Othello]PC[{}]{tags}TY[8]BO[{}]",
        tag_value(place),
        board_text(&record.start())
    );
    for m in record.moves() {
        let tag = match m.color {
            Color::Black => 'B',
            Color::White => 'W',
        };
        let text = m.mv.to_string().to_ascii_uppercase();
        let eval = m.eval.map_or(String::new(), |e| format!("{e:.2}"));
        let _ = match m.seconds.filter(|_| with_times) {
            Some(t) => write!(out, "{tag}[{text}/{eval}/{t:.3}]"),
            None if m.eval.is_some() => write!(out, "{tag}[{text}/{eval}]"),
            None => write!(out, "{tag}[{text}]"),
        };
    }
    out.push_str(trailer);
    out.push_str(";)");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Move;

    const START: &str = "BO[8 ---------------------------O*------*O--------------------------- *]";

    #[test]
    fn reads_nboard_games() {
        let text = format!(
            "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]{START}B[F5]W[F6//1.5]B[D3/2.00/0.5];)"
        );
        let game = parse_ggf(&text).map_err(|e| e.0);
        let game = game.as_ref();
        assert_eq!(game.map(|g| g.record.moves().len()), Ok(3));
        assert_eq!(game.map(|g| g.clocks[1].map(|c| c.main)), Ok(Some(900.0)));
        // NBoard's date, read as UTC: 2014-02-21 20:52:27.
        assert_eq!(game.map(|g| g.date), Ok(Some(1_393_015_947)));
        assert_eq!(game.map(|g| g.skipped.len()), Ok(0));
    }

    #[test]
    fn clocks_and_dates_in_forms_not_read_are_left_out_and_said() {
        let text = format!(
            "(;GM[Othello]DT[yesterday]TI[abc]TW[x]PB[a]PW[b]TY[8]{START}B[F5]W[F6//1.5];)"
        );
        let game = parse_ggf(&text).map_err(|e| e.0);
        let game = game.as_ref();
        assert_eq!(game.map(|g| g.record.moves().len()), Ok(2));
        assert_eq!(game.map(|g| g.clocks), Ok([None, None]));
        assert_eq!(game.map(|g| g.date), Ok(None));
        assert_eq!(
            game.map(|g| g.skipped.clone()),
            Ok(vec![
                "date DT[yesterday] not read: left out".to_string(),
                "clock TI[abc] not read: left out".to_string(),
                "clock TW[x] not read: left out".to_string(),
            ])
        );
        // GGS's own date form, in its zone (MST, UTC-7).
        let text = format!("(;GM[Othello]DT[2003.12.15_12:33:18.MST]TY[8]{START};)");
        let date = parse_ggf(&text).map(|g| g.date).map_err(|e| e.0);
        assert_eq!(date, Ok(Some(1_071_516_798)));
    }

    #[test]
    fn written_games_read_back_the_same() {
        // A set-up start, moves with and without times, a pass: written, then read again.
        let start = Position::from_colors(0b1, 0b10, Color::White).unwrap();
        let mut record = GameRecord::new(start);
        record.play(Move::Pass, None, None).unwrap();
        let c1: Move = "c1".parse().unwrap();
        record.play(c1, None, Some(1.25)).unwrap();
        let tags = "PB[a]PW[b]TI[1:00/0:01]";
        let text = write_game(&record, "here", tags, true, "CO[done]");
        assert_eq!(
            text,
            format!(
                "(;GM[Othello]PC[here]{tags}TY[8]BO[{}]W[PA]B[C1//1.250]CO[done];)",
                board_text(&start)
            )
        );
        let read = parse_ggf(&text).map_err(|e| e.0);
        let read = read.as_ref().expect("our own GGF reads back");
        assert_eq!(read.record, record);
        assert_eq!(
            read.clocks[0].map(|c| (c.main, c.increment)),
            Some((60.0, 1.0))
        );
        // Without times the moves alone come back.
        let bare = parse_ggf(&write_game(&record, "here", "", false, "")).map_err(|e| e.0);
        let moves = bare.map(|g| {
            g.record
                .moves()
                .iter()
                .map(|m| (m.mv, m.seconds))
                .collect::<Vec<_>>()
        });
        assert_eq!(moves, Ok(vec![(Move::Pass, None), (c1, None)]));
    }

    #[test]
    fn a_file_of_many_games_reads_game_by_game() {
        let one = format!("(;GM[Othello]PB[Ann]PW[Bo]{START}B[F5]W[D6/-1.25];)");
        let bad = format!("(;GM[Othello]{START}B[A1];)");
        let text = format!("1 {one}\n2 {bad}\n3 {one}\n");
        let games = parse_ggf_games(&text);
        assert_eq!(games.len(), 3);
        let first = games[0].as_ref().expect("a good game");
        assert_eq!(first.players, ["Ann".to_string(), "Bo".to_string()]);
        assert_eq!(first.record.moves()[1].eval, Some(-1.25));
        assert!(games[1].is_err() && games[2].is_ok());
        // Written back with the evals, and read again.
        let written = write_game(&first.record, "here", "", false, "");
        assert!(written.contains("B[F5]W[D6/-1.25]"), "{written}");
        assert_eq!(
            parse_ggf(&written).map(|g| g.record),
            Ok(first.record.clone())
        );
        assert_eq!(parse_ggf_games("no games here").len(), 1);
        assert!(parse_ggf_games("(;GM[Othello]").iter().all(Result::is_err));
    }

    #[test]
    fn refuses_bad_games() {
        assert!(parse_ggf("(;GM[Go];)").is_err());
        assert!(parse_ggf(&format!("(;{START}B[A1];)")).is_err());
        assert!(parse_ggf(&format!("(;{START}B[PA];)")).is_err());
        // Both moves tagged Black: the second is White's turn.
        assert!(parse_ggf(&format!("(;GM[Othello]{START}B[F5]B[D6];)")).is_err());
        assert!(parse_ggf(&format!("(;GM[Othello]{START}W[F5];)")).is_err());
        // The shortest wipe-out (nine moves); nothing may follow the end, not even passes.
        let wipeout = "B[E6]W[F4]B[E3]W[F6]B[G5]W[D6]B[E7]W[F5]B[C5]";
        let over = parse_ggf(&format!("(;GM[Othello]{START}{wipeout};)")).map_err(|e| e.0);
        assert_eq!(over.map(|g| g.record.current().is_game_over()), Ok(true));
        assert!(parse_ggf(&format!("(;GM[Othello]{START}{wipeout}W[PA];)")).is_err());
        assert!(parse_ggf(&format!("(;GM[Othello]{START}{wipeout}W[PA]B[PA];)")).is_err());
        assert!(parse_ggf("(;BO[8 ---];)").is_err());
        assert!(parse_ggf("nonsense").is_err());
        let spaced = "1 (;GM[Othello]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[d3//0.01];)";
        let game = parse_ggf(spaced).map_err(|e| e.0);
        assert_eq!(
            game.map(|g| g.record.moves().first().map(|m| m.mv)),
            Ok("d3".parse::<Move>().ok())
        );
    }
}
