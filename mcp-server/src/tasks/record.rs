//! The sans-IO core of a task: its status, its outstanding input requests
//! and the answers gathered for them, and the wire shapes it is read as.
//!
//! Call contract: the runtime creates a [`TaskRecord`] with
//! [`TaskRecord::new`], then drives it with the handler's outcomes
//! ([`TaskRecord::input_required`], [`TaskRecord::complete`],
//! [`TaskRecord::fail`]) and the client's requests
//! ([`TaskRecord::accept`], [`TaskRecord::cancel`]). Every method takes
//! the current time in milliseconds since the Unix epoch, so that the
//! record itself never reads a clock. A terminal record refuses every
//! further transition: the first outcome wins.

use mcp_types::jsonrpc::ErrorObject;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The status of a task, as the tasks extension names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The handler is running.
    Working,
    /// The handler waits for answers to its input requests.
    InputRequired,
    /// The handler returned a result (a tool error included).
    Completed,
    /// The handler failed with a JSON-RPC error.
    Failed,
    /// The client cancelled the task before it finished.
    Cancelled,
}

impl Status {
    /// The name the tasks extension gives this status.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    /// Whether no transition leaves this status.
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// What [`TaskRecord::accept`] made of a `tasks/update`.
#[derive(Clone, Debug, PartialEq)]
pub enum Accepted {
    /// No answer matched an outstanding key: nothing changed.
    Ignored,
    /// Some answers were kept; others are still outstanding.
    Partial,
    /// Every outstanding request is answered: run the handler again with
    /// these answers and request state (see [`TaskRecord::take_resume`]).
    Resume,
}

/// One task: who owns it, where it stands, and what it produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task id (at least 128 random bits).
    pub id: String,
    /// The principal that created the task; only it may read or change it.
    /// `None` for a server without authentication.
    pub owner: Option<String>,
    /// The current status.
    pub status: Status,
    /// A message for the current status, if any.
    pub status_message: Option<String>,
    /// Creation time, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// Time of the last change, in milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// How long after creation the task may be discarded; `None` for never.
    pub ttl_ms: Option<u64>,
    /// The polling interval suggested to the client.
    pub poll_interval_ms: u64,
    /// The input requests not answered yet, by key.
    pub input_requests: Map<String, Value>,
    /// The answers gathered since the handler last asked, by key.
    pub input_responses: Map<String, Value>,
    /// Every key ever issued, so that an old key is never taken for a new
    /// request's.
    pub issued: Vec<String>,
    /// The request state the handler asked to get back with the answers.
    pub request_state: Option<String>,
    /// Set when every outstanding request is answered, until the runtime
    /// takes the answers to run the handler again.
    pub resume: bool,
    /// Set by `tasks/cancel`.
    pub cancel_requested: bool,
    /// The result of a completed task, as the JSON text it was encoded to.
    pub result: Option<Encoded>,
    /// The JSON-RPC error of a failed task.
    pub error: Option<Value>,
    /// With a store that several replicas share: until when (milliseconds
    /// since the Unix epoch) the replica running the handler vouches for
    /// it. It renews the lease while the handler runs or waits; a
    /// non-terminal task whose lease has run out lost its handler, and
    /// [`TaskRecord::lapse`] fails it. `None`: no lease (one process).
    #[serde(default)]
    pub lease_until_ms: Option<u64>,
    /// On a server without authorization, the client the task counts
    /// against under a store's share: its address as
    /// [`share::Client`](crate::share::Client) writes it. `None` when the
    /// task has an owner (who is the client) or came over stdio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

impl TaskRecord {
    /// A new working task.
    pub fn new(
        id: String,
        owner: Option<String>,
        now_ms: u64,
        ttl_ms: Option<u64>,
        poll_interval_ms: u64,
    ) -> Self {
        TaskRecord {
            id,
            owner,
            status: Status::Working,
            status_message: None,
            created_ms: now_ms,
            updated_ms: now_ms,
            ttl_ms,
            poll_interval_ms,
            input_requests: Map::new(),
            input_responses: Map::new(),
            issued: Vec::new(),
            request_state: None,
            resume: false,
            cancel_requested: false,
            result: None,
            error: None,
            lease_until_ms: None,
            client: None,
        }
    }

