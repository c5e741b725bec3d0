//! Learning from games played: the positions a game reached after it left the book are
//! valued and added, so the book does not lose the same way twice (NBoard's `learn`,
//! `book learn`). A position's moves are valued as `book build` values them
//! ([`value_moves`], which it takes from here).

use super::Searcher;
use crate::board::{Bits, Move, Position, Square};
use crate::search::book::{MIN_EMPTIES, PASS, normalize};
use crate::search::levels::Levels;
use crate::search::limits::Limits;
use crate::search::report::Value;
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

/// The search levels that value a move: `depth - 1` plies below it, selective as the
/// default, with no solve (book positions are far from the end).
fn valuing_levels(depth: u32) -> Levels {
    let mut levels = Levels::default();
    let child_depth = depth.saturating_sub(1).max(1);
    levels = levels.with_depth(child_depth).unwrap_or(levels);
    levels.endgame_empties = 0;
    levels.opening_moves = 0;
    levels.selectivity = Levels::default().selectivity;
    levels
}

/// Every move of `position` with its value (hundredths of a disc for the side to move): a
/// search of the position after it; a pass when there is none. `None` when stopped.
pub fn value_moves(
    searcher: &mut Searcher,
    position: &Position,
    depth: u32,
    stop: &AtomicBool,
) -> Option<Vec<(u8, i16)>> {
    let levels = valuing_levels(depth);
    let moves: Vec<(u8, Move)> = if position.must_pass() {
        vec![(PASS, Move::Pass)]
    } else {
        Bits(position.legal_moves())
            .filter_map(|s| Square::new(s).map(|sq| (s as u8, Move::Play(sq))))
            .collect()
    };
    let mut out = Vec::with_capacity(moves.len());
    for (code, mv) in moves {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let child = if mv == Move::Pass {
            position.pass()
        } else {
            position.play(mv).ok()?
        };
        let report = searcher.think(&child, &levels, &Limits::none(), &mut |_| {});
        let centidiscs = match report.value {
            Value::Exact(d) | Value::Wld(d) => 100 * d,
            v => (v.discs() * 100.0).round() as i32,
        };
        out.push((code, (-centidiscs).clamp(-6400, 6400) as i16));
    }
    Some(out)
}
