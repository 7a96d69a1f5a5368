use mcp_server::ElicitForm;

/// Nickname?
#[derive(ElicitForm)]
struct Nick {
    nickname: Option<Option<String>>,
}

fn main() {}
