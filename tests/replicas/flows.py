"""Drives MRTR flows through a load balancer in front of replicas of the
`everything` example, as a 2026-07-28 client over Streamable HTTP, and checks
which replica served each round (the balancer names it in the
`X-Mcp-Replica` response header).

usage: flows.py URL FLOWS complete|refused

complete: every flow must finish, and every retry must reach a replica other
    than the one that sealed the requestState it carries.
refused:  the replicas hold different keys, so every retry that reaches
    another replica must be refused with -32602 "requestState refused".

Prints one line per failing flow and, last, `flows: passed N failed M`;
exits non-zero if any failed.
"""

import json
import sys
import urllib.error
import urllib.request

VERSION = "2026-07-28"
CAPABILITIES = {"elicitation": {}, "sampling": {}, "roots": {}}
TIMEOUT_S = 10
# Straight to the balancer on loopback, whatever proxy the environment names.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Replicas:
    """Sends requests and remembers which replica answered each."""

    def __init__(self, url, capabilities=CAPABILITIES):
        self.url = url
        self.capabilities = capabilities
        self.next_id = 1
        self.seen = set()

    def send(self, method, name, params):
        """One request with its routing headers (`Mcp-Name: name`); returns
        (replica, JSON-RPC message)."""
        params = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": VERSION,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
                "io.modelcontextprotocol/clientInfo": {"name": "replicas-test", "version": "0"},
            },
        }
        request_id = self.next_id
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        request = urllib.request.Request(
            self.url,
            data=json.dumps(body).encode(),
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": VERSION,
                "Mcp-Method": method,
                "Mcp-Name": name,
            },
        )
        try:
            response = OPENER.open(request, timeout=TIMEOUT_S)
        except urllib.error.HTTPError as error:
            # Protocol errors come back with a 4xx status and a JSON-RPC body.
            response = error
        # When the balancer had to try another replica it lists them all;
        # the last one answered.
        replica = response.headers.get("X-Mcp-Replica", "?").split(",")[-1].strip()
        self.seen.add(replica)
        return replica, reply(response, request_id)

    def call_tool(self, name, extra):
        """One `tools/call` round; returns (replica, JSON-RPC message)."""
        return self.send("tools/call", name, {"name": name, "arguments": {}, **extra})


def reply(response, request_id):
    """The JSON-RPC response to `request_id`, from a JSON or an SSE body."""
    text = response.read().decode()
    if response.headers.get("Content-Type", "").startswith("text/event-stream"):
        messages = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]
    else:
        messages = [json.loads(text)]
    for message in messages:
        if message.get("id") == request_id and "method" not in message:
            return message
    raise ValueError(f"no response to request {request_id} in {text!r}")


# Each flow: the tool, then for each round the answers to send with the retry
# and the key of the input request they answer; the last entry is the text
# the tool finally returns.
FLOWS = {
    "test_input_required_result_multi_round": (
        [("step1", {"name": "Ada"}), ("step2", {"color": "blue"})],
        'Favorite color: "blue"',
    ),
    "test_input_required_result_request_state": (
        [("confirm", {"ok": True})],
        'state-ok: "accept"',
    ),
}


def run_flow(replicas, tool):
    """Runs one flow; returns (rounds as (replica, outcome) pairs, problem or None)."""
    answers, final_text = FLOWS[tool]
    rounds = []
    extra = {}
    for key, content in answers + [(None, None)]:
        replica, message = replicas.call_tool(tool, extra)
        result = message.get("result")
        if result is None:
            rounds.append((replica, f"error {message['error']['code']}: {message['error']['message']}"))
            return rounds, message["error"]
        rounds.append((replica, result.get("resultType", "complete")))
        if key is None:
            got = " ".join(block.get("text", "") for block in result.get("content", []))
            return rounds, None if got == final_text else f"final text {got!r}"
        if result.get("resultType") != "input_required" or key not in result.get("inputRequests", {}):
            return rounds, f"expected an input request {key!r}, got {result}"
        if "requestState" not in result:
            return rounds, "no requestState to carry"
        # A fresh request each round: this round's answer and state only.
        extra = {
            "inputResponses": {key: {"action": "accept", "content": content}},
            "requestState": result["requestState"],
        }
    return rounds, "unreachable"


def check(mode, rounds, problem):
    """Why the flow does not meet `mode`, or None."""
    replicas = [replica for replica, _ in rounds]
    if mode == "complete":
        if problem is not None:
            return str(problem)
        if any(a == b for a, b in zip(replicas, replicas[1:])):
            return "a retry reached the replica that sealed its state"
        return None
    if not isinstance(problem, dict):
        return f"expected the retry to be refused, got {problem or 'success'}"
    if problem.get("code") != -32602 or not problem.get("message", "").startswith("requestState refused"):
        return f"refused for another reason: {problem}"
    if len(replicas) != 2 or replicas[0] == replicas[1]:
        return "the refused retry did not reach another replica"
    return None


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("complete", "refused"):
        sys.exit(__doc__)
    url, count, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    replicas = Replicas(url)
    tools = sorted(FLOWS)
    passed = failed = 0
    for n in range(count):
        tool = tools[n % len(tools)]
        try:
            rounds, problem = run_flow(replicas, tool)
        except Exception as error:  # a transport failure fails the flow, not the run
            rounds, problem = [], f"{type(error).__name__}: {error}"
        why = check(mode, rounds, problem)
        if why is None:
            passed += 1
        else:
            failed += 1
            print(f"flow {n} ({tool}) {why}; rounds: {rounds}")
    if mode == "complete" and len(replicas.seen) != 3:
        failed += 1
        print(f"expected 3 replicas to serve, saw {sorted(replicas.seen)}")
    print(f"flows: passed {passed} failed {failed}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
