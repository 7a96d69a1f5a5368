#!/usr/bin/env bash
# Scale-out check: three `everything` processes behind nginx, balanced round
# robin, complete multi-round (MRTR) flows whose rounds each land on another
# replica. The replicas share nothing but the sealing key (MCP_STATE_KEYS);
# the state of a flow travels in the sealed requestState. Then the same
# flows against replicas holding different keys must be refused.
#
# Last, tasks (io.modelcontextprotocol/tasks): three replicas keeping their
# tasks in one Redis (--redis) run task flows whose tools/call, tasks/get,
# tasks/update and tasks/cancel land on different replicas (tasks.py); then
# one replica is killed under running tasks, which must fail once their
# lease (MCP_TASK_LEASE_MS) has run out while the others keep working.
#
# usage: tests/replicas/run.sh [FLOWS]   (default: 30 MRTR flows, then as many task flows)
# Needs nginx and redis-server (Debian packages `nginx` and `redis-server`;
# .ci/run installs them), python3 and the Rust toolchain. Everything listens
# on 127.0.0.1 and lives in a temp dir.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
flows="${1:-30}"

nginx="$(command -v nginx || echo /usr/sbin/nginx)"
if [ ! -x "$nginx" ]; then
    echo "replicas: nginx not found; install the Debian package nginx" >&2
    exit 1
fi
redis="$(command -v redis-server || echo /usr/bin/redis-server)"
if [ ! -x "$redis" ]; then
    echo "replicas: redis-server not found; install the Debian package redis-server" >&2
    exit 1
fi
lease_ms=1500
# With the workspace's features, as ./test builds it: after the suite,
# a no-op.
(cd "$root" && cargo build --quiet --locked --workspace --example everything)

work="$(mktemp -d)"
# nginx workers run as an unprivileged user when started by root; they
# need to reach the prefix.
chmod 755 "$work"
pids=()
stop() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pids=()
}
trap 'stop; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP PIPE
# A copy: a build of the example with other features, say by a developer
# at the same time, replaces the one in the target directory.
server="$work/everything"
cp "$(cd "$root" && realpath "${CARGO_TARGET_DIR:-target}")/debug/examples/everything" "$server"

# free_ports N: N ports nothing listens on, below the ephemeral range: there
# no outgoing connection (of a test running beside this one, say) takes the
# port between this look and the bind of the process it is for.
free_ports() {
    python3 -c '
import random, socket, sys
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
ports = []
while len(ports) < int(sys.argv[1]):
    port = random.randrange(1024 if low <= 11000 else 10000, low)
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
    if port not in ports:
        ports.append(port)
print(" ".join(map(str, ports)))' "$1"
}

wait_port() {
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "replicas: nothing listens on 127.0.0.1:$1" >&2
    return 1
}

