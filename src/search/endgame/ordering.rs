//! Move ordering for the endgame solver: which move to try first decides how much of the tree
//! a cut-off saves. Also the quadrant parity that the last plies play by.

use super::leaf_table::LeafTable;
use crate::board::{Bits, CORNERS, Color, Position, flips, legal_moves};
use crate::eval::state::FeatureState;
use crate::eval::{Evaluator, PatternFull};
use crate::search::tt::TranspositionTable;

/// The table a node's children look themselves up in, so that ordering the node's moves can
/// bring each child's entry into the cache on the way.
#[derive(Clone, Copy)]
pub(super) enum ChildTable<'t> {
    /// The shared table.
    Shared(&'t TranspositionTable),
    /// The thread's own table of the nodes just above the shallow search.
    Leaf(&'t LeafTable),
    /// None: the children are in the shallow search.
    None,
}

impl ChildTable<'_> {
    #[inline(always)]
    fn prefetch(self, player: u64, opponent: u64) {
        match self {
            ChildTable::Shared(tt) => tt.prefetch(player, opponent),
            ChildTable::Leaf(table) => table.prefetch(player, opponent),
            ChildTable::None => {}
        }
    }
}

/// The evaluator's view of the position `player`/`opponent` reached from the one whose
/// pattern state is `state` by a move on `sq` flipping `f`, for move ordering: the pattern
/// evaluator (hundredths of a disc, for `player`) divided by [`ORDER_SCALE`], so that a disc
/// of estimated score weighs about as much as one reply of the opponent's mobility term.
#[inline]
fn order_view(state: &FeatureState, sq: usize, f: u64, player: u64, opponent: u64) -> i32 {
    let child = Position::from_player_opponent(player, opponent, Color::Black);
    PatternFull.leaf_score(state, &child, sq, f) / ORDER_SCALE
}
/// Tuned on FFO #20-#39: 4, 8, 16, 32 and 64 gave 235, 212, 199, 174 and 186 M nodes.
pub(super) const ORDER_SCALE: i32 = 32;

/// What the opponent's `replies` add to a move's sort key beside the evaluator's view (in
/// [`ORDER_SCALE`] units): 8 a reply, corners counted twice.
#[inline]
pub(super) fn reply_weight(replies: u64) -> i32 {
    8 * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32
}

/// Above this many empties, moves are sorted with the pattern evaluator's view, not mobility
/// alone... 12 until session 25; once flips were found in vector registers, "fastest first"
/// got cheap enough to order 13 and 14 empties too: FFO #53 1008.2 M -> 1073.1 M nodes but
/// 0.90-0.91 of the time, #40-#49 474.0 M -> 501.2 M and 0.86-0.92 (paired runs, one core
/// each); 15 gave 1124.9 M and 526.4 M nodes, 1.01-1.04 and 0.94-0.98 of 14's time. The whole
/// of FFO #40-#59 with 14: 11.82 G nodes (11.11 G with 12), 0.758 of d2ced72's time beside it.
const EVAL_ORDER_EMPTIES: u32 = 14;
/// ... and above this many (16 and 17 empties, below the ordering searches), that view looks
/// one ply deeper. Nodes of FFO #40-#49 (#20-#39) for the two thresholds, at the time: 14/15
/// 682.6 M (83.1 M); 12/15 625.4 M (74.2 M); 12/13 599.4 M (71.2 M); 11/13 583.8 M (68.6 M);
/// 10/12 570.6 M (66.0 M). The one-ply view costs about 6,000 cycles a node at 14-15 empties
/// (an evaluation per reply of every move, each a few dozen weight loads that miss the
/// first-level cache), 2-3 times the node's other work; it saves nodes further down, but on
/// the big trees not their time. 12/13 against 12/15 in paired runs, one core each
/// (docs/measurements/endgame.md, session 22): FFO #55 5.63 G against 5.85 G nodes, 12/15
/// 0.92-0.95 of the time; #40-#49 545.9 M against 570.5 M, 0.96-1.01; 12/17 (no one-ply view)
/// 598.5 M.
/// 14/17 in session 26: FFO #40-#49 and #53 5.1% more nodes for 0.94-1.00 of the time, and
/// the whole #40-#59 would pass the 12.0 G nodes of issue 37's target.
const DEEP_ORDER_EMPTIES: u32 = 15;

