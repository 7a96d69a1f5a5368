#!/usr/bin/env bash
# Runs the test binaries whose claims depend on timing (deadlines,
# timeouts, retries, leases, reconnects, what a pseudo-terminal shows in
# time) several times while a busy loop keeps every core of the machine
# occupied, and fails on any failure: a test that passes only on an idle
# machine is found here rather than on a busy CI runner. The list is
# below, by crate; a name that no longer matches a test binary fails the
# run, so the list cannot go quietly empty. The end-to-end binaries of the
# tests crate (OAuth, Redis tasks, the TypeScript SDK, load) run once.
#
# usage: tests/loaded.sh [RUNS]   (default 2; the end-to-end binaries run once)
# Builds the test binaries once (a no-op when ./test already built them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-2}"
cd "$root"

# "executable<TAB>crate directory<TAB>runs" of each listed test binary, as
# cargo reports them; cargo runs each binary from its crate's directory,
# and so do we. The
# build is the workspace's, as ./test builds it, so that features unify the
# same way and nothing is built twice. Its messages go to a file first, so
# that a failed build fails the run instead of leaving a short list.
messages="$(mktemp)"
cargo test --workspace --locked --no-run --message-format=json >"$messages"
list="$(mktemp)"
python3 -c '
import json, os, sys
# Test binaries with timing in their claims, by crate directory.
TIMED = {
    "mcp-server": {"connections", "limits", "tasks", "auth", "subscriptions", "transport", "metrics", "handle"},
    "mcp-host": {"reissue", "lazy", "probe", "faults", "tasks", "everything", "resume", "lifecycle", "legacy_sse"},
    "mcp-host-app": {"cli", "terminal", "terminal_commands", "trust", "cli_interop"},
    "mcp-agent": {"provider_http"},
}
END_TO_END = {"oauth_e2e", "tasks_redis", "interop_ts", "load"}
found = set()
for line in open(sys.argv[1]):
    try:
        message = json.loads(line)
    except ValueError:
        continue
    executable = message.get("executable")
    if message.get("reason") != "compiler-artifact" or not executable:
        continue
    if not message.get("profile", {}).get("test"):
        continue
    crate = os.path.dirname(message["manifest_path"])
    name = message.get("target", {}).get("name", "")
    base = os.path.basename(crate)
    timed = name in TIMED.get(base, ())
    end_to_end = base == "tests" and name in END_TO_END
    if not (timed or end_to_end):
        continue
    found.add((base, name))
    print(executable + "\t" + crate + "\t" + ("1" if end_to_end else "all"))
wanted = {(c, n) for c, names in TIMED.items() for n in names} | {("tests", n) for n in END_TO_END}
missing = sorted(wanted - found)
if missing:
    print("loaded: no test binary for " + ", ".join(c + "/" + n for c, n in missing), file=sys.stderr)
    sys.exit(1)
' "$messages" >"$list"
mapfile -t binaries <"$list"
rm -f "$messages" "$list"
if [ "${#binaries[@]}" -eq 0 ]; then
    echo "loaded: no test binaries were built" >&2
    exit 1
fi

hogs=()
stop_hogs() {
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_hogs EXIT
for _ in $(seq 1 "$(nproc)"); do
    (while :; do :; done) &
    hogs+=("$!")
done
echo "loaded: ${#hogs[@]} busy loops (pids ${hogs[*]}), ${#binaries[@]} test binaries, $runs runs"

failed=0
passed=0
log="$(mktemp)"
for run in $(seq 1 "$runs"); do
    for entry in "${binaries[@]}"; do
        IFS=$'\t' read -r binary dir every <<<"$entry"
        # The end-to-end binaries take minutes each: one loaded run.
        if [ "$every" = 1 ] && [ "$run" -gt 1 ]; then
            continue
        fi
        name="$(basename "$binary")"
        if (cd "$dir" && "$binary" -q) >"$log" 2>&1; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL: run $run ${name%-*}"
            grep -E 'FAILED|panicked|test result' "$log" | head -n 20 | sed 's/^/    /'
        fi
    done
done
rm -f "$log"
echo "loaded: $passed binary runs passed, $failed failed"
[ "$failed" -eq 0 ]
