//! The books of one task, sans-IO: from what the server says of the task
//! to what the client does next.
//!
//! # Call contract
//!
//! 1. [`TaskDriver::start`] with the `CreateTaskResult` that answered the
//!    call (or [`TaskDriver::resume`] with a task id kept from earlier). It
//!    returns the first [`Next`] step.
//! 2. [`Next::Poll`]: wait that long, send `tasks/get`, and give the result
//!    to [`TaskDriver::on_task`] with the time now (on any monotonic clock
//!    the caller keeps), which returns the next step.
//! 3. [`Next::Answer`]: answer each input request through the host's input
//!    handler, send the answers with `tasks/update`, then wait and poll as
//!    for [`Next::Poll`]. The keys are marked answered when the step is
//!    handed out, so that a poll that still lists them (the server's view
//!    is eventually consistent) does not ask the person again. A key
//!    answered once is never waited on again: a poll that lists it after
//!    the server showed it had taken the answer (the server asked again,
//!    which the extension forbids), or that still lists it
//!    [`ANSWER_GRACE`] after the answer, ends the task with
//!    [`TaskError::AskedAgain`].
//! 4. [`Next::Done`]: the task reached a terminal status; stop.
//! 5. A `tasks/get` or `tasks/update` that fails: give
//!    [`TaskDriver::on_failure`] what kind of failure it was and the time
//!    left before the caller gives up. A passing failure (a connection
//!    lost, a 503, a -32603) says how long to wait before sending the same
//!    request again, with doubling waits ([`RETRY_BACKOFF`]); `None` (a
//!    definitive failure, or no time left) means stop with that error.
//!    An answer to a poll starts the count of failures again, and so does
//!    [`TaskDriver::on_updated`] once a `tasks/update` went through.
//!
//! The driver honours the server's `pollIntervalMs` within
//! [`MIN_POLL_INTERVAL`] and [`MAX_POLL_INTERVAL`], after a first poll
//! that comes within [`FIRST_POLL_INTERVAL`], so that a server can
//! neither make the client spin nor stall it, and bounds the input
//! requests one task may ask over its life ([`MAX_INPUT_KEYS`]).

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_types::backoff::Backoff;
use mcp_types::error::ErrorCode;
use mcp_types::ext::tasks::{CreateTaskResult, GetTaskResult};
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::v2026_07_28::InputRequest;
use serde_json::{Map, Value};

/// The shortest wait between two polls, whatever the server asks.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(50);
/// The longest wait between two polls, whatever the server asks.
pub const MAX_POLL_INTERVAL: Duration = Duration::from_secs(30);
/// The longest wait before the first poll of a task just created: a
/// short job's result then comes back sooner than a whole interval.
pub const FIRST_POLL_INTERVAL: Duration = Duration::from_millis(100);
/// The wait between polls when the server suggests none.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// Most distinct input request keys one task may ask over its life.
pub const MAX_INPUT_KEYS: usize = 256;
/// Longest task id the driver keeps: longer ones are refused.
pub const MAX_TASK_ID_LEN: usize = 256;
/// How long after an answer a server may still list its key (its view is
/// eventually consistent) before the client takes it for a server that
/// waits on an answer it had.
pub const ANSWER_GRACE: Duration = Duration::from_secs(30);
/// The waits before a request about the task is sent again after a
/// passing failure.
pub const RETRY_BACKOFF: Backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(5));
/// The most of a server's input key that an error repeats.
const SHOWN_KEY_LEN: usize = 64;

/// Where a task is, as its server last reported it: the extension's own
/// status type (`working`, `input_required`, `completed`, `failed`,
/// `cancelled`).
pub use mcp_types::ext::tasks::CreateTaskResultStatus as TaskStatus;

/// How a task ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskEnd {
    /// The result of the original request, as the server inlined it.
    Completed(Map<String, Value>),
    /// The JSON-RPC error the work ended with.
    Failed(ErrorObject),
    /// Cancelled, with the server's message if it gave one.
    Cancelled(Option<String>),
}

/// What the client does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Wait this long, then poll with `tasks/get`.
    Poll(Duration),
    /// Answer these input requests (only the ones not answered before),
    /// send the answers with `tasks/update`, then wait this long and poll.
    Answer {
        /// The new input requests, by the server's keys.
        requests: Vec<(String, InputRequest)>,
        /// The wait before the next poll.
        then: Duration,
    },
    /// The task ended.
    Done(TaskEnd),
}

