//! Sealed request state: round trips, and every way a token is refused.

#![cfg(feature = "sealed-state")]

use std::time::{Duration, SystemTime};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use mcp_server::state::{
    Binding, KeyRing, KeyRingError, MemoryReplayGuard, ReplayGuard, StateError, DEFAULT_TTL,
    MAX_TOKEN_LEN,
};
use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize, RequestState)]
#[state(ttl_secs = 60)]
struct Checkout {
    #[state(bind)]
    order_id: String,
    #[state(bind)]
    amount_cents: u64,
    step: u8,
    note: Option<String>,
}

/// Same fields as `Checkout`, another type.
#[derive(Debug, PartialEq, Serialize, Deserialize, RequestState)]
#[state(ttl_secs = 60)]
struct Refund {
    #[state(bind)]
    order_id: String,
    #[state(bind)]
    amount_cents: u64,
    step: u8,
    note: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, RequestState)]
struct Confirmed;

#[derive(Debug, PartialEq, Serialize, Deserialize, RequestState)]
struct Blob {
    data: String,
}

const METHOD: &str = "tools/call";
const KEY_A: [u8; 32] = [0xA1; 32];
const KEY_B: [u8; 32] = [0xB2; 32];

fn keys() -> KeyRing {
    KeyRing::new(7, KEY_A)
}

fn state() -> Checkout {
    Checkout {
        order_id: "ord_42".into(),
        amount_cents: 1999,
        step: 2,
        note: Some("gift wrap".into()),
    }
}

fn t0() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_900_000_000)
}

