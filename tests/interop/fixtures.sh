#!/usr/bin/env bash
# fixtures.sh OUTDIR [CIRCUIT...]
#
# Builds snarkjs/circom Groth16 fixtures on BLS12-381 for the interop tests
# (tests/interop/snarkjs/README.md has the why, the file list and timings).
# CIRCUIT names a tests/interop/circuits/CIRCUIT.circom with its
# CIRCUIT.input.json; default: the CI set "multiplier multi_public" (the
# sha256 circuit needs a 2^15 ptau, which takes far longer than CI allows).
#
# For each circuit, OUTDIR/CIRCUIT/ receives
#   circuit.r1cs circuit.sym circuit.wasm   circom2 --prime bls12381
#   circuit_0000.zkey                        groth16 setup (sections 1,2,4,3,9,8,...)
#   circuit.zkey                             + one phase-2 contribution (a beacon)
#   verification_key.json                    zkey export verificationkey
#   input.json witness.wtns                  wtns calculate
#   proof.json public.json                   groth16 prove (random r, s)
#   witness_bad.wtns witness_bad.json        one wire changed; which constraints break
#   proof_tampered.json proof_offcurve.json proof_notsubgroup.json
#   public_tampered.json public_noncanonical.json public_short.json
# and OUTDIR/ptau/pot<P>.ptau (prepared for phase 2) is shared: every circuit
# uses the smallest cached one that is large enough. CUZK_PTAU_DIR=DIR keeps
# the ptau files in DIR instead, so that a large one (2^15 for sha256: an hour
# or more on two cores) is made once per machine rather than per build folder.
#
# Deterministic except proof.json (snarkjs draws r, s at random): contributions
# are beacons with fixed hashes (`contribute -e` would still mix in random
# bytes). A circuit whose inputs (its .circom, input, this script, the tools,
# the npm lock) are unchanged since its last build is skipped; delete OUTDIR to
# start over.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
jsdir=$(cd "$here/../js" && pwd)
circuits_dir=$here/circuits
tools=$here/snarkjs/fixture_tools.mjs
snarkjs=$jsdir/node_modules/.bin/snarkjs
circom=$jsdir/node_modules/.bin/circom2

# Fixed beacon hashes (hex) and iteration exponent: the fixtures' "toxic waste"
# is public on purpose, these keys are for tests only.
PTAU_BEACON=${CUZK_PTAU_BEACON:-6375686b2d70746175000000000000000000000000000000000000000000000a}
ZKEY_BEACON=${CUZK_ZKEY_BEACON:-6375686b2d7a6b6579000000000000000000000000000000000000000000000b}
BEACON_EXP=10

