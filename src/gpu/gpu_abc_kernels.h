/*
 * gpu_abc_kernels.h — the device steps of the abc keys (gpu_abc.h) that no
 * other module has: the scan of an input's vectors, the zero padding of
 * a, b, c, the gather by a density bitmap (abc.cu). C-callable, internal;
 * no C-only header here (abc.cu is C++). Compiled only with CUDA.
 */
#ifndef CUZK_GPU_ABC_KERNELS_H
#define CUZK_GPU_ABC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* All on the current device's legacy default stream. */

/*
 * The scan of one input on the device: the first index of a, b, c (m
 * elements each, device) and aux (n_aux) that is not below r, and the first
 * row with a_i b_i != c_i (a mismatch among non-canonical values means
 * nothing: the verdict looks at it only when a, b, c are canonical). first:
 * 5 device words of scratch. Returns the indices in *out (UINT64_MAX where
 * none; a, b, c, aux, unsatisfied). Synchronizes the legacy stream.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_abc_scan(uint64_t *first, const void *a,
                                                       const void *b, const void *c, uint64_t m,
                                                       const void *aux, uint64_t n_aux,
                                                       uint64_t out[5]);

/* Zeroes elements [m, n) of each of the three vectors of n elements at abc
 * (a, b, c back to back). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_abc_pad(void *abc, uint64_t n, uint64_t m);

/* out[k] = in[j] for the k-th set bit j < nbits of the device bitmap words,
 * whose per-word ranks rank[w] (the set bits of words [0, w), bits past
 * nbits not counted) are on the device too. Elements are 32 bytes. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_abc_gather(void *out, const void *in,
                                                         const uint64_t *words,
                                                         const uint32_t *rank, uint64_t nbits);

/* Waits for the legacy default stream's work (not for copies on streams
 * beside it, unlike cuzk__gpu_sync). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_abc_sync(void);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GPU_ABC_KERNELS_H */
