//! A training set: the labelled positions of shard folders, single shards and files of the
//! 24-byte format, and how they were labelled (the recipe in words and the fingerprint of the
//! weights whose searches made the labels). Sets labelled differently are refused together:
//! weights fitted to a mix would learn two teachers at once, and nobody could say which.

use super::manifest;
use super::shard;
use crate::eval::EvaluatorKind;
use crate::fit::dataset::{Sample, read_dataset};
use std::path::Path;

/// The fingerprint of the pattern weights `eval` searches with, as this process has them (the
/// SHA-256 of their [canonical bytes](crate::eval::pattern::PatternWeights::canonical_bytes)
/// in hex): what tells labels made by one build's weights from another's. `None` for an
/// evaluator without weights.
pub fn weights_fingerprint(eval: EvaluatorKind) -> Option<String> {
    use crate::eval::pattern::{active_weights, full_weights, wthor_weights};
    let weights = match eval {
        EvaluatorKind::Pattern => active_weights(),
        EvaluatorKind::PatternFull => full_weights(),
        EvaluatorKind::PatternWthor => wthor_weights(),
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

/// The positions of every path in `paths` ([`read_training_data`]), refusing paths labelled by
/// different recipes; `each` gets every path's positions in turn.
pub fn read_all_training_data(
    paths: &[String],
    wthor_dir: &Path,
    each: &mut dyn FnMut(&str, Vec<Sample>),
) -> Result<(), String> {
    let mut first_recipe: Option<(String, String)> = None;
    let mut first_weights: Option<(String, String)> = None;
    for path in paths {
        let (labels, samples) = read_training_data(Path::new(path), wthor_dir)?;
        if let Some(recipe) = labels.recipe {
            match &first_recipe {
                Some((other, first)) if *first != recipe => {
                    return Err(format!(
                        "{path}: labelled by \"{recipe}\", but {other} by \"{first}\": a training set mixes one recipe"
                    ));
                }
                Some(_) => {}
                None => first_recipe = Some((path.clone(), recipe)),
            }
        }
        if let Some(weights) = labels.weights {
            match &first_weights {
                Some((other, first)) if *first != weights => {
                    return Err(format!(
                        "{path}: labelled by the weights {}, but {other} by {}: a training set mixes one set of label weights",
                        manifest::short_fingerprint(&weights),
                        manifest::short_fingerprint(first)
                    ));
                }
                Some(_) => {}
                None => first_weights = Some((path.clone(), weights)),
            }
        }
        each(path, samples);
    }
    Ok(())
}
