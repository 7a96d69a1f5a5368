//! What `#[prompts]` and `#[resources]` share: reading the `impl` block,
//! finding the methods marked with the item attribute (`#[prompt]`,
//! `#[resource]`), and the header of the set implementation.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, ImplItem, ImplItemFn, ItemImpl};

use super::ctxt::Ctxt;
use super::prompt_resource_attr::{self as attr, Symbol};
use super::prompt_resource_sig as sig;

/// The macros of one kind: the group attribute and the item attribute.
#[derive(Clone, Copy)]
pub(crate) struct Names {
    /// `prompts` or `resources`.
    pub(crate) group: Symbol,
    /// `prompt` or `resource`.
    pub(crate) marker: Symbol,
}

/// One marked method: what the reader made of it, and the `#[cfg]`s to
/// repeat on the generated code that refers to it.
pub(crate) struct Marked<T> {
    pub(crate) item: T,
    pub(crate) cfgs: Vec<Attribute>,
}

/// Parses the block and checks what the group attribute itself is given;
/// `Err` holds the output for something that is not an `impl` block.
pub(crate) fn parse(
    cx: &mut Ctxt,
    names: Names,
    attr: &TokenStream,
    item: TokenStream,
) -> Result<ItemImpl, TokenStream> {
    let Names { group, marker } = names;
    let Ok(block) = syn::parse2::<ItemImpl>(item.clone()) else {
        let error = syn::Error::new(
            Span::call_site(),
            format!("`#[{group}]` can only be used on an `impl` block"),
        )
        .to_compile_error();
        return Err(quote!(#error #item));
    };
    if !attr.is_empty() {
        cx.error_spanned_by(
            attr,
            format!("`#[{group}]` takes no arguments; put the keys on each `#[{marker}(...)]`"),
        );
    }
    if let Some((path, _)) = &block.trait_ {
        cx.error_spanned_by(
            path,
            format!("`#[{group}]` goes on an inherent `impl` block (`impl Server {{ .. }}`), not on a trait implementation"),
        );
    }
    Ok(block)
}

/// Reads every method marked with the item attribute, in source order,
/// with `read(cx, attribute arguments, the marker, the method)`. Each
/// marker is replaced by its inert copy and the parameters lose the
/// attributes Rust would refuse; markers on anything but a method are
/// reported and removed.
pub(crate) fn collect<T>(
    cx: &mut Ctxt,
    names: Names,
    block: &mut ItemImpl,
    mut read: impl FnMut(&mut Ctxt, TokenStream, &Attribute, &ImplItemFn) -> T,
) -> Vec<Marked<T>> {
    let marker = names.marker;
    let mut out = Vec::new();
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else {
            if let Some(attrs) = other_attrs(item) {
                for mark in attr::take(attrs, marker) {
                    cx.error_spanned_by(mark, format!("`#[{marker}]` goes on a method"));
                }
            }
            continue;
        };
        let marks = attr::take(&mut method.attrs, marker);
        let Some(first) = marks.first() else {
            continue;
        };
        for extra in marks.iter().skip(1) {
            cx.error_spanned_by(
                extra,
                format!("duplicate `#[{marker}]` on one method; merge the keys into one"),
            );
        }
        let tokens = attr::attr_tokens(cx, first, marker).unwrap_or_default();
        let item = read(cx, tokens, first, method);
        method.attrs.insert(0, attr::collected(first));
        sig::strip_param_attrs(&mut method.sig);
        out.push(Marked {
            item,
            cfgs: sig::cfg_attrs(&method.attrs),
        });
    }
    out
}

/// The attributes of an `impl` item that is not a method.
fn other_attrs(item: &mut ImplItem) -> Option<&mut Vec<Attribute>> {
    match item {
        ImplItem::Const(c) => Some(&mut c.attrs),
        ImplItem::Type(t) => Some(&mut t.attrs),
        ImplItem::Macro(m) => Some(&mut m.attrs),
        _ => None,
    }
}

/// `impl<..> Trait<Ty> for Ty`, with `Self: Send + Sync` added when the
/// block is generic (the set traits require both).
pub(crate) fn set_header(block: &ItemImpl, set_trait: TokenStream) -> TokenStream {
    let self_ty = &block.self_ty;
    let (impl_generics, _, where_clause) = block.generics.split_for_impl();
    let mut where_clause = where_clause.cloned();
    if !block.generics.params.is_empty() {
        where_clause
            .get_or_insert_with(|| syn::parse_quote!(where))
            .predicates
            .push(syn::parse_quote!(Self: ::core::marker::Send + ::core::marker::Sync));
    }
    quote! {
        impl #impl_generics #set_trait<#self_ty> for #self_ty #where_clause
    }
}

/// The output: the block and its set when nothing was reported; otherwise
/// the errors, the block, and (for an inherent block) the never-run
/// `fallback`, so that code using the set reports nothing more.
pub(crate) fn finish(
    cx: Ctxt,
    block: &ItemImpl,
    set: impl FnOnce() -> TokenStream,
    fallback: impl FnOnce() -> TokenStream,
) -> TokenStream {
    match cx.check() {
        Ok(()) => {
            let set = set();
            quote!(#block #set)
        }
        Err(errors) => {
            let errors = errors.to_compile_error();
            let stub = block.trait_.is_none().then(fallback);
            quote!(#errors #block #stub)
        }
    }
}
