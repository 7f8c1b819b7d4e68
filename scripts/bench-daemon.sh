#!/usr/bin/env bash
# bench-daemon.sh — what the daemon's API costs: jobs of P partitions of a
# synthetic PoRep-profile key proved through `cuzk daemon` by C clients
# (`cuzk bench stress`), and the same jobs through the engine in process
# (`cuzk bench batch`), same key file, same machine, one after the other;
# each R times.
#
#   scripts/bench-daemon.sh [--cuzk PATH] [--log K] [--backend cpu|gpu]
#                           [--jobs J] [--partitions P] [--clients C] [--out DIR]
#                           [--params-dir DIR] [--runs R]
#
#   --log K          2^K constraints (default 16; the .params file is about
#                    0.35 KiB a constraint and the circuit 0.13 KiB, on disk)
#   --jobs J         jobs per run (default 8), P partitions each (default 10)
#   --clients C      concurrent clients of the daemon (default 4)
#   --out DIR        logs and results (default: a new folder under /tmp)
#   --runs R         timed runs through each (default 2)
#   --params-dir DIR where the .params file goes (default: beside the circuit;
#                    /dev/shm when the disk cannot hold both: 47 GB at 2^27)
#
# The parameters come from `cuzk setup --seed` (a development setup,
# INSECURE). Every partition reuses one witness file; every proof is
# self-checked. A first job through the daemon opens and prepares the key
# before the timed runs, as `bench batch` prepares it before its clock.
set -euo pipefail
cd "$(dirname "$0")/.."
cuzk=build/cuzk log=16 backend=cpu jobs=8 parts=10 clients=4 results="" pdir="" runs=2
usage() { sed -n '2,25p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --cuzk) cuzk=${2:?}; shift ;;
    --log) log=${2:?}; shift ;;
    --backend) backend=${2:?}; shift ;;
    --jobs) jobs=${2:?}; shift ;;
    --partitions) parts=${2:?}; shift ;;
    --clients) clients=${2:?}; shift ;;
    --out) results=${2:?}; shift ;;
    --params-dir) pdir=${2:?}; shift ;;
    --runs) runs=${2:?}; shift ;;
    -h | --help) usage ;;
    *) echo "bench-daemon: unknown option $1" >&2; usage ;;
    esac
    shift
done
[ -x "$cuzk" ] || { echo "bench-daemon: no $cuzk (build first, or --cuzk)" >&2; exit 2; }
cuzk=$(cd "$(dirname "$cuzk")" && pwd)/$(basename "$cuzk")
[ -n "$results" ] || results=$(mktemp -d "${TMPDIR:-/tmp}/bench-daemon.XXXXXX")
mkdir -p "$results"
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-daemon-k$log.XXXXXX")
pdir=$(mktemp -d "${pdir:-$dir}/bench-daemon-params.XXXXXX")
params=$pdir/circuit.params
daemon=""
cleanup() {
    [ -n "$daemon" ] && kill -TERM "$daemon" 2> /dev/null && wait "$daemon" 2> /dev/null
    rm -rf "$dir" "$pdir"
}
trap cleanup EXIT
echo "bench-daemon: 2^$log, $jobs jobs x $parts partitions, $clients clients, backend $backend; results in $results"
command -v nvidia-smi > /dev/null && [ "$backend" = gpu ] &&
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
"$cuzk" gen-circuit --profile porep --log-constraints "$log" --partitions 1 --seed 42 \
    -o "$dir" > "$results/gen.log" 2>&1
"$cuzk" setup "$dir/circuit.cuzk" -o "$params" --seed 2a --backend "$backend" \
    > "$results/setup.log" 2>&1

"$cuzk" daemon --server.unix_socket "$dir/cuzk.sock" --server.unix_socket_mode 0600 \
    --store.database "$dir/cuzk.db" --store.spool_dir "$dir/spool" \
    --engine.backend "$backend" --engine.max_queued_partitions $(( (jobs + clients) * parts )) \
    --key.porep.circuit "$dir/circuit.cuzk" --key.porep.params "$params" \
    2> "$results/daemon.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$dir/cuzk.sock" ] && break; sleep 0.1; done
export CUZK_ADDR=unix:$dir/cuzk.sock
wit=()
for _ in $(seq "$parts"); do wit+=(--witness-path "$dir/w0.wit"); done
"$cuzk" bench stress --clients 1 --jobs 1 --key porep "${wit[@]}" > "$results/warm.txt"
for r in $(seq "$runs"); do
    "$cuzk" bench stress --clients "$clients" --jobs "$jobs" --key porep "${wit[@]}" \
        > "$results/stress$r.txt"
done
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
for r in $(seq "$runs"); do
    "$cuzk" bench batch --backend "$backend" --circuit "$dir/circuit.cuzk" \
        --params "$params" --witness "$dir/w0.wit" --jobs "$jobs" \
        --partitions "$parts" > "$results/batch$r.txt" 2> "$results/batch$r.log"
done
for r in $(seq "$runs"); do
    echo
    echo "through the daemon, run $r:"
    cat "$results/stress$r.txt"
done
for r in $(seq "$runs"); do
    echo
    echo "in process (bench batch), run $r:"
    cat "$results/batch$r.txt"
done
