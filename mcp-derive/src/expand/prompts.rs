//! `#[prompts]` on an inherent `impl` block: the block without its
//! `#[prompt]` markers, plus `mcp_server::prompt::PromptSet<Self>` for the
//! type, listing the marked methods in source order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ItemImpl;

use crate::internals::ctxt::Ctxt;
use crate::internals::prompt_ast::{self, PromptFn};
use crate::internals::prompt_resource_attr::{PROMPT, PROMPTS};
use crate::internals::prompt_resource_group::{self as group, Marked, Names};
use crate::internals::prompt_resource_sig::Host;

use super::prompt::{get_body, spec, Callee};

const NAMES: Names = Names {
    group: PROMPTS,
    marker: PROMPT,
};

type Entry = Marked<PromptFn>;

pub(crate) fn expand_attr(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let mut block = match group::parse(&mut cx, NAMES, &attr, item) {
        Ok(block) => block,
        Err(output) => return output,
    };
    let entries = group::collect(&mut cx, NAMES, &mut block, |cx, tokens, _, method| {
        prompt_ast::from_syn(cx, tokens, &method.attrs, &method.sig, Host::Method)
    });
    check_unique(&mut cx, &entries);
    group::finish(
        cx,
        &block,
        || prompt_set(&block, &entries),
        || fallback(&block),
    )
}

/// Reports the second and later prompts with a name already used.
fn check_unique(cx: &mut Ctxt, entries: &[Entry]) {
    for (index, entry) in entries.iter().enumerate() {
        let earlier = entries
            .iter()
            .take(index)
            .find(|e| e.item.name == entry.item.name);
        if let Some(earlier) = earlier {
            cx.error_spanned_by(
                &entry.item.name_tokens,
                format!(
                    "duplicate prompt name `{}`: the method `{}` already uses it; give this one `#[prompt(name = \"...\")]`",
                    entry.item.name, earlier.item.func.ident
                ),
            );
        }
    }
}

fn impl_header(block: &ItemImpl) -> TokenStream {
    group::set_header(block, quote!(::mcp_server::prompt::PromptSet))
}

fn get_prompt_signature(block: &ItemImpl) -> TokenStream {
    let self_ty = &block.self_ty;
    quote! {
        fn get_prompt<'__a>(
            &'__a self,
            __name: &::core::primitive::str,
            __server: &'__a #self_ty,
            __cx: &'__a ::mcp_server::Context,
            __arguments: ::std::collections::BTreeMap<::std::string::String, ::std::string::String>,
        ) -> ::core::option::Option<
            ::mcp_server::BoxFuture<
                '__a,
                ::core::result::Result<::mcp_server::prompt::PromptOutput, ::mcp_server::ErrorObject>,
            >,
        >
    }
}

fn prompt_set(block: &ItemImpl, entries: &[Entry]) -> TokenStream {
    let header = impl_header(block);
    let own_sets = super::own_sets(block);
    let get_prompt = get_prompt_signature(block);
    let consts: Vec<_> = (0..entries.len())
        .map(|i| format_ident!("__MCP_PROMPT_{}", i))
        .collect();
    let cfgs: Vec<_> = entries.iter().map(|e| &e.cfgs).collect();
    let specs = entries.iter().map(|e| spec(&e.item));
    let names: Vec<_> = entries.iter().map(|e| &e.item.name).collect();
    let bodies = entries.iter().zip(&consts).map(|(entry, konst)| {
        let callee = Callee::Method {
            ident: &entry.item.func.ident,
            takes_self: entry.item.func.takes_self,
        };
        get_body(&entry.item, &quote!(#konst), callee)
    });
    quote! {
        const _: () = {
            #(
                #(#cfgs)*
                const #consts: ::mcp_server::__private::prompt::PromptSpec = #specs;
            )*

            #[automatically_derived]
            #header {
                #own_sets

                #[allow(clippy::vec_init_then_push)]
                fn prompts(&self) -> ::std::vec::Vec<::mcp_server::__private::mcp_types::v2026_07_28::Prompt> {
                    // One statement per prompt, so that `#[cfg]` applies to each.
                    #[allow(unused_mut)]
                    let mut __prompts = ::std::vec::Vec::new();
                    #(
                        #(#cfgs)*
                        __prompts.push(#consts.definition());
                    )*
                    __prompts
                }

                #[allow(clippy::match_like_matches_macro)]
                fn has_prompt(&self, __name: &::core::primitive::str) -> ::core::primitive::bool {
                    match __name {
                        #(
                            #(#cfgs)*
                            #names => true,
                        )*
                        _ => false,
                    }
                }

                #get_prompt {
                    match __name {
                        #(
                            #(#cfgs)*
                            #names => ::core::option::Option::Some(#bodies),
                        )*
                        _ => ::core::option::Option::None,
                    }
                }
            }
        };
    }
}

/// An implementation that is never run, so that code using the type as a
/// prompt set reports nothing more than the macro's errors.
fn fallback(block: &ItemImpl) -> TokenStream {
    let header = impl_header(block);
    let get_prompt = get_prompt_signature(block);
    quote! {
        const _: () = {
            #header {
                fn prompts(&self) -> ::std::vec::Vec<::mcp_server::__private::mcp_types::v2026_07_28::Prompt> {
                    ::core::unreachable!()
                }

                #get_prompt {
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
            "prompt_impl_block",
            expand_attr(
                quote!(),
                quote! {
                    impl Server {
                        /// Greets someone.
                        #[prompt(title = "Greeting")]
                        pub fn greet(
                            &self,
                            /// Who to greet.
                            name: String,
                        ) -> String {
                            format!("{}, {name}!", self.greeting)
                        }

                        /// Plans a trip.
                        #[prompt]
                        async fn plan_trip(
                            &self,
                            cx: &::mcp_server::Context,
                            destination: String,
                            days: Option<u32>,
                        ) -> ::std::vec::Vec<::mcp_server::__private::mcp_types::v2026_07_28::PromptMessage> {
                            let _ = cx;
                            ::std::vec![::mcp_server::prompt::user_message(format!(
                                "Plan {} days in {destination}.",
                                days.unwrap_or(3)
                            ))]
                        }

                        /// No `self` needed.
                        #[prompt(name = "static")]
                        fn fixed() -> &'static str {
                            "A fixed prompt."
                        }

                        fn helper(&self) {}
                    }
                },
            ),
        );
    }
}
