//! The report: markdown tables of the figures, then each target with the
//! ratio that decides it.

use std::time::Duration;

use crate::figures::Figures;
use crate::{Plan, Subject};

fn micros(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}

fn millis(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

fn mib(kib: f64) -> String {
    format!("{:.1}", kib / 1024.0)
}

fn row(label: &str, cells: impl IntoIterator<Item = String>) {
    let cells: Vec<String> = cells.into_iter().collect();
    println!("| {label} | {} |", cells.join(" | "));
}

fn header(first: &str, names: &[&str]) {
    println!("| {first} | {} |", names.join(" | "));
    println!("|{}", " --- |".repeat(names.len() + 1));
}

/// The anchor's better figure of its two eras (`lower` for costs).
fn best(figures: &[&Figures], value: impl Fn(&Figures) -> f64, lower: bool) -> f64 {
    let values = figures.iter().map(|f| value(f));
    if lower {
        values.fold(f64::INFINITY, f64::min)
    } else {
        values.fold(f64::NEG_INFINITY, f64::max)
    }
}

fn target(name: &str, ours: f64, anchor: f64, goal: &str, met: impl Fn(f64) -> bool) {
    let ratio = ours / anchor;
    let verdict = if met(ratio) { "met" } else { "missed" };
    let digits = if ours.abs() >= 1000.0 { 0 } else { 1 };
    println!("| {name} | {ours:.digits$} | {anchor:.digits$} | {ratio:.2}x | {goal} | {verdict} |");
}

pub fn print(
    plan: &Plan,
    subjects: &[Subject],
    stdio: &[Figures],
    http: &[Vec<Figures>],
    sizes: [u64; 3],
) {
    let names: Vec<&str> = subjects.iter().map(|s| s.name).collect();
    println!(
        "\n### stdio ({} rounds; {} sequential round trips and {} x {} pipelined requests a round)\n",
        plan.rounds, plan.sequential, plan.bursts, plan.pipelined
    );
    header("", &names);
    row(
        "sequential median (µs)",
        stdio.iter().map(|f| micros(f.latency(0.5))),
    );
    row(
        "sequential p99 (µs)",
        stdio.iter().map(|f| micros(f.latency(0.99))),
    );
    row(
        "pipelined req/s (lowest–highest burst)",
        stdio.iter().map(Figures::rate_spread),
    );
    row(
        "server CPU per call (µs)",
        stdio.iter().map(|f| micros(f.cpu_per_call())),
    );
    row("RSS idle (MiB)", stdio.iter().map(|f| mib(f.idle_rss())));
    row(
        "RSS after pipelined (MiB)",
        stdio.iter().map(|f| mib(f.loaded_rss())),
    );

    for (&connections, http) in plan.connections.iter().zip(http) {
        println!(
            "\n### Streamable HTTP ({connections} connections, {:.0} s window a round)\n",
            plan.http_window.as_secs_f64()
        );
        header("", &["ours", "rmcp"]);
        row(
            "req/s (lowest–highest round)",
            http.iter().map(Figures::rate_spread),
        );
        row("median (ms)", http.iter().map(|f| millis(f.latency(0.5))));
        row("p99 (ms)", http.iter().map(|f| millis(f.latency(0.99))));
        row(
            "server CPU per call (µs)",
            http.iter().map(|f| micros(f.cpu_per_call())),
        );
        row("RSS idle (MiB)", http.iter().map(|f| mib(f.idle_rss())));
        row(
            "RSS after load (MiB)",
            http.iter().map(|f| mib(f.loaded_rss())),
        );
    }

    println!("\n### release binary size\n");
    header("", &["ours", "rmcp", "echo"]);
    row("bytes (MiB)", sizes.map(|s| mib(s as f64 / 1024.0)));

    let index = |name: &str| subjects.iter().position(|s| s.name == name);
    let (Some(ours), Some(echo)) = (index("ours"), index("echo")) else {
        return;
    };
    let anchors: Vec<&Figures> = subjects
        .iter()
        .zip(stdio)
        .filter(|(s, _)| s.name.starts_with("rmcp"))
        .map(|(_, f)| f)
        .collect();
    let ours = &stdio[ours];
    println!("\n### targets (anchor: rmcp's better era for each figure)\n");
    header("figure", &["ours", "anchor", "ratio", "target", ""]);
    let median = |f: &Figures| f.latency(0.5).as_secs_f64() * 1e6;
    target(
        "stdio median µs vs echo",
        median(ours),
        median(&stdio[echo]),
        "<= 1.1x",
        |r| r <= 1.1,
    );
    if let Some(json_echo) = index("JSON echo") {
        target(
            "stdio median µs vs JSON echo",
            median(ours),
            median(&stdio[json_echo]),
            "<= 1.1x",
            |r| r <= 1.1,
        );
    }
    let rate = |f: &Figures| f.rate();
    target(
        "stdio pipelined req/s",
        rate(ours),
        best(&anchors, rate, false),
        ">= 3x",
        |r| r >= 3.0,
    );
    let cpu = |f: &Figures| f.cpu_per_call().as_secs_f64() * 1e6;
    target(
        "stdio CPU µs per call",
        cpu(ours),
        best(&anchors, cpu, true),
        "<= 0.3x",
        |r| r <= 0.3,
    );
    let rss = |f: &Figures| f.loaded_rss() / 1024.0;
    target(
        "stdio RSS after pipelined MiB",
        rss(ours),
        best(&anchors, rss, true),
        "<= 0.25x",
        |r| r <= 0.25,
    );
    for (&connections, http) in plan.connections.iter().zip(http) {
        target(
            &format!("HTTP requests/s, {connections} connections"),
            rate(&http[0]),
            rate(&http[1]),
            ">= 2x",
            |r| r >= 2.0,
        );
    }
}

/// The protected rows: per connection count, the calculator without
/// protection beside it with bearer tokens, then the target that decides
/// them (a cached token costs at most 10% of the requests per second).
pub fn print_auth(plan: &Plan, names: &[&str], auth: &[Vec<Figures>]) {
    for (&connections, figures) in plan.connections.iter().zip(auth) {
        println!(
            "\n### Streamable HTTP with bearer tokens ({connections} connections, {:.0} s window a round)\n",
            plan.http_window.as_secs_f64()
        );
        header("", names);
        row(
            "req/s (lowest–highest round)",
            figures.iter().map(Figures::rate_spread),
        );
        row(
            "median (ms)",
            figures.iter().map(|f| millis(f.latency(0.5))),
        );
        row("p99 (ms)", figures.iter().map(|f| millis(f.latency(0.99))));
        row(
            "server CPU per call (µs)",
            figures.iter().map(|f| micros(f.cpu_per_call())),
        );
    }
    println!("\n### targets (bearer tokens)\n");
    header("figure", &["ours", "anchor", "ratio", "target", ""]);
    for (&connections, figures) in plan.connections.iter().zip(auth) {
        let (Some(plain), Some(cached)) = (figures.first(), figures.get(1)) else {
            continue;
        };
        target(
            &format!("HTTP req/s, cached token vs no auth, {connections} connections"),
            cached.rate(),
            plain.rate(),
            ">= 0.9x",
            |r| r >= 0.9,
        );
    }
}

/// The figures of ours (`[0]`) and its baseline (`[1]`), with their ratio.
pub fn print_before_after(plan: &Plan, stdio: &[Figures], http: &[Vec<Figures>]) {
    let ratio = |now: f64, before: f64| format!("{:.2}", now / before);
    println!(
        "\n### tools/call, after and before ({} rounds)\n",
        plan.rounds
    );
    println!("| | after | before | after / before |");
    println!("| --- | --- | --- | --- |");
    let line = |name: &str, after: f64, before: f64, unit: &str| {
        println!(
            "| {name} ({unit}) | {after:.1} | {before:.1} | {} |",
            ratio(after, before)
        );
    };
    let us = |d: std::time::Duration| d.as_secs_f64() * 1e6;
    line(
        "stdio sequential median",
        us(stdio[0].latency(0.5)),
        us(stdio[1].latency(0.5)),
        "µs",
    );
    line(
        "stdio sequential p99",
        us(stdio[0].latency(0.99)),
        us(stdio[1].latency(0.99)),
        "µs",
    );
    line("stdio pipelined", stdio[0].rate(), stdio[1].rate(), "req/s");
    line(
        "stdio server CPU per call",
        us(stdio[0].cpu_per_call()),
        us(stdio[1].cpu_per_call()),
        "µs",
    );
    for (figures, connections) in http.iter().zip(plan.connections) {
        line(
            &format!("HTTP {connections} connections"),
            figures[0].rate(),
            figures[1].rate(),
            "req/s",
        );
        line(
            &format!("HTTP {connections} connections, median"),
            us(figures[0].latency(0.5)),
            us(figures[1].latency(0.5)),
            "µs",
        );
        line(
            &format!("HTTP {connections} connections, server CPU per call"),
            us(figures[0].cpu_per_call()),
            us(figures[1].cpu_per_call()),
            "µs",
        );
    }
}
