#!/usr/bin/env bash
# bench-two-gpus.sh — the engine on two GPUs of one host, every measurement in
# one run: the GPU tests on each card, porep-profile jobs through the engine
# on one card and on both (seconds per proof, each card's busy fraction, the
# ratio), the two-card run again with a device fault injected mid-run (the
# faulting card's partition finishes on the other, every job completes,
# nothing lost or proved twice), and the runs' timelines as SVG. Needs bash,
# coreutils, grep, sed, awk and the binaries of a CUDA build made elsewhere
# (they link the CUDA runtime statically; stripped binaries do): no compiler.
#
#   scripts/bench-two-gpus.sh [--cuzk PATH] [--tests DIR] [--quick] [--no-engine]
#                             [--log K] [--jobs J] [--partitions P] [--workers W]
#                             [--fault STAGE:N] [--backend gpu|cpu] [--timeout S]
#                             [--out DIR]
#
#   --cuzk PATH      the cuzk binary (default: build/cuzk); a lib/ folder beside
#                    it, if any, goes first on LD_LIBRARY_PATH (the shared
#                    libraries of the build machine, for a host without them)
#   --tests DIR      a folder holding test_gpu_* binaries: each runs with
#                    --device 0 and with --device 1 (the two cards at once, each
#                    going through the tests in turn). Without it, no tests.
#   --quick          test_gpu_msm and test_gpu_stream with --quick
#   --no-engine      the tests alone (no circuit, no engine runs)
#   --log K          a porep circuit of 2^K constraints (default: 27 where both
#                    cards have 130000 MiB or more, as an H200's 141 GB; else 26;
#                    12 with --backend cpu)
#   --jobs J         jobs per engine run (default 4), of P partitions (default 10)
#   --workers W      workers per card (default: the engine's, 2)
#   --fault STAGE:N  the fault of the third run (default msm_h:N, N half the
#                    run's partitions: the Nth H MSM fails as a device error)
#   --backend cpu    two CPU lanes of one thread stand in for the two cards
#                    (--lanes 1 and --lanes 2 instead of --devices 0 and 0,1):
#                    the script's logic and the engine's on any machine
#   --timeout S      each step's limit in seconds (default 1800)
#   --out DIR        logs, JSON, SVGs and summary.txt (default: a new directory
#                    under ${TMPDIR:-/tmp}); the circuit goes to a scratch
#                    directory under ${TMPDIR:-/tmp}, removed at the end
#
# The parameters are made in memory from a fixed seed (a development setup,
# INSECURE), by each engine run before its clock starts. Every proof is
# self-checked by the engine; each run's JSON is checked for every job
# completed, jobs x partitions proofs returned, distinct and nonzero, none
# proved twice, and for the fault run one fault, one retry, on the other card.
# A failing step is reported with its log's last lines and the others still
# run; the exit status is 1 when any step failed, 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

cuzk=build/cuzk tests="" quick=0 engine=1 log="" jobs=4 parts=10 workers="" fault="" backend=gpu
limit=1800 results=""
usage() { sed -n '2,45p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --cuzk) cuzk=${2:?--cuzk needs PATH}; shift ;;
    --tests) tests=${2:?--tests needs DIR}; shift ;;
    --quick) quick=1 ;;
    --no-engine) engine=0 ;;
    --log) log=${2:?--log needs K}; shift ;;
    --jobs) jobs=${2:?--jobs needs J}; shift ;;
    --partitions) parts=${2:?--partitions needs P}; shift ;;
    --workers) workers=${2:?--workers needs W}; shift ;;
    --fault) fault=${2:?--fault needs STAGE:N}; shift ;;
    --backend) backend=${2:?--backend needs gpu or cpu}; shift ;;
    --timeout) limit=${2:?--timeout needs S}; shift ;;
    --out) results=${2:?--out needs DIR}; shift ;;
    -h | --help) usage ;;
    *) echo "bench-two-gpus: unknown option $1" >&2; usage ;;
    esac
    shift
done
is_uint() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ]; }
for v in "jobs:$jobs" "partitions:$parts" "timeout:$limit" ${log:+"log:$log"} \
    ${workers:+"workers:$workers"}; do
    is_uint "${v#*:}" || { echo "bench-two-gpus: --${v%%:*} ${v#*:}: must be a positive integer" >&2; exit 2; }
done
[ "$backend" = gpu ] || [ "$backend" = cpu ] ||
    { echo "bench-two-gpus: --backend $backend: must be gpu or cpu" >&2; exit 2; }
