//! Fitting the Multi-ProbCut regressions: the least-squares line through pairs of (shallow,
//! deep) values and the spread of its residuals ([`fit`]), and the pairs of calibration
//! searches collected by stage and deep depth ([`CalibrationPairs`]), which give the
//! [`MpcTable`]. Searching for the pairs is `search/probcut_calibrate.rs`'s.

use super::{MAX_CALIBRATED_DEPTH, MIN_DEPTH, MpcTable, Regression, STAGES, shallow_depth, stage};

/// At least this many pairs of values make a regression.
pub const MIN_PAIRS: usize = 20;

/// The least-squares line through `pairs` of (shallow, deep) values, and the standard
/// deviation of its residuals; `None` with fewer than [`MIN_PAIRS`] pairs or no spread.
pub fn fit(pairs: &[(f64, f64)]) -> Option<Regression> {
    if pairs.len() < MIN_PAIRS {
        return None;
    }
    let n = pairs.len() as f64;
    let mean_x = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let offset = mean_y - slope * mean_x;
    let residuals: f64 = pairs
        .iter()
        .map(|p| (p.1 - slope * p.0 - offset).powi(2))
        .sum();
    let sigma = (residuals / (n - 2.0)).sqrt();
    (slope > 0.0 && sigma > 0.0).then_some(Regression {
        slope: slope as f32,
        offset: offset as f32,
        sigma: sigma as f32,
    })
}

/// The (shallow, deep) value pairs of calibration searches, by stage and deep depth.
#[derive(Clone, Debug)]
pub struct CalibrationPairs {
    pairs: Vec<Vec<(f64, f64)>>,
}

impl Default for CalibrationPairs {
    fn default() -> CalibrationPairs {
        CalibrationPairs {
            pairs: vec![Vec::new(); STAGES * (MAX_CALIBRATED_DEPTH as usize + 1)],
        }
    }
}

impl CalibrationPairs {
    fn slot(stage: usize, depth: u32) -> usize {
        stage * (MAX_CALIBRATED_DEPTH as usize + 1) + depth as usize
    }

    /// Adds the values one full-width iterative deepening found at `empties` empties:
    /// `values[d]` the value at depth `d` (`None` where proven or not reached).
    pub fn add(&mut self, empties: u32, values: &[Option<i32>]) {
        for depth in MIN_DEPTH..=MAX_CALIBRATED_DEPTH {
            let shallow = shallow_depth(depth);
            let (Some(Some(deep)), Some(Some(low))) =
                (values.get(depth as usize), values.get(shallow as usize))
            else {
                continue;
            };
            self.pairs[Self::slot(stage(empties), depth)].push((f64::from(*low), f64::from(*deep)));
        }
    }

    /// The number of pairs of a stage and depth.
    pub fn count(&self, stage: usize, depth: u32) -> usize {
        self.pairs[Self::slot(stage, depth)].len()
    }

    /// The table of the regressions these pairs give.
    pub fn table(&self) -> MpcTable {
        let mut table = MpcTable::empty();
        for stage in 0..STAGES {
            for depth in MIN_DEPTH..=MAX_CALIBRATED_DEPTH {
                if let Some(r) = fit(&self.pairs[Self::slot(stage, depth)]) {
                    table.set(stage, depth, r);
                }
            }
        }
        table
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn a_fit_recovers_a_line() {
        let pairs: Vec<(f64, f64)> = (0..100)
            .map(|i| {
                let x = f64::from(i) * 10.0 - 500.0;
                let noise = if i % 2 == 0 { 30.0 } else { -30.0 };
                (x, 1.2 * x + 40.0 + noise)
            })
            .collect();
        let r = fit(&pairs).unwrap();
        assert!((r.slope - 1.2).abs() < 0.01, "{r:?}");
        assert!((r.offset - 40.0).abs() < 2.0, "{r:?}");
        assert!((r.sigma - 30.0).abs() < 1.0, "{r:?}");
        assert!(fit(&pairs[..5]).is_none());
    }

    /// SplitMix64, for the tests' own random choices.
    pub(crate) struct Mix(pub(crate) u64);

    impl Mix {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        pub(crate) fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn synthetic_values_give_back_each_stage_s_line_and_spread() {
        // At 25 empties (stage 2) every deep value is 0.9 x its shallow value + 30, at 45
        // (stage 4) 1.1 x it - 50, each off by 40 one way or the other at random: the table
        // finds both lines and sigma 40 at every depth, and nothing in the other stages.
        let lines = [(25, 0.9, 30.0), (45, 1.1, -50.0)];
        let mut rng = Mix(7);
        let mut pairs = CalibrationPairs::default();
        for &(empties, slope, offset) in &lines {
            for _ in 0..400 {
                let mut values = vec![None; MAX_CALIBRATED_DEPTH as usize + 1];
                values[1] = Some(rng.below(2001) as i32 - 1000);
                values[2] = Some(rng.below(2001) as i32 - 1000);
                for depth in MIN_DEPTH..=MAX_CALIBRATED_DEPTH {
                    let shallow = f64::from(values[shallow_depth(depth) as usize].unwrap());
                    let noise = if rng.next() & 1 == 0 { 40.0 } else { -40.0 };
                    values[depth as usize] =
                        Some((slope * shallow + offset + noise).round() as i32);
                }
                pairs.add(empties, &values);
            }
        }
        let table = pairs.table();
        for (empties, slope, offset) in lines {
            for depth in MIN_DEPTH..=MAX_CALIBRATED_DEPTH {
                assert_eq!(pairs.count(stage(empties), depth), 400);
                let r = table.regression(empties, depth).unwrap();
                assert!((f64::from(r.slope) - slope).abs() < 0.01, "{depth}: {r:?}");
                assert!((f64::from(r.offset) - offset).abs() < 8.0, "{depth}: {r:?}");
                assert!((r.sigma - 40.0).abs() < 2.0, "{depth}: {r:?}");
            }
        }
        let depths = (MAX_CALIBRATED_DEPTH - MIN_DEPTH + 1) as usize;
        assert_eq!(table.rows().count(), 2 * depths);
        assert!(table.regression(35, 6).is_none());
        // A depth without its value, or without its shallow depth's, makes no pair.
        let mut few = CalibrationPairs::default();
        let mut values = vec![None; 7];
        (values[2], values[4], values[5]) = (Some(10), Some(12), Some(-3));
        few.add(25, &values);
        assert_eq!(few.count(2, 4), 1);
        assert_eq!(few.count(2, 5), 0, "depth 5 pairs with depth 1, not found");
        assert_eq!(few.count(2, 6), 0);
    }
}
