//! Fitting the `neural` evaluator's network (`othello-engine train --model net`).
//!
//! **The loop.** Each epoch visits the training positions in an order drawn from the seed
//! and the epoch; a batch of them goes forward and backward through the float network
//! (`model.rs`) on every thread, each thread a contiguous share of the batch. The gradients of
//! the small dense parts are summed over the threads in order; those of the rows go to the
//! rows the batch read, and only those rows are updated: a position reads 49 of about
//! 670,000 rows, so a dense update would touch every row for nothing. The optimiser is Adam,
//! lazy on the rows (a row's moments move only when a batch reads it), with the step's bias
//! correction; the rate falls by `decay` each epoch.
//!
//! **Loss.** The mean squared error on the label in units of `OUTPUT_DISCS` discs; the
//! error reported is the mean absolute error in discs, per bracket of empties, on the
//! held-out games, beside another evaluator's on the same positions.
//!
//! **Same file, every time.** The order, the initial weights and the sums depend only on the
//! data, the settings, the seed and the threads; a checkpoint (`checkpoint.rs`) holds the
//! whole state at a batch's end, so a stopped run resumed from it ends as one that never
//! stopped. The positions stay as boards in memory (20 bytes each) and their inputs are
//! computed by the engine's own code at each visit.

mod checkpoint;
mod held_out;
pub mod model;

pub use checkpoint::Checkpoint;
pub use held_out::{BRACKETS, Bracket, held_out_errors};
pub use model::{Layout, Model};

use super::linear::{TrainSample, TrainingData};
use crate::eval::network::{NetShape, OUTPUT_DISCS, ROWS, RowFormat};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How a network is fitted.
#[derive(Clone, Debug)]
pub struct NetSettings {
    /// The network's shape.
    pub shape: NetShape,
    /// Passes over the training positions.
    pub epochs: usize,
    /// Positions a step.
    pub batch: usize,
    /// Adam's rate in the first epoch.
    pub rate: f32,
    /// The rate's factor from one epoch to the next.
    pub decay: f32,
    /// The seed of the initial weights and of the order.
    pub seed: u64,
    /// Threads.
    pub threads: usize,
    /// Where the run's checkpoint is kept (none: no checkpoint).
    pub checkpoint: Option<PathBuf>,
    /// How often it is written.
    pub checkpoint_every: Duration,
}

impl Default for NetSettings {
    fn default() -> NetSettings {
        NetSettings {
            shape: NetShape {
                width: 32,
                hidden: 16,
                buckets: 4,
                rows: RowFormat::I16,
            },
            epochs: 10,
            batch: 1024,
            rate: 0.001,
            decay: 0.75,
            seed: 1,
            threads: 1,
            checkpoint: None,
            checkpoint_every: Duration::from_secs(180),
        }
    }
}

/// What a run tells as it goes.
pub enum Event<'a> {
    /// A batch is done.
    Batch {
        /// The epoch (from 0).
        epoch: usize,
        /// Batches of it done.
        batch: usize,
        /// Batches in an epoch.
        batches: usize,
    },
    /// An epoch is done.
    Epoch {
        /// The epoch (from 0).
        epoch: usize,
        /// The training positions' mean absolute error over the epoch, discs.
        train_error: f64,
        /// The held-out error, per bracket then overall (the last).
        held_out: &'a [Bracket],
    },
    /// A checkpoint was written.
    Saved,
}

/// How a run ended.
pub enum Outcome {
    /// Every epoch done: the model.
    Finished(Model),
    /// Stopped by the flag, its state in the checkpoint.
    Stopped,
}

/// A run's fingerprint: the settings that shape its course and its data. The number of epochs
/// is left out, so that a finished run can be taken further.
pub fn fingerprint(data: &TrainingData, settings: &NetSettings) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |v: u64| {
        h ^= v;
        h = h.wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29) ^ (h >> 31);
    };
    let s = settings;
    for v in [
        s.shape.width as u64,
        s.shape.hidden as u64,
        s.shape.buckets as u64,
        s.batch as u64,
        u64::from(s.rate.to_bits()),
        u64::from(s.decay.to_bits()),
        s.seed,
        s.threads as u64,
        ROWS as u64,
        data.train.len() as u64,
        data.validation.len() as u64,
    ] {
        mix(v);
    }
    // Only a run of 8-bit rows mixes its format, so that earlier runs' checkpoints still match.
    if s.shape.rows == RowFormat::I8 {
        mix(8);
    }
    for sample in data.train.iter().chain(&data.validation) {
        mix(sample.player);
        mix(sample.opponent);
        mix(u64::from(sample.target.to_bits()));
    }
    h
}

