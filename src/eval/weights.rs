//! The pattern weights: the table type ([`PatternWeights`]: its stages and layout, and the
//! one-byte copy the evaluation reads), its file format and the built-in weight sets. Reading
//! and writing weight files is a concern of its own, apart from scoring with the weights
//! (`pattern.rs`, which takes the tables from here; nothing here knows of scoring).
//!
//! Weight files start with a magic that names their version: `OEPATW01` (the WTHOR weights,
//! raw), `OEPATW02` (stages, counts and shapes in the header, the weights deflated) and
//! `OEPATW03` (`OEPATW02` in eighths of a disc, one byte each: the web build's; see
//! `eighths.rs`).

use super::eighths::{self, HEADER, MAGIC_EIGHTHS, QUANTUM};
use super::features::{
    COUNT_WEIGHTS, Counts, JOINT_WEIGHTS, PATTERNS_END, SHORT_DIAGONAL_WEIGHTS, Shapes,
    symmetrize_patterns,
};
use flate2::Compression;
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use std::io::{Read, Write};
use std::sync::{LazyLock, OnceLock};

/// Weight tables for every stage, in hundredths of a disc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternWeights {
    /// The number of stages; a position's stage is its empties divided by `stage_empties`.
    pub(super) stages: usize,
    pub(super) stage_empties: usize,
    /// The stage of each empties count (a division per evaluation costs more than a load).
    pub(super) stage_by_empties: [u8; 65],
    /// The count features after the patterns; every layout with counts keeps room for all.
    pub(super) counts: Counts,
    /// The shapes read; the weights of the others stay zero.
    pub(super) shapes: Shapes,
    /// Weights per stage: the bias, the shape tables, then the counts if any.
    pub(super) stage_size: usize,
    pub(super) weights: Vec<i16>,
    /// The weights the evaluation reads: eighths of a disc in one byte each, so that a
    /// stage's tables take half the cache (evaluation waits on these loads more than on
    /// anything else). The 0.06-disc rounding is far below the evaluation's error.
    pub(super) quantized: Vec<i8>,
}

/// Zero weights after the last stage, so that a stage's table read with any 16-bit index
/// past any placement's start stays inside the vector (see `lookup_sum` in `pattern.rs`).
pub(super) const INDEX_SLACK: usize = 1 << 16;

/// The stage of each empties count 0 to 64: `empties / stage_empties`, at most the last.
fn stage_table(stages: usize, stage_empties: usize) -> [u8; 65] {
    std::array::from_fn(|empties| (empties / stage_empties).min(stages - 1) as u8)
}

/// `weights` (hundredths of a disc) in eighths of a disc, clamped to one byte.
fn quantize(weights: &[i16]) -> Vec<i8> {
    weights.iter().map(|&w| eighths::eighths(w)).collect()
}

/// A weight in eighths of a disc as hundredths, rounded: [`eighths::eighths`] takes it back
/// to the same eighths (the two differ by at most half a hundredth, 0.04 of an eighth).
fn hundredths(eighths: i8) -> i16 {
    (f64::from(eighths) * f64::from(QUANTUM.0) / f64::from(QUANTUM.1)).round() as i16
}

/// All the weights quantized, with the slack after the last stage.
fn quantize_all(weights: &[i16]) -> Vec<i8> {
    let mut out = quantize(weights);
    out.resize(weights.len() + INDEX_SLACK, 0);
    out
}

impl PatternWeights {
    /// All-zero weights with one stage per `stage_empties` empties (1 to 60; the last stage
    /// also takes the remainder), the count features `counts`, and the pattern shapes
    /// `shapes`.
    pub fn zeros_with(stage_empties: usize, counts: Counts, shapes: Shapes) -> PatternWeights {
        let stage_empties = stage_empties.clamp(1, 60);
        let stages = 60 / stage_empties;
        let stage_size = PATTERNS_END
            + match counts {
                Counts::None => 0,
                Counts::Parity | Counts::Potential | Counts::All => COUNT_WEIGHTS,
                Counts::Joint => COUNT_WEIGHTS + JOINT_WEIGHTS,
            };
        PatternWeights {
            stages,
            stage_empties,
            stage_by_empties: stage_table(stages, stage_empties),
            counts,
            shapes,
            stage_size,
            weights: vec![0; stages * stage_size],
            quantized: vec![0; stages * stage_size + INDEX_SLACK],
        }
    }

