//! A typed call beside an untyped one through the same client, against the
//! real `notes` server over stdio.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::client::{CallOptions, Client, ClientOptions, NoInput, StdioCommand, Target};
use mcp_host::typed::{Tool, TypedClient};
use mcp_host::ServerId;
use serde_json::{json, Value};

use super::workspace;

#[allow(dead_code, clippy::all)]
mod notes {
    include!("../../../../mcp-gen/tests/tools/notes.rs");
}

const CALLS: usize = 2_000;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

pub fn run() {
    let notes_bin = std::env::var_os("NOTES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/release/examples/notes"));
    assert!(
        notes_bin.is_file(),
        "{} is missing: cargo build --release -p mcp-toolkit-server --example notes",
        notes_bin.display()
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let target = Target::Stdio(StdioCommand {
            command: notes_bin.display().to_string(),
            args: vec!["--stdio".into()],
            ..StdioCommand::default()
        });
        let id = ServerId::new("notes").expect("id");
        let client = Arc::new(
            Client::connect(id, target, Arc::new(NoInput), ClientOptions::default(), None)
                .await
                .expect("notes connects"),
        );
        let gate = Gate::new(Policy::default(), Arc::new(ApproveAll));
        let tools = notes::Tools::new(TypedClient::new(client.clone()));
        let options = CallOptions::default();
        let prepared = tools
            .create_note(notes::create_note::Arguments::new("milk", "buy milk"))
            .await
            .expect("prepared");
        let approval = gate.authorize(prepared.call()).await.expect("approved");
        let handle = tools.call(prepared, approval, &options).await.expect("created").accept().handle;

        let mut untyped = Vec::with_capacity(CALLS);
        let mut typed = Vec::with_capacity(CALLS);
        let mut last = None;
        for i in 0..CALLS * 2 {
            let start = Instant::now();
            if i % 2 == 0 {
                let Value::Object(arguments) = json!({"handle": handle}) else { unreachable!() };
                let call = client.prepare_call("read_note", arguments).await.expect("prepared");
                let approval = gate.authorize(&call).await.expect("approved");
                let result = client.call_tool(call, approval, &options).await.expect("read");
                std::hint::black_box(result);
                untyped.push(start.elapsed());
            } else {
                let prepared = tools
                    .read_note(notes::read_note::Arguments::new(handle.clone()))
                    .await
                    .expect("prepared");
                let approval = gate.authorize(prepared.call()).await.expect("approved");
                let note = tools.call(prepared, approval, &options).await.expect("read");
                last = Some(note.accept());
                typed.push(start.elapsed());
            }
        }
        let note = last.expect("a note");
        assert_eq!(note.body, "buy milk");
        let (u, t) = (median(untyped), median(typed));
        println!();
        println!("## a typed call beside an untyped one (read_note of notes over stdio, release, {CALLS} calls each, interleaved)");
        println!("untyped (prepare_call, gate, call_tool)          median {:>8.1} µs", us(u));
        println!("typed   (drift check, encode, gate, call, validate, decode) median {:>8.1} µs", us(t));
        println!("overhead: {:+.1} µs a call ({:+.1}%)", us(t) - us(u), (t.as_secs_f64() / u.as_secs_f64() - 1.0) * 100.0);

        // The decode and validation alone, on the same result.
        let Value::Object(arguments) = json!({"handle": handle}) else { unreachable!() };
        let call = client.prepare_call("read_note", arguments).await.expect("prepared");
        let approval = gate.authorize(&call).await.expect("approved");
        let result = client.call_tool(call, approval, &options).await.expect("read").accept();
        let structured = result.structured_content.clone().expect("structured");
        let schema: Value = serde_json::from_str(
            <notes::read_note::Tool as Tool>::DEFINITION.output_schema.expect("a schema"),
        )
        .expect("json");
        let validator = jsonschema::validator_for(&schema).expect("compiles");
        let runs = 100_000;
        let start = Instant::now();
        for _ in 0..runs {
            let value = std::hint::black_box(&structured);
            assert!(validator.is_valid(value));
            let note: notes::read_note::Output =
                serde::Deserialize::deserialize(value).expect("decodes");
            std::hint::black_box(note);
        }
        println!(
            "of which validate + decode of structuredContent: {:.2} µs ({runs} runs)",
            us(start.elapsed()) / runs as f64
        );
        client.shutdown().await;
    });
}
