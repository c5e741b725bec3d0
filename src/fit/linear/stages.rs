//! Fitting the `pattern` weights stage by stage: least squares with L2 regularisation over
//! the sparse features (each position selects one weight per placement and per count, plus
//! the bias). Each stage trains on the positions within a few empties of it, so neighbouring
//! stages agree. Two solvers: the exact ridge fit by conjugate gradients (see
//! `least_squares.rs`; the default), and the stochastic gradient descent that made the
//! weights before it.

use crate::eval::features::canonical_indices;
use crate::eval::pattern::PatternWeights;
use crate::fit::least_squares::{RidgeSettings, SparseRows, ridge_fit};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;

/// A labelled position.
#[derive(Clone, Copy, Debug)]
pub struct TrainSample {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
    /// The label: the disc difference the side to move should reach.
    pub target: f32,
}

impl TrainSample {
    /// The number of empty squares.
    pub fn empties(&self) -> u32 {
        64 - (self.player | self.opponent).count_ones()
    }
}

/// How one stage's fit went.
#[derive(Clone, Debug)]
pub struct StageReport {
    /// The stage.
    pub stage: usize,
    /// The empties it covers, first and last.
    pub empties: (usize, usize),
    /// Training positions used (its own and its neighbours').
    pub train_positions: usize,
    /// Iterations of the least-squares fit (0 for gradient descent).
    pub iterations: usize,
    /// Mean absolute error in discs on the training positions of the stage itself.
    pub train_mae: f64,
    /// Held-out positions of the stage itself.
    pub validation_positions: usize,
    /// Mean absolute error in discs on them (NaN when there are none).
    pub validation_mae: f64,
}

/// How the weights of a stage are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The exact ridge fit, by conjugate gradients.
    LeastSquares,
    /// Stochastic gradient descent with a falling step.
    Sgd,
}

/// Training settings.
#[derive(Clone, Copy, Debug)]
pub struct TrainSettings {
    /// The solver.
    pub method: Method,
    /// The ridge penalty of the least-squares fit (see [`RidgeSettings::lambda`]).
    pub lambda: f64,
    /// The most conjugate-gradient iterations per stage.
    pub iterations: usize,
    /// Threads of the least-squares fit.
    pub threads: usize,
    /// Passes over the data per stage (stochastic gradient descent).
    pub epochs: usize,
    /// The step size of the first pass; it falls geometrically to a twentieth of it.
    pub learning_rate: f32,
    /// The L2 penalty on each weight, per use.
    pub l2: f32,
    /// A stage also trains on positions this many empties outside it.
    pub window: usize,
    /// Shuffling seed.
    pub seed: u64,
}

impl Default for TrainSettings {
    fn default() -> TrainSettings {
        TrainSettings {
            method: Method::LeastSquares,
            lambda: 8.0,
            iterations: 200,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            epochs: 12,
            learning_rate: 0.004,
            l2: 0.0005,
            window: 2,
            seed: 1,
        }
    }
}

/// The features of every sample, `per` of them each, in one block.
struct Encoded {
    features: Vec<u32>,
    per: usize,
}

/// The features of `samples` under `layout`, each index replaced by `map`'s entry if given.
fn encode(layout: &PatternWeights, samples: &[TrainSample], map: Option<&[u32]>) -> Encoded {
    let mut row = Vec::new();
    let mut features = Vec::new();
    let mut per = 0;
    for s in samples {
        layout.features(s.player, s.opponent, &mut row);
        per = row.len();
        match map {
            Some(map) => features.extend(row.iter().map(|&j| map[j as usize])),
            None => features.extend_from_slice(&row),
        }
    }
    Encoded { features, per }
}

