#!/usr/bin/env bash
# check_prove_cli.sh CUZK_BINARY TEST_PROVE_CIRCUIT_BINARY — the bellman-form
# commands end to end: `cuzk setup --seed` on a random 2^10 circuit (written,
# with three satisfying witnesses, their public inputs as text, and one
# unsatisfying witness, by `test_prove_circuit --write-fixture`), then
# `cuzk prove` of three partitions, `cuzk verify` with witness and text
# inputs, with a .vk and with the .params, wrong inputs and tampered proofs
# (exit 1, the partition named), bad input (exit 2 with a message, no proof
# written), partitions proved in several lanes (--lanes on the CPU; with
# --devices where a GPU is present) and the lane options' refusals, setup and
# gen-circuit refusals, the sample circom circuit through
# `cuzk import`, and `cuzk bench prove --circuit`. Prints "N passed, N failed".
set -uo pipefail
cuzk=${1:?usage: check_prove_cli.sh CUZK_BINARY TEST_PROVE_CIRCUIT_BINARY}
fixture=${2:?usage: check_prove_cli.sh CUZK_BINARY TEST_PROVE_CIRCUIT_BINARY}
cuzk=$(realpath "$cuzk")
fixture=$(realpath "$fixture")
sample=$(realpath "$(dirname "$0")/../../examples/sample")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0

ok() { echo "ok   - $1"; pass=$((pass + 1)); }
bad() { echo "FAIL - $1"; fail=$((fail + 1)); }

# expect NAME STATUS WANT_IN_STDERR_OR_STDOUT COMMAND...
expect() {
    local name=$1 want_rc=$2 want=$3
    shift 3
    "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    local msg
    msg=$(cat "$work/out" "$work/err" | head -c 600)
    if [ $rc -ne "$want_rc" ]; then
        bad "$name: exit status $rc, want $want_rc | $msg"
    elif [ -n "$want" ] && ! grep -qF -- "$want" "$work/out" "$work/err"; then
        bad "$name: output does not contain '$want' | $msg"
    else
        ok "$name | $(echo "$msg" | tail -1)"
    fi
}

cd "$work" || exit 1
if ! "$fixture" --write-fixture "$work" 10 3 >/dev/null; then
    echo "FAIL - could not write the fixture"
    exit 1
fi
expect "setup" 0 "" "$cuzk" setup circuit.cuzk -o k.params --vk k.vk --seed 0123
[ -s k.params ] && [ -s k.vk ] || bad "setup wrote no files"

# ---- prove and verify ----
expect "prove 3 partitions" 0 "" \
    "$cuzk" prove --circuit circuit.cuzk --params k.params --witness w0.wit w1.wit w2.wit \
    -o proof.bin --threads 2
size=$(stat -c %s proof.bin 2>/dev/null || echo 0)
[ "$size" -eq 576 ] && ok "proof.bin is 3 x 192 bytes" || bad "proof.bin has $size bytes, want 576"
[ -e proof.bin.tmp ] && bad "a temporary file was left behind"
expect "verify, witness inputs, .vk" 0 "3 partitions valid" \
    "$cuzk" verify --vk k.vk --inputs w0.wit w1.wit w2.wit proof.bin
expect "verify, text inputs, .params" 0 "3 partitions valid" \
    "$cuzk" verify --params k.params --inputs w0.inputs w1.inputs w2.inputs proof.bin
# the same inputs in decimal
python3 - <<'PY'
for i in range(3):
    with open(f"w{i}.inputs") as f, open(f"w{i}.dec", "w") as g:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                g.write(f"  {int(line, 16)}\n\n")
PY
expect "verify, decimal inputs" 0 "valid" \
    "$cuzk" verify --vk k.vk --inputs w0.dec w1.dec w2.dec proof.bin
expect "prove, verbose stage times" 0 "msm_h" \
    "$cuzk" prove --circuit circuit.cuzk --params k.params --witness w1.wit -o one.bin --verbose
expect "verify one partition" 0 "1 partition valid" "$cuzk" verify --vk k.vk --inputs w1.wit one.bin
expect "prove --no-verify" 0 "" \
    "$cuzk" prove --circuit circuit.cuzk --params k.params --witness w2.wit -o nv.bin --no-verify
