//! The results of a match as its results files hold them: the engines, the schedule and every
//! game with its place in the schedule, from which the pairings' statistics, pentanomial
//! counts included, are worked out again.

use crate::arena::stats::{PairingScore, pairings, score_game};
use serde::Serialize;

/// The largest margin of a game, in discs (a forfeit counts as 64-0).
const MAX_MARGIN: i32 = 64;

/// One game as a results file lists it (a JSON object with these members, in this order, or
/// a CSV row with these columns).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameRow {
    /// 1-based game number in the schedule; games 2k + 1 and 2k + 2 are one opening with
    /// colours swapped.
    #[serde(rename = "game")]
    pub number: usize,
    /// The opening's moves (`f5d6c3`, or `start`).
    pub opening: String,
    /// Black's engine name.
    pub black: String,
    /// White's engine name.
    pub white: String,
    /// Black's margin in discs (a forfeit counts as 64-0).
    pub black_margin: i32,
    /// `black forfeits: reason` or `white forfeits: reason`, for a game lost by a fault.
    pub forfeit: Option<String>,
    /// Black's thinking time over the game, in seconds (files from before it have none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black_seconds: Option<f64>,
    /// White's thinking time over the game, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white_seconds: Option<f64>,
    /// The most resident memory black's engine process held up to the end of the game, in
    /// KiB (where the system tells; JSON files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black_peak_kib: Option<u64>,
    /// The same for white's engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white_peak_kib: Option<u64>,
}

impl GameRow {
    /// The opening pair the game belongs to: (opening, pairing) in schedule order.
    pub fn pair(&self) -> usize {
        self.number.saturating_sub(1) / 2
    }

    /// A row read from a file, checked: a game number from 1 and a whole margin from -64 to
    /// 64 (files write whole numbers, but a number is a number); an empty forfeit is none.
    pub fn read(
        number: usize,
        opening: String,
        black: String,
        white: String,
        black_margin: f64,
        forfeit: Option<String>,
    ) -> Result<GameRow, String> {
        if number == 0 {
            return Err("game numbers start at 1".into());
        }
        if black_margin.fract() != 0.0 || black_margin.abs() > f64::from(MAX_MARGIN) {
            return Err(format!(
                "black_margin {black_margin} is not -{MAX_MARGIN} to {MAX_MARGIN} discs"
            ));
        }
        Ok(GameRow {
            number,
            opening,
            black,
            white,
            black_margin: black_margin as i32,
            forfeit: forfeit.filter(|f| !f.is_empty()),
            black_seconds: None,
            white_seconds: None,
            black_peak_kib: None,
            white_peak_kib: None,
        })
    }

    /// This row with the sides' thinking times read from a file, checked: seconds from 0,
    /// finite.
    pub fn with_think_seconds(
        self,
        black: Option<f64>,
        white: Option<f64>,
    ) -> Result<GameRow, String> {
        let check = |seconds: Option<f64>, side: &str| match seconds {
            Some(s) if !(s.is_finite() && s >= 0.0) => {
                Err(format!("{side}_seconds {s} is not a time in seconds"))
            }
            _ => Ok(seconds),
        };
        Ok(GameRow {
            black_seconds: check(black, "black")?,
            white_seconds: check(white, "white")?,
            ..self
        })
    }
}

/// One engine's memory over a match: the most its process held in any of the first games,
/// and in any of the last (by game number), so that a soak shows whether memory stays flat.
#[derive(Clone, Debug, PartialEq)]
pub struct PeakMemory {
    /// The engine.
    pub engine: String,
    /// Games in each window: 100, or half the games that give a figure when fewer than 200.
    pub window: usize,
    /// The most KiB in the first `window` games.
    pub first_kib: u64,
    /// The most KiB in the last `window` games.
    pub last_kib: u64,
}

/// One engine's thinking time per game, over the games of a results file that give it.
#[derive(Clone, Debug, PartialEq)]
pub struct ThinkTime {
    /// The engine.
    pub engine: String,
    /// Games with a time.
    pub games: usize,
    /// Mean seconds per game.
    pub mean: f64,
    /// Most seconds in one game.
    pub max: f64,
}

