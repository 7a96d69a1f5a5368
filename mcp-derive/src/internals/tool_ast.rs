//! A tool as the macros see it: the function's name, parameters, return
//! type and `#[tool]` keys, read from the syn nodes (which keep their spans
//! for error messages).

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{FnArg, Ident, LitStr, Pat, ReturnType, Signature, Type};

use super::ctxt::Ctxt;
use super::tool_attr::{self, ToolAttrs};
use super::tool_symbol::*;
use super::tool_types::{self, last_segment, type_args};

/// Where the function sits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Site {
    /// A free function under `#[tool]`.
    Free,
    /// A method of a `#[tools]` impl block.
    Method,
}

/// One tool.
pub(crate) struct Tool {
    pub(crate) fn_ident: Ident,
    /// The tool's name on the wire.
    pub(crate) name: String,
    /// Where the name was written, for errors about it.
    pub(crate) name_tokens: TokenStream,
    pub(crate) attrs: ToolAttrs,
    pub(crate) description: Option<String>,
    /// Whether the method takes `&self`.
    pub(crate) receiver: bool,
    pub(crate) is_async: bool,
    pub(crate) params: Vec<Param>,
    pub(crate) output: Output,
    /// Whether a mistake that rustc reports by itself (such as `Elicit`
    /// without its type argument) leaves nothing sensible to generate.
    pub(crate) invalid: bool,
}

/// One parameter of the function.
pub(crate) struct Param {
    /// The binding, without `mut`.
    pub(crate) ident: Ident,
    /// The argument's name on the wire.
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) kind: ParamKind,
    pub(crate) description: Option<String>,
}

pub(crate) enum ParamKind {
    /// An argument of the call, part of the input schema.
    Argument {
        required: bool,
        header: Option<LitStr>,
    },
    /// The request context, by reference or by value.
    Context { by_ref: bool },
    /// A form to ask the user for.
    Elicit {
        form: Box<Type>,
        message: Option<LitStr>,
    },
}

/// What the function returns.
pub(crate) enum Output {
    Unit,
    Value(Type),
    /// `Result<T, E>`: `T` is converted, `E` goes through `ToolError`.
    Result(Type),
}

impl Tool {
    /// Reads a tool from a function signature, removing the parameter
    /// attributes the macro consumes (`#[header]`, `#[elicit]`, doc
    /// comments) so that the function compiles as plain Rust.
    pub(crate) fn from_fn(
        cx: &mut Ctxt,
        attrs: ToolAttrs,
        fn_attrs: &[syn::Attribute],
        sig: &mut Signature,
        site: Site,
    ) -> Tool {
        let fn_ident = sig.ident.clone();
        let (name, name_tokens) = match &attrs.name {
            Some(lit) => (lit.value(), lit.to_token_stream()),
            None => (fn_ident.unraw().to_string(), fn_ident.to_token_stream()),
        };
        let description = attrs
            .description
            .as_ref()
            .map(LitStr::value)
            .or_else(|| tool_attr::docs(fn_attrs));
        check_signature(cx, sig);
        let mut receiver = false;
        let mut invalid = false;
        let mut params = Vec::new();
        for input in sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(r) => {
                    receiver = true;
                    check_receiver(cx, r, site);
                }
                FnArg::Typed(typed) => match Param::from_typed(cx, typed) {
                    Some(param) => params.push(param),
                    None => invalid = true,
                },
            }
        }
        let output = Output::from_syn(cx, &sig.output);
        Tool {
            fn_ident,
            name,
            name_tokens,
            attrs,
            description,
            receiver,
            is_async: sig.asyncness.is_some(),
            params,
            output,
            invalid,
        }
    }
}

fn check_signature(cx: &mut Ctxt, sig: &Signature) {
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            "a `#[tool]` function cannot be generic: its input schema comes from concrete parameter types; remove the generic parameters",
        );
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        cx.error_spanned_by(
            unsafety,
            "a `#[tool]` function cannot be `unsafe`; make it safe and use `unsafe` blocks inside",
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, "a `#[tool]` function cannot be variadic");
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(
            abi,
            "a `#[tool]` function cannot have an `extern` ABI; remove it",
        );
    }
}

fn check_receiver(cx: &mut Ctxt, r: &syn::Receiver, site: Site) {
    if site == Site::Free {
        cx.error_spanned_by(
            r,
            "a `#[tool]` method needs `#[tools]` on its `impl` block, which collects the methods into a tool set",
        );
        return;
    }
    let plain_ref =
        matches!(r.kind, syn::ReceiverKind::Reference(_, _, None)) && r.mutability.is_none();
    if !plain_ref {
        cx.error_spanned_by(
            r,
            "a `#[tool]` method takes `&self`: calls may run at the same time and the server is shared; use interior mutability for state",
        );
    }
}