    /// The replica running the handler vouches for it until `until_ms`.
    /// Changes nothing on a terminal task, and never the time of the last
    /// change: a lease is bookkeeping, not news for the client.
    pub fn renew(&mut self, until_ms: u64) {
        if !self.status.is_terminal() {
            self.lease_until_ms = Some(until_ms);
        }
    }

    /// Whether the task is unfinished and its lease ran out before
    /// `now_ms`: no replica runs its handler any more.
    pub fn lapsed(&self, now_ms: u64) -> bool {
        !self.status.is_terminal() && self.lease_until_ms.is_some_and(|until| until < now_ms)
    }

    /// Fails a task whose lease ran out (see [`TaskRecord::lapsed`]) with
    /// an internal error saying so. Returns whether it changed.
    pub fn lapse(&mut self, now_ms: u64) -> bool {
        if !self.lapsed(now_ms) {
            return false;
        }
        let error =
            ErrorObject::internal_error("the server running the task stopped before it finished");
        self.fail(&error, now_ms)
    }

    /// Whether `principal` may see this task.
    pub fn owned_by(&self, principal: Option<&str>) -> bool {
        self.owner.as_deref() == principal
    }

    /// Who the task counts against under a store's share: its owner, else
    /// its client's address; `None` over stdio.
    pub fn counted_against(&self) -> Option<&str> {
        self.owner.as_deref().or(self.client.as_deref())
    }

    /// Whether the task's TTL has run out at `now_ms`.
    pub fn expired(&self, now_ms: u64) -> bool {
        self.ttl_ms
            .is_some_and(|ttl| now_ms >= self.created_ms.saturating_add(ttl))
    }

    fn touch(&mut self, now_ms: u64) {
        self.updated_ms = self.updated_ms.max(now_ms);
    }

    /// The handler needs input: `requests` become the outstanding input
    /// requests. A key names one request over the task's life, and a key
    /// the task issued before was answered already (the handler runs again
    /// only once every request is answered): a handler that asks under it
    /// again fails the task (see [`asked_again`]), instead of leaving it
    /// waiting for an answer the client will never send twice. Returns
    /// `false` (and changes nothing) on a terminal task.
    pub fn input_required(
        &mut self,
        requests: Map<String, Value>,
        request_state: Option<String>,
        now_ms: u64,
    ) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        if let Some(key) = requests.keys().find(|key| self.issued.contains(key)) {
            let error = asked_again(key);
            return self.fail(&error, now_ms);
        }
        self.issued.extend(requests.keys().cloned());
        self.input_requests = requests;
        self.request_state = request_state;
        self.status = if self.input_requests.is_empty() {
            Status::Working
        } else {
            Status::InputRequired
        };
        self.resume = self.input_requests.is_empty();
        self.touch(now_ms);
        true
    }

    /// A `tasks/update`: keeps the answers whose keys are outstanding and
    /// ignores the rest (keys never issued, or answered already).
    pub fn accept(&mut self, responses: Map<String, Value>, now_ms: u64) -> Accepted {
        if self.status != Status::InputRequired {
            return Accepted::Ignored;
        }
        let mut kept = false;
        for (key, response) in responses {
            if self.input_requests.remove(&key).is_some() {
                self.input_responses.insert(key, response);
                kept = true;
            }
        }
        if !kept {
            return Accepted::Ignored;
        }
        self.touch(now_ms);
        if self.input_requests.is_empty() {
            self.status = Status::Working;
            self.resume = true;
            Accepted::Resume
        } else {
            Accepted::Partial
        }
    }

    /// The answers and request state to run the handler again with, once
    /// [`TaskRecord::accept`] said [`Accepted::Resume`]; `None` otherwise,
    /// or when they were taken already.
    pub fn take_resume(&mut self) -> Option<(Map<String, Value>, Option<String>)> {
        if !self.resume || self.status != Status::Working {
            return None;
        }
        self.resume = false;
        Some((
            std::mem::take(&mut self.input_responses),
            self.request_state.take(),
        ))
    }

    /// The handler returned `result`. Returns `false` on a terminal task.
    pub fn complete(&mut self, result: Encoded, now_ms: u64) -> bool {
        self.settle(Status::Completed, now_ms, |record| {
            record.result = Some(result);
        })
    }

