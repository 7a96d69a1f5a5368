//! Where the dispatcher meets the tasks extension: which calls may become
//! tasks, the `tasks/*` methods, and the handoff of a waiting handler to
//! the task runtime.

use std::collections::BTreeMap;

use tokio::sync::watch;

use super::*;
use crate::tasks::runtime::{poll_once, store_error, Outcome, Rerun};
use crate::tasks::{StoreError, TaskSupport};
use crate::BoxFuture;

/// How many task ids one `subscriptions/listen` may follow.
const MAX_LISTENED_TASKS: usize = 256;

/// The methods of the extension that name a task.
const TASK_METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

impl Server {
    /// Whether a call may become a task: the tool supports tasks and the
    /// request declared the extension.
    ///
    /// # Errors
    ///
    /// -32021 naming the extension for a tool that runs only as a task,
    /// called without it.
    pub(super) fn task_mode(
        &self,
        kind: Kind,
        name: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<bool, ErrorObject> {
        let (Kind::Tool, Some(tasks), Some(name)) = (kind, &self.inner.tasks, name) else {
            return Ok(false);
        };
        let declared = crate::tasks::declared(&meta.capabilities);
        match tasks.support(name) {
            TaskSupport::Forbidden => Ok(false),
            TaskSupport::Optional => Ok(declared),
            TaskSupport::Required if declared => Ok(true),
            TaskSupport::Required => Err(crate::tasks::missing_extension()),
        }
    }

    /// `method` if it is `tasks/get`, `tasks/update` or `tasks/cancel` and
    /// this server has tasks.
    pub(super) fn task_method(&self, method: &str) -> Option<&'static str> {
        self.inner.tasks.as_ref()?;
        TASK_METHODS.into_iter().find(|m| *m == method)
    }

    /// The step for one of the [`Server::task_method`]s.
    pub(super) fn route_task_method(
        &self,
        id: v::RequestId,
        method: &'static str,
        params: Params,
        meta: RequestMeta,
        grant: Option<&Arc<Grant>>,
    ) -> Step {
        if !crate::tasks::declared(&meta.capabilities) {
            let error = crate::tasks::missing_extension();
            return Step::Done(error_reply(Some(&id), status_for(error.code), error));
        }
        let cx = with_grant(
            Context::shared(Cow::Borrowed(method), meta.capabilities),
            grant,
        );
        Step::Run(Run::new(id, Kind::Task, params, cx))
    }

    /// The task ids a `subscriptions/listen` asks to hear of
    /// (`notifications.taskIds`), and the principal they must belong to;
    /// `None` when it asks for none or the server has no tasks.
    ///
    /// # Errors
    ///
    /// -32021 naming the extension when the request asks for task ids
    /// without declaring it; -32602 when `taskIds` is not a list of strings.
    pub(super) fn listen_tasks(
        &self,
        filter: &v::SubscriptionFilter,
        meta: &RequestMeta,
        grant: Option<&Arc<Grant>>,
    ) -> Result<Option<listen::TaskFilter>, ErrorObject> {
        let Some(ids) = filter.extra.get("taskIds") else {
            return Ok(None);
        };
        if !crate::tasks::declared(&meta.capabilities) {
            return Err(crate::tasks::missing_extension());
        }
        let ids: Vec<String> = serde_json::from_value(ids.clone()).map_err(|_| {
            ErrorObject::invalid_params("`notifications.taskIds` must be a list of task ids")
        })?;
        let Some(tasks) = &self.inner.tasks else {
            return Ok(None);
        };
        let ids: Vec<String> = ids.into_iter().take(MAX_LISTENED_TASKS).collect();
        tasks.follow(&ids);
        Ok(Some(listen::TaskFilter {
            ids,
            principal: principal_of(grant),
            changes: tasks.changes(),
            runtime: tasks.clone(),
            pending: None,
        }))
    }

    /// `tasks/get` as the quick reader read it, the request a client
    /// repeats while its task runs.
    async fn poll_task(&self, task_id: String, cx: Context) -> Result<Answer, ErrorObject> {
        let Some(tasks) = &self.inner.tasks else {
            return Err(ErrorObject::method_not_found(cx.method()));
        };
        let got = tasks.get(&task_id, cx.principal()).await;
        got.map(Answer::Encoded)
    }

