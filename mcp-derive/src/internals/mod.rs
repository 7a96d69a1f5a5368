//! Parsing and checking shared by the macros.

pub(crate) mod ctxt;
pub(crate) mod docs;
pub(crate) mod form_ast;
pub(crate) mod prompt_ast;
pub(crate) mod prompt_resource_attr;
#[cfg(test)]
pub(crate) mod prompt_resource_golden;
pub(crate) mod prompt_resource_group;
pub(crate) mod prompt_resource_sig;
pub(crate) mod resource_ast;
pub(crate) mod tool_ast;
pub(crate) mod tool_attr;
pub(crate) mod tool_check;
pub(crate) mod tool_symbol;
pub(crate) mod tool_types;

#[cfg(test)]
mod tool_golden;

/// The URI template parser `mcp-server` serves resources with, so that
/// `#[resource]` refuses at compile time exactly what the runtime would.
pub(crate) use mcp_uri_template as uri_template_parse;
