//! Depth-limited principal-variation search with an evaluator and the transposition table, on
//! the score scale every search shares (`score.rs`): evaluations below [`WIN`], finished games
//! above.
//!
//! **What a node does, by depth left.** Every node counts itself and polls the [`Stopper`]. A
//! side without a move passes at no cost in depth; a game over scores its discs
//! ([`terminal_score`]). With no plies left the node is evaluated; with one, its children are
//! the leaves, searched in board order with no table and no sorting (`leaves.rs`): there they
//! would cost more than they save. From [`TABLE_MIN_DEPTH`] plies on the table answers the node
//! when an entry is deep and wide enough, and otherwise gives the move to try first. Null
//! windows from `probcut::MIN_DEPTH` plies on try Multi-ProbCut; from [`ETC_MIN_DEPTH`] the
//! node looks its children up in the table (enhanced transposition cut-off); from
//! [`IID_MIN_DEPTH`], without a table move, it searches itself shallower for one. Then the
//! table move goes first, and only if it does not refute the node are the others sorted
//! (`ordering.rs`): by a one-ply evaluation from `EVAL_ORDER_DEPTH` plies on, nearer the
//! leaves by the replies left to the opponent. The first move gets the full window, the
//! others a null window and a second search when they beat it; with several threads, from
//! [`SPLIT_DEPTH`] plies on, moves another thread is searching are put off. From
//! [`TABLE_MIN_DEPTH`] the result goes back into the table as a bound.

mod leaves;
mod ordering;
#[cfg(test)]
pub(crate) mod tests;

use super::limits::Stopper;
use super::probcut::{self, MpcTable, Selectivity};
use super::score::{INFINITY, WIN, terminal_score};
use super::threads::{Busy, Deferrer};
use super::tt::{KIND_ENDGAME, NO_MOVE, TranspositionTable};
use crate::board::{Bits, Position, legal_moves_on};
use crate::eval::{EVAL_LIMIT, Evaluator, EvaluatorKind};

/// From this many plies left on, nodes use the transposition table: below it a table probe (a
/// cache miss) costs more than the few leaves it could save.
const TABLE_MIN_DEPTH: u32 = 2;
/// From this many plies left on, a node looks its children up in the table before searching
/// any (enhanced transposition cut-off): a child already shown to be at most `-beta` deep
/// enough refutes the node at the cost of a few probes. Measured on `bench --depth 15 --eval
/// pattern --selectivity 95`: 72.3 M nodes without, 69.1 M from 6 plies on.
const ETC_MIN_DEPTH: u32 = 6;
/// From this many plies left on, a node with no table move first searches itself this many
/// plies shallower for one (internal iterative deepening): the best move of the shallow search
/// is usually the best one. Together with the cut-off above: 67.1 M nodes, 7% less time.
const IID_MIN_DEPTH: u32 = 8;
const IID_REDUCTION: u32 = 4;
/// With several threads, from this many plies left on a node puts off the moves another
/// thread is searching (see `threads.rs`).
const SPLIT_DEPTH: u32 = 4;

/// The midgame search's state for one search.
pub(crate) struct Midgame<'a, E: Evaluator> {
    pub tt: &'a TranspositionTable,
    pub eval: &'a E,
    pub nodes: u64,
    pub stopper: &'a mut Stopper,
    /// The selectivity of this search; with a table (calibrated for `E`), nodes with a null
    /// window try Multi-ProbCut cuts at `t` (see `probcut/`).
    pub selectivity: Selectivity,
    pub probcut: Option<&'a MpcTable>,
    /// With several threads, the moves being searched by others (see `threads.rs`).
    pub busy: Option<&'a Busy>,
}

