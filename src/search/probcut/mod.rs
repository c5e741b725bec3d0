//! Multi-ProbCut (Buro, 1997): selective search from shallow predictions of deep values.
//!
//! A search to depth `d` and one to a shallower depth `d'` of the same position are strongly
//! correlated: over many positions the deep value is close to a line `slope x shallow +
//! offset`, with residuals of standard deviation `sigma`. At a node that only asks whether its
//! value reaches `beta` (a null window), a shallow search can answer for the deep one: if it
//! shows `slope x v' + offset - t x sigma >= beta`, the deep value is at least `beta` with the
//! probability of the normal distribution below `t`, and the node is cut without the deep
//! search; the same below `alpha`. `t` is the selectivity: small `t` cuts more and errs more.
//! "Multi" because every depth from [`MIN_DEPTH`] on has its own regression, and the shallow
//! searches are themselves selective.
//!
//! The regressions are measured, not guessed: `othello-engine mpc calibrate` searches sample
//! positions at both depths of every pair, full width, and fits the line and its sigma per
//! stage of the game (`data/mpc-table.txt`, built into the binary). They hold for the
//! evaluator they were measured with ([`CALIBRATED_EVALUATOR`]); the `neural` evaluator cuts
//! with a table measured for its network (`--mpc-table FILE`, [`use_neural_table`]); other
//! evaluators search full width.
//!
//! **Files.** This one: the selectivity levels and the cuts of a node (midgame and endgame).
//! `table.rs`: the table of regressions and its text form. `fit.rs`: fitting it to pairs of
//! values. The searches that find the pairs run a whole searcher (`search/searcher/`), which
//! itself searches with these cuts, so they sit above it, in `search/probcut_calibrate.rs`.

use crate::eval::{Evaluator, EvaluatorKind, Neural, Pattern};
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

// Seen from the rest of `search` for the calibration's tests, which draw with its `Mix`.
pub(super) mod fit;
mod table;

pub use fit::{CalibrationPairs, MIN_PAIRS, fit};
pub use table::{BUILT_IN, MpcTable, NEURAL_BUILT_IN, Regression};

/// ProbCut starts at this many plies left; below, the shallow search would be the leaf.
pub const MIN_DEPTH: u32 = 3;
/// The deepest searched depth with its own regression; deeper ones use this one's.
pub const MAX_CALIBRATED_DEPTH: u32 = 14;
/// Empty squares per stage of the table.
pub const STAGE_EMPTIES: u32 = 10;
/// Stages of the table: empties 0-9, 10-19, ..., 50-60.
pub const STAGES: usize = 6;
/// The evaluator whose scores the built-in table describes.
pub const CALIBRATED_EVALUATOR: EvaluatorKind = EvaluatorKind::Pattern;

/// The table given for the `neural` evaluator's network (`--mpc-table`), if one was.
static NEURAL_TABLE: OnceLock<MpcTable> = OnceLock::new();

/// Makes `table` the one the `neural` evaluator cuts with, for the rest of the process.
pub fn use_neural_table(table: MpcTable) -> Result<(), String> {
    NEURAL_TABLE
        .set(table)
        .map_err(|_| "a table for the neural evaluator is already in use".to_string())
}

/// The table of the `neural` evaluator: the one given, else the one built in for the
/// built-in network.
pub fn neural_table() -> &'static MpcTable {
    match NEURAL_TABLE.get() {
        Some(table) => table,
        None => &NEURAL_BUILT_IN,
    }
}

/// The table that describes the scores of `E`: the built-in one for
/// [`CALIBRATED_EVALUATOR`], [`neural_table`] for `neural`; `None` (full width) for the
/// rest.
pub fn table_for<E: Evaluator>() -> Option<&'static MpcTable> {
    if E::ID == <Pattern as Evaluator>::ID {
        Some(&BUILT_IN)
    } else if E::ID == <Neural as Evaluator>::ID {
        Some(neural_table())
    } else {
        None
    }
}

/// The selectivity levels: the confidence a cut must have, and its `t` (the quantile of the
/// standard normal distribution; Buro's and the strong engines' usual steps).
const LEVELS: [(u8, f32); 6] = [
    (73, 1.1),
    (87, 1.5),
    (95, 2.0),
    (98, 2.6),
    (99, 3.3),
    (100, f32::INFINITY),
];

/// How selective a search is: one of [`Selectivity::ALL`], from 73% to 100% (full width).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Selectivity(u8);

impl Selectivity {
    /// Full width: no cuts.
    pub const FULL: Selectivity = Selectivity(LEVELS.len() as u8 - 1);
    /// Every level, least selective last.
    pub const ALL: [Selectivity; LEVELS.len()] = {
        let mut all = [Selectivity(0); LEVELS.len()];
        let mut i = 0;
        while i < LEVELS.len() {
            all[i] = Selectivity(i as u8);
            i += 1;
        }
        all
    };

    /// The confidence of a cut, in percent (100: no cuts).
    pub fn percent(self) -> u8 {
        LEVELS[usize::from(self.0)].0
    }

    /// The quantile `t` of a cut.
    pub fn t(self) -> f32 {
        LEVELS[usize::from(self.0)].1
    }

    /// The level's index, 0 (73%) to 5 (100%).
    pub fn index(self) -> u8 {
        self.0
    }

    /// Whether this level cuts at all.
    pub fn is_selective(self) -> bool {
        self != Selectivity::FULL
    }

    /// The next less selective level, if any.
    pub fn wider(self) -> Option<Selectivity> {
        (self != Selectivity::FULL).then(|| Selectivity(self.0 + 1))
    }
}

impl fmt::Display for Selectivity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%", self.percent())
    }
}

impl FromStr for Selectivity {
    type Err = String;

