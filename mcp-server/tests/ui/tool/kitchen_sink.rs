use mcp_server::elicit::Elicit;
use mcp_server::{tool, tools};

struct Server;

#[tools]
impl Server {
    /// Many mistakes at once; each is reported, once.
    #[tool(
        name = "do it",
        read_only,
        destructive,
        icon = "ftp://example.com/a.png",
        scopes = ["a b", "c", "c"],
        colour = "red"
    )]
    fn busy(
        &mut self,
        #[header("X Y")] a: f64,
        #[header("Dup")] b: String,
        #[header("dup")] c: String,
        (d, e): (i64, i64),
        #[elicit(message = "?")] f: String,
        g: Option<Elicit<String>>,
    ) {
        let _ = (a, b, c, d, e, f, g);
    }

    #[tool(name = "fine")]
    fn first(&self) {}

    #[tool(name = "fine", title = "")]
    fn second(&self) {}
}

fn main() {}
