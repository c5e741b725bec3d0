//! The `neural` evaluator: a small network on the pattern features.
//!
//! **Why.** The linear pattern evaluation (`pattern.rs`) adds one weight per placement and
//! can never say that two patterns matter *together*; more data, finer stages and more shapes
//! all stopped paying. A network keeps the same inputs and the same incremental indices, and
//! adds what a sum cannot hold: interactions, through a non-linearity.
//!
//! **Inputs** (`inputs.rs`): the 46 placement indices [`FeatureState`] carries down the
//! tree (placements of one shape share their rows, as the linear tables do, so mirror images
//! score alike), both sides' mobility and the number of empties: 49 rows of one table.
//!
//! **Layers.** A table per phase bucket (a few, by empties) of rows `width` wide; the
//! position's 49 rows are summed (the empties row also carries the bucket's bias), clipped to
//! 0..1 (a clipped ReLU), multiplied by a dense `hidden × width` layer of the bucket, clipped
//! again, and read out by one linear output per number of empties. The output is in units of
//! [`OUTPUT_DISCS`] discs; the score is in hundredths of a disc for the side to move.
//!
//! **Integers.** Rows and the activations are `i16` at [`ACTIVATION_ONE`] per unit, so a row
//! sum is `width` lanes of 16-bit additions (a few vector adds a row, compiled per CPU level
//! inside the search's copies); the dense layers are `i16` weights multiplied into `i32`. The
//! trainer (`crate::fit::net`) clips the float weights so that no sum can overflow, and the
//! reader refuses a file whose values could.
//!
//! **8-bit rows** ([`RowFormat::I8`]). The rows are most of the memory a search touches (a
//! bucket's table is 5.35 MB at width 16, beyond the level-2 cache), and a row's values are
//! small (in the first network 99.97% of them within half a unit). A network may store its
//! rows as `i8` at [`ROW8_ONE`] (half of `ACTIVATION_ONE`: ±0.496 units), with each bucket's
//! bias apart as `i16` at the same scale; the sum is made in 16-bit lanes (each row widened),
//! clipped to `0..ROW8_ONE` and doubled, and the layers after it are those of 16-bit rows.
//! So a width-32 network of 8-bit rows reads as many bytes a row as a width-16 one of 16-bit
//! rows. The trainer fits such a network on its grid (the rows rounded in the forward pass).
//!
//! **Why not an incremental accumulator** as chess networks keep: a move changes about a
//! third of the placements, so updating the sum costs about as much as making it; the
//! indices are what is kept incrementally, and the sum is made at each evaluation.

mod aligned;
pub mod file;
pub mod inputs;
#[cfg(any(test, not(all(target_arch = "wasm32", target_feature = "simd128"))))]
mod portable;
mod shape;
#[cfg(target_arch = "x86_64")]
mod simd;
pub mod tempo;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_simd;

pub use file::{NETWORK_MAGIC, read_network_file};
use inputs::input_rows_on;
pub use inputs::{INPUTS, ROWS, STAGES, bucket_of, input_rows, input_rows_of};

use super::evaluator::Evaluator;
use super::features::LANES;
use super::state::FeatureState;
use crate::board::Position;
pub use aligned::{AlignedI8, AlignedI16};
pub use shape::{NetShape, RowFormat};
use std::sync::{LazyLock, OnceLock};

/// Activations and rows: this many per unit (a clipped ReLU's top).
pub const ACTIVATION_ONE: i32 = 1 << 9;
/// The dense layer's weights: this many per unit.
pub const HIDDEN_ONE: i32 = 1 << 10;
/// The output weights: this many per unit.
pub const OUTPUT_ONE: i32 = 1 << 11;
/// Discs per unit of the network's output.
pub const OUTPUT_DISCS: f32 = 32.0;
/// The widths the evaluation is compiled for.
pub const WIDTHS: [usize; 3] = [16, 32, 64];
/// The units of the dense layer the evaluation is compiled for.
pub const HIDDENS: [usize; 3] = [8, 16, 32];
/// The most units of the dense layer.
pub const MAX_HIDDEN: usize = 32;
/// The most phase buckets.
pub const MAX_BUCKETS: usize = 16;
/// Scores stay within this many hundredths of a disc.
const SCORE_LIMIT: i64 = 6400;

