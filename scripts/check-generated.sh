#!/usr/bin/env bash
# check-generated.sh — regenerate every generated file and fail if any differs
# from the committed one (a generator changed without its output, or an output
# edited by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
check() { # check FILE GENERATOR-COMMAND...: FILE holds what the command prints
    local file=$1
    shift
    "$@" >"$tmp/fresh"
    if ! cmp -s "$tmp/fresh" "$file"; then
        echo "check-generated: $file differs from the output of: $*" >&2
        diff -u "$file" "$tmp/fresh" | head -20 >&2 || true
        status=1
    fi
}
check src/ff/bls12_381_consts.h python3 tools/gen_consts.py
if [ -f tools/gen_vectors.py ]; then
    check tests/unit/vectors_deser.h python3 tools/gen_vectors.py
fi
[ $status -eq 0 ] && echo "check-generated: generated files are current"
exit $status
