use mcp_server::tool;

#[tool]
fn echo<T: serde::de::DeserializeOwned + schemars::JsonSchema + serde::Serialize>(value: T) -> T {
    value
}

fn main() {}
