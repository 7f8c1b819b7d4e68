#!/usr/bin/env bash
# check-symbols.sh LIB — fail if LIB exports a symbol without the cuzk_ prefix
# (cuzk_ public, cuzk__ internal); everything else must be static. Allowed
# compiler-made symbols: the lock of a named OpenMP critical section
# (.gomp_critical_user_<name>, our names start cuzk_), the weak
# DW.ref.__gxx_personality_v0 that nvcc emits with every kernel launch stub,
# and what including CUB (CCCL, shipped with the CUDA toolkit; the radix sort
# of src/gpu/msm_sort.cu) brings and no flag removes: template instances, inline
# variables and their guards in cub::, cuda::std:: and thrust:: (versioned
# inline namespaces, so they cannot clash with another CCCL's), const member
# functions among them (_ZNK...).
set -euo pipefail
lib=${1:?usage: check-symbols.sh libcuzk.a}
bad=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF==3 {print $3}' | grep -v -e '^cuzk_' -e '^\.gomp_critical_user_cuzk_' \
    -e '^DW\.ref\.__gxx_personality_v0$' -e '^_Z\(GV\)\?Z\?NK\?\(3cub\|4cuda3std\|6thrust\)' | sort -u || true)
if [ -n "$bad" ]; then
    echo "check-symbols: exported symbols without the cuzk_ prefix in $lib:" >&2
    echo "$bad" >&2
    exit 1
fi
echo "check-symbols: $(nm -g --defined-only "$lib" | awk 'NF==3' | wc -l) exported symbols, all prefixed cuzk_ or allowed above"
