#!/bin/sh
# check_client.sh CUZK SOURCE_DIR — the daemon's client against a real daemon.
#
# Starts `cuzk daemon` with the CPU backend on a temporary Unix socket and a
# TCP port on 127.0.0.1 that the kernel picks (read back from the daemon's
# "listening on" line), with a token file of mode 0600, serving
# examples/sample as key "sample" and a small bellman circuit (gen-circuit,
# development setup) as key "bell". Then drives it through the client:
# status, submit (uploads and server paths, a request id), await with and
# without a timeout, prove --addr (snarkjs and bellman, partitions), cancel,
# jobs, a failing job, bench stress; every proof written is verified with
# `cuzk groth16 verify` or `cuzk verify`; a missing or wrong token, an
# unknown key or job, a missing file and bad addresses must fail with a
# message that names them and a nonzero exit status.
set -u
cuzk=$1 src=$(cd "$2" && pwd) || exit 1
sample=$src/examples/sample
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-client.XXXXXX") || exit 1
. "$src/tests/service/lib.sh"

# ---- the daemon -------------------------------------------------------------
"$cuzk" gen-circuit --profile porep --log-constraints 10 --partitions 2 -o "$dir/bell" \
  >/dev/null 2>&1 &&
  "$cuzk" setup "$dir/bell/circuit.cuzk" -o "$dir/bell/c.params" --vk "$dir/bell/c.vk" \
    >/dev/null 2>&1 ||
  { echo "FAIL: the bellman test circuit could not be made"; exit 1; }
"$cuzk" gen-circuit --profile dense --log-constraints 10 -o "$dir/other" >/dev/null 2>&1 ||
  { echo "FAIL: gen-circuit"; exit 1; }
token=client-test-token-$$-$(date +%s)
(umask 077 && printf '%s\n' "$token" >"$dir/token")
mkdir "$dir/spool"
cat >"$dir/cuzk.conf" <<EOF
[server]
unix_socket = $dir/d.sock
token_file = $dir/token
[store]
database = $dir/cuzk.db
spool_dir = $dir/spool
[key sample]
zkey = $sample/circuit.zkey
r1cs = $sample/circuit.r1cs
EOF
start_daemon "$cuzk" daemon --config "$dir/cuzk.conf" --engine.backend cpu \
  --server.tcp_listen 127.0.0.1:0 --key.bell.circuit "$dir/bell/circuit.cuzk" \
  --key.bell.params "$dir/bell/c.params"
unix=unix:$dir/d.sock
echo "daemon on $unix and $tcp"
export CUZK_ADDR="$unix"
unset CUZK_TOKEN
tok="--token-file $dir/token"

# ---- status -----------------------------------------------------------------
check "status over the Unix socket" 0 'cpu backend' "$cuzk" status
check "status lists the keys" 0 '^  sample +snarkjs' "$cuzk" status --addr "$unix"
check "status --json over TCP with the token" 0 '"backend": "cpu"' \
  "$cuzk" status --addr "$tcp" $tok --json
check "no token over TCP: 401" 2 "^cuzk status: $tcp: 401 " "$cuzk" status --addr "$tcp"
check "a wrong token over TCP: 401" 2 "^cuzk status: $tcp: 401 " \
  env CUZK_TOKEN=not-the-token-0123456789 "$cuzk" status --addr "$tcp"
check "\$CUZK_TOKEN over TCP" 0 'cpu backend' env CUZK_TOKEN="$token" "$cuzk" status --addr "$tcp"

# ---- submit and await ---------------------------------------------------------
id=$("$cuzk" submit --key sample --witness "$sample/witness.wtns")
case $id in
  '' | *[!0-9]*) say_fail "submit prints the job id" "$id" ;;
  *) echo "ok   submit prints the job id ($id)" ;;
esac
check "await writes proof.json and public.json" 0 "^job $id done: 1 partition" \
  "$cuzk" await "$id" --timeout 60 -o "$dir/proof.json" --public "$dir/public.json"
check "the awaited proof verifies" 0 'OK' \
  "$cuzk" groth16 verify "$sample/verification_key.json" "$dir/public.json" "$dir/proof.json"
check "await --json prints the job" 0 '"state": "done"' "$cuzk" await "$id" --json

id2=$("$cuzk" submit --addr "$tcp" $tok --key sample --priority high --request-id "client-$$" \
  --witness-path "$sample/witness.wtns")
id3=$("$cuzk" submit --addr "$tcp" $tok --key sample --priority high --request-id "client-$$" \
  --witness-path "$sample/witness.wtns")
if [ -n "$id2" ] && [ "$id2" = "$id3" ]; then
  echo "ok   a request id submitted twice is one job ($id2)"
