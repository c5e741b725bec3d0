//! The book file: writing it, and reading it back with every entry checked, so that a
//! damaged file is refused rather than played from.

use super::{Book, BookEntry, BookKey, PASS, normalize};
use crate::board::{Bits, Square, legal_moves};
use flate2::Compression;
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use std::collections::HashMap;
use std::io::{Read, Write};

/// The magic at the start of a book file, which names its version.
const MAGIC: &[u8; 8] = b"OEBOOK01";
/// Bytes of one entry's fixed part: the two bitboards, the game count, the depth and the number
/// of moves.
const ENTRY_HEAD: usize = 8 + 8 + 4 + 1 + 1;
/// Bytes of one move: the square and its value.
const MOVE_BYTES: usize = 3;
/// No book file holds more entries than this (a guard against absurd headers).
const MAX_ENTRIES: usize = 1 << 24;
/// The most moves one entry may list when it is read (a position has at most 33).
const MAX_MOVES: usize = 64;

impl Book {
    /// The book file: the magic, the entry count (4 bytes, little-endian), then the entries
    /// deflated, sorted by key so that the same book always gives the same bytes. An entry is
    /// the player's and the opponent's bitboards (8 bytes each), the game count (4), the depth
    /// (1), the number of moves (1), and per move its square (1, 64 for a pass) and value
    /// (2, hundredths of a disc); all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut keys: Vec<&BookKey> = self.entries.keys().collect();
        keys.sort();
        let mut body = Vec::new();
        for key in keys {
            let e = &self.entries[key];
            body.extend_from_slice(&key.0.to_le_bytes());
            body.extend_from_slice(&key.1.to_le_bytes());
            body.extend_from_slice(&e.games.to_le_bytes());
            body.push(e.depth);
            body.push(e.moves.len() as u8);
            for &(sq, v) in &e.moves {
                body.push(sq);
                body.extend_from_slice(&v.to_le_bytes());
            }
        }
        let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
        // Writing to a Vec cannot fail.
        let _ = encoder.write_all(&body);
        let deflated = encoder.finish().unwrap_or_default();
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        out.extend_from_slice(&deflated);
        out
    }

    /// Writes the book to `path` whole or not at all (a temporary file renamed over it).
    pub fn save(&self, path: &std::path::Path) -> Result<(), String> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        std::fs::write(&tmp, self.to_bytes())
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// Reads a book file, checking every entry: a key that is not the smallest orientation of
    /// its position, overlapping discs, a move that is not legal there, a missing or repeated
    /// move, a repeated key, or a file cut short is refused with what was wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, String> {
        if bytes.len() < MAGIC.len() + 4 || &bytes[..MAGIC.len()] != MAGIC {
            return Err("not an othello-engine book (bad magic)".into());
        }
        let count = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        if count > MAX_ENTRIES {
            return Err(format!("the header announces {count} positions, too many"));
        }
        // Inflate no more than the announced entries can hold, so that a damaged header or
        // stream cannot make the reader allocate without bound.
        let most = count * (ENTRY_HEAD + MAX_MOVES * MOVE_BYTES) + 1;
        let mut body = Vec::new();
        ZlibDecoder::new(&bytes[12..])
            .take(most as u64)
            .read_to_end(&mut body)
            .map_err(|e| format!("the entries do not inflate: {e}"))?;
        let mut entries = HashMap::with_capacity(count.min(1 << 16));
        let mut at = 0usize;
        let truncated = |i: usize| format!("cut short in position {} of {count}", i + 1);
        for i in 0..count {
            let head = body.get(at..at + ENTRY_HEAD).ok_or_else(|| truncated(i))?;
            let word = |k: usize| u64::from_le_bytes(head[k..k + 8].try_into().unwrap_or([0; 8]));
            let (player, opponent) = (word(0), word(8));
            let games = u32::from_le_bytes(head[16..20].try_into().unwrap_or([0; 4]));
            let (depth, n) = (head[20], usize::from(head[21]));
            at += ENTRY_HEAD;
            let raw = body
                .get(at..at + n * MOVE_BYTES)
                .ok_or_else(|| truncated(i))?;
            at += n * MOVE_BYTES;
            let moves: Vec<(u8, i16)> = raw
                .chunks_exact(MOVE_BYTES)
                .map(|c| (c[0], i16::from_le_bytes([c[1], c[2]])))
                .collect();
            let key = (player, opponent);
            check_entry(key, &moves).map_err(|e| format!("position {}: {e}", i + 1))?;
            if entries
                .insert(
                    key,
                    BookEntry {
                        moves,
                        games,
                        depth,
                    },
                )
                .is_some()
            {
                return Err(format!("position {}: stored twice", i + 1));
            }
        }
        if at != body.len() {
            return Err(format!(
                "{} bytes after the {count} positions the header announces",
                body.len() - at
            ));
        }
        let mut book = Book {
            entries,
            values: HashMap::new(),
        };
        book.back_up();
        Ok(book)
    }
}

/// Whether `moves` are exactly the legal moves of the stored position `key`, which must be in
/// its smallest orientation.
fn check_entry(key: BookKey, moves: &[(u8, i16)]) -> Result<(), String> {
    let (player, opponent) = key;
    if player & opponent != 0 {
        return Err("a square holds two discs".into());
    }
    if normalize(player, opponent).0 != key {
        return Err("not stored in its smallest orientation".into());
    }
    let legal = legal_moves(player, opponent);
    let expected: Vec<u8> = if legal == 0 {
        if legal_moves(opponent, player) == 0 {
            return Err("the game is over there".into());
        }
        vec![PASS]
    } else {
        Bits(legal).map(|sq| sq as u8).collect()
    };
    let mut got: Vec<u8> = moves.iter().map(|&(m, _)| m).collect();
    got.sort_unstable();
    if got != expected {
        return Err(format!(
            "its moves {} are not the legal moves {}",
            squares_text(&got),
            squares_text(&expected)
        ));
    }
    Ok(())
}

fn squares_text(squares: &[u8]) -> String {
    let names: Vec<String> = squares
        .iter()
        .map(|&s| match Square::new(usize::from(s)) {
            Some(sq) => sq.to_string(),
            None => "pass".into(),
        })
        .collect();
    format!("[{}]", names.join(" "))
}
