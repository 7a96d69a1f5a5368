const _: () = {
    impl ::mcp_server::elicit::FormChoice for Size {
        fn choices() -> ::std::vec::Vec<::mcp_server::elicit::Choice> {
            ::std::vec![
                ::mcp_server::elicit::Choice { value : "small", title :
                ::core::option::Option::Some("Small (up to 2 kg)") },
                ::mcp_server::elicit::Choice { value : "xl", title :
                ::core::option::Option::Some("Extra large") }
            ]
        }
        fn from_choice(__value: &str) -> ::core::option::Option<Self> {
            match __value {
                "small" => ::core::option::Option::Some(Self::Small),
                "xl" => ::core::option::Option::Some(Self::ExtraLarge),
                _ => ::core::option::Option::None,
            }
        }
    }
    impl ::mcp_server::elicit::FormField for Size {
        fn schema(
            __spec: &::mcp_server::elicit::FieldSpec,
        ) -> ::mcp_server::__private::mcp_types::v2026_07_28::PrimitiveSchemaDefinition {
            ::mcp_server::elicit::choice_schema::<Self>(__spec)
        }
        fn decode(
            __value: ::core::option::Option<
                &::mcp_server::__private::mcp_types::v2026_07_28::ElicitResultContentValue,
            >,
            _: &::mcp_server::elicit::FieldSpec,
        ) -> ::core::result::Result<Self, ::std::string::String> {
            ::mcp_server::elicit::choice_decode::<Self>(__value)
        }
    }
};