expect "verify the --no-verify proof" 0 "valid" "$cuzk" verify --vk k.vk --inputs w2.wit nv.bin

# ---- invalid proofs: exit 1, the partition named ----
expect "inputs in the wrong order" 1 "partition 0" \
    "$cuzk" verify --vk k.vk --inputs w1.wit w0.wit w2.wit proof.bin
expect "inputs of another proof" 1 "partition 0" \
    "$cuzk" verify --vk k.vk --inputs w0.wit one.bin
# negate A of partition 2 (the sign flag of its first byte): well formed, invalid
python3 - <<'PY'
d = bytearray(open("proof.bin", "rb").read())
d[2 * 192] ^= 0x20
open("tampered.bin", "wb").write(d)
e = bytearray(open("proof.bin", "rb").read())
e[192:384] = e[0:192]
open("swapped.bin", "wb").write(e)
m = bytearray(open("proof.bin", "rb").read())
m[192] &= 0x7f  # partition 1's A without the compression flag: does not decode
open("malformed.bin", "wb").write(m)
PY
expect "A negated in partition 2" 1 "partition 2" \
    "$cuzk" verify --vk k.vk --inputs w0.wit w1.wit w2.wit tampered.bin
expect "partition 0's proof in place of partition 1" 1 "partition 1" \
    "$cuzk" verify --vk k.vk --inputs w0.wit w1.wit w2.wit swapped.bin
expect "unsatisfying witness" 1 "constraint $(cat bad.row)" \
    "$cuzk" prove --circuit circuit.cuzk --params k.params --witness w0.wit bad.wit -o x.bin
[ -e x.bin ] && bad "a proof was written for an unsatisfying witness"

# ---- lanes: --lanes on the CPU, --device/--devices on GPUs ----
P="$cuzk prove --circuit circuit.cuzk --params k.params"
expect "--lanes 3: three partitions at a time on the CPU" 0 "in 3 lanes" \
    $P --witness w0.wit w1.wit w2.wit -o lanes.bin --backend cpu --lanes 3 --verbose
expect "verify the --lanes 3 proofs" 0 "3 partitions valid" \
    "$cuzk" verify --vk k.vk --inputs w0.wit w1.wit w2.wit lanes.bin
expect "--lanes 2: an unsatisfying witness in partition 1 of 4" 1 "partition 1 (bad.wit)" \
    $P --witness w0.wit bad.wit w2.wit w1.wit -o lx.bin --backend cpu --lanes 2
[ -e lx.bin ] && bad "a proof was written for an unsatisfying witness (--lanes 2)"
expect "--lanes 2: a missing witness in partition 2" 2 "partition 2 (nowhere.wit)" \
    $P --witness w0.wit w1.wit nowhere.wit -o lx.bin --backend cpu --lanes 2
[ -e lx.bin ] && bad "a proof was written with a missing witness (--lanes 2)"
expect "--lanes 5 with 2 partitions" 0 "in 2 lanes" \
    $P --witness w0.wit w1.wit -o l5.bin --backend cpu --lanes 5 --threads 1 --verbose
expect "verify the --lanes 5 proofs" 0 "2 partitions valid" \
    "$cuzk" verify --vk k.vk --inputs w0.wit w1.wit l5.bin
expect "--lanes 0" 2 "--lanes 0: must be 1..64" $P --witness w0.wit -o d.bin --backend cpu --lanes 0
expect "--lanes needs the CPU backend" 2 "needs --backend cpu" \
    $P --witness w0.wit -o d.bin --lanes 2
expect "--devices needs --backend gpu" 2 "need --backend gpu" \
    $P --witness w0.wit -o d.bin --devices 0
for list in "0,-1" "0,x" "1," ",1" " 1" "+1" ""; do
    expect "--devices '$list' refused" 2 "all, or ordinals like 0,1" \
        $P --witness w0.wit -o d.bin --backend gpu --devices "$list"
