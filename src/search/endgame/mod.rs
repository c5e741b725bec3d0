//! The exact endgame solver: the final disc difference under perfect play.
//!
//! **What it computes.** The score of a finished game is the disc difference with the empty
//! squares given to the winner ([`crate::board::final_score`]); it is always even. The solver
//! finds it for the side to move, or only its sign (win/draw/loss), by alpha-beta over the
//! whole remaining tree. All searches are fail-soft: a value outside the window is still a
//! true bound.
//!
//! **Windows.** [`Endgame::solve_exact`] does not search the full -64..64 window. It starts
//! with a window of width 2 around a guess (the searcher's score guess from a short `pattern-full`
//! search, rounded to even); after a failure the bound it returned is known, and the next
//! window of width 2 asks only whether the value lies beyond it, until a search lands on
//! the value or the bounds meet. Narrow windows cut far more than wide ones, so a good guess
//! does most of a solve in one or two passes. A win/draw/loss solve is
//! the single window -1..1 (its pre-searches, below, still look for the value near a draw).
//!
//! **Selective pre-searches.** From [`PRESEARCH_EMPTIES`] empties on, [`Endgame::solve_selective`]
//! first solves at 73%, then 87%, then 95% confidence: null-window nodes of 12 empties or more
//! try a Multi-ProbCut cut, a shallow `pattern-full` search whose value predicts the exact score
//! (the regression of `probcut::endgame_regression`), taken when the prediction clears the
//! window by `t` sigmas. These searches are much smaller than the exact one and leave best
//! moves for its nodes in the table, plus a value to centre its first window on. Their table
//! entries carry their selectivity, so the exact search takes their moves but not their
//! bounds, except below 12 empties, where nothing is cut and the entries are exact. On FFO
//! #40-#49 this more than halves the nodes (1851 M to 899 M at first). A win/draw/loss solve's
//! pre-searches look for the value too while it may be a draw ([`WLD_EXACT_MARGIN`]), and
//! only for its sign once it is clearly decided. Both live in `windows.rs`.
//!
//! **Two searches.** [`Endgame::pvs`] runs the root and the principal variation: the first
//! move with the full window, the others with a null window, searched again with the full
//! window only when they beat the best so far. [`Endgame::nws`] does the bulk of the work:
//! a null-window search that only asks "is the value above alpha?".
//!
//! **By depth.** What a node does depends on its number of empties `n`:
//! * from [`SEARCH_ORDER_EMPTIES`] (18) empties on, moves are ordered by a `pattern-full`
//!   midgame search of each child, 2 plies deep and one more every 4 further empties (FFO #55:
//!   7.8 G nodes instead of 12.7 G); above 15 empties by a one-ply search of the reply, above 14
//!   by the `pattern-full` view of the position after the move; below that "fastest first": the
//!   move that leaves the opponent fewest replies, with corners, quadrant parity and the
//!   opponent's potential mobility as tie-breaks (`ordering.rs`). The table move goes first,
//!   and a null-window node orders the other moves only when it does not refute the node;
//! * from [`TT_EMPTIES`] null-window nodes read and write the transposition table (the few
//!   principal-variation nodes always do), under a kind of their own ([`KIND_ENDGAME`]) with
//!   `n` as the depth, so that exact scores never mix with evaluations; from [`ETC_EMPTIES`]
//!   they first look their children up in it (enhanced transposition cut-off); below it,
//!   down to the shallow search, each thread keeps a small table of its own that stays in the
//!   processor's cache (`leaf_table.rs`: FFO #20-#39 91.5 M -> 83.1 M nodes, same time);
//! * above [`SHALLOW_EMPTIES`] a null-window node may stop at once when the opponent's stable
//!   discs ([`stable_discs`](super::stability::stable_discs)) already hold the score to
//!   alpha or below (`cutoffs.rs`, with the enhanced transposition cut-off);
//! * at [`SHALLOW_EMPTIES`] (5) and fewer, sorting and the table cost more than they save: moves
//!   are tried in parity order (squares of quadrants with an odd number of empties first,
//!   since the last move in a region tends to be worth having), the squares next to an empty
//!   corner after all others, and the last two empties and the last one are solved by hand
//!   without move lists (`solve2`, `solve1`: the last square's flips are counted, not made;
//!   `leaves.rs`).
//!
//! **Passes** cost no empties: the side without a move hands the same position over with the
//! window negated; with no move for either side the game is over and scored.
//!
//! **Stopping.** Null-window nodes poll the [`Stopper`]; a stopped search returns a value that
//! means nothing and stores nothing, and the searcher falls back on its quick search's move.
//!
//! **Statistics.** Each solve counts its nodes by empties and by kind of work, how its
//! null-window nodes ended, and the nodes spent on moves tried before the one that cut
//! (`stats.rs`); `RUST_LOG=debug` prints them after the solve.
//!
//! **Instruction sets.** The null-window search and the shallow search, nearly all of a
//! solve's time, are compiled for the build's baseline and, on x86-64, for AVX2 and AVX-512
//! too; each solver runs the copies its CPU has ([`Endgame::nws`] in `null_window.rs`, the
//! shallow search in `leaves.rs`).

