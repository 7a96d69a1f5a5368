#!/usr/bin/env python3
"""The cost of adoption, in one run: cold release build time and binary
size of the calculator as a crate of its own, beside the same calculator
on rmcp 3.11 with its Streamable HTTP server feature; then open-loop HTTP
latency at fixed offered rates of those two binaries and of a bare axum
endpoint (bench/open-loop).

usage: python3 bench/adoption_bench.py [--builds-only] [OPEN_LOOP ARGS...]
       (e.g. --rates 5000,20000,50000 --seconds 5; the defaults)

Three crates are written into target/server-bench/build/<name>/, each its
own workspace with its own target directory, which is deleted before its
build so that every build is cold (the registry's downloads are already
on disk for all three):

- ours-default: mcp-server/examples/served_calculator.rs on mcp-server with its
  default features (http, legacy, tasks; see mcp-server/Cargo.toml);
- ours-stdio: the same source on mcp-server with no features, the
  smallest set that still serves stdio;
- rmcp: the rmcp calculator of bench/server_bench.py (rmcp =3.11.0 with
  `server`, `macros`, `transport-io`, `transport-streamable-http-server`).

Ours reuse the workspace's Cargo.lock; rmcp's crate resolves its own. Each
figure is wall time and CPU time (user + system of cargo and everything
it ran) of `cargo build --release`, and the size of the binary as built
(default release profile, not stripped).
"""
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import server_bench  # noqa: E402

ROOT = server_bench.ROOT
OUT = server_bench.OUT / "build"
CALCULATOR = (ROOT / "mcp-server" / "examples" / "served_calculator.rs").read_text()

OURS_FEATURES = """\
[features]
default = {default}
http = ["mcp-server/http"]
auth = ["mcp-server/auth"]
"""


def ours(default_features: bool) -> tuple[str, str, str]:
    flag = "" if default_features else ", default-features = false"
    deps = (f'mcp-server = {{ package = "mcp-toolkit-server", path = "{ROOT / "mcp-server"}"{flag} }}\n'
            'tokio = { version = "1", features = ["rt-multi-thread", "macros", "signal"] }\n')
    features = OURS_FEATURES.format(default='["http"]' if default_features else "[]")
    return deps, features, CALCULATOR


CRATES = {
    "ours-default": ("calculator",) + ours(True),
    "ours-stdio": ("calculator",) + ours(False),
    "rmcp": ("rmcp-calculator", server_bench.RMCP_DEPS, "", server_bench.RMCP_MAIN),
}


def write(name: str) -> pathlib.Path:
    package, deps, features, source = CRATES[name]
    path = OUT / name
    (path / "src").mkdir(parents=True, exist_ok=True)
    manifest = (f'[package]\nname = "{package}"\nversion = "0.0.0"\nedition = "2021"\n'
                f"publish = false\n\n[dependencies]\n{deps}\n{features}\n[workspace]\n")
    (path / "Cargo.toml").write_text(manifest)
    (path / "src" / "main.rs").write_text(source)
    if name.startswith("ours"):
        shutil.copy2(ROOT / "Cargo.lock", path / "Cargo.lock")
    return path


def cold_build(name: str) -> tuple[float, float, int]:
    path = write(name)
    shutil.rmtree(path / "target", ignore_errors=True)
    env = dict(os.environ, CARGO_TARGET_DIR=str(path / "target"), CARGO_INCREMENTAL="0")
    # Resolve and fetch first, outside the timing.
    subprocess.run(["cargo", "fetch", "--quiet"], cwd=path, env=env, check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=path, env=env, check=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    size = (path / "target" / "release" / CRATES[name][0]).stat().st_size
    return wall, cpu, size


def main() -> None:
    args = sys.argv[1:]
    builds_only = "--builds-only" in args
    args = [a for a in args if a != "--builds-only"]
    load = os.getloadavg()[0]
    figures = {}
    for name in ["ours-default", "rmcp", "ours-stdio"]:
        print(f"==> cold release build of {name}", file=sys.stderr, flush=True)
        figures[name] = cold_build(name)
    rmcp_wall, rmcp_cpu, rmcp_size = figures["rmcp"]
    print("| calculator | cold build, wall | cold build, CPU | binary size |")
    print("| --- | --- | --- | --- |")
    for name, (wall, cpu, size) in figures.items():
        print(f"| {name} | {wall:.0f} s ({wall / rmcp_wall:.2f}x) | {cpu:.0f} s ({cpu / rmcp_cpu:.2f}x)"
              f" | {size / 2**20:.1f} MiB ({size / rmcp_size:.2f}x) |")
    print(f"\nrustc: {subprocess.run(['rustc', '--version'], capture_output=True, text=True).stdout.strip()}"
          f", {os.cpu_count()} cores, load average before the run {load:.1f}", flush=True)
    if builds_only:
        return
    server_bench.cargo(ROOT, "build", "--release", "--quiet", "-p", "mcp-bench-open-loop")
    release = lambda name: OUT / name / "target" / "release" / CRATES[name][0]  # noqa: E731
    print(flush=True)
    subprocess.run([str(ROOT / "target" / "release" / "open_loop"),
                    "--server", f"ours={release('ours-default')}",
                    "--server", f"rmcp={release('rmcp')}", "--bare", *args], check=True)


if __name__ == "__main__":
    main()
