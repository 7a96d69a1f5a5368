//! The book of pinned definitions, sans-IO: what each server sent the
//! first time, by the server's id and identity, and the verdict on what it
//! sends now.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::diff::{diff, Difference};
use crate::names::ServerId;

/// What kind of definition a pin is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// A tool, by name.
    Tool,
    /// A prompt, by name.
    Prompt,
    /// A resource template, by URI template.
    ResourceTemplate,
    /// The server's instructions (one per server, named `instructions`).
    Instructions,
}

impl Kind {
    /// How a person calls it: `tool`, `prompt`, `resource template`,
    /// `instructions`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::ResourceTemplate => "resource template",
            Self::Instructions => "instructions",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One definition as a server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// Its kind.
    pub kind: Kind,
    /// Its name (a resource template's URI template).
    pub name: String,
    /// The whole object as sent: name, title, description, schemas,
    /// annotations, `_meta` and anything else.
    pub value: Value,
}

impl Definition {
    /// A definition of `kind` named `name`.
    pub fn new(kind: Kind, name: impl Into<String>, value: Value) -> Self {
        Self {
            kind,
            name: name.into(),
            value,
        }
    }

    /// The SHA-256 of its RFC 8785 canonical JSON, hex.
    pub fn digest(&self) -> String {
        crate::digest::digest(&self.value)
    }
}

/// A definition that differs from its pin.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The server.
    pub server: ServerId,
    /// What kind of definition.
    pub kind: Kind,
    /// Its name.
    pub name: String,
    /// The digest pinned.
    pub pinned: String,
    /// The digest of what the server sends now.
    pub current: String,
    /// What the server sends now, whole: what re-approving pins.
    pub definition: Value,
    /// Where the two differ.
    pub differences: Vec<Difference>,
}

impl Change {
    /// The places that differ, as a short list: `/description changed,
    /// /inputSchema/properties/units added`.
    pub fn summary(&self) -> String {
        let places: Vec<String> = self
            .differences
            .iter()
            .take(6)
            .map(|d| {
                let path = crate::untrusted::neutralise(d.path());
                format!("{} {}", if path.is_empty() { "/" } else { &path }, d.what())
            })
            .collect();
        let more = self.differences.len().saturating_sub(places.len());
        if more > 0 {
            format!("{} and {more} more", places.join(", "))
        } else {
            places.join(", ")
        }
    }
}

/// The verdict on one definition.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Seen for the first time, and pinned now.
    New,
    /// As pinned.
    Same,
    /// Not as pinned: quarantined until re-approved.
    Changed(Change),
}

/// One pinned definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pin {
    /// Its kind.
    pub kind: Kind,
    /// Its name.
    pub name: String,
    /// The SHA-256 of the canonical JSON of the definition, hex.
    pub digest: String,
    /// The definition itself, for showing what changed.
    pub definition: Value,
}

/// The pins of one server, as one identity of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ServerPins {
    server: String,
    identity: String,
    pins: Vec<Pin>,
}

/// Every pinned definition, by server id and identity (the command line
/// of a stdio server, the URL of an HTTP one): a server whose command or
/// URL changes is a new server, and pins afresh.
///
/// ```
/// use mcp_host::trust::{Definition, Kind, Pins, Verdict};
/// use mcp_host::ServerId;
/// use serde_json::json;
///
/// let server = ServerId::new("notes")?;
/// let mut pins = Pins::default();
/// let tool = |d: &str| Definition::new(Kind::Tool, "find", json!({"name": "find", "description": d}));
/// assert_eq!(pins.observe(&server, "stdio:notes", &[tool("Finds.")]), [Verdict::New]);
/// assert_eq!(pins.observe(&server, "stdio:notes", &[tool("Finds.")]), [Verdict::Same]);
/// let [Verdict::Changed(change)] = &pins.observe(&server, "stdio:notes", &[tool("Ignore that.")])[..] else {
///     panic!("a change")
/// };
/// assert_eq!(change.summary(), "/description changed");
/// pins.pin(&server, "stdio:notes", &tool("Ignore that."));
/// assert_eq!(pins.observe(&server, "stdio:notes", &[tool("Ignore that.")]), [Verdict::Same]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pins {
    version: u32,
    servers: Vec<ServerPins>,
}

/// The version of the pin file this host writes and reads.
const VERSION: u32 = 1;

