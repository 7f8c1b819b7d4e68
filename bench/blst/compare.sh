#!/bin/sh
# compare.sh — time cuzk and blst side by side on this machine (doc/bench.md).
#
#   bench/blst/compare.sh [build-dir]
#
# blst's source is fetched at run time, never committed: the npm package
# @chainsafe/blst@0.2.11 ships supranational/blst v0.3.10 (C + generated asm)
# for its node-gyp fallback build. The script npm-packs that exact version
# into the build folder (checks its SHA-512), builds libblst.a with blst's own
# build.sh, compiles bench/blst/bench_blst.c against it, builds the cuzk
# command (or uses $CUZK_BIN), then runs both benches $COMPARE_ROUNDS times,
# alternating, and prints per operation both sides' best and median ns/op
# and the ratios cuzk/blst.
#
# Environment:
#   COMPARE_ROUNDS    rounds of both benches (default 3)
#   CUZK_BENCH_ITERS  batch length scale for both benches (default 10 = 50 ms)
#   CUZK_BIN          an already built cuzk command to use
#   CC                C compiler (default cc)
#   COMPARE_RESULTS   a folder of cuzk.N.txt / blst.N.txt tables: only summarize it
#                     (and msm_cuzk.N.txt / msm_blst.N.txt when present)
#   COMPARE_MSM_LOGS  log2 sizes for the G1 MSM rows, 1 thread: `cuzk bench msm`
#                     against blst_p1s_mult_pippenger (default "16"; empty: skip)
# Targets (checked and printed at the end): fp_mul ratio <= 1.25, pairing <= 1.5,
# G1 MSM at 2^16 (1 thread) <= 1.2.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-blst}
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
case "$BUILD/" in
"$ROOT"/build*/*) ;; # git-ignored (/build*/)
"$ROOT"/*) echo "compare.sh: build folder must be outside the tree or build*/" >&2; exit 2 ;;
esac

PKG=@chainsafe/blst
VER=0.2.11
SHA512=511c8e2eae46b71068c626ce9ddda980bc9d0b2d146736e220805cb1102f1b102c4738d92f4e13b107f0464cf96a9854ddad5e6de46832623f1c7c8c0a215242
TGZ=$BUILD/chainsafe-blst-$VER.tgz
CC=${CC:-cc}
ROUNDS=${COMPARE_ROUNDS:-3}
ITERS=${CUZK_BENCH_ITERS:-10}

