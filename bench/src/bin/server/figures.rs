//! What one program's measurements come to, pooled across rounds.

use std::time::Duration;

#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// One sample per timed round trip.
    pub latencies: Vec<Duration>,
    /// Requests per second, one per burst or window.
    pub rates: Vec<f64>,
    /// Server CPU time (user + system) over the throughput runs.
    pub cpu: Duration,
    /// Calls answered over the throughput runs.
    pub calls: u64,
    /// Resident set size right after start, KiB.
    pub idle_rss_kib: Vec<u64>,
    /// Resident set size after the throughput runs, KiB.
    pub loaded_rss_kib: Vec<u64>,
}

impl Figures {
    pub fn merge(&mut self, other: Figures) {
        self.latencies.extend(other.latencies);
        self.rates.extend(other.rates);
        self.cpu += other.cpu;
        self.calls += other.calls;
        self.idle_rss_kib.extend(other.idle_rss_kib);
        self.loaded_rss_kib.extend(other.loaded_rss_kib);
    }

    /// The latency below which a fraction `q` of the samples fall.
    pub fn latency(&self, q: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let index = ((sorted.len() as f64 * q) as usize).min(sorted.len().saturating_sub(1));
        sorted.get(index).copied().unwrap_or_default()
    }

    pub fn rate(&self) -> f64 {
        median(&self.rates)
    }

    /// The median rate with the lowest and highest, as the table shows it.
    pub fn rate_spread(&self) -> String {
        let low = self.rates.iter().copied().fold(f64::INFINITY, f64::min);
        let high = self.rates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{:.0} ({low:.0}–{high:.0})", self.rate())
    }

    pub fn cpu_per_call(&self) -> Duration {
        self.cpu / u32::try_from(self.calls.max(1)).unwrap_or(u32::MAX)
    }

    pub fn idle_rss(&self) -> f64 {
        median(
            &self
                .idle_rss_kib
                .iter()
                .map(|&k| k as f64)
                .collect::<Vec<_>>(),
        )
    }

    pub fn loaded_rss(&self) -> f64 {
        median(
            &self
                .loaded_rss_kib
                .iter()
                .map(|&k| k as f64)
                .collect::<Vec<_>>(),
        )
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
}
