//! What the benchmarks share beyond their own binaries.

pub mod chart;
pub mod measure;
