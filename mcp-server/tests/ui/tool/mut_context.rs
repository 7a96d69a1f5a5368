use mcp_server::{tool, Context};

#[tool]
fn whoami(cx: &mut Context) -> String {
    cx.method().to_owned()
}

fn main() {}
