//! The page's game: a [`GameRecord`] with a redo list, played on the page's own thread so that
//! every click is answered at once, and described to the page as JSON ([`Game::state`]).

use crate::board::{Color, Move, Position, Square};
use crate::game::GameRecord;
use crate::game::ggf::{tag_value, write_game};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A game as the page shows it: moves played, moves taken back (redo), and the start position
/// (the standard start, or a position pasted as OBF).
#[wasm_bindgen]
pub struct Game {
    record: GameRecord,
    /// Moves taken back, the last taken back last: redo plays them again.
    undone: Vec<Move>,
}

/// What the page draws, as [`Game::state`] returns it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct State {
    /// 64 characters `a1`..`h8`: `X` black, `O` white, `-` empty.
    board: String,
    /// `black` or `white`.
    to_move: &'static str,
    /// The squares the side to move may play (none when it must pass).
    legal: Vec<String>,
    /// The last move (`PA` for a pass), if any.
    last: Option<String>,
    /// The discs the last move turned over.
    flipped: Vec<String>,
    black: u32,
    white: u32,
    /// The side to move has no move but the game goes on: it must pass.
    must_pass: bool,
    over: bool,
    /// The final disc difference for black (empties to the winner), once the game is over.
    score: Option<i32>,
    /// Moves played, passes included.
    moves: usize,
    can_undo: bool,
    can_redo: bool,
    /// The current position in OBF, what the engine is given.
    obf: String,
}

fn squares(bits: u64) -> Vec<String> {
    Square::all()
        .filter(|s| bits & s.bit() != 0)
        .map(|s| s.to_string())
        .collect()
}

