//! The books of one `subscriptions/listen` stream: which messages belong to
//! it, whether the server acknowledged it first, what it agreed to send,
//! and when it has ended. Sans-IO: the client reads the stream, the book
//! classifies every message.
//!
//! # Call contract
//!
//! 1. [`ListenBook::new`] with the server, the listen request's id and the
//!    filter the request asked for.
//! 2. Give every message that arrives for the request to
//!    [`ListenBook::on_message`], in order. Over stdio that is every
//!    message whose subscription id (or response id) is the request's; over
//!    HTTP, every message on the request's event stream.
//! 3. The first step that matters is [`ListenStep::Acknowledged`], with the
//!    part of the filter the server will honour (never more than was asked
//!    for). Until then, a change is a [`ListenStep::Violation`].
//! 4. Then each [`ListenStep::Change`] is one notification to hand to the
//!    host. Notifications the acknowledgement did not cover, and messages
//!    of other subscriptions, are [`ListenStep::Ignore`]d.
//! 5. [`ListenStep::Ended`] (a result, or `notifications/cancelled` for the
//!    request) and [`ListenStep::Refused`] (an error response) are final;
//!    the book ignores whatever comes after them.

use mcp_types::jsonrpc::{ErrorObject, Message};
use mcp_types::meta;
use mcp_types::v2026_07_28::{RequestId, SubscriptionFilter};
use serde_json::{Map, Value};

use crate::names::ServerId;
use crate::untrusted::Untrusted;

const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
const CANCELLED: &str = "notifications/cancelled";
const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
const RESOURCE_UPDATED: &str = "notifications/resources/updated";

/// A change a server reported on a listen stream.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Change {
    /// The server's tools changed: list them again.
    ToolsListChanged,
    /// The server's prompts changed: list them again.
    PromptsListChanged,
    /// The server's resources changed: list them again.
    ResourcesListChanged,
    /// A resource the subscription named changed: read it again.
    ResourceUpdated {
        /// The resource, as the server named it.
        uri: Untrusted<String>,
    },
}

/// What one message meant for the subscription.
#[derive(Debug, Clone, PartialEq)]
pub enum ListenStep {
    /// The server acknowledged the subscription and will send what this
    /// filter enables.
    Acknowledged(SubscriptionFilter),
    /// A change to hand to the host.
    Change(Change),
    /// Nothing for the host: another subscription's message, a kind that
    /// was not acknowledged, or anything after the end.
    Ignore,
    /// The server ended the subscription.
    Ended,
    /// The server answered the listen request with an error.
    Refused(Untrusted<ErrorObject>),
    /// The server broke the rules of listen streams; the stream is not
    /// usable.
    Violation(String),
}

/// The state of one listen stream.
#[derive(Debug, Clone)]
pub struct ListenBook {
    origin: ServerId,
    id: RequestId,
    requested: SubscriptionFilter,
    acknowledged: Option<SubscriptionFilter>,
    ended: bool,
}

impl ListenBook {
    /// The book of the listen request `id`, sent to `origin` with the
    /// filter `requested`.
    pub fn new(origin: ServerId, id: RequestId, requested: SubscriptionFilter) -> Self {
        Self {
            origin,
            id,
            requested,
            acknowledged: None,
            ended: false,
        }
    }

    /// The listen request's id, which is also the subscription id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// What the server agreed to send, once it acknowledged.
    pub fn acknowledged(&self) -> Option<&SubscriptionFilter> {
        self.acknowledged.as_ref()
    }

    /// Whether the subscription has ended, either way.
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// Classifies one message of the stream.
    pub fn on_message(&mut self, message: Message) -> ListenStep {
        if self.ended {
            return ListenStep::Ignore;
        }
        let step = match message {
            Message::Response { id, .. } if id == self.id => ListenStep::Ended,
            Message::ErrorResponse { id, error } if id.as_ref().is_none_or(|i| *i == self.id) => {
                ListenStep::Refused(Untrusted::new(self.origin.clone(), error))
            }
            Message::Notification { method, params } => self.on_notification(&method, params),
            _ => ListenStep::Ignore,
        };
        self.ended = matches!(step, ListenStep::Ended | ListenStep::Refused(_));
        step
    }

