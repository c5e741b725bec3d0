//! OBF position notation: 64 squares `a1`..`h8` as `X` (black), `O` (white) or `-` (empty),
//! a space, and the side to move; test files add `; MOVE:score` entries.

use super::{Color, Move, Position, Square};
use std::fmt;
use std::str::FromStr;

/// Why an OBF position or line could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ObfError {
    /// The board field does not have 64 characters.
    WrongLength(usize),
    /// A board character is not `X`, `*`, `O`, `-` or `.`.
    BadSquare { square: Square, found: char },
    /// Nothing follows the board.
    MissingSide,
    /// The side to move is not `X`, `*` or `O`.
    BadSide(String),
    /// A `MOVE:score` entry could not be read.
    BadEntry(String),
    /// Text follows the position where none may.
    Trailing(String),
}

impl fmt::Display for ObfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObfError::WrongLength(n) => write!(
                f,
                "bad OBF board: {n} characters where 64 are needed (a1..h8, then a space and the side to move)"
            ),
            ObfError::BadSquare { square, found } => write!(
                f,
                "bad OBF board: square {square} is '{found}', expected X or * (black), O (white), - or . (empty)"
            ),
            ObfError::MissingSide => {
                write!(f, "bad OBF position: the side to move (X or O) is missing")
            }
            ObfError::BadSide(s) => {
                write!(
                    f,
                    "bad OBF position: side to move '{s}', expected X (or *) or O"
                )
            }
            ObfError::BadEntry(s) => {
                write!(f, "bad OBF entry '{s}': expected MOVE:score such as G8:+18")
            }
            ObfError::Trailing(s) => write!(f, "bad OBF position: unexpected text '{s}' after it"),
        }
    }
}

impl std::error::Error for ObfError {}

/// One line of an OBF test file: a position and the listed moves with their exact scores,
/// best first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfLine {
    /// The position.
    pub position: Position,
    /// The scored moves as listed (may be empty).
    pub moves: Vec<(Move, i32)>,
}

/// Reads the board and side; returns the position and the text after the side.
fn parse_position_prefix(text: &str) -> Result<(Position, &str), ObfError> {
    let text = text.trim_start();
    let board_end = text.find(char::is_whitespace).unwrap_or(text.len());
    let board = &text[..board_end];
    let count = board.chars().count();
    if count != 64 {
        return Err(ObfError::WrongLength(count));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (square, c) in Square::all().zip(board.chars()) {
        let bit = square.bit();
        match c {
            'X' | 'x' | '*' => black |= bit,
            'O' | 'o' => white |= bit,
            '-' | '.' => {}
            found => return Err(ObfError::BadSquare { square, found }),
        }
    }
    let rest = text[board_end..].trim_start();
    let side_end = rest
        .find(|c: char| c.is_whitespace() || c == ';')
        .unwrap_or(rest.len());
    let side = match &rest[..side_end] {
        "" => return Err(ObfError::MissingSide),
        "X" | "x" | "*" => Color::Black,
        "O" | "o" => Color::White,
        other => return Err(ObfError::BadSide(other.to_string())),
    };
    let position = Position::from_colors(black, white, side).ok_or(ObfError::MissingSide)?;
    Ok((position, &rest[side_end..]))
}

/// Reads a line of an OBF file: the position, then any `; MOVE:score` entries.
pub fn parse_obf_line(line: &str) -> Result<ObfLine, ObfError> {
    let (position, rest) = parse_position_prefix(line)?;
    let rest = rest.trim();
    let mut moves = Vec::new();
    if rest.is_empty() {
        return Ok(ObfLine { position, moves });
    }
    let Some(entries) = rest.strip_prefix(';') else {
        return Err(ObfError::Trailing(rest.to_string()));
    };
    for entry in entries.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let bad = || ObfError::BadEntry(entry.to_string());
        let (mv, score) = entry.split_once(':').ok_or_else(bad)?;
        let mv: Move = mv.trim().parse().map_err(|_| bad())?;
        let score: i32 = score.trim().parse().map_err(|_| bad())?;
        if !(-64..=64).contains(&score) {
            return Err(bad());
        }
        moves.push((mv, score));
    }
    Ok(ObfLine { position, moves })
}

impl FromStr for Position {
    type Err = ObfError;

    /// Reads exactly an OBF position: 64 squares, white space, the side to move, and at most
    /// a trailing `;`.
    fn from_str(s: &str) -> Result<Position, ObfError> {
        let (position, rest) = parse_position_prefix(s)?;
        let rest = rest.trim();
        if !rest.is_empty() && rest != ";" {
            return Err(ObfError::Trailing(rest.to_string()));
        }
        Ok(position)
    }
}

impl Position {
    /// The OBF form: 64 characters `X`/`O`/`-`, a space, `X` or `O`.
    pub fn to_obf(&self) -> String {
        let black = self.discs(Color::Black);
        let white = self.discs(Color::White);
        let mut s: String = (0..64)
            .map(|i| {
                let bit = 1u64 << i;
                if black & bit != 0 {
                    'X'
                } else if white & bit != 0 {
                    'O'
                } else {
                    '-'
                }
            })
            .collect();
        s.push(' ');
        s.push(self.side_to_move().obf_char());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "---------------------------OX------XO--------------------------- X";

    #[test]
    fn start_position_round_trips() {
        let p: Position = START.parse().unwrap();
        assert_eq!(p, Position::start());
        assert_eq!(p.to_obf(), START);
        let star = START.replace('X', "*");
        assert_eq!(star.parse::<Position>().unwrap(), p);
    }

    #[test]
    fn reads_an_ffo_line() {
        let line = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; A4:-22;";
        let l = parse_obf_line(line).unwrap();
        assert_eq!(l.moves.len(), 3);
        assert_eq!(l.moves[0], (Move::Play("g8".parse().unwrap()), 18));
        assert_eq!(l.moves[2].1, -22);
        assert_eq!(l.position.empty_count(), 14);
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!("".parse::<Position>(), Err(ObfError::WrongLength(0)));
        assert_eq!(
            START[..63].parse::<Position>(),
            Err(ObfError::WrongLength(63))
        );
        let stray = START.replacen('-', "?", 1);
        assert!(matches!(
            stray.parse::<Position>(),
            Err(ObfError::BadSquare { found: '?', .. })
        ));
        assert_eq!(START[..64].parse::<Position>(), Err(ObfError::MissingSide));
        let bad_side = format!("{} Z", &START[..64]);
        assert_eq!(
            bad_side.parse::<Position>(),
            Err(ObfError::BadSide("Z".into()))
        );
        let trailing = format!("{START} extra");
        assert!(matches!(
            trailing.parse::<Position>(),
            Err(ObfError::Trailing(_))
        ));
        assert!(matches!(
            parse_obf_line(&format!("{START}; G8+18")),
            Err(ObfError::BadEntry(_))
        ));
    }
}
