#!/usr/bin/env bash
# check_durability.sh CUZK SOURCE_DIR — what the daemon's store promises
# (src/service/store.h, doc/api.md), on a real `cuzk daemon` (CPU backend)
# over a temporary Unix socket, driven with curl:
#
#  (a) kill -9 with jobs queued and running (and an upload half sent):
#      after a restart on the same database and spool every acknowledged
#      job completes exactly once (listed once, done, its request id still
#      answering with it), its proofs verify, and once the jobs are
#      collected the spool holds no file; a job of a key registered through
#      the API waits after the restart until the key is registered again.
#  (b) SIGTERM drains: submissions are refused with 503 while the daemon
#      drains, it exits with status 0, and a restart finishes every job it
#      had acknowledged; a second SIGTERM during a drain exits at once
#      (status 1) and its job finishes after a restart.
#  (c) results survive a restart (after a kill -9 as well) unchanged, and
#      are gone result_retention_s after their job ended: at the next start
#      and in a daemon that keeps running.
#
# The keys: the sample circuit (examples/sample) and a bellman circuit of
# 2^16 constraints made here (cuzk gen-circuit, cuzk setup), slow enough on
# the CPU (tenths of a second a partition) for jobs to be seen queued and
# running. Exit 0 all passed, 1 a check failed (each named), 77 curl or
# python3 (which reads the JSON answers) is missing. Files go to
# /tmp/api-dur-*, kept when a check failed.
set -u

