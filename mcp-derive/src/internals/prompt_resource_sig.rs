//! The function behind a `#[prompt]` or `#[resource]`: whether it is a
//! method, whether it is `async`, and what each parameter receives (the
//! request's `mcp_server::Context`, or a value parsed from a string).

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, GenericParam, Ident, Pat, PathArguments, Receiver,
    ReceiverKind, ReturnType, Signature, Type,
};

use super::ctxt::Ctxt;
use super::prompt_resource_attr::{self as attr, Symbol, ARG, CFG, DOC};

/// Where the function is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    /// A free function (or an associated function without `self` written
    /// where only a free function can be).
    Free,
    /// A method of an `impl` block marked with the group attribute.
    Method,
}

/// The macro being expanded, for messages.
#[derive(Clone, Copy)]
pub(crate) struct Macro {
    /// `prompt` or `resource`.
    pub(crate) attr: Symbol,
    /// What its values are called: "argument" or "parameter".
    pub(crate) value_noun: &'static str,
}

/// A checked function signature.
pub(crate) struct HandlerFn {
    pub(crate) ident: Ident,
    pub(crate) is_async: bool,
    /// Whether it takes `&self`.
    pub(crate) takes_self: bool,
    pub(crate) params: Vec<Param>,
    /// The span of the return type (or of the name when there is none),
    /// where errors about the returned type belong.
    pub(crate) output_span: Span,
}

/// One parameter besides `self`.
pub(crate) struct Param {
    /// The name as written (possibly raw, `r#type`).
    pub(crate) ident: Ident,
    /// The name without `r#`.
    pub(crate) name: String,
    pub(crate) kind: ParamKind,
    /// The parameter's doc comment.
    pub(crate) docs: Option<String>,
    /// Its `#[arg(...)]` attributes.
    pub(crate) arg_attrs: Vec<Attribute>,
    /// `name: Type`, where errors about the parameter point.
    pub(crate) tokens: TokenStream,
}

/// What a parameter receives.
pub(crate) enum ParamKind {
    /// `&Context`.
    Context,
    /// A value parsed from a string with `FromStr`; `inner` is `T` for
    /// both `T` and `Option<T>`.
    Value { optional: bool, inner: Box<Type> },
}

impl Param {
    /// The parsed type and whether it is optional, for value parameters.
    pub(crate) fn value(&self) -> Option<(bool, &Type)> {
        match &self.kind {
            ParamKind::Value { optional, inner } => Some((*optional, inner)),
            ParamKind::Context => None,
        }
    }
}

/// Reads and checks `sig`.
pub(crate) fn from_syn(cx: &mut Ctxt, sig: &Signature, m: Macro, host: Host) -> HandlerFn {
    let a = m.attr;
    for param in &sig.generics.params {
        if !matches!(param, GenericParam::Lifetime(_)) {
            cx.error_spanned_by(
                param,
                format!("`#[{a}]` functions cannot have type or const parameters: each {} needs a concrete type", m.value_noun),
            );
        }
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        cx.error_spanned_by(
            unsafety,
            format!("`#[{a}]` functions cannot be `unsafe`: the generated handler would call it with nothing to uphold its contract"),
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, format!("`#[{a}]` functions cannot be variadic"));
    }
    let mut takes_self = false;
    let mut params = Vec::new();
    let mut context_seen = false;
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(receiver) => {
                takes_self = check_receiver(cx, receiver, m, host);
            }
            FnArg::Typed(typed) => {
                let Some(param) = param(cx, typed, m) else {
                    continue;
                };
                if matches!(param.kind, ParamKind::Context) {
                    if context_seen {
                        cx.error_spanned_by(
                            typed,
                            format!("`#[{a}]` takes at most one `&Context` parameter"),
                        );
                    }
                    context_seen = true;
                }
                params.push(param);
            }
        }
    }
    let output_span = match &sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => sig.ident.span(),
    };
    HandlerFn {
        ident: sig.ident.clone(),
        is_async: sig.asyncness.is_some(),
        takes_self,
        params,
        output_span,
    }
}

