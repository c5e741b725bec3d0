//! Every evaluator that estimates a score does so in discs: regressed against the exact final
//! disc differences of late positions from expert games, the best scale is close to one disc
//! per disc. Protocols report these values to GUIs, which show them as discs.

use crate::common;
use othello_engine::board::{Move, Position};
use othello_engine::eval::{EvaluatorKind, evaluate_in_discs};
use othello_engine::game::wthor::parse_wthor;
use othello_engine::search::Searcher;

/// Positions at 12 to 18 empties of every 20th game of three WTHOR years, with their exact
/// scores for the side to move. The scales were fitted on other years (1990, 1995, 2000, 2004,
/// 2010, 2015), so this is a held-out check.
fn solved_late_positions() -> Vec<(Position, i32)> {
    let mut searcher = Searcher::new(16, None);
    let mut solved = Vec::new();
    for year in [1985, 2007, 2012] {
        let path = common::data(&format!("wthor/WTH_{year}.wtb"));
        let file = parse_wthor(&std::fs::read(&path).expect("the WTHOR file is readable"))
            .expect("the WTHOR file parses");
        for (g, game) in file.games.iter().enumerate().filter(|(g, _)| g % 20 == 0) {
            let wanted = 12 + (g / 20 % 7) as u32;
            let mut position = Position::start();
            for &square in &game.moves {
                if position.must_pass() {
                    position = position.pass();
                }
                if position.empty_count() == wanted {
                    break;
                }
                let Ok(next) = position.play(Move::Play(square)) else {
                    break;
                };
                position = next;
            }
            if position.empty_count() != wanted || position.must_pass() {
                continue;
            }
            let (exact, _) = searcher.solve_window(&position, -64, 64);
            solved.push((position, exact));
        }
    }
    solved
}

#[test]
fn estimating_evaluators_are_in_discs() {
    let positions = solved_late_positions();
    assert!(positions.len() >= 200, "only {} positions", positions.len());
    for kind in [
        EvaluatorKind::Classic,
        EvaluatorKind::Weighted,
        EvaluatorKind::PatternWthor,
        EvaluatorKind::Pattern,
    ] {
        // The least-squares scale k of exact ~ k * estimate is 1 when the estimate is in discs.
        let pairs: Vec<(f64, f64)> = positions
            .iter()
            .map(|(p, exact)| (evaluate_in_discs(kind, p), f64::from(*exact)))
            .collect();
        let xx: f64 = pairs.iter().map(|(x, _)| x * x).sum();
        let k = pairs.iter().map(|(x, y)| x * y).sum::<f64>() / xx;
        let residual: f64 = pairs.iter().map(|(x, y)| (y - k * x).powi(2)).sum();
        let standard_error = (residual / (pairs.len() - 1) as f64 / xx).sqrt();
        eprintln!(
            "{kind}: exact = {k:.3} (+- {standard_error:.3}) x estimate over {} positions",
            pairs.len()
        );
        // Within 30% of one disc a disc, or (for an evaluator that barely predicts the margin,
        // whose fitted scale is uncertain) within three standard errors.
        assert!(
            (k - 1.0).abs() <= 0.3_f64.max(3.0 * standard_error),
            "{kind}: scale {k:.3} +- {standard_error:.3}, not in discs"
        );
    }
}
#[test]
fn disc_counting_evaluators_count_discs() {
    let p = Position::start()
        .play("f5".parse().expect("f5 is a move"))
        .expect("f5 is legal");
    // White to move with one disc against four.
    assert_eq!(evaluate_in_discs(EvaluatorKind::Discs, &p), -3.0);
    assert_eq!(evaluate_in_discs(EvaluatorKind::DiscsInverse, &p), 3.0);
}
