//! The network's layers in AVX2 instructions (x86-64-v3 and up): the row sum sixteen 16-bit
//! lanes at a time (8-bit rows widened to them), and the dense layer a pair of inputs at a time by the 16-bit multiply-add
//! (both activations of the pair against each unit's two weights, eight units a vector). The
//! compiler's own vectorisation of the portable loops (`mod.rs`) came out at 1,400 to 1,900
//! instructions an evaluation depending on how the loops were written (it once vectorised
//! across the rows instead of along them); written out, the same work is a few hundred.

use super::INPUTS;
use std::arch::x86_64::*;

/// The row sum of 16-bit rows (`table`, the bucket's rows) clipped to `0..ACTIVATION_ONE`: the
/// activations as the dense layer reads them, packed two lanes to an `i32`.
#[target_feature(enable = "avx2")]
pub(super) fn active_i16<const W: usize>(table: &[i16], rows: &[u32; INPUTS]) -> [i32; 32] {
    const { assert!(W.is_multiple_of(16) && W <= 64) };
    assert!((table.as_ptr() as usize).is_multiple_of(32));
    let mut sum = [_mm256_setzero_si256(); 4];
    // Rows as arrays: one bounds check a row (the index against the row count).
    let (table, _) = table.as_chunks::<W>();
    for &row in rows {
        let row = &table[row as usize];
        for (k, s) in sum.iter_mut().enumerate().take(W / 16) {
            // SAFETY: `row` holds W values; lanes 16k to 16k + 15 lie inside it (k < W / 16).
            // They start 32-byte aligned: the table starts on a cache line (`aligned.rs`),
            // a bucket's table and a row are multiples of 32 bytes long (W ≥ 16).
            let v = unsafe { _mm256_load_si256(row.as_ptr().add(16 * k).cast()) };
            *s = _mm256_add_epi16(*s, v);
        }
    }
    clipped::<W, false>(&sum, super::ACTIVATION_ONE as i16)
}

/// The row sum of 8-bit rows (`table`, the bucket's rows, and `bias`, its bias at `ROW8_ONE`)
/// clipped to `0..ROW8_ONE` and doubled: the activations as [`active_i16`] gives them. Each
/// row's 16 bytes are widened to 16 lanes of 16 bits and added.
#[target_feature(enable = "avx2")]
pub(super) fn active_i8<const W: usize>(
    table: &[i8],
    bias: &[i16],
    rows: &[u32; INPUTS],
) -> [i32; 32] {
    const { assert!(W.is_multiple_of(16) && W <= 64) };
    assert!((table.as_ptr() as usize).is_multiple_of(16));
    let bias = &bias[..W];
    let mut sum = [_mm256_setzero_si256(); 4];
    for (k, s) in sum.iter_mut().enumerate().take(W / 16) {
        // SAFETY: `bias` holds W values; 16k to 16k + 15 lie inside it (k < W / 16).
        *s = unsafe { _mm256_loadu_si256(bias.as_ptr().add(16 * k).cast()) };
    }
    let (table, _) = table.as_chunks::<W>();
    for &row in rows {
        let row = &table[row as usize];
        for (k, s) in sum.iter_mut().enumerate().take(W / 16) {
            // SAFETY: `row` holds W bytes; 16k to 16k + 15 lie inside it (k < W / 16). They
            // start 16-byte aligned: the table starts on a cache line and a row is a multiple
            // of 16 bytes long.
            let v = unsafe { _mm_load_si128(row.as_ptr().add(16 * k).cast()) };
            *s = _mm256_add_epi16(*s, _mm256_cvtepi8_epi16(v));
        }
    }
    clipped::<W, true>(&sum, super::ROW8_ONE as i16)
}

/// The sums clipped to `0..top` (and doubled if `DOUBLE`: 8-bit rows' sums are at half the
/// activations' scale), stored two lanes to an `i32`.
#[target_feature(enable = "avx2")]
fn clipped<const W: usize, const DOUBLE: bool>(sum: &[__m256i; 4], top: i16) -> [i32; 32] {
    let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi16(top));
    let mut active = [0i32; 32];
    for (k, s) in sum.iter().enumerate().take(W / 16) {
        let a = _mm256_min_epi16(_mm256_max_epi16(*s, zero), one);
        let a = if DOUBLE { _mm256_add_epi16(a, a) } else { a };
        // SAFETY: `active` holds 32 i32s (64 i16s); i16 lanes 16k to 16k + 15 lie inside it.
        unsafe { _mm256_storeu_si256(active.as_mut_ptr().cast::<i16>().add(16 * k).cast(), a) };
    }
    active
}

/// The sum over the units of the dense layer's clipped outputs times the output weights of
/// the position's stage: the network's output before its bias, at `ACTIVATION_ONE ×
/// OUTPUT_ONE`. `active` is the row sum's activations ([`active_i16`], [`active_i8`]), `pairs`
/// the bucket's dense layer in pair order, `bias` its dense biases and `output` the stage's
/// output weights.
#[target_feature(enable = "avx2")]
pub(super) fn hidden_output<const W: usize, const H: usize>(
    active: &[i32; 32],
    pairs: &[i16],
    bias: &[i32],
    output: &[i16],
) -> i32 {
    const { assert!(W.is_multiple_of(16) && W <= 64 && H.is_multiple_of(8) && H <= 32) };
    let pairs = &pairs[..W * H];
    assert!((pairs.as_ptr() as usize).is_multiple_of(32));
    let (bias, output) = (&bias[..H], &output[..H]);
    let mut z = [_mm256_setzero_si256(); 4];
    for (p, &pair) in active.iter().enumerate().take(W / 2) {
        let both = _mm256_set1_epi32(pair);
        let weights = &pairs[p * 2 * H..][..2 * H];
        for (k, zk) in z.iter_mut().enumerate().take(H / 8) {
            // SAFETY: `weights` holds 2H values; lanes 16k to 16k + 15 lie inside it (k < H / 8).
            // Aligned as the rows are: a bucket's layer (W·H values) and a pair's weights (2H)
            // are multiples of 32 bytes from a cache line (H ≥ 8).
            let w = unsafe { _mm256_load_si256(weights.as_ptr().add(16 * k).cast()) };
            *zk = _mm256_add_epi32(*zk, _mm256_madd_epi16(both, w));
        }
    }
    let top = _mm256_set1_epi32(super::ACTIVATION_ONE);
    let mut out = _mm256_setzero_si256();
    for (k, zk) in z.iter().enumerate().take(H / 8) {
        // SAFETY: `bias` and `output` hold H values; 8k to 8k + 7 lie inside them (k < H / 8).
        let (b, o) = unsafe {
            (
                _mm256_loadu_si256(bias.as_ptr().add(8 * k).cast()),
                _mm256_cvtepi16_epi32(_mm_loadu_si128(output.as_ptr().add(8 * k).cast())),
            )
        };
        let shift = super::HIDDEN_ONE.trailing_zeros() as i32;
        let unit = _mm256_add_epi32(_mm256_sra_epi32(*zk, _mm_cvtsi32_si128(shift)), b);
        let unit = _mm256_min_epi32(_mm256_max_epi32(unit, _mm256_setzero_si256()), top);
        out = _mm256_add_epi32(out, _mm256_mullo_epi32(unit, o));
    }
    let half = _mm_add_epi32(
        _mm256_castsi256_si128(out),
        _mm256_extracti128_si256(out, 1),
    );
    let quarter = _mm_add_epi32(half, _mm_unpackhi_epi64(half, half));
    let last = _mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, 0b01));
    _mm_cvtsi128_si32(last)
}
