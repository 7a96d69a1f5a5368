//! The app's pages, rendered on the server with `maud`, which escapes
//! every value it inserts: nothing a server or the model wrote becomes
//! markup. Text from the other side also goes through
//! [`visible`] first, so that hidden and
//! bidirectional characters show as escapes, as on the terminal.

use maud::{html, Markup, DOCTYPE};
use mcp_host::untrusted::visible;

/// A server as its page shows it.
#[derive(Debug, Clone, Default)]
pub struct ServerView {
    /// Its id in the configuration.
    pub id: String,
    /// `running`, `lazy` or `failed`.
    pub state: &'static str,
    /// Why it failed, as the host says it.
    pub error: Option<String>,
    /// `modern` or `legacy`, when running.
    pub era: Option<String>,
    /// The protocol version, when running.
    pub version: Option<String>,
    /// The name and version it gives, as it wrote them.
    pub info: Option<String>,
    /// Whether its output is trusted by the configuration.
    pub trusted: bool,
    /// Where a redirect moved its endpoint.
    pub redirected: Option<String>,
    /// Its tool definitions, as the review shows them.
    pub definitions: Vec<DefinitionView>,
    /// Its tools held back, and why (what changed since they were
    /// pinned, or what the poisoning checks found).
    pub quarantined: Vec<(String, String)>,
}

/// A tool definition as the review shows it.
#[derive(Debug, Clone, Default)]
pub struct DefinitionView {
    /// The tool's own name.
    pub tool: String,
    /// SHA-256 of its canonical JSON: what accepting it records.
    pub digest: String,
    /// `trusted output`, `accepted` or `not reviewed`; for an MCP Apps
    /// view (named by its `ui://` URI), `changed` when it differs from
    /// its pin.
    pub status: &'static str,
    /// The whole definition, and the poisoning checks' findings, made
    /// visible.
    pub text: String,
}

/// One line of the audit log as its page shows it.
#[derive(Debug, Clone, Default)]
pub struct AuditView {
    /// When.
    pub time: String,
    /// The server's id.
    pub server: String,
    /// The host's name of the tool.
    pub qualified: String,
    /// `allowed`, `denied` or `refused`.
    pub decision: String,
    /// How the decision was made.
    pub how: String,
    /// Why, when denied or refused.
    pub reason: Option<String>,
    /// What came of the call.
    pub outcome: String,
}

/// The frame of every page: the app's own stylesheet and script, no
/// inline code (the policy forbids it), and the navigation.
fn layout(title: &str, current: &str, body: Markup) -> Markup {
    let link = |href: &str, name: &str| {
        html! {
            @if href == current {
                a href=(href) aria-current="page" { (name) }
            } @else {
                a href=(href) { (name) }
            }
        }
    };
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · mcp-host" }
                link rel="stylesheet" href="/app.css";
                script src="/app.js" defer {}
            }
            body {
                nav {
                    strong { "mcp-host" }
                    (link("/", "Conversation"))
                    (link("/conversations", "Saved"))
                    (link("/servers", "Servers"))
                    (link("/audit", "Audit"))
                }
                main { (body) }
            }
        }
    }
}

/// The conversation: the messages so far are fetched and streamed by the
/// script, which writes every text it receives as text. `proxy` is the
/// origin of the sandbox proxy that MCP Apps views are framed by.
pub fn conversation(model: &str, proxy: &str) -> Markup {
    layout(
        "Conversation",
        "/",
        html! {
            h1 { "Conversation" }
            p.model { "Model: " code { (visible(model)) } }
            form.new method="post" action="/new" {
                button type="submit" { "New conversation" }
            }
            section #transcript aria-live="polite" data-proxy=(proxy) {}
            form #say {
                label for="message" { "Message" }
                textarea #message name="message" rows="3" required {}
                button type="submit" { "Send" }
                button #cancel type="button" disabled { "Cancel" }
            }
            dialog #question {
                h2 #question-title {}
                pre #question-text {}
                div #question-extra {}
                div #rule-box hidden {
                    p { "These flow rules will be written to " code #rule-file {} ":" }
                    pre #rule-text {}
                    div.actions {
                        button #rule-write type="button" { "Write the rules and allow" }
                        button #rule-back type="button" { "Back" }
                    }
                }
                div.actions #question-choices {}
            }
        },
    )
}

