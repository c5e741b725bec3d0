//! Match statistics: score, logistic Elo with a 95% interval (normal approximation), the
//! likelihood of superiority, pentanomial counts over opening pairs, and the sequential
//! probability ratio test (GSPRT, normal approximation of the log-likelihood ratio); and the
//! score of each pairing of a match, built game by game.

use std::collections::HashMap;

/// The z value of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The Elo difference that a score fraction `s` (0 to 1) means under the logistic model
/// `s = 1 / (1 + 10^(-elo/400))`; infinite at 0 and 1.
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        // Adding 0 turns the -0 of an even score into 0, which prints without a sign.
        -400.0 * (1.0 / s - 1.0).log10() + 0.0
    }
}

/// The expected score fraction of a side that is `elo` points stronger.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function, by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7), which
/// is plenty for a probability printed with a few digits.
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// An estimate of a mean score with its 95% interval, and the Elo values they mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The mean score fraction.
    pub score: f64,
    /// The Elo difference of the mean.
    pub elo: f64,
    /// The lower end of the 95% interval, in Elo.
    pub low: f64,
    /// The upper end of the 95% interval, in Elo.
    pub high: f64,
}

/// The estimate from samples taking `values` (score fractions) `counts` times each: the mean,
/// the standard error `sqrt(variance / n)`, and mean ± 1.96 standard errors turned into Elo.
fn estimate(values: &[f64], counts: &[u64]) -> Option<EloEstimate> {
    let (mean, variance, n) = mean_variance(values, counts)?;
    let error = (variance / n).sqrt() * Z95;
    Some(EloEstimate {
        score: mean,
        elo: elo_from_score(mean),
        low: elo_from_score(mean - error),
        high: elo_from_score(mean + error),
    })
}

/// Mean, population variance and sample count of weighted values; None without samples.
fn mean_variance(values: &[f64], counts: &[u64]) -> Option<(f64, f64, f64)> {
    let counts: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
    mean_variance_weighted(values, &counts)
}

/// [`mean_variance`] with real-valued weights.
fn mean_variance_weighted(values: &[f64], counts: &[f64]) -> Option<(f64, f64, f64)> {
    let n: f64 = counts.iter().sum();
    if n <= 0.0 {
        return None;
    }
    let mean = values.iter().zip(counts).map(|(v, &c)| v * c).sum::<f64>() / n;
    let variance = values
        .iter()
        .zip(counts)
        .map(|(v, &c)| c * (v - mean).powi(2))
        .sum::<f64>()
        / n;
    Some((mean, variance, n))
}

/// The GSPRT log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`) for samples with the
/// given mean score and variance: with both hypotheses normal with the sample variance,
/// `LLR = n (s1 - s0) (2 mean - s0 - s1) / (2 variance)`. Zero while the variance is zero
/// (all results equal), when the ratio is not yet defined.
pub fn llr(mean: f64, variance: f64, n: f64, elo0: f64, elo1: f64) -> f64 {
    if variance <= 0.0 {
        return 0.0;
    }
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
}

/// Game results from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
}

impl Wdl {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The Elo estimate from the per-game scores 1, 1/2, 0.
    pub fn elo(&self) -> Option<EloEstimate> {
        estimate(&[1.0, 0.5, 0.0], &[self.wins, self.draws, self.losses])
    }

    /// The likelihood of superiority: the probability that the side is the stronger, from
    /// the decisive games, `(1 + erf((W - L) / sqrt(2 (W + L)))) / 2`.
    pub fn los(&self) -> Option<f64> {
        let decisive = self.wins + self.losses;
        (decisive > 0).then(|| {
            let diff = self.wins as f64 - self.losses as f64;
            0.5 * (1.0 + erf(diff / (2.0 * decisive as f64).sqrt()))
        })
    }
}

/// Counts of opening pairs (each opening played once with each colour) by the pair's total
/// score for one side: index 0 = 0 points, 1 = 1/2, 2 = 1, 3 = 3/2, 4 = 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Penta(pub [u64; 5]);

/// The weight an empty pentanomial class gets in the SPRT (a small regularisation).
pub const EMPTY_CLASS_WEIGHT: f64 = 1e-3;

/// The score fraction of each pentanomial class.
const PENTA_VALUES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

