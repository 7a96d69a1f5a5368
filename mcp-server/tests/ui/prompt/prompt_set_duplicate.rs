use mcp_server::prompt::PromptList;
use mcp_server::{prompt, prompt_set};

mod a {
    /// One.
    #[mcp_server::prompt(name = "hello")]
    pub fn hello() -> String {
        "a".into()
    }
}

/// Another with the same name.
#[prompt]
fn hello() -> String {
    "b".into()
}

fn main() {
    let _: PromptList<()> = prompt_set![a::hello, hello];
}