# Per operation: "best" is the fastest batch over all rounds (noise only adds
# time, so this is the figure closest to the quiet-machine cost and the one
# the targets are judged on); "med" is the median over rounds of each round's
# median batch (what the day's load gave).
summarize() { # summarize <dir with cuzk.N.txt and blst.N.txt>
awk -v rounds="$(ls "$1"/cuzk.*.txt | wc -l)" '
function med(key,   n, i, j, t, v) {
    n = cnt[key]
    if (n == 0) return -1
    for (i = 1; i <= n; i++) v[i] = val[key, i]
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function add(key, x) { cnt[key]++; val[key, cnt[key]] = x }
FNR <= 2 { next }
{
    impl = FILENAME; sub(/.*\//, "", impl); sub(/\..*/, "", impl)
    if (!($1 in seen)) { seen[$1] = 1; order[++nops] = $1 }
    if ($2 != "-") {
        k = impl SUBSEP $1
        if (!(k in best) || $2 + 0 < best[k]) best[k] = $2 + 0
        add(k, $3 + 0)
    }
}
function fmt(x) { return x < 0 ? "-" : sprintf("%.1f", x) }
function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.2f", a / b) }
function getb(k) { return (k in best) ? best[k] : -1 }
END {
    printf "%-18s %11s %11s %7s %11s %11s %7s\n", "operation", "cuzk best", "blst best",
           "ratio", "cuzk med", "blst med", "ratio"
    for (i = 1; i <= nops; i++) {
        op = order[i]
        cb = getb("cuzk" SUBSEP op); bb = getb("blst" SUBSEP op)
        cd = med("cuzk" SUBSEP op); bd = med("blst" SUBSEP op)
        printf "%-18s %11s %11s %7s %11s %11s %7s\n", op, fmt(cb), fmt(bb), ratio(cb, bb),
               fmt(cd), fmt(bd), ratio(cd, bd)
        rb[op] = (cb < 0 || bb <= 0) ? -1 : cb / bb
    }
    printf "(ns/op; best = fastest batch of %d rounds, med = median over rounds of the\n", rounds
    printf " per-round median; ratio = cuzk / blst, above 1 means cuzk is slower)\n"
    printf "target fp_mul  <= 1.25x (best): %s\n", rb["fp_mul"] < 0 ? "n/a" : \
           sprintf("%.2fx %s", rb["fp_mul"], rb["fp_mul"] <= 1.25 ? "met" : "NOT met")
    printf "target pairing <= 1.50x (best): %s\n", rb["pairing"] < 0 ? "n/a" : \
           sprintf("%.2fx %s", rb["pairing"], rb["pairing"] <= 1.5 ? "met" : "NOT met")
}' "$1"/cuzk.*.txt "$1"/blst.*.txt
}

# The MSM tables (`cuzk bench msm` and `bench_blst msm`, same columns): per
# size the best (lowest) min ms over rounds and the median of the per-round
# medians, and the ratio cuzk / blst.
summarize_msm() { # summarize_msm <dir with msm_cuzk.N.txt and msm_blst.N.txt>
ls "$1"/msm_cuzk.*.txt >/dev/null 2>&1 || return 0
awk -v rounds="$(ls "$1"/msm_cuzk.*.txt | wc -l)" '
function med(key,   n, i, j, t, v) {
    n = cnt[key]
    if (n == 0) return -1
    for (i = 1; i <= n; i++) v[i] = val[key, i]
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
$1 == "g1_msm" && $4 == 1 {
    impl = FILENAME; sub(/.*\//, "", impl); sub(/\..*/, "", impl); sub(/^msm_/, "", impl)
    if (!($2 in seen)) { seen[$2] = 1; order[++nl] = $2 }
    k = impl SUBSEP $2
    if (!(k in best) || $6 + 0 < best[k]) best[k] = $6 + 0
    cnt[k]++; val[k, cnt[k]] = $7 + 0
}
function fmt(x) { return x < 0 ? "-" : sprintf("%.1f", x) }
function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.2f", a / b) }
function getb(k) { return (k in best) ? best[k] : -1 }
END {
    printf "%-18s %11s %11s %7s %11s %11s %7s\n", "g1_msm, 1 thread", "cuzk best", "blst best",
           "ratio", "cuzk med", "blst med", "ratio"
    for (i = 1; i <= nl; i++) {
        l = order[i]
        cb = getb("cuzk" SUBSEP l); bb = getb("blst" SUBSEP l)
        printf "%-18s %11s %11s %7s %11s %11s %7s\n", "2^" l, fmt(cb), fmt(bb), ratio(cb, bb),
               fmt(med("cuzk" SUBSEP l)), fmt(med("blst" SUBSEP l)),
               ratio(med("cuzk" SUBSEP l), med("blst" SUBSEP l))
        rb[l] = (cb < 0 || bb <= 0) ? -1 : cb / bb
    }
    printf "(ms per MSM; best = fastest run of %d rounds, med = median over rounds of the\n", rounds
    printf " per-round median; ratio = cuzk / blst)\n"
    printf "target g1_msm 2^16 <= 1.20x (best): %s\n", !(16 in rb) || rb[16] < 0 ? "n/a" : \
           sprintf("%.2fx %s", rb[16], rb[16] <= 1.2 ? "met" : "NOT met")
}' "$1"/msm_cuzk.*.txt "$1"/msm_blst.*.txt
}

# COMPARE_RESULTS=<dir>: only summarize tables already made (e.g. on another
# machine by running the two benches there), build and run nothing.
if [ -n "${COMPARE_RESULTS:-}" ]; then
    head -1 "$COMPARE_RESULTS/cuzk.1.txt"
    head -1 "$COMPARE_RESULTS/blst.1.txt"
    summarize "$COMPARE_RESULTS"
    summarize_msm "$COMPARE_RESULTS"
    exit 0
fi

# ---- fetch blst (once) -------------------------------------------------------
if [ ! -f "$TGZ" ]; then
    (cd "$BUILD" && npm pack --silent "$PKG@$VER" >/dev/null)
fi
got=$(sha512sum "$TGZ" | cut -c1-128)
if [ "$got" != "$SHA512" ]; then
    echo "compare.sh: $TGZ has SHA-512 $got, expected $SHA512" >&2
    exit 1
fi
SRC=$BUILD/src
if [ ! -f "$SRC/package/blst/build.sh" ]; then
    rm -rf "$SRC" && mkdir -p "$SRC" && tar xzf "$TGZ" -C "$SRC"
fi
BLST=$SRC/package/blst

# ---- build libblst.a and bench_blst ------------------------------------------
# blst's build.sh adds -D__ADX__ (mulx/adcx/adox code paths) when
# /proc/cpuinfo lists adx, and -mno-avx; -O2 as a release build would use.
if [ ! -f "$BUILD/lib/libblst.a" ]; then
    mkdir -p "$BUILD/lib"
    (cd "$BUILD/lib" && CC=$CC CFLAGS="-O2 -fno-builtin -fPIC -Wall -Wextra" \
        sh "$BLST/build.sh" >build.log 2>&1) || {
        cat "$BUILD/lib/build.log" >&2
        exit 1
    }
fi
if grep -q -e '^flags.*\badx\b' /proc/cpuinfo 2>/dev/null; then
    KERNELS="blst 0.3.10 x86-64 mulx/ADX asm"
else
    KERNELS="blst 0.3.10 asm"
fi
"$CC" -O2 -std=gnu11 -Wall -Wextra -I"$BLST/bindings" -DBENCH_BLST_KERNELS="\"$KERNELS\"" \
    -o "$BUILD/bench_blst" "$ROOT/bench/blst/bench_blst.c" "$BUILD/lib/libblst.a"

# ---- the cuzk command --------------------------------------------------------
if [ -z "${CUZK_BIN:-}" ]; then
    cmake -S "$ROOT" -B "$BUILD/cuzk" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=OFF >/dev/null
    cmake --build "$BUILD/cuzk" --target cuzk_cli -j2 >/dev/null
    CUZK_BIN=$BUILD/cuzk/cuzk
fi

# ---- run ---------------------------------------------------------------------
OUTD=$BUILD/results
rm -rf "$OUTD" && mkdir -p "$OUTD"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $ROUNDS rounds, CUZK_BENCH_ITERS=$ITERS; raw tables in $OUTD"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    "$CUZK_BIN" bench field --iters "$ITERS" >"$OUTD/cuzk.$r.txt"
    "$BUILD/bench_blst" --iters "$ITERS" >"$OUTD/blst.$r.txt"
    r=$((r + 1))
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
head -1 "$OUTD/cuzk.1.txt"
head -1 "$OUTD/blst.1.txt"

summarize "$OUTD"

# ---- G1 MSM, one thread ------------------------------------------------------
MSM_LOGS=${COMPARE_MSM_LOGS-16}
if [ -n "$MSM_LOGS" ]; then
    args=""
    for l in $MSM_LOGS; do args="$args --log $l"; done
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        # shellcheck disable=SC2086
        "$CUZK_BIN" bench msm --g1 --threads 1 --no-batch-add $args >"$OUTD/msm_cuzk.$r.txt"
        # shellcheck disable=SC2086
        "$BUILD/bench_blst" msm $args >"$OUTD/msm_blst.$r.txt"
        r=$((r + 1))
    done
    echo
    summarize_msm "$OUTD"
fi
