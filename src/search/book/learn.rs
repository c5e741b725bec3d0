//! Learning from games played: the positions a game reached after it left the book are
//! valued and added, so the book does not lose the same way twice (NBoard's `learn`,
//! `book learn`).

use super::build::value_moves;
use super::{MIN_EMPTIES, normalize};
use crate::board::Position;
use crate::search::Searcher;
use std::sync::atomic::{AtomicBool, Ordering};

/// The most positions one `learn` adds after the point where its game left the book.
pub const LEARN_POSITIONS: usize = 8;
/// The deepest search `learn` values a move with, so that `learned` comes within a second or
/// two (NBoard waits for it); `book extend --depth` deepens learned positions later.
const LEARN_MAX_DEPTH: u32 = 12;

impl Searcher {
    /// Adds the game `positions` (from its first position on) to the searcher's book: the
    /// first [`LEARN_POSITIONS`] positions after the game left the book are valued at the depth
    /// of the last book position it passed, at most [`LEARN_MAX_DEPTH`] (NBoard's `learn`). The
    /// book is copied, so other holders of the old one keep it. Returns the positions added;
    /// `stop` ends it early, keeping what is done.
    pub fn learn(&mut self, positions: &[Position], stop: &AtomicBool) -> usize {
        self.learn_line(positions, LEARN_MAX_DEPTH, LEARN_POSITIONS, stop)
    }

    /// [`Searcher::learn`] with its limits given: at most `max_positions` positions after the
    /// game left the book, each valued at the depth of the last book position it passed, at
    /// most `max_depth` (`book learn`). Values back up through the book at once, so a line the
    /// book rated too kindly falls to what the deeper positions show. Positions with fewer
    /// than [`MIN_EMPTIES`] empties are not learned (the book does not play them).
    pub fn learn_line(
        &mut self,
        positions: &[Position],
        max_depth: u32,
        max_positions: usize,
        stop: &AtomicBool,
    ) -> usize {
        let Some(shared) = self.book.take() else {
            return 0;
        };
        let mut book = (*shared).clone();
        let mut depth = max_depth;
        let mut added = 0;
        for position in positions {
            if added == max_positions
                || position.empty_count() < MIN_EMPTIES
                || position.is_game_over()
                || stop.load(Ordering::Relaxed)
            {
                break;
            }
            let (key, _) = normalize(position.player(), position.opponent());
            if let Some(entry) = book.entry(&key) {
                depth = u32::from(entry.depth).clamp(1, max_depth);
                continue;
            }
            let Some(moves) = value_moves(self, position, depth, stop) else {
                break;
            };
            book.insert(
                position.player(),
                position.opponent(),
                &moves,
                0,
                depth as u8,
            );
            added += 1;
        }
        self.book = Some(std::sync::Arc::new(book));
        added
    }
}
