//! The instruction level the engine runs at, chosen once at start: the highest of x86-64-v2
//! (the build's baseline), v3 (AVX2, BMI1/2, LZCNT) and v4 (AVX-512) that the CPU runs, or a
//! lower one forced with `OTHELLO_CPU_LEVEL` (`v2`, `v3`, `v4`) for tests and bug reports.
//! The move generator, the flips, the evaluation's gathers and the solver's copies all ask
//! [`level`], so a forced level runs the same code a CPU of that level would.

use std::sync::OnceLock;

/// The environment variable that forces a level.
pub const LEVEL_VARIABLE: &str = "OTHELLO_CPU_LEVEL";

/// An x86-64 micro-architecture level (other CPUs are always [`Level::V2`], their baseline).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    V2,
    V3,
    V4,
}

impl Level {
    /// The level's name, as `--version` shows it.
    pub fn name(self) -> &'static str {
        if cfg!(not(target_arch = "x86_64")) {
            return std::env::consts::ARCH;
        }
        match self {
            Level::V2 => "x86-64-v2",
            Level::V3 => "x86-64-v3",
            Level::V4 => "x86-64-v4",
        }
    }

    fn parse(text: &str) -> Option<Level> {
        match text
            .trim()
            .to_ascii_lowercase()
            .trim_start_matches("x86-64-")
        {
            "v2" => Some(Level::V2),
            "v3" => Some(Level::V3),
            "v4" => Some(Level::V4),
            _ => None,
        }
    }
}

/// The highest level this CPU runs.
pub fn detected() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let v3 = has!("avx2") && has!("bmi1") && has!("bmi2") && has!("lzcnt") && has!("popcnt");
        let v4 = has!("avx512f")
            && has!("avx512vl")
            && has!("avx512bw")
            && has!("avx512dq")
            && has!("avx512cd");
        if v3 && v4 {
            return Level::V4;
        }
        if v3 {
            return Level::V3;
        }
    }
    Level::V2
}

/// The level asked for in [`LEVEL_VARIABLE`], checked against the CPU: `Ok(None)` when none is
/// asked, an error naming what is wrong when the value is unknown or the CPU lacks the level.
pub fn forced() -> Result<Option<Level>, String> {
    let Ok(text) = std::env::var(LEVEL_VARIABLE) else {
        return Ok(None);
    };
    let level = Level::parse(&text)
        .ok_or_else(|| format!("{LEVEL_VARIABLE}={text}: unknown level (expected v2, v3 or v4)"))?;
    let cpu = detected();
    if level > cpu {
        return Err(format!(
            "{LEVEL_VARIABLE}={text}: this CPU runs {} at most ({} needs {})",
            cpu.name(),
            level.name(),
            if level == Level::V4 {
                "AVX-512 F, VL, BW, DQ and CD"
            } else {
                "AVX2, BMI1, BMI2 and LZCNT"
            }
        ));
    }
    Ok(Some(level))
}

/// The level the engine runs at: the forced one if valid, else the CPU's (the binary's start
/// refuses a bad forced level before anything asks, see `cli`).
pub fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| forced().ok().flatten().unwrap_or_else(detected))
}

/// The compiled copies of the hot paths (perft, the midgame search, the solver): each is
/// built once per instruction set and the copy chosen here runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub enum Isa {
    /// The build's own target.
    Baseline,
    /// x86-64 with AVX2, BMI1/2 and LZCNT (x86-64-v3).
    Avx2,
    /// x86-64-v3 with AVX-512 F, VL, BW, DQ and CD (x86-64-v4), and GFNI.
    Avx512,
}

impl Isa {
    /// This instruction set and every one below it, the baseline first (for tests).
    #[cfg(test)]
    pub fn with_lesser(self) -> Vec<Isa> {
        let all = [Isa::Baseline, Isa::Avx2, Isa::Avx512];
        all[..=all.iter().position(|&isa| isa == self).unwrap_or(0)].to_vec()
    }
}

/// The copy for the level the engine runs at ([`level`]), decided once. GFNI (not part of
/// x86-64-v4, but on every AVX-512 CPU since Ice Lake and Zen 4) turns the flips' bit
/// reversals into one instruction; without it the AVX2 copy is the faster one.
pub fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| match level() {
        #[cfg(target_arch = "x86_64")]
        Level::V4 if std::arch::is_x86_feature_detected!("gfni") => Isa::Avx512,
        Level::V4 | Level::V3 => Isa::Avx2,
        Level::V2 => Isa::Baseline,
    })
}

/// The version as `--version` and GTP's `version` give it: the crate's version, the commit and
/// target the binary was built from and for, and the level it runs at, e.g.
/// `0.1.0 (commit 1a2b3c4d5e6f, x86_64-unknown-linux-gnu, x86-64-v4)`.
pub fn version_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let forced = if matches!(forced(), Ok(Some(_))) {
            ", forced"
        } else {
            ""
        };
        format!(
            "{} (commit {}, {}, {}{forced})",
            env!("CARGO_PKG_VERSION"),
            env!("OTHELLO_COMMIT"),
            env!("OTHELLO_TARGET"),
            level().name()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_read_in_both_spellings_and_ordered() {
        assert_eq!(Level::parse("v3"), Some(Level::V3));
        assert_eq!(Level::parse("x86-64-V4"), Some(Level::V4));
        assert_eq!(Level::parse("v5"), None);
        assert!(Level::V2 < Level::V3 && Level::V3 < Level::V4);
        assert!(level() <= detected());
    }
}