    /// `tasks/get`, `tasks/update` or `tasks/cancel`.
    async fn answer_task_method(&self, params: Params, cx: Context) -> Result<Answer, ErrorObject> {
        let Some(tasks) = &self.inner.tasks else {
            return Err(ErrorObject::method_not_found(cx.method()));
        };
        let principal = cx.principal();
        let params = params.into_json();
        let result = match cx.method() {
            "tasks/get" => {
                let id = crate::tasks::runtime::task_id(&params)?;
                return tasks.get(id, principal).await.map(Answer::Encoded);
            }
            "tasks/update" => tasks.update(&params, principal).await,
            "tasks/cancel" => tasks.cancel(&params, principal).await,
            other => Err(ErrorObject::method_not_found(other)),
        };
        result.map(Answer::Json)
    }

    /// A `tasks/*` method, or a `tools/call` that may become a task.
    ///
    /// Each gets a future of its own, kept under a kilobyte (see the test
    /// below): glibc's allocator sorts every free list it holds before it
    /// hands out a block of a kilobyte or more, which once cost these
    /// calls more than a tenth of their time. A poll should not set up the
    /// much larger future of a call either.
    pub(super) fn task_call(
        &self,
        kind: Kind,
        params: Params,
        cx: Context,
    ) -> BoxFuture<'_, Result<Answer, ErrorObject>> {
        match (kind, params) {
            (Kind::Task, Params::Task { task_id, .. }) => Box::pin(self.poll_task(task_id, cx)),
            (Kind::Task, params) => Box::pin(self.answer_task_method(params, cx)),
            (_, params) => Box::pin(self.call_as_task(Box::new(params), cx)),
        }
    }

    /// A `tools/call` that may become a task: answered as a plain call
    /// when its handler finishes at once or within the grace, a task
    /// otherwise. The params come boxed, as the first run takes them, and
    /// the context is changed in place: an argument keeps its room in the
    /// future for as long as it lives.
    async fn call_as_task(
        &self,
        params: Box<Params>,
        mut cx: Context,
    ) -> Result<Answer, ErrorObject> {
        let Some(tasks) = self.inner.tasks.clone() else {
            return Err(ErrorObject::method_not_found(cx.method()));
        };
        let principal = cx.principal().map(str::to_owned);
        // Without a principal, the address the request came from is who the
        // task counts against.
        let client = match principal {
            Some(_) => None,
            None => cx.client().map(|client| client.to_string()),
        };
        let (cancel, cancelled) = watch::channel(false);
        cx = cx.with_cancellation(cancelled);
        let optional = params
            .string("name")
            .is_some_and(|n| tasks.support(n) == TaskSupport::Optional);
        let kept = rerun_params(&params);
        // The first run takes the params as the reader left them: a
        // call read by the quick path is not turned into maps first.
        let first = self.clone().run_tool(params, cx.clone());
        // A handler that answers before it first waits is answered as
        // an ordinary call: the immediate result, or a multi-round-trip
        // request for input before any task exists.
        let mut first = match poll_once(first) {
            Ok(answer) => return answer,
            Err(first) => first,
        };
        // One that answers within the grace too: the extension lets a
        // server answer a request it could make a task of with its
        // standard result.
        let grace = tasks.inline_grace();
        if !grace.is_zero() {
            if let Ok(answer) = tokio::time::timeout(grace, &mut first).await {
                return answer;
            }
        }
        // A server shutting down, a store at its bound, or a principal
        // at its quota: a tool that may run as a task or not answers
        // the call itself.
        if tasks.draining() {
            if optional {
                return first.await;
            }
            return Err(ErrorObject::internal_error(
                "the server is shutting down; try again",
            ));
        }
        let created = tasks.create(principal.as_deref(), client).await;
        match &created {
            Err(StoreError::Full { .. }) => crate::observe::limit_refused("task_store"),
            Err(StoreError::Quota { .. }) => crate::observe::limit_refused("task_share"),
            _ => {}
        }
        let created = match created {
            Ok(created) => created,
            Err(StoreError::Full { .. } | StoreError::Quota { .. }) if optional => {
                return first.await;
            }
            Err(error) => return Err(store_error(error)),
        };
        let server = self.clone();
        let rerun: Rerun = Box::new(move |answers, request_state| {
            let mut json: Map<String, Value> = serde_json::from_str(&kept).unwrap_or_default();
            json.insert("inputResponses".to_owned(), Value::Object(answers));
            match request_state {
                Some(state) => json.insert("requestState".to_owned(), Value::String(state)),
                None => json.remove("requestState"),
            };
            Box::pin(
                server
                    .clone()
                    .run_tool(Box::new(Params::Json(json)), cx.clone())
                    .map(outcome),
            )
        });
        Ok(Answer::Encoded(tasks.start(
            created,
            Box::pin(first.map(outcome)),
            rerun,
            cancel,
        )))
    }

    /// One run of a tool's handler, owning all it needs. The params are
    /// boxed: the future keeps room for what it captures for as long as
    /// it lives (a task's life), and a quick call's params are several
    /// times a box's size.
    fn run_tool(
        self,
        params: Box<Params>,
        cx: Context,
    ) -> BoxFuture<'static, Result<Answer, ErrorObject>> {
        Box::pin(async move {
            // Out of the box in a block of its own, so that the box is
            // freed now, not when the run ends.
            let params = {
                let boxed = params;
                *boxed
            };
            self.call_handler(Kind::Tool, params, cx).await
        })
    }
}

