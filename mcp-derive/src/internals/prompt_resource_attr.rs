//! The attribute names and keys of `#[prompt]`, `#[resource]` and the
//! `#[arg]` parameter attribute, reading their argument lists, doc
//! comments, and the checks on single values (names, icons, MIME types).
//!
//! Every problem goes into the [`Ctxt`] and reading goes on, so that one
//! expansion reports all of them.

use std::fmt;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprArray, Ident, Lit, LitStr, Meta, Token};

use super::ctxt::Ctxt;

/// An attribute name or key.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Symbol(pub(crate) &'static str);

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl PartialEq<Symbol> for Ident {
    fn eq(&self, symbol: &Symbol) -> bool {
        self == symbol.0
    }
}

impl PartialEq<Symbol> for syn::Path {
    fn eq(&self, symbol: &Symbol) -> bool {
        self.is_ident(symbol.0)
    }
}

// Attributes.
pub(crate) const PROMPT: Symbol = Symbol("prompt");
pub(crate) const PROMPTS: Symbol = Symbol("prompts");
pub(crate) const RESOURCE: Symbol = Symbol("resource");
pub(crate) const RESOURCES: Symbol = Symbol("resources");
pub(crate) const ARG: Symbol = Symbol("arg");
pub(crate) const DOC: Symbol = Symbol("doc");
pub(crate) const CFG: Symbol = Symbol("cfg");

// Keys.
pub(crate) const NAME: Symbol = Symbol("name");
pub(crate) const TITLE: Symbol = Symbol("title");
pub(crate) const DESCRIPTION: Symbol = Symbol("description");
pub(crate) const ICON: Symbol = Symbol("icon");
pub(crate) const ICONS: Symbol = Symbol("icons");
pub(crate) const URI: Symbol = Symbol("uri");
pub(crate) const MIME_TYPE: Symbol = Symbol("mime_type");

/// The keys of `#[prompt(...)]`.
pub(crate) const PROMPT_KEYS: &[Symbol] = &[NAME, TITLE, DESCRIPTION, ICON, ICONS];
/// The keys of `#[resource(...)]`; the URI may also come first, unnamed.
pub(crate) const RESOURCE_KEYS: &[Symbol] =
    &[URI, NAME, TITLE, DESCRIPTION, MIME_TYPE, ICON, ICONS];
/// The keys of `#[arg(...)]` on a prompt parameter.
pub(crate) const ARG_KEYS: &[Symbol] = &[NAME, TITLE, DESCRIPTION];

/// One entry of an attribute's argument list.
enum AttrArg {
    /// A value with no key, such as the URI in `#[resource("notes://x")]`.
    Positional(Expr),
    /// `key = value`.
    KeyValue(Ident, Expr),
}

impl Parse for AttrArg {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(Ident::peek_any) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
            let key = Ident::parse_any(input)?;
            input.parse::<Token![=]>()?;
            Ok(AttrArg::KeyValue(key, input.parse()?))
        } else {
            Ok(AttrArg::Positional(input.parse()?))
        }
    }
}

/// The values an attribute gave, keyed by [`Symbol`].
#[derive(Default)]
pub(crate) struct Fields {
    strings: Vec<(Symbol, LitStr)>,
    /// Every `icon` and `icons` entry, in order.
    pub(crate) icons: Vec<LitStr>,
}

impl Fields {
    /// The string given for `key`.
    pub(crate) fn get(&self, key: Symbol) -> Option<&LitStr> {
        self.strings
            .iter()
            .find(|(symbol, _)| *symbol == key)
            .map(|(_, lit)| lit)
    }

    /// The string given for `key`, refused (and reported) when blank.
    pub(crate) fn non_empty(&self, cx: &mut Ctxt, attr: Symbol, key: Symbol) -> Option<String> {
        let lit = self.get(key)?;
        let value = lit.value();
        if value.trim().is_empty() {
            cx.error_spanned_by(lit, format!("`#[{attr}]` key `{key}` cannot be empty"));
            return None;
        }
        Some(value)
    }
}