/// The binding of the retry: same method and principal, bound values from
/// its params.
fn retry(principal: Option<&'static str>) -> Binding<'static> {
    Binding::new(METHOD)
        .with_principal(principal)
        .bind("order_id", "ord_42")
        .bind("amount_cents", &1999u32)
}

fn sealed() -> String {
    state()
        .seal_at(
            &keys(),
            &Binding::new(METHOD).with_principal(Some("alice")),
            t0(),
        )
        .expect("seals")
}

fn open(token: &str) -> Result<Checkout, StateError> {
    Checkout::open(token, &keys(), &retry(Some("alice")), t0())
}

fn reencode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn decode(token: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(token).expect("token is base64url")
}

#[test]
fn round_trip() {
    assert_eq!(open(&sealed()), Ok(state()));
}

#[test]
fn round_trip_without_principal_and_with_values_at_seal() {
    let keys = keys();
    let token = state().seal_at(&keys, &retry(None), t0()).expect("seals");
    assert_eq!(
        Checkout::open(&token, &keys, &retry(None), t0()),
        Ok(state())
    );
}

#[test]
fn round_trip_unit_struct_with_default_ttl() {
    let keys = keys();
    let binding = Binding::new("prompts/get").with_principal(Some("alice"));
    let token = Confirmed.seal_at(&keys, &binding, t0()).expect("seals");
    assert_eq!(
        Confirmed::open(&token, &keys, &binding, t0()),
        Ok(Confirmed)
    );
    assert_eq!(Confirmed::TTL, DEFAULT_TTL);
    assert!(Confirmed::BIND.is_empty());
    let late = t0() + DEFAULT_TTL;
    assert_eq!(
        Confirmed::open(&token, &keys, &binding, late),
        Err(StateError::Expired)
    );
}

#[test]
fn derive_reports_ttl_and_bound_fields() {
    assert_eq!(Checkout::TTL, Duration::from_secs(60));
    assert_eq!(Checkout::BIND, ["order_id", "amount_cents"]);
}

#[test]
fn token_shape() {
    let token = sealed();
    assert!(token
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    let bytes = decode(&token);
    assert_eq!(bytes[0], 1, "version");
    assert_eq!(&bytes[1..5], &7u32.to_be_bytes(), "key id");
    // Every seal draws a fresh nonce and token id.
    assert_ne!(sealed(), token);
}

#[test]
fn every_flipped_byte_is_refused() {
    let bytes = decode(&sealed());
    for i in 0..bytes.len() {
        for mask in [0x01, 0x80, 0xFF] {
            let mut bad = bytes.clone();
            bad[i] ^= mask;
            let result = open(&reencode(&bad));
            let expected = match i {
                0 => StateError::UnsupportedVersion,
                1..=4 => StateError::UnknownKey,
                _ => StateError::Tampered,
            };
            assert_eq!(result, Err(expected), "byte {i} mask {mask:#x}");
        }
    }
}

#[test]
fn flipped_key_id_onto_a_held_key_is_tampered() {
    let ring = keys().with_previous(6, KEY_B).expect("distinct ids");
    let mut bad = decode(&sealed());
    bad[4] ^= 0x01; // id 7 -> 6, a key the ring holds
    assert_eq!(
        Checkout::open(&reencode(&bad), &ring, &retry(Some("alice")), t0()),
        Err(StateError::Tampered)
    );
}

#[test]
fn truncated_garbage_and_empty_tokens_are_refused() {
    let token = sealed();
    // A prefix short of a header and a tag is malformed; a longer one is
    // cut inside the ciphertext or the tag, which the tag check refuses.
    for len in 0..token.len() {
        let result = open(&token[..len]);
        assert!(
            matches!(result, Err(StateError::Malformed | StateError::Tampered)),
            "prefix of {len} characters: {result:?}"
        );
    }
    let bytes = decode(&token);
    for len in 0..bytes.len() {
        let expected = if len < 1 + 4 + 24 + 16 {
            StateError::Malformed
        } else {
            StateError::Tampered
        };
        assert_eq!(
            open(&reencode(&bytes[..len])),
            Err(expected),
            "prefix of {len} bytes"
        );
    }
    for (garbage, expected) in [
        ("", StateError::Malformed),
        ("=", StateError::Malformed),
        ("a", StateError::Malformed),
        ("!!!!", StateError::Malformed),
        ("not a token", StateError::Malformed),
        ("AAAA", StateError::Malformed),
        ("////", StateError::Malformed),
        ("é", StateError::Malformed),
        ("\0\0\0\0", StateError::Malformed),
        (&"A".repeat(200), StateError::UnsupportedVersion),
        (&format!("{token}="), StateError::Malformed),
        (&format!("{token}A"), StateError::Malformed),
        (&format!(" {token}"), StateError::Malformed),
    ] {
        assert_eq!(open(garbage), Err(expected), "{garbage:?}");
    }
    assert_eq!(open(""), Err(StateError::Malformed));
    assert_eq!(open("!!!!"), Err(StateError::Malformed));
    assert_eq!(
        open(&"A".repeat(MAX_TOKEN_LEN + 1)),
        Err(StateError::Malformed)
    );
}

#[test]
fn expired_is_refused() {
    let token = sealed();
    let just_before = t0() + Duration::from_secs(60) - Duration::from_millis(1);
    let at_expiry = t0() + Duration::from_secs(60);
    let binding = retry(Some("alice"));
    assert_eq!(
        Checkout::open(&token, &keys(), &binding, just_before),
        Ok(state())
    );
    assert_eq!(
        Checkout::open(&token, &keys(), &binding, at_expiry),
        Err(StateError::Expired)
    );
    assert_eq!(
        Checkout::open(
            &token,
            &keys(),
            &binding,
            t0() + Duration::from_secs(86_400)
        ),
        Err(StateError::Expired)
    );
}

#[test]
fn wrong_principal_is_refused() {
    let token = sealed();
    for other in [Some("bob"), Some("alic"), Some("alice "), Some(""), None] {
        assert_eq!(
            Checkout::open(&token, &keys(), &retry(other), t0()),
            Err(StateError::WrongPrincipal),
            "{other:?}"
        );
    }
    let anonymous = state()
        .seal_at(&keys(), &Binding::new(METHOD), t0())
        .expect("seals");
    assert_eq!(
        Checkout::open(&anonymous, &keys(), &retry(Some("alice")), t0()),
        Err(StateError::WrongPrincipal)
    );
}

#[test]
fn wrong_request_is_refused() {
    let token = sealed();
    let keys = keys();
    let other_order = Binding::new(METHOD)
        .with_principal(Some("alice"))
        .bind("order_id", "ord_43")
        .bind("amount_cents", &1999);
    let other_amount = Binding::new(METHOD)
        .with_principal(Some("alice"))
        .bind("order_id", "ord_42")
        .bind("amount_cents", &1);
    let other_method = Binding::new("prompts/get")
        .with_principal(Some("alice"))
        .bind("order_id", "ord_42")
        .bind("amount_cents", &1999);
    let other_type_of_value = Binding::new(METHOD)
        .with_principal(Some("alice"))
        .bind("order_id", "ord_42")
        .bind("amount_cents", "1999");
    for binding in [other_order, other_amount, other_method, other_type_of_value] {
        assert_eq!(
            Checkout::open(&token, &keys, &binding, t0()),
            Err(StateError::WrongRequest),
            "{binding:?}"
        );
    }
    // The same token opened as another state type with the same fields.
    assert_eq!(
        Refund::open(&token, &keys, &retry(Some("alice")), t0()),
        Err(StateError::WrongRequest)
    );
}

#[test]
fn binding_values_must_match_the_bound_fields() {
    let token = sealed();
    let keys = keys();
    let expected = StateError::BindingMismatch {
        expected: &["order_id", "amount_cents"],
    };
    let missing = Binding::new(METHOD)
        .with_principal(Some("alice"))
        .bind("order_id", "ord_42");
    let none = Binding::new(METHOD).with_principal(Some("alice"));
    let misspelt = Binding::new(METHOD)
        .with_principal(Some("alice"))
        .bind("order", "ord_42")
        .bind("amount_cents", &1999);
    let twice = Binding::new(METHOD)
        .with_principal(Some("alice"))
        .bind("order_id", "ord_42")
        .bind("order_id", "ord_42");
    let extra = retry(Some("alice")).bind("step", &2);
    for binding in [missing, none, misspelt, twice, extra] {
        let result = Checkout::open(&token, &keys, &binding, t0());
        assert_eq!(result, Err(expected.clone()), "{binding:?}");
        assert!(expected.is_server_fault());
    }
    // Sealing with values that disagree with the state's own.
    let wrong = Binding::new(METHOD)
        .with_principal(Some("alice"))
        .bind("order_id", "ord_43")
        .bind("amount_cents", &1999);
    assert_eq!(
        state().seal_at(&keys, &wrong, t0()),
        Err(StateError::WrongRequest)
    );
}

#[test]
fn unknown_key_id_is_refused() {
    let token = sealed();
    let other = KeyRing::new(8, KEY_A);
    assert_eq!(
        Checkout::open(&token, &other, &retry(Some("alice")), t0()),
        Err(StateError::UnknownKey)
    );
}

#[test]
fn same_id_other_key_is_tampered() {
    let token = sealed();
    let other = KeyRing::new(7, KEY_B);
    assert_eq!(
        Checkout::open(&token, &other, &retry(Some("alice")), t0()),
        Err(StateError::Tampered)
    );
}

#[test]
fn old_key_opens_after_rotation_until_retired() {
    let token = sealed();
    let mut ring = keys();
    ring.rotate(8, KEY_B).expect("distinct ids");
    assert_eq!(ring.active_id(), 8);
    assert_eq!(ring.ids().collect::<Vec<_>>(), [8, 7]);
    let binding = retry(Some("alice"));
    assert_eq!(Checkout::open(&token, &ring, &binding, t0()), Ok(state()));

    // New tokens carry the new id and do not open with the old key alone.
    let fresh = state().seal_at(&ring, &binding, t0()).expect("seals");
    assert_eq!(&decode(&fresh)[1..5], &8u32.to_be_bytes());
    assert_eq!(Checkout::open(&fresh, &ring, &binding, t0()), Ok(state()));
    assert_eq!(
        Checkout::open(&fresh, &keys(), &binding, t0()),
        Err(StateError::UnknownKey)
    );

    assert!(ring.retire(7));
    assert!(!ring.retire(7));
    assert!(!ring.retire(8), "the active key cannot be retired");
    assert_eq!(
        Checkout::open(&token, &ring, &binding, t0()),
        Err(StateError::UnknownKey)
    );
}

#[test]
fn key_ring_refuses_duplicate_ids_and_hides_keys() {
    let mut ring = keys();
    assert_eq!(ring.rotate(7, KEY_B), Err(KeyRingError::DuplicateId(7)));
    assert_eq!(ring.active_id(), 7, "a refused rotation changes nothing");
    assert!(matches!(
        keys().with_previous(7, KEY_B),
        Err(KeyRingError::DuplicateId(7))
    ));
    let ring = ring.with_previous(3, KEY_B).expect("distinct ids");
    let debug = format!("{ring:?}");
    assert_eq!(debug, "KeyRing { active: 7, previous: [3], .. }");
    assert!(!debug.contains("161") && !debug.contains("a1"), "{debug}");

    let generated = KeyRing::generate(1).expect("random source");
    let token = state()
        .seal(&generated, &retry(None))
        .expect("seals with the clock");
    assert_eq!(
        Checkout::open(&token, &generated, &retry(None), SystemTime::now()),
        Ok(state())
    );
    assert_ne!(
        KeyRing::generate_key().expect("random"),
        KeyRing::generate_key().expect("random")
    );
}

#[test]
fn unsupported_version_is_refused() {
    let bytes = decode(&sealed());
    for version in [0u8, 2, 0x7F, 0xFF] {
        let mut bad = bytes.clone();
        bad[0] = version;
        assert_eq!(open(&reencode(&bad)), Err(StateError::UnsupportedVersion));
    }
}

#[test]
fn oversized_state_is_not_sealed() {
    let big = Blob {
        data: "x".repeat(MAX_TOKEN_LEN),
    };
    let result = big.seal_at(&keys(), &Binding::new(METHOD), t0());
    assert!(matches!(result, Err(StateError::Encode(_))), "{result:?}");
    let fits = Blob {
        data: "x".repeat(MAX_TOKEN_LEN / 2),
    };
    let token = fits
        .seal_at(&keys(), &Binding::new(METHOD), t0())
        .expect("fits");
    assert!(token.len() <= MAX_TOKEN_LEN);
    assert_eq!(
        Blob::open(&token, &keys(), &Binding::new(METHOD), t0()),
        Ok(fits)
    );
}

#[test]
fn unseal_reports_id_and_expiry() {
    let token = sealed();
    let unsealed = Checkout::unseal(&token, &keys(), &retry(Some("alice")), t0()).expect("opens");
    assert_eq!(unsealed.value, state());
    assert_eq!(unsealed.expires_at, t0() + Duration::from_secs(60));
    let other = Checkout::unseal(&sealed(), &keys(), &retry(Some("alice")), t0()).expect("opens");
    assert_ne!(unsealed.token_id, other.token_id);
}

#[test]
fn open_once_refuses_a_replay() {
    let guard = MemoryReplayGuard::new(16);
    let keys = keys();
    let binding = retry(Some("alice"));
    let token = sealed();
    assert_eq!(
        Checkout::open_once(&token, &keys, &binding, t0(), &guard),
        Ok(state())
    );
    assert_eq!(
        Checkout::open_once(&token, &keys, &binding, t0(), &guard),
        Err(StateError::Replayed)
    );
    // A refused token is not recorded: it stays refused for its own reason.
    assert_eq!(
        Checkout::open_once("", &keys, &binding, t0(), &guard),
        Err(StateError::Malformed)
    );
    assert_eq!(guard.len(), 1);
    // Another seal of the same state is a different token.
    assert_eq!(
        Checkout::open_once(&sealed(), &keys, &binding, t0(), &guard),
        Ok(state())
    );
}

#[test]
fn memory_replay_guard_is_bounded_and_forgets_expired_ids() {
    let guard = MemoryReplayGuard::new(2);
    let soon = t0() + Duration::from_secs(10);
    let later = t0() + Duration::from_secs(100);
    assert!(guard.first_use(&[1; 16], soon, t0()));
    assert!(guard.first_use(&[2; 16], later, t0()));
    assert!(!guard.first_use(&[1; 16], soon, t0()), "seen");
    // Full of unexpired ids: refuse rather than forget one.
    assert!(!guard.first_use(&[3; 16], later, t0()));
    // Once the first id's token expired, its slot is reused.
    assert!(guard.first_use(&[3; 16], later, soon));
    assert_eq!(guard.len(), 2);
    assert!(!guard.first_use(&[2; 16], later, soon), "still remembered");
}

#[test]
fn errors_read_well() {
    assert_eq!(
        StateError::WrongRequest.to_string(),
        "request state was issued for a different request"
    );
    assert!(!StateError::Tampered.is_server_fault());
    assert!(StateError::Random.is_server_fault());
}

/// The checked-in expansion of the derive compiles against the runtime.
mod golden {
    #![allow(dead_code)]

    use mcp_server::RequestState as _;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    struct Checkout {
        order_id: String,
        #[serde(rename = "amountCents")]
        amount_cents: u64,
        step: u8,
    }

    #[derive(Serialize, Deserialize)]
    struct Confirmed;

    include!("../../mcp-derive/tests/expand/request_state.expanded.rs");

    #[test]
    fn golden_expansion_compiles() {
        assert_eq!(Checkout::BIND, ["order_id", "amount_cents"]);
        assert_eq!(Checkout::TTL.as_secs(), 120);
        assert!(Confirmed::BIND.is_empty());
    }
}

#[test]
fn binding_from_context() {
    use mcp_server::Context;

    let ctx = Context::new(METHOD, Default::default()).with_principal("alice");
    let binding = Binding::from_context(&ctx);
    assert_eq!(binding.method(), METHOD);
    assert_eq!(binding.principal(), Some("alice"));
    let token = state().seal_at(&keys(), &binding, t0()).expect("seals");
    let binding = Binding::from_context(&ctx)
        .bind("order_id", "ord_42")
        .bind("amount_cents", &1999);
    assert_eq!(Checkout::open(&token, &keys(), &binding, t0()), Ok(state()));
}

#[cfg(feature = "auth")]
#[path = "auth_support/mod.rs"]
mod auth_support;

/// Over HTTP on a protected server, the principal that state is sealed to
/// is the access token's issuer and subject: a retry with a token for
/// another subject is refused, with nothing in the handler to arrange it.
#[cfg(feature = "auth")]
mod principal_from_the_token {
    use std::time::SystemTime;

    use super::auth_support::{call_headers, meta, send, Discovery, Protected};
    use mcp_server::state::Binding;
    use mcp_server::tool::{ToolError, ToolOutput};
    use mcp_server::types::v2026_07_28::InputRequiredResult;
    use mcp_server::{tool, tools, Context, ErrorObject, RequestState};
    use serde::{Deserialize, Serialize};
    use serde_json::{json, Value};

    #[derive(Serialize, Deserialize, RequestState)]
    struct Step {
        round: u8,
    }

    struct Shop;

    fn protocol(message: String) -> ToolError {
        ToolError::Protocol(ErrorObject::invalid_params(message))
    }

    #[tools]
    impl Shop {
        /// Asks for a confirmation, then finishes with the sealed state.
        #[tool]
        fn checkout(&self, cx: &Context) -> Result<ToolOutput, ToolError> {
            let keys = cx.keys().ok_or_else(|| protocol("no keys".into()))?;
            let binding = Binding::from_context(cx);
            let Some(token) = cx.request_state() else {
                let mut ask: InputRequiredResult = serde_json::from_value(json!({
                    "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                        "message": "Buy?",
                        "requestedSchema": {"type": "object", "properties": {}},
                    }}}
                }))
                .map_err(|e| protocol(e.to_string()))?;
                let sealed = Step { round: 1 }
                    .seal(keys, &binding)
                    .map_err(|e| protocol(e.to_string()))?;
                ask.request_state = Some(sealed);
                return Ok(ToolOutput::input_required(ask));
            };
            let step = Step::open(token, keys, &binding, SystemTime::now())
                .map_err(|e| protocol(format!("requestState refused: {e}")))?;
            Ok(ToolOutput::text(format!(
                "bought after round {}",
                step.round
            )))
        }
    }

    async fn checkout(
        server: &Protected,
        token: &super::auth_support::Token,
        state: Option<&str>,
    ) -> Value {
        let mut params = json!({"_meta": meta(), "name": "checkout", "arguments": {}});
        if let Some(state) = state {
            params["requestState"] = json!(state);
            params["inputResponses"] = json!({"confirm": {"action": "accept", "content": {}}});
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let headers = call_headers("checkout", Some(token));
        let response = send(server.port, "POST", "/mcp", &headers, &body.to_string()).await;
        assert_eq!(response.status, 200, "{}", response.body);
        response.json()
    }

    #[tokio::test]
    async fn state_sealed_for_one_subject_is_refused_to_another() {
        let server = Protected::start(Shop, Discovery::OAuth, |b, _, _| b).await;
        let alice = server.token("alice", "");
        let bob = server.token("bob", "");
        let first = checkout(&server, &alice, None).await;
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        let state = first["result"]["requestState"]
            .as_str()
            .expect("sealed state");
        let stolen = checkout(&server, &bob, Some(state)).await;
        assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
        assert_eq!(
            stolen["error"]["message"],
            "requestState refused: request state was issued to a different principal"
        );
        let retry = checkout(&server, &alice, Some(state)).await;
        assert_eq!(
            retry["result"]["content"][0]["text"], "bought after round 1",
            "{retry}"
        );
    }
}

