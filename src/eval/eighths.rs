//! Pattern weights in eighths of a disc, one byte each: the one rounding rule from the
//! hundredths the weight files hold to the eighths the evaluation reads, and the conversion of
//! a weights file (`OEPATW02`, hundredths) into the eighths format (`OEPATW03`).
//!
//! The web page embeds its weights in the eighths format, which deflates to about half the
//! size of the hundredths, and reads the same eighths as a native build: the search is the
//! same to the node. The build script converts the data files for a wasm32 build; it includes
//! this file (`#[path]`), so it uses nothing but std and flate2 (the symmetrization it needs
//! comes in as an argument, from `shapes.rs`, which the build script includes as well).

use flate2::Compression;
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use std::io::{Read, Write};

/// Hundredths of a disc per eighth, as a fraction: 25 / 2.
pub const QUANTUM: (i32, i32) = (25, 2);

/// The magic of the format in hundredths, the one converted from.
pub const MAGIC_HUNDREDTHS: &[u8; 8] = b"OEPATW02";
/// The magic of the format in eighths: the same 20-byte header as `OEPATW02` (the magic, then
/// the stages, empties per stage and flags as u32 little endian), then the weights as i8
/// eighths of a disc, deflated (zlib).
pub const MAGIC_EIGHTHS: &[u8; 8] = b"OEPATW03";
/// The length of the header both formats share.
pub const HEADER: usize = 20;

/// A weight in hundredths of a disc as eighths, rounded to nearest (halves away from zero),
/// clamped to one byte.
pub fn eighths(hundredths: i16) -> i8 {
    let rounded = (f64::from(hundredths) * f64::from(QUANTUM.1) / f64::from(QUANTUM.0)).round();
    rounded.clamp(-127.0, 127.0) as i8
}

/// An `OEPATW02` file's bytes converted to the `OEPATW03` format: the same header with the
/// magic changed, each weight through [`eighths`] after `symmetrize` (`symmetrize_patterns`
/// of `shapes.rs`) has made each stage's weights agree as a reader makes them agree, since
/// rounding and averaging do not commute: the eighths are the very ones a reader of the
/// `OEPATW02` file evaluates with. For the engine's own files (the build script's): a stage
/// shorter than the patterns makes `symmetrize` panic.
// The build script's; the crate itself only tests it.
#[cfg_attr(not(test), allow(dead_code))]
pub fn to_eighths_file(bytes: &[u8], symmetrize: fn(&mut [i16])) -> Result<Vec<u8>, String> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC_HUNDREDTHS {
        return Err("not an OEPATW02 pattern weights file".to_string());
    }
    let stages = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    let mut body = Vec::new();
    ZlibDecoder::new(&bytes[HEADER..])
        .read_to_end(&mut body)
        .map_err(|e| format!("pattern weights file is corrupt: {e}"))?;
    let count = body.len() / 2;
    if body.len() % 2 != 0 || stages == 0 || count == 0 || count % stages != 0 {
        return Err(format!(
            "pattern weights file holds {} bytes of weights, not {stages} stages of i16",
            body.len()
        ));
    }
    let mut weights: Vec<i16> = body
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    for stage in weights.chunks_exact_mut(count / stages) {
        symmetrize(stage);
    }
    let quantized: Vec<u8> = weights.iter().map(|&w| eighths(w) as u8).collect();
    let mut head = MAGIC_EIGHTHS.to_vec();
    head.extend_from_slice(&bytes[8..HEADER]);
    let mut encoder = ZlibEncoder::new(head, Compression::best());
    // Writing to a vector cannot fail.
    encoder
        .write_all(&quantized)
        .expect("deflating into memory");
    Ok(encoder.finish().expect("deflating into memory"))
}