/// At and below this many empties (the sorted nodes just above the shallow search, the most
/// numerous: about 14% of a solve's time is their own work), "fastest first" counts only the
/// opponent's replies and quadrant parity. FFO #40-#49: 549.8 M -> 545.9 M nodes; #20-#39
/// 65.02 M -> 64.72 M nodes and 0.988 of the instructions. The same at 8 empties too:
/// 551.1 M; keeping the corner terms at 7: 545.5-548.3 M. Measured when the shallow search
/// ran up to 6 empties; with it up to 4 (397.6 M nodes), the full terms down to 7, 6 and 5
/// empties gave 392.4, 389.8 and 391.0 M: too little to pay for their work at these nodes.
const REPLIES_ONLY_EMPTIES: u32 = 7;

/// Squares of `empties` that lie in quadrants holding an odd number of empties. Branch-free:
/// the parity of each row's half folds into its lowest bit, the four rows of a quadrant fold
/// into its corner's bit, and one multiplication spreads each quadrant's bit over its 16
/// squares (a loop of four population counts before: 2.4% of a solve's instructions).
#[inline]
pub(super) fn odd_quadrant_squares(empties: u64) -> u64 {
    let mut t = empties ^ (empties >> 2);
    t ^= t >> 1;
    t ^= t >> 8;
    t ^= t >> 16;
    // Bits 0, 4, 32 and 36 now hold the parities of the quadrants at A1, E1, A5 and E5.
    let odd = (t & 0x0000_0011_0000_0011).wrapping_mul(0x0F0F_0F0F);
    empties & odd
}

/// The X-squares (B2, G2, B7, G7) and the C-squares (B1, A2, ...) next to the corners among
/// `empties`: a move there usually opens the corner to the opponent, so the last plies try
/// them late. Next to a taken corner they are ordinary squares.
#[inline]
pub(super) fn squares_next_to_empty_corners(empties: u64) -> (u64, u64) {
    let open = empties & CORNERS;
    let x = ((open & 1) << 9)
        | ((open & 0x80) << 7)
        | ((open & 1 << 56) >> 7)
        | ((open & 1 << 63) >> 9);
    (x, c_squares_of(open))
}

/// The C-squares (the edge squares next to a corner) of the corners in `corners`.
#[inline]
fn c_squares_of(corners: u64) -> u64 {
    let along_ranks = ((corners << 1) | (corners >> 1)) & 0x4200_0000_0000_0042;
    let along_files = ((corners << 8) | (corners >> 8)) & 0x0081_0000_0000_8100;
    along_ranks | along_files
}

/// The corners `discs` holds and its discs on the edge squares next to them: a cheap count of
/// discs that stay, which the last plies' ordering prefers to gain.
#[inline]
fn corner_anchored(discs: u64) -> u32 {
    let corners = discs & CORNERS;
    corners.count_ones() + (c_squares_of(corners) & discs).count_ones()
}

/// Fills `list` with the moves of `player` (`n` empties) sorted best first. The table move
/// comes first. Far from the end (above [`EVAL_ORDER_EMPTIES`]) the key is the pattern
/// evaluator's view of the position after the move plus the opponent's mobility; nearer the
/// end it is "fastest first": the opponent's replies (corners count double), then the empties
/// next to the mover's discs (the opponent's potential mobility), with bonuses for taking a
/// corner, for the corners and their edge neighbours the mover then holds, and for a square
/// of a quadrant with an odd number of empties, and penalties for the X- and C-squares of
/// an empty corner (FFO #40-#49 with the shallow search's order below: 599.4 M -> 549.8 M
/// nodes; the X-squares alone, 584.5 M; the held corners, 566.8 M); at
/// [`REPLIES_ONLY_EMPTIES`] only the replies and parity count. Each child's entry in
/// `children` is brought into the cache on the way. Always inlined, so that each
/// instruction set's copy of the null-window search (`null_window.rs`) compiles it for its own.
#[inline(always)]
pub(super) fn order_moves(
    (player, opponent): (u64, u64),
    moves: u64,
    tt_move: u8,
    n: u32,
    list: &mut MoveList,
    children: ChildTable,
    flips_of: impl Fn(u64, u64, usize) -> u64,
) {
    let empties = !(player | opponent);
    let odd = odd_quadrant_squares(empties);
    let (risky_x, risky_c) = squares_next_to_empty_corners(empties);
    // The pattern indices of the node, made once and updated along each move and reply.
    let state = (n > EVAL_ORDER_EMPTIES).then(|| {
        PatternFull.state(&Position::from_player_opponent(
            player,
            opponent,
            Color::Black,
        ))
    });
    for sq in Bits(moves) {
        let f = flips_of(player, opponent, sq);
        let bit = 1u64 << sq;
        let (np, no) = (opponent & !f, player | f | bit);
        children.prefetch(np, no);
        let key = if sq as u8 == tt_move {
            -1_000_000
        } else if let Some(state) = &state {
            // Far from the end: the evaluator's view (one ply deeper still when very far),
            // plus the opponent's mobility.
            let replies = legal_moves(np, no);
            let view = if n > DEEP_ORDER_EMPTIES {
                best_reply_value(&PatternFull.play(state, sq, f), np, no, replies)
            } else {
                order_view(state, sq, f, np, no)
            };
            view + reply_weight(replies)
        } else {
            let replies = legal_moves(np, no);
            fastest_first_key((np, no), replies, bit, n, odd, (risky_x, risky_c))
        };
        list.push(sq as u8, f, key);
    }
    list.sort();
}

