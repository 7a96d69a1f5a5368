//! The expansion goldens of `#[prompt]`, `#[prompts]`, `#[resource]` and
//! `#[resources]` (checked in under `mcp-derive/tests/expand/`, compared by
//! mcp-derive's unit tests) must also compile, so they cannot drift into
//! code that no longer builds against this crate.

#![allow(dead_code)]

mod prompt_free_fn {
    include!("../../mcp-derive/tests/expand/prompt_free_fn.rs");
}

mod prompt_async_keys {
    include!("../../mcp-derive/tests/expand/prompt_async_keys.rs");
}

mod prompt_impl_block {
    use mcp_server::prompt;

    pub(super) struct Server {
        pub(super) greeting: String,
    }

    include!("../../mcp-derive/tests/expand/prompt_impl_block.rs");
}

mod resource_fixed {
    include!("../../mcp-derive/tests/expand/resource_fixed.rs");
}

mod resource_template {
    include!("../../mcp-derive/tests/expand/resource_template.rs");
}

mod resource_impl_block {
    use mcp_server::resource;

    pub(super) struct Server {
        pub(super) notes: Vec<String>,
    }

    include!("../../mcp-derive/tests/expand/resource_impl_block.rs");
}

#[test]
fn the_goldens_define_what_they_say() {
    use mcp_server::prompt::{PromptHandler, PromptSet};
    use mcp_server::resource::{ResourceDefinition, ResourceHandler, ResourceSet};

    let prompt = PromptHandler::<()>::definition(&prompt_free_fn::code_review {});
    assert_eq!(prompt.name, "code_review");
    let server = prompt_impl_block::Server {
        greeting: "Hi".into(),
    };
    assert_eq!(server.prompts().len(), 3);
    let ResourceDefinition::Template(template) =
        ResourceHandler::<()>::definition(&resource_template::read_note {})
    else {
        panic!("a template");
    };
    assert_eq!(template.uri_template, "notes://{folder}/{id}{?rev}");
    let server = resource_impl_block::Server { notes: vec![] };
    assert_eq!(server.resources().len(), 1);
    assert_eq!(server.resource_templates().len(), 2);
}
