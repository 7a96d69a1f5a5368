use mcp_server::prompt;

/// Spaces are not allowed in prompt names.
#[prompt(name = "code review")]
fn code_review(code: String) -> String {
    code
}

fn main() {}
