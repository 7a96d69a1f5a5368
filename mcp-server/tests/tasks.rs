//! The tasks extension end to end, over stdio and over Streamable HTTP:
//! tasks that complete, fail, wait for input and are cancelled; a client
//! without the extension; the routing header; unknown ids. Every task
//! answer is also decoded into the generated `mcp_types::ext::tasks` types.

#![cfg(all(feature = "tasks", feature = "http"))]

use std::time::Duration;

use mcp_server::__private::mcp_types::ext::tasks as wire;
use mcp_server::tasks::TaskSettings;
use mcp_server::tool::{ToolError, ToolOutput};
use mcp_server::transport::{http, stdio};
use mcp_server::{tool, tools, Context, ErrorObject, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

struct Jobs;

#[tools]
impl Jobs {
    /// Works for `ms` milliseconds, then answers.
    #[tool(task = "optional")]
    async fn work(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("worked {ms} ms")
    }

    /// Answers at once.
    #[tool(task = "optional")]
    fn quick(&self) -> String {
        "at once".into()
    }

    /// Fails with a JSON-RPC error after a while.
    #[tool(task = "optional")]
    async fn broken(&self) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Err(ToolError::Protocol(ErrorObject::internal_error(
            "backend down",
        )))
    }

    /// Fails as a tool after a while.
    #[tool(task = "optional")]
    async fn refuses(&self) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Err(ToolError::execution("no such record"))
    }

    /// Works a little, then asks for a colour.
    #[tool(task = "optional")]
    async fn paint(&self, cx: &Context) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let answer = cx
            .input_responses()
            .and_then(|r| r.get("colour"))
            .and_then(|a| serde_json::to_value(a).ok());
        match answer {
            Some(answer) => Ok(ToolOutput::text(format!(
                "painted {}",
                answer["content"]["colour"].as_str().unwrap_or("?")
            ))),
            None => ask_colour(),
        }
    }

    /// Asks for a colour, and once answered asks under the same key again.
    #[tool(task = "optional")]
    async fn nag(&self) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        ask_colour()
    }

    /// Runs until cancelled.
    #[tool(task = "optional")]
    async fn forever(&self, cx: &Context) -> String {
        cx.cancelled().await;
        "cancelled".into()
    }

    /// Only as a task.
    #[tool(task = "required")]
    async fn batch(&self) -> String {
        tokio::time::sleep(Duration::from_millis(20)).await;
        "batched".into()
    }

    /// Never a task.
    #[tool]
    fn plain(&self) -> String {
        "plain".into()
    }
}

/// Asks for a colour under the key `colour`.
fn ask_colour() -> Result<ToolOutput, ToolError> {
    let result = serde_json::from_value(json!({"inputRequests": {"colour": {
        "method": "elicitation/create",
        "params": {"mode": "form", "message": "Which colour?", "requestedSchema": {
            "type": "object", "properties": {"colour": {"type": "string"}}}}
    }}}))
    .map_err(|e| ToolError::Protocol(ErrorObject::internal_error(e.to_string())))?;
    Ok(ToolOutput::input_required(result))
}

/// The server of most tests: every call that has to wait becomes a task
/// (no grace), so that the short jobs here are tasks.
fn server() -> Server {
    serving(Duration::ZERO)
}

fn serving(grace: Duration) -> Server {
    Server::builder(Jobs)
        .info("jobs", "1.0.0")
        .tools()
        .tasks(
            TaskSettings::default()
                .poll_interval(Duration::from_millis(10))
                .inline_grace(grace),
        )
        .build()
        .expect("server builds")
}

fn meta(with_tasks: bool) -> Value {
    let capabilities = if with_tasks {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}})
    } else {
        json!({})
    };
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// One way to reach the server.
enum Client {
    Stdio {
        writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
        lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
        _server: tokio::task::JoinHandle<()>,
    },
    Http {
        port: u16,
        _server: tokio::task::JoinHandle<()>,
    },
}

impl Client {
    fn stdio() -> Self {
        Client::stdio_to(server())
    }

