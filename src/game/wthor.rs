//! WTHOR game files (the French Othello Federation's archive format, described in
//! data/wthor/README.md): the reader and the replay of its games, which `datagen` labels.

use crate::board::{Move, Position, Square};
use std::path::{Path, PathBuf};

/// The WTHOR folder the commands read unless `--wthor` names another: the repository's copy,
/// from the top of a checkout.
pub const DEFAULT_WTHOR_DIR: &str = "data/wthor";

/// One game of a WTHOR file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorGame {
    /// The moves as played; passes are not recorded.
    pub moves: Vec<Square>,
    /// Black's disc count at the end, empty squares going to the winner.
    pub black_score: u8,
    /// Black's disc count under perfect play from the file's theoretical-score depth on.
    pub black_theoretical: u8,
    /// Black's and White's player numbers (records of `WTHOR.JOU`, [`parse_wthor_names`]).
    pub players: [u16; 2],
}

/// A WTHOR file's games and the depth (empties) of its theoretical scores.
#[derive(Clone, Debug)]
pub struct WthorFile {
    /// The number of empty squares from which the theoretical scores are perfect play.
    pub depth: u8,
    /// The games in file order.
    pub games: Vec<WthorGame>,
}

/// Reads a `.wtb` game file (format in data/wthor/README.md).
pub fn parse_wthor(bytes: &[u8]) -> Result<WthorFile, String> {
    const HEADER: usize = 16;
    const RECORD: usize = 68;
    if bytes.len() < HEADER {
        return Err(format!(
            "{} bytes: shorter than the 16-byte header",
            bytes.len()
        ));
    }
    let count = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    let board = bytes[12];
    if board != 0 && board != 8 {
        return Err(format!("board size {board}: only 8x8 games are supported"));
    }
    let body = &bytes[HEADER..];
    if body.len() != count * RECORD {
        return Err(format!(
            "the header announces {count} games ({} bytes) but {} bytes follow it",
            count * RECORD,
            body.len()
        ));
    }
    let mut games = Vec::with_capacity(count);
    for (i, record) in body.chunks_exact(RECORD).enumerate() {
        let mut moves = Vec::new();
        for &b in &record[8..] {
            if b == 0 {
                break;
            }
            let (row, col) = (usize::from(b / 10), usize::from(b % 10));
            let bad = || format!("game {}: bad move byte {b}", i + 1);
            if !(1..=8).contains(&row) || !(1..=8).contains(&col) {
                return Err(bad());
            }
            let square = Square::from_file_rank(col - 1, row - 1).ok_or_else(bad)?;
            moves.push(square);
        }
        games.push(WthorGame {
            moves,
            black_score: record[6],
            black_theoretical: record[7],
            players: [
                u16::from_le_bytes([record[2], record[3]]),
                u16::from_le_bytes([record[4], record[5]]),
            ],
        });
    }
    Ok(WthorFile {
        depth: bytes[14],
        games,
    })
}

