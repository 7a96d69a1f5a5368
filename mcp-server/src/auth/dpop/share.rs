//! Each principal's share of the DPoP proofs this replica records in the
//! replay guard. A full guard refuses every DPoP request (it cannot
//! record their proofs), so one principal sending many requests, each
//! with a fresh `jti`, could otherwise have every other principal
//! refused. Each principal may hold at most `share` unexpired entries;
//! one more proof of a principal at its share is refused before anything
//! is recorded, and the other principals are still served.
//!
//! The shares are kept in this process, per replica by design: a replica
//! counts only the proofs it recorded itself. Entries are counted per
//! second of expiry, so one principal costs at most one entry per second
//! of the proofs' lifetime (about six minutes), however many proofs it
//! sends. Every expired entry is dropped at the next count, and a
//! principal without entries has no place in the table, so the table
//! holds only the principals with proofs that have not expired. The time
//! is an argument, as in the rest of `dpop`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// How many proofs each principal may have recorded, and those it has.
#[derive(Debug)]
pub(crate) struct Shares {
    share: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    /// The unexpired entries of each principal that has any.
    principals: HashMap<Arc<str>, Entries>,
    /// Every (second of expiry, principal) of `principals`, in order of
    /// expiry, to drop the expired ones cheaply.
    by_expiry: BTreeSet<(u64, Arc<str>)>,
}

/// One principal's entries: how many expire at each second (since the
/// epoch), and how many there are in all.
#[derive(Debug, Default)]
struct Entries {
    by_expiry: BTreeMap<u64, usize>,
    count: usize,
}

/// Why no place was given: the principal holds its whole share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AtShare {
    /// The seconds until the principal's oldest entry expires, and a
    /// place is free again: at least 1.
    pub(crate) retry_after: u64,
}

impl Shares {
    /// Shares of `share` entries each; 0 is taken as 1.
    pub(crate) fn new(share: usize) -> Self {
        Shares {
            share: share.max(1),
            held: Mutex::default(),
        }
    }

    /// How many entries one principal may hold.
    pub(crate) fn share(&self) -> usize {
        self.share
    }