else
  say_fail "a request id submitted twice is one job" "$id2 / $id3"
fi
check "await over TCP, server path" 0 "^job $id2 done" \
  "$cuzk" await --addr "$tcp" $tok "$id2" --timeout 60 -o "$dir/p2.json" --public "$dir/q2.json"
check "its proof verifies" 0 'OK' \
  "$cuzk" groth16 verify "$sample/verification_key.json" "$dir/q2.json" "$dir/p2.json"

# ---- prove --addr -------------------------------------------------------------
check "prove --addr: two partitions" 0 'done: 2 partitions' \
  "$cuzk" prove --addr "$tcp" $tok --key sample --witness "$sample/witness.wtns" \
  "$sample/witness.wtns" -o "$dir/pp.json" --public "$dir/pq.json" --timeout 60
for i in 0 1; do
  check "partition $i's proof (pp-$i.json) verifies" 0 'OK' \
    "$cuzk" groth16 verify "$sample/verification_key.json" "$dir/pq-$i.json" "$dir/pp-$i.json"
done
check "prove --addr --json" 0 '"state": "done"' \
  "$cuzk" prove --addr "$unix" --key sample --witness "$sample/witness.wtns" --json
check "prove --addr, a bellman key" 0 'done: 2 partitions' \
  "$cuzk" prove --addr "$unix" --key bell --witness "$dir/bell/w0.wit" "$dir/bell/w1.wit" \
  -o "$dir/b.bin" --public "$dir/bpub.txt"
check "the bellman proofs verify against the written inputs" 0 'OK: 2 partitions valid' \
  "$cuzk" verify --vk "$dir/bell/c.vk" --inputs "$dir/bpub-0.txt" "$dir/bpub-1.txt" "$dir/b.bin"
check "the bellman proofs verify against the witnesses" 0 'OK: 2 partitions valid' \
  "$cuzk" verify --vk "$dir/bell/c.vk" --inputs "$dir/bell/w0.wit" "$dir/bell/w1.wit" "$dir/b.bin"

# ---- a job that fails, one cancelled ----------------------------------------------
check "a witness of another circuit: refused at submission" 2 'witness 0 \(uploaded\).*another circuit' \
  "$cuzk" prove --addr "$unix" --key sample --witness "$dir/other/w0.wit" -o "$dir/f.json"
# the sample's witness with its last value changed: accepted, then the job fails
cp "$sample/witness.wtns" "$dir/unsat.wtns"
printf '\007' | dd of="$dir/unsat.wtns" bs=1 seek=$(( $(stat -c %s "$dir/unsat.wtns") - 32 )) \
  conv=notrunc status=none
check "a witness that does not satisfy the circuit: the job fails, exit 1" 1 'job [0-9]+ failed: ERR_' \
  "$cuzk" prove --addr "$unix" --key sample --witness "$dir/unsat.wtns" -o "$dir/f.json"
[ -e "$dir/f.json" ] && say_fail "a failed job wrote its output" "$dir/f.json"
# 1000 partitions of the sample keep the CPU busy for seconds
paths=
for _ in $(seq 1000); do paths="$paths $sample/witness.wtns"; done
# shellcheck disable=SC2086
long=$("$cuzk" submit --key sample --priority low --witness-path $paths)
check "await --timeout on a long job: exit 3" 3 "job $long is still (queued|running)" \
  "$cuzk" await "$long" --timeout 0.2 -o "$dir/long.json"
[ -e "$dir/long.json" ] && say_fail "a job not done wrote its output" "$dir/long.json"
check "jobs --state running,queued lists it" 0 "^$long +(running|queued) +low +sample" \
  "$cuzk" jobs --state running,queued
check "cancel" 0 "^job $long: cancelled" "$cuzk" cancel "$long"
check "await a cancelled job: exit 1" 1 "job $long cancelled" "$cuzk" await "$long"

# ---- jobs -----------------------------------------------------------------------------
check "jobs: a table" 0 "^$id +done +normal +sample +1/1 " "$cuzk" jobs
check "jobs --state cancelled" 0 "^$long +cancelled" "$cuzk" jobs --state cancelled
reply=$("$cuzk" jobs --state done --json)
if printf '%s' "$reply" | grep -q '"state": "done"' && ! printf '%s' "$reply" | grep -q '"cancelled"'; then
  echo "ok   jobs --state done --json"
else
  say_fail "jobs --state done --json" "$reply"
fi
check "jobs --limit 1 --json pages" 0 '"next_after": [0-9]+' "$cuzk" jobs --limit 1 --json
check "jobs --after the last: none" 0 '^no jobs$' "$cuzk" jobs --after "$long"

