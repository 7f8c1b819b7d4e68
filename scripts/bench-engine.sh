#!/usr/bin/env bash
# bench-engine.sh — the engine's throughput on a synthetic PoRep-profile
# partition: jobs of P partitions back to back through `cuzk bench batch`,
# once for each number of workers per GPU, with one partition alone
# (`cuzk bench prove`) as the anchor of the same run. Each run's timeline
# is drawn as an SVG.
#
#   scripts/bench-engine.sh [--cuzk PATH] [--log K] [--jobs J] [--partitions P]
#                           [--workers "1 2 3"] [--backend gpu|cpu] [--out DIR]
#
#   --cuzk PATH      the cuzk binary (default: build/cuzk)
#   --log K          2^K constraints (default 27; the key about 1 KiB a
#                    constraint on the device, the circuit file ~0.13 KiB)
#   --jobs J         jobs per run (default 3), each of P partitions (default 10)
#   --workers LIST   the workers-per-device counts to run (default "1 2 3")
#   --out DIR        logs, JSON and SVGs (default: a new directory under /tmp)
#
# The parameters are made in memory from a fixed seed (a development setup,
# INSECURE) since a 2^27 .params file takes 47 GB. Every partition reuses
# one witness file; every proof is self-checked by the engine.
set -euo pipefail
cd "$(dirname "$0")/.."
cuzk=build/cuzk log=27 jobs=3 parts=10 workers="1 2 3" backend=gpu results=""
usage() { sed -n '2,22p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --cuzk) cuzk=${2:?}; shift ;;
    --log) log=${2:?}; shift ;;
    --jobs) jobs=${2:?}; shift ;;
    --partitions) parts=${2:?}; shift ;;
    --workers) workers=${2:?}; shift ;;
    --backend) backend=${2:?}; shift ;;
    --out) results=${2:?}; shift ;;
    -h | --help) usage ;;
    *) echo "bench-engine: unknown option $1" >&2; usage ;;
    esac
    shift
done
[ -x "$cuzk" ] || { echo "bench-engine: no $cuzk (build first, or --cuzk)" >&2; exit 2; }
[ -n "$results" ] || results=$(mktemp -d "${TMPDIR:-/tmp}/bench-engine.XXXXXX")
mkdir -p "$results"
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-engine-c$log.XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "bench-engine: 2^$log, $jobs jobs x $parts partitions, backend $backend; results in $results"
command -v nvidia-smi > /dev/null &&
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader
"$cuzk" gen-circuit --profile porep --log-constraints "$log" --partitions 1 --seed 42 \
    -o "$dir" > "$results/gen.log" 2>&1
"$cuzk" bench prove --backend "$backend" --circuit "$dir/circuit.cuzk" --setup-seed 2a \
    --witness "$dir/w0.wit" --reps 3 > "$results/prove.txt" 2> "$results/prove.log"
for w in $workers; do
    "$cuzk" bench batch --backend "$backend" --circuit "$dir/circuit.cuzk" --setup-seed 2a \
        --witness "$dir/w0.wit" --jobs "$jobs" --partitions "$parts" --workers "$w" --json \
        --svg "$results/timeline-w$w.svg" > "$results/batch-w$w.json" 2> "$results/batch-w$w.log" ||
        { echo "bench-engine: workers $w failed:"; tail -n 5 "$results/batch-w$w.log"; }
done
echo
echo "one partition alone (bench prove):"
tail -n 12 "$results/prove.txt"
for w in $workers; do
    echo
    echo "workers per device $w:"
    cat "$results/batch-w$w.json" 2> /dev/null || true
done
