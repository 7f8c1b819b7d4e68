#!/bin/sh
# check_daemon.sh CUZK SOURCE_DIR — how a real daemon behaves under many
# clients and bad ones.
#
# Starts `cuzk daemon` (CPU backend, one worker of two threads, so partitions
# run one at a time, as slowly on a machine of many cores) on a temporary
# Unix socket and a TCP port on 127.0.0.1 with a token, request_timeout_s 2
# and max_body_bytes 256K, serving examples/sample as key
# "sample" and a small bellman circuit (gen-circuit, development setup) as key
# "slow", whose partitions take a few hundred ms. Then checks:
#
# - priorities: while a low job of 40 "slow" partitions runs, jobs of normal,
#   high and critical priority (submitted in that order, all while one of its
#   partitions runs) end critical, high, normal, all before the low job,
#   which ends done; every proof verifies;
# - cancel: a job queued behind the low one is cancelled without touching
#   it; a running job of 300 partitions is cancelled and stops;
# - malformed requests (bad JSON, an unknown key, field or content type,
#   bodies over max_body_bytes) are 4xx with the API's error naming the
#   problem, and the daemon serves on; a witness of the wrong size for the
#   key (another circuit's, a truncated file) is refused at submission (4xx,
#   what the API wants) or else fails its job with a message naming the file,
#   and the test says which;
# - slow clients: connections that send part of a request and stall are
#   closed after request_timeout_s, a request meanwhile is answered at once,
#   and a stalled upload leaves nothing in the spool;
# - 4 clients submitting 20 jobs at once, mixed priorities, uploads and server
#   paths: distinct ids, all done, every proof verifies;
# - `cuzk bench stress` via POST /v1/jobs (submission latency) and via
#   POST /v1/prove;
# - GET /metrics passes tests/service/prom_check.py (a strict parser of the
#   Prometheus text format, itself checked first with its --self-test) and
#   its counts agree with the jobs.
set -u
cuzk=$1 src=$(cd "$2" && pwd) || exit 1
sample=$src/examples/sample
prom_check=$src/tests/service/prom_check.py
if ! command -v python3 >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  echo "check_daemon: skipped: needs python3 and curl"
  exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/beh-daemon.XXXXXX") || exit 1
. "$src/tests/service/lib.sh"

# The Python half: HTTP on the Unix socket, raw connections, JSON.
cat >"$dir/h.py" <<'EOF'
import http.client, json, os, socket, struct, sys, time

class UnixConn(http.client.HTTPConnection):
    def __init__(self, path, timeout=30):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path
    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s

