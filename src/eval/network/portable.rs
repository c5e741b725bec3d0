//! The network's layers in plain loops: what every CPU without a vector copy of its own runs
//! (and what the tests hold the vector copies to).

use super::{ACTIVATION_ONE, HIDDEN_ONE, INPUTS, Network, ROW8_ONE, ROWS, RowTable};

/// The row sum's activations of a bucket, as the layers after it read them: `width` lanes of
/// `i16` at [`ACTIVATION_ONE`], clipped to `0..ACTIVATION_ONE`, packed two to an `i32` (the
/// pairs the dense layer multiplies), in plain loops.
#[inline(always)]
pub(super) fn active_portable<const W: usize>(
    rows: &RowTable,
    read: &[u32; INPUTS],
    bucket: usize,
) -> [i16; 64] {
    let mut active = [0i16; 64];
    match rows {
        RowTable::I16(table) => {
            let table = &table.as_slice()[bucket * ROWS * W..(bucket + 1) * ROWS * W];
            let mut sum = [0i16; W];
            for &row in read {
                let row: &[i16; W] = table[row as usize * W..][..W].try_into().expect("width");
                for i in 0..W {
                    sum[i] = sum[i].wrapping_add(row[i]);
                }
            }
            for i in 0..W {
                active[i] = sum[i].clamp(0, ACTIVATION_ONE as i16);
            }
        }
        RowTable::I8 { rows, bias } => {
            let table = &rows.as_slice()[bucket * ROWS * W..(bucket + 1) * ROWS * W];
            let mut sum: [i16; W] = bias[bucket * W..][..W].try_into().expect("width");
            for &row in read {
                let row: &[i8; W] = table[row as usize * W..][..W].try_into().expect("width");
                for i in 0..W {
                    sum[i] = sum[i].wrapping_add(i16::from(row[i]));
                }
            }
            for i in 0..W {
                active[i] = 2 * sum[i].clamp(0, ROW8_ONE as i16);
            }
        }
    }
    active
}

impl Network {
    /// The row sum and the dense layer in plain loops, a unit at a time.
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    #[inline(always)]
    pub(super) fn hidden_portable<const W: usize, const H: usize>(
        &self,
        rows: &[u32; INPUTS],
        bucket: usize,
        stage: usize,
    ) -> i32 {
        let active = active_portable::<W>(&self.rows, rows, bucket);
        let dense = &self.dense[bucket * H * W..][..H * W];
        let bias = &self.dense_bias[bucket * H..][..H];
        let output = &self.output[stage * H..][..H];
        let mut out = 0i32;
        for j in 0..H {
            let weights: &[i16; W] = dense[j * W..][..W].try_into().expect("width");
            let mut z = 0i32;
            for i in 0..W {
                z += i32::from(active[i]) * i32::from(weights[i]);
            }
            let unit = ((z >> HIDDEN_ONE.trailing_zeros()) + bias[j]).clamp(0, ACTIVATION_ONE);
            out += unit * i32::from(output[j]);
        }
        out
    }
}
