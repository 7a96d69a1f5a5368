//! `subscriptions/listen`: a long-lived stream of list-changed
//! notifications, acknowledged first, each tagged with the subscription id.

use mcp_types::meta::SUBSCRIPTION_ID;
use mcp_types::v2026_07_28::{RequestId, SubscriptionFilter};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};

use super::dispatch::{AbortOnDrop, Outcome};
use super::Inner;
use crate::notify::Change;

/// What a listen stream will deliver: the part of the request's filter the
/// server can honour.
fn honoured(inner: &Inner, requested: &SubscriptionFilter) -> SubscriptionFilter {
    let handlers = &inner.handlers;
    SubscriptionFilter {
        tools_list_changed: requested
            .tools_list_changed
            .filter(|&on| on && handlers.has_tools()),
        prompts_list_changed: requested
            .prompts_list_changed
            .filter(|&on| on && handlers.has_prompts()),
        resources_list_changed: requested
            .resources_list_changed
            .filter(|&on| on && handlers.has_resources()),
        resource_subscriptions: None,
        extra: serde_json::Map::new(),
    }
}

fn wanted(filter: &SubscriptionFilter, change: &Change) -> Option<&'static str> {
    let on = |flag: Option<bool>| flag == Some(true);
    match change {
        Change::Tools if on(filter.tools_list_changed) => Some("notifications/tools/list_changed"),
        Change::Prompts if on(filter.prompts_list_changed) => {
            Some("notifications/prompts/list_changed")
        }
        Change::Resources if on(filter.resources_list_changed) => {
            Some("notifications/resources/list_changed")
        }
        _ => None,
    }
}

/// The tasks a stream follows (`notifications.taskIds` of the tasks
/// extension): their changes, and whose they must be to be delivered.
#[cfg_attr(not(feature = "tasks"), allow(dead_code))]
pub(crate) struct TaskFilter {
    pub(crate) ids: Vec<String>,
    pub(crate) principal: Option<std::sync::Arc<str>>,
    #[cfg(feature = "tasks")]
    pub(crate) changes: broadcast::Receiver<std::sync::Arc<crate::tasks::TaskRecord>>,
    /// Where the current state of each followed task is read: sent first,
    /// and again after the stream fell behind the changes.
    #[cfg(feature = "tasks")]
    pub(crate) runtime: std::sync::Arc<crate::tasks::runtime::Runtime>,
    /// States read and not sent yet; `None` until the first read.
    #[cfg(feature = "tasks")]
    pub(crate) pending: Option<std::collections::VecDeque<serde_json::Map<String, Value>>>,
}

#[cfg(feature = "tasks")]
impl Drop for TaskFilter {
    fn drop(&mut self) {
        self.runtime.unfollow(&self.ids);
    }
}

#[cfg(feature = "tasks")]
impl TaskFilter {
    /// Reads the current state of every followed task into `pending`.
    async fn read_all(&mut self) {
        let mut pending = std::collections::VecDeque::new();
        for id in &self.ids {
            if let Some(state) = self.runtime.state(id, self.principal.as_deref()).await {
                pending.push_back(state);
            }
        }
        self.pending = Some(pending);
    }
}

/// The next change to a followed task, as its `notifications/tasks`
/// params; never when the stream follows no task.
async fn next_task(tasks: &mut Option<TaskFilter>) -> Option<serde_json::Map<String, Value>> {
    #[cfg(feature = "tasks")]
    if let Some(tasks) = tasks {
        // The current state first: a task may have changed, or ended,
        // before the stream was opened.
        if tasks.pending.is_none() {
            tasks.read_all().await;
        }
        loop {
            if let Some(state) = tasks.pending.as_mut().and_then(|p| p.pop_front()) {
                return Some(state);
            }
            match tasks.changes.recv().await {
                Ok(record)
                    if tasks.ids.contains(&record.id)
                        && record.owned_by(tasks.principal.as_deref()) =>
                {
                    return Some(record.detailed());
                }
                Ok(_) => {}
                // Changes were missed: what they changed is read again.
                Err(broadcast::error::RecvError::Lagged(_)) => tasks.read_all().await,
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
    }
    let _ = tasks;
    std::future::pending().await
}

/// Opens the stream: the acknowledgement is the first message, then every
/// matching change until the client goes away.
/// `permit` is the stream's place under the server's stream limit.
pub(crate) fn open(
    inner: &Inner,
    id: RequestId,
    requested: SubscriptionFilter,
    mut tasks: Option<TaskFilter>,
    permit: super::dispatch::StreamPlace,
) -> Outcome {
    let mut filter = honoured(inner, &requested);
    if let Some(tasks) = &tasks {
        filter.extra.insert("taskIds".to_owned(), json!(tasks.ids));
    }
    let (tx, rx) = mpsc::channel::<Value>(inner.limits.notification_buffer.max(1));
    let mut changes = inner.bus.subscribe();
    let ack = json!({
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": { "notifications": filter, "_meta": { SUBSCRIPTION_ID: id } },
    });
    let task = tokio::spawn(async move {
        if tx.send(ack).await.is_err() {
            return;
        }
        loop {
            let change = tokio::select! {
                change = changes.recv() => change,
                task = next_task(&mut tasks) => {
                    let Some(mut params) = task else { continue };
                    params.insert("_meta".to_owned(), json!({ SUBSCRIPTION_ID: id }));
                    let message = json!({
                        "jsonrpc": "2.0",
                        "method": "notifications/tasks",
                        "params": params,
                    });
                    if tx.send(message).await.is_err() {
                        return;
                    }
                    continue;
                }
                () = tx.closed() => return,
            };
            let change = match change {
                Ok(change) => change,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let Some(method) = wanted(&filter, &change) else {
                continue;
            };
            let message = json!({
                "jsonrpc": "2.0",
                "method": method,
                "params": { "_meta": { SUBSCRIPTION_ID: id } },
            });
            if tx.send(message).await.is_err() {
                return;
            }
        }
    });
    Outcome::Stream {
        messages: rx,
        guard: AbortOnDrop::new(task.abort_handle()).holding(permit),
    }
}
