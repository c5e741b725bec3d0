//! A folder of training shards and its manifest (`MANIFEST.json`): every shard's file name,
//! SHA-256, counts, label recipe, and the command, commit and core-hours that made it. The
//! trainer reads a folder only through its manifest, checks every file's digest, and refuses a
//! shard the manifest does not name, a named one that is missing, and shards labelled by
//! different recipes, so that what a set of weights was fitted to is always known. WTHOR
//! shards are read with the WTHOR files they pin, and a file missing or other than pinned is
//! refused by name before any game is read.

use super::shard::{SHARD_EXTENSION, ShardHeader, ShardSource, decode_shard, read_shard_header};
use crate::fit::dataset::Sample;
use crate::game::wthor::WthorFolder;
use crate::sys::files::{sha256_hex, write_atomically};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The manifest's file name in a shard folder.
pub const MANIFEST_NAME: &str = "MANIFEST.json";

/// One shard as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    /// The file's name in the folder.
    pub file: String,
    /// Its SHA-256.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
    /// Self-play or WTHOR.
    pub source: ShardSource,
    /// The label recipe.
    pub labels: String,
    /// The fingerprint of the weights that labelled it, as its header says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_weights: Option<String>,
    /// Games, positions and exact positions.
    pub games: u32,
    /// Labelled positions.
    pub positions: u64,
    /// Positions with an exact label.
    pub exact: u64,
    /// The command line that made it.
    pub command: String,
    /// The commit of the binary that made it.
    pub commit: String,
    /// Core-hours spent.
    pub core_hours: f64,
}

/// A folder's manifest.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The fingerprint of the weights that labelled every shard of the folder: set by the
    /// first shard that names its weights in an empty folder (or by hand, for shards made
    /// before shards named them), and from then on the only weights a run may add with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_weights: Option<String>,
    /// The shards, by file name.
    pub shards: Vec<ManifestEntry>,
}

impl Manifest {
    /// The manifest of `dir`; an empty one where there is none yet.
    pub fn load(dir: &Path) -> Result<Manifest, String> {
        let path = dir.join(MANIFEST_NAME);
        if !path.exists() {
            return Ok(Manifest::default());
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: not a manifest: {e}", path.display()))
    }

    /// Writes the manifest of `dir` at once (never half a file).
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(MANIFEST_NAME);
        let mut text =
            serde_json::to_string_pretty(self).map_err(|e| format!("cannot write: {e}"))?;
        text.push('\n');
        write_atomically(&path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// Adds (or replaces) the entry of shard `file` whose bytes are `bytes`.
    pub fn record(&mut self, file: &str, bytes: &[u8], header: &ShardHeader) {
        let entry = ManifestEntry {
            file: file.to_string(),
            sha256: sha256_hex(bytes),
            bytes: bytes.len() as u64,
            source: header.source,
            labels: header.labels.clone(),
            label_weights: header.label_weights.clone(),
            games: header.games,
            positions: header.positions,
            exact: header.exact,
            command: header.command.clone(),
            commit: header.commit.clone(),
            core_hours: header.core_seconds / 3600.0,
        };
        self.shards.retain(|e| e.file != file);
        if self.shards.is_empty() && self.label_weights.is_none() {
            self.label_weights = header.label_weights.clone();
        }
        self.shards.push(entry);
        self.shards.sort_by(|a, b| a.file.cmp(&b.file));
    }

    /// The entry of shard `file`, if listed.
    pub fn entry(&self, file: &str) -> Option<&ManifestEntry> {
        self.shards.iter().find(|e| e.file == file)
    }

    /// The weights that labelled the folder's shards, where the folder or a shard says.
    pub fn labelled_by(&self) -> Option<&str> {
        self.label_weights
            .as_deref()
            .or_else(|| self.shards.iter().find_map(|e| e.label_weights.as_deref()))
    }

    /// The first shard whose weights are not the folder's, with the folder's.
    fn foreign_weights(&self) -> Option<(&ManifestEntry, &str)> {
        let folder = self.labelled_by()?;
        self.shards
            .iter()
            .find(|e| e.label_weights.as_deref().is_some_and(|w| w != folder))
            .map(|e| (e, folder))
    }
}

/// The first 12 hex digits of a weights fingerprint, enough to tell weights apart in a message.
pub fn short_fingerprint(fingerprint: &str) -> &str {
    fingerprint.get(..12).unwrap_or(fingerprint)
}

/// The shard files (`*.oes`) of `dir`, by name.
pub fn shard_files(dir: &Path) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(&format!(".{SHARD_EXTENSION}")) && !n.starts_with('.'))
        .collect();
    names.sort();
    Ok(names)
}

/// The manifest of a shard folder, checked against the folder: every shard in it is listed,
/// every listed shard is there, and all have one label recipe. Digests are checked as each
/// file is read ([`read_checked`]).
pub fn checked_manifest(dir: &Path) -> Result<Manifest, String> {
    let manifest_path = dir.join(MANIFEST_NAME);
    if !manifest_path.exists() {
        return Err(format!("{}: no {MANIFEST_NAME}", dir.display()));
    }
    let manifest = Manifest::load(dir)?;
    let files = shard_files(dir)?;
    if let Some(stray) = files.iter().find(|f| manifest.entry(f).is_none()) {
        return Err(format!(
            "{}: not in {}: a shard the manifest does not name",
            dir.join(stray).display(),
            manifest_path.display()
        ));
    }
    if let Some(missing) = manifest.shards.iter().find(|e| !files.contains(&e.file)) {
        return Err(format!(
            "{}: named in {} but missing",
            dir.join(&missing.file).display(),
            manifest_path.display()
        ));
    }
    if let Some(first) = manifest.shards.first()
        && let Some(other) = manifest.shards.iter().find(|e| e.labels != first.labels)
    {
        return Err(format!(
            "{}: labelled by \"{}\", but {} by \"{}\": a training set mixes one recipe",
            dir.join(&other.file).display(),
            other.labels,
            first.file,
            first.labels
        ));
    }
    if let Some((other, folder)) = manifest.foreign_weights() {
        return Err(format!(
            "{}: labelled by the weights {}, but the folder's are {}: a training set mixes one set of label weights",
            dir.join(&other.file).display(),
            short_fingerprint(other.label_weights.as_deref().unwrap_or_default()),
            short_fingerprint(folder)
        ));
    }
    Ok(manifest)
}