    /// The number of stages.
    pub fn stages(&self) -> usize {
        self.stages
    }

    /// The number of weights per stage.
    pub fn stage_size(&self) -> usize {
        self.stage_size
    }

    /// The stage of a position with `empties` empty squares.
    #[inline]
    pub fn stage_of(&self, empties: u32) -> usize {
        usize::from(self.stage_by_empties[(empties as usize).min(64)])
    }

    /// The empties a stage covers, first and last.
    pub fn stage_empties(&self, stage: usize) -> (usize, usize) {
        let first = stage * self.stage_empties;
        let last = if stage + 1 == self.stages {
            64
        } else {
            first + self.stage_empties - 1
        };
        (first, last)
    }

    /// Sets one stage's weights from discs.
    pub fn set_stage(&mut self, stage: usize, discs: &[f32]) {
        let range = stage * self.stage_size..(stage + 1) * self.stage_size;
        for (slot, w) in self.weights[range.clone()].iter_mut().zip(discs) {
            *slot = (w * 100.0).round().clamp(-32000.0, 32000.0) as i16;
        }
        symmetrize_patterns(&mut self.weights[range.clone()]);
        self.clear_unread(stage);
        let quantized = quantize(&self.weights[range.clone()]);
        self.quantized[range].copy_from_slice(&quantized);
    }

    /// Zeroes one stage's weights of the shapes the layout does not read, so that the scores
    /// from scratch (which read every placement) equal the incremental ones.
    fn clear_unread(&mut self, stage: usize) {
        if self.shapes == Shapes::Lean {
            let start = stage * self.stage_size;
            self.weights[start + SHORT_DIAGONAL_WEIGHTS.start..start + SHORT_DIAGONAL_WEIGHTS.end]
                .fill(0);
        }
    }
}

/// The phases of the `pattern-wthor` weights, and their width in empties.
const WTHOR_PHASES: usize = 11;
const WTHOR_PHASE_EMPTIES: usize = 6;

/// The magic of the raw format of the WTHOR weights.
const MAGIC_V1: &[u8; 8] = b"OEPATW01";
/// The magic of the current format.
pub const MAGIC: &[u8; 8] = eighths::MAGIC_HUNDREDTHS;
/// The flags of a weights file for each set of count features: bit 0 says count features
/// follow the patterns, bit 1 that mobility is not among them, bit 2 that potential mobility
/// is not either, bit 5 that the joint counts follow them.
const COUNT_FLAGS: [(Counts, usize); 5] = [
    (Counts::None, 0),
    (Counts::All, 1),
    (Counts::Joint, 33),
    (Counts::Potential, 3),
    (Counts::Parity, 7),
];
/// The flag of a weights file whose layout leaves out the short diagonals ([`Shapes::Lean`]).
const LEAN_FLAG: usize = 8;
/// No weights file holds more than this (a guard against absurd headers).
const MAX_WEIGHTS: usize = 1 << 26;

/// Every stage's pattern weights made to agree between mirror-image readings of a shape (see
/// [`symmetrize_patterns`]): weights are trained per index, and a shape that a symmetry maps
/// onto itself is stored in one reading order only.
fn symmetrize(weights: &mut [i16], stage_size: usize) {
    for stage in weights.chunks_exact_mut(stage_size) {
        symmetrize_patterns(stage);
    }
}

