//! The network in floats, as the trainer fits it: its parameters in one vector (the rows of
//! every bucket, then the small dense parts), the forward pass of one position, its
//! backward pass, and the quantiser that turns it into the engine's integer [`Network`].
//!
//! Rows that a shape's own symmetries make equal are one row here (the canonical one): the
//! positions that read its images train it, and the quantiser copies it to them.
//!
//! A network of 8-bit rows ([`RowFormat::I8`]) is fitted on its grid: the forward pass reads
//! each row and bias rounded to the steps the integer network holds them in (`ROW8_ONE` a
//! unit), and the gradients pass the rounding as if it were not there (the straight-through
//! estimate); the float rows go on moving by small steps, and the quantiser rounds them as the
//! forward pass did. Rounding after the fitting instead would move every score (measured:
//! 0.2-0.3 disc).

use crate::eval::network::file::canonical_row;
use crate::eval::network::inputs::EMPTIES_ROW;
use crate::eval::network::{
    ACTIVATION_ONE, AlignedI8, AlignedI16, EMPTIES_ROW_LIMIT, HIDDEN_ONE, INPUTS, NetShape,
    Network, OUTPUT_DISCS, OUTPUT_ONE, ROW_LIMIT, ROW8_BIAS_LIMIT, ROW8_LIMIT, ROW8_ONE, ROWS,
    RowFormat, RowTable, STAGES, bucket_of, input_rows_of,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// The widest rows and the most hidden units the trainer handles.
pub const MAX_WIDTH: usize = 64;
const MAX_HIDDEN: usize = crate::eval::network::MAX_HIDDEN;

/// The largest value of a row (activation units), of a bucket's bias, of a dense weight and of
/// an output weight: what the integer network can hold without overflow.
pub const ROW_CLIP: f32 = ROW_LIMIT as f32 / ACTIVATION_ONE as f32;
/// The same for 8-bit rows.
pub const ROW8_CLIP: f32 = ROW8_LIMIT as f32 / ROW8_ONE as f32;
/// The largest bias beside 8-bit rows.
const BIAS8_CLIP: f32 = ROW8_BIAS_LIMIT as f32 / ROW8_ONE as f32;

/// `v` on the grid of 8-bit rows: rounded to a step of `1 / ROW8_ONE`.
#[inline(always)]
fn on_row8_grid(v: f32) -> f32 {
    (v * ROW8_ONE as f32).round() / ROW8_ONE as f32
}
const BIAS_CLIP: f32 = (EMPTIES_ROW_LIMIT - ROW_LIMIT) as f32 / ACTIVATION_ONE as f32 - 0.01;
const DENSE_CLIP: f32 = 16.0;
const OUTPUT_CLIP: f32 = 32767.0 / OUTPUT_ONE as f32 - 0.01;

/// Where each part starts in [`Model::params`].
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// The rows' bias per bucket (`buckets × width`); the rows come before it, from 0.
    pub bias: usize,
    /// The dense layer (`buckets × hidden × width`).
    pub dense: usize,
    /// The dense biases (`buckets × hidden`).
    pub dense_bias: usize,
    /// The output layer (`STAGES × hidden`).
    pub output: usize,
    /// The output biases (`STAGES`).
    pub output_bias: usize,
    /// The end.
    pub end: usize,
}

impl Layout {
    /// The parts of a network of `shape`.
    pub fn of(shape: NetShape) -> Layout {
        let (w, h, b) = (shape.width, shape.hidden, shape.buckets);
        let bias = b * ROWS * w;
        let dense = bias + b * w;
        let dense_bias = dense + b * h * w;
        let output = dense_bias + b * h;
        let output_bias = output + STAGES * h;
        Layout {
            bias,
            dense,
            dense_bias,
            output,
            output_bias,
            end: output_bias + STAGES,
        }
    }
}

/// The float network.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Its shape.
    pub shape: NetShape,
    /// Every parameter: rows, then the parts of [`Layout`].
    pub params: Vec<f32>,
}

/// What the backward pass needs of a forward pass.
pub struct Trace {
    /// The bucket.
    pub bucket: usize,
    stage: usize,
    /// The rows read, as indices of rows in all buckets (canonical rows).
    pub rows: [u32; INPUTS],
    sum: [f32; MAX_WIDTH],
    hidden: [f32; MAX_HIDDEN],
    /// The output, in units of `OUTPUT_DISCS` discs.
    pub output: f32,
}

