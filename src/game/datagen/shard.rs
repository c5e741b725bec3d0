//! Training shards: labelled games in about one and a half bytes a position, the form in which
//! training data lives in the repository (`data/train/`).
//!
//! A labelled position written out whole costs 24 bytes ([`crate::fit::dataset`]), but most
//! of it is implied: the discs follow from the moves, and a self-play game's moves follow from
//! the start. So a shard stores *games*: for a self-play game the move of each ply (as its rank
//! among the legal moves in square order, which is small and compresses well) and for a WTHOR
//! game nothing of the moves at all (the game is named by its index in the WTHOR folder, whose
//! files the header pins by SHA-256); then one label byte a position, the ply from which labels
//! are exact (exactness runs from the solve point to the end), and the game's ending. Labels
//! are stored as the change of the value seen from black, which stays near zero along a game,
//! and the three streams (game data, moves, labels) are kept apart before compression, so
//! that each compresses among its own kind.
//!
//! The file: the magic `OESHARD1`, the length of the header as a little-endian `u32`, the
//! header as JSON ([`ShardHeader`]: source, label and play recipes, game range, counts, the
//! command and commit that made it, the core-seconds it took), then the body as one gzip
//! stream, whose CRC-32 and length catch a corrupt or truncated file.
//!
//! Decoding replays every game and checks each move and label, so a damaged shard is refused
//! with the game and the reason, never read as wrong positions.

use super::stream::{Stream, put_varint};
use crate::board::{Color, Move, Position};
use crate::fit::dataset::{FLAG_EXACT, FLAG_WTHOR, Sample};
use crate::game::wthor::{WthorFolder, replay};
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};

/// The first eight bytes of every shard.
pub const SHARD_MAGIC: &[u8; 8] = b"OESHARD1";
/// The extension of shard files.
pub const SHARD_EXTENSION: &str = "oes";
/// The largest shard written, in bytes.
pub const MAX_SHARD_BYTES: usize = 4 * 1024 * 1024;
/// The longest header read, in bytes (a header is a few hundred).
const MAX_HEADER_BYTES: usize = 1 << 20;

/// Where a shard's games come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShardSource {
    /// Games the engine played against itself; the shard stores their moves.
    SelfPlay,
    /// Expert games of the WTHOR archive; the shard stores only their labels.
    Wthor,
}

impl ShardSource {
    /// The source's name in file names and reports.
    pub fn name(self) -> &'static str {
        match self {
            ShardSource::SelfPlay => "self-play",
            ShardSource::Wthor => "wthor",
        }
    }
}

/// A WTHOR file a shard's games come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WthorRef {
    /// The file's name (`WTH_2001.wtb`).
    pub name: String,
    /// Its SHA-256: the games are read from a file with this digest or not at all.
    pub sha256: String,
    /// Its games.
    pub games: u32,
}

/// What a shard holds and how it was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardHeader {
    /// Self-play or WTHOR.
    pub source: ShardSource,
    /// How the positions were labelled; a training set mixes only shards of one recipe.
    pub labels: String,
    /// The fingerprint of the pattern weights whose searches labelled the positions
    /// ([`crate::game::datagen::weights_fingerprint`]); none in shards made before shards
    /// named them, or labelled by an evaluator without weights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_weights: Option<String>,
    /// How a self-play game's moves were chosen (empty for WTHOR).
    pub play: String,
    /// The run's seed (self-play).
    pub seed: u64,
    /// The first game index the shard covers.
    pub first_game: u32,
    /// One past the last game index it covers.
    pub end_game: u32,
    /// Games stored (WTHOR games that end early without a solved position give none).
    pub games: u32,
    /// Labelled positions.
    pub positions: u64,
    /// Positions whose label is exact.
    pub exact: u64,
    /// The WTHOR files, in the folder's order (WTHOR shards).
    #[serde(default)]
    pub wthor_files: Vec<WthorRef>,
    /// The command line that made it.
    pub command: String,
    /// The commit of the binary that made it.
    pub commit: String,
    /// Core-seconds spent making it.
    pub core_seconds: f64,
}

