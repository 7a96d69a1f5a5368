//! [`RedisTaskStore`]: task records in Redis, shared by every replica of a
//! server, so that any replica answers `tasks/get`, `tasks/update` and
//! `tasks/cancel` for a task another one runs.
//!
//! Each record is one JSON string under `{prefix}{task id}`, expiring with
//! the task's TTL, or after the store's longest TTL (a week by default)
//! for a task without one: every key expires. Records are read and
//! written up to 16 MiB. An update reads the record, applies the change and
//! writes it back only if nobody wrote in between (a compare-and-set in a
//! Lua script), retrying a bounded number of times. Signals travel on one
//! pub/sub channel, `{prefix}signals`, as `wake ID`, `cancel ID` or
//! `changed ID`, each followed by a mark of the store that sent it. The
//! lease (10 s by default) is renewed by the replica that runs the
//! handler; a replica that dies stops renewing, and the next request about
//! its task, on any replica, fails the task. Every time in a record is on
//! Redis's clock (`TIME`, measured against this process's every 5 s), so
//! that replicas whose clocks disagree agree on leases and expiry.
//!
//! While Redis is cut off (connections dropped, new ones refused or
//! unanswered), a request about a task answers within about three
//! seconds, never hangs: each connection attempt gives up after 1 s, each
//! command after 2 s, and a lost connection is tried once more before the
//! request fails with the store's error, a JSON-RPC internal error
//! (`-32603`) that a client retries. The host's task follower polls
//! again; the test `a_poll_answers_within_its_bound_while_redis_is_cut_off`
//! holds the bound at 4 s.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use futures_util::StreamExt as _;
use redis::aio::ConnectionManager;
use redis::AsyncCommands as _;
use tokio::sync::broadcast;

use super::record::TaskRecord;
use super::store::{Change, Signal, Signals, StoreError, TaskStore};
use crate::BoxFuture;

/// How many times an update is retried when another writer got there
/// first.
const MAX_ATTEMPTS: usize = 32;
/// The largest record read back from Redis, in bytes: a record is what
/// this server wrote, but the database is shared.
const MAX_RECORD_BYTES: usize = 16 * 1024 * 1024;

/// How long a task without a TTL is kept, unless the store is told
/// otherwise ([`RedisTaskStore::with_max_ttl`]).
const DEFAULT_MAX_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// Creates a record, within the bounds: `KEYS[1]` the record's key,
/// `KEYS[2]` the sorted set of unfinished tasks, `KEYS[3]` that of the
/// owner's (or `KEYS[2]` again for no owner); `ARGV` the record, its TTL in
/// ms, the bound, the quota and the id. Each set is scored by expiry on
/// Redis's own clock, so that what expired is no longer counted, and
/// expires itself after the last task it holds. 1 when created, 0 when
/// the id is taken, -1 at the bound, -2 at the quota.
const CREATE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return -1 end
if KEYS[3] ~= KEYS[2] then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return -2 end
end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ttl) then return 0 end
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], now + ttl, ARGV[5])
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 1
";

/// A record as written, or [`StoreError::TooLarge`].
fn encode(record: &TaskRecord) -> Result<String, StoreError> {
    let text = serde_json::to_string(record).map_err(backend)?;
    if text.len() > MAX_RECORD_BYTES {
        return Err(StoreError::TooLarge {
            max: MAX_RECORD_BYTES,
        });
    }
    Ok(text)
}

/// Task records in Redis; see the [module docs](self).
#[derive(Clone)]
pub struct RedisTaskStore {
    connection: ConnectionManager,
    prefix: String,
    lease: Duration,
    max_ttl: Duration,
    max_tasks: usize,
    max_per_principal: usize,
    signals: broadcast::Sender<(String, Signal)>,
    script: redis::Script,
    create: redis::Script,
    /// Redis's clock, and whether it could be reached lately (see
    /// [`TaskStore::now_ms`]).
    clock: std::sync::Arc<Clock>,
    /// Marks this store's signals (64 random bits), so that its relay
    /// skips them.
    origin: String,
    /// Held by every clone of the store; the relay and the clock stop
    /// once the last is gone.
    _alive: std::sync::Arc<()>,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password: it is not kept, so not shown.
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

fn backend(error: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(error.to_string())
}

impl RedisTaskStore {
    /// Connects to the Redis at `url` (`redis://[:password@]host:port/db`)
    /// with the key prefix `mcp:tasks:` and a lease of 10 s, and starts
    /// listening to the other replicas' signals. Call it inside a Tokio
    /// runtime.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the URL is not one, or Redis cannot be
    /// reached.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, "mcp:tasks:").await
    }