/// Reads the arguments of `#[attr(...)]`. `known` lists the keys; when
/// `positional` is set, the first entry may be a bare string standing for
/// that key.
pub(crate) fn fields(
    cx: &mut Ctxt,
    attr: Symbol,
    tokens: TokenStream,
    known: &[Symbol],
    positional: Option<Symbol>,
) -> Fields {
    let args = match Punctuated::<AttrArg, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(args) => args,
        Err(error) => {
            cx.syn_error(error);
            return Fields::default();
        }
    };
    let mut out = Fields::default();
    let mut seen: Vec<Symbol> = Vec::new();
    for (index, arg) in args.into_iter().enumerate() {
        let (key, key_tokens, value) = match arg {
            AttrArg::Positional(value) => match positional {
                Some(key) if index == 0 => (key, value.to_token_stream(), value),
                Some(key) => {
                    cx.error_spanned_by(
                        &value,
                        format!("the unnamed `{key}` of `#[{attr}]` must come first; or write `{key} = \"...\"`"),
                    );
                    continue;
                }
                None => {
                    cx.error_spanned_by(
                        &value,
                        format!(
                            "`#[{attr}]` takes `key = \"value\"` arguments; expected {}",
                            list(known)
                        ),
                    );
                    continue;
                }
            },
            AttrArg::KeyValue(key_ident, value) => {
                let Some(key) = known.iter().copied().find(|k| key_ident == *k) else {
                    cx.error_spanned_by(
                        &key_ident,
                        format!(
                            "unknown key `{key_ident}` in `#[{attr}]`; expected {}",
                            list(known)
                        ),
                    );
                    continue;
                };
                (key, key_ident.to_token_stream(), value)
            }
        };
        if seen.contains(&key) {
            let message = if Some(key) == positional {
                format!("`#[{attr}]` already has a `{key}`; give it once, unnamed or as `{key} = \"...\"`")
            } else {
                format!("duplicate key `{key}` in `#[{attr}]`; give it once")
            };
            cx.error_spanned_by(key_tokens, message);
            continue;
        }
        seen.push(key);
        if key == ICONS {
            out.icons.extend(string_array(cx, attr, key, &value));
        } else if let Some(lit) = string(cx, attr, key, &value) {
            if key == ICON {
                out.icons.push(lit);
            } else {
                out.strings.push((key, lit));
            }
        }
    }
    out
}

/// The argument tokens of `#[attr]` or `#[attr(...)]`; `None` (reported)
/// for `#[attr = ...]`.
pub(crate) fn attr_tokens(cx: &mut Ctxt, attr: &Attribute, name: Symbol) -> Option<TokenStream> {
    match &attr.meta {
        Meta::Path(_) => Some(TokenStream::new()),
        Meta::List(list) => Some(list.tokens.clone()),
        Meta::NameValue(nv) => {
            cx.error_spanned_by(
                nv,
                format!("write `#[{name}(...)]`, with the keys in parentheses"),
            );
            None
        }
    }
}

fn string(cx: &mut Ctxt, attr: Symbol, key: Symbol, value: &Expr) -> Option<LitStr> {
    if let Expr::Lit(syn::ExprLit {
        lit: Lit::Str(lit), ..
    }) = value
    {
        return Some(lit.clone());
    }
    cx.error_spanned_by(
        value,
        format!("`#[{attr}]` key `{key}` takes a string literal: `{key} = \"...\"`"),
    );
    None
}

fn string_array(cx: &mut Ctxt, attr: Symbol, key: Symbol, value: &Expr) -> Vec<LitStr> {
    let message =
        format!("`#[{attr}]` key `{key}` takes a list of strings: `{key} = [\"...\", \"...\"]`");
    let Expr::Array(ExprArray { elems, .. }) = value else {
        cx.error_spanned_by(value, message);
        return Vec::new();
    };
    let mut out = Vec::new();
    for elem in elems {
        match elem {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(lit), ..
            }) => out.push(lit.clone()),
            other => cx.error_spanned_by(other, &message),
        }
    }
    out
}

