//! A notes server to copy from: typed handles, a destructive tool that asks
//! the user to confirm first, progress on a long operation, a prompt and a
//! resource template, served over stdio or Streamable HTTP.
//!
//! ```text
//! cargo run -p mcp-toolkit-server --example notes -- --list                 # the tools, as spec JSON
//! cargo run -p mcp-toolkit-server --example notes -- --stdio
//! cargo run -p mcp-toolkit-server --example notes -- --http 127.0.0.1:3000  # endpoint /mcp
//!
//! # protected: only OAuth access tokens of the issuer, for this resource
//! cargo run -p mcp-toolkit-server --features auth --example notes -- --http 127.0.0.1:3000 \
//!     --auth-issuer https://auth.example.com --resource https://notes.example.com/mcp
//! ```
//!
//! Notes live in memory for an hour. Handles name them; they are random
//! and unguessable, and the store only answers the principal that created
//! a note.
//!
//! Protected, every request needs a token with `notes:read`, the tools
//! that change notes need `notes:write` (which implies `notes:read`), and
//! the principal is the token's issuer and subject, so each user sees only
//! their notes. `--resource` is the URL clients reach the endpoint at (a
//! server behind a proxy cannot know it); its host is added to the hosts
//! the endpoint accepts.

use std::time::Duration;

use mcp_server::elicit::{Elicit, Elicitation};
use mcp_server::handle::{Handle, HandleStore};
use mcp_server::tool::{ToolError, ToolSet};
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::transport::stdio;
use mcp_server::types::v2026_07_28::{LoggingLevel, TextResourceContents};
use mcp_server::{
    prompt, prompts, resource, resources, tool, tools, Context, ElicitForm, ErrorObject, Server,
    ServerBuilder,
};
use serde::Serialize;

/// A note.
#[derive(Clone, Serialize, schemars::JsonSchema)]
struct Note {
    /// Its title.
    title: String,
    /// Its text.
    body: String,
}

mcp_server::handle_kind!(Note, prefix = "note", ttl_secs = 3600);

/// What `create_note` returns.
#[derive(Serialize, schemars::JsonSchema)]
struct Created {
    /// Pass this to the other tools to name the note.
    handle: Handle<Note>,
}

/// The confirmation asked before a note is deleted.
#[derive(ElicitForm)]
struct Confirm {
    /// Tick to delete the note for good.
    delete: bool,
}

struct Notes {
    store: HandleStore<Note, Note>,
}

fn not_found(e: impl std::fmt::Display) -> ToolError {
    ToolError::execution(e.to_string())
}

#[tools]
impl Notes {
    /// Creates a note and returns its handle. Notes are kept for one hour.
    #[tool(scopes = ["notes:write"])]
    fn create_note(
        &self,
        cx: &Context,
        /// A short title.
        title: String,
        /// The text of the note.
        body: String,
    ) -> Result<Created, ToolError> {
        let handle = self
            .store
            .insert_for(cx, Note { title, body })
            .map_err(not_found)?;
        Ok(Created { handle })
    }

    /// Reads a note.
    #[tool(read_only, open_world = false, scopes = ["notes:read"])]
    fn read_note(
        &self,
        cx: &Context,
        /// The handle `create_note` returned.
        handle: Handle<Note>,
    ) -> Result<Note, ToolError> {
        self.store.get(&handle, cx.principal()).map_err(not_found)
    }

    /// Deletes a note, after the user confirms.
    #[tool(destructive, scopes = ["notes:write"])]
    fn delete_note(
        &self,
        cx: &Context,
        /// The handle of the note to delete.
        handle: Handle<Note>,
        #[elicit(message = "Delete this note for good?")] confirm: Elicit<Confirm>,
    ) -> Result<String, ToolError> {
        match confirm {
            Elicitation::Accept(Confirm { delete: true }) => {
                let note = self
                    .store
                    .remove(&handle, cx.principal())
                    .map_err(not_found)?;
                Ok(format!("deleted \"{}\"", note.title))
            }
            Elicitation::Accept(_) | Elicitation::Decline => Ok(String::from("kept the note")),
            Elicitation::Cancel => Err(ToolError::execution("the user cancelled")),
        }
    }

    /// Exports the given notes as one text, reporting progress as it goes.
    #[tool(read_only, open_world = false, scopes = ["notes:read"])]
    async fn export_notes(
        &self,
        cx: &Context,
        /// The notes to export, in order.
        handles: Vec<Handle<Note>>,
    ) -> Result<String, ToolError> {
        let total = handles.len() as f64;
        let mut out = String::new();
        for (done, handle) in handles.iter().enumerate() {
            let note = self.store.get(handle, cx.principal()).map_err(not_found)?;
            out.push_str(&format!("# {}\n\n{}\n\n", note.title, note.body));
            // Stands in for slow work, such as rendering or uploading.
            tokio::time::sleep(Duration::from_millis(20)).await;
            cx.progress(done as f64 + 1.0, Some(total), Some(&note.title))
                .await;
            cx.log(
                LoggingLevel::Debug,
                Some("notes"),
                serde_json::json!({ "exported": done + 1 }),
            )
            .await;
        }
        Ok(out)
    }
}

