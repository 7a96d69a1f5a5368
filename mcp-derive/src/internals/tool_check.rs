//! Rules a tool must follow that the parser does not already enforce: the
//! name's characters and length, consistent annotations, icon schemes, the
//! `x-mcp-header` constraints, the syntax of OAuth scopes and the MCP Apps
//! keys (`ui`, `visibility`).

use super::ctxt::Ctxt;
use super::tool_ast::{ParamKind, Tool};
use super::tool_symbol::{UI_SCHEME, VISIBILITY_VALUES};
use super::tool_types::{self, Scalar};

/// The longest tool name the spec allows.
const MAX_NAME_LEN: usize = 128;

/// Checks one tool; every problem goes into `cx`.
pub(crate) fn check(cx: &mut Ctxt, tool: &Tool) {
    check_name(cx, tool);
    check_annotations(cx, tool);
    check_icons(cx, tool);
    check_headers(cx, tool);
    check_scopes(cx, tool);
    check_ui(cx, tool);
    check_visibility(cx, tool);
}

fn check_name(cx: &mut Ctxt, tool: &Tool) {
    let name = &tool.name;
    let fix = if tool.attrs.name.is_some() {
        "change `name`"
    } else {
        "rename the function or set `#[tool(name = \"...\")]`"
    };
    if name.is_empty() {
        cx.error_spanned_by(
            &tool.name_tokens,
            "a tool name cannot be empty; write at least one character",
        );
    } else if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        cx.error_spanned_by(
            &tool.name_tokens,
            format!(
                "tool name `{name}` contains {bad:?}; a tool name may hold only ASCII letters, digits, `_`, `-` and `.`: {fix}"
            ),
        );
    } else if name.len() > MAX_NAME_LEN {
        cx.error_spanned_by(
            &tool.name_tokens,
            format!(
                "tool name is {} characters long; the limit is {MAX_NAME_LEN}: {fix}",
                name.len()
            ),
        );
    }
}

fn check_annotations(cx: &mut Ctxt, tool: &Tool) {
    let attrs = &tool.attrs;
    let read_only = attrs.read_only.as_ref().is_some_and(|b| b.value);
    if let Some(destructive) = attrs.destructive.as_ref().filter(|b| b.value) {
        if read_only {
            cx.error_spanned_by(
                destructive,
                "`#[tool]` keys `read_only` and `destructive` contradict each other: a read-only tool changes nothing; drop one",
            );
        }
    }
}

fn check_icons(cx: &mut Ctxt, tool: &Tool) {
    for icon in &tool.attrs.icons {
        let src = icon.value();
        let lower = src.to_ascii_lowercase();
        if !(lower.starts_with("https://") || lower.starts_with("data:")) {
            cx.error_spanned_by(
                icon,
                "an icon must be an `https:` URL or a `data:` URI; clients refuse other schemes",
            );
        }
    }
}

/// Whether `c` may appear in an RFC 9110 token.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn check_headers(cx: &mut Ctxt, tool: &Tool) {
    let mut seen: Vec<String> = Vec::new();
    for param in &tool.params {
        let ParamKind::Argument {
            header: Some(header),
            ..
        } = &param.kind
        else {
            continue;
        };
        let value = header.value();
        if value.is_empty() {
            cx.error_spanned_by(header, "`#[header]` needs a name: `#[header(\"Region\")]`");
        } else if let Some(bad) = value.chars().find(|&c| !is_tchar(c)) {
            cx.error_spanned_by(
                header,
                format!(
                    "`#[header]` name `{value}` contains {bad:?}; a header name may hold only letters, digits and ``!#$%&'*+-.^_`|~``"
                ),
            );
        } else if seen.iter().any(|s| s.eq_ignore_ascii_case(&value)) {
            cx.error_spanned_by(
                header,
                format!("`#[header]` name `{value}` is used twice in this tool (names compare case-insensitively); pick another"),
            );
        } else {
            seen.push(value);
        }
        let ty = tool_types::option_inner(&param.ty).unwrap_or(&param.ty);
        match tool_types::scalar(ty) {
            Some(Scalar::String | Scalar::Integer | Scalar::Bool) => {}
            Some(Scalar::Float) => cx.error_spanned_by(
                &param.ty,
                "`#[header]` cannot go on a floating-point parameter: headers carry only strings, integers and booleans",
            ),
            None => cx.error_spanned_by(
                &param.ty,
                "`#[header]` goes only on a parameter of type `String`, an integer or `bool` (or an `Option` of one)",
            ),
        }
    }
}