    fn stdio_to(server: Server) -> Self {
        let (client, server_side) = tokio::io::duplex(1 << 16);
        let (r, w) = tokio::io::split(server_side);
        let task = tokio::spawn(async move {
            let _ = stdio::serve_io(server, r, w).await;
        });
        let (reader, writer) = tokio::io::split(client);
        Client::Stdio {
            writer,
            lines: BufReader::new(reader).lines(),
            _server: task,
        }
    }

    async fn http() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("address").port();
        let app = http::router(server(), "/mcp", http::HttpConfig::default());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Client::Http {
            port,
            _server: task,
        }
    }

    /// Sends `method` with `params` (and `_meta`) and returns the response
    /// message.
    async fn request(
        &mut self,
        id: i64,
        method: &str,
        mut params: Value,
        with_tasks: bool,
    ) -> Value {
        params["_meta"] = meta(with_tasks);
        let name = params
            .get("taskId")
            .or_else(|| params.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        match self {
            Client::Stdio { writer, lines, .. } => {
                let mut line = message.to_string();
                line.push('\n');
                writer.write_all(line.as_bytes()).await.expect("write");
                loop {
                    let line = lines.next_line().await.expect("read").expect("a line");
                    let value: Value = serde_json::from_str(&line).expect("JSON");
                    if value["id"] == json!(id) {
                        return value;
                    }
                }
            }
            Client::Http { port, .. } => {
                let (_, body) = post(*port, method, name.as_deref(), &message.to_string()).await;
                serde_json::from_str(&body).expect("a JSON body")
            }
        }
    }
}

