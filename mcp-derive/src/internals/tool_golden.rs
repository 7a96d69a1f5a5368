//! Expansion goldens for `#[tool]`, `#[tools]` and `#[derive(ElicitForm)]`:
//! each `tests/expand/<case>.rs` is expanded, pretty-printed and compared
//! with `tests/expand/<case>.expanded.rs`. Set `MCP_UPDATE_GENERATED=1` to
//! rewrite the expected files, then review the diff.

use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Item};

use crate::expand;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let mine = ["tool_", "tools_", "form_"]
                .iter()
                .any(|p| name.starts_with(p));
            mine && name.ends_with(".rs") && !name.ends_with(".expanded.rs")
        })
        .collect();
    cases.sort();
    cases
}

/// Removes the attribute whose last path segment is `name` and returns
/// its arguments.
fn take_attr(attrs: &mut Vec<Attribute>, name: &str) -> Option<TokenStream> {
    let index = attrs
        .iter()
        .position(|a| a.path().segments.last().is_some_and(|s| s.ident == name))?;
    let attr = attrs.remove(index);
    Some(match attr.meta {
        syn::Meta::List(list) => list.tokens,
        _ => TokenStream::new(),
    })
}

fn is_derive_form(attr: &Attribute) -> bool {
    attr.path().is_ident("derive") && attr.to_token_stream().to_string().contains("ElicitForm")
}

fn expand_case(source: &str) -> TokenStream {
    let file = syn::parse_file(source).unwrap_or_else(|e| panic!("the case does not parse: {e}"));
    let mut out = TokenStream::new();
    for mut item in file.items {
        let expanded = match &mut item {
            Item::Fn(func) => take_attr(&mut func.attrs, "tool")
                .map(|attr| expand::tool::expand_attr(attr, func.to_token_stream())),
            Item::Impl(block) => take_attr(&mut block.attrs, "tools")
                .map(|attr| expand::tools::expand_attr(attr, block.to_token_stream())),
            Item::Struct(s) if s.attrs.iter().any(is_derive_form) => {
                s.attrs.retain(|a| !is_derive_form(a));
                Some(expand::form::expand_derive(s.to_token_stream()))
            }
            Item::Enum(e) if e.attrs.iter().any(is_derive_form) => {
                e.attrs.retain(|a| !is_derive_form(a));
                Some(expand::form::expand_derive(e.to_token_stream()))
            }
            _ => None,
        };
        out.extend(expanded.unwrap_or_else(|| item.to_token_stream()));
    }
    out
}

fn pretty(tokens: TokenStream) -> String {
    match syn_v2::parse2::<syn_v2::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(e) => panic!("the expansion does not parse ({e}):\n{tokens}"),
    }
}

#[test]
fn expansions_match_the_goldens() {
    let update = std::env::var_os("MCP_UPDATE_GENERATED").is_some_and(|v| v == "1");
    let cases = cases();
    assert!(!cases.is_empty(), "no expansion cases found");
    let mut stale = Vec::new();
    for case in cases {
        let source = fs::read_to_string(&case).unwrap_or_default();
        let actual = pretty(expand_case(&source));
        let golden = case.with_extension("expanded.rs");
        let expected = fs::read_to_string(&golden).unwrap_or_default();
        if actual == expected {
            continue;
        }
        if update {
            fs::write(&golden, &actual)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", golden.display()));
        } else {
            stale.push(golden.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "these expansions changed; review them and rerun with MCP_UPDATE_GENERATED=1 to accept: {stale:#?}"
    );
}
