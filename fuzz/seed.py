"""Seeds the fuzz corpora from the spec's examples: every example for the
decoders, the requests among them (with and without the HTTP headers an
honest client would send) for the request checks and the server, and the
URI templates for the template matcher.

usage: python3 seed.py EXAMPLES_DIR CORPUS_DIR

The spec files are copied at run time and never committed.
"""
import hashlib
import json
import pathlib
import sys

examples, corpus = (pathlib.Path(p) for p in sys.argv[1:3])


def write(target, data):
    folder = corpus / target
    folder.mkdir(parents=True, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    (folder / name).write_bytes(data)


def headers(message):
    meta = message.get("params", {}).get("_meta", {})
    lines = [
        "MCP-Protocol-Version: " + str(meta.get("io.modelcontextprotocol/protocolVersion", "2026-07-28")),
        "Mcp-Method: " + message["method"],
    ]
    params = message.get("params", {})
    name = params.get("uri") if message["method"] == "resources/read" else params.get("name")
    if isinstance(name, str):
        lines.append("Mcp-Name: " + name)
    return ("\n".join(lines) + "\n\n").encode()


def templates(value):
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "uriTemplate" and isinstance(inner, str):
                yield inner
            else:
                yield from templates(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from templates(inner)


count = 0
for path in sorted(examples.rglob("*.json")):
    raw = path.read_bytes()
    value = json.loads(raw)
    compact = json.dumps(value, separators=(",", ":")).encode()
    write("message", raw)
    write("typed", compact)
    if isinstance(value, dict) and isinstance(value.get("method"), str) and "id" in value:
        write("meta_headers", headers(value) + compact)
        write("server", compact)
        write("quick_call", compact)
        write("server", headers(value) + compact)
    for template in templates(value):
        write("uri_template", (template + "\n\nid=1\n").encode())
    count += 1
# A poll of the tasks extension, whose requests have no example in the
# core schema: the quick reader takes `tasks/get` too.
write("quick_call", b'{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"task_x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}')
for template in ["file:///{+path}", "test://template/{id}/data", "db://{table}{?limit,offset}", "x://{/a,b}{#frag}"]:
    write("uri_template", (template + "\n\n").encode())
print(f"seeded the corpora from {count} spec examples")