impl PatternWeights {
    /// Weights from a file: the current format, the same in eighths of a disc, or the raw
    /// WTHOR format.
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternWeights, String> {
        if bytes.len() >= 8 && &bytes[..8] == MAGIC_V1 {
            return Self::from_v1(bytes);
        }
        let in_eighths = bytes.len() >= HEADER && &bytes[..8] == MAGIC_EIGHTHS;
        if bytes.len() < HEADER || (&bytes[..8] != MAGIC && !in_eighths) {
            return Err("not a pattern weights file (bad magic)".to_string());
        }
        let read_u32 = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
        };
        let (stages, stage_empties, flags) = (read_u32(8), read_u32(12), read_u32(16));
        let counts = COUNT_FLAGS
            .iter()
            .find(|c| c.1 == flags & !LEAN_FLAG)
            .map(|c| c.0);
        let shapes = if flags & LEAN_FLAG != 0 {
            Shapes::Lean
        } else {
            Shapes::All
        };
        let stages_known = (1..=60).contains(&stage_empties) && stages == 60 / stage_empties;
        let (Some(counts), true) = (counts, stages_known) else {
            return Err(format!(
                "pattern weights for {stages} stages of {stage_empties} empties (flags {flags}): \
                 not a layout this build reads"
            ));
        };
        let expected = PatternWeights::zeros_with(stage_empties, counts, shapes);
        let width = if in_eighths { 1 } else { 2 };
        let want = stages * expected.stage_size * width;
        let mut body = Vec::with_capacity(want);
        ZlibDecoder::new(&bytes[HEADER..])
            .take(MAX_WEIGHTS as u64 * 2)
            .read_to_end(&mut body)
            .map_err(|e| format!("pattern weights file is corrupt: {e}"))?;
        if body.len() != want {
            return Err(format!(
                "pattern weights file holds {} bytes of weights, expected {want}",
                body.len()
            ));
        }
        let mut weights: Vec<i16> = if in_eighths {
            body.iter().map(|&b| hundredths(b as i8)).collect()
        } else {
            body.chunks_exact(2)
                .map(|b| i16::from_le_bytes([b[0], b[1]]))
                .collect()
        };
        symmetrize(&mut weights, expected.stage_size);
        let mut out = PatternWeights {
            weights,
            ..expected
        };
        for stage in 0..stages {
            out.clear_unread(stage);
        }
        // From eighths, these are the file's eighths (symmetric, as `eighths::to_eighths_file`
        // makes them): hundredths of eighths round back to them.
        out.quantized = quantize_all(&out.weights);
        Ok(out)
    }

    /// The raw format: the magic, the number of phases and the weights per phase (u32 little
    /// endian), then the weights as i16 little endian.
    fn from_v1(bytes: &[u8]) -> Result<PatternWeights, String> {
        if bytes.len() < 16 {
            return Err("pattern weights file is truncated".to_string());
        }
        let read_u32 = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
        };
        let (phases, size) = (read_u32(8), read_u32(12));
        if phases != WTHOR_PHASES || size != PATTERNS_END {
            return Err(format!(
                "pattern weights for {phases} phases of {size} weights; this build reads \
                 {WTHOR_PHASES} of {}",
                PATTERNS_END
            ));
        }
        let body = &bytes[16..];
        if body.len() != phases * size * 2 {
            return Err(format!(
                "pattern weights file holds {} bytes of weights, expected {}",
                body.len(),
                phases * size * 2
            ));
        }
        let mut weights: Vec<i16> = body
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        symmetrize(&mut weights, size);
        Ok(PatternWeights {
            stages: phases,
            stage_empties: WTHOR_PHASE_EMPTIES,
            stage_by_empties: stage_table(phases, WTHOR_PHASE_EMPTIES),
            counts: Counts::None,
            shapes: Shapes::All,
            stage_size: size,
            quantized: quantize_all(&weights),
            weights,
        })
    }

    /// The current format: [`MAGIC`], the stages, empties per stage and flags (bit 0: count
    /// features, bit 1: without mobility, bit 2: without potential mobility, bit 3: without the
    /// short diagonals, bit 5: the joint counts) as u32 little endian, then the weights as i16
    /// little endian, deflated (zlib).
    pub fn to_bytes(&self) -> Vec<u8> {
        let (head, raw) = self.header_and_values();
        let mut encoder = ZlibEncoder::new(head, Compression::best());
        // Writing to a vector cannot fail.
        encoder.write_all(&raw).expect("deflating into memory");
        encoder.finish().expect("deflating into memory")
    }

    /// [`PatternWeights::to_bytes`] before the weights are deflated: what the weights are,
    /// whatever the compressor makes of them, so the same weights always give these bytes.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let (mut out, raw) = self.header_and_values();
        out.extend_from_slice(&raw);
        out
    }

    fn header_and_values(&self) -> (Vec<u8>, Vec<u8>) {
        let mut out = MAGIC.to_vec();
        let flags = COUNT_FLAGS
            .iter()
            .find(|c| c.0 == self.counts)
            .map_or(0, |c| c.1)
            | if self.shapes == Shapes::Lean {
                LEAN_FLAG
            } else {
                0
            };
        for n in [self.stages, self.stage_empties, flags] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        let raw: Vec<u8> = self.weights.iter().flat_map(|w| w.to_le_bytes()).collect();
        (out, raw)
    }
}

