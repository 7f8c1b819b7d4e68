#!/usr/bin/env bash
# bench-sha256.sh — cuzk against snarkjs on a real circom circuit: circomlib's
# SHA-256 of a 64-byte message (bench/circuits/sha256_2blocks.circom, two
# blocks, 63,106 constraints, a 2^16 domain), proved on the CPU from the same
# snarkjs key and witness. Compares the engine's steady state
# (`cuzk bench batch`: the key prepared once, J jobs of one proof each) with
# one-shot `snarkjs groth16 prove` (the whole command, as users run it), the
# two alternating, and prints their medians and ratio.
#
#   scripts/bench-sha256.sh [--cuzk PATH] [--jobs J] [--runs R] [--threads T]
#                           [--out DIR]
#
#   --cuzk PATH    the cuzk binary (default: build/cuzk)
#   --jobs J       jobs per `cuzk bench batch` run (default 8)
#   --runs R       runs of each side, alternating (default 3)
#   --threads T    cuzk's threads (default 2). When the machine has more
#                  than T cores, both sides run under `taskset -c 0-(T-1)`
#                  (snarkjs sizes its worker pool by the machine's cores).
#   --out DIR      work and output folder, ~250 MB (default: a new directory
#                  under ${TMPDIR:-/tmp}). Reusing a DIR skips the compile,
#                  the powers of tau and the key when their inputs are the
#                  same (the .circom, its input, the npm lock file).
#
# Steps: `npm ci` in tests/js if its tools are missing; circom2 compiles the
# circuit; snarkjs computes the witness from bench/circuits/
# sha256_2blocks.input.json; `cuzk ptau new` makes a development powers of
# tau, already prepared for phase 2 (byte for byte what snarkjs's
# `powersoftau prepare phase2` makes, tests/interop/check_ptau.sh; NOT FOR
# PRODUCTION); `snarkjs groth16 setup` makes the key (about 70 s on 2
# cores; the benchmark key has no phase-2 contribution, which changes
# nothing in proving). One `cuzk groth16 prove` proof is checked by
# `snarkjs groth16 verify`, and its public digest against node's SHA-256.
# Then R rounds of: snarkjs one-shot, `cuzk bench batch --jobs J
# --partitions 1 --backend cpu --threads T` (its steady-state seconds per
# proof, from the first job's end to the last's), and a one-shot
# `cuzk groth16 prove` for reference. Times are wall clock.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cuzk=build/cuzk jobs=8 runs=3 threads=2 workdir=""
usage() { sed -n '2,36p' "$0" >&2; exit 2; }
die() { echo "bench-sha256: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
    --cuzk) cuzk=${2:?--cuzk needs PATH}; shift ;;
    --jobs) jobs=${2:?--jobs needs J}; shift ;;
    --runs) runs=${2:?--runs needs R}; shift ;;
    --threads) threads=${2:?--threads needs T}; shift ;;
    --out) workdir=${2:?--out needs DIR}; shift ;;
    -h | --help) usage ;;
    *) echo "bench-sha256: unknown option $1" >&2; usage ;;
    esac
    shift
done
for v in "$jobs" "$runs" "$threads"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "--jobs, --runs and --threads take a positive integer, not $v"
done
[ "$jobs" -ge 2 ] || die "--jobs must be at least 2 (the steady state is measured between jobs)"
[ -x "$cuzk" ] || die "no $cuzk (build the cuzk_cli target, or --cuzk PATH)"
cuzk=$(cd "$(dirname "$cuzk")" && pwd)/$(basename "$cuzk")
command -v node >/dev/null || die "node is not installed (scripts/install-deps.sh test)"

circuit=$root/bench/circuits/sha256_2blocks.circom
input=$root/bench/circuits/sha256_2blocks.input.json
jsdir=$root/tests/js
snarkjs=$jsdir/node_modules/.bin/snarkjs
circom=$jsdir/node_modules/.bin/circom2
if [ ! -x "$snarkjs" ] || [ ! -x "$circom" ] || [ ! -d "$jsdir/node_modules/circomlib/circuits" ]; then
    echo "bench-sha256: npm ci (tests/js)"
    (cd "$jsdir" && npm ci --no-audit --no-fund --loglevel=error)
fi

if [ -n "$workdir" ]; then
    workdir=$(realpath -m "$workdir") # the steps below run in other folders
    mkdir -p "$workdir"
else
    workdir=$(mktemp -d "${TMPDIR:-/tmp}/bench-sha256.XXXXXX")
fi
log=$workdir/log.txt
: >"$log"