/// The names of a `WTHOR.JOU` player file (or `WTHOR.TRN` tournament file, records of
/// `record_len` bytes: 20 and 26), record i being number i: NUL-padded Latin-1.
pub fn parse_wthor_names(bytes: &[u8], record_len: usize) -> Result<Vec<String>, String> {
    const HEADER: usize = 16;
    if bytes.len() < HEADER {
        return Err(format!(
            "{} bytes: shorter than the 16-byte header",
            bytes.len()
        ));
    }
    let count = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    let body = &bytes[HEADER..];
    if body.len() < count * record_len {
        return Err(format!(
            "the header announces {count} names ({} bytes) but {} bytes follow it",
            count * record_len,
            body.len()
        ));
    }
    Ok(body
        .chunks_exact(record_len)
        .take(count)
        .map(|name| {
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            name[..end]
                .iter()
                .map(|&b| char::from(b))
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect())
}

/// Replays `moves` (a WTHOR game's, passes not recorded) from the start: the position before
/// each move (after any forced pass) and the position after the last. An illegal move is an
/// error.
pub fn replay(moves: &[Square]) -> Result<(Vec<Position>, Position), String> {
    let mut position = Position::start();
    let mut positions = Vec::with_capacity(moves.len());
    for (i, &square) in moves.iter().enumerate() {
        if position.must_pass() {
            position = position.pass();
        }
        positions.push(position);
        position = position
            .play(Move::Play(square))
            .map_err(|_| format!("move {} ({square}) is illegal", i + 1))?;
    }
    Ok((positions, position))
}

/// The games of every `.wtb` file of `dir`, files in name order, each file's games in its
/// order, with the theoretical-score depth of the file each comes from.
pub fn read_wthor_dir(dir: &Path) -> Result<Vec<(WthorGame, u8)>, String> {
    let folder = WthorFolder::read(dir)?;
    Ok(folder
        .files
        .into_iter()
        .flat_map(|f| {
            let depth = f.depth;
            f.games.into_iter().map(move |g| (g, depth))
        })
        .collect())
}

/// One `.wtb` file of a folder: its name, its SHA-256 and its games in file order.
#[derive(Clone, Debug)]
pub struct WthorFileEntry {
    /// The file's name within the folder (`WTH_1977.wtb`).
    pub name: String,
    /// Its SHA-256 in hex, which training shards name to pin the games they label.
    pub sha256: String,
    /// The empties from which its theoretical scores are perfect play.
    pub depth: u8,
    /// Its games in file order.
    pub games: Vec<WthorGame>,
}

impl WthorFileEntry {
    /// The entry of the file at `path`, whose content is `bytes`.
    fn parse(path: &Path, bytes: &[u8]) -> Result<WthorFileEntry, String> {
        let file = parse_wthor(bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(WthorFileEntry {
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            sha256: crate::sys::files::sha256_hex(bytes),
            depth: file.depth,
            games: file.games,
        })
    }
}

/// Every `.wtb` file of a folder in name order: the games of [`read_wthor_dir`] with the file
/// each comes from. A game's global index counts the games of the files before it.
#[derive(Clone, Debug)]
pub struct WthorFolder {
    /// The files in name order.
    pub files: Vec<WthorFileEntry>,
}

impl WthorFolder {
    /// Reads every `.wtb` file of `dir`.
    pub fn read(dir: &Path) -> Result<WthorFolder, String> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wtb")))
            .collect();
        paths.sort();
        if paths.is_empty() {
            return Err(format!("no .wtb files in {}", dir.display()));
        }
        let mut files = Vec::with_capacity(paths.len());
        for path in paths {
            let bytes =
                std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            files.push(WthorFileEntry::parse(&path, &bytes)?);
        }
        Ok(WthorFolder { files })
    }

    /// Reads the files `pins` names (name and SHA-256), in its order, from `dir`, each checked
    /// against its digest before it is parsed: a file missing, cut short or of another issue
    /// of the archive is named as such rather than read as other games. Files of `dir` that
    /// `pins` does not name are not read, as game numbers count only the pinned files.
    pub fn read_pinned(dir: &Path, pins: &[(&str, &str)]) -> Result<WthorFolder, String> {
        if let Err(e) = std::fs::read_dir(dir) {
            return Err(format!(
                "cannot read the WTHOR folder {} (--wthor DIR): {e}",
                dir.display()
            ));
        }
        let mut files = Vec::with_capacity(pins.len());
        for &(name, sha256) in pins {
            let path = dir.join(name);
            let bytes = std::fs::read(&path).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => format!("{} is missing", path.display()),
                _ => format!("cannot read {}: {e}", path.display()),
            })?;
            let found = crate::sys::files::sha256_hex(&bytes);
            if found != sha256 {
                return Err(format!(
                    "{} is not the file pinned ({} bytes, SHA-256 {found}; pinned {sha256})",
                    path.display(),
                    bytes.len()
                ));
            }
            files.push(WthorFileEntry::parse(&path, &bytes)?);
        }
        Ok(WthorFolder { files })
    }

    /// The number of games in all files.
    pub fn game_count(&self) -> usize {
        self.files.iter().map(|f| f.games.len()).sum()
    }

    /// The file (its index) and the game within it of global game `index`.
    pub fn locate(&self, index: usize) -> Option<(usize, usize)> {
        let mut rest = index;
        for (i, file) in self.files.iter().enumerate() {
            if rest < file.games.len() {
                return Some((i, rest));
            }
            rest -= file.games.len();
        }
        None
    }

    /// Global game `index`.
    pub fn game(&self, index: usize) -> Option<&WthorGame> {
        self.locate(index).map(|(f, g)| &self.files[f].games[g])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;

    #[test]
    fn player_names_are_read_by_number() {
        let mut bytes = vec![0u8; 16];
        bytes[8..10].copy_from_slice(&2u16.to_le_bytes());
        let mut name = |text: &[u8]| {
            let mut record = [0u8; 20];
            record[..text.len()].copy_from_slice(text);
            bytes.extend_from_slice(&record);
        };
        name(b"???");
        name(b"Tastet Marc");
        let names = parse_wthor_names(&bytes, 20);
        assert_eq!(
            names,
            Ok(vec!["???".to_string(), "Tastet Marc".to_string()])
        );
        assert!(parse_wthor_names(&bytes[..30], 20).is_err());
        assert!(parse_wthor_names(&bytes[..8], 20).is_err());
    }

    fn record(moves: &[u8], black: u8, theoretical: u8) -> Vec<u8> {
        let mut r = vec![0u8; 68];
        r[6] = black;
        r[7] = theoretical;
        r[8..8 + moves.len()].copy_from_slice(moves);
        r
    }

    fn file(records: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = vec![0u8; 16];
        bytes[4..8].copy_from_slice(&(records.len() as u32).to_le_bytes());
        bytes[12] = 8;
        bytes[14] = 24;
        for r in records {
            bytes.extend_from_slice(r);
        }
        bytes
    }

    /// A whole game of first legal moves, as WTHOR move bytes, and black's final disc count.
    fn first_move_game() -> (Vec<u8>, u8) {
        let mut position = Position::start();
        let mut bytes = Vec::new();
        while !position.is_game_over() {
            if position.must_pass() {
                position = position.pass();
                continue;
            }
            let square = position.legal_squares()[0];
            bytes.push((10 * (square.rank() + 1) + square.file() + 1) as u8);
            position = position.play(Move::Play(square)).unwrap();
        }
        let black = if position.side_to_move() == Color::Black {
            (position.final_score() + 64) / 2
        } else {
            (64 - position.final_score()) / 2
        };
        (bytes, black as u8)
    }

    #[test]
    fn a_finished_game_replays_to_its_recorded_score() {
        let (moves, black) = first_move_game();
        let bytes = file(&[record(&moves, black, 40)]);
        let parsed = parse_wthor(&bytes).unwrap();
        assert_eq!(parsed.depth, 24);
        let game = &parsed.games[0];
        assert_eq!(game.black_theoretical, 40);
        let (positions, end) = replay(&game.moves).unwrap();
        assert_eq!(positions.len(), moves.len());
        // The start, black to move.
        assert_eq!(positions[0], Position::start());
        // The end: the game is over with the recorded score.
        assert!(end.is_game_over());
        let black_final = if end.side_to_move() == Color::Black {
            end.final_score()
        } else {
            -end.final_score()
        };
        assert_eq!(black_final, 2 * i32::from(black) - 64);
        // A game that stops early ends in a position that is not over (an adjudication).
        let bytes = file(&[record(&moves[..10], black, 40)]);
        let parsed = parse_wthor(&bytes).unwrap();
        assert!(!replay(&parsed.games[0].moves).unwrap().1.is_game_over());
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        assert!(parse_wthor(&[0u8; 5]).is_err());
        let mut bytes = file(&[record(&[56], 32, 32)]);
        bytes.pop();
        assert!(
            parse_wthor(&bytes)
                .unwrap_err()
                .contains("header announces 1 games")
        );
        let bytes = file(&[record(&[99], 32, 32)]);
        assert!(
            parse_wthor(&bytes)
                .unwrap_err()
                .contains("bad move byte 99")
        );
        let bytes = file(&[record(&[11], 32, 32)]);
        let parsed = parse_wthor(&bytes).unwrap();
        assert!(
            replay(&parsed.games[0].moves)
                .unwrap_err()
                .contains("illegal")
        );
    }
}
