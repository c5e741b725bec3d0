//! The Multi-ProbCut table: one [`Regression`] (deep value on shallow value) per stage of the
//! game and deep depth, its text form (`data/mpc-table.txt`) and the [`BUILT_IN`] table read
//! from that file at build time. `search/probcut_calibrate.rs` measures the table; `mod.rs`
//! turns its rows into the cuts of a node.

use super::{MAX_CALIBRATED_DEPTH, MIN_DEPTH, STAGE_EMPTIES, STAGES, shallow_depth, stage};
use std::sync::LazyLock;

/// One regression: deep value = `slope` x shallow value + `offset`, residuals of `sigma`
/// (in the evaluator's units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Regression {
    /// The slope.
    pub slope: f32,
    /// The offset.
    pub offset: f32,
    /// The standard deviation of the residuals.
    pub sigma: f32,
}

/// The regressions per stage and deep depth.
#[derive(Clone, Debug, PartialEq)]
pub struct MpcTable {
    rows: [[Option<Regression>; MAX_CALIBRATED_DEPTH as usize + 1]; STAGES],
}

impl MpcTable {
    /// A table with no regressions (no cuts anywhere).
    pub fn empty() -> MpcTable {
        MpcTable {
            rows: [[None; MAX_CALIBRATED_DEPTH as usize + 1]; STAGES],
        }
    }

    /// The regression for a search `depth` deep at `empties` empties, if measured (depths past
    /// the deepest measured one of the stage use that one's).
    #[inline]
    pub fn regression(&self, empties: u32, depth: u32) -> Option<Regression> {
        let row = &self.rows[stage(empties)];
        let depth = depth.min(MAX_CALIBRATED_DEPTH) as usize;
        if let Some(r) = row[depth] {
            return Some(r);
        }
        let deepest = row.iter().rposition(Option::is_some)?;
        (deepest < depth).then(|| row[deepest]).flatten()
    }

    /// Sets the regression of `stage` and `depth`.
    pub fn set(&mut self, stage: usize, depth: u32, regression: Regression) {
        if stage < STAGES && (MIN_DEPTH..=MAX_CALIBRATED_DEPTH).contains(&depth) {
            self.rows[stage][depth as usize] = Some(regression);
        }
    }

    /// Every regression, by stage and depth.
    pub fn rows(&self) -> impl Iterator<Item = (usize, u32, Regression)> + '_ {
        self.rows.iter().enumerate().flat_map(|(stage, row)| {
            row.iter()
                .enumerate()
                .filter_map(move |(depth, r)| r.map(|r| (stage, depth as u32, r)))
        })
    }

    /// The text form: a comment header, then `stage depth shallow slope offset sigma` per line.
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str(&format!("# {line}\n"));
        }
        out.push_str("# stage empties depth shallow slope offset sigma\n");
        for (stage, depth, r) in self.rows() {
            let first = stage as u32 * STAGE_EMPTIES;
            let last = if stage + 1 == STAGES {
                60
            } else {
                first + STAGE_EMPTIES - 1
            };
            out.push_str(&format!(
                "{stage} {first}-{last} {depth} {} {:.4} {:.2} {:.2}\n",
                shallow_depth(depth),
                r.slope,
                r.offset,
                r.sigma
            ));
        }
        out
    }

    /// Reads [`MpcTable::to_text`]'s form; an error names the line.
    pub fn from_text(text: &str) -> Result<MpcTable, String> {
        let mut table = MpcTable::empty();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |why: &str| format!("MPC table line {}: {why}: '{line}'", n + 1);
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() != 7 {
                return Err(bad("expected 7 fields"));
            }
            let stage: usize = fields[0].parse().map_err(|_| bad("bad stage"))?;
            let depth: u32 = fields[2].parse().map_err(|_| bad("bad depth"))?;
            let shallow: u32 = fields[3].parse().map_err(|_| bad("bad shallow depth"))?;
            let number = |s: &str| s.parse::<f32>().ok().filter(|x| x.is_finite());
            let (Some(slope), Some(offset), Some(sigma)) =
                (number(fields[4]), number(fields[5]), number(fields[6]))
            else {
                return Err(bad("bad number"));
            };
            if stage >= STAGES || !(MIN_DEPTH..=MAX_CALIBRATED_DEPTH).contains(&depth) {
                return Err(bad("stage or depth out of range"));
            }
            if shallow != shallow_depth(depth) {
                return Err(bad("the shallow depth is not this build's pair"));
            }
            if slope <= 0.0 || sigma <= 0.0 {
                return Err(bad("the slope and sigma must be positive"));
            }
            table.set(
                stage,
                depth,
                Regression {
                    slope,
                    offset,
                    sigma,
                },
            );
        }
        Ok(table)
    }
}

/// The built-in table (`data/mpc-table.txt`).
pub static BUILT_IN: LazyLock<MpcTable> = LazyLock::new(|| {
    MpcTable::from_text(include_str!("../../../data/mpc-table.txt"))
        .unwrap_or_else(|e| panic!("the built-in MPC table is broken: {e}"))
});

/// The built-in network's table (`data/mpc-neural.txt`).
pub static NEURAL_BUILT_IN: LazyLock<MpcTable> = LazyLock::new(|| {
    MpcTable::from_text(include_str!("../../../data/mpc-neural.txt"))
        .unwrap_or_else(|e| panic!("the built-in neural MPC table is broken: {e}"))
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_back_what_it_writes() {
        let mut table = MpcTable::empty();
        table.set(
            3,
            7,
            Regression {
                slope: 1.02,
                offset: -12.5,
                sigma: 240.0,
            },
        );
        let again = MpcTable::from_text(&table.to_text("test")).unwrap();
        assert_eq!(again.regression(35, 7), table.regression(35, 7));
        assert!(MpcTable::from_text("0 0-9 7 3 1 0 -5").is_err());
        assert!(MpcTable::from_text("0 0-9 7 2 1 0 5").is_err());
        assert!(MpcTable::from_text("9 0-9 7 3 1 0 5").is_err());
        assert!(BUILT_IN.rows().count() > 0, "the built-in table has rows");
    }
}
