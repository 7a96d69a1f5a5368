//! Every form of `#[prompt]` and `#[prompts]` compiles without warnings.

#![deny(warnings, missing_docs)]

use std::net::IpAddr;

use mcp_server::prompt::{PromptList, PromptSet};
use mcp_server::{prompt, prompt_set, prompts, Context, ErrorObject};

/// Sync, with optional and parsed arguments.
#[prompt(title = "Ping", icons = ["https://example.com/a.png", "data:image/png;base64,AA=="])]
pub fn ping(
    /// Where to.
    host: IpAddr,
    /// How often.
    count: Option<u32>,
    #[arg(name = "dry-run", description = "Only pretend.")] dry_run: Option<bool>,
) -> String {
    format!("ping {host} x{} {dry_run:?}", count.unwrap_or(1))
}

/// Async, with the context and a raw identifier.
#[prompt(name = "kind.describe")]
pub async fn describe(cx: &mcp_server::Context, r#type: String) -> Result<String, ErrorObject> {
    Ok(format!("{} {type}", cx.method()))
}

#[cfg(any())]
#[prompt]
fn never_compiled(x: NoSuchType) -> String {
    x
}

mod nested {
    use mcp_server::prompt;

    /// A private prompt in a module.
    #[prompt]
    pub(crate) fn inner() -> &'static str {
        "inner"
    }
}

/// The server.
pub struct Server {
    /// What it says.
    pub word: String,
}

#[prompts]
impl Server {
    /// Says the word.
    #[prompt]
    pub fn say(&self) -> String {
        self.word.clone()
    }

    /// Says it later.
    #[prompt(title = "Later")]
    pub async fn later(&self, cx: &Context, times: Option<usize>) -> String {
        let _ = cx;
        self.word.repeat(times.unwrap_or(1))
    }

    /// Needs no server.
    #[prompt]
    fn plain(#[arg(title = "Topic")] topic: String) -> String {
        topic
    }

    #[cfg(any())]
    #[prompt]
    fn gone(&self) -> String {
        String::new()
    }

    /// An ordinary method stays as it is.
    pub fn ordinary(&self) -> usize {
        self.word.len()
    }
}

/// A generic server.
pub struct Wrapper<T>(T);

#[prompts]
impl<T> Wrapper<T>
where
    T: std::fmt::Debug + Send + Sync,
{
    /// Shows the value.
    #[prompt]
    fn show(&self) -> String {
        format!("{:?}", self.0)
    }
}

fn main() {
    let set: PromptList<Server> = prompt_set![ping, describe, nested::inner];
    assert_eq!(set.len(), 3);
    let server = Server { word: "hi".into() };
    let names: Vec<String> = server.prompts().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["say", "later", "plain"]);
    assert_eq!(server.ordinary(), 2);
    assert_eq!(Wrapper(1).prompts().len(), 1);
    let _: PromptList<Server> = prompt_set![];
}
