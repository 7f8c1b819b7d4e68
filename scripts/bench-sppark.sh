#!/usr/bin/env bash
# bench-sppark.sh — build bench/anchors/sppark_msm.cu, our harness that times
# supranational/sppark's BLS12-381 G1 MSM like ours (doc/bench.md, "The sppark
# anchor"). sppark and blst are taken from checkouts given here or cloned into
# the build folder at pinned commits; none of their code enters the tree.
#
#   scripts/bench-sppark.sh [--sppark DIR] [--blst DIR] [--out BUILD_DIR]
#                           [--arch sm_90]... [--portable]
#
#   --sppark DIR  a checkout of supranational/sppark (default: clone it at the
#                 commit pinned below, SPPARK_COMMIT, into BUILD_DIR/sppark)
#   --blst DIR    a checkout of supranational/blst, whose src/blst_t.hpp gives
#                 sppark's host field types and whose libblst.a their
#                 arithmetic (default: clone it at BLST_COMMIT, v0.3.16, into
#                 BUILD_DIR/blst)
#   --out DIR     the build folder (default: build-sppark, git-ignored)
#   --arch SM     a GPU architecture, -gencode arch=compute_XX,code=sm_XX
#                 (repeatable; default sm_90, H100 and H200)
#   --portable    no -D__ADX__: blst's assembly picks mulx/adx at run time
#                 (default: compile for x86-64 CPUs with ADX, as every GPU
#                 server has, the way sppark's own Rust build does on them)
#
# SPPARK_URL and BLST_URL (environment) replace the GitHub addresses to clone
# from, e.g. a local mirror.
#
# Result: BUILD_DIR/sppark_msm, linked with the static CUDA runtime (it needs
# only the driver). Run it as `BUILD_DIR/sppark_msm [--log K]... [--reps R]`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# sppark 17278d7 ("rust/Cargo.toml: bump the version number."), blst v0.3.16
SPPARK_URL=${SPPARK_URL:-https://github.com/supranational/sppark}
SPPARK_COMMIT=17278d74295392f9813f009300b257a688422b7a
BLST_URL=${BLST_URL:-https://github.com/supranational/blst}
BLST_COMMIT=e7f90de551e8df682f3cc99067d204d8b90d27ad

sppark="" blst="" build_dir="build-sppark" portable=0
archs=()
usage() { sed -n '2,28p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --sppark) sppark=${2:?--sppark needs DIR}; shift ;;
    --blst) blst=${2:?--blst needs DIR}; shift ;;
    --out) build_dir=${2:?--out needs DIR}; shift ;;
    --arch) archs+=("${2:?--arch needs SM}"); shift ;;
    --portable) portable=1 ;;
    -h | --help) usage ;;
    *) echo "bench-sppark: unknown argument $1" >&2; usage ;;
    esac
    shift
done
[ ${#archs[@]} -gt 0 ] || archs=(sm_90)
mkdir -p "$build_dir"
build_dir=$(realpath "$build_dir")
case "$build_dir/" in
"$root"/build*/*) ;; # git-ignored (/build*/)
"$root"/*) echo "bench-sppark: the build folder must be build*/ or outside the tree" >&2; exit 2 ;;
esac

# clone_at NAME URL COMMIT DIR: a checkout of URL at COMMIT in DIR (kept
# between runs; checked out again when at another commit)
clone_at() {
    local name=$1 url=$2 commit=$3 dir=$4
    if [ ! -d "$dir/.git" ]; then
        echo "bench-sppark: cloning $name into $dir"
        git clone --quiet "$url" "$dir"
    fi
    if [ "$(git -C "$dir" rev-parse HEAD)" != "$commit" ]; then
        git -C "$dir" fetch --quiet origin "$commit" 2> /dev/null || git -C "$dir" fetch --quiet origin
        git -C "$dir" -c advice.detachedHead=false checkout --quiet "$commit"
    fi
}
# note_commit NAME DIR PINNED: say which commit a given checkout is at
note_commit() {
    local at
    at=$(git -C "$2" rev-parse HEAD 2> /dev/null || echo "not a git checkout")
    if [ "$at" = "$3" ]; then
        echo "bench-sppark: $1 at $at (the pinned commit)"
    else
        echo "bench-sppark: $1 at $at; the pinned commit is $3" >&2
    fi
}

if [ -z "$sppark" ]; then
    sppark=$build_dir/sppark
    clone_at sppark "$SPPARK_URL" "$SPPARK_COMMIT" "$sppark"
fi
if [ -z "$blst" ]; then
    blst=$build_dir/blst
    clone_at blst "$BLST_URL" "$BLST_COMMIT" "$blst"
fi
sppark=$(realpath "$sppark")
blst=$(realpath "$blst")
for f in "$sppark/msm/pippenger.cuh" "$sppark/util/all_gpus.cpp" "$blst/src/blst_t.hpp" "$blst/build.sh"; do
    [ -f "$f" ] || { echo "bench-sppark: missing $f" >&2; exit 1; }
done
note_commit sppark "$sppark" "$SPPARK_COMMIT"
note_commit blst "$blst" "$BLST_COMMIT"

if [ $portable = 1 ]; then
    cpu_def=-D__BLST_PORTABLE__
else
    cpu_def=-D__ADX__
fi

# libblst.a with blst's own build.sh, in BUILD_DIR/blst-lib; rebuilt when the
# checkout or the flags change
lib=$build_dir/blst-lib
stamp="$blst $(git -C "$blst" rev-parse HEAD 2> /dev/null || true) $cpu_def"
if [ ! -f "$lib/libblst.a" ] || [ "$(cat "$lib/stamp" 2> /dev/null)" != "$stamp" ]; then
    rm -rf "$lib"
    mkdir -p "$lib"
    (cd "$lib" && sh "$blst/build.sh" "$cpu_def" > build.log 2>&1) || {
        echo "bench-sppark: blst's build.sh failed, see $lib/build.log" >&2
        exit 1
    }
    echo "$stamp" > "$lib/stamp"
fi

command -v nvcc > /dev/null || { echo "bench-sppark: nvcc not found" >&2; exit 1; }
gencode=()
for a in "${archs[@]}"; do
    n=${a#sm_}
    gencode+=(-gencode "arch=compute_$n,code=sm_$n")
done
flags=(-std=c++17 -O3 "${gencode[@]}" -DFEATURE_BLS12_381 "$cpu_def"
       -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE
       -I"$sppark" -I"$blst/src" -Xcompiler -Wno-unused-function)
set -x
nvcc "${flags[@]}" -c bench/anchors/sppark_msm.cu -o "$build_dir/sppark_msm.o"
nvcc "${flags[@]}" -x cu -c "$sppark/util/all_gpus.cpp" -o "$build_dir/all_gpus.o"
nvcc "${gencode[@]}" --cudart static "$build_dir/sppark_msm.o" "$build_dir/all_gpus.o" \
     "$lib/libblst.a" -o "$build_dir/sppark_msm"
{ set +x; } 2> /dev/null
if grep -q libcudart <<<"$(ldd "$build_dir/sppark_msm")"; then
    echo "bench-sppark: $build_dir/sppark_msm links libcudart dynamically" >&2
    exit 1
fi
echo "bench-sppark: built $build_dir/sppark_msm ($(du -h "$build_dir/sppark_msm" | cut -f1))"