# deploy NAME KEY KEY KEY [ARG...]: three replicas, one key each, every one
# started with the ARGs, behind a fresh nginx; sets $url to the balanced
# endpoint and $replicas to each replica's ADDR=PID.
deploy() {
    local name="$1" ports port i keys prefix="$work/$1"
    keys=("$2" "$3" "$4")
    shift 4
    mkdir -p "$prefix"
    read -r -a ports < <(free_ports 4)
    replicas=()
    for i in 0 1 2; do
        MCP_STATE_KEYS="${keys[$i]}" "$server" --http "127.0.0.1:${ports[$i]}" "$@" 2>"$prefix/replica-$i.log" &
        pids+=($!)
        replicas+=("127.0.0.1:${ports[$i]}=$!")
    done
    cat >"$prefix/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $prefix/nginx.pid;
error_log $prefix/error.log warn;
events { worker_connections 64; }
http {
    log_format replicas '\$remote_addr "\$request" \$status upstream=\$upstream_addr';
    access_log $prefix/access.log replicas;
    client_body_temp_path $prefix/client_body;
    proxy_temp_path $prefix/proxy;
    fastcgi_temp_path $prefix/fastcgi;
    uwsgi_temp_path $prefix/uwsgi;
    scgi_temp_path $prefix/scgi;
    upstream mcp {
        server 127.0.0.1:${ports[0]};
        server 127.0.0.1:${ports[1]};
        server 127.0.0.1:${ports[2]};
    }
    server {
        listen 127.0.0.1:${ports[3]};
        location = /mcp {
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # The replicas check Host against DNS rebinding: pass the
            # client's on rather than the upstream's name.
            proxy_set_header Host \$host;
            # Answers may be SSE streams: forward each event at once.
            proxy_buffering off;
            proxy_read_timeout 60s;
            # A replica that is down refused the connection, so the
            # request never reached it: try the next one, POST included
            # (the tasks deployment kills a replica).
            proxy_next_upstream error timeout non_idempotent;
            # Names the replica that answered, for the test only.
            add_header X-Mcp-Replica \$upstream_addr always;
        }
    }
}
EOF
    "$nginx" -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" &
    pids+=($!)
    for port in "${ports[@]}"; do
        wait_port "$port" || { tail -n 20 "$prefix"/*.log >&2; return 1; }
    done
    url="http://127.0.0.1:${ports[3]}/mcp"
    echo "$name: 3 replicas behind nginx at $url"
}

key() { python3 -c 'import secrets; print(secrets.token_hex(32))'; }

total_passed=0
total_failed=0
# run_flows NAME DRIVER ARG...: runs `DRIVER URL ARG...` against the
# deployment and adds up the flows it counts.
run_flows() {
    local name="$1" driver="$2" out rc=0 passed failed pid
    shift 2
    # The driver's stderr joins its report. A replica that exited meanwhile
    # (tasks.py kills one) is waited for inside the redirection, so that
    # bash's notice of the kill, which is no fault, goes nowhere.
    {
        out="$(python3 "$here/$driver" "$url" "$@" 2>&1)" || rc=$?
        for pid in "${pids[@]}"; do kill -0 "$pid" || wait "$pid" || true; done
    } 2>/dev/null
    read -r passed failed < <(printf '%s\n' "$out" | sed -n '$s/^flows: passed \([0-9]*\) failed \([0-9]*\)$/\1 \2/p')
    if [ -z "${passed:-}" ]; then
        printf '%s\n' "$out"
        echo "$name: $driver printed no counts (exit $rc)"
        passed=0 failed=1
    else
        printf '%s\n' "$out" | sed '$d'
    fi
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
        failed=1
    fi
    echo "$name: $passed of $((passed + failed)) flows as expected ($driver)"
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    if [ "$failed" -ne 0 ]; then
        tail -n 5 "$work/$name"/*.log >&2 || true
    fi
}

shared="1:$(key)"
deploy shared-key "$shared" "$shared" "$shared"
run_flows shared-key flows.py "$flows" complete
stop

# The same flows where each replica made up its own key: every retry that
# reaches another replica carries state it cannot open.
deploy own-keys "1:$(key)" "1:$(key)" "1:$(key)"
run_flows own-keys flows.py 6 refused
stop

# Tasks in one Redis, which keeps nothing on disk; tasks.py stops Redis for
# three leases, then kills one replica.
mkdir -p "$work/tasks"
read -r redis_port < <(free_ports 1)
"$redis" --save '' --appendonly no --daemonize no --bind 127.0.0.1 --port "$redis_port" \
    --dir "$work/tasks" >"$work/tasks/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")
wait_port "$redis_port" || { tail -n 20 "$work/tasks/redis.log" >&2; exit 1; }
shared="1:$(key)"
MCP_TASK_LEASE_MS="$lease_ms" deploy tasks "$shared" "$shared" "$shared" --redis "redis://127.0.0.1:$redis_port/"
# tasks.py stops Redis for a while (SIGSTOP) and continues it.
REDIS_PID="$redis_pid" run_flows tasks tasks.py "$flows" "$lease_ms" "${replicas[@]}"
stop

echo "replicas: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
