//! 16-bit values stored 64-byte aligned, so that the evaluation's vector loads of a row (32 to
//! 128 bytes, at a multiple of 32 from the start) are aligned loads: the build's baseline
//! tuning (x86-64-v2, tuned as Sandy Bridge) splits every unaligned 256-bit load in two, and
//! an aligned one it leaves whole.

/// One cache line of values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
struct Line([i16; 32]);

/// A slice of `i16` whose start is 64-byte aligned.
#[derive(Clone, Debug, Default)]
pub struct AlignedI16 {
    lines: Vec<Line>,
    len: usize,
}

impl AlignedI16 {
    /// A copy of `values`.
    pub fn new(values: &[i16]) -> AlignedI16 {
        let mut lines = vec![Line::default(); values.len().div_ceil(32)];
        for (line, chunk) in lines.iter_mut().zip(values.chunks(32)) {
            line.0[..chunk.len()].copy_from_slice(chunk);
        }
        AlignedI16 {
            lines,
            len: values.len(),
        }
    }

    /// `len` zeros, to be filled in place (a network file's rows are written straight into
    /// their place, without a second copy of the table).
    pub fn zeroed(len: usize) -> AlignedI16 {
        AlignedI16 {
            lines: vec![Line::default(); len.div_ceil(32)],
            len,
        }
    }

    /// The values, to change.
    pub fn as_mut_slice(&mut self) -> &mut [i16] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the borrow exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<i16>(), self.len) }
    }

    /// The values.
    #[inline(always)]
    pub fn as_slice(&self) -> &[i16] {
        // SAFETY: `Line` is `repr(C)` around `[i16; 32]`, 64 bytes with no padding, so the
        // lines are contiguous `i16`s; they hold at least `len` of them (`new`), initialised.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<i16>(), self.len) }
    }
}

impl PartialEq for AlignedI16 {
    fn eq(&self, other: &AlignedI16) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for AlignedI16 {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_order_and_start_on_a_cache_line() {
        let values: Vec<i16> = (0..1000).map(|i| (i * 37 % 2001 - 1000) as i16).collect();
        let aligned = AlignedI16::new(&values);
        assert_eq!(aligned.as_slice(), &values[..]);
        assert_eq!(aligned.as_slice().as_ptr() as usize % 64, 0);
        assert_eq!(AlignedI16::new(&[]).as_slice(), &[] as &[i16]);
        let mut filled = AlignedI16::zeroed(values.len());
        assert!(filled.as_slice().iter().all(|&v| v == 0));
        filled.as_mut_slice().copy_from_slice(&values);
        assert_eq!(filled, aligned);
    }
}
