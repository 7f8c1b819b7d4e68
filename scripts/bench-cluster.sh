#!/usr/bin/env bash
# bench-cluster.sh — daemons sharing one PostgreSQL job queue (doc/cluster.md)
# on one machine: each daemon pinned to its own share of the cores (taskset,
# [engine] threads to match), first each alone, then all together, on the
# same jobs of a synthetic PoRep-profile key submitted through one daemon by
# C clients (`cuzk bench stress`); and the queue's cost a partition (the
# store's time to claim it, renew its lease and record its result: the
# median of GET /v1/cluster's queue_cost_ms) in the run of all together.
#
#   scripts/bench-cluster.sh [--cuzk PATH] [--daemons D] [--cores-per-daemon N]
#                            [--log K] [--jobs J] [--partitions P] [--clients C]
#                            [--store URL] [--out DIR]
#
#   --daemons D            daemons (default 3)
#   --cores-per-daemon N   cores each is pinned to (default: the machine's cores
#                          over D, at least 1; daemon i gets cores i*N .. i*N+N-1,
#                          modulo the cores, so with fewer cores than D x N some
#                          share: the output says so)
#   --log K                2^K constraints (default 14)
#   --jobs J, --partitions P, --clients C
#                          the workload (default 12 jobs of 6 partitions, 4 clients)
#   --store URL            a PostgreSQL database to use (its schema "cuzk" is
#                          written to); default: a private server from
#                          scripts/pg-test-server.sh, removed afterwards
#   --out DIR              logs and results (default: a new folder under /tmp)
#
# The parameters come from `cuzk setup --seed` (a development setup, INSECURE).
# Every partition reuses one witness file; every proof is self-checked. Each
# run starts with a warm-up job that opens the key in every daemon. Daemons
# pinned to the same cores (more daemons than cores allow) can together do
# only what one of them does there alone: the output also gives the ratio to
# the sum with such a group counted once. Exit 0, 2 usage, 1 a failure (the
# daemons' logs are in DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
cuzk=build/cuzk n=3 per="" log=14 jobs=12 parts=6 clients=4 store="" results=""
usage() { sed -n '2,30p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --cuzk) cuzk=${2:?}; shift ;;
    --daemons) n=${2:?}; shift ;;
    --cores-per-daemon) per=${2:?}; shift ;;
    --log) log=${2:?}; shift ;;
    --jobs) jobs=${2:?}; shift ;;
    --partitions) parts=${2:?}; shift ;;
    --clients) clients=${2:?}; shift ;;
    --store) store=${2:?}; shift ;;
    --out) results=${2:?}; shift ;;
    -h | --help) usage ;;
    *) echo "bench-cluster: unknown option $1" >&2; usage ;;
    esac
    shift
done
[ -x "$cuzk" ] || { echo "bench-cluster: no $cuzk (build first, or --cuzk)" >&2; exit 2; }
command -v taskset > /dev/null || { echo "bench-cluster: needs taskset (util-linux)" >&2; exit 2; }
cuzk=$(cd "$(dirname "$cuzk")" && pwd)/$(basename "$cuzk")
cores=$(nproc)
[ -n "$per" ] || per=$(( cores / n > 0 ? cores / n : 1 ))
[ -n "$results" ] || results=$(mktemp -d "${TMPDIR:-/tmp}/bench-cluster.XXXXXX")
mkdir -p "$results"
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-cluster-k$log.XXXXXX")
pgdir=""
declare -a pids
cleanup() {
    for p in "${pids[@]:-}"; do
        [ -n "$p" ] && kill -TERM "$p" 2> /dev/null && wait "$p" 2> /dev/null
    done
    [ -n "$pgdir" ] && bash scripts/pg-test-server.sh stop "$pgdir"
    rm -rf "$dir"
}
trap cleanup EXIT
if [ -z "$store" ]; then
    server=$(bash scripts/pg-test-server.sh start) ||
        { echo "bench-cluster: no PostgreSQL server (scripts/pg-test-server.sh)" >&2; exit 1; }
    store=$(printf '%s\n' "$server" | sed -n 1p)
    pgdir=$(printf '%s\n' "$server" | sed -n 2p)
fi

# cpus I: the cores daemon I (0-based) is pinned to
cpus() {
    local i=$1 c s=""
    for c in $(seq $((i * per)) $((i * per + per - 1))); do s="$s${s:+,}$((c % cores))"; done
    echo "$s"
}
shared=""
[ $((n * per)) -le "$cores" ] || shared=" (more than the $cores cores: some share)"
echo "bench-cluster: $n daemons x $per core(s)$shared, 2^$log, $jobs jobs x $parts partitions," \
    "$clients clients; $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $cores cores," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg); results in $results"
"$cuzk" gen-circuit --profile porep --log-constraints "$log" --partitions 1 --seed 42 \
    -o "$dir" > "$results/gen.log" 2>&1
"$cuzk" setup "$dir/circuit.cuzk" -o "$dir/circuit.params" --seed 2a > "$results/setup.log" 2>&1