mod cutoffs;
mod leaf_table;
mod leaves;
mod null_window;
mod ordering;
mod stats;
#[cfg(test)]
mod test_positions;
mod windows;

use super::limits::Stopper;
use super::probcut::{self, Selectivity};
use super::score::INFINITY;
use super::threads::{Busy, Deferrer};
use super::tt::{KIND_ENDGAME, NO_MOVE, TranspositionTable};
use crate::board::cpu::{Isa, isa};
use crate::board::{Bits, Color, Position, final_score, flips, legal_moves};
use crate::eval::{Evaluator, PatternFull};
use leaf_table::LeafTable;
use ordering::{ChildTable, MoveList, ORDER_SCALE, order_moves, reply_weight};
pub(crate) use stats::SolveStats;

/// At and below this many empties, moves are tried in parity order without sorting or the table.
/// Nodes above it sort their moves fastest first, look themselves up in the own table and try
/// the stability cut-off. FFO #40-#49 nodes (#20-#39 nodes, callgrind instructions): with 6
/// (until session 24) 570.5 M (67.5 M, 23.65 G); with 5 474.0 M (59.0 M, 24.80 G); with 4
/// 397.6 M (51.9 M, 27.27 G), even in time on the big trees but 11% slower on #20-#39, the
/// size of the solves in games; with 3, 327.7 M. FFO #40-#59 with 5: 11.11 G nodes (12.84 G
/// with 6), 1.02 of d2ced72's time beside it (docs/measurements/endgame.md, session 24).
const SHALLOW_EMPTIES: u32 = 5;
/// At and above this many empties, nodes use the transposition table. With 9 and
/// [`ETC_EMPTIES`] 11, FFO #40-#49 takes 831 M nodes against 890 M with 10 and 12, 2-3% less
/// time (the children's entries prefetched); 8 and 11 save more nodes (781 M), not time.
/// Below it the thread's own [`LeafTable`]: with the shared table from 7 empties, #40-#49
/// took 679 M nodes against 758 M but 9% more time; with the own table 680 M, same time;
/// the own table from 7 to 10 empties (the shared one from 11) 697 M.
const TT_EMPTIES: u32 = 9;
/// At and above this many empties, children are looked up in the table before searching.
const ETC_EMPTIES: u32 = 11;
/// With several threads, from this many empties on a node puts off the moves another
/// thread is searching (see `threads.rs`): below it a node is over before sharing pays.
const SPLIT_EMPTIES: u32 = 12;
/// More legal moves than any position has (the most known is 33).
const MAX_MOVES: usize = 40;
/// From this many empties on, moves are ordered by midgame searches of the children
/// ([`Endgame::order_by_search`]). On FFO #50-#54, 18 (depth 2, one more every 4 empties)
/// against the one-ply view everywhere: 6,055 M -> 5,376 M nodes, 176 s -> 165 s; from 20 at
/// depth 3, or 18 with one more every 3 empties, fewer savings.
const SEARCH_ORDER_EMPTIES: u32 = 18;