# ---- outputs that are inputs: refused before anything is sent ----------------------------
cp "$sample/witness.wtns" "$dir/wcopy.wtns"
cp "$dir/token" "$dir/tcopy"
check "prove --addr: -o is an uploaded --witness" 2 "-o $dir/wcopy.wtns is also the --witness input" \
  "$cuzk" prove --addr "$unix" --key sample --witness "$dir/wcopy.wtns" -o "$dir/wcopy.wtns"
check "prove --addr: --public is an uploaded --witness" 2 "--witness input" \
  "$cuzk" prove --addr "$unix" --key sample --witness "$sample/witness.wtns" \
  "$dir/wcopy.wtns" --public "$dir/wcopy.wtns"
check "await: -o is the --token-file" 2 "-o $dir/tcopy is also the --token-file input" \
  "$cuzk" await "$id" --token-file "$dir/tcopy" -o "$dir/tcopy"
if cmp -s "$sample/witness.wtns" "$dir/wcopy.wtns" && cmp -s "$dir/token" "$dir/tcopy"; then
  ok "the witness and the token file are unchanged"; else
  say_fail "the witness and the token file are unchanged" "overwritten"; fi

# ---- bad input --------------------------------------------------------------------------
check "an unknown key" 2 "$unix: 404 .*nope" \
  "$cuzk" submit --key nope --witness "$sample/witness.wtns"
check "a missing witness file" 2 "^cuzk submit: --witness $dir/missing.wtns: No such file" \
  "$cuzk" submit --key sample --witness "$dir/missing.wtns"
check "a relative server path" 2 "must be an absolute path" \
  "$cuzk" submit --key sample --witness-path missing.wtns
check "an unknown job" 2 "404 .*" "$cuzk" await 999999
check "a socket that does not exist" 2 \
  "^cuzk status: unix:$dir/none.sock: connect: No such file or directory" \
  "$cuzk" status --addr "unix:$dir/none.sock"
check "a port nobody listens on" 2 "^cuzk jobs: http://127.0.0.1:1: connect: " \
  "$cuzk" jobs --addr http://127.0.0.1:1
check "an address of another scheme" 2 "ftp://x: must be unix:/PATH or http://HOST:PORT" \
  "$cuzk" status --addr ftp://x
check "\$CUZK_ADDR is named when bad" 2 '^cuzk status: \$CUZK_ADDR http://\[::1: ' \
  env CUZK_ADDR='http://[::1' "$cuzk" status
check "a missing token file" 2 "--token-file $dir/nofile: No such file" \
  "$cuzk" status --addr "$tcp" --token-file "$dir/nofile"
check "-o and --public one file" 2 "are the same file" \
  "$cuzk" prove --addr "$unix" --key sample --witness "$sample/witness.wtns" \
  -o "$dir/same.json" --public "$dir/same.json"
check "an output in a missing folder" 2 "$dir/nodir/p.json" \
  "$cuzk" await "$id" -o "$dir/nodir/p.json"
check "await without an id" 2 'usage: cuzk await' "$cuzk" await
check "submit without --key" 2 'missing --key' "$cuzk" submit --witness "$sample/witness.wtns"
check "prove --addr with a local option" 2 '--circuit is an option of the local prover' \
  "$cuzk" prove --addr "$unix" --circuit c --key sample
for c in submit await cancel jobs status; do
  check "$c --help" 0 "^usage: cuzk $c" "$cuzk" "$c" --help
done
check "prove --addr A --help" 0 '^usage: cuzk prove --addr' "$cuzk" prove --addr "$unix" --help

# ---- bench stress -------------------------------------------------------------------------
check "bench stress, 2 clients x 4 jobs" 0 '4 done.*jobs/s.*partitions/s' \
  "$cuzk" bench stress --addr "$unix" --clients 2 --jobs 4 --key sample \
  --witness "$sample/witness.wtns"
check "bench stress --json over TCP" 0 '"done": 4, "partitions": 4,.*"p99"' \
  "$cuzk" bench stress --addr "$tcp" $tok --clients 2 --jobs 4 --key sample \
  --witness-path "$sample/witness.wtns" --json
check "bench stress without the token: errors by status" 1 'errors 401: 4' \
  "$cuzk" bench stress --addr "$tcp" --clients 2 --jobs 4 --key sample \
  --witness "$sample/witness.wtns"

if ! kill -0 "$pid" 2>/dev/null; then
  say_fail "the daemon is gone" "$(cat "$dir/daemon.log")"
fi
[ "$fail" -eq 0 ] && echo "check_client: every check passed"
exit "$fail"
