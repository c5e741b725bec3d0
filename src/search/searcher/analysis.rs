//! Multi-PV analysis: a value for every move of a position, not only the best (NBoard's
//! `hint n`), found by searching the position after each move.

use super::Searcher;
use crate::board::{Move, Position};
use crate::search::levels::{Levels, Phase};
use crate::search::limits::Limits;
use crate::search::report::SearchReport;
use std::sync::atomic::Ordering;

/// Above this many empties, quick estimating rounds come before the endgame solve, which may
/// take long: they give the user something to look at meanwhile.
const ESTIMATE_ROUNDS_ABOVE_EMPTIES: u32 = 12;
/// The estimating rounds before a solve search the moves to at most this depth.
const ESTIMATE_ROUNDS_MAX_DEPTH: u32 = 8;

impl Searcher {
    /// Scores every move of `position` by searching the position after it, deeper each round
    /// (one exact solve in the endgame), and reports the best `count` moves of each finished
    /// round through `print`, best first; a stop ends it between rounds' moves and drops the
    /// unfinished round. Returns the best move's report of the last finished round and the
    /// nodes searched. In the book, its moves come first (best first, once): when they are
    /// fewer than `count`, the other moves are searched for the rest, and the book's best
    /// move is the one returned.
    pub fn top_moves(
        &mut self,
        position: &Position,
        levels: &Levels,
        limits: &Limits,
        count: usize,
        print: &mut dyn FnMut(&SearchReport),
    ) -> (Option<SearchReport>, u64) {
        let book = self.book_reports(position).unwrap_or_default();
        book.iter().take(count).for_each(&mut *print);
        let legal = position.legal_squares().len();
        if !book.is_empty() && (book.len() >= count || book.len() >= legal) {
            return (book.into_iter().next(), 0);
        }
        let in_book: Vec<Move> = book.iter().map(|r| r.best_move).collect();
        let count = count - book.len();
        let book_best = book.into_iter().next();
        let (best, nodes) = self.search_top_moves(position, levels, limits, &in_book, count, print);
        (book_best.or(best), nodes)
    }