/// The position after `mv`, with the forced pass that follows it, if any.
fn after(position: &Position, mv: Move) -> Option<Position> {
    let next = position.play(mv).ok()?;
    Some(if next.must_pass() && !next.is_game_over() {
        next.pass()
    } else {
        next
    })
}

/// A value seen from black.
fn black_view(side: Color, value: i8) -> i8 {
    match side {
        Color::Black => value,
        Color::White => value.wrapping_neg(),
    }
}

/// The positions of one game in play order, checked against its records' discs.
fn positions_of(
    samples: &[Sample],
    source: ShardSource,
    wthor: Option<&WthorFolder>,
) -> Result<(Vec<Position>, Vec<u8>), String> {
    let game = samples[0].game;
    let same = |p: &Position, s: &Sample| p.player() == s.player && p.opponent() == s.opponent;
    match source {
        ShardSource::SelfPlay => {
            let mut positions = Vec::with_capacity(samples.len());
            let mut ranks = Vec::with_capacity(samples.len());
            let mut position = Position::start();
            for (i, s) in samples.iter().enumerate() {
                if i > 0 {
                    let squares = position.legal_squares();
                    let found = squares.iter().enumerate().find_map(|(rank, &sq)| {
                        after(&position, Move::Play(sq))
                            .filter(|p| same(p, s))
                            .map(|p| (rank, p))
                    });
                    let (rank, next) = found.ok_or_else(|| {
                        format!("game {game}: record {i} does not follow from the one before")
                    })?;
                    ranks.push(rank as u8);
                    position = next;
                } else if !same(&position, s) {
                    return Err(format!(
                        "game {game}: a self-play game must start from the start position"
                    ));
                }
                positions.push(position);
            }
            Ok((positions, ranks))
        }
        ShardSource::Wthor => {
            let folder = wthor.ok_or("WTHOR games need the WTHOR folder")?;
            let played = folder
                .game(game as usize)
                .ok_or_else(|| format!("game {game}: the WTHOR folder has no such game"))?;
            let (positions, _) = replay(&played.moves).map_err(|e| format!("game {game}: {e}"))?;
            if positions.len() != samples.len()
                || !positions.iter().zip(samples).all(|(p, s)| same(p, s))
            {
                return Err(format!(
                    "game {game}: the records are not the positions of WTHOR game {game}"
                ));
            }
            Ok((positions, Vec::new()))
        }
    }
}

/// The bytes of a shard holding `games` (each the records of one game, in play order, games in
/// increasing index order). The header's counts and WTHOR files are filled in here.
pub fn encode_shard(
    header: &ShardHeader,
    games: &[Vec<Sample>],
    wthor: Option<&WthorFolder>,
) -> Result<Vec<u8>, String> {
    let mut header = header.clone();
    let (mut meta, mut moves, mut labels) = (Vec::new(), Vec::new(), Vec::new());
    let mut previous = u64::from(header.first_game);
    let (mut positions, mut exact) = (0u64, 0u64);
    for samples in games.iter().filter(|g| !g.is_empty()) {
        let game = samples[0].game;
        if samples.iter().any(|s| s.game != game) {
            return Err(format!(
                "game {game}: its records are mixed with another game's"
            ));
        }
        if u64::from(game) < previous || game >= header.end_game {
            return Err(format!(
                "game {game}: outside the shard's games {}..{} or out of order",
                header.first_game, header.end_game
            ));
        }
        let (replayed, ranks) = positions_of(samples, header.source, wthor)?;
        let first_exact = samples
            .iter()
            .position(Sample::is_exact)
            .unwrap_or(samples.len());
        if samples[first_exact..].iter().any(|s| !s.is_exact()) {
            return Err(format!(
                "game {game}: an inexact label after an exact one (exact labels run to the end)"
            ));
        }
        put_varint(&mut meta, u64::from(game) - previous);
        put_varint(&mut meta, samples.len() as u64);
        put_varint(&mut meta, first_exact as u64);
        meta.push(black_view(replayed[0].side_to_move(), samples[0].ending) as u8);
        moves.extend_from_slice(&ranks);
        let mut last = 0i8;
        for (p, s) in replayed.iter().zip(samples) {
            let b = black_view(p.side_to_move(), s.value);
            labels.push(b.wrapping_sub(last) as u8);
            last = b;
        }
        previous = u64::from(game) + 1;
        positions += samples.len() as u64;
        exact += (samples.len() - first_exact) as u64;
    }
    header.games = games.iter().filter(|g| !g.is_empty()).count() as u32;
    header.positions = positions;
    header.exact = exact;
    if header.source == ShardSource::Wthor {
        let folder = wthor.ok_or("WTHOR games need the WTHOR folder")?;
        header.wthor_files = folder
            .files
            .iter()
            .map(|f| WthorRef {
                name: f.name.clone(),
                sha256: f.sha256.clone(),
                games: f.games.len() as u32,
            })
            .collect();
    }
    let mut body = Vec::with_capacity(meta.len() + moves.len() + labels.len() + 16);
    for stream in [&meta, &moves, &labels] {
        put_varint(&mut body, stream.len() as u64);
    }
    body.extend_from_slice(&meta);
    body.extend_from_slice(&moves);
    body.extend_from_slice(&labels);
    let json = serde_json::to_vec(&header).map_err(|e| format!("cannot write the header: {e}"))?;
    let mut out = Vec::with_capacity(body.len() / 2 + json.len() + 12);
    out.extend_from_slice(SHARD_MAGIC);
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    let mut encoder = GzEncoder::new(out, Compression::best());
    encoder
        .write_all(&body)
        .map_err(|e| format!("cannot compress: {e}"))?;
    encoder
        .finish()
        .map_err(|e| format!("cannot compress: {e}"))
}