# start I: daemon I (0-based) on its cores, in the background
start() {
    local i=$1
    taskset -c "$(cpus "$i")" "$cuzk" daemon --server.unix_socket "$dir/d$i.sock" \
        --store.store "$store" --store.spool_dir "$dir/scratch$i" \
        --cluster.name "bench$i" --engine.backend cpu --engine.threads "$per" \
        --engine.max_queued_partitions $(( (jobs + clients) * parts )) \
        --key.porep.circuit "$dir/circuit.cuzk" --key.porep.params "$dir/circuit.params" \
        >> "$results/daemon$i.log" 2>&1 &
    pids[$i]=$!
    for _ in $(seq 200); do
        [ -S "$dir/d$i.sock" ] && curl -s --unix-socket "$dir/d$i.sock" http://x/v1/status > /dev/null &&
            return 0
        sleep 0.05
    done
    echo "bench-cluster: daemon $i did not start; its log:" >&2
    cat "$results/daemon$i.log" >&2
    exit 1
}
stop() {
    kill -TERM "${pids[$1]}" && wait "${pids[$1]}" || true
    pids[$1]=""
}
wit=()
for _ in $(seq "$parts"); do wit+=(--witness-path "$dir/w0.wit"); done
# run NAME: the workload through daemon 0's socket... or the first one up
run() {
    local name=$1 via=$2 warm=()
    for _ in $(seq $((2 * n))); do warm+=(--witness-path "$dir/w0.wit"); done
    CUZK_ADDR=unix:$dir/d$via.sock "$cuzk" bench stress --clients 1 --jobs 1 --key porep \
        "${warm[@]}" > /dev/null
    CUZK_ADDR=unix:$dir/d$via.sock "$cuzk" bench stress --clients "$clients" --jobs "$jobs" \
        --key porep "${wit[@]}" --json > "$results/$name.json"
}
rate() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["partitions_per_s"])' "$1"; }

sum=0
for i in $(seq 0 $((n - 1))); do
    cpus "$i" > "$results/cpus$i"
    start "$i"
    run "alone$i" "$i"
    curl -s --unix-socket "$dir/d$i.sock" http://x/v1/cluster > "$results/alone_cluster$i.json"
    stop "$i"
    echo "daemon $i alone (cores $(cpus "$i")): $(rate "$results/alone$i.json") partitions/s," \
        "queue cost $(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["self"]["queue_cost_ms"]; print("%.2f ms median, %.2f p99" % (c["median"], c["p99"]))' "$results/alone_cluster$i.json")"
done
for i in $(seq 0 $((n - 1))); do start "$i"; done
run together 0
for i in $(seq 0 $((n - 1))); do
    curl -s --unix-socket "$dir/d$i.sock" http://x/v1/cluster > "$results/cluster$i.json"
done
for i in $(seq 0 $((n - 1))); do stop "$i"; done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" "$n" <<'EOF'
import json, sys, statistics
res, n = sys.argv[1], int(sys.argv[2])
alone = [json.load(open(f"{res}/alone{i}.json"))["partitions_per_s"] for i in range(n)]
together = json.load(open(f"{res}/together.json"))
cl = [json.load(open(f"{res}/cluster{i}.json"))["self"] for i in range(n)]
tot = together["partitions_per_s"]
print(f"all {n} together: {tot:.2f} partitions/s = {100 * tot / sum(alone):.0f}% of the sum of "
      f"the single-daemon figures ({sum(alone):.2f})")
# daemons pinned to the same cores can together do what one of them does
# alone there: each group of cores counts once, at its daemons' mean
groups = {}
for i in range(n):
    groups.setdefault(open(f"{res}/cpus{i}").read().strip(), []).append(alone[i])
fair = sum(sum(v) / len(v) for v in groups.values())
if len(groups) < n:
    print(f"  {100 * tot / fair:.0f}% of what their cores allow ({fair:.2f}: the daemons sharing "
          f"cores counted once, at their mean)")
print("  partitions recorded by each: " + ", ".join(str(c["recorded"]) for c in cl))
# the median of every partition's cost is not in the answers: the median of
# the daemons' medians, weighted by their samples, and the largest p99
med = sorted((c["queue_cost_ms"]["median"], c["queue_cost_ms"]["samples"]) for c in cl)
half, acc, wmed = sum(s for _, s in med) / 2, 0, 0
for m, s in med:
    acc += s
    if acc >= half:
        wmed = m
        break
p99 = max(c["queue_cost_ms"]["p99"] for c in cl)
print(f"queue cost a partition (claim + lease + result): {wmed:.2f} ms median, {p99:.2f} ms p99 "
      f"(daemons' medians {', '.join(f'{m:.2f}' for m, _ in med)})")
json.dump({"alone": alone, "together": tot, "ratio": tot / sum(alone), "ratio_cores": tot / fair,
           "queue_cost_median_ms": wmed, "queue_cost_p99_ms": p99,
           "recorded": [c["recorded"] for c in cl]}, open(f"{res}/summary.json", "w"))
EOF
