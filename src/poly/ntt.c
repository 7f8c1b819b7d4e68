/*
 * ntt.c — radix-2 NTT over Fr with cache blocking and OpenMP threads
 * (contract and cost model in ntt.h).
 *
 * Twiddles. A butterfly stage pairs i with i + h inside blocks of 2h and
 * multiplies by omega_2h^(i mod h), whatever block or sub-transform it sits
 * in: the same for Gentleman-Sande (DIF, h = n/2, n/4, ..., 1) and
 * Cooley-Tukey (DIT, h = 1, 2, ..., n/2), see e.g. Chu & George, "Inside the
 * FFT Black Box" (2000), chapters 4 and 5. So the domain keeps one table per
 * h: T_h[j] = omega_2h^j for j < h, at offset n - 2h of one allocation of
 * n - 1 elements (T_n/2 first: d->tw[j] = omega_n^j). Every stage then reads
 * its table front to back. With the single table T_n/2 alone, a stage with
 * small h reads every (n/2h)-th entry; for n = 2^22 and h < 2^12 that is one
 * page per twiddle, a TLB miss each. Measured at 2^22 on a 16-core Xeon VM,
 * one table -> per-h tables: 1 thread 2.17 -> 1.75 s, 4 threads 0.74 ->
 * 0.51 s, 16 threads 181 -> 165 ms (2^24: 1.00 -> 0.87 s).
 *
 * Inverse roots from the same tables: for 0 < j < h,
 * omega_2h^-j = omega_2h^(2h-j) = -omega_2h^(h-j) = -T_h[h - j]; the minus
 * sign is absorbed by swapping the operands of the butterfly's subtraction
 * (DIF) or its two outputs (DIT), so it costs nothing. j = 0 is the root 1.
 *
 * Blocking (radix-2^K passes). After the top K stages of a DIF of size m, the
 * 2^K contiguous blocks of size C = m/2^K are independent DIFs of size C;
 * the top K stages themselves only mix the 2^K elements
 * a[c + t*C] (t < 2^K) of one column c. So: do the top K stages strip by strip
 * (8 adjacent columns, 2^K rows, <= 256 KiB, cache resident), then recurse
 * into the blocks until a block has <= 2^12 elements (128 KiB) and is done
 * with plain loops. DIT runs the same plan backwards (blocks first, then the
 * column stages). Strips are independent, and so are blocks: each phase is
 * one OpenMP loop.
 */
#include <stdlib.h>
#include <string.h>

#include "poly/ntt.h"

#include "util/mem.h"

#if defined(CUZK_HAVE_OPENMP) && defined(_OPENMP)
#include <omp.h>
#define NTT_OMP(x) _Pragma(x)
static int ntt_threads(void) { return omp_get_max_threads(); }
#else
#define NTT_OMP(x)
static int ntt_threads(void) { return 1; }
#endif

#define NTT_LEAF_LOG 12    /* blocks of <= 2^12 elements (128 KiB) use plain loops */
#define NTT_KMAX 10        /* at most 10 stages per column pass: 2^10 rows */
#define NTT_PAR_MIN_LOG 13 /* smaller transforms stay on the calling thread */
#define NTT_STRIP 8        /* columns per strip: 8 * 32 B = four cache lines per row */
#define NTT_CHUNK 4096     /* elements per task in the elementwise loops */

/* The blocking knobs; only cuzk__ntt_tune (tests) changes them. */
static unsigned ntt_leaf_log = NTT_LEAF_LOG, ntt_kmax = NTT_KMAX,
                ntt_par_min_log = NTT_PAR_MIN_LOG;

void cuzk__ntt_tune(unsigned leaf_log, unsigned kmax, unsigned par_min_log) {
    ntt_leaf_log = leaf_log ? leaf_log : NTT_LEAF_LOG;
    ntt_kmax = kmax ? kmax : NTT_KMAX;
    ntt_par_min_log = par_min_log ? par_min_log : NTT_PAR_MIN_LOG;
}

static inline size_t min_sz(size_t x, size_t y) { return x < y ? x : y; }

/* ---- butterflies --------------------------------------------------------- */

