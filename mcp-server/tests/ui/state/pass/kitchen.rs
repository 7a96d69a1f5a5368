// The derive expands to fully qualified paths: shadowing the prelude and
// common names at the use site changes nothing. (`str` is not shadowed: serde's
// own derive does not survive that.)
#![allow(dead_code, non_camel_case_types, non_snake_case, unused_imports)]

mod shadows {
    pub struct Result;
    pub struct Option;
    pub struct Box;
    pub struct Vec;
    pub struct String;
    pub struct Duration;
    pub fn Ok() {}
    pub fn Some() {}
    pub fn Err() {}
    pub mod core {}
    pub mod std {}
    pub mod mcp_server {}
}

mod inner {
    use super::shadows::*;
    use ::serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, ::mcp_server::RequestState)]
    #[state(ttl_secs = 90)]
    pub struct Checkout {
        #[state(bind)]
        pub order_id: ::std::string::String,
        #[state(bind)]
        pub amount_cents: u64,
        pub lines: ::std::vec::Vec<u32>,
    }

    #[derive(Serialize, Deserialize, ::mcp_server::RequestState)]
    pub struct Confirmed;

    #[derive(Serialize, Deserialize, ::mcp_server::RequestState)]
    #[state(ttl_secs = 1)]
    pub struct Nothing {}
}

fn main() {
    use mcp_server::state::{Binding, KeyRing, RequestState};

    assert_eq!(inner::Checkout::BIND, ["order_id", "amount_cents"]);
    assert_eq!(inner::Checkout::TTL.as_secs(), 90);
    assert_eq!(inner::Nothing::TTL.as_secs(), 1);

    let keys = KeyRing::new(1, [9; 32]);
    let binding = Binding::new("tools/call");
    let token = inner::Confirmed.seal(&keys, &binding).expect("seals");
    inner::Confirmed::open(&token, &keys, &binding, std::time::SystemTime::now()).expect("opens");
}
