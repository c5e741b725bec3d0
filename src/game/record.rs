//! The game record every face keeps (the protocol sessions, the match referee, GGF): a start
//! position and every move, passes included, with the mover, eval and time of each.

use crate::board::{Color, IllegalMove, Move, Position};

/// One move of the record, with what the protocol said about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordedMove {
    /// The move (a pass is a move).
    pub mv: Move,
    /// Who made it.
    pub color: Color,
    /// The mover's evaluation in discs, if the protocol gave one.
    pub eval: Option<f64>,
    /// Seconds the mover spent, if the protocol gave them.
    pub seconds: Option<f64>,
    /// True for a pass the server inferred (GTP's implicit passes), so `undo` removes it
    /// together with the move that implied it.
    pub inferred: bool,
}

/// A start position and the legal moves played from it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    positions: Vec<Position>,
    moves: Vec<RecordedMove>,
}

impl GameRecord {
    /// A game starting at `start`.
    pub fn new(start: Position) -> GameRecord {
        GameRecord {
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> Position {
        self.positions[0]
    }

    /// The position after the last move.
    pub fn current(&self) -> Position {
        self.positions[self.positions.len() - 1]
    }

    /// Every position of the game, the start first and the current one last.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// A record of `moves` played from `start`, each with its time when it has one; `None`
    /// at the first illegal move.
    pub fn replay(
        start: Position,
        moves: impl IntoIterator<Item = (Move, Option<f64>)>,
    ) -> Option<GameRecord> {
        let mut record = GameRecord::new(start);
        for (mv, seconds) in moves {
            record.play(mv, None, seconds).ok()?;
        }
        Some(record)
    }

    /// A game from the start as players write it down: squares run together or spaced
    /// (`f5d6c3`, `F5 D6 C3`), any case, passes written (`pa`, `pass`) or left out, as WTHOR
    /// and most transcripts leave them; the error names the first word that is not a legal
    /// move.
    pub fn from_transcript(text: &str) -> Result<GameRecord, String> {
        let compact: String = text
            .split_whitespace()
            .collect::<String>()
            .to_ascii_lowercase();
        let mut record = GameRecord::new(Position::start());
        let mut rest = compact.as_str();
        while !rest.is_empty() {
            let length = if rest.starts_with("pass") {
                4
            } else if rest.starts_with("pa") {
                2
            } else {
                rest.char_indices().nth(2).map_or(rest.len(), |(i, _)| i)
            };
            let (word, after) = rest.split_at(length);
            let number = record.moves().iter().filter(|m| !m.inferred).count() + 1;
            let mv: Move = word
                .parse()
                .map_err(|_| format!("move {number} '{word}' is not a move"))?;
            if mv != Move::Pass && record.current().must_pass() {
                record
                    .play_inferred_pass()
                    .map_err(|_| format!("move {number} ({word}) comes after the game's end"))?;
            }
            record
                .play(mv, None, None)
                .map_err(|_| format!("move {number} ({word}) is illegal there"))?;
            rest = after;
        }
        Ok(record)
    }

    /// How many moves (passes included) `color` has made.
    pub fn moves_by(&self, color: Color) -> u32 {
        self.moves.iter().filter(|m| m.color == color).count() as u32
    }

    /// The moves so far.
    pub fn moves(&self) -> &[RecordedMove] {
        &self.moves
    }

    /// Plays `mv` with its annotations; an illegal move changes nothing.
    pub fn play(
        &mut self,
        mv: Move,
        eval: Option<f64>,
        seconds: Option<f64>,
    ) -> Result<(), IllegalMove> {
        self.push(mv, eval, seconds, false)
    }

    /// Plays a pass the protocol implied (see [`RecordedMove::inferred`]).
    pub fn play_inferred_pass(&mut self) -> Result<(), IllegalMove> {
        self.push(Move::Pass, None, None, true)
    }

    fn push(
        &mut self,
        mv: Move,
        eval: Option<f64>,
        seconds: Option<f64>,
        inferred: bool,
    ) -> Result<(), IllegalMove> {
        let before = self.current();
        let after = before.play(mv)?;
        self.moves.push(RecordedMove {
            mv,
            color: before.side_to_move(),
            eval,
            seconds,
            inferred,
        });
        self.positions.push(after);
        Ok(())
    }

    /// Takes back the last move and any inferred passes before it; false if there is none.
    pub fn undo(&mut self) -> bool {
        if self.moves.is_empty() {
            return false;
        }
        self.pop();
        while self.moves.last().is_some_and(|m| m.inferred) {
            self.pop();
        }
        true
    }

    fn pop(&mut self) {
        self.moves.pop();
        self.positions.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcripts_read_with_or_without_passes() {
        let record = GameRecord::from_transcript("f5 D6c3\nd3").expect("legal");
        assert_eq!(record.moves().len(), 4);
        // A game with passes (the last legal move each time), written without them.
        let mut full = GameRecord::new(Position::start());
        while !full.current().is_game_over() {
            let p = full.current();
            let mv = p
                .legal_squares()
                .last()
                .copied()
                .map_or(Move::Pass, Move::Play);
            full.play(mv, None, None).unwrap();
        }
        let passes = full.moves().iter().filter(|m| m.mv == Move::Pass).count();
        assert!(passes > 0, "the line has a pass");
        let transcript: String = full
            .moves()
            .iter()
            .filter(|m| m.mv != Move::Pass)
            .map(|m| m.mv.to_string())
            .collect();
        let read = GameRecord::from_transcript(&transcript).expect("legal");
        assert_eq!(read.positions(), full.positions());
        assert_eq!(read.moves().iter().filter(|m| m.inferred).count(), passes);
        let wipeout = "e6f4e3f6g5d6e7f5c5";
        let game = GameRecord::from_transcript(wipeout).expect("legal");
        assert!(game.current().is_game_over());
        assert!(GameRecord::from_transcript("f5f5").is_err());
        assert_eq!(
            GameRecord::from_transcript("f5 zz").err().as_deref(),
            Some("move 2 'zz' is not a move")
        );
        assert_eq!(
            GameRecord::from_transcript(&format!("{wipeout}a1"))
                .err()
                .as_deref(),
            Some("move 10 (a1) comes after the game's end")
        );
        // A pass written out is taken as it is.
        let start = Position::start();
        assert!(start.play(Move::Pass).is_err());
        assert!(GameRecord::from_transcript("pa").is_err());
    }
}
