#!/usr/bin/env bash
# check-layers.sh [ROOT] — fail when a source folder includes a folder above it.
#
# The order is the "Layer order:" line of ROOT/doc/design.md (lowest first);
# src/<m> may include "<m2>/..." only when m2 is m or comes before m there.
# The command (tools/) reaches the GPU only through the library: it never
# includes src/gpu. The benchmarks (bench/, linked into the command as
# `cuzk bench`) time internals of every layer, as tests do, and may include
# any of them.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
order=$(sed -n 's/^Layer order: *//p' "$root/doc/design.md" | head -n1)
if [ -z "$order" ]; then
    echo "check-layers: no 'Layer order:' line in $root/doc/design.md" >&2
    exit 2
fi
declare -A rank
i=0
for m in $order; do rank[$m]=$i; i=$((i + 1)); done

bad=0
for dir in "$root"/src/*/; do
    m=$(basename "$dir")
    if [ -z "${rank[$m]+x}" ]; then
        echo "check-layers: src/$m is not in the layer order of doc/design.md" >&2
        bad=1
        continue
    fi
    while IFS=: read -r file line inc; do
        dep=${inc%%/*}
        [ -n "${rank[$dep]+x}" ] || continue
        if [ "${rank[$dep]}" -gt "${rank[$m]}" ]; then
            echo "check-layers: ${file#"$root"/}:$line: src/$m includes \"$inc\" (a higher layer)" >&2
            bad=1
        fi
    done < <(grep -rnoE '^[[:space:]]*#[[:space:]]*include[[:space:]]+["<][a-z0-9_]+/[^">]+[">]' "$dir" |
             sed -E 's/^([^:]+):([0-9]+):.*["<]([^">]+)[">]$/\1:\2:\3/')
done
if [ -d "$root/tools" ]; then
    while IFS=: read -r file line inc; do
        echo "check-layers: ${file#"$root"/}:$line: the command includes \"$inc\" (it reaches the GPU only through the library)" >&2
        bad=1
    done < <(grep -rnoE '^[[:space:]]*#[[:space:]]*include[[:space:]]+["<]gpu/[^">]+[">]' "$root/tools" |
             sed -E 's/^([^:]+):([0-9]+):.*["<]([^">]+)[">]$/\1:\2:\3/')
fi
if [ "$bad" -ne 0 ]; then exit 1; fi
echo "check-layers: every include points down the layer order ($order)"
