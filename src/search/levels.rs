//! Per-phase settings: the depth and evaluator of the opening and the midgame, and when and how
//! the endgame is solved. The command line, the protocols and the tournament runner share them.

use super::probcut::Selectivity;
use crate::board::{MAX_EMPTIES, Position};
use crate::eval::EvaluatorKind;
use std::fmt;
use std::str::FromStr;

/// How an endgame is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndgameMode {
    /// The exact final disc difference.
    Exact,
    /// Only win, draw or loss.
    Wld,
    /// A win (or draw) if there is one, by any margin; otherwise the smallest loss.
    WinElseLeast,
}

impl EndgameMode {
    /// The name used in flags and protocols.
    pub fn name(self) -> &'static str {
        match self {
            EndgameMode::Exact => "exact",
            EndgameMode::Wld => "wld",
            EndgameMode::WinElseLeast => "win-else-least",
        }
    }
}

impl fmt::Display for EndgameMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EndgameMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        [
            EndgameMode::Exact,
            EndgameMode::Wld,
            EndgameMode::WinElseLeast,
        ]
        .into_iter()
        .find(|m| m.name().eq_ignore_ascii_case(s))
        .ok_or_else(|| format!("unknown endgame mode '{s}' (known: exact, wld, win-else-least)"))
    }
}

/// The three phases of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The first `opening_moves` moves.
    Opening,
    /// Between the opening and the endgame.
    Midgame,
    /// From `endgame_empties` empty squares on: solved.
    Endgame,
}

/// Depth and evaluator of a searched phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseLevel {
    /// Plies to search (a pass costs none).
    pub depth: u32,
    /// The evaluator at the leaves.
    pub eval: EvaluatorKind,
}

/// How a phase picks its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Play {
    /// A uniformly random legal move, without a search.
    Random,
    /// The best move of a search with this evaluator.
    Search(EvaluatorKind),
}

impl PhaseLevel {
    /// What this level plays: the one place where `random`, which the command line and the
    /// protocols name as an evaluator, becomes a move policy.
    pub fn play(self) -> Play {
        match self.eval {
            EvaluatorKind::Random => Play::Random,
            kind => Play::Search(kind),
        }
    }

    /// The evaluator of a search run at this level: its own, or for a random level `classic`
    /// (the presets' evaluator), since such a level still needs searches: the fallback move of
    /// an endgame solve, hints.
    pub fn search_evaluator(self) -> EvaluatorKind {
        match self.play() {
            Play::Search(kind) => kind,
            Play::Random => EvaluatorKind::Classic,
        }
    }
}

/// All the per-phase settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Levels {
    /// How many moves (discs placed) count as the opening.
    pub opening_moves: u32,
    /// The opening's search.
    pub opening: PhaseLevel,
    /// The midgame's search.
    pub midgame: PhaseLevel,
    /// Solve once this many squares or fewer are empty (0: never).
    pub endgame_empties: u32,
    /// How to solve.
    pub endgame_mode: EndgameMode,
    /// How selective the opening's and midgame's searches are (Multi-ProbCut).
    pub selectivity: Selectivity,
    /// Under a clock, let the time decide how deep to search and when to solve: the depths
    /// and the solve point above then only apply without a clock. True for the default; any
    /// level, depth or solve point given makes it false, so that those bind.
    pub time_decides: bool,
}

/// The highest preset level.
pub const MAX_LEVEL: u32 = 20;
/// The selectivity of the presets: full width, so that a level is a fixed depth.
const PRESET_SELECTIVITY: Selectivity = Selectivity::FULL;
/// The preset whose endgame settings the default keeps.
pub const DEFAULT_LEVEL: u32 = 10;
/// The default's midgame depth without a clock, and its selectivity: selective, two plies
/// deeper than the preset, in less time (measured: +81 Elo over full-width depth 10 in 100
/// games, with 0.77 of its time). 87% rather than 95% since the table was fitted again for
/// today's weights: +49 Elo [+13, +86] in 200 games at `10+0.1`
/// (docs/measurements/selective-search.md).
const DEFAULT_DEPTH: u32 = 12;
const DEFAULT_SELECTIVITY: Selectivity = Selectivity::ALL[1];
/// The default's evaluator in the opening and the midgame: the network (the presets keep
/// `pattern`, whose strength they were measured with). With its tempo it won 400 games at
/// `10+0.1` against the `pattern` default (70580a1), +57.9 Elo [+34.3, +81.9]
/// (docs/measurements/network.md).
const DEFAULT_EVALUATOR: EvaluatorKind = EvaluatorKind::Neural;

