//! String enums and constants.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::{ident, Result};
use crate::ir::ConstValue;
use crate::naming;
use std::collections::HashSet;

pub(super) fn enumeration(
    name: &Ident,
    docs: TokenStream,
    values: &[String],
    untrusted: bool,
) -> Result<TokenStream> {
    let mut seen = HashSet::new();
    let mut variants = Vec::new();
    for (i, value) in values.iter().enumerate() {
        let mut candidate = naming::camel(value);
        if candidate.is_empty() || !naming::is_ident(&candidate) {
            candidate = format!("V{candidate}");
        }
        if !naming::is_ident(&candidate) {
            candidate = format!("Value{i}");
        }
        while !seen.insert(candidate.clone()) {
            candidate.push('_');
        }
        variants.push((ident(&candidate)?, value));
    }
    let decls = variants.iter().map(|(v, value)| {
        let docs = super::doc(&format!("The value `{value:?}`."), untrusted);
        quote!(#docs #[serde(rename = #value)] #v,)
    });
    let arms = variants
        .iter()
        .map(|(v, value)| quote!(Self::#v => #value,));
    Ok(quote! {
        #docs
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
        pub enum #name { #(#decls)* }
        impl #name {
            /// The value as it appears on the wire.
            pub const fn as_str(self) -> &'static str {
                match self { #(#arms)* }
            }
        }
        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    })
}

pub(super) fn constant(
    name: &Ident,
    docs: TokenStream,
    property: &str,
    value: &ConstValue,
) -> TokenStream {
    let (ty, lit, ser, expect) = match value {
        ConstValue::Str(s) => (
            quote!(&'static str),
            quote!(#s),
            quote!(serialize_str),
            quote!(expect_str),
        ),
        ConstValue::Int(i) => {
            let lit = Literal::i64_unsuffixed(*i);
            (
                quote!(i64),
                quote!(#lit),
                quote!(serialize_i64),
                quote!(expect_i64),
            )
        }
        ConstValue::Bool(b) => (
            quote!(bool),
            quote!(#b),
            quote!(serialize_bool),
            quote!(expect_bool),
        ),
    };
    quote! {
        #docs
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct #name;
        impl #name {
            /// The one value this type stands for.
            pub const VALUE: #ty = #lit;
        }
        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.#ser(Self::VALUE)
            }
        }
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                __private::#expect(deserializer, #property, Self::VALUE).map(|()| Self)
            }
        }
    }
}
