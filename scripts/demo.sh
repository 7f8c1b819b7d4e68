#!/usr/bin/env bash
# demo.sh — cuzk as a user meets it (`make run`): the proving daemon on a
# local socket and port with the snarkjs sample as key "sample", the sample
# proved through the client and verified, then the status page's address
# and the client commands to try. It keeps serving until Ctrl-C, which
# drains the daemon. With stdin not a terminal (a script, CI) it stops the
# daemon after the proof instead.
#
#   scripts/demo.sh [BUILD_DIR]      (default: build)
#
# The daemon's state (database, spool, socket, token, log) lives in
# BUILD_DIR/demo (the socket in a short temporary folder where that path
# would be too long for one); jobs left there resume at the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cuzk=$build/cuzk
sample=examples/sample
state=$build/demo
[ -x "$cuzk" ] || { echo "demo: no $cuzk (build first)" >&2; exit 2; }
mkdir -p "$state"
state=$(cd "$state" && pwd)

# A token for the TCP listener, kept between runs, readable by its owner only.
if [ ! -s "$state/token" ]; then
    (umask 077 && od -An -tx1 -N24 /dev/urandom | tr -d ' \n' > "$state/token")
fi
chmod 600 "$state/token"
token=$(cat "$state/token")
sock=$state/cuzk.sock
sock_dir=""
if [ ${#sock} -gt 100 ]; then # a Unix socket's path holds 107 bytes at most
    sock_dir=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-demo.XXXXXX")
    sock=$sock_dir/cuzk.sock
fi
export CUZK_ADDR=unix:$sock

# in a session of its own: Ctrl-C reaches this script alone, which asks the
# daemon once to drain (a second signal would make it exit at once)
setsid "$cuzk" daemon --server.unix_socket "$sock" --server.unix_socket_mode 0600 \
    --server.tcp_listen 127.0.0.1:0 --server.token_file "$state/token" \
    --store.database "$state/cuzk.db" --store.spool_dir "$state/spool" \
    --engine.backend auto \
    --key.sample.zkey "$PWD/$sample/circuit.zkey" --key.sample.r1cs "$PWD/$sample/circuit.r1cs" \
    2> "$state/daemon.log" &
daemon=$!
stop_daemon() {
    kill -TERM "$daemon" 2> /dev/null || true
    wait "$daemon" 2> /dev/null || true
    [ -z "$sock_dir" ] || rm -rf "$sock_dir"
}
trap 'echo; echo "demo: stopping the daemon (it drains first)"; stop_daemon; exit 0' INT TERM
trap stop_daemon EXIT

# Up when the log names its TCP port.
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$state/daemon.log")
    [ -n "$port" ] && break
    kill -0 "$daemon" 2> /dev/null || { cat "$state/daemon.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { echo "demo: the daemon did not start:" >&2; cat "$state/daemon.log" >&2; exit 1; }

echo "== the daemon: unix:$sock and http://127.0.0.1:$port (log: $state/daemon.log)"
echo "== proving the sample through it"
"$cuzk" prove --addr "$CUZK_ADDR" --key sample --witness "$sample/witness.wtns" \
    -o "$build/sample-proof.json" --public "$build/sample-public.json"
"$cuzk" groth16 verify "$sample/verification_key.json" "$build/sample-public.json" \
    "$build/sample-proof.json"
echo
"$cuzk" status
cat << EOF

Status page:  http://127.0.0.1:$port/#token=$token
Try (in another shell):
  export CUZK_ADDR=unix:$sock
  $cuzk submit --key sample --witness $sample/witness.wtns
  $cuzk await ID -o proof.json --public public.json
  $cuzk jobs
  $cuzk status
  $cuzk bench stress --addr \$CUZK_ADDR --clients 4 --jobs 40 --key sample --witness $sample/witness.wtns
  curl --unix-socket $sock http://cuzk/v1/status
  curl -H 'Authorization: Bearer $token' http://127.0.0.1:$port/metrics
EOF
if [ -t 0 ]; then
    echo
    echo "Serving until Ctrl-C."
    wait "$daemon"
else
    echo "demo: stdin is not a terminal: stopping the daemon (it drains first)"
fi
