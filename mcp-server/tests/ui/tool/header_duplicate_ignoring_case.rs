use mcp_server::tool;

#[tool]
fn route(#[header("Region")] region: String, #[header("region")] fallback: String) -> String {
    region + &fallback
}

fn main() {}
