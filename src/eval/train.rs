//! Training the pattern evaluator: fitting the weights to labelled positions by stochastic
//! gradient descent on the squared error. Reading game files into samples is the records
//! layer's (`game::wthor`).

use super::pattern::{
    PHASE_EMPTIES, PHASES, PatternWeights, feature_indices, instance_count, phase_size,
};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;

/// A position from a game with its label: the final disc difference for the side to move.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
    /// The final disc difference for the side to move.
    pub target: i8,
}

/// How a training run went, per phase.
#[derive(Clone, Debug)]
pub struct PhaseReport {
    /// The phase (weight table) number.
    pub phase: usize,
    /// Training positions in it.
    pub train_positions: usize,
    /// Root mean squared error in discs on the training positions.
    pub train_rmse: f64,
    /// The same on the held-out positions (NaN when there are none).
    pub validation_rmse: f64,
}

/// Training settings.
#[derive(Clone, Copy, Debug)]
pub struct TrainSettings {
    /// Passes over the data per phase.
    pub epochs: usize,
    /// The step size of the first pass; it falls geometrically to a hundredth of it.
    pub learning_rate: f32,
    /// Shuffling seed.
    pub seed: u64,
}

impl Default for TrainSettings {
    fn default() -> TrainSettings {
        TrainSettings {
            epochs: 10,
            learning_rate: 0.01,
            seed: 1,
        }
    }
}

/// Fits one weight table per phase to `train` and measures it on `validation`. Each phase
/// trains on the positions within one phase width of it, so neighbouring tables agree.
pub fn train_weights(
    train: &[Sample],
    validation: &[Sample],
    settings: TrainSettings,
    mut report: impl FnMut(&PhaseReport),
) -> Result<PatternWeights, String> {
    let size = phase_size();
    let features = instance_count();
    let mut all = vec![0i16; PHASES * size];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(settings.seed);
    for phase in 0..PHASES {
        let in_phase = |s: &Sample| {
            let e = 64 - (s.player | s.opponent).count_ones() as usize;
            let centre = phase * PHASE_EMPTIES + PHASE_EMPTIES / 2;
            e.abs_diff(centre) <= PHASE_EMPTIES
        };
        let encode = |samples: &[Sample]| -> (Vec<u32>, Vec<f32>) {
            let chosen: Vec<&Sample> = samples.iter().filter(|s| in_phase(s)).collect();
            let mut indices = vec![0u32; chosen.len() * features];
            for (s, out) in chosen.iter().zip(indices.chunks_exact_mut(features)) {
                feature_indices(s.player, s.opponent, out);
            }
            (
                indices,
                chosen.iter().map(|s| f32::from(s.target)).collect(),
            )
        };
        let (indices, targets) = encode(train);
        let (val_indices, val_targets) = encode(validation);
        let mut weights = vec![0f32; size];
        let mut order: Vec<usize> = (0..targets.len()).collect();
        for epoch in 0..settings.epochs {
            order.shuffle(&mut rng);
            // Falls to a hundredth over the passes: a large step finds the weights fast, and
            // small ones at the end keep the last samples seen from pulling them about.
            let progress = epoch as f32 / (settings.epochs.max(2) - 1) as f32;
            let rate = settings.learning_rate * 0.01f32.powf(progress);
            for &i in &order {
                let row = &indices[i * features..][..features];
                let predicted: f32 =
                    weights[0] + row.iter().map(|&j| weights[j as usize]).sum::<f32>();
                let step = rate * (targets[i] - predicted);
                weights[0] += step * 0.1;
                for &j in row {
                    weights[j as usize] += step;
                }
            }
        }
        let rmse = |indices: &[u32], targets: &[f32]| -> f64 {
            if targets.is_empty() {
                return f64::NAN;
            }
            let total: f64 = targets
                .iter()
                .zip(indices.chunks_exact(features))
                .map(|(&t, row)| {
                    let p = weights[0] + row.iter().map(|&j| weights[j as usize]).sum::<f32>();
                    f64::from(t - p).powi(2)
                })
                .sum();
            (total / targets.len() as f64).sqrt()
        };
        report(&PhaseReport {
            phase,
            train_positions: targets.len(),
            train_rmse: rmse(&indices, &targets),
            validation_rmse: rmse(&val_indices, &val_targets),
        });
        for (slot, w) in all[phase * size..][..size].iter_mut().zip(&weights) {
            *slot = (w * 100.0).round().clamp(-32000.0, 32000.0) as i16;
        }
    }
    PatternWeights::from_centi_discs(all)
}