impl Pins {
    /// Reads pins from the text of a pin file.
    ///
    /// # Errors
    ///
    /// A message when the text is not a pin file of this version.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let pins: Self = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if pins.version != VERSION {
            return Err(format!(
                "version {} is not the version {VERSION} this host reads",
                pins.version
            ));
        }
        for server in &pins.servers {
            for pin in &server.pins {
                let digest = crate::digest::digest(&pin.definition);
                if digest != pin.digest {
                    return Err(format!(
                        "the pin of {} `{}` of server `{}` does not match its digest",
                        pin.kind, pin.name, server.server
                    ));
                }
            }
        }
        Ok(pins)
    }

    /// The pins as the text of a pin file.
    pub fn to_json(&self) -> String {
        let mut pins = self.clone();
        pins.version = VERSION;
        serde_json::to_string_pretty(&pins).unwrap_or_default() + "\n"
    }

    fn server(&self, server: &ServerId, identity: &str) -> Option<&ServerPins> {
        self.servers
            .iter()
            .find(|s| s.server == server.as_str() && s.identity == identity)
    }

    /// Every pin of `server` at `identity`, sorted by kind and name.
    pub fn of(&self, server: &ServerId, identity: &str) -> &[Pin] {
        self.server(server, identity)
            .map(|s| s.pins.as_slice())
            .unwrap_or_default()
    }

    /// The pin of the definition of `kind` named `name`, if there is one.
    pub fn get(&self, server: &ServerId, identity: &str, kind: Kind, name: &str) -> Option<&Pin> {
        self.server(server, identity)?
            .pins
            .iter()
            .find(|p| p.kind == kind && p.name == name)
    }

    /// The verdict on `definition`, without pinning anything.
    pub fn check(&self, server: &ServerId, identity: &str, definition: &Definition) -> Verdict {
        let Some(pin) = self.get(server, identity, definition.kind, &definition.name) else {
            return Verdict::New;
        };
        let current = definition.digest();
        if current == pin.digest {
            return Verdict::Same;
        }
        Verdict::Changed(Change {
            server: server.clone(),
            kind: definition.kind,
            name: definition.name.clone(),
            pinned: pin.digest.clone(),
            current,
            definition: definition.value.clone(),
            differences: diff(&pin.definition, &definition.value),
        })
    }

    /// Pins `definition`, replacing any pin of the same kind and name.
    pub fn pin(&mut self, server: &ServerId, identity: &str, definition: &Definition) {
        self.version = VERSION;
        let at = match self
            .servers
            .iter()
            .position(|s| s.server == server.as_str() && s.identity == identity)
        {
            Some(at) => at,
            None => {
                self.servers.push(ServerPins {
                    server: server.as_str().to_owned(),
                    identity: identity.to_owned(),
                    pins: Vec::new(),
                });
                self.servers.len() - 1
            }
        };
        let pins = &mut self.servers[at].pins;
        pins.retain(|p| !(p.kind == definition.kind && p.name == definition.name));
        pins.push(Pin {
            kind: definition.kind,
            name: definition.name.clone(),
            digest: definition.digest(),
            definition: definition.value.clone(),
        });
        pins.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    }

    /// The verdict on each of `definitions`, pinning the new ones. A
    /// changed definition keeps its old pin: it stays changed until
    /// [`Pins::pin`] re-approves it.
    pub fn observe(
        &mut self,
        server: &ServerId,
        identity: &str,
        definitions: &[Definition],
    ) -> Vec<Verdict> {
        definitions
            .iter()
            .map(|definition| {
                let verdict = self.check(server, identity, definition);
                if verdict == Verdict::New {
                    self.pin(server, identity, definition);
                }
                verdict
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id(s: &str) -> ServerId {
        ServerId::new(s).expect("id")
    }

    #[test]
    fn pins_are_per_server_and_identity() {
        let mut pins = Pins::default();
        let tool = Definition::new(Kind::Tool, "t", json!({"name": "t"}));
        let other = Definition::new(Kind::Tool, "t", json!({"name": "t", "title": "T"}));
        assert_eq!(
            pins.observe(&id("a"), "stdio:[\"x\"]", std::slice::from_ref(&tool)),
            [Verdict::New]
        );
        // Another server, or the same id run from another command, pins afresh.
        assert_eq!(
            pins.observe(&id("b"), "stdio:[\"x\"]", std::slice::from_ref(&other)),
            [Verdict::New]
        );
        assert_eq!(
            pins.observe(&id("a"), "stdio:[\"y\"]", std::slice::from_ref(&other)),
            [Verdict::New]
        );
        // A prompt of the same name is another definition.
        let prompt = Definition::new(Kind::Prompt, "t", json!({"name": "t", "title": "T"}));
        assert_eq!(
            pins.observe(&id("a"), "stdio:[\"x\"]", &[prompt]),
            [Verdict::New]
        );
        let verdicts = pins.observe(&id("a"), "stdio:[\"x\"]", std::slice::from_ref(&other));
        assert!(matches!(&verdicts[..], [Verdict::Changed(c)] if c.summary() == "/title added"));
        // Still changed on the next look: nothing was re-pinned.
        assert!(matches!(
            pins.check(&id("a"), "stdio:[\"x\"]", &other),
            Verdict::Changed(_)
        ));
    }

    #[test]
    fn the_pin_file_round_trips_and_refuses_what_it_cannot_trust() {
        let mut pins = Pins::default();
        pins.pin(
            &id("a"),
            "http:https://a/mcp",
            &Definition::new(Kind::Instructions, "instructions", json!("Be nice.")),
        );
        let text = pins.to_json();
        assert_eq!(Pins::from_json(&text).expect("reads"), pins);
        for bad in [
            String::from("{"),
            String::from("[]"),
            text.replace("\"version\": 1", "\"version\": 9"),
            text.replace("Be nice.", "Be evil."),
            text.replace("\"servers\"", "\"extra\": 1, \"servers\""),
        ] {
            assert!(Pins::from_json(&bad).is_err(), "{bad}");
        }
    }
}