    /// As [`RedisTaskStore::connect`], with keys and the signal channel
    /// under `prefix`, so that several servers can share one database.
    ///
    /// # Errors
    ///
    /// As [`RedisTaskStore::connect`].
    pub async fn connect_with(url: &str, prefix: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(backend)?;
        // Timeouts and one retry: a poll answers within a bound whatever
        // Redis does (see `shared::redis::connection`).
        let connection = crate::shared::redis::connection(client.clone())
            .await
            .map_err(backend)?;
        let (signals, _) = broadcast::channel(1024);
        let channel = format!("{prefix}signals");
        // Subscribed before `connect` returns, so that no signal sent
        // after it is missed.
        let subscription = subscribe(&client, &channel).await?;
        let alive = std::sync::Arc::new(());
        let origin = origin()?;
        let relayed = Relay {
            client,
            channel,
            origin: origin.clone(),
            signals: signals.clone(),
            alive: std::sync::Arc::downgrade(&alive),
        };
        tokio::spawn(relayed.run(subscription));
        let mut clocked = connection.clone();
        let clock = std::sync::Arc::new(Clock {
            offset: AtomicI64::new(measure(&mut clocked).await?),
            unreachable_ms: AtomicU64::new(0),
            down: std::sync::atomic::AtomicBool::new(false),
            lease_ms: AtomicU64::new(10_000),
        });
        tokio::spawn(keep_time(clocked, clock.clone()));
        Ok(RedisTaskStore {
            connection,
            prefix: prefix.to_owned(),
            lease: Duration::from_secs(10),
            max_ttl: DEFAULT_MAX_TTL,
            max_tasks: 100_000,
            max_per_principal: 10_000,
            signals,
            script: redis::Script::new(crate::shared::redis::REPLACE),
            create: redis::Script::new(CREATE),
            clock,
            origin,
            _alive: alive,
        })
    }

    /// How long the replica running a task vouches for it at each renewal
    /// (at least 300 ms); a task whose replica stopped is failed this long
    /// after the last renewal at the latest.
    #[must_use]
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(300));
        let lease_ms = u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX);
        self.clock.lease_ms.store(lease_ms, Ordering::Relaxed);
        self
    }

    /// How long a task created without a TTL is kept (a week by default,
    /// at least a second): every key this store writes expires, so that a
    /// database shared with other data never fills with tasks nobody will
    /// ask about again.
    #[must_use]
    pub fn with_max_ttl(mut self, max_ttl: Duration) -> Self {
        self.max_ttl = max_ttl.max(Duration::from_secs(1));
        self
    }

    /// At most `max_tasks` unfinished tasks in the store (100,000 by
    /// default), and at most `max_per_principal` of one client (10,000 by
    /// default): the principal, or on a server without authorization the
    /// address the task came from (see [`share`](crate::share)); tasks over
    /// stdio count against the bound only. A finished task counts against
    /// neither and is never evicted: it is kept until its `ttlMs`.
    #[must_use]
    pub fn with_bounds(mut self, max_tasks: usize, max_per_principal: usize) -> Self {
        self.max_tasks = max_tasks.max(1);
        self.max_per_principal = max_per_principal.max(1);
        self
    }

    /// The sorted set of unfinished tasks, and that of the client
    /// `owner`'s.
    fn counted(&self, owner: Option<&str>) -> (String, String) {
        let all = format!("{}unfinished", self.prefix);
        let own = match owner {
            Some(owner) => format!("{}unfinished:{owner}", self.prefix),
            None => all.clone(),
        };
        (all, own)
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    /// The record under `key` and its text as stored, if any.
    async fn read(&self, key: &str) -> Result<Option<(String, TaskRecord)>, StoreError> {
        let mut connection = self.connection.clone();
        let text: Option<String> = connection.get(key).await.map_err(backend)?;
        let Some(text) = text else {
            return Ok(None);
        };
        if text.len() > MAX_RECORD_BYTES {
            return Err(backend(format!("the record under `{key}` is too large")));
        }
        let record = serde_json::from_str(&text).map_err(|e| backend(format!("`{key}`: {e}")))?;
        Ok(Some((text, record)))
    }
}

async fn subscribe(
    client: &redis::Client,
    channel: &str,
) -> Result<redis::aio::PubSub, StoreError> {
    let mut pubsub = client.get_async_pubsub().await.map_err(backend)?;
    pubsub.subscribe(channel).await.map_err(backend)?;
    Ok(pubsub)
}

