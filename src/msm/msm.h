/*
 * msm.h — CPU multi-scalar multiplication in G1 and G2 (Pippenger), the 0/1/other
 * classification of scalars and the "bitmap batch-add" of the bases whose scalar
 * is 1. VARIABLE TIME: everything here branches and indexes memory on the
 * scalars and on the points. It is meant for public data or for data whose
 * timing is accepted to leak (the prover's MSMs over witness scalars, as in
 * bellman); never call it with secret scalars that must stay secret.
 *
 * Inputs
 *   bases    affine points (cuzk_g1_aff / cuzk_g2_aff, Montgomery coordinates);
 *            the point at infinity (0, 0) is allowed and contributes nothing.
 *            Bases need not be distinct (repeats and P, -P are fine). G1
 *            bases must lie in the prime-order subgroup (the GLV route below
 *            reduces scalars mod r and uses phi(P) = -x^2 P, true on G1 only):
 *            for a point of E(Fp) outside G1 the result is unspecified (a key
 *            holding one is invalid anyway). G2 bases: any curve points.
 *   scalars  plain (non-Montgomery) little-endian 4 x 64-bit limbs, one per
 *            base: `const uint64_t (*scalars)[4]`. Any integer below 2^255 is
 *            accepted (canonical Fr values are < r < 2^255); a larger one makes
 *            the call fail with CUZK_ERR_INVALID_ARG before any work.
 *   mask     optional bitmap of n bits (bit i = word i/64, bit i%64): only bases
 *            whose bit is set take part. NULL = all of them.
 *   threads  OpenMP threads to use; 0 = omp_get_max_threads(). Without OpenMP
 *            every call runs on the calling thread.
 * Output: a Jacobian point (infinity when nothing contributes).
 *
 * Memory: the functions that need working memory take a `void *scratch` of at
 * least *_scratch_sizeof(...) bytes (no alignment needed; they align inside),
 * so repeated calls never allocate. scratch = NULL makes the call allocate that
 * much itself with malloc (and free it before returning); the only failure is
 * then CUZK_ERR_NOMEM. The scratch size depends on `threads` as resolved at
 * call time, so a caller that preallocates should pass the same explicit
 * thread count to both calls.
 *
 * Algorithm (cuzk_g{1,2}_msm_var)
 *   - Window c (bits) from the number of participating points n': below 512
 *     the c that minimizes ceil(256/c) (n' + K 2^(c-1)), with K the cost of one
 *     bucket's share of the reduction in mixed additions; measured choices for
 *     the batch-affine path above (c = 10 from 512 points, 13 from 4096 to
 *     2^18); the model again beyond 2^18, up to CUZK_MSM_MAX_C, or 13 when
 *     several threads share the caches (measurements in msm.c).
 *   - Signed digits by Booth recoding, computed on the fly from the scalar:
 *     the digit of window j reads bits jc-1 .. jc+c-1 (bit -1 = 0),
 *     d = (w >> 1) + (w & 1) - 2^c (w >> c), in [-2^(c-1), 2^(c-1)], and
 *     k = sum d_j 2^(jc) as long as bit nwin*c - 1 of k is 0, which
 *     nwin = ceil(256/c) guarantees for k < 2^255. So 2^(c-1) buckets.
 *   - Bucket accumulation, one of two (negative digits add the negated base,
 *     y -> -y; the next point's bucket is prefetched):
 *     XYZZ buckets (fewer than 512 buckets): a mixed addition per point
 *       (8M + 2S, cuzk_*_xyzz_add_aff_var).
 *     batch-affine buckets (512 and more): buckets hold affine points; a
 *       point for a bucket that holds one becomes a pending pair, and a batch
 *       of up to min(512, nbuckets/4) pairs is added at once in affine
 *       coordinates with one shared inversion (Montgomery's trick): about
 *       6M + 1S per point. A point whose bucket already has a pair pending
 *       waits in a queue for the next batch. Equal points double, opposite
 *       ones empty the bucket. 1.3-1.4x faster than XYZZ at 2^16 (G1).
 *   - Reduction of the XYZZ buckets, the running sum: for b from the top
 *     bucket down, running += B[b], total += running, giving sum b B[b] in 2
 *     XYZZ additions per bucket (12M + 2S each).
 *     Reduction of the affine buckets: with bucket index b = b1 2^h + b0
 *     (h = floor((c-1)/2)), sum (b+1) B[b] = 2^h sum b1 S1[b1] +
 *     sum (b0+1) S0[b0], where the row sums S1 and column sums S0 of the grid
 *     come from pairwise trees of affine additions (one shared inversion per
 *     batch of a tree level: 5M + 1S each, about 2 per bucket), then two
 *     running sums of 2^(c-1-h) and 2^h terms and h doublings: the
 *     reduction costs less than half of the running sum's (msm_impl.h).
 *   - Work split: the (window, chunk of points) pairs are OpenMP tasks
 *     (schedule dynamic); the number of chunks per window is chosen so that the
 *     tasks fill the threads evenly (each extra chunk costs one more reduction).
 *     Each thread owns one bucket array (and batch buffers); partial window
 *     sums are added into their window under a critical section.
 *   - Result: Horner over the windows, c doublings between them.
 *   - GLV (Gallant, Lambert, Vanstone, CRYPTO 2001; G1, from 1 to 2^18
 *     participating points, msm.c: cuzk__msm_glv_on):
 *     phi(x, y) = (beta x, y) acts on G1 as -z, z = x^2 ~ 2^127.4 (x the BLS
 *     seed), so k P = k1 P + k2 Q with k mod r = k1 + k2 z (0 <= k1, k2 < z,
 *     cuzk__msm_glv_split) and Q = -phi(P) = (beta x, -y). One pass writes per
 *     participating base k1, k2 and beta x (1M) into scratch (80 bytes, 88
 *     with a mask); then Pippenger over those 2n' points with 128-bit scalars:
 *     the window of 2n' points but at most 13, ceil(129/c) windows (10 at
 *     c = 13 instead of 20): the same bucket additions, half the bucket
 *     reductions and window sums. Beyond 2^18 points the plain route's larger
 *     windows win on one thread (the reductions are a small share there).
 *
 * Classification and batch-add (the tail MSMs of the prover): one pass over the
 * scalars yields bitmaps of the zero, one and other scalars; the bases of the
 * ones are summed by cuzk_g{1,2}_batch_add_var (affine additions, one shared
 * field inversion per batch of up to CUZK_MSM_BATCH_ADD/2 additions), and the
 * others go through the MSM with the "other" bitmap as mask. Their sum equals
 * the plain MSM.
 */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "ec/g1.h"