[ -x "$cuzk" ] || { echo "bench-two-gpus: no executable $cuzk (--cuzk PATH)" >&2; exit 2; }
cuzk=$(realpath "$cuzk")
# shared libraries carried in a lib/ folder beside the binary, for a host
# that lacks them (libsqlite3, libmicrohttpd, libpq and theirs)
if [ -d "${cuzk%/*}/lib" ]; then
    export LD_LIBRARY_PATH="${cuzk%/*}/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if ! "$cuzk" version > /dev/null 2>&1; then
    echo "bench-two-gpus: $cuzk does not start:" >&2
    "$cuzk" version 2>&1 | head -n 3 >&2
    ldd "$cuzk" 2> /dev/null | grep "not found" >&2
    exit 2
fi
if [ -n "$tests" ]; then
    [ -d "$tests" ] || { echo "bench-two-gpus: --tests $tests: no such folder" >&2; exit 2; }
    tests=$(realpath "$tests")
fi
[ -n "$results" ] || results=$(mktemp -d "${TMPDIR:-/tmp}/bench-two-gpus.XXXXXX")
mkdir -p "$results" || exit 2
results=$(realpath "$results")
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-two-gpus-c.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
total=$((jobs * parts))
[ -n "$fault" ] || fault="msm_h:$(((total + 1) / 2))"
[ "$backend" = gpu ] && export CUZK_GPU_REQUIRED=1 # a test that finds no card fails

failed=0
summary=()
note() { summary+=("$*"); }

# step NAME LOG CMD...: CMD under the step limit, its output in LOG; prints
# ok or FAIL with the log's last lines. Returns CMD's status.
step() {
    local name=$1 logf=$2 t0 rc s
    shift 2
    t0=$(date +%s)
    timeout --kill-after=30 "$limit" "$@" > "$logf" 2>&1
    rc=$?
    s=$(($(date +%s) - t0))
    if [ $rc -eq 0 ]; then
        echo "ok   $name (${s} s)"
    else
        [ $rc -eq 124 ] && echo "FAIL $name: timed out after $limit s" ||
            echo "FAIL $name: exit status $rc (${s} s), last lines of $logf:"
        tail -n 12 "$logf" | sed 's/^/     /'
        failed=1
    fi
    return $rc
}

# ---- the machine --------------------------------------------------------------
{
    echo "command: $0 $*"
    "$cuzk" version
    command -v nvidia-smi > /dev/null &&
        nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,driver_version --format=csv
} > "$results/machine.txt" 2>&1
cards="" ngpu=0 mem_min=0
if [ "$backend" = gpu ]; then
    if command -v nvidia-smi > /dev/null; then
        ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
        mem_min=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0,1 \
            2> /dev/null | sort -n | head -1)
        cards=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2> /dev/null)
    fi
    if [ "$ngpu" -lt 2 ]; then
        echo "FAIL machine: $ngpu GPUs found by nvidia-smi, this needs 2 (the steps run anyway)"
        note "$(printf '%-36s %-18s %s' machine FAIL "$ngpu GPUs found by nvidia-smi, 2 needed")"
        failed=1
    fi
    [ -n "$log" ] || { [ "${mem_min:-0}" -ge 130000 ] && log=27 || log=26; }
    one=(--backend gpu --devices 0) two=(--backend gpu --devices "0,1") lane=GPU
    name1="1 card (--devices 0)" name2="2 cards (--devices 0,1)"
else
    [ -n "$log" ] || log=12
    one=(--backend cpu --lanes 1 --threads 1) two=(--backend cpu --lanes 2 --threads 1) lane=lane
    name1="1 lane (--lanes 1)" name2="2 lanes (--lanes 2)"
    cards="CPU lanes standing in for the cards"
fi
[ "$backend" = cpu ] || cards="$ngpu x ${cards:-unnamed GPUs}"
echo "bench-two-gpus: $cards, porep 2^$log, $jobs jobs x $parts partitions, fault $fault;" \
    "results in $results"

