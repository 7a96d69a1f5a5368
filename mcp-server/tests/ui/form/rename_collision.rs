use mcp_server::ElicitForm;

/// Names?
#[derive(ElicitForm)]
struct Names {
    first: String,
    #[form(rename = "first")]
    second: String,
}

fn main() {}
