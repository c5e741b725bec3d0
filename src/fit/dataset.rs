//! The training-data file that `othello-engine datagen` writes and the trainer reads: a fixed
//! binary format, so that files from many hosts and runs can be joined and read by other tools.
//!
//! A 16-byte header (the magic `OEDATA01`, the record size as a little-endian `u32`, then a
//! reserved `u32` 0), followed by 24-byte records, all little endian:
//!
//! | bytes | field | meaning |
//! | --- | --- | --- |
//! | 0..8 | `player` | discs of the side to move |
//! | 8..16 | `opponent` | discs of the other side |
//! | 16..20 | `game` | the game's index in the run |
//! | 20 | `ending` | the game's final disc difference for the side to move (`i8`) |
//! | 21 | `value` | the best label: exact where solved, else the search's value (`i8`) |
//! | 22 | `empties` | empty squares |
//! | 23 | `flags` | bit 0 [`FLAG_EXACT`], bit 1 [`FLAG_WTHOR`] |

use std::io::Write;
use std::path::Path;

/// The first eight bytes of every data file.
pub const MAGIC: &[u8; 8] = b"OEDATA01";
/// The size of the header in bytes.
pub const HEADER_SIZE: usize = 16;
/// The size of one record in bytes.
pub const RECORD_SIZE: usize = 24;
/// Flag bit: `value` is the exact result under perfect play.
pub const FLAG_EXACT: u8 = 1;
/// Flag bit: the position comes from a WTHOR game, not from self-play.
pub const FLAG_WTHOR: u8 = 2;

/// One labelled position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sample {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
    /// The index of the game in its run.
    pub game: u32,
    /// The game's final disc difference for the side to move (perfect play from the solve
    /// point on).
    pub ending: i8,
    /// The best label known: exact when [`FLAG_EXACT`] is set, else a search's value.
    pub value: i8,
    /// Empty squares.
    pub empties: u8,
    /// [`FLAG_EXACT`] and [`FLAG_WTHOR`] bits.
    pub flags: u8,
}

impl Sample {
    /// The record's 24 bytes.
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut bytes = [0u8; RECORD_SIZE];
        bytes[0..8].copy_from_slice(&self.player.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.opponent.to_le_bytes());
        bytes[16..20].copy_from_slice(&self.game.to_le_bytes());
        bytes[20] = self.ending as u8;
        bytes[21] = self.value as u8;
        bytes[22] = self.empties;
        bytes[23] = self.flags;
        bytes
    }

    /// The sample a record's 24 bytes hold.
    pub fn from_bytes(bytes: &[u8; RECORD_SIZE]) -> Sample {
        let u64_at = |at: usize| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(word)
        };
        Sample {
            player: u64_at(0),
            opponent: u64_at(8),
            game: u32::from_le_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]),
            ending: bytes[20] as i8,
            value: bytes[21] as i8,
            empties: bytes[22],
            flags: bytes[23],
        }
    }

    /// True when `value` is exact.
    pub fn is_exact(&self) -> bool {
        self.flags & FLAG_EXACT != 0
    }
}

/// The 16 header bytes.
pub fn header_bytes() -> [u8; HEADER_SIZE] {
    let mut header = [0u8; HEADER_SIZE];
    header[0..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&(RECORD_SIZE as u32).to_le_bytes());
    header
}

/// Checks a file's header; the message says what is wrong.
pub fn check_header(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < HEADER_SIZE {
        return Err(format!(
            "{} bytes: shorter than the {HEADER_SIZE}-byte header of a data file",
            bytes.len()
        ));
    }
    if &bytes[0..8] != MAGIC {
        return Err("not a datagen file (it does not start with OEDATA01)".into());
    }
    let record_size = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if record_size as usize != RECORD_SIZE {
        return Err(format!(
            "records of {record_size} bytes; this version reads {RECORD_SIZE}-byte records"
        ));
    }
    Ok(())
}