impl Penta {
    /// Adds a pair whose two game scores (1, 1/2 or 0 each) sum to `half_points / 2`.
    pub fn add(&mut self, half_points: usize) {
        if let Some(slot) = self.0.get_mut(half_points) {
            *slot += 1;
        }
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The Elo estimate with the pairs as samples: the variance of pair scores takes the
    /// correlation between the two games of an opening into account.
    pub fn elo(&self) -> Option<EloEstimate> {
        estimate(&PENTA_VALUES, &self.0)
    }

    /// The GSPRT log-likelihood ratio over the pairs. Empty classes count as
    /// [`EMPTY_CLASS_WEIGHT`] pairs, so that a one-sided run (all pairs 2-0, variance 0)
    /// still gets a finite, decisive ratio instead of none at all.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        if self.pairs() == 0 {
            return 0.0;
        }
        let counts = self
            .0
            .map(|c| if c == 0 { EMPTY_CLASS_WEIGHT } else { c as f64 });
        match mean_variance_weighted(&PENTA_VALUES, &counts) {
            Some((mean, variance, n)) => llr(mean, variance, n, elo0, elo1),
            None => 0.0,
        }
    }
}

/// A sequential probability ratio test set up by `--sprt`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The Elo difference of the null hypothesis.
    pub elo0: f64,
    /// The Elo difference of the alternative.
    pub elo1: f64,
    /// The false positive rate.
    pub alpha: f64,
    /// The false negative rate.
    pub beta: f64,
}

/// What the sequential test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// The alternative (`elo1`) is accepted.
    H1,
    /// The null hypothesis (`elo0`) is accepted.
    H0,
    /// Keep playing.
    Continue,
}

impl Sprt {
    /// The lower and upper LLR bounds, `ln(beta / (1 - alpha))` and `ln((1 - beta) / alpha)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The verdict for a log-likelihood ratio.
    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (low, high) = self.bounds();
        if llr >= high {
            SprtVerdict::H1
        } else if llr <= low {
            SprtVerdict::H0
        } else {
            SprtVerdict::Continue
        }
    }

    /// Reads `elo0=0,elo1=5,alpha=0.05,beta=0.05` (any order; alpha and beta default to 0.05).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let mut sprt = Sprt {
            elo0: f64::NAN,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
        };
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("'{part}' is not KEY=VALUE"))?;
            let value: f64 = value
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| format!("'{value}' for {key} is not a number"))?;
            match key.trim() {
                "elo0" => sprt.elo0 = value,
                "elo1" => sprt.elo1 = value,
                "alpha" => sprt.alpha = value,
                "beta" => sprt.beta = value,
                other => return Err(format!("unknown key '{other}' (elo0, elo1, alpha, beta)")),
            }
        }
        if sprt.elo0.is_nan() || sprt.elo1.is_nan() {
            return Err("elo0 and elo1 are both needed".into());
        }
        if sprt.elo1 <= sprt.elo0 {
            return Err("elo1 must be above elo0".into());
        }
        if !(0.0 < sprt.alpha && sprt.alpha < 0.5 && 0.0 < sprt.beta && sprt.beta < 0.5) {
            return Err("alpha and beta must lie between 0 and 0.5".into());
        }
        Ok(sprt)
    }
}

/// The score of one pairing from its first engine's point of view.
#[derive(Clone, Debug, Default)]
pub struct PairingScore {
    /// Engine indices (first, second).
    pub engines: (usize, usize),
    /// Results of the first engine.
    pub wdl: Wdl,
    /// Sum of the first engine's disc margins.
    pub disc_sum: i64,
    /// Opening pairs by the first engine's pair score.
    pub penta: Penta,
    /// Half points of games whose partner is not scored yet, by opening pair.
    pending: HashMap<usize, usize>,
}

impl PairingScore {
    /// Adds a game of this pairing: the engine that played black, black's disc margin, and
    /// the opening pair it belongs to (the two games of one opening with colours swapped
    /// share it); the pair enters the pentanomial counts when both its games are in.
    pub fn add(&mut self, black: usize, black_margin: i32, pair: usize) {
        let margin = if black == self.engines.0 {
            black_margin
        } else {
            -black_margin
        };
        let half_points = match margin.signum() {
            1 => {
                self.wdl.wins += 1;
                2
            }
            0 => {
                self.wdl.draws += 1;
                1
            }
            _ => {
                self.wdl.losses += 1;
                0
            }
        };
        self.disc_sum += i64::from(margin);
        match self.pending.remove(&pair) {
            Some(partner) => self.penta.add(partner + half_points),
            None => {
                self.pending.insert(pair, half_points);
            }
        }
    }

