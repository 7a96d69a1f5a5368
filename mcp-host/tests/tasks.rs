//! Tool calls that the server runs as tasks (`io.modelcontextprotocol/tasks`),
//! against the `everything` example over stdio and HTTP: a task that
//! completes, one that fails as a tool, one that fails with a JSON-RPC
//! error, one that needs input, one the caller cancels (by timing out, by
//! dropping the call, and by hand), and one followed from a second client.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{everything_http, everything_stdio, first_text, options, scripted};
use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::client::{
    CallOptions, Client, ClientError, InputHandler, Progress, Target, ToolStart,
};
use mcp_host::tasks::{TaskError, TaskStatus};
use mcp_host::untrusted::Untrusted;
use mcp_host::{BoxFuture, ServerId};
use mcp_types::ext::tasks::GetTaskResult;
use mcp_types::v2026_07_28::{
    CallToolResult, ClientCapabilities, ElicitRequestParams, ElicitResult,
};
use serde_json::{json, Map, Value};

/// Accepts every elicitation with `confirm: true` and a name, and counts
/// the questions.
#[derive(Default)]
struct Confirm {
    asked: AtomicUsize,
}

impl InputHandler for Confirm {
    fn capabilities(&self) -> ClientCapabilities {
        serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("capabilities")
    }

    fn elicit<'a>(
        &'a self,
        request: Untrusted<ElicitRequestParams>,
    ) -> BoxFuture<'a, ElicitResult> {
        assert_eq!(request.origin().as_str(), "ev");
        self.asked.fetch_add(1, Ordering::SeqCst);
        Box::pin(async {
            serde_json::from_value(
                json!({"action": "accept", "content": {"confirm": true, "name": "Ada"}}),
            )
            .expect("an elicit result")
        })
    }
}

async fn connect(target: Target, input: Arc<dyn InputHandler>) -> Client {
    Client::connect(
        ServerId::new("ev").expect("id"),
        target,
        input,
        options(false),
        None,
    )
    .await
    .expect("connects")
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

async fn approved(
    client: &Client,
    tool: &str,
    args: Value,
) -> (mcp_host::approval::ToolCall, mcp_host::approval::Approval) {
    let call = client
        .prepare_call(tool, object(args))
        .await
        .expect("prepared");
    let approval = Gate::new(Policy::default(), Arc::new(ApproveAll))
        .authorize(&call)
        .await
        .expect("approved");
    (call, approval)
}

async fn run(
    client: &Client,
    tool: &str,
    args: Value,
    options: &CallOptions,
) -> Result<CallToolResult, ClientError> {
    let (call, approval) = approved(client, tool, args).await;
    Ok(client.call_tool(call, approval, options).await?.accept())
}

/// Progress options that keep every report.
fn recording() -> (CallOptions, Arc<Mutex<Vec<Progress>>>) {
    let reports = Arc::new(Mutex::new(Vec::new()));
    let kept = reports.clone();
    let options = CallOptions {
        progress: Some(Arc::new(move |p| kept.lock().expect("lock").push(p))),
        ..CallOptions::default()
    };
    (options, reports)
}

/// The task id the reports name; every report of a call names the same.
fn task_of(reports: &Mutex<Vec<Progress>>) -> Option<String> {
    let reports = reports.lock().expect("lock");
    let ids: Vec<String> = reports
        .iter()
        .filter_map(|p| p.task.as_ref().map(|t| t.accept_ref().task_id.clone()))
        .collect();
    assert!(ids.windows(2).all(|w| w[0] == w[1]), "{ids:?}");
    ids.first().cloned()
}

fn status(got: &GetTaskResult) -> &'static str {
    match got {
        GetTaskResult::Working(_) => "working",
        GetTaskResult::InputRequired(_) => "input_required",
        GetTaskResult::Completed(_) => "completed",
        GetTaskResult::Failed(_) => "failed",
        GetTaskResult::Cancelled(_) => "cancelled",
    }
}