    /// The handler failed with `error`. Returns `false` on a terminal task.
    pub fn fail(&mut self, error: &ErrorObject, now_ms: u64) -> bool {
        let message = error.message.clone();
        let error = serde_json::to_value(error).unwrap_or_else(|_| json!({}));
        self.settle(Status::Failed, now_ms, |record| {
            record.status_message = Some(message);
            record.error = Some(error);
        })
    }

    /// `tasks/cancel`: the task becomes cancelled unless it is finished
    /// already. Returns whether it changed.
    pub fn cancel(&mut self, now_ms: u64) -> bool {
        self.cancel_requested = true;
        self.settle(Status::Cancelled, now_ms, |record| {
            record.status_message = Some("cancelled by the client".to_owned());
        })
    }

    fn settle(&mut self, status: Status, now_ms: u64, fill: impl FnOnce(&mut Self)) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        self.status = status;
        self.input_requests.clear();
        self.input_responses.clear();
        self.request_state = None;
        self.resume = false;
        fill(self);
        self.touch(now_ms);
        true
    }

    /// The `CreateTaskResult` that answers the `tools/call` that made the
    /// task: the task's members and `resultType: "task"`, flat.
    pub fn created(&self) -> Value {
        serde_json::to_value(self.view(Shape::Created)).unwrap_or_else(|_| json!({}))
    }

    /// The detailed task, as `tasks/get` answers it and `notifications/tasks`
    /// carries it: the status-specific member (`inputRequests`, `result`
    /// or `error`) inlined.
    pub fn detailed(&self) -> Map<String, Value> {
        match serde_json::to_value(self.view(Shape::Detailed)) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }

    /// The task in `shape`, encoded straight from the record (see
    /// [`View`]).
    pub fn view(&self, shape: Shape) -> View<'_> {
        View {
            record: self,
            shape,
        }
    }
}

/// A task's result as the JSON text it was encoded to: it is stored, copied
/// with the record and written into every answer and notification that
/// carries the finished task, but never read, and a `Value` of even a small
/// result is a tree of B-tree nodes of over half a kilobyte each. It is
/// written as the JSON it holds, so a record in a shared store reads the
/// same as before.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Encoded(Box<serde_json::value::RawValue>);

impl Encoded {
    /// `value`, encoded.
    ///
    /// # Errors
    ///
    /// When `value` cannot be encoded as JSON.
    pub fn new<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Encoded> {
        serde_json::value::to_raw_value(value).map(Encoded)
    }

    /// The JSON text `text`, checked.
    ///
    /// # Errors
    ///
    /// When `text` is not JSON.
    pub fn from_text(text: String) -> serde_json::Result<Encoded> {
        serde_json::value::RawValue::from_string(text).map(Encoded)
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The result, decoded.
    ///
    /// # Errors
    ///
    /// Never for an `Encoded` made by this crate: its text is JSON.
    pub fn to_value(&self) -> serde_json::Result<Value> {
        serde_json::from_str(self.get())
    }
}

/// The same text: what decides equality for the record's tests and
/// stores.
impl PartialEq for Encoded {
    fn eq(&self, other: &Encoded) -> bool {
        self.get() == other.get()
    }
}

/// A shape a task is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The `CreateTaskResult`: the task's members and `resultType: "task"`.
    Created,
    /// The detailed task of `notifications/tasks`: the task's members and
    /// the one its status adds (`inputRequests`, `result` or `error`).
    Detailed,
    /// The `tasks/get` result: the detailed task and `resultType:
    /// "complete"`.
    Got,
}

/// A task as the client reads it, serialized from its record without a
/// `Value` in between: a task is created and polled far more often than
/// it changes, and each answer was a map of seven keyed entries (the
/// result cloned into it), built to be encoded and dropped.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    record: &'a TaskRecord,
    shape: Shape,
}