/// Adam's constants.
const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

/// The optimiser's state and the run's place.
struct State {
    model: Model,
    first: Vec<f32>,
    second: Vec<f32>,
    step: u64,
    epoch: usize,
    batch: usize,
}

/// Fits a network to `data.train`, measuring it on `data.validation` after each epoch beside
/// `compare` (discs). Resumes from the checkpoint of the same run when there is one; `stop`
/// ends the run at the next batch, saving the checkpoint.
pub fn train_network(
    data: &TrainingData,
    settings: &NetSettings,
    compare: &(dyn Fn(u64, u64) -> f32 + Sync),
    stop: &AtomicBool,
    report: &mut dyn FnMut(Event),
) -> Result<Outcome, String> {
    settings.shape.check()?;
    if data.train.is_empty() {
        return Err("no training positions".into());
    }
    let run = fingerprint(data, settings);
    let shape = settings.shape;
    let layout = Layout::of(shape);
    let mut state = match &settings.checkpoint {
        Some(path) => Checkpoint::load(path, run, shape)?,
        None => None,
    }
    .map(|c| State {
        model: c.model,
        first: c.first,
        second: c.second,
        step: c.step,
        epoch: c.epoch,
        batch: c.batch,
    })
    .unwrap_or_else(|| State {
        model: Model::new(shape, settings.seed),
        first: vec![0.0; layout.end],
        second: vec![0.0; layout.end],
        step: 0,
        epoch: 0,
        batch: 0,
    });
    let save = |state: &State| -> Result<(), String> {
        let Some(path) = &settings.checkpoint else {
            return Ok(());
        };
        Checkpoint {
            run,
            epoch: state.epoch,
            batch: state.batch,
            step: state.step,
            model: state.model.clone(),
            first: state.first.clone(),
            second: state.second.clone(),
        }
        .save(path)
    };
    let width = shape.width;
    let threads = settings.threads.max(1);
    let batches = data.train.len().div_ceil(settings.batch);
    let mut row_grads = vec![0.0f32; layout.bias];
    let mut stamps = vec![0u64; layout.bias / width];
    let mut touched: Vec<u32> = Vec::new();
    let mut saved_at = Instant::now();
    let mut epoch_error = (0.0f64, 0usize);
    while state.epoch < settings.epochs {
        let mut order: Vec<u32> = (0..data.train.len() as u32).collect();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(
            settings.seed ^ (state.epoch as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        order.shuffle(&mut rng);
        let rate = settings.rate * settings.decay.powi(state.epoch as i32);
        while state.batch < batches {
            if stop.load(Ordering::Relaxed) {
                save(&state)?;
                return Ok(Outcome::Stopped);
            }
            let ids = &order[state.batch * settings.batch..][..settings
                .batch
                .min(data.train.len() - state.batch * settings.batch)];
            state.step += 1;
            let (error, dense_grads, rows, sums) =
                batch_gradients(&state.model, &data.train, ids, threads);
            epoch_error.0 += error;
            epoch_error.1 += ids.len();
            // The rows' gradients, summed position by position in order.
            touched.clear();
            for (p, read) in rows.chunks_exact(crate::eval::network::INPUTS).enumerate() {
                let d = &sums[p * width..][..width];
                for &r in read {
                    let r = r as usize;
                    if stamps[r] != state.step {
                        stamps[r] = state.step;
                        touched.push(r as u32);
                    }
                    for (g, v) in row_grads[r * width..][..width].iter_mut().zip(d) {
                        *g += v;
                    }
                }
            }
            let correction = (1.0 - BETA2.powf(state.step as f32)).sqrt()
                / (1.0 - BETA1.powf(state.step as f32));
            let step_rate = rate * correction;
            update_rows(
                &mut state,
                &mut row_grads,
                &touched,
                width,
                step_rate,
                threads,
            );
            let base = layout.bias;
            for (k, g) in dense_grads.iter().enumerate() {
                adam(
                    &mut state.model.params[base + k],
                    &mut state.first[base + k],
                    &mut state.second[base + k],
                    *g,
                    step_rate,
                );
            }
            state.model.clip_dense();
            state.batch += 1;
            report(Event::Batch {
                epoch: state.epoch,
                batch: state.batch,
                batches,
            });
            if settings.checkpoint.is_some() && saved_at.elapsed() >= settings.checkpoint_every {
                save(&state)?;
                saved_at = Instant::now();
                report(Event::Saved);
            }
        }
        let model = &state.model;
        let held_out = held_out_errors(
            &data.validation,
            threads,
            &|p, o| model.discs(p, o),
            compare,
        );
        report(Event::Epoch {
            epoch: state.epoch,
            train_error: epoch_error.0 / epoch_error.1.max(1) as f64,
            held_out: &held_out,
        });
        epoch_error = (0.0, 0);
        state.epoch += 1;
        state.batch = 0;
        save(&state)?;
        saved_at = Instant::now();
    }
    Ok(Outcome::Finished(state.model))
}

/// One Adam step of one parameter.
#[inline]
fn adam(param: &mut f32, first: &mut f32, second: &mut f32, grad: f32, rate: f32) {
    *first = BETA1 * *first + (1.0 - BETA1) * grad;
    *second = BETA2 * *second + (1.0 - BETA2) * grad * grad;
    *param -= rate * *first / (second.sqrt() + EPSILON);
}

/// The forward and backward passes of a batch (`ids` into `samples`) on `threads` threads:
/// the absolute error in discs summed, the dense parts' gradients, the rows each position
/// read and the gradient by each position's row sum.
fn batch_gradients(
    model: &Model,
    samples: &[TrainSample],
    ids: &[u32],
    threads: usize,
) -> (f64, Vec<f32>, Vec<u32>, Vec<f32>) {
    use crate::eval::network::INPUTS;
    let layout = Layout::of(model.shape);
    let width = model.shape.width;
    let scale = 1.0 / ids.len() as f32;
    let chunk = ids.len().div_ceil(threads);
    let mut rows = vec![0u32; ids.len() * INPUTS];
    let mut sums = vec![0.0f32; ids.len() * width];
    let parts: Vec<(f64, Vec<f32>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = ids
            .chunks(chunk)
            .zip(rows.chunks_mut(chunk * INPUTS))
            .zip(sums.chunks_mut(chunk * width))
            .map(|((ids, rows), sums)| {
                scope.spawn(move || {
                    let mut grads = vec![0.0f32; layout.end - layout.bias];
                    let mut error = 0.0f64;
                    for (k, &id) in ids.iter().enumerate() {
                        let s = &samples[id as usize];
                        let trace = model.forward(s.player, s.opponent);
                        let target = s.target / OUTPUT_DISCS;
                        error += f64::from((trace.output - target).abs() * OUTPUT_DISCS);
                        let d_output = (trace.output - target) * scale;
                        model.backward(
                            &trace,
                            d_output,
                            &mut grads,
                            &mut sums[k * width..][..width],
                        );
                        rows[k * INPUTS..][..INPUTS].copy_from_slice(&trace.rows);
                    }
                    (error, grads)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("training thread"))
            .collect()
    });
    let mut error = 0.0;
    let mut grads = vec![0.0f32; layout.end - layout.bias];
    for (e, g) in parts {
        error += e;
        for (a, b) in grads.iter_mut().zip(&g) {
            *a += b;
        }
    }
    (error, grads, rows, sums)
}

/// Adam on the rows of `touched` (each once), their gradients in `row_grads` (cleared after);
/// the rows are split by index among the threads, so no two threads share one.
fn update_rows(
    state: &mut State,
    row_grads: &mut [f32],
    touched: &[u32],
    width: usize,
    rate: f32,
    threads: usize,
) {
    let rows_total = row_grads.len() / width;
    let per = rows_total.div_ceil(threads);
    let end = rows_total * width;
    let clip = state.model.row_clip();
    let params = state.model.params[..end].chunks_mut(per * width);
    let first = state.first[..end].chunks_mut(per * width);
    let second = state.second[..end].chunks_mut(per * width);
    let grads = row_grads.chunks_mut(per * width);
    std::thread::scope(|scope| {
        for (k, (((p, m), v), g)) in params.zip(first).zip(second).zip(grads).enumerate() {
            let lo = k * per;
            scope.spawn(move || {
                for &r in touched {
                    let r = r as usize;
                    if r < lo || r >= lo + per {
                        continue;
                    }
                    let at = (r - lo) * width;
                    for i in at..at + width {
                        adam(&mut p[i], &mut m[i], &mut v[i], g[i], rate);
                        p[i] = p[i].clamp(-clip, clip);
                        g[i] = 0.0;
                    }
                }
            });
        }
    });
}

#[cfg(test)]
mod tests;
