use mcp_server::tool::{ToolHandler, ToolSet};
use mcp_server::{tool, tools};

struct Notes;

#[tools]
impl Notes {
    /// Writes a note.
    #[tool(scopes = ["notes:write", "notes:read"])]
    fn write(&self) -> String {
        String::new()
    }

    /// Reads a note; the list form of the key works too.
    #[tool(read_only, scopes("notes:read"))]
    fn read(&self) -> String {
        String::new()
    }

    /// Needs nothing.
    #[tool]
    fn ping(&self) -> String {
        String::new()
    }
}

/// Any printable ASCII but space, quote and backslash is a scope character.
#[tool(scopes = ["https://api.example.com/notes.write", "a!#$%&'()*+,-./:;<=>?@[]^_`{|}~"])]
fn odd() -> String {
    String::new()
}

mcp_server::tool_set! {
    /// A set of free functions keeps their scopes.
    struct Free { odd }
}

fn main() {
    assert_eq!(Notes::scopes("write"), ["notes:write", "notes:read"]);
    assert_eq!(Notes::scopes("read"), ["notes:read"]);
    assert!(Notes::scopes("ping").is_empty());
    assert!(Notes::scopes("unknown").is_empty());
    let handler: &dyn ToolHandler<()> = &odd {};
    assert_eq!(handler.scopes().len(), 2);
    assert_eq!(Free::scopes("odd").len(), 2);
}