    fn on_notification(&mut self, method: &str, params: Option<Map<String, Value>>) -> ListenStep {
        let params = params.unwrap_or_default();
        if method == CANCELLED && self.names_request(&params) {
            return ListenStep::Ended;
        }
        if !self.carries_our_id(&params) {
            return ListenStep::Ignore;
        }
        let Some(acknowledged) = &self.acknowledged else {
            if method != ACKNOWLEDGED {
                return ListenStep::Violation(format!(
                    "`{method}` came before the acknowledgement"
                ));
            }
            return match params
                .get("notifications")
                .cloned()
                .map(serde_json::from_value)
            {
                Some(Ok(honoured)) => {
                    let honoured = clamp(&honoured, &self.requested);
                    self.acknowledged = Some(honoured.clone());
                    ListenStep::Acknowledged(honoured)
                }
                _ => ListenStep::Violation(String::from(
                    "the acknowledgement has no valid `notifications` filter",
                )),
            };
        };
        let on = |flag: Option<bool>| flag == Some(true);
        match method {
            TOOLS_LIST_CHANGED if on(acknowledged.tools_list_changed) => {
                ListenStep::Change(Change::ToolsListChanged)
            }
            PROMPTS_LIST_CHANGED if on(acknowledged.prompts_list_changed) => {
                ListenStep::Change(Change::PromptsListChanged)
            }
            RESOURCES_LIST_CHANGED if on(acknowledged.resources_list_changed) => {
                ListenStep::Change(Change::ResourcesListChanged)
            }
            RESOURCE_UPDATED => match params.get("uri").and_then(Value::as_str) {
                Some(uri)
                    if acknowledged
                        .resource_subscriptions
                        .as_ref()
                        .is_some_and(|uris| uris.iter().any(|u| u == uri)) =>
                {
                    ListenStep::Change(Change::ResourceUpdated {
                        uri: Untrusted::new(self.origin.clone(), uri.to_owned()),
                    })
                }
                _ => ListenStep::Ignore,
            },
            _ => ListenStep::Ignore,
        }
    }

    /// Whether the params' `_meta` names this subscription.
    fn carries_our_id(&self, params: &Map<String, Value>) -> bool {
        params
            .get("_meta")
            .and_then(Value::as_object)
            .and_then(meta::subscription_id)
            .and_then(Result::ok)
            .is_some_and(|id| id == self.id)
    }

    /// Whether a `notifications/cancelled` is about this subscription.
    fn names_request(&self, params: &Map<String, Value>) -> bool {
        let named = params
            .get("requestId")
            .cloned()
            .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
        named.as_ref() == Some(&self.id) || (named.is_none() && self.carries_our_id(params))
    }
}