impl Default for Levels {
    /// The default: the network's evaluation; under a clock, as deep as the time allows
    /// (selective, solving when the solve fits in the time); without one, depth 12 at 87% and
    /// a solve from 20 empties.
    fn default() -> Self {
        let preset = Levels::preset(DEFAULT_LEVEL).unwrap_or(Levels {
            opening_moves: 6,
            opening: PhaseLevel {
                depth: 6,
                eval: EvaluatorKind::Pattern,
            },
            midgame: PhaseLevel {
                depth: 10,
                eval: EvaluatorKind::Pattern,
            },
            endgame_empties: 20,
            endgame_mode: EndgameMode::Exact,
            selectivity: PRESET_SELECTIVITY,
            time_decides: false,
        });
        Levels {
            opening: PhaseLevel {
                eval: DEFAULT_EVALUATOR,
                ..preset.opening
            },
            midgame: PhaseLevel {
                depth: DEFAULT_DEPTH,
                eval: DEFAULT_EVALUATOR,
            },
            selectivity: DEFAULT_SELECTIVITY,
            time_decides: true,
            ..preset
        }
    }
}

/// One level setting and its value, as the command line's level flags and GTP's
/// `othello-engine-set` give them: checked once, applied with [`Levels::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelSetting {
    /// `level`: a whole preset, replacing every other setting.
    Level(u32),
    /// `level default`: back to [`Levels::default`], the time-decided full strength.
    DefaultLevel,
    /// `opening-moves`.
    OpeningMoves(u32),
    /// `opening-depth`.
    OpeningDepth(u32),
    /// `opening-eval`.
    OpeningEval(EvaluatorKind),
    /// `midgame-depth`.
    MidgameDepth(u32),
    /// `midgame-eval`.
    MidgameEval(EvaluatorKind),
    /// `endgame-empties`.
    EndgameEmpties(u32),
    /// `endgame-mode`.
    EndgameMode(EndgameMode),
    /// `selectivity`.
    Selectivity(Selectivity),
}

/// The setting names, for help texts and protocol option lists.
pub const SETTING_NAMES: [&str; 9] = [
    "level",
    "opening-moves",
    "opening-depth",
    "opening-eval",
    "midgame-depth",
    "midgame-eval",
    "endgame-empties",
    "endgame-mode",
    "selectivity",
];

impl LevelSetting {
    /// Reads setting `name` (one of [`SETTING_NAMES`]) with `value`; the error names both.
    pub fn parse(name: &str, value: &str) -> Result<LevelSetting, String> {
        let number = |low: u32, high: u32| -> Result<u32, String> {
            value
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (low..=high).contains(n))
                .ok_or_else(|| {
                    format!("bad {name} '{value}': expected a whole number from {low} to {high}")
                })
        };
        let eval = || value.trim().parse::<EvaluatorKind>();
        Ok(match name {
            "level" if value.trim() == "default" => LevelSetting::DefaultLevel,
            "level" => LevelSetting::Level(number(1, MAX_LEVEL).map_err(|e| e + " or 'default'")?),
            "opening-moves" => LevelSetting::OpeningMoves(number(0, MAX_EMPTIES)?),
            "opening-depth" => LevelSetting::OpeningDepth(number(1, MAX_EMPTIES)?),
            "opening-eval" => LevelSetting::OpeningEval(eval()?),
            "midgame-depth" => LevelSetting::MidgameDepth(number(1, MAX_EMPTIES)?),
            "midgame-eval" => LevelSetting::MidgameEval(eval()?),
            "endgame-empties" => LevelSetting::EndgameEmpties(number(0, MAX_EMPTIES)?),
            "endgame-mode" => LevelSetting::EndgameMode(value.trim().parse()?),
            "selectivity" => LevelSetting::Selectivity(value.parse()?),
            _ => {
                return Err(format!(
                    "unknown setting '{name}' (known: {})",
                    SETTING_NAMES.join(", ")
                ));
            }
        })
    }
}