/// Whether `c` may appear in an OAuth scope token (RFC 6749, section 3.3):
/// printable ASCII except space, `"` and `\`.
fn is_scope_char(c: char) -> bool {
    matches!(c, '\x21' | '\x23'..='\x5b' | '\x5d'..='\x7e')
}

/// The scope that asks an authorization server for a refresh token; it
/// grants nothing at a resource server.
const OFFLINE_ACCESS: &str = "offline_access";

fn check_scopes(cx: &mut Ctxt, tool: &Tool) {
    let mut seen: Vec<String> = Vec::new();
    for scope in &tool.attrs.scopes {
        let value = scope.value();
        if value.is_empty() {
            cx.error_spanned_by(
                scope,
                "`#[tool]` key `scopes` holds an empty scope; write one such as `\"notes:write\"`",
            );
        } else if let Some(bad) = value.chars().find(|&c| !is_scope_char(c)) {
            cx.error_spanned_by(
                scope,
                format!(
                    "`#[tool]` scope `{value}` contains {bad:?}; a scope may hold only printable ASCII other than space, `\"` and `\\`: list several scopes as separate strings"
                ),
            );
        } else if value == OFFLINE_ACCESS {
            cx.error_spanned_by(
                scope,
                "`#[tool]` scope `offline_access` asks the authorization server for a refresh token and grants nothing here; leave it out",
            );
        } else if seen.contains(&value) {
            cx.error_spanned_by(
                scope,
                format!("`#[tool]` scope `{value}` is listed twice; give it once"),
            );
        } else {
            seen.push(value);
        }
    }
}

fn check_ui(cx: &mut Ctxt, tool: &Tool) {
    let Some(ui) = &tool.attrs.ui else {
        return;
    };
    let value = ui.value();
    let has_scheme = value
        .get(..UI_SCHEME.len())
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(UI_SCHEME));
    if !has_scheme {
        cx.error_spanned_by(
            ui,
            format!(
                "`#[tool]` key `ui` is `{value}`; a view is a `ui://` resource: write `ui = \"ui://app/view.html\"`"
            ),
        );
    } else if value[UI_SCHEME.len()..].trim().is_empty() {
        cx.error_spanned_by(
            ui,
            "`#[tool]` key `ui` names no view; write the rest of the URI: `ui = \"ui://app/view.html\"`",
        );
    } else if let Some(bad) = value.chars().find(|c| c.is_whitespace() || c.is_control()) {
        cx.error_spanned_by(
            ui,
            format!(
                "`#[tool]` key `ui` contains {bad:?}; a URI holds no spaces or control characters"
            ),
        );
    }
}

fn check_visibility(cx: &mut Ctxt, tool: &Tool) {
    let Some(visibility) = &tool.attrs.visibility else {
        return;
    };
    let mut seen: Vec<String> = Vec::new();
    for who in visibility {
        let value = who.value();
        if !VISIBILITY_VALUES.contains(&value.as_str()) {
            cx.error_spanned_by(
                who,
                format!(
                    "`#[tool]` key `visibility` lists `{value}`; write `\"model\"` (the model sees and calls the tool), `\"app\"` (the server's views call it) or both"
                ),
            );
        } else if seen.contains(&value) {
            cx.error_spanned_by(
                who,
                format!("`#[tool]` key `visibility` lists `{value}` twice; give it once"),
            );
        } else {
            seen.push(value);
        }
    }
}