#include "ec/g2.h"

/* Largest window (bits): 2^15 buckets of 192 bytes (G1 XYZZ) = 6 MiB per thread. */
#define CUZK_MSM_MAX_C 16
/* Points held by one batch-add buffer; a round adds CUZK_MSM_BATCH_ADD/2 pairs
 * with one inversion. */
#define CUZK_MSM_BATCH_ADD 1024

/* Threads a call with `threads` will use at most: threads, or all cores for 0
 * (1 without OpenMP). */
unsigned cuzk_msm_threads(unsigned threads);

/* The window (bits) the MSM uses for n participating points on `threads`
 * (the G1 MSM by GLV uses the window of 2n points). */
unsigned cuzk_msm_window_bits(size_t n, unsigned threads);

/*
 * Overrides of the choices the MSM makes by size, for tests that must reach
 * every path and for A/B timings (`cuzk bench msm`). Production passes NULL
 * (the functions without opts do): every field 0 is the default, so a zeroed
 * struct equals NULL. An options struct is read during the call only; calls
 * with different options may run at once.
 */
typedef enum {
    CUZK_MSM_PATH_AUTO = 0,  /* XYZZ below 512 buckets, batch-affine from there */
    CUZK_MSM_PATH_XYZZ = 1,  /* always XYZZ buckets */
    CUZK_MSM_PATH_AFFINE = 2 /* always batch-affine buckets */
} cuzk_msm_path;
typedef enum {
    CUZK_MSM_REDUCE_TREE = 0,   /* affine buckets: row/column trees (msm_impl.h) */
    CUZK_MSM_REDUCE_RUNNING = 1 /* affine buckets: the plain running sum */
} cuzk_msm_reduce;
typedef enum {
    CUZK_MSM_GLV_AUTO = 0, /* G1: GLV over the measured range (cuzk__msm_glv_on) */
    CUZK_MSM_GLV_OFF = 1,  /* G1: never */
    CUZK_MSM_GLV_ON = 2    /* G1: at every size; G2 ignores the field */
} cuzk_msm_glv;
typedef struct {
    unsigned c; /* window bits, 1..CUZK_MSM_MAX_C; 0 (or out of range) = by size */
    cuzk_msm_path path;
    cuzk_msm_reduce reduce;
    cuzk_msm_glv glv;
} cuzk_msm_opts;

/* Bytes of scratch for an MSM over n bases (whatever the mask); for G1 up to
 * 88 bytes per base more (GLV items, up to 2^18 bases: 23 MB). The _opts
 * forms size it for the same opts as the call (NULL = the defaults). */