/// Whether the receiver is an acceptable `&self`; reports anything else.
fn check_receiver(cx: &mut Ctxt, receiver: &Receiver, m: Macro, host: Host) -> bool {
    let a = m.attr;
    if host == Host::Free {
        // The expansion reports a method outside its group before getting here.
        return false;
    }
    let shared_ref = match &receiver.kind {
        ReceiverKind::Reference(_, _, None) => receiver.mutability.is_none(),
        ReceiverKind::Typed(_, ty) => {
            matches!(&**ty, Type::Reference(r) if r.mutability.is_none() && is_self_type(&r.elem))
        }
        _ => false,
    };
    if shared_ref {
        return true;
    }
    let message = match &receiver.kind {
        ReceiverKind::Reference(_, _, Some(_)) => format!(
            "`#[{a}]` methods take `&self`, not `&mut self`: concurrent requests share the server, so it cannot be borrowed mutably; keep mutable state behind a lock"
        ),
        _ => format!(
            "`#[{a}]` methods take `&self`: concurrent requests share the server, so none of them can own it"
        ),
    };
    cx.error_spanned_by(receiver, message);
    false
}

fn is_self_type(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"))
}

fn param(cx: &mut Ctxt, typed: &syn::PatType, m: Macro) -> Option<Param> {
    let a = m.attr;
    let ident = match &*typed.pat {
        Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => pat.ident.clone(),
        other => {
            let what = if a == attr::PROMPT {
                "the name is the argument's name"
            } else {
                "the name is the URI template variable it receives"
            };
            cx.error_spanned_by(
                other,
                format!("`#[{a}]` needs a plain name for each parameter, such as `topic: String`: {what}"),
            );
            return None;
        }
    };
    let kind = param_kind(cx, &typed.ty, m)?;
    let name = syn::ext::IdentExt::unraw(&ident).to_string();
    Some(Param {
        ident,
        name,
        kind,
        docs: attr::docs(&typed.attrs),
        arg_attrs: typed
            .attrs
            .iter()
            .filter(|at| attr::is(at, ARG))
            .cloned()
            .collect(),
        tokens: {
            let (pat, colon, ty) = (&typed.pat, &typed.colon_token, &typed.ty);
            quote::quote!(#pat #colon #ty)
        },
    })
}

fn param_kind(cx: &mut Ctxt, ty: &Type, m: Macro) -> Option<ParamKind> {
    let a = m.attr;
    let noun = m.value_noun;
    match ty {
        Type::Reference(r) if is_context(&r.elem) => {
            if r.mutability.is_some() {
                cx.error_spanned_by(ty, format!("take the context as `&Context`: `#[{a}]` shares it, it cannot be borrowed mutably"));
                return None;
            }
            Some(ParamKind::Context)
        }
        Type::Reference(r) => {
            let message = if matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str")) {
                format!("`#[{a}]` {noun}s are owned values: take `String` instead of `&str`")
            } else {
                format!("`#[{a}]` {noun}s are owned values parsed from strings: take a type that implements `FromStr`, not a reference (only `&Context` may be borrowed)")
            };
            cx.error_spanned_by(ty, message);
            None
        }
        Type::ImplTrait(_) => {
            cx.error_spanned_by(
                ty,
                format!("`#[{a}]` {noun}s need a concrete type that implements `FromStr`, not `impl Trait`"),
            );
            None
        }
        _ => Some(match option_inner(ty) {
            Some(inner) => ParamKind::Value {
                optional: true,
                inner: Box::new(inner.clone()),
            },
            None => ParamKind::Value {
                optional: false,
                inner: Box::new(ty.clone()),
            },
        }),
    }
}

/// Whether `ty` names the request context (`Context`, `mcp_server::Context`).
fn is_context(ty: &Type) -> bool {
    let Type::Path(p) = ty else {
        return false;
    };
    p.qself.is_none()
        && p.path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Context" && s.arguments.is_none())
}

/// `T` when `ty` is `Option<T>` spelled `Option`, `std::option::Option` or
/// `core::option::Option`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let names: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let is_option = matches!(
        names.as_slice(),
        ["Option"] | ["std" | "core", "option", "Option"]
    );
    let last = p.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match (is_option, args.args.len(), args.args.first()) {
        (true, 1, Some(GenericArgument::Type(inner))) => Some(inner),
        _ => None,
    }
}

/// Removes the doc comments and `#[arg]` attributes of the parameters,
/// which Rust does not allow to stay there.
pub(crate) fn strip_param_attrs(sig: &mut Signature) {
    for input in &mut sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed
                .attrs
                .retain(|at| !attr::is(at, DOC) && !attr::is(at, ARG));
        }
    }
}

/// The `#[cfg(...)]` attributes among `attrs`, to put on generated code
/// that refers to the function.
pub(crate) fn cfg_attrs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|at| attr::is(at, CFG))
        .cloned()
        .collect()
}
