//! How long to wait before trying again after a passing failure: delays
//! that double from a first one up to a ceiling, and none once the time
//! left is spent. Pure: the caller says how many failures came in a row
//! and how much time is left, and keeps the clock itself.
//!
//! ```
//! use std::time::Duration;
//! use mcp_types::backoff::Backoff;
//!
//! let backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(2));
//! let left = Duration::from_secs(10);
//! assert_eq!(backoff.delay(1, left), Some(Duration::from_millis(100)));
//! assert_eq!(backoff.delay(3, left), Some(Duration::from_millis(400)));
//! assert_eq!(backoff.delay(9, left), Some(Duration::from_secs(2)));
//! // Never past the deadline, and nothing once it is reached.
//! assert_eq!(backoff.delay(9, Duration::from_millis(50)), Some(Duration::from_millis(50)));
//! assert_eq!(backoff.delay(1, Duration::ZERO), None);
//! ```

use std::time::Duration;

/// Doubling delays between `first` and `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    first: Duration,
    max: Duration,
}

impl Backoff {
    /// Delays from `first`, doubling after each failure, up to `max`.
    pub const fn new(first: Duration, max: Duration) -> Self {
        Backoff { first, max }
    }

    /// The wait after `failures` failures in a row (from 1), when `left`
    /// is the time left before the deadline: never longer than `left`, and
    /// `None` when no time is left (give up).
    pub fn delay(&self, failures: u32, left: Duration) -> Option<Duration> {
        if left.is_zero() {
            return None;
        }
        let doublings = failures.saturating_sub(1).min(31);
        let delay = self
            .first
            .checked_mul(1 << doublings)
            .unwrap_or(self.max)
            .min(self.max);
        Some(delay.min(left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn delays_double_up_to_the_ceiling_and_stop_at_the_deadline() {
        let backoff = Backoff::new(10 * MS, 1_000 * MS);
        let plenty = Duration::from_secs(60);
        for (failures, left, delay) in [
            (0, plenty, Some(10 * MS)),
            (1, plenty, Some(10 * MS)),
            (2, plenty, Some(20 * MS)),
            (4, plenty, Some(80 * MS)),
            (7, plenty, Some(640 * MS)),
            (8, plenty, Some(1_000 * MS)),
            (u32::MAX, plenty, Some(1_000 * MS)),
            (4, 30 * MS, Some(30 * MS)),
            (1, MS, Some(MS)),
            (1, Duration::ZERO, None),
            (u32::MAX, Duration::ZERO, None),
        ] {
            assert_eq!(backoff.delay(failures, left), delay, "{failures} {left:?}");
        }
    }

    #[test]
    fn a_huge_first_delay_saturates_at_the_ceiling() {
        let backoff = Backoff::new(Duration::MAX, Duration::from_secs(5));
        assert_eq!(
            backoff.delay(3, Duration::MAX),
            Some(Duration::from_secs(5))
        );
    }
}