/// The largest row value (in [`ACTIVATION_ONE`] units) of a placement or mobility row, and of
/// an empties row (which carries the bias): 48 of the first and one of the second stay within
/// `i16`, whatever the position.
pub const ROW_LIMIT: i32 = 640;
/// See [`ROW_LIMIT`].
pub const EMPTIES_ROW_LIMIT: i32 = 1408;
const _: () = assert!(48 * ROW_LIMIT + EMPTIES_ROW_LIMIT <= i16::MAX as i32);

/// 8-bit rows: this many per unit.
pub const ROW8_ONE: i32 = ACTIVATION_ONE / 2;
/// The largest value of an 8-bit row (`i8::MIN` is left out, so that rows are symmetric).
pub const ROW8_LIMIT: i32 = 127;
/// The largest bucket bias beside 8-bit rows (units of [`ROW8_ONE`]): with every row at its
/// limit, the sum stays within `i16`, whatever the position.
pub const ROW8_BIAS_LIMIT: i32 = 4 * ROW8_ONE;
const _: () = assert!(INPUTS as i32 * ROW8_LIMIT + ROW8_BIAS_LIMIT <= i16::MAX as i32);

/// A network's rows as the evaluation reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowTable {
    /// `buckets × ROWS × width` of `i16`; each empties row has its bucket's bias added.
    I16(AlignedI16),
    /// `buckets × ROWS × width` of `i8`, and the buckets' biases (`buckets × width`).
    I8 {
        /// The rows.
        rows: AlignedI8,
        /// Each bucket's bias, at [`ROW8_ONE`].
        bias: Vec<i16>,
    },
}

/// A network with integer weights, as the evaluation reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    shape: NetShape,
    /// The rows of every bucket.
    rows: RowTable,
    /// `buckets × hidden × width`.
    dense: Vec<i16>,
    /// `buckets × hidden`, at [`ACTIVATION_ONE`].
    dense_bias: Vec<i32>,
    /// The dense layer as the evaluation reads it: per bucket, per pair of inputs, each
    /// unit's two weights side by side (`buckets × width/2 × hidden × 2`), so that a pair of
    /// activations multiplies every unit's pair in one multiply-add of 16-bit lanes.
    dense_pairs: AlignedI16,
    /// `STAGES × hidden`.
    output: Vec<i16>,
    /// `STAGES`, at `ACTIVATION_ONE × OUTPUT_ONE`.
    output_bias: Vec<i32>,
}

/// The most a dense bias may be (units of [`ACTIVATION_ONE`]).
const DENSE_BIAS_LIMIT: i32 = 1 << 20;
/// The most an output bias may be.
const OUTPUT_BIAS_LIMIT: i32 = 1 << 30;

/// Calls `$method::<W, H>` with the network's width and hidden units as constants: one copy
/// of the layers per shape, so that their loops have fixed lengths.
macro_rules! by_shape {
    ($net:ident, $method:ident, $($arg:expr),*) => {
        match ($net.shape.width, $net.shape.hidden) {
            (16, 8) => $net.$method::<16, 8>($($arg),*),
            (16, 16) => $net.$method::<16, 16>($($arg),*),
            (16, _) => $net.$method::<16, 32>($($arg),*),
            (32, 8) => $net.$method::<32, 8>($($arg),*),
            (32, 16) => $net.$method::<32, 16>($($arg),*),
            (32, _) => $net.$method::<32, 32>($($arg),*),
            (_, 8) => $net.$method::<64, 8>($($arg),*),
            (_, 16) => $net.$method::<64, 16>($($arg),*),
            (_, _) => $net.$method::<64, 32>($($arg),*),
        }
    };
}

