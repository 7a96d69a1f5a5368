//! The typed client's source: a module per tool (its argument and output
//! types, a constructor, the digests it was generated from) and the client
//! type with one method per tool.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::input::ToolInput;
use super::ClientSettings;
use crate::error::Error;
use crate::ir::{Body, Def, Field, Ty};
use crate::lower::unique_ident;
use crate::naming;
use crate::render::{doc, ident, items, neutralise, structs::field_type, ty_tokens};
use crate::settings::Settings;

/// One tool with its schemas lowered.
pub(super) struct Lowered<'a> {
    pub tool: ToolInput<'a>,
    pub arguments: Vec<Def>,
    /// `None` when the tool declares no output schema.
    pub output: Option<Vec<Def>>,
}

/// Method names of the client type that tools must not take.
const CLIENT_METHODS: &[&str] = &["new", "typed", "check", "call", "definitions"];

pub(super) fn file(
    client: &ClientSettings,
    settings: &Settings,
    tools: &[Lowered<'_>],
    skipped: &[String],
) -> Result<String, Error> {
    let mut taken: HashSet<String> = CLIENT_METHODS.iter().map(|s| (*s).to_owned()).collect();
    taken.insert("__private".to_owned());
    let client_name = ident(&naming::type_name(&client.client_name))?;
    let mut modules = TokenStream::new();
    let mut methods = TokenStream::new();
    let mut markers = Vec::new();
    for lowered in tools {
        let module = ident(&unique_ident(
            naming::field_name(lowered.tool.name),
            &mut taken,
        ))?;
        modules.extend(tool_module(settings, &module, lowered)?);
        methods.extend(method(settings, &client_name, &module, &lowered.tool));
        markers.push(quote!(<#module::Tool as ::mcp_host::typed::Tool>::DEFINITION));
    }
    let mut text = String::from(
        "Typed calls of the tools below, through the approval gate of `mcp-host`.\n\n\
         Each method checks the tool against the server's live definition and \
         prepares a call; authorize it, then send it with `call`.",
    );
    for note in skipped {
        text.push_str(&format!(
            "\n\nSkipped from the tool list: {}.",
            neutralise(note)
        ));
    }
    let docs = doc(&text, false);
    let client_items = quote! {
        #docs
        #[derive(Debug, Clone)]
        pub struct #client_name {
            typed: ::mcp_host::typed::TypedClient,
        }

        impl #client_name {
            /// The definitions of every tool, as generated.
            pub const DEFINITIONS: &'static [::mcp_host::typed::Definition] = &[#(#markers),*];

            /// Typed calls over `typed`.
            pub fn new(typed: ::mcp_host::typed::TypedClient) -> Self {
                Self { typed }
            }

            /// The client underneath.
            pub fn typed(&self) -> &::mcp_host::typed::TypedClient {
                &self.typed
            }

            /// Compares every tool with the server's live definition; call it
            /// after connecting to learn of drift before any call.
            ///
            /// # Errors
            /// When the tools cannot be listed.
            pub async fn check(&self) -> ::core::result::Result<::std::vec::Vec<::mcp_host::typed::Drift>, ::mcp_host::typed::TypedError> {
                self.typed.check(Self::DEFINITIONS).await
            }

            /// Sends a prepared call under its approval and decodes the result.
            ///
            /// # Errors
            /// As [`::mcp_host::typed::TypedClient::call`].
            pub async fn call<T: ::mcp_host::typed::Tool>(
                &self,
                prepared: ::mcp_host::typed::Prepared<T>,
                approval: ::mcp_host::Approval,
                options: &::mcp_host::client::CallOptions,
            ) -> ::core::result::Result<::mcp_host::Untrusted<T::Output>, ::mcp_host::typed::TypedError> {
                self.typed.call(prepared, approval, options).await
            }

            #methods
        }

        #modules
    };
    crate::render::file(client_items, settings)
}

/// The docs of a tool: our words, then the server's neutralised.
fn tool_docs(tool: &ToolInput<'_>, settings: &Settings) -> TokenStream {
    let mut text = format!("The tool {}", neutralise(tool.name));
    if let Some(title) = tool.title {
        text.push_str(&format!(" ({})", neutralise(title)));
    }
    text.push('.');
    let mut docs = doc(&text, false);
    if let (Some(description), true) = (tool.description, settings.descriptions) {
        docs.extend(quote!(#[doc = ""]));
        docs.extend(doc(description, true));
    }
    docs
}

fn method(
    settings: &Settings,
    client: &proc_macro2::Ident,
    module: &proc_macro2::Ident,
    tool: &ToolInput<'_>,
) -> TokenStream {
    let docs = tool_docs(tool, settings);
    let text = format!(
        "\nChecks the tool against the server's live definition and prepares \
         the call: authorize `prepared.call()`, then pass it to [`{client}::call`].\n\n\
         # Errors\n[`Drift`](::mcp_host::typed::Drift), and the errors of listing the tools."
    );
    let how = doc(&text, false);
    quote! {
        #docs
        #how
        pub async fn #module(
            &self,
            arguments: #module::Arguments,
        ) -> ::core::result::Result<::mcp_host::typed::Prepared<#module::Tool>, ::mcp_host::typed::TypedError> {
            self.typed.prepare::<#module::Tool>(arguments).await
        }
    }
}

fn tool_module(
    settings: &Settings,
    module: &proc_macro2::Ident,
    lowered: &Lowered<'_>,
) -> Result<TokenStream, Error> {
    let tool = &lowered.tool;
    let mut body = items(&lowered.arguments, settings)?;
    body.extend(constructors(&lowered.arguments, &tool.input)?);
    match &lowered.output {
        Some(defs) => body.extend(items(defs, settings)?),
        None => body.extend(quote! {
            /// The tool declares no output schema: its result is its content blocks.
            pub type Output = ::mcp_host::typed::Content;
        }),
    }
    let digests = mcp_digest::tool(tool.definition);
    let (digest, shape) = (&digests.definition, &digests.shape);
    let name = tool.name;
    let output_schema = match tool.output {
        Some(schema) => {
            let text = serde_json::to_string(schema).map_err(|e| Error::Internal(e.to_string()))?;
            quote!(::core::option::Option::Some(#text))
        }
        None => quote!(::core::option::Option::None),
    };
    let docs = tool_docs(tool, settings);
    let index = format!(" Entry {} of the tool list.", tool.index);
    Ok(quote! {
        #docs
        #[doc = ""]
        #[doc = #index]
        #[allow(clippy::all, unused_imports)]
        pub mod #module {
            use super::__private;

            #body

            /// The tool itself, for [`::mcp_host::typed::TypedClient`].
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            pub struct Tool;

            impl ::mcp_host::typed::Tool for Tool {
                type Arguments = Arguments;
                type Output = Output;
                const DEFINITION: ::mcp_host::typed::Definition = ::mcp_host::typed::Definition {
                    name: #name,
                    digest: #digest,
                    shape_digest: #shape,
                    output_schema: #output_schema,
                };
            }
        }
    })
}

/// Constructors for every struct of the arguments (see [`constructor`]).
fn constructors(defs: &[Def], schema: &Value) -> Result<TokenStream, Error> {
    let mut out = TokenStream::new();
    for def in defs {
        out.extend(constructor(def, defs, schema)?);
    }
    Ok(out)
}

/// `new` taking the required fields, and a `with_` setter for each
/// optional one, when `def` is a struct.
fn constructor(def: &Def, defs: &[Def], schema: &Value) -> Result<TokenStream, Error> {
    let Body::Struct(s) = &def.body else {
        return Ok(TokenStream::new());
    };
    let name = ident(&def.name)?;
    let required: Vec<&str> = schema
        .pointer(&def.pointer)
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let consts: HashSet<&str> = defs
        .iter()
        .filter(|d| matches!(d.body, Body::Const { .. }))
        .map(|d| d.name.as_str())
        .collect();
    let is_const = |f: &Field| matches!(&f.ty, Ty::Named(n) if consts.contains(n.as_str()));
    let mut params = Vec::new();
    let mut inits = Vec::new();
    let mut setters = Vec::new();
    for f in &s.fields {
        let field = ident(&f.ident)?;
        if f.required && !f.nullable && !is_const(f) {
            let ty = field_type(f)?;
            // Parameters in the order of `required`, which is the order of
            // declaration for schemars, pydantic and zod.
            let at = required
                .iter()
                .position(|r| *r == f.wire)
                .unwrap_or(usize::MAX);
            params.push((at, quote!(#field: impl ::core::convert::Into<#ty>)));
            inits.push(quote!(#field: #field.into(),));
            continue;
        }
        inits.push(quote!(#field: ::core::default::Default::default(),));
        if f.required {
            continue;
        }
        let mut inner = ty_tokens(&f.ty)?;
        if f.boxed {
            inner = quote!(::std::boxed::Box<#inner>);
        }
        if f.nullable {
            inner = quote!(::core::option::Option<#inner>);
        }
        let setter = format_ident!("with_{}", f.ident);
        let docs = doc(&format!("Sets {}.", neutralise(&f.wire)), false);
        setters.push(quote! {
            #docs
            #[must_use]
            pub fn #setter(mut self, value: impl ::core::convert::Into<#inner>) -> Self {
                self.#field = ::core::option::Option::Some(value.into());
                self
            }
        });
    }
    if let Some((extra, _)) = &s.extra {
        let extra = ident(extra)?;
        inits.push(quote!(#extra: ::core::default::Default::default(),));
    }
    params.sort_by_key(|(at, _)| *at);
    let params = params.into_iter().map(|(_, p)| p);
    Ok(quote! {
        impl #name {
            /// A value from the fields the schema requires.
            #[allow(clippy::too_many_arguments)]
            pub fn new(#(#params),*) -> Self {
                Self { #(#inits)* }
            }

            #(#setters)*
        }
    })
}
