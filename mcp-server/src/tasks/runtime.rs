//! Drives task handlers in the background and answers `tasks/get`,
//! `tasks/update` and `tasks/cancel`. The dispatcher hands it the
//! handler's future once that future has had to wait; everything about the
//! task's state goes through [`TaskRecord`] in the [`TaskStore`].

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use futures_util::FutureExt as _;
use mcp_types::backoff::Backoff;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::v2026_07_28::{InputResponse, Tool};
use serde_json::{json, Map, Value};
use tokio::sync::{broadcast, watch, Notify};

use super::record::{self, Accepted, Shape, TaskRecord};
use super::store::Signal;
use super::{TaskSettings, TaskStore, TaskSupport};
use crate::BoxFuture;

/// A task stored by [`Runtime::create`], not started yet.
pub(crate) struct Created {
    id: String,
    /// The `CreateTaskResult`, encoded.
    created: String,
    expires: Option<u64>,
}

/// What one run of a task's handler came to.
pub(crate) enum Outcome {
    /// A result, encoded: the task completes with it.
    Complete(record::Encoded),
    /// The handler needs answers to these requests first.
    InputRequired {
        requests: Map<String, Value>,
        request_state: Option<String>,
    },
    /// A JSON-RPC error: the task fails with it.
    Error(ErrorObject),
}

/// Runs the handler again with the answers gathered and its request state.
pub(crate) type Rerun =
    Box<dyn Fn(Map<String, Value>, Option<String>) -> BoxFuture<'static, Outcome> + Send + Sync>;

/// How a task's running handler is reached from the requests about it.
struct Live {
    cancel: watch::Sender<bool>,
    wake: Arc<Notify>,
}

/// The tasks of one server.
pub(crate) struct Runtime {
    settings: TaskSettings,
    support: super::Table<TaskSupport>,
    live: Mutex<super::Table<Live>>,
    /// Every change to a task of this process, for `notifications/tasks`.
    changes: broadcast::Sender<Arc<TaskRecord>>,
    /// Whether the signals of other replicas are listened to yet.
    listening: std::sync::atomic::AtomicBool,
    /// When a call to the store last failed (milliseconds since the Unix
    /// epoch; 0 for never): until a lease length later, no lease is taken
    /// for lapsed (see [`record::may_judge_leases`]).
    last_store_error_ms: std::sync::atomic::AtomicU64,
    /// When a call to the store last succeeded (0 for never): a store
    /// that answers other calls is reachable (see [`Runtime::settle`]).
    last_store_ok_ms: std::sync::atomic::AtomicU64,
    /// Set by [`Runtime::drain`]: no new task is started.
    draining: std::sync::atomic::AtomicBool,
    /// Told whenever a task stops running here.
    ended: Notify,
    /// The tasks that listen streams here follow, with how many streams
    /// follow each: changes made on other replicas are read for these.
    followed: Mutex<super::Table<usize>>,
}

/// `duration` in whole milliseconds, saturating.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A fresh task id: `task_` and 192 bits from the operating system's
/// secure random source.
fn new_id() -> Result<String, ErrorObject> {
    let mut bytes = [0u8; ID_BYTES];
    random_id_bytes(&mut bytes)
        .map_err(|_| ErrorObject::internal_error("no random source for a task id"))?;
    let mut id = String::with_capacity(5 + 32);
    id.push_str("task_");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode_string(bytes, &mut id);
    Ok(id)
}

/// The random bytes in a task id.
const ID_BYTES: usize = 24;

/// How many ids' bytes one read of the random source gives.
const IDS_A_READ: usize = 32;

/// The bytes of the next task ids, drawn from the operating system's
/// secure random source [`IDS_A_READ`] ids at a time, and the process they
/// were drawn in: a forked child draws its own rather than repeat its
/// parent's.
struct IdBytes {
    pid: u32,
    bytes: [u8; ID_BYTES * IDS_A_READ],
    left: usize,
}

thread_local! {
    static ID_BYTES_AHEAD: std::cell::RefCell<IdBytes> = const {
        std::cell::RefCell::new(IdBytes {
            pid: 0,
            bytes: [0; ID_BYTES * IDS_A_READ],
            left: 0,
        })
    };
}

/// Fills `out` with the bytes of one task id. One read of the random
/// source for every [`IDS_A_READ`] ids, where a read for each id was 4-5%
/// of a profile of task creation; what remains for each id is `getpid`
/// (about 0.1 us here), the price of noticing a fork.
fn random_id_bytes(out: &mut [u8; ID_BYTES]) -> Result<(), getrandom::Error> {
    let drawn = ID_BYTES_AHEAD.try_with(|ahead| {
        let mut ahead = ahead.borrow_mut();
        let pid = std::process::id();
        if ahead.left == 0 || ahead.pid != pid {
            getrandom::fill(&mut ahead.bytes)?;
            ahead.pid = pid;
            ahead.left = IDS_A_READ;
        }
        ahead.left -= 1;
        let start = ahead.left * ID_BYTES;
        let taken = &mut ahead.bytes[start..start + ID_BYTES];
        out.copy_from_slice(taken);
        // Not kept: the memory of this thread holds only ids to come.
        taken.fill(0);
        Ok(())
    });
    // A thread whose locals are being torn down reads the source itself.
    drawn.unwrap_or_else(|_| getrandom::fill(out))
}

/// The waits between tries to store a handler's outcome after a store
/// error (see [`Runtime::settle`]).
const SETTLE_BACKOFF: Backoff = Backoff::new(Duration::from_millis(10), Duration::from_secs(1));

/// The longest a handler's outcome waits for a store that cannot be
/// reached (see [`Runtime::settle`]).
const SETTLE_PATIENCE: Duration = Duration::from_secs(3600);

/// The message of a task failed because its handler's outcome could not
/// be stored.
pub(crate) const UNSTORED: &str =
    "the task's outcome could not be stored: the task store kept failing";

/// How many times a task's handler may ask for input: a handler that
/// keeps asking would hold its task, and a client answering it, for ever.
pub(crate) const MAX_INPUT_ROUNDS: usize = 16;

fn not_found() -> ErrorObject {
    ErrorObject::invalid_params("Failed to retrieve task: Task not found")
}

/// What a client is told of a store error: a generic message, the detail
/// (which may name the backend, its address or its data) only in the
/// server's log.
pub(crate) fn store_error(error: super::StoreError) -> ErrorObject {
    tracing::error!(%error, "a task request failed on the task store");
    ErrorObject::internal_error(match error {
        super::StoreError::Full { .. } => STORE_FULL,
        super::StoreError::Quota { .. } => QUOTA_REACHED,
        super::StoreError::TooLarge { .. } => TOO_LARGE,
        super::StoreError::Backend(_) => STORE_FAILED,
    })
}

/// The message of a task still running when its server shut down.
pub(crate) const SHUT_DOWN: &str = "the server shut down before the task finished";