# ---- (a) every GPU test on each card, the two cards at once ---------------------
# tests_on DEV: each test binary in turn with --device DEV; one line per test
# ("NAME STATUS SECONDS") in $results/tests-devDEV.txt
tests_on() {
    local dev=$1 t name rc t0 args
    : > "$results/tests-dev$dev.txt"
    for t in "$tests"/test_gpu_*; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        args=(--device "$dev")
        case $name in test_gpu_msm | test_gpu_stream) [ $quick -eq 1 ] && args+=(--quick) ;; esac
        t0=$(date +%s)
        timeout --kill-after=30 "$limit" "$t" "${args[@]}" > "$results/tests/$name-dev$dev.log" 2>&1
        rc=$?
        echo "$name $rc $(($(date +%s) - t0))" >> "$results/tests-dev$dev.txt"
    done
}
if [ -n "$tests" ]; then
    mkdir -p "$results/tests"
    tests_on 0 &
    p0=$!
    tests_on 1 &
    p1=$!
    wait $p0 $p1
    ntests=0
    for dev in 0 1; do
        while read -r name rc s; do
            ntests=$((ntests + 1))
            case $rc in
            0) st=ok ;;
            77) st=skip ;;
            124) st="FAIL (timed out)"; failed=1 ;;
            *) st="FAIL (exit $rc)"; failed=1 ;;
            esac
            echo "$st $name --device $dev (${s} s)"
            [ "$st" = ok ] || [ "$st" = skip ] || tail -n 12 "$results/tests/$name-dev$dev.log" | sed 's/^/     /'
            note "$(printf '%-36s %-18s %d s' "$name --device $dev" "$st" "$s")"
        done < "$results/tests-dev$dev.txt"
    done
    if [ "$ntests" -eq 0 ]; then
        echo "FAIL tests: no test_gpu_* binary in $tests"
        note "tests: no test_gpu_* binary in $tests: FAIL"
        failed=1
    fi
fi

# ---- the circuit --------------------------------------------------------------------
if [ $engine -eq 1 ] && ! step "gen-circuit porep 2^$log" "$results/gen.log" "$cuzk" gen-circuit --profile porep \
    --log-constraints "$log" --partitions 1 --seed 42 -o "$work"; then
    note "gen-circuit porep 2^$log: FAIL (the engine runs cannot run)"
fi

