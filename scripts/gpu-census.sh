#!/usr/bin/env bash
# gpu-census.sh — on a GPU machine: where the time of some kernels goes. For
# the first COUNT launches of the kernels matching REGEX in one run of a
# binary, Nsight Compute's pipe and issue metrics (printed as a table) and
# its per-PC executed-instruction counts, plus the binary's SASS, which
# scripts/sass-census.py joins on any machine:
#
#   scripts/gpu-census.sh OUTDIR REGEX COUNT BINARY [ARGS...]
#   scripts/sass-census.py --ncu OUTDIR/census.txt --sass OUTDIR/binary.sass.gz \
#       --function MANGLED_NAME_REGEX --instance K --modifiers --per PRODUCTS
#
# The card's clocks are left as they are (--clock-control none), so times
# are those of a normal run, not of base clocks. Example, the three passes
# of a 2^27 NTT: scripts/gpu-census.sh /tmp/census pass_kernel 3
#   build/tests/test_gpu_ntt --bench-only --bench-min 27 --bench-max 27
set -uo pipefail
[ $# -ge 4 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
results=$1 regex=$2 count=$3
shift 3
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
objdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
[ -x "$ncu" ] && [ -x "$objdump" ] || { echo "gpu-census: no ncu or cuobjdump" >&2; exit 2; }
mkdir -p "$results"
# the same data in both runs, so that the K-th launch is the same kernel
# (the tests' harness draws its seed from CUZK_SEED)
export CUZK_SEED=${CUZK_SEED:-1}
# compressed: the MSM units' SASS is large
"$objdump" -sass "$1" | gzip -6 > "$results/binary.sass.gz" || exit 1
metrics=gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_fmalite_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
"$ncu" --clock-control none -k "regex:$regex" -c "$count" --metrics "$metrics" "$@" \
  > "$results/pipes.txt" 2>&1 || { tail -n 20 "$results/pipes.txt"; exit 1; }
"$ncu" --clock-control none -k "regex:$regex" -c "$count" --section InstructionStats \
  --section WarpStateStats --print-details all --print-metric-instances details "$@" \
  > "$results/census.txt" 2>&1 || { tail -n 20 "$results/census.txt"; exit 1; }
# one row per profiled kernel: its name, then each metric with its unit (ncu
# scales them: a short kernel's time may be in us)
awk -v list="$metrics" '
  BEGIN {
    n = split(list, m, ",")
    print "| kernel | time | issue | FMA heavy | FMA lite | ALU | warps | warp instr |"
    print "|---|---|---|---|---|---|---|---|"
  }
  function flush() {
    if (name == "") return
    row = "| " k++ " " name
    for (i = 1; i <= n; i++) row = row " | " (m[i] in v ? v[m[i]] : "-")
    print row " |"
    delete v
  }
  /\)x\([0-9]+, [0-9]+, [0-9]+\), Context/ {
    flush(); name = $0; sub(/^ +/, "", name)
    sub(/ \([0-9]+, [0-9]+, [0-9]+\)x\(.*$/, "", name) # the launch shape onwards
    next
  }
  NF >= 3 { v[$1] = $NF ($(NF-1) == "%" ? "%" : " " $(NF-1)) }
  END { flush() }' "$results/pipes.txt" | tee "$results/pipes.md"
