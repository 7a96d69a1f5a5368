//! MCP Apps on the server, over in-memory stdio: a view listed and read
//! with its MIME type, HTML and `_meta.ui`; tools listed with theirs; the
//! extension advertised; and the builder refusing a tool whose view is not
//! served, a view whose CSP lists hold more than origins, and two views at
//! one URI.

#![cfg(feature = "apps")]

mod common;

use common::stdio::Client;
use mcp_server::apps::{Permission, View, ViewError, EXTENSION, MIME_TYPE};
use mcp_server::tool::Json;
use mcp_server::{tool, tools, BuildError, Server};
use serde_json::{json, Value};

const VIEW: &str = "ui://counter/view.html";
const HTML: &str = "<!doctype html><title>Counter</title><p id=n>0</p>";

struct Counter;

#[tools]
impl Counter {
    /// Counts to `n`, shown in the counter view.
    #[tool(ui = "ui://counter/view.html", visibility = ["model", "app"])]
    fn count(&self, n: u32) -> (String, Json<Vec<u32>>) {
        (format!("counted to {n}"), Json((1..=n).collect()))
    }

    /// Resets the counter; only the view calls it.
    #[tool(visibility = ["app"])]
    fn reset(&self) -> String {
        "reset".to_owned()
    }
}

fn view() -> View {
    View::new(VIEW, HTML)
        .name("counter")
        .description("A counter")
        .connect_domains(["https://api.example.com", "wss://live.example.com"])
        .resource_domains(["https://*.cdn.example.com"])
        .permissions([Permission::ClipboardWrite])
        .prefers_border(true)
}

fn expected_meta() -> Value {
    json!({"ui": {
        "csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com"],
            "resourceDomains": ["https://*.cdn.example.com"],
        },
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": true,
    }})
}

fn client() -> Client {
    let server = Server::builder(Counter)
        .tools()
        .view(view())
        .build()
        .expect("the view is served");
    Client::serve(server, common::meta())
}

#[tokio::test]
async fn the_view_is_listed_and_read_with_its_meta() {
    let mut client = client();
    let list = client.request("resources/list", json!({})).await;
    let resources = list["result"]["resources"].as_array().expect("a list");
    let listed = resources
        .iter()
        .find(|r| r["uri"] == VIEW)
        .expect("the view is listed");
    assert_eq!(listed["mimeType"], MIME_TYPE);
    assert_eq!(listed["name"], "counter");
    assert_eq!(listed["description"], "A counter");
    assert_eq!(listed["_meta"], expected_meta());

    let read = client.request("resources/read", json!({"uri": VIEW})).await;
    let contents = read["result"]["contents"].as_array().expect("contents");
    assert_eq!(contents.len(), 1, "{read}");
    assert_eq!(contents[0]["uri"], VIEW);
    assert_eq!(contents[0]["mimeType"], MIME_TYPE);
    assert_eq!(contents[0]["text"], HTML);
    assert_eq!(contents[0]["_meta"], expected_meta());

    let missing = client
        .request("resources/read", json!({"uri": "ui://counter/other.html"}))
        .await;
    assert!(missing["error"].is_object(), "{missing}");
}

#[tokio::test]
async fn tools_carry_their_view_and_visibility() {
    let mut client = client();
    let list = client.request("tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().expect("a list");
    let meta = |name: &str| {
        let tool = tools.iter().find(|t| t["name"] == name).expect("listed");
        tool["_meta"].clone()
    };
    assert_eq!(
        meta("count"),
        json!({"ui": {"resourceUri": VIEW, "visibility": ["model", "app"]}})
    );
    assert_eq!(meta("reset"), json!({"ui": {"visibility": ["app"]}}));

    // Text for a host without views, the numbers for the view.
    let call = client.call("count", json!({"n": 3})).await;
    assert_eq!(
        call["result"]["content"][0]["text"], "counted to 3",
        "{call}"
    );
    assert_eq!(
        call["result"]["structuredContent"],
        json!({"result": [1, 2, 3]})
    );
}

#[tokio::test]
async fn the_extension_is_advertised_with_its_mime_type() {
    let mut client = client();
    let discover = client.request("server/discover", json!({})).await;
    let capabilities = &discover["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"][EXTENSION],
        json!({"mimeTypes": [MIME_TYPE]}),
        "{discover}"
    );
    assert!(capabilities["resources"].is_object(), "{discover}");

    // Without a view there is nothing to advertise.
    let server = Server::builder(common::Tools)
        .tools()
        .build()
        .expect("built");
    let mut plain = Client::serve(server, common::meta());
    let discover = plain.request("server/discover", json!({})).await;
    let capabilities = &discover["result"]["capabilities"];
    assert!(
        capabilities["extensions"].get(EXTENSION).is_none(),
        "{discover}"
    );
}

#[cfg(feature = "legacy")]
#[tokio::test]
async fn a_legacy_session_is_told_of_the_extension_too() {
    let mut client = client();
    let params = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}},
        "clientInfo": {"name": "host", "version": "1"},
    });
    let answer = client.exchange("initialize", params).await;
    assert_eq!(
        answer["result"]["capabilities"]["extensions"][EXTENSION],
        json!({"mimeTypes": [MIME_TYPE]}),
        "{answer}"
    );
}

#[test]
fn a_tool_whose_view_is_not_served_is_refused_at_build() {
    let error = Server::builder(Counter)
        .tools()
        .build()
        .expect_err("the view is missing");
    match &error {
        BuildError::UndeclaredView { tool, uri } => {
            assert_eq!((tool.as_str(), uri.as_str()), ("count", VIEW));
        }
        other => panic!("{other:?}"),
    }
    let message = error.to_string();
    assert!(
        message.contains("`count`") && message.contains(VIEW),
        "{message}"
    );

    // Another view does not stand in for it.
    let other = View::new("ui://counter/other.html", HTML);
    let error = Server::builder(Counter).tools().view(other).build();
    assert!(matches!(error, Err(BuildError::UndeclaredView { .. })));

    assert!(Server::builder(Counter)
        .tools()
        .view(view())
        .build()
        .is_ok());
}

#[test]
fn a_view_with_a_bad_origin_is_refused_at_build() {
    let bad = [
        view().connect_domains(["https://api.example.com/v1"]),
        view().connect_domains(["http://api.example.com"]),
        view().frame_domains(["https://*.example.com"]),
        view().base_uri_domains(["*"]),
    ];
    for view in bad {
        let error = Server::builder(Counter).tools().view(view).build();
        match error {
            Err(BuildError::View(ViewError::Origin { view, .. })) => assert_eq!(view, VIEW),
            other => panic!("{other:?}"),
        }
    }
    let local = view().connect_domains(["http://localhost:5173"]);
    assert!(Server::builder(Counter).tools().view(local).build().is_ok());
}

#[test]
fn a_view_must_be_a_ui_uri_and_served_once() {
    let error = Server::builder(Counter)
        .tools()
        .view(view())
        .view(View::new("https://example.com/view.html", HTML))
        .build();
    assert!(
        matches!(error, Err(BuildError::View(ViewError::NotUiUri(_)))),
        "{error:?}"
    );
    let error = Server::builder(Counter)
        .tools()
        .view(view())
        .view(view())
        .build();
    assert!(
        matches!(&error, Err(BuildError::View(ViewError::Duplicate(uri))) if uri == VIEW),
        "{error:?}"
    );
}