/// The message of a request refused because the store holds too many tasks.
const STORE_FULL: &str = "the server holds too many tasks; try again later";
/// The message of a request refused because its principal has too many
/// unfinished tasks.
const QUOTA_REACHED: &str = "you have too many unfinished tasks; wait for one to finish";
/// The message of a task whose record grew past what the store writes.
pub(crate) const TOO_LARGE: &str = "the task's outcome is larger than the task store takes";
/// The message of a request that failed on the task store.
const STORE_FAILED: &str = "the task store failed";

/// The `taskId` of a `tasks/*` request's params.
pub(crate) fn task_id(params: &Map<String, Value>) -> Result<&str, ErrorObject> {
    params
        .get("taskId")
        .and_then(Value::as_str)
        .ok_or_else(|| ErrorObject::invalid_params("`params.taskId` must be a string"))
}

impl Runtime {
    /// The tasks of a server whose tools are `tools`; `None` when no tool
    /// runs as a task.
    pub(crate) fn new(settings: TaskSettings, tools: &[Tool]) -> Option<Self> {
        let support: super::Table<TaskSupport> = tools
            .iter()
            .map(|tool| (tool.name.clone(), TaskSupport::of(tool)))
            .filter(|(_, support)| *support != TaskSupport::Forbidden)
            .collect();
        (!support.is_empty()).then(|| Runtime {
            settings,
            support,
            live: Mutex::new(super::Table::default()),
            changes: broadcast::channel(256).0,
            listening: std::sync::atomic::AtomicBool::new(false),
            last_store_error_ms: std::sync::atomic::AtomicU64::new(0),
            last_store_ok_ms: std::sync::atomic::AtomicU64::new(0),
            draining: std::sync::atomic::AtomicBool::new(false),
            ended: Notify::new(),
            followed: Mutex::new(super::Table::default()),
        })
    }

    /// Whether the store can be used now (see [`TaskStore::ready`]).
    pub(crate) async fn ready(&self) -> Result<(), super::StoreError> {
        self.store().ready().await
    }