done
expect "--device takes one ordinal" 2 "one ordinal like" \
    $P --witness w0.wit -o d.bin --backend gpu --device 0,1
expect "--device all refused" 2 "one ordinal like" \
    $P --witness w0.wit -o d.bin --backend gpu --device all
expect "--device and --devices together" 2 "once" \
    $P --witness w0.wit -o d.bin --backend gpu --device 0 --devices 0
# proofs on GPUs where there are any (CUZK_GPU_REQUIRED=1: there must be)
$P --witness w0.wit w1.wit w2.wit -o gpus.bin --backend gpu --devices all --verbose \
    >"$work/gout" 2>&1
grc=$?
if [ $grc -ne 0 ] && grep -qE "no CUDA device|no GPU backend" "$work/gout" &&
    [ "${CUZK_GPU_REQUIRED:-0}" != 1 ]; then
    [ -e gpus.bin ] && bad "--devices all without a device wrote a proof"
    echo "skip - GPU lanes: no GPU here ($(tail -1 "$work/gout"))"
elif [ $grc -eq 0 ]; then
    gpu_ok=1
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
    nprep=$(grep -c "prepare (gpu" "$work/gout")
    want=$((ngpu < 3 ? ngpu : 3))
    [ "$ngpu" -eq 0 ] && want=$((nprep > 0 ? nprep : 1)) # no nvidia-smi: at least one lane
    [ "$nprep" -eq "$want" ] && ok "--devices all: 3 partitions in $nprep lane(s)" ||
        bad "--devices all: $nprep lanes prepared, want $want ($ngpu GPUs)"
    expect "verify the --devices all proofs" 0 "3 partitions valid" \
        "$cuzk" verify --vk k.vk --inputs w0.wit w1.wit w2.wit gpus.bin
    expect "--devices all: an unsatisfying witness in partition 1" 1 "partition 1" \
        $P --witness w0.wit bad.wit w2.wit -o gx.bin --backend gpu --devices all
    [ -e gx.bin ] && bad "a proof was written for an unsatisfying witness (--devices all)"
    expect "--devices 0,0: two keys on GPU 0" 0 "in 2 lanes" \
        $P --witness w0.wit w1.wit w2.wit -o g00.bin --backend gpu --devices 0,0 --verbose
    [ "$(grep -c "prepare (gpu on GPU 0)" "$work/err")" -eq 2 ] && ok "--devices 0,0: two keys" ||
        bad "--devices 0,0: not two keys prepared on GPU 0"
    expect "verify the --devices 0,0 proofs" 0 "3 partitions valid" \
        "$cuzk" verify --vk k.vk --inputs w0.wit w1.wit w2.wit g00.bin
    expect "--devices 0,0: an unsatisfying witness in partition 2" 1 "partition 2" \
        $P --witness w0.wit w1.wit bad.wit -o gx.bin --backend gpu --devices 0,0
    [ -e gx.bin ] && bad "a proof was written for an unsatisfying witness (--devices 0,0)"
    expect "--devices 0,4095: a GPU that is not there" 2 "requested" \
        $P --witness w0.wit w1.wit -o gx.bin --backend gpu --devices 0,4095
    expect "--device 0" 0 "" $P --witness w1.wit -o g1.bin --backend gpu --device 0
    expect "verify the --device 0 proof" 0 "valid" "$cuzk" verify --vk k.vk --inputs w1.wit g1.bin
else
    bad "--devices all: exit status $grc | $(tail -3 "$work/gout")"
fi

# ---- bad input: exit 2 with a message ----
head -c 191 proof.bin >short.bin
expect "truncated proof" 2 "multiple of 192" "$cuzk" verify --vk k.vk --inputs w0.wit short.bin
expect "fewer inputs files than partitions" 2 "3 partition proofs but 2 inputs files" \
    "$cuzk" verify --vk k.vk --inputs w0.wit w1.wit proof.bin
printf '12\nnot-a-number\n' >garbage.inputs
expect "inputs file with garbage" 2 "garbage.inputs: line 2" \
    "$cuzk" verify --vk k.vk --inputs garbage.inputs one.bin
