# lib.sh — what the daemon's shell tests share (sourced after they set $dir,
# the temporary folder they remove at exit): the failure count, the check of
# a command's exit status and output, and starting `cuzk daemon` in the
# background until it serves.

pid=
fail=0
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
say_fail() { echo "FAIL $1"; printf '%s\n' "$2" | sed 's/^/    /'; fail=1; }
ok() { echo "ok   $1"; }

# check WHAT RC PATTERN CMD...: CMD exits with RC and a line of its stdout or
# stderr matches the extended regex PATTERN ("" for any).
check() {
  what=$1 want=$2 pat=$3
  shift 3
  reply=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ]; then say_fail "$what: exit $rc, not $want" "$reply"; return 1; fi
  if [ -n "$pat" ] && ! printf '%s\n' "$reply" | grep -q -E -- "$pat"; then
    say_fail "$what: no line matches '$pat'" "$reply"
    return 1
  fi
  ok "$what"
}

# start_daemon CMD...: runs CMD (`cuzk daemon` with its Unix socket at
# $dir/d.sock and a TCP listener on 127.0.0.1:0) in the background, its log in
# $dir/daemon.log, until the socket exists and the log names the port: $pid,
# and $tcp as http://127.0.0.1:PORT. Exits 1 with the log when it does not.
start_daemon() {
  "$@" >"$dir/daemon.log" 2>&1 &
  pid=$!
  tcp=
  for _ in $(seq 300); do
    tcp=$(sed -n 's|.*listening on \(http://127\.0\.0\.1:[0-9][0-9]*\).*|\1|p' "$dir/daemon.log")
    [ -n "$tcp" ] && [ -S "$dir/d.sock" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$tcp" ] || [ ! -S "$dir/d.sock" ]; then
    echo "FAIL: the daemon did not start"
    cat "$dir/daemon.log"
    exit 1
  fi
}