impl Levels {
    /// Preset `level` (1..=MAX_LEVEL): midgame depth `level`, opening depth `min(level, 6)`,
    /// the trained `pattern` evaluator, and an exact solve from `level + 10` empties (at most 24)
    /// for levels 4 and up; below that `2 x level + 2` empties.
    pub fn preset(level: u32) -> Option<Levels> {
        if !(1..=MAX_LEVEL).contains(&level) {
            return None;
        }
        let endgame_empties = if level >= 4 {
            (level + 10).min(24)
        } else {
            2 * level + 2
        };
        Some(Levels {
            opening_moves: 6,
            opening: PhaseLevel {
                depth: level.min(6),
                eval: EvaluatorKind::Pattern,
            },
            midgame: PhaseLevel {
                depth: level,
                eval: EvaluatorKind::Pattern,
            },
            endgame_empties,
            endgame_mode: EndgameMode::Exact,
            selectivity: PRESET_SELECTIVITY,
            time_decides: false,
        })
    }

    /// These settings searched `depth` plies deep in the opening and the midgame, with the
    /// endgame solved from the empties of preset `depth` (from `depth` empties beyond the
    /// presets), the evaluators and modes kept: what NBoard's `set depth` asks for.
    pub fn with_depth(&self, depth: u32) -> Option<Levels> {
        if depth > MAX_EMPTIES {
            return None;
        }
        let preset = Levels::preset(depth.min(MAX_LEVEL))?;
        let mut levels = *self;
        levels.time_decides = false;
        levels.opening.depth = depth;
        levels.midgame.depth = depth;
        levels.endgame_empties = if depth > MAX_LEVEL {
            preset.endgame_empties.max(depth)
        } else {
            preset.endgame_empties
        };
        Some(levels)
    }

    /// The phase of `position`.
    pub fn phase(&self, position: &Position) -> Phase {
        let empties = position.empty_count();
        let played = MAX_EMPTIES.saturating_sub(empties);
        if empties <= self.endgame_empties {
            Phase::Endgame
        } else if played < self.opening_moves {
            Phase::Opening
        } else {
            Phase::Midgame
        }
    }

    /// The search settings of a searched phase (the midgame's for the endgame).
    pub fn phase_level(&self, phase: Phase) -> PhaseLevel {
        match phase {
            Phase::Opening => self.opening,
            Phase::Midgame | Phase::Endgame => self.midgame,
        }
    }

    /// Applies one setting; `level` replaces all of them by its preset. A level, a depth or a
    /// solve point ends [`Levels::time_decides`]: what the user set binds.
    pub fn apply(&mut self, setting: LevelSetting) {
        if matches!(
            setting,
            LevelSetting::Level(_)
                | LevelSetting::OpeningDepth(_)
                | LevelSetting::MidgameDepth(_)
                | LevelSetting::EndgameEmpties(_)
        ) {
            self.time_decides = false;
        }
        match setting {
            LevelSetting::Level(level) => *self = Levels::preset(level).unwrap_or(*self),
            LevelSetting::DefaultLevel => *self = Levels::default(),
            LevelSetting::OpeningMoves(n) => self.opening_moves = n,
            LevelSetting::OpeningDepth(d) => self.opening.depth = d,
            LevelSetting::OpeningEval(e) => self.opening.eval = e,
            LevelSetting::MidgameDepth(d) => self.midgame.depth = d,
            LevelSetting::MidgameEval(e) => self.midgame.eval = e,
            LevelSetting::EndgameEmpties(n) => self.endgame_empties = n,
            LevelSetting::EndgameMode(m) => self.endgame_mode = m,
            LevelSetting::Selectivity(s) => self.selectivity = s,
        }
    }

    /// Sets one setting by name (see [`SETTING_NAMES`]); a bad name or value changes nothing.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.apply(LevelSetting::parse(name, value)?);
        Ok(())
    }
}