impl Network {
    /// A network from its parts, checked: lengths agree with `shape`, and no value could
    /// overflow a sum.
    pub fn from_parts(
        shape: NetShape,
        rows: RowTable,
        dense: Vec<i16>,
        dense_bias: Vec<i32>,
        output: Vec<i16>,
        output_bias: Vec<i32>,
    ) -> Result<Network, String> {
        shape.check()?;
        let (w, h, b) = (shape.width, shape.hidden, shape.buckets);
        let (table_len, bias_len, format) = match &rows {
            RowTable::I16(table) => (table.as_slice().len(), b * w, RowFormat::I16),
            RowTable::I8 { rows, bias } => (rows.as_slice().len(), bias.len(), RowFormat::I8),
        };
        if format != shape.rows {
            return Err(format!(
                "rows of {} for a network of {} rows",
                format.name(),
                shape.rows.name()
            ));
        }
        let lengths = [
            ("embedding", table_len, shape.embedding_len()),
            ("row biases", bias_len, b * w),
            ("dense layer", dense.len(), b * h * w),
            ("dense biases", dense_bias.len(), b * h),
            ("output layer", output.len(), STAGES * h),
            ("output biases", output_bias.len(), STAGES),
        ];
        for (what, got, want) in lengths {
            if got != want {
                return Err(format!("{what}: {got} values, expected {want}"));
            }
        }
        match &rows {
            RowTable::I16(table) => {
                for (i, row) in table.as_slice().chunks_exact(w).enumerate() {
                    let limit = if i % ROWS >= inputs::EMPTIES_ROW {
                        EMPTIES_ROW_LIMIT
                    } else {
                        ROW_LIMIT
                    };
                    if row.iter().any(|&v| i32::from(v).abs() > limit) {
                        return Err(format!(
                            "embedding row {} out of range (|v| > {limit})",
                            i % ROWS
                        ));
                    }
                }
            }
            RowTable::I8 { rows, bias } => {
                if let Some(i) = rows.as_slice().iter().position(|&v| v == i8::MIN) {
                    return Err(format!(
                        "embedding row {} out of range (-128)",
                        i / w % ROWS
                    ));
                }
                if bias.iter().any(|&v| i32::from(v).abs() > ROW8_BIAS_LIMIT) {
                    return Err(format!("a row bias out of range (|v| > {ROW8_BIAS_LIMIT})"));
                }
            }
        }
        if dense_bias.iter().any(|v| v.abs() > DENSE_BIAS_LIMIT) {
            return Err("a dense bias out of range".into());
        }
        if output_bias.iter().any(|v| v.abs() > OUTPUT_BIAS_LIMIT) {
            return Err("an output bias out of range".into());
        }
        let mut dense_pairs = vec![0i16; dense.len()];
        for bucket in 0..b {
            for j in 0..h {
                for i in 0..w {
                    let to = bucket * w * h + (i / 2) * 2 * h + 2 * j + i % 2;
                    dense_pairs[to] = dense[(bucket * h + j) * w + i];
                }
            }
        }
        Ok(Network {
            shape,
            rows,
            dense_pairs: AlignedI16::new(&dense_pairs),
            dense,
            dense_bias,
            output,
            output_bias,
        })
    }

    /// The rows of every bucket.
    pub fn rows(&self) -> &RowTable {
        &self.rows
    }

    /// The network's shape.
    pub fn shape(&self) -> NetShape {
        self.shape
    }

    /// The score of `player` to move against `opponent` whose placement indices are `mine`,
    /// in hundredths of a disc: the copy compiled for the CPU level the engine runs at
    /// (`board::cpu::isa`, the one dispatch the search's copies also follow), whose row sums
    /// and dense layer are that level's vector instructions.
    #[inline(always)]
    pub fn score_indices(&self, mine: &[u16; LANES], player: u64, opponent: u64) -> i32 {
        #[cfg(target_arch = "x86_64")]
        match crate::board::cpu::isa() {
            crate::board::cpu::Isa::Avx512 => {
                // SAFETY: each copy is safe code compiled for a level's instructions; `isa`
                // chose the level this CPU runs (checked at start), which is all they ask.
                return unsafe { self.score_avx512(mine, player, opponent) };
            }
            crate::board::cpu::Isa::Avx2 => {
                // SAFETY: as above.
                return unsafe { self.score_avx2(mine, player, opponent) };
            }
            crate::board::cpu::Isa::Baseline => {}
        }
        self.score_portable(mine, player, opponent)
    }