/// Reads shard `entry` of `dir`, checking its digest, size and header against the manifest.
pub fn read_checked(dir: &Path, entry: &ManifestEntry) -> Result<Vec<u8>, String> {
    let path = dir.join(&entry.file);
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let digest = sha256_hex(&bytes);
    if digest != entry.sha256 || bytes.len() as u64 != entry.bytes {
        return Err(format!(
            "{}: SHA-256 {digest} ({} bytes), the manifest says {} ({} bytes)",
            path.display(),
            bytes.len(),
            entry.sha256,
            entry.bytes
        ));
    }
    let (header, _) = read_shard_header(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if header.labels != entry.labels
        || header.label_weights != entry.label_weights
        || header.positions != entry.positions
    {
        return Err(format!(
            "{}: its header does not agree with the manifest",
            path.display()
        ));
    }
    Ok(bytes)
}

/// Every labelled position of the shard folder `dir`, checked as [`checked_manifest`] and
/// [`read_checked`] say; `wthor` is needed when the folder holds WTHOR shards.
pub fn read_shard_folder(
    dir: &Path,
    wthor: Option<&WthorFolder>,
) -> Result<(Manifest, Vec<Sample>), String> {
    let manifest = checked_manifest(dir)?;
    let mut samples = Vec::new();
    for entry in &manifest.shards {
        let bytes = read_checked(dir, entry)?;
        let (_, mut s) = decode_shard(&bytes, wthor)
            .map_err(|e| format!("{}: {e}", dir.join(&entry.file).display()))?;
        samples.append(&mut s);
    }
    Ok((manifest, samples))
}

/// The WTHOR games shard `shard` labels: the files its `header` pins, read from `wthor_dir`
/// and checked byte for byte ([`WthorFolder::read_pinned`]). A refusal names the shard and the
/// file.
pub fn pinned_wthor(
    shard: &Path,
    header: &ShardHeader,
    wthor_dir: &Path,
) -> Result<WthorFolder, String> {
    if header.wthor_files.is_empty() {
        return Err(format!(
            "{}: a WTHOR shard that pins no WTHOR files",
            shard.display()
        ));
    }
    let pins: Vec<(&str, &str)> = header
        .wthor_files
        .iter()
        .map(|f| (f.name.as_str(), f.sha256.as_str()))
        .collect();
    WthorFolder::read_pinned(wthor_dir, &pins)
        .map_err(|e| format!("{}: its WTHOR games: {e}", shard.display()))
}

/// The WTHOR games the shards of folder `dir` label, as its first WTHOR shard pins them
/// ([`pinned_wthor`]; decoding checks every other shard's pins against the same files);
/// `None` when the folder holds no WTHOR shard.
pub fn folder_wthor(
    dir: &Path,
    manifest: &Manifest,
    wthor_dir: &Path,
) -> Result<Option<WthorFolder>, String> {
    let Some(entry) = manifest
        .shards
        .iter()
        .find(|e| e.source == ShardSource::Wthor)
    else {
        return Ok(None);
    };
    let shard = dir.join(&entry.file);
    let bytes = read_checked(dir, entry)?;
    let (header, _) = read_shard_header(&bytes).map_err(|e| format!("{}: {e}", shard.display()))?;
    pinned_wthor(&shard, &header, wthor_dir).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(file: &str, label_weights: Option<&str>) -> ManifestEntry {
        ManifestEntry {
            file: file.into(),
            sha256: String::new(),
            bytes: 0,
            source: ShardSource::SelfPlay,
            labels: "depth 6".into(),
            label_weights: label_weights.map(str::to_string),
            games: 1,
            positions: 60,
            exact: 20,
            command: String::new(),
            commit: String::new(),
            core_hours: 0.0,
        }
    }

    #[test]
    fn shards_that_name_no_weights_have_their_folders() {
        // Shards made before shards named their weights, and one that names the folder's.
        let mut manifest = Manifest {
            label_weights: Some("aaaa".into()),
            shards: vec![entry("a.oes", None), entry("b.oes", Some("aaaa"))],
        };
        assert_eq!(manifest.labelled_by(), Some("aaaa"));
        assert!(manifest.foreign_weights().is_none());
        manifest.shards.push(entry("c.oes", Some("bbbb")));
        assert_eq!(
            manifest.foreign_weights().map(|(e, _)| &e.file[..]),
            Some("c.oes")
        );
        // Without the folder's word, the first shard that names weights speaks for it.
        manifest.label_weights = None;
        assert_eq!(manifest.labelled_by(), Some("aaaa"));
        assert!(manifest.foreign_weights().is_some());
        manifest.shards.retain(|e| e.label_weights.is_none());
        assert_eq!(manifest.labelled_by(), None);
    }
}
