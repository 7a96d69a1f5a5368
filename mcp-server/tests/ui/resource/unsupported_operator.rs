use mcp_server::resource;

/// `{.ext}` cannot be matched back unambiguously.
#[resource("files:///{name}{.ext}")]
fn file(name: String, ext: String) -> String {
    name + &ext
}

fn main() {}
