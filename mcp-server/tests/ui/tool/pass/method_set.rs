use std::marker::PhantomData;
use std::sync::Mutex;

use mcp_server::tool::ToolSet;
use mcp_server::{tool, tools};

/// A store generic over its key type.
struct Store<K> {
    items: Mutex<Vec<String>>,
    key: PhantomData<fn() -> K>,
}

#[tools]
impl<K: Send + Sync + 'static> Store<K> {
    /// Adds an item.
    #[tool(destructive = false, idempotent = false)]
    fn push(&self, item: String) -> usize {
        let mut items = self.items.lock().unwrap_or_else(|e| e.into_inner());
        items.push(item);
        items.len()
    }

    /// Lists the items.
    #[tool(read_only)]
    async fn list(&self) -> Vec<String> {
        self.items.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Needs no server.
    #[tool]
    fn version() -> &'static str {
        "1"
    }

    fn not_a_tool(&self) {}
}

fn main() {
    let store = Store::<u8> {
        items: Mutex::new(Vec::new()),
        key: PhantomData,
    };
    store.not_a_tool();
    assert_eq!(Store::<u8>::tools().len(), 3);
}
