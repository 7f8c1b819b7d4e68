#!/usr/bin/env bash
# check_ptau.sh CUZK_BINARY OUTDIR [POWER...]
#
# `cuzk ptau new` against snarkjs 0.7.6: snarkjs's `powersoftau prepare phase2`
# recomputes sections 12-15 (the Lagrange blocks, by group FFTs in
# JavaScript) from our sections 2-5 and copies the header and sections 2-7;
# its output must equal our file byte for byte. That checks the container,
# the header, the section order and sizes, the LEM encoding, the roots of
# unity, the block order and the zeroed-top-power exception of the last tauG1
# block (src/groth16/ptau.h). Default powers: 1 4 8 (8: about 10 s).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
snarkjs=$here/../js/node_modules/.bin/snarkjs
[ $# -ge 2 ] || { echo "usage: check_ptau.sh CUZK_BINARY OUTDIR [POWER...]" >&2; exit 2; }
cuzk=$1
work_dir=$2
shift 2
[ $# -gt 0 ] || set -- 1 4 8
[ -x "$cuzk" ] || { echo "check_ptau.sh: $cuzk is not an executable" >&2; exit 2; }
[ -x "$snarkjs" ] || { echo "check_ptau.sh: $snarkjs missing: run npm ci --prefix tests/js" >&2; exit 2; }
mkdir -p "$work_dir" || exit 2

pass=0
fail=0
for p in "$@"; do
    ours=$work_dir/cuzk_pot$p.ptau
    theirs=$work_dir/cuzk_pot${p}_snarkjs_prepared.ptau
    rm -f "$ours" "$theirs"
    if ! "$cuzk" ptau new --power "$p" --seed "check_ptau $p" -o "$ours" >"$work_dir/log$p.txt" 2>&1; then
        fail=$((fail + 1)); echo "FAIL - power $p: cuzk ptau new failed"; tail -n 5 "$work_dir/log$p.txt"; continue
    fi
    if ! "$snarkjs" powersoftau prepare phase2 "$ours" "$theirs" >>"$work_dir/log$p.txt" 2>&1 || [ ! -s "$theirs" ]; then
        fail=$((fail + 1)); echo "FAIL - power $p: snarkjs prepare phase2 failed"; tail -n 5 "$work_dir/log$p.txt"; continue
    fi
    if cmp "$ours" "$theirs" >>"$work_dir/log$p.txt" 2>&1; then
        pass=$((pass + 1)); echo "ok   - power $p: snarkjs prepare phase2 reproduces cuzk's file ($(stat -c %s "$ours") bytes)"
    else
        fail=$((fail + 1)); echo "FAIL - power $p: snarkjs prepare phase2 gives a different file: $(tail -n 1 "$work_dir/log$p.txt")"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
