#!/usr/bin/env bash
# check_store_pg.sh TEST SOURCE_DIR [ARG...] — runs a test program (the
# PostgreSQL job queue's, tests/service/test_store_pg.c; or node with the
# status page's test and its arguments) against a private server:
# scripts/pg-test-server.sh starts one (initdb into /tmp/pg-XXXXXX, a
# loopback port), the program gets its URL in CUZK_PG_URL and restarts it
# through CUZK_PG_DIR and CUZK_PG_SCRIPT, and the server is stopped and its
# folder removed afterwards, whatever the outcome (the server's log is shown
# when the program failed). Exit: the program's status, 77 when PostgreSQL's
# server binaries are not installed (Debian: apt-get install postgresql).
set -u

TEST=${1:?usage: check_store_pg.sh TEST SOURCE_DIR [ARG...]}
SRC=${2:?usage: check_store_pg.sh TEST SOURCE_DIR [ARG...]}
shift 2
SCRIPT=$(cd "$SRC" && pwd)/scripts/pg-test-server.sh

reply=$(bash "$SCRIPT" start)
rc=$?
if [ "$rc" -eq 77 ]; then
    echo "check_store_pg: skipped: PostgreSQL's server (initdb, pg_ctl) is not installed"
    exit 77
fi
if [ "$rc" -ne 0 ]; then
    echo "check_store_pg: the test server did not start"
    exit 1
fi
URL=$(printf '%s\n' "$reply" | sed -n 1p)
DIR=$(printf '%s\n' "$reply" | sed -n 2p)
trap 'bash "$SCRIPT" stop "$DIR"' EXIT
echo "check_store_pg: server $URL in $DIR"

CUZK_PG_URL=$URL CUZK_PG_DIR=$DIR CUZK_PG_SCRIPT=$SCRIPT "$TEST" "$@"
rc=$?
if [ "$rc" -ne 0 ] && [ -f "$DIR/log" ]; then
    echo "check_store_pg: the server's log (last 40 lines):"
    tail -n 40 "$DIR/log"
fi
exit "$rc"
