//! Fitting what the evaluators read, apart from what the search calls: the training-data
//! file format (`dataset.rs`), the linear pattern weights' fit (`linear/`, by ridge
//! regression in `least_squares.rs`) and the network's trainer (`net/`). It reads `eval` (the
//! features, the weight tables, the network's integer form) and writes the files the
//! evaluators load; nothing in `eval` or `search` imports it.

pub mod dataset;
mod least_squares;
pub mod linear;
pub mod net;
