//! One `#[resource]`: its URI or URI template, its definition, and the
//! function it calls, with the template's variables and the function's
//! parameters checked against each other.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, LitStr, Signature};

use super::ctxt::Ctxt;
use super::prompt_resource_attr::{
    self as attr, DESCRIPTION, MIME_TYPE, NAME, RESOURCE, RESOURCE_KEYS, TITLE, URI,
};
use super::prompt_resource_sig::{self as sig, HandlerFn, Host, Macro};
use super::uri_template_parse::UriTemplate;

const MACRO: Macro = Macro {
    attr: RESOURCE,
    value_noun: "parameter",
};

/// A checked `#[resource]`.
pub(crate) struct ResourceFn {
    /// The URI or template text.
    pub(crate) uri: String,
    /// The URI literal, where errors about it point.
    pub(crate) uri_tokens: TokenStream,
    /// The parsed template; `None` when it did not parse (already
    /// reported).
    pub(crate) template: Option<UriTemplate>,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) icons: Vec<String>,
    pub(crate) func: HandlerFn,
}

impl ResourceFn {
    /// Whether the URI has variables, making this a resource template.
    pub(crate) fn is_template(&self) -> bool {
        self.template.as_ref().is_some_and(|t| !t.is_fixed())
    }
}

/// Reads a resource from the tokens of its attribute, the function's
/// attributes and its signature. `attr_site` is what a missing URI is
/// reported on (the attribute). Problems go to `cx`.
pub(crate) fn from_syn(
    cx: &mut Ctxt,
    attr_tokens: TokenStream,
    attr_site: TokenStream,
    attrs: &[Attribute],
    signature: &Signature,
    host: Host,
) -> ResourceFn {
    let fields = attr::fields(cx, RESOURCE, attr_tokens, RESOURCE_KEYS, Some(URI));
    let func = sig::from_syn(cx, signature, MACRO, host);
    let mut renamed = false;
    for param in &func.params {
        if let Some(extra) = param.arg_attrs.first() {
            cx.error_spanned_by(
                extra,
                "`#[arg]` applies to prompt arguments; a resource parameter is named by its URI template variable",
            );
            renamed = true;
        }
    }
    let (uri, uri_tokens, template) = match fields.get(URI) {
        // After a refused `#[arg]`, which parameter meant which variable is
        // unclear: comparing them would only add errors.
        Some(lit) => (
            lit.value(),
            lit.to_token_stream(),
            template(cx, lit, &func, !renamed),
        ),
        None => {
            cx.error_spanned_by(
                attr_site,
                "`#[resource]` needs a URI: write `#[resource(\"notes://{id}\")]` or `#[resource(uri = \"...\")]`",
            );
            (String::new(), TokenStream::new(), None)
        }
    };
    let name = fields
        .non_empty(cx, RESOURCE, NAME)
        .unwrap_or_else(|| syn::ext::IdentExt::unraw(&func.ident).to_string());
    let mime_type = fields.get(MIME_TYPE).map(|lit| {
        attr::check_mime_type(cx, lit);
        lit.value()
    });
    attr::check_icons(cx, &fields.icons);
    ResourceFn {
        uri,
        uri_tokens,
        template,
        name,
        title: fields.non_empty(cx, RESOURCE, TITLE),
        description: fields
            .non_empty(cx, RESOURCE, DESCRIPTION)
            .or_else(|| attr::docs(attrs)),
        mime_type,
        icons: fields.icons.iter().map(LitStr::value).collect(),
        func,
    }
}

/// Parses the URI and, when `compare` is set, checks its variables against
/// the parameters, both ways.
fn template(cx: &mut Ctxt, lit: &LitStr, func: &HandlerFn, compare: bool) -> Option<UriTemplate> {
    let text = lit.value();
    let template = match UriTemplate::parse(&text) {
        Ok(template) => template,
        Err(error) => {
            cx.error_spanned_by(lit, format!("invalid URI template: {error}"));
            return None;
        }
    };
    if template.scheme().is_none() {
        cx.error_spanned_by(
            lit,
            "a resource URI starts with a scheme, such as `notes://{id}` or `file:///{+path}`",
        );
    }
    if !compare {
        return Some(template);
    }
    let optional: Vec<&str> = template.optional_variables().collect();
    for variable in template.variables() {
        let found = func
            .params
            .iter()
            .any(|p| p.value().is_some() && p.name == variable);
        if !found {
            let ty = if optional.contains(&variable) {
                "Option<String>"
            } else {
                "String"
            };
            cx.error_spanned_by(
                lit,
                format!("the URI template variable `{variable}` has no parameter; add `{variable}: {ty}` to the function"),
            );
        }
    }
    for param in &func.params {
        let Some((is_option, _)) = param.value() else {
            continue;
        };
        let name = &param.name;
        if !template.variables().any(|v| v == name) {
            let message = if template.is_fixed() {
                format!("`{name}` receives nothing: the URI `{text}` is fixed; add `{{{name}}}` to it to make a template, or remove the parameter")
            } else {
                format!("`{name}` is not a variable of the URI template `{text}`; add `{{{name}}}` to the template or remove the parameter")
            };
            cx.error_spanned_by(&param.tokens, message);
        } else if is_option && !optional.contains(&name.as_str()) {
            cx.error_spanned_by(
                &param.tokens,
                format!("`{name}` is always present when `{text}` matches; take it without `Option` (only `{{?...}}` and `{{&...}}` variables may be missing)"),
            );
        }
    }
    Some(template)
}
