use super::*;
use crate::board::legal_moves;
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
pub(crate) fn random_positions(games: usize, seed: u64) -> (Vec<Position>, usize) {
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
pub(crate) fn full_width<'a, E: Evaluator>(
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
pub(crate) fn negamax<E: Evaluator>(eval: &E, position: &Position, depth: u32) -> i32 {
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