/// The "fastest first" sort key (lowest first) of the move on `bit` that leaves the opponent
/// to move in `(np, no)` (opponent, mover) with `replies`, at a node of `n` empties whose
/// squares in odd quadrants are `odd` and whose X- and C-squares next to an empty corner are
/// `risky`: what [`order_moves`] weighs below [`EVAL_ORDER_EMPTIES`].
#[inline(always)]
pub(super) fn fastest_first_key(
    (np, no): (u64, u64),
    replies: u64,
    bit: u64,
    n: u32,
    odd: u64,
    (risky_x, risky_c): (u64, u64),
) -> i32 {
    let mut key = 4 * reply_weight(replies);
    if bit & odd != 0 {
        key -= 8;
    }
    // Next to the shallow search the other terms cost more than they order.
    if n > REPLIES_ONLY_EMPTIES {
        key +=
            4 * (neighbours(no) & !(np | no)).count_ones() as i32 - 4 * corner_anchored(no) as i32;
        if bit & CORNERS != 0 {
            key -= 16;
        }
        if bit & risky_x != 0 {
            key += 16;
        }
        if bit & risky_c != 0 {
            key += 8;
        }
    }
    key
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
///
/// Each move's key and square are packed into one word, so the sort moves one word per step
/// (three arrays swapped in step, as before, cost the solver 7% of its null-window time in
/// stalled loads), and ties keep the square order in which moves are pushed.
pub(super) struct MoveList {
    len: usize,
    /// The key, biased to be unsigned, above the square's 8 bits.
    order: [u64; 64],
    /// Each listed move's flips, by square.
    flips: [u64; 64],
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            len: 0,
            order: [0; 64],
            flips: [0; 64],
        }
    }
}

impl MoveList {
    /// Empties the list for another node (the old entries are never read again).
    #[inline]
    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub(super) fn push(&mut self, sq: u8, flips: u64, key: i32) {
        let sq = sq & 63;
        let biased = (i64::from(key) - i64::from(i32::MIN)) as u64;
        self.order[self.len & 63] = biased << 8 | u64::from(sq);
        self.flips[usize::from(sq)] = flips;
        self.len += 1;
    }

    /// Insertion sort by key, lowest first; equal keys by square.
    #[inline]
    pub(super) fn sort(&mut self) {
        for i in 1..self.len.min(64) {
            let item = self.order[i];
            let mut j = i;
            while j > 0 && self.order[j - 1] > item {
                self.order[j] = self.order[j - 1];
                j -= 1;
            }
            self.order[j] = item;
        }
    }

    /// The `i`-th move in order, as (square, flips), if there is one.
    #[inline]
    pub(super) fn get(&self, i: usize) -> Option<(u8, u64)> {
        (i < self.len.min(64)).then(|| {
            let sq = (self.order[i] & 63) as u8;
            (sq, self.flips[usize::from(sq)])
        })
    }

