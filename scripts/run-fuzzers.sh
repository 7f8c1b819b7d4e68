#!/usr/bin/env bash
# run-fuzzers.sh BUILD SECONDS — run each libFuzzer target in BUILD/fuzz for
# SECONDS seconds, starting from its committed seed corpus (fuzz/corpus/NAME).
# New inputs go to a scratch copy, so the committed corpus stays unchanged.
set -euo pipefail
build=${1:?usage: run-fuzzers.sh BUILD SECONDS}
secs=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
found=0
for bin in "$build"/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    case "$bin" in *_replay) continue ;; esac # corpus replay drivers, not fuzzers
    found=1
    name=$(basename "$bin")
    name=${name#fuzz_}
    work=$(mktemp -d)
    [ -d "$root/fuzz/corpus/$name" ] && cp -r "$root/fuzz/corpus/$name/." "$work/"
    echo "run-fuzzers: $name for ${secs}s"
    log="$work.log"
    if ! "$bin" -max_total_time="$secs" -print_final_stats=1 "$work" >"$log" 2>&1; then
        # Show the finding (the property, sanitizer report and the saved input).
        grep -v '^#' "$log" | tail -60 >&2
        echo "run-fuzzers: $name FAILED; the input is saved as crash-*/leak-* in $(pwd)" >&2
        rm -rf "$work" "$log"
        exit 1
    fi
    tail -5 "$log"
    rm -rf "$work" "$log"
done
[ $found -eq 1 ] || { echo "run-fuzzers: no fuzz targets in $build/fuzz" >&2; exit 1; }