impl fmt::Display for Levels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}opening: {} moves at depth {} ({}); midgame: depth {} ({}); selectivity {}; endgame: {} solve from {} empties",
            if self.time_decides {
                "under a clock, the time decides depth and solve; without: "
            } else {
                ""
            },
            self.opening_moves,
            self.opening.depth,
            self.opening.eval,
            self.midgame.depth,
            self.midgame.eval,
            self.selectivity,
            self.endgame_mode,
            self.endgame_empties
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Move;

    #[test]
    fn phases_follow_the_move_number_and_empties() {
        let mut levels = Levels::default();
        levels.set("opening-moves", "2").unwrap();
        levels.set("endgame-empties", "55").unwrap();
        levels.set("opening-eval", "weighted").unwrap();
        levels.set("midgame-depth", "7").unwrap();
        let mut p = Position::start();
        assert_eq!(levels.phase(&p), Phase::Opening);
        assert_eq!(
            levels.phase_level(Phase::Opening).eval,
            EvaluatorKind::Weighted
        );
        for mv in ["f5", "d6"] {
            p = p.play(mv.parse::<Move>().unwrap()).unwrap();
        }
        assert_eq!(levels.phase(&p), Phase::Midgame);
        assert_eq!(levels.phase_level(Phase::Midgame).depth, 7);
        for mv in ["c3", "d3", "c4"] {
            p = p.play(mv.parse::<Move>().unwrap()).unwrap();
        }
        assert_eq!(p.empty_count(), 55);
        assert_eq!(levels.phase(&p), Phase::Endgame);
    }

    #[test]
    fn the_default_evaluates_with_the_network_and_the_presets_with_patterns() {
        let default = Levels::default();
        assert_eq!(default.opening.eval, EvaluatorKind::Neural);
        assert_eq!(default.midgame.eval, EvaluatorKind::Neural);
        for level in 1..=MAX_LEVEL {
            let preset = Levels::preset(level).unwrap();
            assert_eq!(preset.midgame.eval, EvaluatorKind::Pattern, "level {level}");
        }
        let set_depth = default.with_depth(8).unwrap();
        assert_eq!(set_depth.midgame.eval, EvaluatorKind::Neural);
    }

    #[test]
    fn a_depth_sets_every_phase_and_keeps_the_evaluators() {
        let mut base = Levels::default();
        base.set("midgame-eval", "pattern").unwrap();
        base.set("opening-eval", "weighted").unwrap();
        for depth in [1, 8, 20, 30] {
            let levels = base.with_depth(depth).unwrap();
            assert_eq!((levels.opening.depth, levels.midgame.depth), (depth, depth));
            assert_eq!(levels.midgame.eval, EvaluatorKind::Pattern);
            assert_eq!(levels.opening.eval, EvaluatorKind::Weighted);
        }
        assert_eq!(base.with_depth(30).map(|l| l.endgame_empties), Some(30));
        assert_eq!(base.with_depth(12).map(|l| l.endgame_empties), Some(22));
        assert!(base.with_depth(0).is_none() && base.with_depth(61).is_none());
    }

    #[test]
    fn random_is_a_policy_that_searches_with_classic() {
        let random = PhaseLevel {
            depth: 4,
            eval: EvaluatorKind::Random,
        };
        assert_eq!(random.play(), Play::Random);
        assert_eq!(random.search_evaluator(), EvaluatorKind::Classic);
        let pattern = PhaseLevel {
            eval: EvaluatorKind::Pattern,
            ..random
        };
        assert_eq!(pattern.play(), Play::Search(EvaluatorKind::Pattern));
        assert_eq!(pattern.search_evaluator(), EvaluatorKind::Pattern);
    }

    #[test]
    fn bad_settings_are_refused_and_change_nothing() {
        let mut levels = Levels::default();
        let before = levels;
        assert!(levels.set("midgame-depth", "-2").is_err());
        assert!(levels.set("midgame-depth", "0").is_err());
        assert!(levels.set("midgame-eval", "nonsense").is_err());
        assert!(levels.set("endgame-mode", "maybe").is_err());
        assert!(levels.set("level", "99").is_err());
        assert!(levels.set("colour", "red").is_err());
        assert!(levels.set("selectivity", "90").is_err());
        assert_eq!(levels, before);
        levels.set("level", "3").unwrap();
        assert_eq!(levels.midgame.depth, 3);
        assert!(!levels.time_decides);
        levels.set("level", "default").unwrap();
        assert_eq!(levels, before);
    }
}
