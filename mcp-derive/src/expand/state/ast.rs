//! `#[derive(RequestState)]` input: parsed from syn, checked, with every
//! mistake recorded at the token that causes it.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use crate::internals::ctxt::Ctxt;

/// The attribute this derive reads.
pub(super) const STATE: &str = "state";
/// Field key: the field is part of the request identity.
pub(super) const BIND: &str = "bind";
/// Struct key: the lifetime of sealed state, in seconds.
pub(super) const TTL_SECS: &str = "ttl_secs";
/// The longest `ttl_secs` accepted: request state should be short-lived.
pub(super) const MAX_TTL_SECS: u64 = 86_400;

/// A struct that derives `RequestState`, as far as the derive needs it.
pub(super) struct Container<'a> {
    pub(super) ident: &'a syn::Ident,
    /// `ttl_secs` and the literal it came from.
    pub(super) ttl_secs: Option<(u64, Span)>,
    pub(super) fields: Vec<Field<'a>>,
}

/// A named field.
pub(super) struct Field<'a> {
    pub(super) ident: &'a syn::Ident,
    pub(super) ty: &'a syn::Type,
    pub(super) bind: bool,
}

impl<'a> Container<'a> {
    /// Parses and checks `input`, recording every mistake in `cx`; returns
    /// `None` if there was any.
    pub(super) fn from_syn(cx: &mut Ctxt, input: &'a syn::DeriveInput) -> Option<Self> {
        let ttl_secs = container_attrs(cx, &input.attrs);
        check_generics(cx, &input.generics);
        let fields = match &input.data {
            syn::Data::Struct(data) => match &data.fields {
                syn::Fields::Named(named) => {
                    named.named.iter().filter_map(|f| field(cx, f)).collect()
                }
                syn::Fields::Unit => Vec::new(),
                syn::Fields::Unnamed(unnamed) => {
                    cx.error_spanned_by(
                        unnamed,
                        "`#[derive(RequestState)]` does not support tuple structs, because \
                         `#[state(bind)]` names its fields; give the fields names: \
                         `struct Name { field: Type }`",
                    );
                    return None;
                }
            },
            syn::Data::Enum(data) => {
                cx.error_spanned_by(
                    data.enum_token,
                    "`#[derive(RequestState)]` supports structs only, not enums; \
                     put the enum in a field of a struct that derives it",
                );
                return None;
            }
            syn::Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "`#[derive(RequestState)]` supports structs only, not unions; \
                     use a struct with named fields",
                );
                return None;
            }
        };
        if cx.has_errors() {
            return None;
        }
        Some(Container {
            ident: &input.ident,
            ttl_secs,
            fields,
        })
    }

    /// The fields marked `#[state(bind)]`, in declaration order.
    pub(super) fn bound(&self) -> impl Iterator<Item = &Field<'a>> {
        self.fields.iter().filter(|f| f.bind)
    }
}

fn check_generics(cx: &mut Ctxt, generics: &syn::Generics) {
    if !generics.params.is_empty() {
        cx.error_spanned_by(
            &generics.params,
            "`#[derive(RequestState)]` does not support generic parameters; \
             state is opened from untrusted input into one concrete type, so \
             declare the struct without `<...>`",
        );
    } else if let Some(clause) = &generics.where_clause {
        cx.error_spanned_by(
            clause,
            "`#[derive(RequestState)]` does not support `where` clauses; remove it",
        );
    }
}

/// The `#[state(...)]` attributes in `attrs`, each handed to `each` key by
/// key. A bare `#[state]` or `#[state = ...]` is an error.
fn for_each_key(
    cx: &mut Ctxt,
    attrs: &[syn::Attribute],
    mut each: impl FnMut(&mut Ctxt, &str, &ParseNestedMeta<'_>) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident(STATE)) {
        if let syn::Meta::List(list) = &attr.meta {
            if list.tokens.is_empty() {
                cx.error_spanned_by(
                    attr,
                    "empty `#[state()]`; write `#[state(bind)]` on a field or \
                     `#[state(ttl_secs = N)]` on the struct, or remove it",
                );
                continue;
            }
        } else {
            cx.error_spanned_by(
                attr,
                "expected `#[state(...)]`, such as `#[state(bind)]` on a field or \
                 `#[state(ttl_secs = N)]` on the struct",
            );
            continue;
        }
        let parsed = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            each(cx, &key, &meta)
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
}

/// Consumes the value of a key that was reported as a mistake, so the
/// next key is still read.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
    }
    Ok(())
}

