//! The host: one client per configured server, their lifecycle, and one
//! catalogue of every server's tools, prompts and resources under
//! host-controlled names.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use mcp_types::v2026_07_28::{
    CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate,
    SubscriptionFilter, Tool,
};
use serde_json::{Map, Value};

use crate::approval::{Approval, Approver, Denied, Gate, Policy, ToolCall};
use crate::audit::{AuditLog, AuditRecord};
use crate::client::{
    CallOptions, Client, ClientError, ClientOptions, ExcludedTool, InputHandler, KnownEra,
    NameKind, NoInput, Session, Shutdown, Subscription,
};
use crate::config::{HostConfig, ServerConfig};
use crate::names::{self, QualifiedNames, ServerId, SEPARATOR};
use crate::trust::{
    self, Change, Checks, Definition, Finding, Kind, PinFile, PinGuard, Pinning, Quarantine,
    Verdict,
};
use crate::untrusted::Untrusted;
use crate::BoxFuture;

/// A tool in the host's catalogue.
#[derive(Debug, Clone)]
pub struct HostTool {
    /// The host's name for it.
    pub qualified: String,
    /// The server it belongs to.
    pub server: ServerId,
    /// Its definition, as the server wrote it.
    pub tool: Untrusted<Tool>,
    /// What the poisoning checks found on it.
    pub findings: Vec<Finding>,
    /// Why it may not be called, when it may not: [`Host::tools`] leaves
    /// it out, and [`Host::quarantined_tools`] has it.
    pub quarantine: Option<Quarantine>,
}

/// A prompt in the host's catalogue.
#[derive(Debug, Clone)]
pub struct HostPrompt {
    /// The host's name for it.
    pub qualified: String,
    /// The server it belongs to.
    pub server: ServerId,
    /// Its definition, as the server wrote it.
    pub prompt: Untrusted<Prompt>,
    /// What the poisoning checks found on it.
    pub findings: Vec<Finding>,
    /// Why it may not be got, when it may not: [`Host::prompts`] leaves
    /// it out.
    pub quarantine: Option<Quarantine>,
}

/// A resource in the host's catalogue. Resources keep their URIs; the
/// server id tells them apart.
#[derive(Debug, Clone)]
pub struct HostResource {
    /// The server it belongs to.
    pub server: ServerId,
    /// Its description, as the server wrote it.
    pub resource: Untrusted<Resource>,
}

/// A resource template in the host's catalogue, with the server that
/// serves the URIs it stands for.
#[derive(Debug, Clone)]
pub struct HostResourceTemplate {
    /// The server it belongs to.
    pub server: ServerId,
    /// Its description, as the server wrote it.
    pub template: Untrusted<ResourceTemplate>,
    /// Why it is not used, when it is not: [`Host::resource_templates`]
    /// leaves it out, and [`Host::resource_servers`] does not match it.
    pub quarantine: Option<Quarantine>,
}

/// What the last [`Host::refresh`] did with the pins.
#[derive(Debug, Clone, PartialEq)]
pub enum PinEvent {
    /// A definition seen for the first time was pinned.
    Pinned {
        /// The server.
        server: ServerId,
        /// What kind of definition.
        kind: Kind,
        /// Its name, as the server wrote it.
        name: Untrusted<String>,
    },
    /// A definition differs from its pin, and is quarantined.
    Changed(Box<Change>),
    /// The pin file could not be read or written.
    PinFile(String),
}

/// How one configured server is doing.
#[derive(Debug, Clone)]
pub struct ServerStatus {
    /// Its id.
    pub id: ServerId,
    /// What its client learnt, when connected.
    pub session: Option<Session>,
    /// Why it is not connected, when it is not.
    pub error: Option<String>,
    /// A lazy server that is not running now: it starts when a request
    /// needs it, and its catalogue comes from its pins meanwhile.
    pub asleep: bool,
    /// Where a followed redirect moved an HTTP server's endpoint.
    pub redirected: Option<String>,
}

#[derive(Debug, Default)]
struct Catalogue {
    tool_names: QualifiedNames,
    tools: Vec<HostTool>,
    /// Where each tool is in `tools`, by server and the server's own name
    /// for it: a call finds it in constant time.
    tool_index: HashMap<(ServerId, String), usize>,
    prompt_names: QualifiedNames,
    prompts: Vec<HostPrompt>,
    resources: Vec<HostResource>,
    templates: Vec<HostResourceTemplate>,
    excluded: Vec<ExcludedTool>,
    /// The definitions that differ from their pins.
    changes: Vec<Change>,
    events: Vec<PinEvent>,
}

struct Slot {
    config: ServerConfig,
    client: tokio::sync::RwLock<Option<Arc<Client>>>,
    error: Mutex<Option<String>>,
    /// Requests using the client now.
    busy: AtomicUsize,
    /// When the last one ended.
    used: Mutex<Instant>,
    /// A subscription was opened: a lazy server then stays up.
    listening: AtomicBool,
    /// Held while a lazy server is started.
    starting: tokio::sync::Mutex<()>,
    /// The resources the server listed when it last ran, served while a
    /// lazy server sleeps (resources are not pinned).
    resources: Mutex<Vec<HostResource>>,
    /// The server's OAuth client, or why it could not be made.
    #[cfg(feature = "oauth")]
    oauth: Result<Option<Arc<crate::auth::OAuthClient>>, String>,
}

/// A pinned definition of `server`, as the type it was listed as; `None`
/// when it no longer reads as one.
fn decoded<T: serde::de::DeserializeOwned>(
    server: &ServerId,
    value: Value,
) -> Option<(ServerId, Untrusted<T>)> {
    let item = serde_json::from_value(value).ok()?;
    Some((server.clone(), Untrusted::new(server.clone(), item)))
}

/// Counts a request on a slot's client while it lives.
struct InUse<'a>(&'a Slot);

impl<'a> InUse<'a> {
    fn new(slot: &'a Slot) -> Self {
        slot.busy.fetch_add(1, Ordering::SeqCst);
        Self(slot)
    }
}

