#!/usr/bin/env bash
# check_bad_options.sh CUZK_BINARY — the command line on bad options: every
# case must exit with status 2 before doing any work, print nothing on
# stdout, and say on stderr which option was wrong and what it accepts
# (tools/cuzk/opt.h), e.g. "cuzk ptau new: --power 99: must be 1..27".
# Needs no fixtures. Prints "N passed, N failed".
set -uo pipefail
cuzk=${1:?usage: check_bad_options.sh CUZK_BINARY}
cuzk=$(cd "$(dirname "$cuzk")" && pwd)/$(basename "$cuzk")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0
fail=0

# expect NAME WANT... -- COMMAND...: status 2, no stdout, stderr holds each WANT.
expect() {
    local name=$1 wants=()
    shift
    while [ "$1" != "--" ]; do
        wants+=("$1")
        shift
    done
    shift
    "$cuzk" "$@" >out 2>err
    local rc=$? msg w
    msg=$(head -c 400 err | tr '\n' '|')
    if [ $rc -ne 2 ]; then
        echo "FAIL - $name: exit status $rc, want 2 | $msg"
        fail=$((fail + 1))
        return
    fi
    if [ -s out ]; then
        echo "FAIL - $name: wrote to stdout | $(head -c 200 out)"
        fail=$((fail + 1))
        return
    fi
    for w in "${wants[@]}"; do
        if ! grep -qF -- "$w" err; then
            echo "FAIL - $name: message lacks '$w' | $msg"
            fail=$((fail + 1))
            return
        fi
    done
    echo "ok   - $name | $msg"
    pass=$((pass + 1))
}

# the dispatcher
expect "unknown command" "unknown command 'frobnicate'" -- frobnicate
expect "version with an argument" "version" "'extra'" -- version extra
expect "selftest option" "unknown option '--fast'" -- selftest --fast
expect "no benchmark" "cuzk bench" "field, ntt, msm, prove, batch or stress" -- bench
expect "unknown benchmark" "unknown benchmark 'fft'" "field, ntt, msm, prove, batch or stress" -- bench fft

# ptau new
expect "ptau power too large" "cuzk ptau new: --power 99: must be 1.." -- ptau new --power 99 -o x.ptau
expect "ptau power zero" "--power 0: must be 1.." -- ptau new --power 0 -o x.ptau
expect "ptau power not a number" "--power ten: must be 1.." -- ptau new --power ten -o x.ptau
expect "ptau threads missing value" "cuzk ptau new: --threads: needs a value" -- ptau new --power 4 --threads
expect "ptau threads range" "--threads 5000: must be 0..4096" -- ptau new --power 4 --threads 5000 -o x.ptau
expect "ptau unknown option" "unknown option '--tau'" -- ptau new --tau 5
expect "ptau power required" "--power P is required" -- ptau new -o x.ptau
expect "ptau output required" "-o out.ptau is required" -- ptau new --power 4
expect "ptau subcommand" "unknown subcommand 'old'" -- ptau old

# gen-circuit
expect "gen profile" "--profile huge: must be porep, dense or sha" -- gen-circuit --profile huge --log-constraints 10 -o d
expect "gen log-constraints" "--log-constraints 40: must be 10..27" -- gen-circuit --profile dense --log-constraints 40 -o d
expect "gen boolean-fraction" "--boolean-fraction 1.5: must be a number from 0 to 1" -- gen-circuit --boolean-fraction 1.5
expect "gen partitions" "--partitions 0: must be 1.." -- gen-circuit --partitions 0
expect "gen seed" "--seed -3: must be 0.." -- gen-circuit --seed -3
# numbers are decimal (a leading 0 is no octal), or hex after 0x
expect "gen log-constraints 030 is thirty" "--log-constraints 030: must be 10..27" -- gen-circuit --profile dense --log-constraints 030 -o d
expect "gen log-constraints 0x is no number" "--log-constraints 0x: must be 10..27" -- gen-circuit --profile dense --log-constraints 0x -o d
expect "gen log-constraints 0x1c is 28" "--log-constraints 0x1c: must be 10..27" -- gen-circuit --profile dense --log-constraints 0x1c -o d
expect "gen threads" "--threads many: must be 0..4096" -- gen-circuit --threads many
expect "gen missing value" "-o: needs a value" -- gen-circuit --profile dense --log-constraints 10 -o
expect "gen unknown option" "unknown option '--rows'" -- gen-circuit --rows 5
expect "gen profile required" "--profile porep|dense|sha is required" -- gen-circuit --log-constraints 10 -o d
[ ! -e d ] || { echo "FAIL - gen-circuit made its folder on a usage error"; fail=$((fail + 1)); }

# setup
expect "setup threads" "cuzk setup: --threads -1: must be 0..4096" -- setup c.cuzk -o p.params --threads -1
expect "setup missing value" "--vk: needs a value" -- setup c.cuzk -o p.params --vk
expect "setup seed" "--seed 0xabc: must be an even number" "hex digits" -- setup c.cuzk -o p.params --seed 0xabc
expect "setup backend" "backend" "'tpu'" -- setup c.cuzk -o p.params --backend tpu
expect "setup unknown option" "unknown option '--tau'" -- setup c.cuzk --tau 3
expect "setup output required" "-o OUT.params is required" -- setup c.cuzk
expect "setup circuit required" "no CIRCUIT file given" -- setup -o p.params