/* Gentleman-Sande: (x, y) <- (x + y, (x - y) * w). Inverse with w = tw[n/2 - idx]
 * standing for -w': (x - y) * (-w) = (y - x) * w. */
static inline void bfly_dif(cuzk_fr *x, cuzk_fr *y, const cuzk_fr *w, int inv) {
    cuzk_fr u = *x, t;
    cuzk_fr_add(x, &u, y);
    if (inv)
        cuzk_fr_sub(&t, y, &u);
    else
        cuzk_fr_sub(&t, &u, y);
    cuzk_fr_mul(y, &t, w);
}

/* Twiddle 1: (x, y) <- (x + y, x - y) in both directions. */
static inline void bfly_dif1(cuzk_fr *x, cuzk_fr *y) {
    cuzk_fr u = *x;
    cuzk_fr_add(x, &u, y);
    cuzk_fr_sub(y, &u, y);
}

/* Cooley-Tukey: t = y * w; (x, y) <- (x + t, x - t). Inverse: w stands for -w',
 * so the two outputs trade places. */
static inline void bfly_dit(cuzk_fr *x, cuzk_fr *y, const cuzk_fr *w, int inv) {
    cuzk_fr u = *x, t;
    cuzk_fr_mul(&t, y, w);
    if (inv) {
        cuzk_fr_sub(x, &u, &t);
        cuzk_fr_add(y, &u, &t);
    } else {
        cuzk_fr_add(x, &u, &t);
        cuzk_fr_sub(y, &u, &t);
    }
}

/* T_h (see the top): omega_2h^j for j < h, inside the domain's allocation. */
static inline const cuzk_fr *tw_level(const cuzk_fr *tw, size_t n, size_t h) {
    return tw + (n - 2 * h);
}

/* The entry of T (h entries) for exponent j (0 < j < h) in the direction. */
static inline const cuzk_fr *tw_at(const cuzk_fr *T, size_t h, size_t j, int inv) {
    return inv ? &T[h - j] : &T[j];
}

/* ---- leaves: whole transforms of <= 2^NTT_LEAF_LOG elements -------------- */

static void dif_leaf(const cuzk_fr *tw, size_t n, cuzk_fr *a, unsigned lm, int inv) {
    size_t m = (size_t)1 << lm;
    for (unsigned s = 0; s < lm; s++) {
        size_t h = m >> (s + 1);
        const cuzk_fr *T = tw_level(tw, n, h);
        for (size_t blk = 0; blk < m; blk += 2 * h) {
            cuzk_fr *x = a + blk, *y = x + h;
            bfly_dif1(&x[0], &y[0]);
            for (size_t j = 1; j < h; j++) bfly_dif(&x[j], &y[j], tw_at(T, h, j, inv), inv);
        }
    }
}

static void dit_leaf(const cuzk_fr *tw, size_t n, cuzk_fr *a, unsigned lm, int inv) {
    size_t m = (size_t)1 << lm;
    for (unsigned s = lm; s-- > 0;) {
        size_t h = m >> (s + 1);
        const cuzk_fr *T = tw_level(tw, n, h);
        for (size_t blk = 0; blk < m; blk += 2 * h) {
            cuzk_fr *x = a + blk, *y = x + h;
            bfly_dif1(&x[0], &y[0]); /* twiddle 1: DIT and DIF agree */
            for (size_t j = 1; j < h; j++) bfly_dit(&x[j], &y[j], tw_at(T, h, j, inv), inv);
        }
    }
}

/* ---- column passes: the top K stages of a size-2^lm block ---------------- */

/* Rows t < 2^K hold a[c + t*C], C = 2^(lm-K); stage s pairs rows t and
 * t + hr (hr = 2^(K-s-1), so h = hr*C) with exponent c + (t mod hr)*C. */