impl Drop for InUse<'_> {
    fn drop(&mut self) {
        if let Ok(mut used) = self.0.used.lock() {
            *used = Instant::now();
        }
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Stops each lazy server that has sat unused for its idle time, until
/// the host is gone.
async fn stop_idle(slots: Weak<BTreeMap<ServerId, Slot>>) {
    let Some(tick) = slots.upgrade().and_then(|slots| {
        slots
            .values()
            .filter_map(|s| s.config.idle)
            .min()
            .map(|idle| (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(5)))
    }) else {
        return;
    };
    loop {
        tokio::time::sleep(tick).await;
        let Some(slots) = slots.upgrade() else {
            return;
        };
        for slot in slots.values() {
            let Some(idle) = slot.config.idle else {
                continue;
            };
            let quiet = |slot: &Slot| {
                slot.busy.load(Ordering::SeqCst) == 0
                    && !slot.listening.load(Ordering::SeqCst)
                    && slot.used.lock().is_ok_and(|used| used.elapsed() >= idle)
            };
            if !quiet(slot) || slot.client.read().await.is_none() {
                continue;
            }
            let client = {
                let mut held = slot.client.write().await;
                // A request may have started meanwhile: it holds the
                // client, which then stays.
                if !quiet(slot) {
                    continue;
                }
                held.take()
            };
            if let Some(client) = client {
                let _ = client.shutdown().await;
            }
        }
    }
}

fn set_error(slot: &Slot, error: Option<String>) {
    if let Ok(mut slot) = slot.error.lock() {
        *slot = error;
    }
}

/// Builds a [`Host`].
pub struct HostBuilder {
    config: HostConfig,
    policy: Policy,
    approver: Option<Arc<dyn Approver>>,
    input: Arc<dyn InputHandler>,
    options: ClientOptions,
    pin_file: Option<PinFile>,
    quarantine_flagged: bool,
    audit: Option<AuditLog>,
    #[cfg(feature = "oauth")]
    credentials: Option<Arc<dyn crate::auth::CredentialStore>>,
    #[cfg(feature = "oauth")]
    login: Option<Arc<dyn crate::auth::Login>>,
}

impl std::fmt::Debug for HostBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostBuilder")
            .field("config", &self.config)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl HostBuilder {
    /// Sets the approval policy; the default asks for every tool that may
    /// write.
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets who is asked; without one, every call that needs asking is
    /// denied.
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Sets who answers the servers' input requests; without one, the host
    /// declares no input capabilities and declines.
    pub fn input(mut self, input: Arc<dyn InputHandler>) -> Self {
        self.input = input;
        self
    }

    /// Sets the options every client starts from; each server's `trust`
    /// and `legacy` come from its configuration.
    pub fn options(mut self, options: ClientOptions) -> Self {
        self.options = options;
        self
    }

    /// Keeps the pins in `file` between runs; without one they last as
    /// long as the host, so a definition that changes while it runs is
    /// still quarantined. A file that cannot be read quarantines
    /// everything (see [`PinFile`]).
    pub fn pin_file(mut self, file: PinFile) -> Self {
        self.pin_file = Some(file);
        self
    }

    /// Quarantines the tools and prompts the poisoning checks flag, as
    /// well as the changed ones.
    pub fn quarantine_flagged(mut self, quarantine: bool) -> Self {
        self.quarantine_flagged = quarantine;
        self
    }

    /// Appends a line to `log` for every tool call decision.
    pub fn audit(mut self, log: AuditLog) -> Self {
        self.audit = Some(log);
        self
    }

    /// Sets where OAuth registrations and tokens are kept; by default the
    /// [`FileStore`](crate::auth::FileStore) in the user's state directory
    /// (or memory, when there is no such directory).
    #[cfg(feature = "oauth")]
    pub fn credentials(mut self, store: Arc<dyn crate::auth::CredentialStore>) -> Self {
        self.credentials = Some(store);
        self
    }

    /// Sets who gets people logged in when a server needs it; without
    /// one, such a server fails with
    /// [`AuthError::LoginRequired`](crate::auth::AuthError::LoginRequired).
    #[cfg(feature = "oauth")]
    pub fn login(mut self, login: Arc<dyn crate::auth::Login>) -> Self {
        self.login = Some(login);
        self
    }

    /// Connects to every server at once, then lists what they offer. A
    /// server that fails to connect is reported by [`Host::servers`] and
    /// left out; the others go on.
    pub async fn start(self) -> Host {
        #[cfg(feature = "oauth")]
        let store: Arc<dyn crate::auth::CredentialStore> = match self.credentials {
            Some(store) => store,
            None => match crate::auth::FileStore::in_state_dir() {
                Ok(store) => Arc::new(store),
                Err(_) => Arc::new(crate::auth::MemoryStore::new()),
            },
        };
        let gate = match self.approver {
            Some(approver) => Gate::new(self.policy, approver),
            None => Gate::new(self.policy, Arc::new(crate::approval::DenyAll)),
        };
        let slots = self
            .config
            .servers
            .into_iter()
            .map(|(id, config)| {
                #[cfg(feature = "oauth")]
                let oauth = oauth_client(&id, &config, &store, self.login.clone());
                let slot = Slot {
                    config,
                    client: tokio::sync::RwLock::new(None),
                    error: Mutex::new(None),
                    busy: AtomicUsize::new(0),
                    used: Mutex::new(Instant::now()),
                    listening: AtomicBool::new(false),
                    starting: tokio::sync::Mutex::new(()),
                    resources: Mutex::new(Vec::new()),
                    #[cfg(feature = "oauth")]
                    oauth,
                };
                (id, slot)
            })
            .collect::<BTreeMap<_, _>>();
        // One book for the host and every client it connects: the host
        // pins what it lists, and each client refuses a changed tool on
        // the path every call takes, whoever holds the client.
        let pins = match self.pin_file {
            Some(file) => PinGuard::file(file),
            None => PinGuard::memory(),
        };
        let mut options = self.options;
        options.pins = Pinning::Shared(pins.clone());
        let host = Host {
            slots: Arc::new(slots),
            gate,
            input: self.input,
            options,
            eras: Mutex::new(HashMap::new()),
            catalogue: RwLock::new(Catalogue::default()),
            pins,
            quarantine_flagged: self.quarantine_flagged,
            audit: self.audit,
        };
        // A lazy server whose definitions are pinned sleeps until needed;
        // one seen for the first time runs, to be listed and pinned.
        let starting: Vec<&ServerId> = host
            .slots
            .iter()
            .filter(|(id, slot)| slot.config.idle.is_none() || !host.pinned(id, slot))
            .map(|(id, _)| id)
            .collect();
        join_all(starting.into_iter().map(|id| host.connect(id))).await;
        host.refresh().await;
        if host.slots.values().any(|s| s.config.idle.is_some()) {
            tokio::spawn(stop_idle(Arc::downgrade(&host.slots)));
        }
        host
    }
}

/// What one refresh listed, before it is judged.
#[derive(Default)]
struct Listed {
    tools: Vec<(ServerId, Untrusted<Tool>)>,
    prompts: Vec<(ServerId, Untrusted<Prompt>)>,
    resources: Vec<HostResource>,
    templates: Vec<(ServerId, Untrusted<ResourceTemplate>)>,
    excluded: Vec<ExcludedTool>,
    instructions: Vec<(ServerId, Untrusted<String>)>,
}

/// The pins, as one refresh judges definitions against them.
struct Judging<'a> {
    book: &'a mut trust::guard::PinBook,
    identities: BTreeMap<ServerId, String>,
    changes: Vec<Change>,
    events: Vec<PinEvent>,
    dirty: bool,
}