/// How a request about the task failed, as far as retrying it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestFailure {
    /// No answer came: the connection failed, was reset or broke off, or
    /// the request timed out.
    Connection,
    /// An HTTP status other than 2xx.
    HttpStatus(u16),
    /// A JSON-RPC error, by its code.
    Rpc(i64),
    /// Anything else: the answer broke the protocol, the server's process
    /// is gone, and the like.
    Other,
}

impl RequestFailure {
    /// Whether the same request may well succeed if sent again: a lost
    /// connection, a status that says "later" (408, 425, 429, 500, 502,
    /// 503, 504), or an internal error. A task the server does not know
    /// (-32602) and every other failure is definitive.
    pub fn is_transient(self) -> bool {
        match self {
            RequestFailure::Connection => true,
            RequestFailure::HttpStatus(status) => {
                matches!(status, 408 | 425 | 429 | 500 | 502 | 503 | 504)
            }
            RequestFailure::Rpc(code) => code == ErrorCode::INTERNAL_ERROR.0,
            RequestFailure::Other => false,
        }
    }
}

/// Why the driver stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskError {
    /// A poll answered for another task.
    #[error("the server answered a poll of task `{asked}` with task `{answered}`")]
    OtherTask {
        /// The task polled.
        asked: String,
        /// The task the answer was for.
        answered: String,
    },
    /// The task asked for more distinct input than the bound allows.
    #[error("the task asked for input under more than {0} keys")]
    TooManyInputs(usize),
    /// A task id that is empty or longer than [`MAX_TASK_ID_LEN`].
    #[error("the server gave a task id that is empty or longer than {MAX_TASK_ID_LEN} bytes")]
    BadTaskId,
    /// The task waits on an input key this client answered already: the
    /// server asked under it again, or never took the answer.
    #[error("the task waits again on input {key:?}, which this client answered already")]
    AskedAgain {
        /// The key, as the server gave it (cut to its first 64 characters).
        key: String,
    },
}

/// What a poll showed, for a status line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskReport {
    /// The task.
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// The server's words on it, if any.
    pub message: Option<String>,
    /// How many times the task has been reported, from 1.
    pub seen: u64,
}

/// The books of one task.
#[derive(Debug, Clone)]
pub struct TaskDriver {
    task_id: String,
    answered: BTreeMap<String, Answered>,
    interval: Duration,
    report: TaskReport,
    /// Passing failures in a row since the last answer.
    failures: u32,
}

/// What the driver knows of one input key it answered.
#[derive(Debug, Clone, Copy)]
struct Answered {
    /// When the answer step was handed out.
    at: Duration,
    /// Whether a poll since showed the key no longer outstanding.
    taken: bool,
}

/// The poll interval the server asked for, within the bounds.
fn interval(ms: Option<i64>) -> Duration {
    match ms {
        None => DEFAULT_POLL_INTERVAL,
        Some(ms) => Duration::from_millis(u64::try_from(ms).unwrap_or(0))
            .clamp(MIN_POLL_INTERVAL, MAX_POLL_INTERVAL),
    }
}

fn checked_id(task_id: &str) -> Result<(), TaskError> {
    if task_id.is_empty() || task_id.len() > MAX_TASK_ID_LEN {
        return Err(TaskError::BadTaskId);
    }
    Ok(())
}

impl TaskDriver {
    /// The books of the task `created` announces, and the first step: a
    /// poll after the server's interval, or [`FIRST_POLL_INTERVAL`] if
    /// that is shorter (a task may be created in any status, but only a
    /// poll brings its result or its input requests).
    ///
    /// # Errors
    ///
    /// [`TaskError::BadTaskId`] for an empty or overlong task id.
    pub fn start(created: &CreateTaskResult) -> Result<(Self, Next), TaskError> {
        checked_id(&created.task_id)?;
        let interval = interval(created.poll_interval_ms);
        let status = created.status;
        let driver = Self {
            task_id: created.task_id.clone(),
            answered: BTreeMap::new(),
            interval,
            failures: 0,
            report: TaskReport {
                task_id: created.task_id.clone(),
                status,
                message: created.status_message.clone(),
                seen: 1,
            },
        };
        Ok((driver, Next::Poll(interval.min(FIRST_POLL_INTERVAL))))
    }

