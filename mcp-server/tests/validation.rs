//! What the `validation` feature adds to a tool call, in both builds: with
//! it, arguments that break a constraint only the input schema states (a
//! range from `#[schemars(...)]`) are refused before the body runs; without
//! it, serde decodes them and the body sees them. What serde refuses on its
//! own (a wrong type, an unknown argument) is refused either way.
//!
//! `cargo test -p mcp-toolkit-server` runs it without the feature (not a default);
//! the workspace's build (`./test`) turns it on.

use mcp_server::tool::ToolSet;
use mcp_server::{tool, tools, Outcome, Server};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// A review of a film.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Review {
    /// From one to five.
    #[schemars(range(min = 1, max = 5))]
    stars: u8,
}

struct Films;

#[tools]
impl Films {
    /// Rates a film.
    #[tool]
    fn rate(&self, review: Review) -> String {
        format!("{} stars", review.stars)
    }
}

/// The result of a `rate` call with `arguments`.
async fn call(arguments: Value) -> Value {
    let server = Server::builder(Films).tools().build().expect("builds");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        },
        "name": "rate", "arguments": arguments}});
    match server.handle(call, None).await {
        Outcome::Reply { status, message } => {
            assert_eq!(status, 200);
            message.to_value()["result"].clone()
        }
        other => panic!("expected a reply, got {other:?}"),
    }
}

/// The result of a `rate` call with `review`.
async fn rate(review: Value) -> Value {
    call(json!({ "review": review })).await
}

/// The text of a result's first block.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().expect("a text block")
}

#[tokio::test]
async fn the_schema_states_the_range() {
    let schema = &Films::tools()[0].input_schema;
    let stars = &serde_json::to_value(schema).expect("encodes")["properties"]["review"];
    let stars = &stars["properties"]["stars"];
    assert_eq!(
        (&stars["minimum"], &stars["maximum"]),
        (&json!(1), &json!(5))
    );
    assert_eq!(text(&rate(json!({"stars": 4})).await), "4 stars");
}

#[cfg(feature = "validation")]
#[tokio::test]
async fn with_validation_a_value_out_of_range_is_refused() {
    let result = rate(json!({"stars": 9})).await;
    assert_eq!(result["isError"], true, "{result}");
    let text = text(&result);
    assert!(text.starts_with("invalid arguments for `rate`"), "{text}");
    assert!(text.contains("argument `review/stars`"), "{text}");
    assert!(text.contains("maximum of 5"), "{text}");
}

#[cfg(not(feature = "validation"))]
#[tokio::test]
async fn without_validation_a_value_out_of_range_reaches_the_body() {
    let result = rate(json!({"stars": 9})).await;
    assert_eq!(result["isError"], Value::Null, "{result}");
    assert_eq!(text(&result), "9 stars");
}

#[tokio::test]
async fn what_serde_refuses_is_refused_either_way() {
    // The messages differ (serde's or the validator's); both name the
    // argument.
    for arguments in [
        json!({"review": {"stars": "four"}}),
        json!({"review": {"stars": 300}}),
        json!({"review": {"stars": 4, "note": "fine"}}),
        json!({}),
    ] {
        let result = call(arguments.clone()).await;
        assert_eq!(result["isError"], true, "{arguments}: {result}");
        assert!(text(&result).contains("review"), "{arguments}: {result}");
    }
}
