//! The exact endgame solver: the final disc difference under perfect play.
//!
//! Null-window searches do the work; the root and principal-variation nodes use PVS on top.
//! Near the end moves are tried in quadrant-parity order with hand-specialised last plies; higher
//! up, "fastest first" ordering (fewest replies for the opponent), the transposition table and
//! stability cut-offs prune the tree.

use super::limits::Stopper;
use super::stability::stable_discs;
use super::tt::{KIND_ENDGAME, NO_MOVE, TranspositionTable};
use crate::board::{Bits, CORNERS, flips, last_flip_count, legal_moves};
use crate::eval::Pattern;

/// The evaluator's view of a position far from the end, for move ordering: the pattern
/// evaluator (hundredths of a disc) divided by [`ORDER_SCALE`], so that a disc of estimated
/// score weighs about as much as one reply of the opponent's mobility term.
#[inline]
fn order_view(player: u64, opponent: u64) -> i32 {
    Pattern::score(player, opponent) / ORDER_SCALE
}
/// Tuned on FFO #20-#39: 4, 8, 16, 32 and 64 gave 235, 212, 199, 174 and 186 M nodes.
const ORDER_SCALE: i32 = 32;

/// At and below this many empties, moves are tried in parity order without sorting or the table.
const SHALLOW_EMPTIES: u32 = 6;
/// At and above this many empties, nodes use the transposition table.
const TT_EMPTIES: u32 = 10;
/// At and above this many empties, children are looked up in the table before searching.
const ETC_EMPTIES: u32 = 12;
/// Above this many empties, moves are sorted with the pattern evaluator's view, not mobility alone.
const EVAL_ORDER_EMPTIES: u32 = 14;
/// Above this many empties, that view looks one ply deeper.
const DEEP_ORDER_EMPTIES: u32 = 15;

/// The four quadrants, for parity ordering.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0F0F_0F0F,
    0x0000_0000_F0F0_F0F0,
    0x0F0F_0F0F_0000_0000,
    0xF0F0_F0F0_0000_0000,
];

/// The final score for `player` when the game ends with `empties` squares empty: they go to
/// the winner.
#[inline]
pub fn final_score(player: u64, opponent: u64) -> i32 {
    let p = player.count_ones() as i32;
    let o = opponent.count_ones() as i32;
    let e = 64 - p - o;
    let diff = p - o;
    if diff > 0 {
        diff + e
    } else if diff < 0 {
        diff - e
    } else {
        0
    }
}

impl Endgame<'_> {
    /// The exact value and best move, found by windows of width 2 around `guess` widened until
    /// the value falls inside (scores of finished games are always even).
    pub fn solve_exact(&mut self, player: u64, opponent: u64, guess: i32, n: u32) -> (i32, u8) {
        let guess = (guess.clamp(-64, 64) / 2) * 2;
        let (mut alpha, mut beta) = (guess - 1, guess + 1);
        let mut width = 4;
        loop {
            let (v, best) = self.pvs(player, opponent, alpha, beta, n);
            if self.stopper.stopped() || (v > alpha && v < beta) {
                return (v, best);
            }
            if v <= alpha {
                beta = v + 1;
                alpha = (v - width).max(-65);
            } else {
                alpha = v - 1;
                beta = (v + width).min(65);
            }
            width *= 2;
        }
    }
}

/// Squares of `empties` that lie in quadrants holding an odd number of empties.
#[inline]
fn odd_quadrant_squares(empties: u64) -> u64 {
    let mut odd = 0;
    for q in QUADRANTS {
        if (empties & q).count_ones() & 1 == 1 {
            odd |= q;
        }
    }
    empties & odd
}

/// The solver's state for one solve.
pub(crate) struct Endgame<'a> {
    pub tt: &'a mut TranspositionTable,
    pub nodes: u64,
    pub stopper: &'a mut Stopper,
}