    /// [`Searcher::top_moves`]'s rounds over the moves not in `skip`.
    fn search_top_moves(
        &mut self,
        position: &Position,
        levels: &Levels,
        limits: &Limits,
        skip: &[Move],
        count: usize,
        print: &mut dyn FnMut(&SearchReport),
    ) -> (Option<SearchReport>, u64) {
        self.tt.new_search();
        let max_depth = levels.phase_level(levels.phase(position)).depth.max(2);
        let solving = levels.phase(position) == Phase::Endgame;
        // Rounds as (child depth, whether the child is solved).
        let rounds: Vec<(u32, bool)> = if solving {
            let estimates = if position.empty_count() > ESTIMATE_ROUNDS_ABOVE_EMPTIES {
                max_depth.min(ESTIMATE_ROUNDS_MAX_DEPTH)
            } else {
                1
            };
            (1..estimates)
                .map(|d| (d, false))
                .chain([(max_depth - 1, true)])
                .collect()
        } else {
            (1..max_depth).map(|d| (d, false)).collect()
        };
        let (mut best, mut nodes) = (None, 0);
        for (child_depth, solve) in rounds {
            let mut child_levels = *levels;
            child_levels.opening.depth = child_depth;
            child_levels.midgame.depth = child_depth;
            if !solve {
                child_levels.endgame_empties = 0;
            }
            let mut round = Vec::new();
            for square in position.legal_squares() {
                let mv = Move::Play(square);
                if skip.contains(&mv) {
                    continue;
                }
                let Ok(child) = position.play(mv) else {
                    continue;
                };
                let reply = self.think(&child, &child_levels, limits, &mut |_| {});
                nodes += reply.nodes;
                if limits.stop.load(Ordering::Relaxed) || !reply.complete {
                    return (best, nodes);
                }
                let mut pv = vec![mv];
                pv.extend(reply.pv);
                round.push(SearchReport {
                    depth: child_depth + 1,
                    pv,
                    nodes,
                    elapsed: reply.elapsed,
                    ..SearchReport::immediate(mv, reply.value.negate())
                });
            }
            round.sort_by(|a, b| b.value.discs().total_cmp(&a.value.discs()));
            round.iter().take(count).for_each(&mut *print);
            best = round.into_iter().next();
        }
        (best, nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::levels::EndgameMode;
    use crate::search::report::Value;

    /// The reports `top_moves` prints with `count` 3.
    fn ranked(position: &Position, levels: &Levels) -> Vec<SearchReport> {
        let mut printed = Vec::new();
        let mut searcher = Searcher::new(4, Some(1));
        let (best, nodes) = searcher.top_moves(position, levels, &Limits::none(), 3, &mut |r| {
            printed.push(r.clone())
        });
        // The best move is the first of the last round (every round here prints 3).
        let best = best.expect("a finished round");
        assert_eq!(best, printed[printed.len() - 3]);
        assert!(nodes >= best.nodes);
        printed
    }

    #[test]
    fn each_round_ranks_the_moves_best_first() {
        let mut levels = Levels::default();
        levels.set("midgame-depth", "3").unwrap();
        levels.set("opening-depth", "3").unwrap();
        let p = Position::start().play("f5".parse().unwrap()).unwrap();
        let printed = ranked(&p, &levels);
        // Three moves for each of the child depths 1 and 2.
        let depths: Vec<u32> = printed.iter().map(|r| r.depth).collect();
        assert_eq!(depths, [2, 2, 2, 3, 3, 3]);
        for round in printed.chunks(3) {
            assert!(
                round
                    .windows(2)
                    .all(|w| w[0].value.discs() >= w[1].value.discs())
            );
            assert!(
                round
                    .iter()
                    .all(|r| p.is_legal(r.best_move) && r.pv[0] == r.best_move)
            );
        }
    }

    #[test]
    fn the_endgame_is_estimated_then_solved() {
        let p: Position = "----OX----OOXX---OOOXX-XOOXXOOOOOXXOXXOOOXXXOOOOOXXXXOXO--OOOOOX X"
            .parse()
            .unwrap();
        let levels = Levels::preset(4).unwrap();
        assert_eq!(p.empty_count(), 14);
        let printed = ranked(&p, &levels);
        let solved: Vec<&SearchReport> = printed
            .iter()
            .filter(|r| matches!(r.value, Value::Exact(_)))
            .collect();
        // Estimating rounds at child depths 1 to 3, then the solve.
        assert_eq!(printed.len(), 3 * 4);
        assert_eq!(solved.len(), 3);
        let exact = Searcher::new(4, None).solve(
            &p,
            EndgameMode::Exact,
            levels.midgame,
            &Limits::none(),
            &mut |_| {},
        );
        assert_eq!(solved[0].value, exact.value);
    }

    #[test]
    fn the_book_speaks_first_and_the_search_names_the_rest() {
        // A book that knows one reply to f5, d6 at +1.00.
        let f5 = Position::start().play("f5".parse().unwrap()).unwrap();
        let d6: Move = "d6".parse().unwrap();
        let Move::Play(d6_square) = d6 else {
            unreachable!()
        };
        let mut book = crate::search::book::Book::new();
        book.insert(
            f5.player(),
            f5.opponent(),
            &[(d6_square.index() as u8, 100)],
            0,
            4,
        );
        let mut levels = Levels::default();
        levels.set("midgame-depth", "2").unwrap();
        levels.set("opening-depth", "2").unwrap();
        let mut searcher = Searcher::new(4, Some(1));
        searcher.set_book(Some(std::sync::Arc::new(book)), 0);
        let mut printed = Vec::new();
        let (best, nodes) = searcher.top_moves(&f5, &levels, &Limits::none(), 3, &mut |r| {
            printed.push(r.clone())
        });
        // The book line once, then the two other moves searched (one round, at child depth 1).
        assert_eq!(printed.len(), 3, "{printed:?}");
        assert_eq!(
            (printed[0].best_move, printed[0].book.is_some()),
            (d6, true)
        );
        assert_eq!(printed[0].value, Value::Estimate(100));
        let searched: Vec<Move> = printed[1..].iter().map(|r| r.best_move).collect();
        assert!(
            searched.iter().all(|&m| m != d6 && f5.is_legal(m)),
            "{searched:?}"
        );
        assert!(printed[1..].iter().all(|r| r.book.is_none()));
        assert_eq!(best.map(|b| b.best_move), Some(d6));
        assert!(nodes > 0);
        // Asked for one line, the book alone answers.
        let mut lines = 0;
        let (_, nodes) = searcher.top_moves(&f5, &levels, &Limits::none(), 1, &mut |_| lines += 1);
        assert_eq!((lines, nodes), (1, 0));
    }

    #[test]
    fn a_stop_drops_the_unfinished_round() {
        let limits = Limits::none();
        limits.stop.store(true, Ordering::Relaxed);
        let mut searcher = Searcher::new(1, None);
        let mut printed = 0;
        let (best, _) = searcher.top_moves(
            &Position::start(),
            &Levels::default(),
            &limits,
            4,
            &mut |_| printed += 1,
        );
        assert!(best.is_none());
        assert_eq!(printed, 0);
    }
}