/// Each server's state, era, trust and tools.
pub fn servers(servers: &[ServerView]) -> Markup {
    layout(
        "Servers",
        "/servers",
        html! {
            h1 { "Servers" }
            @for server in servers {
                section.server data-server=(server.id) {
                    h2 { (server.id) " " span class={"state " (server.state)} { (server.state) } }
                    dl {
                        @if let Some(error) = &server.error {
                            dt { "Why" } dd.error { (visible(error)) }
                        }
                        @if let Some(era) = &server.era {
                            dt { "Era" } dd { (era) }
                        }
                        @if let Some(version) = &server.version {
                            dt { "Protocol" } dd { (visible(version)) }
                        }
                        @if let Some(info) = &server.info {
                            dt { "Says it is" } dd.untrusted { (visible(info)) }
                        }
                        dt { "Output" }
                        dd { @if server.trusted { "trusted by the configuration" } @else { "untrusted" } }
                        @if let Some(url) = &server.redirected {
                            dt { "Redirected to" } dd { (visible(url)) }
                        }
                    }
                    @if !server.quarantined.is_empty() {
                        h3 { "Held back" }
                        p { "These tools changed since they were pinned, or the poisoning checks \
                             flagged them; they are not offered. Re-pin one with "
                            code { "mcp-host trust " (server.id) " NAME" } "." }
                        @for (name, why) in &server.quarantined {
                            details.quarantined {
                                summary { code { (visible(name)) } }
                                pre.untrusted { (visible(why)) }
                            }
                        }
                    }
                    @if !server.definitions.is_empty() {
                        h3 { "Tool definitions and views" }
                        @for d in &server.definitions {
                            details.definition data-status=(d.status) {
                                summary {
                                    code { (visible(&d.tool)) } " "
                                    span.status { (d.status) }
                                }
                                pre.untrusted { (d.text) }
                                p.digest { "SHA-256 " code { (d.digest) } }
                            }
                        }
                        @let unreviewed: Vec<&DefinitionView> = server.definitions.iter()
                            .filter(|d| d.status == "not reviewed" || d.status == "changed").collect();
                        @if !unreviewed.is_empty() {
                            form.review method="post" action="/review" {
                                input type="hidden" name="server" value=(server.id);
                                @for d in &unreviewed {
                                    input type="hidden" name="digest" value=(d.digest);
                                }
                                p { "Accepting these " (unreviewed.len()) " definitions, as shown above, \
                                     means they no longer count as untrusted text, until they change." }
                                button type="submit" { "Accept the definitions shown" }
                            }
                        }
                    }
                }
            }
        },
    )
}

/// The audit log, newest first, filtered by server and decision.
pub fn audit(
    records: &[AuditView],
    servers: &[String],
    server: Option<&str>,
    decision: Option<&str>,
) -> Markup {
    layout(
        "Audit",
        "/audit",
        html! {
            h1 { "Audit" }
            form.filter method="get" action="/audit" {
                label for="server" { "Server" }
                select #server name="server" {
                    option value="" { "every server" }
                    @for id in servers {
                        option value=(id) selected[server == Some(id.as_str())] { (id) }
                    }
                }
                label for="decision" { "Decision" }
                select #decision name="decision" {
                    option value="" { "every decision" }
                    @for d in ["allowed", "denied", "refused"] {
                        option value=(d) selected[decision == Some(d)] { (d) }
                    }
                }
                button type="submit" { "Filter" }
            }
            @if records.is_empty() {
                p { "No decision recorded." }
            } @else {
                table #audit {
                    thead { tr { th { "Time" } th { "Server" } th { "Tool" } th { "Decision" } th { "How" } th { "Why" } th { "Outcome" } } }
                    tbody {
                        @for r in records {
                            tr class=(r.decision) {
                                td { (r.time) }
                                td { (visible(&r.server)) }
                                td { code { (visible(&r.qualified)) } }
                                td.decision { (r.decision) }
                                td { (visible(&r.how)) }
                                td { (visible(r.reason.as_deref().unwrap_or(""))) }
                                td { (visible(&r.outcome)) }
                            }
                        }
                    }
                }
            }
        },
    )
}

/// The saved conversations, newest first: the title, when, how many
/// messages, and what tainted each; a button reopens one.
pub fn conversations(listing: &mcp_agent::conversation::Listing) -> Markup {
    layout(
        "Saved conversations",
        "/conversations",
        html! {
            h1 { "Saved conversations" }
            @if listing.summaries.is_empty() {
                p { "None saved yet: each conversation is saved when a turn ends." }
            }
            ul #conversations {
                @for c in &listing.summaries {
                    li data-id=(c.id) data-tainted=(c.tainted) {
                        form method="post" action="/open" {
                            input type="hidden" name="id" value=(c.id);
                            button type="submit" { (visible(&c.title)) }
                        }
                        " "
                        span.when { (when(c.saved_at)) }
                        " · " (c.messages) " messages · "
                        @if c.tainted {
                            @let sources: Vec<String> = c.untrusted.iter()
                                .map(|(origin, n)| format!("{origin} ({n})")).collect();
                            span.taint data-tainted="true" { "untrusted output from " (visible(&sources.join(", "))) }
                        } @else {
                            span.taint { "no untrusted output" }
                        }
                    }
                }
            }
            @if listing.skipped > 0 {
                p.error { (listing.skipped) " saved files could not be read and are not listed." }
            }
        },
    )
}

/// Seconds since the epoch as a UTC time, to the minute.
fn when(seconds: u64) -> String {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
    let text = mcp_host::audit::rfc3339(time);
    format!("{} UTC", text.get(..16).unwrap_or(&text).replace('T', " "))
}

/// A refusal, as a small page.
pub fn refused(reason: &str) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { "Refused · mcp-host" } }
            body { p { (reason) } }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_text_is_inert_and_hidden_characters_show() {
        let page = servers(&[ServerView {
            id: String::from("evil"),
            state: "running",
            info: Some(String::from("<script>alert(1)</script>")),
            definitions: vec![DefinitionView {
                tool: String::from("x"),
                status: "not reviewed",
                text: visible("<img src=x onerror=alert(1)> \u{202e}txt.exe"),
                ..DefinitionView::default()
            }],
            ..ServerView::default()
        }])
        .into_string();
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(!page.contains("<img"), "{page}");
        assert!(page.contains("&lt;script&gt;"), "{page}");
        assert!(!page.contains('\u{202e}'), "{page}");
        assert!(page.contains("202e") || page.contains("202E"), "{page}");
        // The only script is the app's own file.
        assert_eq!(page.matches("<script").count(), 1, "{page}");
        assert!(
            page.contains("<script src=\"/app.js\" defer></script>"),
            "{page}"
        );
    }
}
