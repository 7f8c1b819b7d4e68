/*
 * gpu_ntt.h — NTT over Fr of BLS12-381 and the Groth16 H computation on the
 * GPU (src/gpu/ntt.cu), C-callable and internal to cuzk. Compiled only when
 * CMake finds nvcc (CUZK_HAVE_CUDA=1), linked from cuzk_gpu.
 *
 * Semantics are those of the CPU reference, src/poly/ntt.h and h.h, and the
 * results agree with it bit for bit: same roots (CUZK_NTT_ROOT5 = 5,
 * CUZK_NTT_ROOT7 = 7), same orders (the order values are cuzk_ntt_order's:
 * 0 NN, 1 NR, 2 RN, 3 RR, input layout then output layout), same cosets.
 * Elements are the host's cuzk_fr bytes (4 little-endian uint64 words,
 * Montgomery form, fully reduced), so a cuzk_fr array is copied to the
 * device as it is (gpu.h).
 *
 * Device-resident API: a domain is created once per (log_n, root) and holds
 * the twiddles on the device (16*n bytes: 2^27 2 GiB, 2^28 4 GiB; the later
 * passes' in Shoup form, 2^27 16 MiB) plus a few
 * MiB of scaling tables; the transforms and H functions work in place on
 * device buffers of n elements (cudaMalloc'd or any device pointer with
 * 16-byte alignment) and are enqueued on the given stream (NULL = the legacy
 * default stream); they return once enqueued, without synchronizing, except
 * where noted. A domain may be used from several streams at once: the
 * transforms only read it. Errors: CUZK_ERR_INVALID_ARG for bad arguments
 * (checked before anything is enqueued), CUZK_ERR_GPU for a failing CUDA
 * call (message in cuzk__gpu_last_error(), gpu.h); an error raised by a
 * kernel after launch shows up at the next synchronizing call.
 *
 * Sizes: 2^0..2^28 (2^28 elements are 8 GiB per vector).
 */
#ifndef CUZK_GPU_NTT_H
#define CUZK_GPU_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest log2 size the GPU transforms accept. */
#define CUZK__GPU_NTT_MAX_LOG 28

/* A stream: the same type as cudaStream_t (struct CUstream_st *); NULL is the
 * default stream. */
typedef struct CUstream_st *cuzk__gpu_stream;

typedef struct cuzk__gpu_ntt_domain cuzk__gpu_ntt_domain; /* opaque */

/*
 * Creates the domain of size 2^log_n for root 5 or 7 (cuzk_ntt_root's
 * values) on the current device: twiddles omega_n^j for j < n/2 and the
 * constants of both H conventions. Synchronizes. CUZK_ERR_INVALID_ARG for
 * log_n > CUZK__GPU_NTT_MAX_LOG or another root, CUZK_ERR_NOMEM when the host
 * struct cannot be allocated, CUZK_ERR_DEVICE_NOMEM when device memory runs
 * out.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_ntt_domain_create(cuzk__gpu_ntt_domain **out,
                                                                unsigned log_n, int root);
/* Frees the device tables (synchronizes the device first); NULL is a no-op. */
void cuzk__gpu_ntt_domain_destroy(cuzk__gpu_ntt_domain *d);
unsigned cuzk__gpu_ntt_domain_log(const cuzk__gpu_ntt_domain *d);

