//! Fitting what the evaluators read, apart from what the search calls: the network's trainer
//! (`net/`). It reads `eval` (the features, the network's integer form) and writes files the
//! evaluators load; nothing in `eval` or `search` imports it.

pub mod net;