    /// `73`, `87`, `95`, `98`, `99` or `100`, with or without `%`.
    fn from_str(s: &str) -> Result<Selectivity, String> {
        let digits = s.trim().trim_end_matches('%');
        Selectivity::ALL
            .into_iter()
            .find(|l| digits.parse::<u8>() == Ok(l.percent()))
            .ok_or_else(|| format!("unknown selectivity '{s}' (known: 73, 87, 95, 98, 99, 100)"))
    }
}

/// The shallow depth paired with `depth`: about half, of the same parity (an odd and an even
/// depth see the position from different sides' last moves, and would correlate worse).
pub fn shallow_depth(depth: u32) -> u32 {
    let half = depth / 2;
    if half % 2 == depth % 2 {
        half.max(1)
    } else {
        half.saturating_sub(1).max(1)
    }
}

/// The stage of a position with `empties` empty squares.
pub fn stage(empties: u32) -> usize {
    ((empties / STAGE_EMPTIES) as usize).min(STAGES - 1)
}

/// The cuts a node may take: the null-window bounds a shallow search must pass.
#[derive(Clone, Copy, Debug)]
pub struct Cut {
    /// The shallow depth.
    pub depth: u32,
    /// A shallow value at least this predicts a deep one at least `beta`.
    pub high: i32,
    /// A shallow value at most this predicts a deep one at most `alpha`.
    pub low: i32,
}

/// The cuts for a node `depth` deep at `empties` empties with the null window `beta - 1,
/// beta`, at selectivity `t`; `None` where the table has no regression.
#[inline]
pub fn cut(table: &MpcTable, empties: u32, depth: u32, beta: i32, t: f32) -> Option<Cut> {
    let r = table.regression(empties, depth)?;
    let margin = t * r.sigma;
    let high = ((beta as f32 + margin - r.offset) / r.slope).ceil();
    let low = (((beta - 1) as f32 - margin - r.offset) / r.slope).floor();
    Some(Cut {
        depth: shallow_depth(depth),
        high: high as i32,
        low: low as i32,
    })
}

/// From this many empties on, the endgame's null-window nodes of a selective solve try
/// Multi-ProbCut cuts (FFO #40-#49 with pre-searches at 73% and 95%: 924 M nodes from 10
/// empties, 899 M from 12, 1129 M from 14, 1328 M from 16).
pub const ENDGAME_MIN_EMPTIES: u32 = 12;

/// The shallow search of an endgame cut at `empties` empties: a quarter of them, rounded
/// down to even (the regression's offsets differ by parity, and odd depths fit worse).
/// FFO #40-#49: a third 994 M nodes, a quarter 899 M, a fifth 1095 M.
pub fn endgame_shallow_depth(empties: u32) -> u32 {
    let d = empties / 4;
    d - d % 2
}

/// The exact score (hundredths of a disc) predicted from a shallow `pattern` search of even
/// depth `depth` at `empties` empties, and the residuals' sigma. Fitted by `mpc calibrate
/// --endgame` (3000 positions of 12-17 empties with exact labels): slopes 0.96-1.03, offsets
/// about -0.2 discs with an even number of empties and +1.3 with an odd one, and sigma linear
/// in empties and depth (residual 0.2 discs), which extrapolates it to the 20-34 empties of
/// hard solves.
pub fn endgame_regression(empties: u32, depth: u32) -> Regression {
    let offset = if empties.is_multiple_of(2) {
        -20.0
    } else {
        130.0
    };
    Regression {
        slope: 0.98,
        offset,
        sigma: 426.0 + 18.1 * empties as f32 - 36.8 * depth as f32,
    }
}

/// The shallow searches of an endgame Multi-ProbCut at a null-window node of `empties` empties
/// whose window is `alpha..alpha + 1` (discs), with confidence quantile `t`: `high` and `low`
/// in hundredths of a disc, as [`cut`] gives them for the midgame.
pub fn endgame_cut(empties: u32, alpha: i32, t: f32) -> Cut {
    let depth = endgame_shallow_depth(empties);
    let r = endgame_regression(empties, depth);
    let margin = t * r.sigma;
    let high = ((((alpha + 1) * 100) as f32 + margin - r.offset) / r.slope).ceil();
    let low = (((alpha * 100) as f32 - margin - r.offset) / r.slope).floor();
    Cut {
        depth,
        high: high as i32,
        low: low as i32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_depths_keep_the_parity() {
        for depth in MIN_DEPTH..=30 {
            let s = shallow_depth(depth);
            assert!(s >= 1 && s < depth, "{depth} -> {s}");
            assert_eq!(s % 2, depth % 2, "{depth} -> {s}");
        }
    }

    #[test]
    fn selectivities_read_and_print() {
        assert_eq!("95".parse::<Selectivity>(), Ok(Selectivity::ALL[2]));
        assert_eq!("100%".parse::<Selectivity>(), Ok(Selectivity::FULL));
        assert!("90".parse::<Selectivity>().is_err());
        assert!("-1".parse::<Selectivity>().is_err());
        assert_eq!(Selectivity::ALL[0].to_string(), "73%");
        assert!(!Selectivity::FULL.is_selective());
        assert_eq!(Selectivity::ALL[4].wider(), Some(Selectivity::FULL));
    }

    #[test]
    fn cuts_bracket_the_window() {
        let mut table = MpcTable::empty();
        let r = Regression {
            slope: 1.0,
            offset: 0.0,
            sigma: 100.0,
        };
        table.set(3, 6, r);
        let c = cut(&table, 35, 6, 50, 2.0).unwrap();
        assert_eq!(c.depth, 2);
        assert_eq!((c.high, c.low), (250, -151));
    }
}
