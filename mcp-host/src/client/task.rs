//! Tool calls that the server runs as tasks (the tasks extension): the
//! requests `tasks/get`, `tasks/update` and `tasks/cancel`, and the loop
//! that follows a task to its end around the sans-IO
//! [`TaskDriver`].

use std::sync::Arc;

use mcp_types::ext::tasks::{CreateTaskResult, GetTaskResult};
use mcp_types::v2026_07_28::{CallToolResult, InputResponses, RequestId};
use mcp_types::ResultType;
use serde_json::{json, Map, Value};

use super::call::decode;
use super::{CallOptions, Client, ClientError, Progress, Stamp, Transport};
use crate::approval::{Approval, ToolCall};
use crate::tasks::{Next, RequestFailure, TaskDriver, TaskEnd, TaskError, TaskReport};
use crate::untrusted::Untrusted;

const GET: &str = "tasks/get";
const UPDATE: &str = "tasks/update";
const CANCEL: &str = "tasks/cancel";

/// How a tool call started: with its result, or as a task.
#[derive(Debug, Clone)]
pub enum ToolStart {
    /// The server answered with the result.
    Complete(Untrusted<CallToolResult>),
    /// The server runs the call as a task. Follow it with
    /// [`Client::wait_task`], or look at it and stop it with
    /// [`Client::get_task`] and [`Client::cancel_task`]. Its `task_id` is
    /// what to keep to come back to it later, even from another process.
    Task(Untrusted<CreateTaskResult>),
}

fn task_params(task_id: &str) -> Map<String, Value> {
    let mut params = Map::new();
    params.insert("taskId".into(), json!(task_id));
    params
}

impl Client {
    /// Runs an approved tool call up to its first answer: the result, or
    /// the task the server made of it, which this method does not follow.
    /// [`Client::call_tool`] follows tasks to their end instead.
    ///
    /// # Errors
    ///
    /// As [`Client::call_tool`].
    pub async fn start_tool(
        &self,
        call: ToolCall,
        approval: Approval,
        options: &CallOptions,
    ) -> Result<ToolStart, ClientError> {
        if call.server() != &self.id || !approval.covers(&call) {
            return Err(ClientError::ApprovalMismatch);
        }
        let value = self.send_tool(&call, options).await?;
        Ok(if ResultType::of(&value) == Some(ResultType::Task) {
            ToolStart::Task(self.untrusted(decode(value)?))
        } else {
            ToolStart::Complete(self.untrusted(decode(value)?))
        })
    }

    /// The modern era's stamp: tasks do not exist in the legacy era.
    fn task_era(&self, method: &'static str) -> Result<(), ClientError> {
        match self.stamp()? {
            Stamp::Modern(_) => Ok(()),
            _ => Err(ClientError::WrongEra(method)),
        }
    }

    /// `tasks/get`: where the task is, with its input requests, result or
    /// error when it has them.
    ///
    /// # Errors
    ///
    /// [`ClientError::WrongEra`] with a legacy server; otherwise as
    /// [`Client::call`] (a task the server does not know, or that belongs
    /// to someone else, is a JSON-RPC error from the server).
    pub async fn get_task(&self, task_id: &str) -> Result<Untrusted<GetTaskResult>, ClientError> {
        self.task_era(GET)?;
        let value = self
            .request(GET, task_params(task_id), &CallOptions::default())
            .await?;
        let got = GetTaskResult::from_json(value).map_err(ClientError::protocol)?;
        Ok(self.untrusted(got))
    }

    /// `tasks/update`: answers some of the task's input requests. The
    /// server ignores answers to keys it is not waiting on.
    ///
    /// # Errors
    ///
    /// As [`Client::get_task`].
    pub async fn update_task(
        &self,
        task_id: &str,
        responses: InputResponses,
    ) -> Result<(), ClientError> {
        self.task_era(UPDATE)?;
        let mut params = task_params(task_id);
        params.insert(
            "inputResponses".into(),
            serde_json::to_value(responses).map_err(ClientError::protocol)?,
        );
        self.request(UPDATE, params, &CallOptions::default())
            .await
            .map(drop)
    }

