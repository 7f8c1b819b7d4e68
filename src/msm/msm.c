/*
 * msm.c — the group-independent parts of the MSM (msm.h): thread count, the
 * window/chunk plan, bitmaps and the 0/1/other classification. VARIABLE TIME.
 */
#include "msm/msm.h"

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
 * 1 thread, 2-vCPU VM, ms, 2026-11-30; doc/performance.md, CPU MSM): from
 * 2^9 points c = 10 (2^11: c = 9..13 21.3 19.2 20.2 20.3 20.5); from 2^12
 * c = 13 (2^12: c = 10 34.1, 13 33.4; 2^13 67.7 / 60.1; 2^14 c = 11..14 127
 * 117 104 117; 2^16 492 437 381 427; 2^18 c = 13, 14, 16: 1513 1681 2034).
 * c = 12 loses to 13 for its batch of 512 pairs among 2048 buckets
 * (collisions defer points); c = 14 to the larger bucket array. Beyond 2^18
 * (unmeasured since) the model. */
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

void cuzk__msm_plan_make(cuzk__msm_plan *p, size_t n, unsigned threads,
                         const cuzk_msm_opts *opts) {
    cuzk__msm_plan_make_bits(p, n, threads, 255, opts);
}

void cuzk__msm_plan_make_bits(cuzk__msm_plan *p, size_t n, unsigned threads, unsigned bits,
                              const cuzk_msm_opts *opts) {
    static const cuzk_msm_opts defaults = {0, CUZK_MSM_PATH_AUTO, CUZK_MSM_REDUCE_TREE,
                                           CUZK_MSM_GLV_AUTO};
    const cuzk_msm_opts *o = opts != NULL ? opts : &defaults;
    if (threads == 0) threads = 1;
    p->c = cuzk_msm_window_bits(n, threads);
    /* GLV (bits 128) at 2n points: the window of 2n, but at most 13, where
     * the model would go on to 15-16 beyond 2^18 points (G1, 1 thread, 2^18
     * bases = 2^19 points, ms: c = 13 1267, c = 15 1477; 14 and 16 give no
     * fewer windows of 129 bits than 13 and 15). */
    if (bits <= 128 && p->c > MSM_AFFINE_C_LARGE) p->c = MSM_AFFINE_C_LARGE;
    if (o->c >= 1 && o->c <= CUZK_MSM_MAX_C) p->c = o->c;
    p->nwin = (bits + p->c) / p->c;
    p->nbuckets = (size_t)1 << (p->c - 1);
    p->affine = o->path == CUZK_MSM_PATH_AFFINE ||
                (o->path != CUZK_MSM_PATH_XYZZ && p->nbuckets >= MSM_AFFINE_MIN_BUCKETS);
    p->running_sum = o->reduce == CUZK_MSM_REDUCE_RUNNING;
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

/* ---- GLV (G1) ------------------------------------------------------------------ */

/* GLV from this many participating points up to MSM_GLV_MAX_N. It won at every
 * size measured from 1 to 2^18 points (G1, 2-vCPU VM, 1 thread, GLV vs plain,
 * min ms: 2^4 0.48 / 0.64, 2^8 3.28 / 4.26, 2^12 29.1 / 34.5, 2^15 168 / 185,
 * 2^16 342 / 349, 2^18 1318 / 1339; 2026-11-30, doc/performance.md). At
 * 2^20 on one thread it lost (5341 / 4791 ms): there the plain route takes
 * c = 16 (16 windows of 2^20 points) where GLV at c = 13 adds 10 windows of
 * 2^21, and the reductions it halves are a small share. Above 2^18 the plain route. */
#define MSM_GLV_MIN_N 1
#define MSM_GLV_MAX_N ((size_t)1 << 18)

int cuzk__msm_glv_on(size_t np, const cuzk_msm_opts *opts) {
    if (opts != NULL && opts->glv == CUZK_MSM_GLV_OFF) return 0;
    if (opts != NULL && opts->glv == CUZK_MSM_GLV_ON) return 1;
    return np >= MSM_GLV_MIN_N && np <= MSM_GLV_MAX_N;
}

size_t cuzk__msm_glv_max_n(void) { return MSM_GLV_MAX_N; }

static const uint64_t msm_r[4] = CUZK__FR_R;
/* z = x^2 = 0xd201000000010000^2 (x = -0xd201000000010000, the BLS seed) */
static const uint64_t msm_glv_z[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL};
/* mu = floor(2^255 / z) */
static const uint64_t msm_glv_mu[2] = {0xb1fb72917b67f717ULL, 0xbe35f678f00fd56eULL};

/* r = a b, two limbs each: 4 multiplications. */
static inline void msm_mul_2x2(uint64_t r[4], const uint64_t a[2], const uint64_t b[2]) {
    uint64_t hi;
    r[0] = cuzk__mac(&hi, a[0], b[0], 0, 0);
    r[1] = cuzk__mac(&r[2], a[0], b[1], hi, 0);
    r[1] = cuzk__mac(&hi, a[1], b[0], r[1], 0);
    r[2] = cuzk__mac(&r[3], a[1], b[1], r[2], hi);
}

/*
 * k2 = floor(t / z), k1 = t - k2 z for t = k mod r, by a Barrett quotient
 * estimate (8 multiplications) instead of a division:
 *   r = z^2 - z + 1 (r = x^4 - x^2 + 1), so t < r < z^2 gives k2 < z, and k1 < z
 *   by definition; z < 2^128, so both fit two limbs (bit 127 may be set:
 *   z = 0xac45... 2^112).
 *   th = floor(t / 2^127) < 2^128 and mu = floor(2^255 / z) < 2^128 (z > 2^127);
 *   q = floor(th mu / 2^128) satisfies q <= t/z (th 2^127 <= t, mu <= 2^255/z),
 *   so t - q z >= 0. With th 2^127 = t - e (0 <= e < 2^127) and
 *   mu = 2^255/z - f (f = 0.00646 for this z):
 *   th mu / 2^128 >= t/z - e/z - t f / 2^255 > t/z - 0.7431 - 0.0059 (t < r <
 *   0.906 2^255), so k2 - q <= 1: one correction at most (tests/unit/test_msm.c
 *   compares edge and random scalars with a bit-by-bit long division).
 * The reduction mod r first: k < 2^255 < 2r, one subtraction at most.
 */
void cuzk__msm_glv_split(uint64_t k1[2], uint64_t k2[2], const uint64_t k[4]) {
    uint64_t t[4], borrow = 0;
    if (cuzk__lt_n(k, msm_r, 4)) {
        memcpy(t, k, sizeof(t));
    } else {
        for (int i = 0; i < 4; i++) t[i] = cuzk__sbb(k[i], msm_r[i], &borrow);
    }
    uint64_t th[2] = {(t[1] >> 63) | (t[2] << 1), (t[2] >> 63) | (t[3] << 1)};
    uint64_t prod[4], qz[4], rem[4];
    msm_mul_2x2(prod, th, msm_glv_mu);
    uint64_t q[2] = {prod[2], prod[3]};
    msm_mul_2x2(qz, q, msm_glv_z);
    borrow = 0;
    for (int i = 0; i < 4; i++) rem[i] = cuzk__sbb(t[i], qz[i], &borrow);
    /* rem < 2z < 2^129: rem[3] = 0, rem[2] <= 1 */
    if (rem[2] || !cuzk__lt_n(rem, msm_glv_z, 2)) {
        borrow = 0;
        rem[0] = cuzk__sbb(rem[0], msm_glv_z[0], &borrow);
        rem[1] = cuzk__sbb(rem[1], msm_glv_z[1], &borrow);
        rem[2] -= borrow;
        uint64_t carry = 1;
        q[0] = cuzk__adc(q[0], 0, &carry);
        q[1] += carry;
    }
    k1[0] = rem[0], k1[1] = rem[1];
    k2[0] = q[0], k2[1] = q[1];
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
