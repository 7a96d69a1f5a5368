use mcp_server::ElicitForm;

/// Name?
#[derive(ElicitForm)]
struct Person {
    #[form(label = "Name")]
    name: String,
}

fn main() {}