/// One HTTP request to `/mcp` with the routing headers; the status and body.
async fn post(port: u16, method: &str, name: Option<&str>, body: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(name) = name {
        request.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// Starts `tool` as a task and returns its id, checking the
/// `CreateTaskResult`.
async fn start(client: &mut Client, tool: &str, arguments: Value) -> String {
    let reply = client
        .request(
            1,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
            true,
        )
        .await;
    let result = &reply["result"];
    assert_eq!(result["resultType"], "task", "{reply}");
    let created: wire::CreateTaskResult =
        serde_json::from_value(result.clone()).expect("a CreateTaskResult");
    assert!(created.task_id.len() >= 32, "{}", created.task_id);
    for absent in ["result", "error", "inputRequests", "task"] {
        assert!(result.get(absent).is_none(), "{absent} in {result}");
    }
    created.task_id
}

async fn get(client: &mut Client, id: &str) -> Value {
    let reply = client
        .request(2, "tasks/get", json!({"taskId": id}), true)
        .await;
    let result = reply["result"].clone();
    assert_eq!(result["resultType"], "complete", "{reply}");
    let _: wire::GetTaskResult =
        serde_json::from_value(result.clone()).unwrap_or_else(|e| panic!("{result}: {e}"));
    result
}

/// Polls until the task's status is `status` or terminal.
async fn wait_for(client: &mut Client, id: &str, status: &str) -> Value {
    for _ in 0..500 {
        let task = get(client, id).await;
        let now = task["status"].as_str().unwrap_or_default().to_owned();
        if now == status || ["completed", "failed", "cancelled"].contains(&now.as_str()) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never reached {status}");
}

async fn clients() -> [Client; 2] {
    [Client::stdio(), Client::http().await]
}

#[tokio::test]
async fn a_task_completes_with_its_result_inlined() {
    for mut client in clients().await {
        let id = start(&mut client, "work", json!({"ms": 50})).await;
        let task = wait_for(&mut client, &id, "completed").await;
        assert_eq!(task["status"], "completed");
        assert_eq!(task["result"]["content"][0]["text"], "worked 50 ms");
        assert_eq!(task["taskId"], json!(id));
        assert!(task["createdAt"].as_str().is_some_and(|t| t.ends_with('Z')));
        assert_eq!(task["ttlMs"], 3_600_000);
        assert_eq!(task["pollIntervalMs"], 10);
        // Cancelling a finished task is acknowledged and changes nothing.
        let ack = client
            .request(3, "tasks/cancel", json!({"taskId": id}), true)
            .await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        assert!(ack["result"].get("status").is_none());
        assert_eq!(get(&mut client, &id).await["status"], "completed");
    }
}

#[tokio::test]
async fn a_protocol_error_fails_the_task_and_a_tool_error_completes_it() {
    for mut client in clients().await {
        let id = start(&mut client, "broken", json!({})).await;
        let task = wait_for(&mut client, &id, "failed").await;
        assert_eq!(task["status"], "failed");
        assert_eq!(task["error"]["code"], -32603);
        assert_eq!(task["error"]["message"], "backend down");
        assert!(task.get("result").is_none());

        let id = start(&mut client, "refuses", json!({})).await;
        let task = wait_for(&mut client, &id, "completed").await;
        assert_eq!(task["status"], "completed");
        assert_eq!(task["result"]["isError"], true);
        assert_eq!(task["result"]["content"][0]["text"], "no such record");
    }
}

#[tokio::test]
async fn input_inside_a_task_is_answered_with_tasks_update() {
    for mut client in clients().await {
        let id = start(&mut client, "paint", json!({})).await;
        let task = wait_for(&mut client, &id, "input_required").await;
        assert_eq!(task["status"], "input_required", "{task}");
        assert_eq!(
            task["inputRequests"]["colour"]["method"],
            "elicitation/create"
        );

        // Unknown keys are ignored; the task still waits.
        let ack = client
            .request(
                4,
                "tasks/update",
                json!({"taskId": id, "inputResponses": {"size": {"action": "accept"}}}),
                true,
            )
            .await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        assert_eq!(get(&mut client, &id).await["status"], "input_required");

        let answer = json!({"colour": {"action": "accept", "content": {"colour": "teal"}}});
        let ack = client
            .request(
                5,
                "tasks/update",
                json!({"taskId": id, "inputResponses": answer}),
                true,
            )
            .await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        let task = wait_for(&mut client, &id, "completed").await;
        assert_eq!(task["result"]["content"][0]["text"], "painted teal");

        // The key was answered already: a second answer is ignored.
        let again = json!({"colour": {"action": "accept", "content": {"colour": "red"}}});
        let ack = client
            .request(
                6,
                "tasks/update",
                json!({"taskId": id, "inputResponses": again}),
                true,
            )
            .await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        assert_eq!(
            get(&mut client, &id).await["result"]["content"][0]["text"],
            "painted teal"
        );
    }
}

#[tokio::test]
async fn asking_again_under_an_answered_key_fails_the_task() {
    for mut client in clients().await {
        let id = start(&mut client, "nag", json!({})).await;
        let task = wait_for(&mut client, &id, "input_required").await;
        assert_eq!(task["status"], "input_required", "{task}");
        let answer = json!({"colour": {"action": "accept", "content": {"colour": "teal"}}});
        client
            .request(
                5,
                "tasks/update",
                json!({"taskId": id, "inputResponses": answer}),
                true,
            )
            .await;
        let task = wait_for(&mut client, &id, "failed").await;
        assert_eq!(task["status"], "failed", "{task}");
        assert_eq!(task["error"]["code"], -32603);
        assert_eq!(
            task["error"]["message"],
            "the tool asked again for input `colour`, which was answered already: \
             a key names one request over a task's life"
        );
    }
}

#[tokio::test]
async fn a_cancelled_task_settles_as_cancelled() {
    for mut client in clients().await {
        let id = start(&mut client, "forever", json!({})).await;
        assert_eq!(get(&mut client, &id).await["status"], "working");
        let ack = client
            .request(3, "tasks/cancel", json!({"taskId": id}), true)
            .await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        let task = get(&mut client, &id).await;
        assert_eq!(task["status"], "cancelled");
        assert!(task.get("result").is_none());
    }
}

#[tokio::test]
async fn a_client_without_the_extension_never_gets_a_task() {
    for mut client in clients().await {
        let reply = client
            .request(
                1,
                "tools/call",
                json!({"name": "work", "arguments": {"ms": 1}}),
                false,
            )
            .await;
        assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
        assert_eq!(reply["result"]["content"][0]["text"], "worked 1 ms");

        let reply = client
            .request(
                2,
                "tools/call",
                json!({"name": "batch", "arguments": {}}),
                false,
            )
            .await;
        assert_eq!(reply["error"]["code"], -32021, "{reply}");
        let required = &reply["error"]["data"]["requiredCapabilities"]["extensions"];
        assert_eq!(
            required["io.modelcontextprotocol/tasks"],
            json!({}),
            "{reply}"
        );

        for method in ["tasks/get", "tasks/cancel"] {
            let reply = client
                .request(3, method, json!({"taskId": "task_x"}), false)
                .await;
            assert_eq!(reply["error"]["code"], -32021, "{method}: {reply}");
        }
    }
}

#[tokio::test]
async fn quick_answers_and_plain_tools_are_not_tasks() {
    for mut client in clients().await {
        for tool in ["quick", "plain"] {
            let reply = client
                .request(
                    1,
                    "tools/call",
                    json!({"name": tool, "arguments": {}}),
                    true,
                )
                .await;
            assert_eq!(reply["result"]["resultType"], "complete", "{tool}: {reply}");
            assert!(reply["result"].get("taskId").is_none());
        }
    }
}

#[tokio::test]
async fn a_handler_done_within_the_grace_answers_the_call_itself() {
    let mut client = Client::stdio_to(serving(Duration::from_millis(150)));
    let reply = client
        .request(
            1,
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 1}}),
            true,
        )
        .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "worked 1 ms");
    assert!(reply["result"].get("taskId").is_none(), "{reply}");
    // Past the grace it is a task as before.
    let id = start(&mut client, "work", json!({"ms": 400})).await;
    let task = wait_for(&mut client, &id, "completed").await;
    assert_eq!(task["result"]["content"][0]["text"], "worked 400 ms");
}