    /// The books of a task known only by its id, for a host that polls a
    /// task started earlier (by another process, or before a restart).
    /// The first step is an immediate poll.
    ///
    /// # Errors
    ///
    /// [`TaskError::BadTaskId`] for an empty or overlong task id.
    pub fn resume(task_id: &str) -> Result<(Self, Next), TaskError> {
        checked_id(task_id)?;
        let driver = Self {
            task_id: task_id.to_owned(),
            answered: BTreeMap::new(),
            interval: DEFAULT_POLL_INTERVAL,
            failures: 0,
            report: TaskReport {
                task_id: task_id.to_owned(),
                status: TaskStatus::Working,
                message: None,
                seen: 0,
            },
        };
        Ok((driver, Next::Poll(Duration::ZERO)))
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// What the last report showed.
    pub fn report(&self) -> &TaskReport {
        &self.report
    }

    /// Takes the result of a `tasks/get`, received at `now`, and says what
    /// to do next.
    ///
    /// # Errors
    ///
    /// [`TaskError`] when the answer is for another task, asks for too
    /// much input, or waits on input answered already.
    pub fn on_task(&mut self, got: GetTaskResult, now: Duration) -> Result<Next, TaskError> {
        let (task_id, status, message, poll) = match &got {
            GetTaskResult::Working(t) => (
                &t.task_id,
                TaskStatus::Working,
                &t.status_message,
                t.poll_interval_ms,
            ),
            GetTaskResult::InputRequired(t) => (
                &t.task_id,
                TaskStatus::InputRequired,
                &t.status_message,
                t.poll_interval_ms,
            ),
            GetTaskResult::Completed(t) => (
                &t.task_id,
                TaskStatus::Completed,
                &t.status_message,
                t.poll_interval_ms,
            ),
            GetTaskResult::Failed(t) => (
                &t.task_id,
                TaskStatus::Failed,
                &t.status_message,
                t.poll_interval_ms,
            ),
            GetTaskResult::Cancelled(t) => (
                &t.task_id,
                TaskStatus::Cancelled,
                &t.status_message,
                t.poll_interval_ms,
            ),
        };
        if *task_id != self.task_id {
            return Err(TaskError::OtherTask {
                asked: self.task_id.clone(),
                answered: task_id.clone(),
            });
        }
        self.interval = interval(poll);
        self.failures = 0;
        self.report.status = status;
        self.report.message.clone_from(message);
        self.report.seen += 1;
        Ok(match got {
            GetTaskResult::Working(_) => {
                self.taken(|_| false);
                Next::Poll(self.interval)
            }
            GetTaskResult::InputRequired(t) => {
                self.refuse_answered(&t.input_requests, now)?;
                self.taken(|key| t.input_requests.contains_key(key));
                let requests: Vec<_> = t
                    .input_requests
                    .into_iter()
                    .filter(|(key, _)| !self.answered.contains_key(key))
                    .collect();
                if self.answered.len() + requests.len() > MAX_INPUT_KEYS {
                    return Err(TaskError::TooManyInputs(MAX_INPUT_KEYS));
                }
                if requests.is_empty() {
                    // Everything listed is answered already: the server
                    // has not caught up with the update yet.
                    return Ok(Next::Poll(self.interval));
                }
                let answered = Answered {
                    at: now,
                    taken: false,
                };
                self.answered
                    .extend(requests.iter().map(|(key, _)| (key.clone(), answered)));
                Next::Answer {
                    requests,
                    then: self.interval,
                }
            }
            GetTaskResult::Completed(t) => Next::Done(TaskEnd::Completed(t.result)),
            GetTaskResult::Failed(t) => Next::Done(TaskEnd::Failed(ErrorObject {
                code: t.error.code,
                message: t.error.message,
                data: t.error.data,
            })),
            GetTaskResult::Cancelled(t) => Next::Done(TaskEnd::Cancelled(t.status_message)),
        })
    }

    /// A `tasks/get` or `tasks/update` failed with `failure`, `left` before
    /// the caller gives up: how long to wait before sending it again, or
    /// `None` to stop with its error (a definitive failure, or no time
    /// left).
    pub fn on_failure(&mut self, failure: RequestFailure, left: Duration) -> Option<Duration> {
        if !failure.is_transient() {
            return None;
        }
        self.failures = self.failures.saturating_add(1);
        RETRY_BACKOFF.delay(self.failures, left)
    }

    /// A `tasks/update` went through: the failures in a row start again.
    pub fn on_updated(&mut self) {
        self.failures = 0;
    }

    /// Marks the answered keys a poll no longer lists (`listed` says which
    /// it lists) as taken by the server.
    fn taken(&mut self, listed: impl Fn(&str) -> bool) {
        for (key, answered) in &mut self.answered {
            answered.taken |= !listed(key);
        }
    }

    /// Refuses a poll at `now` that waits on an answered key: one the
    /// server had taken, or one answered longer than [`ANSWER_GRACE`] ago.
    fn refuse_answered<V>(
        &self,
        listed: &BTreeMap<String, V>,
        now: Duration,
    ) -> Result<(), TaskError> {
        let stale = |a: &Answered| a.taken || now.saturating_sub(a.at) >= ANSWER_GRACE;
        match listed
            .keys()
            .find(|key| self.answered.get(*key).is_some_and(stale))
        {
            Some(key) => Err(TaskError::AskedAgain {
                key: key.chars().take(SHOWN_KEY_LEN).collect(),
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn created(poll: Option<i64>) -> CreateTaskResult {
        let mut value = json!({
            "resultType": "task", "taskId": "t1", "status": "working",
            "createdAt": "2026-12-01T00:00:00Z", "lastUpdatedAt": "2026-12-01T00:00:00Z",
            "ttlMs": 60000,
        });
        if let Some(poll) = poll {
            value["pollIntervalMs"] = json!(poll);
        }
        serde_json::from_value(value).expect("a CreateTaskResult")
    }

    fn polled(status: &str, extra: Value) -> GetTaskResult {
        let mut value = json!({
            "resultType": "complete", "taskId": "t1", "status": status,
            "createdAt": "2026-12-01T00:00:00Z", "lastUpdatedAt": "2026-12-01T00:00:01Z",
            "ttlMs": 60000, "pollIntervalMs": 200,
        });
        if let (Value::Object(map), Value::Object(extra)) = (&mut value, extra) {
            map.extend(extra);
        }
        GetTaskResult::from_json(value).expect("a GetTaskResult")
    }

    fn elicit(message: &str) -> Value {
        json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
            "requestedSchema": {"type": "object", "properties": {}}}})
    }

    #[test]
    fn the_server_interval_is_honoured_within_bounds_after_a_short_first_poll() {
        let ms = Duration::from_millis;
        // (the interval asked, the first wait, the waits after)
        for (asked, first, waited) in [
            // No interval at first; the poll then asks for 200 ms.
            (None, FIRST_POLL_INTERVAL, ms(200)),
            (Some(500), ms(100), ms(500)),
            (Some(200), ms(100), ms(200)),
            (Some(80), ms(80), ms(80)),
            (Some(0), MIN_POLL_INTERVAL, MIN_POLL_INTERVAL),
            (Some(-5), MIN_POLL_INTERVAL, MIN_POLL_INTERVAL),
            (Some(i64::MAX), FIRST_POLL_INTERVAL, MAX_POLL_INTERVAL),
        ] {
            let (mut driver, next) = TaskDriver::start(&created(asked)).expect("started");
            assert_eq!(next, Next::Poll(first), "{asked:?}");
            let asks = asked.map_or(json!({}), |ms| json!({ "pollIntervalMs": ms }));
            let working = polled("working", asks);
            let next = driver.on_task(working, ms(1)).expect("working");
            assert_eq!(next, Next::Poll(waited), "{asked:?}");
        }
    }

    #[test]
    fn working_polls_again_and_terminal_statuses_end() {
        let (mut driver, _) = TaskDriver::start(&created(Some(10))).expect("started");
        let next = driver
            .on_task(
                polled("working", json!({"statusMessage": "halfway"})),
                Duration::ZERO,
            )
            .expect("working");
        assert_eq!(next, Next::Poll(Duration::from_millis(200)));
        assert_eq!(driver.report().message.as_deref(), Some("halfway"));
        assert_eq!(driver.report().seen, 2);

        let result = json!({"content": [{"type": "text", "text": "done"}], "isError": false});
        let next = driver
            .on_task(
                polled("completed", json!({"result": result})),
                Duration::ZERO,
            )
            .expect("completed");
        let Next::Done(TaskEnd::Completed(got)) = next else {
            panic!("{next:?}")
        };
        assert_eq!(Value::Object(got), result);

        let error = json!({"code": -32603, "message": "backend down"});
        let next = driver
            .on_task(polled("failed", json!({"error": error})), Duration::ZERO)
            .expect("failed");
        assert_eq!(
            next,
            Next::Done(TaskEnd::Failed(ErrorObject {
                code: -32603,
                message: "backend down".into(),
                data: None,
            }))
        );

        let next = driver
            .on_task(
                polled("cancelled", json!({"statusMessage": "stopped"})),
                Duration::ZERO,
            )
            .expect("cancelled");
        assert_eq!(next, Next::Done(TaskEnd::Cancelled(Some("stopped".into()))));
    }

    #[test]
    fn input_requests_are_asked_once_across_polls() {
        let (mut driver, _) = TaskDriver::start(&created(None)).expect("started");
        let first = polled(
            "input_required",
            json!({"inputRequests": {"a": elicit("A?"), "b": elicit("B?")}}),
        );
        let Next::Answer { requests, then } =
            driver.on_task(first.clone(), Duration::ZERO).expect("asks")
        else {
            panic!("no answer step")
        };
        let keys: Vec<_> = requests.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(then, Duration::from_millis(200));

        // The server has not seen the update yet: the same keys again.
        assert_eq!(
            driver.on_task(first, Duration::ZERO).expect("again"),
            Next::Poll(Duration::from_millis(200))
        );

        // A new key among the old ones: only it is asked.
        let next = driver
            .on_task(
                polled(
                    "input_required",
                    json!({"inputRequests": {"a": elicit("A?"), "c": elicit("C?")}}),
                ),
                Duration::ZERO,
            )
            .expect("a new key");
        let Next::Answer { requests, .. } = next else {
            panic!("{next:?}")
        };
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].0, "c");
    }