    /// Whether [`Runtime::drain`] began: no task is started any more.
    pub(crate) fn draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Stops starting tasks, lets those running here finish for up to
    /// `grace`, then fails the rest with [`SHUT_DOWN`] and stops their
    /// handlers (whose contexts hear of it). Returns how many were failed.
    pub(crate) async fn drain(&self, grace: Duration) -> usize {
        self.draining
            .store(true, std::sync::atomic::Ordering::Release);
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let ended = self.ended.notified();
            if self.live().is_empty() {
                return 0;
            }
            if tokio::time::timeout_at(deadline, ended).await.is_err() {
                break;
            }
        }
        let running: Vec<(String, watch::Sender<bool>)> = self
            .live()
            .iter()
            .map(|(id, live)| (id.clone(), live.cancel.clone()))
            .collect();
        for (id, cancel) in &running {
            tracing::warn!(target: "mcp_server::tasks", task = %crate::observe::redacted(id), "failing a task still running at shutdown");
            crate::observe::task("shut_down");
            self.fail_with(id, SHUT_DOWN).await;
            let _ = cancel.send(true);
        }
        running.len()
    }

    /// The current state of task `id` as `notifications/tasks` carries it,
    /// if it exists and `principal` owns it; `None` too when the store
    /// cannot be read (the stream hears of the next change instead).
    pub(crate) async fn state(
        &self,
        id: &str,
        principal: Option<&str>,
    ) -> Option<Map<String, Value>> {
        let found = self.store().get(id, self.now()).await;
        match self.reached(found) {
            Ok(Some(record)) if record.owned_by(principal) => Some(record.detailed()),
            Ok(_) => None,
            Err(error) => {
                tracing::warn!(task = %crate::observe::redacted(id), %error, "reading a task for a listen stream failed");
                None
            }
        }
    }

    /// Hears of every change to a task from now on.
    pub(crate) fn changes(&self) -> broadcast::Receiver<Arc<TaskRecord>> {
        self.changes.subscribe()
    }

    /// Tells the listen streams of every replica that `record` changed:
    /// those here at once, the others through the store.
    fn announce(&self, record: TaskRecord) {
        if self.store().signals().is_some() {
            let store = self.settings.store.clone();
            let id = record.id.clone();
            tokio::spawn(async move {
                // A lost notice costs a subscriber elsewhere this change
                // (it hears of the next); the task itself is unaffected.
                if let Err(error) = store.notify(&id, Signal::Changed).await {
                    tracing::warn!(task = %crate::observe::redacted(&id), %error, "telling other replicas of a task change failed");
                }
            });
        }
        let _ = self.changes.send(Arc::new(record));
    }

    /// Listen streams here follow `ids` from now on: changes made on other
    /// replicas are read for them.
    pub(crate) fn follow(self: &Arc<Self>, ids: &[String]) {
        if let Ok(mut followed) = self.followed.lock() {
            for id in ids {
                *followed.entry(id.clone()).or_default() += 1;
            }
        }
        self.listen();
    }

    /// A listen stream following `ids` closed.
    pub(crate) fn unfollow(&self, ids: &[String]) {
        if let Ok(mut followed) = self.followed.lock() {
            for id in ids {
                if let Some(count) = followed.get_mut(id) {
                    *count -= 1;
                    if *count == 0 {
                        followed.remove(id);
                    }
                }
            }
        }
    }

    /// Another replica changed task `id`: if a stream here follows it,
    /// its record is read and the streams here are told.
    fn changed_elsewhere(self: &Arc<Self>, id: String) {
        let followed = self
            .followed
            .lock()
            .is_ok_and(|followed| followed.contains_key(&id));
        if !followed {
            return;
        }
        let runtime = self.clone();
        tokio::spawn(async move {
            let found = runtime.store().get(&id, runtime.now()).await;
            if let Ok(Some(record)) = runtime.reached(found) {
                let _ = runtime.changes.send(Arc::new(record));
            }
        });
    }

    /// How long a waiting handler may still answer its call inline.
    pub(crate) fn inline_grace(&self) -> Duration {
        self.settings.inline_grace
    }

    /// What the tool `name` declares.
    pub(crate) fn support(&self, name: &str) -> TaskSupport {
        self.support.get(name).copied().unwrap_or_default()
    }

    fn store(&self) -> &dyn TaskStore {
        &*self.settings.store
    }

    /// The time on the store's clock ([`TaskStore::now_ms`]), which every
    /// time in a record is read from and compared with: replicas that
    /// share a store share its clock, whatever their own clocks say.
    fn now(&self) -> u64 {
        self.store().now_ms()
    }

    /// `result` of a call to the store, its failure noted (see
    /// [`Runtime::judges_leases`]).
    fn reached<T>(&self, result: Result<T, super::StoreError>) -> Result<T, super::StoreError> {
        use std::sync::atomic::Ordering::Relaxed;
        let now = self.now().max(1);
        match result {
            Ok(_) => {
                // The first success after failures ends an outage: it
                // counts as lasting until now.
                let previous = self.last_store_ok_ms.swap(now, Relaxed);
                if self.last_store_error_ms.load(Relaxed) > previous {
                    self.last_store_error_ms.store(now, Relaxed);
                }
            }
            Err(_) => self.last_store_error_ms.store(now, Relaxed),
        }
        result
    }

    /// Whether this replica may take a lapsed lease for a stopped replica
    /// at `now`: not within a lease length of its last store error.
    fn judges_leases(&self, now: u64) -> bool {
        let Some(lease) = self.store().lease() else {
            return true;
        };
        let error = self
            .last_store_error_ms
            .load(std::sync::atomic::Ordering::Relaxed)
            .max(self.store().last_unreachable_ms().unwrap_or(0));
        record::may_judge_leases(now, (error != 0).then_some(error), millis(lease))
    }

    fn live(&self) -> std::sync::MutexGuard<'_, super::Table<Live>> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stores a new task for `owner`, to be run with [`Runtime::start`].
    /// A store at its bound (or the owner at its quota) refuses: the
    /// caller may answer the call itself instead.
    pub(crate) async fn create(
        &self,
        owner: Option<&str>,
        client: Option<String>,
    ) -> Result<Created, super::StoreError> {
        let now = self.now();
        let ttl = self.settings.ttl.map(millis);
        // The record is made and handed over in a block of its own: a
        // local moved away before an await still keeps its room in the
        // future until its scope ends, and this future is part of every
        // call that may become a task.
        let (stored, id, created) = {
            let poll = millis(self.settings.poll_interval);
            let id = new_id().map_err(|e| super::StoreError::Backend(e.message))?;
            let mut record = TaskRecord::new(id, owner.map(str::to_owned), now, ttl, poll);
            record.client = client;
            if let Some(lease) = self.store().lease() {
                record.renew(now.saturating_add(millis(lease)));
            }
            let created = record.view(Shape::Created).to_json();
            let id = record.id.clone();
            (self.store().create(record, now), id, created)
        };
        let expires = ttl.map(|ttl| now.saturating_add(ttl));
        let stored = stored.await;
        self.reached(stored)?;
        Ok(Created {
            id,
            created,
            expires,
        })
    }

    /// Runs the task `created` in the background, whose handler is `first`
    /// (already started), and returns the `CreateTaskResult`, encoded.
    pub(crate) fn start(
        self: &Arc<Self>,
        created: Created,
        first: BoxFuture<'static, Outcome>,
        rerun: Rerun,
        cancel: watch::Sender<bool>,
    ) -> String {
        let Created {
            id,
            created,
            expires,
        } = created;
        tracing::info!(target: "mcp_server::tasks", task = %crate::observe::redacted(&id), "task created");
        crate::observe::task("created");
        let cancelled = cancel.subscribe();
        let wake = Arc::new(Notify::new());
        self.live().insert(
            id.clone(),
            Live {
                cancel,
                wake: wake.clone(),
            },
        );
        self.listen();
        let runtime = self.clone();
        tokio::spawn(async move {
            crate::observe::tasks_running(1);
            let finished = if runtime.store().lease().is_some() {
                Box::pin(runtime.clone().drive_leased(
                    id.clone(),
                    first,
                    rerun,
                    cancelled,
                    wake,
                    expires,
                ))
                .await
            } else {
                // Nothing else to look after: the handler runs in this
                // task, which is then all a live task costs. (`drive`
                // catches the handler's panics; this catches its own, so
                // that the books below are kept whatever happens.)
                let drive = runtime.drive(&id, first, rerun, cancelled, wake, expires);
                AssertUnwindSafe(Box::pin(drive))
                    .catch_unwind()
                    .await
                    .unwrap_or(false)
            };
            let live = runtime.live().remove(&id);
            crate::observe::tasks_running(-1);
            runtime.ended.notify_waiters();
            // A handler stopped before it finished may have handed work
            // elsewhere, which watches its context: tell it.
            if let (Some(live), false) = (live, finished) {
                let _ = live.cancel.send(true);
            }
        });
        created
    }

    /// [`Runtime::drive`] beside the keeper of the task's lease. The
    /// handler and the lease keeper run as tasks of their own, so that a
    /// handler busy in one poll does not hold up its lease (as long as it
    /// is busy inside `tokio::task::block_in_place` or on a blocking
    /// thread: a worker blocked outside them can hold up the runtime's
    /// timers, the lease keeper's among them). The lease
    /// keeper ends first when the task was settled elsewhere (cancelled
    /// through another replica, or failed for a lapsed lease): the handler
    /// is dropped with it.
    async fn drive_leased(
        self: Arc<Self>,
        id: String,
        first: BoxFuture<'static, Outcome>,
        rerun: Rerun,
        cancelled: watch::Receiver<bool>,
        wake: Arc<Notify>,
        expires: Option<u64>,
    ) -> bool {
        let handler = tokio::spawn({
            let (runtime, id) = (self.clone(), id.clone());
            async move {
                runtime
                    .drive(&id, first, rerun, cancelled, wake, expires)
                    .await
            }
        });
        let stop_handler = handler.abort_handle();
        let lease = tokio::spawn({
            let runtime = self.clone();
            async move { runtime.keep_lease(&id).await }
        });
        let stop_lease = lease.abort_handle();
        let finished = tokio::select! {
            finished = handler => finished.unwrap_or(false),
            _ = lease => {
                stop_handler.abort();
                false
            }
        };
        stop_lease.abort();
        finished
    }

    /// Listens, once, to the signals other replicas send about the tasks
    /// this one runs or follows.
    fn listen(self: &Arc<Self>) {
        use std::sync::atomic::Ordering;
        let Some(mut signals) = self.store().signals() else {
            return;
        };
        if self.listening.swap(true, Ordering::SeqCst) {
            return;
        }
        let runtime = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let received = signals.recv().await;
                let Some(runtime) = runtime.upgrade() else {
                    return;
                };
                match received {
                    Ok((id, Signal::Changed)) => runtime.changed_elsewhere(id),
                    Ok((id, signal)) => runtime.signal_here(&id, signal),
                    // Lost signals are made up for: the handler's replica
                    // looks at the record at every poll interval and every
                    // lease renewal, and every followed task is read again.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        let followed: Vec<String> = runtime
                            .followed
                            .lock()
                            .map(|f| f.keys().cloned().collect())
                            .unwrap_or_default();
                        for id in followed {
                            runtime.changed_elsewhere(id);
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }

    /// Passes `signal` to the handler of task `id`, if this replica runs it.
    fn signal_here(&self, id: &str, signal: Signal) {
        if let Some(live) = self.live().get(id) {
            match signal {
                Signal::Wake => live.wake.notify_one(),
                Signal::Cancel => {
                    let _ = live.cancel.send(true);
                }
                Signal::Changed => {}
            }
        }
    }

    /// Renews the lease of task `id` at a third of its length while the
    /// handler runs (in a task of its own beside the handler's); returns
    /// when the task is settled or gone. Never returns for a store without
    /// leases.
    async fn keep_lease(&self, id: &str) {
        let Some(lease) = self.store().lease() else {
            return std::future::pending().await;
        };
        let mut wait = lease / 3;
        loop {
            tokio::time::sleep(wait).await;
            let until = self.now().saturating_add(millis(lease));
            let mut renew = |r: &mut TaskRecord| r.renew(until);
            match self.reached(self.store().update(id, self.now(), &mut renew).await) {
                Ok(Some(record)) if !record.status.is_terminal() => wait = lease / 3,
                Ok(_) => return,
                // The backend may come back before the lease runs out:
                // renew as soon as it does.
                Err(_) => wait = lease / 10,
            }
        }
    }

    /// Runs the handler until the task settles, parking it while it waits
    /// for input; whether the handler finished (rather than being stopped
    /// by a cancel, the TTL, or the task settled elsewhere).
    async fn drive(
        &self,
        id: &str,
        mut run: BoxFuture<'static, Outcome>,
        rerun: Rerun,
        mut cancelled: watch::Receiver<bool>,
        wake: Arc<Notify>,
        expires_ms: Option<u64>,
    ) -> bool {
        let ttl = self.settings.ttl.unwrap_or(Duration::MAX);
        let deadline = tokio::time::Instant::now().checked_add(ttl);
        let expired = async move {
            match deadline {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(expired);
        let mut rounds = 0;
        loop {
            let guarded = AssertUnwindSafe(&mut run).catch_unwind();
            let outcome = tokio::select! {
                outcome = guarded => outcome.unwrap_or_else(|_| {
                    tracing::error!(target: "mcp_server::tasks", task = %crate::observe::redacted(id), "a task's handler panicked");
                    crate::observe::task("panicked");
                    Outcome::Error(ErrorObject::internal_error("the tool panicked"))
                }),
                _ = cancelled.wait_for(|c| *c) => return false,
                () = &mut expired => return false,
            };
            let (requests, request_state) = match outcome {
                Outcome::Complete(result) => {
                    // Told only when this outcome is what the task ended
                    // with, not one that came after a cancel.
                    let mut ended = false;
                    Box::pin(self.settle(id, expires_ms, |r, now| {
                        ended = r.complete(result.clone(), now);
                    }))
                    .await;
                    if ended {
                        tracing::info!(target: "mcp_server::tasks", task = %crate::observe::redacted(id), "task completed");
                        crate::observe::task("completed");
                    }
                    return true;
                }
                Outcome::Error(error) => {
                    let mut ended = false;
                    Box::pin(self.settle(id, expires_ms, |r, now| {
                        ended = r.fail(&error, now);
                    }))
                    .await;
                    if ended {
                        tracing::info!(
                            target: "mcp_server::tasks",
                            task = %crate::observe::redacted(id),
                            code = error.code,
                            "task failed"
                        );
                        crate::observe::task("failed");
                    }
                    return true;
                }
                Outcome::InputRequired { .. } if rounds == MAX_INPUT_ROUNDS => {
                    let error = ErrorObject::internal_error(format!(
                        "the tool asked for input more than {MAX_INPUT_ROUNDS} times"
                    ));
                    Box::pin(self.settle(id, expires_ms, |r, now| {
                        r.fail(&error, now);
                    }))
                    .await;
                    return true;
                }
                Outcome::InputRequired {
                    requests,
                    request_state,
                } => (requests, request_state),
            };
            rounds += 1;
            Box::pin(self.settle(id, expires_ms, |r, now| {
                r.input_required(requests.clone(), request_state.clone(), now);
            }))
            .await;
            // Wait for every answer; look at the record on each wake-up, and
            // now and then in any case (an update may have reached another
            // replica's store).
            let (answers, state) = loop {
                let mut resume = None;
                let found = Box::pin(self.settle(id, expires_ms, |r, _| {
                    resume = r.take_resume();
                }))
                .await;
                match (found, resume) {
                    (false, _) => return false,
                    (true, Some(resume)) => break resume,
                    (true, None) => {}
                }
                tokio::select! {
                    _ = tokio::time::timeout(self.settings.poll_interval, wake.notified()) => {}
                    _ = cancelled.wait_for(|c| *c) => return false,
                    () = &mut expired => return false,
                }
            };
            run = rerun(answers, state);
        }
    }

    /// Applies `change` to the record `id`; `false` when it is gone or
    /// settled. A store error does not lose the change: it is tried again
    /// after [`SETTLE_BACKOFF`] until the task expires (an hour at most).
    /// With a store that leases tasks and answers other calls meanwhile,
    /// only for one lease length: past that another replica may take the
    /// task for lapsed. A store that answers nobody is an outage, which no
    /// replica takes a lease for, so the change waits for its end. When
    /// every try failed, the task is failed with [`UNSTORED`] if the store
    /// takes that much.
    async fn settle(
        &self,
        id: &str,
        expires_ms: Option<u64>,
        mut change: impl FnMut(&mut TaskRecord, u64) + Send,
    ) -> bool {
        let mut first_failure_ms = None;
        let mut failures = 0;
        loop {
            let error = match self.try_settle(id, &mut change).await {
                Ok(live) => return live,
                // Trying again would write the same bytes.
                Err(error @ super::StoreError::TooLarge { .. }) => {
                    tracing::error!(task = %crate::observe::redacted(id), %error, "a task's outcome is too large to store");
                    return self.fail_with(id, TOO_LARGE).await;
                }
                Err(error) => error,
            };
            failures += 1;
            let now = self.now();
            let first = *first_failure_ms.get_or_insert(now);
            let reachable = self
                .last_store_ok_ms
                .load(std::sync::atomic::Ordering::Relaxed)
                > first;
            let patience = match self.store().lease() {
                Some(lease) if reachable => millis(lease),
                _ => millis(SETTLE_PATIENCE),
            };
            let give_up_ms = expires_ms
                .unwrap_or(u64::MAX)
                .min(first.saturating_add(patience));
            let left = Duration::from_millis(give_up_ms.saturating_sub(now));
            let Some(wait) = SETTLE_BACKOFF.delay(failures, left) else {
                tracing::error!(task = %crate::observe::redacted(id), failures, %error, "gave up storing a task's outcome");
                break;
            };
            tracing::warn!(task = %crate::observe::redacted(id), failures, %error, "storing a task's outcome failed; trying again");
            tokio::time::sleep(wait).await;
        }
        self.fail_with(id, UNSTORED).await
    }

    /// Fails task `id` with `message`, in one try; `false`, for
    /// [`Runtime::settle`] to return.
    async fn fail_with(&self, id: &str, message: &str) -> bool {
        let error = ErrorObject::internal_error(message);
        let _ = self
            .try_settle(id, &mut |r: &mut TaskRecord, now| {
                r.fail(&error, now);
            })
            .await;
        false
    }

    /// One try of [`Runtime::settle`].
    async fn try_settle(
        &self,
        id: &str,
        change: &mut (dyn FnMut(&mut TaskRecord, u64) + Send),
    ) -> Result<bool, super::StoreError> {
        let now = self.now();
        let mut changed = false;
        let mut apply = |r: &mut TaskRecord| {
            let before = r.updated_ms;
            let status = r.status;
            change(r, now);
            changed = r.updated_ms != before || r.status != status;
        };
        Ok(
            match self.reached(self.store().update(id, now, &mut apply).await)? {
                Some(record) => {
                    let live = !record.status.is_terminal();
                    if changed {
                        self.announce(record);
                    }
                    live
                }
                None => false,
            },
        )
    }

    /// The record `id` if `principal` owns it. An unfinished task whose
    /// lease ran out (its replica stopped) is failed first.
    async fn owned(&self, id: &str, principal: Option<&str>) -> Result<TaskRecord, ErrorObject> {
        let now = self.now();
        let got = self.store().get(id, now).await;
        // In a block, and the rare lapse in a future of its own: this one
        // is part of every poll's, and a record kept in scope would keep
        // its room there across the await below.
        {
            let record = match self.reached(got).map_err(store_error)? {
                Some(record) if record.owned_by(principal) => record,
                _ => return Err(not_found()),
            };
            if !record.lapsed(now) || !self.judges_leases(now) {
                return Ok(record);
            }
        }
        Box::pin(self.lapse(id, now)).await
    }

    /// Fails the unfinished task `id` whose lease ran out at `now`, and
    /// returns its record as it is afterwards.
    async fn lapse(&self, id: &str, now: u64) -> Result<TaskRecord, ErrorObject> {
        let mut lapsed = false;
        let mut apply = |r: &mut TaskRecord| lapsed = r.lapse(now);
        let updated = self.store().update(id, now, &mut apply).await;
        match self.reached(updated).map_err(store_error)? {
            Some(after) => {
                if lapsed {
                    tracing::warn!(
                        target: "mcp_server::tasks",
                        task = %crate::observe::redacted(id),
                        "task failed: the replica running it stopped renewing its lease"
                    );
                    crate::observe::task("lapsed");
                    self.announce(after.clone());
                }
                Ok(after)
            }
            None => Err(not_found()),
        }
    }

    /// `tasks/get` of the task `id`: the detailed task, encoded.
    pub(crate) async fn get(
        &self,
        id: &str,
        principal: Option<&str>,
    ) -> Result<String, ErrorObject> {
        let record = self.owned(id, principal).await?;
        Ok(record.view(Shape::Got).to_json())
    }

    /// `tasks/update`: keeps the answers to outstanding requests, wakes the
    /// handler once all are in.
    pub(crate) async fn update(
        &self,
        params: &Map<String, Value>,
        principal: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let record = self.owned(task_id(params)?, principal).await?;
        let Some(Value::Object(responses)) = params.get("inputResponses") else {
            return Err(ErrorObject::invalid_params(
                "`params.inputResponses` must be an object",
            ));
        };
        // Only answers to outstanding requests matter; those must be
        // well-formed answers.
        let mut kept = Map::new();
        for (key, response) in responses {
            if !record.input_requests.contains_key(key) {
                continue;
            }
            if serde_json::from_value::<InputResponse>(response.clone()).is_err() {
                return Err(ErrorObject::invalid_params(format!(
                    "`params.inputResponses.{key}` is not an answer to an input request"
                )));
            }
            kept.insert(key.clone(), response.clone());
        }
        let mut accepted = Accepted::Ignored;
        if !kept.is_empty() {
            let now = self.now();
            let mut apply = |r: &mut TaskRecord| {
                accepted = r.accept(kept.clone(), now);
            };
            let updated = self.store().update(&record.id, now, &mut apply).await;
            let after = self.reached(updated).map_err(store_error)?;
            if let (Some(after), false) = (after, accepted == Accepted::Ignored) {
                self.announce(after);
            }
        }
        if accepted == Accepted::Resume {
            self.signal_here(&record.id, Signal::Wake);
            // The handler may run on another replica; it also looks for
            // itself at every poll interval, so a lost signal only delays.
            let signalled = self.store().notify(&record.id, Signal::Wake).await;
            let _ = self.reached(signalled);
        }
        Ok(json!({}))
    }

    /// `tasks/cancel`: settles the task as cancelled unless it is finished,
    /// and stops its handler. The same empty answer either way.
    pub(crate) async fn cancel(
        &self,
        params: &Map<String, Value>,
        principal: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let record = self.owned(task_id(params)?, principal).await?;
        let now = self.now();
        let mut changed = false;
        let mut apply = |r: &mut TaskRecord| {
            changed = r.cancel(now);
        };
        let updated = self.store().update(&record.id, now, &mut apply).await;
        let after = self.reached(updated).map_err(store_error)?;
        if let (Some(after), true) = (after, changed) {
            tracing::info!(target: "mcp_server::tasks", task = %crate::observe::redacted(&record.id), "task cancelled");
            crate::observe::task("cancelled");
            self.announce(after);
        }
        self.signal_here(&record.id, Signal::Cancel);
        // The handler may run on another replica; its lease keeper also
        // sees the cancelled record, so a lost signal only delays.
        let signalled = self.store().notify(&record.id, Signal::Cancel).await;
        let _ = self.reached(signalled);
        Ok(json!({}))
    }
}

/// Polls `future` once, with a waker that does nothing: its output if it is
/// ready at once, the future otherwise (to be polled again properly).
pub(crate) fn poll_once<F: Future + Unpin>(mut future: F) -> Result<F::Output, F> {
    match (&mut future).now_or_never() {
        Some(output) => Ok(output),
        None => Err(future),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(settings: TaskSettings) -> Arc<Runtime> {
        let tool: Tool = serde_json::from_value(json!({
            "name": "job",
            "inputSchema": {"type": "object"},
            "_meta": {"io.modelcontextprotocol/tasks": {"taskSupport": "optional"}},
        }))
        .expect("a tool");
        Arc::new(Runtime::new(settings, &[tool]).expect("a tool runs as a task"))
    }

    /// `tasks/get`'s answer, decoded.
    async fn got(
        runtime: &Runtime,
        params: &Map<String, Value>,
        principal: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let text = runtime.get(task_id(params)?, principal).await?;
        Ok(serde_json::from_str(&text).expect("tasks/get answers JSON"))
    }

    #[test]
    fn task_ids_drawn_ahead_never_repeat_across_reads_and_threads() {
        let draw = || {
            (0..IDS_A_READ * 5 + 3)
                .map(|_| new_id().expect("an id"))
                .collect::<Vec<_>>()
        };
        let mut ids = draw();
        ids.extend(std::thread::spawn(draw).join().expect("a thread"));
        let count = ids.len();
        for id in &ids {
            let random = id.strip_prefix("task_").expect("the prefix");
            assert_eq!(random.len(), 32, "{id}");
            assert!(random
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        }
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), count, "an id repeated");
    }

    fn never_rerun() -> Rerun {
        Box::new(|_, _| Box::pin(async { Outcome::Error(ErrorObject::internal_error("rerun")) }))
    }

    fn params(id: &str) -> Map<String, Value> {
        Map::from_iter([("taskId".to_owned(), json!(id))])
    }

    async fn start(
        runtime: &Arc<Runtime>,
        owner: Option<&str>,
        run: BoxFuture<'static, Outcome>,
    ) -> String {
        let (cancel, _) = watch::channel(false);
        let stored = runtime.create(owner, None).await.expect("created");
        let created: Value =
            serde_json::from_str(&runtime.start(stored, run, never_rerun(), cancel))
                .expect("a CreateTaskResult");
        created["taskId"].as_str().expect("an id").to_owned()
    }

    async fn settled(runtime: &Runtime, id: &str, owner: Option<&str>) -> Value {
        for _ in 0..200 {
            let task = got(runtime, &params(id), owner).await.expect("found");
            if task["status"] != "working" {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("task {id} never settled");
    }

    /// A fault injector: the in-memory store, except that it refuses the
    /// next `budget` writes that would leave a record `refused` says, as a
    /// backend that fails would.
    struct Faulty {
        inner: crate::tasks::MemoryTaskStore,
        refused: fn(&TaskRecord) -> bool,
        budget: std::sync::atomic::AtomicUsize,
        lease: Option<Duration>,
        /// How far the store's clock is ahead of this process's.
        ahead_ms: u64,
        /// Until when every call fails, as in an outage of the backend.
        down_until: Mutex<Option<std::time::Instant>>,
    }

    impl Faulty {
        fn new(refused: fn(&TaskRecord) -> bool, budget: usize) -> Self {
            Faulty {
                inner: crate::tasks::MemoryTaskStore::new(16),
                refused,
                budget: budget.into(),
                lease: None,
                ahead_ms: 0,
                down_until: Mutex::new(None),
            }
        }

        /// The outage's error, while it lasts.
        fn down(&self) -> Result<(), crate::tasks::StoreError> {
            let until = *self.down_until.lock().expect("lock");
            match until {
                Some(until) if std::time::Instant::now() < until => {
                    Err(crate::tasks::StoreError::Backend("unreachable".into()))
                }
                _ => Ok(()),
            }
        }

        fn refuses(&self, record: &TaskRecord) -> bool {
            use std::sync::atomic::Ordering;
            (self.refused)(record)
                && self
                    .budget
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok()
        }
    }

    impl TaskStore for Faulty {
        fn create(
            &self,
            record: TaskRecord,
            now_ms: u64,
        ) -> BoxFuture<'_, Result<(), crate::tasks::StoreError>> {
            if let Err(e) = self.down() {
                return Box::pin(std::future::ready(Err(e)));
            }
            self.inner.create(record, now_ms)
        }

        fn get<'a>(
            &'a self,
            id: &'a str,
            now_ms: u64,
        ) -> BoxFuture<'a, Result<Option<TaskRecord>, crate::tasks::StoreError>> {
            if let Err(e) = self.down() {
                return Box::pin(std::future::ready(Err(e)));
            }
            self.inner.get(id, now_ms)
        }

        fn update<'a>(
            &'a self,
            id: &'a str,
            now_ms: u64,
            change: crate::tasks::store::Change<'a>,
        ) -> BoxFuture<'a, Result<Option<TaskRecord>, crate::tasks::StoreError>> {
            Box::pin(async move {
                self.down()?;
                let mut refused = false;
                let mut guarded = |r: &mut TaskRecord| {
                    let mut after = r.clone();
                    change(&mut after);
                    refused = self.refuses(&after);
                    if !refused {
                        *r = after;
                    }
                };
                let after = self.inner.update(id, now_ms, &mut guarded).await?;
                if refused {
                    return Err(crate::tasks::StoreError::Backend("injected".into()));
                }
                Ok(after)
            })
        }

        fn lease(&self) -> Option<Duration> {
            self.lease
        }

        fn now_ms(&self) -> u64 {
            now_ms() + self.ahead_ms
        }
    }

    fn completed(record: &TaskRecord) -> bool {
        record.status == crate::tasks::Status::Completed
    }

    fn done_soon() -> BoxFuture<'static, Outcome> {
        Box::pin(async {
            tokio::task::yield_now().await;
            Outcome::Complete(record::tests::encoded(
                json!({"content": [{"type": "text", "text": "done"}]}),
            ))
        })
    }

    #[tokio::test]
    async fn a_result_survives_store_errors_while_it_is_stored() {
        let runtime = runtime(TaskSettings::default().store(Faulty::new(completed, 3)));
        let id = start(&runtime, None, done_soon()).await;
        let task = settled(&runtime, &id, None).await;
        assert_eq!(task["status"], "completed", "{task}");
        assert_eq!(task["result"]["content"][0]["text"], "done");
    }

    #[tokio::test]
    async fn a_result_the_store_never_takes_fails_the_task_saying_so() {
        let mut store = Faulty::new(completed, usize::MAX);
        store.lease = Some(Duration::from_millis(150));
        let runtime = runtime(TaskSettings::default().store(store));
        let id = start(&runtime, None, done_soon()).await;
        let mut task = Value::Null;
        for _ in 0..100 {
            task = got(&runtime, &params(&id), None).await.expect("found");
            if task["status"] != "working" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(task["status"], "failed", "{task}");
        assert_eq!(task["error"]["code"], -32603);
        assert_eq!(task["error"]["message"], UNSTORED);
        assert!(task.get("result").is_none());
    }

    #[tokio::test]
    async fn a_result_waits_out_an_outage_longer_than_the_lease() {
        let mut store = Faulty::new(completed, 0);
        store.lease = Some(Duration::from_millis(150));
        let store = Arc::new(store);
        struct Shared(Arc<Faulty>);
        impl TaskStore for Shared {
            fn create(
                &self,
                record: TaskRecord,
                now_ms: u64,
            ) -> BoxFuture<'_, Result<(), crate::tasks::StoreError>> {
                self.0.create(record, now_ms)
            }
            fn get<'a>(
                &'a self,
                id: &'a str,
                now_ms: u64,
            ) -> BoxFuture<'a, Result<Option<TaskRecord>, crate::tasks::StoreError>> {
                self.0.get(id, now_ms)
            }
            fn update<'a>(
                &'a self,
                id: &'a str,
                now_ms: u64,
                change: crate::tasks::store::Change<'a>,
            ) -> BoxFuture<'a, Result<Option<TaskRecord>, crate::tasks::StoreError>> {
                self.0.update(id, now_ms, change)
            }
            fn lease(&self) -> Option<Duration> {
                self.0.lease()
            }
        }
        let runtime = runtime(TaskSettings::default().store(Shared(store.clone())));
        let finish = Arc::new(Notify::new());
        let run: BoxFuture<'static, Outcome> = Box::pin({
            let finish = finish.clone();
            async move {
                finish.notified().await;
                Outcome::Complete(record::tests::encoded(
                    json!({"content": [{"type": "text", "text": "done"}]}),
                ))
            }
        });
        let id = start(&runtime, None, run).await;
        // The handler finishes a moment into an outage four leases long.
        *store.down_until.lock().expect("lock") =
            Some(std::time::Instant::now() + Duration::from_millis(600));
        tokio::time::sleep(Duration::from_millis(50)).await;
        finish.notify_one();
        tokio::time::sleep(Duration::from_millis(800)).await;
        let task = settled(&runtime, &id, None).await;
        assert_eq!(task["status"], "completed", "{task}");
        assert_eq!(task["result"]["content"][0]["text"], "done");
    }

    /// Starts `run` and returns the task id and what its context watches.
    async fn start_watched(
        runtime: &Arc<Runtime>,
        run: BoxFuture<'static, Outcome>,
    ) -> (String, watch::Receiver<bool>) {
        let (cancel, watched) = watch::channel(false);
        let stored = runtime.create(None, None).await.expect("created");
        let created: Value =
            serde_json::from_str(&runtime.start(stored, run, never_rerun(), cancel))
                .expect("a CreateTaskResult");
        let id = created["taskId"].as_str().expect("an id").to_owned();
        (id, watched)
    }

    /// Whether `watched` turns `true` within a second.
    async fn told_to_stop(watched: &mut watch::Receiver<bool>) -> bool {
        let told = tokio::time::timeout(Duration::from_secs(1), watched.wait_for(|c| *c));
        matches!(told.await, Ok(Ok(_)))
    }

    #[tokio::test]
    async fn a_handler_stopped_by_expiry_or_lapse_is_told_and_a_finished_one_is_not() {
        let expiring = runtime(TaskSettings::default().ttl(Some(Duration::from_millis(30))));
        let (_, mut watched) = start_watched(&expiring, Box::pin(std::future::pending())).await;
        assert!(told_to_stop(&mut watched).await, "expired");

        let mut store = Faulty::new(completed, 0);
        store.lease = Some(Duration::from_millis(60));
        let leased = runtime(TaskSettings::default().store(store));
        let (id, mut watched) = start_watched(&leased, Box::pin(std::future::pending())).await;
        // Another replica took the task for lapsed.
        let mut lapse = |r: &mut TaskRecord| {
            r.lapse(u64::MAX);
        };
        leased
            .store()
            .update(&id, now_ms(), &mut lapse)
            .await
            .expect("updated");
        assert!(told_to_stop(&mut watched).await, "lapsed");

        let plain = runtime(TaskSettings::default());
        let (id, mut watched) = start_watched(&plain, done_soon()).await;
        assert_eq!(settled(&plain, &id, None).await["status"], "completed");
        assert!(!told_to_stop(&mut watched).await, "finished");
        assert!(!*watched.borrow());
    }

    #[tokio::test]
    async fn the_context_hears_when_the_runtime_lets_go_of_the_call() {
        let (cancel, watched) = watch::channel(false);
        let cx = crate::Context::new("tools/call", Default::default()).with_cancellation(watched);
        let waiting = tokio::spawn(async move { cx.cancelled().await });
        drop(cancel);
        let heard = tokio::time::timeout(Duration::from_secs(1), waiting).await;
        assert!(matches!(heard, Ok(Ok(()))), "{heard:?}");
    }

    #[tokio::test]
    async fn another_principal_is_told_the_task_does_not_exist() {
        let runtime = runtime(TaskSettings::default());
        let id = start(&runtime, Some("alice"), Box::pin(std::future::pending())).await;
        assert!(got(&runtime, &params(&id), Some("alice")).await.is_ok());
        for stranger in [Some("mallory"), None] {
            for result in [
                got(&runtime, &params(&id), stranger).await,
                runtime.cancel(&params(&id), stranger).await,
                runtime.update(&params(&id), stranger).await,
            ] {
                let error = result.expect_err("not found");
                assert_eq!(error.code, -32602);
                assert_eq!(error.message, not_found().message);
            }
        }
        // The stranger's cancel changed nothing.
        let task = got(&runtime, &params(&id), Some("alice"))
            .await
            .expect("found");
        assert_eq!(task["status"], "working");
    }

    #[tokio::test]
    async fn a_handler_that_keeps_asking_fails_after_the_last_round() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        fn ask(round: usize) -> Outcome {
            let request = json!({"method": "elicitation/create", "params": {"message": "more?"}});
            Outcome::InputRequired {
                requests: Map::from_iter([(format!("k{round}"), request)]),
                request_state: None,
            }
        }
        let runtime = runtime(TaskSettings::default().poll_interval(Duration::from_millis(5)));
        let asked = Arc::new(AtomicUsize::new(1));
        let rerun: Rerun = Box::new({
            let asked = asked.clone();
            move |_, _| {
                let round = asked.fetch_add(1, Ordering::SeqCst);
                Box::pin(async move { ask(round) })
            }
        });
        let (cancel, _) = watch::channel(false);
        let stored = runtime.create(None, None).await.expect("created");
        let created: Value =
            serde_json::from_str(&runtime.start(stored, Box::pin(async { ask(0) }), rerun, cancel))
                .expect("a CreateTaskResult");
        let id = created["taskId"].as_str().expect("an id").to_owned();
        let mut answered = 0;
        let task = loop {
            let task = got(&runtime, &params(&id), None).await.expect("found");
            match task["status"].as_str() {
                Some("input_required") => {
                    let keys: Vec<String> = task["inputRequests"]
                        .as_object()
                        .map(|r| r.keys().cloned().collect())
                        .unwrap_or_default();
                    if let Some(key) = keys.first() {
                        let mut update = params(&id);
                        update.insert(
                            "inputResponses".into(),
                            json!({ key: {"action": "decline"} }),
                        );
                        if runtime.update(&update, None).await.is_ok() {
                            answered += 1;
                        }
                    }
                }
                Some("working") => {}
                _ => break task,
            }
            assert!(answered <= MAX_INPUT_ROUNDS + 1, "the asking never stops");
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        assert_eq!(task["status"], "failed", "{task}");
        assert_eq!(
            task["error"]["message"],
            format!("the tool asked for input more than {MAX_INPUT_ROUNDS} times")
        );
        assert_eq!(asked.load(Ordering::SeqCst), MAX_INPUT_ROUNDS + 1);
    }

    #[tokio::test]
    async fn a_drain_lets_tasks_finish_within_the_grace_and_fails_the_rest() {
        let runtime = runtime(TaskSettings::default());
        let quick = start(
            &runtime,
            None,
            Box::pin(async {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Outcome::Complete(record::tests::encoded(json!({"content": []})))
            }),
        )
        .await;
        let (slow, mut watched) = start_watched(&runtime, Box::pin(std::future::pending())).await;
        let failed = runtime.drain(Duration::from_millis(300)).await;
        assert_eq!(failed, 1);
        assert!(runtime.draining());
        let task = got(&runtime, &params(&quick), None).await.expect("found");
        assert_eq!(task["status"], "completed", "{task}");
        let task = got(&runtime, &params(&slow), None).await.expect("found");
        assert_eq!(task["status"], "failed", "{task}");
        assert_eq!(task["error"]["message"], SHUT_DOWN);
        tokio::time::timeout(Duration::from_secs(5), watched.wait_for(|c| *c))
            .await
            .expect("the handler's context hears of it")
            .expect("watched");
        // With nothing running, a drain ends at once.
        let empty = super::tests::runtime(TaskSettings::default());
        let began = std::time::Instant::now();
        assert_eq!(empty.drain(Duration::from_secs(30)).await, 0);
        assert!(began.elapsed() < Duration::from_secs(30));
    }

    #[tokio::test]
    async fn every_time_in_a_record_is_on_the_store_clock() {
        const HOUR: u64 = 3_600_000;
        let mut store = Faulty::new(completed, 0);
        store.lease = Some(Duration::from_millis(300));
        store.ahead_ms = HOUR;
        let runtime = runtime(TaskSettings::default().store(store));
        let local = now_ms();
        let (id, _watched) = start_watched(&runtime, Box::pin(std::future::pending())).await;
        let record = runtime
            .store()
            .get(&id, runtime.now())
            .await
            .expect("read")
            .expect("found");
        assert!(record.created_ms >= local + HOUR, "{record:?}");
        let lease = record.lease_until_ms.expect("leased");
        assert!(lease >= record.created_ms + 300, "{record:?}");
        // Renewed on the same clock: after two lease lengths the task is
        // still working, judged by this replica or any other on the store.
        tokio::time::sleep(Duration::from_millis(700)).await;
        let task = got(&runtime, &params(&id), None).await.expect("found");
        assert_eq!(task["status"], "working", "{task}");
        let record = runtime
            .store()
            .get(&id, runtime.now())
            .await
            .expect("read")
            .expect("found");
        assert!(record.lease_until_ms.expect("leased") > now_ms() + HOUR);
    }

    #[tokio::test]
    async fn a_panicking_handler_fails_its_task() {
        let runtime = runtime(TaskSettings::default());
        let run: BoxFuture<'static, Outcome> = Box::pin(async {
            tokio::task::yield_now().await;
            panic!("the handler broke")
        });
        let id = start(&runtime, None, run).await;
        let task = settled(&runtime, &id, None).await;
        assert_eq!(task["status"], "failed");
        assert_eq!(task["error"]["code"], -32603);
    }

    #[tokio::test]
    async fn a_task_past_its_ttl_is_gone_and_its_handler_dropped() {
        let runtime = runtime(TaskSettings::default().ttl(Some(Duration::from_millis(30))));
        let id = start(&runtime, None, Box::pin(std::future::pending())).await;
        assert_eq!(runtime.live().len(), 1);
        tokio::time::sleep(Duration::from_millis(60)).await;
        let error = got(&runtime, &params(&id), None)
            .await
            .expect_err("expired");
        assert_eq!(error.code, -32602);
        for _ in 0..100 {
            if runtime.live().is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("the expired task's handler still runs");
    }

    #[tokio::test]
    async fn ids_are_long_random_and_distinct() {
        let a = new_id().expect("id");
        let b = new_id().expect("id");
        assert_ne!(a, b);
        // 24 random bytes in unpadded base64url.
        assert_eq!(a.len(), "task_".len() + 32);
        assert!(a["task_".len()..]
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }

    fn cancelled(record: &TaskRecord) -> bool {
        record.status == crate::tasks::Status::Cancelled
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_handler_busy_in_one_poll_keeps_its_lease() {
        let mut store = Faulty::new(completed, 0);
        store.lease = Some(Duration::from_millis(90));
        let runtime = runtime(TaskSettings::default().store(store));
        // Holds its thread until the test has looked, as CPU-bound work
        // that never yields does: however slow the machine, the look comes
        // while the handler is busy, more than two leases in. It does so
        // in `block_in_place`, as such work must on tokio's multi-thread
        // runtime: a worker blocked outside it may be the one that was to
        // drive the timers, the lease keeper's included, and about one run
        // in ten the lease lapsed.
        let (release, released) = std::sync::mpsc::channel::<()>();
        let busy: BoxFuture<'static, Outcome> = Box::pin(async move {
            tokio::task::yield_now().await;
            tokio::task::block_in_place(|| released.recv_timeout(Duration::from_secs(30))).ok();
            Outcome::Complete(record::tests::encoded(json!({"content": []})))
        });
        let id = start(&runtime, None, busy).await;
        tokio::time::sleep(Duration::from_millis(250)).await;
        let task = got(&runtime, &params(&id), None).await.expect("found");
        assert_eq!(task["status"], "working", "{task}");
        release.send(()).expect("the handler waits");
        assert_eq!(settled(&runtime, &id, None).await["status"], "completed");
    }

    fn failed(record: &TaskRecord) -> bool {
        record.status == crate::tasks::Status::Failed
    }

    #[tokio::test]
    async fn no_lease_lapses_within_a_lease_length_of_a_store_error() {
        let lease = Duration::from_millis(100);
        let mut store = Faulty::new(failed, 1);
        store.lease = Some(lease);
        let runtime = runtime(TaskSettings::default().store(store));
        // A task whose replica stopped renewing its lease.
        let now = now_ms();
        let mut record = TaskRecord::new("task_orphan".into(), None, now, None, 500);
        record.renew(now - 1);
        runtime.store().create(record, now).await.expect("created");
        let orphan = params("task_orphan");

        // Failing it fails on the store: the store is out of reach.
        let error = got(&runtime, &orphan, None)
            .await
            .expect_err("the store failed");
        assert_eq!(error.message, STORE_FAILED);
        // Within a lease length of that, the lapsed lease is not judged.
        let task = got(&runtime, &orphan, None).await.expect("found");
        assert_eq!(task["status"], "working", "{task}");
        // A lease length later it is.
        tokio::time::sleep(lease + Duration::from_millis(20)).await;
        let task = got(&runtime, &orphan, None).await.expect("found");
        assert_eq!(task["status"], "failed", "{task}");
    }

    #[tokio::test]
    async fn a_client_is_told_of_a_store_error_in_general_terms() {
        let runtime = runtime(TaskSettings::default().store(Faulty::new(cancelled, 1)));
        let id = start(&runtime, None, Box::pin(std::future::pending())).await;
        let error = runtime
            .cancel(&params(&id), None)
            .await
            .expect_err("the store failed");
        assert_eq!(error.code, -32603);
        assert_eq!(error.message, STORE_FAILED);
        assert_eq!(error.data, None);
    }

    #[tokio::test]
    async fn a_full_store_refuses_new_tasks() {
        let settings = TaskSettings::default().store(crate::tasks::MemoryTaskStore::new(1));
        let runtime = runtime(settings);
        start(&runtime, None, Box::pin(std::future::pending())).await;
        let refused = runtime.create(None, None).await.err().expect("full");
        assert_eq!(refused, crate::tasks::StoreError::Full { max: 1 });
        let error = store_error(refused);
        assert_eq!(error.code, -32603);
        assert_eq!(error.message, STORE_FULL);
    }
}
