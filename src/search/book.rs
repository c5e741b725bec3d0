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
//! **Growing it** is `book_build.rs`'s job; the file format is [`Book::to_bytes`].

use crate::board::{Bits, Move, Position, Square, apply_symmetry, flips, legal_moves};
use flate2::Compression;
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use rand::{Rng, RngExt};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::{Arc, LazyLock};

/// The move of an entry that passes: the side to move has no legal move.
pub const PASS: u8 = 64;
/// The magic at the start of a book file, which names its version.
const MAGIC: &[u8; 8] = b"OEBOOK01";
/// Bytes of one entry's fixed part: the two bitboards, the game count, the depth and the number
/// of moves.
const ENTRY_HEAD: usize = 8 + 8 + 4 + 1 + 1;
/// Bytes of one move: the square and its value.
const MOVE_BYTES: usize = 3;
/// No book file holds more entries than this (a guard against absurd headers).
const MAX_ENTRIES: usize = 1 << 24;
/// The most moves one entry may list when it is read (a position has at most 33).
const MAX_MOVES: usize = 64;
/// How far ahead [`Book::choose`] counts the lines each candidate move opens.
pub const VARIETY_PLIES: usize = 8;
/// The book plays, and learns, only positions with at least this many empty squares. Its values
/// are depth-16 searches; with fewer empties the engine's own search at a game's clock reaches as
/// deep, and from about 26 empties on its solver answers exactly, so a book value would only
/// stand in the way.
pub const MIN_EMPTIES: u32 = 30;
/// The book ends its lines with searched leaves within this many plies of the start.
const MAX_PV: usize = 12;