impl View<'_> {
    /// The task's JSON, written straight into one buffer: serde_json would
    /// escape each of the fixed keys and grow its buffer entry by entry,
    /// which made these two answers (created, and every poll) a tenth of
    /// a task's cost. This is the one encoding of a task: [`Serialize`]
    /// hands this text on.
    pub fn to_json(&self) -> String {
        let record = self.record;
        let mut out = Vec::with_capacity(256 + record.result.as_ref().map_or(0, |r| r.get().len()));
        out.extend_from_slice(b"{\"taskId\":");
        write_json(&mut out, &record.id);
        out.extend_from_slice(b",\"status\":\"");
        out.extend_from_slice(record.status.as_str().as_bytes());
        out.push(b'"');
        if let Some(message) = &record.status_message {
            out.extend_from_slice(b",\"statusMessage\":");
            write_json(&mut out, message);
        }
        out.extend_from_slice(b",\"createdAt\":\"");
        write_iso8601(&mut out, record.created_ms);
        out.extend_from_slice(b"\",\"lastUpdatedAt\":\"");
        write_iso8601(&mut out, record.updated_ms);
        out.extend_from_slice(b"\",\"ttlMs\":");
        write_json(&mut out, &record.ttl_ms);
        out.extend_from_slice(b",\"pollIntervalMs\":");
        write_json(&mut out, &record.poll_interval_ms);
        if self.shape != Shape::Created {
            // A settled record always has its member; `{}` if one did not.
            match record.status {
                Status::InputRequired => {
                    out.extend_from_slice(b",\"inputRequests\":");
                    write_json(&mut out, &record.input_requests);
                }
                Status::Completed => {
                    out.extend_from_slice(b",\"result\":");
                    let result = record.result.as_ref().map_or("{}", Encoded::get);
                    out.extend_from_slice(result.as_bytes());
                }
                Status::Failed => {
                    out.extend_from_slice(b",\"error\":");
                    match &record.error {
                        Some(error) => write_json(&mut out, error),
                        None => out.extend_from_slice(b"{}"),
                    }
                }
                Status::Working | Status::Cancelled => {}
            }
        }
        match self.shape {
            Shape::Created => out.extend_from_slice(b",\"resultType\":\"task\""),
            Shape::Got => out.extend_from_slice(b",\"resultType\":\"complete\""),
            Shape::Detailed => {}
        }
        out.push(b'}');
        // Every piece is UTF-8: the fixed text, serde_json's output and a
        // result that was JSON text already.
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// Appends `value` as JSON. Writing into a `Vec` cannot fail, and the
/// values written (strings, numbers, maps of JSON values) always encode.
fn write_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(out, value);
}

impl Serialize for View<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        serde_json::value::RawValue::from_string(self.to_json())
            .map_err(S::Error::custom)?
            .serialize(serializer)
    }
}

/// Whether a replica may take a lapsed lease (see [`TaskRecord::lapsed`])
/// for a replica that stopped, at `now_ms`: only once it has reached the
/// store without an error for a whole lease length of `lease_ms` since its
/// last failed call (`last_store_error_ms`, if any). While the store was
/// out of its reach it may have been out of the running replica's reach
/// too, and that replica could not renew its lease; it gets a lease length
/// after the store comes back to do so.
pub fn may_judge_leases(now_ms: u64, last_store_error_ms: Option<u64>, lease_ms: u64) -> bool {
    last_store_error_ms.is_none_or(|at| now_ms.saturating_sub(at) >= lease_ms)
}

/// The error of a task whose handler asked again for the input `key`,
/// answered already.
pub fn asked_again(key: &str) -> ErrorObject {
    ErrorObject::internal_error(format!(
        "the tool asked again for input `{key}`, which was answered already: \
         a key names one request over a task's life"
    ))
}

/// `ms` since the Unix epoch as an ISO 8601 UTC timestamp with
/// milliseconds, such as `2026-07-28T10:30:00.000Z`.
pub fn iso8601(ms: u64) -> String {
    let mut out = Vec::with_capacity(24);
    write_iso8601(&mut out, ms);
    String::from_utf8(out).unwrap_or_default()
}

