#!/usr/bin/env bash
# Fuzzes every target (or those named) for SECONDS each with cargo-fuzz and
# libFuzzer, after seeding the corpora from the spec's examples, and prints
# each target's exec count. A crash fails the run and leaves the input under
# fuzz/artifacts/<target>/.
#
# usage: fuzz/run.sh [SECONDS] [TARGET...]      (default: 20 s, all targets)
#
# cargo-fuzz builds with flags that only nightly compilers accept
# (-Zsanitizer=address and friends). RUSTC_BOOTSTRAP=1 lets the pinned
# stable toolchain accept them; nothing else about the build changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
seconds="${1:-20}"
shift $(($# > 0 ? 1 : 0))
spec="${MCP_SPEC_DIR:-$root/../shared/spec}"
cargo_fuzz_version="0.13.2"

if ! cargo fuzz --version 2>/dev/null | grep -qF "$cargo_fuzz_version"; then
    cargo install cargo-fuzz --version "$cargo_fuzz_version" --locked
fi
export RUSTC_BOOTSTRAP=1
cd "$here"
python3 seed.py "$spec/schema/2026-07-28/examples" corpus

targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    # Listed first into a variable, so that a failing `cargo fuzz list`
    # fails the run instead of leaving nothing to fuzz.
    listed="$(cargo fuzz list)"
    mapfile -t targets <<<"$listed"
fi
if [ "${#targets[@]}" -eq 0 ] || [ -z "${targets[0]}" ]; then
    echo "fuzz: no targets to run" >&2
    exit 1
fi
cargo fuzz build --debug-assertions

status=0
for target in "${targets[@]}"; do
    log="$(mktemp)"
    if cargo fuzz run --debug-assertions "$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 >"$log" 2>&1; then
        runs="$(sed -n 's/^Done \([0-9]*\) runs in .*/\1/p' "$log" | tail -n 1)"
        if [ -z "$runs" ] || [ "$runs" -eq 0 ]; then
            # A target that ran nothing (or said nothing of it) fuzzed
            # nothing: that is a failure, not a pass.
            status=1
            echo "fuzz $target: FAILED: libFuzzer reported no run count (log below)"
            tail -n 60 "$log"
        else
            echo "fuzz $target: $runs execs in ${seconds} s, no failure"
        fi
    else
        status=1
        echo "fuzz $target: FAILED (log below)"
        tail -n 60 "$log"
    fi
    rm -f "$log"
done
ran=$((${#targets[@]}))
echo "fuzz: ${ran} targets run"
exit "$status"
