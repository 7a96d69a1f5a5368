//! `cargo run --release -p mcp-bench`: prints generation time for each MCP
//! schema module and corpus decode+encode throughput, mcp-types beside
//! rust-mcp-schema 2.0 (the anchor), measured in the same run.
//!
//! The spec directory is `$MCP_SPEC_DIR`, else `../shared/spec` beside the
//! workspace.

mod corpus;
mod timing;

use std::path::{Path, PathBuf};

use timing::{ms, sample};

fn spec_dir() -> PathBuf {
    std::env::var_os("MCP_SPEC_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec"),
        PathBuf::from,
    )
}

fn generation(spec: &Path) {
    println!("## generation (mcp-gen, release, 20 runs)");
    println!(
        "{:<12} {:>10} {:>10} {:>10}",
        "revision", "min ms", "median ms", "lines"
    );
    for revision in ["2026-07-28", "2025-11-25"] {
        let path = spec.join(format!("schema/{revision}/schema.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut lines = 0;
        let times = sample(20, || {
            let schema: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
            let code = mcp_gen::Settings::mcp(revision)
                .generate(&schema)
                .expect("generates");
            lines = code.lines().count();
        });
        println!(
            "{revision:<12} {:>10.1} {:>10.1} {lines:>10}",
            ms(times[0]),
            ms(times[times.len() / 2])
        );
    }
}

type RoundTrip = fn(&str, &[u8], &mut Vec<u8>) -> Option<bool>;

fn throughput(spec: &Path) {
    let examples = corpus::load(&spec.join("schema/2026-07-28/examples")).expect("examples load");
    let bytes: usize = examples.iter().map(|e| e.bytes.len()).sum();
    println!();
    println!("## corpus decode+encode ({} examples, {bytes} bytes a pass; median of 15 runs of 200 passes)", examples.len());
    let mut rates = Vec::new();
    for (name, run) in [
        ("mcp-types", corpus::ours as RoundTrip),
        ("rust-mcp-schema 2.0", corpus::theirs as RoundTrip),
    ] {
        let mut out = Vec::with_capacity(4096);
        let exact = examples
            .iter()
            .filter(|e| {
                run(&e.type_name, &e.bytes, &mut out) == Some(true)
                    && serde_json::from_slice::<serde_json::Value>(&out).ok()
                        == serde_json::from_slice::<serde_json::Value>(&e.bytes).ok()
            })
            .count();
        let times = sample(15, || {
            for _ in 0..200 {
                for e in &examples {
                    std::hint::black_box(run(
                        &e.type_name,
                        std::hint::black_box(&e.bytes),
                        &mut out,
                    ));
                }
            }
        });
        let median = times[times.len() / 2];
        let rate = (bytes * 200) as f64 / median.as_secs_f64() / 1e6;
        println!(
            "{name:<22} {rate:>8.1} MB/s   exact round trips {exact}/{}",
            examples.len()
        );
        rates.push(rate);
    }
    println!(
        "ratio mcp-types / rust-mcp-schema: {:.2}x",
        rates[0] / rates[1]
    );
}

fn main() {
    let spec = spec_dir();
    generation(&spec);
    throughput(&spec);
}
