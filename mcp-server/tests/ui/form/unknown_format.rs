use mcp_server::ElicitForm;

/// Contact?
#[derive(ElicitForm)]
struct Contact {
    #[form(format = "phone")]
    phone: String,
}

fn main() {}
