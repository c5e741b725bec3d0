//! Squares and moves in the notation shared by NBoard, GTP and GGF.

use std::fmt;
use std::str::FromStr;

/// One of the 64 squares; index 0 is `a1` (top-left), 7 is `h1`, 63 is `h8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this index, if it is below 64.
    pub fn new(index: usize) -> Option<Square> {
        (index < 64).then_some(Square(index as u8))
    }

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), if both are below 8.
    pub fn from_file_rank(file: usize, rank: usize) -> Option<Square> {
        (file < 8 && rank < 8).then(|| Square((rank * 8 + file) as u8))
    }

    /// All 64 squares in index order, `a1` to `h8`.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64u8).map(Square)
    }

    /// The index 0..64.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 0 for `a` to 7 for `h`.
    pub fn file(self) -> usize {
        self.index() % 8
    }

    /// The rank, 0 for rank 1 to 7 for rank 8.
    pub fn rank(self) -> usize {
        self.index() / 8
    }

    /// The single-bit bitboard of this square.
    pub fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// The image of this square under board symmetry `sym` (see [`super::apply_symmetry`]).
    pub fn transform(self, sym: u8) -> Square {
        Square(super::apply_symmetry(self.bit(), sym).trailing_zeros() as u8)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file() as u8) as char,
            self.rank() + 1
        )
    }
}

/// Why a square or move could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveParseError(String);

impl fmt::Display for MoveParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad move '{}': expected a square a1..h8 or a pass (PA, pass, PS, --)",
            self.0
        )
    }
}

impl std::error::Error for MoveParseError {}

impl FromStr for Square {
    type Err = MoveParseError;

    /// Reads `a1`..`h8`, in any case.
    fn from_str(s: &str) -> Result<Square, MoveParseError> {
        let bytes = s.as_bytes();
        let bad = || MoveParseError(s.to_string());
        if bytes.len() != 2 {
            return Err(bad());
        }
        let file = bytes[0].to_ascii_lowercase().wrapping_sub(b'a') as usize;
        let rank = bytes[1].wrapping_sub(b'1') as usize;
        Square::from_file_rank(file, rank).ok_or_else(bad)
    }
}

/// A move: a disc on a square, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Place a disc on this square.
    Play(Square),
    /// Pass (legal only when the side to move has no move).
    Pass,
}

impl Move {
    /// The image of this move under board symmetry `sym`.
    pub fn transform(self, sym: u8) -> Move {
        match self {
            Move::Play(sq) => Move::Play(sq.transform(sym)),
            Move::Pass => Move::Pass,
        }
    }
}

impl fmt::Display for Move {
    /// Squares print as `e6`, a pass as `PA`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(sq) => sq.fmt(f),
            Move::Pass => f.write_str("PA"),
        }
    }
}

impl FromStr for Move {
    type Err = MoveParseError;

    /// Reads a square in any case, or a pass as `PA`, `pass`, `PS` or `--` in any case.
    fn from_str(s: &str) -> Result<Move, MoveParseError> {
        if ["pa", "pass", "ps", "--"]
            .iter()
            .any(|p| s.eq_ignore_ascii_case(p))
        {
            Ok(Move::Pass)
        } else {
            s.parse().map(Move::Play)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_and_ignore_case() {
        for i in 0..64 {
            let sq = Square::new(i).unwrap();
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(sq.to_string().to_uppercase().parse::<Square>(), Ok(sq));
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("H1".parse::<Square>().unwrap().index(), 7);
        assert_eq!("h8".parse::<Square>().unwrap().index(), 63);
    }

    #[test]
    fn bad_squares_are_refused() {
        for s in ["", "a", "a0", "a9", "i1", "a10", "11", "é1", " a1"] {
            assert!(s.parse::<Square>().is_err(), "{s:?}");
        }
    }

    #[test]
    fn passes_in_every_spelling() {
        for s in ["PA", "pa", "Pass", "PASS", "ps", "PS", "--"] {
            assert_eq!(s.parse::<Move>(), Ok(Move::Pass), "{s}");
        }
        assert_eq!(Move::Pass.to_string(), "PA");
        assert!("p".parse::<Move>().is_err());
    }
}
