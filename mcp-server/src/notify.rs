//! Notifications a handler sends while it runs, and the list-changed bus.

use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};

/// Where a handler's progress and log notifications go: the stream of the
/// request it serves. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Notifier {
    tx: mpsc::Sender<Value>,
}

impl Notifier {
    /// A notifier and the receiving end the transport drains. `capacity`
    /// bounds how far a handler can run ahead of a slow client: sending
    /// waits when the buffer is full.
    pub fn channel(capacity: usize) -> (Notifier, mpsc::Receiver<Value>) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        (Notifier { tx }, rx)
    }

    /// The raw sender, for the final response that follows the
    /// notifications on the same stream.
    pub(crate) fn sender(&self) -> mpsc::Sender<Value> {
        self.tx.clone()
    }

    /// Sends a JSON-RPC notification; a closed stream is ignored (the client
    /// left, and the request is being cancelled).
    pub async fn send(&self, method: &str, params: Value) {
        let message = json!({ "jsonrpc": "2.0", "method": method, "params": params });
        let _ = self.tx.send(message).await;
    }
}

/// A change that open `subscriptions/listen` streams may want to hear of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// The tool list changed.
    Tools,
    /// The prompt list changed.
    Prompts,
    /// The resource list changed.
    Resources,
    /// The resource at this URI changed.
    Resource(String),
}

/// Broadcasts changes to every open listen stream of this process.
#[derive(Clone, Debug)]
pub(crate) struct Bus {
    tx: broadcast::Sender<Change>,
}

impl Bus {
    pub(crate) fn new() -> Self {
        Bus {
            tx: broadcast::channel(64).0,
        }
    }

    pub(crate) fn publish(&self, change: Change) {
        let _ = self.tx.send(change);
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }
}
