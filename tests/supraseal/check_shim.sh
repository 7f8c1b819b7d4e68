#!/usr/bin/env bash
# check_shim.sh FIXTURE_TOOL LIB_DIR SOURCE_DIR TARGET_DIR — the shim crate
# (contrib/supraseal-c2-shim) built with Debian's rustc and cargo, no
# registry (the crate has no dependencies), and its test run against
# libcuzk_supraseal from LIB_DIR twice: linked to the shared library, then
# with the static archive linked in. Exits 77 (skipped) without
# /usr/bin/cargo and /usr/bin/rustc: a rustup toolchain earlier on PATH is
# not used, so the test says what Rust 1.63 (Debian 12's) accepts.
set -euo pipefail
tool=${1:?usage: check_shim.sh FIXTURE_TOOL LIB_DIR SOURCE_DIR TARGET_DIR}
libdir=${2:?}
src=${3:?}
target=${4:?}
cargo=/usr/bin/cargo
rustc=/usr/bin/rustc
if [ ! -x "$cargo" ] || [ ! -x "$rustc" ]; then
    echo "check_shim: no $cargo and $rustc (apt-get install cargo): skipped"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-shim-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$tool" "$work/fixture" 4

export RUSTC=$rustc CUZK_SUPRASEAL_FIXTURE=$work/fixture CUZK_SUPRASEAL_LIB_DIR=$libdir
cd "$src/contrib/supraseal-c2-shim"
"$rustc" --version
echo "check_shim: linked to libcuzk_supraseal.so"
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    CARGO_TARGET_DIR=$target/shared "$cargo" test --offline --locked
echo "check_shim: linked to libcuzk_supraseal.a"
CUZK_SUPRASEAL_STATIC=1 CARGO_TARGET_DIR=$target/static "$cargo" test --offline --locked
# the statically linked test program needs no libcuzk_supraseal.so at run time
for t in "$target"/static/debug/deps/prove-*; do
    [ -x "$t" ] || continue
    if grep -q cuzk_supraseal <<<"$(ldd "$t")"; then
        echo "check_shim: $t depends on libcuzk_supraseal.so" >&2
        exit 1
    fi
done