static void dif_cols(const cuzk_fr *tw, size_t n, cuzk_fr *a, unsigned lm, unsigned K,
                     size_t c0, size_t c1, int inv) {
    size_t C = (size_t)1 << (lm - K), R = (size_t)1 << K;
    for (unsigned s = 0; s < K; s++) {
        size_t hr = R >> (s + 1), h = hr * C;
        const cuzk_fr *T = tw_level(tw, n, h);
        for (size_t tb = 0; tb < R; tb += 2 * hr)
            for (size_t tp = 0; tp < hr; tp++) {
                cuzk_fr *x = a + (tb + tp) * C, *y = x + hr * C;
                size_t e0 = tp * C;
                for (size_t c = c0; c < c1; c++) {
                    size_t e = e0 + c;
                    if (e == 0)
                        bfly_dif1(&x[c], &y[c]);
                    else
                        bfly_dif(&x[c], &y[c], tw_at(T, h, e, inv), inv);
                }
            }
    }
}

static void dit_cols(const cuzk_fr *tw, size_t n, cuzk_fr *a, unsigned lm, unsigned K,
                     size_t c0, size_t c1, int inv) {
    size_t C = (size_t)1 << (lm - K), R = (size_t)1 << K;
    for (unsigned s = K; s-- > 0;) {
        size_t hr = R >> (s + 1), h = hr * C;
        const cuzk_fr *T = tw_level(tw, n, h);
        for (size_t tb = 0; tb < R; tb += 2 * hr)
            for (size_t tp = 0; tp < hr; tp++) {
                cuzk_fr *x = a + (tb + tp) * C, *y = x + hr * C;
                size_t e0 = tp * C;
                for (size_t c = c0; c < c1; c++) {
                    size_t e = e0 + c;
                    if (e == 0)
                        bfly_dif1(&x[c], &y[c]);
                    else
                        bfly_dit(&x[c], &y[c], tw_at(T, h, e, inv), inv);
                }
            }
    }
}

/* ---- recursion (one thread) ---------------------------------------------- */

/* Called with lm > ntt_leaf_log. */
static unsigned serial_k(unsigned lm) {
    unsigned K = lm - ntt_leaf_log;
    return K > ntt_kmax ? ntt_kmax : K;
}

static void dif_rec(const cuzk_fr *tw, size_t n, cuzk_fr *a, unsigned lm, int inv) {
    if (lm <= ntt_leaf_log) {
        dif_leaf(tw, n, a, lm, inv);
        return;
    }
    unsigned K = serial_k(lm);
    size_t C = (size_t)1 << (lm - K);
    for (size_t c0 = 0; c0 < C; c0 += NTT_STRIP)
        dif_cols(tw, n, a, lm, K, c0, min_sz(c0 + NTT_STRIP, C), inv);
    for (size_t b = 0; b < ((size_t)1 << K); b++) dif_rec(tw, n, a + b * C, lm - K, inv);
}

static void dit_rec(const cuzk_fr *tw, size_t n, cuzk_fr *a, unsigned lm, int inv) {
    if (lm <= ntt_leaf_log) {
        dit_leaf(tw, n, a, lm, inv);
        return;
    }
    unsigned K = serial_k(lm);
    size_t C = (size_t)1 << (lm - K);
    for (size_t b = 0; b < ((size_t)1 << K); b++) dit_rec(tw, n, a + b * C, lm - K, inv);
    for (size_t c0 = 0; c0 < C; c0 += NTT_STRIP)
        dit_cols(tw, n, a, lm, K, c0, min_sz(c0 + NTT_STRIP, C), inv);
}

/* ---- top level (threads) ------------------------------------------------- */

static unsigned ceil_log2(unsigned v) {
    unsigned l = 0;
    while (((unsigned)1 << l) < v) l++;
    return l;
}

/* The top split for T threads (lm >= 2): like serial_k, but with at least
 * ~4T blocks when there is room, so the block phase keeps every thread busy. */
static unsigned top_k(unsigned lm, int threads) {
    unsigned K = lm > ntt_leaf_log ? lm - ntt_leaf_log : 0;
    unsigned want = ceil_log2((unsigned)threads) + 2, room = lm > 3 ? lm - 3 : 1;
    if (K < want) K = want < room ? want : room;
    return K > ntt_kmax ? ntt_kmax : K;
}

