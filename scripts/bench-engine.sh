#!/usr/bin/env bash
# bench-engine.sh — the engine's throughput on a synthetic PoRep-profile
# partition: jobs of P partitions back to back through `cuzk bench batch`,
# once for each number of workers per GPU (and each vram limit), with one
# partition alone (`cuzk bench prove`, no limit) as the anchor of the same
# run. Each run's timeline is drawn as an SVG.
#
#   scripts/bench-engine.sh [--cuzk PATH] [--log K] [--jobs J] [--partitions P]
#                           [--workers "1 2 3"] [--backend gpu|cpu]
#                           [--vram-limits "none 80G 24G"] [--out DIR]
#
#   --cuzk PATH      the cuzk binary (default: build/cuzk)
#   --log K          2^K constraints (default 27; the key about 1 KiB a
#                    constraint on the device, the circuit file ~0.13 KiB)
#   --jobs J         jobs per run (default 3), each of P partitions (default 10)
#   --workers LIST   the workers-per-device counts to run (default "1 2 3")
#   --vram-limits L  the batch runs' vram limits (default "none": the card's
#                    own memory); a limit (e.g. 80G, 24G) makes the key plan
#                    for a card of that size, streaming what does not fit.
#                    Files of a limited run end in -SIZE (batch-w2-24G.json)
#   --out DIR        logs, JSON and SVGs (default: a new directory under /tmp)
#
# The parameters are made in memory from a fixed seed (a development setup,
# INSECURE) since a 2^27 .params file takes 47 GB. Every partition reuses
# one witness file; every proof is self-checked by the engine.
set -euo pipefail
cd "$(dirname "$0")/.."
cuzk=build/cuzk log=27 jobs=3 parts=10 workers="1 2 3" backend=gpu results="" limits=none
usage() { sed -n '2,23p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --cuzk) cuzk=${2:?}; shift ;;
    --log) log=${2:?}; shift ;;
    --jobs) jobs=${2:?}; shift ;;
    --partitions) parts=${2:?}; shift ;;
    --workers) workers=${2:?}; shift ;;
    --backend) backend=${2:?}; shift ;;
    --vram-limits) limits=${2:?}; shift ;;
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
echo "bench-engine: 2^$log, $jobs jobs x $parts partitions, backend $backend, vram limits $limits; results in $results"
command -v nvidia-smi > /dev/null &&
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader
"$cuzk" gen-circuit --profile porep --log-constraints "$log" --partitions 1 --seed 42 \
    -o "$dir" > "$results/gen.log" 2>&1
"$cuzk" bench prove --backend "$backend" --circuit "$dir/circuit.cuzk" --setup-seed 2a \
    --witness "$dir/w0.wit" --reps 3 > "$results/prove.txt" 2> "$results/prove.log"
# the runs: "workers" or "workers-limit", one per line
runs=$(for l in $limits; do for w in $workers; do
    if [ "$l" = none ]; then echo "$w"; else echo "$w-$l"; fi
done; done)
for r in $runs; do
    w=${r%%-*} lim=()
    [ "$r" = "$w" ] || lim=(--vram-limit "${r#*-}")
    "$cuzk" bench batch --backend "$backend" "${lim[@]}" --circuit "$dir/circuit.cuzk" \
        --setup-seed 2a --witness "$dir/w0.wit" --jobs "$jobs" --partitions "$parts" \
        --workers "$w" --json --log --svg "$results/timeline-w$r.svg" > "$results/batch-w$r.json" \
        2> "$results/batch-w$r.log" ||
        { echo "bench-engine: run $r failed:"; tail -n 5 "$results/batch-w$r.log"; }
done
echo
echo "one partition alone (bench prove):"
tail -n 13 "$results/prove.txt"
for r in $runs; do
    echo
    w=${r%%-*}
    if [ "$r" = "$w" ]; then echo "workers per device $w:"; else echo "workers per device $w, vram limit ${r#*-}:"; fi
    grep -h -m1 ": GPU [0-9]*: " "$results/batch-w$r.log" 2> /dev/null || true
    cat "$results/batch-w$r.json" 2> /dev/null || true
done