/// The `pattern` weights built into the engine (`data/pattern-weights.bin`; in a wasm32 build,
/// the same in eighths of a disc, which the build script converts: the page's download is
/// smaller, its search the same).
pub(super) static BUILT_IN: LazyLock<PatternWeights> = LazyLock::new(|| {
    #[cfg(not(target_arch = "wasm32"))]
    let bytes = include_bytes!("../../data/pattern-weights.bin");
    #[cfg(target_arch = "wasm32")]
    let bytes = include_bytes!(concat!(env!("OUT_DIR"), "/pattern-weights.bin"));
    PatternWeights::from_bytes(bytes)
        .unwrap_or_else(|e| panic!("the built-in pattern weights are broken: {e}"))
});

/// The `pattern-full` weights built into the engine (`data/pattern-full-weights.bin`; in a
/// wasm32 build, in eighths, as [`BUILT_IN`]).
pub(super) static FULL: LazyLock<PatternWeights> = LazyLock::new(|| {
    #[cfg(not(target_arch = "wasm32"))]
    let bytes = include_bytes!("../../data/pattern-full-weights.bin");
    #[cfg(target_arch = "wasm32")]
    let bytes = include_bytes!(concat!(env!("OUT_DIR"), "/pattern-full-weights.bin"));
    PatternWeights::from_bytes(bytes)
        .unwrap_or_else(|e| panic!("the built-in full pattern weights are broken: {e}"))
});

/// The `pattern-wthor` weights built into the engine (`data/pattern-wthor-weights.bin`).
pub(super) static WTHOR: LazyLock<PatternWeights> = LazyLock::new(|| {
    PatternWeights::from_bytes(include_bytes!("../../data/pattern-wthor-weights.bin"))
        .unwrap_or_else(|e| panic!("the built-in WTHOR pattern weights are broken: {e}"))
});

/// Weights given with `--weights`, which replace the built-in ones for the whole process.
pub(super) static LOADED: OnceLock<PatternWeights> = OnceLock::new();

/// Makes `weights` the weights of `pattern` for the rest of the process. Call before any
/// search; fails if weights were already set.
pub fn use_weights(weights: PatternWeights) -> Result<(), String> {
    LOADED
        .set(weights)
        .map_err(|_| "pattern weights were already loaded".to_string())
}

/// The weights `pattern` uses: those loaded with [`use_weights`], else the built-in ones.
#[inline]
pub fn active_weights() -> &'static PatternWeights {
    LOADED.get().unwrap_or_else(|| &BUILT_IN)
}

/// The weights `pattern-full` uses.
pub fn full_weights() -> &'static PatternWeights {
    &FULL
}

