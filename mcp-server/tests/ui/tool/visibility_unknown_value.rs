use mcp_server::tool;

/// `user` is not one of `model` and `app`.
#[tool(ui = "ui://app/view.html", visibility = ["model", "user"])]
fn show() -> String {
    String::new()
}

fn main() {}
