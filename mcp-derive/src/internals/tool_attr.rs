//! Reading `#[tool(...)]`, `#[header(...)]`, `#[elicit(...)]` and doc
//! comments. Every problem goes into the [`Ctxt`]; parsing goes on so that
//! one expansion reports all of them.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Lit, LitBool, LitStr, Meta, Token};

use super::ctxt::Ctxt;
use super::tool_symbol::*;

pub(crate) use super::docs::docs;

/// Parses attribute arguments as a comma-separated list of keys.
pub(crate) fn metas(cx: &mut Ctxt, tokens: TokenStream) -> Vec<Meta> {
    match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(metas) => metas.into_iter().collect(),
        Err(e) => {
            cx.syn_error(e);
            Vec::new()
        }
    }
}

/// The arguments of an attribute written `#[attr(...)]`; empty for a bare
/// `#[attr]`.
pub(crate) fn attr_metas(cx: &mut Ctxt, attr: &Attribute, what: &str) -> Vec<Meta> {
    match &attr.meta {
        Meta::Path(_) => Vec::new(),
        Meta::List(list) => metas(cx, list.tokens.clone()),
        Meta::NameValue(nv) => {
            cx.error_spanned_by(
                nv,
                format!("write `#[{what}(...)]`, with the keys in parentheses"),
            );
            Vec::new()
        }
    }
}

/// Tracks the keys of one attribute, reporting unknown and repeated ones.
pub(crate) struct Keys<'a> {
    attr: &'a str,
    known: &'a [Symbol],
    seen: Vec<String>,
}

impl<'a> Keys<'a> {
    pub(crate) fn new(attr: &'a str, known: &'a [Symbol]) -> Self {
        Keys {
            attr,
            known,
            seen: Vec::new(),
        }
    }

    /// The key of `meta` when it is known and new; otherwise records the
    /// error and returns `None`.
    pub(crate) fn accept(&mut self, cx: &mut Ctxt, meta: &Meta) -> Option<Symbol> {
        let path = meta.path();
        let Some(found) = self.known.iter().find(|k| path == **k).copied() else {
            let key = quote::ToTokens::to_token_stream(path)
                .to_string()
                .replace(' ', "");
            cx.error_spanned_by(
                path,
                format!(
                    "unknown `#[{}]` key `{key}`; expected {}",
                    self.attr,
                    Symbol::list(self.known)
                ),
            );
            return None;
        };
        if self.seen.iter().any(|s| s == found.0) {
            cx.error_spanned_by(
                path,
                format!("duplicate `#[{}]` key `{found}`; give it once", self.attr),
            );
            return None;
        }
        self.seen.push(found.0.to_owned());
        Some(found)
    }
}

/// The string of `key = "..."`.
pub(crate) fn string(cx: &mut Ctxt, attr: &str, key: Symbol, meta: &Meta) -> Option<LitStr> {
    if let Meta::NameValue(nv) = meta {
        if let Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) = &nv.value
        {
            return Some(s.clone());
        }
    }
    cx.error_spanned_by(
        meta,
        format!("`#[{attr}]` key `{key}` takes a string: `{key} = \"...\"`"),
    );
    None
}

/// A flag: `key` alone means `true`, or `key = true` / `key = false`.
pub(crate) fn flag(cx: &mut Ctxt, attr: &str, key: Symbol, meta: &Meta) -> Option<LitBool> {
    match meta {
        Meta::Path(path) => Some(LitBool::new(true, syn::spanned::Spanned::span(path))),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Bool(b), ..
            }) => Some(b.clone()),
            other => {
                cx.error_spanned_by(
                    other,
                    format!("`#[{attr}]` key `{key}` takes `true` or `false`, or stands alone"),
                );
                None
            }
        },
        Meta::List(_) => {
            cx.error_spanned_by(
                meta,
                format!("`#[{attr}]` key `{key}` takes `true` or `false`, or stands alone"),
            );
            None
        }
    }
}

/// The strings of `key = ["a", "b"]` or `key("a", "b")`.
pub(crate) fn strings(cx: &mut Ctxt, attr: &str, key: Symbol, meta: &Meta) -> Option<Vec<LitStr>> {
    let message = format!("`#[{attr}]` key `{key}` takes a list of strings: `{key}(\"a\", \"b\")`");
    let elems: Vec<Expr> = match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Array(array) => array.elems.iter().cloned().collect(),
            _ => {
                cx.error_spanned_by(meta, message);
                return None;
            }
        },
        Meta::List(list) => {
            match Punctuated::<Expr, Token![,]>::parse_terminated.parse2(list.tokens.clone()) {
                Ok(elems) => elems.into_iter().collect(),
                Err(e) => {
                    cx.syn_error(e);
                    return None;
                }
            }
        }
        Meta::Path(_) => {
            cx.error_spanned_by(meta, message);
            return None;
        }
    };
    let mut out = Vec::new();
    let mut ok = true;
    for elem in elems {
        match elem {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => out.push(s),
            other => {
                cx.error_spanned_by(other, format!("`#[{attr}]` key `{key}` lists strings only"));
                ok = false;
            }
        }
    }
    if ok && out.is_empty() {
        cx.error_spanned_by(
            meta,
            format!("`#[{attr}]` key `{key}` needs at least one value"),
        );
        return None;
    }
    ok.then_some(out)
}

