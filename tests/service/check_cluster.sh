#!/usr/bin/env bash
# check_cluster.sh CUZK SOURCE_DIR — daemons on several machines sharing one
# PostgreSQL job queue (doc/cluster.md), played by three `cuzk daemon`s on
# this one (CPU backend, one thread each) against a private PostgreSQL
# server (scripts/pg-test-server.sh, removed afterwards), with a lease of
# 2 s. Keys: the snarkjs sample (examples/sample) and a bellman circuit of
# 2^14 constraints made here (a tenth of a second a partition).
#
#  - two daemons starting at once on an empty database migrate the schema
#    once (one of them applies every version, the other none);
#  - a job's partitions spread over the three daemons (the owner of each
#    partition in the database), submitted through one and awaited through
#    another, its proofs verified with `cuzk verify`; witnesses uploaded to
#    one daemon (payloads in the database) proved by the others;
#  - the cluster's view (GET /v1/cluster, `cuzk status --cluster`): every
#    daemon, its heartbeat, what it holds;
#  - kill -9 of a daemon holding partitions: they are proved elsewhere once
#    the lease expired, the job completes exactly once (every partition
#    done once, listed once, every proof verifies);
#  - a daemon started again mid-job rejoins and takes partitions of it;
#  - a daemon paused (SIGSTOP) past its lease while holding partitions:
#    they are proved elsewhere, and once it runs again its late work is
#    discarded (counted fenced or lost), never recorded: the partitions it
#    held end with another owner, the proofs verify;
#  - a cancel through one daemon stops the partitions another one proves;
#  - a slow copy of an uploaded witness (64 MiB in chunks of 256 bytes, made
#    in the database, of a key only daemon 3 serves): while it lasts, past
#    the lease, daemon 3 holds it, says it is fetching, keeps its lease and
#    still claims and proves partitions of another job; cancelled mid-copy,
#    the copy stops and leaves no scratch file;
#  - the database restarted under load: the daemons reconnect and every
#    job completes with valid proofs;
#  - SIGTERM mid-job: the daemon gives back the partitions it claimed but
#    had not started and the one whose witness it was copying, finishes the
#    one it proves, leaves the cluster's view, and the job completes once
#    through the others;
#  - queue positions count only the jobs of keys that the daemons of a
#    job's key serve: a job of a key no daemon serves any more is ahead of
#    none.
# Exit 0 all passed, 1 a check failed (each named), 77 PostgreSQL's server,
# psql, curl or python3 missing. Files go to /tmp/cluster-*, kept when a
# check failed.
set -u
cuzk=${1:?usage: check_cluster.sh CUZK SOURCE_DIR}
src=$(cd "${2:?usage: check_cluster.sh CUZK SOURCE_DIR}" && pwd) || exit 1
case $cuzk in /*) ;; *) cuzk=$(pwd)/$cuzk ;; esac
sample=$src/examples/sample
for tool in curl python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "check_cluster: skipped: $tool is not installed"
    exit 77
  fi
done
psql=$(command -v psql || ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -n 1)
if [ -z "$psql" ]; then
  echo "check_cluster: skipped: PostgreSQL's client psql is not installed"
  exit 77
fi
pg_script=$src/scripts/pg-test-server.sh
reply=$(bash "$pg_script" start)
rc=$?
if [ "$rc" -eq 77 ]; then
  echo "check_cluster: skipped: PostgreSQL's server (initdb, pg_ctl, psql) is not installed"
  exit 77
fi
[ "$rc" -eq 0 ] || { echo "check_cluster: the test server did not start"; exit 1; }
url=$(printf '%s\n' "$reply" | sed -n 1p)
pgdir=$(printf '%s\n' "$reply" | sed -n 2p)
dir=$(mktemp -d /tmp/cluster-XXXXXX)

. "$src/tests/service/lib.sh" # fail, say_fail, ok, check; the cleanup below is this test's
pids=(0 0 0 0)
cleanup() {
  for i in 1 2 3; do
    p=${pids[$i]}
    [ "$p" != 0 ] || continue
    kill -CONT "$p" 2>/dev/null
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  bash "$pg_script" stop "$pgdir"
  if [ "$fail" -eq 0 ]; then rm -rf "$dir"; else echo "files kept in $dir"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

sql() { "$psql" -X -A -t -q "$url" -c "$1"; }
api() { curl -s --max-time 30 --unix-socket "$dir/d$1.sock" "http://x$2"; }
# jq FILE EXPR: prints eval(EXPR) with j the JSON of FILE; exit 1 when falsy
jq() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(v); sys.exit(0 if v else 1)' "$@"; }

# ---- the keys and the daemons ----------------------------------------------------
"$cuzk" gen-circuit --profile porep --log-constraints 14 --partitions 1 -o "$dir/slow" \
  >/dev/null 2>&1 &&
  "$cuzk" setup "$dir/slow/circuit.cuzk" -o "$dir/slow/c.params" --vk "$dir/slow/c.vk" \
    >/dev/null 2>&1 || { say_fail "the slow test circuit could not be made" ""; exit 1; }
for i in 1 2 3; do
  cat >"$dir/d$i.conf" <<EOF
[server]
unix_socket = $dir/d$i.sock
[store]
store = $url
spool_dir = $dir/scratch$i
[engine]
backend = cpu
threads = 1
[cluster]
name = node$i
lease_ms = 2000
poll_ms = 500
[key sample]
zkey = $sample/circuit.zkey
r1cs = $sample/circuit.r1cs
[key slow]
circuit = $dir/slow/circuit.cuzk
params = $dir/slow/c.params
EOF
done
# a key only daemon 3 serves: its jobs are daemon 3's to claim
cat >>"$dir/d3.conf" <<EOF
[key pinned]
circuit = $dir/slow/circuit.cuzk
params = $dir/slow/c.params
EOF

# start I: daemon I in the background (log appended to d$I.log), $pids[I]
start() {
  "$cuzk" daemon --config "$dir/d$1.conf" >>"$dir/d$1.log" 2>&1 &
  pids[$1]=$!
}
# ready I: waits until daemon I serves
ready() {
  for _ in $(seq 300); do
    [ -S "$dir/d$1.sock" ] && api "$1" /v1/status >/dev/null 2>&1 && return 0
    kill -0 "${pids[$1]}" 2>/dev/null || break
    sleep 0.1
  done
  say_fail "daemon $1 did not start" "$(cat "$dir/d$1.log")"
  exit 1
}
# self I: daemon I's id in the cluster
self() { api "$1" /v1/cluster | python3 -c 'import json,sys; print(json.load(sys.stdin)["self"]["id"])'; }
# paths N WITNESS: N copies of WITNESS, for --witness-path
paths() { local p= i; for i in $(seq "$1"); do p="$p $2"; done; echo $p; }
# verify_slow ID N: job ID's N proofs, awaited through daemon 1, verify
verify_slow() {
  local id=$1 n=$2 pub= i
  "$cuzk" await --addr "unix:$dir/d1.sock" "$id" --timeout 120 -o "$dir/j$id.bin" \
    --public "$dir/j$id.txt" >/dev/null 2>&1 || return 1
  for i in $(seq 0 $((n - 1))); do pub="$pub $dir/j$id-$i.txt"; done
  # shellcheck disable=SC2086
  "$cuzk" verify --vk "$dir/slow/c.vk" --inputs $pub "$dir/j$id.bin" 2>&1 | grep -q "OK: $n partitions valid"
}
# held_by I: partitions daemon I holds now, by the database
held_by() { sql "SELECT count(*) FROM cuzk.partitions WHERE state = 1 AND owner = $(self "$1")"; }
# once ID N: the job's N partitions each done exactly once, the job listed once
once() {
  [ "$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $1 AND state = 2 AND proof IS NOT NULL")" = "$2" ] &&
    [ "$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $1")" = "$2" ] &&
    [ "$(api 1 "/v1/jobs?limit=1000" | python3 -c "import json,sys; print(sum(1 for j in json.load(sys.stdin)['jobs'] if j['id'] == $1))")" = 1 ]
}

# ---- two daemons starting at once migrate the schema once ------------------------------
start 1
start 2
ready 1
ready 2
applied=$(cat "$dir/d1.log" "$dir/d2.log" | sed -n 's/.*applied \([0-9]*\) schema migration.*/\1/p' | awk '{s += $1} END {print s + 0}')
versions=$(sql "SELECT count(*) FROM cuzk.schema_version")
if [ "${applied:-0}" = "$versions" ] && [ "$versions" -ge 2 ] &&
  [ "$(grep -l "schema migration" "$dir/d1.log" "$dir/d2.log" | wc -l)" = 1 ]; then
  ok "two daemons started at once: the schema migrated once ($versions versions, by one daemon)"
