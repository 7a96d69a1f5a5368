use mcp_server::ElicitForm;

/// Agree?
#[derive(ElicitForm)]
struct Terms {
    #[form(format = "email")]
    agree: bool,
}

fn main() {}
