//! What the two models share: a line's text and numbers as the servers read them, and a game
//! record with its inferred passes.

use othello_engine::board::{Color, Move, Position};

/// The text of a line as the server reads it: invalid UTF-8 replaced, the line end dropped.
pub fn decoded(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    text.trim_end_matches('\n')
        .trim_end_matches('\r')
        .to_string()
}

/// `[+-]?[0-9]+` as an i64.
pub fn integer(token: &str) -> Option<i64> {
    let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// `[+-]?[0-9]*(\.[0-9]*)?` as a number (no exponent, no `inf`).
pub fn decimal(token: &str) -> Option<f64> {
    let body = token.strip_prefix(['+', '-']).unwrap_or(token);
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) {
        return None;
    }
    token.parse().ok()
}

pub fn colour(token: &str) -> Option<Color> {
    match token.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

/// A game as a server keeps it: positions, and which moves were inferred passes.
#[derive(Clone, Debug)]
pub struct Record {
    positions: Vec<Position>,
    inferred: Vec<bool>,
}

impl Record {
    pub fn new(start: Position) -> Record {
        Record {
            positions: vec![start],
            inferred: Vec::new(),
        }
    }

    /// The position now.
    pub fn current(&self) -> Position {
        self.positions[self.positions.len() - 1]
    }

    pub fn push(&mut self, mv: Move, inferred: bool) -> bool {
        match self.current().play(mv) {
            Ok(next) => {
                self.positions.push(next);
                self.inferred.push(inferred);
                true
            }
            Err(_) => false,
        }
    }

    pub fn undo(&mut self) -> bool {
        if self.inferred.is_empty() {
            return false;
        }
        self.positions.pop();
        self.inferred.pop();
        while self.inferred.last() == Some(&true) {
            self.positions.pop();
            self.inferred.pop();
        }
        true
    }

    /// Moves played, passes included.
    pub fn moves(&self) -> usize {
        self.inferred.len()
    }
}
