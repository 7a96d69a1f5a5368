//! `#[resource]` on a free function: the function itself, plus a
//! unit-like struct of the same name (type namespace only) that implements
//! `mcp_server::resource::ResourceHandler` for every server type. A fixed
//! URI makes a resource; a URI with variables makes a resource template.
//!
//! [`spec`] and [`read_body`] are shared with `#[resources]`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::internals::ctxt::Ctxt;
use crate::internals::prompt_resource_attr::{RESOURCE, RESOURCES};
use crate::internals::prompt_resource_group::Names;
use crate::internals::prompt_resource_sig::{self as sig, Host};
use crate::internals::resource_ast::{self, ResourceFn};

use super::prompt::{bind_params, finish, front, handler_struct, option, output_ident, Callee};

const NAMES: Names = Names {
    group: RESOURCES,
    marker: RESOURCE,
};

pub(crate) fn expand_attr(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func = match front(&attr, item, NAMES) {
        Ok(func) => func,
        Err(output) => return output,
    };
    let mut cx = Ctxt::new();
    let resource = resource_ast::from_syn(
        &mut cx,
        attr,
        TokenStream::new(),
        &func.attrs,
        &func.sig,
        Host::Free,
    );
    sig::strip_param_attrs(&mut func.sig);
    finish(cx, &func, || handler(&func, &resource), || fallback(&func))
}

/// The struct and its `ResourceHandler` implementation.
fn handler(func: &ItemFn, resource: &ResourceFn) -> TokenStream {
    let ident = &func.sig.ident;
    let spec = spec(resource);
    let body = read_body(resource, &quote!(Self::__MCP_RESOURCE), Callee::Free(ident));
    let definition = if resource.is_template() {
        quote!(Template(Self::__MCP_RESOURCE.template()))
    } else {
        quote!(Resource(Self::__MCP_RESOURCE.resource()))
    };
    let head = handler_struct(func, "resource");
    let read = read_signature();
    let cfgs = sig::cfg_attrs(&func.attrs);
    quote! {
        #head

        #(#cfgs)*
        const _: () = {
            impl #ident {
                #[doc(hidden)]
                pub const __MCP_RESOURCE: ::mcp_server::__private::resource::ResourceSpec = #spec;
            }

            #[automatically_derived]
            impl<__S: ?::core::marker::Sized> ::mcp_server::resource::ResourceHandler<__S> for #ident {
                fn definition(&self) -> ::mcp_server::resource::ResourceDefinition {
                    ::mcp_server::resource::ResourceDefinition::#definition
                }

                #read {
                    #body
                }
            }
        };
    }
}

/// The signature of `ResourceHandler::read`, with the hidden parameter
/// names the body uses.
fn read_signature() -> TokenStream {
    quote! {
        fn read<'__a>(
            &'__a self,
            __server: &'__a __S,
            __cx: &'__a ::mcp_server::Context,
            __uri: &'__a ::core::primitive::str,
            __variables: ::std::collections::BTreeMap<::std::string::String, ::std::string::String>,
        ) -> ::mcp_server::BoxFuture<
            '__a,
            ::core::result::Result<::mcp_server::resource::ResourceOutput, ::mcp_server::ErrorObject>,
        >
    }
}

/// What a failed expansion leaves behind besides the errors: the struct
/// and an implementation that is never run.
fn fallback(func: &ItemFn) -> TokenStream {
    let ident = &func.sig.ident;
    let name = syn::ext::IdentExt::unraw(ident).to_string();
    let head = handler_struct(func, "resource");
    let read = read_signature();
    quote! {
        #head

        const _: () = {
            impl #ident {
                #[doc(hidden)]
                pub const __MCP_RESOURCE: ::mcp_server::__private::resource::ResourceSpec =
                    ::mcp_server::__private::resource::ResourceSpec {
                        uri: #name,
                        name: #name,
                        title: ::core::option::Option::None,
                        description: ::core::option::Option::None,
                        mime_type: ::core::option::Option::None,
                        icons: &[],
                    };
            }

            impl<__S: ?::core::marker::Sized> ::mcp_server::resource::ResourceHandler<__S> for #ident {
                fn definition(&self) -> ::mcp_server::resource::ResourceDefinition {
                    ::core::unreachable!()
                }

                #read {
                    ::core::unreachable!()
                }
            }
        };
    }
}

/// The `ResourceSpec` constant expression of a resource.
pub(crate) fn spec(resource: &ResourceFn) -> TokenStream {
    let uri = &resource.uri;
    let name = &resource.name;
    let title = option(resource.title.as_deref());
    let description = option(resource.description.as_deref());
    let mime_type = option(resource.mime_type.as_deref());
    let icons = &resource.icons;
    quote! {
        ::mcp_server::__private::resource::ResourceSpec {
            uri: #uri,
            name: #name,
            title: #title,
            description: #description,
            mime_type: #mime_type,
            icons: &[#(#icons),*],
        }
    }
}

/// The boxed future answering `resources/read`: parse the template
/// variables (in `__variables`), call the function, convert what it
/// returns. `spec` is a path to the resource's `ResourceSpec` constant.
pub(crate) fn read_body(
    resource: &ResourceFn,
    spec: &TokenStream,
    callee: Callee<'_>,
) -> TokenStream {
    let names: Vec<&str> = resource
        .func
        .params
        .iter()
        .filter(|p| p.value().is_some())
        .map(|p| p.name.as_str())
        .collect();
    let (bindings, call_args) = bind_params(&resource.func, &names);
    let take_variables = (!bindings.is_empty()).then(|| {
        quote! {
            let mut __args = ::mcp_server::__private::resource::Arguments::for_uri(__variables);
        }
    });
    let call = callee.call(&call_args);
    let wait = resource.func.is_async.then(|| quote!(.await));
    let output = output_ident(&resource.func);
    quote! {
        ::std::boxed::Box::pin(async move {
            #take_variables
            #(#bindings)*
            let #output = #call #wait;
            ::mcp_server::__private::resource::finish(
                ::mcp_server::resource::IntoResourceResult::into_resource_result(#output, __uri),
                __uri,
                #spec.mime_type,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::expand_attr;
    use crate::internals::prompt_resource_golden::assert_expansion;

    #[test]
    fn fixed_uri() {
        assert_expansion(
            "resource_fixed",
            expand_attr(
                quote!(
                    "config://app",
                    mime_type = "application/json",
                    title = "App config"
                ),
                quote! {
                    /// The application's configuration.
                    pub fn config() -> String {
                        "{}".to_owned()
                    }
                },
            ),
        );
    }

    #[test]
    fn template() {
        assert_expansion(
            "resource_template",
            expand_attr(
                quote!(
                    uri = "notes://{folder}/{id}{?rev}",
                    name = "note",
                    mime_type = "text/markdown"
                ),
                quote! {
                    /// One note.
                    pub async fn read_note(
                        cx: &::mcp_server::Context,
                        folder: String,
                        id: u64,
                        rev: Option<u32>,
                    ) -> ::core::result::Result<::std::string::String, ::mcp_server::ErrorObject> {
                        let _ = cx;
                        Ok(format!("{folder}/{id}@{rev:?}"))
                    }
                },
            ),
        );
    }
}
