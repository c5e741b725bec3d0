//! The closing summary of a match, and of `match merge`: per pairing W/D/L, score, disc
//! margin, Elo, pentanomial counts, LOS, and the SPRT when one ran.

use super::results::Results;
use super::stats::{EloEstimate, Sprt, SprtVerdict};

/// An Elo estimate with its 95% interval, `-` without one.
pub fn elo_text(e: Option<EloEstimate>) -> String {
    match e {
        Some(e) => format!("{:+.1} [{:+.1}, {:+.1}]", e.elo, e.low, e.high),
        None => "-".into(),
    }
}

/// The closing summary: per pairing W/D/L, score, disc margin, Elo, pentanomial, LOS, and the
/// SPRT when one ran (with its verdict); then each engine's thinking time per game, mean and
/// most, and its peak memory in the first and last games, when the results give them.
pub fn summary(results: &Results, sprt: Option<(Sprt, SprtVerdict)>) -> String {
    let mut out = format!("finished {} games", results.games.len());
    let forfeits = results.forfeits();
    if forfeits > 0 {
        out += &format!(" ({forfeits} by forfeit)");
    }
    for s in results.scores() {
        let (a, b) = s.engines;
        let games = s.wdl.games().max(1) as f64;
        let score = (s.wdl.wins as f64 + s.wdl.draws as f64 / 2.0) / games;
        out += &format!(
            "\n{} vs {}: W/D/L {}/{}/{}, score {:.1}%, mean disc margin {:+.2}\n  Elo {}\n  pentanomial [{}] over {} pairs, Elo {}\n  LOS {}",
            results.engines[a],
            results.engines[b],
            s.wdl.wins,
            s.wdl.draws,
            s.wdl.losses,
            100.0 * score,
            s.mean_discs(),
            elo_text(s.wdl.elo()),
            s.penta.0.map(|c| c.to_string()).join(", "),
            s.penta.pairs(),
            elo_text(s.penta.elo()),
            s.wdl
                .los()
                .map_or("-".into(), |l| format!("{:.1}%", 100.0 * l)),
        );
        if let Some((sprt, verdict)) = sprt {
            let (low, high) = sprt.bounds();
            out += &format!(
                "\n  SPRT elo0={} elo1={}: LLR {:.3} [{:.3}, {:.3}], {}",
                sprt.elo0,
                sprt.elo1,
                s.penta.llr(sprt.elo0, sprt.elo1),
                low,
                high,
                match verdict {
                    SprtVerdict::H1 => "H1 accepted",
                    SprtVerdict::H0 => "H0 accepted",
                    SprtVerdict::Continue => "undecided",
                }
            );
        }
    }
    let times: Vec<String> = results
        .think_times()
        .into_iter()
        .map(|t| format!("{} mean {:.2} s, max {:.2} s", t.engine, t.mean, t.max))
        .collect();
    if !times.is_empty() {
        out += &format!("\nthinking time per game: {}", times.join("; "));
    }
    let memory: Vec<String> = results
        .peak_memory()
        .into_iter()
        .map(|m| {
            let mb = |kib: u64| kib as f64 * 1024.0 / 1e6;
            format!(
                "{} {:.1} MB in the first {} games, {:.1} MB in the last {}",
                m.engine,
                mb(m.first_kib),
                m.window,
                mb(m.last_kib),
                m.window
            )
        })
        .collect();
    if !memory.is_empty() {
        out += &format!("\npeak memory: {}", memory.join("; "));
    }
    out
}

/// In sudden death (`base` seconds a game, no increment): each engine's time left at the end
/// of its games that give a time, least and median, as the line the summary ends with.
pub fn time_left_line(results: &Results, base: f64) -> Option<String> {
    let parts: Vec<String> = results
        .engines
        .iter()
        .filter_map(|engine| {
            let mut left: Vec<f64> = results
                .seconds_of(engine)
                .into_iter()
                .map(|s| base - s)
                .collect();
            if left.is_empty() {
                return None;
            }
            left.sort_by(f64::total_cmp);
            Some(format!(
                "{engine} least {:.2} s, median {:.2} s",
                left[0],
                left[left.len() / 2]
            ))
        })
        .collect();
    (!parts.is_empty()).then(|| format!("\ntime left at the end: {}", parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::results::read_results;

    #[test]
    fn the_summary_of_a_results_file() {
        let results = read_results(include_str!("../../tests/fixtures/results/escapes.json"));
        let text = results.map(|r| summary(&r, None));
        assert_eq!(
            text.as_deref(),
            Ok(
                "finished 2 games (1 by forfeit)\none vs two, \"quoted\"\u{1}é: W/D/L 0/1/1, score 25.0%, mean disc margin -32.00\n  Elo -190.8 [-inf, +67.9]\n  pentanomial [0, 1, 0, 0, 0] over 1 pairs, Elo -190.8 [-190.8, -190.8]\n  LOS 15.9%"
            )
        );
    }
}