    /// The moves in order, as (square, flips).
    pub(super) fn iter(&self) -> impl Iterator<Item = (u8, u64)> + '_ {
        (0..self.len.min(64)).filter_map(|i| self.get(i))
    }
}

/// The value for the side to move (`player`, whose moves are `replies` and whose pattern
/// state is `state`) of its best reply by the pattern evaluator: a one-ply search used to
/// order moves far from the end.
fn best_reply_value(state: &FeatureState, player: u64, opponent: u64, replies: u64) -> i32 {
    if replies == 0 {
        let passed = Position::from_player_opponent(opponent, player, Color::Black);
        return -PatternFull.evaluate_with(&PatternFull.pass(state), &passed) / ORDER_SCALE;
    }
    Bits(replies)
        .map(|sq| {
            let f = flips(player, opponent, sq);
            -order_view(state, sq, f, opponent & !f, player | f | (1u64 << sq))
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fold gives what counting each quadrant's empties gives, on random boards.
    #[test]
    fn odd_quadrants_match_counting() {
        let quadrants = [
            0x0000_0000_0F0F_0F0Fu64,
            0x0000_0000_F0F0_F0F0,
            0x0F0F_0F0F_0000_0000,
            0xF0F0_F0F0_0000_0000,
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let empties = x & (x >> 3);
            let counted = quadrants
                .iter()
                .filter(|&&q| (empties & q).count_ones() % 2 == 1)
                .fold(0, |odd, &q| odd | (empties & q));
            assert_eq!(odd_quadrant_squares(empties), counted, "{empties:#x}");
        }
        assert_eq!(odd_quadrant_squares(1 << 63), 1 << 63);
        assert_eq!(odd_quadrant_squares(!0), 0);
    }

    #[test]
    fn the_move_list_sorts_by_key_then_square_and_keeps_each_moves_flips() {
        let mut list = MoveList::default();
        // Keys at both ends of the range, ties, pushed in square order as the solver does.
        let moves = [
            (3u8, i32::MAX),
            (9, 5),
            (17, -1_000_000),
            (20, 5),
            (33, i32::MIN),
            (40, -7),
            (63, 5),
        ];
        for &(sq, key) in &moves {
            list.push(sq, u64::from(sq) * 0x0101 + 1, key);
        }
        let order: Vec<(u8, u64)> = list_sorted(list);
        let squares: Vec<u8> = order.iter().map(|&(sq, _)| sq).collect();
        assert_eq!(squares, [33, 17, 40, 9, 20, 63, 3]);
        assert!(order.iter().all(|&(sq, f)| f == u64::from(sq) * 0x0101 + 1));
    }

    /// B2 and the C-squares B1 and A2 belong to A1, and so on round the board; a taken corner
    /// makes its neighbours ordinary squares; held corners count with their edge neighbours.
    #[test]
    fn the_squares_next_to_empty_corners_and_the_anchored_discs() {
        let square = |name: &str| {
            let b = name.as_bytes();
            1u64 << (usize::from(b[0] - b'a') + 8 * usize::from(b[1] - b'1'))
        };
        let set = |names: &[&str]| names.iter().map(|n| square(n)).fold(0, |a, b| a | b);
        let all = squares_next_to_empty_corners(!0);
        assert_eq!(all.0, set(&["b2", "g2", "b7", "g7"]));
        assert_eq!(
            all.1,
            set(&["b1", "a2", "g1", "h2", "a7", "b8", "h7", "g8"])
        );
        let h8_taken = squares_next_to_empty_corners(!square("h8"));
        assert_eq!(h8_taken.0, set(&["b2", "g2", "b7"]));
        assert_eq!(h8_taken.1, set(&["b1", "a2", "g1", "h2", "a7", "b8"]));
        assert_eq!(squares_next_to_empty_corners(!CORNERS), (0, 0));
        // a1 with b1 and a2, h8 alone; not b2 nor c1, nor g1 without h1.
        let discs = set(&["a1", "b1", "a2", "b2", "c1", "h8", "g1"]);
        assert_eq!(corner_anchored(discs), 4);
        assert_eq!(corner_anchored(set(&["b1", "b2", "g7"])), 0);
    }

    fn list_sorted(mut list: MoveList) -> Vec<(u8, u64)> {
        list.sort();
        assert_eq!(list.get(list.len), None);
        list.iter().collect()
    }
}