/*
 * In-place transforms of the n = 2^log_n elements at the device pointer a
 * (cuzk_ntt_forward / inverse / coset_forward / coset_inverse, ntt.h). g is a
 * host pointer to one Fr element (4 words), nonzero. The coset variants build
 * two small power tables per call in stream-ordered scratch memory
 * (cudaMallocAsync, 1 MiB at most) and invert g on the host.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_ntt_forward(const cuzk__gpu_ntt_domain *d,
                                                          uint64_t *a, int order,
                                                          cuzk__gpu_stream s);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_ntt_inverse(const cuzk__gpu_ntt_domain *d,
                                                          uint64_t *a, int order,
                                                          cuzk__gpu_stream s);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_ntt_coset_forward(const cuzk__gpu_ntt_domain *d,
                                                                uint64_t *a, int order,
                                                                const uint64_t *g,
                                                                cuzk__gpu_stream s);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_ntt_coset_inverse(const cuzk__gpu_ntt_domain *d,
                                                                uint64_t *a, int order,
                                                                const uint64_t *g,
                                                                cuzk__gpu_stream s);

/*
 * H over device buffers a, b, c of n elements each (cuzk_h_snarkjs /
 * cuzk_h_bellman, h.h): the result goes to a, b and c hold scratch
 * afterwards. c may be NULL: c = a∘b is then formed in n elements of
 * stream-ordered scratch. The pointwise a∘b - c is fused into the last
 * transform pass of c. Every domain size works for both (omega_2n exists for
 * n <= 2^28).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_h_snarkjs(const cuzk__gpu_ntt_domain *d,
                                                        uint64_t *a, uint64_t *b, uint64_t *c,
                                                        cuzk__gpu_stream s);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_h_bellman(const cuzk__gpu_ntt_domain *d,
                                                        uint64_t *a, uint64_t *b, uint64_t *c,
                                                        cuzk__gpu_stream s);
/* cuzk__gpu_h_bellman over a, b, c still arriving (c not NULL): before the
 * transforms of each (vec 0: a, 1: b, 2: c) are queued on s, before(ctx,
 * vec, s) orders on s what they need (cuzk__gpu_copy_queue_order), so that
 * one vector's copy runs beside the transforms of the one before. */
typedef cuzk_status (*cuzk__gpu_h_before_fn)(void *ctx, unsigned vec, cuzk__gpu_stream s);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_h_bellman_arriving(
    const cuzk__gpu_ntt_domain *d, uint64_t *a, uint64_t *b, uint64_t *c,
    cuzk__gpu_h_before_fn before, void *ctx, cuzk__gpu_stream s);

/* ---- host-buffer conveniences (tests): copy in, run, copy out, sync ------ */

typedef enum {
    CUZK__GPU_NTT_FWD = 0,
    CUZK__GPU_NTT_INV = 1,
    CUZK__GPU_NTT_COSET_FWD = 2,
    CUZK__GPU_NTT_COSET_INV = 3
} cuzk__gpu_ntt_op;

/* One transform of the n host elements at a (in place); g only for cosets. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_ntt_host(const cuzk__gpu_ntt_domain *d,
                                                       uint64_t *a, cuzk__gpu_ntt_op op,
                                                       int order, const uint64_t *g);
/* H of host vectors (c may be NULL); bellman = 0 picks snarkjs. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_h_host(const cuzk__gpu_ntt_domain *d, uint64_t *a,
                                                     uint64_t *b, uint64_t *c, int bellman);

/* ---- timing ---------------------------------------------------------------- */

typedef enum {
    CUZK__GPU_BENCH_FWD_NR = 0,
    CUZK__GPU_BENCH_FWD_NN,
    CUZK__GPU_BENCH_INV_NN,
    CUZK__GPU_BENCH_COSET_FWD_NN,
    CUZK__GPU_BENCH_COSET_INV_NN,
    CUZK__GPU_BENCH_H_SNARKJS,
    CUZK__GPU_BENCH_H_BELLMAN,
    CUZK__GPU_BENCH_COUNT
} cuzk__gpu_ntt_bench_op;

typedef struct {
    double ms_median, ms_min;
    unsigned reps;
} cuzk__gpu_ntt_bench_result;

/* Times op on pseudo-random device data (3n elements for H), one warm-up,
 * then reps (1..64) runs between CUDA events on one stream. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_ntt_bench(cuzk__gpu_ntt_bench_result *res,
                                                        const cuzk__gpu_ntt_domain *d,
                                                        cuzk__gpu_ntt_bench_op op, unsigned reps);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GPU_NTT_H */