/// What `#[tool(...)]` says.
#[derive(Default)]
pub(crate) struct ToolAttrs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) icons: Vec<LitStr>,
    pub(crate) read_only: Option<LitBool>,
    pub(crate) destructive: Option<LitBool>,
    pub(crate) idempotent: Option<LitBool>,
    pub(crate) open_world: Option<LitBool>,
    /// The OAuth scopes a call needs, as written.
    pub(crate) scopes: Vec<LitStr>,
    /// Whether the tool runs as a task of the tasks extension: one of
    /// [`TASK_SUPPORT`]; `None` is `"forbidden"`.
    pub(crate) task: Option<LitStr>,
    /// The `ui://` view of MCP Apps that renders the tool's results.
    pub(crate) ui: Option<LitStr>,
    /// Who may see and call the tool under MCP Apps: some of
    /// [`VISIBILITY_VALUES`]; `None` when not given.
    pub(crate) visibility: Option<Vec<LitStr>>,
}

impl ToolAttrs {
    /// Reads the arguments of `#[tool(...)]`.
    pub(crate) fn from_metas(cx: &mut Ctxt, metas: &[Meta]) -> Self {
        let attr = TOOL.0;
        let mut keys = Keys::new(attr, TOOL_KEYS);
        let mut out = ToolAttrs::default();
        for meta in metas {
            let Some(key) = keys.accept(cx, meta) else {
                continue;
            };
            match key {
                NAME => out.name = string(cx, attr, key, meta),
                TITLE => {
                    let value = string(cx, attr, key, meta);
                    out.title = non_empty(cx, value, key);
                }
                DESCRIPTION => {
                    let value = string(cx, attr, key, meta);
                    out.description = non_empty(cx, value, key);
                }
                ICON => out.icons.extend(string(cx, attr, key, meta)),
                ICONS => out
                    .icons
                    .extend(strings(cx, attr, key, meta).unwrap_or_default()),
                READ_ONLY => out.read_only = flag(cx, attr, key, meta),
                DESTRUCTIVE => out.destructive = flag(cx, attr, key, meta),
                IDEMPOTENT => out.idempotent = flag(cx, attr, key, meta),
                SCOPES => out
                    .scopes
                    .extend(strings(cx, attr, key, meta).unwrap_or_default()),
                TASK => {
                    let value = string(cx, attr, key, meta);
                    out.task = task_support(cx, value);
                }
                UI => out.ui = string(cx, attr, key, meta),
                VISIBILITY => out.visibility = strings(cx, attr, key, meta),
                _ => out.open_world = flag(cx, attr, key, meta),
            }
        }
        out
    }
}

fn task_support(cx: &mut Ctxt, value: Option<LitStr>) -> Option<LitStr> {
    let value = value?;
    if !TASK_SUPPORT.contains(&value.value().as_str()) {
        cx.error_spanned_by(
            &value,
            format!(
                "`#[tool]` key `task` is `{}`; write `task = \"optional\"` (the client may get a task) or `task = \"required\"` (only as a task), or leave it out",
                value.value()
            ),
        );
        return None;
    }
    Some(value)
}

fn non_empty(cx: &mut Ctxt, value: Option<LitStr>, key: Symbol) -> Option<LitStr> {
    let value = value?;
    if value.value().trim().is_empty() {
        cx.error_spanned_by(&value, format!("`#[tool]` key `{key}` cannot be empty"));
        return None;
    }
    Some(value)
}

/// Whether an attribute is one of the given names.
pub(crate) fn is(attr: &Attribute, name: Symbol) -> bool {
    attr.path() == name
}

/// The value of `#[header("Name")]`.
pub(crate) fn header_value(cx: &mut Ctxt, attr: &Attribute) -> Option<LitStr> {
    let message = "write the header name in parentheses: `#[header(\"Name\")]`";
    let Meta::List(list) = &attr.meta else {
        cx.error_spanned_by(attr, message);
        return None;
    };
    match syn::parse2::<LitStr>(list.tokens.clone()) {
        Ok(lit) => Some(lit),
        Err(_) => {
            cx.error_spanned_by(attr, message);
            None
        }
    }
}

/// The `message` of `#[elicit(message = "...")]`.
pub(crate) fn elicit_message(cx: &mut Ctxt, attr: &Attribute) -> Option<LitStr> {
    let a = ELICIT.0;
    let mut keys = Keys::new(a, &[MESSAGE]);
    let mut message = None;
    for meta in attr_metas(cx, attr, a) {
        if keys.accept(cx, &meta).is_some() {
            let value = string(cx, a, MESSAGE, &meta);
            message = non_empty_message(cx, value);
        }
    }
    message
}

fn non_empty_message(cx: &mut Ctxt, value: Option<LitStr>) -> Option<LitStr> {
    let value = value?;
    if value.value().trim().is_empty() {
        cx.error_spanned_by(&value, "`#[elicit]` key `message` cannot be empty");
        return None;
    }
    Some(value)
}
