use mcp_server::{prompt, prompts, Context};

struct Server;

#[prompts(verbose)]
impl Server {
    /// Many mistakes at once; each is reported.
    #[prompt(name = "", colour = "red", title = "")]
    fn one<T>(
        &mut self,
        (a, b): (String, String),
        cx: &Context,
        cx2: &Context,
        text: &str,
    ) -> String {
        let _ = (a, b, cx, cx2, text);
        String::new()
    }

    /// A clash.
    #[prompt]
    fn two(&self) -> String {
        String::new()
    }

    /// Another.
    #[prompt(name = "two", icon = "ftp://x")]
    fn three(&self) -> String {
        String::new()
    }
}

fn main() {}
