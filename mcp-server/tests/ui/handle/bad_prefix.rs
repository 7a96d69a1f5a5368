use mcp_server::handle::Handle;

enum Note {}
mcp_server::handle_kind!(Note, prefix = "Note-v2", ttl_secs = 60);

fn main() {
    let _ = Handle::<Note>::mint();
}
