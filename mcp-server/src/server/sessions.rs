//! The table of legacy sessions of one HTTP endpoint: bounded, with idle
//! expiry and least-recently-used eviction.
//!
//! The rules live in [`Table`], which takes the time as an argument and
//! does no I/O, so that they are tested without waiting. [`Sessions`] is
//! the table behind a lock, on the clock.
//!
//! A full table never refuses an `initialize`: the session used longest ago
//! makes room. Each client (see [`share`](crate::share)) keeps at most its
//! share of the table: a client at its share that initializes again drops
//! its own session used longest ago, so that one client's loop of
//! `initialize` evicts only its own sessions. Its client gets `404` on its next request and, as the
//! handshake era prescribes, starts a new session. Refusing instead would
//! let one client that initializes in a loop lock every later client out
//! for as long as the process lives.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::legacy::Session;
use crate::share::Client;

/// Sessions keyed by id, each with the time and order of its last use.
#[derive(Debug)]
pub(crate) struct Table<V> {
    by_id: HashMap<String, Slot<V>>,
    /// Ids by the sequence number of their last use, oldest first.
    by_use: BTreeMap<u64, String>,
    next: u64,
    max: usize,
    idle: Duration,
    /// The sequence numbers of each client's sessions, oldest use first; a
    /// client with none has no entry.
    by_client: HashMap<Client, std::collections::BTreeSet<u64>>,
    share: usize,
}

#[derive(Debug)]
struct Slot<V> {
    value: V,
    used_at: Instant,
    seq: u64,
    client: Option<Client>,
}

/// What [`Table::insert`] did to make room.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Made {
    /// Sessions dropped because they were idle longer than the timeout.
    pub(crate) expired: usize,
    /// Sessions dropped, least recently used first, because the table was
    /// full of live ones.
    pub(crate) evicted: usize,
    /// Sessions of the same client dropped, least recently used first,
    /// because it held its whole share.
    pub(crate) own: usize,
}