/// A shard's header and the compressed body after it; refuses a file that is not a shard.
pub fn read_shard_header(bytes: &[u8]) -> Result<(ShardHeader, &[u8]), String> {
    if bytes.len() < 12 || &bytes[..8] != SHARD_MAGIC {
        return Err("not a training shard (it does not start with OESHARD1)".into());
    }
    let length = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    if length > MAX_HEADER_BYTES || 12 + length > bytes.len() {
        return Err(format!(
            "truncated or corrupt: a header of {length} bytes in a file of {}",
            bytes.len()
        ));
    }
    let header: ShardHeader = serde_json::from_slice(&bytes[12..12 + length])
        .map_err(|e| format!("corrupt header: {e}"))?;
    Ok((header, &bytes[12 + length..]))
}

/// Checks that `folder` holds the WTHOR files `header` names, byte for byte.
fn check_wthor_files(header: &ShardHeader, folder: &WthorFolder) -> Result<(), String> {
    let same = header.wthor_files.len() == folder.files.len()
        && header
            .wthor_files
            .iter()
            .zip(&folder.files)
            .all(|(r, f)| r.name == f.name && r.sha256 == f.sha256);
    if same {
        return Ok(());
    }
    let differing = header
        .wthor_files
        .iter()
        .find(|r| {
            !folder
                .files
                .iter()
                .any(|f| f.name == r.name && f.sha256 == r.sha256)
        })
        .map_or_else(
            || "the folder has other files".to_string(),
            |r| format!("{} is missing or differs", r.name),
        );
    Err(format!(
        "its WTHOR games are not those of the folder given ({differing})"
    ))
}