impl Model {
    /// A new network: rows at zero (a row no position reads keeps it), the bias in the middle
    /// of the clipped ReLU, dense layers uniform at random from `seed`.
    pub fn new(shape: NetShape, seed: u64) -> Model {
        let layout = Layout::of(shape);
        let mut params = vec![0.0f32; layout.end];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        params[layout.bias..layout.dense].fill(0.5);
        let a = 1.0 / (shape.width as f32).sqrt();
        for p in &mut params[layout.dense..layout.dense_bias] {
            *p = rng.random_range(-a..a);
        }
        params[layout.dense_bias..layout.output].fill(0.5);
        let a = 1.0 / (shape.hidden as f32).sqrt();
        for p in &mut params[layout.output..layout.output_bias] {
            *p = rng.random_range(-a..a);
        }
        Model { shape, params }
    }

    /// The forward pass for `player` to move against `opponent`.
    pub fn forward(&self, player: u64, opponent: u64) -> Trace {
        let (w, h) = (self.shape.width, self.shape.hidden);
        let layout = Layout::of(self.shape);
        let empties = (!(player | opponent)).count_ones();
        let bucket = bucket_of(empties, self.shape.buckets);
        let stage = empties.min(60) as usize;
        let mut rows = input_rows_of(player, opponent);
        for r in &mut rows {
            *r = (bucket * ROWS + canonical_row(*r as usize)) as u32;
        }
        let mut sum = [0.0f32; MAX_WIDTH];
        sum[..w].copy_from_slice(&self.params[layout.bias + bucket * w..][..w]);
        let grid = self.shape.rows == RowFormat::I8;
        if grid {
            for s in &mut sum[..w] {
                *s = on_row8_grid(*s);
            }
        }
        for &r in &rows {
            let row = &self.params[r as usize * w..][..w];
            if grid {
                for (s, v) in sum[..w].iter_mut().zip(row) {
                    *s += on_row8_grid(*v);
                }
            } else {
                for (s, v) in sum[..w].iter_mut().zip(row) {
                    *s += v;
                }
            }
        }
        let dense = &self.params[layout.dense + bucket * h * w..][..h * w];
        let bias = &self.params[layout.dense_bias + bucket * h..][..h];
        let out_w = &self.params[layout.output + stage * h..][..h];
        let mut hidden = [0.0f32; MAX_HIDDEN];
        let mut output = self.params[layout.output_bias + stage];
        for j in 0..h {
            let weights = &dense[j * w..][..w];
            let z: f32 = bias[j]
                + sum[..w]
                    .iter()
                    .zip(weights)
                    .map(|(s, v)| s.clamp(0.0, 1.0) * v)
                    .sum::<f32>();
            hidden[j] = z;
            output += z.clamp(0.0, 1.0) * out_w[j];
        }
        Trace {
            bucket,
            stage,
            rows,
            sum,
            hidden,
            output,
        }
    }

    /// The score of a position in discs for its side to move.
    pub fn discs(&self, player: u64, opponent: u64) -> f32 {
        self.forward(player, opponent).output * OUTPUT_DISCS
    }

    /// The backward pass of `trace` with the loss's derivative `d_output` by the output:
    /// adds the gradients of the dense parts to `grads` (indexed from [`Layout::bias`]) and
    /// writes the gradient by the rows' sum to `d_sum` (the same for every row read).
    pub fn backward(&self, trace: &Trace, d_output: f32, grads: &mut [f32], d_sum: &mut [f32]) {
        let (w, h) = (self.shape.width, self.shape.hidden);
        let layout = Layout::of(self.shape);
        let base = layout.bias;
        let (bucket, stage) = (trace.bucket, trace.stage);
        grads[layout.output_bias + stage - base] += d_output;
        let out_w = &self.params[layout.output + stage * h..][..h];
        let dense = &self.params[layout.dense + bucket * h * w..][..h * w];
        let mut active = [0.0f32; MAX_WIDTH];
        for (a, s) in active.iter_mut().zip(&trace.sum[..w]) {
            *a = s.clamp(0.0, 1.0);
        }
        let mut d_active = [0.0f32; MAX_WIDTH];
        for j in 0..h {
            let z = trace.hidden[j];
            grads[layout.output + stage * h + j - base] += d_output * z.clamp(0.0, 1.0);
            if z <= 0.0 || z >= 1.0 {
                continue;
            }
            let dz = d_output * out_w[j];
            grads[layout.dense_bias + bucket * h + j - base] += dz;
            let g = &mut grads[layout.dense + (bucket * h + j) * w - base..][..w];
            for i in 0..w {
                g[i] += dz * active[i];
            }
            let weights = &dense[j * w..][..w];
            for i in 0..w {
                d_active[i] += dz * weights[i];
            }
        }
        let g_bias = &mut grads[layout.bias + bucket * w - base..][..w];
        for i in 0..w {
            let s = trace.sum[i];
            d_sum[i] = if s > 0.0 && s < 1.0 { d_active[i] } else { 0.0 };
            g_bias[i] += d_sum[i];
        }
    }