impl Endgame<'_> {
    /// Score with one empty square left (`sq`), player to move.
    #[inline]
    fn solve1(&mut self, player: u64, opponent: u64, sq: usize) -> i32 {
        self.nodes += 1;
        let p = player.count_ones() as i32;
        let f = last_flip_count(player, sq) as i32;
        if f > 0 {
            return 2 * (p + f + 1) - 64;
        }
        let g = last_flip_count(opponent, sq) as i32;
        if g > 0 {
            // Opponent plays the last square: it has 63 - p discs before the move.
            return 64 - 2 * (63 - p + g + 1);
        }
        // Nobody can play it: the empty square goes to the winner (63 discs, never a draw).
        let diff = 2 * p - 63;
        if diff > 0 { diff + 1 } else { diff - 1 }
    }

    /// Two empties left (`a` and `b`): try both, then the opponent's, without lists or loops.
    #[inline]
    fn solve2(&mut self, player: u64, opponent: u64, alpha: i32, a: usize, b: usize) -> i32 {
        self.nodes += 1;
        let (bit_a, bit_b) = (1u64 << a, 1u64 << b);
        let mut best = -65;
        let f = flips(player, opponent, a);
        if f != 0 {
            best = -self.solve1(opponent & !f, player | f | bit_a, b);
            if best > alpha {
                return best;
            }
        }
        let f = flips(player, opponent, b);
        if f != 0 {
            return best.max(-self.solve1(opponent & !f, player | f | bit_b, a));
        }
        if best > -65 {
            return best;
        }
        // The side to move passes: the opponent tries both squares the same way.
        self.nodes += 1;
        let mut theirs = -65;
        let f = flips(opponent, player, a);
        if f != 0 {
            theirs = -self.solve1(player & !f, opponent | f | bit_a, b);
            if -theirs <= alpha {
                return -theirs;
            }
        }
        let f = flips(opponent, player, b);
        if f != 0 {
            theirs = theirs.max(-self.solve1(player & !f, opponent | f | bit_b, a));
        }
        if theirs > -65 {
            -theirs
        } else {
            final_score(player, opponent)
        }
    }

    /// Null-window search with few empties: is the value above `alpha`? Fail-soft.
    fn nws_shallow(&mut self, player: u64, opponent: u64, alpha: i32, empties: u64) -> i32 {
        let n = empties.count_ones();
        if n == 2 {
            let first = empties.trailing_zeros() as usize;
            let second = 63 - empties.leading_zeros() as usize;
            return self.solve2(player, opponent, alpha, first, second);
        }
        if n == 1 {
            return self.solve1(player, opponent, empties.trailing_zeros() as usize);
        }
        self.nodes += 1;
        let odd = odd_quadrant_squares(empties);
        let mut best = -65;
        for group in [odd, empties & !odd] {
            for sq in Bits(group) {
                let f = flips(player, opponent, sq);
                if f == 0 {
                    continue;
                }
                let bit = 1u64 << sq;
                let v =
                    -self.nws_shallow(opponent & !f, player | f | bit, -alpha - 1, empties & !bit);
                if v > best {
                    best = v;
                    if v > alpha {
                        return v;
                    }
                }
            }
        }
        if best == -65 {
            // No move: pass if the opponent can move, otherwise the game is over.
            if legal_moves(opponent, player) & empties == 0 {
                return final_score(player, opponent);
            }
            return -self.nws_shallow(opponent, player, -alpha - 1, empties);
        }
        best
    }

    /// Upper bound from the opponent's stable discs, when it can cut below `alpha`.
    #[inline]
    fn stability_cutoff(&self, player: u64, opponent: u64, alpha: i32) -> Option<i32> {
        // The opponent keeps at least its stable discs; only worth computing when it has enough
        // discs for the bound to reach alpha.
        if 64 - 2 * (opponent.count_ones() as i32) > alpha {
            return None;
        }
        let bound = 64 - 2 * stable_discs(opponent, player).count_ones() as i32;
        (bound <= alpha).then_some(bound)
    }

    /// Fills `list` with the moves sorted best first: the table move, then fewest opponent
    /// replies (corners count double), with a bonus for taking a corner.
    fn order_moves(
        &mut self,
        (player, opponent): (u64, u64),
        moves: u64,
        tt_move: u8,
        n: u32,
        list: &mut MoveList,
    ) {
        let odd = odd_quadrant_squares(!(player | opponent));
        for sq in Bits(moves) {
            let f = flips(player, opponent, sq);
            let bit = 1u64 << sq;
            let (np, no) = (opponent & !f, player | f | bit);
            let key = if sq as u8 == tt_move {
                -1_000_000
            } else if n > EVAL_ORDER_EMPTIES {
                // Far from the end: the evaluator's view (one ply deeper still when very far),
                // plus the opponent's mobility.
                let replies = legal_moves(np, no);
                let view = if n > DEEP_ORDER_EMPTIES {
                    best_reply_value(np, no, replies)
                } else {
                    order_view(np, no)
                };
                view + 8 * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32
            } else {
                let replies = legal_moves(np, no);
                let empties = !(np | no);
                let mut key = 32 * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32
                    + 4 * (neighbours(no) & empties).count_ones() as i32;
                if bit & CORNERS != 0 {
                    key -= 16;
                }
                if bit & odd != 0 {
                    key -= 8;
                }
                key
            };
            list.push(sq as u8, f, key);
        }
        list.sort();
    }

    /// Enhanced transposition cut-off: a child whose stored upper bound already proves the
    /// value above `alpha` ends the node before any move is searched.
    fn transposition_cutoff(
        &self,
        player: u64,
        opponent: u64,
        moves: u64,
        alpha: i32,
        n: u32,
    ) -> Option<i32> {
        for sq in Bits(moves) {
            let f = flips(player, opponent, sq);
            let (np, no) = (opponent & !f, player | f | (1u64 << sq));
            if let Some(e) = self.tt.probe(np, no, KIND_ENDGAME)
                && u32::from(e.depth) == n - 1
                && -e.upper > alpha
            {
                return Some(-e.upper);
            }
        }
        None
    }

    /// Null-window search: is the value above `alpha`? Fail-soft; `n` is the number of empties.
    pub fn nws(&mut self, player: u64, opponent: u64, alpha: i32, n: u32) -> i32 {
        if n <= SHALLOW_EMPTIES {
            return self.nws_shallow(player, opponent, alpha, !(player | opponent));
        }
        if self.stopper.poll(self.nodes) {
            return 0;
        }
        self.nodes += 1;
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if legal_moves(opponent, player) == 0 {
                return final_score(player, opponent);
            }
            return -self.nws(opponent, player, -alpha - 1, n);
        }
        if let Some(bound) = self.stability_cutoff(player, opponent, alpha) {
            return bound;
        }
        let use_tt = n >= TT_EMPTIES;
        let mut tt_move = NO_MOVE;
        if use_tt && let Some(e) = self.tt.probe(player, opponent, KIND_ENDGAME) {
            if e.lower > alpha {
                return e.lower;
            }
            if e.upper <= alpha {
                return e.upper;
            }
            tt_move = e.best;
        }
        if n >= ETC_EMPTIES
            && let Some(v) = self.transposition_cutoff(player, opponent, moves, alpha, n)
        {
            return v;
        }
        let mut list = MoveList::default();
        self.order_moves((player, opponent), moves, tt_move, n, &mut list);
        let mut best = -65;
        let mut best_move = NO_MOVE;
        for (sq, f) in list.iter() {
            let bit = 1u64 << sq;
            let v = -self.nws(opponent & !f, player | f | bit, -alpha - 1, n - 1);
            if v > best {
                best = v;
                best_move = sq;
                if v > alpha {
                    break;
                }
            }
        }
        if use_tt && !self.stopper.stopped() {
            if best > alpha {
                self.tt.store(
                    (player, opponent),
                    KIND_ENDGAME,
                    n as u8,
                    best,
                    64,
                    best_move,
                );
            } else {
                self.tt.store(
                    (player, opponent),
                    KIND_ENDGAME,
                    n as u8,
                    -64,
                    best,
                    NO_MOVE,
                );
            }
        }
        best
    }

    /// Principal-variation search in the window `alpha..beta`; returns the value and best move
    /// (`NO_MOVE` for a pass or a finished game).
    pub fn pvs(
        &mut self,
        player: u64,
        opponent: u64,
        mut alpha: i32,
        beta: i32,
        n: u32,
    ) -> (i32, u8) {
        if n <= SHALLOW_EMPTIES && beta == alpha + 1 {
            return (self.nws(player, opponent, alpha, n), NO_MOVE);
        }
        self.nodes += 1;
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if legal_moves(opponent, player) == 0 {
                return (final_score(player, opponent), NO_MOVE);
            }
            return (-self.pvs(opponent, player, -beta, -alpha, n).0, NO_MOVE);
        }
        let mut tt_move = NO_MOVE;
        if let Some(e) = self.tt.probe(player, opponent, KIND_ENDGAME) {
            if e.lower == e.upper && e.best != NO_MOVE {
                return (e.lower, e.best);
            }
            tt_move = e.best;
        }
        let original_alpha = alpha;
        let mut list = MoveList::default();
        self.order_moves(
            (player, opponent),
            moves,
            tt_move,
            n.max(TT_EMPTIES),
            &mut list,
        );
        let mut best = -65;
        let mut best_move = NO_MOVE;
        for (i, (sq, f)) in list.iter().enumerate() {
            let bit = 1u64 << sq;
            let (np, no) = (opponent & !f, player | f | bit);
            let v = if i == 0 {
                -self.pvs(np, no, -beta, -alpha, n - 1).0
            } else {
                let mut v = -self.nws(np, no, -alpha - 1, n - 1);
                if v > alpha && v < beta {
                    v = -self.pvs(np, no, -beta, -v, n - 1).0;
                }
                v
            };
            if self.stopper.stopped() {
                return (
                    best.max(v),
                    if best_move == NO_MOVE { sq } else { best_move },
                );
            }
            if v > best {
                best = v;
                best_move = sq;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let lower = if best > original_alpha { best } else { -64 };
        let upper = if best < beta { best } else { 64 };
        self.tt.store(
            (player, opponent),
            KIND_ENDGAME,
            n as u8,
            lower,
            upper,
            best_move,
        );
        (best, best_move)
    }
}

