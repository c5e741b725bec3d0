//! The network file: gzip around a little-endian body. The header names the shape and the
//! input layout, so that a file of another architecture is refused by name rather than read
//! as garbage; rows that a shape's own symmetries make equal are stored once.
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | [`NETWORK_MAGIC`] (16-bit rows) or [`NETWORK_MAGIC_I8`] (8-bit rows) |
//! | 4 × 6 | width, hidden, buckets, rows a bucket, inputs, rows stored a bucket |
//! | 2 each (1 each) | the stored rows (`i16`; `i8`), bucket by bucket |
//! | (2 each) | (8-bit rows only: each bucket's row bias, `i16`) |
//! | 2 each | the dense layer (`i16`) |
//! | 4 each | the dense biases (`i32`) |
//! | 2 each | the output layer (`i16`) |
//! | 4 each | the output biases (`i32`) |

use super::{AlignedI8, AlignedI16, INPUTS, NetShape, Network, ROWS, RowFormat, RowTable, STAGES};
use crate::eval::features::canonical_indices;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use std::io::{Read, Write};
use std::sync::LazyLock;

/// The first bytes of a network's body (16-bit rows).
pub const NETWORK_MAGIC: &[u8; 8] = b"OENET001";
/// The first bytes of the body of a network of 8-bit rows.
pub const NETWORK_MAGIC_I8: &[u8; 8] = b"OENET002";
const HEADER: usize = 8 + 4 * 6;

/// For each row of a bucket, the row that stands for it (see `canonical_indices`).
static CANONICAL: LazyLock<Vec<u32>> = LazyLock::new(|| canonical_indices(ROWS));

/// The rows stored for a bucket: those that stand for themselves.
fn stored_rows() -> impl Iterator<Item = usize> {
    CANONICAL
        .iter()
        .enumerate()
        .filter(|&(r, &c)| c as usize == r)
        .map(|(r, _)| r)
}

/// The row each row of a bucket copies.
pub fn canonical_row(row: usize) -> usize {
    CANONICAL[row] as usize
}

impl Network {
    /// The file's bytes (gzip). Rows equal under a shape's symmetries are written once.
    pub fn to_bytes(&self) -> Vec<u8> {
        let shape = self.shape;
        let stored: Vec<usize> = stored_rows().collect();
        let mut body = Vec::with_capacity(HEADER + 2 * shape.embedding_len());
        body.extend_from_slice(match shape.rows {
            RowFormat::I16 => NETWORK_MAGIC,
            RowFormat::I8 => NETWORK_MAGIC_I8,
        });
        for v in [
            shape.width,
            shape.hidden,
            shape.buckets,
            ROWS,
            INPUTS,
            stored.len(),
        ] {
            body.extend_from_slice(&(v as u32).to_le_bytes());
        }
        let w = shape.width;
        for bucket in 0..shape.buckets {
            for &row in &stored {
                let at = (bucket * ROWS + row) * w;
                match self.rows() {
                    RowTable::I16(table) => table.as_slice()[at..at + w]
                        .iter()
                        .for_each(|v| body.extend_from_slice(&v.to_le_bytes())),
                    RowTable::I8 { rows, .. } => rows.as_slice()[at..at + w]
                        .iter()
                        .for_each(|v| body.extend_from_slice(&v.to_le_bytes())),
                }
            }
        }
        if let RowTable::I8 { bias, .. } = self.rows() {
            bias.iter()
                .for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
        }
        self.dense
            .iter()
            .for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
        self.dense_bias
            .iter()
            .for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
        self.output
            .iter()
            .for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
        self.output_bias
            .iter()
            .for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
        let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
        encoder.write_all(&body).expect("writing to memory");
        encoder.finish().expect("writing to memory")
    }

