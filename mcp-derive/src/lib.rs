//! Attribute and derive macros that turn plain Rust functions and types into
//! Model Context Protocol tools, prompts, resources, elicitation forms and
//! sealed request state.
//!
//! The generated code refers to `::mcp_server` and `::mcp_types`; use the
//! macros through `mcp_server`, which re-exports them.
//!
//! Every entry point below is a few lines: parsing, checking and expansion
//! live in `internals/` and `expand/`, written against `proc_macro2` so they
//! can be unit-tested.

#![deny(missing_docs)]

mod expand;
mod internals;

use proc_macro::TokenStream;

/// Turns a function into a tool. See `mcp_server::tool`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool::expand_attr(attr.into(), item.into()).into()
}

/// Groups the `#[tool]` methods of an `impl` block into one tool set.
/// See `mcp_server::tools`.
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::tools::expand_attr(attr.into(), item.into()).into()
}

/// Turns a function into a prompt. See `mcp_server::prompt`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::prompt::expand_attr(attr.into(), item.into()).into()
}

/// Groups the `#[prompt]` methods of an `impl` block into one prompt set.
/// See `mcp_server::prompts`.
#[proc_macro_attribute]
pub fn prompts(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::prompts::expand_attr(attr.into(), item.into()).into()
}

/// Turns a function into a resource or resource template. See
/// `mcp_server::resource`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::resource::expand_attr(attr.into(), item.into()).into()
}

/// Groups the `#[resource]` methods of an `impl` block into one resource
/// set. See `mcp_server::resources`.
#[proc_macro_attribute]
pub fn resources(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::resources::expand_attr(attr.into(), item.into()).into()
}

/// Derives sealed, resumable request state. See `mcp_server::RequestState`.
#[proc_macro_derive(RequestState, attributes(state))]
pub fn derive_request_state(input: TokenStream) -> TokenStream {
    expand::state::expand_derive(input.into()).into()
}

/// Derives an elicitation form schema. See `mcp_server::ElicitForm`.
#[proc_macro_derive(ElicitForm, attributes(form))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    expand::form::expand_derive(input.into()).into()
}
