//! The opening book: positions near the start with a value for every move, found by our own
//! deep searches and backed up by negamax, so that the engine opens at once and well and,
//! with a little randomness, not the same way every game.
//!
//! **What it holds.** Each book position is stored once up to the 8 board symmetries, in the
//! orientation whose (player, opponent) pair is smallest, as a [`BookEntry`]: every legal move
//! (in that orientation) with the value a search of the entry's depth gave it, in hundredths
//! of a disc for the side to move, and the number of WTHOR expert games that reached the
//! position. A move whose child is itself in the book is worth minus the child's book value
//! instead of its search value: values are backed up by negamax over the book (a graph, since
//! lines transpose), so a book position is worth its best line through the book down to a
//! searched leaf. A forced pass is the one move [`PASS`].
//!
//! **Playing from it** ([`Book::choose`]): while the position is in the book, the move is
//! drawn among those within the randomness of the best value, weighted toward the best, so
//! games vary without giving much away; randomness 0 plays the best line every time. A move is
//! only ever taken from the position's own legal moves, so a damaged entry can never make the
//! engine play an illegal move.
//!
//! **Files.** Reading and writing the file is `format.rs`'s ([`Book::to_bytes`]), drawing a
//! move `draw.rs`'s. Growing the book and playing from it take a searcher, and the searcher
//! holds a book, so they live above this folder: `search/book_build/` grows the book, the
//! searcher's `learn.rs` adds the games the engine plays, and its `book_moves.rs` plays from
//! the book.

mod draw;
mod format;
#[cfg(test)]
mod tests;

use crate::board::{Move, Position, apply_symmetry, final_score, flips};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

/// The move of an entry that passes: the side to move has no legal move.
pub const PASS: u8 = 64;
/// The default randomness of the book's draw (`--book-randomness`), in hundredths of a disc. At
/// one disc a side gives away about 0.3 discs of book value a game, and the built-in book from
/// the start position was worth +47 Elo against no book (docs/measurements/book.md); at three it
/// gave away 2.2 discs a game for games that differ more often in their first 12 plies
/// (`examples/book_variety.rs`).
pub const DEFAULT_RANDOMNESS: i32 = 100;
/// How far ahead [`Book::choose`] counts the lines each candidate move opens.
pub const VARIETY_PLIES: usize = 8;
/// The book plays, and learns, only positions with at least this many empty squares. Its values
/// are depth-16 searches; with fewer empties the engine's own search at a game's clock reaches as
/// deep, and from about 26 empties on its solver answers exactly, so a book value would only
/// stand in the way.
pub const MIN_EMPTIES: u32 = 30;
/// The book ends its lines with searched leaves within this many plies of the start.
const MAX_PV: usize = 12;

/// A position key: the (player, opponent) pair in the orientation that makes it smallest.
pub type BookKey = (u64, u64);

/// The key of `player`/`opponent` and the symmetry that turns the position into it.
pub fn normalize(player: u64, opponent: u64) -> (BookKey, u8) {
    (0..8u8)
        .map(|sym| {
            (
                (apply_symmetry(player, sym), apply_symmetry(opponent, sym)),
                sym,
            )
        })
        .min()
        .unwrap_or(((player, opponent), 0))
}

/// The position after `mv` (a square, or [`PASS`]) from `player`/`opponent`, as the new
/// side to move sees it.
pub(crate) fn child_of((player, opponent): BookKey, mv: u8) -> BookKey {
    if mv == PASS {
        return (opponent, player);
    }
    let f = flips(player, opponent, usize::from(mv));
    (opponent & !f, player | f | (1u64 << mv))
}

/// One book position: its moves with their searched values, its WTHOR game count and the
/// depth of the searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    /// Every legal move (a square of the stored orientation, or [`PASS`]) with the value a
    /// search gave it, in hundredths of a disc for the side to move.
    pub moves: Vec<(u8, i16)>,
    /// How many WTHOR games reached this position (0 when none were counted).
    pub games: u32,
    /// The depth of the searches that valued the moves.
    pub depth: u8,
}

/// A move of a book position as the book values it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move, in the orientation of the position asked about.
    pub mv: Move,
    /// Its value for the side to move, in hundredths of a disc: backed up from the book when
    /// `in_book`, else the search's value of the move.
    pub value: i32,
    /// Whether the position after the move is itself in the book.
    pub in_book: bool,
    /// The WTHOR games that reached the position after the move.
    pub games: u32,
}