impl<V: Clone> Table<V> {
    /// A table of at most `max` sessions (at least one), of which one
    /// client keeps `share` (at least one), each forgotten once unused for
    /// `idle`.
    pub(crate) fn new(max: usize, share: usize, idle: Duration) -> Self {
        Table {
            by_id: HashMap::new(),
            by_use: BTreeMap::new(),
            next: 0,
            max: max.max(1),
            idle,
            by_client: HashMap::new(),
            share: share.max(1),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }

    fn expired(&self, used_at: Instant, now: Instant) -> bool {
        now.saturating_duration_since(used_at) > self.idle
    }

    /// Adds a session of `client` at `now`, first dropping the expired
    /// ones, then the client's own least recently used while it holds its
    /// share, then the least recently used while the table is full.
    pub(crate) fn insert(
        &mut self,
        id: String,
        value: V,
        client: Option<Client>,
        now: Instant,
    ) -> Made {
        let mut made = Made::default();
        while let Some((_, oldest)) = self.by_use.first_key_value() {
            let slot = &self.by_id[oldest];
            if !self.expired(slot.used_at, now) {
                break;
            }
            let oldest = oldest.clone();
            self.remove(&oldest);
            made.expired += 1;
        }
        // A fresh 128-bit id never repeats; replace rather than leak its
        // order entry if it ever did.
        self.remove(&id);
        if let Some(client) = &client {
            while self.by_client.get(client).map_or(0, |s| s.len()) >= self.share {
                let Some(&seq) = self.by_client.get(client).and_then(|s| s.first()) else {
                    break;
                };
                let Some(oldest) = self.by_use.get(&seq).cloned() else {
                    break;
                };
                self.remove(&oldest);
                made.own += 1;
            }
        }
        while self.by_id.len() >= self.max {
            let Some((_, oldest)) = self.by_use.first_key_value() else {
                break;
            };
            let oldest = oldest.clone();
            self.remove(&oldest);
            made.evicted += 1;
        }
        let seq = self.bump();
        self.by_use.insert(seq, id.clone());
        if let Some(client) = &client {
            self.by_client
                .entry(client.clone())
                .or_default()
                .insert(seq);
        }
        self.by_id.insert(
            id,
            Slot {
                value,
                used_at: now,
                seq,
                client,
            },
        );
        made
    }

    /// The session `id`, marked as used at `now`; `None` if there is none
    /// or it expired (an expired one is dropped).
    pub(crate) fn get(&mut self, id: &str, now: Instant) -> Option<V> {
        let slot = self.by_id.get(id)?;
        if self.expired(slot.used_at, now) {
            self.remove(id);
            return None;
        }
        let old = slot.seq;
        let seq = self.bump();
        self.by_use.remove(&old);
        self.by_use.insert(seq, id.to_owned());
        let slot = self.by_id.get_mut(id)?;
        if let Some(seqs) = slot.client.as_ref().and_then(|c| self.by_client.get_mut(c)) {
            seqs.remove(&old);
            seqs.insert(seq);
        }
        slot.seq = seq;
        slot.used_at = now;
        Some(slot.value.clone())
    }

    /// The session `id` without marking it used, expired or not.
    pub(crate) fn peek(&self, id: &str) -> Option<&V> {
        self.by_id.get(id).map(|slot| &slot.value)
    }

    /// Drops the session `id`; returns whether there was one.
    pub(crate) fn remove(&mut self, id: &str) -> bool {
        match self.by_id.remove(id) {
            Some(slot) => {
                self.by_use.remove(&slot.seq);
                if let Some(client) = &slot.client {
                    if let Some(seqs) = self.by_client.get_mut(client) {
                        seqs.remove(&slot.seq);
                        if seqs.is_empty() {
                            self.by_client.remove(client);
                        }
                    }
                }
                true
            }
            None => false,
        }
    }

    fn bump(&mut self) -> u64 {
        self.next += 1;
        self.next
    }
}

/// The legacy sessions of one HTTP endpoint, on the clock, counted in the
/// `mcp_legacy_sessions` gauge (see [`observe`](crate::observe)).
#[derive(Debug)]
pub(crate) struct Sessions {
    table: Mutex<Table<Arc<Session>>>,
}

impl Sessions {
    pub(crate) fn new(max: usize, share: usize, idle: Duration) -> Self {
        Sessions {
            table: Mutex::new(Table::new(max, share, idle)),
        }
    }

    /// Runs `f` on the table, and tells the gauge how many sessions it
    /// added or dropped: the gauge sums the tables of every endpoint.
    fn using<T>(&self, f: impl FnOnce(&mut Table<Arc<Session>>) -> T) -> T {
        // Every operation leaves the table consistent before it can panic.
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let before = table.len();
        let done = f(&mut table);
        if table.len() != before {
            crate::observe::legacy_sessions(table.len() as isize - before as isize);
        }
        done
    }

    /// Keeps `session` of `client`, making room as [`Table::insert`] does.
    pub(crate) fn insert(&self, session: Arc<Session>, client: Option<Client>) -> Made {
        let id = session.id().to_owned();
        self.using(|table| table.insert(id, session, client, Instant::now()))
    }

    /// The live session `id`, now marked as used.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.using(|table| table.get(id, Instant::now()))
    }

    /// The session `id` if it exists, without marking it used.
    pub(crate) fn peek(&self, id: &str) -> Option<Arc<Session>> {
        self.using(|table| table.peek(id).cloned())
    }

    pub(crate) fn remove(&self, id: &str) -> bool {
        self.using(|table| table.remove(id))
    }
}

