//! One file per macro: each turns checked input into the generated items.

pub(crate) mod form;
pub(crate) mod prompt;
pub(crate) mod prompts;
pub(crate) mod resource;
pub(crate) mod resources;
pub(crate) mod state;
pub(crate) mod tool;
pub(crate) mod tools;

use proc_macro2::TokenStream;
use quote::quote;

/// The `__own_sets` method of a set impl: the expansion is where the type
/// is concrete, so it can probe it for all three set traits and tell the
/// builder which sets the type has (`mcp_server::server::OwnSets`).
///
/// Nothing for a generic block: there the type is not concrete, and a
/// probe would demand bounds (`'static`) the block may not have. The trait
/// default then reports no sets, and the builder serves what it is told.
pub(crate) fn own_sets(block: &syn::ItemImpl) -> Option<TokenStream> {
    if !block.generics.params.is_empty() {
        return None;
    }
    Some(quote! {
        // The borrows choose the probe: they are not needless.
        #[allow(clippy::needless_borrow)]
        fn __own_sets() -> ::mcp_server::__private::sets::OwnSets<Self> {
            #[allow(unused_imports)]
            use ::mcp_server::__private::sets::{
                FoundPrompts as _, FoundResources as _, FoundTools as _, Missing as _,
            };
            let __probe = ::mcp_server::__private::sets::Probe::<Self>::new();
            ::mcp_server::__private::sets::OwnSets::new(
                (&&__probe).__tools(),
                (&&__probe).__prompts(),
                (&&__probe).__resources(),
            )
        }
    })
}
