#!/usr/bin/env bash
# check_exports.sh LIB HEADER — LIB (libcuzk_supraseal.so) exports exactly the
# functions HEADER (include/cuzk_supraseal.h) marks CUZK_SUPRASEAL_API, under
# those names and as functions, and nothing else: no cuzk_ name (libcuzk
# may be loaded beside it), no symbol a static archive brought in.
set -euo pipefail
lib=${1:?usage: check_exports.sh libcuzk_supraseal.so cuzk_supraseal.h}
hdr=${2:?usage: check_exports.sh libcuzk_supraseal.so cuzk_supraseal.h}
want=$(grep -v '^[[:space:]]*#' "$hdr" | tr '\n' ' ' | grep -oE 'CUZK_SUPRASEAL_API [^;{]*\(' |
       sed -E 's/\($//; s/.*[ *]([A-Za-z_][A-Za-z0-9_]*)$/\1/' | sort -u)
n_want=$(echo "$want" | wc -l)
if [ "$n_want" -ne 10 ]; then
    echo "check_exports: expected the ten functions of supraseal-c2 in $hdr, found $n_want:" >&2
    echo "$want" >&2
    exit 1
fi
# defined dynamic symbols (type T: functions in .text); versioned names lose @...
have=$(nm -D --defined-only "$lib" | awk 'NF==3 {sub(/@.*/, "", $3); print $2, $3}' | sort -u)
funcs=$(echo "$have" | awk '$1=="T" {print $2}' | sort -u)
others=$(echo "$have" | awk '$1!="T" {print $1, $2}')
if [ "$funcs" != "$want" ] || [ -n "$others" ]; then
    echo "check_exports: $lib exports something other than the ten functions:" >&2
    diff <(echo "$want") <(echo "$funcs") >&2 || true
    [ -z "$others" ] || { echo "non-function symbols:" >&2; echo "$others" >&2; }
    exit 1
fi
echo "check_exports: $lib exports exactly the ten functions of $(basename "$hdr")"