size_t cuzk_g1_msm_scratch_sizeof(size_t n, unsigned threads);
size_t cuzk_g2_msm_scratch_sizeof(size_t n, unsigned threads);
size_t cuzk_g1_msm_scratch_sizeof_opts(size_t n, unsigned threads, const cuzk_msm_opts *opts);
size_t cuzk_g2_msm_scratch_sizeof_opts(size_t n, unsigned threads, const cuzk_msm_opts *opts);

/* r = sum over i < n (with mask bit i set, or all when mask is NULL) of
 * scalars[i] * bases[i]. CUZK_ERR_INVALID_ARG: a NULL array with n > 0 or a
 * (participating) scalar >= 2^255; CUZK_ERR_NOMEM: scratch NULL and malloc
 * failed. Variable time. The _opts forms take the overrides above (NULL =
 * the defaults, which is what the plain forms use); a caller's scratch must
 * then come from the _opts sizeof with the same opts. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_msm_var(cuzk_g1_jac *r, const cuzk_g1_aff *bases,
                                                    const uint64_t (*scalars)[4], size_t n,
                                                    const uint64_t *mask, unsigned threads,
                                                    void *scratch);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_msm_var(cuzk_g2_jac *r, const cuzk_g2_aff *bases,
                                                    const uint64_t (*scalars)[4], size_t n,
                                                    const uint64_t *mask, unsigned threads,
                                                    void *scratch);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_msm_opts_var(cuzk_g1_jac *r, const cuzk_g1_aff *bases,
                                                         const uint64_t (*scalars)[4], size_t n,
                                                         const uint64_t *mask, unsigned threads,
                                                         void *scratch, const cuzk_msm_opts *opts);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_msm_opts_var(cuzk_g2_jac *r, const cuzk_g2_aff *bases,
                                                         const uint64_t (*scalars)[4], size_t n,
                                                         const uint64_t *mask, unsigned threads,
                                                         void *scratch, const cuzk_msm_opts *opts);

/* ---- classification ------------------------------------------------------- */

/* 64-bit words of a bitmap of n bits. */
static inline size_t cuzk_msm_bitmap_words(size_t n) { return (n + 63) / 64; }

typedef struct {
    size_t zero, one, other;
} cuzk_msm_counts;

/*
 * One pass over the scalars: bit i of `zero`, `one` or `other` (each
 * cuzk_msm_bitmap_words(n) words, or NULL when not wanted) is set when
 * scalars[i] is 0, 1, or anything else; the bits past n in the last word are
 * 0. counts (may be NULL) receives the three population counts. Compares
 * plain limbs only: a scalar equal to r is "other". Runs on `threads`.
 */
void cuzk_msm_classify_var(uint64_t *zero, uint64_t *one, uint64_t *other, cuzk_msm_counts *counts,
                           const uint64_t (*scalars)[4], size_t n, unsigned threads);

/* ---- bitmap batch-add --------------------------------------------------------- */

size_t cuzk_g1_batch_add_scratch_sizeof(unsigned threads);
size_t cuzk_g2_batch_add_scratch_sizeof(unsigned threads);

/*
 * r = sum of bases[i] over i < n with bit i of bitmap set (all when bitmap is
 * NULL). Streaming pairwise reduction in affine coordinates: a buffer of up to
 * CUZK_MSM_BATCH_ADD points is refilled from the input and halved by one
 * round of independent affine additions (x3 = l^2 - x1 - x2,
 * y3 = l (x1 - x3) - y1, l = (y2 - y1)/(x2 - x1), or 3x^2/2y for a doubling)
 * whose denominators share one inversion (Montgomery's trick: 3M each), so
 * one addition costs about 6M + 1S plus 1/512 of an inversion, against 8M + 2S
 * for a mixed XYZZ addition. The bitmap's words are split over the threads.
 * CUZK_ERR_NOMEM only when scratch is NULL and malloc fails.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_batch_add_var(cuzk_g1_jac *r, const cuzk_g1_aff *bases,
                                                          size_t n, const uint64_t *bitmap,
                                                          unsigned threads, void *scratch);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_batch_add_var(cuzk_g2_jac *r, const cuzk_g2_aff *bases,
                                                          size_t n, const uint64_t *bitmap,
                                                          unsigned threads, void *scratch);

/*
 * The same result as cuzk_g{1,2}_msm_var(r, bases, scalars, n, NULL, threads, NULL),
 * computed as batch_add(ones) + msm(others) after one classification pass;
 * zeros are skipped. Allocates its bitmaps and scratch internally
 * (CUZK_ERR_NOMEM); counts (may be NULL) receives the classification. The
 * _opts forms pass opts (NULL = the defaults) to the MSM of the others.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_msm_with_classification_var(
    cuzk_g1_jac *r, cuzk_msm_counts *counts, const cuzk_g1_aff *bases,
    const uint64_t (*scalars)[4], size_t n, unsigned threads);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_msm_with_classification_var(
    cuzk_g2_jac *r, cuzk_msm_counts *counts, const cuzk_g2_aff *bases,
    const uint64_t (*scalars)[4], size_t n, unsigned threads);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_msm_with_classification_opts_var(
    cuzk_g1_jac *r, cuzk_msm_counts *counts, const cuzk_g1_aff *bases,
    const uint64_t (*scalars)[4], size_t n, unsigned threads, const cuzk_msm_opts *opts);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_msm_with_classification_opts_var(
    cuzk_g2_jac *r, cuzk_msm_counts *counts, const cuzk_g2_aff *bases,
    const uint64_t (*scalars)[4], size_t n, unsigned threads, const cuzk_msm_opts *opts);

/* ---- internal (shared by msm_g1.c, msm_g2.c and the tests) -------------------- */

