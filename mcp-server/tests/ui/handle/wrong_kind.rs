use std::time::Duration;

use mcp_server::handle::{Handle, HandleKind};

enum Note {}
mcp_server::handle_kind!(Note, prefix = "note", ttl_secs = 60);

enum Session {}
impl HandleKind for Session {
    const PREFIX: &'static str = "sess";
    const TTL: Duration = Duration::from_secs(1800);
}

fn end_session(_session: Handle<Session>) {}

fn main() {
    let note = Handle::<Note>::mint().expect("random source");
    end_session(note);
}