    /// Keeps every parameter where the integer network can hold it.
    pub fn clip_dense(&mut self) {
        let layout = Layout::of(self.shape);
        let bias_clip = match self.shape.rows {
            RowFormat::I16 => BIAS_CLIP,
            RowFormat::I8 => BIAS8_CLIP,
        };
        for p in &mut self.params[layout.bias..layout.dense] {
            *p = p.clamp(-bias_clip, bias_clip);
        }
        for p in &mut self.params[layout.dense..layout.dense_bias] {
            *p = p.clamp(-DENSE_CLIP, DENSE_CLIP);
        }
        for p in &mut self.params[layout.output..layout.output_bias] {
            *p = p.clamp(-OUTPUT_CLIP, OUTPUT_CLIP);
        }
    }

    /// The largest value a row may take.
    pub fn row_clip(&self) -> f32 {
        match self.shape.rows {
            RowFormat::I16 => ROW_CLIP,
            RowFormat::I8 => ROW8_CLIP,
        }
    }

    /// The integer network: each row at [`ACTIVATION_ONE`] (a shape's symmetric rows copied
    /// from their canonical row, the bucket's bias added to the empties rows) or, for 8-bit
    /// rows, at [`ROW8_ONE`] with the biases apart, the dense layer at [`HIDDEN_ONE`], the
    /// output at [`OUTPUT_ONE`], rounded to the nearest.
    pub fn quantize(&self) -> Result<Network, String> {
        let w = self.shape.width;
        let layout = Layout::of(self.shape);
        let p = &self.params;
        let q16 = |v: f32, scale: i32, limit: i32| -> i16 {
            (v * scale as f32)
                .round()
                .clamp(-limit as f32, limit as f32) as i16
        };
        let rows = match self.shape.rows {
            RowFormat::I16 => {
                let mut table = AlignedI16::zeroed(self.shape.embedding_len());
                self.spread_rows_of(table.as_mut_slice(), |bucket, row, i, v| {
                    if row >= EMPTIES_ROW {
                        let biased = v + p[layout.bias + bucket * w + i];
                        q16(biased, ACTIVATION_ONE, EMPTIES_ROW_LIMIT)
                    } else {
                        q16(v, ACTIVATION_ONE, ROW_LIMIT)
                    }
                });
                RowTable::I16(table)
            }
            RowFormat::I8 => {
                let mut table = AlignedI8::zeroed(self.shape.embedding_len());
                self.spread_rows_of(table.as_mut_slice(), |_, _, _, v| {
                    q16(v, ROW8_ONE, ROW8_LIMIT) as i8
                });
                let bias = p[layout.bias..layout.dense]
                    .iter()
                    .map(|&v| q16(v, ROW8_ONE, ROW8_BIAS_LIMIT))
                    .collect();
                RowTable::I8 { rows: table, bias }
            }
        };
        let dense = p[layout.dense..layout.dense_bias]
            .iter()
            .map(|&v| q16(v, HIDDEN_ONE, i16::MAX as i32))
            .collect();
        let dense_bias = p[layout.dense_bias..layout.output]
            .iter()
            .map(|&v| (v * ACTIVATION_ONE as f32).round() as i32)
            .collect();
        let output = p[layout.output..layout.output_bias]
            .iter()
            .map(|&v| q16(v, OUTPUT_ONE, i16::MAX as i32))
            .collect();
        let output_bias = p[layout.output_bias..layout.end]
            .iter()
            .map(|&v| (v * ACTIVATION_ONE as f32 * OUTPUT_ONE as f32).round() as i32)
            .collect();
        Network::from_parts(self.shape, rows, dense, dense_bias, output, output_bias)
    }
}

impl Model {
    /// The float value of every row of every bucket, each from its canonical row (the one the
    /// model holds), made into `table`'s values by `value(bucket, row, lane, float)`.
    fn spread_rows_of<T>(
        &self,
        table: &mut [T],
        mut value: impl FnMut(usize, usize, usize, f32) -> T,
    ) {
        let w = self.shape.width;
        for bucket in 0..self.shape.buckets {
            for row in 0..ROWS {
                let from = (bucket * ROWS + canonical_row(row)) * w;
                let to = (bucket * ROWS + row) * w;
                for i in 0..w {
                    table[to + i] = value(bucket, row, i, self.params[from + i]);
                }
            }
        }
    }
}