def req(sock, method, target, body=None, ctype="application/json", headers=None):
    c = UnixConn(sock)
    h = dict(headers or {})
    if body is not None:
        h["Content-Type"] = ctype
    c.request(method, target, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data

def job(sock, i):
    st, b = req(sock, "GET", "/v1/jobs/%d" % i)
    if st != 200:
        sys.exit("GET /v1/jobs/%d: %d %s" % (i, st, b[:200]))
    return json.loads(b)

def die(msg):
    print(msg)
    sys.exit(1)

def burst(sock, low, witness, *prios):
    """Waits until job low has just begun a partition, then submits one job
    of witness at each priority, in order; prints their ids. When that
    partition ended before the last submission was answered, the jobs were
    not all queued together while it ran: tries again (3 times in all)."""
    low = int(low)
    for attempt in range(1, 4):
        j = job(sock, low)
        d0 = j["partitions_done"]
        deadline = time.monotonic() + 30
        while True:
            j = job(sock, low)
            if j["state"] not in ("queued", "running"):
                die("job %d %s before a partition of it began" % (low, j["state"]))
            if j["partitions_done"] > d0 and j["partitions_running"] > 0:
                break
            if time.monotonic() > deadline:
                die("job %d: no partition began within 30 s" % low)
            time.sleep(0.001)
        d1 = j["partitions_done"]
        t0 = time.monotonic()
        ids = []
        for p in prios:
            st, b = req(sock, "POST", "/v1/jobs",
                        json.dumps({"key": "sample", "priority": p, "witness_paths": [witness]}))
            if st != 201:
                die("submit %s: %d %s" % (p, st, b[:300]))
            ids.append(json.loads(b)["id"])
        ms = (time.monotonic() - t0) * 1e3
        after = job(sock, low)
        sys.stderr.write("submitted %s (jobs %s) in %.1f ms during partition %d of job %d%s\n"
                         % (", ".join(prios), ", ".join(map(str, ids)), ms, d1, low,
                            "" if after["partitions_done"] == d1 else ": it ended meanwhile"))
        if after["partitions_done"] == d1:
            print(" ".join(str(i) for i in ids))
            return
    die("3 times a partition of job %d ended before the jobs were all submitted" % low)

def order(sock, low, *ids):
    """ids end in the order given (finished_ms, and the engine's timeline:
    each one's partition starts after the one before ended), all before
    job low; prints the times."""
    low = int(low)
    jobs = [job(sock, int(i)) for i in ids]
    lj = job(sock, low)
    st, b = req(sock, "GET", "/v1/timeline")
    ev = json.loads(b)["events"]
    span = {}
    for e in ev:
        s = span.setdefault(e["job"], [e["start_ms"], e["end_ms"]])
        s[0] = min(s[0], e["start_ms"])
        s[1] = max(s[1], e["end_ms"])
    text = "; ".join("job %d %s %s finished_ms %s engine %s" % (
        j["id"], j["priority"], j["state"], j["finished_ms"],
        "%.1f..%.1f" % tuple(span[j["id"]]) if j["id"] in span else "-") for j in jobs)
    text += "; low job %d %s, %d/%d partitions, finished_ms %s" % (
        low, lj["state"], lj["partitions_done"], lj["partitions"], lj["finished_ms"])
    bad = [j for j in jobs if j["state"] != "done" or j["finished_ms"] is None]
    if bad:
        die("not done: " + text)
    for a, b in zip(jobs, jobs[1:]):
        if not a["finished_ms"] < b["finished_ms"]:
            die("job %d ended at or after job %d: %s" % (a["id"], b["id"], text))
        if a["id"] in span and b["id"] in span and not span[a["id"]][1] <= span[b["id"]][0]:
            die("the engine began job %d before job %d ended: %s" % (b["id"], a["id"], text))
    if lj["finished_ms"] is not None and not lj["finished_ms"] > jobs[-1]["finished_ms"]:
        die("the low job ended first: " + text)
    print(text)

def loris(sock, port, token, timeout_s, n, spool):
    """n connections (half on TCP, half on the socket) send part of a request
    (of its request line, its headers, a JSON body, a witness upload) and
    stall; a full request on each listener meanwhile must be answered within
    a second, and every stalled connection closed by the server within
    timeout_s + 3 s. The stalled uploads must be in spool meanwhile."""
    timeout_s = float(timeout_s)
    heads = [b"GET /v1/sta",
             b"GET /v1/status HTTP/1.1\r\nHost: x\r\nAccept: appl",
             b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token.encode() +
             b"\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"key\": \"sam",
             b"G",
             b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token.encode() +
             b"\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: 9000\r\n\r\n"
             b"--XX\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nsample\r\n--XX\r\n"
             b"Content-Disposition: form-data; name=\"witness\"; filename=\"w.wtns\"\r\n\r\n"
             b"wtns" + b"\0" * 2000]
    conns = []
    t0 = time.monotonic()
    for i in range(int(n)):
        if i % 2:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sock)
        else:
            s = socket.create_connection(("127.0.0.1", int(port)))
        s.sendall(heads[i % len(heads)])
        conns.append(s)
    time.sleep(0.5)
    part = [f for f in os.listdir(spool) if f.startswith(".wit-")]
    if not part:
        die("no stalled upload in the spool %s after 0.5 s" % spool)
    print("the stalled uploads are in the spool: %s" % ", ".join(part))
    for via in ("tcp", "unix"):
        t = time.monotonic()
        if via == "tcp":
            c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
            c.request("GET", "/v1/status", headers={"Authorization": "Bearer " + token})
            r = c.getresponse()
            st, body = r.status, r.read()
            c.close()
        else:
            st, body = req(sock, "GET", "/v1/status")
        dt = time.monotonic() - t
        if st != 200 or dt > 1.0:
            die("GET /v1/status over %s while %d connections stall: %d in %.3f s"
                % (via, len(conns), st, dt))
        print("GET /v1/status over %s while %d connections stall: 200 in %.1f ms"
              % (via, len(conns), dt * 1e3))
    closed = []
    for i, s in enumerate(conns):
        got = b""
        while True:
            left = t0 + timeout_s + 3 - time.monotonic()
            if left <= 0:
                die("connection %d (%r) still open after %.1f s" %
                    (i, heads[i % len(heads)][:24], timeout_s + 3))
            s.settimeout(left)
            try:
                d = s.recv(4096)
            except (ConnectionResetError, BrokenPipeError):
                d = b""
            except socket.timeout:
                continue
            if not d:
                break
            got += d
        closed.append(time.monotonic() - t0)
        if got and not got.startswith(b"HTTP/1.1 4"):
            die("connection %d: the server sent %r before closing" % (i, got[:200]))
        s.close()
    print("%d stalled connections closed by the server after %.1f..%.1f s"
          % (len(conns), min(closed), max(closed)))