    /// [`Network::score_indices`] for x86-64-v3.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn score_avx2(&self, mine: &[u16; LANES], player: u64, opponent: u64) -> i32 {
        // SAFETY: this copy runs only where the CPU runs AVX2.
        let (rows, bucket, stage) = unsafe { self.inputs(true, mine, player, opponent) };
        let sum = by_shape!(self, hidden_avx2, &rows, bucket, stage);
        self.finish(sum, stage)
    }

    /// [`Network::score_indices`] for x86-64-v4 (with the GFNI the search's copy also takes).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(
        enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq,avx512cd,gfni"
    )]
    fn score_avx512(&self, mine: &[u16; LANES], player: u64, opponent: u64) -> i32 {
        // SAFETY: this copy runs only where the CPU runs AVX2 (and AVX-512).
        let (rows, bucket, stage) = unsafe { self.inputs(true, mine, player, opponent) };
        let sum = by_shape!(self, hidden_avx2, &rows, bucket, stage);
        self.finish(sum, stage)
    }

    /// The score of `player` to move against `opponent`, from scratch.
    pub fn score(&self, player: u64, opponent: u64) -> i32 {
        self.score_indices(&FeatureState::new(player, opponent).mine, player, opponent)
    }

    /// [`Network::score`] by the plain loops, whatever the CPU: what the tests hold the vector
    /// copies to.
    #[cfg(test)]
    pub(crate) fn score_portable_from_scratch(&self, player: u64, opponent: u64) -> i32 {
        self.score_portable(&FeatureState::new(player, opponent).mine, player, opponent)
    }

    /// The layers in plain loops (every CPU without a copy of its own).
    #[inline(always)]
    fn score_portable(&self, mine: &[u16; LANES], player: u64, opponent: u64) -> i32 {
        // SAFETY: without AVX2 asked for, nothing is asked of the CPU.
        let (rows, bucket, stage) = unsafe { self.inputs(false, mine, player, opponent) };
        // In a browser built with WebAssembly SIMD, its copy of the layers (`wasm_simd.rs`).
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        let sum = by_shape!(self, hidden_wasm_simd, &rows, bucket, stage);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        let sum = by_shape!(self, hidden_portable, &rows, bucket, stage);
        self.finish(sum, stage)
    }

    /// The rows a position reads, its bucket and its stage.
    ///
    /// # Safety
    /// With `avx2`, the CPU must run AVX2.
    #[inline(always)]
    unsafe fn inputs(
        &self,
        avx2: bool,
        mine: &[u16; LANES],
        player: u64,
        opponent: u64,
    ) -> ([u32; INPUTS], usize, usize) {
        let empties = (!(player | opponent)).count_ones();
        // SAFETY: the caller's promise.
        let rows = unsafe { input_rows_on(avx2, mine, player, opponent) };
        (
            rows,
            bucket_of(empties, self.shape.buckets),
            empties.min(60) as usize,
        )
    }

    /// The score from the output before its bias (`sum`, at `ACTIVATION_ONE × OUTPUT_ONE`),
    /// in hundredths of a disc.
    #[inline(always)]
    fn finish(&self, sum: i32, stage: usize) -> i32 {
        // Units of OUTPUT_DISCS discs at ACTIVATION_ONE × OUTPUT_ONE, to hundredths of a disc.
        let scale = i64::from(ACTIVATION_ONE) * i64::from(OUTPUT_ONE);
        let total = i64::from(sum) + i64::from(self.output_bias[stage]);
        let centidiscs = total * (OUTPUT_DISCS as i64 * 100);
        (centidiscs.div_euclid(scale)).clamp(-SCORE_LIMIT, SCORE_LIMIT) as i32
    }

    /// The AVX2 layers (`simd.rs`) of a bucket and stage.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn hidden_avx2<const W: usize, const H: usize>(
        &self,
        rows: &[u32; INPUTS],
        bucket: usize,
        stage: usize,
    ) -> i32 {
        let range = bucket * ROWS * W..(bucket + 1) * ROWS * W;
        let active = match &self.rows {
            RowTable::I16(table) => simd::active_i16::<W>(&table.as_slice()[range], rows),
            RowTable::I8 { rows: table, bias } => {
                simd::active_i8::<W>(&table.as_slice()[range], &bias[bucket * W..][..W], rows)
            }
        };
        simd::hidden_output::<W, H>(
            &active,
            &self.dense_pairs.as_slice()[bucket * W * H..][..W * H],
            &self.dense_bias[bucket * H..][..H],
            &self.output[stage * H..][..H],
        )
    }
}

