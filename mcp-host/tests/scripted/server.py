"""A scripted MCP server for the host's tests, speaking stdio.

The first argument picks how it behaves:

  silent      never answers server/discover; speaks the legacy era.
  not-found   answers server/discover with -32601; speaks the legacy era.
  versions    modern, but refuses every version except 2026-07-28 with -32022.
  crash       modern; the first `tools/call` of `flaky` kills the process
              (a marker file in $MARKER_DIR remembers it happened).
  stubborn    modern; ignores end of input and SIGTERM.

In the modern modes, `tools/call` of `slow` is never answered; a
`notifications/cancelled` for it leaves a file `cancelled-<id>` in
$MARKER_DIR.
"""

import json
import os
import signal
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "silent"
META_VERSION = "io.modelcontextprotocol/protocolVersion"

TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": True}},
    {"name": "flaky", "inputSchema": {"type": "object"}},
    {"name": "slow", "inputSchema": {"type": "object"}},
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(id_, value):
    send({"jsonrpc": "2.0", "id": id_, "result": value})


def error(id_, code, message, data=None):
    body = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    send({"jsonrpc": "2.0", "id": id_, "error": body})


def legacy(message):
    method, id_ = message.get("method"), message.get("id")
    if id_ is None:
        return
    if method == "server/discover":
        if MODE == "not-found":
            error(id_, -32601, "Method not found")
        return  # silent: no answer at all
    if method == "initialize":
        result(id_, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                     "serverInfo": {"name": "scripted-" + MODE, "version": "1"}})
    elif method == "tools/list":
        result(id_, {"tools": TOOLS})
    elif method == "tools/call":
        result(id_, {"content": [{"type": "text", "text": "legacy " + MODE}]})
    else:
        error(id_, -32601, "Method not found")


def modern(message):
    method, id_ = message.get("method"), message.get("id")
    if method == "notifications/cancelled":
        cancelled = message.get("params", {}).get("requestId")
        marker = os.path.join(os.environ.get("MARKER_DIR", "."), "cancelled-%s" % cancelled)
        open(marker, "w").close()
        return
    if id_ is None:
        return
    version = message.get("params", {}).get("_meta", {}).get(META_VERSION)
    if version != "2026-07-28":
        error(id_, -32022, "Unsupported protocol version",
              {"supported": ["2026-07-28"], "requested": version})
        return
    if method == "server/discover":
        result(id_, {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                     "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public",
                     "_meta": {"io.modelcontextprotocol/serverInfo":
                               {"name": "scripted-" + MODE, "version": "1"}}})
    elif method == "tools/list":
        result(id_, {"resultType": "complete", "tools": TOOLS, "ttlMs": 0,
                     "cacheScope": "public"})
    elif method == "tools/call":
        name = message["params"]["name"]
        if name == "slow":
            return  # never answered
        marker = os.path.join(os.environ.get("MARKER_DIR", "."), "crashed")
        if MODE == "crash" and name == "flaky" and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(3)
        result(id_, {"resultType": "complete",
                     "content": [{"type": "text", "text": name + " done"}]})
    else:
        error(id_, -32601, "Method not found")


def main():
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    handle = legacy if MODE in ("silent", "not-found") else modern
    for line in sys.stdin:
        line = line.strip()
        if line:
            handle(json.loads(line))
    if MODE == "stubborn":
        while True:
            signal.pause()


main()