/// The opening book: entries by key, and each entry's value backed up by negamax.
#[derive(Clone, Debug, Default)]
pub struct Book {
    entries: HashMap<BookKey, BookEntry>,
    values: HashMap<BookKey, i32>,
}

impl Book {
    /// An empty book.
    pub fn new() -> Book {
        Book::default()
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of `key`, if the book has it.
    pub fn entry(&self, key: &BookKey) -> Option<&BookEntry> {
        self.entries.get(key)
    }

    /// Every key and entry, in no particular order.
    pub fn entries(&self) -> impl Iterator<Item = (&BookKey, &BookEntry)> {
        self.entries.iter()
    }

    /// Adds or replaces the entry of a position (given in any orientation: its moves are
    /// squares of that orientation) and backs the values up again.
    pub fn insert(
        &mut self,
        player: u64,
        opponent: u64,
        moves: &[(u8, i16)],
        games: u32,
        depth: u8,
    ) {
        self.insert_unbacked(player, opponent, moves, games, depth);
        self.back_up();
    }

    /// [`Book::insert`] without backing the values up: for many insertions, followed by one
    /// [`Book::back_up`].
    pub fn insert_unbacked(
        &mut self,
        player: u64,
        opponent: u64,
        moves: &[(u8, i16)],
        games: u32,
        depth: u8,
    ) {
        let (key, sym) = normalize(player, opponent);
        let moves = moves
            .iter()
            .map(|&(sq, v)| {
                let sq = if sq == PASS {
                    PASS
                } else {
                    apply_symmetry(1u64 << sq, sym).trailing_zeros() as u8
                };
                (sq, v)
            })
            .collect();
        self.entries.insert(
            key,
            BookEntry {
                moves,
                games,
                depth,
            },
        );
    }

    /// Adds every entry of `other` that this book lacks or has at a smaller depth (`book
    /// merge`), keeping the larger game count.
    pub fn merge(&mut self, other: &Book) {
        for (key, entry) in &other.entries {
            match self.entries.get_mut(key) {
                Some(mine) if mine.depth >= entry.depth => mine.games = mine.games.max(entry.games),
                Some(mine) => {
                    let games = mine.games.max(entry.games);
                    *mine = entry.clone();
                    mine.games = games;
                }
                None => {
                    self.entries.insert(*key, entry.clone());
                }
            }
        }
        self.back_up();
    }

    /// Drops the positions more than `plies` moves from the start (a pass counts none), so
    /// the book's lines end there, valued by those positions' own searches (`book merge
    /// --max-ply`: a book cut short to be deepened whole, since a position's value backs up
    /// from the deepest positions of its lines).
    pub fn keep_within(&mut self, plies: u32) {
        self.entries
            .retain(|key, _| (key.0 | key.1).count_ones() <= plies + 4);
        self.back_up();
    }

    /// The negamax value of the book position `key` (hundredths of a disc, side to move).
    pub fn value(&self, key: &BookKey) -> Option<i32> {
        self.values.get(key).copied()
    }

    /// Recomputes every entry's value by negamax over the book.
    pub fn back_up(&mut self) {
        let mut values = HashMap::with_capacity(self.entries.len());
        for key in self.entries.keys() {
            self.backed_up(*key, &mut values);
        }
        self.values = values;
    }

    fn backed_up(&self, key: BookKey, memo: &mut HashMap<BookKey, i32>) -> i32 {
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let entry = &self.entries[&key];
        let mut best = i32::MIN;
        for &(mv, searched) in &entry.moves {
            let (child, _) = {
                let (p, o) = child_of(key, mv);
                normalize(p, o)
            };
            let v = if self.entries.contains_key(&child) {
                -self.backed_up(child, memo)
            } else {
                i32::from(searched)
            };
            best = best.max(v);
        }
        if best == i32::MIN {
            // No move at all: a finished game, scored.
            let (p, o) = key;
            best = 100 * final_score(p, o);
        }
        memo.insert(key, best);
        best
    }
}

/// The search depth of the book entry of `position` (0 when it is not in the book).
pub fn depth_of(book: &Book, position: &Position) -> u32 {
    let (key, _) = normalize(position.player(), position.opponent());
    book.entry(&key).map_or(0, |e| u32::from(e.depth))
}

/// The book built into the binary (`data/book.bin`, made by `othello-engine book build`).
pub fn built_in() -> Arc<Book> {
    static BOOK: LazyLock<Arc<Book>> = LazyLock::new(|| {
        Arc::new(
            Book::from_bytes(include_bytes!("../../../data/book.bin"))
                .expect("the built-in book is checked by the tests"),
        )
    });
    Arc::clone(&BOOK)
}
