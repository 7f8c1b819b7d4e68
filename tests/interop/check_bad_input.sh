#!/usr/bin/env bash
# check_bad_input.sh CUZK_BINARY FIXTUREDIR — the command line on broken
# files: every case must exit with status 2 (an input error; 1 is reserved for
# "invalid proof / unsatisfied witness"), print one line naming the file, and
# leave no output file behind. A crash (128+) fails the check.
# Uses the multi_public fixture of fixtures.sh. Prints "N passed, N failed".
set -uo pipefail
cuzk=${1:?usage: check_bad_input.sh CUZK_BINARY FIXTUREDIR}
fx=${2:?usage: check_bad_input.sh CUZK_BINARY FIXTUREDIR}/multi_public
other=${2}/multiplier
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0

# expect_error NAME WANT_IN_MESSAGE COMMAND...
expect_error() {
    local name=$1 want=$2
    shift 2
    rm -f "$work/proof.json" "$work/public.json"
    "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    local msg
    msg=$(head -c 600 "$work/err")
    if [ $rc -ne 2 ]; then
        echo "FAIL - $name: exit status $rc, want 2 | $msg"
        fail=$((fail + 1))
    elif ! grep -qF -- "$want" "$work/err"; then
        echo "FAIL - $name: message does not contain '$want' | $msg"
        fail=$((fail + 1))
    elif [ -e "$work/proof.json" ] || [ -e "$work/public.json" ]; then
        echo "FAIL - $name: an output file was written"
        fail=$((fail + 1))
    else
        echo "ok   - $name | $msg"
        pass=$((pass + 1))
    fi
}

zkey=$fx/circuit.zkey
size=$(stat -c %s "$zkey")
head -c $((size / 2)) "$zkey" >"$work/truncated.zkey"
head -c 30 "$zkey" >"$work/header_only.zkey"
cat "$zkey" "$zkey" >"$work/oversized.zkey"
: >"$work/empty.zkey"
printf 'not a key at all' >"$work/text.zkey"
# A BN254 base field prime in place of BLS12-381's q (section 2 starts at a
# known offset in snarkjs keys: find it via the header layout).
python3 - "$zkey" "$work/bn254.zkey" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
pos = 12
while pos < len(data):
    sid, size = struct.unpack_from('<IQ', data, pos)
    if sid == 2:
        q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
        struct.pack_into('<I', data, pos + 12, 32)
        data[pos + 16:pos + 16 + 48] = q.to_bytes(32, 'little') + bytes(16)
        break
    pos += 12 + size
open(sys.argv[2], 'wb').write(data)
PY
wtns=$fx/witness.wtns
wsize=$(stat -c %s "$wtns")
head -c $((wsize - 7)) "$wtns" >"$work/truncated.wtns"
# A witness value >= r: overwrite the last value with 0xff bytes.
python3 - "$wtns" "$work/noncanonical.wtns" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[-32:] = b'\xff' * 32
open(sys.argv[2], 'wb').write(d)
PY

P="$cuzk groth16 prove"
expect_error "truncated zkey" "truncated.zkey" $P "$work/truncated.zkey" "$wtns" "$work/proof.json" "$work/public.json"
expect_error "header-only zkey" "header_only.zkey" $P "$work/header_only.zkey" "$wtns" "$work/proof.json" "$work/public.json"
expect_error "zkey with trailing bytes" "oversized.zkey" $P "$work/oversized.zkey" "$wtns" "$work/proof.json" "$work/public.json"
expect_error "empty zkey" "empty.zkey" $P "$work/empty.zkey" "$wtns" "$work/proof.json" "$work/public.json"
expect_error "text as zkey" "text.zkey" $P "$work/text.zkey" "$wtns" "$work/proof.json" "$work/public.json"
expect_error "BN254 zkey" "BN254" $P "$work/bn254.zkey" "$wtns" "$work/proof.json" "$work/public.json"
expect_error "missing zkey" "nonexistent.zkey" $P "$work/nonexistent.zkey" "$wtns" "$work/proof.json" "$work/public.json"
expect_error "truncated witness" "truncated.wtns" $P "$zkey" "$work/truncated.wtns" "$work/proof.json" "$work/public.json"
expect_error "non-canonical witness" "noncanonical.wtns" $P "$zkey" "$work/noncanonical.wtns" "$work/proof.json" "$work/public.json"
expect_error "witness of another circuit" "nVars" $P "$zkey" "$other/witness.wtns" "$work/proof.json" "$work/public.json"
expect_error "info on a truncated key" "truncated.zkey" $cuzk info "$work/truncated.zkey"
printf '{"pi_a": [' >"$work/cut.json"
expect_error "verify: truncated proof.json" "cut.json" $cuzk groth16 verify "$fx/verification_key.json" "$fx/public.json" "$work/cut.json"
expect_error "verify: key as proof" "verification_key.json" $cuzk groth16 verify "$fx/verification_key.json" "$fx/public.json" "$fx/verification_key.json"
expect_error "export from a truncated key" "truncated.zkey" $cuzk zkey export verificationkey "$work/truncated.zkey" "$work/vk.json"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