impl Judging<'_> {
    /// Pins `definition` of `server` if it is new; why it is quarantined,
    /// if it is.
    fn judge(&mut self, server: &ServerId, definition: Definition) -> Option<Quarantine> {
        if let Some(reason) = &self.book.broken {
            return Some(Quarantine::Unpinned(reason.clone()));
        }
        let identity = self.identities.get(server)?;
        let verdict = self.book.pins.check(server, identity, &definition);
        match verdict {
            Verdict::New => {
                self.book.pin(server, identity, &definition);
                self.dirty = true;
                self.events.push(PinEvent::Pinned {
                    server: server.clone(),
                    kind: definition.kind,
                    name: Untrusted::new(server.clone(), definition.name),
                });
                None
            }
            Verdict::Changed(change) => {
                self.events
                    .push(PinEvent::Changed(Box::new(change.clone())));
                self.changes.push(change.clone());
                Some(Quarantine::Changed(Box::new(change)))
            }
            Verdict::Same => None,
        }
    }
}

/// One client per configured server, the gate every tool call passes, and
/// the catalogue of what the servers offer.
pub struct Host {
    slots: Arc<BTreeMap<ServerId, Slot>>,
    gate: Gate,
    input: Arc<dyn InputHandler>,
    options: ClientOptions,
    eras: Mutex<HashMap<String, KnownEra>>,
    catalogue: RwLock<Catalogue>,
    pins: PinGuard,
    quarantine_flagged: bool,
    audit: Option<AuditLog>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("servers", &self.slots.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Host {
    /// A builder for a host of the servers in `config`.
    pub fn builder(config: HostConfig) -> HostBuilder {
        HostBuilder {
            config,
            policy: Policy::default(),
            approver: None,
            input: Arc::new(NoInput),
            options: ClientOptions::default(),
            pin_file: None,
            quarantine_flagged: false,
            audit: None,
            #[cfg(feature = "oauth")]
            credentials: None,
            #[cfg(feature = "oauth")]
            login: None,
        }
    }

    /// The OAuth client of the HTTP server `id`, if it has one.
    #[cfg(feature = "oauth")]
    pub fn oauth(&self, id: &ServerId) -> Option<Arc<crate::auth::OAuthClient>> {
        self.slots.get(id)?.oauth.as_ref().ok()?.clone()
    }

    fn slot(&self, id: &ServerId) -> Result<&Slot, ClientError> {
        self.slots
            .get(id)
            .ok_or_else(|| ClientError::UnknownServer {
                id: id.to_string(),
                configured: self.slots.keys().cloned().collect(),
            })
    }

    /// Whether the server `id` is configured and has not failed.
    fn running(&self, id: &ServerId) -> Result<(), ClientError> {
        match self.slot(id)?.error.lock().ok().and_then(|e| e.clone()) {
            Some(reason) => Err(ClientError::ServerDown {
                id: id.clone(),
                reason,
            }),
            None => Ok(()),
        }
    }

    /// Starts (or restarts) the client of `id`.
    async fn connect(&self, id: &ServerId) -> Result<Arc<Client>, ClientError> {
        let slot = self.slot(id)?;
        let mut options = self.options.clone();
        options.trust = slot.config.trust;
        options.force_legacy |= slot.config.legacy;
        #[cfg(feature = "oauth")]
        {
            options.oauth = match &slot.oauth {
                Ok(oauth) => oauth.clone(),
                Err(e) => {
                    set_error(slot, Some(e.clone()));
                    return Err(ClientError::Config(e.clone()));
                }
            };
        }
        let key = crate::client::era_key(id, &slot.config.target);
        let known = self.eras.lock().ok().and_then(|e| e.get(&key).cloned());
        // A forced era says nothing about the server: keep it out of the cache.
        let forced = options.force_legacy;
        let outcome = Client::connect(
            id.clone(),
            slot.config.target.clone(),
            self.input.clone(),
            options,
            known,
        )
        .await;
        match outcome {
            Ok(client) => {
                if let (false, Some(era), Ok(mut eras)) =
                    (forced, client.known_era(), self.eras.lock())
                {
                    eras.insert(key, era);
                }
                let client = Arc::new(client);
                *slot.client.write().await = Some(client.clone());
                set_error(slot, None);
                Ok(client)
            }
            Err(e) => {
                set_error(slot, Some(e.to_string()));
                Err(e)
            }
        }
    }

    /// Whether the pin book holds definitions of `id` as configured.
    fn pinned(&self, id: &ServerId, slot: &Slot) -> bool {
        let identity = trust::identity(&slot.config.target);
        !self.pins.lock().pins.of(id, &identity).is_empty()
    }

    /// Whether `slot` is a lazy server that is not running and has not
    /// failed.
    async fn asleep(&self, slot: &Slot) -> bool {
        slot.config.idle.is_some()
            && slot.client.read().await.is_none()
            && slot.error.lock().is_ok_and(|e| e.is_none())
    }

    /// What the sleeping server `id` offers, as pinned (and its resources
    /// as last listed).
    fn listed_from_pins(&self, id: &ServerId, slot: &Slot, listed: &mut Listed) {
        let identity = trust::identity(&slot.config.target);
        let book = self.pins.lock();
        for pin in book.pins.of(id, &identity) {
            let value = pin.definition.clone();
            match pin.kind {
                Kind::Tool => listed.tools.extend(decoded(id, value)),
                Kind::Prompt => listed.prompts.extend(decoded(id, value)),
                Kind::ResourceTemplate => listed.templates.extend(decoded(id, value)),
                Kind::Instructions => listed.instructions.extend(decoded(id, value)),
            }
        }
        drop(book);
        if let Ok(resources) = slot.resources.lock() {
            listed.resources.extend(resources.iter().cloned());
        }
    }

    /// The client of `id`, if it is connected.
    pub async fn client(&self, id: &ServerId) -> Option<Arc<Client>> {
        self.slots.get(id)?.client.read().await.clone()
    }

    /// Every configured server and how it is doing.
    pub async fn servers(&self) -> Vec<ServerStatus> {
        let mut list = Vec::new();
        for (id, slot) in self.slots.iter() {
            let client = slot.client.read().await.clone();
            list.push(ServerStatus {
                id: id.clone(),
                asleep: self.asleep(slot).await,
                redirected: client.as_ref().and_then(|c| c.redirected()),
                session: client.and_then(|c| c.session()),
                error: slot.error.lock().ok().and_then(|e| e.clone()),
            });
        }
        list
    }

    /// Runs `op` on the client of `id`. If a stdio server has crashed, or
    /// an HTTP+SSE server's stream could not be opened again, it is
    /// restarted (connected anew) and `op` runs once more: what was in
    /// flight is retried. A sleeping lazy server is started first, and
    /// what it offers listed and judged against its pins again, so that
    /// a definition that changed while it slept is quarantined before
    /// `op` runs.
    async fn with_client<'a, T>(
        &self,
        id: &ServerId,
        op: impl Fn(Arc<Client>) -> BoxFuture<'a, Result<T, ClientError>>,
    ) -> Result<T, ClientError> {
        let slot = self.slot(id)?;
        let _in_use = InUse::new(slot);
        let client = match self.client(id).await {
            Some(client) => client,
            None if slot.config.idle.is_some() => {
                let client = self.wake(id, slot).await?;
                self.refresh().await;
                client
            }
            None => self.connect(id).await?,
        };
        self.retrying(id, client, op).await
    }

    /// Runs `op` on the running client of `id`, as [`Host::with_client`]
    /// does, but never starts a server that is not running.
    async fn listing<'a, T>(
        &self,
        id: &ServerId,
        op: impl Fn(Arc<Client>) -> BoxFuture<'a, Result<T, ClientError>>,
    ) -> Result<T, ClientError> {
        let slot = self.slot(id)?;
        let _in_use = InUse::new(slot);
        let client = self.client(id).await.ok_or(ClientError::Closed)?;
        self.retrying(id, client, op).await
    }