/// The weight of a book move (or line) that falls `loss` hundredths of a disc below the best,
/// when the book draws with `randomness` (above 0): it falls by a factor of e for every
/// `randomness` below the best.
fn loss_weight(loss: i32, randomness: i32) -> f64 {
    (-f64::from(loss.max(0)) / f64::from(randomness.max(1))).exp()
}

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
            best = 100 * crate::search::final_score(p, o);
        }
        memo.insert(key, best);
        best
    }

    /// The book's moves of `position`, best first (ties in square order), or `None` when the
    /// position is not in the book. Only legal moves are returned.
    pub fn moves(&self, position: &Position) -> Option<Vec<BookMove>> {
        let (player, opponent) = (position.player(), position.opponent());
        let (key, sym) = normalize(player, opponent);
        let entry = self.entries.get(&key)?;
        let legal: Vec<Move> = if position.must_pass() {
            if position.is_game_over() {
                return None;
            }
            vec![Move::Pass]
        } else {
            position
                .legal_squares()
                .into_iter()
                .map(Move::Play)
                .collect()
        };
        let mut out = Vec::with_capacity(legal.len());
        for mv in legal {
            let stored = match mv {
                Move::Pass => PASS,
                Move::Play(sq) => sq.transform(sym).index() as u8,
            };
            let Some(&(_, searched)) = entry.moves.iter().find(|&&(m, _)| m == stored) else {
                continue;
            };
            let (child, _) = {
                let (p, o) = child_of(key, stored);
                normalize(p, o)
            };
            let (value, in_book, games) = match (self.value(&child), self.entries.get(&child)) {
                (Some(v), Some(e)) => (-v, true, e.games),
                _ => (i32::from(searched), false, 0),
            };
            out.push(BookMove {
                mv,
                value,
                in_book,
                games,
            });
        }
        if out.is_empty() {
            return None;
        }
        out.sort_by_key(|m| std::cmp::Reverse(m.value));
        Some(out)
    }

    /// A move for `position` from the book, or `None` when the position is not in the book.
    ///
    /// The candidates are the moves within `randomness` hundredths of a disc of the best; the
    /// window is also kept within `randomness` of the start position's book value for the side
    /// to move, so that a game drawn from the book never drifts more than `randomness` from the
    /// book's best line (only the opponent's mistakes widen it). With `randomness` 0 the best
    /// is played (the first in square order among equals).
    ///
    /// The draw is over whole lines, not single moves: every line of the next
    /// [`VARIETY_PLIES`] plies that the same draw can follow (both sides drawing in their
    /// windows) weighs `exp(-loss / randomness)`, where `loss` sums how far each of its moves
    /// falls below its position's best; a move is drawn with the weight of the lines that
    /// begin with it. Of all the ways to spread games over the playable lines, this one gives
    /// the most variety for a given expected loss (it maximises the entropy of the lines at a
    /// fixed mean loss). Drawing single moves by their values alone would make a narrow line
    /// (one playable reply after another) as likely as a whole bush of playable lines, and
    /// games would repeat far more often for the same price.
    pub fn choose(
        &self,
        position: &Position,
        randomness: i32,
        rng: &mut impl Rng,
    ) -> Option<BookMove> {
        let moves = self.moves(position)?;
        let randomness = randomness.max(0);
        let candidates = self.candidates(position, &moves, randomness);
        if candidates.len() <= 1 {
            return Some(moves[0]);
        }
        let mut memo = HashMap::new();
        let weighted: Vec<(BookMove, f64)> = candidates
            .iter()
            .map(|m| {
                let lines =
                    self.line_weight_after(position, m.mv, randomness, VARIETY_PLIES, &mut memo);
                (
                    *m,
                    loss_weight(moves[0].value - m.value, randomness) * lines,
                )
            })
            .collect();
        let total: f64 = weighted.iter().map(|(_, w)| w).sum();
        if !total.is_finite() || total <= 0.0 {
            return Some(moves[0]);
        }
        let mut pick = rng.random_range(0.0..total);
        for (m, w) in &weighted {
            if pick < *w {
                return Some(*m);
            }
            pick -= w;
        }
        Some(moves[0])
    }

    /// The moves [`Book::choose`] draws from at `position`, whose book moves, best first, are
    /// `moves`: the best alone when `randomness` is 0.
    fn candidates(
        &self,
        position: &Position,
        moves: &[BookMove],
        randomness: i32,
    ) -> Vec<BookMove> {
        let best = moves[0].value;
        if randomness == 0 {
            return vec![moves[0]];
        }
        let start = Position::start();
        let floor = match self.value(&normalize(start.player(), start.opponent()).0) {
            Some(v) if position.side_to_move() == start.side_to_move() => best.max(v),
            Some(v) => best.max(-v),
            None => best,
        } - randomness;
        let within: Vec<BookMove> = moves.iter().copied().filter(|m| m.value >= floor).collect();
        if within.is_empty() {
            vec![moves[0]]
        } else {
            within
        }
    }

    /// The summed weight of the lines of [`Book::line_weight`] of `plies` moves that begin
    /// with `mv` (not counting `mv`'s own loss).
    fn line_weight_after(
        &self,
        position: &Position,
        mv: Move,
        randomness: i32,
        plies: usize,
        memo: &mut HashMap<(u64, u64, usize, usize), f64>,
    ) -> f64 {
        match position.play(mv) {
            Ok(child) => self.line_weight(&child, randomness, plies - 1, memo),
            Err(_) => 1.0,
        }
    }

    /// The summed weight of the distinct lines of at most `plies` moves that [`Book::choose`]
    /// can draw from `position` on (a line ends early where it leaves the book), each line
    /// weighing [`loss_weight`] of its total loss; memoised by position.
    fn line_weight(
        &self,
        position: &Position,
        randomness: i32,
        plies: usize,
        memo: &mut HashMap<(u64, u64, usize, usize), f64>,
    ) -> f64 {
        if plies == 0 {
            return 1.0;
        }
        let id = (
            position.player(),
            position.opponent(),
            plies,
            position.side_to_move().index(),
        );
        if let Some(&w) = memo.get(&id) {
            return w;
        }
        let w = match self.moves(position) {
            None => 1.0,
            Some(moves) => self
                .candidates(position, &moves, randomness)
                .iter()
                .map(|m| {
                    loss_weight(moves[0].value - m.value, randomness)
                        * self.line_weight_after(position, m.mv, randomness, plies, memo)
                })
                .sum(),
        };
        memo.insert(id, w);
        w
    }

    /// The book's best line from `position`, at most `max_len` moves, while it stays in the
    /// book (its last move may lead out of it).
    pub fn best_line(&self, position: &Position, max_len: usize) -> Vec<Move> {
        let mut line = Vec::new();
        let mut at = *position;
        while line.len() < max_len {
            let Some(moves) = self.moves(&at) else {
                break;
            };
            let best = moves[0];
            line.push(best.mv);
            let Ok(next) = at.play(best.mv) else {
                break;
            };
            if !best.in_book {
                break;
            }
            at = next;
        }
        line
    }

    /// The principal variation of a book move: the move, then the book's best line after it.
    pub fn line_after(&self, position: &Position, mv: Move) -> Vec<Move> {
        let mut pv = vec![mv];
        if let Ok(next) = position.play(mv) {
            pv.extend(self.best_line(&next, MAX_PV));
        }
        pv
    }

    /// The book file: the magic, the entry count (4 bytes, little-endian), then the entries
    /// deflated, sorted by key so that the same book always gives the same bytes. An entry is
    /// the player's and the opponent's bitboards (8 bytes each), the game count (4), the depth
    /// (1), the number of moves (1), and per move its square (1, 64 for a pass) and value
    /// (2, hundredths of a disc); all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut keys: Vec<&BookKey> = self.entries.keys().collect();
        keys.sort();
        let mut body = Vec::new();
        for key in keys {
            let e = &self.entries[key];
            body.extend_from_slice(&key.0.to_le_bytes());
            body.extend_from_slice(&key.1.to_le_bytes());
            body.extend_from_slice(&e.games.to_le_bytes());
            body.push(e.depth);
            body.push(e.moves.len() as u8);
            for &(sq, v) in &e.moves {
                body.push(sq);
                body.extend_from_slice(&v.to_le_bytes());
            }
        }
        let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
        // Writing to a Vec cannot fail.
        let _ = encoder.write_all(&body);
        let deflated = encoder.finish().unwrap_or_default();
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        out.extend_from_slice(&deflated);
        out
    }

    /// Writes the book to `path` whole or not at all (a temporary file renamed over it).
    pub fn save(&self, path: &std::path::Path) -> Result<(), String> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        std::fs::write(&tmp, self.to_bytes())
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// Reads a book file, checking every entry: a key that is not the smallest orientation of
    /// its position, overlapping discs, a move that is not legal there, a missing or repeated
    /// move, a repeated key, or a file cut short is refused with what was wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, String> {
        if bytes.len() < MAGIC.len() + 4 || &bytes[..MAGIC.len()] != MAGIC {
            return Err("not an othello-engine book (bad magic)".into());
        }
        let count = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        if count > MAX_ENTRIES {
            return Err(format!("the header announces {count} positions, too many"));
        }
        // Inflate no more than the announced entries can hold, so that a damaged header or
        // stream cannot make the reader allocate without bound.
        let most = count * (ENTRY_HEAD + MAX_MOVES * MOVE_BYTES) + 1;
        let mut body = Vec::new();
        ZlibDecoder::new(&bytes[12..])
            .take(most as u64)
            .read_to_end(&mut body)
            .map_err(|e| format!("the entries do not inflate: {e}"))?;
        let mut entries = HashMap::with_capacity(count.min(1 << 16));
        let mut at = 0usize;
        let truncated = |i: usize| format!("cut short in position {} of {count}", i + 1);
        for i in 0..count {
            let head = body.get(at..at + ENTRY_HEAD).ok_or_else(|| truncated(i))?;
            let word = |k: usize| u64::from_le_bytes(head[k..k + 8].try_into().unwrap_or([0; 8]));
            let (player, opponent) = (word(0), word(8));
            let games = u32::from_le_bytes(head[16..20].try_into().unwrap_or([0; 4]));
            let (depth, n) = (head[20], usize::from(head[21]));
            at += ENTRY_HEAD;
            let raw = body
                .get(at..at + n * MOVE_BYTES)
                .ok_or_else(|| truncated(i))?;
            at += n * MOVE_BYTES;
            let moves: Vec<(u8, i16)> = raw
                .chunks_exact(MOVE_BYTES)
                .map(|c| (c[0], i16::from_le_bytes([c[1], c[2]])))
                .collect();
            let key = (player, opponent);
            check_entry(key, &moves).map_err(|e| format!("position {}: {e}", i + 1))?;
            if entries
                .insert(
                    key,
                    BookEntry {
                        moves,
                        games,
                        depth,
                    },
                )
                .is_some()
            {
                return Err(format!("position {}: stored twice", i + 1));
            }
        }
        if at != body.len() {
            return Err(format!(
                "{} bytes after the {count} positions the header announces",
                body.len() - at
            ));
        }
        let mut book = Book {
            entries,
            values: HashMap::new(),
        };
        book.back_up();
        Ok(book)
    }
}

