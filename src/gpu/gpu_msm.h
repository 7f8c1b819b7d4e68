/*
 * gpu_msm.h — the C-callable edge of the GPU multi-scalar multiplication,
 * bitmap batch-add and 0/1/other classification (src/gpu/msm*.cu),
 * internal to cuzk (prefix cuzk__gpu_msm_). Compiled only when CMake finds
 * nvcc (CUZK_HAVE_CUDA=1).
 *
 * VARIABLE TIME, like the CPU MSM (src/msm/msm.h): public data or data whose
 * timing is accepted to leak.
 *
 * Layouts are the host's, passed as uint64_t words so this header needs none
 * of the group headers:
 *   bases    n affine points, cuzk_g1_aff (12 words) or cuzk_g2_aff (24),
 *            Montgomery coordinates; (0, 0) is the point at infinity.
 *   scalars  n plain little-endian 4 x 64-bit limbs (the CPU MSM's form),
 *            each < 2^255 if it takes part; a host or a device pointer
 *            (told apart with cudaPointerGetAttributes).
 *   bitmaps  bit i = word i/64, bit i%64; host or device pointers (told
 *            apart the same way; a device bitmap is read and written in
 *            place, so a proof's classification never leaves the GPU).
 *            Bits past n are ignored on input and written as 0.
 *   result   a Jacobian point, cuzk_g1_jac (18 words) or cuzk_g2_jac (36),
 *            equal as a point to the CPU's (compare after normalization).
 *
 * A handle owns the bases on the device (uploaded once), its configuration
 * (cuzk__gpu_msm_config) and a work area that grows to the largest call and
 * is reused (or shares another handle's: cuzk__gpu_msm_bases_share_work);
 * calls on one handle must not run concurrently. Errors:
 * CUZK_ERR_INVALID_ARG for bad arguments (also a participating scalar
 * >= 2^255, as on the CPU), CUZK_ERR_DEVICE_NOMEM when the device has not
 * the memory, CUZK_ERR_GPU for another failed CUDA call (message in
 * cuzk__gpu_last_error()). Nothing aborts.
 *
 * Algorithm (msm_impl.cuh has the steps): signed Booth digits of c bits (c
 * from the point count), a sort of (point, sign) by bucket on the device
 * (a radix sort; a counting sort with atomics for masked MSMs), each
 * bucket's points summed pairwise in affine coordinates level by level
 * (one inversion per thread and level), the short runs left summed with
 * XYZZ mixed additions, running-sum bucket reduction in parallel segments,
 * window sums combined on the host.
 */
#ifndef CUZK_GPU_MSM_H
#define CUZK_GPU_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CUZK__GPU_MSM_G1 = 1, CUZK__GPU_MSM_G2 = 2 } cuzk__gpu_msm_group;

typedef struct cuzk__gpu_msm_bases cuzk__gpu_msm_bases;

typedef struct {
    size_t zero, one, other;
} cuzk__gpu_msm_counts;

/* The largest window the MSM uses (bins = ceil(256/c) 2^(c-1) buckets), and
 * with shifted copies of the bases (cuzk__gpu_msm_bases_precompute: bins =
 * ceil(ceil(256/c) / copies) 2^(c-1)). */
#define CUZK__GPU_MSM_MAX_C 22
#define CUZK__GPU_MSM_MAX_C_COPIES 26

/*
 * How the MSMs of a handle run (cuzk__gpu_msm_bases_configure). Zero in a
 * field is its default; the defaults are what production runs, the other
 * values serve tests (edge cases of the levels) and benchmarks.
 *   window          every MSM's window, 1..CUZK__GPU_MSM_MAX_C (the copies
 *                   of the bases then go unused); 0: the cost model's
 *   ba_min_pairs    an affine level runs only with at least this many
 *                   pairs; 0: 16 for every resident thread
 *   ba_max_levels   at most this many affine levels per window group
 *   ba_max_threads  at most this many threads per affine level (rounded
 *                   down to whole warps, one at least; the level's slots are
 *                   then split evenly, not by the SMs' speeds)
 *   ba_budget       bytes for the level buffers, fixed (no cap or fit lowers
 *                   it); 0: the handle's budget, a quarter of the device
 *                   unless a caller lowers it (cuzk__gpu_msm_bases_cap_level_budget)
 *   profile         nonzero: every MSM prints its per-phase GPU times and
 *                   each affine level's pass times to stderr
 *   smem_limit      bytes of shared memory an affine level block may take,
 *                   when below the device's opt-in limit
 *                   (cudaDevAttrMaxSharedMemoryPerBlockOptin): a Hopper card
 *                   then runs the level shapes of a smaller one (101376: an
 *                   sm_86/89 card's 99 KiB; 166912: an sm_80's 163 KiB; a
 *                   limit no warp's stages fit: no levels, XYZZ alone);
 *                   0: the device's
 */
