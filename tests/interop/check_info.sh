#!/usr/bin/env bash
# check_info.sh CUZK_BINARY — `cuzk info` on our own formats: a good circuit
# file, witness, bellman .params and .vk (made here: gen-circuit and a seeded
# development setup, 2^10, a second or two), then corrupted copies of each
# (truncated, a flipped byte in a header, a value or a point). Good files
# must exit 0 with their counts, size and checksum on stdout; bad ones exit 2
# (1: a witness that does not satisfy its circuit) with the reader's message
# on stderr naming the file and the offset. Prints "N passed, N failed".
set -uo pipefail
cuzk=${1:?usage: check_info.sh CUZK_BINARY}
cuzk=$(cd "$(dirname "$cuzk")" && pwd)/$(basename "$cuzk")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0
fail=0

ok() { echo "ok   - $1"; pass=$((pass + 1)); }
bad() { echo "FAIL - $1"; fail=$((fail + 1)); }

# good NAME WANT... -- ARGS...: exit 0, stdout holds each WANT.
good() {
    local name=$1 wants=() w
    shift
    while [ "$1" != "--" ]; do wants+=("$1"); shift; done
    shift
    "$cuzk" info "$@" >out 2>err
    local rc=$?
    if [ $rc -ne 0 ]; then bad "$name: exit status $rc, want 0 | $(head -c 300 err)"; return; fi
    for w in "${wants[@]}"; do
        grep -qF -- "$w" out || { bad "$name: output lacks '$w' | $(tr '\n' '|' <out | head -c 600)"; return; }
    done
    ok "$name"
}

# broken NAME STATUS WANT... -- ARGS...: exit STATUS, stderr holds each WANT.
broken() {
    local name=$1 want_rc=$2 wants=() w
    shift 2
    while [ "$1" != "--" ]; do wants+=("$1"); shift; done
    shift
    "$cuzk" info "$@" >out 2>err
    local rc=$?
    local msg
    msg=$(tr '\n' '|' <err | head -c 400)
    if [ $rc -ne "$want_rc" ]; then bad "$name: exit status $rc, want $want_rc | $msg"; return; fi
    for w in "${wants[@]}"; do
        grep -qF -- "$w" err || { bad "$name: message lacks '$w' | $msg"; return; }
    done
    ok "$name | $msg"
}

# flip IN OFFSET OUT [MASK]: a copy of IN with byte OFFSET xor MASK (default 1).
flip() {
    python3 - "$1" "$2" "$3" "${4:-1}" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[int(sys.argv[2])] ^= int(sys.argv[4], 0)
open(sys.argv[3], 'wb').write(d)
PY
}
cut_to() { head -c "$2" "$1" >"$3"; }
size_of() { stat -c %s "$1"; }

if ! "$cuzk" gen-circuit --profile dense --log-constraints 10 --seed 7 -o g >gen.log 2>&1 ||
    ! "$cuzk" setup g/circuit.cuzk -o k.params --vk k.vk --seed 0a0b --backend cpu >setup.log 2>&1; then
    cat gen.log setup.log
    echo "0 passed, 1 failed (could not make the fixtures)"
    exit 1
fi
circ=g/circuit.cuzk
wit=g/w0.wit

# ---- good files ----
good "circuit" "cuzk circuit file (v1)" "constraints" "non-zeros              A " \
    "stored checksum" "matches the contents" "size                   $(size_of $circ) bytes" \
    "checksum               0x" -- $circ
good "witness" "cuzk witness file (v1)" "values" "0 / 1 / other" \
    "size                   $(size_of $wit) bytes" "checksum               0x" -- $wit
good "witness against its circuit" "satisfies" "constraints hold" -- --circuit $circ $wit
good "params (deferred points)" "bellman Groth16 parameters (.params)" "inputs (IC)" \
    "points                 IC " "not decoded" "size                   $(size_of k.params) bytes" -- k.params
good "params --check-points" "the vectors: every point on its curve" -- --check-points k.params
good "vk" "bellman Groth16 verifying key (.vk)" "inputs (IC)" "in its subgroup" -- k.vk
good "no checksum asked" "cuzk circuit file" -- --no-checksum $circ
if grep -q "checksum               0x" out; then bad "--no-checksum still hashed"; else ok "--no-checksum hashes nothing"; fi

# The counts agree between the circuit and its parameters.
"$cuzk" info $circ >c.out 2>/dev/null
"$cuzk" info k.params >p.out 2>/dev/null
n_in=$(sed -n 's/^  inputs  *\([0-9]*\).*/\1/p' c.out)
n_ic=$(sed -n 's/^  inputs (IC)  *\([0-9]*\).*/\1/p' p.out)
[ -n "$n_in" ] && [ "$n_in" = "$n_ic" ] && ok "circuit inputs $n_in = params IC $n_ic" ||
    bad "circuit inputs '$n_in' vs params IC '$n_ic'"
# The whole-file checksum is the circuit's own scheme: over the circuit minus
# its 8-byte trailer it gives the stored checksum.
cut_to $circ $(($(size_of $circ) - 8)) body.bin
stored=$(sed -n 's/^  stored checksum  *\(0x[0-9a-f]*\).*/\1/p' c.out)
"$cuzk" info body.bin >b.out 2>/dev/null
whole=$(sed -n 's/^  checksum  *\(0x[0-9a-f]*\).*/\1/p' b.out)
[ -n "$stored" ] && [ "$stored" = "$whole" ] && ok "file checksum of the body = stored $stored" ||
    bad "stored checksum '$stored' vs the body's file checksum '$whole'"

