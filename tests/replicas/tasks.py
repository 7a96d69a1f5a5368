"""Drives tasks-extension flows (io.modelcontextprotocol/tasks) through a load
balancer in front of replicas of the `everything` example that keep their
tasks in one Redis, and checks which replica served each request (the
balancer names it in the `X-Mcp-Replica` response header).

usage: REDIS_PID=PID tasks.py URL FLOWS LEASE_MS ADDR=PID ADDR=PID ...

URL       the balancer's endpoint
FLOWS     how many task flows to run, one after another, mixing every kind
          below
LEASE_MS  the replicas' task lease (MCP_TASK_LEASE_MS)
ADDR=PID  each replica's address as the balancer names it, and its pid

Flows: slow_compute that completes; confirm_delete and multi_input that ask
for input, answered by tasks/update; failing_job (completed, isError);
protocol_error_job (failed); slow_compute cancelled by tasks/cancel. Each
must end exactly as the tool says, and is served by at least two replicas:
the task made on one replica is read, answered and cancelled through others.

Then the handle phase: memos kept with `remember` (a handle in the shared
store) and read back with `recall` through the balancer; each counts as a
flow once a replica other than the one that minted the handle has resolved
it to the same text.

Then the subscriber phase: a task followed on a `subscriptions/listen`
stream that a replica other than its creator serves, which must hear its
state when it opens and then its completion; and a stream opened after
the end, which must hear the terminal state first. It counts as a flow.

Then the pause phase: Redis (REDIS_PID) stopped with SIGSTOP for three
leases under three running tasks, every replica alive and asked nothing
meanwhile, then continued: each task must complete as its tool says, none
failed for a lapsed lease. Each counts as a flow.

Then the kill phase: six long tasks and three waiting for input, one
replica that made some of them (an input one among them) killed. A waiting
task of the dead replica is answered through the survivors, which take the
answer; every task of the dead replica must then fail with the lapse error,
no sooner than two thirds of a lease after the kill (the last renewal came
at most a third of a lease before it), while the others keep working, or
waiting, until cancelled. Each of the nine counts as a flow.

Prints one line per failing flow, a summary of where the requests went and,
last, `flows: passed N failed M`; exits non-zero if any failed.
"""

import json
import math
import os
import signal
from datetime import datetime
import sys
import time
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ left beside the tests
from flows import OPENER, TIMEOUT_S, VERSION, Replicas  # noqa: E402

TASKS = "io.modelcontextprotocol/tasks"
CAPABILITIES = {"elicitation": {}, "extensions": {TASKS: {}}}
STATUSES = {"working", "input_required", "completed", "failed", "cancelled"}
# How long one flow may take, from its tools/call to its last answer.
FLOW_DEADLINE_S = 30
# How long after the kill the dead replica's tasks may still be `working`.
KILL_DEADLINE_S = 15
KILL_TASKS = 6
KILL_INPUT_TASKS = 3
# What a task whose replica died ends with.
LAPSE = {"code": -32603, "message": "the server running the task stopped before it finished"}
# A confirm_delete answer, as tasks/update carries it.
CONFIRMED = {"confirm": {"action": "accept", "content": {"confirm": True}}}
# How long a task of the running replicas may be in while it waits.
WAITING = {"working", "input_required"}


class Failure(Exception):
    """A flow went wrong; the message says how."""


def expect(condition, problem):
    if not condition:
        raise Failure(problem)


