/*
 * gpu.h — the C-callable edge of the CUDA backend (the .cu files of
 * src/gpu), internal to cuzk. Everything here is compiled only when CMake
 * finds nvcc (CUZK_HAVE_CUDA=1) and is linked from the cuzk_gpu library.
 *
 * Field elements cross this edge in the host's exact layout: a cuzk_fr is
 * 4 little-endian uint64 limbs, a cuzk_fp 6, a cuzk_fp2 is c0 then c1, all in
 * Montgomery form (R = 2^256 for Fr, 2^384 for Fp) and fully reduced. The
 * device stores the same bytes as 8 or 12 little-endian uint32 limbs with the
 * same R, so buffers are copied, never converted. Pointers below are host
 * pointers to n such elements, passed as uint64_t words so this header needs
 * none of the field headers.
 *
 * Errors: every CUDA call is checked. A failure returns CUZK_ERR_GPU
 * (CUZK_ERR_DEVICE_NOMEM when the device had not the memory, CUZK_ERR_NOMEM
 * when page-locked host memory ran out) and
 * records "call@file:line: cudaErrorName: description" in a thread-local
 * buffer read by cuzk__gpu_last_error(). Nothing here aborts.
 */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The message of the last failure on this thread ("" if none yet). Stays
 * valid until the next failing call on the same thread. */
const char *cuzk__gpu_last_error(void);
/* What a failed call's status says: the runtime's words (the last error)
 * for the statuses a CUDA call returns, CUZK_ERR_GPU and
 * CUZK_ERR_DEVICE_NOMEM; the status's own sentence for the others. */
const char *cuzk__gpu_status_text(cuzk_status st);

/*
 * Number of CUDA devices. When the runtime reports no device or no usable
 * driver, *count is 0 and CUZK_OK is returned (the reason is still recorded
 * in cuzk__gpu_last_error()); other runtime failures return CUZK_ERR_GPU.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_device_count(int *count);

/* The device's name (NUL-terminated, truncated to len) and multiprocessor
 * count (sm_count may be NULL). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_device_name(int device, char *name, size_t len,
                                                          int *sm_count);

/* Makes device the calling thread's current device. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_set_device(int device);
/* The calling thread's current device. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_get_device(int *device);
/* Waits for all work on the current device; reports an error a kernel raised. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_sync(void);
/* Waits for the legacy default stream's work (the kernels) only, not for
 * copies in flight on the non-blocking copy streams (a chunk sent ahead,
 * the next witness's staging). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_sync_kernels(void);
/* Free and total memory of the current device. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_mem_info(size_t *free_bytes, size_t *total_bytes);

/* Device memory for C callers (tests, the backend) on the current device;
 * the copies are synchronous. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_alloc(void **p, size_t bytes);
void cuzk__gpu_free(void *p);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_upload(void *dst, const void *src, size_t bytes);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_download(void *dst, const void *src, size_t bytes);

/*
 * Page-locked host memory (cudaHostAlloc, portable to every device): the
 * device reads it by DMA at the full PCIe rate, where a copy from pageable
 * memory goes through the driver's small buffers at a fraction of it.
 * Ordinary cached memory otherwise. Fails with CUZK_ERR_GPU (the CUDA
 * message in cuzk__gpu_last_error()) when the host cannot lock that much.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_host_alloc(void **p, size_t bytes);
void cuzk__gpu_host_free(void *p);
/* The caller's bytes at p page-locked in place (cudaHostRegister, portable):
 * the device reads them by DMA without a page-locked copy of them.
 * CUZK_ERR_GPU when the host refuses (a read-only mapping, memory that
 * overlaps a range registered otherwise, more than it may lock). The same
 * (p, bytes) again only counts a user; cuzk__gpu_host_unregister(p) drops
 * one, and the last unlocks the range. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_host_register(const void *p, size_t bytes);
void cuzk__gpu_host_unregister(const void *p);
/* 1 when p lies in page-locked host memory known to CUDA (cuzk__gpu_host_alloc
 * or cudaHostRegister), else 0, also when the query fails: the answer only
 * picks the faster copy, any host memory can be copied. */
int cuzk__gpu_host_is_pinned(const void *p);

/*
 * A copy queue: asynchronous host -> device copies from page-locked memory
 * on one stream of the current device, in order, with `slots` markers so the
 * caller can reuse a host buffer once the copies that read it are done.
 * The stream synchronizes with the legacy default stream (where the other
 * modules launch), so queued copies never overtake earlier kernels.
 */
typedef struct cuzk__gpu_copy_queue cuzk__gpu_copy_queue;
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_copy_queue_create(cuzk__gpu_copy_queue **out,
                                                                unsigned slots);