/// State sealed by one release of a server and opened by the next, whose
/// type of the same name changed shape: the token is authentic and bound
/// to the same request, and is refused as not decoding, naming where.
mod a_changed_type {
    use super::*;

    /// The state as the previous release wrote it.
    #[derive(Serialize, Deserialize)]
    struct Before {
        data: String,
    }

    /// The state of the same name in this release.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct After {
        data: u64,
    }

    const NAME: &str = "shop::Step";

    // Written by hand, as the derive would for both releases' `Step`.
    impl RequestState for Before {
        const TTL: Duration = DEFAULT_TTL;
        const BIND: &'static [&'static str] = &[];
        const __NAME: &'static str = NAME;
        fn __bind_values(&self, _: &mut mcp_server::state::BoundValues) {}
    }

    impl RequestState for After {
        const TTL: Duration = DEFAULT_TTL;
        const BIND: &'static [&'static str] = &[];
        const __NAME: &'static str = NAME;
        fn __bind_values(&self, _: &mut mcp_server::state::BoundValues) {}
    }

    #[test]
    fn is_refused_as_not_decoding() {
        let token = Before {
            data: "secret text".into(),
        }
        .seal_at(&keys(), &Binding::new(METHOD), t0())
        .expect("seals");
        let error =
            After::open(&token, &keys(), &Binding::new(METHOD), t0()).expect_err("another shape");
        let StateError::Decode(message) = &error else {
            panic!("expected a decode error, got {error:?}");
        };
        assert_eq!(message, "Data error at line 1 column 21");
        assert!(!error.to_string().contains("secret"), "{error}");
        assert!(!error.is_server_fault());
        assert_eq!(
            error.to_string(),
            "request state does not decode into this type: Data error at line 1 column 21"
        );
    }
}