/// What a rerun of a call needs of its params, kept as text: a task lives
/// long, and a small JSON object is a B-tree node of hundreds of bytes,
/// where its text is tens. The context carries the request's `_meta`; the
/// rerun needs the rest.
fn rerun_params(params: &Params) -> Box<str> {
    /// A call read by the quick path: its name and arguments are all
    /// there is besides `_meta`.
    #[derive(serde::Serialize)]
    struct Call<'a> {
        name: &'a str,
        arguments: &'a Map<String, Value>,
    }
    let text = match params {
        Params::Json(json) => {
            let rest: BTreeMap<&String, &Value> =
                json.iter().filter(|(key, _)| *key != "_meta").collect();
            serde_json::to_string(&rest)
        }
        Params::Call {
            name, arguments, ..
        } => serde_json::to_string(&Call { name, arguments }),
        // Not a call: nothing to rerun.
        Params::Task { .. } => Ok(String::new()),
    };
    text.unwrap_or_default().into()
}

/// What a run of a handler means for its task.
fn outcome(answer: Result<Answer, ErrorObject>) -> Outcome {
    match answer {
        Ok(Answer::Tool(ToolOutput::InputRequired(result))) => {
            let requests = match result.input_requests.map(serde_json::to_value) {
                Some(Ok(Value::Object(requests))) => requests,
                _ => Map::new(),
            };
            Outcome::InputRequired {
                requests,
                request_state: result.request_state,
            }
        }
        Ok(answer) => match answer.into_encoded() {
            Ok(result) => Outcome::Complete(result),
            Err(e) => Outcome::Error(e),
        },
        Err(e) => Outcome::Error(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The futures of a call that may become a task and of a poll are
    /// each allocated once a request. glibc's allocator consolidates its
    /// free lists before it hands out a block of 1,024 bytes or more
    /// (requests above 1,000 bytes), which cost task creation and its
    /// first poll about a fifth of their time when these weighed 1,088 and
    /// 1,504 bytes. A local moved away before an await keeps its room in
    /// the future until its scope ends: that is how they grow back.
    #[test]
    fn the_futures_of_a_task_call_and_a_poll_stay_under_a_kilobyte() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let _entered = runtime.enter();
        let server = Server::builder(super::super::tests::One)
            .tools()
            .tasks(crate::tasks::TaskSettings::default())
            .build()
            .expect("server");
        let cx = || Context::new("tools/call", Default::default());
        let call = server.call_as_task(Box::new(Params::Json(Map::new())), cx());
        let poll = server.poll_task("t".to_owned(), cx());
        for (what, size) in [
            (
                "a call that may become a task",
                std::mem::size_of_val(&call),
            ),
            ("a poll", std::mem::size_of_val(&poll)),
        ] {
            assert!(size <= 1000, "the future of {what} weighs {size} bytes");
        }
    }
}
