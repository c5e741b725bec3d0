//! The pattern shapes and where their weights lie in a stage's table: the layout that both
//! the pattern features (`features.rs`) and the count features after them (`counts.rs`) are
//! placed by, so it stands below both; and which of a shape's weights must agree because a
//! symmetry maps the shape onto itself ([`symmetrize_patterns`]).
//!
//! It uses nothing but std: the build script includes it too (`#[path]`), to symmetrize the
//! weights it converts to eighths of a disc for the web build (`eighths.rs`).

use std::sync::LazyLock;

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

/// The image of square `sq` (`a1` = 0) under board symmetry `sym` (0 to 7), as
/// `board::apply_symmetry` maps bitboards: bit 2 transposes first (file and rank swap), then
/// bit 0 mirrors left-right, then bit 1 flips top-bottom. By coordinates, so that this file
/// needs nothing of the crate; its test checks the two agree.
fn square_image(sq: u8, sym: u8) -> u8 {
    let (mut file, mut rank) = (sq % 8, sq / 8);
    if sym & 4 != 0 {
        (file, rank) = (rank, file);
    }
    if sym & 1 != 0 {
        file = 7 - file;
    }
    if sym & 2 != 0 {
        rank = 7 - rank;
    }
    rank * 8 + file
}

/// For each shape of [`SHAPES`], the digit permutations of the symmetries that map its squares
/// onto themselves, the identity excluded: entry `k` of a permutation is where the image of
/// the shape's `k`-th square stands in the shape. A placement is stored in one order only, so
/// the mirror image of a position reads such a shape's digits in permuted order: its weights
/// must agree on indices that differ by these permutations, or mirror images would score
/// differently ([`symmetrize_patterns`]).
static SELF_SYMMETRIES: LazyLock<Vec<Vec<Vec<usize>>>> = LazyLock::new(|| {
    SHAPES
        .iter()
        .map(|shape| {
            (1..8u8)
                .filter_map(|sym| {
                    let image: Vec<u8> = shape.iter().map(|&sq| square_image(sq, sym)).collect();
                    image
                        .iter()
                        .map(|sq| shape.iter().position(|s| s == sq))
                        .collect::<Option<Vec<usize>>>()
                })
                .collect()
        })
        .collect()
});

/// Per shape with self-symmetries, the classes of its indices that those symmetries relate
/// (only classes of two or more), as offsets from the start of a stage's table: the classes
/// one after another in `.0`, where each ends in `.1`. The same for every stage, so made
/// once: [`symmetrize_patterns`] runs over every stage of the weights each time they are
/// loaded, and making the classes took most of that time.
static SYMMETRY_CLASSES: LazyLock<(Vec<u32>, Vec<u32>)> = LazyLock::new(|| {
    let (starts, _) = shape_offsets();
    let (mut members, mut ends) = (Vec::new(), Vec::new());
    for (i, shape) in SHAPES.iter().enumerate() {
        let permutations = &SELF_SYMMETRIES[i];
        if permutations.is_empty() {
            continue;
        }
        let (len, start) = (shape.len(), starts[i] as usize);
        let size = 3usize.pow(len as u32);
        let mut done = vec![false; size];
        let mut digits = [0usize; MAX_SHAPE];
        for index in 0..size {
            if done[index] {
                continue;
            }
            let mut rest = index;
            for d in digits.iter_mut().take(len) {
                *d = rest % 3;
                rest /= 3;
            }
            let mut class = vec![index];
            for sigma in permutations {
                let image = (0..len).rev().fold(0, |acc, k| acc * 3 + digits[sigma[k]]);
                if !class.contains(&image) {
                    class.push(image);
                }
            }
            for &j in &class {
                done[j] = true;
            }
            if class.len() > 1 {
                members.extend(class.iter().map(|&j| (start + j) as u32));
                ends.push(members.len() as u32);
            }
        }
    }
    (members, ends)
});

/// For each of a stage's `size` weights, the weight that stands for it when weights that
/// must agree ([`symmetrize_patterns`]) are fitted as one: the first of its class, or itself.
pub fn canonical_indices(size: usize) -> Vec<u32> {
    let mut map: Vec<u32> = (0..size as u32).collect();
    let (members, ends) = &*SYMMETRY_CLASSES;
    let mut begin = 0;
    for &end in ends {
        let class = &members[begin..end as usize];
        begin = end as usize;
        for &j in class {
            map[j as usize] = class[0];
        }
    }
    map
}

/// Makes one stage's pattern weights (a stage's table, bias first) agree between the indices
/// a shape's own symmetries relate (see [`SELF_SYMMETRIES`]): each class of such indices gets
/// its average, so that every position and its mirror images score alike. Idempotent.
pub fn symmetrize_patterns(stage: &mut [i16]) {
    let (members, ends) = &*SYMMETRY_CLASSES;
    let mut begin = 0;
    for &end in ends {
        let class = &members[begin..end as usize];
        begin = end as usize;
        let sum: i32 = class.iter().map(|&j| i32::from(stage[j as usize])).sum();
        let average = (f64::from(sum) / class.len() as f64).round() as i16;
        for &j in class {
            stage[j as usize] = average;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::apply_symmetry;

    #[test]
    fn square_images_are_the_boards_symmetries() {
        for sq in 0..64u8 {
            for sym in 0..8 {
                let image = apply_symmetry(1u64 << sq, sym).trailing_zeros() as u8;
                assert_eq!(square_image(sq, sym), image, "square {sq}, symmetry {sym}");
            }
        }
    }
}
