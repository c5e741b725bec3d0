//! A game reviewed: for every move, the best move of the position and its value, the value of
//! the move played, and what the difference cost, all from the mover's view.
//!
//! The positions are valued from the last back to the first, as NBoard's Analyze Game does: the
//! search of a position then finds the later positions' work in the table, and each position's
//! value is also the value of the move that led to it. So one search per position gives both
//! figures a move needs: the best move's value is the position's own, the played move's is the
//! next position's (negated when the other side moves there). Where the played move is the best
//! one, the loss is nought by definition; elsewhere the two values come from searches of the
//! same budget one ply apart and the loss is their difference, never below nought (a deeper
//! look after the move may find it better than the shallower look before it did). From the
//! solver's reach on both values are exact, and so is the loss.
//!
//! A position in the book is valued by its best book move, not by a move drawn at random as
//! [`Searcher::think`] plays: a review, like an analysis, must say the same thing twice.

use super::levels::Levels;
use super::limits::Limits;
use super::report::{SearchReport, Value};
use super::searcher::Searcher;
use crate::board::{Color, Move, Position};

/// One move of a game as the review judges it; values are the mover's, in discs.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    /// Index of the move in the game record (0 for the first; passes count).
    pub index: usize,
    /// The move's number as players count them: 1 for the first, passes not counted.
    pub number: usize,
    /// The side that moved.
    pub color: Color,
    /// The move played.
    pub played: Move,
    /// Its value.
    pub played_value: Value,
    /// The best move found.
    pub best: Move,
    /// Its value: the position's.
    pub best_value: Value,
    /// Best minus played, never below 0.
    pub loss: f64,
    /// Both values come from the book.
    pub book: bool,
}

impl MoveReview {
    /// True when both values are exact (the solver's), so that the loss is too.
    pub fn exact(&self) -> bool {
        matches!(self.best_value, Value::Exact(_)) && matches!(self.played_value, Value::Exact(_))
    }
}

/// The value of a position as the review keeps it: for the side to move there.
#[derive(Clone, Copy, Debug)]
struct Valued {
    value: Value,
    best: Move,
    book: bool,
}

impl Searcher {
    /// The value of `position` and its best move: from the book, its best book move's (the
    /// same every time); else what [`Searcher::think`] finds within `limits`.
    pub fn value_position(
        &mut self,
        position: &Position,
        levels: &Levels,
        limits: &Limits,
    ) -> SearchReport {
        if let Some(best) = self
            .book_reports(position)
            .and_then(|r| r.into_iter().next())
        {
            return best;
        }
        self.think(position, levels, limits, &mut |_| {})
    }

    /// Reviews the game whose positions are `positions` (before each move of `moves`, then
    /// the last): every position valued from the last back, within the limits `limits_for`
    /// gives each search. `progress` hears the number of positions valued so far after each
    /// one and may end the review by returning false (a stop within `limits` ends it too);
    /// an ended review returns `None`. Passes are not reviewed (there was nothing to choose).
    pub fn review(
        &mut self,
        positions: &[Position],
        moves: &[Move],
        levels: &Levels,
        limits_for: &dyn Fn() -> Limits,
        progress: &mut dyn FnMut(usize) -> bool,
    ) -> Option<Vec<MoveReview>> {
        assert_eq!(
            positions.len(),
            moves.len() + 1,
            "a position before every move"
        );
        let mut values: Vec<Option<Valued>> = vec![None; positions.len()];
        for (k, position) in positions.iter().enumerate().rev() {
            let valued = if position.is_game_over() {
                Valued {
                    value: Value::Exact(position.final_score()),
                    best: Move::Pass,
                    book: false,
                }
            } else if position.must_pass() {
                // The value of a forced pass is the other side's value after it.
                let after = values.get(k + 1).copied().flatten();
                let after = match after {
                    Some(after) => after,
                    None => self.valued(&position.play(Move::Pass).ok()?, levels, limits_for)?,
                };
                Valued {
                    value: after.value.negate(),
                    best: Move::Pass,
                    book: after.book,
                }
            } else {
                self.valued(position, levels, limits_for)?
            };
            values[k] = Some(valued);
            if !progress(positions.len() - k) {
                return None;
            }
        }
        let mut reviews = Vec::new();
        for (index, (&played, pair)) in moves.iter().zip(positions.windows(2)).enumerate() {
            let (before, after) = (&pair[0], &pair[1]);
            if played == Move::Pass {
                continue;
            }
            let number = reviews.len() + 1;
            let (Some(best), Some(next)) = (values[index], values[index + 1]) else {
                return None;
            };
            let played_value = if after.side_to_move() == before.side_to_move() {
                next.value
            } else {
                next.value.negate()
            };
            // A played move found as good as the best (a symmetric twin of it, or a deeper
            // look after it) counts as the best.
            let as_good = played == best.best || played_value.discs() >= best.value.discs();
            reviews.push(MoveReview {
                index,
                number,
                color: before.side_to_move(),
                played,
                played_value: if as_good { best.value } else { played_value },
                best: if as_good { played } else { best.best },
                best_value: best.value,
                loss: if as_good {
                    0.0
                } else {
                    best.value.discs() - played_value.discs()
                },
                book: best.book && next.book,
            });
        }
        Some(reviews)
    }