else
  say_fail "two daemons started at once: the schema migrated once" \
    "applied ${applied:-0}, versions $versions; $(grep -h "schema migration" "$dir/d1.log" "$dir/d2.log")"
fi
start 3
ready 3

# ---- a job's partitions spread over the daemons ---------------------------------------
api 1 /v1/cluster >"$dir/cl.json"
check "GET /v1/cluster: three daemons, fresh heartbeats" 0 '' jq "$dir/cl.json" \
  'j["store"] == "postgres" and len(j["daemons"]) == 3 and sorted(d["name"] for d in j["daemons"]) == ["node1", "node2", "node3"] and all(d["heartbeat_age_ms"] < 5000 and "keys sample,slow" in d["info"] for d in j["daemons"]) and j["self"]["name"] == "node1"'
# shellcheck disable=SC2046
spread=$("$cuzk" submit --addr "unix:$dir/d1.sock" --key slow --witness-path $(paths 12 "$dir/slow/w0.wit"))
if verify_slow "$spread" 12; then ok "job $spread of 12 partitions: done, every proof verifies"; else
  say_fail "job $spread of 12 partitions: done, every proof verifies" "$(tail -n 5 "$dir"/d*.log)"; fi
owners=$(sql "SELECT count(DISTINCT owner) FROM cuzk.partitions WHERE job_id = $spread")
if [ "$owners" = 3 ]; then ok "its partitions were proved by all three daemons"; else
  say_fail "its partitions were proved by all three daemons" \
    "$(sql "SELECT idx, owner FROM cuzk.partitions WHERE job_id = $spread ORDER BY idx")"; fi
