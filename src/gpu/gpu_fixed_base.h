/*
 * gpu_fixed_base.h — the C-callable edge of the GPU fixed-base
 * multiplication (src/gpu/fixed_base.cu), internal to cuzk: out[i] = k[i]·G
 * for millions of scalars and one fixed point G, from the CPU's table
 * (src/ec/fixed_base.h), for the development setup (`cuzk setup --backend
 * gpu`, through src/gpu/setup_gpu.h). Compiled only when CMake finds nvcc.
 *
 * VARIABLE TIME, as the CPU's fixed-base code: table lookups by digit,
 * branches on infinity and on doublings.
 *
 * Layouts are the host's, passed as uint64_t words so that this header needs
 * none of the group headers (they are C11 and do not compile as C++):
 *   table    the tbl array of a cuzk_g1_fixed_base (12 words per affine
 *            point) or cuzk_g2_fixed_base (24 words), with its c, nwin and
 *            per_win: tbl[j * per_win + d - 1] = d·2^(jc)·G;
 *   scalars  n little-endian 4 x 64-bit limbs, either plain (any 256-bit
 *            value, as cuzk_g*_fixed_base_mul_batch_var) or Montgomery-form
 *            cuzk_fr (< r, as cuzk_g*_fixed_base_mul_batch_fr_var);
 *   out      n affine points in the host layout, infinity as (0, 0).
 * The output equals the CPU's byte for byte: both give the unique affine
 * coordinates of k·G, fully reduced, in Montgomery form.
 *
 * A handle owns the table on the current device, two streams, device and
 * pinned host buffers for two chunks (grown to the largest call, at most
 * one chunk each); calls on one handle must not run concurrently. Errors:
 * CUZK_ERR_INVALID_ARG for bad arguments, CUZK_ERR_NOMEM when host memory
 * runs out, CUZK_ERR_DEVICE_NOMEM when device memory does, CUZK_ERR_GPU for
 * another failed CUDA call (message in
 * cuzk__gpu_last_error()). Nothing aborts.
 *
 * Method (fixed_base.cu): one device thread per scalar of a grid-stride
 * slice, the CPU's signed digits, XYZZ mixed additions (ec.cuh), then affine
 * with one field inversion per thread and chunk (Montgomery's trick over the
 * thread's points). Chunks of points flow host -> pinned -> device and back
 * on two streams, so that chunk i's copies overlap chunk i+1's kernel.
 */
#ifndef CUZK_GPU_FIXED_BASE_H
#define CUZK_GPU_FIXED_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CUZK__GPU_FB_G1 = 1, CUZK__GPU_FB_G2 = 2 } cuzk__gpu_fb_group;
typedef enum { CUZK__GPU_FB_PLAIN = 0, CUZK__GPU_FB_MONT = 1 } cuzk__gpu_fb_scalars;

typedef struct cuzk__gpu_fixed_base cuzk__gpu_fixed_base;

/* Default points per chunk (less when the device has less free memory:
 * a chunk's buffers take at most a quarter of it, both chunks half). */
#define CUZK__GPU_FB_DEFAULT_CHUNK ((size_t)1 << 22)

/*
 * How a handle's calls run (cuzk__gpu_fixed_base_configure; zero fields are
 * the defaults, what the setup uses; tests set the others):
 *   chunk        points per chunk, so that small calls run the multi-chunk
 *                pipeline; 0: CUZK__GPU_FB_DEFAULT_CHUNK
 *   max_threads  device threads per chunk, so that small chunks give each
 *                thread several points; 0: the resident ones
 */
typedef struct {
    size_t chunk;
    unsigned max_threads;
} cuzk__gpu_fixed_base_config;

/*
 * Uploads a CPU table to the current device: c in 2..16, nwin = 256/c + 1,
 * per_win = 2^(c-1) (CUZK_ERR_INVALID_ARG otherwise). host_threads: threads
 * that copy between the caller's arrays and the pinned buffers (0 = the
 * online cores, at most 8 are used).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fixed_base_upload(cuzk__gpu_fixed_base **out,
                                                                cuzk__gpu_fb_group group,
                                                                const uint64_t *table, unsigned c,
                                                                unsigned nwin, size_t per_win,
                                                                unsigned host_threads);

/* Sets the handle's configuration (NULL: the defaults) for its later calls. */
void cuzk__gpu_fixed_base_configure(cuzk__gpu_fixed_base *h,
                                    const cuzk__gpu_fixed_base_config *cfg);

/* Frees the handle, its device and pinned memory (NULL is fine). */
void cuzk__gpu_fixed_base_free(cuzk__gpu_fixed_base *h);

/* out[i] = k[i]·G for i < n (host arrays; out must not overlap k). n = 0 is
 * a no-op; NULL arrays with n > 0 are CUZK_ERR_INVALID_ARG. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fixed_base_mul_batch(cuzk__gpu_fixed_base *h,
                                                                   uint64_t *out,
                                                                   const uint64_t *k, size_t n,
                                                                   cuzk__gpu_fb_scalars form);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GPU_FIXED_BASE_H */
