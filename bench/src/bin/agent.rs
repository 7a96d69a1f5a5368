//! The host-side cost of the model loop, without the model and without
//! the servers: what `mcp-agent` adds to each turn, how long lowering a
//! catalogue for each provider takes, and the memory of a conversation.
//!
//! The catalogue is 100 tools from 5 servers, made of the real tool lists
//! under `mcp-gen/tests/tools/` (the reference everything, filesystem,
//! memory, time and fetch servers and our notes example), repeated under
//! other server ids until there are 100. One turn is: the request built
//! (history and the 100 declarations), encoded as the provider's JSON (the
//! anchor: what any client must do), a streamed answer with one tool call
//! decoded, the call mapped back and its arguments restored, checked
//! against the tool's original schema (as the host's `prepare` does, with a
//! compiled validator), put
//! to the flow policy with a 10 KB untrusted result in the ledger, and the
//! 10 KB result enveloped and recorded.
//!
//! ```text
//! cargo run --release -p mcp-bench --bin agent
//! ```

use std::hint::black_box;
use std::time::Instant;

use mcp_agent::conversation::{Bounds, Conversation, Offer, Resolved, Step, ToolInput};
use mcp_agent::flow::{FlowConfig, FlowPolicy, ProposedCall, ServerText};
use mcp_agent::names::SelectionConfig;
use mcp_agent::provider::Provider;
use serde_json::{json, Value};

const LISTS: [&str; 6] = [
    "server-everything.json",
    "server-filesystem.json",
    "server-memory.json",
    "mcp-server-time.json",
    "mcp-server-fetch.json",
    "notes.json",
];

fn catalogue(count: usize, servers: usize) -> Vec<ToolInput> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../mcp-gen/tests/tools/");
    let mut real = Vec::new();
    for list in LISTS {
        let text = std::fs::read_to_string(format!("{dir}{list}")).expect("tool list");
        let value: Value = serde_json::from_str(&text).expect("json");
        for tool in value["tools"].as_array().expect("tools") {
            real.push(tool.clone());
        }
    }
    (0..count)
        .map(|n| {
            let tool = &real[n % real.len()];
            let server = format!("server{}", n % servers);
            let name = format!("{}_{n}", tool["name"].as_str().unwrap_or("tool"));
            ToolInput {
                qualified: format!("{server}__{name}"),
                server,
                tool: name,
                description: tool["description"].as_str().unwrap_or("").to_owned(),
                input_schema: tool["inputSchema"].clone(),
                // Nobody reviewed these: the bench times the unreviewed path.
                digest: String::new(),
            }
        })
        .collect()
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).expect("numbers"));
    samples[samples.len() / 2]
}