typedef struct {
    unsigned c;       /* window bits */
    unsigned nwin;    /* windows: ceil((bits + 1) / c); ceil(256 / c) for full scalars */
    unsigned nchunks; /* point chunks per window */
    unsigned threads; /* threads that get a bucket array */
    size_t nbuckets;  /* 2^(c-1) */
    unsigned affine;  /* 1: batch-affine bucket accumulation, 0: XYZZ buckets */
    unsigned running_sum; /* affine buckets: 1 = the plain running sum (opts), 0 = trees */
} cuzk__msm_plan;

/* The plan for n participating points on (resolved) `threads` threads; opts
 * (may be NULL) as in cuzk_g1_msm_opts_var. */
void cuzk__msm_plan_make(cuzk__msm_plan *p, size_t n, unsigned threads,
                         const cuzk_msm_opts *opts);
/* The same for n points with scalars below 2^bits (GLV halves: 128, with 2n
 * points): nwin = ceil((bits + 1) / c) so that the top Booth digit has no carry
 * out (see above). cuzk__msm_plan_make is bits = 255. */
void cuzk__msm_plan_make_bits(cuzk__msm_plan *p, size_t n, unsigned threads, unsigned bits,
                              const cuzk_msm_opts *opts);
/* Whether the G1 MSM over np participating points takes the GLV route
 * (opts->glv, then the measured range in msm.c). */
int cuzk__msm_glv_on(size_t np, const cuzk_msm_opts *opts);
/* Largest np cuzk__msm_glv_on can accept by default (bounds the scratch). */
size_t cuzk__msm_glv_max_n(void);

/*
 * The GLV split of a scalar k < 2^255 (msm.c): with z = x^2 (x the BLS seed,
 * z = 0xac45a4010001a4020000000100000000 < 2^128), k mod r = k1 + k2 z with
 * 0 <= k1, k2 < z. Since phi(x, y) = (beta x, y) is -z on G1 (src/ec/g1.c),
 * k P = k1 P + k2 Q with Q = -phi(P) = (beta x, -y). Variable time.
 */
void cuzk__msm_glv_split(uint64_t k1[2], uint64_t k2[2], const uint64_t k[4]);

/* The Booth digit of window j (see above) of a scalar of nlimbs limbs; exact
 * recombination needs bit nwin*c - 1 (and above) of k to be 0. */
static inline int cuzk__msm_booth_digit_n(const uint64_t *k, unsigned nlimbs, unsigned j,
                                          unsigned c) {
    uint64_t w;
    uint64_t mask = ((uint64_t)1 << (c + 1)) - 1;
    if (j == 0) {
        w = (k[0] << 1) & mask;
    } else {
        unsigned s = j * c - 1, limb = s / 64, off = s % 64;
        if (limb >= nlimbs) return 0;
        w = k[limb] >> off;
        if (off + c + 1 > 64 && limb + 1 < nlimbs) w |= k[limb + 1] << (64 - off);
        w &= mask;
    }
    return (int)((w >> 1) + (w & 1)) - (int)((w >> c) << c);
}
/* The Booth digit of window j of a scalar < 2^255. */
static inline int cuzk__msm_booth_digit(const uint64_t k[4], unsigned j, unsigned c) {
    return cuzk__msm_booth_digit_n(k, 4, j, c);
}
/* Number of set bits among the first n of a bitmap. */
size_t cuzk__msm_popcount(const uint64_t *bitmap, size_t n);

#endif /* CUZK_MSM_H */