/// One stage's weights by stochastic gradient descent on the rows `chosen`.
fn fit_sgd(
    encoded: &Encoded,
    train: &[TrainSample],
    chosen: &[usize],
    size: usize,
    settings: &TrainSettings,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<f32> {
    let per = encoded.per;
    let mut weights = vec![0f32; size];
    let mut order = chosen.to_vec();
    for epoch in 0..settings.epochs {
        order.shuffle(rng);
        // Falls to a twentieth over the passes: large steps find the weights, small ones
        // at the end keep the last positions seen from pulling them about.
        let progress = epoch as f32 / (settings.epochs.max(2) - 1) as f32;
        let rate = settings.learning_rate * 0.05f32.powf(progress);
        let decay = 1.0 - rate * settings.l2;
        for &i in &order {
            let row = &encoded.features[i * per..][..per];
            let predicted = weights[0] + row.iter().map(|&j| weights[j as usize]).sum::<f32>();
            let step = rate * (train[i].target - predicted);
            weights[0] += step * 0.1;
            for &j in row {
                let w = &mut weights[j as usize];
                *w = *w * decay + step;
            }
        }
    }
    weights
}

/// The mean absolute error in discs of `score` (hundredths of a disc) on `samples`, per stage
/// of `layout`: (positions, error) for each stage.
pub fn stage_errors(
    layout: &PatternWeights,
    samples: &[TrainSample],
    score: impl Fn(u64, u64) -> i32,
) -> Vec<(usize, f64)> {
    let mut sums = vec![(0usize, 0f64); layout.stages()];
    for s in samples {
        let slot = &mut sums[layout.stage_of(s.empties())];
        slot.0 += 1;
        slot.1 += (f64::from(score(s.player, s.opponent)) / 100.0 - f64::from(s.target)).abs();
    }
    sums.into_iter()
        .map(|(n, total)| (n, if n == 0 { f64::NAN } else { total / n as f64 }))
        .collect()
}

/// The mean of per-stage errors ([`stage_errors`]) weighted by their positions, stages
/// without positions left out (0 when there are none).
pub fn mean_error(errors: &[(usize, f64)]) -> f64 {
    let n: usize = errors.iter().filter(|x| x.0 > 0).map(|x| x.0).sum();
    let total: f64 = errors
        .iter()
        .filter(|x| x.0 > 0)
        .map(|x| x.0 as f64 * x.1)
        .sum();
    total / n.max(1) as f64
}

/// Fits the weights of every stage to `train` and measures them on `validation`, calling
/// `report` after each stage.
pub fn train_weights(
    layout: PatternWeights,
    train: &[TrainSample],
    validation: &[TrainSample],
    settings: TrainSettings,
    mut report: impl FnMut(&StageReport),
) -> PatternWeights {
    let mut out = layout;
    let size = out.stage_size();
    // The least-squares fit ties the weights that must agree into one unknown.
    let canonical = canonical_indices(size);
    let map = (settings.method == Method::LeastSquares).then_some(&canonical[..]);
    let encoded = encode(&out, train, map);
    let targets: Vec<f32> = train.iter().map(|s| s.target).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(settings.seed);
    for stage in 0..out.stages() {
        let (first, last) = out.stage_empties(stage);
        let (low, high) = (
            first.saturating_sub(settings.window),
            last + settings.window,
        );
        let chosen: Vec<usize> = (0..train.len())
            .filter(|&i| (low..=high).contains(&(train[i].empties() as usize)))
            .collect();
        let mut iterations = 0;
        let weights = match settings.method {
            Method::Sgd => fit_sgd(&encoded, train, &chosen, size, &settings, &mut rng),
            Method::LeastSquares => {
                let rows = SparseRows {
                    indices: &encoded.features,
                    per: encoded.per,
                    chosen: &chosen,
                    targets: &targets,
                };
                let fit = ridge_fit(
                    &rows,
                    size,
                    RidgeSettings {
                        lambda: settings.lambda,
                        iterations: settings.iterations,
                        tolerance: 1e-4,
                        threads: settings.threads,
                    },
                );
                iterations = fit.iterations;
                canonical
                    .iter()
                    .map(|&j| fit.weights[j as usize] as f32)
                    .collect()
            }
        };
        out.set_stage(stage, &weights);
        let own = |samples: &[TrainSample]| -> Vec<TrainSample> {
            samples
                .iter()
                .filter(|s| out.stage_of(s.empties()) == stage)
                .copied()
                .collect()
        };
        let mae = |samples: &[TrainSample]| -> f64 {
            let errors = stage_errors(&out, samples, |p, o| out.score(p, o));
            errors[stage].1
        };
        let (own_train, own_validation) = (own(train), own(validation));
        report(&StageReport {
            stage,
            empties: (first, last),
            train_positions: chosen.len(),
            iterations,
            train_mae: mae(&own_train),
            validation_positions: own_validation.len(),
            validation_mae: mae(&own_validation),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::linear::tests::random_games;

    #[test]
    fn training_on_a_tiny_set_reduces_the_error() {
        // Random games labelled by their final disc difference from each side to move's view.
        let mut samples = Vec::new();
        for (game, end) in random_games(300, 11) {
            let score = end.final_score();
            for p in game {
                let same_side = p.side_to_move() == end.side_to_move();
                samples.push(TrainSample {
                    player: p.player(),
                    opponent: p.opponent(),
                    target: (if same_side { score } else { -score }) as f32,
                });
            }
        }
        let zeros = PatternWeights::zeros();
        let before = stage_errors(&zeros, &samples, |p, o| zeros.score(p, o));
        let trained = train_weights(
            PatternWeights::zeros(),
            &samples,
            &[],
            TrainSettings::default(),
            |_| {},
        );
        let after = stage_errors(&trained, &samples, |p, o| trained.score(p, o));
        assert!(
            mean_error(&after) < 0.8 * mean_error(&before),
            "error {} before, {} after",
            mean_error(&before),
            mean_error(&after)
        );
    }
}
