use mcp_server::resource;

/// Template variables name resource parameters; `#[arg]` is for prompts.
#[resource("notes://{id}")]
fn note(#[arg(name = "id")] identifier: String) -> String {
    identifier
}

fn main() {}