printf '1\n' >few.inputs
expect "inputs file with too few values" 2 "few.inputs: 1 public inputs" \
    "$cuzk" verify --vk k.vk --inputs few.inputs one.bin
# r itself is not a canonical input
printf '0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001\n1\n' >big.inputs
expect "input not below r" 2 "not below the group order" \
    "$cuzk" verify --vk k.vk --inputs big.inputs one.bin
expect "malformed partition 1 (does not decode)" 2 "partition 1" \
    "$cuzk" verify --vk k.vk --inputs w0.wit w1.wit w2.wit malformed.bin
expect "verify without a key" 2 "usage" "$cuzk" verify --inputs w0.wit one.bin
expect "missing proof file" 2 "nope.bin" "$cuzk" verify --vk k.vk --inputs w0.wit nope.bin
head -c 1000 w0.wit >short.wit
expect "truncated witness" 2 "short.wit" \
    "$cuzk" prove --circuit circuit.cuzk --params k.params --witness short.wit -o y.bin
[ -e y.bin ] && bad "a proof was written for a truncated witness"
mkdir other && "$fixture" --write-fixture other 11 1 >/dev/null &&
    "$cuzk" setup other/circuit.cuzk -o other.params --seed 02 >/dev/null 2>&1
expect "params of another circuit" 2 "parameters of another circuit" \
    "$cuzk" prove --circuit circuit.cuzk --params other.params --witness w0.wit -o y.bin
expect "witness of another circuit" 2 "witness of another circuit" \
    "$cuzk" prove --circuit circuit.cuzk --params k.params --witness other/w0.wit -o y.bin
expect "a .vk where the .params belong" 2 "k.vk" \
    "$cuzk" prove --circuit circuit.cuzk --params k.vk --witness w0.wit -o y.bin
expect "missing circuit" 2 "nope.cuzk" \
    "$cuzk" prove --circuit nope.cuzk --params k.params --witness w0.wit -o y.bin
expect "unknown backend" 2 "--backend 'tpu': must be cpu, gpu or auto" \
    "$cuzk" prove --circuit circuit.cuzk --params k.params --witness w0.wit -o y.bin --backend tpu
expect "no output path" 2 "usage" \
    "$cuzk" prove --circuit circuit.cuzk --params k.params --witness w0.wit
expect "no witness" 2 "usage" "$cuzk" prove --circuit circuit.cuzk --params k.params -o y.bin
[ -e y.bin ] && bad "a proof was written on bad input"
expect "output folder missing (refused before proving)" 2 "folder nodir" \
    "$cuzk" prove --circuit circuit.cuzk --params k.params --witness w0.wit -o nodir/y.bin
# corrupted parameters: the last byte of the first H point (y's lowest byte)
# moves it off the curve; the vectors are not curve-checked on open, so the
# proof fails its self-check: exit 1, nothing written
n_ic=$(python3 -c "import struct,sys; d=open('k.params','rb').read(); print(struct.unpack('>I', d[864:868])[0])")
cp k.params bad.params
python3 - "$n_ic" <<'PY'
import sys
n_ic = int(sys.argv[1])
off = 864 + 4 + n_ic * 96 + 4 + 95
b = bytearray(open('bad.params', 'rb').read())
b[off] ^= 1
open('bad.params', 'wb').write(b)
PY
# the self-check blames the key, not the witness, and names the point's offset
expect "corrupted H point: the key is blamed, with the offset" 2 \
    "the key is corrupt: bad.params: offset $((864 + 4 + n_ic * 96 + 4)): vector h point 0" \
    "$cuzk" prove --circuit circuit.cuzk --params bad.params --witness w0.wit -o y.bin
[ -e y.bin ] && bad "a proof was written with corrupted parameters"
# each proof's self-check runs beside the lane's next partition: with every
# proof failing it, the lowest partition is the one named, in one lane and
# in two, and nothing is written
expect "corrupted H point, 3 partitions: partition 0 named" 2 "partition 0 (w0.wit)" \
    "$cuzk" prove --circuit circuit.cuzk --params bad.params --witness w0.wit w1.wit w2.wit -o y.bin