#[prompts]
impl Notes {
    /// Asks the model to summarise a note.
    #[prompt]
    fn summarize(
        &self,
        cx: &Context,
        /// The handle of the note.
        handle: String,
    ) -> Result<String, ErrorObject> {
        let handle: Handle<Note> = handle
            .parse()
            .map_err(|e| ErrorObject::invalid_params(format!("handle: {e}")))?;
        let note = self
            .store
            .get(&handle, cx.principal())
            .map_err(|e| ErrorObject::invalid_params(e.to_string()))?;
        Ok(format!(
            "Summarise this note in one sentence.\n\n# {}\n\n{}",
            note.title, note.body
        ))
    }
}

#[resources]
impl Notes {
    /// A note as plain text.
    #[resource("notes://{handle}", name = "note", mime_type = "text/plain")]
    fn note(&self, cx: &Context, handle: String) -> Result<TextResourceContents, ErrorObject> {
        let uri = format!("notes://{handle}");
        let parsed: Handle<Note> = handle
            .parse()
            .map_err(|_| ErrorObject::resource_not_found(&uri))?;
        let note = self
            .store
            .get(&parsed, cx.principal())
            .map_err(|_| ErrorObject::resource_not_found(&uri))?;
        Ok(TextResourceContents {
            meta: None,
            mime_type: Some("text/plain".to_owned()),
            text: format!("# {}\n\n{}", note.title, note.body),
            uri,
            extra: Default::default(),
        })
    }
}

/// The OAuth settings of a protected endpoint.
struct Protection {
    /// The authorization server whose tokens are accepted.
    issuer: String,
    /// The URL clients reach the endpoint at.
    resource: String,
}

/// Reads `--auth-issuer URL --resource URL`, both or neither.
fn protection(options: &[&str]) -> Result<Option<Protection>, String> {
    let (mut issuer, mut resource) = (None, None);
    let mut options = options.iter();
    while let Some(option) = options.next() {
        let slot = match *option {
            "--auth-issuer" => &mut issuer,
            "--resource" => &mut resource,
            other => return Err(format!("unknown option `{other}`")),
        };
        let value = options
            .next()
            .ok_or_else(|| format!("`{option}` needs a URL"))?;
        *slot = Some((*value).to_owned());
    }
    match (issuer, resource) {
        (None, None) => Ok(None),
        (Some(issuer), Some(resource)) => Ok(Some(Protection { issuer, resource })),
        _ => Err("give `--auth-issuer` and `--resource` together".to_owned()),
    }
}

/// Protects the server: `notes:read` for every request, `notes:write`
/// (which implies it) for the tools that change notes.
#[cfg(feature = "auth")]
fn protect<S: Send + Sync + 'static>(
    server: ServerBuilder<S>,
    protection: &Protection,
) -> Result<ServerBuilder<S>, Box<dyn std::error::Error>> {
    let resource =
        mcp_server::auth::ResourceServer::builder(&protection.resource, [&protection.issuer])
            .scopes_supported(["notes:read", "notes:write"])
            .require_scopes(["notes:read"])
            .implies("notes:write", ["notes:read"])
            .resource_name("Notes")
            .build()?;
    Ok(server.authorization(resource))
}

#[cfg(not(feature = "auth"))]
fn protect<S>(
    _: ServerBuilder<S>,
    _: &Protection,
) -> Result<ServerBuilder<S>, Box<dyn std::error::Error>> {
    Err("this build cannot check OAuth tokens: build the example with `--features auth`".into())
}

/// The loopback names, and the host of `resource` (without its port).
fn allowed_hosts(resource: &str) -> Vec<String> {
    let mut hosts = HttpConfig::default().allowed_hosts;
    let authority = resource.split_once("://").map_or("", |(_, rest)| rest);
    let authority = authority.split(['/', '?', '#']).next().unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => format!("[{}]", v6.split(']').next().unwrap_or_default()),
        None => authority.split(':').next().unwrap_or_default().to_owned(),
    };
    if !host.is_empty() && !hosts.contains(&host) {
        hosts.push(host);
    }
    hosts
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = || {
        Server::builder(Notes {
            store: HandleStore::new(10_000),
        })
        .info("notes", env!("CARGO_PKG_VERSION"))
        .instructions(
            "Create notes with create_note and pass the returned handle to the other tools.",
        )
        .tools()
        .prompts()
        .resources()
    };
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["--list"] => {
            println!("{}", serde_json::to_string_pretty(&Notes::tools())?);
        }
        ["--stdio"] => stdio::serve(server().build()?).await?,
        ["--http", addr, options @ ..] => {
            let addr: std::net::SocketAddr = addr.parse()?;
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            match protection(options)? {
                None => {
                    // Port 0 takes a free port: the line says which.
                    eprintln!("serving MCP at http://{}/mcp", listener.local_addr()?);
                    let config = HttpConfig::default();
                    http::serve_with(server().build()?, listener, config, shutdown).await?;
                }
                Some(protection) => {
                    eprintln!(
                        "notes at http://{addr}/mcp, known as {}, for tokens of {}",
                        protection.resource, protection.issuer
                    );
                    let config = HttpConfig {
                        allowed_hosts: allowed_hosts(&protection.resource),
                        ..HttpConfig::default()
                    };
                    let server = protect(server(), &protection)?.build()?;
                    http::serve_with(server, listener, config, shutdown).await?;
                }
            }
        }
        _ => {
            eprintln!(
                "usage: notes --list | --stdio | --http ADDR:PORT [--auth-issuer URL --resource URL]"
            );
            std::process::exit(2);
        }
    }
    Ok(())
}
