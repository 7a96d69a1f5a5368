use mcp_server::elicit::Elicit;
use mcp_server::tool;

#[tool]
fn ask(answer: Elicit<String>) -> String {
    format!("{answer:?}")
}

fn main() {}