fn path_text(meta: &ParseNestedMeta<'_>) -> String {
    let path = &meta.path;
    quote::quote!(#path).to_string().replace(' ', "")
}

/// The struct's `#[state(...)]` keys; returns `ttl_secs`.
fn container_attrs(cx: &mut Ctxt, attrs: &[syn::Attribute]) -> Option<(u64, Span)> {
    let mut ttl: Option<(u64, Span)> = None;
    let mut ttl_seen = false;
    for_each_key(cx, attrs, |cx, key, meta| {
        match key {
            TTL_SECS => {
                if ttl_seen {
                    cx.error_spanned_by(
                        &meta.path,
                        "duplicate `ttl_secs` in `#[state(...)]`; keep only one",
                    );
                    return skip_value(meta);
                }
                ttl_seen = true;
                if !meta.input.peek(syn::Token![=]) {
                    cx.error_spanned_by(
                        &meta.path,
                        "`ttl_secs` needs a value: write `#[state(ttl_secs = 300)]`",
                    );
                    return skip_value(meta);
                }
                let value: syn::Expr = meta.value()?.parse()?;
                ttl = ttl_value(cx, &value);
            }
            BIND => {
                cx.error_spanned_by(
                    &meta.path,
                    "`bind` belongs on a field, not on the struct: write `#[state(bind)]` \
                     above each field that identifies the request",
                );
                skip_value(meta)?;
            }
            _ => {
                cx.error_spanned_by(
                    &meta.path,
                    format!(
                        "unknown key `{}` in `#[state(...)]` on a struct; the struct accepts \
                         `ttl_secs = N`, and fields accept `bind`",
                        path_text(meta)
                    ),
                );
                skip_value(meta)?;
            }
        }
        Ok(())
    });
    ttl
}

fn ttl_value(cx: &mut Ctxt, value: &syn::Expr) -> Option<(u64, Span)> {
    let int = match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) => int,
        _ => {
            cx.error_spanned_by(
                value,
                "`ttl_secs` takes a whole number of seconds as an integer literal, \
                 like `ttl_secs = 300`",
            );
            return None;
        }
    };
    let too_long = format!(
        "`ttl_secs` must be at most {MAX_TTL_SECS} (one day); request state should be \
         short-lived, so start a new exchange instead of keeping state longer"
    );
    match int.base10_parse::<u64>() {
        Ok(0) => {
            cx.error_spanned_by(
                int,
                "`ttl_secs` must be at least 1: state that expires at once can never be opened",
            );
            None
        }
        Ok(secs) if secs <= MAX_TTL_SECS => Some((secs, int.span())),
        _ => {
            cx.error_spanned_by(int, too_long);
            None
        }
    }
}

/// A named field and its `#[state(...)]` keys.
fn field<'a>(cx: &mut Ctxt, field: &'a syn::Field) -> Option<Field<'a>> {
    let mut bind = false;
    for_each_key(cx, &field.attrs, |cx, key, meta| {
        match key {
            BIND => {
                if bind {
                    cx.error_spanned_by(
                        &meta.path,
                        "duplicate `bind` on this field; one `#[state(bind)]` is enough",
                    );
                } else {
                    bind = true;
                }
                if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    cx.error_spanned_by(
                        &meta.path,
                        "`bind` takes no value: write `#[state(bind)]`",
                    );
                    skip_value(meta)?;
                }
            }
            TTL_SECS => {
                cx.error_spanned_by(
                    &meta.path,
                    "`ttl_secs` belongs on the struct, not on a field: move it to a \
                     `#[state(ttl_secs = N)]` above the struct",
                );
                skip_value(meta)?;
            }
            _ => {
                cx.error_spanned_by(
                    &meta.path,
                    format!(
                        "unknown key `{}` in `#[state(...)]` on a field; fields accept `bind`, \
                         and the struct accepts `ttl_secs = N`",
                        path_text(meta)
                    ),
                );
                skip_value(meta)?;
            }
        }
        Ok(())
    });
    let ident = field.ident.as_ref()?;
    Some(Field {
        ident,
        ty: &field.ty,
        bind,
    })
}

/// The span of a field's type, where type errors about it belong.
pub(super) fn type_span(field: &Field<'_>) -> Span {
    field.ty.span()
}