class Flow:
    """One task: its requests, each with the replica that answered it."""

    def __init__(self, replicas, label):
        self.replicas = replicas
        self.label = label
        self.rounds = []  # (method, replica, status or ack)
        self.task_id = None
        self.creator = None
        self.poll_s = 0.5
        self.deadline = time.monotonic() + FLOW_DEADLINE_S

    def send(self, method, name, params):
        replica, message = self.replicas.send(method, name, params)
        if "result" not in message:
            self.rounds.append((method, replica, "error"))
            raise Failure(f"{method} on {replica} answered {message.get('error', message)}")
        result = message["result"]
        self.rounds.append((method, replica, result.get("status", result.get("resultType"))))
        return replica, result

    def served_by(self):
        return {replica for _, replica, _ in self.rounds}

    def create(self, tool, arguments):
        """`tools/call`, which must answer with a working task."""
        replica, task = self.send("tools/call", tool, {"name": tool, "arguments": arguments})
        expect(
            task.get("resultType") == "task" and task.get("status") == "working"
            and isinstance(task.get("taskId"), str),
            f"tools/call {tool} answered {task}, not a working task",
        )
        self.task_id, self.creator = task["taskId"], replica
        self.honour(task)

    def honour(self, task):
        interval = task.get("pollIntervalMs")
        if isinstance(interval, int) and interval > 0:
            self.poll_s = interval / 1000

    def get(self):
        """One `tasks/get`; returns the task after checking its shape."""
        replica, task = self.send("tasks/get", self.task_id, {"taskId": self.task_id})
        where = f"tasks/get on {replica}"
        expect(task.get("resultType") == "complete", f"{where}: resultType {task.get('resultType')!r}")
        expect(task.get("taskId") == self.task_id, f"{where} answered task {task.get('taskId')!r}")
        expect(task.get("status") in STATUSES, f"{where}: status {task.get('status')!r}")
        self.honour(task)
        return task

    def ack(self, method, params):
        replica, result = self.send(method, self.task_id, {"taskId": self.task_id, **params})
        expect(result.get("resultType") == "complete", f"{method} on {replica} answered {result}")

    def update(self, responses):
        self.ack("tasks/update", {"inputResponses": responses})

    def cancel(self):
        self.ack("tasks/cancel", {})

    def poll(self, passing, answer=None):
        """Polls every pollIntervalMs while the status is in `passing`,
        answering input requests with `answer` (a function from the fresh
        requests to the list of `inputResponses` to send, one update each);
        returns the first task in another status."""
        answered = set()
        while True:
            last = self.rounds[-1][2]
            expect(time.monotonic() < self.deadline, f"still {last} after {FLOW_DEADLINE_S} s")
            time.sleep(self.poll_s)
            task = self.get()
            if task["status"] == "input_required" and answer is not None:
                requests = task.get("inputRequests")
                expect(isinstance(requests, dict) and requests, f"input_required, no inputRequests: {task}")
                fresh = {key: request for key, request in requests.items() if key not in answered}
                for responses in answer(fresh):
                    self.update(responses)
                    answered.update(responses)
            elif task["status"] not in passing:
                return task

    def settled(self, task):
        """Reads a settled task once more, through the next replica: it must
        say the same."""
        again = self.get()
        for field in ("status", "result", "error"):
            now, then = again.get(field), task.get(field)
            expect(now == then, f"read again, {field} is {now!r}, was {then!r}")


def accept(request, field, value):
    """The answer to an elicitation asking for `field`."""
    expect(request.get("method") == "elicitation/create", f"input request {request} is not an elicitation")
    properties = request.get("params", {}).get("requestedSchema", {}).get("properties", {})
    expect(field in properties, f"the elicitation {request} asks for no `{field}`")
    return {"action": "accept", "content": {field: value}}


def answers(fields, one_at_a_time):
    """An `answer` for Flow.poll: each key's field and value, all fresh
    keys in one update or one key per poll."""

    def answer(fresh):
        unknown = set(fresh) - set(fields)
        expect(not unknown, f"unexpected input requests {sorted(unknown)}")
        responses = {key: accept(request, *fields[key]) for key, request in sorted(fresh.items())}
        if one_at_a_time:
            responses = dict(list(responses.items())[:1])
        return [responses] if responses else []

    return answer


def completed(task, text, is_error):
    expect(task["status"] == "completed", f"ended {task['status']}: {task}")
    result = task.get("result")
    expect(isinstance(result, dict), f"completed without a result: {task}")
    content, flag = result.get("content"), result.get("isError", False)
    expect(content == [{"type": "text", "text": text}], f"result content {content!r}, expected {text!r}")
    expect(flag is is_error, f"result isError {flag!r}, expected {is_error}")
    return task


def slow_compute(flow, n):
    label = f"flow {n}"
    flow.create("slow_compute", {"seconds": 1, "label": label})
    return completed(flow.poll({"working"}), f"computed `{label}` in 1 s", False)


def confirm_delete(flow, n):
    filename = f"report-{n}.txt"
    flow.create("confirm_delete", {"filename": filename})
    task = flow.poll({"working"}, answers({"confirm": ("confirm", True)}, False))
    return completed(task, f"deleted {filename}", False)