    /// Reads a network file's bytes, checking its header, its length and its values.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        if !bytes.starts_with(&[0x1f, 0x8b]) {
            return Err("not a network file (no gzip header)".into());
        }
        let mut reader = GzDecoder::new(bytes);
        let mut header = [0u8; HEADER];
        reader
            .read_exact(&mut header)
            .map_err(|e| format!("truncated or corrupt network file: {e}"))?;
        let rows_format = if &header[..8] == NETWORK_MAGIC {
            RowFormat::I16
        } else if &header[..8] == NETWORK_MAGIC_I8 {
            RowFormat::I8
        } else {
            return Err("not a network file (wrong magic)".into());
        };
        let field = |i: usize| {
            u32::from_le_bytes(header[8 + 4 * i..12 + 4 * i].try_into().expect("4 bytes")) as usize
        };
        let shape = NetShape {
            width: field(0),
            hidden: field(1),
            buckets: field(2),
            rows: rows_format,
        };
        shape
            .check()
            .map_err(|e| format!("unsupported network: {e}"))?;
        let stored: Vec<usize> = stored_rows().collect();
        if field(3) != ROWS || field(4) != INPUTS || field(5) != stored.len() {
            return Err(format!(
                "a network of another input layout ({} rows, {} inputs; this engine reads {ROWS} and {INPUTS})",
                field(3),
                field(4)
            ));
        }
        let (w, h, b) = (shape.width, shape.hidden, shape.buckets);
        // Bytes a row value takes, and those of the row biases apart (8-bit rows only).
        let (lane, row_bias) = match rows_format {
            RowFormat::I16 => (2, 0),
            RowFormat::I8 => (1, 2 * b * w),
        };
        let rows_bytes = lane * b * stored.len() * w;
        let length =
            rows_bytes + row_bias + 2 * b * h * w + 4 * b * h + 2 * STAGES * h + 4 * STAGES;
        let mut body = Vec::with_capacity(length);
        (&mut reader)
            .take(length as u64 + 1)
            .read_to_end(&mut body)
            .map_err(|e| format!("truncated or corrupt network file: {e}"))?;
        if body.len() != length {
            return Err(format!(
                "network file of {} body bytes, expected {length} for width {w}, hidden {h}, {b} buckets",
                body.len()
            ));
        }
        // The stored rows come first (read in place below); the layers follow.
        let mut at = rows_bytes;
        let mut i16s = |n: usize| -> Vec<i16> {
            let v = body[at..at + 2 * n]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
            at += 2 * n;
            v
        };
        let bias8 = i16s(row_bias / 2);
        let dense = i16s(b * h * w);
        let dense_bias_raw = i16s(2 * b * h);
        let output = i16s(STAGES * h);
        let output_bias_raw = i16s(2 * STAGES);
        let to_i32 = |raw: Vec<i16>| -> Vec<i32> {
            raw.chunks_exact(2)
                .map(|c| {
                    let (lo, hi) = (c[0].to_le_bytes(), c[1].to_le_bytes());
                    i32::from_le_bytes([lo[0], lo[1], hi[0], hi[1]])
                })
                .collect()
        };
        // The stored rows go straight from the inflated bytes to their places (every row of a
        // shape's orbit), so that only one table of the network is ever held.
        let mut place = vec![usize::MAX; ROWS];
        for (k, &row) in stored.iter().enumerate() {
            place[row] = k;
        }
        // Where each row's values start in `body`, and where they go in the table.
        let stored_len = stored.len();
        let spans = (0..b).flat_map(|bucket| {
            let place = &place;
            (0..ROWS).map(move |row| {
                let k = place[canonical_row(row)];
                (
                    lane * (bucket * stored_len + k) * w,
                    (bucket * ROWS + row) * w,
                )
            })
        });
        let rows = match rows_format {
            RowFormat::I16 => {
                let mut table = AlignedI16::zeroed(shape.embedding_len());
                let embedding = table.as_mut_slice();
                for (from, to) in spans {
                    for (value, bytes) in embedding[to..to + w]
                        .iter_mut()
                        .zip(body[from..from + 2 * w].chunks_exact(2))
                    {
                        *value = i16::from_le_bytes([bytes[0], bytes[1]]);
                    }
                }
                RowTable::I16(table)
            }
            RowFormat::I8 => {
                let mut table = AlignedI8::zeroed(shape.embedding_len());
                let embedding = table.as_mut_slice();
                for (from, to) in spans {
                    for (value, &byte) in
                        embedding[to..to + w].iter_mut().zip(&body[from..from + w])
                    {
                        *value = byte as i8;
                    }
                }
                RowTable::I8 {
                    rows: table,
                    bias: bias8,
                }
            }
        };
        drop(body);
        Network::from_parts(
            shape,
            rows,
            dense,
            to_i32(dense_bias_raw),
            output,
            to_i32(output_bias_raw),
        )
    }
}

/// Reads and checks a network file (`--network FILE`).
pub fn read_network_file(path: &str) -> Result<Network, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
}
