//! Training the `pattern` weights (`othello-engine train`): the labelled positions of
//! `datagen` files are split into training and held-out positions, labelled (`data.rs`), and
//! the weights are fitted stage by stage (`stages.rs`); [`train_and_compare`] then measures
//! the new weights and another set (by default the built-in one) on the same held-out
//! positions. Making the labelled positions is `othello-engine datagen`'s; reading the files,
//! the flags and printing are the command line's.

mod data;
mod stages;

pub use data::{DEFAULT_OPENING_EMPTIES, HOLDOUT_EVERY, Label, TrainingData, target};
pub use stages::{
    Method, StageReport, TrainSample, TrainSettings, mean_error, stage_errors, train_weights,
};

use crate::eval::pattern::PatternWeights;

/// What a training run gives.
#[derive(Clone, Debug)]
pub struct Trained {
    /// The fitted weights.
    pub weights: PatternWeights,
    /// Their mean absolute error on the held-out positions, in discs.
    pub held_out_mae: f64,
    /// The same for the weights compared with.
    pub compare_mae: f64,
}

/// Fits weights of `layout`'s shape stage by stage to `data.train` ([`train_weights`]) and
/// measures them and `compare` on `data.validation`. `report` hears of each stage's fit as it
/// ends, with the error of `compare` on that stage's held-out positions (NaN when it has
/// none).
pub fn train_and_compare(
    layout: PatternWeights,
    data: &TrainingData,
    settings: TrainSettings,
    compare: &PatternWeights,
    mut report: impl FnMut(&StageReport, f64),
) -> Trained {
    let compare_errors = stage_errors(&layout, &data.validation, |p, o| compare.score(p, o));
    let weights = train_weights(
        layout.clone(),
        &data.train,
        &data.validation,
        settings,
        |r| report(r, compare_errors[r.stage].1),
    );
    let new_errors = stage_errors(&layout, &data.validation, |p, o| weights.score(p, o));
    Trained {
        weights,
        held_out_mae: mean_error(&new_errors),
        compare_mae: mean_error(&compare_errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Bits, Position, flips};

    /// `games` random games (passes forced) from a seed: each game's positions with a move,
    /// in order, and its final position.
    pub(super) fn random_games(games: usize, seed: u64) -> Vec<(Vec<Position>, Position)> {
        let mut seed = seed;
        let mut out = Vec::new();
        for _ in 0..games {
            let mut position = Position::start();
            let mut game = Vec::new();
            while !position.is_game_over() {
                if position.must_pass() {
                    position = position.pass();
                    continue;
                }
                game.push(position);
                let moves: Vec<usize> = Bits(position.legal_moves()).collect();
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let sq = moves[(seed >> 33) as usize % moves.len()];
                position =
                    position.play_flips(1 << sq, flips(position.player(), position.opponent(), sq));
            }
            out.push((game, position));
        }
        out
    }

    #[test]
    fn weights_fitted_to_the_disc_difference_predict_it_on_games_never_seen() {
        // The disc difference is a sum over squares, which the patterns can carry: a fit
        // with a light ridge penalty finds it within a disc on its own positions, and on
        // held-out games does far better (2.1 discs) than the zero weights it is compared
        // with (5.0, the mean size of the targets).
        let mut data = TrainingData::default();
        for (game, (positions, _)) in random_games(150, 5).into_iter().enumerate() {
            let held_out = (game as u32).is_multiple_of(HOLDOUT_EVERY);
            for p in positions {
                let (own, theirs) = (p.player().count_ones(), p.opponent().count_ones());
                let s = TrainSample {
                    player: p.player(),
                    opponent: p.opponent(),
                    target: own as f32 - theirs as f32,
                };
                if held_out {
                    data.validation.push(s);
                } else {
                    data.train.push(s);
                }
            }
        }
        let zeros = PatternWeights::zeros();
        let settings = TrainSettings {
            threads: 1,
            lambda: 1.0,
            ..TrainSettings::default()
        };
        let mut heard = Vec::new();
        let trained = train_and_compare(zeros.clone(), &data, settings, &zeros, |r, c| {
            heard.push((r.stage, r.train_mae, c))
        });
        let zero_errors = stage_errors(&zeros, &data.validation, |_, _| 0);
        assert_eq!(heard.len(), zeros.stages());
        for (stage, &(heard_stage, train_mae, compare_mae)) in heard.iter().enumerate() {
            assert_eq!(heard_stage, stage);
            assert!(train_mae < 1.0, "stage {stage}: {train_mae} discs");
            let zero = zero_errors[stage].1;
            assert!(compare_mae == zero || (compare_mae.is_nan() && zero.is_nan()));
        }
        let n = data.validation.len() as f64;
        let size: f64 = data
            .validation
            .iter()
            .map(|s| f64::from(s.target.abs()))
            .sum();
        assert!((trained.compare_mae - size / n).abs() < 1e-9, "{trained:?}");
        let misses: f64 = data
            .validation
            .iter()
            .map(|s| {
                let predicted = f64::from(trained.weights.score(s.player, s.opponent)) / 100.0;
                (predicted - f64::from(s.target)).abs()
            })
            .sum();
        assert!((trained.held_out_mae - misses / n).abs() < 1e-9);
        assert!(
            trained.held_out_mae < 0.6 * trained.compare_mae,
            "held-out {} discs, zero weights {}",
            trained.held_out_mae,
            trained.compare_mae
        );
    }
}
