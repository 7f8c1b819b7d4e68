#!/usr/bin/env bash
# install-deps.sh — install what building and testing cuzk needs, only what is
# missing. Debian packages with apt-get when run as root; the npm test tools
# with `npm ci` from the committed lock file (tests/js/package-lock.json).
#
#   scripts/install-deps.sh build   compiler toolchain only (make run)
#   scripts/install-deps.sh test    + GMP, clang/libFuzzer, node/npm + npm ci (make test)
set -euo pipefail
mode=${1:-test}
here=$(cd "$(dirname "$0")/.." && pwd)

need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }
want_cmd() { have_cmd "$1" || need+=("$2"); }
want_pkg() { have_pkg "$1" || need+=("$1"); }

want_cmd cc gcc
want_cmd make make
want_cmd cmake cmake
# SQLite: the service's durable job store (src/service)
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
# libmicrohttpd: the daemon's HTTP server; pkg-config finds it for CMake
[ -f /usr/include/microhttpd.h ] || need+=(libmicrohttpd-dev)
# libpq: the job queue daemons on many machines share (src/service/store_pg.c)
[ -f /usr/include/postgresql/libpq-fe.h ] || need+=(libpq-dev)
want_cmd pkg-config pkgconf
if [ "$mode" = test ]; then
    # GMP: the reference arithmetic of the differential tests.
    [ -f /usr/include/gmp.h ] || [ -f /usr/include/x86_64-linux-gnu/gmp.h ] || need+=(libgmp-dev)
    want_cmd clang clang # libFuzzer and sanitizer builds
    if have_cmd dpkg-query && have_cmd apt-get; then
        ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
            need+=(libclang-rt-dev)
    fi
    want_cmd node nodejs
    want_cmd npm npm
    want_cmd python3 python3 # regenerates generated files to check they are current
    want_cmd chromium chromium # the daemon's status page in a headless browser (tests/service)
    want_cmd curl curl         # the daemon's tests send requests with it
    # Debian's Rust (not a rustup one): the supraseal-c2 shim crate's test
    [ -x /usr/bin/cargo ] || need+=(cargo)
    [ -x /usr/bin/rustc ] || need+=(rustc)
    # PostgreSQL's server: the job queue's tests start a private one (scripts/pg-test-server.sh)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
fi

if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && have_cmd apt-get; then
        echo "install-deps: installing ${need[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    else
        echo "install-deps: missing ${need[*]}; install them (Debian: apt-get install ${need[*]})" >&2
        exit 1
    fi
fi

if [ "$mode" = test ]; then
    # the JavaScript tests' packages need node 20.19 or newer (Debian 12's nodejs is 18)
    node_v=$(node -p 'process.versions.node')
    IFS=. read -r node_major node_minor _ <<<"$node_v"
    if [ "$node_major" -lt 20 ] || { [ "$node_major" -eq 20 ] && [ "$node_minor" -lt 19 ]; }; then
        echo "install-deps: node $node_v is too old: the tests need node 20.19 or newer" >&2
        exit 1
    fi
fi

if [ "$mode" = test ] && [ -f "$here/tests/js/package-lock.json" ]; then
    lock="$here/tests/js/package-lock.json"
    stamp="$here/tests/js/node_modules/.cuzk-lock.sha256"
    sum=$(sha256sum "$lock" | cut -d' ' -f1)
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
        echo "install-deps: npm ci (tests/js)"
        (cd "$here/tests/js" && npm ci --no-audit --no-fund --loglevel=error)
        echo "$sum" >"$stamp"
    fi
fi
