//! `#[resources]` on an inherent `impl` block: the block without its
//! `#[resource]` markers, plus `mcp_server::resource::ResourceSet<Self>`
//! for the type. Fixed URIs are matched exactly; templates are tried in
//! source order.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::ItemImpl;

use crate::internals::ctxt::Ctxt;
use crate::internals::prompt_resource_attr::{RESOURCE, RESOURCES};
use crate::internals::prompt_resource_group::{self as group, Marked, Names};
use crate::internals::prompt_resource_sig::Host;
use crate::internals::resource_ast::{self, ResourceFn};

use super::prompt::Callee;
use super::resource::{read_body, spec};

const NAMES: Names = Names {
    group: RESOURCES,
    marker: RESOURCE,
};

type Entry = Marked<ResourceFn>;

/// Entries with their position in the block.
type Indexed<'a> = Vec<(usize, &'a Entry)>;

pub(crate) fn expand_attr(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let mut block = match group::parse(&mut cx, NAMES, &attr, item) {
        Ok(block) => block,
        Err(output) => return output,
    };
    let entries = group::collect(&mut cx, NAMES, &mut block, |cx, tokens, mark, method| {
        let site = mark.to_token_stream();
        resource_ast::from_syn(cx, tokens, site, &method.attrs, &method.sig, Host::Method)
    });
    check_unique(&mut cx, &entries);
    group::finish(
        cx,
        &block,
        || resource_set(&block, &entries),
        || fallback(&block),
    )
}

/// The name of the constant holding the `index`th resource's spec.
fn konst(index: usize) -> syn::Ident {
    format_ident!("__MCP_RESOURCE_{}", index)
}

/// Reports a URI given twice, and a template that matches the same URIs
/// as an earlier one (it could never be reached).
fn check_unique(cx: &mut Ctxt, entries: &[Entry]) {
    for (index, entry) in entries.iter().enumerate() {
        let this = &entry.item;
        for earlier in entries.iter().take(index).map(|e| &e.item) {
            let same_text = !this.uri.is_empty() && earlier.uri == this.uri;
            let same_matches = match (&this.template, &earlier.template) {
                (Some(a), Some(b)) => !a.is_fixed() && a.is_equivalent(b),
                _ => false,
            };
            if same_text {
                cx.error_spanned_by(
                    &this.uri_tokens,
                    format!(
                        "duplicate resource URI `{}`: the method `{}` already serves it",
                        this.uri, earlier.func.ident
                    ),
                );
                break;
            }
            if same_matches {
                cx.error_spanned_by(
                    &this.uri_tokens,
                    format!(
                        "this template matches the same URIs as `{}` on the method `{}`, which is tried first, so it would never be used",
                        earlier.uri, earlier.func.ident
                    ),
                );
                break;
            }
        }
    }
}

fn impl_header(block: &ItemImpl) -> TokenStream {
    group::set_header(block, quote!(::mcp_server::resource::ResourceSet))
}

/// The signature of `read_exact` or `read_templated`.
fn read_signature(block: &ItemImpl, name: &str) -> TokenStream {
    let self_ty = &block.self_ty;
    let name = syn::Ident::new(name, Span::call_site());
    quote! {
        fn #name<'__a>(
            &'__a self,
            __uri: &'__a ::core::primitive::str,
            __server: &'__a #self_ty,
            __cx: &'__a ::mcp_server::Context,
        ) -> ::core::option::Option<
            ::mcp_server::BoxFuture<
                '__a,
                ::core::result::Result<::mcp_server::resource::ResourceOutput, ::mcp_server::ErrorObject>,
            >,
        >
    }
}