    /// `tasks/cancel`: asks the server to stop the task. Cancellation is
    /// cooperative: the task may still finish otherwise.
    ///
    /// # Errors
    ///
    /// As [`Client::get_task`].
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        self.task_era(CANCEL)?;
        self.request(CANCEL, task_params(task_id), &CallOptions::default())
            .await
            .map(drop)
    }

    /// Follows a task started earlier (kept from a [`ToolStart::Task`], by
    /// this process or another) to its end: polls it, answers its input
    /// requests through the host's input handler, reports each poll to the
    /// progress callback, and returns the tool's result.
    ///
    /// The task stays the caller's: it is not cancelled when this fails,
    /// times out or is dropped.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error of a `failed` task as [`ClientError::Rpc`];
    /// [`ClientError::TaskCancelled`]; [`ClientError::Timeout`] after
    /// [`CallOptions::task_timeout`]; [`ClientError::Task`] for answers the
    /// client will not follow; and the errors of each poll.
    pub async fn wait_task(
        &self,
        task_id: &str,
        options: &CallOptions,
    ) -> Result<Untrusted<CallToolResult>, ClientError> {
        let (driver, next) =
            TaskDriver::resume(task_id).map_err(|e| self.task_error(task_id, e))?;
        self.drive(driver, next, options, false).await
    }

    /// Follows the task a tool call became; the call owns it, so it is
    /// cancelled when the call times out, fails or is dropped.
    pub(super) async fn follow_task(
        &self,
        created: Value,
        options: &CallOptions,
    ) -> Result<Untrusted<CallToolResult>, ClientError> {
        let created: CreateTaskResult = decode(created)?;
        let (driver, next) =
            TaskDriver::start(&created).map_err(|e| self.task_error(&created.task_id, e))?;
        self.report(options, driver.report());
        self.drive(driver, next, options, true).await
    }

    /// `value`, as this server said it.
    fn untrusted<T>(&self, value: T) -> Untrusted<T> {
        Untrusted::new(self.id.clone(), value)
    }

    fn task_error(&self, task_id: &str, error: TaskError) -> ClientError {
        ClientError::Task {
            task_id: self.untrusted(task_id.to_owned()),
            error,
        }
    }

    fn report(&self, options: &CallOptions, report: &TaskReport) {
        let Some(callback) = &options.progress else {
            return;
        };
        callback(Progress {
            progress: report.seen as f64,
            total: None,
            message: report.message.clone().map(|m| self.untrusted(m)),
            task: Some(self.untrusted(report.clone())),
        });
    }

    async fn drive(
        &self,
        mut driver: TaskDriver,
        mut next: Next,
        options: &CallOptions,
        owned: bool,
    ) -> Result<Untrusted<CallToolResult>, ClientError> {
        let task_id = driver.task_id().to_owned();
        let limit = options.task_timeout.unwrap_or(self.options.task_timeout);
        let mut guard = CancelOnDrop::new(self, &task_id, owned);
        let started = tokio::time::Instant::now();
        let deadline = started.checked_add(limit);
        let work = async {
            loop {
                match next {
                    Next::Poll(wait) => {
                        tokio::time::sleep(wait).await;
                        let got = match self.get_task(&task_id).await {
                            Ok(got) => got.accept(),
                            Err(error) => {
                                next = Next::Poll(retry(&mut driver, error, deadline)?);
                                continue;
                            }
                        };
                        next = driver
                            .on_task(got, started.elapsed())
                            .map_err(|e| self.task_error(&task_id, e))?;
                        self.report(options, driver.report());
                    }
                    Next::Answer { requests, then } => {
                        let answers = self.answer_all(requests).await?;
                        while let Err(error) = self.update_task(&task_id, answers.clone()).await {
                            tokio::time::sleep(retry(&mut driver, error, deadline)?).await;
                        }
                        driver.on_updated();
                        next = Next::Poll(then);
                    }
                    Next::Done(end) => return Ok(end),
                }
            }
        };
        let outcome = match tokio::time::timeout(limit, work).await {
            Ok(outcome) => outcome,
            Err(_) => Err(ClientError::Timeout(limit)),
        };
        // Past here the call does not go away half way: the guard is only
        // for a caller that drops it.
        guard.disarm();
        let end = match outcome {
            Ok(end) => end,
            Err(error) => {
                // A task the call owns is not left running for nobody.
                if owned {
                    let _ = tokio::time::timeout(
                        self.options.request_timeout,
                        self.cancel_task(&task_id),
                    )
                    .await;
                }
                return Err(error);
            }
        };
        match end {
            TaskEnd::Completed(result) => Ok(self.untrusted(decode(Value::Object(result))?)),
            TaskEnd::Failed(error) => Err(ClientError::Rpc(self.untrusted(error))),
            TaskEnd::Cancelled(message) => Err(ClientError::TaskCancelled {
                task_id: self.untrusted(task_id),
                message: message.map(|m| self.untrusted(m)),
            }),
        }
    }
}