impl Param {
    fn from_typed(cx: &mut Ctxt, typed: &mut syn::PatType) -> Option<Param> {
        let description = tool_attr::docs(&typed.attrs);
        let mut headers = Vec::new();
        let mut elicits = Vec::new();
        typed.attrs.retain(|attr| {
            if tool_attr::is(attr, HEADER) {
                headers.push(attr.clone());
                false
            } else if tool_attr::is(attr, ELICIT) {
                elicits.push(attr.clone());
                false
            } else {
                !tool_attr::is(attr, DOC)
            }
        });
        let ident = match &*typed.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                Some(pat.ident.clone())
            }
            other => {
                cx.error_spanned_by(
                    other,
                    "a `#[tool]` parameter must be a plain name, which becomes the argument's key; destructure inside the body",
                );
                None
            }
        };
        let ty = (*typed.ty).clone();
        let kind = ParamKind::from_type(cx, &ty);

        let header = match headers.as_slice() {
            [] => None,
            [first, rest @ ..] => {
                for extra in rest {
                    cx.error_spanned_by(
                        extra,
                        "duplicate `#[header]` on one parameter; give it once",
                    );
                }
                tool_attr::header_value(cx, first).map(|lit| (first.clone(), lit))
            }
        };
        let message = match elicits.as_slice() {
            [] => None,
            [first, rest @ ..] => {
                for extra in rest {
                    cx.error_spanned_by(
                        extra,
                        "duplicate `#[elicit]` on one parameter; give it once",
                    );
                }
                Some((first.clone(), tool_attr::elicit_message(cx, first)))
            }
        };

        let kind = match kind? {
            ParamKind::Argument { required, .. } => {
                if let Some((attr, _)) = &message {
                    cx.error_spanned_by(
                        attr,
                        "`#[elicit]` goes only on a parameter of type `Elicit<Form>`",
                    );
                }
                ParamKind::Argument {
                    required,
                    header: header.map(|(_, lit)| lit),
                }
            }
            ParamKind::Elicit { form, .. } => {
                if let Some((attr, _)) = &header {
                    cx.error_spanned_by(attr, "`#[header]` goes only on a tool argument; an `Elicit` parameter is answered by the user, not sent by the client");
                }
                ParamKind::Elicit {
                    form,
                    message: message.and_then(|(_, lit)| lit),
                }
            }
            context @ ParamKind::Context { .. } => {
                if let Some((attr, _)) = &header {
                    cx.error_spanned_by(
                        attr,
                        "`#[header]` goes only on a tool argument, not on the request context",
                    );
                }
                if let Some((attr, _)) = &message {
                    cx.error_spanned_by(
                        attr,
                        "`#[elicit]` goes only on a parameter of type `Elicit<Form>`",
                    );
                }
                context
            }
        };
        let ident = ident?;
        Some(Param {
            name: ident.unraw().to_string(),
            ident,
            ty,
            kind,
            description,
        })
    }
}

impl ParamKind {
    fn from_type(cx: &mut Ctxt, ty: &Type) -> Option<ParamKind> {
        let peeled = tool_types::peel(ty);
        if let Type::Reference(r) = peeled {
            if tool_types::is_named(&r.elem, CONTEXT) {
                if r.mutability.is_some() {
                    cx.error_spanned_by(
                        ty,
                        "the request context is shared; take it as `&Context`, not `&mut Context`",
                    );
                    return None;
                }
                return Some(ParamKind::Context { by_ref: true });
            }
            cx.error_spanned_by(
                ty,
                "a `#[tool]` argument is decoded from JSON and must own its data; use an owned type such as `String` or `Vec<T>`",
            );
            return None;
        }
        if let Type::ImplTrait(_) = peeled {
            cx.error_spanned_by(ty, "a `#[tool]` argument cannot be `impl Trait`: its input schema needs a concrete type");
            return None;
        }
        if tool_types::is_named(ty, CONTEXT) {
            return Some(ParamKind::Context { by_ref: false });
        }
        if let Some(segment) =
            last_segment(ty).filter(|s| s.ident == ELICIT_TYPE || s.ident == ELICITATION_TYPE)
        {
            return match type_args(segment).as_slice() {
                [form] if !tool_types::mentions(form, ELICIT_TYPE) => Some(ParamKind::Elicit {
                    form: Box::new((*form).clone()),
                    message: None,
                }),
                [_] => {
                    cx.error_spanned_by(ty, "`Elicit<Form>` takes a form, not another `Elicit`");
                    None
                }
                // A wrong number of type arguments is reported by rustc.
                _ => None,
            };
        }
        if tool_types::mentions(ty, ELICIT_TYPE) || tool_types::mentions(ty, ELICITATION_TYPE) {
            cx.error_spanned_by(
                ty,
                "`Elicit<Form>` must be the whole type of its parameter, not part of another type",
            );
            return None;
        }
        Some(ParamKind::Argument {
            required: tool_types::option_inner(ty).is_none(),
            header: None,
        })
    }
}

impl Output {
    fn from_syn(cx: &mut Ctxt, output: &ReturnType) -> Output {
        let ReturnType::Type(_, ty) = output else {
            return Output::Unit;
        };
        match tool_types::peel(ty) {
            Type::ImplTrait(_) => {
                cx.error_spanned_by(ty, "a `#[tool]` function cannot return `impl Trait`: name the type, so that its output schema can be built");
                return Output::Unit;
            }
            Type::Tuple(t) if t.elems.is_empty() => return Output::Unit,
            _ => {}
        }
        if let Some(segment) = last_segment(ty).filter(|s| s.ident == RESULT) {
            if let Some(ok) = type_args(segment).first() {
                return Output::Result((*ok).clone());
            }
        }
        Output::Value((**ty).clone())
    }
}