# shellcheck disable=SC2046
up=$("$cuzk" submit --addr "unix:$dir/d3.sock" --key sample $(for _ in 1 2 3 4 5 6; do printf ' --witness %s' "$sample/witness.wtns"; done))
check "uploaded witnesses (payloads in the database): awaited through another daemon" 0 \
  "^job $up done: 6 partitions" \
  "$cuzk" await --addr "unix:$dir/d2.sock" "$up" --timeout 60 -o "$dir/up.json" --public "$dir/uppub.json"
good=0
for i in 0 1 2 3 4 5; do
  "$cuzk" groth16 verify "$sample/verification_key.json" "$dir/uppub-$i.json" "$dir/up-$i.json" \
    >/dev/null 2>&1 && good=$((good + 1))
done
if [ "$good" = 6 ]; then ok "its 6 proofs verify"; else say_fail "its 6 proofs verify" "$good of 6"; fi
check "cuzk status --cluster: every daemon, its heartbeat, what it holds" 0 'node3' \
  "$cuzk" status --cluster --addr "unix:$dir/d2.sock"

# ---- kill -9 of a daemon holding partitions ----------------------------------------------
# shellcheck disable=SC2046
killed=$("$cuzk" submit --addr "unix:$dir/d1.sock" --key slow --witness-path $(paths 30 "$dir/slow/w0.wit"))
for _ in $(seq 200); do [ "$(held_by 2)" -ge 1 ] && break; sleep 0.05; done
id2=$(self 2)
kill -9 "${pids[2]}"
wait "${pids[2]}" 2>/dev/null
pids[2]=0
# what it held when it died (a COMMIT it sent just before lands meanwhile;
# its leases, renewed a moment ago, outlast this look)
sleep 0.2
held=$(sql "SELECT string_agg(idx::text, ',') FROM cuzk.partitions WHERE job_id = $killed AND state = 1 AND owner = $id2")
if [ -n "$held" ]; then ok "daemon 2 killed (-9) holding partitions $held of job $killed"; else
  say_fail "daemon 2 killed (-9) holding partitions of job $killed" "it held none"; fi
