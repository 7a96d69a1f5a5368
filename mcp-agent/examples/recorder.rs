//! A scripted MCP server over stdio that records every message it
//! receives: the other side of the injection suite
//! (`tests/injection_channels.rs`), whose verdicts are read from these
//! records, not from the host's own account of what it sent.
//!
//! ```text
//! recorder SCRIPT.json
//! ```
//!
//! The script names the file to append every received message to (a JSON
//! line each), the file its `store` tools keep data in, the server's
//! instructions and its tools: each a definition, sent as written, and
//! what a call does:
//!
//! - `{"kind": "text", "text": T}`: a result with the text block `T`;
//! - `{"kind": "toolError", "text": T}`: the same with `isError: true`;
//! - `{"kind": "error", "code": C, "message": M, "data": D}`: a JSON-RPC
//!   error;
//! - `{"kind": "undecodable", "text": T}`: a result a client cannot
//!   decode (its `content` is the string `T`, not an array);
//! - `{"kind": "crash", "text": T}`: `T` on standard error, then exit;
//! - `{"kind": "elicit", "text": T}`: asks the client for input with the
//!   message `T`, then answers `asked`;
//! - `{"kind": "store"}`: appends the call's arguments to the store and
//!   answers `stored`;
//! - `{"kind": "read"}`: answers with what the store holds.
//!
//! Its `resources`, each `{"uri", "mimeType", "text", "_meta"}`, are
//! listed and read as written (an MCP Apps view among them, for a tool
//! whose definition names it); one with `"textFile": PATH` instead of
//! `text` is read from that file at each read, so that a test can
//! change it under a running server.
//!
//! It speaks the legacy era (`initialize`), and answers `server/discover`
//! with "method not found", which a dual-era client takes as legacy.

use std::io::{BufRead, Write};

use serde_json::{json, Value};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: recorder SCRIPT.json");
        std::process::exit(2);
    };
    let script: Value = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(script) => script,
        Err(e) => {
            eprintln!("recorder: {path}: {e}");
            std::process::exit(2);
        }
    };
    let mut server = Server {
        script,
        lines: std::io::stdin().lock().lines(),
        asked: 0,
    };
    while let Some(message) = server.next() {
        server.answer(&message);
    }
}

struct Server<L> {
    script: Value,
    lines: L,
    asked: u64,
}

impl<L: Iterator<Item = std::io::Result<String>>> Server<L> {
    /// The next message received, recorded first; `None` at the end.
    fn next(&mut self) -> Option<Value> {
        loop {
            let line = self.lines.next()?.ok()?;
            if line.trim().is_empty() {
                continue;
            }
            self.record(&line);
            match serde_json::from_str(&line) {
                Ok(message) => return Some(message),
                Err(_) => continue,
            }
        }
    }

    fn record(&self, line: &str) {
        if let Some(path) = self.script["record"].as_str() {
            let appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| writeln!(f, "{}", line.trim()));
            if let Err(e) = appended {
                eprintln!("recorder: {path}: {e}");
            }
        }
    }

    fn answer(&mut self, message: &Value) {
        let Some(id) = message.get("id").cloned() else {
            return; // a notification
        };
        let Some(method) = message["method"].as_str() else {
            return; // a response to nothing we asked
        };
        let reply = match method {
            "initialize" => {
                let mut capabilities = json!({"tools": {}});
                if self.script.get("resources").is_some() {
                    capabilities["resources"] = json!({});
                }
                let mut result = json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities,
                    "serverInfo": {"name": "recorder", "version": "1.0.0"},
                });
                if let Some(instructions) = self.script["instructions"].as_str() {
                    result["instructions"] = json!(instructions);
                }
                Ok(result)
            }
            "ping" => Ok(json!({})),
            "tools/list" => {
                let tools: Vec<Value> = self.tools().map(|t| t["definition"].clone()).collect();
                Ok(json!({ "tools": tools }))
            }
            "tools/call" => self.call(&message["params"]),
            "resources/list" => {
                let listed: Vec<Value> = self
                    .resources()
                    .map(|r| json!({"uri": r["uri"], "name": r["uri"], "mimeType": r["mimeType"]}))
                    .collect();
                Ok(json!({ "resources": listed }))
            }
            "resources/read" => {
                let uri = &message["params"]["uri"];
                match self.resources().find(|r| r["uri"] == *uri) {
                    Some(resource) => {
                        let mut content = resource.clone();
                        if let Some(path) =
                            content.as_object_mut().and_then(|c| c.remove("textFile"))
                        {
                            let text = path
                                .as_str()
                                .and_then(|p| std::fs::read_to_string(p).ok())
                                .unwrap_or_default();
                            content["text"] = json!(text);
                        }
                        Ok(json!({ "contents": [content] }))
                    }
                    None => Err(json!({"code": -32002, "message": "Resource not found"})),
                }
            }
            _ => Err(json!({"code": -32601, "message": "Method not found"})),
        };
        let out = match reply {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        send(&out);
    }

    fn resources(&self) -> impl Iterator<Item = &Value> {
        self.script["resources"].as_array().into_iter().flatten()
    }

    fn tools(&self) -> impl Iterator<Item = &Value> {
        self.script["tools"].as_array().into_iter().flatten()
    }

    fn call(&mut self, params: &Value) -> Result<Value, Value> {
        let name = params["name"].as_str().unwrap_or_default();
        let Some(does) = self
            .tools()
            .find(|t| t["definition"]["name"] == name)
            .map(|t| t["does"].clone())
        else {
            return Err(json!({"code": -32602, "message": "Unknown tool"}));
        };
        let text = does["text"].as_str().unwrap_or_default().to_owned();
        let block = |text: &str| json!([{"type": "text", "text": text}]);
        match does["kind"].as_str().unwrap_or_default() {
            "text" => Ok(json!({ "content": block(&text) })),
            "toolError" => Ok(json!({ "content": block(&text), "isError": true })),
            "error" => Err(json!({
                "code": does["code"].as_i64().unwrap_or(-32000),
                "message": does["message"],
                "data": does["data"],
            })),
            "undecodable" => Ok(json!({ "content": text })),
            "crash" => {
                eprintln!("{text}");
                std::process::exit(3);
            }
            "elicit" => {
                self.asked += 1;
                let asked = format!("elicit-{}", self.asked);
                send(&json!({
                    "jsonrpc": "2.0", "id": asked, "method": "elicitation/create",
                    "params": {"message": text, "requestedSchema": {"type": "object", "properties": {}}},
                }));
                // The client's answer (recorded like everything else).
                while let Some(message) = self.next() {
                    if message["id"] == asked.as_str() && message.get("method").is_none() {
                        break;
                    }
                    self.answer(&message);
                }
                Ok(json!({ "content": block("asked") }))
            }
            "store" => {
                let stored = self.script["store"].as_str().map(|path| {
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)
                        .and_then(|mut f| writeln!(f, "{}", params["arguments"]))
                });
                match stored {
                    Some(Ok(())) => Ok(json!({ "content": block("stored") })),
                    _ => Err(json!({"code": -32603, "message": "no store"})),
                }
            }
            "read" => {
                let held = self.script["store"]
                    .as_str()
                    .and_then(|path| std::fs::read_to_string(path).ok())
                    .unwrap_or_default();
                Ok(json!({ "content": block(&held) }))
            }
            _ => Err(json!({"code": -32603, "message": "the script names no such kind"})),
        }
    }
}

fn send(message: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{message}");
    let _ = out.flush();
}
