//! `#[prompt]` on a free function: the function itself, plus a unit-like
//! struct of the same name (type namespace only) that implements
//! `mcp_server::prompt::PromptHandler` for every server type.
//!
//! [`spec`] and [`get_body`] are shared with `#[prompts]`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn};

use crate::internals::ctxt::Ctxt;
use crate::internals::prompt_ast::{self, PromptFn};
use crate::internals::prompt_resource_attr::{self as attr, PROMPT, PROMPTS};
use crate::internals::prompt_resource_group::Names;
use crate::internals::prompt_resource_sig::{self as sig, Host, ParamKind};

const NAMES: Names = Names {
    group: PROMPTS,
    marker: PROMPT,
};

pub(crate) fn expand_attr(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func = match front(&attr, item, NAMES) {
        Ok(func) => func,
        Err(output) => return output,
    };
    let mut cx = Ctxt::new();
    let prompt = prompt_ast::from_syn(&mut cx, attr, &func.attrs, &func.sig, Host::Free);
    sig::strip_param_attrs(&mut func.sig);
    finish(cx, &func, || handler(&func, &prompt), || fallback(&func))
}

/// The output for a free function: the function and its handler when
/// nothing was reported; otherwise the errors, the function, and the
/// never-run `fallback`, so that code using the handler reports nothing
/// more.
pub(crate) fn finish(
    cx: Ctxt,
    func: &ItemFn,
    handler: impl FnOnce() -> TokenStream,
    fallback: impl FnOnce() -> TokenStream,
) -> TokenStream {
    match cx.check() {
        Ok(()) => {
            let handler = handler();
            quote!(#func #handler)
        }
        Err(errors) => {
            let errors = errors.to_compile_error();
            let stub = fallback();
            quote!(#errors #func #stub)
        }
    }
}

/// The first look shared by `#[prompt]` and `#[resource]`: the inert
/// marker a group attribute left (the method goes back untouched), an item
/// that is not a function, and a method outside a marked `impl` block. `Ok`
/// is a free function to read and expand; `Err` is the output already.
pub(crate) fn front(
    attr: &TokenStream,
    item: TokenStream,
    names: Names,
) -> Result<ItemFn, TokenStream> {
    let Names { group, marker } = names;
    if attr::is_collected(attr) {
        return Err(item);
    }
    let Ok(mut func) = syn::parse2::<ItemFn>(item.clone()) else {
        let error = syn::Error::new(
            Span::call_site(),
            format!("`#[{marker}]` can only be used on a function"),
        )
        .to_compile_error();
        return Err(quote!(#error #item));
    };
    let Some(receiver) = func.sig.receiver() else {
        return Ok(func);
    };
    let error = syn::Error::new_spanned(
        receiver,
        format!("`#[{marker}]` on a method needs `#[{group}]` on its `impl` block"),
    )
    .to_compile_error();
    sig::strip_param_attrs(&mut func.sig);
    Err(quote!(#error #func))
}

/// The struct and its `PromptHandler` implementation.
fn handler(func: &ItemFn, prompt: &PromptFn) -> TokenStream {
    let ident = &func.sig.ident;
    let spec = spec(prompt);
    let body = get_body(prompt, &quote!(Self::__MCP_PROMPT), Callee::Free(ident));
    let get = get_signature();
    let head = handler_struct(func, "prompt");
    let cfgs = sig::cfg_attrs(&func.attrs);
    quote! {
        #head

        #(#cfgs)*
        const _: () = {
            impl #ident {
                #[doc(hidden)]
                pub const __MCP_PROMPT: ::mcp_server::__private::prompt::PromptSpec = #spec;
            }

            #[automatically_derived]
            impl<__S: ?::core::marker::Sized> ::mcp_server::prompt::PromptHandler<__S> for #ident {
                fn definition(&self) -> ::mcp_server::__private::mcp_types::v2026_07_28::Prompt {
                    Self::__MCP_PROMPT.definition()
                }

                #get {
                    #body
                }
            }
        };
    }
}

/// `pub struct name {}`, documented, with the function's visibility and
/// `#[cfg]`s; `kind` is "prompt" or "resource".
pub(crate) fn handler_struct(func: &ItemFn, kind: &str) -> TokenStream {
    let ident = &func.sig.ident;
    let vis = &func.vis;
    let cfgs = sig::cfg_attrs(&func.attrs);
    let doc = format!(" The {kind} handler that `#[{kind}]` generated for the function `{ident}`.");
    quote! {
        #(#cfgs)*
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::fmt::Debug,
            ::core::default::Default,
        )]
        #vis struct #ident {}
    }
}

/// The signature of `PromptHandler::get`, with the hidden parameter names
/// the body uses.
fn get_signature() -> TokenStream {
    quote! {
        fn get<'__a>(
            &'__a self,
            __server: &'__a __S,
            __cx: &'__a ::mcp_server::Context,
            __arguments: ::std::collections::BTreeMap<::std::string::String, ::std::string::String>,
        ) -> ::mcp_server::BoxFuture<
            '__a,
            ::core::result::Result<::mcp_server::prompt::PromptOutput, ::mcp_server::ErrorObject>,
        >
    }
}