/// The squares next to any square of `b`, in the eight directions.
#[inline]
fn neighbours(b: u64) -> u64 {
    const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
    const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let h = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    let row = b | h;
    h | (row << 8) | (row >> 8)
}

/// The moves of a node with their flips and sort keys (at most 64, one per square).
struct MoveList {
    len: usize,
    squares: [u8; 64],
    flips: [u64; 64],
    keys: [i32; 64],
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            len: 0,
            squares: [0; 64],
            flips: [0; 64],
            keys: [0; 64],
        }
    }
}

impl MoveList {
    #[inline]
    fn push(&mut self, sq: u8, flips: u64, key: i32) {
        let i = self.len & 63;
        self.squares[i] = sq;
        self.flips[i] = flips;
        self.keys[i] = key;
        self.len += 1;
    }

    /// Insertion sort by key, lowest first.
    fn sort(&mut self) {
        for i in 1..self.len {
            let mut j = i;
            while j > 0 && self.keys[j - 1] > self.keys[j] {
                self.keys.swap(j - 1, j);
                self.squares.swap(j - 1, j);
                self.flips.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    /// The moves in order, as (square, flips).
    fn iter(&self) -> impl Iterator<Item = (u8, u64)> + '_ {
        self.squares[..self.len]
            .iter()
            .copied()
            .zip(self.flips[..self.len].iter().copied())
    }
}

/// The value for the side to move (`player`, whose moves are `replies`) of its best reply
/// by the pattern evaluator: a one-ply search used to order moves far from the end.
fn best_reply_value(player: u64, opponent: u64, replies: u64) -> i32 {
    if replies == 0 {
        return -order_view(opponent, player);
    }
    Bits(replies)
        .map(|sq| {
            let f = flips(player, opponent, sq);
            -order_view(opponent & !f, player | f | (1u64 << sq))
        })
        .max()
        .unwrap_or(0)
}
