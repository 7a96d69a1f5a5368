use mcp_server::tool::{ToolError, ToolSet};
use mcp_server::{tool, Context};

/// Adds two numbers.
#[tool]
pub fn add(a: i64, b: Option<i64>) -> i64 {
    a + b.unwrap_or(0)
}

/// Waits, then answers.
#[tool]
async fn later(cx: &Context, mut text: String) -> Result<String, ToolError> {
    text.push_str(cx.method());
    Ok(text)
}

/// A raw identifier gives its plain name.
#[tool]
fn r#type(r#in: String) -> Result<Vec<String>, std::io::Error> {
    Ok(vec![r#in])
}

mod nested {
    use mcp_server::tool;

    /// A tool in another module.
    #[tool(name = "nested.ping")]
    pub(crate) fn ping() -> &'static str {
        "pong"
    }
}

mcp_server::tool_set! {
    /// Every free tool above.
    pub struct Free { add, later, r#type, nested::ping }
}

fn main() {
    assert_eq!(Free::tools().len(), 4);
    assert_eq!(r#type::NAME, "type");
    assert_eq!(add(1, None), 1);
}