/// Microseconds per run of `f`, the median of `rounds` rounds of `per`.
fn time(rounds: usize, per: usize, mut f: impl FnMut()) -> f64 {
    let samples = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..per {
                f();
            }
            start.elapsed().as_secs_f64() * 1e6 / per as f64
        })
        .collect();
    median(samples)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| String::from("?"))
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// A streamed OpenAI answer with one call of `name`, as the wire has it.
fn openai_answer(name: &str) -> Vec<u8> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut body = String::new();
    for event in [
        chunk(
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                "function": {"name": name, "arguments": "{\"path\": \"/tmp/notes.txt\"}"}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        json!({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [],
            "usage": {"prompt_tokens": 900, "completion_tokens": 20}}),
    ] {
        body.push_str(&format!("data: {event}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}

fn main() {
    println!("load average before: {}", load());
    let tools = catalogue(100, 5);
    let selection = SelectionConfig {
        budget: 128,
        servers: Default::default(),
    };
    println!("\nlowering 100 tools from 5 servers (median of 21 rounds of 20):");
    println!("| provider | per catalogue | per tool |");
    println!("| --- | --- | --- |");
    for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini] {
        let us = time(21, 20, || {
            black_box(Offer::build(provider, black_box(&tools), &selection));
        });
        println!(
            "| {} | {:.2} ms | {:.1} µs |",
            provider.name(),
            us / 1000.0,
            us / tools.len() as f64
        );
    }

    // One turn of the loop, for OpenAI.
    let provider = Provider::OpenAi;
    let offer = Offer::build(provider, &tools, &selection);
    let policy = FlowPolicy::new(FlowConfig::default());
    let target = tools
        .iter()
        .find(|t| t.tool.starts_with("read_text_file") || t.tool.starts_with("read_file"))
        .expect("a file-reading tool");
    let name = offer
        .declarations()
        .into_iter()
        .map(|d| d.name)
        .find(|n| n.ends_with(&target.tool))
        .expect("offered");
    // The host's `prepare` checks arguments with a compiled validator of
    // the original schema, as here.
    let schema = jsonschema::validator_for(&target.input_schema).expect("schema");
    let answer = openai_answer(&name);
    let result =
        "line of a file that a server returned, with words and numbers 12345\n".repeat(150);
    let unbounded = Bounds {
        max_requests_per_turn: usize::MAX,
        ..Bounds::default()
    };
    let mut conversation = Conversation::new(None, unbounded).expect("nonce");
    conversation.user("summarise /tmp/notes.txt");
    let encode_only = time(21, 50, || {
        let request = conversation.request("m", &offer, &policy).expect("request");
        let wire = provider.encode(&request, true).expect("encodes");
        black_box(wire.body.to_string());
    });
    let mut turns = 0usize;
    let turn = time(21, 50, || {
        let mut conversation = Conversation::new(None, Bounds::default()).expect("nonce");
        conversation.user("summarise /tmp/notes.txt");
        let request = conversation.request("m", &offer, &policy).expect("request");
        let wire = provider.encode(&request, true).expect("encodes");
        black_box(wire.body.to_string());
        let mut decoder = provider.stream_decoder(Default::default());
        decoder.push(&answer).expect("decodes");
        let response = decoder.finish().expect("complete");
        let Ok(Step::Calls(calls)) = conversation.answer(response) else {
            panic!("a call");
        };
        let call = &calls[0];
        let mcp_agent::provider::Arguments::Object(arguments) = &call.arguments else {
            panic!("object");
        };
        let Resolved::Tool {
            server,
            tool,
            arguments,
            ..
        } = offer.resolve(&call.name, arguments)
        else {
            panic!("resolves");
        };
        let value = Value::Object(arguments);
        assert!(schema.is_valid(&value), "valid arguments");
        let proposed = ProposedCall {
            server: &server,
            tool: &tool,
            arguments: &value,
            read_only_closed_world: false,
        };
        black_box(policy.check(conversation.ledger(), &proposed));
        let content = ServerText::result(&server, &tool, result.clone());
        let out = conversation.server_output(&policy, call, &content, Vec::new(), false);
        conversation.results(vec![out]);
        // The tainted ledger is read on the next call: check it once more.
        black_box(policy.check(conversation.ledger(), &proposed));
        turns += 1;
    });
    println!("\none turn with 100 tools offered, OpenAI (median of 21 rounds of 50):");
    println!("| what | per turn | ratio to encoding alone |");
    println!("| --- | --- | --- |");
    println!("| encoding the request alone (anchor) | {encode_only:.0} µs | 1.00x |");
    println!(
        "| the whole host side of the turn | {turn:.0} µs | {:.2}x |",
        turn / encode_only
    );
    black_box(turns);

    // Memory: conversations of 10 turns, each with a 10 KB result.
    let before = rss_kib();
    let mut kept = Vec::new();
    for _ in 0..200 {
        let mut conversation = Conversation::new(None, Bounds::default()).expect("nonce");
        for _ in 0..10 {
            conversation.user("summarise /tmp/notes.txt");
            let mut decoder = provider.stream_decoder(Default::default());
            decoder.push(&answer).expect("decodes");
            let response = decoder.finish().expect("complete");
            if let Ok(Step::Calls(calls)) = conversation.answer(response) {
                let content = ServerText::result("s", "t", result.clone());
                let out =
                    conversation.server_output(&policy, &calls[0], &content, Vec::new(), false);
                conversation.results(vec![out]);
            }
        }
        kept.push(conversation);
    }
    let after = rss_kib();
    println!(
        "\nresident memory of a conversation of 10 turns with a 10 KB result each: {:.0} KiB ({} conversations: {} KiB)",
        (after.saturating_sub(before)) as f64 / kept.len() as f64,
        kept.len(),
        after.saturating_sub(before)
    );
    println!("\nload average after: {}", load());
}
