/*
 * gpu_msm_stream.h — MSMs over bases that stay in host memory (the memory
 * planner's partly resident and streaming modes, plan.h), internal to cuzk,
 * compiled with CUDA only (src/gpu/msm_stream.cu).
 *
 * A streamer owns two device chunk buffers and a copy stream. An MSM over
 * n host bases goes chunk by chunk: chunk i + 1's upload is queued on the
 * copy stream (after the kernels of chunk i - 1, which read its buffer,
 * are done: an event) while chunk i's MSM runs on the legacy default
 * stream (after its own upload: an event), on a view handle of the chunk
 * buffer (gpu_msm.h cuzk__gpu_msm_bases_view). The MSM is linear, so the
 * chunks' sums, added on the host, are the MSM of all n bases: the same
 * point as one resident call, whatever the chunk size. VARIABLE TIME.
 *
 * Host bases are the affine layout of gpu_msm.h (96 bytes a G1 point, 192
 * a G2); page-locked memory (cuzk__gpu_host_alloc) copies at the full
 * PCIe rate, pageable memory works at the driver's staged rate. Scalars
 * and masks may be host or device pointers, as for cuzk__gpu_msm. Calls on
 * one streamer must not run concurrently (one pair of buffers).
 */
#ifndef CUZK_GPU_MSM_STREAM_H
#define CUZK_GPU_MSM_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu_msm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk__gpu_msm_streamer cuzk__gpu_msm_streamer;

/* The smallest chunk: 64 G2 points (128 G1 points). */
#define CUZK__GPU_MSM_STREAM_MIN_CHUNK ((size_t)64 * 192)

/*
 * A streamer on the current device with two chunk buffers of chunk_bytes
 * (at least CUZK__GPU_MSM_STREAM_MIN_CHUNK): a chunk is chunk_bytes / 96
 * G1 or / 192 G2 points, rounded down to a multiple of 64, so that every
 * chunk starts on a word of a bitmap. Its MSMs share the work area of
 * `work` (a handle on the same device: the key's others; NULL: one of
 * their own). CUZK_ERR_DEVICE_NOMEM (message in cuzk__gpu_last_error) when the
 * device's free memory cannot hold the buffers, checked before allocating.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_streamer_new(cuzk__gpu_msm_streamer **out,
                                                               size_t chunk_bytes,
                                                               cuzk__gpu_msm_bases *work);
/* Waits for its copies, then frees it (NULL is fine). */
void cuzk__gpu_msm_streamer_free(cuzk__gpu_msm_streamer *s);

/* The view handle a group's chunks are summed on (its level budget and
 * configuration are the streamer's MSMs'), and the points a chunk holds. */
cuzk__gpu_msm_bases *cuzk__gpu_msm_streamer_view(cuzk__gpu_msm_streamer *s,
                                                 cuzk__gpu_msm_group group);
size_t cuzk__gpu_msm_streamer_chunk_points(const cuzk__gpu_msm_streamer *s,
                                           cuzk__gpu_msm_group group);

/*
 * Over the n host points at bases (of the group), in one pass: each chunk
 * goes up once and feeds
 *   ones   = the sum of bases[i] with bit i of bm_one set (all when bm_one
 *            is NULL), as cuzk__gpu_msm_batch_add; ones NULL: not computed;
 *   others = the sum of scalars[i] * bases[i] with bit i of bm_other set
 *            (all when NULL), as cuzk__gpu_msm; others NULL: not computed.
 * Results in host Jacobian words. Both halves of a classified MSM for the
 * copies of one. Errors as cuzk__gpu_msm's (a scalar >= 2^255 taking part:
 * CUZK_ERR_INVALID_ARG).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_streamed_split(cuzk__gpu_msm_streamer *s,
                                                                 cuzk__gpu_msm_group group,
                                                                 const void *bases,
                                                                 uint64_t *ones, uint64_t *others,
                                                                 const uint64_t *scalars,
                                                                 size_t n, const uint64_t *bm_one,
                                                                 const uint64_t *bm_other);

/* The same pass over n points already on the device (a vector a streamed
 * plan keeps resident), nothing copied, on the streamer's view of them: in
 * one piece where both halves fit the work area as it stands (a classified
 * tail's room follows its points taking part, cuzk__gpu_msm_split_fits),
 * else in pieces of one chunk's points, whose calls need no more work area
 * than a chunk's. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_pieces_split(cuzk__gpu_msm_streamer *s,
                                                               cuzk__gpu_msm_group group,
                                                               const void *bases,
                                                               uint64_t *ones, uint64_t *others,
                                                               const uint64_t *scalars,
                                                               size_t n, const uint64_t *bm_one,
                                                               const uint64_t *bm_other);

/* Sends the first chunks (two at most: one a buffer) of the next streamed
 * call over the n host points at bases ahead, on the copy stream, while
 * the device does other work (an NTT, a kept vector's pieces): that call
 * (the same bases, n and group) then starts on chunks already up; asked
 * again for them, it sends nothing. Any other call first overwrites them
 * in order; nothing is lost but the copies (counted in bytes and chunks;
 * copy_ms counts the copies a call used). From page-locked memory it
 * returns once the copies are queued (pageable memory may be copied
 * before it returns); the host points must stay until the call, or the
 * streamer's end. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_streamer_prefetch(cuzk__gpu_msm_streamer *s,
                                                                    cuzk__gpu_msm_group group,
                                                                    const void *bases, size_t n);

/* What a streamer has moved: bytes, chunks, and the copy stream's time on
 * them (each chunk's copy timed by events), summed over its calls; and the
 * passes over device points that ran in one piece. */
typedef struct {
    uint64_t bytes, chunks;
    double copy_ms;
    uint64_t whole;
} cuzk__gpu_msm_stream_stats;
void cuzk__gpu_msm_streamer_stats(const cuzk__gpu_msm_streamer *s, cuzk__gpu_msm_stream_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GPU_MSM_STREAM_H */
