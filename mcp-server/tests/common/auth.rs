//! A protected server whose verifier accepts one token, for the tests of
//! what reaches the log and the metrics of a request with credentials.

use mcp_server::auth::{AccessToken, Grant, Rejection, ResourceServer, TokenError, TokenVerifier};
use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::{BoxFuture, Server};

use super::Tools;

/// The one token [`One`] accepts.
pub const TOKEN: &str = "a-token-no-log-may-show";
pub const ISSUER: &str = "https://auth.example.com";
/// Whose [`TOKEN`] is.
pub const SUBJECT: &str = "a-subject-no-log-may-show";

/// Accepts [`TOKEN`] alone, as [`SUBJECT`]'s.
pub struct One;

impl TokenVerifier for One {
    fn verify<'a>(&'a self, token: AccessToken<'a>) -> BoxFuture<'a, Result<Grant, TokenError>> {
        let good = token.expose() == TOKEN;
        Box::pin(async move {
            match good {
                true => Ok(Grant::new(ISSUER, SUBJECT)),
                false => Err(TokenError::Invalid(Rejection::Inactive)),
            }
        })
    }
}

/// Serves [`Tools`], protected by [`One`], at `/mcp` on loopback; returns
/// the port.
pub async fn listen() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let resource = ResourceServer::builder(format!("http://127.0.0.1:{port}/mcp"), [ISSUER])
        .verifier(One)
        .build()
        .expect("resource server");
    let server = Server::builder(Tools)
        .tools()
        .authorization(resource)
        .build()
        .expect("server builds");
    let router = http::router(server, "/mcp", HttpConfig::default());
    tokio::spawn(async move { axum::serve(listener, router).await });
    port
}

/// The `Authorization` header of [`TOKEN`].
pub fn bearer() -> String {
    format!("Bearer {TOKEN}")
}
