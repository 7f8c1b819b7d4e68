#!/usr/bin/env bash
# fixtures.sh [--cuzk BIN] [--ptau auto|cuzk|snarkjs] OUTDIR [CIRCUIT...]
#
# Builds snarkjs/circom Groth16 fixtures on BLS12-381 for the interop tests
# (tests/interop/snarkjs/README.md has the why, the file list and timings).
# CIRCUIT names a tests/interop/circuits/CIRCUIT.circom with its
# CIRCUIT.input.json; default: "multiplier multi_public".
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
# and the prepared powers of tau are shared in OUTDIR/ptau/: every circuit
# uses the smallest cached one that is large enough. CUZK_PTAU_DIR=DIR keeps
# them in DIR instead, so that a large one is made once per machine.
#
# Who makes the ptau (--ptau, or CUZK_PTAU_MAKER):
#   snarkjs  powersoftau new + beacon + prepare phase2 -> potP.ptau. Slow:
#            prepare phase2 is 5 s at 2^8 but 30 min to hours at 2^15.
#   cuzk     `cuzk ptau new` (--cuzk BIN or CUZK_BIN) -> potP_cuzkdev.ptau, a
#            development file with secrets derived from a fixed seed (byte for
#            byte what snarkjs's prepare phase2 makes from the same points,
#            tests/interop/check_ptau.sh), in seconds.
#   auto     (default) cuzk for powers >= CUZK_PTAU_CUZK_FROM (default 12)
#            when a cuzk binary is given, snarkjs otherwise; so the small
#            circuits keep an all-snarkjs ptau and sha256 (2^15) gets a fast
#            one (or a cached snarkjs one of that size, if there is one).
#
# Deterministic except proof.json (snarkjs draws r, s at random): contributions
# are beacons with fixed hashes (`contribute -e` would still mix in random
# bytes), the cuzk ptau seed is fixed. A circuit whose inputs (its .circom,
# input, this script, the tools, the npm lock) are unchanged since its last
# build is skipped; delete OUTDIR to start over.
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
# Seed of the cuzk development ptau (its toxic waste is public on purpose).
PTAU_SEED=${CUZK_PTAU_SEED:-cuzk fixtures ptau}

die() { echo "fixtures.sh: $*" >&2; exit 1; }
usage="usage: fixtures.sh [--cuzk BIN] [--ptau auto|cuzk|snarkjs] OUTDIR [CIRCUIT...]"
cuzk=${CUZK_BIN:-}
maker=${CUZK_PTAU_MAKER:-auto}
cuzk_from=${CUZK_PTAU_CUZK_FROM:-12}
while [ $# -gt 0 ]; do
    case $1 in
        --cuzk) [ $# -ge 2 ] || die "$usage"; cuzk=$2; shift 2 ;;
        --ptau) [ $# -ge 2 ] || die "$usage"; maker=$2; shift 2 ;;
        -*) die "unknown option $1; $usage" ;;
        *) break ;;
    esac
done
case $maker in auto | cuzk | snarkjs) ;; *) die "--ptau must be auto, cuzk or snarkjs" ;; esac
[ $# -ge 1 ] || die "$usage"
fixtures=$1
shift
[ $# -gt 0 ] || set -- multiplier multi_public
if [ -n "$cuzk" ]; then
    [ -x "$cuzk" ] || die "the cuzk binary $cuzk is missing (build the cuzk_cli target)"
    cuzk=$(cd "$(dirname "$cuzk")" && pwd)/$(basename "$cuzk")
fi
[ "$maker" != cuzk ] || [ -n "$cuzk" ] || die "--ptau cuzk needs --cuzk BIN (or CUZK_BIN)"

command -v node >/dev/null || die "node is not installed (make test installs it)"
if [ ! -x "$snarkjs" ] || [ ! -x "$circom" ]; then
    die "snarkjs or circom2 missing in $jsdir/node_modules: run npm ci --prefix tests/js"
fi
for c in "$@"; do
    [ -f "$circuits_dir/$c.circom" ] || die "no circuit $circuits_dir/$c.circom"
    [ -f "$circuits_dir/$c.input.json" ] || die "no input $circuits_dir/$c.input.json"
done
mkdir -p "$fixtures"
fixtures=$(cd "$fixtures" && pwd)
ptaudir=${CUZK_PTAU_DIR:-$fixtures/ptau}
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
    d=$fixtures/$c
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

# ---- 2. prepared ptau files large enough for all of them ----------------------
# The maker of a new ptau of power k.
maker_for() {
    case $maker in
        auto) if [ -n "$cuzk" ] && [ "$1" -ge "$cuzk_from" ]; then echo cuzk; else echo snarkjs; fi ;;
        *) echo "$maker" ;;
    esac
}
# The largest power each maker has to provide (in auto mode the small circuits
# get a snarkjs ptau and the large ones a cuzk one).
need_snarkjs=0
need_cuzk=0
for c in "${todo[@]}"; do
    k=$(node "$tools" power "$fixtures/$c/circuit.r1cs")
    echo "$k" >"$fixtures/$c/.power"
    if [ "$(maker_for "$k")" = cuzk ]; then
        [ "$k" -le "$need_cuzk" ] || need_cuzk=$k
    else
        [ "$k" -le "$need_snarkjs" ] || need_snarkjs=$k
    fi
done
# The kinds of cached ptau a circuit of power k may use: the forced one, or in
# auto mode snarkjs's for the small circuits and either for the large ones.
kind_for() {
    case $maker:$(maker_for "$1") in auto:cuzk) echo any ;; *) maker_for "$1" ;; esac
}
# pick_ptau K KIND: the smallest cached ptau of power >= K of KIND
# (snarkjs, cuzk or any), or nothing.
pick_ptau() {
    local k=$1 kind=$2 p f
    for p in $(seq "$k" 28); do
        for f in "$ptaudir/pot$p.ptau" "$ptaudir/pot${p}_cuzkdev.ptau"; do
            case $kind:$f in snarkjs:*_cuzkdev.ptau | cuzk:*/pot$p.ptau) continue ;; esac
            [ -s "$f" ] && { echo "$f"; return; }
        done
    done
    return 0
}
if [ "$need_cuzk" -gt 0 ] && [ -z "$(pick_ptau "$need_cuzk" "$(kind_for "$need_cuzk")")" ]; then
    t=$(now)
    pl=$ptaudir/log${need_cuzk}_cuzkdev.txt
    final=$ptaudir/pot${need_cuzk}_cuzkdev.ptau
    run "$pl" "$cuzk" ptau new --power "$need_cuzk" --seed "$PTAU_SEED" -o "$final.tmp"
    want "$final.tmp" ptau "$pl"
    mv "$final.tmp" "$final"
    echo "fixtures: ptau 2^$need_cuzk made by cuzk ptau new (development, NOT FOR PRODUCTION) in $(elapsed "$t") s"
fi
if [ "$need_snarkjs" -gt 0 ] && [ -z "$(pick_ptau "$need_snarkjs" snarkjs)" ]; then
    need=$need_snarkjs
    [ "$need" -lt 12 ] ||
        echo "fixtures: making a 2^$need ptau with snarkjs: this takes long (--cuzk BIN makes it in seconds)"
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
    echo "fixtures: ptau 2^$need built by snarkjs in $(elapsed "$t") s"
fi

# ---- 3. keys, witnesses, proofs, invalid variants -----------------------------
for c in "${todo[@]}"; do
    d=$fixtures/$c
    log=$d/log.txt
    t=$(now)
    k=$(cat "$d/.power")
    ptau=$(pick_ptau "$k" "$(kind_for "$k")")
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