/// Whether `moves` are exactly the legal moves of the stored position `key`, which must be in
/// its smallest orientation.
fn check_entry(key: BookKey, moves: &[(u8, i16)]) -> Result<(), String> {
    let (player, opponent) = key;
    if player & opponent != 0 {
        return Err("a square holds two discs".into());
    }
    if normalize(player, opponent).0 != key {
        return Err("not stored in its smallest orientation".into());
    }
    let legal = legal_moves(player, opponent);
    let expected: Vec<u8> = if legal == 0 {
        if legal_moves(opponent, player) == 0 {
            return Err("the game is over there".into());
        }
        vec![PASS]
    } else {
        Bits(legal).map(|sq| sq as u8).collect()
    };
    let mut got: Vec<u8> = moves.iter().map(|&(m, _)| m).collect();
    got.sort_unstable();
    if got != expected {
        return Err(format!(
            "its moves {} are not the legal moves {}",
            squares_text(&got),
            squares_text(&expected)
        ));
    }
    Ok(())
}

fn squares_text(squares: &[u8]) -> String {
    let names: Vec<String> = squares
        .iter()
        .map(|&s| match Square::new(usize::from(s)) {
            Some(sq) => sq.to_string(),
            None => "pass".into(),
        })
        .collect();
    format!("[{}]", names.join(" "))
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
            Book::from_bytes(include_bytes!("../../data/book.bin"))
                .expect("the built-in book is checked by the tests"),
        )
    });
    Arc::clone(&BOOK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    fn sq(name: &str) -> Move {
        name.parse().unwrap()
    }

    /// The legal moves of `p` in its own orientation, each with value `f(square)`.
    fn valued(p: &Position, f: impl Fn(u8) -> i16) -> Vec<(u8, i16)> {
        Bits(p.legal_moves())
            .map(|s| (s as u8, f(s as u8)))
            .collect()
    }

    #[test]
    fn every_symmetric_image_finds_the_same_entry_and_moves() {
        let p = Position::start()
            .play(sq("f5"))
            .unwrap()
            .play(sq("d6"))
            .unwrap()
            .play(sq("c3"))
            .unwrap();
        let mut book = Book::new();
        book.insert(
            p.player(),
            p.opponent(),
            &valued(&p, |s| i16::from(s) * 10),
            0,
            8,
        );
        let base = book.moves(&p).unwrap();
        for sym in 0..8 {
            let image = p.transform(sym);
            let moves = book.moves(&image).expect("every image is in the book");
            assert_eq!(moves.len(), base.len());
            for (m, b) in moves.iter().zip(&base) {
                assert_eq!(m.mv, b.mv.transform(sym), "symmetry {sym}");
                assert_eq!(m.value, b.value);
                assert!(image.is_legal(m.mv));
            }
        }
    }

    #[test]
    fn values_back_up_by_negamax_through_the_book() {
        // The start (moves all +0.5), f5 (its moves valued by square), and f5 d6 (moves +3
        // for the side to move there, Black): f5 d6 is then worth -3 to White at f5.
        let start = Position::start();
        let f5 = start.play(sq("f5")).unwrap();
        let f5d6 = f5.play(sq("d6")).unwrap();
        let mut book = Book::new();
        book.insert(
            start.player(),
            start.opponent(),
            &valued(&start, |_| 50),
            0,
            4,
        );
        book.insert(f5.player(), f5.opponent(), &valued(&f5, |_| -800), 0, 4);
        book.insert(
            f5d6.player(),
            f5d6.opponent(),
            &valued(&f5d6, |_| 300),
            0,
            4,
        );
        let at_f5 = book.moves(&f5).unwrap();
        let d6 = at_f5.iter().find(|m| m.mv == sq("d6")).unwrap();
        assert_eq!((d6.value, d6.in_book), (-300, true));
        assert_eq!(at_f5[0].mv, sq("d6"), "the backed-up move beats -8 discs");
        // Black at the start: every move leads to a position like f5, worth -300 for White.
        let at_start = book.moves(&start).unwrap();
        assert!(at_start.iter().all(|m| m.value == 300 && m.in_book));
        assert_eq!(
            book.value(&normalize(start.player(), start.opponent()).0),
            Some(300)
        );
    }

    #[test]
    fn randomness_zero_is_the_best_and_a_window_varies_within_it() {
        let start = Position::start();
        let f5 = start.play(sq("f5")).unwrap();
        let mut book = Book::new();
        // At f5 White's moves: d6 +1.00, f6 +0.80, f4 -3.00.
        let values = |s: u8| match Square::new(usize::from(s)).unwrap().to_string().as_str() {
            "d6" => 100,
            "f6" => 80,
            _ => -300,
        };
        book.insert(f5.player(), f5.opponent(), &valued(&f5, values), 0, 4);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for _ in 0..20 {
            assert_eq!(book.choose(&f5, 0, &mut rng).unwrap().mv, sq("d6"));
        }
        let picks: Vec<Move> = (0..1000)
            .map(|_| book.choose(&f5, 50, &mut rng).unwrap().mv)
            .collect();
        assert!(picks.iter().all(|&m| m == sq("d6") || m == sq("f6")));
        let d6 = picks.iter().filter(|&&m| m == sq("d6")).count();
        // Weights 1 and exp(-20/50) = 0.67: d6 is drawn 60% of the time.
        assert!(
            (540..660).contains(&d6),
            "weighted toward the best: d6 {d6} of 1000"
        );
        assert!(book.choose(&start, 50, &mut rng).is_none());
    }

    #[test]
    fn a_move_that_opens_more_playable_lines_is_drawn_more_often() {
        // At f5 White's d6 and f6 are worth the same; after d6 Black has two moves in the
        // window (the book knows that position), after f6 the line leaves the book: d6 opens
        // two lines and f6 one, so d6 is drawn about two times in three.
        let start = Position::start();
        let f5 = start.play(sq("f5")).unwrap();
        let f5d6 = f5.play(sq("d6")).unwrap();
        let [first, second] = [f5d6.legal_squares()[0], f5d6.legal_squares()[1]];
        let mut book = Book::new();
        book.insert(
            f5d6.player(),
            f5d6.opponent(),
            &valued(&f5d6, |s| {
                if s == first.index() as u8 || s == second.index() as u8 {
                    100
                } else {
                    -300
                }
            }),
            0,
            4,
        );
        let at_f5 = |s: u8| match Square::new(usize::from(s)).unwrap().to_string().as_str() {
            "f6" => -100,
            _ => -500,
        };
        book.insert(f5.player(), f5.opponent(), &valued(&f5, at_f5), 0, 4);
        let moves = book.moves(&f5).unwrap();
        assert_eq!((moves[0].value, moves[1].value), (-100, -100));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let d6 = (0..3000)
            .filter(|_| book.choose(&f5, 50, &mut rng).unwrap().mv == sq("d6"))
            .count();
        assert!((1850..2150).contains(&d6), "d6 drawn {d6} times of 3000");
        // After d6, Black draws both of its moves, evenly.
        let firsts = (0..1000)
            .filter(|_| book.choose(&f5d6, 50, &mut rng).unwrap().mv == Move::Play(first))
            .count();
        assert!(
            (430..570).contains(&firsts),
            "first move drawn {firsts} of 1000"
        );
    }

    #[test]
    fn files_round_trip_and_damaged_files_are_refused() {
        let start = Position::start();
        let f5 = start.play(sq("f5")).unwrap();
        let mut book = Book::new();
        book.insert(
            start.player(),
            start.opponent(),
            &valued(&start, |_| 0),
            12,
            4,
        );
        book.insert(f5.player(), f5.opponent(), &valued(&f5, i16::from), 7, 4);
        let bytes = book.to_bytes();
        let back = Book::from_bytes(&bytes).unwrap();
        assert_eq!(back.entries, book.entries);
        assert_eq!(back.to_bytes(), bytes);
        assert!(Book::from_bytes(&bytes[..bytes.len() - 3]).is_err());
        assert!(
            Book::from_bytes(b"OEPATW02....")
                .unwrap_err()
                .contains("magic")
        );
        // One entry more announced than stored.
        let mut wrong = bytes.clone();
        wrong[8] += 1;
        assert!(Book::from_bytes(&wrong).unwrap_err().contains("cut short"));
        // A move that is not legal.
        let mut bad = Book::new();
        let (key, _) = normalize(start.player(), start.opponent());
        bad.entries.insert(
            key,
            BookEntry {
                moves: vec![(0, 0)],
                games: 0,
                depth: 1,
            },
        );
        assert!(
            Book::from_bytes(&bad.to_bytes())
                .unwrap_err()
                .contains("legal")
        );
    }

    #[test]
    fn the_built_in_book_reads_and_knows_the_start() {
        let book = built_in();
        let moves = book
            .moves(&Position::start())
            .expect("the start is in the book");
        assert_eq!(moves.len(), 4);
        assert!(moves.iter().all(|m| Position::start().is_legal(m.mv)));
    }
}
