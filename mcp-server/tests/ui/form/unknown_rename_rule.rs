use mcp_server::ElicitForm;

/// Names?
#[derive(ElicitForm)]
#[form(rename_all = "Title Case")]
struct Names {
    first_name: String,
}

fn main() {}
