//! One `#[prompt]`: its definition (name, title, description, icons,
//! arguments) read from the attribute, the doc comments and the
//! parameters, checked, with the function it calls.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Signature};

use super::ctxt::Ctxt;
use super::prompt_resource_attr::{
    self as attr, Symbol, ARG, ARG_KEYS, DESCRIPTION, NAME, PROMPT, PROMPT_KEYS, PROMPT_NAME_RULE,
    TITLE,
};
use super::prompt_resource_sig::{self as sig, HandlerFn, Host, Macro};

const MACRO: Macro = Macro {
    attr: PROMPT,
    value_noun: "argument",
};

/// A checked `#[prompt]`.
pub(crate) struct PromptFn {
    pub(crate) name: String,
    /// Where errors about the name point: the `name` literal, or the
    /// function's name when there is none.
    pub(crate) name_tokens: TokenStream,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) icons: Vec<String>,
    pub(crate) func: HandlerFn,
    /// One entry per value parameter, in order.
    pub(crate) args: Vec<PromptArg>,
}

/// One argument of the prompt.
pub(crate) struct PromptArg {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) required: bool,
}

/// Reads a prompt from the tokens of its attribute and the function's
/// attributes and signature. Problems go to `cx`.
pub(crate) fn from_syn(
    cx: &mut Ctxt,
    attr_tokens: TokenStream,
    attrs: &[Attribute],
    signature: &Signature,
    host: Host,
) -> PromptFn {
    let fields = attr::fields(cx, PROMPT, attr_tokens, PROMPT_KEYS, None);
    let func = sig::from_syn(cx, signature, MACRO, host);
    let (name, name_tokens) = wire_name(cx, fields.get(NAME), &func.ident, Naming::PROMPT);
    let title = fields.non_empty(cx, PROMPT, TITLE);
    let description = fields
        .non_empty(cx, PROMPT, DESCRIPTION)
        .or_else(|| attr::docs(attrs));
    attr::check_icons(cx, &fields.icons);
    let args = arguments(cx, &func);
    PromptFn {
        name,
        name_tokens,
        title,
        description,
        icons: fields.icons.iter().map(syn::LitStr::value).collect(),
        func,
        args,
    }
}

/// The arguments, from the value parameters and their `#[arg]`s and doc
/// comments; reports bad and repeated names.
fn arguments(cx: &mut Ctxt, func: &HandlerFn) -> Vec<PromptArg> {
    let mut args: Vec<PromptArg> = Vec::new();
    for param in &func.params {
        let Some((optional, _)) = param.value() else {
            if let Some(extra) = param.arg_attrs.first() {
                cx.error_spanned_by(
                    extra,
                    "`#[arg]` applies to prompt arguments, not to the `&Context` parameter",
                );
            }
            continue;
        };
        let mut fields = attr::Fields::default();
        for (index, arg_attr) in param.arg_attrs.iter().enumerate() {
            if index > 0 {
                cx.error_spanned_by(
                    arg_attr,
                    "a parameter takes one `#[arg(...)]`; merge the keys into it",
                );
                continue;
            }
            if let Some(tokens) = attr::attr_tokens(cx, arg_attr, ARG) {
                fields = attr::fields(cx, ARG, tokens, ARG_KEYS, None);
            }
        }
        let (name, name_tokens) = wire_name(cx, fields.get(NAME), &param.ident, Naming::ARGUMENT);
        if args.iter().any(|earlier| earlier.name == name) {
            cx.error_spanned_by(
                name_tokens,
                format!("two arguments of this prompt are named `{name}`; rename one with `#[arg(name = \"...\")]`"),
            );
        }
        args.push(PromptArg {
            title: fields.non_empty(cx, ARG, TITLE),
            description: fields
                .non_empty(cx, ARG, DESCRIPTION)
                .or_else(|| param.docs.clone()),
            name,
            required: !optional,
        });
    }
    args
}

/// What is being named, for [`wire_name`]'s messages.
struct Naming {
    /// "prompt" or "argument".
    what: &'static str,
    /// "function" or "parameter".
    rust_item: &'static str,
    /// The attribute that sets the name.
    attr: Symbol,
}

impl Naming {
    const PROMPT: Naming = Naming {
        what: "prompt",
        rust_item: "function",
        attr: PROMPT,
    };
    const ARGUMENT: Naming = Naming {
        what: "argument",
        rust_item: "parameter",
        attr: ARG,
    };
}

/// The name on the wire: the `name` key when given, else the Rust name
/// without `r#`. Either must follow the prompt name rule; a bad one is
/// reported on the key's value or on the Rust name. Also returns the
/// tokens later errors about the name point at.
fn wire_name(
    cx: &mut Ctxt,
    given: Option<&syn::LitStr>,
    ident: &syn::Ident,
    naming: Naming,
) -> (String, TokenStream) {
    let Naming {
        what,
        rust_item,
        attr: fix,
    } = naming;
    match given {
        Some(lit) => {
            let name = lit.value();
            if !attr::is_prompt_name(&name) {
                cx.error_spanned_by(
                    lit,
                    format!("invalid {what} name {name:?}: {PROMPT_NAME_RULE}"),
                );
            }
            (name, lit.to_token_stream())
        }
        None => {
            let name = syn::ext::IdentExt::unraw(ident).to_string();
            if !attr::is_prompt_name(&name) {
                cx.error_spanned_by(
                    ident,
                    format!("the {rust_item} name `{name}` is not a valid {what} name ({PROMPT_NAME_RULE}); set one with `#[{fix}(name = \"...\")]`"),
                );
            }
            (name, ident.to_token_stream())
        }
    }
}
