impl Notes {
    /// Writes a note.
    #[tool(__mcp_tools_member)]
    fn write(&self) -> String {
        String::new()
    }
    /// Reads a note.
    #[tool(__mcp_tools_member)]
    fn read(&self) -> String {
        String::new()
    }
}
const _: () = {
    impl ::mcp_server::tool::ToolSet for Notes {
        fn tools() -> ::std::vec::Vec<
            ::mcp_server::__private::mcp_types::v2026_07_28::Tool,
        > {
            ::std::vec![
                { #[allow(unused_mut)] let mut __schema =
                ::mcp_server::__private::tool::InputSchema::new();
                ::mcp_server::__private::mcp_types::v2026_07_28::Tool { meta :
                ::core::option::Option::None, annotations : ::core::option::Option::None,
                description :
                ::core::option::Option::Some(::std::string::String::from("Writes a note.")),
                icons : ::core::option::Option::None, input_schema : __schema.finish(),
                name : ::std::string::String::from("write"), output_schema : {
                #[allow(unused_imports)] use ::mcp_server::__private::tool:: {
                ViaIntoToolResult as _, ViaJson as _ }; (&&
                ::mcp_server::__private::tool::Kind:: < String > ::new()).__tool_kind()
                .converter() } .output_schema(), title : ::core::option::Option::None,
                extra : ::mcp_server::__private::serde_json::Map::new(), } }, {
                #[allow(unused_mut)] let mut __schema =
                ::mcp_server::__private::tool::InputSchema::new();
                ::mcp_server::__private::mcp_types::v2026_07_28::Tool { meta :
                ::core::option::Option::None, annotations :
                ::core::option::Option::Some(::mcp_server::__private::mcp_types::v2026_07_28::ToolAnnotations
                { destructive_hint : ::core::option::Option::None, idempotent_hint :
                ::core::option::Option::None, open_world_hint :
                ::core::option::Option::None, read_only_hint :
                ::core::option::Option::Some(true), title : ::core::option::Option::None,
                extra : ::mcp_server::__private::serde_json::Map::new(), }), description
                :
                ::core::option::Option::Some(::std::string::String::from("Reads a note.")),
                icons : ::core::option::Option::None, input_schema : __schema.finish(),
                name : ::std::string::String::from("read"), output_schema : {
                #[allow(unused_imports)] use ::mcp_server::__private::tool:: {
                ViaIntoToolResult as _, ViaJson as _ }; (&&
                ::mcp_server::__private::tool::Kind:: < String > ::new()).__tool_kind()
                .converter() } .output_schema(), title : ::core::option::Option::None,
                extra : ::mcp_server::__private::serde_json::Map::new(), } }
            ]
        }
        fn scopes(__name: &str) -> &'static [&'static str] {
            match __name {
                "write" => &["notes:write"],
                _ => &[],
            }
        }
        #[allow(clippy::needless_borrow)]
        fn __own_sets() -> ::mcp_server::__private::sets::OwnSets<Self> {
            #[allow(unused_imports)]
            use ::mcp_server::__private::sets::{
                FoundPrompts as _, FoundResources as _, FoundTools as _, Missing as _,
            };
            let __probe = ::mcp_server::__private::sets::Probe::<Self>::new();
            ::mcp_server::__private::sets::OwnSets::new(
                (&&__probe).__tools(),
                (&&__probe).__prompts(),
                (&&__probe).__resources(),
            )
        }
        fn call_tool<'__a>(
            &'__a self,
            __name: &str,
            __cx: &'__a ::mcp_server::Context,
            __arguments: ::mcp_server::__private::serde_json::Map<
                ::std::string::String,
                ::mcp_server::__private::serde_json::Value,
            >,
        ) -> ::core::option::Option<
            ::mcp_server::BoxFuture<
                '__a,
                ::core::result::Result<
                    ::mcp_server::tool::ToolOutput,
                    ::mcp_server::ErrorObject,
                >,
            >,
        > {
            match __name {
                "write" => {
                    ::core::option::Option::Some(
                        ::std::boxed::Box::pin(async move {
                            let mut __args = ::mcp_server::__private::tool::Arguments::new(
                                __arguments,
                            );
                            if let ::core::option::Option::Some(__failure) = __args
                                .finish()
                            {
                                return __failure;
                            }
                            let __ret = Self::write(self);
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
                        }),
                    )
                }
                "read" => {
                    ::core::option::Option::Some(
                        ::std::boxed::Box::pin(async move {
                            let mut __args = ::mcp_server::__private::tool::Arguments::new(
                                __arguments,
                            );
                            if let ::core::option::Option::Some(__failure) = __args
                                .finish()
                            {
                                return __failure;
                            }
                            let __ret = Self::read(self);
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
                        }),
                    )
                }
                _ => {
                    let _ = (__cx, __arguments);
                    ::core::option::Option::None
                }
            }
        }
    }
};
