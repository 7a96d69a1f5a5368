#!/usr/bin/env python3
"""Build-time cost of the tool macros: a crate with 50 tools written with
mcp-server's #[tools]/#[tool], beside the same 50 tools written for rmcp
3.11's #[tool_router], built in the same run on the same machine.

usage: python3 bench/macro_build.py [RUNS]   (default 3; prints medians)

Each crate lives in its own workspace under target/macro-bench/ with its own
target directory. Dependencies are built once first; then each measurement
is either a clean build of the crate alone (`cargo clean -p` first) or an
incremental rebuild after one tool body changes.
"""
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "target" / "macro-bench"
TOOLS = 50


def ours() -> str:
    methods = []
    for i in range(TOOLS):
        methods.append(f'''
    /// Adds `a` and `b`, plus {i}.
    #[tool]
    async fn add_{i}(
        &self,
        /// The first number.
        a: i64,
        /// The second number.
        b: i64,
    ) -> String {{
        (a + b + {i}).to_string()
    }}''')
    return ("use mcp_server::{tool, tools};\n\npub struct Calc;\n\n#[tools]\nimpl Calc {"
            + "".join(methods) + "\n}\n")


def theirs() -> str:
    structs, methods = [], []
    for i in range(TOOLS):
        structs.append(f'''
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Add{i} {{
    /// The first number.
    pub a: i64,
    /// The second number.
    pub b: i64,
}}''')
        methods.append(f'''
    #[tool(description = "Adds `a` and `b`, plus {i}.")]
    async fn add_{i}(&self, Parameters(args): Parameters<Add{i}>) -> String {{
        (args.a + args.b + {i}).to_string()
    }}''')
    return ("use rmcp::handler::server::wrapper::Parameters;\nuse rmcp::{tool, tool_router};\n"
            + "".join(structs) + "\n\n#[derive(Clone)]\npub struct Calc;\n\n#[tool_router(server_handler)]\nimpl Calc {"
            + "".join(methods) + "\n}\n")


CRATES = {
    "ours": ("bench-tools-ours", f'mcp-server = {{ package = "mcp-toolkit-server", path = "{ROOT / "mcp-server"}" }}\n', ours),
    "rmcp": ("bench-tools-rmcp",
             'rmcp = { version = "=3.11.0", features = ["server", "macros"] }\n'
             'serde = { version = "1", features = ["derive"] }\nschemars = "1"\n', theirs),
}


def write(name: str) -> pathlib.Path:
    package, deps, source = CRATES[name]
    path = OUT / name
    (path / "src").mkdir(parents=True, exist_ok=True)
    (path / "Cargo.toml").write_text(
        f'[package]\nname = "{package}"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
        f"[dependencies]\n{deps}\n[workspace]\n")
    (path / "src" / "lib.rs").write_text(source())
    return path


def cargo(path: pathlib.Path, *args: str) -> float:
    start = time.monotonic()
    subprocess.run(["cargo", *args], cwd=path, check=True, capture_output=True)
    return time.monotonic() - start


def measure(runs: int) -> dict[str, tuple[float, float]]:
    """Clean and incremental build times of both crates. The crates take
    turns within each run, so a load that comes and goes on the machine
    falls on both alike."""
    paths = {name: write(name) for name in CRATES}
    for path in paths.values():
        cargo(path, "build")  # dependencies, once
    times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in CRATES}
    for run in range(runs):
        for name, path in paths.items():
            package, _, source_of = CRATES[name]
            lib = path / "src" / "lib.rs"
            source = source_of()
            lib.write_text(source)
            cargo(path, "clean", "-p", package)
            times[name][0].append(cargo(path, "build"))
            lib.write_text(source.replace("+ 0).to_string()", f"+ 0 + {run + 1} - {run + 1}).to_string()", 1))
            times[name][1].append(cargo(path, "build"))
            lib.write_text(source)
    return {name: (statistics.median(c), statistics.median(i)) for name, (c, i) in times.items()}


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    results = measure(runs)
    print(f"50 tools, dev profile, median of {runs} runs")
    print(f"{'crate':<28}{'clean (s)':>12}{'incremental (s)':>18}")
    labels = {"ours": "mcp-server #[tools]", "rmcp": "rmcp 3.11 #[tool_router]"}
    for name, (clean, inc) in results.items():
        print(f"{labels[name]:<28}{clean:>12.2f}{inc:>18.2f}")
    (oc, oi), (rc, ri) = results["ours"], results["rmcp"]
    print(f"{'ratio ours / rmcp':<28}{oc / rc:>11.2f}x{oi / ri:>17.2f}x")


if __name__ == "__main__":
    main()
