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
#   oneshot LOG N    the whole `cuzk prove` command at 2^LOG with N partitions:
#                    gen-circuit, setup --backend gpu, then prove --verbose twice
#                    (opening, key preparation and every partition's stages; the
#                    disk needs ~0.45 KB a constraint plus 32 B a variable a witness);
#                    ONESHOT_BINS="cuzk_old cuzk" alternates binaries of build-carry/
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
  local t0 ms
  t0=$(date +%s%N)
  timeout "$limit" "$@" > "/tmp/carried.$name.log" 2>&1
  local rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  tail -n "$lines" "/tmp/carried.$name.log"
  # a failing check's own lines (the harness's), which the tail may not reach
  if [ "$rc" -ne 0 ]; then
    grep -E '^FAIL |check failed|differs|failed:' "/tmp/carried.$name.log" | head -n 20
  fi
  summary+=("$(printf '%-26s rc %-3d %8d ms' "$name" "$rc" "$ms")")
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
  oneshot)
    log=${2:?oneshot needs LOG}
    parts=${3:?oneshot needs N}
    shift 2
    dir=$(mktemp -d)
    need=$(((1 << log) * 45 / 100000 + parts * (1 << log) * 32 / 1000000)) # MB, roughly
    have=$(df -Pm "$dir" | awk 'NR == 2 {print $4}')
    if [ "$have" -lt "$need" ]; then
      echo "oneshot 2^$log x $parts: needs ~$need MB of disk, $have free: skipped"
      summary+=("oneshot_2^${log}x$parts skipped (disk)")
      rmdir "$dir"
      shift
      continue
    fi
    "$bin/cuzk" gen-circuit --profile porep --log-constraints "$log" --partitions "$parts" \
      --seed 42 -o "$dir" > /dev/null
    run "setup_2^$log" 580 2 "$bin/cuzk" setup "$dir/circuit.cuzk" -o "$dir/k.params" \
      --seed 2a --backend gpu
    ws=()
    for ((i = 0; i < parts; i++)); do ws+=("$dir/w$i.wit"); done
    for round in 1 2; do
      for b in ${ONESHOT_BINS:-cuzk}; do
        run "oneshot_2^${log}x${parts}_${b}_r$round" 580 $((parts + 8)) \
          "$bin/$b" prove --backend gpu --verbose --circuit "$dir/circuit.cuzk" \
          --params "$dir/k.params" --witness "${ws[@]}" -o "$dir/proof.bin"
      done
    done
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