/// How long to wait before sending again the request that failed with
/// `error`, as the driver rules with the time left before `deadline`;
/// the error itself when it is not worth another try.
fn retry(
    driver: &mut TaskDriver,
    error: ClientError,
    deadline: Option<tokio::time::Instant>,
) -> Result<std::time::Duration, ClientError> {
    let left = deadline.map_or(std::time::Duration::MAX, |deadline| {
        deadline.saturating_duration_since(tokio::time::Instant::now())
    });
    driver.on_failure(failure(&error), left).ok_or(error)
}

/// What kind of failure `error` is, for the driver. A stdio server's pipe
/// that fails or closes is gone for good; over HTTP, a request that got
/// no answer may get one next time.
fn failure(error: &ClientError) -> RequestFailure {
    match error {
        ClientError::Http(_) | ClientError::Truncated { .. } | ClientError::Timeout(_) => {
            RequestFailure::Connection
        }
        ClientError::HttpStatus { status, .. } => RequestFailure::HttpStatus(*status),
        ClientError::Rpc(error) => RequestFailure::Rpc(error.accept_ref().code),
        _ => RequestFailure::Other,
    }
}

/// Armed while a call owns a task that has not ended; dropped armed (the
/// caller dropped the call, it timed out or failed), it sends
/// `tasks/cancel` in the background, so the server stops work nobody
/// waits for.
struct CancelOnDrop {
    armed: Option<Cancel>,
}

/// A `tasks/cancel` ready to send.
struct Cancel {
    transport: Arc<Transport>,
    id: RequestId,
    body: Value,
    headers: Vec<(String, String)>,
}

impl CancelOnDrop {
    fn new(client: &Client, task_id: &str, owned: bool) -> Self {
        let armed = match client.stamp() {
            Ok(stamp @ Stamp::Modern(_)) if owned => {
                let id = client.next_id();
                let params = client.stamp_params(&stamp, task_params(task_id), None);
                let headers = client.era_headers(&stamp, CANCEL, Some(&params));
                let body =
                    json!({ "jsonrpc": "2.0", "id": id, "method": CANCEL, "params": params });
                Some(Cancel {
                    transport: client.transport.clone(),
                    id,
                    body,
                    headers,
                })
            }
            _ => None,
        };
        Self { armed }
    }

    fn disarm(&mut self) {
        self.armed = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(cancel) = self.armed.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            // The acknowledgement carries nothing; wait for it a little so
            // that the request is not cut off, and no longer.
            let wait = std::time::Duration::from_secs(10);
            match &*cancel.transport {
                Transport::Stdio(channel) | Transport::Sse(channel) => {
                    if let Ok(mut pending) = channel.send(&cancel.id, &cancel.body) {
                        let _ = tokio::time::timeout(wait, pending.next()).await;
                    }
                }
                Transport::Http(http) => {
                    let sent = tokio::time::timeout(wait, async {
                        if let Ok(mut answer) = http.post(&cancel.body, &cancel.headers).await {
                            let _ = answer.next().await;
                        }
                    });
                    let _ = sent.await;
                }
            }
        });
    }
}
