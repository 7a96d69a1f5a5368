//! The books of one task, sans-IO: from what the server says of the task
//! to what the client does next.
//!
//! # Call contract
//!
//! 1. [`TaskDriver::start`] with the `CreateTaskResult` that answered the
//!    call (or [`TaskDriver::resume`] with a task id kept from earlier). It
//!    returns the first [`Next`] step.
//! 2. [`Next::Poll`]: wait that long, send `tasks/get`, and give the result
//!    to [`TaskDriver::on_task`], which returns the next step.
//! 3. [`Next::Answer`]: answer each input request through the host's input
//!    handler, send the answers with `tasks/update`, then wait and poll as
//!    for [`Next::Poll`]. The keys are marked answered when the step is
//!    handed out, so that a poll that still lists them (the server's view
//!    is eventually consistent) does not ask the person again.
//! 4. [`Next::Done`]: the task reached a terminal status; stop.
//!
//! The driver honours the server's `pollIntervalMs` within
//! [`MIN_POLL_INTERVAL`] and [`MAX_POLL_INTERVAL`], so that a server can
//! neither make the client spin nor stall it, and bounds the input
//! requests one task may ask over its life ([`MAX_INPUT_KEYS`]).

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_types::ext::tasks::{CreateTaskResult, GetTaskResult};
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::v2026_07_28::InputRequest;
use serde_json::{Map, Value};

/// The shortest wait between two polls, whatever the server asks.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(50);
/// The longest wait between two polls, whatever the server asks.
pub const MAX_POLL_INTERVAL: Duration = Duration::from_secs(30);
/// The wait between polls when the server suggests none.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// Most distinct input request keys one task may ask over its life.
pub const MAX_INPUT_KEYS: usize = 256;
/// Longest task id the driver keeps: longer ones are refused.
pub const MAX_TASK_ID_LEN: usize = 256;

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
    answered: BTreeSet<String>,
    interval: Duration,
    report: TaskReport,
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
    /// poll after the server's interval (a task may be created in any
    /// status, but only a poll brings its result or its input requests).
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
            answered: BTreeSet::new(),
            interval,
            report: TaskReport {
                task_id: created.task_id.clone(),
                status,
                message: created.status_message.clone(),
                seen: 1,
            },
        };
        Ok((driver, Next::Poll(interval)))
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
            answered: BTreeSet::new(),
            interval: DEFAULT_POLL_INTERVAL,
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

    /// Takes the result of a `tasks/get` and says what to do next.
    ///
    /// # Errors
    ///
    /// [`TaskError`] when the answer is for another task or asks for too
    /// much input.
    pub fn on_task(&mut self, got: GetTaskResult) -> Result<Next, TaskError> {
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
        self.report.status = status;
        self.report.message.clone_from(message);
        self.report.seen += 1;
        Ok(match got {
            GetTaskResult::Working(_) => Next::Poll(self.interval),
            GetTaskResult::InputRequired(t) => {
                let requests: Vec<_> = t
                    .input_requests
                    .into_iter()
                    .filter(|(key, _)| !self.answered.contains(key))
                    .collect();
                if self.answered.len() + requests.len() > MAX_INPUT_KEYS {
                    return Err(TaskError::TooManyInputs(MAX_INPUT_KEYS));
                }
                if requests.is_empty() {
                    // Everything listed is answered already: the server
                    // has not caught up with the update yet.
                    return Ok(Next::Poll(self.interval));
                }
                self.answered
                    .extend(requests.iter().map(|(key, _)| key.clone()));
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
    fn the_server_interval_is_honoured_within_bounds() {
        for (asked, waited) in [
            (None, DEFAULT_POLL_INTERVAL),
            (Some(200), Duration::from_millis(200)),
            (Some(0), MIN_POLL_INTERVAL),
            (Some(-5), MIN_POLL_INTERVAL),
            (Some(i64::MAX), MAX_POLL_INTERVAL),
        ] {
            let (_, next) = TaskDriver::start(&created(asked)).expect("started");
            assert_eq!(next, Next::Poll(waited), "{asked:?}");
        }
    }

    #[test]
    fn working_polls_again_and_terminal_statuses_end() {
        let (mut driver, _) = TaskDriver::start(&created(Some(10))).expect("started");
        let next = driver
            .on_task(polled("working", json!({"statusMessage": "halfway"})))
            .expect("working");
        assert_eq!(next, Next::Poll(Duration::from_millis(200)));
        assert_eq!(driver.report().message.as_deref(), Some("halfway"));
        assert_eq!(driver.report().seen, 2);

        let result = json!({"content": [{"type": "text", "text": "done"}], "isError": false});
        let next = driver
            .on_task(polled("completed", json!({"result": result})))
            .expect("completed");
        let Next::Done(TaskEnd::Completed(got)) = next else {
            panic!("{next:?}")
        };
        assert_eq!(Value::Object(got), result);

        let error = json!({"code": -32603, "message": "backend down"});
        let next = driver
            .on_task(polled("failed", json!({"error": error})))
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
            .on_task(polled("cancelled", json!({"statusMessage": "stopped"})))
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
        let Next::Answer { requests, then } = driver.on_task(first.clone()).expect("asks") else {
            panic!("no answer step")
        };
        let keys: Vec<_> = requests.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(then, Duration::from_millis(200));

        // The server has not seen the update yet: the same keys again.
        assert_eq!(
            driver.on_task(first).expect("again"),
            Next::Poll(Duration::from_millis(200))
        );

        // A new key among the old ones: only it is asked.
        let next = driver
            .on_task(polled(
                "input_required",
                json!({"inputRequests": {"a": elicit("A?"), "c": elicit("C?")}}),
            ))
            .expect("a new key");
        let Next::Answer { requests, .. } = next else {
            panic!("{next:?}")
        };
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].0, "c");
    }

    #[test]
    fn a_flood_of_input_keys_is_refused() {
        let (mut driver, _) = TaskDriver::start(&created(None)).expect("started");
        let mut requests = Map::new();
        for n in 0..=MAX_INPUT_KEYS {
            requests.insert(format!("k{n}"), elicit("?"));
        }
        let error = driver
            .on_task(polled(
                "input_required",
                json!({ "inputRequests": requests }),
            ))
            .expect_err("too many");
        assert_eq!(error, TaskError::TooManyInputs(MAX_INPUT_KEYS));
    }

    #[test]
    fn an_answer_for_another_task_or_a_bad_id_is_refused() {
        let (mut driver, _) = TaskDriver::start(&created(None)).expect("started");
        let error = driver
            .on_task(polled("working", json!({"taskId": "t2"})))
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
