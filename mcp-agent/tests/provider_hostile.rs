//! Whatever bytes a provider sends, the decoders answer with a value or
//! an error, never a panic: arbitrary bytes, and real turns with bytes
//! flipped, cut or dropped, into every decoder.

mod provider_common;

use mcp_agent::provider::{Limits, Provider};
use proptest::prelude::*;
use provider_common::{cases, sse};
use serde_json::{json, Value};

const PROVIDERS: [Provider; 3] = [Provider::OpenAi, Provider::Anthropic, Provider::Gemini];

/// Feeds `body` in chunks cut at `cuts` to each provider's stream
/// decoder, and to its whole-body decoder; only panics fail.
fn feed(body: &[u8], cuts: &[usize]) {
    for provider in PROVIDERS {
        let mut decoder = provider.stream_decoder(Limits::default());
        let mut at = 0;
        let mut failed = false;
        for cut in cuts.iter().copied().chain([body.len()]) {
            let end = cut.clamp(at, body.len());
            if decoder.push(&body[at..end]).is_err() {
                failed = true;
                break;
            }
            at = end;
        }
        if !failed {
            let _ = decoder.finish();
        }
        let _ = provider.decode(body, &Limits::default());
    }
}

fn real_bodies() -> Vec<Vec<u8>> {
    cases::all().iter().map(|case| sse(&case.events)).collect()
}

/// A JSON value of any kind.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)),
        "\\PC{0,12}".prop_map(Value::String),
        Just(json!([])),
        Just(json!({})),
        Just(json!([{"index": 0}])),
    ]
}

/// `value` with the node at position `pick` (in a depth-first walk)
/// replaced by `with`.
fn replace(value: &mut Value, pick: &mut usize, with: &Value) -> bool {
    if *pick == 0 {
        *value = with.clone();
        return true;
    }
    *pick -= 1;
    let children: Vec<&mut Value> = match value {
        Value::Array(items) => items.iter_mut().collect(),
        Value::Object(map) => map.values_mut().collect(),
        _ => return false,
    };
    for child in children {
        if replace(child, pick, with) {
            return true;
        }
    }
    false
}

proptest! {
    #[test]
    fn real_turns_with_a_field_of_the_wrong_kind(case in 0usize..64,
                                                  changes in proptest::collection::vec((any::<usize>(), any::<usize>(), leaf()), 1..4)) {
        let all = cases::all();
        let case = &all[case % all.len()];
        let mut events: Vec<String> = case.events.clone();
        for (event, node, with) in changes {
            let at = event % events.len();
            let Ok(mut value) = serde_json::from_str::<Value>(&events[at]) else {
                continue;
            };
            let mut pick = node % 64;
            replace(&mut value, &mut pick, &with);
            events[at] = value.to_string();
        }
        feed(&sse(&events), &[]);
        let mut whole = case.whole.clone();
        let mut pick = events.len() % 32;
        replace(&mut whole, &mut pick, &Value::Null);
        feed(whole.to_string().as_bytes(), &[]);
    }

    #[test]
    fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..2048),
                       cuts in proptest::collection::vec(0usize..2048, 0..8)) {
        feed(&body, &cuts);
    }

    #[test]
    fn arbitrary_events(events in proptest::collection::vec("\\PC{0,64}", 0..16)) {
        feed(&sse(&events), &[]);
    }

    #[test]
    fn real_turns_damaged(case in 0usize..64, flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
                          keep in any::<usize>()) {
        let bodies = real_bodies();
        let mut body = bodies[case % bodies.len()].clone();
        for (at, byte) in flips {
            let at = at % body.len();
            body[at] = byte;
        }
        let keep = keep % (body.len() + 1);
        feed(&body[..keep], &[keep / 2]);
    }
}