/* The same on a stream that does not wait for the legacy default stream
 * (nor it for this one): copies into memory no running kernel touches,
 * beside them (a witness staged for the next proof while this one computes);
 * the caller orders what reads the destination (copy_queue_sync first). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_copy_queue_create_beside(cuzk__gpu_copy_queue **out,
                                                                       unsigned slots);
/* Waits for the queued copies, then frees (NULL is fine). */
void cuzk__gpu_copy_queue_free(cuzk__gpu_copy_queue *q);
/* Queues dst <- src (bytes; src page-locked) and marks slot (< slots) as
 * busy until this copy is done. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_copy_queue_upload(cuzk__gpu_copy_queue *q,
                                                                unsigned slot, void *dst,
                                                                const void *src, size_t bytes);
/* Waits until the copies marked with slot are done (at once if none). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_copy_queue_wait(cuzk__gpu_copy_queue *q,
                                                              unsigned slot);
/* The work queued on stream (a cudaStream_t; NULL: the legacy default
 * stream) after this call waits for the copies marked with slot so far,
 * without the host waiting. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_copy_queue_order(cuzk__gpu_copy_queue *q,
                                                               unsigned slot, void *stream);
/* Waits for every queued copy; reports a failed one. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_copy_queue_sync(cuzk__gpu_copy_queue *q);
/* A mark of the work queued on the legacy default stream so far, one a
 * queue (each call moves it): the copies queued after copy_queue_follow
 * wait for the work before the last mark, without the host waiting (a
 * beside queue's copy into memory that kernels read until that point). A
 * queue never marked holds nothing up. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_copy_queue_mark(cuzk__gpu_copy_queue *q);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_copy_queue_follow(cuzk__gpu_copy_queue *q);
/* dst <- src, both device memory, queued on the legacy default stream. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_copy_on_device(void *dst, const void *src,
                                                             size_t bytes);

/*
 * Elementwise test operations on the current device: out[i] = a[i] op b[i]
 * for i < n (unary operations take no b). Each call allocates device
 * buffers, copies in, launches one kernel, copies out and frees; meant for
 * tests, not for speed. out may alias a or b. n = 0 is a no-op.
 * Word counts per element: Fr 4, Fp 6, Fp2 12.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fr_mul(uint64_t *out, const uint64_t *a,
                                                     const uint64_t *b, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fr_sqr(uint64_t *out, const uint64_t *a, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fr_add(uint64_t *out, const uint64_t *a,
                                                     const uint64_t *b, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fr_sub(uint64_t *out, const uint64_t *a,
                                                     const uint64_t *b, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fr_neg(uint64_t *out, const uint64_t *a, size_t n);

CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp_mul(uint64_t *out, const uint64_t *a,
                                                     const uint64_t *b, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp_sqr(uint64_t *out, const uint64_t *a, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp_add(uint64_t *out, const uint64_t *a,
                                                     const uint64_t *b, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp_sub(uint64_t *out, const uint64_t *a,
                                                     const uint64_t *b, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp_neg(uint64_t *out, const uint64_t *a, size_t n);
/* 1/a (0 gives 0) as the kernels invert (ec.cuh finv: a binary GCD) */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp_inv(uint64_t *out, const uint64_t *a, size_t n);

CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp2_mul(uint64_t *out, const uint64_t *a,
                                                      const uint64_t *b, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp2_sqr(uint64_t *out, const uint64_t *a, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp2_inv(uint64_t *out, const uint64_t *a, size_t n);
/* Two Fp squarings per element through the paired squaring (ff.cuh sqr_pair):
 * a and out hold n pairs of Fp elements (12 words each); out[i] = (a0^2, a1^2). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp_sqr_pair(uint64_t *out, const uint64_t *a,
                                                          size_t n);
/* Two Fp multiplications per element through the paired multiplication
 * (ff.cuh mul_pair): out[i] = (a0 b0, a1 b1) for a[i] = (a0, a1), b[i] = (b0, b1). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fp_mul_pair(uint64_t *out, const uint64_t *a,
                                                          const uint64_t *b, size_t n);

/*
 * Throughput of one field's multiplication: n pseudo-random elements
 * generated on the device; each thread runs the dependent chain x = x * y
 * iters times. Timed with CUDA events over reps launches after one warm-up.
 * CUZK__GPU_FR_CIOS2 runs two independent Fr chains per thread (n/2
 * threads). The two probes run, per step, 288 FP64 fused multiply-adds (four
 * independent chains) alone or beside one CIOS product: whether FP64
 * arithmetic is free beside the integer product (mul_per_s then counts
 * steps). The lazy Fp
 * rows run in blocks of 128 threads, so that n sets the warps an SM (384 x
 * SMs: the 12 of G1's level kernel), one chain a thread or two through the
 * paired product (n/2 threads): how much a second chain buys at that occupancy.
 */
typedef enum {
    CUZK__GPU_FR = 0,
    CUZK__GPU_FP = 1,
    CUZK__GPU_FP2 = 2,
    CUZK__GPU_FR_CIOS2 = 3,
    CUZK__GPU_FP64_PROBE = 4,
    CUZK__GPU_FR_CIOS_FP64_PROBE = 5,
    CUZK__GPU_FP_LAZY = 6, /* Fp without final subtractions, as G1's affine levels */
    CUZK__GPU_FP_LAZY2 = 7 /* two such chains a thread through the paired product */
} cuzk__gpu_field;

typedef struct {
    double ms_median; /* one launch (n * iters multiplications) */
    double ms_min;
    double mul_per_s; /* n * iters / median */
} cuzk__gpu_bench_result;

CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_bench_mul(cuzk__gpu_bench_result *res,
                                                        cuzk__gpu_field field, size_t n,
                                                        unsigned iters, unsigned reps);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GPU_H */