    #[test]
    fn an_answered_key_is_never_waited_on_again() {
        let s = Duration::from_secs;
        let asking = |keys: &[&str]| {
            let requests: Map<String, Value> = keys
                .iter()
                .map(|k| ((*k).to_owned(), elicit("?")))
                .collect();
            polled("input_required", json!({ "inputRequests": requests }))
        };
        let again = |key: &str| {
            Err(TaskError::AskedAgain {
                key: key.to_owned(),
            })
        };
        let poll = Ok(Next::Poll(Duration::from_millis(200)));
        // After `a` was answered at 0 s: each later poll, when it comes,
        // and what the driver does with it.
        for (polls, last) in [
            // The server has not caught up yet, within the grace.
            (vec![(asking(&["a"]), s(1))], poll.clone()),
            (vec![(asking(&["a"]), s(29))], poll.clone()),
            // It never takes the answer.
            (
                vec![(asking(&["a"]), s(1)), (asking(&["a"]), s(30))],
                again("a"),
            ),
            // It took the answer (working), then asks under `a` again.
            (
                vec![(polled("working", json!({})), s(1)), (asking(&["a"]), s(2))],
                again("a"),
            ),
            // It took it (asks for `b` alone), then lists `a` beside `b`.
            (
                vec![(asking(&["b"]), s(1)), (asking(&["a", "b"]), s(2))],
                again("a"),
            ),
            // Only `b` again, answered already and not taken: wait.
            (
                vec![(asking(&["b"]), s(1)), (asking(&["b"]), s(2))],
                poll.clone(),
            ),
        ] {
            let (mut driver, _) = TaskDriver::start(&created(None)).expect("started");
            let first = driver.on_task(asking(&["a"]), s(0)).expect("asks");
            assert!(matches!(first, Next::Answer { .. }), "{first:?}");
            let mut outcome = Ok(first);
            for (got, at) in polls {
                outcome = driver.on_task(got, at);
            }
            assert_eq!(outcome, last);
        }
    }