typedef struct {
    unsigned window;
    uint64_t ba_min_pairs;
    unsigned ba_max_levels;
    unsigned ba_max_threads;
    size_t ba_budget;
    int profile;
    size_t smem_limit;
} cuzk__gpu_msm_config;

/* Sets the handle's configuration (NULL: the defaults); read by every later
 * call on the handle. A new smem_limit shapes the level blocks again (on a
 * device failure the handle goes without levels; the error is recorded). */
void cuzk__gpu_msm_bases_configure(cuzk__gpu_msm_bases *b, const cuzk__gpu_msm_config *cfg);

/* Threads of the handle's affine level blocks: whole warps whose stages fit
 * the device's shared memory a block (or the configured smem_limit), at
 * most 512 for G1 and 128 for G2; 0 when not one warp fits or the device
 * refuses the size, and the MSMs then accumulate by XYZZ additions alone
 * (the same results). */
unsigned cuzk__gpu_msm_bases_level_threads(const cuzk__gpu_msm_bases *b);

/* Uploads n host bases of the group to the current device. n >= 1. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_upload(cuzk__gpu_msm_bases **out,
                                                               cuzk__gpu_msm_group group,
                                                               const uint64_t *bases, size_t n);

/*
 * Bases that arrive encoded (params.h, deferred points): a handle for n bases
 * of the group whose memory is not yet filled, then the zcash encodings of
 * bases [first, first + count) decoded from device memory (96 bytes a point,
 * 192 for G2, the file's bytes as they are: the size of a decoded point, so
 * encoded may be the bases' own memory, cuzk__gpu_msm_bases_at(b, first),
 * decoded in place) on the legacy default stream (so after copies of a
 * blocking stream, e.g. a copy queue's).
 * A point that params.c's reader would refuse at CUZK_PARAMS_CHECK_CURVE
 * (decode.cuh) lowers *first_bad (device memory, which the caller sets to
 * UINT64_MAX first) to its index in the vector; the call itself fails only
 * on launch errors.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_alloc(cuzk__gpu_msm_bases **out,
                                                              cuzk__gpu_msm_group group,
                                                              size_t n);
/*
 * A handle over n bases the caller keeps in device memory at dev (the
 * affine layout above): not copied, not freed with the handle, never given
 * shifted copies (cuzk__gpu_msm_bases_precompute refuses it). Retarget
 * points it at other memory of m points (the handle's calls must be done:
 * a streamed MSM moves it from chunk to chunk). CUZK_ERR_INVALID_ARG for a
 * NULL dev, a count of 0 or 2^31 points or more, or (retarget) a handle
 * that owns its bases.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_view(cuzk__gpu_msm_bases **out,
                                                             cuzk__gpu_msm_group group,
                                                             void *dev, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_retarget(cuzk__gpu_msm_bases *b,
                                                                 void *dev, size_t m);

/* Device address of base i (i <= n: the end too), and the count n. */
void *cuzk__gpu_msm_bases_at(cuzk__gpu_msm_bases *b, size_t i);
size_t cuzk__gpu_msm_bases_count(const cuzk__gpu_msm_bases *b);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_decode(cuzk__gpu_msm_bases *b,
                                                               size_t first, size_t count,
                                                               const void *encoded,
                                                               uint64_t *first_bad);

