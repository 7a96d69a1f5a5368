/// Fetches a page.
async fn fetch(cx: &Context, url: String) -> Result<Page, FetchError> {
    download(cx, &url).await
}
/// The `web.fetch` tool: the handler `#[tool]` made from the function of the same name.
#[allow(non_camel_case_types, dead_code)]
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
struct fetch {}
impl fetch {
    /// The tool's name in `tools/list` and `tools/call`.
    pub const NAME: &'static str = "web.fetch";
}
const _: () = {
    impl<
        __S: ?::core::marker::Sized + ::core::marker::Sync,
    > ::mcp_server::tool::ToolHandler<__S> for fetch {
        fn definition(&self) -> ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
            {
                #[allow(unused_mut)]
                let mut __schema = ::mcp_server::__private::tool::InputSchema::new();
                __schema
                    .param(
                        "url",
                        ::mcp_server::__private::tool::argument::<String>(),
                        true,
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                    );
                ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
                    meta: ::core::option::Option::None,
                    annotations: ::core::option::Option::Some(::mcp_server::__private::mcp_types::v2026_07_28::ToolAnnotations {
                        destructive_hint: ::core::option::Option::None,
                        idempotent_hint: ::core::option::Option::None,
                        open_world_hint: ::core::option::Option::Some(true),
                        read_only_hint: ::core::option::Option::None,
                        title: ::core::option::Option::None,
                        extra: ::mcp_server::__private::serde_json::Map::new(),
                    }),
                    description: ::core::option::Option::Some(
                        ::std::string::String::from("Fetches a page."),
                    ),
                    icons: ::core::option::Option::Some(
                        ::std::vec![
                            ::mcp_server::__private::mcp_types::v2026_07_28::Icon {
                            mime_type : ::core::option::Option::None, sizes :
                            ::core::option::Option::None, src :
                            ::std::string::String::from("https://example.com/fetch.svg"),
                            theme : ::core::option::Option::None, extra :
                            ::mcp_server::__private::serde_json::Map::new(), }
                        ],
                    ),
                    input_schema: __schema.finish(),
                    name: ::std::string::String::from("web.fetch"),
                    output_schema: {
                        #[allow(unused_imports)]
                        use ::mcp_server::__private::tool::{
                            ViaIntoToolResult as _, ViaJson as _,
                        };
                        (&&::mcp_server::__private::tool::Kind::<Page>::new())
                            .__tool_kind()
                            .converter()
                    }
                        .output_schema(),
                    title: ::core::option::Option::None,
                    extra: ::mcp_server::__private::serde_json::Map::new(),
                }
            }
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
                let __arg1 = __args
                    .take(
                        "url",
                        true,
                        ::mcp_server::__private::tool::argument::<String>(),
                    );
                if let ::core::option::Option::Some(__failure) = __args.finish() {
                    return __failure;
                }
                let (::core::option::Option::Some(url),) = (__arg1,) else {
                    return ::mcp_server::__private::tool::lost_argument();
                };
                let cx = __cx;
                match fetch(cx, url).await {
                    ::core::result::Result::Ok(__value) => {
                        {
                            #[allow(unused_imports)]
                            use ::mcp_server::__private::tool::{
                                ViaIntoToolResult as _, ViaJson as _,
                            };
                            (&&::mcp_server::__private::tool::Kind::<Page>::new())
                                .__tool_kind()
                                .converter()
                        }
                            .convert(__value)
                    }
                    ::core::result::Result::Err(__error) => {
                        ::mcp_server::__private::tool::tool_error(__error)
                    }
                }
            })
        }
    }
};