void cuzk__ntt_dif(const cuzk_ntt_domain *d, cuzk_fr *a, int inverse) {
    unsigned L = d->log_n;
    size_t n = d->n;
    int threads = ntt_threads();
    if (L == 0) return;
    if (L < ntt_par_min_log || L < 2 || threads <= 1) {
        dif_rec(d->tw, n, a, L, inverse);
        return;
    }
    unsigned K = top_k(L, threads);
    long long C = (long long)1 << (L - K), nb = (long long)1 << K;
    const cuzk_fr *tw = d->tw;
    NTT_OMP("omp parallel for schedule(static)")
    for (long long c0 = 0; c0 < C; c0 += NTT_STRIP)
        dif_cols(tw, n, a, L, K, (size_t)c0, min_sz((size_t)c0 + NTT_STRIP, (size_t)C), inverse);
    NTT_OMP("omp parallel for schedule(dynamic, 1)")
    for (long long b = 0; b < nb; b++) dif_rec(tw, n, a + b * C, L - K, inverse);
}

void cuzk__ntt_dit(const cuzk_ntt_domain *d, cuzk_fr *a, int inverse) {
    unsigned L = d->log_n;
    size_t n = d->n;
    int threads = ntt_threads();
    if (L == 0) return;
    if (L < ntt_par_min_log || L < 2 || threads <= 1) {
        dit_rec(d->tw, n, a, L, inverse);
        return;
    }
    unsigned K = top_k(L, threads);
    long long C = (long long)1 << (L - K), nb = (long long)1 << K;
    const cuzk_fr *tw = d->tw;
    NTT_OMP("omp parallel for schedule(dynamic, 1)")
    for (long long b = 0; b < nb; b++) dit_rec(tw, n, a + b * C, L - K, inverse);
    NTT_OMP("omp parallel for schedule(static)")
    for (long long c0 = 0; c0 < C; c0 += NTT_STRIP)
        dit_cols(tw, n, a, L, K, (size_t)c0, min_sz((size_t)c0 + NTT_STRIP, (size_t)C), inverse);
}

/* ---- bit reversal -------------------------------------------------------- */

static inline uint64_t rev_bits(uint64_t x, unsigned bits) {
    if (bits == 0) return 0;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
#if defined(__GNUC__)
    x = __builtin_bswap64(x);
#else
    x = ((x >> 8) & 0x00ff00ff00ff00ffULL) | ((x & 0x00ff00ff00ff00ffULL) << 8);
    x = ((x >> 16) & 0x0000ffff0000ffffULL) | ((x & 0x0000ffff0000ffffULL) << 16);
    x = (x >> 32) | (x << 32);
#endif
    return x >> (64 - bits);
}

static inline void fr_swap(cuzk_fr *x, cuzk_fr *y) {
    cuzk_fr t = *x;
    *x = *y;
    *y = t;
}

#define NTT_BR_B 5 /* tiles of 2^5 x 2^5 elements: 2 x 32 KiB touched per tile */

void cuzk_ntt_bitrev_permute(cuzk_fr *a, unsigned L) {
    if (L < 2 * NTT_BR_B + 2) {
        size_t n = (size_t)1 << L;
        for (size_t i = 0; i < n; i++) {
            size_t j = (size_t)rev_bits(i, L);
            if (i < j) fr_swap(&a[i], &a[j]);
        }
        return;
    }
    /* i = (hi, mid, lo) with B-bit hi and lo maps to (rev lo, rev mid, rev hi):
     * all (hi, lo) for one pair {mid, rev mid} form a closed set of swaps
     * whose two sides are 2^B runs of 2^B contiguous elements each. */
    unsigned M = L - 2 * NTT_BR_B, hs = L - NTT_BR_B;
    long long nm = (long long)1 << M;
    size_t rb[1 << NTT_BR_B];
    for (size_t v = 0; v < ((size_t)1 << NTT_BR_B); v++) rb[v] = (size_t)rev_bits(v, NTT_BR_B);
    NTT_OMP("omp parallel for schedule(dynamic, 16)")
    for (long long mid = 0; mid < nm; mid++) {
        size_t rm = (size_t)rev_bits((uint64_t)mid, M);
        if (rm < (size_t)mid) continue;
        for (size_t hi = 0; hi < ((size_t)1 << NTT_BR_B); hi++)
            for (size_t lo = 0; lo < ((size_t)1 << NTT_BR_B); lo++) {
                size_t i = (hi << hs) | ((size_t)mid << NTT_BR_B) | lo;
                size_t j = (rb[lo] << hs) | (rm << NTT_BR_B) | rb[hi];
                if (rm != (size_t)mid || i < j) fr_swap(&a[i], &a[j]);
            }
    }
}

