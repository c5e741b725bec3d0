//! WTHOR games as datagen's source: labelled by the solver from the solve point, and valued by
//! the search before it.

use super::{datagen, position};
use crate::common::{data, temp_dir};
use othello_engine::eval::EvaluatorKind;
use othello_engine::fit::dataset::{FLAG_EXACT, FLAG_WTHOR, Sample, read_dataset};
use othello_engine::search::{Limits, PhaseLevel, Searcher};

/// With `--depth 0` the positions before the solve point keep the game's ending as their value.
#[test]
fn wthor_games_are_labelled_by_the_solver() {
    let wthor = data("wthor");
    let dir = temp_dir("datagen-wthor");
    let out = dir.join("wthor.bin");
    let flags = [
        "--wthor",
        wthor.to_str().unwrap(),
        "--games",
        "4",
        "--solve-empties",
        "10",
        "--depth",
        "0",
    ];
    datagen(&flags, &out);
    let samples = read_dataset(&out).unwrap();
    assert!(!samples.is_empty());
    let mut searcher = Searcher::new(16, None);
    for game in 0..4 {
        let of_game: Vec<&Sample> = samples.iter().filter(|s| s.game == game).collect();
        // One ending for the whole game, seen from each side to move. Black moves when the
        // disc count is even until someone passes, which expert games never do this early.
        let black_endings: Vec<i8> = of_game
            .iter()
            .take(20)
            .map(|s| {
                let black_moves = (s.player | s.opponent).count_ones() % 2 == 0;
                if black_moves { s.ending } else { -s.ending }
            })
            .collect();
        assert!(!of_game.is_empty(), "game {game}");
        let first_exact = of_game.iter().find(|s| s.is_exact()).unwrap();
        assert_eq!(first_exact.ending, first_exact.value);
        for s in &of_game {
            assert_eq!(s.flags & FLAG_WTHOR, FLAG_WTHOR);
            assert_eq!(s.flags & FLAG_EXACT != 0, s.empties <= 10);
            if !s.is_exact() {
                assert_eq!(s.value, s.ending);
            }
        }
        for s in of_game.iter().filter(|s| s.is_exact()).take(3) {
            let (exact, _) = searcher.solve_window(&position(s), -65, 65);
            assert_eq!(i32::from(s.value), exact, "{s:?}");
        }
        assert!(
            black_endings.iter().all(|&e| e == black_endings[0]),
            "game {game}: {black_endings:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// With a depth, the positions of a WTHOR game before the solve point are valued by our
/// search at that depth (one ply: the best child's evaluation, which no table entry changes).
#[test]
fn wthor_positions_before_the_solve_point_are_valued_by_the_search() {
    let wthor = data("wthor");
    let dir = temp_dir("datagen-wthor-search");
    let out = dir.join("wthor.bin");
    let flags = [
        "--wthor",
        wthor.to_str().unwrap(),
        "--games",
        "3",
        "--solve-empties",
        "8",
        "--depth",
        "1",
    ];
    datagen(&flags, &out);
    let samples = read_dataset(&out).unwrap();
    let searched: Vec<&Sample> = samples.iter().filter(|s| !s.is_exact()).collect();
    assert!(
        searched.len() > 100,
        "{} searched positions",
        searched.len()
    );
    let level = PhaseLevel {
        depth: 1,
        eval: EvaluatorKind::Pattern,
    };
    let mut differ_from_ending = 0;
    for s in searched {
        let mut searcher = Searcher::new(16, None);
        let report = searcher.search(&position(s), level, &Limits::none(), &mut |_| {});
        let value = report.value.discs().round().clamp(-64.0, 64.0) as i8;
        assert_eq!(s.value, value, "{s:?}");
        differ_from_ending += usize::from(s.value != s.ending);
    }
    assert!(differ_from_ending > 0);
    let _ = std::fs::remove_dir_all(&dir);
}
