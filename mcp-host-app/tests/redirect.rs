//! `mcp-host servers` shows a followed redirect: the official Python SDK
//! mounted under a Starlette path answers its endpoint with a `307` to the
//! same path with a slash, and the command lists where requests go now.

mod common;

use common::{config_file, host_command, printed};
use serde_json::json;

#[test]
fn servers_shows_where_a_followed_redirect_leads() {
    let (_server, url) = common::pypi::mounted_server();
    assert!(url.ends_with("/api/mcp"), "{url}");
    let config = config_file("redirect-servers", json!({"mounted": {"url": url}}));
    let _config = common::Scratch(config.clone());
    let output = host_command(&config, &["servers"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = printed(&output);
    assert_eq!(
        listed[0]["redirectedTo"],
        json!(format!("{url}/")),
        "{listed}"
    );
}
