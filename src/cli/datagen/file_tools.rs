//! `datagen merge` and `datagen stats` of one file of the 24-byte format (`--out`): the tools
//! for the files a run writes without shards.

use crate::cli::args::{CliError, error};
use crate::fit::dataset::{DatasetWriter, read_dataset};
use crate::game::datagen::{STATS_BRACKET, dataset_stats, merge_shards};
use std::fs::OpenOptions;
use std::path::Path;

/// `datagen merge`: the shard files joined in game order.
pub(super) fn merge(files: &[String], out: Option<&str>) -> Result<(), CliError> {
    let out = out.ok_or_else(|| error("datagen merge needs --out FILE"))?;
    if files.is_empty() {
        return Err(error("datagen merge needs the files to merge"));
    }
    if Path::new(out).exists() {
        return Err(error(format!("{out} exists: remove it first")));
    }
    let mut read = Vec::with_capacity(files.len());
    for name in files {
        read.push((name.clone(), read_dataset(Path::new(name)).map_err(error)?));
    }
    let merged = merge_shards(&read).map_err(error)?;
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
        .map_err(|e| error(format!("cannot create {out}: {e}")))?;
    let mut writer =
        DatasetWriter::create(file).map_err(|e| error(format!("cannot write {out}: {e}")))?;
    writer
        .write_game(&merged)
        .map_err(|e| error(format!("cannot write {out}: {e}")))?;
    let games = dataset_stats(&merged).games;
    println!(
        "datagen merge: {} files, {games} games, {} positions into {out}",
        files.len(),
        merged.len()
    );
    Ok(())
}

/// `datagen stats`: what a data file holds.
pub(super) fn stats(file: &str) -> Result<(), CliError> {
    let samples = read_dataset(Path::new(file)).map_err(error)?;
    let s = dataset_stats(&samples);
    println!(
        "{file}: {} records, {} games, {} exact labels, {} from WTHOR games",
        s.records, s.games, s.exact, s.wthor
    );
    println!("empties  records    exact");
    for (bracket, &(records, exact)) in s.by_empties.iter().enumerate() {
        if records > 0 {
            let low = bracket * STATS_BRACKET;
            println!(
                "{:>7}  {records:>7}  {exact:>7}",
                format!("{low}-{}", low + STATS_BRACKET - 1)
            );
        }
    }
    Ok(())
}
