//! Doc comments as descriptions, shared by every macro.

use syn::{Attribute, Expr, Lit, Meta};

/// The text of the doc comments in `attrs`, with the space after `///`
/// removed and blank `///` lines kept as paragraph breaks; `None` when there
/// is none.
pub(crate) fn docs(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        // `split`, not `lines`: an empty `///` line is a paragraph break.
        .flat_map(|doc| {
            doc.split('\n')
                .map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraph_breaks_survive() {
        let item: syn::ItemFn = syn::parse_quote! {
            /// First paragraph.
            ///
            /// Second paragraph.
            fn f() {}
        };
        assert_eq!(
            docs(&item.attrs).as_deref(),
            Some("First paragraph.\n\nSecond paragraph.")
        );
    }
}
