#!/usr/bin/env bash
# check_bench_lanes.sh CUZK_BINARY SOURCE_DIR — the engine's lanes and its
# recovery as `cuzk bench batch` reports them, with CPU lanes standing in for
# GPUs (a porep-profile circuit at 2^10, parameters from a seed): the JSON
# counts of a run with a device fault injected on two lanes (every job done,
# jobs x partitions proofs, distinct, one fault, one retry, on the other
# lane, none proved twice) and on one lane (the retry stays there), then
# scripts/bench-two-gpus.sh --backend cpu end to end (its runs pass their
# checks, its JSON and SVGs are written) and with a fault that never fires
# (its checks fail it, exit 1). Needs python3 for the JSON. About 15 s on
# two cores. Prints "N passed, N failed".
set -uo pipefail
cuzk=${1:?usage: check_bench_lanes.sh CUZK_BINARY SOURCE_DIR}
src=${2:?usage: check_bench_lanes.sh CUZK_BINARY SOURCE_DIR}
cuzk=$(realpath "$cuzk")
src=$(realpath "$src")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0
fail=0
ok() { echo "ok   - $1"; pass=$((pass + 1)); }
bad() { echo "FAIL - $1"; fail=$((fail + 1)); }

if ! "$cuzk" gen-circuit --profile porep --log-constraints 10 --partitions 1 --seed 7 -o . \
    > gen.log 2>&1; then
    bad "gen-circuit: $(tail -3 gen.log)"
    echo "$pass passed, $fail failed"
    exit 1
fi
B=(bench batch --backend cpu --threads 1 --circuit circuit.cuzk --setup-seed 2a --witness w0.wit
    --partitions 10 --json)

# counts NAME JSON EXPR...: each python expression over the run's JSON (j) true
counts() {
    local name=$1 json=$2
    shift 2
    local why
    why=$(python3 - "$json" "$@" << 'EOF'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON: %s" % e)
    sys.exit(0)
for expr in sys.argv[2:]:
    if not eval(expr, {"j": j}):
        print("%s is false" % expr)
EOF
)
    if [ -n "$why" ]; then
        bad "$name: $(echo "$why" | tr '\n' ';') | $(head -c 300 "$json")"
    else
        ok "$name"
    fi
}

# two lanes, the 7th H MSM of 30 faulting: retried once on the other lane
"$cuzk" "${B[@]}" --lanes 2 --jobs 3 --fault msm_h:7 --svg two.svg > two.json 2> two.err ||
    bad "two lanes with a fault: exit status $? | $(head -c 300 two.err)"
counts "two lanes, --fault msm_h:7: every job done, the partition retried on the other lane" \
    two.json 'j["jobs_completed"] == 3 and j["jobs_failed"] == 0' \
    'j["proofs_returned"] == 30 and j["proofs_distinct"] == 30' \
    'j["fault"] == "msm_h:7" and j["lane_slots"] == 2 and j["workers"] == 2' \
    'j["engine"]["proofs"] == 30 and j["engine"]["verified"] == 30' \
    'j["engine"]["faults"] == 1 and j["engine"]["retries"] == 1' \
    'j["engine"]["lane_resets"] == 1 and j["engine"]["failed_partitions"] == 0' \
    'j["partitions_with_failed_attempt"] == 1 and j["retried_on_other_lane"] == 1' \
    'j["partitions_proved"] == 30 and j["partitions_proved_twice"] == 0' \
    'j["timeline_dropped"] == 0' \
    '[l["lane"] for l in j["lanes"]] == [0, 1]' \
    'sum(l["partitions"] for l in j["lanes"]) == 30' \
    'all(l["partitions"] > 0 and l["device"] is None for l in j["lanes"])' \
    'j["busy"] == []'
grep -q "<svg" two.svg 2> /dev/null && ok "two lanes: the timeline drawn" ||
    bad "two lanes: no SVG timeline"

# one lane: the retry has no other lane to go to
"$cuzk" "${B[@]}" --lanes 1 --jobs 2 --fault b_g2_msm:3 > one.json 2> one.err ||
    bad "one lane with a fault: exit status $? | $(head -c 300 one.err)"
counts "one lane, --fault b_g2_msm:3: retried on the same lane" one.json \
    'j["jobs_completed"] == 2 and j["proofs_distinct"] == 20' \
    'j["engine"]["faults"] == 1 and j["engine"]["retries"] == 1' \
    'j["retried_on_other_lane"] == 0 and j["partitions_proved_twice"] == 0' \
    'len(j["lanes"]) == 1 and j["lanes"][0]["partitions"] == 20'

# no fault: nothing retried, the JSON says so
"$cuzk" "${B[@]}" --lanes 2 --jobs 2 > none.json 2> none.err ||
    bad "two lanes without a fault: exit status $? | $(head -c 300 none.err)"
counts "two lanes, no fault: nothing retried" none.json \
    'j["fault"] is None and j["engine"]["faults"] == 0 and j["engine"]["retries"] == 0' \
    'j["partitions_with_failed_attempt"] == 0 and j["retried_on_other_lane"] == 0' \
    'j["proofs_distinct"] == 20 and j["partitions_proved"] == 20'

# the two-GPU script with CPU lanes standing in
script=$src/scripts/bench-two-gpus.sh
"$script" --cuzk "$cuzk" --backend cpu --log 10 --jobs 2 --out "$work/s" > s.log 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "every step passed" s.log &&
    grep -q "retried 1 (on the other lane: 1)" s.log; then
    ok "bench-two-gpus.sh --backend cpu: every step passed"
else
    bad "bench-two-gpus.sh --backend cpu: exit status $rc | $(tail -n 12 s.log | tr '\n' '|')"
fi
for f in engine-1card.json engine-2cards.json engine-2cards-fault.json timeline-2cards.svg \
    timeline-2cards-fault.svg summary.txt; do
    [ -s "$work/s/$f" ] || bad "bench-two-gpus.sh wrote no $f"
done
counts "bench-two-gpus.sh: the fault run's counts" "$work/s/engine-2cards-fault.json" \
    'j["jobs_completed"] == 2 and j["engine"]["retries"] == 1 and j["retried_on_other_lane"] == 1'
grep -qE "^engine, two against one +[0-9.]+x the throughput of one" s.log &&
    ok "bench-two-gpus.sh: the ratio printed" || bad "bench-two-gpus.sh: no ratio | $(tail -n 8 s.log)"

# a fault past the run's launches: the script's checks fail it
"$script" --cuzk "$cuzk" --backend cpu --log 10 --jobs 2 --fault msm_h:1000 --out "$work/f" \
    > f.log 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "device faults 0, want 1" f.log && grep -q "SOME STEPS FAILED" f.log
then
    ok "bench-two-gpus.sh: a fault that never fires fails the run"
else
    bad "bench-two-gpus.sh with msm_h:1000: exit status $rc | $(tail -n 8 f.log | tr '\n' '|')"
fi
"$script" --cuzk "$cuzk" --backend tpu > b.log 2>&1
[ $? -eq 2 ] && grep -q "must be gpu or cpu" b.log && ok "bench-two-gpus.sh: a bad option refused" ||
    bad "bench-two-gpus.sh --backend tpu: $(head -3 b.log)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