/*
 * n pseudo-random bases made on the device (for benchmarks): walks of
 * mixed additions over the given table of ntable affine host points
 * (finite, in the group), normalized in batches with one inversion each.
 * Deterministic for a given seed.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_random(cuzk__gpu_msm_bases **out,
                                                               cuzk__gpu_msm_group group,
                                                               const uint64_t *table,
                                                               size_t ntable, size_t n,
                                                               uint64_t seed);

/*
 * Shifted copies of the bases, made on the device: afterwards the handle
 * keeps copy j = 2^(j c) P_i of every base for j < copies (copies x n points,
 * 96 bytes each for G1, 192 for G2), where c is the window the copies serve
 * (the cost model's choice for n points with that many copies, at most
 * CUZK__GPU_MSM_MAX_C_COPIES). An MSM's window-j digits then index copy
 * j % copies and share bucket set j / copies: ceil(windows / copies) sets
 * of buckets to reduce instead of one per window, which lets c grow and the
 * windows (the additions per point) shrink. An MSM uses them when the cost
 * model says that they pay for its point count, with c; otherwise (and
 * under a configured window) it runs on copy 0 alone. copies = 1
 * drops them. More copies than windows are not made (the count is lowered).
 * Fails with CUZK_ERR_DEVICE_NOMEM when the device has no room (the handle stays as
 * it was), CUZK_ERR_INVALID_ARG for copies = 0 or copies x n >= 2^31.
 * Decoding bases into the handle drops the copies (their memory stays with
 * the handle until the next precompute or the free).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_precompute(cuzk__gpu_msm_bases *b,
                                                                   unsigned copies);
/* The copies the handle keeps (1: none). */
unsigned cuzk__gpu_msm_bases_copies(const cuzk__gpu_msm_bases *b);
/* The window an MSM of n points (masked: npts of them take part) on b uses,
 * and in *copies (may be NULL) how many copies of the bases it reads (1:
 * none); 0 for bad arguments. */
unsigned cuzk__gpu_msm_bases_window(const cuzk__gpu_msm_bases *b, size_t n, int masked,
                                    size_t npts, unsigned *copies);

/* Copies bases [0, n) back to the host (tests). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_download(const cuzk__gpu_msm_bases *b,
                                                                 uint64_t *bases, size_t n);

/* Frees the handle and its device memory (NULL is fine); a shared work
 * area goes with its last handle. */
void cuzk__gpu_msm_bases_free(cuzk__gpu_msm_bases *b);

/* b uses with's work area from now on (its own is released): the handles of
 * one key run their MSMs one after another, so one area sized by the largest
 * serves all (a 2^27 partition's five would not fit side by side in 141 GB).
 * Handles that share an area must not run calls concurrently. */
void cuzk__gpu_msm_bases_share_work(cuzk__gpu_msm_bases *b, cuzk__gpu_msm_bases *with);

/* Lowers the handle's budget for the affine levels' buffers to at most
 * bytes (0 leaves it): a caller that keeps other large buffers on the device
 * gives the levels less room. A configured ba_budget overrides it. */
void cuzk__gpu_msm_bases_cap_level_budget(cuzk__gpu_msm_bases *b, size_t bytes);

/* The handle's level budget as it stands (bytes), and a budget put back:
 * b's budget becomes `bytes` (one read before a cap or a fit lowered it;
 * nothing checks that it is), for a caller whose reason to lower it went
 * away. The next call reserves its work area at the new size: the caller makes sure the
 * growth fits (cuzk__gpu_msm_bases_work_bytes: the area reserved now). */
size_t cuzk__gpu_msm_bases_level_budget(const cuzk__gpu_msm_bases *b);
size_t cuzk__gpu_msm_bases_work_bytes(const cuzk__gpu_msm_bases *b);
void cuzk__gpu_msm_bases_restore_level_budget(cuzk__gpu_msm_bases *b, size_t bytes);

/*
 * The work area (bytes) an MSM of n points would reserve on a handle shaped
 * like b (its device's SMs and level blocks, its level budget and
 * configuration; b's own count and copies aside, so that a handle of one
 * point serves to plan bases not yet made): masked, the larger of a masked
 * MSM with all n points taking part and the batch-add (a classified tail);
 * else a plain MSM (scalars and masks on the device). Errors as
 * cuzk__gpu_msm's plan (n of 2^31 points or more: CUZK_ERR_INVALID_ARG).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_area_bytes(const cuzk__gpu_msm_bases *b,
                                                                   size_t n, int masked,
                                                                   size_t *bytes);

/* What a handle serves, for cuzk__gpu_msm_bases_fit_work's estimate. */
#define CUZK__GPU_MSM_SERVES_MSM 1u    /* MSMs of scalars on the device */
#define CUZK__GPU_MSM_SERVES_MASKED 2u /* masked MSMs and batch-adds, bitmaps on the device */

