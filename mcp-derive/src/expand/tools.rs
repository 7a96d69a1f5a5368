//! `#[tools]` on an inherent `impl` block: the methods marked `#[tool]`
//! become one `ToolSet` for the block's type, listed in source order.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{ImplItem, Item, ItemImpl};

use super::tool::{
    arguments_ident, call_body, cx_ident, definition, invocation, private, scopes, MEMBER_MARKER,
};
use crate::internals::ctxt::Ctxt;
use crate::internals::tool_ast::{Site, Tool};
use crate::internals::tool_attr::{self, ToolAttrs};
use crate::internals::tool_check;
use crate::internals::tool_symbol::TOOL;

pub(crate) fn expand_attr(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    if !attr.is_empty() {
        cx.error_spanned_by(
            &attr,
            "`#[tools]` takes no arguments; put the keys on each method's `#[tool(...)]`",
        );
    }
    let mut block = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Impl(block)) => block,
        _ => {
            cx.error_spanned_by(
                first_token(&item),
                "`#[tools]` goes on an `impl` block whose methods carry `#[tool]`; on a function, use `#[tool]`",
            );
            let mut out = cx.into_compile_errors();
            out.extend(item);
            return out;
        }
    };
    if let Some((path, _)) = &block.trait_ {
        cx.error_spanned_by(
            path,
            "`#[tools]` goes on an inherent `impl` block (`impl MyServer { ... }`), not on a trait impl",
        );
    }
    let mut invalid = false;
    let tools = collect(&mut cx, &mut block, &mut invalid);
    let has_errors = cx.has_errors() || invalid;
    let errors = cx.into_compile_errors();
    let set = tool_set(&block, &tools, has_errors);
    quote! {
        #errors
        #block
        #set
    }
}

fn first_token(item: &TokenStream) -> TokenStream {
    item.clone().into_iter().take(1).collect()
}

/// Reads the `#[tool]` methods in order, removing the attributes the
/// macro consumes, and reports duplicate names.
fn collect(cx: &mut Ctxt, block: &mut ItemImpl, invalid: &mut bool) -> Vec<Tool> {
    let mut tools: Vec<Tool> = Vec::new();
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else {
            continue;
        };
        let is_tool = |attr: &syn::Attribute| {
            attr.path()
                .segments
                .last()
                .is_some_and(|segment| segment.ident == TOOL)
        };
        let marks: Vec<syn::Attribute> = method
            .attrs
            .iter()
            .filter(|a| is_tool(a))
            .cloned()
            .collect();
        let Some((first, rest)) = marks.split_first() else {
            continue;
        };
        // Keep the first `#[tool]` as an inert marker, drop the others.
        let mut kept = false;
        method.attrs.retain_mut(|attr| {
            if !is_tool(attr) {
                return true;
            }
            if kept {
                return false;
            }
            kept = true;
            let marker = proc_macro2::Ident::new(MEMBER_MARKER, proc_macro2::Span::call_site());
            attr.meta = syn::Meta::List(syn::MetaList {
                path: attr.path().clone(),
                delimiter: syn::MacroDelimiter::Paren(Default::default()),
                tokens: quote!(#marker),
            });
            true
        });
        for extra in rest {
            cx.error_spanned_by(
                extra,
                "duplicate `#[tool]` on one method; merge the keys into one",
            );
        }
        let metas = tool_attr::attr_metas(cx, first, TOOL.0);
        let attrs = ToolAttrs::from_metas(cx, &metas);
        let tool = Tool::from_fn(cx, attrs, &method.attrs, &mut method.sig, Site::Method);
        tool_check::check(cx, &tool);
        *invalid |= tool.invalid;
        if tools.iter().any(|t| t.name == tool.name) {
            cx.error_spanned_by(
                &tool.name_tokens,
                format!(
                    "duplicate tool name `{}` in this `#[tools]` block; tool names must be unique: rename the method or set `#[tool(name = \"...\")]`",
                    tool.name
                ),
            );
        }
        tools.push(tool);
    }
    tools
}

/// `impl ToolSet for Type`; a stub whose bodies never run when there are
/// errors, so that code using the set does not fail a second time.
fn tool_set(block: &ItemImpl, tools: &[Tool], stub: bool) -> TokenStream {
    let p = private();
    let (impl_generics, _, where_clause) = block.generics.split_for_impl();
    let self_ty = &block.self_ty;
    let cx = cx_ident();
    let arguments = arguments_ident();
    let name = syn::Ident::new("__name", proc_macro2::Span::mixed_site());
    let (list, dispatch) = if stub {
        (
            quote!(::core::unreachable!()),
            quote!(::core::unreachable!()),
        )
    } else {
        let definitions = tools.iter().map(definition);
        let arms = tools.iter().map(|tool| {
            let tool_name = &tool.name;
            let fn_ident = &tool.fn_ident;
            let call = call_body(tool, invocation(tool, quote!(Self::#fn_ident)));
            quote! {
                #tool_name => ::core::option::Option::Some(::std::boxed::Box::pin(#call)),
            }
        });
        (
            quote!(::std::vec![#(#definitions),*]),
            quote! {
                match #name {
                    #(#arms)*
                    _ => {
                        let _ = (#cx, #arguments);
                        ::core::option::Option::None
                    }
                }
            },
        )
    };
    let scoped: Vec<&Tool> = tools
        .iter()
        .filter(|t| !t.attrs.scopes.is_empty())
        .collect();
    let scopes = (!stub && !scoped.is_empty()).then(|| {
        let arms = scoped.iter().map(|tool| {
            let tool_name = &tool.name;
            let scopes = scopes(tool);
            quote!(#tool_name => #scopes,)
        });
        quote! {
            fn scopes(#name: &str) -> &'static [&'static str] {
                match #name {
                    #(#arms)*
                    _ => &[],
                }
            }
        }
    });
    let self_ty = self_ty.to_token_stream();
    let own_sets = (!stub).then(|| super::own_sets(block)).flatten();
    quote! {
        const _: () = {
            impl #impl_generics ::mcp_server::tool::ToolSet for #self_ty #where_clause {
                fn tools() -> ::std::vec::Vec<#p::mcp_types::v2026_07_28::Tool> {
                    #list
                }

                #scopes

                #own_sets

                fn call_tool<'__a>(
                    &'__a self,
                    #name: &str,
                    #cx: &'__a ::mcp_server::Context,
                    #arguments: #p::serde_json::Map<::std::string::String, #p::serde_json::Value>,
                ) -> ::core::option::Option<::mcp_server::BoxFuture<'__a, ::core::result::Result<::mcp_server::tool::ToolOutput, ::mcp_server::ErrorObject>>> {
                    #dispatch
                }
            }
        };
    }
}
