//! The person's part of a login, as a seam: the flow hands over the
//! authorization URL and awaits the redirect that comes back. What sits
//! behind the seam is the host's choice: [`LoopbackLogin`] opens a
//! browser and receives the redirect on a loopback listener, as the
//! `mcp-host` command does; a test can drive the authorization server's
//! pages itself; an application can show the URL in its own window.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::error::AuthError;
use crate::BoxFuture;

/// What the person is asked to do.
#[derive(Debug, Clone)]
pub struct LoginPrompt {
    /// The host's id of the server that asks.
    pub server: String,
    /// The authorization server's issuer.
    pub issuer: String,
    /// Where to send the person.
    pub url: Url,
    /// The `state` of this login, so that a receiver can skip redirects
    /// that belong to another.
    pub state: String,
}

/// Gets logins done.
pub trait Login: Send + Sync + std::fmt::Debug {
    /// Gets ready to receive one redirect. `registered` is the redirect
    /// URI registered earlier with the authorization server, to be reused
    /// when it can (a new one makes a dynamically registered client
    /// register again).
    fn prepare<'a>(
        &'a self,
        registered: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, AuthError>>;
}

/// One login under way.
pub trait Redirect: Send {
    /// The redirect URI: where the authorization server sends the browser
    /// back.
    fn uri(&self) -> &str;

    /// Sends the person to `prompt.url` and waits for the redirect to
    /// [`Redirect::uri`]; returns the whole URL redirected to (the flow
    /// checks it).
    fn wait(self: Box<Self>, prompt: LoginPrompt) -> BoxFuture<'static, Result<Url, AuthError>>;
}

/// Tells the person where to go, before the browser opens.
pub type Announce = Arc<dyn Fn(&LoginPrompt) + Send + Sync>;

/// A login in the user's browser, the redirect received on
/// `http://127.0.0.1:{port}/callback`.
///
/// The listener takes an ephemeral port, or the port of the redirect URI
/// registered earlier when it is free. It reads nothing but request heads
/// (at most 8 KiB each), answers requests that are not the expected
/// redirect with an error page and goes on waiting, and gives up after
/// [`LoopbackLogin::timeout`].
#[derive(Clone)]
pub struct LoopbackLogin {
    /// Whether to open the system browser (`xdg-open` or `open`); the
    /// announcement is made either way.
    pub open_browser: bool,
    /// How long to wait for the person.
    pub timeout: Duration,
    /// Shows the prompt: the CLI prints the URL on stderr.
    pub announce: Announce,
}

impl std::fmt::Debug for LoopbackLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackLogin")
            .field("open_browser", &self.open_browser)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Default for LoopbackLogin {
    fn default() -> Self {
        Self {
            open_browser: true,
            timeout: Duration::from_secs(300),
            announce: Arc::new(|prompt: &LoginPrompt| {
                eprintln!(
                    "Server `{}` needs you to log in at {}.\nOpen this address in a browser if it does not open by itself:\n\n  {}\n",
                    prompt.server, prompt.issuer, prompt.url
                );
            }),
        }
    }
}

const CALLBACK: &str = "/callback";

impl Login for LoopbackLogin {
    fn prepare<'a>(
        &'a self,
        registered: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, AuthError>> {
        Box::pin(async move {
            let port = registered
                .and_then(|uri| Url::parse(uri).ok())
                .filter(|u| u.host_str() == Some("127.0.0.1") && u.path() == CALLBACK)
                .and_then(|u| u.port());
            let listener = match port {
                Some(port) => match TcpListener::bind(("127.0.0.1", port)).await {
                    Ok(listener) => listener,
                    Err(_) => bind_any().await?,
                },
                None => bind_any().await?,
            };
            let port = listener
                .local_addr()
                .map_err(|e| AuthError::Login(e.to_string()))?
                .port();
            Ok(Box::new(Loopback {
                listener,
                uri: format!("http://127.0.0.1:{port}{CALLBACK}"),
                login: self.clone(),
            }) as Box<dyn Redirect>)
        })
    }
}

async fn bind_any() -> Result<TcpListener, AuthError> {
    TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| AuthError::Login(format!("cannot listen for the redirect: {e}")))
}

struct Loopback {
    listener: TcpListener,
    uri: String,
    login: LoopbackLogin,
}

impl Redirect for Loopback {
    fn uri(&self) -> &str {
        &self.uri
    }

    fn wait(self: Box<Self>, prompt: LoginPrompt) -> BoxFuture<'static, Result<Url, AuthError>> {
        Box::pin(async move {
            (self.login.announce)(&prompt);
            if self.login.open_browser {
                open_browser(&prompt.url);
            }
            let wait = receive(&self.listener, &self.uri, &prompt.state);
            tokio::time::timeout(self.login.timeout, wait)
                .await
                .map_err(|_| {
                    AuthError::Login(format!(
                        "no redirect came back within {} s",
                        self.login.timeout.as_secs()
                    ))
                })?
        })
    }
}