/// The final disc difference for black, empties to the winner.
fn black_score(position: &Position) -> i32 {
    match position.side_to_move() {
        Color::Black => position.final_score(),
        Color::White => -position.final_score(),
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// A pasted position, checked beyond the OBF grammar: the side to move must have a disc on the
/// board, or the position cannot come from a game.
fn position_from_obf(text: &str) -> Result<Position, String> {
    let position: Position = text.parse().map_err(|e| format!("{e}"))?;
    let side = position.side_to_move();
    if position.disc_count(side) == 0 {
        let name = color_name(side);
        return Err(format!(
            "bad OBF position: {name} is to move but has no disc on the board"
        ));
    }
    Ok(position)
}

/// True when `text` reads as an attempt at OBF rather than a transcript: a first word of
/// board characters far longer than any move.
fn looks_like_obf(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    first.len() > 16 && first.chars().all(|c| "XxOo*-.".contains(c))
}

/// A game from a position (OBF: the board and the side to move) and the moves played from it,
/// if any, as [`Game::transcript`] writes them (`OBF` on a line, `c1d1...` on the next): passes
/// may be left out, as in a transcript from the start.
fn record_from_obf(text: &str) -> Result<GameRecord, String> {
    let mut words = text.split_whitespace();
    let board = words.next().unwrap_or_default();
    let side = words.next().unwrap_or_default();
    let mut record = GameRecord::new(position_from_obf(&format!("{board} {side}"))?);
    let moves: String = words.collect();
    for (i, word) in moves.as_bytes().chunks(2).enumerate() {
        let word = String::from_utf8_lossy(word);
        let mv: Move = word
            .parse()
            .map_err(|_| format!("move {} '{word}' after the position is not a move", i + 1))?;
        if mv != Move::Pass && record.current().must_pass() {
            // Cannot fail: the side to move has no move, so its pass is legal.
            let _ = record.play_inferred_pass();
        }
        record
            .play(mv, None, None)
            .map_err(|_| format!("move {} ({word}) after the position is illegal", i + 1))?;
    }
    Ok(record)
}

#[wasm_bindgen]
impl Game {
    /// A game from the standard start.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Game {
        Game {
            record: GameRecord::new(Position::start()),
            undone: Vec::new(),
        }
    }

    /// A game from pasted text: a position in OBF (64 squares and the side to move), with the
    /// moves played from it if any, or a transcript from the start (`f5d6c3...`, passes
    /// written or not). The error is one
    /// sentence saying what is wrong with it.
    pub fn parse(text: &str) -> Result<Game, JsError> {
        let text = text.trim();
        let record = if text.is_empty() {
            Err("nothing to read: paste a position (OBF) or a transcript such as f5d6c3".into())
        } else if looks_like_obf(text) {
            record_from_obf(text)
        } else {
            GameRecord::from_transcript(text)
                .map_err(|e| format!("not a transcript (f5d6c3...) nor a position (OBF): {e}"))
        };
        record
            .map(|record| Game {
                record,
                undone: Vec::new(),
            })
            .map_err(|e| JsError::new(&e))
    }

    /// Plays `mv` (a square such as `f5`, or `PA` to pass); an illegal or unreadable move is
    /// refused and changes nothing. A move other than the next one to redo clears the redo list.
    pub fn play(&mut self, mv: &str) -> Result<(), JsError> {
        let parsed: Move = mv
            .trim()
            .parse()
            .map_err(|_| JsError::new(&format!("'{mv}' is not a square (a1..h8) or PA")))?;
        self.record
            .play(parsed, None, None)
            .map_err(|_| JsError::new(&format!("{parsed} is not legal here")))?;
        if self.undone.last() == Some(&parsed) {
            self.undone.pop();
        } else {
            self.undone.clear();
        }
        Ok(())
    }

    /// Takes back the last move; false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(last) = self.record.moves().last().map(|m| m.mv) else {
            return false;
        };
        // Passes inferred from a pasted transcript go with the move before them.
        let inferred: Vec<Move> = self
            .record
            .moves()
            .iter()
            .rev()
            .skip(1)
            .take_while(|m| m.inferred)
            .map(|m| m.mv)
            .collect();
        self.record.undo();
        self.undone.push(last);
        self.undone.extend(inferred);
        true
    }

    /// Plays the last move taken back again; false when there is none.
    pub fn redo(&mut self) -> bool {
        let Some(mv) = self.undone.pop() else {
            return false;
        };
        if self.record.play(mv, None, None).is_err() {
            self.undone.clear();
            return false;
        }
        true
    }

    /// The current position in OBF.
    pub fn obf(&self) -> String {
        self.record.current().to_obf()
    }

    /// The whole state for drawing, as JSON (see `State` for the fields).
    pub fn state(&self) -> String {
        let position = self.record.current();
        let positions = self.record.positions();
        let last = self.record.moves().last();
        let flipped = match (last, positions.len()) {
            (Some(m), n) if n >= 2 => {
                let before = positions[n - 2];
                before.discs(m.color.opponent()) & position.discs(m.color)
            }
            _ => 0,
        };
        let over = position.is_game_over();
        let state = State {
            board: position.to_obf().chars().take(64).collect(),
            to_move: color_name(position.side_to_move()),
            legal: squares(position.legal_moves()),
            last: last.map(|m| m.mv.to_string()),
            flipped: squares(flipped),
            black: position.disc_count(Color::Black),
            white: position.disc_count(Color::White),
            must_pass: position.must_pass() && !over,
            over,
            score: over.then(|| black_score(&position)),
            moves: self.record.moves().len(),
            can_undo: !self.record.moves().is_empty(),
            can_redo: !self.undone.is_empty(),
            obf: position.to_obf(),
        };
        serde_json::to_string(&state).unwrap_or_default()
    }

    /// The moves as a transcript (`f5d6c3...`), passes left out as transcripts leave them;
    /// a game from a pasted position starts with that position's OBF and a newline.
    pub fn transcript(&self) -> String {
        let moves: String = self
            .record
            .moves()
            .iter()
            .filter(|m| m.mv != Move::Pass)
            .map(|m| m.mv.to_string())
            .collect();
        if self.record.start() == Position::start() {
            moves
        } else {
            format!("{}\n{moves}", self.record.start().to_obf())
        }
    }

    /// The game in GGF, as `othello-engine review` and NBoard read it: the players' names,
    /// the result once the game is over (black's disc difference), every move with its passes.
    pub fn ggf(&self, black: &str, white: &str) -> String {
        let position = self.record.current();
        let result = if position.is_game_over() {
            format!("{:+}", black_score(&position))
        } else {
            "?".to_string()
        };
        let tags = format!(
            "PB[{}]PW[{}]RE[{result}]",
            tag_value(black),
            tag_value(white)
        );
        write_game(&self.record, "othello-engine web", &tags, false, "")
    }
}