CUZK=${1:?usage: check_durability.sh CUZK SOURCE_DIR}
SRC=${2:?usage: check_durability.sh CUZK SOURCE_DIR}
SRC=$(cd "$SRC" && pwd) || exit 1
case $CUZK in /*) ;; *) CUZK=$(pwd)/$CUZK ;; esac
for tool in curl python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "check_durability: skipped: $tool is not installed"
        exit 77
    fi
done

T=$(mktemp -d /tmp/api-dur-XXXXXX)
FAILS=0
PID=
SOCK=
fail() {
    echo "FAIL: $*"
    FAILS=$((FAILS + 1))
}
ok() { echo "ok: $*"; }
now_ms() { date +%s%3N; }
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -9 "$PID" 2>/dev/null
        wait "$PID" 2>/dev/null
    fi
}
trap cleanup EXIT

# ---- helpers ------------------------------------------------------------------

# req METHOD PATH [curl args...]: the answer's status in $code (000: no
# answer), its body in $T/body.
req() {
    local m=$1 p=$2
    shift 2
    rm -f "$T/body"
    code=$(curl -sS --max-time 120 --unix-socket "$SOCK" -o "$T/body" -w '%{http_code}' \
        -X "$m" "http://x$p" "$@" 2>"$T/curl.err") || code=000
}

# jget EXPR: a Python expression over v, the JSON of $T/body.
jget() {
    python3 -c 'import json, sys
v = json.load(open(sys.argv[2]))
r = eval(sys.argv[1], {"v": v})
print(" ".join(map(str, r)) if isinstance(r, (list, tuple)) else r)' "$1" "$T/body"
}

# the answer's body, or what curl said when there was none
body() {
    if [ -s "$T/body" ]; then head -c 400 "$T/body"; else echo "(no answer: $(cat "$T/curl.err"))"; fi
}

# start CONF [overrides...]: a daemon in the background ($PID), answering
# GET /v1/status on $SOCK within 60 s.
start() {
    local conf=$1
    shift
    "$CUZK" daemon --config "$conf" "$@" >>"$T/daemon.log" 2>&1 &
    PID=$!
    local i
    for i in $(seq 600); do
        if ! kill -0 "$PID" 2>/dev/null; then
            fail "the daemon exited at start; its log:"
            tail -20 "$T/daemon.log"
            return 1
        fi
        req GET /v1/status
        [ "$code" = 200 ] && return 0
        sleep 0.1
    done
    fail "the daemon did not answer within 60 s"
    return 1
}

# stop SIGNAL: signals the daemon and waits for it; its exit status in $rc.
stop() {
    kill -"$1" "$PID"
    { wait "$PID"; } 2>/dev/null
    rc=$?
    PID=
}

# section NAME / passed TEXT: a part's heading, and its line when none of
# its checks failed.
section() {
    echo "-- $1"
    FAILS_BEFORE=$FAILS
}
passed() { [ "$FAILS" -ne "$FAILS_BEFORE" ] || ok "$1"; }

# conf DIR RETENTION: a configuration in DIR/cuzk.conf with both keys.
conf() {
    mkdir -p "$1"
    cat >"$1/cuzk.conf" <<EOF
[server]
unix_socket = $1/d.sock
unix_socket_mode = 0600
[store]
database = $1/cuzk.db
spool_dir = $1/spool
result_retention_s = $2
[engine]
backend = cpu
threads = 2
[key slow]
circuit = $SLOW/circuit.cuzk
params = $SLOW/circuit.params
[key sample]
zkey = $SRC/examples/sample/circuit.zkey
r1cs = $SRC/examples/sample/circuit.r1cs
EOF
    SOCK=$1/d.sock
}

# submit_json REQUEST_ID N: a job of N partitions of the slow key, each the
# same witness path.
submit_json() {
    local b
    b=$(python3 -c 'import json, sys
print(json.dumps({"key": "slow", "request_id": sys.argv[1], "witness_paths": [sys.argv[3]] * int(sys.argv[2])}))' "$1" "$2" "$W")
    req POST /v1/jobs -H 'Content-Type: application/json' --data-binary "$b"
}

# submit_upload REQUEST_ID: a job of 2 partitions, both witnesses uploaded
# (multipart) into the spool.
submit_upload() {
    req POST /v1/jobs -F key=slow -F "request_id=$1" -F "witness=@$W" -F "witness=@$W"
}

# await_done ID: waits (up to 3 minutes) for the job to be done.
await_done() {
    local end=$(($(date +%s) + 180)) st
    while :; do
        req GET "/v1/jobs/$1/await?timeout_ms=20000"
        if [ "$code" != 200 ]; then
            fail "await job $1: $code $(body)"
            return 1
        fi
        st=$(jget 'v["state"]')
        case $st in
        done) return 0 ;;
        queued | running) ;;
        *)
            fail "job $1 ended $st: $(body)"
            return 1
            ;;
        esac
        if [ "$(date +%s)" -ge "$end" ]; then
            fail "job $1 not done after 3 minutes: $(body)"
            return 1
        fi
    done
}

# verify_bellman ID N: the job's N proofs (?format=binary) verify against
# the witness's public inputs.
verify_bellman() {
    req GET "/v1/jobs/$1/result?format=binary"
    if [ "$code" != 200 ]; then
        fail "result of job $1: $code $(body)"
        return 1
    fi
    local size ins=() i
    size=$(wc -c <"$T/body")
    if [ "$size" -ne $((192 * $2)) ]; then
        fail "result of job $1: $size bytes for $2 partitions"
        return 1
    fi
    cp "$T/body" "$T/proof-$1.bin"
    for i in $(seq "$2"); do ins+=("$W"); done
    if ! "$CUZK" verify --vk "$SLOW/circuit.vk" --inputs "${ins[@]}" "$T/proof-$1.bin" >"$T/verify.out" 2>&1; then
        fail "the proofs of job $1 do not verify: $(cat "$T/verify.out")"
        return 1
    fi
}

# spool_files DIR: the spool's entries but its lock, one a line.
spool_files() {
    local f
    for f in "$1"/spool/* "$1"/spool/.[!.]*; do
        [ -e "$f" ] && [ "${f##*/}" != .lock ] && echo "${f##*/}"
    done
}

# ids_of QUERY: the ids GET /v1/jobs?QUERY lists (every page), sorted.
ids_of() {
    req GET "/v1/jobs?limit=1000&$1"
    [ "$code" = 200 ] || fail "GET /v1/jobs?$1: $code $(body)"
    jget 'sorted(j["id"] for j in v["jobs"])'
}

sorted_words() { tr ' ' '\n' | grep -v '^$' | sort -n | tr '\n' ' ' | sed 's/ $//'; }

# ---- the slow key ----------------------------------------------------------------

