//! The built-in network against what must hold of any evaluation of Othello: the start is
//! even (the game is a draw with perfect play: Takizawa's 2023 proof), the eight images of a
//! position score alike, and a score carried down a line equals one made from scratch.

use super::*;
use crate::board::{Position, flips};

#[test]
fn the_built_in_network_sees_the_start_as_even() {
    let start = Position::start();
    let score = active_network().score(start.player(), start.opponent());
    assert!(score.abs() <= 200, "start scored {score} centidiscs");
    assert_eq!(Neural.evaluate(&start), score + tempo::tempo());
}

#[test]
fn the_built_in_network_scores_images_and_carried_indices_alike() {
    let net = active_network();
    let mut position = Position::start();
    let mut state = Neural.state(&position);
    let mut scores = std::collections::HashSet::new();
    // A line of 24 plies: at each, the legal move the ply's number picks.
    for ply in 0..24usize {
        let moves: Vec<usize> = crate::board::Bits(position.legal_moves()).collect();
        assert!(!moves.is_empty(), "no pass on this line: {position}");
        let sq = moves[(ply * 7) % moves.len()];
        let f = flips(position.player(), position.opponent(), sq);
        let child = position.play_flips(1 << sq, f);
        let carried = Neural.leaf_score(&state, &child, sq, f);
        state = Neural.play(&state, sq, f);
        position = child;
        let scratch = net.score(position.player(), position.opponent());
        // The evaluator adds the tempo for the side to move to the network's score.
        assert_eq!(carried, scratch + tempo::tempo(), "ply {ply}");
        assert_eq!(
            Neural.evaluate_with(&state, &position),
            scratch + tempo::tempo(),
            "ply {ply}"
        );
        for sym in 1..8 {
            let image = position.transform(sym);
            assert_eq!(
                net.score(image.player(), image.opponent()),
                scratch,
                "ply {ply}, image {sym}"
            );
        }
        scores.insert(scratch);
    }
    assert!(
        scores.len() > 12,
        "the network scores too few values: {scores:?}"
    );
}