expect "corrupted H point, 3 partitions in 2 lanes: partition 0 named" 2 "partition 0 (w0.wit)" \
    "$cuzk" prove --backend cpu --lanes 2 --circuit circuit.cuzk --params bad.params \
    --witness w0.wit w1.wit w2.wit -o y.bin
[ -e y.bin ] && bad "a proof was written with corrupted parameters (3 partitions)"
expect "verify --params reads only the verifying key (a corrupted H point is not read)" 0 \
    "3 partitions valid" "$cuzk" verify --params bad.params --inputs w0.wit w1.wit w2.wit proof.bin
# on a GPU each key reads the vectors from the file and decodes them on its
# device (deferred points), which checks the curve: the same point is refused
# at key preparation, named, before any proof (exit 2)
if [ "${gpu_ok:-0}" = 1 ]; then
    expect "corrupted H point on a GPU: refused at key preparation" 2 "vector h point 0" \
        "$cuzk" prove --backend gpu --circuit circuit.cuzk --params bad.params --witness w0.wit \
        -o y.bin
    expect "corrupted H point, two lanes on GPU 0: refused, named" 2 "vector h point 0" \
        "$cuzk" prove --backend gpu --devices 0,0 --circuit circuit.cuzk --params bad.params \
        --witness w0.wit w1.wit w2.wit -o y.bin
    [ -e y.bin ] && bad "a proof was written with corrupted parameters (GPU)"
    # the last vector (B_G2) loads beside the first proof (prepare_early):
    # a bad point there fails that proof with the same message, nothing written
    cp k.params bad2.params
    python3 - <<'PY'
import struct
b = bytearray(open('bad2.params', 'rb').read())
pos = 864
for size in (96, 96, 96, 96, 96):  # ic, h, l, a, b_g1
    n = struct.unpack('>I', b[pos:pos + 4])[0]
    pos += 4 + n * size
pos += 4  # b_g2's count, then its first point
b[pos + 191] ^= 1  # y's lowest byte: off the curve
open('bad2.params', 'wb').write(b)
PY
    expect "corrupted B_G2 point on a GPU (loaded beside the first proof): refused, named" 2 \
        "vector b_g2 point 0" \
        "$cuzk" prove --backend gpu --circuit circuit.cuzk --params bad2.params \
        --witness w0.wit w1.wit -o y.bin
    [ -e y.bin ] && bad "a proof was written with a corrupted B_G2 point (GPU)"
fi
"$cuzk" prove --verbose --circuit circuit.cuzk --params k.params --witness w0.wit w1.wit w2.wit \
    -o v.bin >/dev/null 2>"$work/verbose"
n_checks=$(grep -c "self-check" "$work/verbose")
if [ "$n_checks" -eq 3 ] && [ -s v.bin ]; then
    ok "--verbose: one self-check line per partition"
else
    bad "--verbose: $n_checks self-check lines for 3 partitions | $(tail -2 "$work/verbose")"
fi
# each partition line says where its witness came from: the CPU stages none
"$cuzk" prove --verbose --backend cpu --circuit circuit.cuzk --params k.params \
    --witness w0.wit w1.wit w2.wit -o vc.bin >/dev/null 2>"$work/vcpu"
n_loaded=$(grep -c "; witness loaded by the proof" "$work/vcpu")
[ "$n_loaded" -eq 3 ] && ok "--verbose, CPU: every witness loaded by its proof" ||
    bad "--verbose, CPU: $n_loaded of 3 partitions say 'witness loaded by the proof'"
if [ "${gpu_ok:-0}" = 1 ]; then # one GPU lane: partitions 1 and 2 find theirs pre-staged
    "$cuzk" prove --verbose --backend gpu --device 0 --circuit circuit.cuzk --params k.params \
        --witness w0.wit w1.wit w2.wit -o vg.bin >/dev/null 2>"$work/vgpu"
    n_staged=$(grep -c "; witness pre-staged" "$work/vgpu")
    [ "$n_staged" -eq 2 ] && ok "--verbose, one GPU lane: 2 of 3 witnesses pre-staged" ||
        bad "--verbose, one GPU lane: $n_staged of 3 witnesses pre-staged, want 2"
