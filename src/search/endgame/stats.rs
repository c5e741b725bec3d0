//! What a solve did, counted for `RUST_LOG=debug`: its nodes by empties and by the work
//! they did (the search itself, the midgame searches that order moves, the ProbCut searches
//! that predict cuts), and how its null-window nodes ended. A change to the solver changes
//! the node count; these say where the tree grew or shrank and which rule did it.
//!
//! The counts are plain additions on the solver's own state (a few per node of 6 or more
//! empties, none in the shallow search where most nodes are), so they cost no measurable time
//! and are kept in every build; only their printing waits for the log level.

use std::ops::AddAssign;

/// How a null-window node of the solver ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The opponent's stable discs already held the score to alpha or below.
    Stability,
    /// The table's bound for the node answered it.
    Table,
    /// A child's table bound answered it (enhanced transposition cut-off).
    Transposition,
    /// Multi-ProbCut predicted the answer (pre-searches only).
    ProbCut,
    /// The first move tried (the table's, or the best ordered) beat alpha.
    FirstMove,
    /// A later move beat alpha.
    LaterMove,
    /// Every move was searched and none beat alpha.
    AllMoves,
}

impl Ending {
    const ALL: [Ending; 7] = [
        Ending::Stability,
        Ending::Table,
        Ending::Transposition,
        Ending::ProbCut,
        Ending::FirstMove,
        Ending::LaterMove,
        Ending::AllMoves,
    ];

    fn name(self) -> &'static str {
        match self {
            Ending::Stability => "stability",
            Ending::Table => "table",
            Ending::Transposition => "transposition",
            Ending::ProbCut => "probcut",
            Ending::FirstMove => "first move",
            Ending::LaterMove => "later move",
            Ending::AllMoves => "all moves",
        }
    }
}

/// The fewest empties a node of the exact search (above the shallow search) has.
const FIRST_COUNTED: usize = super::SHALLOW_EMPTIES as usize + 1;
const _: () = assert!(FIRST_COUNTED <= 6, "the first bracket would be empty");

/// The brackets of empties the log groups nodes by (the first starts where the shallow search
/// ends, the last runs to 60).
const BRACKETS: [(usize, usize); 7] = [
    (FIRST_COUNTED, 6),
    (7, 10),
    (11, 14),
    (15, 18),
    (19, 22),
    (23, 26),
    (27, 60),
];

/// The counts of one solve (or of one thread of it; threads' counts add up).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SolveStats {
    /// Nodes of the exact search above the shallow search's empties, by empties.
    by_empties: [u64; 61],
    /// Null-window nodes above the shallow search's empties, by how they ended.
    endings: [u64; Ending::ALL.len()],
    /// Nodes spent on the moves tried before a later move cut a null-window node (the
    /// price of ordering mistakes), by the node's empties; nested mistakes count again.
    refuted: [u64; 61],
    /// Nodes of the midgame searches that order moves.
    pub ordering_nodes: u64,
    /// Nodes of the midgame searches of Multi-ProbCut.
    pub probcut_nodes: u64,
    /// Every node of the solve, those of the shallow search included.
    pub nodes: u64,
}

impl Default for SolveStats {
    fn default() -> SolveStats {
        SolveStats {
            by_empties: [0; 61],
            endings: [0; Ending::ALL.len()],
            refuted: [0; 61],
            ordering_nodes: 0,
            probcut_nodes: 0,
            nodes: 0,
        }
    }
}

impl AddAssign for SolveStats {
    fn add_assign(&mut self, other: SolveStats) {
        for (a, b) in self.by_empties.iter_mut().zip(other.by_empties) {
            *a += b;
        }
        for (a, b) in self.endings.iter_mut().zip(other.endings) {
            *a += b;
        }
        for (a, b) in self.refuted.iter_mut().zip(other.refuted) {
            *a += b;
        }
        self.ordering_nodes += other.ordering_nodes;
        self.probcut_nodes += other.probcut_nodes;
        self.nodes += other.nodes;
    }
}

impl SolveStats {
    /// A node of the exact search with `n` empties (more than the shallow search's).
    #[inline]
    pub fn node(&mut self, n: u32) {
        if let Some(count) = self.by_empties.get_mut(n as usize) {
            *count += 1;
        }
    }

    /// A null-window node ended as `ending` says.
    #[inline]
    pub fn ended(&mut self, ending: Ending) {
        self.endings[ending as usize] += 1;
    }

