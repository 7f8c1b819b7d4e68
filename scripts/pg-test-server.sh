#!/usr/bin/env bash
# pg-test-server.sh — a private, throwaway PostgreSQL server for tests, from
# Debian's postgresql package (initdb, pg_ctl under /usr/lib/postgresql/*/bin).
#
#   scripts/pg-test-server.sh start [DIR]   initdb into DIR (default: a new
#                                           /tmp/pg-XXXXXX), start the server on
#                                           127.0.0.1 at a free port, create the
#                                           database "cuzk"; prints two lines:
#                                             postgres://cuzk@127.0.0.1:PORT/cuzk
#                                             DIR
#   scripts/pg-test-server.sh restart DIR   pg_ctl restart (fast: sessions are
#                                           cut, as in a real database restart)
#   scripts/pg-test-server.sh stop DIR      stop the server and remove DIR
#
# The server trusts every connection (no password): it listens only on the
# loopback address and on a socket in DIR/sock, for the length of a test, and
# trades durability for speed (fsync off). Never point it at data you keep.
# PostgreSQL refuses to run as root, so under root the server runs as nobody
# (DIR is given to nobody); otherwise as the calling user. The server's log is
# DIR/log. `stop` removes only a folder this script made (DIR/pg-test-server).
# Exit status: 0 done, 1 failed (the reason on stderr, with the log's tail),
# 2 usage, 77 PostgreSQL's server binaries are not installed.
set -euo pipefail

die() {
    echo "pg-test-server: $*" >&2
    exit 1
}
usage() {
    echo "usage: pg-test-server.sh start [DIR] | restart DIR | stop DIR" >&2
    exit 2
}

# The newest installed server's bin folder (or PG_BINDIR when set).
find_bindir() {
    if [ -n "${PG_BINDIR:-}" ]; then
        [ -x "$PG_BINDIR/initdb" ] && [ -x "$PG_BINDIR/pg_ctl" ] && echo "$PG_BINDIR" && return 0
        return 1
    fi
    local d best=
    # newest major last (sort -V: 9.6 before 15)
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
        [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && best=$d
    done
    if [ -z "$best" ] && command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        best=$(dirname "$(command -v initdb)")
    fi
    [ -n "$best" ] && echo "$best"
}

BIN=$(find_bindir) || {
    echo "pg-test-server: PostgreSQL's server (initdb, pg_ctl) is not installed" \
        "(Debian: apt-get install postgresql)" >&2
    exit 77
}

# Runs a command as the server's user: nobody under root, else ourselves.
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then
        (cd / && runuser -u nobody -- "$@")
    else
        "$@"
    fi
}

# A port nothing listens on now (start retries on a bind failure anyway).
pick_port() {
    local p i
    for i in $(seq 1 50); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

log_tail() { [ -f "$1/log" ] && tail -n 20 "$1/log" >&2 || true; }

check_dir() {
    local dir=$1
    [ -n "$dir" ] || usage
    [ -f "$dir/pg-test-server" ] || die "$dir: not a folder made by pg-test-server.sh start"
}

start() {
    local dir=${1:-}
    case $dir in
    *[[:space:]\'\"]*) die "$dir: a folder without blanks or quotes, please (it goes into the server's options)" ;;
    esac
    if [ -z "$dir" ]; then
        dir=$(mktemp -d /tmp/pg-XXXXXX)
    else
        mkdir -p "$dir"
        [ -z "$(ls -A "$dir")" ] || die "$dir: the folder is not empty"
    fi
    dir=$(cd "$dir" && pwd)
    : >"$dir/pg-test-server"
    mkdir -p "$dir/sock"
    if [ "$(id -u)" -eq 0 ]; then
        chown -R nobody "$dir"
        chmod 0700 "$dir"
    fi
    as_pg "$BIN/initdb" -D "$dir/data" -U cuzk -A trust -E UTF8 --locale=C --no-sync \
        >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        die "initdb failed in $dir/data"
    }
    local port= try
    for try in 1 2 3 4 5 6 7 8; do
        port=$(pick_port) || die "no free port found"
        rm -f "$dir/log"
        if as_pg "$BIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 -s \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $dir/sock -c fsync=off -c full_page_writes=off -c max_connections=200" \
            start >/dev/null 2>&1; then
            echo "$port" >"$dir/port"
            break
        fi
        port=
        # another process took the port between the check and the bind: again
        grep -q "could not bind\|could not create any TCP/IP sockets" "$dir/log" 2>/dev/null ||
            { log_tail "$dir"; die "the server did not start (log: $dir/log)"; }
    done
    [ -n "$port" ] || { log_tail "$dir"; die "the server did not start (log: $dir/log)"; }
    as_pg "$BIN/createdb" -h 127.0.0.1 -p "$port" -U cuzk cuzk >/dev/null 2>&1 ||
        { log_tail "$dir"; die "createdb failed (log: $dir/log)"; }
    echo "postgres://cuzk@127.0.0.1:$port/cuzk"
    echo "$dir"
}

restart() {
    local dir=$1
    check_dir "$dir"
    local port
    port=$(cat "$dir/port")
    as_pg "$BIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 -s -m fast \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir/sock -c fsync=off -c full_page_writes=off -c max_connections=200" \
        restart >/dev/null 2>&1 || { log_tail "$dir"; die "the restart failed (log: $dir/log)"; }
}

stop() {
    local dir=$1
    check_dir "$dir"
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_pg "$BIN/pg_ctl" -D "$dir/data" -w -t 30 -s -m fast stop >/dev/null 2>&1 ||
            as_pg "$BIN/pg_ctl" -D "$dir/data" -w -t 10 -s -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

case "${1:-}" in
start)
    [ $# -le 2 ] || usage
    start "${2:-}"
    ;;
restart)
    [ $# -eq 2 ] || usage
    restart "$2"
    ;;
stop)
    [ $# -eq 2 ] || usage
    stop "$2"
    ;;
*) usage ;;
esac
