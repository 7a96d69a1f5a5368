/// Deletes a project after the user confirms.
fn delete_project(project: String, confirm: Elicit<Confirm>) -> String {
    match confirm {
        Elicitation::Accept(_) => format!("deleted {project}"),
        _ => String::from("kept"),
    }
}
/// The `delete_project` tool: the handler `#[tool]` made from the function of the same name.
#[allow(non_camel_case_types, dead_code)]
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::fmt::Debug,
    ::core::default::Default
)]
struct delete_project {}
impl delete_project {
    /// The tool's name in `tools/list` and `tools/call`.
    pub const NAME: &'static str = "delete_project";
}
const _: () = {
    impl<
        __S: ?::core::marker::Sized + ::core::marker::Sync,
    > ::mcp_server::tool::ToolHandler<__S> for delete_project {
        fn definition(&self) -> ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
            {
                #[allow(unused_mut)]
                let mut __schema = ::mcp_server::__private::tool::InputSchema::new();
                __schema
                    .param(
                        "project",
                        ::mcp_server::__private::tool::argument::<String>(),
                        true,
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                    );
                ::mcp_server::__private::mcp_types::v2026_07_28::Tool {
                    meta: ::core::option::Option::None,
                    annotations: ::core::option::Option::Some(::mcp_server::__private::mcp_types::v2026_07_28::ToolAnnotations {
                        destructive_hint: ::core::option::Option::Some(true),
                        idempotent_hint: ::core::option::Option::None,
                        open_world_hint: ::core::option::Option::None,
                        read_only_hint: ::core::option::Option::None,
                        title: ::core::option::Option::None,
                        extra: ::mcp_server::__private::serde_json::Map::new(),
                    }),
                    description: ::core::option::Option::Some(
                        ::std::string::String::from(
                            "Deletes a project after the user confirms.",
                        ),
                    ),
                    icons: ::core::option::Option::None,
                    input_schema: __schema.finish(),
                    name: ::std::string::String::from("delete_project"),
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
                        "project",
                        true,
                        ::mcp_server::__private::tool::argument::<String>(),
                    );
                if let ::core::option::Option::Some(__failure) = __args.finish() {
                    return __failure;
                }
                let (::core::option::Option::Some(project),) = (__arg0,) else {
                    return ::mcp_server::__private::tool::lost_argument();
                };
                let mut __round = ::mcp_server::__private::elicit::InputRound::new(__cx);
                let __ask1 = match __round
                    .elicit::<
                        Confirm,
                    >("confirm", ::core::option::Option::Some("Really delete?"))
                {
                    ::core::result::Result::Ok(__answer) => __answer,
                    ::core::result::Result::Err(__error) => {
                        return ::core::result::Result::Err(__error);
                    }
                };
                if let ::core::option::Option::Some(__pause) = ::mcp_server::__private::elicit::pause(
                    __round,
                ) {
                    return __pause;
                }
                let (::core::option::Option::Some(confirm),) = (__ask1,) else {
                    return ::mcp_server::__private::tool::lost_argument();
                };
                let __ret = delete_project(project, confirm);
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
