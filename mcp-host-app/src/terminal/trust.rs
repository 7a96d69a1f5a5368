//! What the command says about pins: the definitions pinned and the ones
//! quarantined, as the host starts; the difference a quarantined
//! definition shows when it is called; and `trust SERVER [NAME]`.

use std::process::ExitCode;

use serde_json::{json, Value};

use super::ask::{ask_line, yes, Answer};
use super::print;
use mcp_host::trust::{Change, Quarantine};
use mcp_host::untrusted::neutralise;
use mcp_host::PinEvent;
use mcp_host::{Host, ServerId};

/// Says on stderr what the host pinned and found changed when it started.
pub(super) fn report(host: &Host) {
    let mut pinned: Vec<(ServerId, usize)> = Vec::new();
    for event in host.pin_events() {
        match event {
            PinEvent::Pinned { server, .. } => match pinned.last_mut() {
                Some((last, count)) if *last == server => *count += 1,
                _ => pinned.push((server, 1)),
            },
            PinEvent::Changed(change) => eprintln!(
                "warning: {} `{}` of server `{}` changed since it was pinned ({}); \
                 it is quarantined until `mcp-host trust {} {}`",
                change.kind,
                neutralise(&change.name),
                change.server,
                change.summary(),
                change.server,
                neutralise(&change.name),
            ),
            PinEvent::PinFile(reason) => eprintln!("warning: {reason}"),
        }
    }
    for (server, count) in pinned {
        let s = if count == 1 { "" } else { "s" };
        eprintln!("pinned {count} new definition{s} of server `{server}` on first use");
    }
}

/// The lines that show what changed in `change`, indented, neutralised.
pub(crate) fn difference_lines(change: &Change) -> String {
    let mut text = String::new();
    for difference in &change.differences {
        for line in difference.to_string().lines() {
            text.push_str("    ");
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// Shows, on stderr, what changed in a quarantined definition.
pub(super) fn show_quarantine(reason: &Quarantine) {
    if let Quarantine::Changed(change) = reason {
        eprint!(
            "What changed in {} `{}` since it was pinned (- pinned, + now):\n{}",
            change.kind,
            neutralise(&change.name),
            difference_lines(change)
        );
    }
}

/// `trust SERVER [NAME] [--yes]`: shows each change and pins it once
/// approved.
pub(super) async fn trust(
    host: &Host,
    server: &str,
    name: Option<&str>,
    approved: bool,
) -> Result<ExitCode, String> {
    let id = ServerId::new(server).map_err(|e| e.to_string())?;
    if let Some(status) = host.servers().await.into_iter().find(|s| s.id == id) {
        if let Some(error) = status.error {
            return Err(format!("server `{id}` is not running: {error}"));
        }
    }
    let changes = host.changes(&id, name);
    if changes.is_empty() {
        let what = name.map_or(String::new(), |n| format!(" named `{}`", neutralise(n)));
        eprintln!("nothing of server `{id}`{what} differs from its pin");
        print(&json!({ "server": id.as_str(), "trusted": [] }));
        return Ok(ExitCode::SUCCESS);
    }
    for change in &changes {
        eprint!(
            "\n{} `{}` of server `{id}` changed since it was pinned (- pinned, + now):\n{}",
            change.kind,
            neutralise(&change.name),
            difference_lines(change)
        );
        let findings = mcp_host::trust::poison::check(&change.definition, &Default::default());
        for finding in findings {
            eprintln!("    warning: {finding}");
        }
    }
    if !approved {
        match ask_line(String::from(
            "\nPin these definitions as they are now? [y/N] ",
        ))
        .await
        {
            Answer::Line(line) if yes(&line) => {}
            Answer::NoTerminal => {
                return Err(String::from(
                    "not pinned: no terminal to ask at (use --yes in scripts)",
                ))
            }
            Answer::Line(_) | Answer::Ended => return Err(String::from("not pinned")),
        }
    }
    let trusted = host.trust(&id, name).await.map_err(|e| e.to_string())?;
    let list: Vec<Value> = trusted
        .iter()
        .map(|c| {
            json!({
                "kind": c.kind,
                "name": c.name,
                "pinned": c.current,
                "was": c.pinned,
            })
        })
        .collect();
    print(&json!({ "server": id.as_str(), "trusted": list }));
    Ok(ExitCode::SUCCESS)
}
