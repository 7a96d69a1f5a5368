//! Where the dispatcher meets the tasks extension: which calls may become
//! tasks, the `tasks/*` methods, and the handoff of a waiting handler to
//! the task runtime.

use tokio::sync::watch;

use super::*;
use crate::tasks::runtime::{poll_once, Outcome, Rerun};
use crate::tasks::TaskSupport;
use crate::BoxFuture;

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

    /// The step for `tasks/get`, `tasks/update` or `tasks/cancel` on a
    /// server with tasks; the request given back for any other method.
    pub(super) fn route_task_method(
        &self,
        id: &v::RequestId,
        method: &str,
        params: Params,
        meta: RequestMeta,
        grant: Option<&Arc<Grant>>,
    ) -> Result<Step, (Params, RequestMeta)> {
        let method = match TASK_METHODS.into_iter().find(|m| *m == method) {
            Some(method) if self.inner.tasks.is_some() => method,
            _ => return Err((params, meta)),
        };
        if !crate::tasks::declared(&meta.capabilities) {
            let error = crate::tasks::missing_extension();
            return Ok(Step::Done(error_reply(
                Some(id),
                status_for(error.code),
                error,
            )));
        }
        let cx = with_grant(
            Context::boxed(Cow::Borrowed(method), meta.capabilities),
            grant,
        );
        Ok(Step::Run(Run {
            id: id.clone(),
            kind: Kind::Task,
            params,
            cx,
        }))
    }

    /// A `tasks/*` method, or a `tools/call` that may become a task.
    pub(super) fn task_call(
        &self,
        kind: Kind,
        params: Params,
        cx: Context,
    ) -> BoxFuture<'_, Result<Answer, ErrorObject>> {
        Box::pin(async move {
            let Some(tasks) = self.inner.tasks.clone() else {
                return Err(ErrorObject::method_not_found(cx.method()));
            };
            let principal = cx.principal().map(str::to_owned);
            let principal = principal.as_deref();
            if kind == Kind::Task {
                let params = params.into_json();
                let result = match cx.method() {
                    "tasks/get" => tasks.get(&params, principal).await,
                    "tasks/update" => tasks.update(&params, principal).await,
                    "tasks/cancel" => tasks.cancel(&params, principal).await,
                    other => Err(ErrorObject::method_not_found(other)),
                };
                return result.map(Answer::Json);
            }
            let json = params.into_json();
            let (cancel, cancelled) = watch::channel(false);
            let cx = cx.with_cancellation(cancelled);
            let first = self.clone().run_tool(json.clone(), cx.clone());
            // A handler that answers before it first waits is answered as
            // an ordinary call: the immediate result, or a multi-round-trip
            // request for input before any task exists.
            let first = match poll_once(first) {
                Ok(answer) => return answer,
                Err(first) => first,
            };
            let server = self.clone();
            let rerun: Rerun = Box::new(move |answers, request_state| {
                let mut json = json.clone();
                json.insert("inputResponses".to_owned(), Value::Object(answers));
                match request_state {
                    Some(state) => json.insert("requestState".to_owned(), Value::String(state)),
                    None => json.remove("requestState"),
                };
                Box::pin(server.clone().run_tool(json, cx.clone()).map(outcome))
            });
            tasks
                .start(principal, Box::pin(first.map(outcome)), rerun, cancel)
                .await
                .map(Answer::Json)
        })
    }

    /// One run of a tool's handler, owning all it needs.
    fn run_tool(
        self,
        params: Map<String, Value>,
        cx: Context,
    ) -> BoxFuture<'static, Result<Answer, ErrorObject>> {
        Box::pin(async move {
            self.call_handler(Kind::Tool, Params::Json(params), cx)
                .await
        })
    }
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
        Ok(answer) => match answer.into_value() {
            Ok(result) => Outcome::Complete(result),
            Err(e) => Outcome::Error(e),
        },
        Err(e) => Outcome::Error(e),
    }
}
