//! The verifier interface: an access token in, a [`Grant`] or a reason out.

use std::fmt;

use super::Grant;
use crate::BoxFuture;

/// A bearer token as it arrived, for a verifier to read. Its `Debug`
/// shows no byte of it, and it has no `Display`, so that it cannot end up
/// in a log or an error by accident.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AccessToken<'a>(&'a str);

impl<'a> AccessToken<'a> {
    /// Wraps the token text.
    pub fn new(token: &'a str) -> Self {
        AccessToken(token)
    }

    /// The token text. Keep it out of logs and messages.
    pub fn expose(&self) -> &'a str {
        self.0
    }
}

impl fmt::Debug for AccessToken<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AccessToken(<{} bytes, redacted>)", self.0.len())
    }
}

/// Decides whether an access token is good for this server, and what it
/// grants.
///
/// [`JwtVerifier`](super::JwtVerifier) checks JWT access tokens against
/// the authorization server's keys. For opaque tokens, implement this
/// trait over token introspection
/// ([RFC 7662](https://datatracker.ietf.org/doc/html/rfc7662)): post the
/// token to the introspection endpoint with the server's own client
/// credentials, refuse it unless the answer says `active: true`, check
/// that its `aud` names this server's resource and its `iss` the expected
/// authorization server, and build the [`Grant`] from `iss`, `sub`,
/// `client_id`, `scope` and `exp`:
///
/// ```
/// use mcp_server::auth::{AccessToken, Grant, Rejection, TokenError, TokenVerifier};
/// use mcp_server::BoxFuture;
///
/// /// What an introspection endpoint answered, decoded.
/// struct Introspection {
///     active: bool,
///     issuer: String,
///     subject: String,
///     audience: Vec<String>,
///     scope: String,
/// }
///
/// struct Introspect {
///     resource: String,
/// }
///
/// impl Introspect {
///     /// Posts the token to the endpoint; a real one would use an HTTP
///     /// client and map network failures to `TokenError::Unavailable`.
///     async fn ask(&self, _token: &str) -> Result<Introspection, TokenError> {
///         Err(TokenError::Unavailable("no introspection endpoint in this example".into()))
///     }
/// }
///
/// impl TokenVerifier for Introspect {
///     fn verify<'a>(&'a self, token: AccessToken<'a>) -> BoxFuture<'a, Result<Grant, TokenError>> {
///         Box::pin(async move {
///             let answer = self.ask(token.expose()).await?;
///             if !answer.active {
///                 return Err(TokenError::Invalid(Rejection::Inactive));
///             }
///             if !answer.audience.contains(&self.resource) {
///                 return Err(TokenError::Invalid(Rejection::Audience));
///             }
///             Ok(Grant::new(answer.issuer, answer.subject)
///                 .with_scopes(answer.scope.split(' ').filter(|s| !s.is_empty())))
///         })
///     }
/// }
/// ```
///
/// The resource server caches what a verifier accepts (see
/// [`ResourceServerBuilder::token_cache`](super::ResourceServerBuilder::token_cache)),
/// so an introspected token is asked about again only once its entry
/// lapses.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token`.
    ///
    /// # Errors
    ///
    /// [`TokenError::Invalid`] for a token this server must not accept
    /// (answered with 401 `invalid_token`), [`TokenError::Unavailable`]
    /// when the verifier cannot decide now (answered with 503).
    fn verify<'a>(&'a self, token: AccessToken<'a>) -> BoxFuture<'a, Result<Grant, TokenError>>;
}

/// Why a token was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is not good for this server.
    Invalid(Rejection),
    /// The verifier could not decide: the authorization server, its
    /// metadata or its keys could not be reached or read. The text is for
    /// the operator; clients get a generic answer.
    Unavailable(String),
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::Invalid(rejection) => write!(f, "invalid access token: {rejection}"),
            TokenError::Unavailable(why) => write!(f, "cannot verify access tokens now: {why}"),
        }
    }
}

impl std::error::Error for TokenError {}

impl From<Rejection> for TokenError {
    fn from(rejection: Rejection) -> Self {
        TokenError::Invalid(rejection)
    }
}

/// What is wrong with a refused token, in words of our own that reveal
/// nothing of the token. The words become the `error_description` of the
/// `invalid_token` challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// The token is not well formed; the text names the part.
    Malformed(&'static str),
    /// The token is longer than a verifier reads.
    TooLarge,
    /// The token is signed with an algorithm this server does not accept
    /// (`none`, HMAC, or one not on the list).
    Algorithm,
    /// No key of the authorization server fits the token.
    UnknownKey,
    /// The signature does not verify.
    Signature,
    /// The token was not issued by an accepted authorization server.
    Issuer,
    /// The token was not issued for this server (its audience).
    Audience,
    /// The token has expired.
    Expired,
    /// The token is not valid yet.
    NotYetValid,
    /// A claim is missing or of the wrong type; the text names it.
    Claim(&'static str),
    /// The authorization server says the token is not active (revoked, or
    /// unknown to it).
    Inactive,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::Malformed(part) => write!(f, "the token is malformed ({part})"),
            Rejection::TooLarge => f.write_str("the token is too large"),
            Rejection::Algorithm => f.write_str("the token's signing algorithm is not accepted"),
            Rejection::UnknownKey => f.write_str("the token names no known signing key"),
            Rejection::Signature => f.write_str("the token's signature does not verify"),
            Rejection::Issuer => {
                f.write_str("the token is from an issuer this server does not trust")
            }
            Rejection::Audience => f.write_str("the token was not issued for this server"),
            Rejection::Expired => f.write_str("the token has expired"),
            Rejection::NotYetValid => f.write_str("the token is not valid yet"),
            Rejection::Claim(name) => {
                write!(f, "the token's `{name}` claim is missing or malformed")
            }
            Rejection::Inactive => f.write_str("the token is not active"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_do_not_show() {
        let token = AccessToken::new("eyJhbGciOiJFUzI1NiJ9.secret.sig");
        let shown = format!("{token:?}");
        assert!(
            !shown.contains("secret") && !shown.contains("eyJ"),
            "{shown}"
        );
        assert_eq!(token.expose(), "eyJhbGciOiJFUzI1NiJ9.secret.sig");
    }

    #[test]
    fn rejections_are_plain_ascii_without_quotes() {
        let all = [
            Rejection::Malformed("header"),
            Rejection::TooLarge,
            Rejection::Algorithm,
            Rejection::UnknownKey,
            Rejection::Signature,
            Rejection::Issuer,
            Rejection::Audience,
            Rejection::Expired,
            Rejection::NotYetValid,
            Rejection::Claim("exp"),
            Rejection::Inactive,
        ];
        for rejection in all {
            let text = rejection.to_string();
            // The text goes into a quoted challenge parameter.
            assert!(
                text.bytes()
                    .all(|b| matches!(b, 0x20..=0x21 | 0x23..=0x5b | 0x5d..=0x7e)),
                "{text}"
            );
        }
    }
}