/// The weights `pattern-wthor` uses.
pub fn wthor_weights() -> &'static PatternWeights {
    &WTHOR
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weights of 4 empties a stage, all zero but stage 3, whose weights run over
    /// `period` tenths of a disc around zero.
    fn one_stage_set(counts: Counts, shapes: Shapes, period: usize) -> PatternWeights {
        let mut weights = PatternWeights::zeros_with(4, counts, shapes);
        let discs: Vec<f32> = (0..weights.stage_size())
            .map(|i| (i % period) as f32 / 10.0 - (period / 20) as f32)
            .collect();
        weights.set_stage(3, &discs);
        weights
    }

    #[test]
    fn weights_round_trip_through_bytes_and_bad_files_are_refused() {
        let weights = one_stage_set(Counts::All, Shapes::All, 101);
        let bytes = weights.to_bytes();
        assert_eq!(PatternWeights::from_bytes(&bytes).as_ref(), Ok(&weights));
        assert!(PatternWeights::from_bytes(b"nonsense").is_err());
        assert!(PatternWeights::from_bytes(&bytes[..bytes.len() / 2]).is_err());
        let mut wrong_stages = bytes.clone();
        wrong_stages[8] ^= 1;
        assert!(PatternWeights::from_bytes(&wrong_stages).is_err());
        let mut garbage = bytes[..20].to_vec();
        garbage.extend_from_slice(&[0xff; 100]);
        assert!(PatternWeights::from_bytes(&garbage).is_err());
    }

    #[test]
    fn eighths_and_hundredths_convert_back_and_forth() {
        for e in -127..=127i8 {
            assert_eq!(eighths::eighths(hundredths(e)), e, "{e} eighths");
        }
        assert_eq!(eighths::eighths(i16::MAX), 127);
        assert_eq!(eighths::eighths(i16::MIN), -127);
    }

    #[test]
    fn built_in_weights_in_eighths_search_alike() {
        // The web build embeds these files in eighths (build.rs): read back, they must give the
        // evaluation the very table a native build reads, so the page's searches are the
        // native ones to the node.
        let files: [(&[u8], &PatternWeights); 2] = [
            (include_bytes!("../../data/pattern-weights.bin"), &BUILT_IN),
            (include_bytes!("../../data/pattern-full-weights.bin"), &FULL),
        ];
        for (file, native) in files {
            let converted = eighths::to_eighths_file(file, symmetrize_patterns).unwrap();
            assert_eq!(&converted[..8], MAGIC_EIGHTHS);
            assert!(converted.len() < file.len(), "{} bytes", converted.len());
            let read = PatternWeights::from_bytes(&converted).unwrap();
            assert!(read.quantized == native.quantized);
            assert_eq!(
                (read.stages, read.stage_empties, read.counts, read.shapes),
                (
                    native.stages,
                    native.stage_empties,
                    native.counts,
                    native.shapes
                )
            );
            assert_eq!(read.stage_size, native.stage_size);
            assert_eq!(read.stage_by_empties, native.stage_by_empties);
        }
    }

    #[test]
    fn weights_in_eighths_read_back_and_bad_files_are_refused() {
        let weights = one_stage_set(Counts::Joint, Shapes::Lean, 301);
        let bytes = eighths::to_eighths_file(&weights.to_bytes(), symmetrize_patterns).unwrap();
        let read = PatternWeights::from_bytes(&bytes).unwrap();
        assert!(read.quantized == weights.quantized);
        for (&w, &r) in weights.weights.iter().zip(&read.weights) {
            let clamped = w.clamp(hundredths(-127), hundredths(127));
            assert!((clamped - r).abs() <= 7, "{w} read back as {r}");
        }
        // Truncated anywhere: in the header, or in the deflated weights.
        for len in [8, 19, 20, 30, bytes.len() / 2, bytes.len() - 1] {
            assert!(PatternWeights::from_bytes(&bytes[..len]).is_err(), "{len}");
        }
        // Corrupt deflate stream.
        let mut corrupt = bytes.clone();
        for b in &mut corrupt[22..60] {
            *b ^= 0x5a;
        }
        assert!(PatternWeights::from_bytes(&corrupt).is_err());
        let mut garbage = bytes[..20].to_vec();
        garbage.extend_from_slice(&[0xff; 100]);
        assert!(PatternWeights::from_bytes(&garbage).is_err());
        // Well deflated, but one weight too many or too few for the header's layout.
        for extra in [-1, 1] {
            let count = (weights.weights.len() as i64 + extra) as usize;
            let mut encoder = ZlibEncoder::new(bytes[..20].to_vec(), Compression::best());
            encoder.write_all(&vec![1u8; count]).unwrap();
            let wrong = encoder.finish().unwrap();
            assert!(PatternWeights::from_bytes(&wrong).is_err(), "{extra}");
        }
        // A layout this build does not read.
        let mut wrong_stages = bytes.clone();
        wrong_stages[8] ^= 1;
        assert!(PatternWeights::from_bytes(&wrong_stages).is_err());
        // The conversion refuses what is not a whole OEPATW02 file.
        let hundredths_file = weights.to_bytes();
        assert!(eighths::to_eighths_file(&bytes, symmetrize_patterns).is_err());
        assert!(eighths::to_eighths_file(&hundredths_file[..10], symmetrize_patterns).is_err());
        assert!(
            eighths::to_eighths_file(
                &hundredths_file[..hundredths_file.len() / 2],
                symmetrize_patterns
            )
            .is_err()
        );
    }
}
