//! The expansions spell out every path: shadowing prelude names and derive
//! names changes nothing.

#![deny(warnings)]
#![allow(non_camel_case_types, dead_code)]

struct Result;
struct Option;
struct Ok;
struct Err;
struct Some;
struct None;
struct Box;
struct Vec;
struct BTreeMap;
struct Clone;
struct Copy;
struct Debug;
struct Default;
struct Send;
struct Sync;
struct Sized;
struct str;
struct bool;

use mcp_server::{prompt, prompt_set, prompts, resource, resource_set, resources};

/// A prompt.
#[prompt]
fn greet(name: ::std::string::String, age: ::core::option::Option<u8>) -> ::std::string::String {
    ::std::format!("{name} {age:?}")
}

/// A resource.
#[resource("shadow://fixed")]
fn fixed() -> &'static ::core::primitive::str {
    "fixed"
}

/// A template.
#[resource("shadow://{id}{?q}")]
async fn templated(
    id: u32,
    q: ::core::option::Option<::std::string::String>,
) -> ::std::string::String {
    ::std::format!("{id} {q:?}")
}

struct Server;

#[prompts]
#[resources]
impl Server {
    /// A prompt method.
    #[prompt]
    fn hello(&self, who: ::std::string::String) -> ::std::string::String {
        who
    }

    /// A resource method.
    #[resource("shadow://server/{n}")]
    fn number(&self, n: u64) -> ::std::string::String {
        ::std::format!("{n}")
    }

    /// A fixed resource method.
    #[resource("shadow://server")]
    fn root(&self) -> ::std::string::String {
        ::std::string::String::new()
    }
}

fn main() {
    let prompts: mcp_server::prompt::PromptList<Server> = prompt_set![greet];
    let resources: mcp_server::resource::ResourceList<Server> = resource_set![fixed, templated];
    let _ = (prompts, resources);
}
