//! Perft: the number of leaves of the game tree to a fixed depth.
//!
//! Convention: a pass is a ply, and a game that ends before the horizon is one leaf.

use super::{Bits, Move, Position, Square, flips, legal_moves_on};

/// Leaves one ply below a node: one per move, or a single pass / finished-game leaf.
#[inline(always)]
fn leaves_at_depth_one(moves: u64) -> u64 {
    (moves.count_ones() as u64).max(1)
}

/// The perft recursion compiled once per instruction level: each level's `perft` carries that
/// level's `#[target_feature]` and inlines the whole body (move generation and flips included),
/// so one dispatch at the root replaces a dispatch, and a call, per node.
trait Level {
    /// Whether the level has AVX2 (the move generation then skips its run-time check).
    const AVX2: bool;
    /// # Safety
    /// The CPU must run the level's instructions.
    unsafe fn perft(player: u64, opponent: u64, depth: u32) -> u64;
}

struct V2;
impl Level for V2 {
    const AVX2: bool = false;
    unsafe fn perft(player: u64, opponent: u64, depth: u32) -> u64 {
        perft_body::<V2>(player, opponent, depth)
    }
}

#[cfg(target_arch = "x86_64")]
struct V3;
#[cfg(target_arch = "x86_64")]
impl Level for V3 {
    const AVX2: bool = true;
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn perft(player: u64, opponent: u64, depth: u32) -> u64 {
        perft_body::<V3>(player, opponent, depth)
    }
}

#[cfg(target_arch = "x86_64")]
/// x86-64-v4 with GFNI.
struct V4;
#[cfg(target_arch = "x86_64")]
impl Level for V4 {
    const AVX2: bool = true;
    #[target_feature(
        enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq,avx512cd,gfni"
    )]
    unsafe fn perft(player: u64, opponent: u64, depth: u32) -> u64 {
        perft_body::<V4>(player, opponent, depth)
    }
}

#[inline(always)]
fn perft_body<L: Level>(player: u64, opponent: u64, depth: u32) -> u64 {
    // SAFETY: this body runs inside `L::perft`, so the CPU runs `L`, which has AVX2 if
    // `L::AVX2` says so (the same for every `legal_moves_on` below).
    let moves = unsafe { legal_moves_on(L::AVX2, player, opponent) };
    if depth == 1 {
        return leaves_at_depth_one(moves);
    }
    if moves == 0 {
        // SAFETY: as above.
        if unsafe { legal_moves_on(L::AVX2, opponent, player) } == 0 {
            return 1;
        }
        // SAFETY: this body runs inside `L::perft`, so the CPU runs `L`.
        return unsafe { L::perft(opponent, player, depth - 1) };
    }
    let mut total = 0;
    if depth == 2 {
        for sq in Bits(moves) {
            let f = flips(player, opponent, sq);
            let next_player = opponent & !f;
            let next_opponent = player | f | (1u64 << sq);
            // SAFETY: as above.
            let replies = unsafe { legal_moves_on(L::AVX2, next_player, next_opponent) };
            total += leaves_at_depth_one(replies);
        }
        return total;
    }
    for sq in Bits(moves) {
        let f = flips(player, opponent, sq);
        // SAFETY: as above.
        total += unsafe { L::perft(opponent & !f, player | f | (1u64 << sq), depth - 1) };
    }
    total
}

fn perft_rec(player: u64, opponent: u64, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    use super::cpu::Isa;
    use super::cpu::isa;
    // SAFETY: `isa()` is at most what the CPU runs (checked at start, see `cpu`).
    unsafe {
        match isa() {
            // With GFNI, 1.16 -> 1.04 of a native build's time on this machine.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => V4::perft(player, opponent, depth),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => V3::perft(player, opponent, depth),
            _ => V2::perft(player, opponent, depth),
        }
    }
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
