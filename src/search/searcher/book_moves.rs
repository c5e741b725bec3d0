//! Playing from the book: the searcher's book moves of a position as reports, and the move
//! it draws when [`Searcher::think`] finds the position in its book.

use super::Searcher;
use crate::board::Position;
use crate::search::book::{Book, BookMove, MIN_EMPTIES, depth_of};
use crate::search::report::{SearchReport, Value};
use std::sync::Arc;

/// The report of book move `m` of `position`: its book value, the book's line after it, and
/// the WTHOR games that reached the position after it.
fn book_report(book: &Book, position: &Position, m: &BookMove, depth: u32) -> SearchReport {
    SearchReport {
        depth,
        pv: book.line_after(position, m.mv),
        book: Some(m.games),
        ..SearchReport::immediate(m.mv, Value::Estimate(m.value))
    }
}

impl Searcher {
    /// The book, when it may speak for `position`: the side to move has a move and at least
    /// [`MIN_EMPTIES`] squares are empty.
    fn book_for(&self, position: &Position) -> Option<&Arc<Book>> {
        let playable = !position.must_pass() && position.empty_count() >= MIN_EMPTIES;
        self.book.as_ref().filter(|_| playable)
    }

    /// The book's reports for `position`, one per book move, best first: `None` when there is
    /// no book, the position is not in it, has fewer than [`MIN_EMPTIES`] empties, or
    /// the side to move must pass.
    pub fn book_reports(&self, position: &Position) -> Option<Vec<SearchReport>> {
        let book = self.book_for(position)?;
        let moves = book.moves(position)?;
        let depth = depth_of(book, position);
        Some(
            moves
                .iter()
                .map(|m| book_report(book, position, m, depth))
                .collect(),
        )
    }

    /// A move from the book for `position`, drawn as [`Book::choose`] says, or `None` (as for
    /// [`Searcher::book_reports`]).
    pub(in crate::search) fn book_move(&mut self, position: &Position) -> Option<SearchReport> {
        let book = self.book_for(position)?.clone();
        let chosen = book.choose(position, self.book_randomness, &mut self.rng)?;
        Some(book_report(
            &book,
            position,
            &chosen,
            depth_of(&book, position),
        ))
    }
}