fn resource_set(block: &ItemImpl, entries: &[Entry]) -> TokenStream {
    let header = impl_header(block);
    let own_sets = super::own_sets(block);
    let read_exact = read_signature(block, "read_exact");
    let read_templated = read_signature(block, "read_templated");
    let consts = entries.iter().enumerate().map(|(index, e)| {
        let (konst, cfgs, spec) = (konst(index), &e.cfgs, spec(&e.item));
        quote! {
            #(#cfgs)*
            const #konst: ::mcp_server::__private::resource::ResourceSpec = #spec;
        }
    });
    let (templates, fixed): (Indexed<'_>, Indexed<'_>) = entries
        .iter()
        .enumerate()
        .partition(|(_, e)| e.item.is_template());
    let list = |group: &[(usize, &Entry)], method: &str| -> Vec<TokenStream> {
        let method = syn::Ident::new(method, Span::call_site());
        group
            .iter()
            .map(|(index, e)| {
                let (konst, cfgs) = (konst(*index), &e.cfgs);
                quote!(#(#cfgs)* __list.push(#konst.#method());)
            })
            .collect()
    };
    let list_fixed = list(&fixed, "resource");
    let list_templates = list(&templates, "template");
    let body = |index: usize, e: &Entry| {
        let callee = Callee::Method {
            ident: &e.item.func.ident,
            takes_self: e.item.func.takes_self,
        };
        let konst = konst(index);
        read_body(&e.item, &quote!(#konst), callee)
    };
    let exact_arms = fixed.iter().map(|(index, e)| {
        let (uri, cfgs, body) = (&e.item.uri, &e.cfgs, body(*index, e));
        quote!(#(#cfgs)* #uri => ::core::option::Option::Some(#body),)
    });
    let template_tries = templates.iter().map(|(index, e)| {
        let (uri, cfgs, body) = (&e.item.uri, &e.cfgs, body(*index, e));
        quote! {
            #(#cfgs)*
            {
                static __TEMPLATE: ::mcp_server::__private::resource::StaticTemplate =
                    ::mcp_server::__private::resource::StaticTemplate::new(#uri);
                if let ::core::option::Option::Some(__variables) = __TEMPLATE.matches(__uri) {
                    return ::core::option::Option::Some(#body);
                }
            }
        }
    });
    quote! {
        const _: () = {
            #(#consts)*

            #[automatically_derived]
            #header {
                #own_sets

                #[allow(clippy::vec_init_then_push)]
                fn resources(&self) -> ::std::vec::Vec<::mcp_server::__private::mcp_types::v2026_07_28::Resource> {
                    // One statement per resource, so that `#[cfg]` applies to each.
                    #[allow(unused_mut)]
                    let mut __list = ::std::vec::Vec::new();
                    #(#list_fixed)*
                    __list
                }

                #[allow(clippy::vec_init_then_push)]
                fn resource_templates(&self) -> ::std::vec::Vec<::mcp_server::__private::mcp_types::v2026_07_28::ResourceTemplate> {
                    // One statement per resource, so that `#[cfg]` applies to each.
                    #[allow(unused_mut)]
                    let mut __list = ::std::vec::Vec::new();
                    #(#list_templates)*
                    __list
                }

                #read_exact {
                    match __uri {
                        #(#exact_arms)*
                        _ => ::core::option::Option::None,
                    }
                }

                #read_templated {
                    #(#template_tries)*
                    ::core::option::Option::None
                }
            }
        };
    }
}

/// An implementation that is never run, so that code using the type as a
/// resource set reports nothing more than the macro's errors.
fn fallback(block: &ItemImpl) -> TokenStream {
    let header = impl_header(block);
    let read_exact = read_signature(block, "read_exact");
    let read_templated = read_signature(block, "read_templated");
    quote! {
        const _: () = {
            #header {
                fn resources(&self) -> ::std::vec::Vec<::mcp_server::__private::mcp_types::v2026_07_28::Resource> {
                    ::core::unreachable!()
                }

                fn resource_templates(&self) -> ::std::vec::Vec<::mcp_server::__private::mcp_types::v2026_07_28::ResourceTemplate> {
                    ::core::unreachable!()
                }

                #read_exact {
                    ::core::unreachable!()
                }

                #read_templated {
                    ::core::unreachable!()
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::expand_attr;
    use crate::internals::prompt_resource_golden::assert_expansion;

    #[test]
    fn methods() {
        assert_expansion(
            "resource_impl_block",
            expand_attr(
                quote!(),
                quote! {
                    impl Server {
                        /// Everything the server knows.
                        #[resource("notes://index", mime_type = "text/plain")]
                        fn index(&self) -> String {
                            self.notes.join("\n")
                        }

                        /// One note by position.
                        #[resource("notes://{index}", mime_type = "text/plain")]
                        fn note(&self, index: usize) -> ::core::result::Result<String, ::mcp_server::ErrorObject> {
                            self.notes
                                .get(index)
                                .cloned()
                                .ok_or_else(|| ::mcp_server::ErrorObject::resource_not_found("notes://?"))
                        }

                        /// Files below the root.
                        #[resource("files:///{+path}")]
                        async fn file(path: String) -> String {
                            path
                        }
                    }
                },
            ),
        );
    }
}
