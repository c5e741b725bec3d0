//! The pattern shapes and where their weights lie in a stage's table: the layout that both
//! the pattern features (`features.rs`) and the count features after them (`counts.rs`) are
//! placed by, so it stands below both.

/// The pattern shapes in one orientation, as square indices (`a1` = 0, `h1` = 7, `a2` = 8):
/// the family the strong engines use.
pub const SHAPES: [&[u8]; 11] = [
    // Second, third and fourth rows.
    &[8, 9, 10, 11, 12, 13, 14, 15],
    &[16, 17, 18, 19, 20, 21, 22, 23],
    &[24, 25, 26, 27, 28, 29, 30, 31],
    // Diagonals of 8, 7, 6, 5 and 4 squares.
    &[0, 9, 18, 27, 36, 45, 54, 63],
    &[1, 10, 19, 28, 37, 46, 55],
    &[2, 11, 20, 29, 38, 47],
    &[3, 12, 21, 30, 39],
    &[4, 13, 22, 31],
    // The edge with both X-squares.
    &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14],
    // A corner's 2 x 5 block.
    &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
    // A corner's 3 x 3 block.
    &[0, 1, 2, 8, 9, 10, 16, 17, 18],
];

/// The number of placements of all shapes.
pub const PLACEMENTS: usize = 46;
/// Lanes of the index vectors: the placements, padded to a multiple of 16.
pub const LANES: usize = 48;
/// The most squares in one shape.
pub(super) const MAX_SHAPE: usize = 10;

/// Where each shape's weights start in a stage's table; entry 0 of a table is the bias. Also
/// returns the end of the pattern weights. Evaluated at compile time ([`PATTERNS_END`]).
pub const fn shape_offsets() -> ([u32; SHAPES.len()], usize) {
    let mut offsets = [0u32; SHAPES.len()];
    let mut at = 1usize;
    let mut i = 0;
    while i < SHAPES.len() {
        offsets[i] = at as u32;
        at += 3usize.pow(SHAPES[i].len() as u32);
        i += 1;
    }
    (offsets, at)
}

/// The end of the pattern weights in a stage's table: the count features follow.
pub const PATTERNS_END: usize = shape_offsets().1;
