//! The search against external facts: FFO exact scores and best moves, symmetry, win/draw/loss
//! agreement, and a plain minimax at small depths for every evaluator.

use crate::common;
use crate::common::rng::SplitMix;
use othello_engine::board::{Bits, Move, Position, Square};
use othello_engine::eval::{Evaluator, EvaluatorKind};
use othello_engine::search::{
    EndgameMode, Levels, Limits, PhaseLevel, Searcher, Value, terminal_score,
};
use std::time::{Duration, Instant};

fn fallback() -> PhaseLevel {
    Levels::default().midgame
}

/// Solves every position of an FFO file on `threads` threads and checks the score and that
/// the move is one the file gives that score.
fn check_ffo(file: &str, threads: usize) {
    let mut searcher = Searcher::new(64, None);
    searcher.set_threads(threads);
    for (i, line) in common::obf::read_obf(file).iter().enumerate() {
        searcher.clear();
        let r = searcher.solve(
            &line.position,
            EndgameMode::Exact,
            fallback(),
            &Limits::none(),
            &mut |_| {},
        );
        let (_, best_score) = line.moves[0];
        assert_eq!(
            r.value,
            Value::Exact(best_score),
            "{file} position {}",
            i + 1
        );
        assert!(
            line.moves
                .iter()
                .any(|&(m, s)| m == r.best_move && s == best_score),
            "{file} position {}: {} is not a best move",
            i + 1,
            r.best_move
        );
        assert!(line.position.is_legal(r.best_move));
    }
}

#[test]
fn ffo_1_to_19() {
    check_ffo("fforum-1-19.obf", 1);
}

#[test]
fn ffo_20_to_39() {
    check_ffo("fforum-20-39.obf", 1);
}

/// The threads share a table and put off each other's moves, but the main thread's score is
/// exact whatever they do: the same FFO answers with more threads than cores, too.
#[test]
fn ffo_1_to_19_with_three_threads() {
    check_ffo("fforum-1-19.obf", 3);
}

#[test]
fn ffo_20_to_39_with_two_threads() {
    check_ffo("fforum-20-39.obf", 2);
}

#[test]
fn all_symmetries_give_the_same_exact_score() {
    let lines = common::obf::read_obf("fforum-1-19.obf");
    let mut searcher = Searcher::new(16, None);
    for line in lines.iter().step_by(4) {
        let expected = line.moves[0].1;
        for sym in 0..8u8 {
            searcher.clear();
            let image = line.position.transform(sym);
            let r = searcher.solve(
                &image,
                EndgameMode::Exact,
                fallback(),
                &Limits::none(),
                &mut |_| {},
            );
            assert_eq!(
                r.value,
                Value::Exact(expected),
                "symmetry {sym} of {}",
                line.position.to_obf()
            );
            // The move maps back onto a best move of the original.
            let back = (0..8u8)
                .find(|&inv| {
                    (0..64).all(|sq| {
                        let s = Square::new(sq).expect("index");
                        s.transform(sym).transform(inv) == s
                    })
                })
                .expect("an inverse symmetry");
            let original = r.best_move.transform(back);
            assert!(
                line.moves
                    .iter()
                    .any(|&(m, s)| m == original && s == expected)
            );
        }
    }
}

#[test]
fn win_draw_loss_agrees_with_the_exact_sign() {
    let mut searcher = Searcher::new(16, None);
    for line in common::obf::read_obf("fforum-1-19.obf") {
        let expected = line.moves[0].1.signum();
        for mode in [EndgameMode::Wld, EndgameMode::WinElseLeast] {
            searcher.clear();
            let r = searcher.solve(
                &line.position,
                mode,
                fallback(),
                &Limits::none(),
                &mut |_| {},
            );
            let sign = match r.value {
                Value::Wld(s) => s,
                Value::Exact(s) => {
                    assert!(s < 0, "win-else-least solves exactly only when losing");
                    assert_eq!(s, line.moves[0].1, "the least loss is the exact score");
                    s.signum()
                }
                Value::Estimate(_) => panic!("a solve gives a solved value"),
            };
            assert_eq!(sign, expected, "{mode} of {}", line.position.to_obf());
            let chosen = line
                .moves
                .iter()
                .find(|&&(m, _)| m == r.best_move)
                .expect("a listed move");
            assert_eq!(chosen.1.signum(), expected, "the move keeps the result");
        }
    }
}

/// Plain negamax with the search's conventions: a pass costs no depth, finished games score
/// beyond any evaluation, and a leaf that must pass is evaluated as it stands.
fn minimax(position: &Position, depth: u32, eval: EvaluatorKind) -> i32 {
    let moves = position.legal_moves();
    if moves == 0 {
        if position.pass().must_pass() {
            return terminal_score(position);
        }
        if depth == 0 {
            return eval.evaluate(position);
        }
        return -minimax(&position.pass(), depth, eval);
    }
    if depth == 0 {
        return eval.evaluate(position);
    }
    Bits(moves)
        .map(|sq| {
            let child = position
                .play(Move::Play(Square::new(sq).expect("index")))
                .expect("legal");
            -minimax(&child, depth - 1, eval)
        })
        .max()
        .expect("at least one move")
}

