use mcp_server::tool;

/// Runs in the background.
#[tool(task = "sometimes")]
async fn report() -> String {
    String::from("done")
}

/// `task` takes a string.
#[tool(task = true)]
async fn summary() -> String {
    String::from("done")
}

fn main() {}
