/// Writes a note.
fn write_note(text: String) -> String {
    text
}
/// The `write_note` tool: the handler `#[tool]` made from the function of the same name.
#[allow(non_camel_case_types, dead_code)]
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
struct write_note {}
impl write_note {
    /// The tool's name in `tools/list` and `tools/call`.
    pub const NAME: &'static str = "write_note";
}
const _: () = {
    impl<
        __S: ?::core::marker::Sized + ::core::marker::Sync,
    > ::mcp_server::tool::ToolHandler<__S> for write_note {
        fn definition(&self) -> ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
            {
                #[allow(unused_mut)]
                let mut __schema = ::mcp_server::__private::tool::InputSchema::new();
                __schema
                    .param(
                        "text",
                        ::mcp_server::__private::tool::argument::<String>(),
                        true,
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                    );
                ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
                    meta: ::core::option::Option::None,
                    annotations: ::core::option::Option::None,
                    description: ::core::option::Option::Some(
                        ::std::string::String::from("Writes a note."),
                    ),
                    icons: ::core::option::Option::None,
                    input_schema: __schema.finish(),
                    name: ::std::string::String::from("write_note"),
                    output_schema: {
                        #[allow(unused_imports)]
                        use ::mcp_server::__private::tool::{
                            ViaIntoToolResult as _, ViaJson as _,
                        };
                        (&&::mcp_server::__private::tool::Kind::<String>::new())
                            .__tool_kind()
                            .converter()
                    }
                        .output_schema(),
                    title: ::core::option::Option::None,
                    extra: ::mcp_server::__private::serde_json::Map::new(),
                }
            }
        }
        fn scopes(&self) -> &'static [&'static str] {
            &["notes:write", "notes:read"]
        }
        fn call<'__a>(
            &'__a self,
            _: &'__a __S,
            __cx: &'__a ::mcp_server::Context,
            __arguments: ::mcp_server::__private::serde_json::Map<
                ::std::string::String,
                ::mcp_server::__private::serde_json::Value,
            >,
        ) -> ::mcp_server::BoxFuture<
            '__a,
            ::core::result::Result<
                ::mcp_server::tool::ToolOutput,
                ::mcp_server::ErrorObject,
            >,
        > {
            ::std::boxed::Box::pin(async move {
                let mut __args = ::mcp_server::__private::tool::Arguments::new(
                    __arguments,
                );
                let __arg0 = __args
                    .take(
                        "text",
                        true,
                        ::mcp_server::__private::tool::argument::<String>(),
                    );
                if let ::core::option::Option::Some(__failure) = __args.finish() {
                    return __failure;
                }
                let (::core::option::Option::Some(text),) = (__arg0,) else {
                    return ::mcp_server::__private::tool::lost_argument();
                };
                let __ret = write_note(text);
                {
                    #[allow(unused_imports)]
                    use ::mcp_server::__private::tool::{
                        ViaIntoToolResult as _, ViaJson as _,
                    };
                    (&&::mcp_server::__private::tool::Kind::<String>::new())
                        .__tool_kind()
                        .converter()
                }
                    .convert(__ret)
            })
        }
    }
};