    /// A null-window node of `n` empties searched `searched` moves and was cut (`cut`) or
    /// not; `refuted` nodes went to the moves that failed before the one that cut.
    #[inline]
    pub fn searched(&mut self, n: u32, cut: bool, searched: u32, refuted: u64) {
        if cut
            && searched > 1
            && let Some(count) = self.refuted.get_mut(n as usize)
        {
            *count += refuted;
        }
        self.ended(match searched {
            _ if !cut => Ending::AllMoves,
            1 => Ending::FirstMove,
            _ => Ending::LaterMove,
        });
    }

    /// How a null-window node ended `ending` times.
    pub fn endings(&self, ending: Ending) -> u64 {
        self.endings[ending as usize]
    }

    /// The nodes of the exact search at `n` empties.
    #[cfg(test)]
    pub fn nodes_at(&self, n: u32) -> u64 {
        self.by_empties.get(n as usize).copied().unwrap_or(0)
    }

    /// Nodes of the shallow search: all the rest.
    pub fn shallow_nodes(&self) -> u64 {
        let counted: u64 = self.by_empties.iter().sum::<u64>();
        self.nodes
            .saturating_sub(counted + self.ordering_nodes + self.probcut_nodes)
    }

    /// The counts as log lines.
    pub fn lines(&self) -> Vec<String> {
        let share = |part: u64| 100.0 * part as f64 / self.nodes.max(1) as f64;
        let by_bracket = |counts: &[u64; 61]| -> String {
            BRACKETS
                .iter()
                .map(|&(low, high)| {
                    let count: u64 = counts[low..=high].iter().sum();
                    let name = if high == 60 {
                        format!("{low}+")
                    } else if high == low {
                        format!("{low}")
                    } else {
                        format!("{low}-{high}")
                    };
                    format!("{name} {count} ({:.1}%)", share(count))
                })
                .collect::<Vec<String>>()
                .join(", ")
        };
        let ended: u64 = self.endings.iter().sum();
        let endings: Vec<String> = Ending::ALL
            .iter()
            .map(|&e| {
                let count = self.endings(e);
                let part = 100.0 * count as f64 / ended.max(1) as f64;
                format!("{} {count} ({part:.1}%)", e.name())
            })
            .collect();
        vec![
            format!(
                "solve: {} nodes: shallow ({} empties or fewer) {} ({:.1}%), ordering searches {} \
                 ({:.1}%), probcut searches {} ({:.1}%)",
                self.nodes,
                super::SHALLOW_EMPTIES,
                self.shallow_nodes(),
                share(self.shallow_nodes()),
                self.ordering_nodes,
                share(self.ordering_nodes),
                self.probcut_nodes,
                share(self.probcut_nodes),
            ),
            format!("solve: nodes by empties: {}", by_bracket(&self.by_empties)),
            format!(
                "solve: nodes under moves refuted before a later move cut, by the cut node's \
                 empties: {}",
                by_bracket(&self.refuted)
            ),
            format!(
                "solve: {ended} null-window nodes ended by: {}",
                endings.join(", ")
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_across_threads_and_the_rest_is_shallow() {
        let mut main = SolveStats::default();
        main.node(20);
        main.node(7);
        main.ended(Ending::Table);
        main.ordering_nodes = 5;
        // Cut by its third move, after 40 nodes on the first two.
        main.searched(12, true, 3, 40);
        main.nodes = 100;
        let mut helper = SolveStats::default();
        helper.node(20);
        helper.ended(Ending::FirstMove);
        helper.probcut_nodes = 3;
        helper.nodes = 50;
        main += helper;
        assert_eq!(main.nodes_at(20), 2);
        assert_eq!(main.shallow_nodes(), 150 - 3 - 5 - 3);
        assert_eq!(main.endings(Ending::Table), 1);
        assert_eq!(main.endings(Ending::FirstMove), 1);
        assert_eq!(main.endings(Ending::LaterMove), 1);
        let lines = main.lines().join("\n");
        assert!(lines.contains("19-22 2 (1.3%)"), "{lines}");
        assert!(lines.contains("first move 1 (33.3%)"), "{lines}");
        assert!(
            lines.contains("empties: 6 0 (0.0%), 7-10 0 (0.0%), 11-14 40 (26.7%)"),
            "{lines}"
        );
    }
}
