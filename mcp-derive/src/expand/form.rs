//! `#[derive(ElicitForm)]`: on a struct, the `ElicitForm` impl (the
//! `requestedSchema` and decoding of an answer); on an enum of unit
//! variants, `FormChoice` and `FormField`, so the enum can be a field.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident, Type};

use crate::internals::ctxt::Ctxt;
use crate::internals::form_ast::{DefaultValue, Field, Form, Spec, Variant};

pub(crate) fn expand_derive(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut cx = Ctxt::new();
    let form = Form::from_syn(&mut cx, &input);
    let ident = &input.ident;
    match (form, cx.check()) {
        (Some(Form::Struct { message, fields }), Ok(())) => form_impl(ident, message, &fields),
        (Some(Form::Choices(variants)), Ok(())) => choice_impl(ident, &variants),
        (form, result) => {
            let errors = result
                .err()
                .map(|e| e.to_compile_error())
                .unwrap_or_default();
            let stub = stub(&input, form.as_ref());
            quote!(#errors #stub)
        }
    }
}

/// Impls whose bodies never run, so that code using the type is not
/// reported again while the derive has errors.
fn stub(input: &DeriveInput, form: Option<&Form>) -> TokenStream {
    let (generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let ident = &input.ident;
    let e = quote!(::mcp_server::elicit);
    let p = quote!(::mcp_server::__private);
    match form {
        Some(Form::Choices(_)) => quote! {
            const _: () = {
                impl #generics #e::FormChoice for #ident #ty_generics #where_clause {
                    fn choices() -> ::std::vec::Vec<#e::Choice> { ::core::unreachable!() }
                    fn from_choice(_: &str) -> ::core::option::Option<Self> { ::core::unreachable!() }
                }
                impl #generics #e::FormField for #ident #ty_generics #where_clause {
                    fn schema(_: &#e::FieldSpec) -> #p::mcp_types::v2026_07_28::PrimitiveSchemaDefinition { ::core::unreachable!() }
                    fn decode(
                        _: ::core::option::Option<&#p::mcp_types::v2026_07_28::ElicitResultContentValue>,
                        _: &#e::FieldSpec,
                    ) -> ::core::result::Result<Self, ::std::string::String> { ::core::unreachable!() }
                }
            };
        },
        _ => quote! {
            const _: () = {
                impl #generics #e::ElicitForm for #ident #ty_generics #where_clause {
                    fn requested_schema() -> #p::mcp_types::v2026_07_28::ElicitRequestFormParamsRequestedSchema {
                        ::core::unreachable!()
                    }
                    fn from_content(
                        _: &::std::collections::BTreeMap<::std::string::String, #p::mcp_types::v2026_07_28::ElicitResultContentValue>,
                    ) -> ::core::result::Result<Self, #e::FormError> {
                        ::core::unreachable!()
                    }
                }
            };
        },
    }
}

