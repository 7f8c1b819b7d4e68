#!/usr/bin/env bash
# gpu-carry.sh — build the GPU binaries on this (development) machine and
# collect them in build-carry/ for a GPU machine that should spend its time
# running, not compiling (msm.cu alone takes minutes in nvcc). The binaries
# link the CUDA runtime statically and need only libc, libm, libstdc++,
# libgcc and libgomp, so they run on a newer distribution's glibc as well.
# On the GPU machine, from the repository root:
#
#   scripts/gpu-run-carried.sh [tests] [cli] [partition LOG] ...
#
#   scripts/gpu-carry.sh [BUILD_DIR]      (default build-lead)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-lead}
out="build-carry"
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
mkdir -p "$build"
cmake -S . -B "$build" "${gen[@]}" -DCUZK_CUDA=ON -DCUZK_WERROR=ON -DCMAKE_BUILD_TYPE=Release \
  > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target cuzk test_prove_circuit \
  test_gpu_ff test_gpu_ntt test_gpu_msm test_gpu_spmv test_gpu_setup test_gpu_backend
rm -rf "$out"
mkdir -p "$out"
cp "$build/cuzk" "$build/test_prove_circuit" "$out/"
cp "$build"/tests/test_gpu_* "$out/"
# what the device machine must provide: nothing past the C and C++ runtimes
bad=$(for f in "$out"/*; do ldd "$f" | awk '{print $1}'; done | sort -u |
  grep -v -E '^(linux-vdso|/lib64/ld-linux|libc|libm|libstdc\+\+|libgcc_s|libgomp)(\.|-)' || true)
if [ -n "$bad" ]; then
  echo "gpu-carry: the binaries need libraries a bare GPU machine may lack:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "gpu-carry: $(find "$out" -type f | wc -l) binaries, $(du -sh "$out" | cut -f1) in $out/ (carry it: it is ignored)"
