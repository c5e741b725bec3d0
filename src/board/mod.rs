//! The rules of Othello: bitboard positions, legal moves, flips, passes, the end of the game,
//! symmetries, and the square and OBF notations.

mod bits;
pub mod cpu;
mod flips;
mod obf;
mod perft;
mod square;

#[cfg(target_arch = "x86_64")]
pub use bits::legal_moves_avx2;
pub use bits::{
    Bits, apply_symmetry, legal_moves, legal_moves_both, legal_moves_both_on, legal_moves_on,
};
#[cfg(target_arch = "x86_64")]
pub use bits::{has_avx2, has_bmi2};
pub use flips::{NEIGHBOURS, flips, last_flip_count};
#[cfg(target_arch = "x86_64")]
pub use flips::{flips_avx2, flips_avx512};
pub use obf::{ObfError, ObfLine, parse_obf_line};
pub use perft::{perft, perft_divide};
pub use square::{Move, MoveParseError, Square};

use std::fmt;

/// The most empty squares a position can have (the start has 60): the longest game in moves,
/// and so the deepest any search can usefully look.
pub const MAX_EMPTIES: u32 = 60;

/// The four corner squares `a1`, `h1`, `a8` and `h8`, as a bitboard.
pub const CORNERS: u64 = 0x8100_0000_0000_0081;

/// The final disc difference for `player` when the game ends with these discs, under the
/// standard rule: the empty squares go to the winner (none on a draw). The one definition:
/// [`Position::final_score`], the solver's leaves and the book's finished games all use it.
#[inline]
pub fn final_score(player: u64, opponent: u64) -> i32 {
    let own = player.count_ones() as i32;
    let theirs = opponent.count_ones() as i32;
    let empty = 64 - own - theirs;
    match own.cmp(&theirs) {
        std::cmp::Ordering::Greater => own - theirs + empty,
        std::cmp::Ordering::Less => own - theirs - empty,
        std::cmp::Ordering::Equal => 0,
    }
}

/// A side: black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// The first player (`X` in OBF, `*` in GGF).
    Black,
    /// The second player (`O`).
    White,
}

impl Color {
    /// The other side.
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for black, 1 for white: the index of a side in per-side arrays (clocks, counts).
    pub fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }

    /// `X` for black, `O` for white.
    pub fn obf_char(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// A move that the rules do not allow in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove(pub Move);

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Move::Pass => write!(f, "illegal move: cannot pass while a move is available"),
            Move::Play(sq) => write!(f, "illegal move: {sq}"),
        }
    }
}

impl std::error::Error for IllegalMove {}

/// A position: the discs of the side to move and of its opponent, and which colour moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    player: u64,
    opponent: u64,
    side: Color,
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The standard start: white on d4 and e5, black on e4 and d5, black to move.
    pub fn start() -> Position {
        let white = Square::from_file_rank(3, 3).map_or(0, Square::bit)
            | Square::from_file_rank(4, 4).map_or(0, Square::bit);
        let black = Square::from_file_rank(4, 3).map_or(0, Square::bit)
            | Square::from_file_rank(3, 4).map_or(0, Square::bit);
        Position {
            player: black,
            opponent: white,
            side: Color::Black,
        }
    }

    /// A position from the discs of each colour; `None` if a square holds both.
    pub fn from_colors(black: u64, white: u64, side: Color) -> Option<Position> {
        if black & white != 0 {
            return None;
        }
        Some(match side {
            Color::Black => Position {
                player: black,
                opponent: white,
                side,
            },
            Color::White => Position {
                player: white,
                opponent: black,
                side,
            },
        })
    }

    /// A position from the discs of the side to move and of the opponent, which must not overlap.
    pub fn from_player_opponent(player: u64, opponent: u64, side: Color) -> Position {
        debug_assert_eq!(player & opponent, 0);
        Position {
            player,
            opponent,
            side,
        }
    }

    /// The discs of the side to move.
    pub fn player(&self) -> u64 {
        self.player
    }

    /// The discs of the side not to move.
    pub fn opponent(&self) -> u64 {
        self.opponent
    }

    /// The colour to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The discs of one colour.
    pub fn discs(&self, color: Color) -> u64 {
        if color == self.side {
            self.player
        } else {
            self.opponent
        }
    }

    /// The number of discs of one colour.
    pub fn disc_count(&self, color: Color) -> u32 {
        self.discs(color).count_ones()
    }

    /// The empty squares.
    pub fn empty(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// The number of empty squares.
    pub fn empty_count(&self) -> u32 {
        self.empty().count_ones()
    }

    /// The legal moves of the side to move, as a bitboard.
    pub fn legal_moves(&self) -> u64 {
        legal_moves(self.player, self.opponent)
    }

    /// True when the side to move has no move (it must pass, or the game is over).
    pub fn must_pass(&self) -> bool {
        self.legal_moves() == 0
    }

    /// True when neither side can move.
    pub fn is_game_over(&self) -> bool {
        self.legal_moves() == 0 && legal_moves(self.opponent, self.player) == 0
    }

    /// True if `mv` is legal here; a pass is legal only when there is no other move and the
    /// game is not over (after the end nothing more may be played).
    pub fn is_legal(&self, mv: Move) -> bool {
        match mv {
            Move::Pass => self.must_pass() && !self.is_game_over(),
            Move::Play(sq) => self.legal_moves() & sq.bit() != 0,
        }
    }

    /// The discs that playing on `sq` would flip (empty if the move is not legal).
    pub fn flips(&self, sq: Square) -> u64 {
        if self.empty() & sq.bit() == 0 {
            return 0;
        }
        flips(self.player, self.opponent, sq.index())
    }

    /// The position after a legal move, or why the move is illegal.
    pub fn play(&self, mv: Move) -> Result<Position, IllegalMove> {
        if !self.is_legal(mv) {
            return Err(IllegalMove(mv));
        }
        Ok(match mv {
            Move::Pass => self.pass(),
            Move::Play(sq) => {
                self.play_flips(sq.bit(), flips(self.player, self.opponent, sq.index()))
            }
        })
    }

    /// The position after placing a disc on the single-bit `square` and flipping `flipped`;
    /// the caller vouches that this is a legal move.
    #[inline]
    pub fn play_flips(&self, square: u64, flipped: u64) -> Position {
        Position {
            player: self.opponent & !flipped,
            opponent: self.player | flipped | square,
            side: self.side.opponent(),
        }
    }

    /// The same discs with the other side to move.
    #[inline]
    pub fn pass(&self) -> Position {
        Position {
            player: self.opponent,
            opponent: self.player,
            side: self.side.opponent(),
        }
    }

    /// The final disc difference for the side to move under the standard rule: empty squares
    /// go to the winner ([`final_score`]).
    #[inline]
    pub fn final_score(&self) -> i32 {
        final_score(self.player, self.opponent)
    }

    /// The position under board symmetry `sym` (0..8; 0 is the identity).
    pub fn transform(&self, sym: u8) -> Position {
        Position {
            player: apply_symmetry(self.player, sym),
            opponent: apply_symmetry(self.opponent, sym),
            side: self.side,
        }
    }

    /// The legal moves as a list of squares, in index order.
    pub fn legal_squares(&self) -> Vec<Square> {
        Bits(self.legal_moves()).filter_map(Square::new).collect()
    }
}