/* ---- elementwise scalings ------------------------------------------------ */

/* p = c * s^e */
static void pow_times(cuzk_fr *p, const cuzk_fr *c, const cuzk_fr *s, uint64_t e) {
    cuzk_fr_pow(p, s, &e, 1);
    cuzk_fr_mul(p, p, c);
}

void cuzk__ntt_scale_natural(cuzk_fr *a, size_t n, const cuzk_fr *c, const cuzk_fr *s) {
    long long nchunks = (long long)((n + NTT_CHUNK - 1) / NTT_CHUNK);
    int par = nchunks > 1;
    (void)par;
    NTT_OMP("omp parallel for schedule(static) if(par)")
    for (long long k = 0; k < nchunks; k++) {
        size_t j0 = (size_t)k * NTT_CHUNK, j1 = j0 + NTT_CHUNK < n ? j0 + NTT_CHUNK : n;
        cuzk_fr p;
        pow_times(&p, c, s, j0);
        for (size_t j = j0; j < j1; j++) {
            cuzk_fr_mul(&a[j], &a[j], &p);
            cuzk_fr_mul(&p, &p, s);
        }
    }
}

/* a[bitrev(j)] *= c * s^j. Walking j in order would touch a at random
 * (a cache miss per element above a few MiB: 6x the cost of the natural-order
 * walk at 2^18), so walk the positions p = (hi, mid, lo) in the tiles of
 * cuzk_ntt_bitrev_permute instead: j = bitrev(p) = (rev lo, rev mid, rev hi)
 * and s^j = s^(rev(mid) << B) * s^(rev(lo) << (L-B)) * s^rev(hi), from a row
 * table per (tile, lo) and a column table per hi. 2 muls per element, as in
 * the natural walk, plus 2^B per 2^2B-element tile. */
void cuzk__ntt_scale_bitrev(cuzk_fr *a, unsigned L, const cuzk_fr *c, const cuzk_fr *s) {
    size_t n = (size_t)1 << L;
    if (L < 2 * NTT_BR_B + 2) {
        cuzk_fr p = *c;
        for (size_t j = 0; j < n; j++) {
            cuzk_fr *x = &a[rev_bits(j, L)];
            cuzk_fr_mul(x, x, &p);
            cuzk_fr_mul(&p, &p, s);
        }
        return;
    }
    enum { T = 1 << NTT_BR_B };
    unsigned M = L - 2 * NTT_BR_B, hs = L - NTT_BR_B;
    cuzk_fr col[T], lo_pow[T]; /* s^rev(hi); s^(rev(lo) << (L-B)) */
    for (size_t v = 0; v < T; v++) {
        uint64_t r = rev_bits(v, NTT_BR_B);
        cuzk_fr_pow(&col[v], s, &r, 1);
        r <<= hs;
        cuzk_fr_pow(&lo_pow[v], s, &r, 1);
    }
    long long nm = (long long)1 << M;
    int par = L >= 14;
    (void)par;
    NTT_OMP("omp parallel for schedule(static) if(par)")
    for (long long mid = 0; mid < nm; mid++) {
        cuzk_fr base, row[T];
        uint64_t e = rev_bits((uint64_t)mid, M) << NTT_BR_B;
        cuzk_fr_pow(&base, s, &e, 1);
        cuzk_fr_mul(&base, &base, c);
        for (size_t lo = 0; lo < T; lo++) cuzk_fr_mul(&row[lo], &base, &lo_pow[lo]);
        for (size_t hi = 0; hi < T; hi++) {
            cuzk_fr *x = a + ((hi << hs) | ((size_t)mid << NTT_BR_B));
            for (size_t lo = 0; lo < T; lo++) {
                cuzk_fr f;
                cuzk_fr_mul(&f, &row[lo], &col[hi]);
                cuzk_fr_mul(&x[lo], &x[lo], &f);
            }
        }
    }
}