/// Polls the task until it is `want`, for up to 30 s.
async fn until_status(client: &Client, task_id: &str, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = client.get_task(task_id).await.expect("tasks/get").accept();
        if status(&got) == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "task {task_id} is {} and not {want}",
            status(&got)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until the reports name a task, for up to 30 s.
async fn until_task(reports: &Mutex<Vec<Progress>>) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(id) = task_of(reports) {
            return id;
        }
        assert!(Instant::now() < deadline, "the call never became a task");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn the_whole_story(client: &Client) {
    // Completes: the result comes back as if the call had answered it,
    // and every poll was reported with the task's status.
    let (with_progress, reports) = recording();
    let result = run(
        client,
        "slow_compute",
        json!({"seconds": 1, "label": "x"}),
        &with_progress,
    )
    .await
    .expect("completed");
    assert_eq!(first_text(&result), "computed `x` in 1 s");
    let task_id = task_of(&reports).expect("the call became a task");
    let statuses: Vec<TaskStatus> = reports
        .lock()
        .expect("lock")
        .iter()
        .filter_map(|p| p.task.as_ref().map(|t| t.accept_ref().status))
        .collect();
    assert_eq!(statuses.first(), Some(&TaskStatus::Working), "{statuses:?}");
    assert_eq!(
        statuses.last(),
        Some(&TaskStatus::Completed),
        "{statuses:?}"
    );
    // The finished task is still there to look at.
    let got = client.get_task(&task_id).await.expect("tasks/get").accept();
    assert_eq!(status(&got), "completed");

    // A tool error is a completed task whose result says so.
    let result = run(client, "failing_job", json!({}), &CallOptions::default())
        .await
        .expect("completed with isError");
    assert_eq!(result.is_error, Some(true));
    assert_eq!(first_text(&result), "the job failed");

    // A JSON-RPC error fails the task, and the call with that error.
    let outcome = run(
        client,
        "protocol_error_job",
        json!({}),
        &CallOptions::default(),
    )
    .await;
    let Err(ClientError::Rpc(error)) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(error.accept_ref().code, -32603);
    assert_eq!(
        error.accept_ref().message,
        "the job's backend is unreachable"
    );
}

async fn input_inside_a_task(target: Target) {
    let input = Arc::new(Confirm::default());
    let client = connect(target, input.clone()).await;
    let (with_progress, reports) = recording();
    let result = run(
        &client,
        "confirm_delete",
        json!({"filename": "a.txt"}),
        &with_progress,
    )
    .await
    .expect("completed");
    assert_eq!(first_text(&result), "deleted a.txt");
    assert!(
        task_of(&reports).is_some(),
        "the question came inside a task"
    );
    // However many polls listed the question, it was put once.
    assert_eq!(input.asked.load(Ordering::SeqCst), 1);

    // Two questions at once: each asked once, both answered.
    let result = run(&client, "multi_input", json!({}), &CallOptions::default())
        .await
        .expect("completed");
    assert_eq!(first_text(&result), r#"first: "accept", second: "accept""#);
    assert_eq!(input.asked.load(Ordering::SeqCst), 3);
    client.shutdown().await;
}

async fn cancelled_by_the_caller(client: &Client) {
    // Timed out: the task is cancelled before the call returns.
    let (mut hurried, reports) = recording();
    hurried.task_timeout = Some(Duration::from_millis(1500));
    let outcome = run(client, "slow_compute", json!({"seconds": 600}), &hurried).await;
    assert!(
        matches!(outcome, Err(ClientError::Timeout(_))),
        "{outcome:?}"
    );
    let task_id = task_of(&reports).expect("the call became a task");
    let got = client.get_task(&task_id).await.expect("tasks/get").accept();
    assert_eq!(status(&got), "cancelled");

    // Dropped by its caller once it is a task: cancelled in the background.
    let (with_progress, reports) = recording();
    let call = run(
        client,
        "slow_compute",
        json!({"seconds": 600}),
        &with_progress,
    );
    let task_id = tokio::select! {
        outcome = call => panic!("a ten-minute task ended: {outcome:?}"),
        task_id = until_task(&reports) => task_id,
    };
    until_status(client, &task_id, "cancelled").await;

    // By hand, through the lower-level API.
    let (call, approval) = approved(client, "slow_compute", json!({"seconds": 600})).await;
    let started = client
        .start_tool(call, approval, &CallOptions::default())
        .await
        .expect("started");
    let ToolStart::Task(task) = started else {
        panic!("{started:?}")
    };
    let task_id = task.accept().task_id;
    let got = client.get_task(&task_id).await.expect("tasks/get").accept();
    assert_eq!(status(&got), "working");
    client.cancel_task(&task_id).await.expect("tasks/cancel");
    until_status(client, &task_id, "cancelled").await;
    let outcome = client.wait_task(&task_id, &CallOptions::default()).await;
    assert!(
        matches!(&outcome, Err(ClientError::TaskCancelled { task_id: t, .. }) if t.accept_ref() == &task_id),
        "{outcome:?}"
    );
    // Cancelling a finished task is acknowledged all the same.
    client
        .cancel_task(&task_id)
        .await
        .expect("tasks/cancel again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_over_stdio() {
    let client = connect(everything_stdio(), Arc::new(Confirm::default())).await;
    the_whole_story(&client).await;
    cancelled_by_the_caller(&client).await;
    client.shutdown().await;
    input_inside_a_task(everything_stdio()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_over_http() {
    let (_server, url) = everything_http();
    let target = Target::Http {
        url: url.clone(),
        headers: Vec::new(),
    };
    let client = connect(target.clone(), Arc::new(Confirm::default())).await;
    the_whole_story(&client).await;
    cancelled_by_the_caller(&client).await;
    input_inside_a_task(target.clone()).await;

    // Started by one client, followed to its end by another, as a host
    // that kept the task id across a restart would.
    let (call, approval) = approved(
        &client,
        "slow_compute",
        json!({"seconds": 1, "label": "kept"}),
    )
    .await;
    let ToolStart::Task(task) = client
        .start_tool(call, approval, &CallOptions::default())
        .await
        .expect("started")
    else {
        panic!("not a task")
    };
    let task_id = task.accept().task_id;
    let later = connect(target, Arc::new(Confirm::default())).await;
    let result = later
        .wait_task(&task_id, &CallOptions::default())
        .await
        .expect("followed to the end");
    assert_eq!(first_text(&result.accept()), "computed `kept` in 1 s");

    // An id the server never gave answers as a JSON-RPC error.
    let outcome = later.get_task("no-such-task").await;
    assert!(matches!(outcome, Err(ClientError::Rpc(_))), "{outcome:?}");
}

/// An HTTP proxy on 127.0.0.1 in front of `upstream` that answers the
/// first `refuse` `tasks/get` requests with 503 and passes everything else
/// through; its URL, and how many it refused.
async fn flaky_proxy(upstream: String, refuse: usize) -> (String, Arc<AtomicUsize>) {
    use axum::body::{Body, Bytes};
    use axum::http::{header, HeaderMap, Method, StatusCode};
    use axum::response::Response;

    let refused = Arc::new(AtomicUsize::new(0));
    let counted = refused.clone();
    let http = reqwest::Client::new();
    let forward = move |method: Method, mut headers: HeaderMap, body: Bytes| {
        let (http, upstream, refused) = (http.clone(), upstream.clone(), counted.clone());
        async move {
            let polled = headers.get("mcp-method").is_some_and(|m| m == "tasks/get");
            let refusing = polled
                && refused
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                        (n < refuse).then_some(n + 1)
                    })
                    .is_ok();
            if refusing {
                let mut busy = Response::new(Body::from("busy"));
                *busy.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
                return busy;
            }
            headers.remove(header::HOST);
            let answer = http
                .request(method, &upstream)
                .headers(headers)
                .body(body)
                .send()
                .await
                .expect("the upstream answers");
            let (status, headers) = (answer.status(), answer.headers().clone());
            let body = answer.bytes().await.expect("the upstream's body");
            let mut out = Response::new(Body::from(body));
            *out.status_mut() = status;
            for (name, value) in &headers {
                if name != header::CONTENT_LENGTH && name != header::TRANSFER_ENCODING {
                    out.headers_mut().insert(name, value.clone());
                }
            }
            out
        }
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let app = axum::Router::new().fallback(forward);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/mcp"), refused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passing_poll_failures_are_retried() {
    let (_server, url) = everything_http();
    let (proxy, refused) = flaky_proxy(url, 3).await;
    let target = Target::Http {
        url: proxy,
        headers: Vec::new(),
    };
    let client = connect(target, Arc::new(Confirm::default())).await;
    let (with_progress, reports) = recording();
    let result = run(
        &client,
        "slow_compute",
        json!({"seconds": 1, "label": "flaky"}),
        &with_progress,
    )
    .await
    .expect("completed through the 503s");
    assert_eq!(first_text(&result), "computed `flaky` in 1 s");
    assert!(task_of(&reports).is_some(), "the call became a task");
    assert_eq!(refused.load(Ordering::SeqCst), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_asks_again_under_an_answered_key_fails_the_call() {
    let input = Arc::new(Confirm::default());
    let client = connect(scripted("reask", Vec::new()), input.clone()).await;
    let hurried = CallOptions {
        task_timeout: Some(Duration::from_secs(20)),
        ..CallOptions::default()
    };
    let outcome = run(&client, "nag", json!({}), &hurried).await;
    let Err(ClientError::Task { task_id, error }) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(task_id.accept(), "task_nag");
    assert_eq!(
        error,
        TaskError::AskedAgain {
            key: "colour".into()
        }
    );
    assert_eq!(input.asked.load(Ordering::SeqCst), 1, "asked once");
    client.shutdown().await;
}
