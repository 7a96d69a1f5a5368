//! The body of an answer streamed as server-sent events: one `data:` event
//! per message, and a comment whenever the stream has been silent for a
//! while, so that proxies and idle timers between the server and the client
//! do not take a quiet stream (a `subscriptions/listen` with nothing to
//! report) for a dead one. Clients ignore comments.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use futures_util::Stream;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::{Instant, Sleep};

use super::after;
use crate::server::AbortOnDrop;

/// The comment sent on a silent stream.
pub(super) const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// The events of one streamed answer. Dropping it (the client left, or the
/// response ended) drops the guard, which cancels the handler.
pub(super) struct Events {
    messages: mpsc::Receiver<Value>,
    _guard: AbortOnDrop,
    keep_alive: Option<KeepAlive>,
}

impl Events {
    /// Events for `messages`, with a keep-alive comment after `keep_alive`
    /// of silence (`None`: never).
    pub(super) fn new(
        messages: mpsc::Receiver<Value>,
        guard: AbortOnDrop,
        keep_alive: Option<Duration>,
    ) -> Self {
        Events {
            messages,
            _guard: guard,
            keep_alive: keep_alive.map(|period| KeepAlive {
                period,
                last_sent: Instant::now(),
                timer: None,
            }),
        }
    }
}

impl Stream for Events {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        match this.messages.poll_recv(cx) {
            Poll::Ready(Some(message)) => {
                if let Some(keep_alive) = &mut this.keep_alive {
                    keep_alive.last_sent = Instant::now();
                }
                let event = Bytes::from(format!("data: {message}\n\n"));
                return Poll::Ready(Some(Ok(event)));
            }
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        match &mut this.keep_alive {
            Some(keep_alive) => {
                ready!(keep_alive.poll_due(cx));
                Poll::Ready(Some(Ok(Bytes::from_static(KEEP_ALIVE))))
            }
            None => Poll::Pending,
        }
    }
}

/// When the next keep-alive is due. Messages only note the time they were
/// sent; the one timer of a stream is created the first time the stream
/// waits and is reset only when it fires, so a busy stream costs no timer
/// work per message.
struct KeepAlive {
    period: Duration,
    last_sent: Instant,
    timer: Option<Pin<Box<Sleep>>>,
}

impl KeepAlive {
    /// Ready when `period` has passed since anything was sent; the caller
    /// then sends the comment, which counts as sent.
    fn poll_due(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let due = after(self.last_sent, self.period);
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(due)));
        loop {
            ready!(timer.as_mut().poll(cx));
            let due = after(self.last_sent, self.period);
            let now = Instant::now();
            if due <= now {
                self.last_sent = now;
                timer.as_mut().reset(after(now, self.period));
                return Poll::Ready(());
            }
            // A message went out since the timer was set: wait out the rest.
            timer.as_mut().reset(due);
        }
    }
}