def chunked(sock, nbytes):
    """A JSON submission sent chunked (no Content-Length), nbytes long; prints
    the status and body of the answer."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(sock)
    s.sendall(b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b" " * 65536
    sent = 0
    try:
        while sent < int(nbytes):
            s.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            sent += len(chunk)
        s.sendall(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    got = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += d
            if b"\r\n\r\n" in got:
                head, _, body = got.partition(b"\r\n\r\n")
                n = [l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
                if n and len(body) >= int(n[0].split(b":")[1]):
                    break
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    head, _, body = got.partition(b"\r\n\r\n")
    print(head.split(b"\r\n")[0].decode(errors="replace"))
    print(body.decode(errors="replace"))

def small_wtns(src, dst, k):
    """A valid .wtns of k values (another circuit's), from src's header."""
    b = open(src, "rb").read()
    off, secs = 12, {}
    while off < len(b):
        t, l = struct.unpack("<IQ", b[off:off + 12])
        secs[t] = (off + 12, l)
        off += 12 + l
    o, _ = secs[1]
    n8 = struct.unpack("<I", b[o:o + 4])[0]
    head = struct.pack("<I", n8) + b[o + 4:o + 4 + n8] + struct.pack("<I", int(k))
    o2, _ = secs[2]
    vals = b[o2:o2 + int(k) * n8]
    open(dst, "wb").write(b"wtns" + struct.pack("<II", 2, 2) + struct.pack("<IQ", 1, len(head)) +
                          head + struct.pack("<IQ", 2, len(vals)) + vals)

def error_of(path):
    """The API's error of a body: 'STATUS: message'; exit 1 when it is not one."""
    try:
        e = json.load(open(path))["error"]
        assert isinstance(e["status"], str) and e["status"].startswith("ERR_")
        assert isinstance(e["message"], str) and e["message"]
    except Exception:
        die("not the API's error form: " + open(path, "rb").read()[:300].decode(errors="replace"))
    print("%s: %s" % (e["status"], e["message"]))

def idle(path):
    """The status of path says no partition is queued or running."""
    e = json.load(open(path))["engine"]
    if e["running_partitions"] or e["queued_partitions"]:
        die("engine: %d running, %d queued" % (e["running_partitions"], e["queued_partitions"]))

def distinct(path):
    """The job list of path is whole and holds no id twice."""
    j = json.load(open(path))
    ids = [x["id"] for x in j["jobs"]]
    if len(ids) != len(set(ids)) or j["next_after"] is not None:
        die("ids %s, next_after %s" % (ids, j["next_after"]))
    print("%d jobs, %d distinct ids" % (len(ids), len(set(ids))))

def bench(path, via, jobs):
    """The --json of `cuzk bench stress --via VIA`: every job done, no
    errors, percentiles in order; via jobs, every submission's latency, each
    below the largest end-to-end one; via prove, none."""
    j = json.load(open(path))
    jobs = int(jobs)
    qs = [j["latency_s"]]
    good = j["via"] == via and j["done"] == jobs and j["errors"] == {}
    if via == "jobs":
        qs.append(j["submit_latency_ms"])
        good = good and j["submitted"] == jobs and \
            j["submit_latency_ms"]["max"] <= 1e3 * j["latency_s"]["max"]
    else:
        good = good and j["submitted"] is None and j["submit_latency_ms"] is None
    if not good or not all(q["p50"] <= q["p90"] <= q["p99"] <= q["max"] for q in qs):
        die(json.dumps(j))
    print(json.dumps(j))

def counts(path):
    """Done, failed and cancelled jobs of the list at path, and the
    partitions of the done ones."""
    j = json.load(open(path))["jobs"]
    n = lambda s: sum(1 for x in j if x["state"] == s)
    print(n("done"), n("failed"), n("cancelled"),
          sum(x["partitions"] for x in j if x["state"] == "done"))

def jq(path, expr):
    """Prints eval(expr) with j the JSON of path; exit 1 when it is falsy."""
    j = json.load(open(path))
    v = eval(expr, {"j": j})
    print(v if not isinstance(v, bool) else j)
    sys.exit(0 if v else 1)

if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
EOF
py() { python3 "$dir/h.py" "$@"; }

# ---- the daemon -------------------------------------------------------------
"$cuzk" gen-circuit --profile porep --log-constraints 13 --partitions 1 -o "$dir/slow" \
  >/dev/null 2>&1 &&
  "$cuzk" setup "$dir/slow/circuit.cuzk" -o "$dir/slow/c.params" --vk "$dir/slow/c.vk" \
    >/dev/null 2>&1 ||
  { echo "FAIL: the slow test circuit could not be made"; exit 1; }
token=daemon-test-token-$$-$(date +%s)
(umask 077 && printf '%s\n' "$token" >"$dir/token")
mkdir "$dir/spool"
cat >"$dir/cuzk.conf" <<EOF
[server]
unix_socket = $dir/d.sock
token_file = $dir/token
max_body_bytes = 256K
request_timeout_s = 2
[store]
database = $dir/cuzk.db
spool_dir = $dir/spool
[engine]
backend = cpu
workers_per_device = 1
threads = 2
[key sample]
zkey = $sample/circuit.zkey
r1cs = $sample/circuit.r1cs
[key slow]
circuit = $dir/slow/circuit.cuzk
params = $dir/slow/c.params
EOF
start_daemon "$cuzk" daemon --config "$dir/cuzk.conf" --server.tcp_listen 127.0.0.1:0
sock=$dir/d.sock
port=${tcp##*:}
echo "daemon on unix:$sock and $tcp"
export CUZK_ADDR="unix:$sock"
unset CUZK_TOKEN
check "prom_check.py --self-test: the checker refuses what it must" 0 'bad ones are refused' \
  python3 "$prom_check" --self-test

curl -s --unix-socket "$sock" http://x/v1/status >"$dir/st.json"
check "one worker: partitions run one at a time" 0 '' \
  py jq "$dir/st.json" 'j["engine"]["workers"] == 1'
n_low=40

# verify P PUB: the snarkjs proof verifies against the sample's key
verify() { "$cuzk" groth16 verify "$sample/verification_key.json" "$2" "$1" >/dev/null 2>&1; }

# ---- priorities -------------------------------------------------------------------------
# A low job of many partitions of "slow" (~60 ms each on an idle machine)
paths=
for _ in $(seq $n_low); do paths="$paths $dir/slow/w0.wit"; done
# shellcheck disable=SC2086
low=$("$cuzk" submit --key slow --priority low --witness-path $paths)
if ! ids=$(py burst "$sock" "$low" "$sample/witness.wtns" normal high critical \
  2>"$dir/burst.err"); then
  say_fail "normal, high and critical jobs during a partition of the low job" \
    "$ids $(cat "$dir/burst.err")"
else
  ok "normal, high and critical jobs submitted during one partition of the low job ($ids)"
  sed 's/^/     /' "$dir/burst.err"
  # shellcheck disable=SC2086
  set -- $ids
  n_id=$1 h_id=$2 c_id=$3
  for id in $c_id $h_id $n_id; do
    check "job $id done" 0 "^job $id done" \
      "$cuzk" await "$id" --timeout 60 -o "$dir/p$id.json" --public "$dir/q$id.json"
    if verify "$dir/p$id.json" "$dir/q$id.json"; then ok "its proof verifies"; else
      say_fail "job $id's proof does not verify" ""; fi
  done
  if reply=$(py order "$sock" "$low" "$c_id" "$h_id" "$n_id" 2>&1); then
    ok "they end critical, high, normal, before the low job:"
    printf '%s\n' "$reply" | tr ';' '\n' | sed 's/^ */       /'
  else
    say_fail "they end critical, high, normal, before the low job" "$reply"
  fi
fi

# ---- a job queued behind the low one, cancelled ---------------------------------------
queued=$("$cuzk" submit --key sample --priority low --witness-path "$sample/witness.wtns")
curl -s --unix-socket "$sock" "http://x/v1/jobs/$queued" >"$dir/q.json"
check "a low job behind the low one is queued" 0 '' \
  py jq "$dir/q.json" 'j["state"] == "queued" and j["queue_position"] > 0'
check "cancel the queued job" 0 "^job $queued: cancelled" "$cuzk" cancel "$queued"
check "await it: cancelled, exit 1" 1 "job $queued cancelled" "$cuzk" await "$queued" --timeout 10
curl -s --unix-socket "$sock" "http://x/v1/jobs/$low" >"$dir/l.json"
check "the low job is unaffected: running, no error" 0 '' \
  py jq "$dir/l.json" 'j["state"] in ("queued", "running") and j["error"] is None'

# ---- slow clients -----------------------------------------------------------------------
if reply=$(py loris "$sock" "$port" "$token" 2 10 "$dir/spool" 2>&1); then
  ok "10 stalled connections (request_timeout_s 2):"
  printf '%s\n' "$reply" | sed 's/^/       /'
else
  say_fail "10 stalled connections (request_timeout_s 2)" "$reply"
fi
sleep 0.2
left=$(cd "$dir/spool" && ls -A | grep '^\.wit-')
if [ -z "$left" ]; then ok "the stalled uploads left nothing in the spool"
else say_fail "the stalled uploads left files in the spool" "$left"; fi

# ---- malformed requests -------------------------------------------------------------------
# http WHAT CODE PATTERN CURL-ARGS..: the answer is CODE with the API's error
# whose "STATUS: message" matches PATTERN.
http() {
  what=$1 want=$2 pat=$3
  shift 3
  code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 --unix-socket "$sock" "$@")
  msg=$(py error_of "$dir/body")
  if [ "$code" != "$want" ]; then say_fail "$what: HTTP $code, not $want" "$msg"; return 1; fi
  if ! printf '%s\n' "$msg" | grep -q -E -- "$pat"; then
    say_fail "$what: the error does not match '$pat'" "$msg"
    return 1
  fi
  ok "$what: $code $msg"
}
J='Content-Type: application/json'
wp="\"witness_paths\": [\"$sample/witness.wtns\"]"
http "JSON that does not parse" 400 '^ERR_[A-Z_]+: .*(JSON|json|line|parse)' \
  -H "$J" --data-binary '{"key": "sample", "witness_paths": [' http://x/v1/jobs
http "JSON that is not an object" 400 '^ERR_' -H "$J" --data-binary '[1, 2]' http://x/v1/jobs
http "an unknown key" 404 "^ERR_NOT_FOUND: .*nope" \
  -H "$J" --data-binary "{\"key\": \"nope\", $wp}" \
  http://x/v1/jobs
http "an unknown field" 400 'colour' \
  -H "$J" --data-binary "{\"key\": \"sample\", \"colour\": 1, $wp}" \
  http://x/v1/jobs
http "a field of the wrong type" 400 'priority' \
  -H "$J" --data-binary "{\"key\": \"sample\", \"priority\": 3, $wp}" \
  http://x/v1/jobs
http "an unknown priority" 400 'urgent' \
  -H "$J" --data-binary "{\"key\": \"sample\", \"priority\": \"urgent\", $wp}" \
  http://x/v1/jobs
http "no witness" 400 'witness' -H "$J" --data-binary '{"key": "sample", "witness_paths": []}' \
  http://x/v1/jobs
http "another content type" 400 'Content-Type' -H 'Content-Type: text/plain' \
  --data-binary 'key=sample' http://x/v1/jobs
http "multipart with a part of another name" 400 'colour' -F key=sample \
  -F "colour=red" http://x/v1/jobs
http "a missing witness path" 400 "$dir/missing.wtns" \
  -H "$J" --data-binary "{\"key\": \"sample\", \"witness_paths\": [\"$dir/missing.wtns\"]}" \
  http://x/v1/jobs

# A witness of the wrong size for the key: the API should refuse it at
# submission (4xx); a daemon that accepts it must at least fail the job with
# a message naming the file. Which one happened is printed.
py small_wtns "$sample/witness.wtns" "$dir/small.wtns" 10
head -c 4000 "$sample/witness.wtns" >"$dir/trunc.wtns" # its headers whole, values cut
# wrong_size WHAT PATTERN CURL-ARGS..
wrong_size() {
  what=$1 pat=$2
  shift 2
  code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 --unix-socket "$sock" "$@")
  case $code in
    4??)
      msg=$(py error_of "$dir/body")
      if printf '%s\n' "$msg" | grep -q -E -- "$pat"; then ok "$what: refused, $code $msg"
      else say_fail "$what: $code, the error does not match '$pat'" "$msg"; fi ;;
    201)
      id=$(py jq "$dir/body" 'j["id"]')
      reply=$("$cuzk" await "$id" --timeout 30 --json 2>&1)
      if printf '%s\n' "$reply" | grep -q '"state": "failed"' &&
        printf '%s\n' "$reply" | grep -q -E -- "\"message\": \".*($pat)"; then
        ok "$what: NOTE accepted (201, job $id), then failed naming the file, not a 4xx:"
        printf '%s\n' "$reply" | sed -n 's/^ *"message": /       /p'
      else
        say_fail "$what: accepted (201, job $id) and not failed naming the file" "$reply"
      fi ;;
    *) say_fail "$what: HTTP $code" "$(cat "$dir/body")" ;;
  esac
}
wrong_size "a valid .wtns of another circuit (10 values), uploaded" 'witness 0|/spool/' \
  -F key=sample -F "witness=@$dir/small.wtns" http://x/v1/jobs