/// The longest state a server may seal goes to the client and back over
/// HTTP and opens; one byte more is not sealed, and a presented token one
/// character over the cap is refused before it is decoded.
#[cfg(feature = "http")]
mod the_cap_end_to_end {
    use std::time::SystemTime;

    use mcp_server::state::{Binding, MAX_TOKEN_LEN};
    use mcp_server::tool::{ToolError, ToolOutput};
    use mcp_server::transport::http;
    use mcp_server::{tool, tools, Context, ErrorObject, RequestState, Server};
    use serde::{Deserialize, Serialize};
    use serde_json::{json, Value};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[derive(Serialize, Deserialize, RequestState)]
    struct Padding {
        data: String,
    }

    struct Store;

    #[tools]
    impl Store {
        /// Asks for a confirmation, carrying `size` bytes of state.
        #[tool]
        fn hold(&self, cx: &Context, size: usize) -> Result<ToolOutput, ToolError> {
            let keys = cx.keys().expect("the server has keys");
            let binding = Binding::from_context(cx);
            let Some(token) = cx.request_state() else {
                let sealed = Padding {
                    data: "x".repeat(size),
                }
                .seal(keys, &binding)
                .map_err(|e| ToolError::Protocol(ErrorObject::internal_error(e.to_string())))?;
                let ask = serde_json::from_value(json!({
                    "inputRequests": {"go": {"method": "elicitation/create", "params": {
                        "message": "Go on?",
                        "requestedSchema": {"type": "object", "properties": {}},
                    }}},
                    "requestState": sealed,
                }))
                .expect("an input request");
                return Ok(ToolOutput::input_required(ask));
            };
            let state = Padding::open(token, keys, &binding, SystemTime::now()).map_err(|e| {
                ToolError::Protocol(ErrorObject::invalid_params(format!(
                    "requestState refused: {e}"
                )))
            })?;
            Ok(ToolOutput::text(format!("held {}", state.data.len())))
        }
    }