#[test]
fn search_values_equal_plain_minimax_for_every_evaluator() {
    let mut rng = SplitMix(4242);
    let mut positions = Vec::new();
    while positions.len() < 24 {
        let plies = 8 + rng.below(44);
        let mut p = Position::start();
        for _ in 0..plies {
            if p.is_game_over() {
                break;
            }
            let moves: Vec<usize> = Bits(p.legal_moves()).collect();
            p = if moves.is_empty() {
                p.pass()
            } else {
                let sq = Square::new(moves[rng.below(moves.len())]).expect("index");
                p.play(Move::Play(sq)).expect("legal")
            };
        }
        if !p.is_game_over() {
            positions.push(p);
        }
    }
    let mut searcher = Searcher::new(4, None);
    for eval in EvaluatorKind::ALL
        .into_iter()
        .filter(|&e| e != EvaluatorKind::Random)
    {
        for p in &positions {
            for depth in 1..=3 {
                searcher.clear();
                let r =
                    searcher.search(p, PhaseLevel { depth, eval }, &Limits::none(), &mut |_| {});
                let expected = minimax(p, depth, eval);
                assert_eq!(
                    r.value,
                    Value::estimate(expected, &eval),
                    "{eval} depth {depth} {}",
                    p.to_obf()
                );
                // The chosen move achieves the value.
                let child = p.play(r.best_move).expect("legal");
                let achieved = if r.best_move == Move::Pass {
                    -minimax(&child, depth, eval)
                } else {
                    -minimax(&child, depth - 1, eval)
                };
                assert_eq!(
                    achieved, expected,
                    "{eval} depth {depth} move {}",
                    r.best_move
                );
            }
        }
    }
}

#[test]
fn randomness_plays_only_moves_within_its_window_of_the_best() {
    // Depth 3, full width, `pattern`: each drawn move is worth at least the best minus the
    // randomness by plain minimax, and different seeds draw different moves.
    let levels = Levels::preset(3).expect("a preset");
    let p = Position::start()
        .play("f5".parse().unwrap())
        .unwrap()
        .play("d6".parse().unwrap())
        .unwrap();
    let best = minimax(&p, 3, EvaluatorKind::Pattern);
    let window = 500;
    let mut drawn = std::collections::BTreeSet::new();
    for seed in 0..24 {
        let mut searcher = Searcher::new(4, Some(seed));
        searcher.set_randomness(window);
        let report = searcher.think(&p, &levels, &Limits::none(), &mut |_| {});
        let child = p.play(report.best_move).expect("a legal move");
        let value = -minimax(&child, 2, EvaluatorKind::Pattern);
        assert!(
            value >= best - window,
            "{} is worth {value}, best {best}",
            report.best_move
        );
        drawn.insert(report.best_move.to_string());
    }
    assert!(drawn.len() > 1, "{drawn:?}");
    // Without randomness: the best move every time.
    let plain = Searcher::new(4, Some(0)).think(&p, &levels, &Limits::none(), &mut |_| {});
    let child = p.play(plain.best_move).unwrap();
    assert_eq!(-minimax(&child, 2, EvaluatorKind::Pattern), best);
}

#[test]
fn random_evaluator_plays_legal_reproducible_moves() {
    let mut levels = Levels::default();
    levels.set("opening-eval", "random").expect("valid");
    levels.set("midgame-eval", "random").expect("valid");
    let play = |seed| {
        let mut s = Searcher::new(1, Some(seed));
        let mut p = Position::start();
        let mut moves = Vec::new();
        while !p.is_game_over() && p.empty_count() > levels.endgame_empties {
            let r = s.think(&p, &levels, &Limits::none(), &mut |_| {});
            assert!(p.is_legal(r.best_move));
            moves.push(r.best_move);
            p = p.play(r.best_move).expect("legal");
        }
        moves
    };
    assert_eq!(play(5), play(5));
    assert_ne!(play(5), play(6));
}

#[test]
fn a_stopped_search_still_returns_a_legal_move() {
    let position: Position = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"
        .parse()
        .expect("valid");
    let limits = Limits::none();
    limits
        .stop
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let mut s = Searcher::new(1, None);
    let r = s.think(&position, &Levels::default(), &limits, &mut |_| {});
    assert!(position.is_legal(r.best_move));
    assert!(!r.complete);
}

