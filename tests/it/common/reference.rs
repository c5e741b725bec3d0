//! A deliberately simple second implementation of the rules, for differential tests only:
//! a 10x10 array with a border, walked one direction at a time.

use othello_engine::board::{Color, Position};

const BORDER: i8 = 2;
const EMPTY: i8 = 0;
const BLACK: i8 = 1;
const WHITE: i8 = -1;
const DIRECTIONS: [isize; 8] = [-11, -10, -9, -1, 1, 9, 10, 11];

/// Index of square `sq` (0..64, a1 = 0) in the 10x10 array.
fn cell(sq: usize) -> usize {
    (sq / 8 + 1) * 10 + sq % 8 + 1
}

/// A position in the 10x10 representation.
#[derive(Clone, Debug)]
pub struct MailboxBoard {
    cells: [i8; 100],
    to_move: i8,
}

impl MailboxBoard {
    pub fn from_position(p: &Position) -> MailboxBoard {
        let mut cells = [BORDER; 100];
        let black = p.discs(Color::Black);
        let white = p.discs(Color::White);
        for sq in 0..64 {
            let bit = 1u64 << sq;
            cells[cell(sq)] = if black & bit != 0 {
                BLACK
            } else if white & bit != 0 {
                WHITE
            } else {
                EMPTY
            };
        }
        let to_move = if p.side_to_move() == Color::Black {
            BLACK
        } else {
            WHITE
        };
        MailboxBoard { cells, to_move }
    }

    /// The discs flipped by the side to move playing on `sq` (0..64), as a bitboard.
    pub fn flips(&self, sq: usize) -> u64 {
        let start = cell(sq);
        if self.cells[start] != EMPTY {
            return 0;
        }
        let mut result = 0u64;
        for d in DIRECTIONS {
            let mut run = Vec::new();
            let mut at = (start as isize + d) as usize;
            while self.cells[at] == -self.to_move {
                run.push(at);
                at = (at as isize + d) as usize;
            }
            if self.cells[at] == self.to_move {
                for c in run {
                    let (rank, file) = (c / 10 - 1, c % 10 - 1);
                    result |= 1u64 << (rank * 8 + file);
                }
            }
        }
        result
    }

    /// The legal moves of the side to move, as a bitboard.
    pub fn legal_moves(&self) -> u64 {
        (0..64)
            .filter(|&sq| self.flips(sq) != 0)
            .fold(0, |acc, sq| acc | 1u64 << sq)
    }

    pub fn pass(&mut self) {
        self.to_move = -self.to_move;
    }

    pub fn is_game_over(&self) -> bool {
        let mut other = self.clone();
        other.pass();
        self.legal_moves() == 0 && other.legal_moves() == 0
    }

    /// Plays a move the caller knows to be legal.
    pub fn play(&mut self, sq: usize) {
        let f = self.flips(sq);
        for s in 0..64 {
            if f & (1u64 << s) != 0 {
                self.cells[cell(s)] = self.to_move;
            }
        }
        self.cells[cell(sq)] = self.to_move;
        self.pass();
    }

    fn count(&self, who: i8) -> i32 {
        self.cells.iter().filter(|&&c| c == who).count() as i32
    }

    /// Final score for the side to move, empties to the winner.
    pub fn final_score(&self) -> i32 {
        let own = self.count(self.to_move);
        let theirs = self.count(-self.to_move);
        let empty = self.count(EMPTY);
        if own > theirs {
            own - theirs + empty
        } else if own < theirs {
            own - theirs - empty
        } else {
            0
        }
    }

    /// Perft with the same convention as the engine's: a pass is a ply, a finished game one leaf.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if moves == 0 {
            if self.is_game_over() {
                return 1;
            }
            let mut next = self.clone();
            next.pass();
            return next.perft(depth - 1);
        }
        (0..64)
            .filter(|sq| moves & (1u64 << sq) != 0)
            .map(|sq| {
                let mut next = self.clone();
                next.play(sq);
                next.perft(depth - 1)
            })
            .sum()
    }
}
