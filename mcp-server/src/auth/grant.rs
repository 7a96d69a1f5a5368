//! What a verified access token grants: who it speaks for, which client
//! holds it, its scopes and when it ends.

use std::sync::Arc;
use std::time::SystemTime;

use super::scope::ScopeRules;

/// A verified access token, as the handlers see it through
/// [`Context::grant`](crate::Context::grant).
///
/// A [`TokenVerifier`](super::TokenVerifier) builds one for each token it
/// accepts; the [`ResourceServer`](super::ResourceServer) then applies its
/// scope hierarchy, so [`Grant::allows`] answers for implied scopes too.
///
/// ```
/// use mcp_server::auth::Grant;
///
/// let grant = Grant::new("https://auth.example.com", "alice")
///     .with_scopes(["notes:read"])
///     .with_client_id("notes-app");
/// assert!(grant.allows("notes:read"));
/// assert_eq!(grant.principal(), r#"["https://auth.example.com","alice"]"#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    issuer: String,
    subject: String,
    client_id: Option<String>,
    scopes: Vec<String>,
    expires_at: Option<SystemTime>,
    jkt: Option<String>,
    principal: Arc<str>,
    /// The granted scopes and those they imply, sorted.
    effective: Vec<String>,
}

impl Grant {
    /// A grant for `subject`, as named by the authorization server
    /// `issuer`, with no scopes, no client and no expiry.
    pub fn new(issuer: impl Into<String>, subject: impl Into<String>) -> Self {
        let (issuer, subject) = (issuer.into(), subject.into());
        let principal = principal(&issuer, &subject);
        Grant {
            issuer,
            subject,
            client_id: None,
            scopes: Vec::new(),
            expires_at: None,
            jkt: None,
            principal,
            effective: Vec::new(),
        }
    }

    /// Sets the scopes the token grants (repeats are dropped).
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.clear();
        for scope in scopes {
            let scope = scope.into();
            if !self.scopes.contains(&scope) {
                self.scopes.push(scope);
            }
        }
        self.effective = ScopeRules::default().expand(self.scopes.iter().map(String::as_str));
        self
    }

    /// Sets the client the token was issued to.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets when the token expires.
    pub fn with_expiry(mut self, expires_at: SystemTime) -> Self {
        self.expires_at = Some(expires_at);
        self
    }

    /// Binds the token to a key: `jkt` is the JWK SHA-256 thumbprint the
    /// token's `cnf.jkt` names (RFC 9449 section 6). The resource server
    /// then accepts it only with the `DPoP` scheme and a proof signed by
    /// that key, never as a bearer token. A verifier of its own sets it
    /// from the token, or from the `cnf` of an introspection answer
    /// (section 6.2).
    pub fn with_jkt(mut self, jkt: impl Into<String>) -> Self {
        self.jkt = Some(jkt.into());
        self
    }

    /// Applies a scope hierarchy to what [`Grant::allows`] answers.
    pub(crate) fn with_rules(mut self, rules: &ScopeRules) -> Self {
        self.effective = rules.expand(self.scopes.iter().map(String::as_str));
        self
    }

    /// The authorization server that issued the token (`iss`).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Whom the token speaks for, as its issuer names them (`sub`).
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The client the token was issued to, when the token says.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The scopes the token grants, as it lists them.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// When the token expires, when known.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at
    }

    /// The thumbprint of the key the token is bound to (`cnf.jkt`), when
    /// it is a DPoP-bound token.
    pub fn jkt(&self) -> Option<&str> {
        self.jkt.as_deref()
    }

    /// Whether the token grants `scope`, itself or through a broader scope
    /// that implies it.
    pub fn allows(&self, scope: &str) -> bool {
        self.effective
            .binary_search_by(|s| s.as_str().cmp(scope))
            .is_ok()
    }

    /// The request's principal: issuer and subject as a JSON array of two
    /// strings, `["https://auth.example.com","alice"]`. The encoding keeps
    /// the pair apart, so no other issuer and subject spell the same
    /// principal. Sealed request state and handles are bound to it.
    pub fn principal(&self) -> &str {
        &self.principal
    }

    pub(crate) fn shared_principal(&self) -> Arc<str> {
        self.principal.clone()
    }
}

fn principal(issuer: &str, subject: &str) -> Arc<str> {
    // Encoding two strings cannot fail.
    Arc::from(serde_json::to_string(&[issuer, subject]).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principals_do_not_collide() {
        let pairs = [
            ("a b", "c"),
            ("a", "b c"),
            ("a\",\"b", "c"),
            ("a", "\",\"b\",\"c"),
            ("", "a"),
            ("a", ""),
        ];
        let principals: Vec<String> = pairs
            .iter()
            .map(|(i, s)| Grant::new(*i, *s).principal().to_owned())
            .collect();
        for (i, p) in principals.iter().enumerate() {
            let back: [String; 2] = serde_json::from_str(p).expect("a JSON pair");
            assert_eq!((back[0].as_str(), back[1].as_str()), pairs[i]);
            assert_eq!(principals.iter().filter(|q| *q == p).count(), 1, "{p}");
        }
    }

    #[test]
    fn rules_widen_what_a_grant_allows() {
        let mut rules = ScopeRules::default();
        rules.add("notes:write", &["notes:read".to_owned()]);
        let grant = Grant::new("i", "s").with_scopes(["notes:write", "notes:write"]);
        assert_eq!(grant.scopes(), ["notes:write"]);
        assert!(!grant.allows("notes:read"));
        let grant = grant.with_rules(&rules);
        assert!(grant.allows("notes:read") && grant.allows("notes:write"));
        assert!(!grant.allows("notes"));
        assert_eq!(grant.scopes(), ["notes:write"], "the token's own list");
    }
}
