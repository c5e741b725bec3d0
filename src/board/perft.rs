//! Perft: the number of leaves of the game tree to a fixed depth.
//!
//! Convention: a pass is a ply, and a game that ends before the horizon is one leaf.

use super::{Bits, Move, Position, Square, flips, legal_moves};

/// Leaves one ply below a node: one per move, or a single pass / finished-game leaf.
#[inline(always)]
fn leaves_at_depth_one(moves: u64) -> u64 {
    (moves.count_ones() as u64).max(1)
}

fn perft_rec(player: u64, opponent: u64, depth: u32) -> u64 {
    let moves = legal_moves(player, opponent);
    if depth == 1 {
        return leaves_at_depth_one(moves);
    }
    if moves == 0 {
        if legal_moves(opponent, player) == 0 {
            return 1;
        }
        return perft_rec(opponent, player, depth - 1);
    }
    let mut total = 0;
    if depth == 2 {
        for sq in Bits(moves) {
            let f = flips(player, opponent, sq);
            let next_player = opponent & !f;
            let next_opponent = player | f | (1u64 << sq);
            total += leaves_at_depth_one(legal_moves(next_player, next_opponent));
        }
        return total;
    }
    for sq in Bits(moves) {
        let f = flips(player, opponent, sq);
        total += perft_rec(opponent & !f, player | f | (1u64 << sq), depth - 1);
    }
    total
}

/// The number of leaves `depth` plies below `position` (1 at depth 0).
pub fn perft(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    perft_rec(position.player(), position.opponent(), depth)
}

/// Perft split by the first move: each legal move (or the pass) with its leaf count.
/// A finished game yields no entries.
pub fn perft_divide(position: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 || position.is_game_over() {
        return Vec::new();
    }
    let moves = position.legal_moves();
    if moves == 0 {
        return vec![(Move::Pass, perft(&position.pass(), depth - 1))];
    }
    Bits(moves)
        .filter_map(Square::new)
        .map(|sq| {
            let child = position.play_flips(sq.bit(), position.flips(sq));
            (Move::Play(sq), perft(&child, depth - 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_start_counts() {
        let start = Position::start();
        let counts: Vec<u64> = (1..=6).map(|d| perft(&start, d)).collect();
        assert_eq!(counts, [4, 12, 56, 244, 1396, 8200]);
        let divided: u64 = perft_divide(&start, 5).iter().map(|&(_, n)| n).sum();
        assert_eq!(divided, 1396);
    }
}