wrong_size "a truncated .wtns, uploaded" 'witness 0|/spool/' \
  -F key=sample -F "witness=@$dir/trunc.wtns" http://x/v1/jobs
wrong_size "a truncated .wtns, a server path" "$dir/trunc.wtns" \
  -H "$J" --data-binary "{\"key\": \"sample\", \"witness_paths\": [\"$dir/trunc.wtns\"]}" \
  http://x/v1/jobs
head -c 100000 "$dir/slow/w0.wit" >"$dir/trunc.wit"
wrong_size "a truncated .wit, a server path" "$dir/trunc.wit" \
  -H "$J" --data-binary "{\"key\": \"slow\", \"witness_paths\": [\"$dir/trunc.wit\"]}" \
  http://x/v1/jobs
wrong_size "another circuit's .wit, a server path" "$dir/slow/w0.wit" \
  -H "$J" --data-binary "{\"key\": \"sample\", \"witness_paths\": [\"$dir/slow/w0.wit\"]}" \
  http://x/v1/jobs

head -c 300000 /dev/zero | tr '\0' ' ' >"$dir/big"
http "a body over max_body_bytes (Content-Length)" 413 'max_body_bytes' \
  -H "$J" -H 'Expect:' --data-binary "@$dir/big" http://x/v1/jobs
