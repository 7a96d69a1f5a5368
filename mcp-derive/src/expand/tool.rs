//! `#[tool]` on a free function, and the pieces of generated code that
//! `#[tools]` shares: the `Tool` definition and the body of a call.
//!
//! For `fn add(a: i64, b: i64) -> i64` the expansion is the function
//! unchanged (minus the parameter attributes the macro reads), a braced
//! struct `add {}` in the type namespace, its `NAME`, and
//! `impl<S> ToolHandler<S> for add` inside `const _: () = { ... };`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Ident, Item, Type};

use crate::internals::ctxt::Ctxt;
use crate::internals::tool_ast::{Output, ParamKind, Site, Tool};
use crate::internals::tool_attr::{self, ToolAttrs};
use crate::internals::tool_check;

/// What `#[tools]` leaves in place of the `#[tool(...)]` it has read, so
/// that the attribute still resolves (and its import counts as used) but
/// expands to the method unchanged.
pub(crate) const MEMBER_MARKER: &str = "__mcp_tools_member";

pub(crate) fn expand_attr(attr: TokenStream, item: TokenStream) -> TokenStream {
    if is_member_marker(&attr) {
        return item;
    }
    let mut cx = Ctxt::new();
    let metas = tool_attr::metas(&mut cx, attr);
    let attrs = ToolAttrs::from_metas(&mut cx, &metas);
    let mut func = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(func)) => func,
        Ok(other) => {
            cx.error_spanned_by(
                item_head(&other),
                "`#[tool]` goes on a function; for methods, put `#[tools]` on the `impl` block and `#[tool]` on each method",
            );
            return with_item(cx.into_compile_errors(), item);
        }
        Err(_) => {
            cx.error_spanned_by(
                &item,
                "`#[tool]` goes on a function with a body; for methods, put `#[tools]` on the `impl` block",
            );
            return with_item(cx.into_compile_errors(), item);
        }
    };
    let tool = Tool::from_fn(&mut cx, attrs, &func.attrs, &mut func.sig, Site::Free);
    tool_check::check(&mut cx, &tool);
    let has_errors = cx.has_errors() || tool.invalid;
    let errors = cx.into_compile_errors();
    // A method outside `#[tools]`: generated items cannot sit in its
    // `impl` block, so the error stands alone.
    let handler = (!tool.receiver).then(|| handler(&tool, &func.vis, has_errors));
    quote! {
        #errors
        #func
        #handler
    }
}

fn is_member_marker(attr: &TokenStream) -> bool {
    let mut tokens = attr.clone().into_iter();
    matches!(
        (tokens.next(), tokens.next()),
        (Some(proc_macro2::TokenTree::Ident(ident)), None) if ident == MEMBER_MARKER
    )
}

fn with_item(mut errors: TokenStream, item: TokenStream) -> TokenStream {
    errors.extend(item);
    errors
}

/// The tokens to point at when an item is not a function: its name, or
/// the keyword that starts it.
fn item_head(item: &Item) -> TokenStream {
    match item {
        Item::Struct(s) => pair(&s.struct_token, &s.ident),
        Item::Enum(e) => pair(&e.enum_token, &e.ident),
        Item::Union(u) => pair(&u.union_token, &u.ident),
        Item::Const(c) => pair(&c.const_token, &c.ident),
        Item::Static(s) => pair(&s.static_token, &s.ident),
        Item::Mod(m) => pair(&m.mod_token, &m.ident),
        Item::Trait(t) => pair(&t.trait_token, &t.ident),
        Item::Type(t) => pair(&t.type_token, &t.ident),
        Item::Impl(i) => i.impl_token.to_token_stream(),
        Item::Use(u) => u.use_token.to_token_stream(),
        other => other.to_token_stream(),
    }
}

