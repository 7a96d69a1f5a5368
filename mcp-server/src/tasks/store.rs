//! Where task records live: the [`TaskStore`] trait and the bounded
//! in-memory [`MemoryTaskStore`].

use std::sync::Mutex;

use super::record::TaskRecord;
use crate::BoxFuture;

/// Why a store refused a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// The store holds as many live tasks as it may.
    Full {
        /// The store's bound.
        max: usize,
    },
    /// The task's client (its principal, or its address on a server
    /// without authorization) holds as many tasks as one may, none of them
    /// finished.
    Quota {
        /// The bound for one principal.
        max: usize,
    },
    /// The record would be larger than the store writes.
    TooLarge {
        /// The largest record the store writes, in bytes.
        max: usize,
    },
    /// The backend failed; the text is for the server's logs.
    Backend(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Full { max } => write!(f, "the task store holds {max} tasks already"),
            StoreError::Quota { max } => {
                write!(f, "the client holds {max} unfinished tasks already")
            }
            StoreError::TooLarge { max } => {
                write!(f, "the task record is larger than the store's {max} bytes")
            }
            StoreError::Backend(e) => write!(f, "the task store failed: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// A change applied to one record by [`TaskStore::update`].
pub type Change<'a> = &'a mut (dyn FnMut(&mut TaskRecord) + Send);

/// News about a task between replicas (see [`TaskStore::notify`]): for the
/// replica that runs its handler, from one that answered a request about
/// it, or for every replica, that the task changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Every input request is answered: run the handler again.
    Wake,
    /// `tasks/cancel`: stop the handler.
    Cancel,
    /// The task's record changed: a replica with a listen stream that
    /// follows the task reads it and tells its subscribers.
    Changed,
}

impl Signal {
    /// The word for it on the wire between replicas.
    pub fn as_str(self) -> &'static str {
        match self {
            Signal::Wake => "wake",
            Signal::Cancel => "cancel",
            Signal::Changed => "changed",
        }
    }

    /// The signal a word names.
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "wake" => Some(Signal::Wake),
            "cancel" => Some(Signal::Cancel),
            "changed" => Some(Signal::Changed),
            _ => None,
        }
    }
}

/// Signals from other replicas, as task id and signal.
pub type Signals = tokio::sync::broadcast::Receiver<(String, Signal)>;

/// Storage for task records, shared by every request of a server (and,
/// with a shared backend, by every replica).
///
/// `create` must not return before a `get` of the same id would find the
/// record: a server answers `CreateTaskResult` right after it. `update`
/// applies its change atomically with respect to other updates of the same
/// record; a store may call the change more than once (an optimistic
/// retry), so the runtime's changes set what they report afresh on each
/// call. Expired records (see [`TaskRecord::expired`]) are never
/// returned; a store may drop them at any time.
///
/// A store that several replicas share also carries [`Signal`]s between
/// them ([`TaskStore::notify`], [`TaskStore::signals`]) and asks for a
/// lease ([`TaskStore::lease`]): the replica that runs a task renews it,
/// and a task whose replica stopped renewing is failed instead of staying
/// `working` for ever.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record.
    fn create(&self, record: TaskRecord, now_ms: u64) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The record `id`, if it exists and has not expired at `now_ms`.
    fn get<'a>(
        &'a self,
        id: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Applies `change` to the record `id` and returns the record as it is
    /// afterwards; `None` when there is no such (live) record.
    fn update<'a>(
        &'a self,
        id: &'a str,
        now_ms: u64,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Tells whichever replica runs the task `id` about `signal`. A store
    /// that one process keeps needs nothing: the runtime tells its own
    /// handlers directly.
    fn notify<'a>(&'a self, id: &'a str, signal: Signal) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = (id, signal);
        Box::pin(std::future::ready(Ok(())))
    }

    /// The signals other replicas send; `None` for a store no other
    /// replica shares.
    fn signals(&self) -> Option<Signals> {
        None
    }

    /// The time now, in milliseconds since the Unix epoch, on the clock
    /// every time in a record is read from and compared with (creation,
    /// changes, expiry, leases). This process's wall clock by default; a
    /// store that several replicas share gives the clock they share, so
    /// that a replica whose clock is off neither fails live tasks nor
    /// keeps dead ones.
    fn now_ms(&self) -> u64 {
        super::runtime::now_ms()
    }

    /// When the store last found its backend out of reach on its own
    /// (checking now and then, whether or not a request needed it), on
    /// [`TaskStore::now_ms`]'s clock; `None` for never, or a store that
    /// does not check. Within a lease length of it, this replica takes no
    /// task for lapsed: its owner may not have been able to renew.
    fn last_unreachable_ms(&self) -> Option<u64> {
        None
    }

    /// How long the replica running a task vouches for it each time it
    /// renews its lease (it renews at a third of that); `None` for a store
    /// no other replica shares, where no lease is needed.
    fn lease(&self) -> Option<std::time::Duration> {
        None
    }

    /// Whether the store can be used now, for a readiness check: a store
    /// in this process always can; a shared one asks its backend (Redis
    /// answers `PING` within a second).
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// Task records in this process's memory: the default store. At most
/// `max_tasks` records are held, and one client (the task's principal, or
/// on a server without authorization the address it came from: see
/// [`share`](crate::share)) holds at most a share of them, finished ones
/// included (a tenth unless [`MemoryTaskStore::with_quota`] says
/// otherwise).
///
/// A client at its share makes room with its own finished task changed
/// longest ago; when all of its tasks are unfinished it is refused
/// ([`StoreError::Quota`]). A full store sweeps out expired records, then
/// finished ones that count against no client (a server over stdio), the
/// one changed longest ago first, and refuses ([`StoreError::Full`]) when
/// that is not enough. Another client's finished task is never evicted to
/// make room: it is kept until its `ttlMs`, so that a flood of quick tasks
/// from one client cannot take away the result another has not read yet.
#[derive(Debug)]
pub struct MemoryTaskStore {
    max_tasks: usize,
    max_per_principal: usize,
    records: Mutex<Records>,
}