if verify_slow "$killed" 30; then ok "job $killed: done through the others, every proof verifies"; else
  say_fail "job $killed: done through the others, every proof verifies" "$(tail -n 5 "$dir"/d*.log)"; fi
if once "$killed" 30; then ok "each of its 30 partitions done once, the job listed once"; else
  say_fail "each of its 30 partitions done once, the job listed once" \
    "$(sql "SELECT idx, state, owner, generation FROM cuzk.partitions WHERE job_id = $killed ORDER BY idx")"; fi
late=$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $killed AND idx IN (${held:-(-1)}) AND owner = $id2")
if [ "$late" = 0 ]; then ok "the partitions it held were proved by another daemon"; else
  say_fail "the partitions it held were proved by another daemon" "$late still its own"; fi
if grep -q "put back .* whose lease expired" "$dir/d1.log" "$dir/d3.log"; then
  ok "a reaper put them back once the lease expired"; else
  say_fail "a reaper put them back once the lease expired" "$(tail -n 5 "$dir/d1.log" "$dir/d3.log")"; fi

# ---- a daemon started again mid-job rejoins ------------------------------------------------
# shellcheck disable=SC2046
rejoin=$("$cuzk" submit --addr "unix:$dir/d1.sock" --key slow --witness-path $(paths 30 "$dir/slow/w0.wit"))
sleep 0.5
dead2=$id2
[ -d "$dir/scratch2/pg-$dead2" ] || say_fail "the killed daemon 2 left its scratch folder" "none"
start 2
ready 2
id2=$(self 2)
# its predecessor's scratch folder is swept at once: no process holds its lock
if [ ! -e "$dir/scratch2/pg-$dead2" ] && [ -d "$dir/scratch2/pg-$id2" ]; then
  ok "daemon 2 started again (as $id2) removed the scratch folder of the killed one ($dead2)"; else
  say_fail "daemon 2 started again removed the killed one's scratch folder" "$(ls -a "$dir/scratch2")"; fi
if verify_slow "$rejoin" 30 && once "$rejoin" 30; then
  ok "job $rejoin: done once, every proof verifies"; else
  say_fail "job $rejoin: done once, every proof verifies" "$(tail -n 5 "$dir"/d*.log)"; fi
took=$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $rejoin AND owner = $id2")
if [ "$took" -ge 1 ]; then ok "daemon 2, started again mid-job (as $id2), proved $took of its partitions"
else say_fail "daemon 2, started again mid-job, proved some of its partitions" "none"; fi

# ---- a daemon paused past its lease ----------------------------------------------------------
# shellcheck disable=SC2046
paused=$("$cuzk" submit --addr "unix:$dir/d1.sock" --key slow --witness-path $(paths 30 "$dir/slow/w0.wit"))
for _ in $(seq 200); do [ "$(held_by 3)" -ge 1 ] && break; sleep 0.05; done
id3=$(self 3)
kill -STOP "${pids[3]}"
sleep 0.2 # a COMMIT it sent just before lands meanwhile
stopped=$(sql "SELECT string_agg(idx::text, ',') FROM cuzk.partitions WHERE job_id = $paused AND state = 1 AND owner = $id3")
if [ -n "$stopped" ]; then ok "daemon 3 paused (SIGSTOP) holding partitions $stopped of job $paused"; else
  say_fail "daemon 3 paused holding partitions of job $paused" "it held none"; fi
if verify_slow "$paused" 30 && once "$paused" 30; then
  ok "job $paused: done by the others meanwhile, once, every proof verifies"; else
  say_fail "job $paused: done by the others meanwhile" "$(tail -n 5 "$dir"/d*.log)"; fi
kill -CONT "${pids[3]}"
for _ in $(seq 100); do
  api 3 /v1/cluster >"$dir/c3.json" 2>/dev/null
  jq "$dir/c3.json" 'j["self"]["fenced"] + j["self"]["lost"] >= 1 and j["self"]["held"] == 0' >/dev/null 2>&1 && break
  sleep 0.1