/// What a results file holds: the match's engines and schedule and its games.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// Engine names in the order of the command line (pairings are in this order).
    pub engines: Vec<String>,
    /// True when the file lists the engines (JSON); false when they were gathered from its
    /// games (CSV), which may leave out engines that played no game in it.
    pub listed: bool,
    /// Games in the whole schedule, every shard together (JSON files only).
    pub scheduled: Option<usize>,
    /// `(i, n)` when the file is shard i of n.
    pub shard: Option<(usize, usize)>,
    /// The games played, by number.
    pub games: Vec<GameRow>,
}

impl Results {
    /// The score of every pairing, worked out from the games.
    pub fn scores(&self) -> Vec<PairingScore> {
        let mut scores = pairings(self.engines.len());
        let index = |name: &str| self.engines.iter().position(|e| e == name);
        for game in &self.games {
            if let (Some(black), Some(white)) = (index(&game.black), index(&game.white)) {
                score_game(&mut scores, black, white, game.black_margin, game.pair());
            }
        }
        scores
    }

    /// The seconds `engine` took in each of its games that give a time.
    pub fn seconds_of(&self, engine: &str) -> Vec<f64> {
        self.games
            .iter()
            .flat_map(|g| {
                [(&g.black, g.black_seconds), (&g.white, g.white_seconds)]
                    .into_iter()
                    .filter(|(name, _)| *name == engine)
                    .filter_map(|(_, seconds)| seconds)
            })
            .collect()
    }

    /// Each engine's thinking time per game, for the engines whose games give one.
    pub fn think_times(&self) -> Vec<ThinkTime> {
        self.engines
            .iter()
            .filter_map(|engine| {
                let times = self.seconds_of(engine);
                (!times.is_empty()).then(|| ThinkTime {
                    engine: engine.clone(),
                    games: times.len(),
                    mean: times.iter().sum::<f64>() / times.len() as f64,
                    max: times.iter().copied().fold(0.0, f64::max),
                })
            })
            .collect()
    }

    /// Each engine's peak memory in its first and last games, for the engines whose games
    /// give one (at least two).
    pub fn peak_memory(&self) -> Vec<PeakMemory> {
        const WINDOW: usize = 100;
        self.engines
            .iter()
            .filter_map(|engine| {
                let mut peaks: Vec<(usize, u64)> = self
                    .games
                    .iter()
                    .flat_map(|g| {
                        [(&g.black, g.black_peak_kib), (&g.white, g.white_peak_kib)]
                            .into_iter()
                            .filter(|(name, _)| *name == engine)
                            .filter_map(|(_, kib)| kib.map(|k| (g.number, k)))
                    })
                    .collect();
                peaks.sort_unstable();
                let window = WINDOW.min(peaks.len() / 2);
                let most = |part: &[(usize, u64)]| part.iter().map(|p| p.1).max().unwrap_or(0);
                (window > 0).then(|| PeakMemory {
                    engine: engine.clone(),
                    window,
                    first_kib: most(&peaks[..window]),
                    last_kib: most(&peaks[peaks.len() - window..]),
                })
            })
            .collect()
    }

    /// Games lost by a fault.
    pub fn forfeits(&self) -> usize {
        self.games.iter().filter(|g| g.forfeit.is_some()).count()
    }

    /// Refuses games no match writes, which the statistics would silently leave out or
    /// count wrongly: a number past the schedule (when the file gives its size), an engine
    /// playing itself, a game number listed twice.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for game in &self.games {
            if let Some(scheduled) = self.scheduled
                && game.number > scheduled
            {
                return Err(format!(
                    "game {} is numbered beyond the {scheduled} scheduled games",
                    game.number
                ));
            }
            if game.black == game.white {
                return Err(format!(
                    "game {} has engine '{}' playing itself",
                    game.number, game.black
                ));
            }
            if !seen.insert(game.number) {
                return Err(format!("game {} is listed twice", game.number));
            }
        }
        Ok(())
    }
}