/// What a failed expansion leaves behind besides the errors: the struct
/// and an implementation that is never run, so that code using the prompt
/// reports nothing more.
fn fallback(func: &ItemFn) -> TokenStream {
    let ident = &func.sig.ident;
    let name = syn::ext::IdentExt::unraw(ident).to_string();
    let head = handler_struct(func, "prompt");
    let get = get_signature();
    quote! {
        #head

        const _: () = {
            impl #ident {
                #[doc(hidden)]
                pub const __MCP_PROMPT: ::mcp_server::__private::prompt::PromptSpec =
                    ::mcp_server::__private::prompt::PromptSpec {
                        name: #name,
                        title: ::core::option::Option::None,
                        description: ::core::option::Option::None,
                        icons: &[],
                        arguments: &[],
                    };
            }

            impl<__S: ?::core::marker::Sized> ::mcp_server::prompt::PromptHandler<__S> for #ident {
                fn definition(&self) -> ::mcp_server::__private::mcp_types::v2026_07_28::Prompt {
                    ::core::unreachable!()
                }

                #get {
                    ::core::unreachable!()
                }
            }
        };
    }
}

/// The `PromptSpec` constant expression of a prompt.
pub(crate) fn spec(prompt: &PromptFn) -> TokenStream {
    let name = &prompt.name;
    let title = option(prompt.title.as_deref());
    let description = option(prompt.description.as_deref());
    let icons = &prompt.icons;
    let arguments = prompt.args.iter().map(|arg| {
        let name = &arg.name;
        let title = option(arg.title.as_deref());
        let description = option(arg.description.as_deref());
        let required = arg.required;
        quote! {
            ::mcp_server::__private::prompt::ArgumentSpec {
                name: #name,
                title: #title,
                description: #description,
                required: #required,
            }
        }
    });
    quote! {
        ::mcp_server::__private::prompt::PromptSpec {
            name: #name,
            title: #title,
            description: #description,
            icons: &[#(#icons),*],
            arguments: &[#(#arguments),*],
        }
    }
}

/// `Some("text")` or `None`, as tokens.
pub(crate) fn option(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

/// How the generated code reaches the user's function.
pub(crate) enum Callee<'a> {
    /// `name(args)`.
    Free(&'a Ident),
    /// `Self::name(__server, args)`, or `Self::name(args)` without `self`.
    Method { ident: &'a Ident, takes_self: bool },
}

impl Callee<'_> {
    /// The call, with the given arguments after `self` (if any).
    pub(crate) fn call(&self, args: &[TokenStream]) -> TokenStream {
        match self {
            Callee::Free(ident) => quote!(#ident(#(#args),*)),
            Callee::Method {
                ident,
                takes_self: true,
            } => quote!(Self::#ident(__server #(, #args)*)),
            Callee::Method {
                ident,
                takes_self: false,
            } => quote!(Self::#ident(#(#args),*)),
        }
    }
}

/// Statements binding each value parameter to a local `__argN`, taking it
/// from `__args` (an `Arguments`), and the arguments of the call.
pub(crate) fn bind_params(
    func: &sig::HandlerFn,
    wire_names: &[&str],
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut bindings = Vec::new();
    let mut call_args = Vec::new();
    let mut names = wire_names.iter();
    for (index, param) in func.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Context => call_args.push(quote!(__cx)),
            ParamKind::Value { optional, inner } => {
                let local = format_ident!("__arg{}", index);
                let name = names.next().copied().unwrap_or_default();
                // Only the method name carries the type's span, so that an
                // unsatisfied `FromArgument` bound is reported on the type.
                let method = if *optional { "optional" } else { "required" };
                let method = Ident::new(method, inner.span());
                bindings.push(quote! {
                    let #local = match __args.#method::<#inner>(#name) {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(error) => {
                            return ::core::result::Result::Err(error);
                        }
                    };
                });
                call_args.push(quote!(#local));
            }
        }
    }
    (bindings, call_args)
}

/// `__output`, resolved where the macro was called but reported at the
/// function's return type, so that a type that cannot be returned is
/// shown there.
pub(crate) fn output_ident(func: &sig::HandlerFn) -> Ident {
    Ident::new("__output", Span::call_site().located_at(func.output_span))
}

/// The boxed future answering `prompts/get`: check and parse the
/// arguments, call the function, convert what it returns. `spec` is a path
/// to the prompt's `PromptSpec` constant.
pub(crate) fn get_body(prompt: &PromptFn, spec: &TokenStream, callee: Callee<'_>) -> TokenStream {
    let names: Vec<&str> = prompt.args.iter().map(|arg| arg.name.as_str()).collect();
    let (bindings, call_args) = bind_params(&prompt.func, &names);
    let take_arguments = (!bindings.is_empty()).then(|| {
        quote! {
            let mut __args = match ::mcp_server::__private::prompt::Arguments::for_prompt(
                &#spec,
                __arguments,
            ) {
                ::core::result::Result::Ok(args) => args,
                ::core::result::Result::Err(error) => return ::core::result::Result::Err(error),
            };
        }
    });
    let call = callee.call(&call_args);
    let wait = prompt.func.is_async.then(|| quote!(.await));
    let output = output_ident(&prompt.func);
    quote! {
        ::std::boxed::Box::pin(async move {
            #take_arguments
            #(#bindings)*
            let #output = #call #wait;
            ::mcp_server::prompt::IntoPromptResult::into_prompt_result(#output)
        })
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::expand_attr;
    use crate::internals::prompt_resource_golden::assert_expansion;

    #[test]
    fn free_function() {
        assert_expansion(
            "prompt_free_fn",
            expand_attr(
                quote!(),
                quote! {
                    /// Asks for a code review.
                    ///
                    /// Focuses on what matters.
                    pub fn code_review(
                        /// The code to review.
                        code: String,
                        /// How strict to be.
                        strictness: Option<u8>,
                    ) -> String {
                        format!("Review this at strictness {}: {code}", strictness.unwrap_or(1))
                    }
                },
            ),
        );
    }

    #[test]
    fn async_with_context_and_keys() {
        assert_expansion(
            "prompt_async_keys",
            expand_attr(
                quote!(
                    name = "summarize.v2",
                    title = "Summarize",
                    description = "Summarizes a text.",
                    icon = "https://example.com/summarize.png"
                ),
                quote! {
                    async fn summarize(
                        cx: &::mcp_server::Context,
                        #[arg(name = "text-body", title = "Text")]
                        text: String,
                    ) -> ::core::result::Result<::std::string::String, ::mcp_server::ErrorObject> {
                        let _ = cx.principal();
                        Ok(text)
                    }
                },
            ),
        );
    }

    #[test]
    fn errors_keep_the_function_and_a_stub() {
        assert_expansion(
            "prompt_error_fallback",
            expand_attr(
                quote!(name = "no spaces allowed", colour = "red"),
                quote! {
                    fn greet(name: String) -> String {
                        name
                    }
                },
            ),
        );
    }
}
