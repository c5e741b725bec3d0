//! nom parsers shared by the protocols: words, numbers and NBoard/GGF move items, and the
//! `on`/`off` switch users write.

use crate::board::Move;
use nom::branch::alt;
use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::{char, digit1, space0, space1};
use nom::combinator::{map_res, opt, recognize};
use nom::sequence::preceded;
use nom::{IResult, Parser};

/// A move as NBoard writes it in `move`, `===` and GGF `B[...]`: `MOVE[/EVAL[/TIME]]`, where
/// fields may also be separated by blanks and the eval may be empty.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveItem {
    /// The move.
    pub mv: Move,
    /// The mover's evaluation in discs.
    pub eval: Option<f64>,
    /// Seconds spent.
    pub seconds: Option<f64>,
}

/// A run of non-blank characters.
pub fn word(input: &str) -> IResult<&str, &str> {
    take_while1(|c: char| !c.is_whitespace()).parse(input)
}

/// A signed whole number.
pub fn integer(input: &str) -> IResult<&str, i64> {
    map_res(
        recognize((opt(alt((char('-'), char('+')))), digit1)),
        |s: &str| s.parse::<i64>(),
    )
    .parse(input)
}

/// A plain decimal (no exponent), as NBoard writes evals and times.
pub fn decimal(input: &str) -> IResult<&str, f64> {
    map_res(
        recognize((
            opt(alt((char('-'), char('+')))),
            take_while(|c: char| c.is_ascii_digit()),
            opt((char('.'), take_while(|c: char| c.is_ascii_digit()))),
        )),
        |s: &str| s.parse::<f64>(),
    )
    .parse(input)
}

fn move_token(input: &str) -> IResult<&str, Move> {
    map_res(
        take_while1(|c: char| c.is_ascii_alphanumeric() || c == '-'),
        |s: &str| s.parse::<Move>(),
    )
    .parse(input)
}

/// One separator between move item fields: `/` (with blanks around) or blanks.
fn separator(input: &str) -> IResult<&str, ()> {
    alt(((space0, char('/'), space0).map(|_| ()), space1.map(|_| ()))).parse(input)
}

/// An optional decimal field; an empty or unreadable field counts as absent.
fn optional_decimal(input: &str) -> IResult<&str, Option<f64>> {
    let (rest, text) = take_while(|c: char| c != '/' && !c.is_whitespace()).parse(input)?;
    Ok((
        rest,
        decimal(text)
            .ok()
            .filter(|(r, _)| r.is_empty())
            .map(|(_, v)| v),
    ))
}

/// Parses `MOVE[/EVAL[/TIME]]`.
pub fn move_item(input: &str) -> IResult<&str, MoveItem> {
    let (rest, mv) = move_token(input)?;
    let (rest, eval) = opt(preceded(separator, optional_decimal)).parse(rest)?;
    let (rest, seconds) = opt(preceded(separator, optional_decimal)).parse(rest)?;
    Ok((
        rest,
        MoveItem {
            mv,
            eval: eval.flatten(),
            seconds: seconds.flatten(),
        },
    ))
}

/// A switch as users write it: `on` or `off` (`--ponder`, GTP's `othello-engine-ponder`,
/// NBoard's `set ponder`).
pub fn on_off(text: &str) -> Result<bool, String> {
    match text.trim() {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("bad switch '{other}': expected on or off")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_items_in_every_spelling() {
        let item = |s: &str| move_item(s).map(|(_, m)| m).ok();
        let f5: Move = "f5".parse().unwrap_or(Move::Pass);
        assert_eq!(item("F5").map(|m| m.mv), Some(f5));
        assert_eq!(
            item("F5//2.449").map(|m| (m.eval, m.seconds)),
            Some((None, Some(2.449)))
        );
        assert_eq!(item("f5/-1.50/0.87").map(|m| m.eval), Some(Some(-1.5)));
        assert_eq!(item("d6 -1.00 0.0").map(|m| m.eval), Some(Some(-1.0)));
        assert_eq!(item("PA//3.107").map(|m| m.mv), Some(Move::Pass));
        assert_eq!(item("pass").map(|m| m.mv), Some(Move::Pass));
        assert!(item("z9").is_none());
        assert!(item("").is_none());
    }
}
