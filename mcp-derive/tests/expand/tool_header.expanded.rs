/// Lists the machines of a region.
fn machines(region: String, limit: Option<u32>) -> Vec<ContentBlock> {
    list(&region, limit)
}
/// The `machines` tool: the handler `#[tool]` made from the function of the same name.
#[allow(non_camel_case_types, dead_code)]
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
struct machines {}
impl machines {
    /// The tool's name in `tools/list` and `tools/call`.
    pub const NAME: &'static str = "machines";
}
const _: () = {
    impl<
        __S: ?::core::marker::Sized + ::core::marker::Sync,
    > ::mcp_server::tool::ToolHandler<__S> for machines {
        fn definition(&self) -> ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
            {
                #[allow(unused_mut)]
                let mut __schema = ::mcp_server::__private::tool::InputSchema::new();
                __schema
                    .param(
                        "region",
                        ::mcp_server::__private::tool::argument::<String>(),
                        true,
                        ::core::option::Option::None,
                        ::core::option::Option::Some("Region"),
                    );
                __schema
                    .param(
                        "limit",
                        ::mcp_server::__private::tool::argument::<Option<u32>>(),
                        false,
                        ::core::option::Option::None,
                        ::core::option::Option::Some("Limit"),
                    );
                ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
                    meta: ::core::option::Option::None,
                    annotations: ::core::option::Option::None,
                    description: ::core::option::Option::Some(
                        ::std::string::String::from("Lists the machines of a region."),
                    ),
                    icons: ::core::option::Option::None,
                    input_schema: __schema.finish(),
                    name: ::std::string::String::from("machines"),
                    output_schema: {
                        #[allow(unused_imports)]
                        use ::mcp_server::__private::tool::{
                            ViaIntoToolResult as _, ViaJson as _,
                        };
                        (&&::mcp_server::__private::tool::Kind::<
                            Vec<ContentBlock>,
                        >::new())
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
                let __arg0 = __args
                    .take(
                        "region",
                        true,
                        ::mcp_server::__private::tool::argument::<String>(),
                    );
                let __arg1 = __args
                    .take(
                        "limit",
                        false,
                        ::mcp_server::__private::tool::argument::<Option<u32>>(),
                    );
                if let ::core::option::Option::Some(__failure) = __args.finish() {
                    return __failure;
                }
                let (
                    ::core::option::Option::Some(region),
                    ::core::option::Option::Some(limit),
                ) = (__arg0, __arg1) else {
                    return ::mcp_server::__private::tool::lost_argument();
                };
                let __ret = machines(region, limit);
                {
                    #[allow(unused_imports)]
                    use ::mcp_server::__private::tool::{
                        ViaIntoToolResult as _, ViaJson as _,
                    };
                    (&&::mcp_server::__private::tool::Kind::<Vec<ContentBlock>>::new())
                        .__tool_kind()
                        .converter()
                }
                    .convert(__ret)
            })
        }
    }
};