    async fn serve() -> u16 {
        let server = Server::builder(Store)
            .info("store", "1.0.0")
            .tools()
            .build()
            .expect("server builds");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("address").port();
        let app = http::router(server, "/mcp", http::HttpConfig::default());
        tokio::spawn(async move { axum::serve(listener, app).await });
        port
    }

    async fn hold(port: u16, size: usize, state: Option<&str>) -> Value {
        let mut params = json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            },
            "name": "hold",
            "arguments": {"size": size},
        });
        if let Some(state) = state {
            params["requestState"] = json!(state);
            params["inputResponses"] = json!({"go": {"action": "accept", "content": {}}});
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
            .to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: hold\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        stream.write_all(request.as_bytes()).await.expect("send");
        let mut raw = String::new();
        stream.read_to_string(&mut raw).await.expect("read");
        let (head, body) = raw.split_once("\r\n\r\n").expect("a response");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
        serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
    }

    fn token(answer: &Value) -> &str {
        answer["result"]["requestState"]
            .as_str()
            .unwrap_or_else(|| panic!("no state in {answer}"))
    }

    #[tokio::test]
    async fn exactly_at_the_cap_and_one_past() {
        let port = serve().await;
        // The sealed size of an empty payload, then the payload that makes
        // the token exactly `MAX_TOKEN_LEN` characters of base64url
        // (3 bytes to 4 characters, no padding).
        let empty = hold(port, 0, None).await;
        let overhead = token(&empty).len() * 3 / 4;
        let size = MAX_TOKEN_LEN / 4 * 3 - overhead;

        let first = hold(port, size, None).await;
        let at_cap = token(&first).to_owned();
        assert_eq!(at_cap.len(), MAX_TOKEN_LEN);
        let retry = hold(port, size, Some(&at_cap)).await;
        assert_eq!(
            retry["result"]["content"][0]["text"],
            format!("held {size}"),
            "{retry}"
        );

        let over = hold(port, size + 1, None).await;
        assert_eq!(over["error"]["code"], -32603, "{over}");
        assert_eq!(
            over["error"]["message"],
            format!(
                "cannot seal request state: the sealed state would exceed \
                 {MAX_TOKEN_LEN} characters; keep less in it"
            )
        );

        let long = format!("{at_cap}A");
        let refused = hold(port, size, Some(&long)).await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert_eq!(
            refused["error"]["message"],
            "requestState refused: request state is malformed"
        );
    }
}