static void scale_const(cuzk_fr *a, size_t n, const cuzk_fr *c) {
    long long nn = (long long)n;
    int par = n >= 2 * NTT_CHUNK;
    (void)par;
    NTT_OMP("omp parallel for schedule(static) if(par)")
    for (long long j = 0; j < nn; j++) cuzk_fr_mul(&a[j], &a[j], c);
}

/* ---- domain -------------------------------------------------------------- */

size_t cuzk_ntt_domain_sizeof(unsigned log_n) {
    if (log_n == 0 || log_n > CUZK_NTT_MAX_LOG) return 0;
    if (log_n + 4 >= sizeof(size_t) * 8) return SIZE_MAX; /* cannot be allocated */
    size_t bytes = (((size_t)1 << log_n) - 1) * sizeof(cuzk_fr); /* T_n/2 .. T_1 */
    return (bytes + 63) & ~(size_t)63; /* whole cache lines */
}

cuzk_status cuzk_ntt_domain_init(cuzk_ntt_domain *d, unsigned log_n, cuzk_ntt_root root) {
    static const cuzk_fr root5 = {CUZK__FR_ROOT5}, root7 = {CUZK__FR_ROOT7};
    memset(d, 0, sizeof(*d));
    if (log_n > CUZK_NTT_MAX_LOG) return CUZK_ERR_INVALID_ARG;
    if (root != CUZK_NTT_ROOT5 && root != CUZK_NTT_ROOT7) return CUZK_ERR_INVALID_ARG;
    size_t bytes = cuzk_ntt_domain_sizeof(log_n);
    if (bytes == SIZE_MAX) return CUZK_ERR_NOMEM;
    cuzk_fr *tw = NULL;
    if (bytes) {
        tw = cuzk__alloc_large(bytes); /* huge pages from 256 KiB (mem.h) */
        if (!tw) return CUZK_ERR_NOMEM;
    }

    /* omega_2^32 squared (32 - k) times has order 2^k; omega_2n is one
     * squaring earlier. */
    cuzk_fr w = root == CUZK_NTT_ROOT5 ? root5 : root7;
    cuzk_fr_set_zero(&d->omega_2n);
    for (unsigned i = CUZK_NTT_MAX_LOG; i > log_n; i--) {
        if (i == log_n + 1) d->omega_2n = w;
        cuzk_fr_sqr(&w, &w);
    }
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    d->root = root;
    d->omega = w;
    cuzk_fr_inv_var(&d->omega_inv, &w); /* public values: variable time is fine */
    cuzk_fr nf;
    cuzk_fr_from_u64(&nf, (uint64_t)1 << log_n);
    cuzk_fr_inv_var(&d->n_inv, &nf);

    if (tw) {
        size_t half = d->n / 2;
        cuzk_fr one;
        cuzk_fr_set_one(&one);
        long long nchunks = (long long)((half + NTT_CHUNK - 1) / NTT_CHUNK);
        int par = nchunks > 1;
        (void)par;
        NTT_OMP("omp parallel for schedule(static) if(par)")
        for (long long k = 0; k < nchunks; k++) {
            size_t j0 = (size_t)k * NTT_CHUNK, j1 = j0 + NTT_CHUNK < half ? j0 + NTT_CHUNK : half;
            cuzk_fr p;
            pow_times(&p, &one, &w, j0);
            for (size_t j = j0; j < j1; j++) {
                tw[j] = p;
                cuzk_fr_mul(&p, &p, &w);
            }
        }
        /* T_h[j] = omega_2h^j = omega_4h^2j = T_2h[2j]: copies, no products */
        for (size_t h = half / 2; h >= 1; h /= 2) {
            const cuzk_fr *src = tw_level(tw, d->n, 2 * h);
            cuzk_fr *dst = tw + (d->n - 2 * h);
            long long hh = (long long)h;
            int par2 = h >= 2 * NTT_CHUNK;
            (void)par2;
            NTT_OMP("omp parallel for schedule(static) if(par2)")
            for (long long j = 0; j < hh; j++) dst[j] = src[2 * j];
        }
    }
    d->tw = tw;
    return CUZK_OK;
}

void cuzk_ntt_domain_free(cuzk_ntt_domain *d) {
    if (!d) return;
    free(d->tw);
    memset(d, 0, sizeof(*d));
}

