const _: () = {
    impl ::mcp_server::elicit::ElicitForm for Shipping {
        fn message() -> ::core::option::Option<&'static str> {
            ::core::option::Option::Some("Where should we send it?")
        }
        fn requested_schema() -> ::mcp_server::__private::mcp_types::v2026_07_28::ElicitRequestFormParamsRequestedSchema {
            #[allow(unused_mut)]
            let mut __form = ::mcp_server::elicit::FormSchema::new();
            __form
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("fullName")
                        .title("Name")
                        .description("Your full name.")
                        .min_length(1u32),
                    ::mcp_server::__private::elicit::form_field::<String>(),
                );
            __form
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("email").format("email"),
                    ::mcp_server::__private::elicit::form_field::<Option<String>>(),
                );
            __form
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("parcels")
                        .default(::mcp_server::elicit::FieldDefault::Int(1i64))
                        .min(1f64)
                        .max(5f64),
                    ::mcp_server::__private::elicit::form_field::<u8>(),
                );
            __form
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("speed")
                        .default(::mcp_server::elicit::FieldDefault::Str("standard"))
                        .choices(&["standard", "express"]),
                    ::mcp_server::__private::elicit::form_field::<String>(),
                );
            __form
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("size"),
                    ::mcp_server::__private::elicit::form_field::<Size>(),
                );
            __form.finish()
        }
        fn from_content(
            __content: &::std::collections::BTreeMap<
                ::std::string::String,
                ::mcp_server::__private::mcp_types::v2026_07_28::ElicitResultContentValue,
            >,
        ) -> ::core::result::Result<Self, ::mcp_server::elicit::FormError> {
            let mut __decoder = ::mcp_server::elicit::FormDecoder::new(__content);
            let __field0 = __decoder
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("fullName")
                        .title("Name")
                        .description("Your full name.")
                        .min_length(1u32),
                    ::mcp_server::__private::elicit::form_field::<String>(),
                );
            let __field1 = __decoder
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("email").format("email"),
                    ::mcp_server::__private::elicit::form_field::<Option<String>>(),
                );
            let __field2 = __decoder
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("parcels")
                        .default(::mcp_server::elicit::FieldDefault::Int(1i64))
                        .min(1f64)
                        .max(5f64),
                    ::mcp_server::__private::elicit::form_field::<u8>(),
                );
            let __field3 = __decoder
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("speed")
                        .default(::mcp_server::elicit::FieldDefault::Str("standard"))
                        .choices(&["standard", "express"]),
                    ::mcp_server::__private::elicit::form_field::<String>(),
                );
            let __field4 = __decoder
                .field_with(
                    &::mcp_server::elicit::FieldSpec::new("size"),
                    ::mcp_server::__private::elicit::form_field::<Size>(),
                );
            let (
                ::core::option::Option::Some(__field0),
                ::core::option::Option::Some(__field1),
                ::core::option::Option::Some(__field2),
                ::core::option::Option::Some(__field3),
                ::core::option::Option::Some(__field4),
            ) = (__field0, __field1, __field2, __field3, __field4) else {
                return ::core::result::Result::Err(__decoder.into_error());
            };
            ::core::result::Result::Ok(Self {
                full_name: __field0,
                email: __field1,
                parcels: __field2,
                speed: __field3,
                size: __field4,
            })
        }
    }
};
