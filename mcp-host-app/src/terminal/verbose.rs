//! `-v`: the host's `tracing` events on stderr, one line each, with the
//! spans they happened in (`request{method=tools/call server=notes id=3}`),
//! every line rendered so that nothing a server wrote reaches the
//! terminal raw.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// Writes the host's events at `DEBUG` and above to stderr.
#[derive(Debug, Default)]
struct Verbose {
    next: AtomicU64,
    /// Each span's name and fields, and what it is, by id.
    spans: Mutex<HashMap<u64, (String, &'static Metadata<'static>)>>,
}

thread_local! {
    /// The spans entered on this thread, innermost last.
    static ENTERED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Fields as ` name=value`, the message alone first.
#[derive(Default)]
struct Fields(String, String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.1, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            let _ = write!(self.1, " {}={value}", field.name());
        }
    }
}

impl Subscriber for Verbose {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= Level::DEBUG && metadata.target().starts_with("mcp_host")
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut fields = Fields::default();
        span.record(&mut fields);
        let text = format!("{}{{{}}}", span.metadata().name(), fields.1.trim_start());
        if let Ok(mut spans) = self.spans.lock() {
            spans.insert(id, (text, span.metadata()));
        }
        Id::from_u64(id)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut fields = Fields::default();
        values.record(&mut fields);
        if let Ok(mut spans) = self.spans.lock() {
            if let Some((text, _)) = spans.get_mut(&span.into_u64()) {
                text.pop();
                text.push_str(&fields.1);
                text.push('}');
            }
        }
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let context: Vec<String> = ENTERED.with(|entered| {
            let spans = self.spans.lock();
            entered
                .borrow()
                .iter()
                .filter_map(|id| Some(spans.as_ref().ok()?.get(id)?.0.clone()))
                .collect()
        });
        let context = if context.is_empty() {
            String::new()
        } else {
            format!("{}: ", context.join(":"))
        };
        let line = format!(
            "{} {context}{}{}",
            event.metadata().level(),
            fields.0,
            fields.1
        );
        eprintln!("{}", mcp_host::untrusted::visible(&line));
    }

    fn current_span(&self) -> tracing_core::span::Current {
        let Some(id) = ENTERED.with(|entered| entered.borrow().last().copied()) else {
            return tracing_core::span::Current::none();
        };
        let metadata = self.spans.lock().ok().and_then(|s| Some(s.get(&id)?.1));
        match metadata {
            Some(metadata) => tracing_core::span::Current::new(Id::from_u64(id), metadata),
            None => tracing_core::span::Current::none(),
        }
    }

    fn enter(&self, span: &Id) {
        ENTERED.with(|entered| entered.borrow_mut().push(span.into_u64()));
    }

    fn exit(&self, span: &Id) {
        ENTERED.with(|entered| {
            let mut entered = entered.borrow_mut();
            if let Some(at) = entered.iter().rposition(|id| *id == span.into_u64()) {
                entered.remove(at);
            }
        });
    }
}

/// Sends the host's events to stderr from now on.
pub(super) fn install() {
    let _ = tracing::subscriber::set_global_default(Verbose::default());
}