#[tokio::test]
async fn at_the_store_bound_an_optional_tool_answers_itself_and_a_required_one_is_refused() {
    let server = Server::builder(Jobs)
        .info("jobs", "1.0.0")
        .tools()
        .tasks(
            TaskSettings::default()
                .store(mcp_server::tasks::MemoryTaskStore::new(1))
                .poll_interval(Duration::from_millis(10))
                .inline_grace(Duration::ZERO),
        )
        .build()
        .expect("server builds");
    let mut client = Client::stdio_to(server);
    // The one place, held by a task that runs until cancelled.
    let holder = start(&mut client, "forever", json!({})).await;
    let reply = client
        .request(
            2,
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 20}}),
            true,
        )
        .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "worked 20 ms");
    let reply = client
        .request(
            3,
            "tools/call",
            json!({"name": "batch", "arguments": {}}),
            true,
        )
        .await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(
        reply["error"]["message"],
        "the server holds too many tasks; try again later"
    );
    // Once the holder finished, its place is taken again by a task.
    let reply = client
        .request(4, "tasks/cancel", json!({"taskId": holder}), true)
        .await;
    assert!(reply.get("result").is_some(), "{reply}");
    let id = start(&mut client, "batch", json!({})).await;
    wait_for(&mut client, &id, "completed").await;
}

#[tokio::test]
async fn unknown_task_ids_are_invalid_params() {
    for mut client in clients().await {
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let reply = client
                .request(
                    1,
                    method,
                    json!({"taskId": "task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "inputResponses": {}}),
                    true,
                )
                .await;
            assert_eq!(reply["error"]["code"], -32602, "{method}: {reply}");
        }
        for method in ["tasks/result", "tasks/list"] {
            let reply = client
                .request(2, method, json!({"taskId": "x"}), true)
                .await;
            assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
        }
    }
}

#[tokio::test]
async fn http_routes_tasks_by_the_mcp_name_header() {
    let mut client = Client::http().await;
    let id = start(&mut client, "forever", json!({})).await;
    let Client::Http { port, .. } = client else {
        unreachable!("an HTTP client")
    };
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tasks/get",
        "params": {"_meta": meta(true), "taskId": id}})
    .to_string();
    let (status, reply) = post(port, "tasks/get", Some("task_other"), &body).await;
    assert_eq!(status, 400, "{reply}");
    assert!(reply.contains("-32020"), "{reply}");
    let (status, reply) = post(port, "tasks/get", None, &body).await;
    assert_eq!(status, 400, "{reply}");
    let (status, reply) = post(port, "tasks/get", Some(&id), &body).await;
    assert_eq!(status, 200, "{reply}");
    assert!(reply.contains("\"working\""), "{reply}");
}

