//! Drawing a move from the book: the book's moves of a position, the weighted draw among
//! those within the randomness of the best, and the book's lines for the reports.

use super::{Book, BookMove, MAX_PV, PASS, VARIETY_PLIES, child_of, normalize};
use crate::board::{Move, Position};
use rand::{Rng, RngExt};
use std::collections::HashMap;

/// The weight of a book move (or line) that falls `loss` hundredths of a disc below the best,
/// when the book draws with `randomness` (above 0): it falls by a factor of e for every
/// `randomness` below the best.
fn loss_weight(loss: i32, randomness: i32) -> f64 {
    (-f64::from(loss.max(0)) / f64::from(randomness.max(1))).exp()
}

impl Book {
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
}