    /// Runs `op` on `client`, and once more on a new client if it died.
    async fn retrying<'a, T>(
        &self,
        id: &ServerId,
        client: Arc<Client>,
        op: impl Fn(Arc<Client>) -> BoxFuture<'a, Result<T, ClientError>>,
    ) -> Result<T, ClientError> {
        match op(client.clone()).await {
            Err(ClientError::Closed) if client.is_closed() => {
                let fresh = self.restart(id, &client).await?;
                op(fresh).await
            }
            other => other,
        }
    }

    /// Starts the sleeping lazy server `id`, unless another request
    /// already did.
    async fn wake(&self, id: &ServerId, slot: &Slot) -> Result<Arc<Client>, ClientError> {
        // One start at a time: the others wait, then find it running.
        let _starting = slot.starting.lock().await;
        match self.client(id).await {
            Some(client) => Ok(client),
            None => self.connect(id).await,
        }
    }

    /// Replaces a dead client, unless another task already did.
    async fn restart(&self, id: &ServerId, dead: &Arc<Client>) -> Result<Arc<Client>, ClientError> {
        if let Some(current) = self.client(id).await {
            if !Arc::ptr_eq(&current, dead) && !current.is_closed() {
                return Ok(current);
            }
        }
        let _ = dead.shutdown().await;
        self.connect(id).await
    }

    /// Lists the tools, prompts, resources and resource templates of every
    /// connected server again, renames them, and judges each definition
    /// against its pin: new ones are pinned, changed ones quarantined
    /// ([`Host::pin_events`] says which). A server whose listing fails
    /// contributes nothing until the next refresh.
    pub async fn refresh(&self) {
        let mut listed = Listed::default();
        for (id, slot) in self.slots.iter() {
            if self.asleep(slot).await {
                self.listed_from_pins(id, slot, &mut listed);
                continue;
            }
            if slot.client.read().await.is_none() {
                continue;
            }
            let Some(session) = self.client(id).await.and_then(|c| c.session()) else {
                continue;
            };
            if let Some(text) = session.instructions {
                listed.instructions.push((id.clone(), text));
            }
            let capabilities = session.capabilities;
            if capabilities.tools.is_some() {
                if let Ok(list) = self
                    .listing(id, |c| Box::pin(async move { c.list_tools().await }))
                    .await
                {
                    listed
                        .tools
                        .extend(list.tools.into_iter().map(|t| (id.clone(), t)));
                    listed.excluded.extend(list.excluded);
                }
            }
            if capabilities.prompts.is_some() {
                if let Ok(list) = self
                    .listing(id, |c| Box::pin(async move { c.list_prompts().await }))
                    .await
                {
                    listed
                        .prompts
                        .extend(list.into_iter().map(|p| (id.clone(), p)));
                }
            }
            if capabilities.resources.is_some() {
                if let Ok(list) = self
                    .listing(id, |c| Box::pin(async move { c.list_resources().await }))
                    .await
                {
                    let resources: Vec<HostResource> = list
                        .into_iter()
                        .map(|resource| HostResource {
                            server: id.clone(),
                            resource,
                        })
                        .collect();
                    if slot.config.idle.is_some() {
                        if let Ok(mut kept) = slot.resources.lock() {
                            kept.clone_from(&resources);
                        }
                    }
                    listed.resources.extend(resources);
                }
                if let Ok(list) = self
                    .listing(id, |c| {
                        Box::pin(async move { c.list_resource_templates().await })
                    })
                    .await
                {
                    listed
                        .templates
                        .extend(list.into_iter().map(|t| (id.clone(), t)));
                }
            }
        }
        let catalogue = self.judge(listed);
        if let Ok(mut slot) = self.catalogue.write() {
            *slot = catalogue;
        }
    }

    /// The catalogue of what was listed: named, checked for poisoning,
    /// and judged against the pins, which are saved when some are new.
    fn judge(&self, mut listed: Listed) -> Catalogue {
        // `allowedTools` and `disabledTools`: the others are never offered.
        listed.tools.retain(|(server, tool)| {
            let admits = |slot: &Slot| slot.config.tools.admits(&tool.accept_ref().name);
            self.slots.get(server).is_some_and(admits)
        });
        let tool_names =
            QualifiedNames::build(listed.tools.iter().map(|(s, t)| (s, &t.accept_ref().name)));
        let prompt_names = QualifiedNames::build(
            listed
                .prompts
                .iter()
                .map(|(s, p)| (s, &p.accept_ref().name)),
        );
        let mut names: Vec<(ServerId, String)> = Vec::new();
        for (qualified, server, own) in tool_names.iter() {
            for name in trust::poison::names_of(qualified, own) {
                names.push((server.clone(), name));
            }
        }
        // Each server's checks once, not once a definition: the names of
        // every other server's tools are as many as the tools.
        let per_server: HashMap<&ServerId, Checks> = self
            .slots
            .keys()
            .map(|server| {
                let others = names
                    .iter()
                    .filter(|(s, _)| s != server)
                    .map(|(_, n)| n.clone())
                    .collect();
                let checks = Checks::new(Checks::default().max_description, others);
                (server, checks)
            })
            .collect();
        let unknown = Checks::default();
        let checks = |server: &ServerId| per_server.get(server).unwrap_or(&unknown);
        let mut book = self.pins.lock();
        let mut judging = Judging {
            identities: self
                .slots
                .iter()
                .map(|(id, slot)| (id.clone(), trust::identity(&slot.config.target)))
                .collect(),
            book: &mut book,
            changes: Vec::new(),
            events: Vec::new(),
            dirty: false,
        };
        let flagged = |findings: &[Finding]| {
            (self.quarantine_flagged && !findings.is_empty())
                .then(|| Quarantine::Flagged(findings.to_vec()))
        };
        let mut catalogue = Catalogue::default();
        for (server, tool) in listed.tools {
            let name = tool.accept_ref().name.clone();
            let Some(qualified) = tool_names.qualified(&server, &name) else {
                continue;
            };
            let value = serde_json::to_value(tool.accept_ref()).unwrap_or_default();
            let findings = trust::poison::check(&value, checks(&server));
            let quarantine = judging
                .judge(&server, Definition::new(Kind::Tool, name, value))
                .or_else(|| flagged(&findings));
            catalogue.tool_index.insert(
                (server.clone(), tool.accept_ref().name.clone()),
                catalogue.tools.len(),
            );
            catalogue.tools.push(HostTool {
                qualified: qualified.to_owned(),
                server,
                tool,
                findings,
                quarantine,
            });
        }
        for (server, prompt) in listed.prompts {
            let name = prompt.accept_ref().name.clone();
            let Some(qualified) = prompt_names.qualified(&server, &name) else {
                continue;
            };
            let value = serde_json::to_value(prompt.accept_ref()).unwrap_or_default();
            let findings = trust::poison::check(&value, checks(&server));
            let quarantine = judging
                .judge(&server, Definition::new(Kind::Prompt, name, value))
                .or_else(|| flagged(&findings));
            catalogue.prompts.push(HostPrompt {
                qualified: qualified.to_owned(),
                server,
                prompt,
                findings,
                quarantine,
            });
        }
        for (server, template) in listed.templates {
            let name = template.accept_ref().uri_template.clone();
            let value = serde_json::to_value(template.accept_ref()).unwrap_or_default();
            let quarantine = judging.judge(
                &server,
                Definition::new(Kind::ResourceTemplate, name, value),
            );
            catalogue.templates.push(HostResourceTemplate {
                server,
                template,
                quarantine,
            });
        }
        for (server, text) in listed.instructions {
            let value = Value::String(text.accept());
            judging.judge(
                &server,
                Definition::new(Kind::Instructions, "instructions", value),
            );
        }
        let Judging {
            changes,
            mut events,
            dirty,
            ..
        } = judging;
        if let Some(reason) = &book.broken {
            events.push(PinEvent::PinFile(reason.clone()));
        } else if dirty {
            if let Err(e) = book.save() {
                events.push(PinEvent::PinFile(e.to_string()));
            }
        }
        catalogue
            .tools
            .sort_by(|a, b| a.qualified.cmp(&b.qualified));
        catalogue
            .prompts
            .sort_by(|a, b| a.qualified.cmp(&b.qualified));
        catalogue.resources = listed.resources;
        catalogue.excluded = listed.excluded;
        catalogue.tool_names = tool_names;
        catalogue.prompt_names = prompt_names;
        catalogue.changes = changes;
        catalogue.events = events;
        catalogue
    }

    /// What the last [`Host::refresh`] pinned, found changed, or could
    /// not do with the pin file.
    pub fn pin_events(&self) -> Vec<PinEvent> {
        self.catalogue
            .read()
            .map(|c| c.events.clone())
            .unwrap_or_default()
    }

    /// The definitions of `server` that differ from their pins, all of
    /// them or those named `name` (a tool's, prompt's or resource
    /// template's own name, or a qualified name).
    pub fn changes(&self, server: &ServerId, name: Option<&str>) -> Vec<Change> {
        let Ok(catalogue) = self.catalogue.read() else {
            return Vec::new();
        };
        let own = name.map(|name| {
            catalogue
                .tool_names
                .resolve(name)
                .or_else(|| catalogue.prompt_names.resolve(name))
                .filter(|(s, _)| *s == server)
                .map_or(name, |(_, own)| own)
                .to_owned()
        });
        catalogue
            .changes
            .iter()
            .filter(|c| &c.server == server && own.as_ref().is_none_or(|n| *n == c.name))
            .cloned()
            .collect()
    }

    /// Re-approves the changed definitions of `server` (all of them, or
    /// those named `name`, as for [`Host::changes`]): pins them as last
    /// listed, saves the pins, and lists again. The changes re-approved,
    /// for showing what was approved; none when nothing differed.
    ///
    /// # Errors
    ///
    /// [`ClientError::UnknownServer`]; [`ClientError::PinFile`] when the
    /// pin file cannot be read or written.
    pub async fn trust(
        &self,
        server: &ServerId,
        name: Option<&str>,
    ) -> Result<Vec<Change>, ClientError> {
        let slot = self.slot(server)?;
        let identity = trust::identity(&slot.config.target);
        let changes = self.changes(server, name);
        if !changes.is_empty() {
            let mut book = self.pins.lock();
            if let (Some(reason), Some(file)) = (&book.broken, &book.file) {
                return Err(ClientError::PinFile(trust::PinFileError {
                    path: file.path().display().to_string(),
                    reason: reason.clone(),
                }));
            }
            for change in &changes {
                let definition =
                    Definition::new(change.kind, change.name.clone(), change.definition.clone());
                book.pin(server, &identity, &definition);
            }
            book.save()?;
        }
        self.refresh().await;
        Ok(changes)
    }

    /// Every tool of every server that may be called, by qualified name.
    pub fn tools(&self) -> Vec<HostTool> {
        self.catalogue
            .read()
            .map(|c| {
                let callable = c.tools.iter().filter(|t| t.quarantine.is_none());
                callable.cloned().collect()
            })
            .unwrap_or_default()
    }

    /// The tools that may not be called, each with its
    /// [`quarantine`](HostTool::quarantine).
    pub fn quarantined_tools(&self) -> Vec<HostTool> {
        self.catalogue
            .read()
            .map(|c| {
                let held = c.tools.iter().filter(|t| t.quarantine.is_some());
                held.cloned().collect()
            })
            .unwrap_or_default()
    }

    /// The tools dropped for breaking the `x-mcp-header` rules.
    pub fn excluded_tools(&self) -> Vec<ExcludedTool> {
        self.catalogue
            .read()
            .map(|c| c.excluded.clone())
            .unwrap_or_default()
    }

    /// Every prompt of every server that is not quarantined, by
    /// qualified name.
    pub fn prompts(&self) -> Vec<HostPrompt> {
        self.catalogue
            .read()
            .map(|c| {
                let usable = c.prompts.iter().filter(|p| p.quarantine.is_none());
                usable.cloned().collect()
            })
            .unwrap_or_default()
    }

    /// Every resource of every server.
    pub fn resources(&self) -> Vec<HostResource> {
        self.catalogue
            .read()
            .map(|c| c.resources.clone())
            .unwrap_or_default()
    }

    /// Every resource template of every server that is not quarantined.
    pub fn resource_templates(&self) -> Vec<HostResourceTemplate> {
        self.catalogue
            .read()
            .map(|c| {
                let usable = c.templates.iter().filter(|t| t.quarantine.is_none());
                usable.cloned().collect()
            })
            .unwrap_or_default()
    }

    /// The servers that may serve `uri`: those that list it, or, when none
    /// does, those with a resource template it matches (loosely: each
    /// expression of the template stands for any text within one path
    /// segment, or across segments for `{+var}` and `{#var}`).
    pub fn resource_servers(&self, uri: &str) -> Vec<ServerId> {
        let Ok(catalogue) = self.catalogue.read() else {
            return Vec::new();
        };
        let mut servers: Vec<ServerId> = catalogue
            .resources
            .iter()
            .filter(|r| r.resource.accept_ref().uri == uri)
            .map(|r| r.server.clone())
            .collect();
        if servers.is_empty() {
            servers = catalogue
                .templates
                .iter()
                .filter(|t| {
                    t.quarantine.is_none()
                        && crate::uri_template::matches(&t.template.accept_ref().uri_template, uri)
                })
                .map(|t| t.server.clone())
                .collect();
        }
        servers.dedup();
        servers
    }

    /// The server and tool a qualified tool name stands for.
    pub fn resolve_tool(&self, qualified: &str) -> Option<(ServerId, String)> {
        self.locate(NameKind::Tool, qualified).ok()
    }

    /// The server and prompt a qualified prompt name stands for.
    pub fn resolve_prompt(&self, qualified: &str) -> Option<(ServerId, String)> {
        self.locate(NameKind::Prompt, qualified).ok()
    }

    /// The server and own name of the tool or prompt named `qualified`, or
    /// the error that says why there is none: no such server, a server
    /// that is down, or a server without that name (with its closest).
    fn locate(&self, kind: NameKind, qualified: &str) -> Result<(ServerId, String), ClientError> {
        let catalogue = self.catalogue.read().map_err(|_| ClientError::Closed)?;
        let names = match kind {
            NameKind::Tool => &catalogue.tool_names,
            NameKind::Prompt => &catalogue.prompt_names,
        };
        if let Some((server, name)) = names.resolve(qualified) {
            return Ok((server.clone(), name.to_owned()));
        }
        let configured = || self.slots.keys().cloned().collect();
        let Some((server, name)) = names::split_unresolved(qualified, self.slots.keys()) else {
            return Err(match qualified.split_once(SEPARATOR) {
                Some((id, _)) if !id.is_empty() => ClientError::UnknownServer {
                    id: id.to_owned(),
                    configured: configured(),
                },
                _ => ClientError::Unqualified {
                    kind,
                    name: qualified.to_owned(),
                    configured: configured(),
                },
            });
        };
        self.running(server)?;
        let own = names.iter().filter(|(_, s, _)| *s == server);
        let closest = names::closest(name, own.map(|(_, _, n)| n))
            .into_iter()
            .map(|n| Untrusted::new(server.clone(), n.to_owned()))
            .collect();
        Err(ClientError::Unknown {
            kind,
            server: server.clone(),
            name: name.to_owned(),
            closest,
        })
    }

    /// Prepares a call of the tool named `qualified` with `arguments`, for
    /// [`Host::authorize`]. The arguments are checked against the tool's
    /// input schema first, so that nobody is asked to approve a call the
    /// server would refuse.
    ///
    /// # Errors
    ///
    /// [`ClientError::UnknownServer`], [`ClientError::Unqualified`],
    /// [`ClientError::ServerDown`] or [`ClientError::Unknown`] for a name
    /// that names no tool, [`ClientError::InvalidArguments`] for arguments
    /// the schema refuses, [`ClientError::Schema`] for a schema the host
    /// will not use, [`ClientError::Quarantined`] for a tool that may not
    /// be called (nobody is asked), and the client's errors.
    pub async fn prepare(
        &self,
        qualified: &str,
        arguments: Map<String, Value>,
    ) -> Result<ToolCall, ClientError> {
        let (server, tool) = self.locate(NameKind::Tool, qualified)?;
        let (findings, quarantine) = self.tool_state(&server, &tool);
        if let Some(reason) = quarantine {
            self.refuse((server.as_str(), &tool, qualified), &arguments, &reason);
            return Err(ClientError::Quarantined {
                kind: NameKind::Tool,
                server,
                name: qualified.to_owned(),
                reason: Box::new(reason),
            });
        }
        let tool = &tool;
        let call = self
            .with_client(&server, |c| {
                let (qualified, arguments) = (qualified.to_owned(), arguments.clone());
                Box::pin(async move { c.prepare_named(tool, qualified, arguments).await })
            })
            .await?;
        Ok(call.with_findings(findings))
    }

    /// What the poisoning checks found on the tool `tool` of `server`,
    /// and why it is quarantined, if it is.
    fn tool_state(&self, server: &ServerId, tool: &str) -> (Vec<Finding>, Option<Quarantine>) {
        let Ok(catalogue) = self.catalogue.read() else {
            return (Vec::new(), None);
        };
        catalogue
            .tool_index
            .get(&(server.clone(), tool.to_owned()))
            .and_then(|&at| catalogue.tools.get(at))
            .map(|t| (t.findings.clone(), t.quarantine.clone()))
            .unwrap_or_default()
    }

    /// Appends the flow policy's decision on `call` to the audit log, if
    /// there is one, beside the gate's: `decision` is `free`, `endorsed`
    /// or `refused`, `how` is `flow`, and `flow` says which untrusted
    /// sources were in the context and who endorsed the call. The model
    /// side of a host (`mcp-agent`) calls it for every call it proposes.
    pub fn audit_flow(&self, call: &ToolCall, decision: &str, reason: &str, flow: Value) {
        if let Some(log) = &self.audit {
            let record = AuditRecord::new(
                call,
                log.kept(),
                std::time::SystemTime::now(),
                decision,
                "flow",
            );
            self.record(record.because(reason).with_flow(flow));
        }
    }

    /// Appends what an MCP Apps view of `server` asked (`request`, a
    /// method such as `ui/open-link`, or `view` when it was shown) and
    /// what was decided, to the audit log, if there is one: `tool` is the
    /// method, `qualified` the view's `ui://` URI, `how` is `view`, and
    /// `detail` (the link, the content security policy it ran under) is
    /// kept in `flow`.
    pub fn audit_view(
        &self,
        (server, uri, request): (&str, &str, &str),
        decision: &str,
        reason: &str,
        detail: Value,
    ) {
        if let Some(log) = &self.audit {
            let record = AuditRecord::of(
                (server, request, uri),
                &serde_json::Map::new(),
                log.kept(),
                std::time::SystemTime::now(),
                decision,
                "view",
            );
            self.record(record.because(reason).with_flow(detail));
        }
    }

    /// Appends `record` to the audit log, if there is one. A line that
    /// cannot be written is lost; the call goes on.
    fn record(&self, record: AuditRecord) {
        if let Some(log) = &self.audit {
            let _ = log.append(&record);
        }
    }

    /// Records the refusal of a call of a quarantined tool.
    fn refuse(
        &self,
        names: (&str, &str, &str),
        arguments: &Map<String, Value>,
        reason: &Quarantine,
    ) {
        if let Some(log) = &self.audit {
            let record = AuditRecord::of(
                names,
                arguments,
                log.kept(),
                std::time::SystemTime::now(),
                "refused",
                "quarantine",
            );
            self.record(record.because(reason.to_string()));
        }
    }

    /// Applies the policy to `call` and asks the approver when it says so.
    ///
    /// # Errors
    ///
    /// [`Denied`] when a rule or the approver says no.
    pub async fn authorize(&self, call: &ToolCall) -> Result<Approval, Denied> {
        let decided = self.gate.authorize(call).await;
        if let (Err(denied), Some(log)) = (&decided, &self.audit) {
            let record = AuditRecord::new(
                call,
                log.kept(),
                std::time::SystemTime::now(),
                "denied",
                denied.by,
            );
            self.record(record.because(denied.reason.clone()));
        }
        decided
    }

    /// Runs an approved call. If its stdio server crashed meanwhile, the
    /// server is restarted and the call sent once more.
    ///
    /// # Errors
    ///
    /// [`ClientError::ApprovalMismatch`] when `approval` was issued for
    /// another call; [`ClientError::Quarantined`] when the tool was
    /// quarantined since the call was prepared; otherwise the client's
    /// errors.
    pub async fn call_tool(
        &self,
        call: ToolCall,
        approval: Approval,
        options: &CallOptions,
    ) -> Result<Untrusted<CallToolResult>, ClientError> {
        if !approval.covers(&call) {
            return Err(ClientError::ApprovalMismatch);
        }
        let server = call.server().clone();
        if let (_, Some(reason)) = self.tool_state(&server, call.tool()) {
            let names = (server.as_str(), call.tool(), call.qualified());
            self.refuse(names, call.arguments(), &reason);
            return Err(ClientError::Quarantined {
                kind: NameKind::Tool,
                server,
                name: call.qualified().to_owned(),
                reason: Box::new(reason),
            });
        }
        let started = (std::time::SystemTime::now(), std::time::Instant::now());
        let call = &call;
        let result = self
            .with_client(&server, |c| {
                Box::pin(async move {
                    // A lazy server started for this call was judged anew.
                    if let (_, Some(reason)) = self.tool_state(call.server(), call.tool()) {
                        return Err(ClientError::Quarantined {
                            kind: NameKind::Tool,
                            server: call.server().clone(),
                            name: call.qualified().to_owned(),
                            reason: Box::new(reason),
                        });
                    }
                    c.run_tool(call, options).await
                })
            })
            .await;
        if let Some(log) = &self.audit {
            let outcome = match &result {
                Ok(result) => Ok(result.accept_ref().is_error == Some(true)),
                Err(e) => Err(e.to_string()),
            };
            let record = AuditRecord::new(call, log.kept(), started.0, "allowed", approval.by());
            self.record(record.sent(outcome, started.1.elapsed()));
        }
        result
    }

    /// Calls the tool named `qualified` in one step: [`Host::prepare`],
    /// [`Host::authorize`] and [`Host::call_tool`]. The call passes the
    /// gate like any other: the policy decides, and the approver is asked
    /// when it says so.
    ///
    /// # Errors
    ///
    /// As [`Host::prepare`]; [`ClientError::Denied`] when the gate does not
    /// let the call through, which is then not sent; as
    /// [`Host::call_tool`].
    pub async fn call(
        &self,
        qualified: &str,
        arguments: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<Untrusted<CallToolResult>, ClientError> {
        let call = self.prepare(qualified, arguments).await?;
        let approval = self.authorize(&call).await?;
        self.call_tool(call, approval, options).await
    }

    /// Gets the prompt named `qualified`, answering any input it asks for.
    ///
    /// # Errors
    ///
    /// As [`Host::prepare`] for a name that names no prompt, and the
    /// client's errors.
    pub async fn get_prompt(
        &self,
        qualified: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<Untrusted<GetPromptResult>, ClientError> {
        let (server, prompt) = self.locate(NameKind::Prompt, qualified)?;
        let quarantine = self.catalogue.read().ok().and_then(|c| {
            c.prompts
                .iter()
                .find(|p| p.server == server && p.prompt.accept_ref().name == prompt)
                .and_then(|p| p.quarantine.clone())
        });
        if let Some(reason) = quarantine {
            return Err(ClientError::Quarantined {
                kind: NameKind::Prompt,
                server,
                name: qualified.to_owned(),
                reason: Box::new(reason),
            });
        }
        let prompt = &prompt;
        self.with_client(&server, |c| {
            let arguments = arguments.clone();
            Box::pin(async move { c.get_prompt(prompt, arguments).await })
        })
        .await
    }

    /// Reads the resource `uri` of the server `server`, answering any
    /// input it asks for. [`Host::resource_servers`] says which servers
    /// may have it.
    ///
    /// # Errors
    ///
    /// [`ClientError::UnknownServer`], [`ClientError::ServerDown`] when it
    /// is not running, and the client's errors (a server without the
    /// resource answers with an error of its own).
    pub async fn read_resource(
        &self,
        server: &ServerId,
        uri: &str,
    ) -> Result<Untrusted<ReadResourceResult>, ClientError> {
        self.running(server)?;
        self.with_client(server, |c| {
            Box::pin(async move { c.read_resource(uri).await })
        })
        .await
    }

    /// Opens a `subscriptions/listen` stream on the server `id` for the
    /// changes `filter` names; see [`Client::listen`]. If the stdio server
    /// has crashed, it is restarted and the listen sent again. An open
    /// subscription does not survive a restart: when one breaks, listen
    /// again.
    ///
    /// # Errors
    ///
    /// [`ClientError::UnknownServer`], and the client's errors.
    pub async fn listen(
        &self,
        id: &ServerId,
        filter: SubscriptionFilter,
    ) -> Result<Subscription, ClientError> {
        // A lazy server with a subscription stays up.
        self.slot(id)?.listening.store(true, Ordering::SeqCst);
        self.with_client(id, |c| {
            let filter = filter.clone();
            Box::pin(async move { c.listen(filter).await })
        })
        .await
    }

    /// Shuts every server down at once: stdio servers by closing stdin,
    /// then SIGTERM, then SIGKILL.
    pub async fn shutdown(&self) -> Vec<(ServerId, Option<Shutdown>)> {
        let mut clients = Vec::new();
        for (id, slot) in self.slots.iter() {
            if let Some(client) = slot.client.write().await.take() {
                clients.push((id.clone(), client));
            }
        }
        join_all(clients.into_iter().map(|(id, client)| async move {
            let outcome = client.shutdown().await;
            (id, outcome)
        }))
        .await
    }
}

/// The OAuth client of a configured server: one for every HTTP server
/// whose configuration does not turn authorization off; the error says
/// what in its `oauth` configuration cannot be used.
#[cfg(feature = "oauth")]
fn oauth_client(
    id: &ServerId,
    config: &ServerConfig,
    store: &Arc<dyn crate::auth::CredentialStore>,
    login: Option<Arc<dyn crate::auth::Login>>,
) -> Result<Option<Arc<crate::auth::OAuthClient>>, String> {
    use crate::auth::{
        AssertionKey, ClientAuth, DpopUse, EnterpriseSettings, Grant, OAuthClient, OAuthSettings,
        Secret,
    };
    let crate::client::Target::Http { url, .. } = &config.target else {
        return Ok(None);
    };
    let oauth = &config.oauth;
    if oauth.disabled {
        return Ok(None);
    }
    let bad = |what: String| format!("server `{id}`: `oauth`: {what}");
    let client_secret = match &oauth.client_secret {
        Some(source) => Some(Secret::new(
            source.resolve().map_err(|e| bad(e.to_string()))?,
        )),
        None => None,
    };
    let assertion_key = match &oauth.private_key_file {
        Some(path) => {
            let pem = zeroize::Zeroizing::new(
                std::fs::read_to_string(path)
                    .map_err(|e| bad(format!("{}: {e}", path.display())))?,
            );
            let algorithm = oauth.signing_algorithm.as_deref().unwrap_or("ES256");
            Some(Arc::new(
                AssertionKey::from_pem(&pem, algorithm).map_err(|e| bad(e.to_string()))?,
            ))
        }
        None => None,
    };
    let auth_method = match &oauth.token_endpoint_auth_method {
        Some(name) => Some(
            ClientAuth::from_name(name)
                .ok_or_else(|| bad(format!("unknown `tokenEndpointAuthMethod` `{name}`")))?,
        ),
        None => None,
    };
    let settings = OAuthSettings {
        client_id: oauth.client_id.clone(),
        client_secret,
        issuer: oauth.issuer.clone(),
        auth_method,
        assertion_key,
        client_metadata_url: oauth.client_metadata_url.clone(),
        scopes: oauth.scopes.clone(),
        grant: if oauth.client_credentials {
            Grant::ClientCredentials
        } else if oauth.assertion.is_some() {
            Grant::JwtBearer
        } else if oauth.enterprise.is_some() {
            Grant::Enterprise
        } else {
            Grant::AuthorizationCode
        },
        assertion: oauth.assertion.as_ref().map(token_source),
        enterprise: match &oauth.enterprise {
            Some(e) => Some(EnterpriseSettings {
                token_endpoint: e.token_endpoint.clone(),
                client_id: e.client_id.clone(),
                client_secret: match &e.client_secret {
                    Some(source) => Some(Secret::new(
                        source.resolve().map_err(|e| bad(e.to_string()))?,
                    )),
                    None => None,
                },
                id_token: token_source(&e.id_token),
            }),
            None => None,
        },
        dpop: match oauth.dpop {
            None => DpopUse::Auto,
            Some(true) => DpopUse::Always,
            Some(false) => DpopUse::Never,
        },
        redirect_uri: oauth
            .redirect_port
            .map(|port| format!("http://127.0.0.1:{port}/callback")),
        allowed_hosts: oauth.allow_hosts.clone(),
        legacy_endpoint_fallback: oauth.legacy_endpoint_fallback,
        ..OAuthSettings::default()
    };
    OAuthClient::new(id.as_str(), url, settings, store.clone(), login)
        .map(|c| Some(Arc::new(c)))
        .map_err(|e| bad(e.to_string()))
}

/// Where the configuration says a token is.
#[cfg(feature = "oauth")]
fn token_source(from: &crate::config::TokenFrom) -> crate::auth::TokenSource {
    use crate::auth::TokenSource;
    match from {
        crate::config::TokenFrom::File(path) => TokenSource::File(path.clone()),
        crate::config::TokenFrom::Command(argv) => TokenSource::Command(argv.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send<T: Send>(_: &T) {}

    /// The host's futures can be spawned on a multi-threaded runtime.
    #[allow(dead_code)]
    fn futures_are_send(host: &Host, call: ToolCall, approval: Approval, id: ServerId) {
        send(&host.call_tool(call.clone(), approval, &CallOptions::default()));
        send(&host.refresh());
        send(&host.prepare("x", Map::new()));
        send(&host.servers());
        send(&host.connect(&id));
        send(&host.shutdown());
        send(&host.authorize(&call));
        send(&host.listen(&id, SubscriptionFilter::default()));
    }

    #[test]
    fn host_and_clients_are_shareable() {
        fn shared<T: Send + Sync>() {}
        shared::<Host>();
        shared::<Client>();
    }
}