SLOW=$T/slow
W=$SLOW/w0.wit
if ! "$CUZK" gen-circuit --profile porep --log-constraints 16 --partitions 1 --seed 11 \
    -o "$SLOW" >"$T/gen.log" 2>&1 ||
    ! "$CUZK" setup "$SLOW/circuit.cuzk" -o "$SLOW/circuit.params" --vk "$SLOW/circuit.vk" \
        >>"$T/gen.log" 2>&1; then
    echo "FAIL: making the bellman key:"
    cat "$T/gen.log"
    exit 1
fi

# ---- (a) kill -9 with jobs queued and running ------------------------------------------

section "(a) kill -9"
A=$T/a
conf "$A" 86400
start "$A/cuzk.conf" || exit 1
acked=()
rids=()
for i in 1 2 3 4; do
    submit_json "dur-a-$i" 4
    if [ "$code" = 201 ]; then
        acked+=("$(jget 'v["id"]')")
        rids+=("dur-a-$i")
    else
        fail "submit dur-a-$i: $code $(body)"
    fi
done
for i in 1 2; do
    submit_upload "dur-a-m$i"
    if [ "$code" = 201 ]; then
        acked+=("$(jget 'v["id"]')")
        rids+=("dur-a-m$i")
    else
        fail "upload dur-a-m$i: $code $(body)"
    fi
done
# a job of a key registered through the API (which lasts until the daemon stops)
api_id=
req POST /v1/keys -H 'Content-Type: application/json' \
    --data-binary "{\"name\": \"api-slow\", \"circuit\": \"$SLOW/circuit.cuzk\", \"params\": \"$SLOW/circuit.params\"}"
[ "$code" = 201 ] || fail "POST /v1/keys api-slow: $code $(body)"
req POST /v1/jobs -H 'Content-Type: application/json' \
    --data-binary "{\"key\": \"api-slow\", \"witness_paths\": [\"$W\", \"$W\"]}"
if [ "$code" = 201 ]; then api_id=$(jget 'v["id"]'); else fail "submit to api-slow: $code $(body)"; fi
# an upload still being sent when the daemon dies
curl -sS --max-time 60 --limit-rate 200K --unix-socket "$SOCK" -o /dev/null \
    -F key=slow -F request_id=dur-a-cut -F "witness=@$W" http://x/v1/jobs 2>/dev/null &
UPLOAD=$!
sleep 1
req GET '/v1/jobs?state=queued,running'
unfinished=$(jget 'len(v["jobs"])')
[ "$unfinished" -ge 2 ] || fail "only $unfinished jobs unfinished at the kill (expected several queued and one running)"
req GET '/v1/jobs?state=running'
[ "$(jget 'len(v["jobs"])')" -ge 1 ] || fail "no job running at the kill: $(body)"
stop 9
{ wait "$UPLOAD"; } 2>/dev/null
echo "   killed with ${#acked[@]} jobs acknowledged, $unfinished unfinished; spool: $(spool_files "$A" | wc -l) entries"
[ "$rc" = 137 ] || fail "kill -9 left exit status $rc"

start "$A/cuzk.conf" || exit 1
if [ -n "$api_id" ]; then
    # the key is gone with the daemon: its job waits, named in the log, and
    # resumes once the key is registered again
    req GET "/v1/jobs/$api_id"
    [ "$(jget 'v["state"]')" = queued ] || fail "job $api_id of the unregistered key after the restart: $(body)"
    grep -q "job $api_id waits for key api-slow" "$T/daemon.log" ||
        fail "the log does not name job $api_id as waiting for its key"
    req POST /v1/keys -H 'Content-Type: application/json' \
        --data-binary "{\"name\": \"api-slow\", \"circuit\": \"$SLOW/circuit.cuzk\", \"params\": \"$SLOW/circuit.params\"}"
    [ "$code" = 201 ] || fail "POST /v1/keys api-slow again: $code $(body)"
    await_done "$api_id" && verify_bellman "$api_id" 2
