//! Ridge regression over sparse 0/1 features, solved exactly by conjugate gradients.
//!
//! A stage of the `pattern` weights is a linear model: a position selects one weight per
//! placement (and per count feature), and its value is their sum plus a bias. Fitting it is
//! least squares, `min |A w - y|^2 + lambda |w|^2`, whose minimum solves the normal equations
//! `(A'A + lambda I) w = A'y`. Conjugate gradients solve them without ever forming `A'A`: each
//! iteration needs one product `A'A p`, which is one pass over the rows (a row's sum of `p`,
//! then that sum added back to each of its weights), split over threads. A diagonal
//! preconditioner (how often each weight is used, plus lambda) makes the rarely and the often
//! used weights converge together, so some tens of passes reach the minimum, where stochastic
//! gradient descent needs a learning rate, a schedule and a shuffle, and still ends wherever
//! its last steps left it.
//!
//! Weights no row uses stay zero; the ridge term pulls rarely used ones toward zero, which is
//! what a pattern seen a few times deserves. The bias is not penalised.

/// A stage's rows: `per` weight indices each (the bias, index 0, is implied), and a target.
pub struct SparseRows<'a> {
    /// Every row's indices, `per` a row, in one block.
    pub indices: &'a [u32],
    /// Indices per row.
    pub per: usize,
    /// The rows of the block to fit, by number.
    pub chosen: &'a [usize],
    /// Every row's target, by number.
    pub targets: &'a [f32],
}

/// How a fit is run.
#[derive(Clone, Copy, Debug)]
pub struct RidgeSettings {
    /// The penalty on each weight's square (the bias excepted), in squared discs per unit of
    /// weight: as if each weight had also been seen `lambda` times with target zero.
    pub lambda: f64,
    /// The most iterations.
    pub iterations: usize,
    /// Stop when the residual of the normal equations falls below this fraction of its start.
    pub tolerance: f64,
    /// Threads sharing each pass.
    pub threads: usize,
}

/// The fit's weights, and how many iterations it took.
pub struct RidgeFit {
    pub weights: Vec<f64>,
    pub iterations: usize,
}