done
check "resumed, daemon 3 discarded its late work (fenced or stopped as lost)" 0 '' \
  jq "$dir/c3.json" 'j["self"]["fenced"] + j["self"]["lost"] >= 1 and j["self"]["held"] == 0'
mine=$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $paused AND idx IN (${stopped:-(-1)}) AND owner = $id3")
if [ "$mine" = 0 ]; then ok "none of the partitions it held is recorded as its"; else
  say_fail "none of the partitions it held is recorded as its" "$mine are"; fi
if grep -q -E "discarded|passed to another daemon" "$dir/d3.log"; then ok "its log says so"; else
  say_fail "its log says so" "$(tail -n 8 "$dir/d3.log")"; fi
if verify_slow "$paused" 30; then ok "job $paused's proofs still verify"; else
  say_fail "job $paused's proofs still verify" ""; fi

# ---- a cancel reaches the daemons proving the job --------------------------------------------
# shellcheck disable=SC2046
cancel=$("$cuzk" submit --addr "unix:$dir/d1.sock" --key slow --witness-path $(paths 200 "$dir/slow/w0.wit"))
for _ in $(seq 200); do
  [ "$(sql "SELECT count(DISTINCT owner) FROM cuzk.partitions WHERE job_id = $cancel AND state = 1")" -ge 2 ] && break
  sleep 0.05
done
check "cancel job $cancel through daemon 1 while the cluster proves it" 0 "cancelled" \
  "$cuzk" cancel --addr "unix:$dir/d1.sock" "$cancel"
for _ in $(seq 60); do
  [ "$(sql "SELECT count(*) FROM cuzk.partitions WHERE state = 1")" = 0 ] && break
  sleep 0.1
done
left=$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $cancel AND state IN (0, 1)")
stopped_ended=0
for i in 2 3; do
  api "$i" /v1/cluster >"$dir/c$i.json"
  e=$(jq "$dir/c$i.json" 'j["self"]["ended"]' 2>/dev/null)
  stopped_ended=$((stopped_ended + ${e:-0}))
done
if [ "$left" = 0 ] && [ "$stopped_ended" -ge 1 ]; then
  ok "no partition of it left claimed or queued; the other daemons stopped $stopped_ended"; else
  say_fail "the cancel reached the other daemons" "left $left, stopped $stopped_ended"; fi