impl fmt::Display for Position {
    /// An 8x8 board with coordinates, `X` black, `O` white, `.` empty, `*` a legal move,
    /// then who moves and the disc count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let black = self.discs(Color::Black);
        let white = self.discs(Color::White);
        let moves = self.legal_moves();
        writeln!(f, "  a b c d e f g h")?;
        for rank in 0..8 {
            write!(f, "{}", rank + 1)?;
            for file in 0..8 {
                let bit = 1u64 << (rank * 8 + file);
                let c = if black & bit != 0 {
                    'X'
                } else if white & bit != 0 {
                    'O'
                } else if moves & bit != 0 {
                    '*'
                } else {
                    '.'
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        write!(
            f,
            "{} to move; black {}, white {}",
            self.side,
            black.count_ones(),
            white.count_ones()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_moves() {
        let p = Position::start();
        let names: Vec<String> = p.legal_squares().iter().map(|s| s.to_string()).collect();
        assert_eq!(names, ["d3", "c4", "f5", "e6"]);
        assert_eq!(p.empty_count(), MAX_EMPTIES);
    }

    #[test]
    fn colour_indices_are_black_0_white_1() {
        assert_eq!((Color::Black.index(), Color::White.index()), (0, 1));
        assert_eq!(Color::Black.opponent().index(), 1);
    }

    #[test]
    fn corners_are_the_four_corner_squares() {
        let names: Vec<String> = Bits(CORNERS)
            .filter_map(Square::new)
            .map(|s| s.to_string())
            .collect();
        assert_eq!(names, ["a1", "h1", "a8", "h8"]);
    }

    #[test]
    fn playing_flips_and_switches_sides() {
        let p = Position::start();
        let q = p.play("f5".parse().unwrap()).unwrap();
        assert_eq!(q.side_to_move(), Color::White);
        assert_eq!(q.disc_count(Color::Black), 4);
        assert_eq!(q.disc_count(Color::White), 1);
        assert!(p.play(Move::Pass).is_err());
        assert!(p.play("a1".parse().unwrap()).is_err());
    }

    #[test]
    fn nothing_is_played_after_the_end() {
        // Black wiped White out: neither side can move, so not even a pass is legal.
        let over = Position::from_colors(0b111, 0, Color::White).unwrap();
        assert!(over.is_game_over());
        assert!(!over.is_legal(Move::Pass));
        assert!(over.play(Move::Pass).is_err());
        // Black a1, White b1, White to move: White cannot move but Black can (c1), so the
        // pass is forced and legal.
        let forced = Position::from_colors(0b1, 0b10, Color::White).unwrap();
        assert!(forced.must_pass() && !forced.is_game_over());
        assert!(forced.is_legal(Move::Pass));
    }

    #[test]
    fn final_score_gives_empties_to_the_winner() {
        let p = Position::from_colors(0b111, 0b1000, Color::Black).unwrap();
        assert_eq!(p.final_score(), 3 - 1 + 60);
        assert_eq!(p.pass().final_score(), -62);
        let d = Position::from_colors(0b1, 0b10, Color::White).unwrap();
        assert_eq!(d.final_score(), 0);
        assert_eq!(final_score(0b1000, 0b111), -62);
        assert_eq!(final_score(0, 0), 0);
    }
}
