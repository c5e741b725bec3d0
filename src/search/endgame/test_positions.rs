//! Positions near the end of random games and their values by plain negamax, for the tests
//! of the solver's searches.

use crate::board::{Bits, final_score, flips, legal_moves};

/// A small seeded generator (xorshift64).
pub(super) struct Xorshift(u64);

impl Xorshift {
    pub(super) fn new(seed: u64) -> Xorshift {
        Xorshift(seed)
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The position (side to move, other side) where a random game from the start first has
/// `empties` empty squares or fewer, or ends: passes and finished games included.
pub(super) fn random_position(rng: &mut Xorshift, empties: u32) -> (u64, u64) {
    let (mut player, mut opponent) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
    while (!(player | opponent)).count_ones() > empties {
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if legal_moves(opponent, player) == 0 {
                break;
            }
            (player, opponent) = (opponent, player);
            continue;
        }
        let squares: Vec<usize> = Bits(moves).collect();
        let sq = squares[(rng.next() % squares.len() as u64) as usize];
        let f = flips(player, opponent, sq);
        (player, opponent) = (opponent & !f, player | f | (1u64 << sq));
    }
    (player, opponent)
}

/// Plain negamax over the whole tree: the value of `player` to move.
pub(super) fn negamax(player: u64, opponent: u64) -> i32 {
    let moves = legal_moves(player, opponent);
    if moves == 0 {
        if legal_moves(opponent, player) == 0 {
            return final_score(player, opponent);
        }
        return -negamax(opponent, player);
    }
    Bits(moves)
        .map(|sq| {
            let f = flips(player, opponent, sq);
            -negamax(opponent & !f, player | f | (1u64 << sq))
        })
        .max()
        .expect("a move")
}

/// Plain fail-hard alpha-beta, no table and no ordering: is the value of `player` to move
/// within `alpha..beta`, and if not, which bound holds. Fast enough for a dozen empties.
pub(super) fn alpha_beta(player: u64, opponent: u64, mut alpha: i32, beta: i32) -> i32 {
    let moves = legal_moves(player, opponent);
    if moves == 0 {
        if legal_moves(opponent, player) == 0 {
            return final_score(player, opponent).clamp(alpha, beta);
        }
        return -alpha_beta(opponent, player, -beta, -alpha);
    }
    for sq in Bits(moves) {
        let f = flips(player, opponent, sq);
        let v = -alpha_beta(opponent & !f, player | f | (1u64 << sq), -beta, -alpha);
        if v >= beta {
            return beta;
        }
        alpha = alpha.max(v);
    }
    alpha
}