#[tokio::test]
async fn discover_lists_the_extension_and_tools_say_how_they_run() {
    let mut client = Client::stdio();
    let reply = client.request(1, "server/discover", json!({}), false).await;
    let extensions = &reply["result"]["capabilities"]["extensions"];
    assert_eq!(
        extensions["io.modelcontextprotocol/tasks"],
        json!({}),
        "{reply}"
    );
    assert!(reply["result"]["capabilities"].get("tasks").is_none());

    let reply = client.request(2, "tools/list", json!({}), false).await;
    let tools = reply["result"]["tools"].as_array().expect("tools");
    let support = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["_meta"]["io.modelcontextprotocol/tasks"]["taskSupport"].clone())
    };
    assert_eq!(support("work"), Some(json!("optional")));
    assert_eq!(support("batch"), Some(json!("required")));
    assert_eq!(support("plain"), Some(Value::Null));
}

#[tokio::test]
async fn a_listen_stream_carries_the_followed_tasks_changes() {
    let mut client = Client::stdio();
    let id = start(&mut client, "work", json!({"ms": 100})).await;
    let Client::Stdio { writer, lines, .. } = &mut client else {
        unreachable!("a stdio client")
    };
    let listen = json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
        "params": {"_meta": meta(true), "notifications": {"taskIds": [id, "task_unknown"]}}});
    writer
        .write_all(format!("{listen}\n").as_bytes())
        .await
        .expect("write");
    let mut acknowledged = false;
    let completed = loop {
        let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
            .await
            .expect("a message within 5 s")
            .expect("read")
            .expect("a line");
        let message: Value = serde_json::from_str(&line).expect("JSON");
        match message["method"].as_str() {
            Some("notifications/subscriptions/acknowledged") => {
                assert_eq!(message["params"]["notifications"]["taskIds"][0], json!(id));
                acknowledged = true;
            }
            Some("notifications/tasks") => {
                assert!(acknowledged, "the acknowledgement comes first");
                let params = &message["params"];
                assert_eq!(params["taskId"], json!(id));
                assert_eq!(params["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
                if params["status"] == "completed" {
                    break params.clone();
                }
            }
            _ => panic!("unexpected {message}"),
        }
    };
    assert_eq!(completed["result"]["content"][0]["text"], "worked 100 ms");
    let _: wire::TaskStatusNotificationParams =
        serde_json::from_value(completed.clone()).expect("notification params");
}

#[tokio::test]
async fn a_late_subscriber_hears_the_state_its_task_ended_in() {
    let mut client = Client::stdio();
    let id = start(&mut client, "work", json!({"ms": 1})).await;
    wait_for(&mut client, &id, "completed").await;
    let Client::Stdio { writer, lines, .. } = &mut client else {
        unreachable!("a stdio client")
    };
    let listen = json!({"jsonrpc": "2.0", "id": 8, "method": "subscriptions/listen",
        "params": {"_meta": meta(true), "notifications": {"taskIds": [id]}}});
    writer
        .write_all(format!("{listen}\n").as_bytes())
        .await
        .expect("write");
    let mut next = async || -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("a message within 10 s")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).expect("JSON")
    };
    let ack = next().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    let state = next().await;
    assert_eq!(state["method"], "notifications/tasks", "{state}");
    assert_eq!(state["params"]["taskId"], json!(id));
    assert_eq!(state["params"]["status"], "completed");
    assert_eq!(
        state["params"]["result"]["content"][0]["text"],
        "worked 1 ms"
    );
}

#[tokio::test]
async fn listening_for_tasks_needs_the_extension() {
    let mut client = Client::stdio();
    let reply = client
        .request(
            1,
            "subscriptions/listen",
            json!({"notifications": {"taskIds": ["task_x"]}}),
            false,
        )
        .await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
}
