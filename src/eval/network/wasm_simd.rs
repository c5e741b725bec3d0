//! The network's layers in WebAssembly SIMD (simd128), for the engine in a browser page: the
//! same work as the AVX2 copy (`simd.rs`) in 128-bit vectors. The row sum adds eight 16-bit
//! lanes at a time (8-bit rows widened as they load); the dense layer takes a pair of inputs at a time, both activations of the
//! pair against each unit's two weights by the 16-bit dot product (`i32x4_dot_i16x8`, the
//! counterpart of AVX2's multiply-add), four units a vector, in the pair order the AVX2 copy
//! reads (`dense_pairs`). The sums are integers in the same order of lanes, so the score is
//! the portable loops' to the unit; the browser test's bench holds the page's node counts to
//! the native binary's. Compiled only with `-C target-feature=+simd128` (scripts/web).

use super::{ACTIVATION_ONE, HIDDEN_ONE, INPUTS, Network, ROW8_ONE, ROWS, RowTable};
use core::arch::wasm32::*;

impl Network {
    /// The sum over the units of the dense layer's clipped outputs times the output weights
    /// of the position's stage, for the rows `rows` of bucket `bucket`: the network's output
    /// before its bias, at `ACTIVATION_ONE × OUTPUT_ONE`.
    pub(super) fn hidden_wasm_simd<const W: usize, const H: usize>(
        &self,
        rows: &[u32; INPUTS],
        bucket: usize,
        stage: usize,
    ) -> i32 {
        const { assert!(W.is_multiple_of(8) && W <= 64 && H.is_multiple_of(4) && H <= 32) };
        let range = bucket * ROWS * W..(bucket + 1) * ROWS * W;
        let mut sum = [i16x8_splat(0); 8];
        let (top, shift) = match &self.rows {
            RowTable::I16(table) => {
                // Rows as arrays: one bounds check a row (the index against the row count).
                let (table, _) = table.as_slice()[range].as_chunks::<W>();
                for &row in rows {
                    let row = &table[row as usize];
                    for (k, s) in sum.iter_mut().enumerate().take(W / 8) {
                        // SAFETY: `row` holds W values; lanes 8k to 8k + 7 lie inside it
                        // (k < W / 8). WebAssembly loads need no alignment.
                        let v = unsafe { v128_load(row.as_ptr().add(8 * k).cast()) };
                        *s = i16x8_add(*s, v);
                    }
                }
                (ACTIVATION_ONE, 0)
            }
            RowTable::I8 { rows: table, bias } => {
                let bias = &bias[bucket * W..][..W];
                for (k, s) in sum.iter_mut().enumerate().take(W / 8) {
                    // SAFETY: `bias` holds W values; 8k to 8k + 7 lie inside it (k < W / 8).
                    *s = unsafe { v128_load(bias.as_ptr().add(8 * k).cast()) };
                }
                let (table, _) = table.as_slice()[range].as_chunks::<W>();
                for &row in rows {
                    let row = &table[row as usize];
                    for (k, s) in sum.iter_mut().enumerate().take(W / 8) {
                        // SAFETY: `row` holds W bytes; 8k to 8k + 7 lie inside it (k < W / 8).
                        let v = unsafe { i16x8_load_extend_i8x8(row.as_ptr().add(8 * k)) };
                        *s = i16x8_add(*s, v);
                    }
                }
                (ROW8_ONE, 1)
            }
        };
        let pairs = &self.dense_pairs.as_slice()[bucket * W * H..][..W * H];
        let bias = &self.dense_bias[bucket * H..][..H];
        let output = &self.output[stage * H..][..H];
        let (zero, one) = (i16x8_splat(0), i16x8_splat(top as i16));
        let mut active = [0i32; 32];
        for (k, s) in sum.iter().enumerate().take(W / 8) {
            let a = i16x8_shl(i16x8_min(i16x8_max(*s, zero), one), shift);
            // SAFETY: `active` holds 32 i32s (64 i16s); i16 lanes 8k to 8k + 7 lie inside it.
            unsafe { v128_store(active.as_mut_ptr().cast::<i16>().add(8 * k).cast(), a) };
        }
        let mut z = [i32x4_splat(0); 8];
        for (p, &pair) in active.iter().enumerate().take(W / 2) {
            let both = i32x4_splat(pair);
            let weights = &pairs[p * 2 * H..][..2 * H];
            for (k, zk) in z.iter_mut().enumerate().take(H / 4) {
                // SAFETY: `weights` holds 2H values; lanes 8k to 8k + 7 lie inside it (k < H / 4).
                let w = unsafe { v128_load(weights.as_ptr().add(8 * k).cast()) };
                *zk = i32x4_add(*zk, i32x4_dot_i16x8(both, w));
            }
        }
        let (floor, top) = (i32x4_splat(0), i32x4_splat(ACTIVATION_ONE));
        let mut out = i32x4_splat(0);
        for (k, zk) in z.iter().enumerate().take(H / 4) {
            // SAFETY: `bias` and `output` hold H values; 4k to 4k + 3 lie inside them (k < H / 4).
            let (b, o) = unsafe {
                (
                    v128_load(bias.as_ptr().add(4 * k).cast()),
                    i32x4_extend_low_i16x8(v128_load64_zero(output.as_ptr().add(4 * k).cast())),
                )
            };
            let unit = i32x4_add(i32x4_shr(*zk, HIDDEN_ONE.trailing_zeros()), b);
            let unit = i32x4_min(i32x4_max(unit, floor), top);
            out = i32x4_add(out, i32x4_mul(unit, o));
        }
        i32x4_extract_lane::<0>(out)
            + i32x4_extract_lane::<1>(out)
            + i32x4_extract_lane::<2>(out)
            + i32x4_extract_lane::<3>(out)
    }
}
