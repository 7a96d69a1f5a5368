/// Adds two integers.
pub fn add(a: i64, b: Option<i64>) -> i64 {
    a + b.unwrap_or(0)
}
/// The `add` tool: the handler `#[tool]` made from the function of the same name.
#[allow(non_camel_case_types, dead_code)]
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
pub struct add {}
impl add {
    /// The tool's name in `tools/list` and `tools/call`.
    pub const NAME: &'static str = "add";
}
const _: () = {
    impl<
        __S: ?::core::marker::Sized + ::core::marker::Sync,
    > ::mcp_server::tool::ToolHandler<__S> for add {
        fn definition(&self) -> ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
            {
                #[allow(unused_mut)]
                let mut __schema = ::mcp_server::__private::tool::InputSchema::new();
                __schema
                    .param(
                        "a",
                        ::mcp_server::__private::tool::argument::<i64>(),
                        true,
                        ::core::option::Option::Some("The first term."),
                        ::core::option::Option::None,
                    );
                __schema
                    .param(
                        "b",
                        ::mcp_server::__private::tool::argument::<Option<i64>>(),
                        false,
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                    );
                ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
                    meta: ::core::option::Option::None,
                    annotations: ::core::option::Option::Some(::mcp_server::__private::mcp_types::v2026_07_28::ToolAnnotations {
                        destructive_hint: ::core::option::Option::None,
                        idempotent_hint: ::core::option::Option::Some(true),
                        open_world_hint: ::core::option::Option::None,
                        read_only_hint: ::core::option::Option::Some(true),
                        title: ::core::option::Option::None,
                        extra: ::mcp_server::__private::serde_json::Map::new(),
                    }),
                    description: ::core::option::Option::Some(
                        ::std::string::String::from("Adds two integers."),
                    ),
                    icons: ::core::option::Option::None,
                    input_schema: __schema.finish(),
                    name: ::std::string::String::from("add"),
                    output_schema: {
                        #[allow(unused_imports)]
                        use ::mcp_server::__private::tool::{
                            ViaIntoToolResult as _, ViaJson as _,
                        };
                        (&&::mcp_server::__private::tool::Kind::<i64>::new())
                            .__tool_kind()
                            .converter()
                    }
                        .output_schema(),
                    title: ::core::option::Option::Some(
                        ::std::string::String::from("Add"),
                    ),
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
                    .take("a", true, ::mcp_server::__private::tool::argument::<i64>());
                let __arg1 = __args
                    .take(
                        "b",
                        false,
                        ::mcp_server::__private::tool::argument::<Option<i64>>(),
                    );
                if let ::core::option::Option::Some(__failure) = __args.finish() {
                    return __failure;
                }
                let (::core::option::Option::Some(a), ::core::option::Option::Some(b)) = (
                    __arg0,
                    __arg1,
                ) else {
                    return ::mcp_server::__private::tool::lost_argument();
                };
                let __ret = add(a, b);
                {
                    #[allow(unused_imports)]
                    use ::mcp_server::__private::tool::{
                        ViaIntoToolResult as _, ViaJson as _,
                    };
                    (&&::mcp_server::__private::tool::Kind::<i64>::new())
                        .__tool_kind()
                        .converter()
                }
                    .convert(__ret)
            })
        }
    }
};
