//! The held-out error of a scorer per bracket of empties, measured on threads: what a
//! training run reports after each epoch, and what `train` prints for the integer network.

use super::TrainSample;

/// The held-out error of one bracket of empties.
#[derive(Clone, Debug)]
pub struct Bracket {
    /// The empties, first and last.
    pub empties: (u32, u32),
    /// Held-out positions in it.
    pub positions: usize,
    /// The network's mean absolute error, discs.
    pub error: f64,
    /// The evaluator compared with, on the same positions.
    pub compare: f64,
}

/// The brackets of empties the error is told in.
pub const BRACKETS: [(u32, u32); 6] = [(0, 9), (10, 19), (20, 29), (30, 39), (40, 49), (50, 60)];

/// The held-out error of `score` (discs) on `samples`, per bracket of [`BRACKETS`] and then
/// overall, on `threads` threads; `compare` the same for another scorer.
pub fn held_out_errors(
    samples: &[TrainSample],
    threads: usize,
    score: &(dyn Fn(u64, u64) -> f32 + Sync),
    compare: &(dyn Fn(u64, u64) -> f32 + Sync),
) -> Vec<Bracket> {
    let n = BRACKETS.len();
    let chunk = samples.len().div_ceil(threads.max(1)).max(1);
    let partial: Vec<Vec<(usize, f64, f64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut sums = vec![(0usize, 0.0f64, 0.0f64); n];
                    for s in part {
                        let empties = (!(s.player | s.opponent)).count_ones();
                        let k = BRACKETS
                            .iter()
                            .position(|b| empties <= b.1)
                            .unwrap_or(n - 1);
                        let t = f64::from(s.target);
                        sums[k].0 += 1;
                        sums[k].1 += (f64::from(score(s.player, s.opponent)) - t).abs();
                        sums[k].2 += (f64::from(compare(s.player, s.opponent)) - t).abs();
                    }
                    sums
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("held-out thread"))
            .collect()
    });
    let mut out = Vec::new();
    let mut total = (0usize, 0.0, 0.0);
    for (k, &empties) in BRACKETS.iter().enumerate() {
        let (mut c, mut e, mut f) = (0, 0.0, 0.0);
        for p in &partial {
            c += p[k].0;
            e += p[k].1;
            f += p[k].2;
        }
        total = (total.0 + c, total.1 + e, total.2 + f);
        let mean = |x: f64| if c == 0 { f64::NAN } else { x / c as f64 };
        out.push(Bracket {
            empties,
            positions: c,
            error: mean(e),
            compare: mean(f),
        });
    }
    let mean = |x: f64| {
        if total.0 == 0 {
            f64::NAN
        } else {
            x / total.0 as f64
        }
    };
    out.push(Bracket {
        empties: (0, 60),
        positions: total.0,
        error: mean(total.1),
        compare: mean(total.2),
    });
    out
}
