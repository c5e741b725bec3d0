//! A network's shape: its widths, its buckets and how its rows are stored, what a file must
//! agree on before its values are read.

use super::{MAX_BUCKETS, MAX_HIDDEN, ROWS, WIDTHS};

/// How a network's rows are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RowFormat {
    /// `i16` at [`ACTIVATION_ONE`], each bucket's bias in its empties row.
    #[default]
    I16,
    /// `i8` at [`ROW8_ONE`], each bucket's bias apart (see the module's essay).
    I8,
}

impl RowFormat {
    /// The format's name, as `train --rows` takes it.
    pub fn name(self) -> &'static str {
        match self {
            RowFormat::I16 => "i16",
            RowFormat::I8 => "i8",
        }
    }
}

/// The shape of a network: what a file must agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NetShape {
    /// The rows' width (one of [`WIDTHS`]).
    pub width: usize,
    /// Units of the dense layer (one of [`HIDDENS`]).
    pub hidden: usize,
    /// Phase buckets (1 to [`MAX_BUCKETS`]).
    pub buckets: usize,
    /// How the rows are stored.
    pub rows: RowFormat,
}

impl NetShape {
    /// Checks the shape is one the evaluation runs.
    pub fn check(&self) -> Result<(), String> {
        if !WIDTHS.contains(&self.width) {
            return Err(format!("width {} (expected 16, 32 or 64)", self.width));
        }
        if !(1..=MAX_HIDDEN).contains(&self.hidden) {
            return Err(format!(
                "hidden {} (expected 1 to {MAX_HIDDEN})",
                self.hidden
            ));
        }
        if !(1..=MAX_BUCKETS).contains(&self.buckets) {
            return Err(format!(
                "buckets {} (expected 1 to {MAX_BUCKETS})",
                self.buckets
            ));
        }
        Ok(())
    }

    /// Embedding values in all buckets.
    pub fn embedding_len(&self) -> usize {
        self.buckets * ROWS * self.width
    }
}