fi
for id in "${acked[@]}"; do await_done "$id"; done
listed=$(ids_of '' | sorted_words)
want=$(echo "${acked[*]} $api_id" | sorted_words)
[ "$listed" = "$want" ] || fail "jobs after the restart: [$listed], acknowledged: [$want]"
req GET /v1/status
jobs_counts=$(jget '[v["jobs"][s] for s in ("queued", "running", "done", "failed", "cancelled")]')
[ "$jobs_counts" = "0 0 $((${#acked[@]} + 1)) 0 0" ] || fail "status jobs (queued running done failed cancelled): $jobs_counts"
for k in "${!rids[@]}"; do
    if [ "${rids[$k]}" = "${rids[$k]#dur-a-m}" ]; then submit_json "${rids[$k]}" 4; else submit_upload "${rids[$k]}"; fi
    [ "$code" = 200 ] && [ "$(jget 'v["id"]')" = "${acked[$k]}" ] ||
        fail "resubmitting ${rids[$k]} after the restart: $code $(body) (its job: ${acked[$k]})"
    [ "$(jget 'v["state"]')" = "done" ] || fail "resubmitting ${rids[$k]}: the job is not done: $(body)"
done
for k in "${!acked[@]}"; do
    n=4
    [ "${rids[$k]}" = "${rids[$k]#dur-a-m}" ] || n=2
    req GET "/v1/jobs/${acked[$k]}"
    fin1=$(jget 'v["finished_ms"]')
    [ "$(jget 'v["partitions_done"]')" = "$n" ] || fail "job ${acked[$k]}: $(body)"
    verify_bellman "${acked[$k]}" "$n"
    req GET "/v1/jobs/${acked[$k]}"
    [ "$(jget 'v["finished_ms"]')" = "$fin1" ] || fail "job ${acked[$k]} finished again: $fin1, then $(body)"
done
left=$(spool_files "$A")
[ -z "$left" ] || fail "spool files with every job done (witnesses of ended jobs, or the cut upload's temporary): $left"
for id in "${acked[@]}"; do
    req DELETE "/v1/jobs/$id"
    [ "$code" = 204 ] || fail "DELETE job $id: $code $(body)"
    req GET "/v1/jobs/$id"
    [ "$code" = 404 ] || fail "GET of collected job $id: $code"
done
left=$(spool_files "$A")
[ -z "$left" ] || fail "spool files after every job was collected: $left"
stop TERM
[ "$rc" = 0 ] || fail "SIGTERM with nothing to do: exit status $rc"
passed "(a) ${#acked[@]} jobs acknowledged before kill -9 completed once each after the restart; spool empty"

# ---- (b) SIGTERM drains ----------------------------------------------------------------

section "(b) SIGTERM"
B=$T/b
conf "$B" 86400
start "$B/cuzk.conf" || exit 1
acked=()
for i in 1 2 3; do
    submit_json "dur-b-$i" 4
    [ "$code" = 201 ] && acked+=("$(jget 'v["id"]')") || fail "submit dur-b-$i: $code $(body)"
done
submit_upload dur-b-m
[ "$code" = 201 ] && acked+=("$(jget 'v["id"]')") || fail "upload dur-b-m: $code $(body)"
# SIGTERM once a job runs, with others queued behind it
running=
for i in $(seq 200); do
    for id in "${acked[@]}"; do
        req GET "/v1/jobs/$id"
        [ "$(jget 'v["state"]')" = running ] && running=$id && break 2
    done
    sleep 0.05
done
[ -n "$running" ] || fail "no job was seen running before SIGTERM"
# right after one of its partitions starts, so that the drain lasts most of a partition
done0=$(jget 'v["partitions_done"]')
for i in $(seq 200); do
    req GET "/v1/jobs/$running"
    [ "$(jget 'v["partitions_done"]')" != "$done0" ] && break
    sleep 0.01
done
kill -TERM "$PID"
late='{"key": "slow", "witness_paths": ["'$W'"]}'
n503=0
answers=0
draining=
for i in $(seq 500); do
    req POST /v1/jobs -H 'Content-Type: application/json' --data-binary "$late"
    [ "$code" = 000 ] && break
    answers=$((answers + 1))
    case $code in
    503)
        n503=$((n503 + 1))
        grep -q '"error"' "$T/body" || fail "a 503 without the error object: $(body)"
        if [ -z "$draining" ]; then
            req GET /v1/status
            [ "$code" = 200 ] && draining=$(jget 'v["draining"]')
        fi
        ;;
    201)
        # the signal raced the first request: the job must survive like the others
        if [ "$answers" = 1 ]; then acked+=("$(jget 'v["id"]')"); else fail "submission $answers after SIGTERM accepted: $(body)"; fi
        ;;
    *) fail "submission during the drain: $code $(body)" ;;
    esac
    sleep 0.01
