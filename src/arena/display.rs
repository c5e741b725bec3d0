//! What a match shows while it runs: a line for each finished game and, on a terminal, a live
//! status line at the bottom (games done and running, the score so far), kept in place below
//! the game lines by `indicatif`.

use super::outcome::{Ending, Played};
use super::stats::PairingScore;
use crate::board::Color;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How far a match has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Games finished.
    pub done: usize,
    /// Games this run will play (the shard's share of the schedule).
    pub total: usize,
    /// Games under way.
    pub running: usize,
}

/// The status line: games done of the total and running, then for a two-engine match the
/// first engine's W/D/L, score and Elo with its 95% interval, for a round robin each engine's
/// points of its games. Cut to `width` characters (the terminal's), so that it never wraps and
/// can be rewritten in place.
pub fn status_line(
    progress: Progress,
    names: &[String],
    scores: &[PairingScore],
    width: usize,
) -> String {
    let mut line = format!(
        "[{}/{} games, {} running]",
        progress.done, progress.total, progress.running
    );
    match scores {
        [s] => {
            let (a, b) = s.engines;
            let games = s.wdl.games();
            line += &format!(
                " {} vs {}: W/D/L {}/{}/{}",
                names.get(a).map_or("?", String::as_str),
                names.get(b).map_or("?", String::as_str),
                s.wdl.wins,
                s.wdl.draws,
                s.wdl.losses
            );
            if games > 0 {
                let score = (s.wdl.wins as f64 + s.wdl.draws as f64 / 2.0) / games as f64;
                line += &format!(", {:.1}%", 100.0 * score);
            }
            if let Some(e) = s.wdl.elo() {
                line += &format!(", Elo {:+.1} [{:+.1}, {:+.1}]", e.elo, e.low, e.high);
            }
        }
        _ => {
            // Half points and games per engine over all its pairings.
            let mut points = vec![(0u64, 0u64); names.len()];
            for s in scores {
                let (a, b) = s.engines;
                let w = &s.wdl;
                if let Some(p) = points.get_mut(a) {
                    p.0 += 2 * w.wins + w.draws;
                    p.1 += w.games();
                }
                if let Some(p) = points.get_mut(b) {
                    p.0 += 2 * w.losses + w.draws;
                    p.1 += w.games();
                }
            }
            let standings: Vec<String> = names
                .iter()
                .zip(&points)
                .map(|(name, (half, games))| {
                    let points = if half % 2 == 0 {
                        (half / 2).to_string()
                    } else {
                        format!("{}.5", half / 2)
                    };
                    format!("{name} {points}/{games}")
                })
                .collect();
            line += &format!(" points: {}", standings.join(", "));
        }
    }
    if line.chars().count() > width {
        line = line
            .chars()
            .take(width.saturating_sub(3))
            .collect::<String>()
            + "...";
    }
    line
}

/// The terminal's width: `COLUMNS` when it is set to a number (shells set it, though they do
/// not always export it), else 80.
pub fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&w| w >= 20)
        .unwrap_or(80)
}

/// One line describing a finished game (`names` are the engines', `total` the games of the
/// schedule).
pub fn game_line(played: &Played, names: &[String], total: usize) -> String {
    let game = &played.game;
    let p = game.final_position();
    let result = match game.black_margin.signum() {
        1 => "1-0",
        0 => "1/2-1/2",
        _ => "0-1",
    };
    let detail = match &game.ending {
        Ending::Finished => format!(
            "{}-{}",
            p.disc_count(Color::Black),
            p.disc_count(Color::White)
        ),
        Ending::Forfeit { .. } => game.ending.forfeit_text().unwrap_or_default(),
    };
    format!(
        "game {}/{}: {} (black) vs {} (white), opening {}: {result} ({:+}) {detail}",
        played.number,
        total,
        names[played.black],
        names[played.white],
        game.opening,
        game.black_margin
    )
}

/// Writes the per-game lines and, on a terminal, the status line below them.
pub struct Display {
    /// The status line, when standard output is a terminal.
    status: Option<ProgressBar>,
    width: usize,
}

impl Display {
    /// The display of standard output: live when it is a terminal.
    pub fn stdout() -> Display {
        let live = std::io::IsTerminal::is_terminal(&std::io::stdout());
        let status = live.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stdout());
            bar.set_style(
                ProgressStyle::with_template("{msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        });
        Display {
            status,
            width: terminal_width(),
        }
    }

    /// A line above the status line.
    pub fn line(&self, text: &str) {
        match &self.status {
            Some(bar) => bar.suspend(|| println!("{text}")),
            None => println!("{text}"),
        }
    }

    /// Rewrites the status line in place (terminals only).
    pub fn status(&self, progress: Progress, names: &[String], scores: &[PairingScore]) {
        if let Some(bar) = &self.status {
            bar.set_message(status_line(
                progress,
                names,
                scores,
                self.width.saturating_sub(1),
            ));
        }
    }
}

impl Drop for Display {
    /// The status line goes, so that the summary follows the last game line.
    fn drop(&mut self) {
        if let Some(bar) = &self.status {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::stats::{pairings, score_game};

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_two_engine_status_shows_the_score_and_elo() {
        let mut scores = pairings(2);
        let at_start = status_line(
            Progress {
                done: 0,
                total: 40,
                running: 2,
            },
            &names(&["new", "old"]),
            &scores,
            200,
        );
        assert_eq!(at_start, "[0/40 games, 2 running] new vs old: W/D/L 0/0/0");
        // W=6 D=2 L=2: 70%, Elo 147.2 [-33.4, +504.1] (the statistics' worked example).
        let results = [10, 10, 10, 10, 10, 10, 0, 0, -10, -10];
        for (game, margin) in results.iter().enumerate() {
            score_game(&mut scores, 0, 1, *margin, game);
        }
        let progress = Progress {
            done: 10,
            total: 40,
            running: 2,
        };
        let line = status_line(progress, &names(&["new", "old"]), &scores, 200);
        assert_eq!(
            line,
            "[10/40 games, 2 running] new vs old: W/D/L 6/2/2, 70.0%, Elo +147.2 [-33.4, +504.0]"
        );
        let cut = status_line(progress, &names(&["new", "old"]), &scores, 30);
        assert_eq!(cut, "[10/40 games, 2 running] ne...");
        assert_eq!(cut.chars().count(), 30);
    }

    #[test]
    fn a_round_robin_status_shows_points() {
        let mut scores = pairings(3);
        // a beats b, b and c draw, c beats a (as white: black's margin negative).
        score_game(&mut scores, 0, 1, 8, 0);
        score_game(&mut scores, 1, 2, 0, 1);
        score_game(&mut scores, 0, 2, -2, 2);
        let line = status_line(
            Progress {
                done: 3,
                total: 6,
                running: 0,
            },
            &names(&["a", "b", "c"]),
            &scores,
            80,
        );
        assert_eq!(
            line,
            "[3/6 games, 0 running] points: a 1/2, b 0.5/2, c 1.5/2"
        );
    }
}
