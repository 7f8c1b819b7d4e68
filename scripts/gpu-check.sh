#!/usr/bin/env bash
# gpu-check.sh — on a machine with an NVIDIA GPU and the CUDA toolkit (nothing
# else: no -dev packages, no node): build the library, the command and the GPU
# tests with nvcc (sm_90), run the GPU tests (GPU vs CPU bit for bit), then
# the benchmarks, printing short tables last. Used for every figure in
# doc/perf.md that names this script.
#
#   scripts/gpu-check.sh [test|bench|all] [BUILD_DIR]
#
# Environment: CUZK_BENCH_MAX_LOG (largest MSM/NTT size to time, default 26),
# CUZK_BENCH_PROVE_LOGS (porep partition sizes for the backend benchmark,
# default "20 22 24"; every size also runs a development setup: 5 s at 2^20,
# 80 s at 2^24 on a 16-core host).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
build=${2:-build-gpu}
max_log=${CUZK_BENCH_MAX_LOG:-26}
prove_logs=${CUZK_BENCH_PROVE_LOGS:-20 22 24}

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total,driver_version --format=csv,noheader
echo "host: $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)"
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
cmake -S . -B "$build" "${gen[@]}" -DCUZK_CUDA=ON -DCUZK_WERROR=ON -DCMAKE_BUILD_TYPE=Release > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" 2>&1 | grep -E "error|warning|FAILED" && exit 1 || true

if [[ $what == test || $what == all ]]; then
  CUZK_GPU_REQUIRED=1 ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tail -n 30
fi
if [[ $what == bench || $what == all ]]; then
  cli="$build/cuzk"
  logs=()
  for ((k = 16; k <= max_log; k += 2)); do logs+=(--log "$k"); done
  "$cli" bench ntt --backend gpu "${logs[@]}" --reps 10 || true
  "$cli" bench msm --backend gpu "${logs[@]}" --g1 --g2 --reps 5 || true
  tmp=$(mktemp -d)
  for k in $prove_logs; do
    "$cli" gen-circuit --profile porep --log-constraints "$k" --partitions 1 --seed 42 -o "$tmp/p$k" > /dev/null
    "$cli" setup "$tmp/p$k/circuit.cuzk" -o "$tmp/p$k/circuit.params" --seed 2a 2> /dev/null
    bes=gpu
    [[ $k -le 20 ]] && bes="gpu cpu"
    for be in $bes; do
      "$cli" bench prove --backend "$be" --circuit "$tmp/p$k/circuit.cuzk" \
        --params "$tmp/p$k/circuit.params" --witness "$tmp/p$k/w0.wit" --reps 3 || true
    done
    rm -rf "$tmp/p$k"
  done
  rm -rf "$tmp"
fi