# import
expect "import missing value" "cuzk import: -o: needs a value" -- import a.r1cs -o
expect "import -w first" "-w x.wit: must follow the WITNESS.wtns" -- import a.r1cs -o c.cuzk -w x.wit
expect "import unknown option" "unknown option '--force'" -- import a.r1cs --force
expect "import output required" "-o OUT.cuzk is required" -- import a.r1cs

# info
expect "info unknown option" "cuzk info: unknown option '--deep'" -- info --deep x.params
expect "info missing value" "cuzk info: --circuit: needs a value" -- info x.wit --circuit
expect "info two files" "one FILE at a time" -- info a.params b.params
expect "info no file" "cuzk info: no FILE given" -- info
mkdir -p adir
expect "info a folder" "cuzk info: adir: not a regular file" -- info adir

# bench field, ntt, msm, prove (nothing runs: the options are refused first)
expect "bench field iters" "cuzk bench field: --iters 0: must be 1..100000" -- bench field --iters 0
expect "bench field clock" "--clock sundial: must be cpu or wall" -- bench field --clock sundial
expect "bench field missing value" "--iters: needs a value" -- bench field --iters
expect "bench field unknown" "unknown option '--all'" -- bench field --all
expect "bench ntt log" "cuzk bench ntt: --log 40: must be N or A-B" -- bench ntt --log 40
expect "bench ntt reps" "--reps 0: must be 1..64" -- bench ntt --reps 0
expect "bench ntt clock" "--clock moon: must be wall or cpu" -- bench ntt --clock moon
expect "bench ntt backend" "--backend tpu: must be cpu or gpu" -- bench ntt --backend tpu
expect "bench ntt missing value" "--threads: needs a value" -- bench ntt --threads
expect "bench ntt unknown" "unknown option '--g1'" -- bench ntt --g1
expect "bench msm log" "cuzk bench msm: --log 30: must be 0..26" -- bench msm --log 30
expect "bench msm c" "--c 17: must be 0..16" -- bench msm --c 17
expect "bench msm path" "--path fast: must be auto, xyzz or affine" -- bench msm --path fast
expect "bench msm glv" "--glv maybe: must be auto, on or off" -- bench msm --glv maybe
expect "bench msm reduce" "--reduce tree2: must be tree or sum" -- bench msm --reduce tree2
expect "bench msm copies" "--copies 0: must be 1..256" -- bench msm --copies 0
expect "bench msm missing value" "--reps: needs a value" -- bench msm --reps
expect "bench msm unknown" "unknown option '--all'" -- bench msm --all
expect "bench prove reps" "cuzk bench prove: --reps 0: must be 1..64" -- bench prove --zkey k --wtns w --reps 0
expect "bench prove threads" "--threads x: must be 0..4096" -- bench prove --circuit c --threads x
expect "bench prove partitions" "--partitions 0: must be 1..4096" -- bench prove --circuit c --partitions 0
expect "bench prove missing value" "--wtns: needs a value" -- bench prove --zkey k --wtns
expect "bench prove unknown" "unknown option '--gpu'" -- bench prove --zkey k --gpu
expect "bench prove vram limit" "cuzk bench prove: --vram-limit 24X: must be a size like 24G, 0..1024T" -- bench prove --circuit c --vram-limit 24X
expect "bench prove vram limit range" "--vram-limit 2048T: must be a size like 24G" -- bench prove --circuit c --vram-limit 2048T
expect "bench prove vram limit missing value" "--vram-limit: needs a value" -- bench prove --circuit c --vram-limit
expect "bench batch vram limit" "cuzk bench batch: --vram-limit -1: must be a size like 24G" -- bench batch --vram-limit -1
BB=(bench batch --circuit c --setup-seed 2a --witness w)
expect "bench batch devices spelling" "cuzk bench batch: --devices '0,x': all, or ordinals like 0,1" -- "${BB[@]}" --backend gpu --devices 0,x
expect "bench batch devices empty" "--devices '': all, or ordinals like 0,1" -- "${BB[@]}" --backend gpu --devices ""
expect "bench batch devices too large" "--devices '0,4096': all, or ordinals like 0,1" -- "${BB[@]}" --backend gpu --devices 0,4096
expect "bench batch devices on the CPU" "cuzk bench batch: --devices needs --backend gpu" -- "${BB[@]}" --backend cpu --devices 0,1
expect "bench batch devices with auto" "--devices needs --backend gpu" -- "${BB[@]}" --devices 0
expect "bench batch devices missing value" "cuzk bench batch: --devices: needs a value" -- bench batch --devices
expect "bench batch fault stage" "cuzk bench batch: --fault msm:3: must be STAGE:N" "msm_h" -- bench batch --fault msm:3
expect "bench batch fault prep" "--fault prep:1: must be STAGE:N" -- bench batch --fault prep:1
expect "bench batch fault no launch" "--fault msm_h: must be STAGE:N" -- bench batch --fault msm_h
expect "bench batch fault launch zero" "--fault msm_h:0: N (the launch that fails) must be 1..1000000" -- bench batch --fault msm_h:0
expect "bench batch fault launch word" "--fault ntt:x: N (the launch that fails) must be 1..1000000" -- bench batch --fault ntt:x
expect "bench batch fault missing value" "cuzk bench batch: --fault: needs a value" -- bench batch --fault
expect "prove vram limit" "cuzk prove: --vram-limit 1.5G: must be a size like 24G" -- prove --vram-limit 1.5G

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