/// The depth of the ordering searches at a node of `n` empties (at least
/// [`SEARCH_ORDER_EMPTIES`]): 2 plies, one more for every 4 further empties.
#[inline]
fn search_order_depth(n: u32) -> u32 {
    2 + (n - SEARCH_ORDER_EMPTIES) / 4
}

/// From this many empties on, an exact solve starts with selective pre-searches.
const PRESEARCH_EMPTIES: u32 = 18;

/// The selectivities of the pre-searches, in order. Measured on FFO #40-#49 (nodes, s):
/// none 1851 M, 57.9 s; 73% 1014 M, 33.5 s; 95% 1125 M, 36.7 s; 73% then 95% 899 M, 30.6 s;
/// 73/87/95% 903 M; 73/95/99% 1011 M; all five 73..99% 1030 M. Since the entries below 12
/// empties count as exact, a middle pass pays: 73/95% against 73/87/95%, #40-#49 830.6 M ->
/// 814.8 M, #50-#54 6318 M -> 6043 M, #55 13.14 G -> 12.69 G nodes, `--mode wld` #50-#54
/// 4709 M -> 4661 M; 73/87/95/98% 818.2 M and 6328 M.
const PRESEARCHES: [Selectivity; 3] = [
    Selectivity::ALL[0],
    Selectivity::ALL[1],
    Selectivity::ALL[2],
];

/// In a win/draw/loss solve, the pre-searches solve for the exact (selective) value while the
/// guess is within this many discs of a draw, and only for its sign beyond. Near a draw the
/// sign costs about what the value costs, and an exact pre-search leaves better moves in the
/// table (FFO #55, a draw: 13.8 G nodes against 18.0 G with sign-only pre-searches); far
/// from it a sign-only pre-search is much cheaper (#49: 37 M nodes against 115 M).
const WLD_EXACT_MARGIN: i32 = 4;

/// The solver's state for one solve.
pub(crate) struct Endgame<'a> {
    pub tt: &'a TranspositionTable,
    pub nodes: u64,
    pub stopper: &'a mut Stopper,
    /// Below 100%, null-window nodes far from the end take Multi-ProbCut cuts predicted by a
    /// shallow `pattern-full` search ([`probcut::endgame_cut`]): the pre-searches of
    /// [`Endgame::solve_selective`].
    pub selectivity: Selectivity,
    /// With several threads, the moves being searched by others (see `threads.rs`).
    pub busy: Option<&'a Busy>,
    /// What the solve did, for the log (`stats.rs`).
    pub stats: SolveStats,
    /// This thread's table for the nodes below [`TT_EMPTIES`] (`leaf_table.rs`).
    leaf_table: LeafTable,
    /// The instruction set of the search copies this solver runs (`leaves.rs`).
    isa: Isa,
    /// Move lists for the null-window nodes to borrow and give back, one per node on the
    /// current path at most: clearing a fresh list at each node cost about 2% of a solve's
    /// instructions. Boxed, so that lending one moves a pointer, not the kilobyte.
    #[allow(clippy::vec_box)]
    spare_lists: Vec<Box<MoveList>>,
}