# Both sides on the same T cores when the machine has more.
pin=()
ncpu=$(nproc)
if [ "$ncpu" -gt "$threads" ]; then
    command -v taskset >/dev/null || die "$ncpu cores but no taskset to hold both sides to $threads"
    pin=(taskset -c "0-$((threads - 1))")
fi

# run CMD...: a setup step, its output in the log; on failure show the log.
run() {
    echo "+ $*" >>"$log"
    "$@" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "failed: $* (log: $log)"; }
}
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
# want FILE MAGIC: snarkjs exits 0 on some errors, so check what it wrote.
want() {
    if [ ! -s "$1" ] || [ "$(head -c 4 "$1")" != "$2" ]; then
        tail -n 30 "$log" >&2
        die "$1 was not written (log: $log)"
    fi
}

echo "bench-sha256: work and results in $workdir"
echo "bench-sha256: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $ncpu cores," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version)," \
    "snarkjs $(node -p "require('$jsdir/node_modules/snarkjs/package.json').version");" \
    "$("$cuzk" version 2>&1 | head -n 1)"
[ ${#pin[@]} -eq 0 ] || echo "bench-sha256: both sides run under ${pin[*]}"

# ---- the circuit, its witness, the powers of tau and the key ------------------
stamp=$(cat "$circuit" "$input" "$jsdir/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ -f "$workdir/.stamp" ] && [ "$(cat "$workdir/.stamp")" = "$stamp" ] && [ -s "$workdir/circuit.zkey" ]; then
    echo "bench-sha256: reusing the circuit, witness and key in $workdir"
else
    rm -f "$workdir/.stamp"
    t=$EPOCHREALTIME
    # circom2 runs under WASI and finds -l folders only below its working
    # directory, so it runs from tests/js (as tests/interop/fixtures.sh does).
    (cd "$jsdir" && run "$circom" "$circuit" --r1cs --wasm --prime bls12381 -l node_modules -o "$workdir")
    want "$workdir/sha256_2blocks.r1cs" r1cs
    mv "$workdir/sha256_2blocks.r1cs" "$workdir/circuit.r1cs"
    mv "$workdir/sha256_2blocks_js/sha256_2blocks.wasm" "$workdir/circuit.wasm"
    rm -rf "$workdir/sha256_2blocks_js"
    echo "bench-sha256: compiled in $(elapsed "$t") s"

    t=$EPOCHREALTIME
    run "$snarkjs" wtns calculate "$workdir/circuit.wasm" "$input" "$workdir/witness.wtns"
    want "$workdir/witness.wtns" wtns
    echo "bench-sha256: witness in $(elapsed "$t") s"

    power=$(node "$root/tests/interop/snarkjs/fixture_tools.mjs" power "$workdir/circuit.r1cs")
    t=$EPOCHREALTIME
    run "$cuzk" ptau new --power "$power" --seed "cuzk bench sha256" -o "$workdir/pot$power.ptau"
    want "$workdir/pot$power.ptau" ptau
    echo "bench-sha256: powers of tau 2^$power (cuzk ptau new, development) in $(elapsed "$t") s"

    t=$EPOCHREALTIME
    run "$snarkjs" groth16 setup "$workdir/circuit.r1cs" "$workdir/pot$power.ptau" "$workdir/circuit.zkey"
    want "$workdir/circuit.zkey" zkey
    run "$snarkjs" zkey export verificationkey "$workdir/circuit.zkey" "$workdir/verification_key.json"
    [ -s "$workdir/verification_key.json" ] || die "no verification key (log: $log)"
    echo "bench-sha256: key (snarkjs groth16 setup) in $(elapsed "$t") s"
    echo "$stamp" >"$workdir/.stamp"
fi
info=$("$cuzk" info --no-checksum "$workdir/circuit.r1cs")
constraints=$(awk '$1 == "constraints" { print $2 }' <<<"$info")
publics=$(awk '$1 == "wires" { gsub(/[(,)]/, " "); print $5 + $8 }' <<<"$info")
domain=$(node "$root/tests/interop/snarkjs/fixture_tools.mjs" power "$workdir/circuit.r1cs")

# ---- one proof of each side, checked ------------------------------------------
run "${pin[@]}" "$cuzk" groth16 prove "$workdir/circuit.zkey" "$workdir/witness.wtns" "$workdir/proof_cuzk.json" \
    "$workdir/public_cuzk.json" --backend cpu --threads "$threads"
run "$snarkjs" groth16 verify "$workdir/verification_key.json" "$workdir/public_cuzk.json" "$workdir/proof_cuzk.json"
grep -q 'OK!' <(tail -n 3 "$log") || die "snarkjs groth16 verify refused cuzk's proof (log: $log)"
# The public outputs are the message's SHA-256 as two 128-bit halves.
node -e '
    const fs = require("fs");
    const msg = Buffer.from(JSON.parse(fs.readFileSync(process.argv[1])).msg.map(Number));
    const d = require("crypto").createHash("sha256").update(msg).digest("hex");
    const want = [d.slice(0, 32), d.slice(32)].map((h) => BigInt("0x" + h).toString());
    const got = JSON.parse(fs.readFileSync(process.argv[2]));
    if (JSON.stringify(got) !== JSON.stringify(want)) {
        console.error("public " + JSON.stringify(got) + ", SHA-256 says " + JSON.stringify(want));
        process.exit(1);
    }' "$input" "$workdir/public_cuzk.json" || die "the proof's public digest is not the message's SHA-256"
echo "bench-sha256: cuzk's proof verified by snarkjs; its public digest is the message's SHA-256"

# ---- R rounds, the sides alternating ------------------------------------------
echo "bench-sha256: $runs rounds of: snarkjs groth16 prove; cuzk bench batch --jobs $jobs" \
    "--partitions 1 --backend cpu --threads $threads; cuzk groth16 prove"
snark=() steady=() oneshot=()
for r in $(seq 1 "$runs"); do
    rm -f "$workdir/proof_snarkjs.json" "$workdir/public_snarkjs.json"
    echo "+ [round $r] snarkjs groth16 prove" >>"$log"
    t=$EPOCHREALTIME
    "${pin[@]}" "$snarkjs" groth16 prove "$workdir/circuit.zkey" "$workdir/witness.wtns" \
        "$workdir/proof_snarkjs.json" "$workdir/public_snarkjs.json" >>"$log" 2>&1 ||
        die "snarkjs groth16 prove failed (log: $log)"
    s=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
    [ -s "$workdir/proof_snarkjs.json" ] || die "snarkjs wrote no proof (log: $log)"
    snark+=("$s")

    echo "+ [round $r] cuzk bench batch" >>"$log"
    "${pin[@]}" "$cuzk" bench batch --zkey "$workdir/circuit.zkey" --wtns "$workdir/witness.wtns" \
        --jobs "$jobs" --partitions 1 --backend cpu --threads "$threads" --json \
        >"$workdir/batch$r.json" 2>>"$log" || die "cuzk bench batch failed (log: $log)"
    b=$(node -p "JSON.parse(require('fs').readFileSync('$workdir/batch$r.json')).steady_seconds_per_proof")
    steady+=("$b")

    echo "+ [round $r] cuzk groth16 prove" >>"$log"
    t=$EPOCHREALTIME
    "${pin[@]}" "$cuzk" groth16 prove "$workdir/circuit.zkey" "$workdir/witness.wtns" "$workdir/proof_cuzk.json" \
        "$workdir/public_cuzk.json" --backend cpu --threads "$threads" >>"$log" 2>&1 ||
        die "cuzk groth16 prove failed (log: $log)"
    c=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
    oneshot+=("$c")
    echo "  round $r: snarkjs $s s, cuzk steady $b s/proof, cuzk one-shot $c s"
done
run "$snarkjs" groth16 verify "$workdir/verification_key.json" "$workdir/public_snarkjs.json" "$workdir/proof_snarkjs.json"

# stats V...: "median min max" (the median of an even count: the mean of the middle two)
stats() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.4f %.4f %.4f\n", m, v[1], v[NR] }'; }
read -r sm smin smax <<<"$(stats "${snark[@]}")"
read -r bm bmin bmax <<<"$(stats "${steady[@]}")"
read -r cm cmin cmax <<<"$(stats "${oneshot[@]}")"
{
    echo
    echo "SHA-256, 64-byte message (2 blocks): $constraints constraints, $publics public, domain 2^$domain;" \
        "$threads threads, $runs runs each (median, min-max)"
    printf '  %-46s %8.3f s  (%.3f-%.3f)\n' "snarkjs groth16 prove, one-shot, per proof" "$sm" "$smin" "$smax"
    printf '  %-46s %8.3f s  (%.3f-%.3f)\n' "cuzk bench batch, steady state, per proof" "$bm" "$bmin" "$bmax"
    printf '  %-46s %8.3f s  (%.3f-%.3f)\n' "cuzk groth16 prove, one-shot, per proof" "$cm" "$cmin" "$cmax"
    awk -v s="$sm" -v b="$bm" -v c="$cm" 'BEGIN {
        printf "  ratio snarkjs / cuzk steady %.1fx (target >= 20x: %s); snarkjs / cuzk one-shot %.1fx\n",
            s / b, (s / b >= 20 ? "met" : "NOT met"), s / c }'
} | tee "$workdir/summary.txt"