    #[test]
    fn a_hostile_key_is_cut_in_the_error() {
        let (mut driver, _) = TaskDriver::start(&created(None)).expect("started");
        let key = "k".repeat(10_000);
        let asking = polled(
            "input_required",
            json!({"inputRequests": {key.clone(): elicit("?")}}),
        );
        driver
            .on_task(asking.clone(), Duration::ZERO)
            .expect("asks");
        let error = driver.on_task(asking, ANSWER_GRACE).expect_err("stale");
        assert_eq!(
            error,
            TaskError::AskedAgain {
                key: "k".repeat(SHOWN_KEY_LEN)
            }
        );
    }

    #[test]
    fn passing_failures_are_retried_with_doubling_waits_and_others_stop() {
        let ms = Duration::from_millis;
        let hour = Duration::from_secs(3600);
        for (failure, transient) in [
            (RequestFailure::Connection, true),
            (RequestFailure::HttpStatus(503), true),
            (RequestFailure::HttpStatus(502), true),
            (RequestFailure::HttpStatus(429), true),
            (RequestFailure::HttpStatus(500), true),
            (RequestFailure::Rpc(-32603), true),
            (RequestFailure::HttpStatus(400), false),
            (RequestFailure::HttpStatus(401), false),
            (RequestFailure::HttpStatus(404), false),
            (RequestFailure::Rpc(-32602), false),
            (RequestFailure::Rpc(-32601), false),
            (RequestFailure::Other, false),
        ] {
            let (mut driver, _) = TaskDriver::start(&created(None)).expect("started");
            let waits: Vec<_> = (0..3).map(|_| driver.on_failure(failure, hour)).collect();
            let expected = if transient {
                vec![Some(ms(100)), Some(ms(200)), Some(ms(400))]
            } else {
                vec![None; 3]
            };
            assert_eq!(waits, expected, "{failure:?}");
        }

        // Never past the caller's deadline; a poll that answers starts the
        // count again, and so does an update that goes through.
        let (mut driver, _) = TaskDriver::start(&created(None)).expect("started");
        let lost = RequestFailure::Connection;
        assert_eq!(driver.on_failure(lost, ms(50)), Some(ms(50)));
        assert_eq!(driver.on_failure(lost, hour), Some(ms(200)));
        assert_eq!(driver.on_failure(lost, Duration::ZERO), None);
        driver
            .on_task(polled("working", json!({})), ms(1))
            .expect("working");
        assert_eq!(driver.on_failure(lost, hour), Some(ms(100)));
        assert_eq!(driver.on_failure(lost, hour), Some(ms(200)));
        driver.on_updated();
        assert_eq!(driver.on_failure(lost, hour), Some(ms(100)));
        for _ in 0..20 {
            driver.on_failure(lost, hour);
        }
        assert_eq!(driver.on_failure(lost, hour), Some(Duration::from_secs(5)));
    }