reply=$(py chunked "$sock" 300000)
if printf '%s\n' "$reply" | head -n 1 | grep -q '^HTTP/1.1 413' &&
  printf '%s\n' "$reply" | grep -q 'max_body_bytes'; then
  ok "a chunked body over max_body_bytes: $(printf '%s\n' "$reply" | head -n 1)"
else
  say_fail "a chunked body over max_body_bytes: not a 413 naming max_body_bytes" "$reply"
fi
check "the daemon serves on" 0 'cpu backend' "$cuzk" status

# ---- the low job ends done ----------------------------------------------------------------
check "the low job ends done, $n_low partitions" 0 "^job $low done: $n_low partitions" \
  "$cuzk" await "$low" --timeout 120 -o "$dir/low.bin" --public "$dir/low.txt"
lowpub=
for i in $(seq 0 $((n_low - 1))); do lowpub="$lowpub $dir/low-$i.txt"; done
# shellcheck disable=SC2086
check "its proofs verify" 0 "OK: $n_low partitions valid" \
  "$cuzk" verify --vk "$dir/slow/c.vk" --inputs $lowpub "$dir/low.bin"

# ---- cancel a running job ------------------------------------------------------------------
paths=
for _ in $(seq 300); do paths="$paths $sample/witness.wtns"; done
# shellcheck disable=SC2086
long=$("$cuzk" submit --key sample --priority low --witness-path $paths)
for _ in $(seq 100); do
  curl -s --unix-socket "$sock" "http://x/v1/jobs/$long" >"$dir/long.json"
  py jq "$dir/long.json" 'j["partitions_done"] >= 1' >/dev/null && break
  sleep 0.05
