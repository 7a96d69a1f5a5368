//! Sealed `requestState`: arbitrary text never opens, and a sealed token
//! opens exactly when no character of it was changed and it is presented
//! for the same tool by the same principal.

#![no_main]

use std::sync::LazyLock;
use std::time::{Duration, SystemTime};

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mcp_server::state::{Binding, KeyRing};
use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, RequestState)]
#[state(ttl_secs = 60)]
struct Pending {
    #[state(bind)]
    tool: String,
    step: u32,
}

#[derive(Arbitrary, Debug)]
struct Input {
    token: String,
    tool: String,
    other_tool: String,
    principal: Option<String>,
    other_principal: Option<String>,
    /// (position, index into the base64url alphabet) pairs to write.
    edits: Vec<(u16, u8)>,
    /// Seconds between sealing and opening.
    age: u16,
}

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static KEYS: LazyLock<KeyRing> = LazyLock::new(|| KeyRing::new(1, [7; 32]));

fn binding<'a>(tool: &'a str, principal: Option<&'a str>) -> Binding<'a> {
    Binding::new("tools/call")
        .with_principal(principal)
        .bind("tool", tool)
}

fuzz_target!(|input: Input| {
    let sealed_at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let opened_at = sealed_at + Duration::from_secs(u64::from(input.age));
    let own = || binding(&input.tool, input.principal.as_deref());
    assert!(Pending::open(&input.token, &KEYS, &own(), opened_at).is_err());

    let pending = Pending {
        tool: input.tool.clone(),
        step: 1,
    };
    let Ok(token) = pending.seal_at(&KEYS, &own(), sealed_at) else {
        return; // too large to seal
    };
    let mut bytes = token.clone().into_bytes();
    for (position, letter) in &input.edits {
        let position = usize::from(*position) % bytes.len();
        bytes[position] = ALPHABET[usize::from(*letter) % ALPHABET.len()];
    }
    let edited = String::from_utf8(bytes).expect("base64url is ASCII");
    let fresh = input.age < 60;
    let opened = Pending::open(&edited, &KEYS, &own(), opened_at);
    assert_eq!(opened.is_ok(), edited == token && fresh, "{opened:?}");
    if let Ok(state) = opened {
        assert_eq!(state.tool, input.tool);
    }
    let elsewhere = binding(&input.other_tool, input.other_principal.as_deref());
    let same_request = input.other_tool == input.tool && input.other_principal == input.principal;
    let opened = Pending::open(&token, &KEYS, &elsewhere, opened_at);
    assert_eq!(opened.is_ok(), same_request && fresh);
});
