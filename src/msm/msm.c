/*
 * msm.c — the group-independent parts of the MSM (msm.h): thread count, the
 * window/chunk plan, bitmaps and the 0/1/other classification. VARIABLE TIME.
 */
#include "msm.h"

#include <string.h>

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

unsigned cuzk_msm_threads(unsigned threads) {
#if defined(CUZK_HAVE_OPENMP)
    if (threads == 0) {
        int t = omp_get_max_threads();
        return t > 0 ? (unsigned)t : 1;
    }
    return threads;
#else
    (void)threads;
    return 1;
#endif
}

int cuzk__msm_force_path = 0;
unsigned cuzk__msm_force_c = 0;
int cuzk__msm_force_reduce = 0;

/* Batch-affine accumulation from this many buckets (c = 10) up (msm.h). Before
 * the affine bucket reduction (msm_impl.h: msm_aff_reduce) the threshold was
 * 2048 buckets: with fewer, a batch of nbuckets/4 pairs is short and collides
 * often, and XYZZ was as fast (16-core Xeon, 1 thread: c = 11 affine 218-236 ms
 * against XYZZ 208 ms at 2^14). With the tree reduction the affine buckets cost
 * less than half as much to reduce, and affine won from 2^9 points on the
 * 2-vCPU development VM (G1, 1 thread, ms, XYZZ at the model's c / affine at
 * c = 10: 2^8 4.5 / 4.7, 2^9 7.8 / 7.1, 2^10 13.3 / 11.1, 2^11 24.9 / 19.2,
 * 2^12 44.9 / 34.1). */
#define MSM_AFFINE_MIN_BUCKETS 512
/* With several threads the per-thread buckets compete for the shared caches:
 * at 2^18 on 16 threads c = 13 took 192 ms, c = 14 389 ms, c = 12 316 ms. */
#define MSM_MAX_C_THREADED 13

/*
 * Cost model in mixed XYZZ additions (8M + 2S = 10 units): each participating
 * point costs one per window; each bucket costs two XYZZ additions
 * (12M + 2S = 14 units each) in the running-sum reduction, so K = 2.8. It
 * picks the window for the XYZZ path (small n) and beyond the measured range
 * below.
 */
#define MSM_BUCKET_COST 2.8
/* The same ratio for affine buckets and the tree reduction, measured (G1,
 * 1 thread, c = 13, 2-vCPU VM): ~257 ns per point and window, ~230 ns per
 * bucket and window; used for the chunk split. */
#define MSM_BUCKET_COST_AFFINE 0.9

static double msm_window_cost(size_t n, unsigned c) {
    unsigned nwin = (256 + c - 1) / c;
    return (double)nwin * ((double)n + MSM_BUCKET_COST * (double)((size_t)1 << (c - 1)));
}

/* The largest argmin: A(c) + n B(c) with B = nwin non-increasing in c has a
 * non-decreasing largest argmin in n, so a larger n never gets a smaller window
 * (the scratch bound of cuzk_g*_msm_scratch_sizeof relies on it; the cap for
 * several threads keeps that). */
