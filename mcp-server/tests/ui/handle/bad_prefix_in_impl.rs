use std::time::Duration;

use mcp_server::handle::{Handle, HandleKind};

enum Note {}
impl HandleKind for Note {
    const PREFIX: &'static str = "note_v2";
    const TTL: Duration = Duration::from_secs(60);
}

fn main() {
    let _ = Handle::<Note>::mint();
}