    #[test]
    fn a_flood_of_input_keys_is_refused() {
        let (mut driver, _) = TaskDriver::start(&created(None)).expect("started");
        let mut requests = Map::new();
        for n in 0..=MAX_INPUT_KEYS {
            requests.insert(format!("k{n}"), elicit("?"));
        }
        let error = driver
            .on_task(
                polled("input_required", json!({ "inputRequests": requests })),
                Duration::ZERO,
            )
            .expect_err("too many");
        assert_eq!(error, TaskError::TooManyInputs(MAX_INPUT_KEYS));
    }

    #[test]
    fn an_answer_for_another_task_or_a_bad_id_is_refused() {
        let (mut driver, _) = TaskDriver::start(&created(None)).expect("started");
        let error = driver
            .on_task(polled("working", json!({"taskId": "t2"})), Duration::ZERO)
            .expect_err("other task");
        assert_eq!(
            error,
            TaskError::OtherTask {
                asked: "t1".into(),
                answered: "t2".into()
            }
        );
        let mut bad = created(None);
        bad.task_id = String::new();
        assert_eq!(
            TaskDriver::start(&bad).expect_err("empty"),
            TaskError::BadTaskId
        );
        assert_eq!(
            TaskDriver::resume(&"x".repeat(MAX_TASK_ID_LEN + 1)).expect_err("long"),
            TaskError::BadTaskId
        );
        let (resumed, next) = TaskDriver::resume("t9").expect("resumed");
        assert_eq!(next, Next::Poll(Duration::ZERO));
        assert_eq!(resumed.task_id(), "t9");
    }
}