impl Drop for Sessions {
    /// The endpoint is gone, and its sessions with it.
    fn drop(&mut self) {
        self.using(|table| *table = Table::new(table.max, table.share, table.idle));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Duration = Duration::from_secs(60);

    fn ids<V: Clone>(table: &Table<V>) -> Vec<&str> {
        table.by_use.values().map(String::as_str).collect()
    }

    #[test]
    fn a_full_table_evicts_the_least_recently_used() {
        let t0 = Instant::now();
        let mut table = Table::new(3, 3, IDLE);
        for (i, id) in ["a", "b", "c"].into_iter().enumerate() {
            let made = table.insert(id.into(), i, None, t0);
            assert_eq!(made, Made::default());
        }
        // Using `a` makes `b` the oldest.
        assert_eq!(table.get("a", t0), Some(0));
        let made = table.insert("d".into(), 3, None, t0);
        assert_eq!(
            made,
            Made {
                expired: 0,
                evicted: 1,
                own: 0
            }
        );
        assert_eq!(table.get("b", t0), None);
        assert_eq!(ids(&table), ["c", "a", "d"]);
        assert_eq!(table.len(), 3);
    }

    #[test]
    fn idle_sessions_expire_on_lookup_and_make_room_first() {
        let t0 = Instant::now();
        let mut table = Table::new(2, 2, IDLE);
        table.insert("a".into(), 1, None, t0);
        table.insert("b".into(), 2, None, t0 + Duration::from_secs(30));
        // At exactly the timeout a session is still alive.
        assert_eq!(table.get("a", t0 + IDLE), Some(1));
        let later = t0 + IDLE + Duration::from_secs(31);
        // `b` was last used at 30 s: 61 s ago, gone.
        assert_eq!(table.get("b", later), None);
        assert_eq!(table.len(), 1);
        let made = table.insert("c".into(), 3, None, t0 + 3 * IDLE);
        assert_eq!(
            made,
            Made {
                expired: 1,
                evicted: 0,
                own: 0
            }
        );
        assert_eq!(ids(&table), ["c"]);
    }

    #[test]
    fn a_flood_of_initializes_leaves_the_newest_and_stays_bounded() {
        let t0 = Instant::now();
        let mut table = Table::new(100, 100, IDLE);
        let mut evicted = 0;
        for i in 0..10_000 {
            evicted += table.insert(format!("s{i}"), i, None, t0).evicted;
        }
        assert_eq!(table.len(), 100);
        assert_eq!(table.by_use.len(), 100);
        assert_eq!(evicted, 9_900);
        assert_eq!(table.get("s9999", t0), Some(9_999));
        assert_eq!(table.get("s9899", t0), None);
        assert_eq!(table.get("s9900", t0), Some(9_900));
    }

    #[test]
    fn a_client_at_its_share_evicts_only_its_own_sessions() {
        let t0 = Instant::now();
        let mut table = Table::new(100, 3, IDLE);
        let victim = Some(Client::principal("victim"));
        let flooder = Some(Client::principal("flooder"));
        table.insert("v".into(), 0, victim.clone(), t0);
        let mut own = 0;
        for i in 0..10_000 {
            let made = table.insert(format!("f{i}"), i, flooder.clone(), t0);
            assert_eq!(made.evicted, 0, "nobody else's session makes room");
            own += made.own;
        }
        assert_eq!(own, 10_000 - 3);
        assert_eq!(
            table.get("v", t0),
            Some(0),
            "the other client's session stays"
        );
        assert_eq!(table.len(), 4);
        // Using a session makes it the client's newest: the next drop takes
        // another.
        assert_eq!(table.get("f9997", t0), Some(9_997));
        table.insert("g".into(), 1, flooder.clone(), t0);
        assert_eq!(table.get("f9998", t0), None);
        assert_eq!(table.get("f9997", t0), Some(9_997));
        // Sessions without a client are bounded by the table alone, and
        // removal leaves no empty index behind.
        for id in ["f9997", "f9999", "g", "v"] {
            assert!(table.remove(id));
        }
        assert!(table.by_client.is_empty());
    }

    #[test]
    fn removal_and_a_zero_bound() {
        let t0 = Instant::now();
        let mut table = Table::new(0, 0, IDLE);
        table.insert("a".into(), 1, None, t0);
        table.insert("b".into(), 2, None, t0);
        assert_eq!(table.len(), 1, "a bound of 0 keeps one session");
        assert!(table.remove("b"));
        assert!(!table.remove("b"));
        assert!(table.by_use.is_empty());
        assert_eq!(table.peek("b"), None);
    }
}
