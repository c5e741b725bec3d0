//! Depth-limited principal-variation search with an evaluator and the transposition table, and
//! the score scale it shares with the reports: evaluations below [`WIN`], finished games above.

use super::limits::Stopper;
use super::probcut::{self, MpcTable, Selectivity};
use super::threads::{Busy, Deferrer};
use super::tt::{KIND_ENDGAME, NO_MOVE, TranspositionTable};
use crate::board::{Bits, CORNERS, Position, legal_moves};
use crate::eval::{EVAL_LIMIT, Evaluator, EvaluatorKind};

/// Scores beyond this are finished games: `WIN + 100 x discs` (negated for losses).
pub const WIN: i32 = 40_000;
/// Wider than any score.
pub const INFINITY: i32 = 100_000;

/// The score of a finished game for the side to move, above every evaluation.
#[inline]
pub fn terminal_score(position: &Position) -> i32 {
    let s = position.final_score();
    match s.signum() {
        1 => WIN + 100 * s,
        -1 => -WIN + 100 * s,
        _ => 0,
    }
}

/// From this many plies left on, children are sorted by their static evaluation: the subtree
/// below is big enough to repay an evaluation per child. Nearer the leaves, the opponent's
/// mobility is cheaper and orders as well (measured on `bench --depth 13 --eval pattern`:
/// 104.6 M nodes from 5 plies on, 116.5 M from 3).
const EVAL_ORDER_DEPTH: u32 = 5;
/// From this many plies left on, nodes use the transposition table: below it a table probe (a
/// cache miss) costs more than the few leaves it could save.
const TABLE_MIN_DEPTH: u32 = 2;
/// From this many plies left on, a node looks its children up in the table before searching
/// any (enhanced transposition cut-off): a child already shown to be at most `-beta` deep
/// enough refutes the node at the cost of a few probes. Measured on `bench --depth 15 --eval
/// pattern --selectivity 95`: 72.3 M nodes without, 69.1 M from 6 plies on.
const ETC_MIN_DEPTH: u32 = 6;
/// From this many plies left on, a node with no table move first searches itself this many
/// plies shallower for one (internal iterative deepening): the best move of the shallow search
/// is usually the best one. Together with the cut-off above: 67.1 M nodes, 7% less time.
const IID_MIN_DEPTH: u32 = 8;
const IID_REDUCTION: u32 = 4;
/// With several threads, from this many plies left on a node puts off the moves another
/// thread is searching (see `threads.rs`).
const SPLIT_DEPTH: u32 = 4;
/// The mobility sort key: this much per reply left to the opponent (corner replies twice)...
const REPLY_WEIGHT: i32 = 16;
/// ... less this much for taking a corner (worth two replies).
const CORNER_BONUS: i32 = 32;
/// More legal moves than any Othello position has.
const MAX_MOVES: usize = 36;

/// A node's moves on the stack: square, flips and sort key, picked best first.
struct MoveList {
    moves: [(u8, u64, i32); MAX_MOVES],
    len: usize,
}

impl MoveList {
    /// Takes out the move with the lowest key (the best for the side to move), if any.
    #[inline]
    fn next_best(&mut self) -> Option<(u8, u64)> {
        if self.len == 0 {
            return None;
        }
        let mut best = 0;
        for i in 1..self.len {
            if self.moves[i].2 < self.moves[best].2 {
                best = i;
            }
        }
        let (sq, flips, _) = self.moves[best];
        self.len -= 1;
        self.moves[best] = self.moves[self.len];
        Some((sq, flips))
    }
}

/// The midgame search's state for one search.
pub(crate) struct Midgame<'a, E: Evaluator> {
    pub tt: &'a TranspositionTable,
    pub eval: &'a E,
    pub nodes: u64,
    pub stopper: &'a mut Stopper,
    /// The selectivity of this search; with a table (calibrated for `E`), nodes with a null
    /// window try Multi-ProbCut cuts at `t` (see `probcut.rs`).
    pub selectivity: Selectivity,
    pub probcut: Option<&'a MpcTable>,
    /// With several threads, the moves being searched by others (see `threads.rs`).
    pub busy: Option<&'a Busy>,
}