done
check "a job of 300 partitions runs" 0 '' py jq "$dir/long.json" 'j["state"] == "running"'
t0=$(date +%s)
check "cancel it while it runs" 0 "^job $long: cancelled" "$cuzk" cancel "$long"
check "await it: cancelled, exit 1" 1 "job $long cancelled" "$cuzk" await "$long" --timeout 10
curl -s --unix-socket "$sock" "http://x/v1/jobs/$long" >"$dir/long.json"
check "it stopped short of its 300 partitions" 0 '' \
  py jq "$dir/long.json" 'j["state"] == "cancelled" and j["partitions_done"] < 300'
for _ in $(seq 50); do
  curl -s --unix-socket "$sock" http://x/v1/status >"$dir/st.json"
  py idle "$dir/st.json" >/dev/null && break
  sleep 0.1
done
check "the engine is idle again within 5 s of the cancel" 0 '' py idle "$dir/st.json"
[ $(( $(date +%s) - t0 )) -le 6 ] || say_fail "the cancel took more than 6 s" ""

# ---- 4 clients at once ------------------------------------------------------------------------
cpids=
for c in 1 2 3 4; do
  (
    for k in 1 2 3 4 5; do
      case $(((c + k) % 4)) in 0) p=low ;; 1) p=normal ;; 2) p=high ;; *) p=critical ;; esac
      if [ $((k % 2)) -eq 0 ]; then
        "$cuzk" submit --key sample --priority "$p" --witness "$sample/witness.wtns"
      else
        "$cuzk" submit --key sample --priority "$p" --witness-path "$sample/witness.wtns"
      fi
    done >"$dir/conc-$c.ids" 2>"$dir/conc-$c.err"
  ) &
  cpids="$cpids $!"