/// The network given with `--network`, if any.
static LOADED: OnceLock<Network> = OnceLock::new();

/// The network built into the binary (`data/neural.net`), decoded on first use.
static BUILT_IN: LazyLock<Network> = LazyLock::new(|| {
    Network::from_bytes(include_bytes!("../../../data/neural.net"))
        .unwrap_or_else(|e| panic!("the built-in network is broken: {e}"))
});

/// Makes `network` the one `neural` evaluates with, for the rest of the process, in place of
/// the built-in one; an error if another was installed.
pub fn use_network(network: Network) -> Result<(), String> {
    if let Some(existing) = LOADED.get() {
        return if *existing == network {
            Ok(())
        } else {
            Err("a different network is already in use".into())
        };
    }
    LOADED
        .set(network)
        .map_err(|_| "a different network is already in use".to_string())
}

/// The network `neural` evaluates with: the one installed with [`use_network`], else the
/// built-in one.
#[inline]
pub fn active_network() -> &'static Network {
    match LOADED.get() {
        Some(net) => net,
        None => &BUILT_IN,
    }
}

/// Decodes the network now (the built-in one is decoded on first use, about a tenth of a
/// second): servers call it before their first command, so that no clock pays for it.
pub fn warm_up() {
    let _ = active_network();
}

/// The network evaluator (see the module's essay).
#[derive(Clone, Copy, Debug, Default)]
pub struct Neural;

impl Neural {
    #[inline(always)]
    fn score_indices(mine: &[u16; LANES], player: u64, opponent: u64) -> i32 {
        // The network's score clamped to ±64 discs, and the tempo (`tempo.rs`) for the side to
        // move: well inside `EVAL_LIMIT`.
        active_network().score_indices(mine, player, opponent) + tempo::tempo()
    }
}

impl Evaluator for Neural {
    const ID: u8 = 9;
    type State = FeatureState;

    fn evaluate(&self, position: &Position) -> i32 {
        let (player, opponent) = (position.player(), position.opponent());
        Neural::score_indices(&FeatureState::new(player, opponent).mine, player, opponent)
    }

    fn state(&self, position: &Position) -> FeatureState {
        FeatureState::new(position.player(), position.opponent())
    }

    // Always inlined, as the rest of a node: into the search's per-level copies (as calls they
    // ran the baseline's instructions, the indices' updates and the dispatch included).
    #[inline(always)]
    fn play(&self, state: &FeatureState, square: usize, flips: u64) -> FeatureState {
        state.play(square, flips)
    }

    #[inline(always)]
    fn pass(&self, state: &FeatureState) -> FeatureState {
        state.pass()
    }

    #[inline(always)]
    fn evaluate_with(&self, state: &FeatureState, position: &Position) -> i32 {
        Neural::score_indices(&state.mine, position.player(), position.opponent())
    }

    #[inline(always)]
    fn leaf_score(&self, state: &FeatureState, child: &Position, square: usize, flips: u64) -> i32 {
        let mine = state.mine_after(square, flips);
        Neural::score_indices(&mine, child.player(), child.opponent())
    }
}

#[cfg(test)]
mod tests;