impl SparseRows<'_> {
    fn row(&self, i: usize) -> &[u32] {
        &self.indices[i * self.per..][..self.per]
    }

    /// `f(sum, row)` summed over the chosen rows into a vector of `size`, where `sum` is the
    /// row's prediction under `x` (or 1 when `x` is None); the threads each fill a vector of
    /// their own, added at the end.
    fn accumulate(
        &self,
        x: Option<&[f64]>,
        size: usize,
        threads: usize,
        value: impl Fn(f64, usize) -> f64 + Sync,
    ) -> Vec<f64> {
        let threads = threads.clamp(1, 64);
        let chunk = self.chosen.len().div_ceil(threads).max(1);
        let partials: Vec<Vec<f64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .chosen
                .chunks(chunk)
                .map(|rows| {
                    let value = &value;
                    scope.spawn(move || {
                        let mut out = vec![0f64; size];
                        for &i in rows {
                            let row = self.row(i);
                            let sum = match x {
                                Some(x) => x[0] + row.iter().map(|&j| x[j as usize]).sum::<f64>(),
                                None => 1.0,
                            };
                            let v = value(sum, i);
                            out[0] += v;
                            for &j in row {
                                out[j as usize] += v;
                            }
                        }
                        out
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a fitting thread panicked"))
                .collect()
        });
        let mut total = vec![0f64; size];
        for part in partials {
            for (t, p) in total.iter_mut().zip(part) {
                *t += p;
            }
        }
        total
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Fits `size` weights (index 0 the bias) to `rows` by ridge regression.
pub fn ridge_fit(rows: &SparseRows, size: usize, settings: RidgeSettings) -> RidgeFit {
    let threads = settings.threads;
    let penalty = |j: usize| if j == 0 { 0.0 } else { settings.lambda };
    // The diagonal of A'A (a row using a weight twice counts once: near enough for a
    // preconditioner), plus the penalty; a weight no row uses keeps a zero gradient.
    let uses = rows.accumulate(None, size, threads, |_, _| 1.0);
    let inverse_diagonal: Vec<f64> = (0..size)
        .map(|j| {
            let d = uses[j] + penalty(j);
            if d > 0.0 { 1.0 / d } else { 0.0 }
        })
        .collect();
    let mut x = vec![0f64; size];
    // The residual b - (A'A + lambda) x with x = 0: A'y.
    let mut r = rows.accumulate(None, size, threads, |_, i| f64::from(rows.targets[i]));
    let start = dot(&r, &r).sqrt();
    let mut z: Vec<f64> = r
        .iter()
        .zip(&inverse_diagonal)
        .map(|(a, b)| a * b)
        .collect();
    let mut p = z.clone();
    let mut rz = dot(&r, &z);
    let mut done = 0;
    while done < settings.iterations && start > 0.0 {
        if dot(&r, &r).sqrt() <= settings.tolerance * start {
            break;
        }
        let mut q = rows.accumulate(Some(&p), size, threads, |sum, _| sum);
        for (j, qj) in q.iter_mut().enumerate() {
            *qj += penalty(j) * p[j];
        }
        let pq = dot(&p, &q);
        if pq <= 0.0 {
            break;
        }
        let alpha = rz / pq;
        for j in 0..size {
            x[j] += alpha * p[j];
            r[j] -= alpha * q[j];
            z[j] = r[j] * inverse_diagonal[j];
        }
        let rz_next = dot(&r, &z);
        let beta = rz_next / rz;
        rz = rz_next;
        for j in 0..size {
            p[j] = z[j] + beta * p[j];
        }
        done += 1;
    }
    RidgeFit {
        weights: x,
        iterations: done,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows drawn from known weights: the fit with no penalty finds them again.
    #[test]
    fn recovers_the_weights_that_made_the_targets() {
        let size = 40;
        let truth: Vec<f64> = (0..size).map(|j| ((j * 37) % 11) as f64 - 5.0).collect();
        let per = 3;
        let (mut indices, mut targets) = (Vec::new(), Vec::new());
        let mut seed = 7u64;
        for _ in 0..2000 {
            let mut row = Vec::new();
            // One index from each third of 1..40, so no row repeats an index.
            for part in 0..per {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                row.push((1 + part * 13 + (seed >> 40) as usize % 13) as u32);
            }
            let value = truth[0] + row.iter().map(|&j| truth[j as usize]).sum::<f64>();
            indices.extend_from_slice(&row);
            targets.push(value as f32);
        }
        let chosen: Vec<usize> = (0..targets.len()).collect();
        let rows = SparseRows {
            indices: &indices,
            per,
            chosen: &chosen,
            targets: &targets,
        };
        let fit = ridge_fit(
            &rows,
            size,
            RidgeSettings {
                lambda: 0.0,
                iterations: 500,
                tolerance: 1e-10,
                threads: 2,
            },
        );
        // The weights are determined up to a constant shared between the bias and each third
        // (only sums of one from each third are seen), so compare predictions.
        for (k, &i) in chosen.iter().enumerate().take(200) {
            let row = &indices[i * per..][..per];
            let predicted =
                fit.weights[0] + row.iter().map(|&j| fit.weights[j as usize]).sum::<f64>();
            assert!(
                (predicted - f64::from(targets[k])).abs() < 1e-3,
                "row {k}: {predicted} against {}",
                targets[k]
            );
        }
        assert!(fit.iterations < 500, "converged in {}", fit.iterations);
    }

    /// The penalty shrinks a weight seen once toward zero and leaves the bias alone.
    #[test]
    fn the_penalty_shrinks_rare_weights() {
        // Rows: 99 with weight 1 and target 2, one with weight 2 and target 10.
        let mut indices = vec![1u32; 99];
        indices.push(2);
        let mut targets = vec![2f32; 99];
        targets.push(10.0);
        let chosen: Vec<usize> = (0..100).collect();
        let rows = SparseRows {
            indices: &indices,
            per: 1,
            chosen: &chosen,
            targets: &targets,
        };
        let settings = RidgeSettings {
            lambda: 1.0,
            iterations: 100,
            tolerance: 1e-12,
            threads: 1,
        };
        let fit = ridge_fit(&rows, 3, settings);
        let predict = |j: usize| fit.weights[0] + fit.weights[j];
        assert!((predict(1) - 2.0).abs() < 0.1, "common row {}", predict(1));
        assert!(
            predict(2) > 2.0 && predict(2) < 10.0,
            "rare row {}",
            predict(2)
        );
    }
}