/// The records, and which of them each client holds.
#[derive(Debug, Default)]
struct Records {
    /// Boxed, so that the table moves pointers, not records, as it grows.
    by_id: super::Table<Box<TaskRecord>>,
    /// The ids of each client's tasks that were unexpired when last looked
    /// at: a client's count reads its own ids, not the whole store. Ids of
    /// tasks that have since expired or gone are dropped when the client is
    /// counted, and the index is rebuilt from the records once it holds
    /// twice as many ids as there are records (and more than 128), so that
    /// clients who never return leave nothing behind.
    held: super::Table<Vec<String>>,
    /// How many ids `held` holds.
    indexed: usize,
}

impl Records {
    /// How many unexpired tasks `client` holds; drops the ids of tasks
    /// gone or expired from its index.
    fn held_by(&mut self, client: &str, now_ms: u64) -> usize {
        let Some(ids) = self.held.get_mut(client) else {
            return 0;
        };
        let by_id = &self.by_id;
        let before = ids.len();
        ids.retain(|id| by_id.get(id).is_some_and(|r| !r.expired(now_ms)));
        let left = ids.len();
        self.indexed -= before - left;
        if left == 0 {
            self.held.remove(client);
        }
        left
    }

    /// Makes room for one more task of `client`, which may hold `share`:
    /// its own finished task changed longest ago goes. Whether there is
    /// room.
    fn make_room_for(&mut self, client: &str, share: usize, now_ms: u64) -> bool {
        if self.held_by(client, now_ms) < share {
            return true;
        }
        let by_id = &self.by_id;
        let oldest = self
            .held
            .get(client)
            .into_iter()
            .flatten()
            .filter_map(|id| by_id.get(id))
            .filter(|r| r.status.is_terminal())
            .min_by_key(|r| (r.updated_ms, r.created_ms))
            .map(|r| r.id.clone());
        match oldest {
            Some(id) => {
                self.by_id.remove(&id);
                // Its id leaves the index on the next count.
                true
            }
            None => false,
        }
    }

    fn insert(&mut self, record: TaskRecord) {
        self.indexed += index(&mut self.held, &record);
        self.by_id.insert(record.id.clone(), Box::new(record));
        if self.indexed > 2 * self.by_id.len().max(64) {
            self.reindex();
        }
    }

    /// Rebuilds `held` from the records: a pass over the store, once for
    /// every store's worth of tasks made at most.
    fn reindex(&mut self) {
        self.held.clear();
        self.indexed = 0;
        for record in self.by_id.values() {
            self.indexed += index(&mut self.held, record);
        }
    }
}