/// A fresh mark for a store's signals.
fn origin() -> Result<String, StoreError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|_| backend("no random source"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// How often the store compares its clock with Redis's.
const CLOCK_EVERY: Duration = Duration::from_secs(5);

/// Redis's clock less ours, from a `TIME` sent at `sent_ms` and answered
/// with `redis_ms` at `received_ms` (our clock): Redis read its clock
/// about halfway between.
fn offset_of(sent_ms: u64, received_ms: u64, redis_ms: u64) -> i64 {
    let midway = sent_ms / 2 + received_ms / 2 + (sent_ms % 2 + received_ms % 2) / 2;
    let difference = i128::from(redis_ms) - i128::from(midway);
    i64::try_from(difference).unwrap_or(if difference < 0 { i64::MIN } else { i64::MAX })
}

/// Asks Redis for its time: [`offset_of`] this process's clock.
async fn measure(connection: &mut ConnectionManager) -> Result<i64, StoreError> {
    let sent = super::runtime::now_ms();
    let (seconds, micros): (u64, u64) = redis::cmd("TIME")
        .query_async(connection)
        .await
        .map_err(backend)?;
    let received = super::runtime::now_ms();
    let redis_ms = seconds.saturating_mul(1000).saturating_add(micros / 1000);
    Ok(offset_of(sent, received, redis_ms))
}

/// Measures the offset again now and then, while the store lives: either
/// clock may be stepped. A failed measurement keeps the last offset.
/// It also tells whether Redis can be reached: every third of a lease (at
/// most every [`CLOCK_EVERY`]), so that a replica that had nothing to ask
/// Redis during an outage still knows of it, and takes no lease for
/// lapsed right after (see [`TaskStore::last_unreachable_ms`]).
async fn keep_time(mut connection: ConnectionManager, clock: std::sync::Arc<Clock>) {
    let alive = std::sync::Arc::downgrade(&clock);
    drop(clock);
    let mut last = tokio::time::Instant::now();
    loop {
        // The lease may be set after the store is made: looked at often.
        let every = match alive.upgrade() {
            Some(clock) => CLOCK_EVERY.min(Duration::from_millis(
                clock.lease_ms.load(Ordering::Relaxed) / 3,
            )),
            None => return,
        };
        tokio::time::sleep(every.min(Duration::from_millis(100))).await;
        if last.elapsed() < every {
            continue;
        }
        last = tokio::time::Instant::now();
        // A stopped Redis may hold a command without failing it: no answer
        // within the interval counts as no Redis.
        let measured = tokio::time::timeout(every, measure(&mut connection))
            .await
            .unwrap_or_else(|_| Err(backend("no answer to TIME")));
        let Some(clock) = alive.upgrade() else {
            return;
        };
        match measured {
            Ok(measured) => {
                clock.offset.store(measured, Ordering::Relaxed);
                // Back: the outage counts as lasting until now.
                if clock.down.swap(false, Ordering::AcqRel) {
                    clock
                        .unreachable_ms
                        .store(clock.now_ms(), Ordering::Relaxed);
                }
            }
            Err(_) => {
                clock.down.store(true, Ordering::Release);
                clock
                    .unreachable_ms
                    .store(clock.now_ms(), Ordering::Relaxed);
            }
        }
    }
}

/// What the store knows of Redis's clock, shared with the task that keeps
/// it.
#[derive(Debug)]
struct Clock {
    /// Redis's clock less this process's, in milliseconds.
    offset: AtomicI64,
    /// When Redis last could not be reached (0 for never), on its clock:
    /// the end of the last outage, once it is over.
    unreachable_ms: AtomicU64,
    /// Whether the last look found Redis out of reach.
    down: std::sync::atomic::AtomicBool,
    /// The lease, whose third is how often Redis is asked.
    lease_ms: AtomicU64,
}

impl Clock {
    fn now_ms(&self) -> u64 {
        let local = super::runtime::now_ms();
        local.saturating_add_signed(self.offset.load(Ordering::Relaxed))
    }
}

/// What passes the channel's messages on as signals.
struct Relay {
    client: redis::Client,
    channel: String,
    /// The store's own mark: what it sent itself is not relayed back.
    origin: String,
    signals: broadcast::Sender<(String, Signal)>,
    alive: std::sync::Weak<()>,
}

impl Relay {
    /// Relays until the store is gone, subscribing again when the
    /// connection drops.
    async fn run(self, mut pubsub: redis::aio::PubSub) {
        loop {
            {
                let mut messages = pubsub.on_message();
                while let Some(message) = messages.next().await {
                    let Ok(text) = message.get_payload::<String>() else {
                        continue;
                    };
                    let mut words = text.split(' ');
                    let (Some(word), Some(id)) = (words.next(), words.next()) else {
                        continue;
                    };
                    // This process applied its own signals as it sent them.
                    if words.next() == Some(self.origin.as_str()) {
                        continue;
                    }
                    if let Some(signal) = Signal::parse(word) {
                        // No receiver yet: nothing runs here to tell.
                        let _ = self.signals.send((id.to_owned(), signal));
                    }
                }
            }
            // The connection dropped: try again, now and then. Signals
            // sent meanwhile are lost; the runtime makes up for them by
            // looking at the records.
            loop {
                if self.alive.strong_count() == 0 {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
                if let Ok(again) = subscribe(&self.client, &self.channel).await {
                    pubsub = again;
                    break;
                }
            }
        }
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord, _now_ms: u64) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let key = self.key(&record.id);
            let text = encode(&record)?;
            // Counted from creation, as the record counts it; a task
            // without a TTL is kept for the longest one.
            let max_ttl = u64::try_from(self.max_ttl.as_millis()).unwrap_or(u64::MAX);
            let ttl = record.ttl_ms.unwrap_or(max_ttl).max(1);
            let (all, own) = self.counted(record.counted_against());
            let mut connection = self.connection.clone();
            let created: i64 = self
                .create
                .key(&key)
                .key(all)
                .key(own)
                .arg(text)
                .arg(ttl)
                .arg(self.max_tasks)
                .arg(self.max_per_principal)
                .arg(&record.id)
                .invoke_async(&mut connection)
                .await
                .map_err(backend)?;
            match created {
                1 => Ok(()),
                -1 => Err(StoreError::Full {
                    max: self.max_tasks,
                }),
                -2 => Err(StoreError::Quota {
                    max: self.max_per_principal,
                }),
                _ => Err(backend(format!("a task `{}` exists already", record.id))),
            }
        })
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            Ok(self
                .read(&self.key(id))
                .await?
                .map(|(_, record)| record)
                .filter(|record| !record.expired(now_ms)))
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        now_ms: u64,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let key = self.key(id);
            for _ in 0..MAX_ATTEMPTS {
                let Some((before, mut record)) = self.read(&key).await? else {
                    return Ok(None);
                };
                if record.expired(now_ms) {
                    return Ok(None);
                }
                change(&mut record);
                let after = encode(&record)?;
                if after == before {
                    return Ok(Some(record));
                }
                let mut connection = self.connection.clone();
                let written: i64 = self
                    .script
                    .key(&key)
                    .arg(&before)
                    .arg(&after)
                    .invoke_async(&mut connection)
                    .await
                    .map_err(backend)?;
                if written == 1 {
                    if record.status.is_terminal() {
                        // No longer counted; an entry left behind by an
                        // error here is counted until the task expires.
                        let (all, own) = self.counted(record.counted_against());
                        let _: Result<(), _> = redis::pipe()
                            .zrem(all, id)
                            .ignore()
                            .zrem(own, id)
                            .ignore()
                            .query_async(&mut connection)
                            .await;
                    }
                    return Ok(Some(record));
                }
            }
            Err(backend(format!(
                "task `{id}` changed under {MAX_ATTEMPTS} attempts to update it"
            )))
        })
    }

    fn notify<'a>(&'a self, id: &'a str, signal: Signal) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let channel = format!("{}signals", self.prefix);
            let _: i64 = connection
                .publish(channel, format!("{} {id} {}", signal.as_str(), self.origin))
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    fn signals(&self) -> Option<Signals> {
        Some(self.signals.subscribe())
    }

    fn lease(&self) -> Option<Duration> {
        Some(self.lease)
    }

    /// Redis's clock, as last measured against this process's: every
    /// replica on the same Redis reads the same time, within a few
    /// milliseconds, whatever its own clock says.
    fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let command = redis::cmd("PING");
            let ping = command.query_async::<String>(&mut connection);
            match tokio::time::timeout(Duration::from_secs(1), ping).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(error)) => Err(backend(error)),
                Err(_) => Err(backend("no answer to PING within 1 s")),
            }
        })
    }

    fn last_unreachable_ms(&self) -> Option<u64> {
        if self.clock.down.load(Ordering::Acquire) {
            return Some(self.clock.now_ms());
        }
        let at = self.clock.unreachable_ms.load(Ordering::Relaxed);
        (at != 0).then_some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::offset_of;

    #[test]
    fn the_offset_is_taken_halfway_through_the_round_trip() {
        assert_eq!(offset_of(1_000, 1_010, 1_005), 0);
        // Our clock an hour behind Redis's, or ahead of it.
        assert_eq!(offset_of(1_000, 1_020, 3_601_010), 3_600_000);
        assert_eq!(offset_of(3_601_000, 3_601_020, 1_010), -3_600_000);
        // Extremes saturate rather than wrap.
        assert_eq!(offset_of(u64::MAX, u64::MAX, 0), i64::MIN);
        assert_eq!(offset_of(0, 0, u64::MAX), i64::MAX);
    }
}
