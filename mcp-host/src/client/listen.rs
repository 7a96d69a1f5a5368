//! `subscriptions/listen` from the client's side: open the stream, wait for
//! the acknowledgement, then hand the host each change as an item of an
//! async stream. [`ListenBook`] keeps the books; this file only moves the
//! messages.

use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};

use futures_util::stream::{self, BoxStream, Stream, StreamExt};
use mcp_types::method::Request;
use mcp_types::v2026_07_28::{RequestId, SubscriptionFilter, SubscriptionsListenRequest};
use serde_json::{json, Map};

use super::call::{rpc_from_status, Answer};
use super::{Client, ClientError, Stamp, Transport};
use crate::listen::{Change, ListenBook, ListenStep};

/// An open `subscriptions/listen` stream: the changes the server reports,
/// as a [`Stream`] of [`Change`]s.
///
/// Dropping it ends the subscription: over HTTP the connection closes,
/// over stdio the client tells the server with `notifications/cancelled`.
///
/// The stream ends (`None`) when the server ends the subscription itself.
/// An `Err` item means the subscription broke: the connection dropped
/// ([`ClientError::Truncated`] over HTTP, [`ClientError::Closed`] over
/// stdio), the server answered with an error, or it broke the rules of
/// listen streams. Nothing follows an `Err`; the host may listen again.
pub struct Subscription {
    id: RequestId,
    acknowledged: SubscriptionFilter,
    changes: BoxStream<'static, Result<Change, ClientError>>,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("acknowledged", &self.acknowledged)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// The subscription's id: the id of the listen request.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// What the server agreed to send, which may be less than was asked
    /// for: kinds it does not support are left out.
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.acknowledged
    }

    /// The next change; see the type's docs for how it ends.
    pub async fn next(&mut self) -> Option<Result<Change, ClientError>> {
        self.changes.next().await
    }
}

impl Stream for Subscription {
    type Item = Result<Change, ClientError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.changes.as_mut().poll_next(cx)
    }
}

/// Tells a stdio server that the client stopped listening, when dropped
/// armed. Holds the transport weakly: a subscription does not keep a server
/// process alive after its client is gone.
struct CancelListen {
    transport: Weak<Transport>,
    id: RequestId,
    armed: bool,
}

impl Drop for CancelListen {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if let Some(transport) = self.transport.upgrade() {
            if let Transport::Stdio(channel) | Transport::Sse(channel) = &*transport {
                channel.cancel(&self.id, "the host stopped listening");
            }
        }
    }
}

/// What the stream carries between items.
struct Listening {
    answer: Answer,
    book: ListenBook,
    cancel: CancelListen,
    /// An error ended it; nothing more is read.
    broken: bool,
}

impl Listening {
    /// The next message's step, or the transport's error.
    async fn step(&mut self) -> Result<ListenStep, ClientError> {
        let message = self.answer.next().await?;
        let step = self.book.on_message(message);
        // A server that ended the stream needs no cancel.
        self.cancel.armed = !self.book.is_ended();
        Ok(step)
    }

    /// The next item for the host.
    async fn next(mut self) -> Option<(Result<Change, ClientError>, Self)> {
        loop {
            if self.broken || self.book.is_ended() {
                return None;
            }
            let item = match self.step().await {
                Ok(ListenStep::Change(change)) => Ok(change),
                Ok(ListenStep::Acknowledged(_) | ListenStep::Ignore) => continue,
                Ok(ListenStep::Ended) => return None,
                Ok(ListenStep::Refused(error)) => Err(ClientError::Rpc(error)),
                Ok(ListenStep::Violation(what)) => Err(ClientError::Protocol(what)),
                Err(error) => Err(error),
            };
            self.broken = item.is_err();
            return Some((item, self));
        }
    }
}

impl Client {
    /// Opens a `subscriptions/listen` stream for the changes `filter`
    /// names, and returns once the server has acknowledged it. Over stdio
    /// several subscriptions may be open at once beside other requests; the
    /// client tells their messages apart by subscription id.
    ///
    /// # Errors
    ///
    /// [`ClientError::WrongEra`] with a legacy server (which has
    /// `resources/subscribe` instead); the server's refusal
    /// ([`ClientError::Rpc`], also for an HTTP error status with a JSON-RPC
    /// body); [`ClientError::Timeout`] when no acknowledgement comes within
    /// the request timeout; [`ClientError::Protocol`] when something else
    /// comes first; and transport failures.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        const METHOD: &str = SubscriptionsListenRequest::METHOD;
        let stamp = self.stamp()?;
        if !matches!(stamp, Stamp::Modern(_)) {
            return Err(ClientError::WrongEra(METHOD));
        }
        let id = self.next_id();
        let mut params = Map::new();
        params.insert("notifications".into(), json!(filter));
        let params = self.stamp_params(&stamp, params, None);
        let headers = self.era_headers(&stamp, METHOD, Some(&params));
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": METHOD, "params": params });
        let answer = match &*self.transport {
            Transport::Stdio(channel) | Transport::Sse(channel) => {
                Answer::Stdio(channel.send(&id, &body)?)
            }
            Transport::Http(http) => Answer::Http(Box::new(
                http.post(&body, &headers)
                    .await
                    .map_err(|e| rpc_from_status(&self.id, e))?,
            )),
        };
        let mut listening = Listening {
            answer,
            book: ListenBook::new(self.id.clone(), id.clone(), filter),
            cancel: CancelListen {
                transport: Arc::downgrade(&self.transport),
                id: id.clone(),
                armed: true,
            },
            broken: false,
        };
        let timeout = self.options.request_timeout;
        let acknowledged = tokio::time::timeout(timeout, async {
            loop {
                match listening.step().await? {
                    ListenStep::Acknowledged(filter) => return Ok(filter),
                    ListenStep::Ignore => {}
                    ListenStep::Refused(error) => return Err(ClientError::Rpc(error)),
                    ListenStep::Violation(what) => return Err(ClientError::Protocol(what)),
                    ListenStep::Ended | ListenStep::Change(_) => {
                        return Err(ClientError::protocol(
                            "the listen stream ended before it was acknowledged",
                        ))
                    }
                }
            }
        })
        .await
        .map_err(|_| ClientError::Timeout(timeout))??;
        Ok(Subscription {
            id,
            acknowledged,
            changes: stream::unfold(listening, Listening::next).boxed(),
        })
    }
}
