#!/usr/bin/env bash
# check-install.sh BUILD_DIR — the library as a user meets it: installs the
# build into a temporary prefix, checks that libcuzk.so exports exactly the
# functions include/cuzk.h declares, builds examples/embed against the
# installed tree (CMake's find_package with the shared and the static
# library, and pkg-config with a plain cc), and runs each build on the sample
# job, whose proof the installed `cuzk` verifies again.
set -euo pipefail
build=$(cd "${1:?usage: check-install.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "$build/check-install.XXXXXX") # beside the build: /tmp may be noexec
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
pass=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
die() { echo "check-install: FAILED: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/cuzk.h lib/libcuzk.a lib/libcuzk.so lib/pkgconfig/cuzk.pc \
         lib/cmake/cuzk/cuzkConfig.cmake lib/cmake/cuzk/cuzkConfigVersion.cmake bin/cuzk; do
    [ -e "$prefix/$f" ] || die "the install has no $f"
done
soname=$(objdump -p "$prefix/lib/libcuzk.so" | awk '$1 == "SONAME" {print $2}')
[[ "$soname" =~ ^libcuzk\.so\.(0\.[0-9]+|[1-9][0-9]*)$ ]] ||
    die "soname '$soname' is not libcuzk.so.MAJOR (0.MINOR before 1.0)"
ok "installed: header, shared ($soname) and static libraries, pkg-config, CMake package, cuzk"

# Exported symbols: exactly the functions the public header declares.
nm -D --defined-only "$prefix/lib/libcuzk.so" | awk '{print $3}' | sort -u >"$tmp/exported"
grep -oE '\bcuzk_[a-z0-9_]+\(' "$prefix/include/cuzk.h" | tr -d '(' | sort -u >"$tmp/declared"
extra=$(comm -23 "$tmp/exported" "$tmp/declared")
missing=$(comm -13 "$tmp/exported" "$tmp/declared")
[ -z "$extra" ] || die "libcuzk.so exports what cuzk.h does not declare: $extra"
[ -z "$missing" ] || die "cuzk.h declares what libcuzk.so does not export: $missing"
ok "libcuzk.so exports the $(wc -l <"$tmp/exported") functions of cuzk.h and nothing else"

sample=$src/examples/sample
run_embed() { # NAME BINARY
    local job_dir=$tmp/$1
    mkdir -p "$job_dir"
    "$2" "$sample/circuit.zkey" "$sample/witness.wtns" "$sample/verification_key.json" \
        "$job_dir/proof.json" "$job_dir/public.json" >/dev/null || die "$1: the example failed"
    "$prefix/bin/cuzk" groth16 verify "$sample/verification_key.json" "$job_dir/public.json" \
        "$job_dir/proof.json" >/dev/null || die "$1: its proof does not verify"
    ok "$1: proved, verified by the example and again by the installed cuzk"
}

cmake -S "$src/examples/embed" -B "$tmp/embed-cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/embed-cmake" >/dev/null
# ldd's lines read whole before grep, so that pipefail never sees ldd
# killed by a grep -q that stopped reading at its match
grep -qF "$prefix/lib/libcuzk.so" <<<"$(ldd "$tmp/embed-cmake/embed")" ||
    die "the CMake build of the example does not load the installed libcuzk.so"
run_embed "find_package, shared" "$tmp/embed-cmake/embed"
run_embed "find_package, static" "$tmp/embed-cmake/embed_static"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
cc -std=c11 -o "$tmp/embed-pc" "$src/examples/embed/embed.c" $(pkg-config --cflags --libs cuzk) \
    -Wl,-rpath,"$prefix/lib"
run_embed "pkg-config, shared" "$tmp/embed-pc"
# the static link as pkg-config gives it, with libcuzk.a named so the
# linker cannot take the shared library
static_libs=$(pkg-config --static --libs cuzk | sed "s|-lcuzk\b|$prefix/lib/libcuzk.a|")
# shellcheck disable=SC2086
cc -std=c11 -o "$tmp/embed-pc-static" "$src/examples/embed/embed.c" $(pkg-config --cflags cuzk) \
    $static_libs
run_embed "pkg-config, static" "$tmp/embed-pc-static"

"$prefix/bin/cuzk" --help >"$tmp/help" && grep -q "groth16 prove" "$tmp/help" ||
    die "the installed cuzk --help does not describe its commands"
ok "the installed cuzk --help"
echo "$pass passed, 0 failed"
