//! A training run's checkpoint: everything needed to go on exactly where it stood (the
//! parameters, the optimiser's moments, the step and the place in the epoch), so that a
//! stopped and resumed run writes the same network as one that never stopped. It names the
//! run it belongs to (a fingerprint of the settings and the data), and a checkpoint of
//! another run is refused rather than continued.

use super::model::Model;
use crate::eval::network::NetShape;
use std::path::Path;

const MAGIC: &[u8; 8] = b"OENETCK1";

/// Where a run stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The run's fingerprint.
    pub run: u64,
    /// The epoch under way.
    pub epoch: usize,
    /// Batches of that epoch done.
    pub batch: usize,
    /// Optimiser steps done.
    pub step: u64,
    /// The model.
    pub model: Model,
    /// The optimiser's first moments.
    pub first: Vec<f32>,
    /// The optimiser's second moments.
    pub second: Vec<f32>,
}

impl Checkpoint {
    /// The checkpoint's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.model.params.len();
        let mut out = Vec::with_capacity(64 + 12 * n);
        out.extend_from_slice(MAGIC);
        let s = self.model.shape;
        for v in [
            self.run,
            self.epoch as u64,
            self.batch as u64,
            self.step,
            s.width as u64,
            s.hidden as u64,
            s.buckets as u64,
            n as u64,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for part in [&self.model.params, &self.first, &self.second] {
            for v in part.iter() {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// Reads a checkpoint of the run `run` (its fingerprint) and shape `shape`.
    pub fn from_bytes(bytes: &[u8], run: u64, shape: NetShape) -> Result<Checkpoint, String> {
        if bytes.len() < 72 || &bytes[..8] != MAGIC {
            return Err("not a network training checkpoint".into());
        }
        let word =
            |i: usize| u64::from_le_bytes(bytes[8 + 8 * i..16 + 8 * i].try_into().expect("8"));
        let found = NetShape {
            width: word(4) as usize,
            hidden: word(5) as usize,
            buckets: word(6) as usize,
            // The run's fingerprint tells the row format.
            rows: shape.rows,
        };
        if found != shape {
            return Err(format!(
                "a checkpoint of another network (width {}, hidden {}, {} buckets)",
                found.width, found.hidden, found.buckets
            ));
        }
        if word(0) != run {
            return Err("a checkpoint of another run (other data or settings)".into());
        }
        let n = word(7) as usize;
        if bytes.len() != 72 + 12 * n {
            return Err(format!("truncated checkpoint ({} bytes)", bytes.len()));
        }
        let floats = |k: usize| -> Vec<f32> {
            bytes[72 + 4 * n * k..72 + 4 * n * (k + 1)]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
                .collect()
        };
        let (params, first, second) = (floats(0), floats(1), floats(2));
        if params
            .iter()
            .chain(&first)
            .chain(&second)
            .any(|v| !v.is_finite())
        {
            return Err("a checkpoint holding NaN or infinite values".into());
        }
        let model = Model { shape, params };
        if model.params.len() != super::model::Layout::of(shape).end {
            return Err("a checkpoint of another input layout".into());
        }
        Ok(Checkpoint {
            run,
            epoch: word(1) as usize,
            batch: word(2) as usize,
            step: word(3),
            model,
            first,
            second,
        })
    }

    /// Reads the checkpoint at `path`, if there is one.
    pub fn load(path: &Path, run: u64, shape: NetShape) -> Result<Option<Checkpoint>, String> {
        match std::fs::read(path) {
            Ok(bytes) => Checkpoint::from_bytes(&bytes, run, shape)
                .map(Some)
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Writes the checkpoint to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        crate::sys::files::write_atomically(path, &self.to_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}