/// Appends [`iso8601`] of `ms`.
fn write_iso8601(out: &mut Vec<u8>, ms: u64) {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (hour, minute, second) = (rest / 3600, rest % 3600 / 60, rest % 60);
    // Days to a civil date (Howard Hinnant's algorithm), for dates from 1970.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    // Written digit by digit: every task's JSON carries two of these, and
    // `format!` with widths took a tenth of a task's creation.
    let mut digits = |value: u64, width: usize, after: u8| {
        let mut text = [b'0'; 4];
        let mut rest = value;
        for place in text[..width].iter_mut().rev() {
            *place = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        out.extend_from_slice(&text[..width]);
        out.push(after);
    };
    digits(year, 4, b'-');
    digits(month, 2, b'-');
    digits(day, 2, b'T');
    digits(hour, 2, b':');
    digits(minute, 2, b':');
    digits(second, 2, b'.');
    digits(ms % 1000, 3, b'Z');
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `value` as a task's result.
    pub(crate) fn encoded(value: Value) -> Encoded {
        Encoded::new(&value).expect("JSON")
    }

    fn record() -> TaskRecord {
        TaskRecord::new("t".into(), Some("alice".into()), 1_000, Some(60_000), 500)
    }

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn timestamps_are_iso8601() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso8601(1_785_234_600_000), "2026-07-28T10:30:00.000Z");
        assert_eq!(iso8601(253_402_300_799_999), "9999-12-31T23:59:59.999Z");
        assert_eq!(iso8601(1_709_210_096_007), "2024-02-29T12:34:56.007Z");
    }

    #[test]
    fn a_completed_task_inlines_its_result_and_stays_completed() {
        let mut task = record();
        assert!(task.complete(encoded(json!({"content": [], "isError": true})), 2_000));
        assert_eq!(task.status, Status::Completed);
        let detailed = task.detailed();
        assert_eq!(detailed["result"]["isError"], json!(true));
        assert_eq!(detailed["lastUpdatedAt"], json!(iso8601(2_000)));
        assert!(!task.cancel(3_000), "a finished task cannot be cancelled");
        assert!(!task.fail(&ErrorObject::internal_error("late"), 3_000));
        assert_eq!(task.status, Status::Completed);
        assert!(task.cancel_requested);
    }

    #[test]
    fn a_failed_task_carries_the_json_rpc_error_and_no_result() {
        let mut task = record();
        assert!(task.fail(&ErrorObject::internal_error("boom"), 2_000));
        let detailed = task.detailed();
        assert_eq!(detailed["status"], json!("failed"));
        assert_eq!(detailed["error"]["code"], json!(-32603));
        assert_eq!(detailed["error"]["message"], json!("boom"));
        assert!(!detailed.contains_key("result"));
    }

    #[test]
    fn answers_resume_only_when_every_request_is_answered() {
        let mut task = record();
        let requests = map(
            json!({"a": {"method": "elicitation/create"}, "b": {"method": "elicitation/create"}}),
        );
        assert!(task.input_required(requests, Some("state".into()), 1_500));
        assert_eq!(task.status, Status::InputRequired);
        assert_eq!(
            task.detailed()["inputRequests"].as_object().map(Map::len),
            Some(2)
        );

        assert_eq!(
            task.accept(map(json!({"zzz": {}})), 1_600),
            Accepted::Ignored
        );
        assert_eq!(
            task.accept(map(json!({"a": {"action": "accept"}})), 1_700),
            Accepted::Partial
        );
        assert_eq!(task.status, Status::InputRequired);
        assert!(task.take_resume().is_none());
        let pending: Vec<_> = task.input_requests.keys().cloned().collect();
        assert_eq!(pending, ["b"]);
        // An answered key is not outstanding any more.
        assert_eq!(
            task.accept(map(json!({"a": {"action": "decline"}})), 1_800),
            Accepted::Ignored
        );

        assert_eq!(
            task.accept(map(json!({"b": {"action": "accept"}})), 1_900),
            Accepted::Resume
        );
        assert_eq!(task.status, Status::Working);
        let (answers, state) = task.take_resume().expect("resume");
        assert_eq!(answers["a"], json!({"action": "accept"}));
        assert_eq!(answers.len(), 2);
        assert_eq!(state.as_deref(), Some("state"));
        assert!(task.take_resume().is_none(), "the answers are taken once");
    }

    #[test]
    fn asking_again_under_an_answered_key_fails_the_task() {
        // (keys asked in round one, keys asked in round two, status after
        // round two, outstanding keys after round two)
        for (first, second, status, outstanding) in [
            (
                json!({"a": {}}),
                json!({"b": {}}),
                Status::InputRequired,
                vec!["b"],
            ),
            (json!({"a": {}}), json!({"a": {}}), Status::Failed, vec![]),
            (
                json!({"a": {}}),
                json!({"b": {}, "a": {}}),
                Status::Failed,
                vec![],
            ),
            (
                json!({"a": {}, "b": {}}),
                json!({"b": {}}),
                Status::Failed,
                vec![],
            ),
            (json!({"a": {}}), json!({}), Status::Working, vec![]),
        ] {
            let mut task = record();
            assert!(task.input_required(map(first.clone()), None, 1_100));
            let answers = first
                .as_object()
                .map(|keys| {
                    keys.keys()
                        .map(|k| (k.clone(), json!({"action": "accept"})))
                })
                .map(Map::from_iter)
                .unwrap_or_default();
            assert_eq!(task.accept(answers, 1_200), Accepted::Resume);
            assert!(task.take_resume().is_some());
            assert!(task.input_required(map(second.clone()), None, 1_300));
            assert_eq!(task.status, status, "{first} then {second}");
            let keys: Vec<_> = task.input_requests.keys().map(String::as_str).collect();
            assert_eq!(keys, outstanding, "{first} then {second}");
            if status == Status::Failed {
                let again = if second.get("a").is_some() { "a" } else { "b" };
                assert_eq!(
                    task.detailed()["error"]["message"],
                    json!(asked_again(again).message)
                );
                assert_eq!(task.detailed()["error"]["code"], json!(-32603));
                assert_eq!(task.updated_ms, 1_300);
            }
        }
    }

    #[test]
    fn updates_are_ignored_unless_the_task_waits_for_input() {
        let mut task = record();
        assert_eq!(task.accept(map(json!({"a": {}})), 1_100), Accepted::Ignored);
        task.cancel(1_200);
        assert!(!task.input_required(map(json!({"a": {}})), None, 1_300));
        assert_eq!(task.status, Status::Cancelled);
        assert!(!task.detailed().contains_key("inputRequests"));
    }

    #[test]
    fn cancelling_a_waiting_task_drops_its_requests() {
        let mut task = record();
        task.input_required(map(json!({"a": {}})), None, 1_100);
        assert!(task.cancel(1_200));
        assert_eq!(task.status, Status::Cancelled);
        assert!(task.input_requests.is_empty());
        assert_eq!(task.accept(map(json!({"a": {}})), 1_300), Accepted::Ignored);
    }

    #[test]
    fn the_ttl_counts_from_creation() {
        let task = record();
        assert!(!task.expired(60_999));
        assert!(task.expired(61_000));
        let forever = TaskRecord::new("u".into(), None, 0, None, 500);
        assert!(!forever.expired(u64::MAX));
    }

    #[test]
    fn only_the_owner_sees_the_task() {
        let task = record();
        assert!(task.owned_by(Some("alice")));
        assert!(!task.owned_by(Some("mallory")));
        assert!(!task.owned_by(None));
    }

    #[test]
    fn the_created_result_is_flat_and_says_task() {
        let created = record().created();
        assert_eq!(created["resultType"], json!("task"));
        assert_eq!(created["status"], json!("working"));
        assert_eq!(created["ttlMs"], json!(60_000));
        for absent in ["task", "result", "error", "inputRequests", "requestState"] {
            assert!(created.get(absent).is_none(), "{absent}");
        }
    }

    /// The one encoding of a task, in every status and shape, against the
    /// JSON the extension describes; strings that need escaping included.
    #[test]
    fn the_written_task_is_the_json_of_each_status_and_shape() {
        let odd = "a \"quoted\"\\ line\nwith \u{1}control and ünïcode ☃";
        let mut base = TaskRecord::new(odd.into(), None, 1_000, None, 500);
        base.status_message = Some(odd.into());
        let common = json!({
            "taskId": odd,
            "statusMessage": odd,
            "createdAt": "1970-01-01T00:00:01.000Z",
            "lastUpdatedAt": "1970-01-01T00:00:02.000Z",
            "ttlMs": null,
            "pollIntervalMs": 500,
        });
        let mut working = base.clone();
        working.updated_ms = 2_000;
        let mut asking = base.clone();
        asking.input_required(
            map(json!({"k": {"method": "elicitation/create"}})),
            None,
            2_000,
        );
        let mut done = base.clone();
        done.complete(
            encoded(json!({"content": [{"type": "text", "text": odd}]})),
            2_000,
        );
        let mut failed = base.clone();
        failed.fail(&ErrorObject::internal_error(odd), 2_000);
        // `fail` sets the message from the error: the same text here.
        let cases = [
            (working, "working", None),
            (
                asking,
                "input_required",
                Some((
                    "inputRequests",
                    json!({"k": {"method": "elicitation/create"}}),
                )),
            ),
            (
                done,
                "completed",
                Some((
                    "result",
                    json!({"content": [{"type": "text", "text": odd}]}),
                )),
            ),
            (
                failed,
                "failed",
                Some(("error", json!({"code": -32603, "message": odd}))),
            ),
        ];
        for (task, status, member) in cases {
            for (shape, result_type) in [
                (Shape::Created, Some("task")),
                (Shape::Detailed, None),
                (Shape::Got, Some("complete")),
            ] {
                let mut expected = map(common.clone());
                expected.insert("status".into(), json!(status));
                if let (Some((key, value)), false) = (&member, shape == Shape::Created) {
                    expected.insert((*key).to_owned(), value.clone());
                }
                if let Some(result_type) = result_type {
                    expected.insert("resultType".into(), json!(result_type));
                }
                let text = task.view(shape).to_json();
                let read: Value = serde_json::from_str(&text).expect("JSON");
                assert_eq!(read, Value::Object(expected), "{status} {shape:?}: {text}");
                // Compact, as serde_json writes it, and the same through
                // `Serialize`.
                assert_eq!(
                    serde_json::to_string(&read).expect("encodes").len(),
                    text.len()
                );
                assert_eq!(
                    serde_json::to_string(&task.view(shape)).expect("encodes"),
                    text
                );
            }
        }
    }

    #[test]
    fn tasks_get_reads_the_detailed_task_and_says_complete() {
        let mut task = record();
        task.complete(
            encoded(json!({"content": [{"type": "text", "text": "3"}]})),
            2_000,
        );
        let got: Value = serde_json::to_value(task.view(Shape::Got)).expect("encodes");
        let mut expected = task.detailed();
        expected.insert("resultType".into(), json!("complete"));
        assert_eq!(got, Value::Object(expected));
        assert_eq!(got["result"]["content"][0]["text"], json!("3"));
        assert_eq!(got["createdAt"], json!("1970-01-01T00:00:01.000Z"));
        assert_eq!(got["lastUpdatedAt"], json!("1970-01-01T00:00:02.000Z"));
        assert!(task.detailed().get("resultType").is_none());
    }

    #[test]
    fn leases_are_judged_only_after_a_lease_length_of_reaching_the_store() {
        // (now, the last store error, the lease length, may judge)
        for (now, error, lease, judges) in [
            (10_000, None, 3_000, true),
            (10_000, Some(9_999), 3_000, false),
            (10_000, Some(7_001), 3_000, false),
            (10_000, Some(7_000), 3_000, true),
            (10_000, Some(0), 3_000, true),
            // A clock that went back since the error: not yet.
            (10_000, Some(12_000), 3_000, false),
            (10_000, Some(10_000), 0, true),
        ] {
            assert_eq!(
                may_judge_leases(now, error, lease),
                judges,
                "{now} {error:?} {lease}"
            );
        }
    }

    #[test]
    fn a_lapsed_lease_fails_an_unfinished_task_and_nothing_else() {
        let mut task = record();
        assert!(!task.lapsed(u64::MAX), "no lease, no lapse");
        task.renew(5_000);
        assert!(!task.lapsed(5_000));
        assert!(task.lapsed(5_001));
        let updated = task.updated_ms;
        task.renew(9_000);
        assert_eq!(task.updated_ms, updated, "a renewal is not a change");
        assert!(!task.lapse(9_000));
        assert!(task.lapse(9_001));
        assert_eq!(task.status, Status::Failed);
        assert_eq!(task.detailed()["error"]["code"], json!(-32603));
        // Finished: neither renewed nor lapsed again.
        task.renew(100);
        assert_eq!(task.lease_until_ms, Some(9_000));
        assert!(!task.lapse(u64::MAX));

        let mut done = record();
        done.renew(2_000);
        done.complete(encoded(json!({"content": []})), 1_500);
        assert!(!done.lapse(3_000));
        assert_eq!(done.status, Status::Completed);
    }
}