done
{ wait "$PID"; } 2>/dev/null
rc=$?
PID=
[ "$rc" = 0 ] || fail "exit status after SIGTERM: $rc"
[ "$n503" -ge 1 ] || fail "no submission was refused with 503 during the drain ($answers answered)"
[ -z "$draining" ] || [ "$draining" = True ] || fail "GET /v1/status during the drain: draining $draining"
echo "   drained: $n503 submissions refused with 503, status said draining: ${draining:-(not asked)}"
start "$B/cuzk.conf" || exit 1
pending=$(ids_of 'state=queued,running' | sorted_words)
notdone=$(ids_of 'state=failed,cancelled' | sorted_words)
[ -z "$notdone" ] || fail "jobs failed or cancelled by the drain: $notdone"
echo "   after the restart: queued or running: [$pending]"
[ -n "$pending" ] || fail "nothing left queued by the drain: it proved every queued job before exiting"
for id in "${acked[@]}"; do await_done "$id"; done
listed=$(ids_of '' | sorted_words)
want=$(echo "${acked[*]}" | sorted_words)
[ "$listed" = "$want" ] || fail "jobs after the drain and restart: [$listed], acknowledged: [$want]"
for id in "${acked[@]}"; do
    req GET "/v1/jobs/$id"
    verify_bellman "$id" "$(jget 'v["partitions"]')"
done
left=$(spool_files "$B")
[ -z "$left" ] || fail "spool files with every job done: $left"
stop TERM
[ "$rc" = 0 ] || fail "SIGTERM after (b): exit status $rc"
# a second SIGTERM during the drain exits at once; the job resumes at the next start
start "$B/cuzk.conf" || exit 1
submit_json dur-b-twice 4
twice=
[ "$code" = 201 ] && twice=$(jget 'v["id"]') || fail "submit dur-b-twice: $code $(body)"
for i in $(seq 200); do
    req GET "/v1/jobs/$twice"
    [ "$(jget 'v["state"]')" = running ] && break
    sleep 0.05
done
t0=$(now_ms)
kill -TERM "$PID"
sleep 0.1
kill -TERM "$PID"
{ wait "$PID"; } 2>/dev/null
rc=$?
PID=
took=$(($(now_ms) - t0))
[ "$rc" = 1 ] || fail "exit status after a second SIGTERM: $rc"
[ "$took" -lt 5000 ] || fail "a second SIGTERM took $took ms to end the daemon"
grep -q "SIGTERM again: exiting without waiting" "$T/daemon.log" ||
    fail "the log does not say why the daemon left at the second SIGTERM"
start "$B/cuzk.conf" || exit 1
[ -n "$twice" ] && await_done "$twice" && verify_bellman "$twice" 4
stop TERM
[ "$rc" = 0 ] || fail "SIGTERM after the second-signal case: exit status $rc"
passed "(b) the drain refused submissions, exited 0, and the restart finished its ${#acked[@]} jobs; a second SIGTERM exited at once and its job finished after a restart"

# ---- (c) results across restarts, and their retention -------------------------------------

section "(c) retention"
C=$T/c
R=10
conf "$C" "$R"
start "$C/cuzk.conf" || exit 1
req POST /v1/jobs -H 'Content-Type: application/json' \
    --data-binary "{\"key\": \"sample\", \"witness_paths\": [\"$SRC/examples/sample/witness.wtns\"]}"
[ "$code" = 201 ] || fail "submit (c): $code $(body)"
id1=$(jget 'v["id"]')
await_done "$id1"
fin1=$(jget 'v["finished_ms"]')
req GET "/v1/jobs/$id1/result"
[ "$code" = 200 ] || fail "result of job $id1: $code $(body)"
cp "$T/body" "$T/c-result.json"
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
json.dump(r["proofs"][0]["proof_json"], open(sys.argv[2], "w"))
json.dump(r["proofs"][0]["public"], open(sys.argv[3], "w"))' "$T/c-result.json" "$T/c-proof.json" "$T/c-public.json" ||
    fail "the result of job $id1 has no proof_json and public: $(head -c 300 "$T/c-result.json")"