# ---- a slow copy of an uploaded witness does not hold up claims ------------------------------------
# slow_payload: a job of key pinned (daemon 3's alone) whose one partition's
# witness is a payload of 64 MiB in chunks of 256 bytes, made in the
# database (uploads write 4 MiB chunks), so that copying it takes seconds
# (a query per chunk: some 16384 for each 4 MiB block read at once);
# prints the job's id. Its bytes are zeros: it is cancelled before it
# could be proved.
slow_payload() {
  local id
  id=$(sql "WITH j AS (INSERT INTO cuzk.jobs (key_name, priority, n_partitions) VALUES ('pinned', 3, 1) RETURNING id),
    w AS (INSERT INTO cuzk.witnesses (job_id, bytes, chunk_bytes, complete) SELECT id, 67108864, 256, true FROM j RETURNING id, job_id),
    c AS (INSERT INTO cuzk.witness_chunks (witness_id, seq, data) SELECT w.id, g, decode(repeat('00', 256), 'hex') FROM w, generate_series(0, 262143) g),
    p AS (INSERT INTO cuzk.partitions (job_id, idx, witness_id) SELECT job_id, 0, id FROM w)
    SELECT job_id FROM w")
  sql "SELECT pg_notify('cuzk_job_new', '$id pinned')" >/dev/null
  echo "$id"
}
# copy_file ID: daemon 3's scratch file for job ID's partition ("" when none)
copy_file() { ls "$dir"/scratch3/pg-*/claim-"$1"-0-* 2>/dev/null | head -n 1; }
id3=$(self 3)
copy=$(slow_payload)
t0=$(date +%s%N)
for _ in $(seq 200); do [ -n "$(copy_file "$copy")" ] && break; sleep 0.05; done
gen=$(sql "SELECT generation FROM cuzk.partitions WHERE job_id = $copy AND state = 1 AND owner = $id3")
api 3 /v1/cluster >"$dir/c3.json"
if [ -n "$(copy_file "$copy")" ] && [ -n "$gen" ] && jq "$dir/c3.json" 'j["self"]["fetching"] == 1' >/dev/null; then
  ok "daemon 3 copies job $copy's witness (64 MiB in 256-byte chunks): it holds it, fetching 1"; else
  say_fail "daemon 3 copies job $copy's witness" "file '$(copy_file "$copy")', generation '$gen'; $(cat "$dir/c3.json")"; fi
# shellcheck disable=SC2046
beside=$("$cuzk" submit --addr "unix:$dir/d1.sock" --key slow --witness-path $(paths 12 "$dir/slow/w0.wit"))
if verify_slow "$beside" 12; then ok "job $beside submitted meanwhile: done, every proof verifies"; else
  say_fail "job $beside submitted meanwhile: done, every proof verifies" "$(tail -n 5 "$dir"/d*.log)"; fi
by3=$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $beside AND owner = $id3 AND state = 2")
still=$(copy_file "$copy")
if [ "$by3" -ge 1 ] && [ -n "$still" ]; then
  ok "daemon 3 proved $by3 of its partitions while the copy went on"; else
  say_fail "daemon 3 proved partitions of job $beside while the copy went on"     "it proved $by3; the copy '$still'; $(tail -n 5 "$dir/d3.log")"; fi
# past the lease (2 s) the copy's lease is still daemon 3's, under the same generation
while [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 3000 ]; do sleep 0.1; done
held=$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $copy AND state = 1 AND owner = $id3 AND generation = ${gen:-0} AND lease_expires > now()")
if [ "$held" = 1 ] && [ -n "$(copy_file "$copy")" ]; then
  ok "3 s into the copy, its lease is still daemon 3's (renewed, generation $gen)"; else
  say_fail "its lease is still daemon 3's during the copy"     "$(sql "SELECT state, owner, generation, lease_expires > now() FROM cuzk.partitions WHERE job_id = $copy"); file '$(copy_file "$copy")'"; fi
t1=$(date +%s%N)
check "cancel job $copy mid-copy" 0 "cancelled" "$cuzk" cancel --addr "unix:$dir/d1.sock" "$copy"
for _ in $(seq 300); do
  api 3 /v1/cluster >"$dir/c3.json"
  [ -z "$(copy_file "$copy")" ] && jq "$dir/c3.json" 'j["self"]["fetching"] == 0' >/dev/null 2>&1 && break
  sleep 0.1
done
if [ -z "$(copy_file "$copy")" ] && jq "$dir/c3.json" 'j["self"]["fetching"] == 0' >/dev/null &&
  [ "$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $copy AND state = 1")" = 0 ]; then
  ok "the copy stopped ($(( ($(date +%s%N) - t1) / 1000000 )) ms after the cancel): no scratch file left, nothing fetching, the partition not held"; else
  say_fail "the copy stopped: no scratch file left"     "file '$(copy_file "$copy")'; $(cat "$dir/c3.json"); $(tail -n 5 "$dir/d3.log")"; fi

# ---- the database restarted under load -------------------------------------------------------
# shellcheck disable=SC2046
r1=$("$cuzk" submit --addr "unix:$dir/d1.sock" --key slow --witness-path $(paths 24 "$dir/slow/w0.wit"))
# shellcheck disable=SC2046
r2=$("$cuzk" submit --addr "unix:$dir/d2.sock" --key slow --priority high --witness-path $(paths 12 "$dir/slow/w0.wit"))
sleep 0.4
if bash "$pg_script" restart "$pgdir"; then ok "the database restarted with jobs $r1 and $r2 running"; else
  say_fail "the database restarted" ""; fi
if verify_slow "$r2" 12 && verify_slow "$r1" 24 && once "$r1" 24 && once "$r2" 12; then
  ok "both done once after it, every proof verifies"; else
  say_fail "both done once after the restart, every proof verifies" "$(tail -n 8 "$dir"/d*.log)"; fi
rec=0
for i in 1 2 3; do
  api "$i" /v1/cluster >"$dir/c$i.json"
  n=$(jq "$dir/c$i.json" 'j["self"]["reconnects"]' 2>/dev/null)
  rec=$((rec + ${n:-0}))
done
if [ "$rec" -ge 3 ]; then ok "the daemons reconnected ($rec connections made again)"; else
  say_fail "the daemons reconnected" "$rec connections made again"; fi

# ---- SIGTERM: the daemon drains and leaves ----------------------------------------------------
pending=$(slow_payload)
for _ in $(seq 200); do [ -n "$(copy_file "$pending")" ] && break; sleep 0.05; done
# shellcheck disable=SC2046
drain=$("$cuzk" submit --addr "unix:$dir/d1.sock" --key slow --witness-path $(paths 30 "$dir/slow/w0.wit"))
for _ in $(seq 200); do [ "$(held_by 3)" -ge 3 ] && break; sleep 0.02; done
copying=$(copy_file "$pending")
t0=$(date +%s%N)
kill -TERM "${pids[3]}"
wait "${pids[3]}"
rc=$?
took=$(( ($(date +%s%N) - t0) / 1000000 ))
pids[3]=0
api 1 /v1/cluster >"$dir/cl.json"
if [ "$rc" = 0 ] && jq "$dir/cl.json" '"node3" not in [d["name"] for d in j["daemons"]]' >/dev/null; then
  ok "SIGTERM mid-job: daemon 3 drained (exit 0) and left the cluster"; else
  say_fail "SIGTERM: daemon 3 drained and left the cluster" "exit $rc; $(cat "$dir/cl.json")"; fi
if grep -q -E "gave back [0-9]+ partition" "$dir/d3.log"; then
  ok "it gave back what it had claimed but not started: $(grep -o -E "gave back [0-9]+ partitions? not started" "$dir/d3.log" | tail -n 1)"; else
  say_fail "it gave back what it had claimed but not started" "$(tail -n 5 "$dir/d3.log")"; fi
if verify_slow "$drain" 30 && once "$drain" 30; then
  ok "job $drain: done once by the others, every proof verifies"; else
  say_fail "job $drain: done once by the others, every proof verifies" "$(tail -n 5 "$dir"/d*.log)"; fi
back=$(sql "SELECT count(*) FROM cuzk.partitions WHERE job_id = $pending AND state = 0 AND owner IS NULL")
if [ -n "$copying" ] && [ "$back" = 1 ] && [ "$took" -lt 10000 ] &&
  grep -q "job $pending partition 0 given back: the daemon is draining" "$dir/d3.log"; then
  ok "the partition it was copying (job $pending) went back to the queue; the drain took $took ms"; else
  say_fail "the partition it was copying went back to the queue"     "copying '$copying', back $back, drain $took ms; $(grep "job $pending" "$dir/d3.log" | tail -n 3)"; fi

# ---- queue positions: the keys the daemons of a job's key serve --------------------------------
# job $pending (key pinned, critical) waits with no daemon serving its key
# now: it is ahead of no job of another key
# shellcheck disable=SC2046
behind=$("$cuzk" submit --addr "unix:$dir/d1.sock" --key slow --witness-path $(paths 200 "$dir/slow/w0.wit"))
api 1 "/v1/jobs/$behind" >"$dir/behind.json"
check "a job of key slow behind job $pending (pinned, no daemon serves it): queue_position 0" 0 ''   jq "$dir/behind.json" 'j["queue_position"] == 0 and j["partitions"] - j["partitions_done"] - j["partitions_running"] > 0'
api 1 "/v1/jobs/$pending" >"$dir/pending.json"
check "job $pending waits (queued), ahead of nothing either" 0 ''   jq "$dir/pending.json" 'j["state"] == "queued" and j["queue_position"] == 0'
"$cuzk" cancel --addr "unix:$dir/d1.sock" "$behind" >/dev/null 2>&1
"$cuzk" cancel --addr "unix:$dir/d1.sock" "$pending" >/dev/null 2>&1

[ "$fail" -eq 0 ] && echo "check_cluster: every check passed"
exit "$fail"
