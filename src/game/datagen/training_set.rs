//! A training set: the labelled positions of shard folders, single shards and files of the
//! 24-byte format, and how they were labelled (the recipe in words and the fingerprint of the
//! weights whose searches made the labels). A folder holds one recipe; a set joining folders of
//! several recipes says how many positions each gave, so that what was fitted is known.

use super::manifest;
use super::shard;
use crate::eval::EvaluatorKind;
use crate::fit::dataset::{Sample, read_dataset};
use std::path::Path;

/// The fingerprint of the network `neural` evaluates with in this process: the SHA-256 of its
/// file's bytes as [`to_bytes`](crate::eval::network::Network::to_bytes) writes them.
pub fn network_fingerprint() -> String {
    crate::sys::files::sha256_hex(&crate::eval::network::active_network().to_bytes())
}

/// The fingerprint of the weights (or, for `neural`, the network) `eval` searches with, as this process has them (the
/// SHA-256 of their [canonical bytes](crate::eval::pattern::PatternWeights::canonical_bytes)
/// in hex): what tells labels made by one build's weights from another's. `None` for an
/// evaluator without weights.
pub fn weights_fingerprint(eval: EvaluatorKind) -> Option<String> {
    use crate::eval::pattern::{active_weights, full_weights, wthor_weights};
    let weights = match eval {
        EvaluatorKind::Pattern => active_weights(),
        EvaluatorKind::PatternFull => full_weights(),
        EvaluatorKind::PatternWthor => wthor_weights(),
        EvaluatorKind::Neural => return Some(network_fingerprint()),
        _ => return None,
    };
    Some(crate::sys::files::sha256_hex(&weights.canonical_bytes()))
}

/// How a set of positions was labelled: the recipe in words and the weights' fingerprint, as
/// far as its files say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSource {
    /// The label recipe; `None` for the 24-byte format, which names none.
    pub recipe: Option<String>,
    /// The weights' fingerprint; `None` where no shard names it.
    pub weights: Option<String>,
}

/// The labelled positions of `path` and how they were labelled: a shard folder (through its
/// checked manifest), one shard, or a file of the 24-byte format (which names no recipe).
/// WTHOR shards are read with the games of `wthor_dir`, which must hold the very files they pin.
pub fn read_training_data(
    path: &Path,
    wthor_dir: &Path,
) -> Result<(LabelSource, Vec<Sample>), String> {
    if path.is_dir() {
        let manifest = manifest::checked_manifest(path)?;
        let wthor = manifest::folder_wthor(path, &manifest, wthor_dir)?;
        let labels = LabelSource {
            recipe: manifest.shards.first().map(|e| e.labels.clone()),
            weights: manifest.labelled_by().map(str::to_string),
        };
        return manifest::read_shard_folder(path, wthor.as_ref()).map(|(_, s)| (labels, s));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.starts_with(shard::SHARD_MAGIC) {
        let (header, _) =
            shard::read_shard_header(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let wthor = (header.source == shard::ShardSource::Wthor)
            .then(|| manifest::pinned_wthor(path, &header, wthor_dir))
            .transpose()?;
        return shard::decode_shard(&bytes, wthor.as_ref())
            .map(|(h, s)| {
                // A shard made before shards named their weights has its folder's.
                let folder = || {
                    let dir = path.parent()?;
                    let manifest = manifest::Manifest::load(dir).ok()?;
                    manifest.labelled_by().map(str::to_string)
                };
                let labels = LabelSource {
                    recipe: Some(h.labels),
                    weights: h.label_weights.or_else(folder),
                };
                (labels, s)
            })
            .map_err(|e| format!("{}: {e}", path.display()));
    }
    read_dataset(path).map(|s| (LabelSource::default(), s))
}

/// The positions of every path in `paths` ([`read_training_data`]), in the order given; `each`
/// gets every path's positions in turn. A folder holds one recipe (its manifest is checked), but
/// a training set may join folders of several recipes (the older `pattern`-labelled data beside
/// the network's own): the result says how many positions each recipe gave, so that what a
/// model was fitted to is always printed.
pub fn read_all_training_data(
    paths: &[String],
    wthor_dir: &Path,
    each: &mut dyn FnMut(&str, Vec<Sample>),
) -> Result<Vec<(LabelSource, u64)>, String> {
    let mut sources: Vec<(LabelSource, u64)> = Vec::new();
    for path in paths {
        let (labels, samples) = read_training_data(Path::new(path), wthor_dir)?;
        let count = samples.len() as u64;
        match sources.iter_mut().find(|(known, _)| *known == labels) {
            Some((_, n)) => *n += count,
            None => sources.push((labels, count)),
        }
        each(path, samples);
    }
    Ok(sources)
}

/// One line per recipe of a training set, for the trainers' output.
pub fn describe_sources(sources: &[(LabelSource, u64)]) -> Vec<String> {
    sources
        .iter()
        .map(|(labels, count)| {
            let recipe = labels
                .recipe
                .as_deref()
                .unwrap_or("a recipe the files do not name");
            let what = if recipe.contains("with neural") {
                "network"
            } else {
                "weights"
            };
            match &labels.weights {
                Some(w) => format!(
                    "{count} positions labelled by \"{recipe}\", {what} {}",
                    manifest::short_fingerprint(w)
                ),
                None => format!("{count} positions labelled by \"{recipe}\""),
            }
        })
        .collect()
}
