#!/usr/bin/env sh
# merge-archives.sh AR OUT.a IN1.a [IN2.a ...] — one static archive holding
# the members of the inputs (ar's MRI script: members keep their names, and
# members of the same name in different inputs all stay).
set -eu
ar=$1
target=$2
shift 2
tmp="$target.tmp.$$"
rm -f "$tmp"
{
    echo "create $tmp"
    for a in "$@"; do echo "addlib $a"; done
    echo "save"
    echo "end"
} | "$ar" -M
mv -f "$tmp" "$target"