    /// [`Searcher::value_position`] kept as the review needs it; `None` when a stop cut the
    /// search short.
    fn valued(
        &mut self,
        position: &Position,
        levels: &Levels,
        limits_for: &dyn Fn() -> Limits,
    ) -> Option<Valued> {
        let limits = limits_for();
        let report = self.value_position(position, levels, &limits);
        if limits.stop_requested() {
            return None;
        }
        Some(Valued {
            value: report.value,
            best: report.best_move,
            book: report.book.is_some(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::levels::EndgameMode;

    /// Positions and moves of a game from `start` along `moves`.
    fn game(start: Position, moves: &[&str]) -> (Vec<Position>, Vec<Move>) {
        let mut positions = vec![start];
        let mut played = Vec::new();
        for m in moves {
            let mv: Move = m.parse().unwrap();
            let next = positions.last().unwrap().play(mv).unwrap();
            positions.push(next);
            played.push(mv);
        }
        (positions, played)
    }

    #[test]
    fn in_the_solvers_reach_every_loss_is_exact_and_the_best_move_loses_nothing() {
        // FFO #1's position (14 empties) played out by the first legal move in square order:
        // each move's loss is the solver's value of the position minus that of the move.
        let start: Position = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
            .parse()
            .unwrap();
        let mut positions = vec![start];
        let mut moves = Vec::new();
        while !positions.last().unwrap().is_game_over() {
            let p = positions.last().unwrap();
            let mv = p
                .legal_squares()
                .first()
                .copied()
                .map_or(Move::Pass, Move::Play);
            positions.push(p.play(mv).unwrap());
            moves.push(mv);
        }
        let levels = Levels::default();
        let mut searcher = Searcher::new(16, None);
        let mut valued = 0;
        let reviews = searcher
            .review(&positions, &moves, &levels, &Limits::none, &mut |n| {
                valued = n;
                true
            })
            .expect("not stopped");
        assert_eq!(valued, positions.len());
        assert_eq!(
            reviews.len(),
            moves.iter().filter(|m| **m != Move::Pass).count()
        );
        let exact = |p: &Position| {
            Searcher::new(16, None)
                .solve(
                    p,
                    EndgameMode::Exact,
                    levels.midgame,
                    &Limits::none(),
                    &mut |_| {},
                )
                .value
        };
        for r in &reviews {
            assert!(r.exact(), "{r:?}");
            let before = &positions[r.index];
            assert_eq!(r.best_value, exact(before));
            assert_eq!(r.color, before.side_to_move());
            let child = before.play(r.played).unwrap();
            let child_value = if child.is_game_over() {
                Value::Exact(child.final_score())
            } else {
                exact(&child)
            };
            let played = if child.side_to_move() == before.side_to_move() {
                child_value
            } else {
                child_value.negate()
            };
            assert_eq!(r.played_value, played, "{r:?}");
            assert_eq!(r.loss, r.best_value.discs() - played.discs(), "{r:?}");
            assert_eq!(r.loss == 0.0, r.played == r.best, "{r:?}");
            if r.played == r.best {
                assert_eq!(r.loss, 0.0);
                assert_eq!(r.played_value, r.best_value);
            }
        }
        // FFO #1: g8 wins by 18; the first legal move in square order is not it.
        assert_eq!(reviews[0].best_value, Value::Exact(18));
        assert_eq!(reviews[0].best, "g8".parse().unwrap());
        assert!(reviews[0].loss > 0.0);
    }

    #[test]
    fn a_refusing_listener_ends_the_review() {
        let (positions, moves) = game(Position::start(), &["f5", "d6", "c3"]);
        let mut levels = Levels::default();
        levels.set("midgame-depth", "2").unwrap();
        levels.set("opening-depth", "2").unwrap();
        levels.time_decides = false;
        let mut searcher = Searcher::new(4, None);
        let mut heard = 0;
        let out = searcher.review(&positions, &moves, &levels, &Limits::none, &mut |n| {
            heard = n;
            n < 2
        });
        assert_eq!((out, heard), (None, 2));
        let all = searcher.review(&positions, &moves, &levels, &Limits::none, &mut |_| true);
        let all = all.expect("a whole review");
        assert_eq!(all.iter().map(|r| r.index).collect::<Vec<_>>(), [0, 1, 2]);
        assert!(all.iter().all(|r| r.loss >= 0.0 && !r.book));
    }
}
