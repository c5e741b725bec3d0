//! GGF games as NBoard's `set game` sends them: set-up board, moves with explicit passes, and
//! clocks.

use super::clock::GgfClock;
use super::game::GameRecord;
use super::parse::move_item;
use crate::board::{Color, Position};
use nom::bytes::complete::{tag, take_till, take_while1};
use nom::character::complete::{char, digit1, multispace0};
use nom::combinator::opt;
use nom::multi::many0;
use nom::sequence::{delimited, preceded, terminated};
use nom::{IResult, Parser};

/// A game read from GGF.
#[derive(Clone, Debug, PartialEq)]
pub struct GgfGame {
    /// The set-up position and the moves played from it.
    pub record: GameRecord,
    /// Black's clock, then White's, when the game has one.
    pub clocks: [Option<GgfClock>; 2],
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
    for &(name, value) in &properties {
        match name {
            "GM" if !value.trim().eq_ignore_ascii_case("othello") => {
                return Err(GgfError(format!("unsupported game '{value}'")));
            }
            "BO" => start = board(value)?,
            "TI" | "TB" | "TW" => {
                let clock = GgfClock::parse(value)
                    .ok_or_else(|| GgfError(format!("bad clock {name}[{value}]")))?;
                match name {
                    "TB" => clocks[0] = Some(clock),
                    "TW" => clocks[1] = Some(clock),
                    _ => clocks = [Some(clock), Some(clock)],
                }
            }
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
        clocks[slot] = GgfClock::parse(value);
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
    Ok(GgfGame { record, clocks })
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
