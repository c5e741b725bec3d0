//! What the network reads of a position: one embedding row per input, in a table of
//! [`ROWS`] rows per phase bucket. The 46 pattern placements (rows shared between the
//! placements of one shape, at the offsets the linear tables use), both sides' mobility and
//! the number of empties. Computed by the same code the linear evaluator uses, so that the
//! trainer and the search see the same indices.

use crate::board::legal_moves_both_on;
use crate::eval::features::{LANE_OFFSETS, LANES, MOBILITY_MAX, PATTERNS_END, PLACEMENTS};
use crate::eval::state::FeatureState;

/// Rows of one side's mobility (0 to [`MOBILITY_MAX`] moves; more count as the most).
pub const MOBILITY_ROWS: usize = MOBILITY_MAX + 1;
/// The first row of the side to move's mobility.
pub const MINE_MOBILITY: usize = PATTERNS_END;
/// The first row of the other side's mobility.
pub const THEIR_MOBILITY: usize = MINE_MOBILITY + MOBILITY_ROWS;
/// The first row of the empties (0 to 60): a phase term within a bucket, which also carries
/// the bucket's bias.
pub const EMPTIES_ROW: usize = THEIR_MOBILITY + MOBILITY_ROWS;
/// Rows of one bucket's table.
pub const ROWS: usize = EMPTIES_ROW + 61;
/// Inputs of a position: the placements, two mobilities, the empties.
pub const INPUTS: usize = PLACEMENTS + 3;
/// Output stages: one per number of empties.
pub const STAGES: usize = 61;

/// The phase bucket of a position with `empties` empty squares among `buckets`: equal
/// shares of the 61 counts, the opening first.
#[inline]
pub fn bucket_of(empties: u32, buckets: usize) -> usize {
    (60 - empties.min(60) as usize) * buckets / 61
}

/// The rows a position reads: `mine` the side to move's placement indices
/// ([`FeatureState::mine`]), then the counts of `player` to move against `opponent`.
#[inline(always)]
pub fn input_rows(mine: &[u16; LANES], player: u64, opponent: u64) -> [u32; INPUTS] {
    // SAFETY: without AVX2 asked for, nothing is asked of the CPU.
    unsafe { input_rows_on(false, mine, player, opponent) }
}

/// [`input_rows`] inside the network's per-level copies, which know whether their level has
/// AVX2 (`board::legal_moves_both_on`). Always inlined: into those copies, where the mobility's
/// AVX2 fill then inlines too (as a call it cost about 90 instructions an evaluation more).
///
/// # Safety
/// With `avx2`, the CPU must run AVX2.
#[inline(always)]
pub unsafe fn input_rows_on(
    avx2: bool,
    mine: &[u16; LANES],
    player: u64,
    opponent: u64,
) -> [u32; INPUTS] {
    let mut rows = [0u32; INPUTS];
    for k in 0..PLACEMENTS {
        rows[k] = LANE_OFFSETS[k] + u32::from(mine[k]);
    }
    // SAFETY: the caller's promise.
    let (my_moves, their_moves) = unsafe { legal_moves_both_on(avx2, player, opponent) };
    let capped = |moves: u64| (moves.count_ones() as usize).min(MOBILITY_MAX);
    rows[PLACEMENTS] = (MINE_MOBILITY + capped(my_moves)) as u32;
    rows[PLACEMENTS + 1] = (THEIR_MOBILITY + capped(their_moves)) as u32;
    let empties = (!(player | opponent)).count_ones() as usize;
    rows[PLACEMENTS + 2] = (EMPTIES_ROW + empties) as u32;
    rows
}

/// [`input_rows`] computed from scratch.
pub fn input_rows_of(player: u64, opponent: u64) -> [u32; INPUTS] {
    input_rows(&FeatureState::new(player, opponent).mine, player, opponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_reads_four_moves_each_and_sixty_empties() {
        let rows = input_rows_of(0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        assert_eq!(rows[PLACEMENTS] as usize, MINE_MOBILITY + 4);
        assert_eq!(rows[PLACEMENTS + 1] as usize, THEIR_MOBILITY + 4);
        assert_eq!(rows[PLACEMENTS + 2] as usize, EMPTIES_ROW + 60);
        assert!(rows.iter().all(|&r| (r as usize) < ROWS));
    }

    #[test]
    fn buckets_split_the_game_from_the_opening() {
        assert_eq!(bucket_of(60, 4), 0);
        assert_eq!(bucket_of(0, 4), 3);
        assert_eq!(bucket_of(30, 4), 1);
        assert_eq!(bucket_of(29, 4), 2);
        assert_eq!((0..=60).map(|e| bucket_of(e, 1)).max(), Some(0));
    }
}
