//! The JSON-RPC envelope: any bytes either fail to parse (-32700), fail to
//! classify (-32600, with an error response that is itself a valid
//! message), or give a message that survives encoding and decoding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_types::{ErrorCode, Message};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let value = match serde_json::from_slice::<Value>(data) {
        Ok(value) => value,
        Err(_) => {
            let error = Message::from_slice(data).expect_err("not JSON");
            assert_eq!(error.code(), ErrorCode::PARSE_ERROR);
            return;
        }
    };
    match Message::from_value(value) {
        Ok(message) => {
            let again =
                Message::from_value(message.to_value()).expect("an encoded message decodes");
            assert_eq!(again, message);
            assert_eq!(Message::from_slice(data).ok(), Some(message));
        }
        Err(error) => {
            assert_eq!(error.code(), ErrorCode::INVALID_REQUEST);
            let response = Message::from_value(error.to_response().to_value())
                .expect("the error response is a valid message");
            assert!(matches!(response, Message::ErrorResponse { .. }));
        }
    }
});
