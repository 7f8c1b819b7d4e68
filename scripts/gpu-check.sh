#!/usr/bin/env bash
# gpu-check.sh — on a machine with a CUDA GPU: build cuzk with the CUDA
# backend (or take a tree built elsewhere), run every GPU test, the command
# line's GPU lanes and the GPU benchmarks, and print a summary table.
#
#   scripts/gpu-check.sh [--build-dir DIR] [--no-build] [--tests-only | --bench-only]
#                        [--quick] [--prove-log K]... [--out DIR]
#   scripts/gpu-check.sh [test | bench | all] [DIR]    (the same, shorter)
#
#   --build-dir DIR  the build tree (default: build-gpu). It is configured
#                    (CUDA on, warnings as errors) and built unless --no-build.
#   --no-build       use DIR as it is, e.g. built on another machine: it must
#                    hold cuzk, test_prove_circuit and tests/test_gpu_* of a
#                    CUDA build (they link the CUDA runtime statically and need
#                    no -dev packages). The tests then run as binaries, not
#                    through ctest (its paths are the building machine's).
#   --tests-only     the tests and the command line's GPU lanes, no benchmarks
#   --bench-only     the benchmarks alone
#   --quick          test_gpu_msm --quick (its edge cases) instead of the full run
#   --prove-log K    `cuzk bench prove` on a porep partition of 2^K constraints
#                    (repeatable; default 20 and the largest of 27, 26, 24, 22
#                    whose key fits the card and whose files fit the disk)
#   --out DIR        the logs (default: a new directory under ${TMPDIR:-/tmp})
#
# Everything runs with CUZK_GPU_REQUIRED=1: a test that finds no device fails
# instead of skipping. A failing step does not stop the others; the exit
# status is 1 when any failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$PWD

build="build-gpu"
do_build=1 do_tests=1 do_bench=1 quick=0 results=""
prove_logs=()
usage() { sed -n '2,27p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --build-dir) build=${2:?--build-dir needs DIR}; shift ;;
    --no-build) do_build=0 ;;
    --tests-only) do_bench=0 ;;
    --bench-only) do_tests=0 ;;
    --quick) quick=1 ;;
    --prove-log) prove_logs+=("${2:?--prove-log needs K}"); shift ;;
    --out) results=${2:?--out needs DIR}; shift ;;
    test) do_bench=0 ;;
    bench) do_tests=0 ;;
    all) ;;
    -h | --help) usage ;;
    -*) echo "gpu-check: unknown option $1" >&2; usage ;;
    *) build=$1 ;;
    esac
    shift
done
build=$(realpath -m "$build")
[ -n "$results" ] || results=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
mkdir -p "$results"
export CUZK_GPU_REQUIRED=1 CUZK_SOURCE_DIR=$root

summary=()
failed=0
# step NAME LIMIT_S CMD...: runs CMD with its output in $results/NAME.log, and
# records its status and time for the summary
step() {
    local name=$1 limit=$2
    shift 2
    local t0 rc s
    t0=$(date +%s)
    timeout "$limit" "$@" > "$results/$name.log" 2>&1
    rc=$?
    s=$(($(date +%s) - t0))
    if [ $rc -eq 0 ]; then
        echo "ok   $name (${s} s)"
    else
        echo "FAIL $name: exit status $rc (${s} s), last lines of $results/$name.log:"
        tail -n 15 "$results/$name.log" | sed 's/^/     /'
        failed=1
    fi
    summary+=("$(printf '%-34s %-5s %6d s' "$name" "$([ $rc -eq 0 ] && echo ok || echo FAIL)" "$s")")
    return $rc
}

echo "gpu-check: logs in $results"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader ||
    echo "gpu-check: nvidia-smi failed (no driver?)"

# ---- build ------------------------------------------------------------------
if [ $do_build -eq 1 ]; then
    gen=() # a new tree with Ninja where there is one; an old one keeps its generator
    [ ! -e "$build/CMakeCache.txt" ] && command -v ninja > /dev/null && gen=(-G Ninja)
    step configure 600 cmake -S "$root" -B "$build" "${gen[@]}" -DCUZK_CUDA=ON -DCUZK_WERROR=ON \
        -DCMAKE_BUILD_TYPE=Release || { echo "gpu-check: configure failed"; exit 1; }
    step build 3600 cmake --build "$build" -j"$(nproc)" || { echo "gpu-check: build failed"; exit 1; }