impl<E: Evaluator> Midgame<'_, E> {
    /// The table kind of this search's entries: the evaluator's ID. Compiling the search for
    /// an evaluator whose ID is the endgame's, or for the run-time [`EvaluatorKind`], fails.
    pub const KIND: u8 = {
        assert!(E::ID != KIND_ENDGAME, "the endgame's table kind");
        assert!(
            E::ID != <EvaluatorKind as Evaluator>::ID,
            "search with a concrete evaluator (EvaluatorKind::dispatch)"
        );
        E::ID
    };

    /// The depth byte of this search's table entries: depth and selectivity in one number, so
    /// that an entry answers a node only when it was searched at least as deep and at least
    /// as wide (deeper counts first).
    #[inline]
    fn table_depth(&self, depth: u32) -> u8 {
        (depth.min(41) * 6 + u32::from(self.selectivity.index())) as u8
    }

    /// Multi-ProbCut at a null-window node `depth` deep: `Some(value)` when a shallow search
    /// predicts, with the search's confidence, that the deep value is at least `beta` or at
    /// most `alpha` (= `beta - 1`).
    #[inline(always)]
    fn probcut<L: SearchLevel>(
        &mut self,
        position: &Position,
        state: &E::State,
        depth: u32,
        beta: i32,
    ) -> Option<i32> {
        let table = self.probcut?;
        let cut = probcut::cut(
            table,
            position.empty_count(),
            depth,
            beta,
            self.selectivity.t(),
        )?;
        if cut.high <= EVAL_LIMIT {
            let (v, _) = self.descend::<L>(position, state, cut.depth, cut.high - 1, cut.high);
            if v >= cut.high && !self.stopper.stopped() {
                return Some(beta);
            }
        }
        if cut.low >= -EVAL_LIMIT {
            let (v, _) = self.descend::<L>(position, state, cut.depth, cut.low, cut.low + 1);
            if v <= cut.low && !self.stopper.stopped() {
                return Some(beta - 1);
            }
        }
        None
    }

    #[inline(always)]
    fn evaluate(&self, state: &E::State, position: &Position) -> i32 {
        self.eval
            .evaluate_with(state, position)
            .clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The enhanced transposition cut-off: the value and move of a child whose table entry,
    /// searched at least `depth - 1` plies deep and as wide as this search, proves the node
    /// worth at least `beta`.
    #[inline(always)]
    fn transposition_cutoff(
        &self,
        position: &Position,
        moves: u64,
        depth: u32,
        beta: i32,
    ) -> Option<(i32, u8)> {
        let child_depth = self.table_depth(depth - 1);
        let (p, o) = (position.player(), position.opponent());
        for sq in Bits(moves) {
            let child = position.play_flips(1u64 << sq, crate::board::flips(p, o, sq));
            if let Some(e) = self.tt.probe(child.player(), child.opponent(), Self::KIND)
                && e.depth >= child_depth
                && -e.upper >= beta
            {
                return Some((-e.upper, sq as u8));
            }
        }
        None
    }

    /// The value of `position` (whose evaluator state is `state`) searched `depth` plies deep
    /// in the window `alpha..beta` (fail-soft), and its best move (`NO_MOVE` when it has
    /// none). A pass costs no depth. The search runs at the instruction level chosen at start
    /// ([`SearchLevel`]).
    pub fn search(
        &mut self,
        position: &Position,
        state: &E::State,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> (i32, u8) {
        #[cfg(target_arch = "x86_64")]
        use crate::board::cpu::Isa;
        use crate::board::cpu::isa;
        // SAFETY: `isa()` is at most what the CPU runs (checked at start, see `board::cpu`).
        unsafe {
            match isa() {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => V4::search(self, position, state, depth, alpha, beta),
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => V3::search(self, position, state, depth, alpha, beta),
                _ => V2::search(self, position, state, depth, alpha, beta),
            }
        }
    }

    /// A child search, at the level `L` this one runs at.
    #[inline(always)]
    fn descend<L: SearchLevel>(
        &mut self,
        position: &Position,
        state: &E::State,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> (i32, u8) {
        // SAFETY: only the bodies that `L::search` compiles call this, so the CPU runs `L`.
        unsafe { L::search(self, position, state, depth, alpha, beta) }
    }

    /// [`Midgame::search`]'s body, compiled into each level's copy.
    #[inline(always)]
    fn search_body<L: SearchLevel>(
        &mut self,
        position: &Position,
        state: &E::State,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, u8) {
        self.nodes += 1;
        if self.stopper.poll(self.nodes) {
            return (0, NO_MOVE);
        }
        let (player, opponent) = (position.player(), position.opponent());
        // SAFETY: this body runs inside `L::search`, so the CPU runs `L`, which has AVX2 if
        // `L::AVX2` says so.
        let moves = unsafe { legal_moves_on(L::AVX2, player, opponent) };
        if moves == 0 {
            // SAFETY: as above.
            if unsafe { legal_moves_on(L::AVX2, opponent, player) } == 0 {
                return (terminal_score(position), NO_MOVE);
            }
            if depth == 0 {
                return (self.evaluate(state, position), NO_MOVE);
            }
            let passed = self.eval.pass(state);
            return (
                -self
                    .descend::<L>(&position.pass(), &passed, depth, -beta, -alpha)
                    .0,
                NO_MOVE,
            );
        }
        if depth == 0 {
            return (self.evaluate(state, position), NO_MOVE);
        }
        if depth == 1 {
            return self.last_ply(position, state, moves, alpha, beta);
        }
        let (p, o) = (position.player(), position.opponent());
        let mut tt_move = NO_MOVE;
        if depth >= TABLE_MIN_DEPTH
            && let Some(e) = self.tt.probe(p, o, Self::KIND)
        {
            if e.depth >= self.table_depth(depth) {
                if e.lower >= beta || e.lower == e.upper {
                    return (e.lower, e.best);
                }
                if e.upper <= alpha {
                    return (e.upper, e.best);
                }
            }
            tt_move = e.best;
        }
        if depth >= probcut::MIN_DEPTH
            && beta == alpha + 1
            && beta.abs() < WIN
            && let Some(v) = self.probcut::<L>(position, state, depth, beta)
        {
            return (v, NO_MOVE);
        }
        if depth >= ETC_MIN_DEPTH
            && let Some(refutation) = self.transposition_cutoff(position, moves, depth, beta)
        {
            return refutation;
        }
        if tt_move == NO_MOVE && depth >= IID_MIN_DEPTH {
            let (_, shallow_best) =
                self.descend::<L>(position, state, depth - IID_REDUCTION, alpha, beta);
            if self.stopper.stopped() {
                return (0, NO_MOVE);
            }
            tt_move = shallow_best;
        }
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        // The table move first, and the others ordered only if it does not refute the node:
        // it usually does, and ordering costs each move its flips and a mobility count or an
        // evaluation (3% of the instructions of `bench --eval pattern`).
        let table_move = (tt_move < 64 && moves & (1u64 << tt_move) != 0)
            .then(|| (tt_move, crate::board::flips(p, o, usize::from(tt_move))));
        let rest = moves & !table_move.map_or(0, |(sq, _)| 1u64 << sq);
        let (tt, eval) = (self.tt, self.eval);
        let mut list = None;
        let mut listed = table_move.into_iter().chain(std::iter::from_fn(|| {
            list.get_or_insert_with(|| {
                Self::ordered_moves::<L>(tt, eval, position, state, rest, depth)
            })
            .next_best()
        }));
        let mut first = true;
        let mut split = Deferrer::new(self.busy.filter(|_| depth >= SPLIT_DEPTH));
        while let Some((sq, flips)) = split.next_move(&mut listed, p, o) {
            let child = position.play_flips(1u64 << sq, flips);
            let Some(claim) = split.start(sq, child.player(), child.opponent()) else {
                continue;
            };
            let child_state = self.eval.play(state, sq as usize, flips);
            let v = if first {
                first = false;
                -self
                    .descend::<L>(&child, &child_state, depth - 1, -beta, -alpha)
                    .0
            } else {
                let mut v = -self
                    .descend::<L>(&child, &child_state, depth - 1, -alpha - 1, -alpha)
                    .0;
                if v > alpha && v < beta {
                    v = -self
                        .descend::<L>(&child, &child_state, depth - 1, -beta, -v)
                        .0;
                }
                v
            };
            split.finish(claim);
            if self.stopper.stopped() {
                return (best, best_move);
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
        if depth >= TABLE_MIN_DEPTH {
            let lower = if best > original_alpha {
                best
            } else {
                -INFINITY
            };
            let upper = if best < beta { best } else { INFINITY };
            self.tt.store(
                (p, o),
                Self::KIND,
                self.table_depth(depth),
                lower,
                upper,
                best_move,
            );
        }
        (best, best_move)
    }
}

/// The midgame search compiled once per instruction level: each level's `search` carries the
/// level's `#[target_feature]` and inlines the node's whole body (the move generation, the
/// flips, the evaluator's updates, the ordering, the last ply), so one dispatch at the root
/// of a search replaces a dispatch and a call per node (as `board/perft.rs` does).
pub(crate) trait SearchLevel {
    /// Whether the level has AVX2 (the move generation then skips its run-time check).
    const AVX2: bool;
    /// # Safety
    /// The CPU must run the level's instructions.
    unsafe fn search<E: Evaluator>(
        search: &mut Midgame<'_, E>,
        position: &Position,
        state: &E::State,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> (i32, u8);
}

/// A level's copy of the search: its marker type and the `#[target_feature]` it compiles with.
macro_rules! search_level {
    ($(#[$doc:meta])* $level:ident, $avx2:literal $(, $features:literal)?) => {
        $(#[$doc])*
        pub(crate) struct $level;
        impl SearchLevel for $level {
            const AVX2: bool = $avx2;
            $(#[target_feature(enable = $features)])?
            unsafe fn search<E: Evaluator>(
                search: &mut Midgame<'_, E>,
                position: &Position,
                state: &E::State,
                depth: u32,
                alpha: i32,
                beta: i32,
            ) -> (i32, u8) {
                search.search_body::<$level>(position, state, depth, alpha, beta)
            }
        }
    };
}

search_level!(
    /// The build's baseline (x86-64-v2 on x86-64).
    V2,
    false
);
#[cfg(target_arch = "x86_64")]
search_level!(
    /// x86-64-v3: AVX2, BMI1/2, LZCNT.
    V3,
    true,
    "avx2,bmi1,bmi2,lzcnt,popcnt"
);
#[cfg(target_arch = "x86_64")]
search_level!(
    /// x86-64-v4 with GFNI.
    V4,
    true,
    "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq,avx512cd,gfni"
);
