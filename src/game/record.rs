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