fn pair(keyword: &impl ToTokens, ident: &Ident) -> TokenStream {
    quote!(#keyword #ident)
}

/// The struct named after the function and its `ToolHandler` impl; a stub
/// whose bodies never run when the tool has errors, so that code naming
/// the struct does not fail a second time.
fn handler(tool: &Tool, vis: &syn::Visibility, stub: bool) -> TokenStream {
    let ident = &tool.fn_ident;
    let name = &tool.name;
    let p = private();
    let doc = format!(
        " The `{}` tool: the handler `#[tool]` made from the function of the same name.",
        tool.name
    );
    let cx = cx_ident();
    let arguments = arguments_ident();
    let (definition, body) = if stub {
        (
            quote!(::core::unreachable!()),
            quote!(::core::unreachable!()),
        )
    } else {
        let invoke = invocation(tool, quote!(#ident));
        let call = call_body(tool, invoke);
        (definition(tool), quote!(::std::boxed::Box::pin(#call)))
    };
    let scopes = (!stub && !tool.attrs.scopes.is_empty()).then(|| {
        let scopes = scopes(tool);
        quote! {
            fn scopes(&self) -> &'static [&'static str] {
                #scopes
            }
        }
    });
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::fmt::Debug,
            ::core::default::Default
        )]
        #vis struct #ident {}

        impl #ident {
            /// The tool's name in `tools/list` and `tools/call`.
            pub const NAME: &'static str = #name;
        }

        const _: () = {
            impl<__S: ?::core::marker::Sized + ::core::marker::Sync> ::mcp_server::tool::ToolHandler<__S> for #ident {
                fn definition(&self) -> #p::mcp_types::v2026_07_28::Tool {
                    #definition
                }

                #scopes

                fn call<'__a>(
                    &'__a self,
                    _: &'__a __S,
                    #cx: &'__a ::mcp_server::Context,
                    #arguments: #p::serde_json::Map<::std::string::String, #p::serde_json::Value>,
                ) -> ::mcp_server::BoxFuture<'__a, ::core::result::Result<::mcp_server::tool::ToolOutput, ::mcp_server::ErrorObject>> {
                    #body
                }
            }
        };
    }
}

/// `::mcp_server::__private`.
pub(crate) fn private() -> TokenStream {
    quote!(::mcp_server::__private)
}

/// The request context inside generated calls; invisible to user code.
pub(crate) fn cx_ident() -> Ident {
    Ident::new("__cx", Span::mixed_site())
}

/// The call's arguments inside generated calls; invisible to user code.
pub(crate) fn arguments_ident() -> Ident {
    Ident::new("__arguments", Span::mixed_site())
}

