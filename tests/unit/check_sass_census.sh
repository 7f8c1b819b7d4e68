#!/bin/sh
# check_sass_census.sh PYTHON SOURCE_DIR — scripts/sass-census.py on a small
# fixture (tests/data/sass-census: an ncu details print of two kernels and a
# SASS listing of both, padded as ptxas pads): the second kernel's per-opcode
# counts with their modifiers and per unit, a predicate guard stripped, an
# absent instance and a join with the other kernel's counts refused, and
# the listing read gzip'd as gpu-census.sh leaves it.
set -u
py=$1 src=$2
census() {
  "$py" "$src/scripts/sass-census.py" --ncu "$src/tests/data/sass-census/ncu.txt" \
    --sass "$src/tests/data/sass-census/dump.sass" "$@"
}
fail=0
expect() { # what, pattern, output
  if printf '%s\n' "$3" | grep -q -E "$2"; then echo "ok   $1"; else echo "FAIL $1: no line matches '$2'"; printf '%s\n' "$3"; fail=1; fi
}
report=$(census --function '_Z7k_pairsi' --instance 1 --modifiers --per 4) || { echo "FAIL: exit $?"; exit 1; }
expect "total per unit" '^260 warp instructions executed, 8 in the section +65\.0/unit$' "$report"
expect "moves, guarded one included" '^  IMAD\.MOV\.U32 +140 +53\.8% +35\.0/unit$' "$report"
expect "wide multiply-adds" '^  IMAD\.WIDE\.U32\.X +100 +38\.5% +25\.0/unit$' "$report"
expect "hottest block" '^  0x00010-0x00020 +2 instructions x +100 = +76\.9%$' "$report"
report=$(census --function '_Z7k_pairsi' --instance 1) || { echo "FAIL: exit $?"; exit 1; }
expect "opcodes without modifiers" '^  IMAD +240 +92\.3%$' "$report"
report=$(census --function '_Z7k_plaini') || { echo "FAIL: exit $?"; exit 1; }
expect "first instance by default" '^3 warp instructions executed, 5 in the section$' "$report"
if report=$(census --function '_Z7k_pairsi' --instance 2 2>&1); then
  echo "FAIL: instance 2 of 2 accepted"; fail=1
else
  expect "absent instance refused" 'ncu\.txt: 2 profiled kernels, no instance 2' "$report"
fi
if report=$(census --function '_Z7k_pairsi' --instance 0 2>&1); then
  echo "FAIL: the other kernel's counts joined with this section"; fail=1
else
  expect "mismatched kernel refused" "ncu's PCs do not match the section of _Z7k_pairsi \\(no count for '@P1 IMAD\\.MOV" "$report"
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$py" -c 'import gzip, sys; gzip.open(sys.argv[2], "wb").write(open(sys.argv[1], "rb").read())' \
  "$src/tests/data/sass-census/dump.sass" "$tmp/dump.sass.gz" || exit 1
report=$("$py" "$src/scripts/sass-census.py" --ncu "$src/tests/data/sass-census/ncu.txt" \
  --sass "$tmp/dump.sass.gz" --function '_Z7k_pairsi' --instance 1 --modifiers --per 4) ||
  { echo "FAIL: gzip'd listing: exit $?"; exit 1; }
expect "gzip'd listing" '^  IMAD\.WIDE\.U32\.X +100 +38\.5% +25\.0/unit$' "$report"
exit $fail