die() { echo "fixtures.sh: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: fixtures.sh OUTDIR [CIRCUIT...]"
out=$1
shift
[ $# -gt 0 ] || set -- multiplier multi_public

command -v node >/dev/null || die "node is not installed (make test installs it)"
if [ ! -x "$snarkjs" ] || [ ! -x "$circom" ]; then
    die "snarkjs or circom2 missing in $jsdir/node_modules: run npm ci --prefix tests/js"
fi
for c in "$@"; do
    [ -f "$circuits_dir/$c.circom" ] || die "no circuit $circuits_dir/$c.circom"
    [ -f "$circuits_dir/$c.input.json" ] || die "no input $circuits_dir/$c.input.json"
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
ptaudir=${CUZK_PTAU_DIR:-$out/ptau}
mkdir -p "$ptaudir"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# run LOG CMD...: run a step, log its output; on failure show the log.
run() {
    local log=$1
    shift
    echo "+ $*" >>"$log"
    if ! "$@" >>"$log" 2>&1; then
        tail -n 30 "$log" >&2
        die "failed: $*"
    fi
}

# want FILE MAGIC LOG: snarkjs exits 0 on some errors (e.g. groth16 setup with
# a ptau that is too small writes an empty zkey), so check what it wrote.
want() {
    local f=$1 magic=$2 log=$3
    if [ ! -s "$f" ] || { [ -n "$magic" ] && [ "$(head -c 4 "$f")" != "$magic" ]; }; then
        tail -n 30 "$log" >&2
        die "$f was not written (or is not a $magic file): see $log"
    fi
}

stamp_of() {
    local c=$1
    cat "$circuits_dir/$c.circom" "$circuits_dir/$c.input.json" "$here/fixtures.sh" "$tools" \
        "$jsdir/package-lock.json" | sha256sum | cut -d' ' -f1
}

# ---- 1. compile every circuit that is not current -----------------------------
todo=()
for c in "$@"; do
    d=$out/$c
    if [ -f "$d/.stamp" ] && [ "$(cat "$d/.stamp")" = "$(stamp_of "$c")" ]; then
        echo "fixtures: $c is current ($d)"
        continue
    fi
    todo+=("$c")
    rm -rf "$d"
    mkdir -p "$d"
    t=$(now)
    # circom2 runs under WASI and finds -l include folders only below its
    # working directory, so it runs from tests/js with -l node_modules.
    (cd "$jsdir" && run "$d/log.txt" "$circom" "$circuits_dir/$c.circom" --r1cs --wasm --sym \
        --prime bls12381 -l node_modules -o "$d")
    want "$d/$c.r1cs" r1cs "$d/log.txt"
    mv "$d/$c.r1cs" "$d/circuit.r1cs"
    mv "$d/$c.sym" "$d/circuit.sym"
    mv "$d/${c}_js/$c.wasm" "$d/circuit.wasm"
    rm -rf "$d/${c}_js"
    echo "fixtures: $c compiled in $(elapsed "$t") s: $(grep -E '^(non-linear|linear) constraints|^wires' "$d/log.txt" | tr '\n' ' ')"
done
[ ${#todo[@]} -gt 0 ] || exit 0

# ---- 2. one prepared ptau large enough for all of them ------------------------
need=0
for c in "${todo[@]}"; do
    k=$(node "$tools" power "$out/$c/circuit.r1cs")
    echo "$k" >"$out/$c/.power"
    [ "$k" -le "$need" ] || need=$k
done
# The smallest cached ptau of power >= k, or none.
pick_ptau() {
    local k=$1 p
    for p in $(seq "$k" 28); do
        [ -s "$ptaudir/pot$p.ptau" ] && { echo "$ptaudir/pot$p.ptau"; return; }
    done
    return 0
}
if [ -z "$(pick_ptau "$need")" ]; then
    t=$(now)
    pl=$ptaudir/log$need.txt
    p0=$ptaudir/pot${need}_0000.ptau
    p1=$ptaudir/pot${need}_0001.ptau
    run "$pl" "$snarkjs" powersoftau new bls12381 "$need" "$p0"
    want "$p0" ptau "$pl"
    run "$pl" "$snarkjs" powersoftau beacon "$p0" "$p1" "$PTAU_BEACON" "$BEACON_EXP" -n="cuzk fixtures ptau"
    want "$p1" ptau "$pl"
    run "$pl" "$snarkjs" powersoftau prepare phase2 "$p1" "$ptaudir/pot$need.ptau.tmp"
    want "$ptaudir/pot$need.ptau.tmp" ptau "$pl"
    mv "$ptaudir/pot$need.ptau.tmp" "$ptaudir/pot$need.ptau"
    rm -f "$p0" "$p1"
    echo "fixtures: ptau 2^$need built in $(elapsed "$t") s"
fi

# ---- 3. keys, witnesses, proofs, invalid variants -----------------------------
for c in "${todo[@]}"; do
    d=$out/$c
    log=$d/log.txt
    t=$(now)
    ptau=$(pick_ptau "$(cat "$d/.power")")
    echo "+ ptau $ptau" >>"$log"
    cp "$circuits_dir/$c.input.json" "$d/input.json"

    run "$log" "$snarkjs" groth16 setup "$d/circuit.r1cs" "$ptau" "$d/circuit_0000.zkey"
    want "$d/circuit_0000.zkey" zkey "$log"
    run "$log" "$snarkjs" zkey beacon "$d/circuit_0000.zkey" "$d/circuit.zkey" "$ZKEY_BEACON" "$BEACON_EXP" \
        -n="cuzk fixtures zkey"
    want "$d/circuit.zkey" zkey "$log"
    run "$log" "$snarkjs" zkey export verificationkey "$d/circuit.zkey" "$d/verification_key.json"
    want "$d/verification_key.json" "" "$log"

    run "$log" "$snarkjs" wtns calculate "$d/circuit.wasm" "$d/input.json" "$d/witness.wtns"
    want "$d/witness.wtns" wtns "$log"
    run "$log" node "$tools" check "$d/circuit.r1cs" "$d/witness.wtns"
    run "$log" node "$tools" bad-witness "$d/circuit.r1cs" "$d/witness.wtns" "$d/witness_bad.wtns" \
        "$d/witness_bad.json"

    run "$log" "$snarkjs" groth16 prove "$d/circuit.zkey" "$d/witness.wtns" "$d/proof.json" "$d/public.json"
    want "$d/proof.json" "" "$log"
    # The circuit computed what an independent model says it should.
    if expected=$(node "$tools" expected "$c" "$d/input.json" 2>>"$log"); then
        got=$(node -e 'console.log(JSON.stringify(JSON.parse(require("fs").readFileSync(process.argv[1]))))' \
            "$d/public.json")
        [ "$got" = "$expected" ] || die "$c: public.json is $got, the model says $expected"
    else
        [ $? -eq 3 ] || die "$c: fixture_tools expected failed (see $log)"
        echo "fixtures: $c has no independent model of its outputs" | tee -a "$log"
    fi
    run "$log" node "$tools" tamper "$d/proof.json" "$d/public.json" "$d"

    stamp_of "$c" >"$d/.stamp"
    echo "fixtures: $c built in $(elapsed "$t") s with $(basename "$ptau"): $(du -sh "$d" | cut -f1)"
done
