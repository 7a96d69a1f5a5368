//! Structs: serde's derive for encoding, and a decoder of our own that puts
//! unknown keys into the `extra` map in the same pass (serde's `flatten`
//! would buffer every object first).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{doc, ident, ty_tokens, Ctx, Result};
use crate::ir::{Field, Struct, Ty};

fn defaultable(ctx: &Ctx<'_>, s: &Struct) -> bool {
    s.fields.iter().all(|f| {
        !f.required
            || f.nullable
            || matches!(&f.ty, Ty::Named(n) if ctx.consts.contains(n.as_str()))
    })
}

/// The Rust type of a field, `Option`s included.
pub(crate) fn field_type(f: &Field) -> Result<TokenStream> {
    let mut ty = ty_tokens(&f.ty)?;
    if f.boxed {
        ty = quote!(::std::boxed::Box<#ty>);
    }
    Ok(match (f.required, f.nullable) {
        (true, false) => ty,
        (true, true) | (false, false) => quote!(::core::option::Option<#ty>),
        (false, true) => quote!(::core::option::Option<::core::option::Option<#ty>>),
    })
}

fn extra_type(ty: &Ty) -> Result<TokenStream> {
    Ok(match ty {
        Ty::Any => ty_tokens(&Ty::Map(Box::new(Ty::Any)))?,
        ty => {
            let ty = ty_tokens(ty)?;
            quote!(::std::collections::BTreeMap<::std::string::String, #ty>)
        }
    })
}

pub(super) fn structure(
    ctx: &Ctx<'_>,
    name: &Ident,
    docs: TokenStream,
    s: &Struct,
) -> Result<TokenStream> {
    let default = defaultable(ctx, s).then(|| quote!(Default,));
    let mut fields = Vec::new();
    for f in &s.fields {
        let field = ident(&f.ident)?;
        let mut text = f
            .description
            .clone()
            .filter(|_| ctx.settings.descriptions)
            .unwrap_or_else(|| format!("Wire name `{}`.", f.wire));
        if let Some(reason) = &f.fallback {
            text.push_str(&format!("\n\nFalls back to `serde_json::Value`: {reason}."));
        }
        let docs = doc(&text, ctx.settings.untrusted);
        let ty = field_type(f)?;
        let mut serde = Vec::new();
        if f.ident != f.wire {
            let wire = &f.wire;
            serde.push(quote!(rename = #wire));
        }
        if !f.required {
            serde.push(quote!(
                skip_serializing_if = "::core::option::Option::is_none"
            ));
        }
        let serde = (!serde.is_empty()).then(|| quote!(#[serde(#(#serde),*)]));
        fields.push(quote!(#docs #serde pub #field: #ty,));
    }
    let extra = match &s.extra {
        None => None,
        Some((field, ty)) => {
            let field = ident(field)?;
            let ty = extra_type(ty)?;
            Some(quote! {
                /// Properties the schema does not name, kept so that a round trip loses nothing.
                #[serde(flatten)]
                pub #field: #ty,
            })
        }
    };
    let deserialize = deserialize(name, s)?;
    Ok(quote! {
        #docs
        #[derive(Clone, Debug, #default PartialEq, Eq, ::serde::Serialize)]
        pub struct #name {
            #(#fields)*
            #extra
        }
        #deserialize
    })
}

/// A map visitor: one slot per declared field, unknown keys into `extra`
/// (or refused when the object is closed), duplicates refused, required
/// fields checked at the end.
fn deserialize(name: &Ident, s: &Struct) -> Result<TokenStream> {
    let mut slots = Vec::new();
    let mut arms = Vec::new();
    let mut build = Vec::new();
    for (i, f) in s.fields.iter().enumerate() {
        let slot = format_ident!("__f{i}");
        let field = ident(&f.ident)?;
        let wire = &f.wire;
        let mut ty = ty_tokens(&f.ty)?;
        if f.boxed {
            ty = quote!(::std::boxed::Box<#ty>);
        }
        let value_ty = if f.nullable {
            quote!(::core::option::Option<#ty>)
        } else {
            ty
        };
        slots.push(quote!(let mut #slot: ::core::option::Option<#value_ty> = ::core::option::Option::None;));
        arms.push(quote! {
            #wire => __private::take(&mut map, &mut #slot, #wire)?,
        });
        build.push(match (f.required, f.nullable) {
            (true, false) => quote! {
                #field: __private::required::<_, __A::Error>(#slot, #wire)?,
            },
            (true, true) => quote!(#field: #slot.flatten(),),
            (false, _) => quote!(#field: #slot,),
        });
    }
    let wires: Vec<&str> = s.fields.iter().map(|f| f.wire.as_str()).collect();
    let (extra_init, other_arm, extra_build) = match &s.extra {
        Some((field, ty)) => {
            let field = ident(field)?;
            let ty = extra_type(ty)?;
            (
                quote!(let mut __extra = <#ty>::new();),
                quote! {
                    _ => {
                        __extra.insert(key.into_owned(), map.next_value()?);
                    }
                },
                quote!(#field: __extra,),
            )
        }
        None => (
            quote!(),
            quote! {
                other => {
                    return ::core::result::Result::Err(<__A::Error as ::serde::de::Error>::unknown_field(other, &[#(#wires),*]));
                }
            },
            quote!(),
        ),
    };
    // A closed object without properties refuses its first key; a loop
    // around that would never loop.
    let read_keys = if s.fields.is_empty() && s.extra.is_none() {
        quote! {
            if let ::core::option::Option::Some(key) = map.next_key::<__private::Key<'de>>()? {
                return ::core::result::Result::Err(<__A::Error as ::serde::de::Error>::unknown_field(key.as_str(), &[]));
            }
        }
    } else {
        quote! {
            while let ::core::option::Option::Some(key) = map.next_key::<__private::Key<'de>>()? {
                match key.as_str() {
                    #(#arms)*
                    #other_arm
                }
            }
        }
    };
    let expecting = format!("a `{name}` object");
    Ok(quote! {
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<__D: ::serde::Deserializer<'de>>(deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                struct __Visitor;
                impl<'de> ::serde::de::Visitor<'de> for __Visitor {
                    type Value = #name;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(#expecting)
                    }
                    fn visit_map<__A: ::serde::de::MapAccess<'de>>(self, mut map: __A) -> ::core::result::Result<#name, __A::Error> {
                        #(#slots)*
                        #extra_init
                        #read_keys
                        ::core::result::Result::Ok(#name {
                            #(#build)*
                            #extra_build
                        })
                    }
                }
                deserializer.deserialize_map(__Visitor)
            }
        }
    })
}
