//! Derive (being written).

use proc_macro2::TokenStream;

pub(crate) fn expand_derive(_input: TokenStream) -> TokenStream {
    syn::Error::new(proc_macro2::Span::call_site(), "this derive is not implemented yet").to_compile_error()
}
