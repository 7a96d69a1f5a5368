//! Unions: enums that decode by discriminating fields.

use std::collections::HashMap;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::{ident, ty_tokens, Result};
use crate::ir::{ConstValue, Shape, Ty, Union};

fn shape_tokens(shape: &Shape) -> TokenStream {
    let kinds = Literal::u8_unsuffixed(shape.kinds);
    let required = &shape.required;
    let known = &shape.known;
    let consts = shape.consts.iter().map(|(key, value)| {
        let value = match value {
            ConstValue::Str(s) => quote!(__private::Const::Str(#s)),
            ConstValue::Int(i) => {
                let lit = Literal::i64_unsuffixed(*i);
                quote!(__private::Const::Int(#lit))
            }
            ConstValue::Bool(b) => quote!(__private::Const::Bool(#b)),
        };
        quote!((#key, #value))
    });
    let typed = shape.typed.iter().map(|(key, kinds)| {
        let kinds = Literal::u8_unsuffixed(*kinds);
        quote!((#key, #kinds))
    });
    let closed = shape.closed;
    quote! {
        __private::Shape {
            kinds: #kinds,
            required: &[#(#required),*],
            consts: &[#(#consts),*],
            known: &[#(#known),*],
            typed: &[#(#typed),*],
            closed: #closed,
        }
    }
}

pub(super) fn union(
    raw_name: &str,
    name: &Ident,
    docs: TokenStream,
    u: &Union,
    untrusted: bool,
) -> Result<TokenStream> {
    let mut decls = Vec::new();
    let mut names = Vec::new();
    let mut decoders = Vec::new();
    let mut froms = Vec::new();
    let mut shapes = Vec::new();
    let mut member_names = Vec::new();
    let mut payload_count: HashMap<String, usize> = HashMap::new();
    for v in &u.variants {
        *payload_count
            .entry(ty_tokens(&v.ty)?.to_string())
            .or_default() += 1;
    }
    for (index, v) in u.variants.iter().enumerate() {
        let variant = ident(&v.name)?;
        let inner = ty_tokens(&v.ty)?;
        let payload = if v.boxed {
            quote!(::std::boxed::Box<#inner>)
        } else {
            inner.clone()
        };
        let text = match &v.ty {
            Ty::Named(n) => format!("A [`{n}`]."),
            _ => format!("A `{}` member.", v.schema_name),
        };
        let text = super::doc(&text, untrusted);
        decls.push(quote!(#text #variant(#payload),));
        let schema_name = &v.schema_name;
        names.push(quote!(Self::#variant(_) => #schema_name,));
        member_names.push(schema_name.clone());
        let index = Literal::usize_unsuffixed(index);
        let wrap = if v.boxed {
            quote!(|v| Self::#variant(::std::boxed::Box::new(v)))
        } else {
            quote!(Self::#variant)
        };
        decoders.push(
            quote!(#index => <#inner as ::serde::Deserialize>::deserialize(&value).map(#wrap),),
        );
        let variant_shapes = v.shapes.iter().map(shape_tokens);
        shapes.push(quote!(&[#(#variant_shapes),*]));
        if matches!(v.ty, Ty::Named(_)) && payload_count.get(&inner.to_string()) == Some(&1) {
            let value = if v.boxed {
                quote!(::std::boxed::Box::new(value))
            } else {
                quote!(value)
            };
            froms.push(quote! {
                impl ::core::convert::From<#inner> for #name {
                    fn from(value: #inner) -> Self { Self::#variant(#value) }
                }
            });
        }
    }
    // Scalar unions (ids, tokens) are map keys: give them Hash too.
    let hash = u
        .variants
        .iter()
        .all(|v| matches!(v.ty, Ty::Str | Ty::Int | Ty::Bool))
        .then(|| quote!(Hash,));
    let scalar = scalar_visitor(name, u)?;
    let tagged = match scalar {
        Some(_) => None,
        None => tagged(raw_name, name, u)?,
    };
    let (decode, shapes_const) = if scalar.is_some() || tagged.is_some() {
        (
            quote!(<Self as ::serde::Deserialize>::deserialize(value)),
            None,
        )
    } else {
        (
            quote! {
                // Each candidate reads the value in place: no copy of it is
                // made for a member that may not fit.
                let order = __private::rank(&value, Self::__SHAPES);
                let mut first_error = ::core::option::Option::None;
                for index in order {
                    let decoded = match index {
                        #(#decoders)*
                        _ => continue,
                    };
                    match decoded {
                        ::core::result::Result::Ok(decoded) => return ::core::result::Result::Ok(decoded),
                        ::core::result::Result::Err(error) => {
                            first_error.get_or_insert(error);
                        }
                    }
                }
                ::core::result::Result::Err(match first_error {
                    ::core::option::Option::Some(error) => error,
                    ::core::option::Option::None => __private::no_match(#raw_name, ::core::option::Option::None, &value, Self::__MEMBERS),
                })
            },
            Some(quote!(const __SHAPES: &'static [&'static [__private::Shape]] = &[#(#shapes),*];)),
        )
    };
    let deserialize = scalar.or(tagged).unwrap_or_else(|| {
        quote! {
            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                    Self::from_json(value).map_err(<D::Error as ::serde::de::Error>::custom)
                }
            }
        }
    });
    Ok(quote! {
        #docs
        #[derive(Clone, Debug, PartialEq, Eq, #hash ::serde::Serialize)]
        #[serde(untagged)]
        #[allow(clippy::large_enum_variant, clippy::enum_variant_names)]
        pub enum #name { #(#decls)* }

        impl #name {
            #shapes_const
            const __MEMBERS: &'static [&'static str] = &[#(#member_names),*];

            /// The schema name of the member this value holds.
            pub fn type_name(&self) -> &'static str {
                match self { #(#names)* }
            }

            /// Decodes a JSON value, choosing the member by the fields that tell
            /// the members apart rather than by trying them in order.
            ///
            /// # Errors
            /// When no member accepts the value; the error names the fields
            /// that did not fit.
            // Inline: compiled only where it is used, not into every build
            // of the types.
            #[inline]
            pub fn from_json(value: ::serde_json::Value) -> ::core::result::Result<Self, ::serde_json::Error> {
                #decode
            }
        }

        #deserialize

        #(#froms)*
    })
}

/// For a union told apart by one string constant (`method`, `type`), a
/// decoder that reads the object once: up to the tag, then the chosen
/// member reads the rest (see `__private::TaggedVisitor`). Other unions
/// rank their members over a `Value`.
fn tagged(raw_name: &str, name: &Ident, u: &Union) -> Result<Option<TokenStream>> {
    let Some(tag) = &u.tag else {
        return Ok(None);
    };
    let mut arms = Vec::new();
    for v in &u.variants {
        let variant = ident(&v.name)?;
        let inner = ty_tokens(&v.ty)?;
        let wrap = if v.boxed {
            quote!(|v| Self::#variant(::std::boxed::Box::new(v)))
        } else {
            quote!(Self::#variant)
        };
        for shape in &v.shapes {
            match shape.consts.iter().find(|(k, _)| k == tag) {
                Some((_, ConstValue::Str(value))) => {
                    arms.push(quote!(#value => <#inner as ::serde::Deserialize>::deserialize(map).map(#wrap),));
                }
                _ => return Ok(None),
            }
        }
    }
    Ok(Some(quote! {
        impl<'de> __private::Tagged<'de> for #name {
            const UNION: &'static str = #raw_name;
            const TAG: &'static str = #tag;
            const MEMBERS: &'static [&'static str] = Self::__MEMBERS;
            fn member<__A: ::serde::de::MapAccess<'de>>(tag: &str, map: __private::Replay<__A>) -> ::core::option::Option<::core::result::Result<Self, __A::Error>> {
                let map = ::serde::de::value::MapAccessDeserializer::new(map);
                ::core::option::Option::Some(match tag {
                    #(#arms)*
                    _ => return ::core::option::Option::None,
                })
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                deserializer.deserialize_any(__private::TaggedVisitor(::core::marker::PhantomData))
            }
        }
    }))
}

/// A union of distinct scalar kinds (string, integer, number, boolean), such
/// as a request id, decodes straight from the token with a visitor: no
/// buffering, no ranking.
fn scalar_visitor(name: &Ident, u: &Union) -> Result<Option<TokenStream>> {
    let mut seen = Vec::new();
    for v in &u.variants {
        if !matches!(v.ty, Ty::Str | Ty::Int | Ty::Num | Ty::Bool)
            || v.boxed
            || seen.contains(&&v.ty)
        {
            return Ok(None);
        }
        seen.push(&v.ty);
    }
    let variant = |ty: &Ty| -> Result<Option<Ident>> {
        u.variants
            .iter()
            .find(|v| &v.ty == ty)
            .map(|v| ident(&v.name))
            .transpose()
    };
    let mut methods = Vec::new();
    if let Some(v) = variant(&Ty::Str)? {
        methods.push(quote! {
            fn visit_str<E: ::serde::de::Error>(self, value: &str) -> ::core::result::Result<#name, E> {
                ::core::result::Result::Ok(#name::#v(::std::string::ToString::to_string(value)))
            }
            fn visit_string<E: ::serde::de::Error>(self, value: ::std::string::String) -> ::core::result::Result<#name, E> {
                ::core::result::Result::Ok(#name::#v(value))
            }
        });
    }
    if let Some(v) = variant(&Ty::Bool)? {
        methods.push(quote! {
            fn visit_bool<E: ::serde::de::Error>(self, value: bool) -> ::core::result::Result<#name, E> {
                ::core::result::Result::Ok(#name::#v(value))
            }
        });
    }
    let int = variant(&Ty::Int)?;
    let num = variant(&Ty::Num)?;
    if let Some(v) = &int {
        methods.push(quote! {
            fn visit_i64<E: ::serde::de::Error>(self, value: i64) -> ::core::result::Result<#name, E> {
                ::core::result::Result::Ok(#name::#v(value))
            }
            fn visit_u64<E: ::serde::de::Error>(self, value: u64) -> ::core::result::Result<#name, E> {
                match i64::try_from(value) {
                    ::core::result::Result::Ok(value) => ::core::result::Result::Ok(#name::#v(value)),
                    ::core::result::Result::Err(_) => ::core::result::Result::Err(E::invalid_value(::serde::de::Unexpected::Unsigned(value), &self)),
                }
            }
        });
    } else if let Some(v) = &num {
        methods.push(quote! {
            fn visit_i64<E: ::serde::de::Error>(self, value: i64) -> ::core::result::Result<#name, E> {
                ::core::result::Result::Ok(#name::#v(::serde_json::Number::from(value)))
            }
            fn visit_u64<E: ::serde::de::Error>(self, value: u64) -> ::core::result::Result<#name, E> {
                ::core::result::Result::Ok(#name::#v(::serde_json::Number::from(value)))
            }
        });
    }
    if let Some(v) = &num {
        methods.push(quote! {
            fn visit_f64<E: ::serde::de::Error>(self, value: f64) -> ::core::result::Result<#name, E> {
                match ::serde_json::Number::from_f64(value) {
                    ::core::option::Option::Some(n) => ::core::result::Result::Ok(#name::#v(n)),
                    ::core::option::Option::None => ::core::result::Result::Err(E::invalid_value(::serde::de::Unexpected::Float(value), &self)),
                }
            }
        });
    }
    let kinds: Vec<&str> = u
        .variants
        .iter()
        .map(|v| match v.ty {
            Ty::Str => "a string",
            Ty::Int => "an integer",
            Ty::Num => "a number",
            _ => "a boolean",
        })
        .collect();
    let expecting = format!("a `{name}` ({})", kinds.join(" or "));
    Ok(Some(quote! {
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                struct __Visitor;
                impl<'de> ::serde::de::Visitor<'de> for __Visitor {
                    type Value = #name;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(#expecting)
                    }
                    #(#methods)*
                }
                deserializer.deserialize_any(__Visitor)
            }
        }
    }))
}