/// Decodes a whole shard: its header and every labelled position, in game order.
pub fn decode_shard(
    bytes: &[u8],
    wthor: Option<&WthorFolder>,
) -> Result<(ShardHeader, Vec<Sample>), String> {
    let (header, compressed) = read_shard_header(bytes)?;
    if header.source == ShardSource::Wthor {
        let folder = wthor.ok_or("it labels WTHOR games: give the WTHOR folder (--wthor DIR)")?;
        check_wthor_files(&header, folder)?;
    }
    let mut body = Vec::new();
    GzDecoder::new(compressed)
        .take(64 * MAX_SHARD_BYTES as u64)
        .read_to_end(&mut body)
        .map_err(|e| format!("truncated or corrupt body: {e}"))?;
    let mut lengths = Stream::new("body", &body);
    let meta_len = lengths.varint()? as usize;
    let moves_len = lengths.varint()? as usize;
    let labels_len = lengths.varint()? as usize;
    let mut rest = Stream::new("body", &body[lengths.at..]);
    let mut meta = Stream::new("game", rest.take(meta_len)?);
    let mut moves = Stream::new("move", rest.take(moves_len)?);
    let mut labels = Stream::new("label", rest.take(labels_len)?);
    if !rest.finished() {
        return Err("corrupt body: bytes after the last stream".into());
    }
    let mut samples = Vec::with_capacity(header.positions.min(1 << 24) as usize);
    let (mut games, mut exact) = (0u32, 0u64);
    let mut next = u64::from(header.first_game);
    while !meta.finished() {
        let game = next + meta.varint()?;
        if game >= u64::from(header.end_game) {
            return Err(format!(
                "corrupt: game {game} outside the shard's games {}..{}",
                header.first_game, header.end_game
            ));
        }
        let game = game as u32;
        let n = meta.varint()? as usize;
        let first_exact = meta.varint()? as usize;
        let black_ending = meta.byte()? as i8;
        if n == 0 || n > 64 || first_exact > n || !(-64..=64).contains(&black_ending) {
            return Err(format!("corrupt: game {game} has impossible counts"));
        }
        let positions: Vec<Position> = match header.source {
            ShardSource::SelfPlay => {
                let mut positions = Vec::with_capacity(n);
                let mut position = Position::start();
                for i in 0..n {
                    if i > 0 {
                        let rank = moves.byte()? as usize;
                        let squares = position.legal_squares();
                        let next = squares
                            .get(rank)
                            .and_then(|&sq| after(&position, Move::Play(sq)))
                            .filter(|p| !p.is_game_over())
                            .ok_or_else(|| format!("corrupt: game {game}, move {i} is illegal"))?;
                        position = next;
                    }
                    positions.push(position);
                }
                positions
            }
            ShardSource::Wthor => {
                let folder = wthor.ok_or("WTHOR games need the WTHOR folder")?;
                let played = folder
                    .game(game as usize)
                    .ok_or_else(|| format!("corrupt: game {game} is not in the WTHOR folder"))?;
                let (positions, _) =
                    replay(&played.moves).map_err(|e| format!("game {game}: {e}"))?;
                if positions.len() != n {
                    return Err(format!(
                        "corrupt: game {game} has {n} labels for {} positions",
                        positions.len()
                    ));
                }
                positions
            }
        };
        let mut last = 0i8;
        for (i, p) in positions.iter().enumerate() {
            let b = last.wrapping_add(labels.byte()? as i8);
            last = b;
            let value = black_view(p.side_to_move(), b);
            if !(-64..=64).contains(&value) {
                return Err(format!("corrupt: game {game} has a label of {value}"));
            }
            let exact_here = i >= first_exact;
            samples.push(Sample {
                player: p.player(),
                opponent: p.opponent(),
                game,
                ending: black_view(p.side_to_move(), black_ending),
                value,
                empties: p.empty_count() as u8,
                flags: if exact_here { FLAG_EXACT } else { 0 }
                    | if header.source == ShardSource::Wthor {
                        FLAG_WTHOR
                    } else {
                        0
                    },
            });
        }
        exact += (n - first_exact) as u64;
        games += 1;
        next = u64::from(game) + 1;
    }
    if !moves.finished() || !labels.finished() {
        return Err("corrupt body: streams of different lengths".into());
    }
    if games != header.games || samples.len() as u64 != header.positions || exact != header.exact {
        return Err(format!(
            "corrupt: {games} games, {} positions and {exact} exact labels, the header says {}, {} and {}",
            samples.len(),
            header.games,
            header.positions,
            header.exact
        ));
    }
    Ok((header, samples))
}

/// The records of `samples` cut into games (runs of one game index).
pub fn split_games(samples: &[Sample]) -> Vec<Vec<Sample>> {
    let mut games: Vec<Vec<Sample>> = Vec::new();
    for s in samples {
        match games.last_mut() {
            Some(g) if g[0].game == s.game => g.push(*s),
            _ => games.push(vec![*s]),
        }
    }
    games
}