"$CUZK" groth16 verify "$SRC/examples/sample/verification_key.json" "$T/c-public.json" "$T/c-proof.json" >"$T/verify.out" 2>&1 ||
    fail "the proof of job $id1 does not verify: $(cat "$T/verify.out")"
stop 9
start "$C/cuzk.conf" || exit 1
req GET "/v1/jobs/$id1/result"
if [ "$code" = 200 ] && cmp -s "$T/body" "$T/c-result.json"; then
    ok "the result survived kill -9 and a restart, unchanged"
else
    fail "the result after kill -9 and a restart: $code $(body)"
fi
req GET "/v1/jobs/$id1"
[ "$(jget 'v["state"]')" = "done" ] && [ "$(jget 'v["finished_ms"]')" = "$fin1" ] ||
    fail "job $id1 after the restart: $(body) (finished_ms was $fin1)"
stop TERM
[ "$rc" = 0 ] || fail "SIGTERM in (c): exit status $rc"
start "$C/cuzk.conf" || exit 1
req GET "/v1/jobs/$id1/result"
cmp -s "$T/body" "$T/c-result.json" || fail "the result after SIGTERM and a restart: $code $(body)"
# past the retention: a restart forgets it
wait_ms=$((fin1 + R * 1000 + 500 - $(now_ms)))
[ "$wait_ms" -gt 0 ] || fail "the restarts took longer than result_retention_s ($R s): the result could not be seen kept"
[ "$wait_ms" -gt 0 ] && sleep "$(awk "BEGIN {print $wait_ms / 1000}")"
stop TERM
start "$C/cuzk.conf" || exit 1
# the daemon looks for expired results as it starts (doc/api.md)
for i in $(seq 50); do
    req GET "/v1/jobs/$id1/result"
    [ "$code" = 200 ] || break
    sleep 0.1
done
[ "$code" = 404 ] || fail "the result $R s after its job ended, 5 s after a restart: $code $(body)"
req GET "/v1/jobs/$id1"
[ "$code" = 404 ] || fail "the job $R s after it ended, after a restart: $code $(body)"
# and in a daemon that keeps running
req POST /v1/jobs -H 'Content-Type: application/json' \
    --data-binary "{\"key\": \"sample\", \"witness_paths\": [\"$SRC/examples/sample/witness.wtns\"]}"
[ "$code" = 201 ] || fail "submit (c) 2: $code $(body)"
id2=$(jget 'v["id"]')
await_done "$id2"
fin2=$(jget 'v["finished_ms"]')
req GET "/v1/jobs/$id2/result"
[ "$code" = 200 ] || fail "result of job $id2 right after it ended: $code"
gone=
# (the daemon looks every minute: doc/api.md)
deadline=$((fin2 + R * 1000 + 75000))
while [ "$(now_ms)" -lt "$deadline" ]; do
    req GET "/v1/jobs/$id2/result"
    if [ "$code" = 404 ]; then
        gone=$(now_ms)
        break
    fi
    [ "$code" = 200 ] || fail "result of job $id2 while kept: $code $(body)"
    sleep 1
done
if [ -z "$gone" ]; then
    fail "the result of job $id2 was still there $(((deadline - fin2) / 1000)) s after its job ended (result_retention_s $R)"
elif [ $((gone - fin2)) -lt $((R * 1000)) ]; then
    fail "the result of job $id2 was gone $((gone - fin2)) ms after its job ended, before result_retention_s ($R s)"
else
    ok "a running daemon forgot the result $(((gone - fin2) / 1000)) s after its job ended (result_retention_s $R)"
fi
left=$(spool_files "$C")
[ -z "$left" ] || fail "spool files in (c): $left"
stop TERM
[ "$rc" = 0 ] || fail "SIGTERM at the end: exit status $rc"

if [ "$FAILS" -gt 0 ]; then
    echo "check_durability: $FAILS check(s) failed; files in $T (the daemon's log: $T/daemon.log)"
    exit 1
fi
rm -rf "$T"
echo "check_durability: all passed"