done
# shellcheck disable=SC2086
wait $cpids
cat "$dir"/conc-*.ids >"$dir/conc.ids"
n=$(grep -c -E '^[0-9]+$' "$dir/conc.ids")
u=$(sort -u "$dir/conc.ids" | grep -c -E '^[0-9]+$')
if [ "$n" -eq 20 ] && [ "$u" -eq 20 ] && ! grep -q . "$dir"/conc-*.err; then
  ok "4 clients submitted 20 jobs at once: 20 distinct ids"
else
  say_fail "4 clients submitting 20 jobs: $n ids, $u distinct" "$(cat "$dir"/conc-*.err)"
fi
bad=0
while read -r id; do
  if ! "$cuzk" await "$id" --timeout 60 -o "$dir/c$id.json" --public "$dir/d$id.json" \
    >"$dir/await.out" 2>&1; then
    say_fail "job $id is not done" "$(cat "$dir/await.out")"
    bad=1
  elif ! verify "$dir/c$id.json" "$dir/d$id.json"; then
    say_fail "job $id's proof does not verify" ""
    bad=1
  fi
done <"$dir/conc.ids"
[ "$bad" -eq 0 ] && ok "all 20 done, every proof verifies"
curl -s --unix-socket "$sock" 'http://x/v1/jobs?limit=1000' >"$dir/jobs.json"
check "no job id twice in GET /v1/jobs" 0 'distinct ids' py distinct "$dir/jobs.json"