/// What the server honours, limited to what was asked for: a server that
/// acknowledges more than the request named gets no more.
fn clamp(honoured: &SubscriptionFilter, requested: &SubscriptionFilter) -> SubscriptionFilter {
    let both =
        |a: Option<bool>, b: Option<bool>| (a == Some(true) && b == Some(true)).then_some(true);
    let resources = match (
        &honoured.resource_subscriptions,
        &requested.resource_subscriptions,
    ) {
        (Some(honoured), Some(requested)) => Some(
            honoured
                .iter()
                .filter(|uri| requested.contains(uri))
                .cloned()
                .collect(),
        ),
        _ => None,
    };
    SubscriptionFilter {
        tools_list_changed: both(honoured.tools_list_changed, requested.tools_list_changed),
        prompts_list_changed: both(
            honoured.prompts_list_changed,
            requested.prompts_list_changed,
        ),
        resources_list_changed: both(
            honoured.resources_list_changed,
            requested.resources_list_changed,
        ),
        resource_subscriptions: resources,
        extra: Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn book() -> ListenBook {
        let requested: SubscriptionFilter = serde_json::from_value(json!({
            "toolsListChanged": true, "promptsListChanged": true,
            "resourceSubscriptions": ["file:///a", "file:///b"]}))
        .expect("filter");
        ListenBook::new(
            ServerId::new("srv").expect("id"),
            RequestId::Integer(7),
            requested,
        )
    }

    fn notification(method: &str, subscription: Value, extra: Value) -> Message {
        let mut params = json!({"_meta": {meta::SUBSCRIPTION_ID: subscription}});
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        Message::from_slice(
            json!({"jsonrpc": "2.0", "method": method, "params": params})
                .to_string()
                .as_bytes(),
        )
        .expect("a message")
    }

    fn ack(book: &mut ListenBook, honoured: Value) -> ListenStep {
        book.on_message(notification(
            ACKNOWLEDGED,
            json!(7),
            json!({ "notifications": honoured }),
        ))
    }

    #[test]
    fn the_acknowledgement_comes_first_and_is_clamped() {
        let mut early = book();
        assert!(matches!(
            early.on_message(notification(TOOLS_LIST_CHANGED, json!(7), json!({}))),
            ListenStep::Violation(_)
        ));

        let mut book = book();
        // Another subscription's messages may come before ours.
        assert_eq!(
            book.on_message(notification(TOOLS_LIST_CHANGED, json!(8), json!({}))),
            ListenStep::Ignore
        );
        let step = ack(
            &mut book,
            json!({"toolsListChanged": true, "resourcesListChanged": true,
                   "resourceSubscriptions": ["file:///a", "file:///z"]}),
        );
        let ListenStep::Acknowledged(honoured) = step else {
            panic!("{step:?}")
        };
        assert_eq!(honoured.tools_list_changed, Some(true));
        // Not asked for, so not honoured, whatever the server says.
        assert_eq!(honoured.resources_list_changed, None);
        assert_eq!(honoured.prompts_list_changed, None);
        assert_eq!(
            honoured.resource_subscriptions,
            Some(vec!["file:///a".to_owned()])
        );
        assert_eq!(book.acknowledged(), Some(&honoured));
    }

    #[test]
    fn only_acknowledged_changes_reach_the_host() {
        let mut book = book();
        ack(
            &mut book,
            json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]}),
        );
        assert_eq!(
            book.on_message(notification(TOOLS_LIST_CHANGED, json!(7), json!({}))),
            ListenStep::Change(Change::ToolsListChanged)
        );
        for method in [
            PROMPTS_LIST_CHANGED,
            RESOURCES_LIST_CHANGED,
            "notifications/progress",
        ] {
            assert_eq!(
                book.on_message(notification(method, json!(7), json!({}))),
                ListenStep::Ignore,
                "{method}"
            );
        }
        let updated = book.on_message(notification(
            RESOURCE_UPDATED,
            json!(7),
            json!({"uri": "file:///a"}),
        ));
        let ListenStep::Change(Change::ResourceUpdated { uri }) = updated else {
            panic!("{updated:?}")
        };
        assert_eq!(uri.origin().as_str(), "srv");
        assert_eq!(uri.accept(), "file:///a");
        assert_eq!(
            book.on_message(notification(
                RESOURCE_UPDATED,
                json!(7),
                json!({"uri": "file:///b"})
            )),
            ListenStep::Ignore
        );
        // A notification without the subscription id is not ours.
        let bare = Message::Notification {
            method: TOOLS_LIST_CHANGED.into(),
            params: None,
        };
        assert_eq!(book.on_message(bare), ListenStep::Ignore);
    }

    #[test]
    fn a_result_or_a_cancel_ends_it_and_an_error_refuses_it() {
        let mut closed = book();
        ack(&mut closed, json!({"toolsListChanged": true}));
        let result = Message::Response {
            id: RequestId::Integer(7),
            result: json!({"resultType": "complete", "_meta": {meta::SUBSCRIPTION_ID: 7}}),
        };
        assert_eq!(closed.on_message(result), ListenStep::Ended);
        assert!(closed.is_ended());
        assert_eq!(
            closed.on_message(notification(TOOLS_LIST_CHANGED, json!(7), json!({}))),
            ListenStep::Ignore
        );

        let mut cancelled = book();
        ack(&mut cancelled, json!({}));
        let other = Message::Notification {
            method: CANCELLED.into(),
            params: json!({"requestId": 8}).as_object().cloned(),
        };
        assert_eq!(cancelled.on_message(other), ListenStep::Ignore);
        let ours = Message::Notification {
            method: CANCELLED.into(),
            params: json!({"requestId": 7, "reason": "shutting down"})
                .as_object()
                .cloned(),
        };
        assert_eq!(cancelled.on_message(ours), ListenStep::Ended);

        let mut refused = book();
        let error = Message::ErrorResponse {
            id: Some(RequestId::Integer(7)),
            error: ErrorObject {
                code: -32601,
                message: "no".into(),
                data: None,
            },
        };
        assert!(matches!(
            refused.on_message(error),
            ListenStep::Refused(e) if e.accept_ref().code == -32601
        ));
        assert!(refused.is_ended());
    }
}
