//! `/healthz` and `/readyz` on the HTTP transport: for load balancers, so
//! they need no token and take any `Host`, and say nothing but their
//! status; a router can leave them out.

#![cfg(feature = "http")]

use mcp_server::transport::http::{self, HttpConfig};
use mcp_server::{tool, tools, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Echo;

#[tools]
impl Echo {
    /// Echoes its text.
    #[tool]
    fn echo(&self, text: String) -> String {
        text
    }
}

async fn serve(config: HttpConfig) -> u16 {
    let server = Server::builder(Echo)
        .info("echo", "1.0.0")
        .tools()
        .build()
        .expect("server builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let app = http::router(server, "/mcp", config);
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

/// A GET of `path` with `host` as the `Host`: the status and the body.
async fn get(port: u16, path: &str, host: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.expect("read");
    let status = raw
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = raw
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[tokio::test]
async fn a_load_balancer_asks_with_its_own_host_and_no_token() {
    let port = serve(HttpConfig::default()).await;
    for path in ["/healthz", "/readyz"] {
        // The address a balancer probes by, which the endpoint refuses.
        let (status, body) = get(port, path, "10.1.2.3:8080").await;
        assert_eq!(status, 200, "{path}: {body}");
        let body: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(body, json!({"status": "ok"}), "{path}");
    }
    let (status, _) = get(port, "/mcp", "10.1.2.3:8080").await;
    assert_eq!(status, 403, "the endpoint itself still checks the Host");
}

#[tokio::test]
async fn a_router_can_leave_them_out() {
    let port = serve(HttpConfig {
        health: false,
        ..HttpConfig::default()
    })
    .await;
    for path in ["/healthz", "/readyz"] {
        assert_eq!(get(port, path, "127.0.0.1").await.0, 404, "{path}");
    }
}

/// The claim of this file for a server that does check tokens: the
/// probes answer without one, and the endpoint beside them does not.
#[cfg(feature = "auth")]
#[tokio::test]
async fn a_protected_server_answers_its_probes_without_a_token() {
    use mcp_server::auth::{
        AccessToken, Grant, Rejection, ResourceServer, TokenError, TokenVerifier,
    };
    use mcp_server::BoxFuture;

    /// Accepts no token at all: every request that needs one fails.
    struct Nobody;

    impl TokenVerifier for Nobody {
        fn verify<'a>(&'a self, _: AccessToken<'a>) -> BoxFuture<'a, Result<Grant, TokenError>> {
            Box::pin(async { Err(TokenError::Invalid(Rejection::Inactive)) })
        }
    }

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let resource = ResourceServer::builder(
        format!("http://127.0.0.1:{port}/mcp"),
        ["https://as.example"],
    )
    .verifier(Nobody)
    .build()
    .expect("resource server");
    let server = Server::builder(Echo)
        .info("echo", "1.0.0")
        .tools()
        .authorization(resource)
        .build()
        .expect("server builds");
    let app = http::router(server, "/mcp", HttpConfig::default());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let host = format!("127.0.0.1:{port}");
    for path in ["/healthz", "/readyz"] {
        let (status, body) = get(port, path, &host).await;
        assert_eq!(status, 200, "{path}: {body}");
        let body: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(body, json!({"status": "ok"}), "{path}");
    }
    // The control: the same server refuses its endpoint without a token,
    // so the probes' 200 is not a server that checks nothing.
    let (status, _) = get(port, "/mcp", &host).await;
    assert_eq!(status, 401, "the endpoint asks for a token");
}