# ---- (b), (c), (d): the engine on one card, on both, on both with a fault -----------
# jget FILE KEY: the first number (or null) after "KEY": in FILE's JSON
jget() { grep -o "\"$2\": [-0-9.enull]*" "$1" 2> /dev/null | head -1 | sed 's/.*: //'; }
# lanes FILE: one line per lane slot, "DEVICE PARTITIONS FRACTION"
lanes() {
    sed -n 's/.*"lanes": \[\([^]]*\)\].*/\1/p' "$1" 2> /dev/null | sed 's/}, {/\n/g' |
        sed 's/.*"device": \([^,]*\), "partitions": \([0-9]*\), "fraction": \([^,]*\),.*/\1 \2 \3/'
}
# busy FILE: "GPU 0 99.5% (40), GPU 1 ..." from the lanes' fractions and partitions
busy() {
    local i=0 dev n f
    lanes "$1" | while read -r dev n f; do
        [ "$dev" = null ] && dev=$i
        [ "$f" = null ] && f=- || f=$(awk -v f="$f" 'BEGIN {printf "%.1f%%", 100 * f}')
        printf '%s%s %s %s (%s)' "$([ $i -gt 0 ] && echo ', ')" "$lane" "$dev" "$f" "$n"
        i=$((i + 1))
    done
}
# check FILE LANES FAULT: the run's counts; prints what is wrong, one per line
check() {
    local f=$1 nl=$2 fl=$3 v dropped
    if ! grep -q '"bench": "batch"' "$f" 2> /dev/null; then
        echo "no JSON report: the run did not finish"
        return
    fi
    [ "$(jget "$f" jobs_completed)" = "$jobs" ] ||
        echo "jobs completed $(jget "$f" jobs_completed), want $jobs"
    [ "$(jget "$f" jobs_failed)" = 0 ] || echo "jobs failed $(jget "$f" jobs_failed)"
    for v in proofs_returned proofs_distinct proofs verified; do
        [ "$(jget "$f" $v)" = "$total" ] || echo "$v $(jget "$f" $v), want $total"
    done
    [ "$(jget "$f" partitions_proved_twice)" = 0 ] ||
        echo "partitions proved twice $(jget "$f" partitions_proved_twice)"
    dropped=$(jget "$f" timeline_dropped)
    [ "$dropped" != 0 ] || [ "$(jget "$f" partitions_proved)" = "$total" ] ||
        echo "partitions in the timeline $(jget "$f" partitions_proved), want $total"
    [ "$(lanes "$f" | wc -l)" = "$nl" ] || echo "$(lanes "$f" | wc -l) lane slots, want $nl"
    lanes "$f" | awk '$2 == 0 {print "lane slot " NR - 1 " proved nothing"}'
    if [ "$fl" = 1 ]; then
        [ "$(jget "$f" faults)" = 1 ] ||
            echo "device faults $(jget "$f" faults), want 1 (is $fault past the run's launches?)"
        [ "$(jget "$f" retries)" = 1 ] || echo "partitions retried $(jget "$f" retries), want 1"
        [ "$(jget "$f" retried_on_other_lane)" = 1 ] ||
            echo "partitions retried on the other $lane: $(jget "$f" retried_on_other_lane), want 1"
    else
        [ "$(jget "$f" faults)" = 0 ] || echo "device faults $(jget "$f" faults), want 0"
    fi
}
# run NAME NLANES FAULT ARGS...: one bench batch, its JSON, SVG and checks
run() {
    local name=$1 nl=$2 fl=$3 probs
    shift 3
    local f="$results/engine-$name.json"
    local args=(bench batch "$@" --circuit "$work/circuit.cuzk" --setup-seed 2a
        --witness "$work/w0.wit" --jobs "$jobs" --partitions "$parts" --json
        --svg "$results/timeline-$name.svg")
    [ -n "$workers" ] && args+=(--workers "$workers")
    [ "$fl" = 1 ] && args+=(--fault "$fault")
    echo "cuzk ${args[*]}" > "$results/engine-$name.cmd"
    step "engine $name" "$results/engine-$name.log" "$cuzk" "${args[@]}"
    local rc=$?
    grep -h '^{' "$results/engine-$name.log" > "$f" 2> /dev/null
    probs=$(check "$f" "$nl" "$fl")
    if [ -n "$probs" ]; then
        echo "FAIL engine $name: the counts of $f:"
        echo "$probs" | sed 's/^/     /'
        failed=1
    fi
    [ $rc -eq 0 ] && [ -z "$probs" ]
}
row() { # row NAME STATUS JSON
    local s
    s=$(jget "$3" steady_seconds_per_proof)
    if [ -z "$s" ]; then
        note "$(printf '%-36s %-18s no figures' "$1" "$2")"
        return
    fi
    note "$(printf '%-36s %-18s %s s a partition, %s s a proof of %d; %s' "$1" "$2" "${s:--}" \
        "$(awk -v s="${s:-0}" -v p="$parts" 'BEGIN {printf "%.3f", s * p}')" "$parts" "$(busy "$3")")"
}
if [ -s "$work/circuit.cuzk" ]; then
    run 1card 1 0 "${one[@]}" && st=ok || st=FAIL
    row "engine, $name1" "$st" "$results/engine-1card.json"
    run 2cards 2 0 "${two[@]}" && st=ok || st=FAIL
    row "engine, $name2" "$st" "$results/engine-2cards.json"
    s1=$(jget "$results/engine-1card.json" steady_seconds_per_proof)
    s2=$(jget "$results/engine-2cards.json" steady_seconds_per_proof)
    if [ -n "$s1" ] && [ -n "$s2" ]; then
        note "$(awk -v a="$s1" -v b="$s2" 'BEGIN {r = b > 0 ? a / b : 0;
            printf "%-36s %-18s %.2fx the throughput of one (target 1.9x: %s)",
            "engine, two against one", "", r, (r >= 1.9 ? "met" : "NOT met")}')"
    else
        note "$(printf '%-36s %-18s %s' "engine, two against one" "" "no ratio: a run gave no figure")"
    fi
    run 2cards-fault 2 1 "${two[@]}" && st=ok || st=FAIL
    f="$results/engine-2cards-fault.json"
    [ -s "$f" ] || note "$(printf '%-36s %-18s no figures' "engine, ${name2%% (*}, --fault $fault" "$st")"
    [ -s "$f" ] && note "$(printf '%-36s %-18s jobs %s of %s, proofs %s (%s distinct), faults %s, retried %s (on the other %s: %s), proved twice %s' \
        "engine, ${name2%% (*}, --fault $fault" "$st" "$(jget "$f" jobs_completed)" "$jobs" \
        "$(jget "$f" proofs_returned)" "$(jget "$f" proofs_distinct)" "$(jget "$f" faults)" \
        "$(jget "$f" retries)" "$lane" "$(jget "$f" retried_on_other_lane)" \
        "$(jget "$f" partitions_proved_twice)")"
    svgs=("$results"/timeline-*.svg)
    if [ -e "${svgs[0]}" ]; then
        note "timelines: ${svgs[*]##*/}"
    else
        note "timelines: none written: FAIL"
        failed=1
    fi
fi

# ---- the table ------------------------------------------------------------------------
{
    echo
    echo "bench-two-gpus: $cards, porep 2^$log, $jobs jobs x $parts partitions," \
        "workers ${workers:-default}; in $results"
    printf '%-36s %-18s %s\n' step status result
    printf '%s\n' "${summary[@]}"
    [ $failed -eq 0 ] && echo "every step passed" || echo "SOME STEPS FAILED (above)"
} | tee "$results/summary.txt"
exit $failed