/// "`a`, `b` or `c`".
fn list(symbols: &[Symbol]) -> String {
    let names: Vec<String> = symbols.iter().map(|s| format!("`{s}`")).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// Whether `attr` is `#[name ...]`.
pub(crate) fn is(attr: &Attribute, name: Symbol) -> bool {
    attr.path() == &name
}

/// The argument of the inert `#[prompt(..)]` or `#[resource(..)]` that a
/// group attribute leaves on a method it has read.
const COLLECTED: Symbol = Symbol("__mcp_collected");

/// The inert copy of a marker that a group attribute has read: same path
/// (so the user's import of the macro stays used), and an argument that
/// makes the macro hand the method back untouched.
pub(crate) fn collected(mark: &Attribute) -> Attribute {
    let path = mark.path();
    let collected = Ident::new(COLLECTED.0, proc_macro2::Span::call_site());
    syn::parse_quote!(#[#path(#collected)])
}

/// Whether the attribute arguments are those of [`collected`].
pub(crate) fn is_collected(tokens: &TokenStream) -> bool {
    syn::parse2::<Ident>(tokens.clone()).is_ok_and(|ident| ident == COLLECTED)
}

/// Removes and returns the attributes called `name`.
pub(crate) fn take(attrs: &mut Vec<Attribute>, name: Symbol) -> Vec<Attribute> {
    let (taken, kept) = std::mem::take(attrs)
        .into_iter()
        .partition(|attr| is(attr, name));
    *attrs = kept;
    taken
}

pub(crate) use super::docs::docs;

/// Whether `name` is a valid prompt name: 1 to 128 characters from
/// `A-Z a-z 0-9 _ - .`.
pub(crate) fn is_prompt_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The rule [`is_prompt_name`] checks, for messages.
pub(crate) const PROMPT_NAME_RULE: &str =
    "use 1 to 128 characters from `A-Z`, `a-z`, `0-9`, `_`, `-` and `.`";

/// Reports icons that are neither `https:` URLs nor `data:` URIs (what
/// clients accept).
pub(crate) fn check_icons(cx: &mut Ctxt, icons: &[LitStr]) {
    for icon in icons {
        let src = icon.value().to_ascii_lowercase();
        let scheme_ok = src.starts_with("https://") || src.starts_with("data:");
        if !scheme_ok || src.chars().any(|c| c.is_whitespace() || c.is_control()) {
            cx.error_spanned_by(
                icon,
                "an icon must be an `https:` URL or a `data:` URI, without spaces",
            );
        }
    }
}

/// Reports a MIME type that is not `type/subtype` with optional
/// `; name=value` parameters (RFC 9110 tokens).
pub(crate) fn check_mime_type(cx: &mut Ctxt, mime: &LitStr) {
    if !is_mime_type(&mime.value()) {
        cx.error_spanned_by(
            mime,
            "invalid MIME type: write `type/subtype`, such as `text/plain`, `text/markdown; charset=utf-8` or `application/json`",
        );
    }
}

fn is_mime_type(text: &str) -> bool {
    let mut params = text.split(';');
    let essence = params.next().unwrap_or_default();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    is_token(kind)
        && is_token(subtype)
        && params.all(|param| {
            let Some((name, value)) = param.trim_start_matches([' ', '\t']).split_once('=') else {
                return false;
            };
            let quoted = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .is_some_and(|inner| !inner.contains(['"', '\\']));
            is_token(name) && (is_token(value) || quoted)
        })
}

/// An RFC 9110 token: one or more of `A-Z a-z 0-9 ! # $ % & ' * + - . ^ _ ` | ~`.
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_types() {
        for good in [
            "text/plain",
            "application/json",
            "image/svg+xml",
            "text/markdown; charset=utf-8",
            "text/plain;format=\"flowed\"",
        ] {
            assert!(is_mime_type(good), "{good}");
        }
        for bad in [
            "text",
            "text/",
            "/plain",
            "text/plain;",
            "text/pl ain",
            "text/plain; charset",
        ] {
            assert!(!is_mime_type(bad), "{bad}");
        }
    }

    #[test]
    fn prompt_names() {
        assert!(is_prompt_name("code_review.v2-beta"));
        assert!(!is_prompt_name(""));
        assert!(!is_prompt_name("has space"));
        assert!(!is_prompt_name("grüße"));
        assert!(is_prompt_name(&"a".repeat(128)));
        assert!(!is_prompt_name(&"a".repeat(129)));
    }

    #[test]
    fn lists_read_naturally() {
        assert_eq!(list(&[NAME]), "`name`");
        assert_eq!(list(&[NAME, TITLE, ICON]), "`name`, `title` or `icon`");
    }
}