    /// A place for one more entry of `principal`, expiring at `until`
    /// (seconds since the epoch), at the time `now`; expired entries of
    /// every principal are dropped first. The place is given back when
    /// it drops, unless it is [kept](Place::keep): keep it once the proof
    /// is recorded.
    ///
    /// # Errors
    ///
    /// [`AtShare`] when `principal` already holds its whole share.
    pub(crate) fn take(
        &self,
        principal: &Arc<str>,
        until: u64,
        now: u64,
    ) -> Result<Place<'_>, AtShare> {
        let mut held = self.lock();
        held.purge(now);
        if let Some(entries) = held.principals.get(principal) {
            if entries.count >= self.share {
                let oldest = entries.by_expiry.keys().next().copied().unwrap_or(now);
                return Err(AtShare {
                    retry_after: oldest.saturating_sub(now).max(1),
                });
            }
        }
        held.add(principal, until);
        Ok(Place {
            shares: self,
            principal: principal.clone(),
            until,
            kept: false,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        // Each operation leaves the table whole, even if a holder panicked.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Held {
    fn add(&mut self, principal: &Arc<str>, until: u64) {
        let entries = self.principals.entry(principal.clone()).or_default();
        *entries.by_expiry.entry(until).or_insert(0) += 1;
        entries.count += 1;
        self.by_expiry.insert((until, principal.clone()));
    }

    /// Removes one entry of `principal` expiring at `until`, if there is
    /// one.
    fn remove_one(&mut self, principal: &Arc<str>, until: u64) {
        let Some(entries) = self.principals.get_mut(principal) else {
            return;
        };
        let Some(at) = entries.by_expiry.get_mut(&until) else {
            return;
        };
        *at -= 1;
        entries.count -= 1;
        if *at == 0 {
            entries.by_expiry.remove(&until);
            self.by_expiry.remove(&(until, principal.clone()));
        }
        if entries.count == 0 {
            self.principals.remove(principal);
        }
    }

    /// Drops every entry that has expired at `now`, and the principals
    /// left without one.
    fn purge(&mut self, now: u64) {
        while let Some((until, _)) = self.by_expiry.first() {
            if *until > now {
                break;
            }
            let Some((until, principal)) = self.by_expiry.pop_first() else {
                break;
            };
            if let Some(entries) = self.principals.get_mut(&principal) {
                let dropped = entries.by_expiry.remove(&until).unwrap_or(0);
                entries.count -= dropped;
                if entries.count == 0 {
                    self.principals.remove(&principal);
                }
            }
        }
    }
}

/// A principal's place for one entry, given back when it drops unless it
/// is kept.
#[derive(Debug)]
pub(crate) struct Place<'a> {
    shares: &'a Shares,
    principal: Arc<str>,
    until: u64,
    kept: bool,
}

impl Place<'_> {
    /// Keeps the place until the entry expires: its proof was recorded.
    pub(crate) fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        if !self.kept {
            self.shares.lock().remove_one(&self.principal, self.until);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(name: &str) -> Arc<str> {
        Arc::from(name)
    }

    fn keep(shares: &Shares, who: &Arc<str>, until: u64, now: u64) -> Result<(), AtShare> {
        shares.take(who, until, now).map(Place::keep)
    }

    #[test]
    fn a_principal_at_its_share_is_refused_and_others_are_not() {
        let shares = Shares::new(2);
        let (alice, bob) = (principal("alice"), principal("bob"));
        assert_eq!(keep(&shares, &alice, 1_100, 1_000), Ok(()));
        assert_eq!(keep(&shares, &alice, 1_110, 1_000), Ok(()));
        assert_eq!(
            keep(&shares, &alice, 1_120, 1_000),
            Err(AtShare { retry_after: 100 }),
            "the oldest entry expires in 100 s"
        );
        assert_eq!(keep(&shares, &bob, 1_120, 1_000), Ok(()));
        assert_eq!(
            keep(&shares, &bob, 1_120, 1_000),
            Ok(()),
            "one second, twice"
        );
        assert_eq!(
            keep(&shares, &bob, 1_130, 1_119),
            Err(AtShare { retry_after: 1 })
        );
    }

    #[test]
    fn an_expired_entry_frees_a_place() {
        let shares = Shares::new(2);
        let alice = principal("alice");
        assert_eq!(keep(&shares, &alice, 1_100, 1_000), Ok(()));
        assert_eq!(keep(&shares, &alice, 1_200, 1_000), Ok(()));
        assert_eq!(
            keep(&shares, &alice, 1_300, 1_099),
            Err(AtShare { retry_after: 1 })
        );
        // At 1,100 the first entry has expired: one place is free, and
        // only one.
        assert_eq!(keep(&shares, &alice, 1_300, 1_100), Ok(()));
        assert_eq!(
            keep(&shares, &alice, 1_300, 1_100),
            Err(AtShare { retry_after: 100 })
        );
        assert_eq!(shares.lock().principals[&alice].count, 2);
    }

    #[test]
    fn a_place_not_kept_is_given_back() {
        let shares = Shares::new(1);
        let alice = principal("alice");
        let place = shares.take(&alice, 1_100, 1_000).expect("a place");
        assert_eq!(
            keep(&shares, &alice, 1_100, 1_000),
            Err(AtShare { retry_after: 100 }),
            "taken while the proof is being recorded"
        );
        drop(place);
        assert!(shares.lock().principals.is_empty(), "given back whole");
        assert!(shares.lock().by_expiry.is_empty());
        assert_eq!(keep(&shares, &alice, 1_100, 1_000), Ok(()));
    }

    #[test]
    fn principals_without_entries_leave_nothing() {
        let shares = Shares::new(4);
        for n in 0..100 {
            let who = principal(&format!("p{n}"));
            assert_eq!(keep(&shares, &who, 1_000 + n, 900), Ok(()));
        }
        assert_eq!(shares.lock().principals.len(), 100);
        let late = principal("late");
        assert_eq!(keep(&shares, &late, 1_500, 1_050), Ok(()));
        let held = shares.lock();
        // p0 to p50 have expired at 1,050 and are gone; p51 to p99 and
        // the late one remain.
        assert_eq!(held.principals.len(), 50);
        assert_eq!(held.by_expiry.len(), 50);
        assert!(!held.principals.contains_key(&principal("p50")));
        assert!(held.principals.contains_key(&principal("p51")));
        assert!(held.principals.contains_key(&late));
    }

    #[test]
    fn a_share_of_zero_is_one() {
        let shares = Shares::new(0);
        assert_eq!(shares.share(), 1);
        let alice = principal("alice");
        assert_eq!(keep(&shares, &alice, 1_100, 1_000), Ok(()));
        assert!(keep(&shares, &alice, 1_100, 1_000).is_err());
    }
}