fi

# ---- setup and gen-circuit refusals ----
expect "setup: output folder missing" 2 "folder nodir" \
    "$cuzk" setup circuit.cuzk -o nodir/x.params
expect "setup: vk folder missing (refused before the work)" 2 "folder nodir" \
    "$cuzk" setup circuit.cuzk -o x.params --vk nodir/x.vk
[ -e x.params ] && bad "setup wrote .params although the .vk could not be written"
expect "setup: bad seed" 2 "--seed" "$cuzk" setup circuit.cuzk -o x.params --seed xyz
expect "gen-circuit: unknown profile" 2 "profile" \
    "$cuzk" gen-circuit --profile tpu --log-constraints 10 -o g
expect "gen-circuit: size out of range" 2 "" \
    "$cuzk" gen-circuit --profile porep --log-constraints 9 -o g
expect "gen-circuit then setup then prove then verify" 0 "valid" bash -c "
    '$cuzk' gen-circuit --profile sha --log-constraints 10 --partitions 1 --seed 9 -o g >/dev/null &&
    '$cuzk' setup g/circuit.cuzk -o g/c.params --vk g/c.vk --seed 09 2>/dev/null &&
    '$cuzk' prove --circuit g/circuit.cuzk --params g/c.params --witness g/w0.wit -o g/p.bin &&
    '$cuzk' verify --vk g/c.vk --inputs g/w0.wit g/p.bin"

# ---- a circom circuit through the same path (cuzk import) ----
expect "import the sample .r1cs and .wtns" 0 "" \
    "$cuzk" import "$sample/circuit.r1cs" -o circom.cuzk "$sample/witness.wtns" -w circom.wit
expect "circom circuit: setup, prove, verify" 0 "1 partition valid" bash -c "
    '$cuzk' setup circom.cuzk -o circom.params --vk circom.vk --seed 05 2>/dev/null &&
    '$cuzk' prove --circuit circom.cuzk --params circom.params --witness circom.wit -o circom.bin &&
    '$cuzk' verify --vk circom.vk --inputs circom.wit circom.bin"
# a witness value changed (the last byte of the last value, which stays below r): refused
cp "$sample/witness.wtns" badw.wtns
python3 -c "
b = bytearray(open('badw.wtns', 'rb').read()); b[-32] ^= 1; open('badw.wtns', 'wb').write(b)"
expect "import refuses an unsatisfying witness" 1 "constraint" \
    "$cuzk" import "$sample/circuit.r1cs" -o c2.cuzk badw.wtns -w refused.wit
[ -e refused.wit ] && bad "an unsatisfying witness was written"
expect "import: -w without a .wtns" 2 "-w x.wit: must follow the WITNESS.wtns it is for" "$cuzk" import "$sample/circuit.r1cs" -o c3.cuzk -w x.wit

# ---- the benchmark ----
expect "bench prove --circuit" 0 "seconds_per_proof" \
    "$cuzk" bench prove --circuit circuit.cuzk --params k.params --witness w0.wit w1.wit \
    --partitions 2 --reps 1 --json
expect "bench prove, CPU: no proof finds its witness pre-staged" 0 '"staged_proofs": 0' \
    "$cuzk" bench prove --backend cpu --circuit circuit.cuzk --params k.params --witness w0.wit \
    --reps 1 --json
expect "bench batch: jobs through the engine, two CPU lanes" 0 '"steady_seconds_per_proof"' \
    "$cuzk" bench batch --backend cpu --lanes 2 --circuit circuit.cuzk --params k.params \
    --witness w0.wit w1.wit w2.wit --jobs 3 --json
expect "bench batch: a bad witness fails its job, named" 1 "partition 1 (bad.wit)" \
    "$cuzk" bench batch --backend cpu --circuit circuit.cuzk --params k.params \
    --witness w0.wit bad.wit --jobs 2
expect "bench batch: --jobs 0" 2 "--jobs 0: must be 1..4096" \
    "$cuzk" bench batch --zkey "$sample/circuit.zkey" --wtns "$sample/witness.wtns" --jobs 0

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
