//! Every macro form expands in a module that shadows the prelude names
//! generated code might lean on: the expansions spell out their paths.

#![allow(non_camel_case_types, dead_code)]

mod shadowed {
    pub struct Result;
    pub struct Option;
    pub struct Ok;
    pub struct Err;
    pub struct Some;
    pub struct None;
    pub struct Box;
    pub struct String;
    pub struct Vec;

    use mcp_server::elicit::{Elicit, Elicitation};
    use mcp_server::{tool, tools, Context, ElicitForm};

    /// A choice.
    #[derive(ElicitForm)]
    pub enum Colour {
        Red,
        #[form(title = "Green")]
        Green,
    }

    /// A form.
    #[derive(ElicitForm)]
    pub struct Details {
        /// A name.
        #[form(min_length = 1)]
        pub name: ::std::string::String,
        pub count: ::core::option::Option<u8>,
        pub colour: Colour,
        pub colours: ::std::vec::Vec<Colour>,
        #[form(choices("a", "b"))]
        pub letters: ::std::vec::Vec<::std::string::String>,
    }

    /// A synchronous tool.
    #[tool(read_only, scopes = ["plain:read"])]
    pub fn plain(
        #[header("Name")] name: ::std::string::String,
        count: ::core::option::Option<i64>,
    ) -> ::core::result::Result<::std::vec::Vec<i64>, ::std::string::String> {
        let _ = name;
        ::core::result::Result::Ok(::std::vec![count.unwrap_or(0)])
    }

    /// An asynchronous tool with every special parameter.
    #[tool(name = "special")]
    pub async fn special(
        cx: &Context,
        owned: Context,
        details: Elicit<Details>,
    ) -> ::std::string::String {
        let _ = (cx, owned);
        match details {
            Elicitation::Accept(d) => d.name,
            _ => ::std::string::String::new(),
        }
    }

    /// A server.
    pub struct Server;

    #[tools]
    impl Server {
        /// A method tool.
        #[tool(scopes("method:write"))]
        pub fn method(&self, value: u8) -> u8 {
            value
        }

        /// An async method tool.
        #[tool]
        pub async fn later(&self) {}

        /// An associated tool.
        #[tool]
        pub fn associated() -> &'static str {
            "hi"
        }
    }

    mcp_server::tool_set! {
        /// The free tools.
        pub struct Free { plain, special }
    }
}

#[test]
fn every_form_expands_and_runs() {
    use mcp_server::tool::ToolSet;

    assert_eq!(shadowed::Free::tools().len(), 2);
    assert_eq!(shadowed::Server::tools().len(), 3);
    let cx = mcp_server::Context::default();
    let arguments = serde_json::Map::from_iter([("name".to_owned(), serde_json::json!("x"))]);
    let future = shadowed::Free.call_tool("plain", &cx, arguments);
    assert!(future.is_some());
}