# ---- circuit file ----
csize=$(size_of $circ)
cut_to $circ $((csize - 100)) short.cuzk
broken "circuit truncated" 2 "short.cuzk: truncated file: $((csize - 100)) bytes, the header says $csize" -- short.cuzk
flip $circ 20 hdr.cuzk # n_constraints gains 2^32
broken "circuit header count flipped" 2 "hdr.cuzk: offset 16:" "need a domain above 2^31" -- hdr.cuzk
values=$(sed -n 's/.*value table \([0-9]*\).*/\1/p' c.out)
flip $circ $((values + 32 * 5 + 3)) val.cuzk
broken "circuit coefficient flipped" 2 "val.cuzk: offset $((csize - 8)): checksum mismatch" -- val.cuzk
grep -qF "the structure checks pass" out && ok "circuit: the structure holds besides the checksum" ||
    bad "circuit: no structure verdict | $(tail -n 2 out)"
flip $circ $((values + 32 * 7 + 31)) big.cuzk 0xe0 # the top byte: a value >= r
broken "circuit coefficient >= r" 2 "big.cuzk: offset $((csize - 8)): checksum mismatch" \
    "big.cuzk: offset $((values + 32 * 7)): value 7 of the value table is >= r" -- big.cuzk

# ---- witness file ----
wsize=$(size_of $wit)
cut_to $wit $((wsize - 7)) short.wit
broken "witness truncated" 2 "short.wit: truncated file: $((wsize - 7)) bytes" -- short.wit
flip $wit $((32 + 32 * 40 + 31)) nc.wit 0xe0
broken "witness value >= r" 2 "nc.wit: offset $((32 + 32 * 40)): non-canonical field element" -- nc.wit
flip $wit 8 ver.wit 0x02
broken "witness version flipped" 2 "ver.wit: offset 8:" -- ver.wit
flip $wit $((32 + 32 * 100)) val.wit 0x01
broken "witness value flipped, against its circuit" 1 "does not satisfy constraint" -- --circuit $circ val.wit

# ---- .params ----
psize=$(size_of k.params)
# the offsets of vectors h and b_g2 from the layout lines
h=$(sed -n '/vk 0 (/s/.* h \([0-9]*\), l .*/\1/p' p.out)
b_g2=$(sed -n 's/.* b_g2 \([0-9]*\) (each.*/\1/p' p.out)
cut_to k.params $((psize - 1000)) short.params
broken "params truncated" 2 "short.params: offset $((b_g2 - 4)): vector b_g2: count" "truncated file" -- short.params
flip k.params $((96 + 47)) beta.params
broken "params vk point flipped" 2 "beta.params: offset 96: verifying key beta_g1:" -- beta.params
flip k.params $((868 + 96 * 3 + 47)) ic.params
broken "params IC point flipped" 2 "ic.params: offset $((868 + 96 * 3)): IC point 3:" -- ic.params
flip k.params $((h + 96 * 5 + 47)) hpt.params
good "params vector point flipped, deferred" "not decoded" -- hpt.params
broken "params vector point flipped, --check-points" 2 \
    "hpt.params: offset $((h + 96 * 5)): vector h point 5: point not on the curve" -- --check-points hpt.params
# a point on E(Fp) outside the prime-order subgroup (x = 1, 2, ...: the first
# x with x^3 + 4 a square; the cofactor is large, so it is not in G1)
python3 - k.params $((h + 96 * 11)) sub.params <<'PY'
import sys
p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
x = 1
while pow(x ** 3 + 4, (p - 1) // 2, p) != 1:
    x += 1
y = pow(x ** 3 + 4, (p + 1) // 4, p)
d = bytearray(open(sys.argv[1], 'rb').read())
o = int(sys.argv[2])
d[o:o + 96] = x.to_bytes(48, 'big') + y.to_bytes(48, 'big')
open(sys.argv[3], 'wb').write(d)
PY
broken "params vector point outside G1, --check-points" 2 \
    "sub.params: offset $((h + 96 * 11)): vector h point 11: point not in the prime-order subgroup" -- --check-points sub.params
flip k.params $((b_g2 + 192 * 9)) flag.params 0x80
broken "params b_g2 flag bit, --check-points" 2 \
    "flag.params: offset $((b_g2 + 192 * 9)): vector b_g2 point 9: bad flag bits" -- --check-points flag.params

# ---- .vk ----
vsize=$(size_of k.vk)
cut_to k.vk $((vsize - 50)) short.vk
broken "vk truncated" 2 "short.vk: offset 864: IC: count" "truncated file" -- short.vk
flip k.vk $((672 + 100)) delta.vk
broken "vk delta_g2 flipped" 2 "delta.vk: offset 672: verifying key delta_g2:" -- delta.vk
cat k.vk k.vk >long.vk
broken "vk with trailing bytes" 2 "long.vk: offset $vsize:" "unexpected bytes" -- long.vk

# ---- anything else ----
: >empty.params
broken "empty file" 2 "empty.params: empty file" -- empty.params
printf 'hello, world\n' >hello.txt
broken "unknown format" 2 "hello.txt: unknown format" -- hello.txt
# public.json has proof.json's 1 MiB cap
python3 -c "import sys; sys.stdout.write('[' + ' ' * (1 << 20) + ']')" >public.json
broken "public.json above 1 MiB" 2 "larger than the limit of 1048576 bytes" -- public.json

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
