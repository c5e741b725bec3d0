//! The OBF test files of `data/positions/`: the FFO endgame suite and `midgame10.obf`.

/// The positions of an OBF file of data/positions, with their scored moves.
pub fn read_obf(name: &str) -> Vec<othello_engine::board::ObfLine> {
    let path = super::data("positions").join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| othello_engine::board::parse_obf_line(l).expect("valid OBF line"))
        .collect()
}