def multi_input(flow, n):
    """Both answers in one update, or (every other such flow) one per poll,
    the task staying input_required until the second arrives."""
    flow.create("multi_input", {})
    fields = {"first": ("name", "Ada"), "second": ("confirm", True)}
    task = flow.poll({"working"}, answers(fields, n // len(KINDS) % 2 == 1))
    return completed(task, 'first: "accept", second: "accept"', False)


def failing_job(flow, _n):
    flow.create("failing_job", {})
    return completed(flow.poll({"working"}), "the job failed", True)


def protocol_error_job(flow, _n):
    flow.create("protocol_error_job", {})
    task = flow.poll({"working"})
    expect(task["status"] == "failed", f"ended {task['status']}: {task}")
    error = task.get("error")
    expect(
        error == {"code": -32603, "message": "the job's backend is unreachable"},
        f"error {error!r}, expected -32603 \"the job's backend is unreachable\"",
    )
    return task


def cancelled(flow, n):
    flow.create("slow_compute", {"seconds": 600, "label": f"flow {n}"})
    flow.cancel()
    task = flow.poll({"working"})
    expect(task["status"] == "cancelled", f"ended {task['status']} after tasks/cancel: {task}")
    return task


KINDS = [slow_compute, confirm_delete, multi_input, failing_job, protocol_error_job, cancelled]


def attempt(body):
    """Runs `body`; returns what went wrong, or None."""
    try:
        body()
    except Failure as failure:
        return str(failure)
    except Exception as error:  # a transport failure fails the flow, not the run
        return f"{type(error).__name__}: {error}"
    return None


def verdict(flow, problem):
    """The flow's problem, if any; a flow that one replica served alone
    proves nothing."""
    if problem is None and len(flow.served_by()) < 2:
        return "every request landed on one replica"
    return problem


def flow_phase(replicas, count):
    """Runs `count` flows of every kind in turn; returns (flows, problems)."""
    flows, problems = [], {}
    for n in range(count):
        kind = KINDS[n % len(KINDS)]
        flow = Flow(replicas, f"flow {n} ({kind.__name__})")
        flows.append(flow)
        problems[flow] = verdict(flow, attempt(lambda: flow.settled(kind(flow, n))))
    return flows, problems


HANDLES = 6


def handle_phase(replicas):
    """Mints memo handles and resolves each on another replica; returns
    (flows, problems)."""
    flows, problems = [], {}
    for n in range(HANDLES):
        flow = Flow(replicas, f"handle {n}")
        text = f"memo {n} kept across replicas"

        def body(flow=flow, text=text):
            minted, result = flow.send("tools/call", "remember", {"name": "remember", "arguments": {"text": text}})
            handle = (result.get("structuredContent") or {}).get("handle")
            expect(isinstance(handle, str) and handle.startswith("memo_"), f"remember answered {result}")
            # Round robin moves on at each request: a few tries reach another replica.
            for _ in range(6):
                replica, result = flow.send("tools/call", "recall", {"name": "recall", "arguments": {"handle": handle}})
                got = " ".join(block.get("text", "") for block in result.get("content", []))
                expect(not result.get("isError") and got == text, f"recall on {replica} answered {result}")
                if replica != minted:
                    return
            raise Failure(f"every recall reached {minted}, the replica that minted the handle")

        problems[flow] = attempt(body)
        flows.append(flow)
    return flows, problems


def listen(url, task_id):
    """Opens a `subscriptions/listen` stream following `task_id` through the
    balancer; (the replica serving it, the open response)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "subscriptions/listen",
        "params": {
            "notifications": {"taskIds": [task_id]},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": VERSION,
                "io.modelcontextprotocol/clientCapabilities": CAPABILITIES,
            },
        },
    }
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": "subscriptions/listen",
        },
    )
    response = OPENER.open(request, timeout=TIMEOUT_S)
    replica = response.headers.get("X-Mcp-Replica", "?").split(",")[-1].strip()
    return replica, response


def notices(response):
    """The params of each `notifications/tasks` on an open SSE response."""
    for raw in response:
        line = raw.decode().rstrip("\r\n")
        if line.startswith("data:"):
            message = json.loads(line[5:])
            if message.get("method") == "notifications/tasks":
                yield message["params"]


def subscriber_phase(replicas):
    """A task heard on a stream that another replica serves, then by a
    latecomer; returns (flows, problems)."""
    flow = Flow(replicas, "subscriber")
    text = f"computed `{flow.label}` in 2 s"

    def body():
        flow.create("slow_compute", {"seconds": 2, "label": flow.label})
        # Round robin moves on at each request: a few tries reach a replica
        # other than the one running the handler.
        for _ in range(6):
            replica, response = listen(replicas.url, flow.task_id)
            if replica != flow.creator:
                break
            response.close()
        else:
            raise Failure(f"every listen stream reached {flow.creator}, the task's creator")
        flow.rounds.append(("subscriptions/listen", replica, "open"))
        heard = []
        for notice in notices(response):
            expect(notice.get("taskId") == flow.task_id, f"a notice about another task: {notice}")
            heard.append(notice.get("status"))
            if notice.get("status") != "working":
                completed(notice, text, False)
                break
        response.close()
        expect(heard[:1] == ["working"], f"heard {heard}, not the working state first")
        expect(heard[-1:] == ["completed"], f"heard {heard}, never the completion")
        replica, late = listen(replicas.url, flow.task_id)
        flow.rounds.append(("subscriptions/listen", replica, "open"))
        first = next(notices(late))
        late.close()
        completed(first, text, False)

    return [flow], {flow: verdict(flow, attempt(body))}


def pause_phase(replicas, redis_pid, lease_s):
    """Stops Redis for three leases under running tasks; returns (flows,
    problems)."""
    seconds = math.ceil(4 * lease_s)
    flows = [Flow(replicas, f"pause {i}") for i in range(3)]
    problems = {}
    for flow in flows:
        problems[flow] = attempt(lambda: flow.create("slow_compute", {"seconds": seconds, "label": flow.label}))
    os.kill(redis_pid, signal.SIGSTOP)
    try:
        time.sleep(3 * lease_s)
    finally:
        os.kill(redis_pid, signal.SIGCONT)
    for flow in flows:
        if problems[flow] is None:
            flow.deadline = time.monotonic() + FLOW_DEADLINE_S
            text = f"computed `{flow.label}` in {seconds} s"
            problems[flow] = attempt(lambda: completed(flow.poll({"working"}), text, False))
        problems[flow] = verdict(flow, problems[flow])
    return flows, problems


def kill_phase(replicas, pids, lease_s):
    """Kills a replica under running and waiting tasks; returns (flows,
    problems, summary)."""
    flows = [Flow(replicas, f"kill {i}") for i in range(KILL_TASKS)]
    asking = [Flow(replicas, f"kill input {i}") for i in range(KILL_INPUT_TASKS)]
    problems = {}
    for flow in flows:
        problems[flow] = attempt(lambda: flow.create("slow_compute", {"seconds": 600, "label": flow.label}))
    for flow in asking:

        def body(flow=flow):
            flow.create("confirm_delete", {"filename": f"{flow.label}.txt"})
            task = flow.poll({"working"})
            expect(task["status"] == "input_required", f"ended {task['status']} before it asked: {task}")

        problems[flow] = attempt(body)
    flows += asking
    made = [flow for flow in flows if flow.creator is not None and problems[flow] is None]
    waiting_made = [flow for flow in made if flow in asking]
    if not waiting_made:
        return flows, problems, "no waiting task to kill a replica under"
    victim = waiting_made[0].creator
    if victim not in pids:
        return flows, problems, f"no pid for {victim} among {sorted(pids)}"
    os.kill(pids[victim], signal.SIGKILL)
    killed, killed_wall = time.monotonic(), time.time()
    doomed = {flow for flow in made if flow.creator == victim}
    # The dead replica's questions, answered through the survivors (the
    # balancer skips the dead one): taken, though nobody runs the handler.
    for flow in sorted(doomed & set(asking), key=flows.index):
        problems[flow] = attempt(lambda: flow.update(CONFIRMED))
    waiting = {flow for flow in made if problems[flow] is None}
    failed_after = []
    rounds = 0
    # Every task through the balancer, each poll interval, until the dead
    # replica's tasks have failed and two leases have passed since the
    # kill: the others must be working, or waiting, all along.
    while waiting and (waiting & doomed or time.monotonic() < killed + 2 * lease_s):
        if time.monotonic() > killed + KILL_DEADLINE_S:
            for flow in waiting & doomed:
                problems[flow] = f"still {flow.rounds[-1][2]} {KILL_DEADLINE_S} s after its replica died"
                waiting.discard(flow)
            break
        time.sleep(max(flow.poll_s for flow in made))
        # Round robin over two or three replicas would send each task to
        # the same one every round if the order stayed the same.
        order = sorted(waiting, key=flows.index)
        rounds += 1
        for flow in order[rounds % len(order):] + order[: rounds % len(order)]:
            problems[flow] = attempt(lambda: watch(flow, flow in doomed, killed_wall, lease_s, failed_after))
            if problems[flow] is not None or flow.rounds[-1][2] not in WAITING:
                waiting.discard(flow)
    for flow in sorted(waiting - doomed, key=flows.index):
        problems[flow] = attempt(lambda: cancelled_survivor(flow))
    for flow in flows:
        problems[flow] = verdict(flow, problems[flow])
    summary = (
        f"killed {victim} (pid {pids[victim]}), which had made {len(doomed)} of {len(made)} tasks "
        f"({len(doomed & set(asking))} waiting for input); "
        + (f"they failed {', '.join(failed_after)} after the kill" if failed_after else "none failed")
        + f" (lease {lease_s:g} s)"
    )
    return flows, problems, summary


def watch(flow, doomed, killed, lease_s, failed_after):
    """One poll of a task during the kill phase: still working or waiting,
    or, if its replica was killed (at `killed`, wall clock), failed with the
    lapse error no sooner than its lease allows."""
    task = flow.get()
    if task["status"] in WAITING:
        return
    expect(doomed, f"its replica lives, yet it ended {task['status']}: {task}")
    expect(task["status"] == "failed", f"its replica was killed, and it ended {task['status']}: {task}")
    error = task.get("error")
    expect(error == LAPSE, f"failed with {error!r}, expected {LAPSE!r}")
    # When the task failed, by the server (the same machine's clock): the
    # lease was last renewed at most a third of it before the kill.
    failed = datetime.fromisoformat(task["lastUpdatedAt"]).timestamp()
    after = failed - killed
    expect(after >= 2 * lease_s / 3 - 0.05, f"failed {after:.2f} s after the kill, before its lease ran out")
    failed_after.append(f"{after:.1f} s")


def cancelled_survivor(flow):
    flow.deadline = time.monotonic() + FLOW_DEADLINE_S
    flow.cancel()
    task = flow.poll(WAITING)
    expect(task["status"] == "cancelled", f"ended {task['status']} after tasks/cancel: {task}")


def away_from_creator(flows, method):
    """How many `method` requests reached a replica other than the task's
    creator, out of how many."""
    landed = [replica != flow.creator for flow in flows for m, replica, _ in flow.rounds if m == method]
    return sum(landed), len(landed)


def shorten(rounds):
    """The rounds of a flow for a report: a long poll keeps its ends."""
    if len(rounds) <= 12:
        return str(rounds)
    return f"{rounds[:4]} and {len(rounds) - 10} more, then {rounds[-6:]}"


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    url, count, lease_s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) / 1000
    pids = {}
    for entry in sys.argv[4:]:
        addr, _, pid = entry.partition("=")
        pids[addr] = int(pid)
    replicas = Replicas(url, CAPABILITIES)

    flows, problems = flow_phase(replicas, count)
    spread = {}
    for n, flow in enumerate(flows):
        spread.setdefault(KINDS[n % len(KINDS)].__name__, []).append(str(len(flow.served_by())))
    for kind, counts in spread.items():
        print(f"tasks: {kind}: replicas serving each flow {' '.join(counts)}")
    run_wide = []
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        away, total = away_from_creator(flows, method)
        print(f"tasks: {away} of {total} {method} reached a replica other than the task's creator")
        if away == 0:
            run_wide.append(f"no {method} reached a replica other than the task's creator")
    if len(replicas.seen) != len(pids):
        run_wide.append(f"expected {len(pids)} replicas to serve, saw {sorted(replicas.seen)}")

    handle_flows, handle_problems = handle_phase(replicas)
    resolved = sum(1 for flow in handle_flows if handle_problems[flow] is None)
    print(f"tasks: {resolved} of {len(handle_flows)} handles minted on one replica resolved on another")
    problems.update(handle_problems)

    subscriber_flows, subscriber_problems = subscriber_phase(replicas)
    heard = sum(1 for flow in subscriber_flows if subscriber_problems[flow] is None)
    print(f"tasks: {heard} of {len(subscriber_flows)} tasks heard to their end on another replica's stream")
    problems.update(subscriber_problems)

    redis_pid = int(os.environ["REDIS_PID"])
    pause_flows, pause_problems = pause_phase(replicas, redis_pid, lease_s)
    survived = sum(1 for flow in pause_flows if pause_problems[flow] is None)
    print(f"tasks: {survived} of {len(pause_flows)} tasks completed across Redis stopped for {3 * lease_s:g} s")
    problems.update(pause_problems)

    kill_flows, kill_problems, summary = kill_phase(replicas, pids, lease_s)
    print(f"tasks: {summary}")
    counts = " ".join(str(len(flow.served_by())) for flow in kill_flows)
    print(f"tasks: kill phase: replicas serving each task {counts}")
    problems.update(kill_problems)

    passed = failed = 0
    for flow in flows + handle_flows + subscriber_flows + pause_flows + kill_flows:
        if problems[flow] is None:
            passed += 1
        else:
            failed += 1
            print(f"{flow.label} {problems[flow]}; rounds: {shorten(flow.rounds)}")
    for problem in run_wide:
        failed += 1
        print(problem)
    print(f"flows: passed {passed} failed {failed}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
