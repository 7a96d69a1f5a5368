use mcp_server::ElicitForm;

/// Name?
#[derive(ElicitForm)]
struct Person {
    #[form(title = "Name", title = "Full name")]
    name: String,
}

fn main() {}
