#!/usr/bin/env bash
# gpu-census.sh — on a GPU machine: where the time of some kernels goes. For
# the first COUNT launches of the kernels matching REGEX in one run of a
# binary, Nsight Compute's pipe and issue metrics (printed as a table) and
# its per-PC executed-instruction counts, plus the binary's SASS, which
# scripts/sass-census.py joins on the development machine:
#
#   scripts/gpu-census.sh OUTDIR REGEX COUNT BINARY [ARGS...]
#   scripts/sass-census.py --ncu OUTDIR/census.txt --sass OUTDIR/binary.sass \
#       --function MANGLED_NAME_REGEX --instance K --modifiers --per PRODUCTS
#
# The card's clocks are left as they are (--clock-control none), so times
# are those of a normal run, not of base clocks. Example (doc/perf.md,
# session 17): scripts/gpu-census.sh "$OUT" pass_kernel 3
#   build-carry/test_gpu_ntt --bench-only --bench-min 27 --bench-max 27
set -uo pipefail
[ $# -ge 4 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
out=$1 regex=$2 count=$3
shift 3
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
objdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
[ -x "$ncu" ] && [ -x "$objdump" ] || { echo "gpu-census: no ncu or cuobjdump" >&2; exit 2; }
mkdir -p "$out"
"$objdump" -sass "$1" > "$out/binary.sass" || exit 1
metrics=gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_fmalite_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
"$ncu" --clock-control none -k "regex:$regex" -c "$count" --metrics "$metrics" "$@" \
  > "$out/pipes.txt" 2>&1 || { tail -n 20 "$out/pipes.txt"; exit 1; }
"$ncu" --clock-control none -k "regex:$regex" -c "$count" --section InstructionStats \
  --section WarpStateStats --print-details all --print-metric-instances details "$@" \
  > "$out/census.txt" 2>&1 || { tail -n 20 "$out/census.txt"; exit 1; }
# one row per profiled kernel: its name, then the metrics in a fixed order
awk -v list="$metrics" '
  BEGIN { n = split(list, m, ",") }
  function flush() {
    if (name == "") return
    row = "| " k++ " " name
    for (i = 1; i <= n; i++) row = row " | " (m[i] in v ? v[m[i]] : "-")
    print row " |"
    delete v
  }
  /\)x\([0-9]+, [0-9]+, [0-9]+\), Context/ {
    flush(); name = $0; sub(/^ +/, "", name); sub(/\(.*/, "", name); next
  }
  NF >= 2 { v[$1] = $NF }
  END { flush() }' "$out/pipes.txt" |
  sed '1i | kernel | ms | issue % | FMA heavy % | FMA lite % | ALU % | warps % | warp instr |'
