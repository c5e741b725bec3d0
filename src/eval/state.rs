//! The incremental pattern indices: [`FeatureState`] keeps both sides' views of every
//! placement's index and updates them along a move from the update table of `features.rs`,
//! so a search carries the indices down the tree instead of rebuilding them at every node.

use super::features::{LANES, TABLES, placement_indices};
use crate::board::Bits;

/// The pattern indices of a position from both sides' views, kept up to date along moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureState {
    /// The indices with digit 1 for the side to move.
    pub mine: [u16; LANES],
    /// The indices with digit 1 for the other side.
    pub theirs: [u16; LANES],
}

impl Default for FeatureState {
    fn default() -> FeatureState {
        FeatureState {
            mine: [0; LANES],
            theirs: [0; LANES],
        }
    }
}

impl FeatureState {
    /// The indices of `player` (to move) against `opponent`, computed from scratch.
    pub fn new(player: u64, opponent: u64) -> FeatureState {
        let mut state = FeatureState::default();
        placement_indices(player, opponent, &mut state.mine, &mut state.theirs);
        state
    }

    /// The state after the side to move plays on `square`, turning `flips`: the views swap,
    /// since the other side is then to move.
    // Always inlined, as the other updates here: into the search's per-level copies, where the
    // lane sums become that level's vector adds (as calls they ran the baseline's code).
    #[inline(always)]
    pub fn play(&self, square: usize, flips: u64) -> FeatureState {
        let delta = &TABLES.delta;
        let mut flipped = [0u16; LANES];
        for f in Bits(flips) {
            for (sum, d) in flipped.iter_mut().zip(&delta[f]) {
                *sum = sum.wrapping_add(*d);
            }
        }
        let placed = &delta[square];
        let mut next = FeatureState::default();
        for k in 0..LANES {
            // Mover's view: the square goes 0 -> 1, each flip 2 -> 1. Other view: 0 -> 2, 1 -> 2.
            next.theirs[k] = self.mine[k]
                .wrapping_add(placed[k])
                .wrapping_sub(flipped[k]);
            next.mine[k] = self.theirs[k]
                .wrapping_add(placed[k].wrapping_mul(2))
                .wrapping_add(flipped[k]);
        }
        next
    }

    /// The indices of the side to move after the side to move here plays on `square`,
    /// turning `flips`: [`FeatureState::play`]'s `mine` alone, which is all a leaf needs.
    #[inline(always)]
    pub fn mine_after(&self, square: usize, flips: u64) -> [u16; LANES] {
        let delta = &TABLES.delta;
        let placed = &delta[square];
        let mut mine = [0u16; LANES];
        for k in 0..LANES {
            mine[k] = self.theirs[k].wrapping_add(placed[k].wrapping_mul(2));
        }
        for f in Bits(flips) {
            for (index, d) in mine.iter_mut().zip(&delta[f]) {
                *index = index.wrapping_add(*d);
            }
        }
        mine
    }

    /// The state after a pass.
    #[inline(always)]
    pub fn pass(&self) -> FeatureState {
        FeatureState {
            mine: self.theirs,
            theirs: self.mine,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Position, flips};

    #[test]
    fn incremental_indices_equal_fresh_ones_along_random_games() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            let mut position = Position::start();
            let mut state = FeatureState::new(position.player(), position.opponent());
            while !position.is_game_over() {
                if position.must_pass() {
                    position = position.pass();
                    state = state.pass();
                } else {
                    let moves: Vec<usize> = Bits(position.legal_moves()).collect();
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let sq = moves[(seed >> 33) as usize % moves.len()];
                    let f = flips(position.player(), position.opponent(), sq);
                    state = state.play(sq, f);
                    position = position.play_flips(1u64 << sq, f);
                }
                assert_eq!(
                    state,
                    FeatureState::new(position.player(), position.opponent())
                );
            }
        }
    }

    #[test]
    fn the_incremental_indices_are_the_placements_indices_and_sum_as_the_slow_sum() {
        use crate::eval::features::{
            LANE_OFFSETS, PLACEMENTS, placement_index, random_disc_pairs, shape_offsets,
            slow_pattern_sum,
        };
        // A table of distinct pseudo-random weights, so that any wrong index shows.
        let (_, end) = shape_offsets();
        let table: Vec<i8> = (0..end as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as i8)
            .collect();
        for (player, opponent) in random_disc_pairs(7, 20_000) {
            let state = FeatureState::new(player, opponent);
            for i in 0..PLACEMENTS {
                assert_eq!(state.mine[i], placement_index(i, player, opponent));
                assert_eq!(state.theirs[i], placement_index(i, opponent, player));
            }
            let incremental: i32 = (0..PLACEMENTS)
                .map(|i| i32::from(table[(LANE_OFFSETS[i] + u32::from(state.mine[i])) as usize]))
                .sum();
            assert_eq!(incremental, slow_pattern_sum(&table, player, opponent));
        }
    }
}