impl<'a> Endgame<'a> {
    /// A full-width solver on the shared table `tt`, polling `stopper`; with `busy`, one of
    /// several threads.
    pub fn new(
        tt: &'a TranspositionTable,
        stopper: &'a mut Stopper,
        busy: Option<&'a Busy>,
    ) -> Endgame<'a> {
        Endgame {
            tt,
            nodes: 0,
            stopper,
            selectivity: Selectivity::FULL,
            busy,
            stats: SolveStats::default(),
            leaf_table: LeafTable::new(),
            isa: isa(),
            spare_lists: Vec::new(),
        }
    }

    /// The depth byte of this solve's table entries: the empties (implied by the position, so
    /// they only rank entries for replacement) and the selectivity, so that an entry answers a
    /// node only when it was searched at least as wide. Below
    /// [`probcut::ENDGAME_MIN_EMPTIES`] nothing is cut, so entries there are exact in every
    /// search and say so: the next, less selective search takes their bounds, not only their
    /// moves (FFO #40-#49: 4% fewer nodes).
    #[inline]
    fn table_depth(&self, n: u32) -> u8 {
        let selectivity = if n < probcut::ENDGAME_MIN_EMPTIES {
            Selectivity::FULL
        } else {
            self.selectivity
        };
        (n.min(41) * 6 + u32::from(selectivity.index())) as u8
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
        self.stats.node(n);
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if legal_moves(opponent, player) == 0 {
                return (final_score(player, opponent), NO_MOVE);
            }
            return (-self.pvs(opponent, player, -beta, -alpha, n).0, NO_MOVE);
        }
        let mut tt_move = NO_MOVE;
        if let Some(e) = self.tt.probe(player, opponent, KIND_ENDGAME) {
            if e.lower == e.upper && e.best != NO_MOVE && e.depth >= self.table_depth(n) {
                return (e.lower, e.best);
            }
            tt_move = e.best;
        }
        let original_alpha = alpha;
        let mut list = MoveList::default();
        if n >= SEARCH_ORDER_EMPTIES {
            self.order_by_search((player, opponent), moves, tt_move, n, &mut list);
        } else {
            order_moves(
                (player, opponent),
                moves,
                tt_move,
                n.max(TT_EMPTIES),
                &mut list,
                self.child_table(n),
                flips,
            );
        }
        let mut best = -65;
        let mut best_move = NO_MOVE;
        let mut split = Deferrer::new(self.busy.filter(|_| n >= SPLIT_EMPTIES));
        let mut listed = list.iter();
        let mut first = true;
        while let Some((sq, f)) = split.next_move(&mut listed, player, opponent) {
            let (np, no) = (opponent & !f, player | f | (1u64 << sq));
            let Some(claim) = split.start(sq, np, no) else {
                continue;
            };
            let v = if first {
                first = false;
                -self.pvs(np, no, -beta, -alpha, n - 1).0
            } else {
                let mut v = -self.nws(np, no, -alpha - 1, n - 1);
                if v > alpha && v < beta {
                    v = -self.pvs(np, no, -beta, -v, n - 1).0;
                }
                v
            };
            split.finish(claim);
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
            self.table_depth(n),
            lower,
            upper,
            best_move,
        );
        (best, best_move)
    }

    /// Fills `list` with the moves of `player` (a node of `n` empties, at least
    /// [`SEARCH_ORDER_EMPTIES`]) sorted by a `pattern-full` midgame search of each child, of
    /// [`search_order_depth`] plies, plus the opponent's mobility as `order_moves` weighs it;
    /// `tt_move` first. Far from the end a wrong first move costs a whole subtree, and these
    /// nodes are few: FFO #55 7.8 G nodes against 12.7 G with the one-ply view alone.
    fn order_by_search(
        &mut self,
        (player, opponent): (u64, u64),
        moves: u64,
        tt_move: u8,
        n: u32,
        list: &mut MoveList,
    ) {
        let depth = search_order_depth(n);
        let state = PatternFull.state(&Position::from_player_opponent(
            player,
            opponent,
            Color::Black,
        ));
        let mut shallow = Self::pattern_search(self.tt, self.stopper);
        for sq in Bits(moves) {
            let f = flips(player, opponent, sq);
            let (np, no) = (opponent & !f, player | f | (1u64 << sq));
            let key = if sq as u8 == tt_move {
                i32::MIN
            } else {
                let child = Position::from_player_opponent(np, no, Color::Black);
                let child_state = PatternFull.play(&state, sq, f);
                let (v, _) = shallow.search(&child, &child_state, depth, -INFINITY, INFINITY);
                v / ORDER_SCALE + reply_weight(legal_moves(np, no))
            };
            list.push(sq as u8, f, key);
        }
        self.nodes += shallow.nodes;
        self.stats.ordering_nodes += shallow.nodes;
        list.sort();
    }

    /// The table the children of a node of `n` empties look themselves up in, to prefetch
    /// their entries from while the node orders its moves: the first child's probe then
    /// finds its entry in the cache.
    #[inline]
    fn child_table(&self, n: u32) -> ChildTable<'_> {
        if n > TT_EMPTIES {
            ChildTable::Shared(self.tt)
        } else if n > SHALLOW_EMPTIES + 1 {
            ChildTable::Leaf(&self.leaf_table)
        } else {
            ChildTable::None
        }
    }
}
