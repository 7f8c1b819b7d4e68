#!/usr/bin/env bash
# test_check_layers.sh — scripts/check-layers.sh passes on the tree, and fails
# on copies of it with an upward include planted (a low layer including the
# API, the command including src/gpu), naming the file and the include.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail() { echo "test_check_layers: FAILED: $*" >&2; exit 1; }

"$src/scripts/check-layers.sh" "$src" >/dev/null || fail "the tree itself breaks its layers"
pass=$((pass + 1))

copy() { # a fresh copy of what the check reads
    rm -rf "$tmp/t"
    mkdir -p "$tmp/t/doc"
    cp -r "$src/src" "$src/tools" "$tmp/t/"
    cp "$src/doc/design.md" "$tmp/t/doc/"
}
expect_fail() { # FILE INCLUDE MESSAGE-PART
    copy
    printf '#include "%s"\n' "$2" >>"$tmp/t/$1"
    if "$src/scripts/check-layers.sh" "$tmp/t" 2>"$tmp/err" >/dev/null; then
        fail "$1 including $2 passed the check"
    fi
    grep -q "$1:.*$3" "$tmp/err" || fail "the report does not name $1 and $2: $(cat "$tmp/err")"
    pass=$((pass + 1))
}
expect_fail src/ff/fp.c api/api.h 'src/ff includes "api/api.h"'
expect_fail src/io/zkey.h groth16/groth16.h 'src/io includes "groth16/groth16.h"'
expect_fail tools/cuzk/main.c gpu/gpu.h 'includes "gpu/gpu.h"'
copy # the angle-bracket spelling is caught as well
printf '#include <api/api.h>\n' >>"$tmp/t/src/poly/ntt.c"
if "$src/scripts/check-layers.sh" "$tmp/t" 2>"$tmp/err" >/dev/null; then
    fail "#include <api/api.h> in src/poly passed the check"
fi
grep -q 'src/poly/ntt.c:.*includes "api/api.h"' "$tmp/err" || fail "<api/api.h> not named: $(cat "$tmp/err")"
pass=$((pass + 1))

copy # a folder missing from the order is an error too
mkdir -p "$tmp/t/src/newlayer"
echo 'int x;' >"$tmp/t/src/newlayer/x.c"
if "$src/scripts/check-layers.sh" "$tmp/t" >/dev/null 2>&1; then
    fail "a folder outside the layer order passed"
fi
pass=$((pass + 1))
echo "$pass passed, 0 failed"
