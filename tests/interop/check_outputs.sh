#!/usr/bin/env bash
# check_outputs.sh CUZK_BINARY TEST_PROVE_CIRCUIT_BINARY — every file the
# command writes is written whole or not at all, in the right place
# (src/util/atomic_write.h):
#   - an output that is also an input, or two outputs that are one file
#     (same spelling, ./x, a symbolic or hard link) are refused before any
#     work: exit status 2, both arguments named, nothing written;
#   - kill -9 while writing (cuzk ptau new, gen-circuit) leaves the previous
#     files intact beside at most one temporary per output (".<name>.XXXXXX"),
#     which a later run leaves alone;
#   - a full disk (a 64 KiB tmpfs when this runs as root and may mount; else
#     ulimit -f) and a file size limit (ulimit -f) fail naming the file and
#     leave the previous content and no temporary;
#   - a FIFO, a character device and, in a private mount namespace, the
#     literal /dev/null and /dev/stdout are written in place and keep their
#     type; a symbolic link keeps being a link to the file it names.
# Fixtures: a 2^10 circuit from `test_prove_circuit --write-fixture` and the
# sample circom key and witness in examples/sample. Prints "N passed, N failed".
set -uo pipefail
cuzk=${1:?usage: check_outputs.sh CUZK_BINARY TEST_PROVE_CIRCUIT_BINARY}
fixture=${2:?usage: check_outputs.sh CUZK_BINARY TEST_PROVE_CIRCUIT_BINARY}
cuzk=$(realpath "$cuzk")
fixture=$(realpath "$fixture")
sample=$(realpath "$(dirname "$0")/../../examples/sample")
work=$(mktemp -d)
mounted=
bgpids=()
cleanup() {
    for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null; done
    [ -n "$mounted" ] && umount "$mounted" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
pass=0
fail=0
skip=0

ok() { echo "ok   - $1"; pass=$((pass + 1)); }
bad() { echo "FAIL - $1"; fail=$((fail + 1)); }
skipped() { echo "skip - $1"; skip=$((skip + 1)); }

# listing DIR: its entries, dot files included, one a line
listing() { ls -A "$1" | sort; }
# sums DIR: the checksum and name of every regular file in DIR (not below)
sums() { (cd "$1" && find . -maxdepth 1 -type f -exec sha256sum {} + | sort -k2); }

# refused NAME WANT1 WANT2 COMMAND...: exit status 2, both strings in the
# message, the files of the work folder (names and content) unchanged
refused() {
    local name=$1 w1=$2 w2=$3
    shift 3
    local before
    before=$(listing "$work/r"; sums "$work/r")
    (cd "$work/r" && "$@") >"$work/out" 2>"$work/err"
    local rc=$?
    local msg
    msg=$(head -c 400 "$work/err")
    if [ $rc -ne 2 ]; then
        bad "$name: exit status $rc, want 2 | $msg"
    elif ! grep -qF -- "$w1" "$work/err" || ! grep -qF -- "$w2" "$work/err"; then
        bad "$name: the message does not name '$w1' and '$w2' | $msg"
    elif [ "$before" != "$(listing "$work/r"; sums "$work/r")" ]; then
        bad "$name: files were written or changed | $msg"
    else
        ok "$name | $msg"
    fi
    # the next case starts from the same files, whatever this one did
    rm -rf "$work/r" && cp -a "$work/r.orig" "$work/r"
}

cd "$work" || exit 1
mkdir r
if ! "$fixture" --write-fixture "$work/r" 10 2 >/dev/null; then
    echo "FAIL - could not write the fixture"
    exit 1
fi
cp "$sample/circuit.zkey" "$sample/witness.wtns" "$sample/circuit.r1cs" r/
(cd r && "$cuzk" setup circuit.cuzk -o k.params --vk k.vk --seed 01 --backend cpu 2>/dev/null &&
    "$cuzk" groth16 prove circuit.zkey witness.wtns proof.json public.json --backend cpu) ||
    { echo "FAIL - could not make the keys and proofs the checks start from"; exit 1; }
ln r/k.params r/hard.params
ln -s circuit.cuzk r/link.cuzk
mkdir r/gl r/gd r/gd/w1.wit
ln -s circuit.cuzk r/gl/w0.wit
cp -a r r.orig

# ---- an output that is an input, two outputs that are one file ------------------------------
P="$cuzk prove --circuit circuit.cuzk --params k.params --backend cpu"
refused "prove: -o is the --params input" "-o k.params" "--params input" \
    $P --witness w0.wit -o k.params
refused "prove: -o is a --witness input, spelled ./" "-o ./w1.wit" "--witness input" \
    $P --witness w0.wit w1.wit -o ./w1.wit
refused "prove: -o is a hard link to the --params input" "-o hard.params" "--params input" \
    $P --witness w0.wit -o hard.params
refused "prove: -o is a symbolic link to the --circuit input" "-o link.cuzk" "--circuit input" \
    $P --witness w0.wit -o link.cuzk
refused "setup: -o is the circuit" "-o circuit.cuzk" "circuit input" \
    "$cuzk" setup circuit.cuzk -o circuit.cuzk --seed 01
refused "setup: -o and --vk are one new file" "-o x.params" "--vk ./x.params" \
    "$cuzk" setup circuit.cuzk -o x.params --vk ./x.params --seed 01
refused "setup: --vk is the circuit" "--vk circuit.cuzk" "circuit input" \
    "$cuzk" setup circuit.cuzk -o x.params --vk circuit.cuzk --seed 01
G="$cuzk groth16 prove circuit.zkey witness.wtns"
GA="$cuzk groth16 prove $work/r/circuit.zkey $work/r/witness.wtns"
refused "groth16 prove: <proof.json> is the key" "<proof.json> circuit.zkey" "<circuit.zkey> input" \
    $G circuit.zkey public.json
refused "groth16 prove: <public.json> is the witness" "<public.json> witness.wtns" \
    "<witness.wtns> input" $G proof.json witness.wtns
refused "groth16 prove: <proof.json> and <public.json> are one file" "<proof.json> p.json" \
    "<public.json> p.json" $G p.json p.json
refused "groth16 prove: --r1cs is an output" "<public.json> circuit.r1cs" "--r1cs input" \
    $G p.json circuit.r1cs --r1cs circuit.r1cs
refused "zkey export verificationkey: the output is the key" "circuit.zkey" "<circuit.zkey> input" \
    "$cuzk" zkey export verificationkey circuit.zkey ./circuit.zkey
refused "import: -o is the .r1cs" "-o circuit.r1cs" "circuit input" \
    "$cuzk" import circuit.r1cs -o circuit.r1cs
refused "import: -o and -w are one file" "-o s.cuzk" "-w s.cuzk" \
    "$cuzk" import circuit.r1cs -o s.cuzk witness.wtns -w s.cuzk
refused "import: -w is the .wtns" "-w witness.wtns" "witness input" \
    "$cuzk" import circuit.r1cs -o s.cuzk witness.wtns -w witness.wtns
refused "import: two -w are one file" "-w a.wit" "-w ./a.wit" \
    "$cuzk" import circuit.r1cs -o s.cuzk witness.wtns -w a.wit witness.wtns -w ./a.wit
refused "ptau new: -o is a directory" "." "is a directory" \
    "$cuzk" ptau new --power 1 -o .
refused "gen-circuit: w0.wit is a link to circuit.cuzk" "gl/circuit.cuzk and gl/w0.wit" \
    "are one file" "$cuzk" gen-circuit --profile dense --log-constraints 10 --seed 1 -o gl
refused "gen-circuit: w1.wit is a folder, found before the work" "gd/w1.wit" "is a directory" \
    "$cuzk" gen-circuit --profile dense --log-constraints 10 --seed 1 --partitions 2 -o gd
refused "bench batch: --svg is the key" "--svg circuit.zkey" "--zkey input" \
    "$cuzk" bench batch --zkey circuit.zkey --wtns witness.wtns --jobs 1 --backend cpu \
    --svg circuit.zkey
# devices are no files to protect: /dev/null twice is fine
(cd r && $G /dev/null /dev/null) >/dev/null 2>"$work/err" &&
    ok "groth16 prove: /dev/null as both outputs" ||
    bad "groth16 prove: /dev/null as both outputs refused | $(head -c 300 "$work/err")"

# ---- kill -9 while writing --------------------------------------------------------------------
# temps_ok DIR NAME...: DIR holds the NAMEs, and beyond them only temporaries
# ".NAME.XXXXXX" of those NAMEs, at most one per NAME
temps_ok() {
    local dir=$1 re n extra
    shift
    re=$(printf '%s|' "$@" | sed -e 's/\./\\./g' -e 's/|$//')
    extra=$(listing "$dir" | grep -vxF "$(printf '%s\n' "$@")")
    [ -z "$extra" ] && return 0
    grep -qvxE "\.($re)\.[A-Za-z0-9]{6}" <<<"$extra" && return 1
    [ -z "$(printf '%s\n' "$extra" | sed -E 's/\.[A-Za-z0-9]{6}$//' | sort | uniq -d)" ]
}

# ptau new writes while it computes (~1 s at 2^12): killed as soon as
# anything appears beside pot.ptau or pot.ptau changes
mkdir kp
"$cuzk" ptau new --power 1 -o kp/pot.ptau 2>/dev/null
cp kp/pot.ptau saved.ptau
"$cuzk" ptau new --power 12 -o kp/pot.ptau 2>/dev/null &
pid=$!
for _ in $(seq 3000); do
    kill -0 $pid 2>/dev/null || break
    if [ "$(listing kp)" != pot.ptau ] || ! cmp -s kp/pot.ptau saved.ptau; then
        kill -9 $pid
        break
    fi
    sleep 0.01
done
wait $pid 2>/dev/null
rc=$?
if [ $rc -ne 137 ]; then
    bad "ptau new --power 12 was not killed (exit status $rc)"
elif ! cmp -s kp/pot.ptau saved.ptau; then
    bad "kill -9 during ptau new: the previous pot.ptau was destroyed ($(stat -c %s kp/pot.ptau 2>/dev/null || echo no) bytes left)"
elif ! temps_ok kp pot.ptau; then
    bad "kill -9 during ptau new: unexpected files left: $(listing kp | tr '\n' ' ')"
else
    ok "kill -9 during ptau new: pot.ptau intact, $(listing kp | grep -c '^\.') temporary left"
    left=$(listing kp)
    if "$cuzk" ptau new --power 1 -o kp/pot.ptau 2>/dev/null && cmp -s kp/pot.ptau saved.ptau &&
        [ "$(listing kp)" = "$left" ]; then
        ok "a later ptau new writes pot.ptau and leaves the killed run's temporary alone"
    else
        bad "a later ptau new: $(listing kp | tr '\n' ' ')"
    fi
fi

# gen-circuit writes the circuit, then the witnesses, as one set: killed
# once a witness is being written (or the circuit was replaced), the folder
# keeps the previous circuit.cuzk and w0.wit, which belong together
"$cuzk" gen-circuit --profile porep --log-constraints 10 --seed 1 -o kg >/dev/null
cp kg/circuit.cuzk saved.cuzk
cp kg/w0.wit saved.wit
# enough witnesses (~0.2 s of writing) for the poll below to catch it writing
"$cuzk" gen-circuit --profile porep --log-constraints 12 --partitions 240 --seed 2 -o kg \
    >/dev/null &
pid=$!
for _ in $(seq 3000); do
    kill -0 $pid 2>/dev/null || break
    if grep -qE '^(\.w[0-9]+\.wit\..*|w[0-9]+\.wit\.tmp|w[1-9][0-9]*\.wit)$' <<<"$(listing kg)" ||
        ! cmp -s kg/circuit.cuzk saved.cuzk; then
        kill -9 $pid
        break
    fi
    sleep 0.01
done
wait $pid 2>/dev/null
rc=$?
if [ $rc -ne 137 ]; then
    bad "gen-circuit --partitions 240 was not killed (exit status $rc)"
elif ! cmp -s kg/circuit.cuzk saved.cuzk || ! cmp -s kg/w0.wit saved.wit; then
    bad "kill -9 during gen-circuit: the previous circuit.cuzk and w0.wit were not kept together"
elif ! temps_ok kg circuit.cuzk w0.wit $(seq -f 'w%g.wit' 1 239); then
    bad "kill -9 during gen-circuit: unexpected files left: $(listing kg | tr '\n' ' ')"
else
    ok "kill -9 during gen-circuit: circuit.cuzk and w0.wit intact, $(listing kg | grep -c '^\.') temporaries left"
fi

# ---- a full disk and a file size limit --------------------------------------------------------
mkdir full
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
    mounted=$work/full
    how="a full 64 KiB tmpfs"
    want_err="No space left on device"
    limited() { "$@"; }
else
    how="ulimit -f 64 (no tmpfs mount here)"
    want_err="File too large"
    limited() { (trap '' XFSZ; ulimit -f 64; exec "$@"); }
fi
# full_case NAME FILES COMMAND...: exit 2, the message names the first of
# FILES and the reason, FILES keep their content, no temporary left
full_case() {
    local name=$1 files=$2
    shift 2
    local f before
    for f in $files; do printf 'previous %s\n' "$f" >"full/$f"; done
    before=$(listing full; sums full)
    limited "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    local msg
    msg=$(tail -n 1 "$work/err" | head -c 400)
    set -- $files
    if [ $rc -ne 2 ]; then
        bad "$name ($how): exit status $rc, want 2 | $msg"
    elif ! grep -qF "full/$1" "$work/err" || ! grep -qF "$want_err" "$work/err"; then
        bad "$name ($how): the message does not name full/$1 and '$want_err' | $msg"
    elif [ "$before" != "$(listing full; sums full)" ]; then
        bad "$name ($how): files changed: $(listing full | tr '\n' ' ')"
    else
        ok "$name ($how) | $msg"
    fi
    for f in $files; do rm -f "full/$f"; done
}
full_case "ptau new on a full disk" "pot.ptau" "$cuzk" ptau new --power 8 -o full/pot.ptau
full_case "setup on a full disk" "k.params k.vk" \
    "$cuzk" setup r/circuit.cuzk -o full/k.params --vk full/k.vk --seed 01 --backend cpu
full_case "gen-circuit on a full disk" "circuit.cuzk w0.wit" \
    "$cuzk" gen-circuit --profile porep --log-constraints 12 --seed 3 -o full
# a file size limit of 1 KiB: proof.json (~1.1 KB) fails, public.json keeps
# its old content too (one set)
mkdir lim
printf 'previous proof\n' >lim/proof.json
printf 'previous public\n' >lim/public.json
before=$(listing lim; sums lim)
(trap '' XFSZ; ulimit -f 1; exec $GA lim/proof.json lim/public.json) >/dev/null 2>"$work/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -qF "lim/proof.json" "$work/err" || ! grep -qF "File too large" "$work/err"; then
    bad "groth16 prove over ulimit -f 1: exit status $rc, want 2 naming lim/proof.json | $(head -c 300 "$work/err")"
elif [ "$before" != "$(listing lim; sums lim)" ]; then
    bad "groth16 prove over ulimit -f 1: proof.json or public.json changed: $(listing lim | tr '\n' ' ')"
else
    ok "groth16 prove over ulimit -f 1: both outputs kept | $(head -c 200 "$work/err")"
fi

# ---- targets that are not regular files ------------------------------------------------------
# a FIFO read by cat: written in place, still a FIFO afterwards
fifo_case() {
    local name=$1 fifo=$2
    shift 2
    rm -f "$fifo" "$work/got"
    mkfifo "$fifo"
    timeout 60 cat "$fifo" >"$work/got" &
    local cpid=$!
    bgpids+=("$cpid")
    "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    if [ ! -p "$fifo" ]; then
        kill "$cpid" 2>/dev/null
        bad "$name: the FIFO was replaced by a $(stat -c %F "$fifo" 2>/dev/null)"
    else
        wait "$cpid"
        if [ $rc -ne 0 ]; then
            bad "$name: exit status $rc | $(head -c 300 "$work/err")"
        else
            ok "$name: $(stat -c %s "$work/got") bytes through the FIFO, still a FIFO"
        fi
    fi
}
fifo_case "groth16 prove into a FIFO" "$work/proof.fifo" $GA "$work/proof.fifo" "$work/pub.json"
grep -q '"pi_a"' "$work/got" && ok "the FIFO carried proof.json" || bad "the FIFO did not carry proof.json"
fifo_case "setup --vk into a FIFO" "$work/vk.fifo" \
    "$cuzk" setup r/circuit.cuzk -o "$work/f.params" --vk "$work/vk.fifo" --seed 01 --backend cpu
cmp -s "$work/got" r/k.vk && ok "the FIFO carried the .vk" || bad "the FIFO did not carry the .vk"
fifo_case "ptau new into a FIFO" "$work/ptau.fifo" "$cuzk" ptau new --power 1 -o "$work/ptau.fifo"
cmp -s "$work/got" saved.ptau && ok "the FIFO carried the ptau" || bad "the FIFO did not carry the ptau"

# a character device of our own (the numbers of /dev/null), when mknod is allowed
if mknod "$work/null" c 1 3 2>/dev/null && : 2>/dev/null >"$work/null"; then
    (cd r && $P --witness w0.wit -o "$work/null") 2>"$work/err"
    rc=$?
    [ $rc -eq 0 ] && [ -c "$work/null" ] && ok "prove -o a character device: written in place" ||
        bad "prove -o a character device: exit status $rc, now a $(stat -c %F "$work/null") | $(head -c 300 "$work/err")"
else
    skipped "prove -o a character device: mknod is not allowed here (or the folder is nodev)"
fi

# the literal /dev/null and /dev/stdout, in a private mount namespace with
# a throwaway /dev, so that a writer that replaced them could not harm the
# machine's
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    cat >ns.sh <<'EOF'
set -u
mount -t tmpfs tmpfs /dev || exit 99
mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/zero c 1 5 &&
    mknod -m 666 /dev/urandom c 1 9 && mknod -m 666 /dev/random c 1 8 &&
    ln -s /proc/self/fd /dev/fd && ln -s /proc/self/fd/1 /dev/stdout &&
    ln -s /proc/self/fd/2 /dev/stderr || exit 99
cd r || exit 99
"$cuzk" prove --circuit circuit.cuzk --params k.params --witness w0.wit -o /dev/null --backend cpu || exit 1
[ -c /dev/null ] || exit 2
"$cuzk" setup circuit.cuzk -o /dev/stdout --seed 01 --backend cpu 2>/dev/null >"$work/stdout.params" || exit 3
[ -L /dev/stdout ] || exit 4
{ echo "header"; "$cuzk" groth16 prove circuit.zkey witness.wtns /dev/stdout /dev/null; } >>"$work/append.txt" || exit 5
[ -L /dev/stdout ] && [ -c /dev/null ] || exit 6
exit 0
EOF
    cuzk=$cuzk work=$work unshare -m bash ns.sh 2>"$work/err"
    rc=$?
    if [ $rc -eq 99 ]; then
        skipped "-o /dev/null and /dev/stdout: no private /dev could be made"
    elif [ $rc -ne 0 ]; then
        bad "-o /dev/null and -o /dev/stdout: step $rc failed | $(head -c 300 "$work/err")"
    elif ! cmp -s "$work/stdout.params" r/k.params; then
        bad "setup -o /dev/stdout > file: the file is not the .params"
    elif [ "$(head -1 "$work/append.txt")" != header ] || ! grep -q '"pi_a"' "$work/append.txt"; then
        bad "groth16 prove /dev/stdout >> file: the proof was not appended"
    else
        ok "-o /dev/null stays a device; /dev/stdout writes through the shell's redirection (> and >>)"
    fi
else
    skipped "-o /dev/null and /dev/stdout: no private mount namespace (not root or no unshare)"
fi

# a symbolic link to a file in another folder: the file is replaced, the link stays
mkdir real
printf 'previous\n' >real/k.params
ln -s ../real/k.params r/via.params
(cd r && "$cuzk" setup circuit.cuzk -o via.params --seed 01 --backend cpu 2>"$work/err")
if [ -L r/via.params ] && cmp -s real/k.params r/k.params && [ -z "$(listing real | grep -vx k.params)" ]; then
    ok "setup -o a symbolic link: the file it names is written, the link stays"
else
    bad "setup -o a symbolic link: link $(stat -c %F r/via.params), real/: $(listing real | tr '\n' ' ') | $(head -c 200 "$work/err")"
fi
# the new file keeps the old one's mode
chmod 640 r/k.vk
(cd r && "$cuzk" setup circuit.cuzk -o k2.params --vk k.vk --seed 01 --backend cpu 2>/dev/null)
[ "$(stat -c %a r/k.vk)" = 640 ] && ok "a replaced file keeps its mode (640)" ||
    bad "a replaced file has mode $(stat -c %a r/k.vk), want 640"
left=$(listing r | grep -E '^\.' || true)
[ -z "$left" ] && ok "no temporary file left in the work folder" ||
    bad "temporaries left behind: $left"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