/* ---- public transforms --------------------------------------------------- */

static cuzk_status check_args(const cuzk_ntt_domain *d, const cuzk_fr *a, size_t n,
                              cuzk_ntt_order order) {
    if (!d || !a || n != d->n || (d->n > 1 && !d->tw)) return CUZK_ERR_INVALID_ARG;
    if ((unsigned)order > (unsigned)CUZK_NTT_RR) return CUZK_ERR_INVALID_ARG;
    return CUZK_OK;
}

/* The transform proper, without 1/n: the input is bit-reversed first for RR,
 * the output after DIF for NN. */
static void transform(const cuzk_ntt_domain *d, cuzk_fr *a, cuzk_ntt_order order, int inv) {
    switch (order) {
    case CUZK_NTT_NR:
        cuzk__ntt_dif(d, a, inv);
        break;
    case CUZK_NTT_RN:
        cuzk__ntt_dit(d, a, inv);
        break;
    case CUZK_NTT_NN:
        cuzk__ntt_dif(d, a, inv);
        cuzk_ntt_bitrev_permute(a, d->log_n);
        break;
    case CUZK_NTT_RR:
        cuzk_ntt_bitrev_permute(a, d->log_n);
        cuzk__ntt_dif(d, a, inv);
        break;
    }
}

/* Whether the coefficient side (input of forward, output of inverse) is
 * bit-reversed. */
static int coeffs_bitrev(cuzk_ntt_order order, int inv) {
    if (inv) return order == CUZK_NTT_NR || order == CUZK_NTT_RR;
    return order == CUZK_NTT_RN || order == CUZK_NTT_RR;
}

cuzk_status cuzk_ntt_forward(const cuzk_ntt_domain *d, cuzk_fr *a, size_t n,
                             cuzk_ntt_order order) {
    cuzk_status st = check_args(d, a, n, order);
    if (st != CUZK_OK) return st;
    transform(d, a, order, 0);
    return CUZK_OK;
}

cuzk_status cuzk_ntt_inverse(const cuzk_ntt_domain *d, cuzk_fr *a, size_t n,
                             cuzk_ntt_order order) {
    cuzk_status st = check_args(d, a, n, order);
    if (st != CUZK_OK) return st;
    transform(d, a, order, 1);
    if (n > 1) scale_const(a, n, &d->n_inv);
    return CUZK_OK;
}

/* p(g x) has coefficients p_j g^j: scale, then the plain forward transform. */
cuzk_status cuzk_ntt_coset_forward(const cuzk_ntt_domain *d, cuzk_fr *a, size_t n,
                                   cuzk_ntt_order order, const cuzk_fr *g) {
    cuzk_status st = check_args(d, a, n, order);
    if (st != CUZK_OK) return st;
    if (!g || cuzk_fr_is_zero(g)) return CUZK_ERR_INVALID_ARG;
    cuzk_fr one;
    cuzk_fr_set_one(&one);
    if (coeffs_bitrev(order, 0))
        cuzk__ntt_scale_bitrev(a, d->log_n, &one, g);
    else
        cuzk__ntt_scale_natural(a, n, &one, g);
    transform(d, a, order, 0);
    return CUZK_OK;
}

/* The plain inverse gives p_j g^j; multiply by g^-j / n in one pass. */
cuzk_status cuzk_ntt_coset_inverse(const cuzk_ntt_domain *d, cuzk_fr *a, size_t n,
                                   cuzk_ntt_order order, const cuzk_fr *g) {
    cuzk_status st = check_args(d, a, n, order);
    if (st != CUZK_OK) return st;
    if (!g || cuzk_fr_is_zero(g)) return CUZK_ERR_INVALID_ARG;
    cuzk_fr ginv;
    cuzk_fr_inv_var(&ginv, g); /* g is public */
    transform(d, a, order, 1);
    if (coeffs_bitrev(order, 1))
        cuzk__ntt_scale_bitrev(a, d->log_n, &d->n_inv, &ginv);
    else
        cuzk__ntt_scale_natural(a, n, &d->n_inv, &ginv);
    return CUZK_OK;
}