/// Adds `record` to `held` if it counts against a client; how many ids
/// that added (0 or 1).
fn index(held: &mut super::Table<Vec<String>>, record: &TaskRecord) -> usize {
    match record.counted_against() {
        Some(client) => {
            held.entry(client.to_owned())
                .or_default()
                .push(record.id.clone());
            1
        }
        None => 0,
    }
}

impl MemoryTaskStore {
    /// A store holding at most `max_tasks` unexpired records, of which one
    /// client may hold a tenth (at least one).
    pub fn new(max_tasks: usize) -> Self {
        MemoryTaskStore {
            max_tasks,
            max_per_principal: (max_tasks / 10).max(1),
            records: Mutex::new(Records::default()),
        }
    }

    /// How many unexpired tasks, finished ones included, one client may
    /// hold at once (at least one). Tasks of a server over stdio count
    /// against no client: only the store's bound applies to them.
    #[must_use]
    pub fn with_quota(mut self, max_per_principal: usize) -> Self {
        self.max_per_principal = max_per_principal.max(1);
        self
    }

    /// The most unexpired records the store holds.
    pub fn max_tasks(&self) -> usize {
        self.max_tasks
    }

    /// How many records are held, expired ones included.
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether no record is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Records> {
        // A panic while holding the lock leaves whole records behind: each
        // change is applied to one record in place.
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Makes room for one more record in `records`, which hold `max` at most:
/// expired records go first, then the finished ones that count against no
/// client, changed longest ago first, a 64th of the store at a time (at
/// least one). Whether there is room.
///
/// Finding them takes a pass over every record; evicting a batch makes that
/// pass once for every 64th of the store's tasks, not once for every task a
/// full store takes (at 140,000 records a pass took 2.6 ms).
fn make_room(records: &mut super::Table<Box<TaskRecord>>, max: usize, now_ms: u64) -> bool {
    if records.len() < max {
        return true;
    }
    records.retain(|_, r| !r.expired(now_ms));
    if records.len() < max {
        return true;
    }
    let mut finished: Vec<(u64, u64, &str)> = records
        .values()
        .filter(|r| r.status.is_terminal() && r.counted_against().is_none())
        .map(|r| (r.updated_ms, r.created_ms, r.id.as_str()))
        .collect();
    let batch = (max / 64).max(1).min(finished.len());
    if batch == 0 {
        return false;
    }
    if batch < finished.len() {
        finished.select_nth_unstable(batch - 1);
    }
    let oldest: Vec<String> = finished[..batch]
        .iter()
        .map(|(_, _, id)| (*id).to_owned())
        .collect();
    for id in &oldest {
        records.remove(id);
    }
    records.len() < max
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::new(10_000)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord, now_ms: u64) -> BoxFuture<'_, Result<(), StoreError>> {
        let mut records = self.lock();
        // Over stdio there is no client to tell apart: the store's bound
        // alone applies.
        let at_quota = record
            .counted_against()
            .is_some_and(|client| !records.make_room_for(client, self.max_per_principal, now_ms));
        let result = if at_quota {
            Err(StoreError::Quota {
                max: self.max_per_principal,
            })
        } else if !make_room(&mut records.by_id, self.max_tasks, now_ms) {
            Err(StoreError::Full {
                max: self.max_tasks,
            })
        } else {
            records.insert(record);
            Ok(())
        };
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let mut guard = self.lock();
        let records = &mut guard.by_id;
        let found = match records.get(id) {
            Some(record) if record.expired(now_ms) => {
                records.remove(id);
                None
            }
            found => found.map(|r| (**r).clone()),
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        now_ms: u64,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let mut guard = self.lock();
        let records = &mut guard.by_id;
        let found = match records.get_mut(id) {
            Some(record) if record.expired(now_ms) => {
                records.remove(id);
                None
            }
            Some(record) => {
                change(record);
                Some((**record).clone())
            }
            None => None,
        };
        Box::pin(std::future::ready(Ok(found)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::Status;

    fn record(id: &str, ttl: Option<u64>) -> TaskRecord {
        TaskRecord::new(id.into(), None, 0, ttl, 500)
    }

    fn now<T>(future: BoxFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(future).expect("the memory store never waits")
    }

    #[test]
    fn a_full_store_sweeps_expired_tasks_before_refusing() {
        let store = MemoryTaskStore::new(2);
        now(store.create(record("a", Some(10)), 0)).expect("a");
        now(store.create(record("b", None), 0)).expect("b");
        assert_eq!(
            now(store.create(record("c", None), 5)),
            Err(StoreError::Full { max: 2 })
        );
        now(store.create(record("c", None), 10)).expect("a expired, so c fits");
        assert_eq!(store.len(), 2);
        assert!(now(store.get("a", 10)).expect("get").is_none());
    }

    #[test]
    fn a_full_store_evicts_the_task_finished_longest_ago() {
        let store = MemoryTaskStore::new(3).with_quota(3);
        for (id, at) in [("a", 0), ("b", 1), ("c", 2)] {
            now(store.create(record(id, None), at)).expect("fits");
        }
        let finish = |at: u64| {
            move |r: &mut TaskRecord| {
                r.cancel(at);
            }
        };
        // c finished first, then a: c goes first, a next, b never.
        now(store.update("c", 5, &mut finish(5))).expect("update");
        now(store.update("a", 6, &mut finish(6))).expect("update");
        now(store.create(record("d", None), 7)).expect("c made room");
        assert!(now(store.get("c", 7)).expect("get").is_none());
        assert!(now(store.get("a", 7)).expect("get").is_some());
        now(store.create(record("e", None), 8)).expect("a made room");
        assert!(now(store.get("a", 8)).expect("get").is_none());
        assert_eq!(
            now(store.create(record("f", None), 9)),
            Err(StoreError::Full { max: 3 }),
            "b, d and e are unfinished"
        );
        for id in ["b", "d", "e"] {
            assert!(now(store.get(id, 9)).expect("get").is_some(), "{id}");
        }
    }

    #[test]
    fn a_full_store_evicts_its_oldest_finished_tasks_a_batch_at_a_time() {
        // 128 places: a batch is 2.
        let store = MemoryTaskStore::new(128).with_quota(128);
        for i in 0..128u64 {
            let id = format!("t{i}");
            now(store.create(record(&id, None), i)).expect("fits");
            // Finished in reverse order: t127 longest ago, t0 last.
            let at = 1_000 - i;
            now(store.update(&id, at, &mut |r: &mut TaskRecord| {
                r.cancel(at);
            }))
            .expect("update");
        }
        now(store.create(record("new", None), 2_000)).expect("room made");
        assert_eq!(store.len(), 127, "two evicted, one added");
        for gone in ["t127", "t126"] {
            assert!(
                now(store.get(gone, 2_000)).expect("get").is_none(),
                "{gone}"
            );
        }
        assert!(now(store.get("t125", 2_000)).expect("get").is_some());
        // The next one fits without evicting.
        now(store.create(record("next", None), 2_001)).expect("fits");
        assert_eq!(store.len(), 128);
        assert!(now(store.get("t125", 2_001)).expect("get").is_some());
    }

    #[test]
    fn one_principal_cannot_take_every_place() {
        let owned =
            |id: &str, owner: &str| TaskRecord::new(id.into(), Some(owner.into()), 0, None, 500);
        let store = MemoryTaskStore::new(10).with_quota(2);
        now(store.create(owned("a1", "alice"), 0)).expect("a1");
        now(store.create(owned("a2", "alice"), 0)).expect("a2");
        assert_eq!(
            now(store.create(owned("a3", "alice"), 0)),
            Err(StoreError::Quota { max: 2 })
        );
        now(store.create(owned("b1", "bob"), 0)).expect("bob has his own quota");
        // A finished task of hers makes room for her next one.
        let mut done = |r: &mut TaskRecord| {
            r.cancel(1);
        };
        now(store.update("a1", 1, &mut done)).expect("update");
        now(store.create(owned("a3", "alice"), 1)).expect("a1 finished");
        assert!(now(store.get("a1", 1)).expect("get").is_none());
    }

    /// A flood of quick tasks from one client takes its own finished
    /// results out, never another client's before its `ttlMs`; a full
    /// store refuses rather than evict them.
    #[test]
    fn a_finished_task_is_kept_until_its_ttl_whatever_another_client_does() {
        let owned = |id: &str, owner: &str, at: u64| {
            TaskRecord::new(id.into(), Some(owner.into()), at, Some(1_000_000), 500)
        };
        let finish = |store: &MemoryTaskStore, id: &str, at: u64| {
            now(store.update(id, at, &mut |r: &mut TaskRecord| {
                r.cancel(at);
            }))
            .expect("update");
        };
        let store = MemoryTaskStore::new(10).with_quota(4);
        now(store.create(owned("bob", "bob", 0), 0)).expect("bob");
        finish(&store, "bob", 1);
        for i in 0..1_000u64 {
            let id = format!("m{i}");
            now(store.create(owned(&id, "mallory", 2 + i), 2 + i)).expect("her own room");
            finish(&store, &id, 2 + i);
        }
        assert!(now(store.get("bob", 5_000)).expect("get").is_some());
        assert_eq!(store.len(), 5, "bob's one and mallory's share of 4");
        // Clients each within their share fill the store: it refuses.
        for (who, count) in [("c", 4), ("d", 1)] {
            for j in 0..count {
                let id = format!("{who}{j}");
                now(store.create(owned(&id, who, 10), 10)).expect("fits");
            }
        }
        assert_eq!(
            now(store.create(owned("e0", "eve", 20), 20)),
            Err(StoreError::Full { max: 10 })
        );
        assert!(now(store.get("bob", 20)).expect("get").is_some());
        // Expiry frees the place.
        now(store.create(owned("e0", "eve", 2_000_000), 2_000_000)).expect("expired ones went");
    }

    /// A principal's count reads that principal's own tasks: one that
    /// expired no longer counts either, and the ids kept for principals
    /// who never come back are dropped before they outgrow the store.
    #[test]
    fn a_principals_count_forgets_expired_tasks_and_its_index_stays_bounded() {
        let owned = |id: &str, owner: &str, at: u64, ttl: Option<u64>| {
            TaskRecord::new(id.into(), Some(owner.into()), at, ttl, 500)
        };
        let store = MemoryTaskStore::new(100).with_quota(2);
        now(store.create(owned("a1", "alice", 0, None), 0)).expect("a1");
        now(store.create(owned("a2", "alice", 0, Some(10)), 0)).expect("a2");
        assert_eq!(
            now(store.create(owned("a3", "alice", 5, None), 5)),
            Err(StoreError::Quota { max: 2 })
        );
        now(store.create(owned("a3", "alice", 10, None), 10)).expect("a2 expired");
        // A thousand principals, one short-lived task each: the store
        // sweeps their records, and the index follows within a bound.
        for i in 0..1000u64 {
            let at = 20 + 2 * i;
            let id = format!("t{i}");
            now(store.create(owned(&id, &format!("p{i}"), at, Some(1)), at)).expect("fits");
        }
        let records = store.lock();
        assert!(records.by_id.len() <= 100, "{}", records.by_id.len());
        assert!(records.indexed <= 200, "{} ids indexed", records.indexed);
        let kept: usize = records.held.values().map(Vec::len).sum();
        assert_eq!(kept, records.indexed);
        assert_eq!(records.held.get("alice").map(Vec::len), Some(2));
    }

    #[test]
    fn an_expired_task_is_not_found_and_is_dropped() {
        let store = MemoryTaskStore::new(8);
        now(store.create(record("a", Some(100)), 0)).expect("a");
        assert!(now(store.get("a", 99)).expect("get").is_some());
        let mut cancel = |r: &mut TaskRecord| {
            r.cancel(150);
        };
        assert!(now(store.update("a", 150, &mut cancel))
            .expect("update")
            .is_none());
        assert!(store.is_empty());
    }

    #[test]
    fn update_returns_the_changed_record() {
        let store = MemoryTaskStore::default();
        now(store.create(record("a", None), 0)).expect("a");
        let mut cancel = |r: &mut TaskRecord| {
            r.cancel(7);
        };
        let after = now(store.update("a", 7, &mut cancel)).expect("update");
        assert_eq!(after.map(|r| r.status), Some(Status::Cancelled));
        let mut noop = |_: &mut TaskRecord| {};
        assert!(now(store.update("zz", 7, &mut noop))
            .expect("update")
            .is_none());
    }
}