    /// The mean disc margin of the first engine.
    pub fn mean_discs(&self) -> f64 {
        self.disc_sum as f64 / self.wdl.games().max(1) as f64
    }
}

/// An empty score for every pairing of `engines` engines, in schedule order: (0, 1), (0, 2),
/// ..., (1, 2), ...
pub fn pairings(engines: usize) -> Vec<PairingScore> {
    (0..engines)
        .flat_map(|a| (a + 1..engines).map(move |b| (a, b)))
        .map(|engines| PairingScore {
            engines,
            ..PairingScore::default()
        })
        .collect()
}

/// Adds a game between `black` and `white` to the score of their pairing and returns that
/// score (none if they are not a pairing of `scores`).
pub fn score_game(
    scores: &mut [PairingScore],
    black: usize,
    white: usize,
    black_margin: i32,
    pair: usize,
) -> Option<&PairingScore> {
    let score = scores
        .iter_mut()
        .find(|s| s.engines == (black, white) || s.engines == (white, black))?;
    score.add(black, black_margin, pair);
    Some(score)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn logistic_elo() {
        // s = 0.75: 1/s - 1 = 1/3, log10(1/3) = -0.47712, times -400 = 190.85.
        assert!(close(elo_from_score(0.75), 190.849, 1e-3));
        assert_eq!(elo_from_score(0.5), 0.0);
        assert_eq!(format!("{:+.1}", elo_from_score(0.5)), "+0.0");
        assert!(close(score_from_elo(190.849), 0.75, 1e-6));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
    }

    #[test]
    fn erf_known_values() {
        // erf(1) = 0.8427008 and erf(0.5) = 0.5204999 from tables; erf is odd.
        assert!(close(erf(1.0), 0.842_700_8, 2e-7));
        assert!(close(erf(0.5), 0.520_499_9, 2e-7));
        assert!(close(erf(-1.0), -0.842_700_8, 2e-7));
    }

    #[test]
    fn wdl_elo_interval_and_los() {
        // W=6 D=2 L=2: s = (6 + 1) / 10 = 0.7; Elo = -400 log10(3/7) = 147.19.
        // Variance = (6 (0.3)^2 + 2 (0.2)^2 + 2 (0.7)^2) / 10 = (0.54 + 0.08 + 0.98) / 10
        // = 0.16; standard error sqrt(0.016) = 0.12649; 1.96 of them = 0.24792, so the score
        // interval is [0.45208, 0.94792], in Elo -400 log10(1/0.45208 - 1) = -33.40 and
        // -400 log10(1/0.94792 - 1) = 504.05.
        let wdl = Wdl {
            wins: 6,
            draws: 2,
            losses: 2,
        };
        let e = wdl.elo().unwrap();
        assert!(close(e.score, 0.7, 1e-12));
        assert!(close(e.elo, 147.19, 0.01));
        assert!(close(e.low, -33.40, 0.02));
        assert!(close(e.high, 504.05, 0.05));
        // LOS: (W - L) / sqrt(2 (W + L)) = 4 / 4 = 1; (1 + erf 1) / 2 = 0.92135.
        assert!(close(wdl.los().unwrap(), 0.921_35, 1e-5));
        assert_eq!(Wdl::default().elo(), None);
        assert_eq!(Wdl::default().los(), None);
    }

    #[test]
    fn pentanomial_elo() {
        // Pairs [1, 2, 3, 3, 1] over scores 0, 1/4, 1/2, 3/4, 1 (10 pairs):
        // mean = (0.5 + 1.5 + 2.25 + 1) / 10 = 0.525; Elo = -400 log10(0.475/0.525) = 17.39.
        // Variance = (0.525^2 + 2 (0.275)^2 + 3 (0.025)^2 + 3 (0.225)^2 + 0.475^2) / 10
        // = (0.275625 + 0.15125 + 0.001875 + 0.151875 + 0.225625) / 10 = 0.080625;
        // standard error sqrt(0.0080625) = 0.089791; 1.96 of them = 0.175988, so the score
        // interval is [0.349012, 0.700988], in Elo -108.30 and 148.01.
        let penta = Penta([1, 2, 3, 3, 1]);
        let e = penta.elo().unwrap();
        assert!(close(e.score, 0.525, 1e-12));
        assert!(close(e.elo, 17.39, 0.01));
        assert!(close(e.low, -108.30, 0.02));
        assert!(close(e.high, 148.01, 0.02));
        let mut counted = Penta::default();
        for half_points in [0, 1, 1, 2, 2, 2, 3, 3, 3, 4] {
            counted.add(half_points);
        }
        assert_eq!(counted, penta);
        assert_eq!(counted.pairs(), 10);
    }

    #[test]
    fn sprt_llr_and_bounds() {
        // Bounds for alpha = beta = 0.05: ln(0.05 / 0.95) = -2.94444 and +2.94444.
        let sprt = Sprt::parse("elo0=0,elo1=5,alpha=0.05,beta=0.05").unwrap();
        let (low, high) = sprt.bounds();
        assert!(close(low, -2.944_44, 1e-5) && close(high, 2.944_44, 1e-5));
        // s0 = 0.5; s1 = 1 / (1 + 10^(-5/400)) = 0.5071951. With mean 0.575 and variance
        // 0.080625 over 10 pairs: 10 (0.0071951) (1.15 - 1.0071951) / (2 0.080625)
        // = 10 x 0.0071951 x 0.1428049 / 0.16125 = 0.063721.
        assert!(close(llr(0.575, 0.080625, 10.0, 0.0, 5.0), 0.063_72, 1e-4));
        // A 0.7 score over 1200 games with variance 0.16 is far past the upper bound:
        // 1200 x 0.0071951 x (1.4 - 1.0071951) / 0.32 = 10.598.
        let strong = llr(0.7, 0.16, 1200.0, 0.0, 5.0);
        assert!(close(strong, 10.598, 0.01));
        assert_eq!(sprt.verdict(strong), SprtVerdict::H1);
        assert_eq!(sprt.verdict(-3.0), SprtVerdict::H0);
        assert_eq!(sprt.verdict(0.0), SprtVerdict::Continue);
        assert_eq!(llr(0.5, 0.0, 10.0, 0.0, 5.0), 0.0);
        // Five pairs all won 2-0: weights [0.001 x 4, 5], n = 5.004; mean = (0.001 (0.25
        // + 0.5 + 0.75) + 5) / 5.004 = 5.0015 / 5.004 = 0.99950; variance = (0.001 (0.9995^2
        // + 0.7495^2 + 0.4995^2 + 0.2495^2) + 5 (0.0005)^2) / 5.004 = (0.0018725 + 0.00000125)
        // / 5.004 = 0.00037445; LLR = 5.004 x 0.0071951 x (1.9990 - 1.0071951) / (2 x
        // 0.00037445) = 47.68: H1 at once.
        let sweep = Penta([0, 0, 0, 0, 5]);
        assert!(
            close(sweep.llr(0.0, 5.0), 47.68, 0.02),
            "{}",
            sweep.llr(0.0, 5.0)
        );
        assert_eq!(sprt.verdict(sweep.llr(0.0, 5.0)), SprtVerdict::H1);
        assert!(Penta([0, 0, 0, 5, 0]).llr(0.0, 5.0) > 0.0);
        assert_eq!(Penta::default().llr(0.0, 5.0), 0.0);
        assert!(Sprt::parse("elo0=5,elo1=0").is_err());
        assert!(Sprt::parse("elo0=0").is_err());
        assert!(Sprt::parse("elo0=0,elo1=5,gamma=1").is_err());
        assert!(Sprt::parse("elo0=0,elo1=x").is_err());
    }

    #[test]
    fn pairing_scores_count_pairs_whichever_colour_comes_first() {
        let mut scores = pairings(3);
        let engines: Vec<_> = scores.iter().map(|s| s.engines).collect();
        assert_eq!(engines, [(0, 1), (0, 2), (1, 2)]);
        // Pair 0: engine 0 wins with black by 10, loses with white by 4 (black +4): 1 point.
        // Pair 5: engine 1 as black draws, then engine 0 as black loses by 64 (a forfeit):
        // engine 0 scores 1/2 over the pair; its half arrives first here.
        for (black, white, margin, pair) in
            [(0, 1, 10, 0), (0, 1, -64, 5), (1, 0, 4, 0), (1, 0, 0, 5)]
        {
            assert!(score_game(&mut scores, black, white, margin, pair).is_some());
        }
        assert!(score_game(&mut scores, 1, 1, 0, 9).is_none());
        let s = &scores[0];
        assert_eq!(
            s.wdl,
            Wdl {
                wins: 1,
                draws: 1,
                losses: 2
            }
        );
        assert_eq!(s.penta, Penta([0, 1, 1, 0, 0]));
        assert_eq!(s.disc_sum, 10 - 64 - 4);
        assert_eq!(scores[1].wdl.games(), 0);
    }
}
