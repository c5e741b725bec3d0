//! Values stored 64-byte aligned, so that the evaluation's vector loads of a row (16 to 128
//! bytes, at a multiple of the row's size from the start) are aligned loads: the build's
//! baseline tuning (x86-64-v2, tuned as Sandy Bridge) splits every unaligned 256-bit load in
//! two, and an aligned one it leaves whole. Rows are `i16` ([`AlignedI16`]) or, in a network of
//! 8-bit rows, `i8` ([`AlignedI8`]).

use std::marker::PhantomData;

/// One cache line of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// The integer types a table holds: any of their bit patterns is a value, zero bytes are zero.
pub trait Lane: Copy + Default + PartialEq + std::fmt::Debug + private::Sealed {}
impl Lane for i16 {}
impl Lane for i8 {}

mod private {
    pub trait Sealed {}
    impl Sealed for i16 {}
    impl Sealed for i8 {}
}

/// A slice of `T` whose start is 64-byte aligned.
#[derive(Clone, Debug)]
pub struct Aligned<T: Lane> {
    lines: Vec<Line>,
    len: usize,
    lane: PhantomData<T>,
}

/// 16-bit rows.
pub type AlignedI16 = Aligned<i16>;
/// 8-bit rows.
pub type AlignedI8 = Aligned<i8>;

impl<T: Lane> Default for Aligned<T> {
    fn default() -> Self {
        Aligned::zeroed(0)
    }
}

impl<T: Lane> Aligned<T> {
    /// The lines that hold `len` values.
    fn lines_for(len: usize) -> usize {
        (len * size_of::<T>()).div_ceil(64)
    }

    /// A copy of `values`.
    pub fn new(values: &[T]) -> Aligned<T> {
        let mut out = Aligned::zeroed(values.len());
        out.as_mut_slice().copy_from_slice(values);
        out
    }

    /// `len` zeros, to be filled in place (a network file's rows are written straight into
    /// their place, without a second copy of the table).
    pub fn zeroed(len: usize) -> Aligned<T> {
        Aligned {
            lines: vec![Line([0; 64]); Self::lines_for(len)],
            len,
            lane: PhantomData,
        }
    }

    /// The values, to change.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the borrow exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<T>(), self.len) }
    }

    /// The values.
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `Line` is `repr(C)` around 64 bytes with no padding, so the lines are
        // contiguous bytes, aligned for any `Lane` (at most 2 bytes); they hold at least `len`
        // values (`lines_for`), every byte initialised, and every bit pattern of an `i8` or
        // `i16` is a value.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<T>(), self.len) }
    }
}

impl<T: Lane> PartialEq for Aligned<T> {
    fn eq(&self, other: &Aligned<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Lane> Eq for Aligned<T> {}

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
        let bytes: Vec<i8> = (0..1001).map(|i| (i * 37 % 255 - 127) as i8).collect();
        let aligned = AlignedI8::new(&bytes);
        assert_eq!(aligned.as_slice(), &bytes[..]);
        assert_eq!(aligned.as_slice().as_ptr() as usize % 64, 0);
    }
}
