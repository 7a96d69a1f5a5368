//! A client of a server served over in-memory stdio, one request at a
//! time.

use std::time::Duration;

use mcp_server::transport::stdio;
use mcp_server::Server;
use serde_json::{json, Value};
use tokio::io::{
    split, AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

/// The client end of a stdio connection.
pub struct Client {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    next_id: i64,
    /// The `_meta` of every modern request.
    meta: Value,
}

impl Client {
    /// Serves `server` on a new connection; modern requests carry `meta`.
    pub fn serve(server: Server, meta: Value) -> Client {
        let (client, server_side) = tokio::io::duplex(1 << 16);
        let (r, w) = split(server_side);
        tokio::spawn(stdio::serve_io(server, r, w));
        let (reader, writer) = split(client);
        Client {
            writer,
            lines: BufReader::new(reader).lines(),
            next_id: 0,
            meta,
        }
    }

    /// Sends a modern request of `method` and returns its answer.
    pub async fn request(&mut self, method: &str, mut params: Value) -> Value {
        params["_meta"] = self.meta.clone();
        self.exchange(method, params).await
    }

    /// Calls the tool `name` with `arguments` (a modern `tools/call`) and
    /// returns the answer.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Value {
        let params = json!({"name": name, "arguments": arguments});
        self.request("tools/call", params).await
    }

    /// Sends a request of `method` with `params` as they are (a legacy
    /// request, in a session once `initialize` was sent) and returns its
    /// answer, skipping what else the server sends.
    pub async fn exchange(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.writer
            .write_all(format!("{message}\n").as_bytes())
            .await
            .expect("write");
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
                .await
                .expect("an answer in time")
                .expect("read")
                .expect("a line");
            let answer: Value = serde_json::from_str(&line).expect("JSON");
            if answer["id"] == json!(id) {
                return answer;
            }
        }
    }
}
