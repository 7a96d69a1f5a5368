// Untrusted text cannot be used as text until accepted or rendered.
use mcp_host::Untrusted;

fn show(text: &str) {
    println!("{text}");
}

fn use_it(description: Untrusted<String>) {
    show(&description);
}

fn main() {}