fn some_str(value: Option<&String>) -> TokenStream {
    match value {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// A float as tokens; a negative value is a `-` and a literal.
fn float(value: f64) -> TokenStream {
    let lit = proc_macro2::Literal::f64_suffixed(value.abs());
    if value.is_sign_negative() {
        quote!(-#lit)
    } else {
        quote!(#lit)
    }
}

/// The `FieldSpec` expression of a field.
fn spec(spec: &Spec) -> TokenStream {
    let e = quote!(::mcp_server::elicit);
    let name = &spec.name;
    let mut out = quote!(#e::FieldSpec::new(#name));
    if let Some(title) = &spec.title {
        out.extend(quote!(.title(#title)));
    }
    if let Some(description) = &spec.description {
        out.extend(quote!(.description(#description)));
    }
    if let Some(default) = &spec.default {
        let value = match default {
            DefaultValue::Str(s) => quote!(#e::FieldDefault::Str(#s)),
            DefaultValue::Bool(b) => quote!(#e::FieldDefault::Bool(#b)),
            DefaultValue::Float(f) => {
                let f = float(*f);
                quote!(#e::FieldDefault::Float(#f))
            }
            DefaultValue::Int(i) => {
                let lit = proc_macro2::Literal::i64_suffixed(i.unsigned_abs() as i64);
                let i = if *i < 0 { quote!(-#lit) } else { quote!(#lit) };
                quote!(#e::FieldDefault::Int(#i))
            }
        };
        out.extend(quote!(.default(#value)));
    }
    if let Some(format) = &spec.format {
        out.extend(quote!(.format(#format)));
    }
    if let Some(min) = spec.min {
        let min = float(min);
        out.extend(quote!(.min(#min)));
    }
    if let Some(max) = spec.max {
        let max = float(max);
        out.extend(quote!(.max(#max)));
    }
    if let Some(n) = spec.min_length {
        out.extend(quote!(.min_length(#n)));
    }
    if let Some(n) = spec.max_length {
        out.extend(quote!(.max_length(#n)));
    }
    if !spec.choices.is_empty() {
        let choices = &spec.choices;
        out.extend(quote!(.choices(&[#(#choices),*])));
    }
    out
}

/// The handle of a field type: the one place that requires `FormField`.
/// Spanned on the type, and identical wherever it is used, so that a type
/// that cannot be a field is reported once, there.
fn field_handle(ty: &Type) -> TokenStream {
    quote_spanned! {ty.span()=> ::mcp_server::__private::elicit::form_field::<#ty>() }
}

fn form_impl(ident: &Ident, message: Option<String>, fields: &[Field]) -> TokenStream {
    let e = quote!(::mcp_server::elicit);
    let p = quote!(::mcp_server::__private);
    let form = Ident::new("__form", Span::mixed_site());
    let decoder = Ident::new("__decoder", Span::mixed_site());
    let content = Ident::new("__content", Span::mixed_site());
    let message = some_str(message.as_ref());
    let specs: Vec<TokenStream> = fields.iter().map(|f| spec(&f.spec)).collect();
    let handles: Vec<TokenStream> = fields.iter().map(|f| field_handle(&f.ty)).collect();
    let temps: Vec<Ident> = (0..fields.len())
        .map(|i| Ident::new(&format!("__field{i}"), Span::mixed_site()))
        .collect();
    let idents: Vec<&Ident> = fields.iter().map(|f| &f.ident).collect();
    let construct = if fields.is_empty() {
        quote! {
            let _ = #content;
            ::core::result::Result::Ok(Self {})
        }
    } else {
        quote! {
            let mut #decoder = #e::FormDecoder::new(#content);
            #(let #temps = #decoder.field_with(&#specs, #handles);)*
            let (#(::core::option::Option::Some(#temps),)*) = (#(#temps,)*) else {
                return ::core::result::Result::Err(#decoder.into_error());
            };
            ::core::result::Result::Ok(Self { #(#idents: #temps),* })
        }
    };
    quote! {
        const _: () = {
            impl #e::ElicitForm for #ident {
                fn message() -> ::core::option::Option<&'static str> {
                    #message
                }

                fn requested_schema() -> #p::mcp_types::v2026_07_28::ElicitRequestFormParamsRequestedSchema {
                    #[allow(unused_mut)]
                    let mut #form = #e::FormSchema::new();
                    #(#form.field_with(&#specs, #handles);)*
                    #form.finish()
                }

                fn from_content(
                    #content: &::std::collections::BTreeMap<::std::string::String, #p::mcp_types::v2026_07_28::ElicitResultContentValue>,
                ) -> ::core::result::Result<Self, #e::FormError> {
                    #construct
                }
            }
        };
    }
}

fn choice_impl(ident: &Ident, variants: &[Variant]) -> TokenStream {
    let e = quote!(::mcp_server::elicit);
    let p = quote!(::mcp_server::__private);
    let value = Ident::new("__value", Span::mixed_site());
    let spec = Ident::new("__spec", Span::mixed_site());
    let choices = variants.iter().map(|v| {
        let wire = &v.value;
        let title = some_str(v.title.as_ref());
        quote!(#e::Choice { value: #wire, title: #title })
    });
    let arms = variants.iter().map(|v| {
        let wire = &v.value;
        let variant = &v.ident;
        quote!(#wire => ::core::option::Option::Some(Self::#variant),)
    });
    quote! {
        const _: () = {
            impl #e::FormChoice for #ident {
                fn choices() -> ::std::vec::Vec<#e::Choice> {
                    ::std::vec![#(#choices),*]
                }

                fn from_choice(#value: &str) -> ::core::option::Option<Self> {
                    match #value {
                        #(#arms)*
                        _ => ::core::option::Option::None,
                    }
                }
            }

            impl #e::FormField for #ident {
                fn schema(#spec: &#e::FieldSpec) -> #p::mcp_types::v2026_07_28::PrimitiveSchemaDefinition {
                    #e::choice_schema::<Self>(#spec)
                }

                fn decode(
                    #value: ::core::option::Option<&#p::mcp_types::v2026_07_28::ElicitResultContentValue>,
                    _: &#e::FieldSpec,
                ) -> ::core::result::Result<Self, ::std::string::String> {
                    #e::choice_decode::<Self>(#value)
                }
            }
        };
    }
}
