#!/usr/bin/env bash
# gpu-run-carried.sh — on a GPU machine, run what scripts/gpu-carry.sh built
# elsewhere (build-carry/), from the repository root, with
# CUZK_GPU_REQUIRED=1 (a missing device fails instead of skipping):
#
#   tests            every GPU test (GPU against CPU, bit for bit); test_gpu_msm
#                    with --quick unless CUZK_CARRY_FULL=1 (the full one takes ~6 min)
#   cli              tests/interop/check_prove_cli.sh, its GPU lanes included
#   partition LOG    a porep partition at 2^LOG: gen-circuit, then bench prove
#                    --backend gpu --reps 3 (setup from a seed, on the GPU), with
#                    the peak device memory sampled by nvidia-smi
#
# With no argument: tests and cli. A short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
bin=build-carry
[ -x "$bin/cuzk" ] || { echo "gpu-run-carried: no $bin/cuzk (run scripts/gpu-carry.sh first)" >&2; exit 2; }
export CUZK_GPU_REQUIRED=1 CUZK_SOURCE_DIR=$PWD
summary=()
run() { # name, limit in seconds, lines of its output to show, command...
  local name=$1 limit=$2 lines=$3
  shift 3
  local t0=$SECONDS
  timeout "$limit" "$@" > "/tmp/carried.$name.log" 2>&1
  local rc=$?
  tail -n "$lines" "/tmp/carried.$name.log"
  summary+=("$(printf '%-22s rc %-3d %4ds' "$name" "$rc" $((SECONDS - t0)))")
}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader || true
[ $# -eq 0 ] && set -- tests cli
while [ $# -gt 0 ]; do
  case $1 in
  tests)
    for t in "$bin"/test_gpu_*; do
      name=$(basename "$t")
      args=()
      [ "$name" = test_gpu_msm ] && [ "${CUZK_CARRY_FULL:-0}" != 1 ] && args=(--quick)
      run "$name" 580 4 "$t" "${args[@]}"
    done
    ;;
  cli)
    run check_prove_cli 400 4 bash tests/interop/check_prove_cli.sh "$bin/cuzk" "$bin/test_prove_circuit"
    ;;
  partition)
    log=${2:?partition needs LOG}
    shift
    dir=$(mktemp -d)
    "$bin/cuzk" gen-circuit --profile porep --log-constraints "$log" --partitions 1 --seed 42 \
      -o "$dir" > /dev/null
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 250 > "$dir/mem" &
    smi=$!
    run "partition_2^$log" 580 14 "$bin/cuzk" bench prove --circuit "$dir/circuit.cuzk" \
      --backend gpu --setup-seed 2a --witness "$dir/w0.wit" --reps 3
    kill "$smi" 2> /dev/null
    echo "peak device memory: $(sort -n "$dir/mem" | tail -n 1) MiB"
    rm -rf "$dir"
    ;;
  *)
    echo "gpu-run-carried: unknown step $1" >&2
    exit 2
    ;;
  esac
  shift
done
echo
printf '%s\n' "${summary[@]}"