# ---- bench stress ------------------------------------------------------------------------------
ms='[0-9]+\.[0-9] ms'
check "bench stress (via POST /v1/jobs): submission latency" 0 \
  "^  submit latency \\(request to 201, 4 accepted\\): p50 $ms, p90 $ms, p99 $ms, max $ms\$" \
  "$cuzk" bench stress --clients 2 --jobs 4 --key sample --witness "$sample/witness.wtns"
"$cuzk" bench stress --addr "$tcp" --token-file "$dir/token" --clients 2 --jobs 4 --key sample \
  --witness-path "$sample/witness.wtns" --priority high --json >"$dir/bench.json" 2>&1
check "bench stress --json: via jobs, every submission timed, no errors" 0 '' \
  py bench "$dir/bench.json" jobs 4
"$cuzk" bench stress --via prove --clients 2 --jobs 4 --key sample \
  --witness "$sample/witness.wtns" --json >"$dir/bench.json" 2>&1
check "bench stress --via prove --json: no submission latency" 0 '' \
  py bench "$dir/bench.json" prove 4
check "bench stress, an unknown key: errors by status" 1 'errors 404: 4 \(first: 404 ' \
  "$cuzk" bench stress --clients 2 --jobs 4 --key nope --witness "$sample/witness.wtns"
check "bench stress --via another" 2 '--via post: must be jobs or prove' \
  "$cuzk" bench stress --via post --clients 1 --jobs 1 --key sample \
  --witness "$sample/witness.wtns"

# ---- /metrics -----------------------------------------------------------------------------------
curl -s -D "$dir/mh" -o "$dir/metrics" -H "Authorization: Bearer $token" "$tcp/metrics"
if grep -q -i '^content-type: text/plain; version=0.0.4' "$dir/mh"; then
  ok "GET /metrics over TCP: text/plain; version=0.0.4"
else
  say_fail "GET /metrics: Content-Type" "$(cat "$dir/mh")"
fi
curl -s --unix-socket "$sock" 'http://x/v1/jobs?limit=1000' >"$dir/jobs.json"
want=$(py counts "$dir/jobs.json")
if reply=$(python3 "$prom_check" "$dir/metrics" --get 'cuzk_jobs{state="done"}' \
  --get 'cuzk_jobs{state="failed"}' --get 'cuzk_jobs{state="cancelled"}' \
  --get cuzk_partitions_proved_total --get 'cuzk_stage_seconds_count{stage="msm_h"}' 2>&1); then
  ok "$(printf '%s\n' "$reply" | head -n 1)"
  # shellcheck disable=SC2046,SC2086
  set -- $want $(printf '%s\n' "$reply" | sed 1d)
  # done, failed, cancelled, partitions of done jobs; then the metrics' values
  if [ "$5" = "$1" ] && [ "$6" = "$2" ] && [ "$7" = "$3" ] && [ "$8" -ge "$4" ] &&
    [ "$9" -ge "$4" ]; then
    ok "its counts agree with GET /v1/jobs ($1 done, $2 failed, $3 cancelled, $8 partitions proved)"
  else
    say_fail "metrics vs jobs" \
      "jobs: done failed cancelled partitions = $1 $2 $3 $4; metrics: $5 $6 $7 $8 $9"
  fi
else
  say_fail "GET /metrics is not well-formed" "$reply"
fi

if ! kill -0 "$pid" 2>/dev/null; then
  say_fail "the daemon is gone" "$(cat "$dir/daemon.log")"
fi
[ "$fail" -eq 0 ] && echo "check_daemon: every check passed"
exit "$fail"
