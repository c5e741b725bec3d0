//! The OBF test files of `../shared/positions/`, beside the crate, where the FFO suite lives.

use std::path::PathBuf;

/// `../shared/positions/<name>` beside the crate.
pub fn shared_positions(name: &str) -> PathBuf {
    super::shared("positions").join(name)
}

/// The positions of an OBF file in ../shared/positions, with their scored moves.
pub fn read_obf(name: &str) -> Vec<othello_engine::board::ObfLine> {
    let path = shared_positions(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| othello_engine::board::parse_obf_line(l).expect("valid OBF line"))
        .collect()
}
