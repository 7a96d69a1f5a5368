use std::collections::HashMap;

use mcp_server::ElicitForm;

/// Labels?
#[derive(ElicitForm)]
struct Labels {
    labels: HashMap<String, String>,
}

fn main() {}
