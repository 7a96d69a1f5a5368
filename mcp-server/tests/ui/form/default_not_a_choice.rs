use mcp_server::ElicitForm;

/// Colour?
#[derive(ElicitForm)]
struct Colour {
    #[form(choices("red", "green"), default = "blue")]
    colour: String,
}

fn main() {}