impl<E: Evaluator> Midgame<'_, E> {
    /// The table kind of this search's entries: the evaluator's ID. Compiling the search for
    /// an evaluator whose ID is the endgame's, or for the run-time [`EvaluatorKind`], fails.
    pub const KIND: u8 = {
        assert!(E::ID != KIND_ENDGAME, "the endgame's table kind");
        assert!(
            E::ID != <EvaluatorKind as Evaluator>::ID,
            "search with a concrete evaluator (EvaluatorKind::dispatch)"
        );
        E::ID
    };

    /// The depth byte of this search's table entries: depth and selectivity in one number, so
    /// that an entry answers a node only when it was searched at least as deep and at least
    /// as wide (deeper counts first).
    #[inline]
    fn table_depth(&self, depth: u32) -> u8 {
        (depth.min(41) * 6 + u32::from(self.selectivity.index())) as u8
    }

    /// Multi-ProbCut at a null-window node `depth` deep: `Some(value)` when a shallow search
    /// predicts, with the search's confidence, that the deep value is at least `beta` or at
    /// most `alpha` (= `beta - 1`).
    fn probcut(
        &mut self,
        position: &Position,
        state: &E::State,
        depth: u32,
        beta: i32,
    ) -> Option<i32> {
        let table = self.probcut?;
        let cut = probcut::cut(
            table,
            position.empty_count(),
            depth,
            beta,
            self.selectivity.t(),
        )?;
        if cut.high <= EVAL_LIMIT {
            let (v, _) = self.search(position, state, cut.depth, cut.high - 1, cut.high);
            if v >= cut.high && !self.stopper.stopped() {
                return Some(beta);
            }
        }
        if cut.low >= -EVAL_LIMIT {
            let (v, _) = self.search(position, state, cut.depth, cut.low, cut.low + 1);
            if v <= cut.low && !self.stopper.stopped() {
                return Some(beta - 1);
            }
        }
        None
    }

    #[inline]
    fn evaluate(&self, state: &E::State, position: &Position) -> i32 {
        self.eval
            .evaluate_with(state, position)
            .clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The enhanced transposition cut-off: the value and move of a child whose table entry,
    /// searched at least `depth - 1` plies deep and as wide as this search, proves the node
    /// worth at least `beta`.
    fn transposition_cutoff(
        &self,
        position: &Position,
        moves: u64,
        depth: u32,
        beta: i32,
    ) -> Option<(i32, u8)> {
        let child_depth = self.table_depth(depth - 1);
        let (p, o) = (position.player(), position.opponent());
        for sq in Bits(moves) {
            let child = position.play_flips(1u64 << sq, crate::board::flips(p, o, sq));
            if let Some(e) = self.tt.probe(child.player(), child.opponent(), Self::KIND)
                && e.depth >= child_depth
                && -e.upper >= beta
            {
                return Some((-e.upper, sq as u8));
            }
        }
        None
    }

    /// The moves of `moves` in search order by their keys: by a one-ply evaluation when deep
    /// enough (lowest first: it is the opponent's score), else by the opponent's mobility
    /// (corners count double) with corners early. The table move is not among them: it is
    /// searched before the list is made (see [`Midgame::search`]).
    fn ordered_moves(
        tt: &TranspositionTable,
        eval: &E,
        position: &Position,
        state: &E::State,
        moves: u64,
        depth: u32,
    ) -> MoveList {
        let mut list = MoveList {
            moves: [(0, 0, 0); MAX_MOVES],
            len: 0,
        };
        let (p, o) = (position.player(), position.opponent());
        for sq in Bits(moves) {
            let bit = 1u64 << sq;
            let flips = crate::board::flips(p, o, sq);
            let key = if depth >= EVAL_ORDER_DEPTH {
                let child = position.play_flips(bit, flips);
                tt.prefetch(child.player(), child.opponent());
                // Only the child's score is wanted: the leaf update, not the full state.
                eval.leaf_score(state, &child, sq, flips)
                    .clamp(-EVAL_LIMIT, EVAL_LIMIT)
            } else {
                let replies = legal_moves(o & !flips, p | flips | bit);
                let mut key =
                    REPLY_WEIGHT * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
                if bit & CORNERS != 0 {
                    key -= CORNER_BONUS;
                }
                key
            };
            list.moves[list.len] = (sq as u8, flips, key);
            list.len += 1;
        }
        list
    }

    /// The value of the leaf `child`, reached by the side to move of a position whose state
    /// is `state` playing on `square` and turning `flips`: the final score of a finished game
    /// (a full board or a side without discs; the rare game where both sides are blocked
    /// with squares left is evaluated), else the evaluation.
    #[inline]
    fn leaf(&self, child: &Position, state: &E::State, square: usize, flips: u64) -> i32 {
        if child.empty() == 0 || child.player() == 0 {
            return terminal_score(child);
        }
        self.eval
            .leaf_score(state, child, square, flips)
            .clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// A node with one ply left: each child is a leaf, searched in board order with no table
    /// and no sorting (they would cost more than the leaves), until one refutes `beta`.
    fn last_ply(
        &mut self,
        position: &Position,
        state: &E::State,
        moves: u64,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, u8) {
        let (p, o) = (position.player(), position.opponent());
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        for sq in Bits(moves) {
            let flips = crate::board::flips(p, o, sq);
            let child = position.play_flips(1u64 << sq, flips);
            self.nodes += 1;
            let v = -self.leaf(&child, state, sq, flips);
            if v > best {
                best = v;
                best_move = sq as u8;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_move)
    }

    /// The value of `position` (whose evaluator state is `state`) searched `depth` plies deep
    /// in the window `alpha..beta` (fail-soft), and its best move (`NO_MOVE` when it has
    /// none). A pass costs no depth.
    pub fn search(
        &mut self,
        position: &Position,
        state: &E::State,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, u8) {
        self.nodes += 1;
        if self.stopper.poll(self.nodes) {
            return (0, NO_MOVE);
        }
        let moves = position.legal_moves();
        if moves == 0 {
            if legal_moves(position.opponent(), position.player()) == 0 {
                return (terminal_score(position), NO_MOVE);
            }
            if depth == 0 {
                return (self.evaluate(state, position), NO_MOVE);
            }
            let passed = self.eval.pass(state);
            return (
                -self
                    .search(&position.pass(), &passed, depth, -beta, -alpha)
                    .0,
                NO_MOVE,
            );
        }
        if depth == 0 {
            return (self.evaluate(state, position), NO_MOVE);
        }
        if depth == 1 {
            return self.last_ply(position, state, moves, alpha, beta);
        }
        let (p, o) = (position.player(), position.opponent());
        let mut tt_move = NO_MOVE;
        if depth >= TABLE_MIN_DEPTH
            && let Some(e) = self.tt.probe(p, o, Self::KIND)
        {
            if e.depth >= self.table_depth(depth) {
                if e.lower >= beta || e.lower == e.upper {
                    return (e.lower, e.best);
                }
                if e.upper <= alpha {
                    return (e.upper, e.best);
                }
            }
            tt_move = e.best;
        }
        if depth >= probcut::MIN_DEPTH
            && beta == alpha + 1
            && beta.abs() < WIN
            && let Some(v) = self.probcut(position, state, depth, beta)
        {
            return (v, NO_MOVE);
        }
        if depth >= ETC_MIN_DEPTH
            && let Some(refutation) = self.transposition_cutoff(position, moves, depth, beta)
        {
            return refutation;
        }
        if tt_move == NO_MOVE && depth >= IID_MIN_DEPTH {
            let (_, shallow_best) =
                self.search(position, state, depth - IID_REDUCTION, alpha, beta);
            if self.stopper.stopped() {
                return (0, NO_MOVE);
            }
            tt_move = shallow_best;
        }
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        // The table move first, and the others ordered only if it does not refute the node:
        // it usually does, and ordering costs each move its flips and a mobility count or an
        // evaluation (3% of the instructions of `bench --eval pattern`).
        let table_move = (tt_move < 64 && moves & (1u64 << tt_move) != 0)
            .then(|| (tt_move, crate::board::flips(p, o, usize::from(tt_move))));
        let rest = moves & !table_move.map_or(0, |(sq, _)| 1u64 << sq);
        let (tt, eval) = (self.tt, self.eval);
        let mut list = None;
        let mut listed = table_move.into_iter().chain(std::iter::from_fn(|| {
            list.get_or_insert_with(|| Self::ordered_moves(tt, eval, position, state, rest, depth))
                .next_best()
        }));
        let mut first = true;
        let mut split = Deferrer::new(self.busy.filter(|_| depth >= SPLIT_DEPTH));
        while let Some((sq, flips)) = split.next_move(&mut listed, p, o) {
            let child = position.play_flips(1u64 << sq, flips);
            let Some(claim) = split.start(sq, child.player(), child.opponent()) else {
                continue;
            };
            let child_state = self.eval.play(state, sq as usize, flips);
            let v = if first {
                first = false;
                -self
                    .search(&child, &child_state, depth - 1, -beta, -alpha)
                    .0
            } else {
                let mut v = -self
                    .search(&child, &child_state, depth - 1, -alpha - 1, -alpha)
                    .0;
                if v > alpha && v < beta {
                    v = -self.search(&child, &child_state, depth - 1, -beta, -v).0;
                }
                v
            };
            split.finish(claim);
            if self.stopper.stopped() {
                return (best, best_move);
            }
            if v > best {
                best = v;
                best_move = sq;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if depth >= TABLE_MIN_DEPTH {
            let lower = if best > original_alpha {
                best
            } else {
                -INFINITY
            };
            let upper = if best < beta { best } else { INFINITY };
            self.tt.store(
                (p, o),
                Self::KIND,
                self.table_depth(depth),
                lower,
                upper,
                best_move,
            );
        }
        (best, best_move)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{Pattern, PatternFull, PatternWthor};
    use crate::search::limits::Limits;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// An evaluator that scores like `E` and checks, at every node, that the score from the
    /// state the search carried equals the score computed from scratch.
    struct Checked<E> {
        inner: E,
        checks: AtomicU64,
    }

    impl<E: Evaluator> Evaluator for Checked<E> {
        const ID: u8 = 200;
        type State = E::State;

        fn evaluate(&self, position: &Position) -> i32 {
            self.inner.evaluate(position)
        }

        fn state(&self, position: &Position) -> E::State {
            self.inner.state(position)
        }

        fn play(&self, state: &E::State, square: usize, flips: u64) -> E::State {
            self.inner.play(state, square, flips)
        }

        fn pass(&self, state: &E::State) -> E::State {
            self.inner.pass(state)
        }

        fn evaluate_with(&self, state: &E::State, position: &Position) -> i32 {
            let score = self.inner.evaluate_with(state, position);
            assert_eq!(score, self.inner.evaluate(position), "{position:?}");
            self.checks.fetch_add(1, Ordering::Relaxed);
            score
        }

        fn leaf_score(&self, state: &E::State, child: &Position, square: usize, flips: u64) -> i32 {
            let score = self.inner.leaf_score(state, child, square, flips);
            assert_eq!(score, self.inner.evaluate(child), "{child:?}");
            self.checks.fetch_add(1, Ordering::Relaxed);
            score
        }
    }

    /// Positions along random games, with the passes they meet.
    fn random_positions(games: usize, seed: u64) -> (Vec<Position>, usize) {
        let mut state = seed;
        let (mut out, mut passes) = (Vec::new(), 0);
        for _ in 0..games {
            let mut position = Position::start();
            while !position.is_game_over() {
                if position.must_pass() {
                    position = position.pass();
                    passes += 1;
                }
                out.push(position);
                let moves: Vec<usize> = Bits(position.legal_moves()).collect();
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let sq = moves[(state >> 33) as usize % moves.len()];
                let flips = crate::board::flips(position.player(), position.opponent(), sq);
                position = position.play_flips(1 << sq, flips);
            }
        }
        (out, passes)
    }

    fn check_searches<E: Evaluator>(inner: E) {
        let (positions, passes) = random_positions(40, 5);
        assert!(passes > 0, "the games meet no pass");
        let eval = Checked {
            inner,
            checks: AtomicU64::new(0),
        };
        let tt = TranspositionTable::new(1);
        let mut stopper = Stopper::new(&Limits::none());
        let mut search = full_width(&tt, &eval, &mut stopper);
        // Every fourth position, searched 4 plies deep: the searches meet the passes and the
        // finished games near the end of the random games.
        for position in positions.iter().step_by(4) {
            let state = eval.state(position);
            search.search(position, &state, 4, -INFINITY, INFINITY);
        }
        let checks = eval.checks.load(Ordering::Relaxed);
        assert!(checks > 100_000, "{checks} checks");
    }

    /// A full-width search with `eval`.
    fn full_width<'a, E: Evaluator>(
        tt: &'a TranspositionTable,
        eval: &'a E,
        stopper: &'a mut Stopper,
    ) -> Midgame<'a, E> {
        Midgame {
            tt,
            eval,
            nodes: 0,
            stopper,
            selectivity: Selectivity::FULL,
            probcut: None,
            busy: None,
        }
    }

    /// Plain negamax without pruning, table or selectivity, scoring leaves as the search
    /// does: the reference a full-width search must equal.
    fn negamax<E: Evaluator>(eval: &E, position: &Position, depth: u32) -> i32 {
        let moves = position.legal_moves();
        if moves == 0 {
            if legal_moves(position.opponent(), position.player()) == 0 {
                return terminal_score(position);
            }
            if depth == 0 {
                return eval.evaluate(position).clamp(-EVAL_LIMIT, EVAL_LIMIT);
            }
            return -negamax(eval, &position.pass(), depth);
        }
        if depth == 0 {
            return eval.evaluate(position).clamp(-EVAL_LIMIT, EVAL_LIMIT);
        }
        let mut best = -INFINITY;
        for sq in Bits(moves) {
            let flips = crate::board::flips(position.player(), position.opponent(), sq);
            let child = position.play_flips(1u64 << sq, flips);
            let v = if depth == 1 {
                if child.empty() == 0 || child.player() == 0 {
                    -terminal_score(&child)
                } else {
                    -eval.evaluate(&child).clamp(-EVAL_LIMIT, EVAL_LIMIT)
                }
            } else {
                -negamax(eval, &child, depth - 1)
            };
            best = best.max(v);
        }
        best
    }

    #[test]
    fn full_width_search_equals_plain_negamax() {
        let (positions, _) = random_positions(12, 11);
        let eval = Pattern;
        let mut checked = 0;
        for (i, position) in positions.iter().enumerate().step_by(3) {
            let depth = 1 + (i as u32 % 4);
            let tt = TranspositionTable::new(1);
            let mut stopper = Stopper::new(&Limits::none());
            let mut search = full_width(&tt, &eval, &mut stopper);
            let state = eval.state(position);
            let (v, _) = search.search(position, &state, depth, -INFINITY, INFINITY);
            assert_eq!(
                v,
                negamax(&eval, position, depth),
                "{position:?} depth {depth}"
            );
            checked += 1;
        }
        assert!(checked > 50, "{checked} positions");
    }

    #[test]
    fn incremental_scores_equal_fresh_scores_at_every_node_of_searches() {
        check_searches(Pattern);
        check_searches(PatternFull);
        check_searches(PatternWthor);
    }
}