fn some(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

fn string(value: Option<String>) -> TokenStream {
    some(value.map(|s| quote!(::std::string::String::from(#s))))
}

/// The scopes of `#[tool(scopes = [...])]`, as a `&'static [&'static str]`
/// expression.
pub(crate) fn scopes(tool: &Tool) -> TokenStream {
    let scopes = &tool.attrs.scopes;
    quote!(&[#(#scopes),*])
}

/// The `Tool` value, as an expression.
pub(crate) fn definition(tool: &Tool) -> TokenStream {
    let p = private();
    let schema = Ident::new("__schema", Span::mixed_site());
    let params = tool.params.iter().filter_map(|param| {
        let ParamKind::Argument { required, header } = &param.kind else {
            return None;
        };
        let ty = &param.ty;
        let name = &param.name;
        let description = some(param.description.as_ref().map(|d| quote!(#d)));
        let header = some(header.as_ref().map(|h| quote!(#h)));
        let argument = argument(ty);
        Some(quote! {
            #schema.param(#name, #argument, #required, #description, #header);
        })
    });
    let name = &tool.name;
    let attrs = &tool.attrs;
    let title = string(attrs.title.as_ref().map(syn::LitStr::value));
    let description = string(tool.description.clone());
    let icons = if attrs.icons.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        let icons = attrs.icons.iter().map(|src| {
            quote! {
                #p::mcp_types::v2026_07_28::Icon {
                    mime_type: ::core::option::Option::None,
                    sizes: ::core::option::Option::None,
                    src: ::std::string::String::from(#src),
                    theme: ::core::option::Option::None,
                    extra: #p::serde_json::Map::new(),
                }
            }
        });
        quote!(::core::option::Option::Some(::std::vec![#(#icons),*]))
    };
    let annotations = annotations(attrs);
    let meta = meta(attrs);
    let output_schema = match &tool.output {
        Output::Unit => quote!(::core::option::Option::None),
        Output::Value(ty) | Output::Result(ty) => {
            let converter = converter(ty);
            quote!(#converter.output_schema())
        }
    };
    quote! {{
        #[allow(unused_mut)]
        let mut #schema = #p::tool::InputSchema::new();
        #(#params)*
        #p::mcp_types::v2026_07_28::Tool {
            meta: #meta,
            annotations: #annotations,
            description: #description,
            icons: #icons,
            input_schema: #schema.finish(),
            name: ::std::string::String::from(#name),
            output_schema: #output_schema,
            title: #title,
            extra: #p::serde_json::Map::new(),
        }
    }}
}

/// The tool's `_meta`: the tasks extension's `taskSupport`, then MCP
/// Apps' `ui` when `ui` or `visibility` is given.
fn meta(attrs: &ToolAttrs) -> TokenStream {
    let p = private();
    let task = match attrs.task.as_ref().map(syn::LitStr::value).as_deref() {
        None | Some("forbidden") => quote!(::core::option::Option::None),
        Some(support) => quote!(#p::tool::task_support_meta(#support)),
    };
    if attrs.ui.is_none() && attrs.visibility.is_none() {
        return task;
    }
    let ui = some(attrs.ui.as_ref().map(|uri| quote!(#uri)));
    let visibility = some(attrs.visibility.as_ref().map(|who| quote!(&[#(#who),*])));
    quote!(#p::tool::ui_meta(#task, #ui, #visibility))
}

fn annotations(attrs: &ToolAttrs) -> TokenStream {
    let flags = [
        &attrs.destructive,
        &attrs.idempotent,
        &attrs.open_world,
        &attrs.read_only,
    ];
    if flags.iter().all(|f| f.is_none()) {
        return quote!(::core::option::Option::None);
    }
    let [destructive, idempotent, open_world, read_only] =
        flags.map(|f| some(f.as_ref().map(|b| quote!(#b))));
    let p = private();
    quote! {
        ::core::option::Option::Some(#p::mcp_types::v2026_07_28::ToolAnnotations {
            destructive_hint: #destructive,
            idempotent_hint: #idempotent,
            open_world_hint: #open_world,
            read_only_hint: #read_only,
            title: ::core::option::Option::None,
            extra: #p::serde_json::Map::new(),
        })
    }
}

/// The handle that decodes and describes an argument of type `ty`.
/// Spanned on `ty`, and identical wherever it is used, so that a type
/// lacking `Deserialize` or `JsonSchema` is reported once, there.
fn argument(ty: &Type) -> TokenStream {
    let p = private();
    quote_spanned! {ty.span()=> #p::tool::argument::<#ty>() }
}

/// The converter of the return type `ty`, picked by autoref: a type that
/// implements `IntoToolResult` converts itself, any other is structured
/// output. Spanned on `ty`, and identical wherever it is used, so that a
/// type that is neither is reported once, there.
fn converter(ty: &Type) -> TokenStream {
    let p = private();
    quote_spanned! {ty.span()=> {
        #[allow(unused_imports)]
        use #p::tool::{ViaIntoToolResult as _, ViaJson as _};
        (&&#p::tool::Kind::<#ty>::new()).__tool_kind().converter()
    }}
}

/// The call of the user's function with the decoded parameters.
pub(crate) fn invocation(tool: &Tool, callee: TokenStream) -> TokenStream {
    let args = tool.params.iter().map(|p| &p.ident);
    let receiver = tool.receiver.then(|| quote!(self,));
    let call = quote!(#callee(#receiver #(#args),*));
    if tool.is_async {
        quote!(#call.await)
    } else {
        call
    }
}

/// The async block that decodes the arguments, asks for missing forms,
/// runs the function and converts its result.
pub(crate) fn call_body(tool: &Tool, invoke: TokenStream) -> TokenStream {
    let p = private();
    let cx = cx_ident();
    let arguments = arguments_ident();
    let args = Ident::new("__args", Span::mixed_site());
    let round = Ident::new("__round", Span::mixed_site());
    let ret = Ident::new("__ret", Span::mixed_site());
    let failure = Ident::new("__failure", Span::mixed_site());
    let pause = Ident::new("__pause", Span::mixed_site());
    let answer = Ident::new("__answer", Span::mixed_site());
    let error = Ident::new("__error", Span::mixed_site());

    let mut takes = Vec::new();
    let mut arg_temps = Vec::new();
    let mut arg_binds = Vec::new();
    let mut asks = Vec::new();
    let mut ask_temps = Vec::new();
    let mut ask_binds = Vec::new();
    let mut contexts = Vec::new();
    for (i, param) in tool.params.iter().enumerate() {
        let ident = &param.ident;
        let name = &param.name;
        match &param.kind {
            ParamKind::Argument { required, .. } => {
                let ty = &param.ty;
                let temp = format_ident!("__arg{}", i, span = Span::mixed_site());
                let argument = argument(ty);
                takes.push(quote! {
                    let #temp = #args.take(#name, #required, #argument);
                });
                arg_temps.push(temp);
                arg_binds.push(ident);
            }
            ParamKind::Elicit { form, message } => {
                let temp = format_ident!("__ask{}", i, span = Span::mixed_site());
                let message = some(message.as_ref().map(|m| quote!(#m)));
                let elicit = quote_spanned! {form.span()=>
                    #round.elicit::<#form>(#name, #message)
                };
                asks.push(quote! {
                    let #temp = match #elicit {
                        ::core::result::Result::Ok(#answer) => #answer,
                        ::core::result::Result::Err(#error) => return ::core::result::Result::Err(#error),
                    };
                });
                ask_temps.push(temp);
                ask_binds.push(ident);
            }
            ParamKind::Context { by_ref: true } => contexts.push(quote!(let #ident = #cx;)),
            ParamKind::Context { by_ref: false } => {
                contexts.push(quote!(let #ident = ::core::clone::Clone::clone(#cx);))
            }
        }
    }
    let bind_args = (!arg_binds.is_empty()).then(|| {
        quote! {
            let (#(::core::option::Option::Some(#arg_binds),)*) = (#(#arg_temps,)*) else {
                return #p::tool::lost_argument();
            };
        }
    });
    let elicit = (!asks.is_empty()).then(|| {
        quote! {
            let mut #round = #p::elicit::InputRound::new(#cx);
            #(#asks)*
            if let ::core::option::Option::Some(#pause) = #p::elicit::pause(#round) {
                return #pause;
            }
            let (#(::core::option::Option::Some(#ask_binds),)*) = (#(#ask_temps,)*) else {
                return #p::tool::lost_argument();
            };
        }
    });
    let convert = match &tool.output {
        Output::Unit => quote! {
            #invoke;
            ::mcp_server::tool::IntoToolResult::into_tool_result(())
        },
        Output::Value(ty) => {
            let converter = converter(ty);
            quote! {
                let #ret = #invoke;
                #converter.convert(#ret)
            }
        }
        Output::Result(ty) => {
            let value = Ident::new("__value", Span::mixed_site());
            let converter = converter(ty);
            quote! {
                match #invoke {
                    ::core::result::Result::Ok(#value) => #converter.convert(#value),
                    ::core::result::Result::Err(#error) => #p::tool::tool_error(#error),
                }
            }
        }
    };
    quote! {
        async move {
            let mut #args = #p::tool::Arguments::new(#arguments);
            #(#takes)*
            if let ::core::option::Option::Some(#failure) = #args.finish() {
                return #failure;
            }
            #bind_args
            #elicit
            #(#contexts)*
            #convert
        }
    }
}
