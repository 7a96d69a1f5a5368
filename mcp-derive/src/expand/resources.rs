//! `#[resources]` (being written).

use proc_macro2::TokenStream;

pub(crate) fn expand_attr(_attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut out = syn::Error::new(proc_macro2::Span::call_site(), "`#[resources]` is not implemented yet").to_compile_error();
    out.extend(item);
    out
}