/// Opens `url` in the system browser, quietly; the URL was announced, so
/// a failure here costs nothing. Only `http` and `https` URLs are opened,
/// and the URL is one argument, never shell text.
fn open_browser(url: &Url) {
    if !matches!(url.scheme(), "http" | "https") {
        return;
    }
    let program = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(program)
        .arg(url.as_str())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

/// Reads requests on `listener` until one is the redirect of this login.
async fn receive(listener: &TcpListener, uri: &str, state: &str) -> Result<Url, AuthError> {
    let base = Url::parse(uri).map_err(|e| AuthError::Login(e.to_string()))?;
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(|e| AuthError::Login(e.to_string()))?;
        let head = match tokio::time::timeout(Duration::from_secs(10), read_head(&mut stream)).await
        {
            Ok(Some(head)) => head,
            _ => continue,
        };
        let target = head
            .lines()
            .next()
            .and_then(|line| {
                let mut parts = line.split(' ');
                (parts.next() == Some("GET")).then(|| parts.next())?
            })
            .and_then(|target| base.join(target).ok());
        let ours = target.as_ref().filter(|t| {
            t.path() == CALLBACK && t.query_pairs().any(|(k, v)| k == "state" && v == state)
        });
        let (status, text) = if ours.is_some() {
            (
                "200 OK",
                "Authorization received. You can close this window.",
            )
        } else {
            (
                "400 Bad Request",
                "This is not the authorization response being waited for.",
            )
        };
        let page = format!(
            "<!doctype html><meta charset=\"utf-8\"><title>mcp-host</title><p>{text}</p>\n"
        );
        let reply = format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n{page}",
            page.len()
        );
        let _ = stream.write_all(reply.as_bytes()).await;
        let _ = stream.shutdown().await;
        if let Some(url) = ours {
            return Ok(url.clone());
        }
    }
}

/// A request head, at most 8 KiB.
async fn read_head(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buffer).await.ok()?;
        if n == 0 || head.len() + n > 8 * 1024 {
            return None;
        }
        head.extend_from_slice(&buffer[..n]);
    }
    String::from_utf8(head).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> LoopbackLogin {
        LoopbackLogin {
            open_browser: false,
            timeout: Duration::from_secs(20),
            announce: Arc::new(|_| {}),
        }
    }

    async fn get(url: &str) -> u16 {
        let response = reqwest::get(url).await.expect("get");
        response.status().as_u16()
    }

    #[tokio::test]
    async fn receives_the_redirect_of_its_own_login() {
        let login = quiet();
        let redirect = login.prepare(None).await.expect("listen");
        let uri = redirect.uri().to_owned();
        assert!(uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"));
        let prompt = LoginPrompt {
            server: "s".into(),
            issuer: "i".into(),
            url: Url::parse("https://as.example/authorize").expect("url"),
            state: "the-state".into(),
        };
        let waiting = tokio::spawn(redirect.wait(prompt));
        // Someone else's request and a stale state are turned away.
        let root = uri.trim_end_matches("/callback");
        assert_eq!(get(&format!("{root}/favicon.ico")).await, 400);
        assert_eq!(get(&format!("{uri}?code=x&state=other")).await, 400);
        assert_eq!(
            get(&format!("{uri}?code=abc&state=the-state&iss=x")).await,
            200
        );
        let url = waiting.await.expect("join").expect("redirect");
        assert!(url.query_pairs().any(|(k, v)| k == "code" && v == "abc"));
    }

    #[tokio::test]
    async fn reuses_the_registered_port_when_free() {
        let login = quiet();
        let first = login.prepare(None).await.expect("listen");
        let uri = first.uri().to_owned();
        drop(first);
        let second = login.prepare(Some(&uri)).await.expect("listen");
        assert_eq!(second.uri(), uri);
        // Taken: another port.
        let third = login.prepare(Some(&uri)).await.expect("listen");
        assert_ne!(third.uri(), uri);
    }

    #[tokio::test]
    async fn gives_up_after_the_timeout() {
        let login = LoopbackLogin {
            timeout: Duration::from_millis(50),
            ..quiet()
        };
        let redirect = login.prepare(None).await.expect("listen");
        let prompt = LoginPrompt {
            server: "s".into(),
            issuer: "i".into(),
            url: Url::parse("https://as.example/").expect("url"),
            state: "s".into(),
        };
        assert!(matches!(
            redirect.wait(prompt).await,
            Err(AuthError::Login(_))
        ));
    }
}
