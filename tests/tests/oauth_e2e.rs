//! OAuth end to end, with nothing scripted: a real authorization server
//! (`oidc-provider`, pinned, see `mcp_tests::oauth`), the `notes` example
//! protected by `mcp-server`'s resource-server layer, and `mcp-host`'s
//! OAuth client, whose login seam drives the provider's login and consent
//! pages as a person would.
//!
//! One flow goes through everything: discovery, dynamic registration,
//! the authorization code with PKCE and `resource`, calls under the
//! token, a step-up when a tool needs `notes:write`, a refresh when the
//! token is about to expire; a token for another audience is refused; and
//! the `mcp-host` command logs in, uses the stored token, and logs out.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_host::approval::{ApproveAll, Gate, Policy};
use mcp_host::auth::{
    AuthError, CredentialStore, Login, LoginPrompt, MemoryStore, OAuthClient, OAuthSettings,
    Redirect,
};
use mcp_host::client::{CallOptions, Client, ClientError, ClientOptions, NoInput, Target};
use mcp_host::{BoxFuture, ServerId};
use mcp_tests::oauth::{self, AuthServer, Settings};
use serde_json::{json, Value};

fn notes() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| mcp_tests::build::example("notes"))
}

fn host_binary() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| mcp_tests::build::binary("mcp-host"))
}