#[test]
fn under_a_clock_the_default_lets_the_time_decide_and_keeps_to_it() {
    // The third position of midgame10.obf.
    let position: Position = "------------------X-O-----XXOO--OOOOO-------XXX-----OX---------- X"
        .parse()
        .expect("valid");
    let timed = Levels::default();
    assert!(timed.time_decides);
    let mut fixed = Levels::default();
    fixed.set("midgame-depth", "4").expect("a depth");
    assert!(!fixed.time_decides);
    let budget = Duration::from_millis(400);
    let mut deepest = [0, 0];
    for (i, levels) in [timed, fixed].iter().enumerate() {
        let mut s = Searcher::new(16, None);
        let started = Instant::now();
        let r = s.think(&position, levels, &Limits::time(budget), &mut |_| {});
        assert!(position.is_legal(r.best_move));
        // Generous for a loaded machine: the point is that the deadline stops the search.
        assert!(started.elapsed() < budget * 3, "{:?}", started.elapsed());
        deepest[i] = r.depth;
    }
    // The fixed level stops at its depth; the default goes past it in the same time.
    assert_eq!(deepest[1], 4);
    assert!(deepest[0] > 4, "{deepest:?}");
}

/// Plain fail-soft alpha-beta over the mailbox rules, no table, ordering or pruning beyond
/// the window: an independent referee for the solver. A value strictly inside the window is
/// the exact value.
fn mailbox_alpha_beta(board: &common::reference::MailboxBoard, mut alpha: i32, beta: i32) -> i32 {
    let moves = board.legal_moves();
    if moves == 0 {
        let mut passed = board.clone();
        passed.pass();
        if passed.legal_moves() == 0 {
            return board.final_score();
        }
        return -mailbox_alpha_beta(&passed, -beta, -alpha);
    }
    let mut best = -65;
    for sq in Bits(moves) {
        let mut child = board.clone();
        child.play(sq);
        let v = -mailbox_alpha_beta(&child, -beta, -alpha);
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// Plain fail-soft alpha-beta over the bitboard rules (checked against the mailbox by perft
/// and the differential tests), with no table and no pruning beyond the window; moves that
/// leave the opponent fewest replies first, so that 14-16 empties take a second, not a
/// minute as unordered on the mailbox.
fn bitboard_alpha_beta(position: &Position, mut alpha: i32, beta: i32) -> i32 {
    let moves = position.legal_moves();
    if moves == 0 {
        let passed = position.pass();
        if passed.legal_moves() == 0 {
            return position.final_score();
        }
        return -bitboard_alpha_beta(&passed, -beta, -alpha);
    }
    let mut children: Vec<Position> = position
        .legal_squares()
        .into_iter()
        .map(|sq| position.play(Move::Play(sq)).unwrap())
        .collect();
    children.sort_by_key(|c| c.legal_moves().count_ones());
    let mut best = -65;
    for child in &children {
        let v = -bitboard_alpha_beta(child, -beta, -alpha);
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The referee's value of `position` in the window: the mailbox up to 13 empties, the
/// ordered bitboard search above.
fn reference(position: &Position, alpha: i32, beta: i32) -> i32 {
    if position.empty_count() <= 13 {
        let board = common::reference::MailboxBoard::from_position(position);
        mailbox_alpha_beta(&board, alpha, beta)
    } else {
        bitboard_alpha_beta(position, alpha, beta)
    }
}

#[test]
fn exact_solves_of_random_endgames_agree_with_plain_alpha_beta() {
    let mut rng = SplitMix(0x5eed_e2d6);
    let mut searcher = Searcher::new(16, None);
    let mut by_empties = [0usize; 17];
    for _ in 0..300 {
        // A random game down to 10-16 empties (a finished game is kept too: the solver scores it).
        let target = 10 + rng.below(7) as u32;
        let mut position = Position::start();
        while position.empty_count() > target && !position.is_game_over() {
            if position.must_pass() {
                position = position.pass();
                continue;
            }
            let moves: Vec<usize> = Bits(position.legal_moves()).collect();
            let sq = Square::new(moves[rng.below(moves.len())]).unwrap();
            position = position.play(Move::Play(sq)).unwrap();
        }
        searcher.clear();
        let r = searcher.solve(
            &position,
            EndgameMode::Exact,
            fallback(),
            &Limits::none(),
            &mut |_| {},
        );
        let Value::Exact(v) = r.value else {
            panic!("no exact value for {}", position.to_obf());
        };
        assert_eq!(
            reference(&position, v - 1, v + 1),
            v,
            "{}",
            position.to_obf()
        );
        if let Move::Play(_) = r.best_move {
            let child = position.play(r.best_move).unwrap();
            assert_eq!(
                -reference(&child, -v - 1, -v + 1),
                v,
                "{}: {} does not reach {v}",
                position.to_obf(),
                r.best_move
            );
        }
        by_empties[position.empty_count().min(16) as usize] += 1;
    }
    assert!(
        by_empties[10..=16].iter().all(|&n| n > 20),
        "{by_empties:?}"
    );
}
