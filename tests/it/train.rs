//! The WTHOR reader against the facts its README states about the game files of data/wthor,
//! and the built-in pattern weights against exact endgame scores.

use crate::common;
use othello_engine::eval::{Evaluator, Pattern};
use othello_engine::game::wthor::{parse_wthor, replay};

#[test]
fn every_wthor_game_replays_and_the_readme_counts_the_finished_ones() {
    let dir = common::data("wthor");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("data/wthor is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wtb"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 44);
    let (mut games, mut finished) = (0usize, 0usize);
    for path in files {
        let file = parse_wthor(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(file.depth, 24, "{}", path.display());
        for game in &file.games {
            games += 1;
            let (positions, end) = replay(&game.moves).unwrap();
            assert_eq!(positions.len(), game.moves.len());
            if end.is_game_over() {
                finished += 1;
            }
        }
    }
    // The README's counts: 124,106 games, of which 433 stop before the game is over.
    assert_eq!(games, 124_106);
    assert_eq!(finished, 124_106 - 433);
}

#[test]
fn the_pattern_evaluator_sees_who_wins_clearly_won_ffo_positions() {
    let (mut clear, mut right) = (0, 0);
    for name in ["fforum-1-19.obf", "fforum-20-39.obf", "fforum-40-59.obf"] {
        for obf in common::obf::read_obf(name) {
            let Some(best) = obf.moves.iter().map(|m| m.1).max() else {
                continue;
            };
            if best.abs() < 10 {
                continue;
            }
            clear += 1;
            let estimate = Pattern.evaluate(&obf.position);
            if estimate.signum() == best.signum() {
                right += 1;
            }
        }
    }
    eprintln!("{right} of {clear} clearly decided positions named right");
    assert!(clear >= 10, "only {clear} clearly decided positions");
    // A static evaluation is no solver, but on positions won or lost by 10 discs or more it
    // should name the winner nearly always.
    assert!(right * 10 >= clear * 8, "{right} of {clear} right");
}