static unsigned msm_window_bits_1(size_t n) {
    unsigned best = 1;
    double best_cost = msm_window_cost(n, 1);
    for (unsigned c = 2; c <= CUZK_MSM_MAX_C; c++) {
        double cost = msm_window_cost(n, c);
        if (cost <= best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

/* The measured windows of the batch-affine path with the tree reduction (G1,
 * 1 thread, 2-vCPU VM, ms, doc/perf.md 2026-11-30): from 2^9 points c = 10
 * (2^11: c = 9..13 21.3 19.2 20.2 20.3 20.5); from 2^12 c = 13 (2^12: c = 10
 * 34.1, 13 33.4; 2^13 67.7 / 60.1; 2^14 c = 11..14 127 117 104 117; 2^16 492
 * 437 381 427; 2^18 c = 13, 14, 16: 1513 1681 2034). c = 12 loses to 13 for
 * its batch of 512 pairs among 2048 buckets (collisions defer points); c = 14
 * to the larger bucket array. Beyond 2^18 (unmeasured since) the model. */
#define MSM_AFFINE_MIN_N 512
#define MSM_AFFINE_C_SMALL 10
#define MSM_AFFINE_LARGE_N 4096
#define MSM_AFFINE_C_LARGE 13
#define MSM_AFFINE_MAX_N ((size_t)1 << 18)

unsigned cuzk_msm_window_bits(size_t n, unsigned threads) {
    /* Monotone in n: the model is, the floors below grow with n, and past
     * MSM_AFFINE_MAX_N the model already picks more than 13. */
    unsigned c = msm_window_bits_1(n);
    if (n >= MSM_AFFINE_MIN_N && c < MSM_AFFINE_C_SMALL) c = MSM_AFFINE_C_SMALL;
    if (n >= MSM_AFFINE_LARGE_N && c < MSM_AFFINE_C_LARGE) c = MSM_AFFINE_C_LARGE;
    if (n <= MSM_AFFINE_MAX_N && c > MSM_AFFINE_C_LARGE) c = MSM_AFFINE_C_LARGE;
    if (cuzk_msm_threads(threads) > 1 && c > MSM_MAX_C_THREADED) c = MSM_MAX_C_THREADED;
    return c;
}

#define MSM_MAX_CHUNKS 16

void cuzk__msm_plan_make(cuzk__msm_plan *p, size_t n, unsigned threads) {
    if (threads == 0) threads = 1;
    p->c = cuzk_msm_window_bits(n, threads);
    if (cuzk__msm_force_c >= 1 && cuzk__msm_force_c <= CUZK_MSM_MAX_C) p->c = cuzk__msm_force_c;
    p->nwin = (256 + p->c - 1) / p->c;
    p->nbuckets = (size_t)1 << (p->c - 1);
    p->affine = cuzk__msm_force_path == 2 ||
                (cuzk__msm_force_path == 0 && p->nbuckets >= MSM_AFFINE_MIN_BUCKETS);
    double kb = p->affine ? MSM_BUCKET_COST_AFFINE : MSM_BUCKET_COST;
    /* Chunks per window: the makespan of nwin*ch equal tasks on `threads`
     * threads, each n/ch points plus one reduction. */
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned ch = 1; ch <= MSM_MAX_CHUNKS && (ch == 1 || ch <= n); ch++) {
        unsigned tasks = p->nwin * ch;
        unsigned rounds = (tasks + threads - 1) / threads;
        double cost = (double)rounds *
                      ((double)n / ch + kb * (double)p->nbuckets);
        if (ch == 1 || cost < best_cost) {
            best = ch;
            best_cost = cost;
        }
    }
    p->nchunks = best;
    unsigned tasks = p->nwin * p->nchunks;
    p->threads = threads < tasks ? threads : tasks;
}

size_t cuzk__msm_popcount(const uint64_t *bitmap, size_t n) {
    size_t words = n / 64, count = 0;
    for (size_t w = 0; w < words; w++) count += (size_t)__builtin_popcountll(bitmap[w]);
    if (n % 64) count += (size_t)__builtin_popcountll(bitmap[words] & (((uint64_t)1 << (n % 64)) - 1));
    return count;
}

/* Classifies the scalars of bitmap words [w0, w1). */
static void msm_classify_words(uint64_t *zero, uint64_t *one, uint64_t *other,
                               cuzk_msm_counts *cnt, const uint64_t (*scalars)[4], size_t n,
                               size_t w0, size_t w1) {
    size_t nz = 0, no = 0, nx = 0;
    for (size_t w = w0; w < w1; w++) {
        uint64_t bz = 0, bo = 0, bx = 0;
        size_t lo = w * 64, hi = lo + 64 < n ? lo + 64 : n;
        for (size_t i = lo; i < hi; i++) {
            const uint64_t *k = scalars[i];
            uint64_t high = k[1] | k[2] | k[3], bit = (uint64_t)1 << (i - lo);
            if (high == 0 && k[0] <= 1) {
                if (k[0] == 0)
                    bz |= bit;
                else
                    bo |= bit;
            } else {
                bx |= bit;
            }
        }
        if (zero) zero[w] = bz;
        if (one) one[w] = bo;
        if (other) other[w] = bx;
        nz += (size_t)__builtin_popcountll(bz);
        no += (size_t)__builtin_popcountll(bo);
        nx += (size_t)__builtin_popcountll(bx);
    }
    cnt->zero = nz;
    cnt->one = no;
    cnt->other = nx;
}

void cuzk_msm_classify_var(uint64_t *zero, uint64_t *one, uint64_t *other, cuzk_msm_counts *counts,
                           const uint64_t (*scalars)[4], size_t n, unsigned threads) {
    size_t words = cuzk_msm_bitmap_words(n);
    size_t nz = 0, no = 0, nx = 0;
    unsigned t = cuzk_msm_threads(threads);
    /* below ~64K scalars a thread team costs more than the pass */
    if (t > 1 && n >= ((size_t)1 << 16)) {
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static) reduction(+ : nz, no, nx)
        for (long tid = 0; tid < (long)t; tid++) {
            size_t w0 = words * (size_t)tid / t, w1 = words * (size_t)(tid + 1) / t;
            cuzk_msm_counts c;
            msm_classify_words(zero, one, other, &c, scalars, n, w0, w1);
            nz += c.zero;
            no += c.one;
            nx += c.other;
        }
#endif
    } else {
        cuzk_msm_counts c;
        msm_classify_words(zero, one, other, &c, scalars, n, 0, words);
        nz = c.zero;
        no = c.one;
        nx = c.other;
    }
    if (counts) {
        counts->zero = nz;
        counts->one = no;
        counts->other = nx;
    }
}