/*
 * As many copies as pay and fit, for a caller that keeps the handle for many
 * calls: the most copies k <= max_copies that the calls the handle serves
 * (CUZK__GPU_MSM_SERVES_*, above: an MSM of all its points; a masked MSM
 * of as many points as its largest so far, none before one has run) would
 * read (the cost model's choice), and whose memory (k x n points while the
 * old array still exists, at most an eighth of the device's) fits beside
 * `keep` bytes left free and the growth of the work area those calls are
 * estimated to need over the area reserved now. *made = the copies the
 * handle keeps afterwards: 1 when none pay or fit (the handle as it was, no
 * error), unchanged when it has copies already. Errors: CUZK_ERR_INVALID_ARG
 * (b or made NULL, max_copies 0, unknown serves bits), and a device failure
 * as cuzk__gpu_msm_bases_precompute's (the handle as it was).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_precompute_fit(cuzk__gpu_msm_bases *b,
                                                                       unsigned max_copies,
                                                                       unsigned serves,
                                                                       size_t keep,
                                                                       unsigned *made);

/* Room beside the MSMs for a caller that needs `room` bytes free, with
 * `free_now` free: the handles hs[0..nh) (nh <= 8) share one work area,
 * handle i serving the calls serves[i]. If short, the area is freed (the
 * next call reserves it again at its new size) and *freed = 1: as it is,
 * when it is larger than the calls are estimated to need by what is
 * missing; else with the handles' level budgets lowered to the largest
 * under which the estimate falls by what is missing. *freed = 0: nothing
 * was short, no budget makes the room, or a handle's configured ba_budget
 * decides. An
 * estimate (masked calls are taken at the most points one has had on the
 * handle; another may differ): the caller checks the room again after the
 * calls have run. The handles' calls must not run meanwhile. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_bases_fit_work(cuzk__gpu_msm_bases *const *hs,
                                                                 const unsigned *serves,
                                                                 unsigned nh, size_t free_now,
                                                                 size_t room, int *freed);

/* Scalars on the device (benchmarks, callers that keep them there). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_scalars_upload(uint64_t **dev,
                                                                 const uint64_t *scalars,
                                                                 size_t n);
void cuzk__gpu_msm_scalars_free(uint64_t *dev);

/* result = sum over i < n (mask bit i set, or all with mask NULL) of
 * scalars[i] * bases[i]; n <= the handle's count. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm(cuzk__gpu_msm_bases *b, uint64_t *result,
                                                  const uint64_t *scalars, size_t n,
                                                  const uint64_t *mask);

/* Whether the calls of a classified MSM over the handle's first n points,
 * the batch-add over bm_one (with_ones) and the MSM of scalars over
 * bm_other (with_others; either bitmap NULL: all points), run in the work
 * area as it stands, none growing it: *fits 1 or 0. The MSM's room is
 * reckoned from bm_other's count (one device popcount where the bitmap is
 * on the device). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_split_fits(cuzk__gpu_msm_bases *b, size_t n,
                                                             int with_ones, const uint64_t *bm_one,
                                                             int with_others,
                                                             const uint64_t *scalars,
                                                             const uint64_t *bm_other, int *fits);

/* result = sum of bases[i] over i < n with bit i of bitmap set (all when
 * bitmap is NULL). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_batch_add(cuzk__gpu_msm_bases *b,
                                                            uint64_t *result, size_t n,
                                                            const uint64_t *bitmap);

/* The 0/1/other classification of cuzk_msm_classify_var on the device:
 * bitmaps of (n + 63) / 64 words each (any may be NULL; host or device),
 * counts may be NULL. scalars: host or device. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_classify(uint64_t *zero, uint64_t *one,
                                                           uint64_t *other,
                                                           cuzk__gpu_msm_counts *counts,
                                                           const uint64_t *scalars, size_t n);

/* result = ones + others on the host (Jacobian words of group): the two
 * halves of a sum split by cuzk__gpu_msm_classify, the batch-add of the ones
 * and the masked MSM of the others, a half whose count in counts is 0 taken
 * as the point at infinity whatever its words hold. */
void cuzk__gpu_msm_add_halves(cuzk__gpu_msm_group group, uint64_t *result, const uint64_t *ones,
                              const uint64_t *others, const cuzk__gpu_msm_counts *counts);

/* batch_add(ones) + msm(others) after a classification, all on the device:
 * equal to cuzk__gpu_msm(b, result, scalars, n, NULL). counts may be NULL. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_msm_with_classification(
    cuzk__gpu_msm_bases *b, uint64_t *result, cuzk__gpu_msm_counts *counts,
    const uint64_t *scalars, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GPU_MSM_H */