/// The records of a whole file's bytes, after its header. A tail shorter than a record is an
/// error unless `allow_truncated_tail`, in which case it is dropped; the second value is the
/// number of bytes dropped.
pub fn parse_dataset(
    bytes: &[u8],
    allow_truncated_tail: bool,
) -> Result<(Vec<Sample>, usize), String> {
    check_header(bytes)?;
    let body = &bytes[HEADER_SIZE..];
    let tail = body.len() % RECORD_SIZE;
    if tail != 0 && !allow_truncated_tail {
        return Err(format!(
            "truncated: {tail} bytes after the last whole record ({} records)",
            body.len() / RECORD_SIZE
        ));
    }
    let samples = body
        .chunks_exact(RECORD_SIZE)
        .map(|chunk| {
            let mut record = [0u8; RECORD_SIZE];
            record.copy_from_slice(chunk);
            Sample::from_bytes(&record)
        })
        .collect();
    Ok((samples, tail))
}

/// Reads a whole data file, refusing a bad header and a truncated tail.
pub fn read_dataset(path: &Path) -> Result<Vec<Sample>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_dataset(&bytes, false)
        .map(|(samples, _)| samples)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes records to a data file, a game at a time: each [`DatasetWriter::write_game`] is one
/// write and a flush, so that a process killed between games leaves only whole games.
pub struct DatasetWriter<W: Write> {
    out: W,
    buffer: Vec<u8>,
}

impl<W: Write> DatasetWriter<W> {
    /// A writer that starts a new file: writes the header now.
    pub fn create(mut out: W) -> std::io::Result<DatasetWriter<W>> {
        out.write_all(&header_bytes())?;
        out.flush()?;
        Ok(DatasetWriter::append(out))
    }

    /// A writer that appends records to a file whose header is already there.
    pub fn append(out: W) -> DatasetWriter<W> {
        DatasetWriter {
            out,
            buffer: Vec::new(),
        }
    }

    /// Writes the records of one game at once and flushes them.
    pub fn write_game(&mut self, samples: &[Sample]) -> std::io::Result<()> {
        self.buffer.clear();
        for sample in samples {
            self.buffer.extend_from_slice(&sample.to_bytes());
        }
        self.out.write_all(&self.buffer)?;
        self.out.flush()
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(game: u32) -> Sample {
        Sample {
            player: 0x0000_0008_1000_0000,
            opponent: 0x0000_0010_0800_0000 | (1 << 63),
            game,
            ending: -12,
            value: 64,
            empties: 60,
            flags: FLAG_EXACT | FLAG_WTHOR,
        }
    }

    #[test]
    fn records_round_trip_in_the_documented_layout() {
        let s = sample(0x0102_0304);
        let bytes = s.to_bytes();
        assert_eq!(&bytes[16..20], &[4, 3, 2, 1]);
        assert_eq!(bytes[20], (-12i8) as u8);
        assert_eq!(bytes[21], 64);
        assert_eq!(bytes[22], 60);
        assert_eq!(bytes[23], 3);
        assert_eq!(Sample::from_bytes(&bytes), s);
        assert_eq!(&header_bytes()[..], b"OEDATA01\x18\0\0\0\0\0\0\0");
    }

    #[test]
    fn the_writer_gives_a_file_the_reader_accepts() {
        let mut writer = DatasetWriter::create(Vec::new()).unwrap();
        writer.write_game(&[sample(0), sample(0)]).unwrap();
        writer.write_game(&[sample(1)]).unwrap();
        let bytes = writer.into_inner();
        assert_eq!(bytes.len(), HEADER_SIZE + 3 * RECORD_SIZE);
        let (samples, dropped) = parse_dataset(&bytes, false).unwrap();
        assert_eq!(dropped, 0);
        assert_eq!(samples, vec![sample(0), sample(0), sample(1)]);
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        let good = {
            let mut w = DatasetWriter::create(Vec::new()).unwrap();
            w.write_game(&[sample(0)]).unwrap();
            w.into_inner()
        };
        assert!(
            parse_dataset(&good[..10], false)
                .unwrap_err()
                .contains("header")
        );
        let mut bad_magic = good.clone();
        bad_magic[0] = b'X';
        assert!(
            parse_dataset(&bad_magic, false)
                .unwrap_err()
                .contains("OEDATA01")
        );
        let mut bad_size = good.clone();
        bad_size[8] = 32;
        assert!(
            parse_dataset(&bad_size, false)
                .unwrap_err()
                .contains("records of 32 bytes")
        );
        let cut = &good[..good.len() - 5];
        assert!(parse_dataset(cut, false).unwrap_err().contains("truncated"));
        let (samples, dropped) = parse_dataset(cut, true).unwrap();
        assert!(samples.is_empty());
        assert_eq!(dropped, RECORD_SIZE - 5);
    }
}