fi
cli=$build/cuzk
for f in "$cli" "$build/test_prove_circuit"; do
    [ -x "$f" ] || { echo "gpu-check: no $f (build first, or --build-dir)" >&2; exit 2; }
done
gpu_tests=("$build"/tests/test_gpu_*)
[ -x "${gpu_tests[0]}" ] || { echo "gpu-check: no $build/tests/test_gpu_* (a CUDA build?)" >&2; exit 2; }

# ---- tests ------------------------------------------------------------------
if [ $do_tests -eq 1 ]; then
    if [ $do_build -eq 1 ] && command -v ctest > /dev/null && [ $quick -eq 0 ]; then
        step ctest_gpu 3600 ctest --test-dir "$build" -L gpu --output-on-failure
    else
        for t in "${gpu_tests[@]}"; do
            args=()
            [ "$(basename "$t")" = test_gpu_msm ] && [ $quick -eq 1 ] && args=(--quick)
            step "$(basename "$t")" 1800 "$t" "${args[@]}"
        done
    fi
    # the command line end to end, its GPU lanes included (CUZK_GPU_REQUIRED)
    step check_prove_cli 1200 bash tests/interop/check_prove_cli.sh "$cli" "$build/test_prove_circuit"
fi

# ---- benchmarks ---------------------------------------------------------------
if [ $do_bench -eq 1 ]; then
    mem=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0 2> /dev/null)
    # the bases made on the host (a minute at 2^26), then kept with shifted
    # copies as a key that keeps proving keeps them: 6 where 2^26 of them fit
    # beside the MSM's work area (a 141 GB card), else 4
    copies=4
    [ "${mem:-0}" -ge 120000 ] && copies=6
    step bench_msm_g1 1800 "$cli" bench msm --backend gpu --g1 --log 24 --log 26 \
        --reps 5 --no-batch-add --copies "$copies"
    step bench_ntt 1800 "$cli" bench ntt --backend gpu --log 24 --log 27 --reps 10

    if [ ${#prove_logs[@]} -eq 0 ]; then
        # the key's device memory is about 1 KiB a constraint with the MSMs'
        # work area (MiB: 2^K / 1024); the circuit file about 0.45 KiB a
        # constraint and a witness 32 B a variable (KiB: 2^K / 2)
        disk=$(df -Pk "${TMPDIR:-/tmp}" | awk 'NR == 2 {print $4}')
        prove_logs=(20)
        for k in 27 26 24 22; do
            if [ $(((1 << k) >> 10)) -le "${mem:-0}" ] && [ $(((1 << k) / 2)) -le "${disk:-0}" ]; then
                prove_logs+=("$k")
                break
            fi
        done
    fi
    for k in "${prove_logs[@]}"; do
        dir=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-p$k.XXXXXX")
        if step "gen_circuit_porep_$k" 1800 "$cli" gen-circuit --profile porep \
            --log-constraints "$k" --partitions 1 --seed 42 -o "$dir"; then
            step "bench_prove_porep_$k" 1800 "$cli" bench prove --backend gpu \
                --circuit "$dir/circuit.cuzk" --setup-seed 2a --witness "$dir/w0.wit" --reps 3
        fi
        rm -rf "$dir"
    done
fi

# ---- summary ----------------------------------------------------------------
echo
echo "gpu-check summary ($(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2> /dev/null)):"
printf '%s\n' "${summary[@]}"
if [ $do_bench -eq 1 ]; then
    echo
    echo "benchmarks (ms; see the logs for every column):"
    [ -e "$results/bench_msm_g1.log" ] && grep -E '^g1_msm' "$results/bench_msm_g1.log" |
        awk -v k="$copies" '{printf "  msm G1 2^%-3s %d copies c=%-3s min %9s  median %9s\n", $2, k, $5, $6, $7}'
    [ -e "$results/bench_ntt.log" ] && grep -E '^(24|27) ' "$results/bench_ntt.log" |
        awk '{printf "  ntt 2^%-3s %-14s min %9s  median %9s\n", $1, $2, $4, $5}'
    for f in "$results"/bench_prove_porep_*.log; do
        [ -e "$f" ] && grep -E '^seconds per proof' "$f" | sed "s|^|  $(basename "$f" .log): |"
    done
fi
exit $failed