/// A process killed and reaped when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The protected `notes` example on a free port, accepting tokens of
/// `issuer`; its endpoint URL.
fn protected_notes(issuer: &str) -> (Running, String) {
    let addr: SocketAddr = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let url = format!("http://{addr}/mcp");
    let child = Command::new(notes())
        .args([
            "--http",
            &addr.to_string(),
            "--auth-issuer",
            issuer,
            "--resource",
            &url,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("notes starts");
    let mut running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(addr).is_err() {
        if let Ok(Some(status)) = running.0.try_wait() {
            panic!("notes ended before listening: {status}");
        }
        assert!(Instant::now() < deadline, "notes never listened on {addr}");
        std::thread::sleep(Duration::from_millis(20));
    }
    (running, url)
}

/// The person at the provider's pages: logs in as `alice` and consents to
/// whatever is asked; counts the logins and keeps the scopes asked for.
#[derive(Debug, Default)]
struct Person {
    logins: AtomicUsize,
    asked: Mutex<Vec<String>>,
}

struct PersonRedirect(Arc<Person>);

#[derive(Debug)]
struct Seam(Arc<Person>);

impl Login for Seam {
    fn prepare<'a>(
        &'a self,
        _registered: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Box<dyn Redirect>, AuthError>> {
        let person = self.0.clone();
        Box::pin(async move { Ok(Box::new(PersonRedirect(person)) as Box<dyn Redirect>) })
    }
}

impl Redirect for PersonRedirect {
    fn uri(&self) -> &str {
        // Never listened on: the person hands the redirect back directly.
        "http://127.0.0.1:8976/callback"
    }

    fn wait(
        self: Box<Self>,
        prompt: LoginPrompt,
    ) -> BoxFuture<'static, Result<reqwest::Url, AuthError>> {
        let person = self.0;
        Box::pin(async move {
            person.logins.fetch_add(1, Ordering::SeqCst);
            let scope = prompt
                .url
                .query_pairs()
                .find(|(k, _)| k == "scope")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            person.asked.lock().expect("lock").push(scope);
            let back = oauth::drive_login(prompt.url.as_str(), "alice")
                .await
                .map_err(AuthError::Login)?;
            reqwest::Url::parse(&back).map_err(|e| AuthError::Login(e.to_string()))
        })
    }
}

async fn call(client: &Client, tool: &str, arguments: Value) -> Result<Value, ClientError> {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    let gate = Gate::new(Policy::default(), Arc::new(ApproveAll));
    let call = client.prepare_call(tool, arguments).await?;
    let approval = gate.authorize(&call).await?;
    let result = client
        .call_tool(call, approval, &CallOptions::default())
        .await?;
    Ok(json!(result.accept()))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_call_step_up_refresh_and_another_audience() {
    let provider = AuthServer::start_with(&Settings {
        access_token_ttl: Duration::from_secs(12),
        ..Settings::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let (_notes, url) = protected_notes(provider.issuer());
    let person = Arc::new(Person::default());
    let store = Arc::new(MemoryStore::new());
    let oauth = Arc::new(
        OAuthClient::new(
            "notes",
            &url,
            OAuthSettings::default(),
            store.clone(),
            Some(Arc::new(Seam(person.clone()))),
        )
        .expect("oauth client"),
    );
    let options = ClientOptions {
        oauth: Some(oauth.clone()),
        ..ClientOptions::default()
    };
    let target = Target::Http {
        url: url.clone(),
        headers: Vec::new(),
    };
    let client = Client::connect(
        ServerId::new("notes").expect("id"),
        target,
        Arc::new(NoInput),
        options,
        None,
    )
    .await
    .unwrap_or_else(|e| panic!("connect: {e}\nprovider log:\n{}", provider.log()));

    // The first login asked for what the server's challenge named, and
    // for a refresh token, which the provider offers.
    assert_eq!(person.logins.load(Ordering::SeqCst), 1);
    assert_eq!(
        person.asked.lock().expect("lock")[0],
        "notes:read offline_access"
    );
    let granted = oauth.granted_scopes();
    assert!(granted.contains(&"notes:read".to_owned()), "{granted:?}");
    assert!(!granted.contains(&"notes:write".to_owned()), "{granted:?}");
    let first = store
        .tokens(oauth.resource_key())
        .expect("store")
        .expect("tokens");
    assert!(
        first.refresh_token.is_some(),
        "the provider issues refresh tokens"
    );
    assert_eq!(first.issuer, provider.issuer());

    let tools = client
        .list_tools()
        .await
        .expect("tools/list under the token");
    let names: Vec<String> = tools
        .tools
        .iter()
        .map(|t| t.accept_ref().name.clone())
        .collect();
    assert!(names.contains(&"create_note".to_owned()), "{names:?}");

    // Writing needs notes:write: the server says 403 insufficient_scope,
    // the host steps up with the union of the scopes, and the call goes
    // through.
    let created = call(
        &client,
        "create_note",
        json!({"title": "milk", "body": "buy milk"}),
    )
    .await
    .unwrap_or_else(|e| panic!("create_note: {e}\nprovider log:\n{}", provider.log()));
    assert_ne!(created["isError"], json!(true), "{created}");
    assert_eq!(person.logins.load(Ordering::SeqCst), 2);
    let asked = person.asked.lock().expect("lock")[1].clone();
    assert!(
        asked.contains("notes:read") && asked.contains("notes:write"),
        "{asked}"
    );
    assert!(oauth.granted_scopes().contains(&"notes:write".to_owned()));

    // Refresh: once the token is due, the next request refreshes it
    // instead of logging in again, and keeps working.
    let before = store
        .tokens(oauth.resource_key())
        .expect("store")
        .expect("tokens");
    let expires = before.expires_at.expect("an expiring token");
    let issued = before.issued_at.expect("issued");
    let due = expires - (expires - issued) / 4;
    while now() < due {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    client
        .list_tools()
        .await
        .expect("tools/list after the refresh");
    let after = store
        .tokens(oauth.resource_key())
        .expect("store")
        .expect("tokens");
    assert_ne!(
        after.access_token, before.access_token,
        "a new access token"
    );
    assert!(after.expires_at > before.expires_at);
    assert!(
        after.refresh_token.is_some(),
        "a refresh token is kept or rotated"
    );
    assert_eq!(
        person.logins.load(Ordering::SeqCst),
        2,
        "no login for a refresh"
    );

    // A token the provider issued for another resource is refused.
    let other = client_credentials_token(&provider, "http://127.0.0.1:9/other").await;
    let refused = reqwest::Client::new()
        .post(&url)
        .header("authorization", format!("Bearer {other}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}})
            .to_string(),
        )
        .send()
        .await
        .expect("send");
    assert_eq!(refused.status().as_u16(), 401);
    let challenge = refused
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(!challenge.contains(&other), "the token is never echoed");
    // And through the host with that token configured as a header, the
    // refusal is named.
    let stolen = Client::connect(
        ServerId::new("stolen").expect("id"),
        Target::Http {
            url: url.clone(),
            headers: vec![("Authorization".into(), format!("Bearer {other}"))],
        },
        Arc::new(NoInput),
        ClientOptions::default(),
        None,
    )
    .await
    .expect_err("another audience's token");
    assert!(
        matches!(&stolen, ClientError::Unauthorized(r) if r.status == 401),
        "{stolen}"
    );
    client.shutdown().await;
}

/// A client-credentials token of the provider's confidential client for
/// `resource`.
async fn client_credentials_token(provider: &AuthServer, resource: &str) -> String {
    let discovery: Value = reqwest::get(format!(
        "{}/.well-known/openid-configuration",
        provider.issuer()
    ))
    .await
    .expect("discovery")
    .text()
    .await
    .map(|t| serde_json::from_str(&t).expect("json"))
    .expect("body");
    let endpoint = discovery["token_endpoint"]
        .as_str()
        .expect("token endpoint");
    let response: Value = reqwest::Client::new()
        .post(endpoint)
        .basic_auth(
            provider.confidential_client_id(),
            Some(provider.confidential_client_secret()),
        )
        .form(&[
            ("grant_type", "client_credentials"),
            ("resource", resource),
            ("scope", "notes:read"),
        ])
        .send()
        .await
        .expect("token request")
        .text()
        .await
        .map(|t| serde_json::from_str(&t).expect("json"))
        .expect("body");
    response["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no token: {response}"))
        .to_owned()
}

/// A scratch state directory, removed when dropped.
struct StateDir(PathBuf);

impl Drop for StateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn host(config: &Path, state: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(host_binary());
    command
        .arg("--config")
        .arg(config)
        .args(args)
        .env("XDG_STATE_HOME", state)
        .stdin(Stdio::null());
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_logs_in_uses_the_stored_token_and_logs_out() {
    let provider = AuthServer::start().unwrap_or_else(|e| panic!("{e}"));
    let (_notes, url) = protected_notes(provider.issuer());
    let mut name = [0u8; 8];
    getrandom::fill(&mut name).expect("random");
    let state = StateDir(std::env::temp_dir().join(format!(
        "mcp-host-e2e-{}",
        name.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )));
    std::fs::create_dir_all(&state.0).expect("state dir");
    let config = state.0.join("servers.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"notes": {"url": url}}}).to_string(),
    )
    .expect("config");

    // `login` prints the URL on stderr and waits for the redirect on its
    // loopback listener; the person logs in and the browser follows the
    // redirect there.
    let mut login = host(&config, &state.0, &["login", "notes", "--no-browser"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-host login starts");
    let stderr = login.stderr.take().expect("stderr");
    let (found, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.trim_start().starts_with("http") {
                let _ = found.send(line.trim().to_owned());
            }
        }
    });
    let authorization_url = lines
        .recv_timeout(Duration::from_secs(60))
        .expect("the login URL on stderr");
    let back = oauth::drive_login(&authorization_url, "bob")
        .await
        .unwrap_or_else(|e| panic!("{e}\nprovider log:\n{}", provider.log()));
    assert!(back.starts_with("http://127.0.0.1:"), "{back}");
    let landed = reqwest::get(&back).await.expect("the redirect lands");
    assert_eq!(landed.status().as_u16(), 200);
    let output = login.wait_with_output().expect("login ends");
    assert!(output.status.success(), "login failed: {output:?}");
    let printed: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(printed["loggedIn"], json!(true), "{printed}");

    let credentials = state.0.join("mcp-host").join("credentials.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&credentials)
            .expect("stored")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // Without a terminal, `tools` uses the stored token.
    let tools = host(&config, &state.0, &["tools"]).output().expect("tools");
    assert!(tools.status.success(), "{tools:?}");
    let listed: Value = serde_json::from_slice(&tools.stdout).expect("json");
    let names: Vec<&str> = listed
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"notes__create_note"), "{names:?}");

    // `logout` forgets it; then, with nobody at a terminal, the server is
    // reported as needing a login.
    let logout = host(&config, &state.0, &["logout", "notes"])
        .output()
        .expect("logout");
    assert!(logout.status.success(), "{logout:?}");
    let printed: Value = serde_json::from_slice(&logout.stdout).expect("json");
    assert_eq!(printed["loggedOut"], json!(true));
    let servers = host(&config, &state.0, &["servers"])
        .output()
        .expect("servers");
    assert!(!servers.status.success());
    let listed: Value = serde_json::from_slice(&servers.stdout).expect("json");
    let error = listed[0]["error"].as_str().unwrap_or_default().to_owned();
    assert!(error.contains("needs a login"), "{error}");
}
