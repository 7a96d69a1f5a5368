//! Timing helpers shared by the benchmark binaries.

use std::time::{Duration, Instant};

/// Runs `f` `runs` times and returns the sorted durations.
pub fn sample(runs: usize, mut f: impl FnMut()) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

/// Milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
