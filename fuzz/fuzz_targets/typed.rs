//! The generated decoders of the 2026-07-28 schema: whatever decodes as a
//! `ClientRequest` or a `JSONRPCMessage` encodes and decodes back to the
//! same value.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_types::v2026_07_28::{ClientRequest, JSONRPCMessage};
use serde::de::DeserializeOwned;
use serde::Serialize;

fn round_trip<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(data: &[u8]) {
    let Ok(decoded) = serde_json::from_slice::<T>(data) else {
        return;
    };
    let value = serde_json::to_value(&decoded).expect("a decoded value encodes");
    let again: T = serde_json::from_value(value).expect("an encoded value decodes");
    assert_eq!(again, decoded);
}

fuzz_target!(|data: &[u8]| {
    round_trip::<ClientRequest>(data);
    round_trip::<JSONRPCMessage>(data);
});
