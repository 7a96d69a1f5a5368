//! `cargo run --release -p mcp-bench --bin seal`: how many times a second a
//! small `#[derive(RequestState)]` struct is sealed and opened (median of
//! several runs), with the token size.

use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime};

use mcp_server::state::{Binding, KeyRing};
use mcp_server::RequestState;
use serde::{Deserialize, Serialize};

/// A typical multi-round-trip state: two bound params and a little data.
#[derive(Serialize, Deserialize, RequestState)]
#[state(ttl_secs = 300)]
struct Checkout {
    #[state(bind)]
    order_id: String,
    #[state(bind)]
    amount_cents: u64,
    step: u8,
    answers: Vec<String>,
}

const RUNS: usize = 11;
const PER_RUN: u32 = 20_000;

/// Runs `f` `PER_RUN` times per run and returns the median rate per second.
fn rate(mut f: impl FnMut()) -> f64 {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..PER_RUN {
                f();
            }
            start.elapsed()
        })
        .collect();
    times.sort();
    f64::from(PER_RUN) / times[RUNS / 2].as_secs_f64()
}

fn main() {
    let keys = KeyRing::new(1, [0x5a; 32]);
    let state = Checkout {
        order_id: "ord_2f9c1a".into(),
        amount_cents: 129_900,
        step: 2,
        answers: vec!["express shipping".into(), "gift wrap".into()],
    };
    let principal = Some("user-7d1e");
    let first = Binding::new("tools/call").with_principal(principal);
    let retry = Binding::new("tools/call")
        .with_principal(principal)
        .bind("order_id", "ord_2f9c1a")
        .bind("amount_cents", &129_900u64);
    let now = SystemTime::now();
    let token = state.seal_at(&keys, &first, now).expect("seals");
    Checkout::open(&token, &keys, &retry, now).expect("opens");

    println!("## request state (XChaCha20-Poly1305, release, median of {RUNS} runs of {PER_RUN})");
    println!("token: {} characters", token.len());
    let seal = rate(|| {
        black_box(
            black_box(&state)
                .seal_at(&keys, black_box(&first), now)
                .expect("seals"),
        );
    });
    // The binding is built on every open, as a handler would.
    let open = rate(|| {
        let retry = Binding::new("tools/call")
            .with_principal(principal)
            .bind("order_id", "ord_2f9c1a")
            .bind("amount_cents", &129_900u64);
        black_box(Checkout::open(black_box(&token), &keys, &retry, now).expect("opens"));
    });
    println!("seal: {seal:>10.0} /s  ({:.2} µs each)", 1e6 / seal);
    println!("open: {open:>10.0} /s  ({:.2} µs each)", 1e6 / open);
}
