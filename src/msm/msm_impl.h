/*
 * msm_impl.h — Pippenger MSM and bitmap batch-add (msm.h), written once over
 * the group and stamped by msm_g1.c (Fp) and msm_g2.c (Fp2), as ec_impl.h is.
 * The including file includes its group header and msm.h and defines
 *   CUZK__EC(name)     the group's prefix (cuzk_g1_##name)
 *   CUZK__FE           the coordinate field type
 *   CUZK__FE_OP(name)  the field's prefix (cuzk_fp_##name)
 *
 * VARIABLE TIME throughout (public or accepted-to-leak data, msm.h).
 * Operation counts: M, S = multiplication, squaring in the coordinate field.
 */
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

typedef CUZK__FE msm_fe;
typedef CUZK__EC(aff) msm_aff;
typedef CUZK__EC(jac) msm_jac;
typedef CUZK__EC(xyzz) msm_xyzz;

#define MSM_ALIGN 64

static inline void *msm_align(void *p) {
    uintptr_t u = (uintptr_t)p;
    return (void *)((u + MSM_ALIGN - 1) & ~(uintptr_t)(MSM_ALIGN - 1));
}

static inline int msm_bit(const uint64_t *bitmap, size_t i) {
    return (int)((bitmap[i / 64] >> (i % 64)) & 1);
}

/* ---- Pippenger ---------------------------------------------------------------- */

/* ---- batch-affine bucket accumulation: per-thread layout ---------------------- */

/* Pairs (bucket, point) added per shared inversion, and the deferral queue for
 * points whose bucket already has a pending pair in the batch. */
#define MSM_BATCH_MAX 512
static size_t msm_aff_batch(size_t nbuckets) {
    size_t b = nbuckets / 4;
    return b < 32 ? 32 : b > MSM_BATCH_MAX ? MSM_BATCH_MAX : b;
}

#if defined(CUZK__MSM_AFF_BATCH_IFMA)
/* Fewer pairs than this go through the scalar code (the lanes would idle). */
#define MSM_IFMA_MIN 16
#endif

typedef struct {
    msm_aff *bk;      /* nbuckets affine bucket values */
    uint8_t *state;   /* 0 empty, 1 holds a value, 2 has a pending pair */
    msm_aff *pts;     /* batch: the point added to bucket bidx[k] */
    uint32_t *bidx;
    msm_fe *den, *pref; /* denominators / inverses and prefix products */
    msm_aff *qpts;    /* deferred points and their buckets */
    uint32_t *qidx;
    msm_aff *tmp;     /* reduction: the column sums' tree (nbuckets/2, at least 1) */
    uint8_t *tstate;  /* and its states (0 empty, 1 holds a value) */
#if defined(CUZK__MSM_AFF_BATCH_IFMA)
    msm_aff **vout;   /* the IFMA batches: 3 x batch pair pointers */
    const msm_aff **va, **vb;
    void *vscratch;   /* and the kernel's scratch */
#endif
    size_t batch, m, qn;
} msm_aff_ws;

static size_t msm_aff_tmp_len(size_t nb) { return nb / 2 ? nb / 2 : 1; }

static size_t msm_aff_ws_bytes(size_t nb) {
    size_t b = msm_aff_batch(nb), t = msm_aff_tmp_len(nb);
    size_t v = 0;
#if defined(CUZK__MSM_AFF_BATCH_IFMA)
    v = 3 * b * sizeof(void *) + cuzk__g1_add_batch_ifma_scratch() + MSM_ALIGN;
#endif
    return (nb + t) * sizeof(msm_aff) + b * (2 * sizeof(msm_aff) + 2 * sizeof(msm_fe)) +
           nb + t + 2 * b * sizeof(uint32_t) + 4 * MSM_ALIGN + v;
}

static void msm_aff_ws_init(msm_aff_ws *w, void *mem, size_t nb) {
    size_t b = msm_aff_batch(nb), t = msm_aff_tmp_len(nb);
    uint8_t *q = msm_align(mem);
    w->bk = (msm_aff *)q, q += nb * sizeof(msm_aff);
    w->tmp = (msm_aff *)q, q += t * sizeof(msm_aff);
    w->pts = (msm_aff *)q, q += b * sizeof(msm_aff);
    w->qpts = (msm_aff *)q, q += b * sizeof(msm_aff);
    w->den = (msm_fe *)q, q += b * sizeof(msm_fe);
    w->pref = (msm_fe *)q, q += b * sizeof(msm_fe);
    w->bidx = (uint32_t *)q, q += b * sizeof(uint32_t);
    w->qidx = (uint32_t *)q, q += b * sizeof(uint32_t);
    w->state = q, q += nb;
    w->tstate = q, q += t;
#if defined(CUZK__MSM_AFF_BATCH_IFMA)
    q = msm_align(q);
    w->vout = (msm_aff **)(void *)q, q += b * sizeof(void *);
    w->va = (const msm_aff **)(void *)q, q += b * sizeof(void *);
    w->vb = (const msm_aff **)(void *)q, q += b * sizeof(void *);
    w->vscratch = q;
#else
    (void)q;
#endif
    w->batch = b;
    w->m = w->qn = 0;
}

static size_t msm_thread_bytes(const cuzk__msm_plan *p) {
    size_t x = p->nbuckets * sizeof(msm_xyzz) + MSM_ALIGN;
    return p->affine ? msm_aff_ws_bytes(p->nbuckets) : x;
}

static size_t msm_scratch_bytes(const cuzk__msm_plan *p) {
    return (size_t)p->threads * msm_thread_bytes(p) + MSM_ALIGN;
}

/* Bucket memory enough for any plan over at most n points (scalars below
 * 2^bits) on `threads` threads: the window grows with the number of points
 * (msm.c), so the plan for all n points bounds the plan for any masked subset;
 * every thread counted, and either accumulation path, whichever needs more. */
static size_t msm_scratch_bound(size_t n, unsigned threads, unsigned bits,
                                const cuzk_msm_opts *opts) {
    cuzk__msm_plan p;
    cuzk__msm_plan_make_bits(&p, n, threads, bits, opts);
    p.threads = threads;
    p.affine = 0;
    size_t x = msm_scratch_bytes(&p);
    p.affine = 1;
    size_t a = msm_scratch_bytes(&p);
    return x > a ? x : a;
}

/* The GLV items of one call (msm_var_glv): item t is base idx[t] (t when idx
 * is NULL) with k1 = k[t][0..1], and Q_t = (x[t], -y) = -phi(base) with
 * k2 = k[t][2..3] (msm.h: cuzk__msm_glv_split). Infinity bases get
 * k1 = k2 = 0, and x[t] is only written (and read) when k2 != 0. */
typedef struct {
    uint64_t (*k)[4];
    msm_fe *x;
    size_t *idx;
} msm_glv_items;

#if defined(CUZK__MSM_GLV_BETA)
/* Item arrays for np participating bases (the index array only with a mask). */
static size_t msm_glv_bytes(size_t np, int masked) {
    return np * (4 * sizeof(uint64_t) + sizeof(msm_fe) + (masked ? sizeof(size_t) : 0)) +
           3 * MSM_ALIGN;
}
#endif

size_t CUZK__EC(msm_scratch_sizeof_opts)(size_t n, unsigned threads, const cuzk_msm_opts *opts) {
    unsigned t = cuzk_msm_threads(threads);
    size_t bytes = msm_scratch_bound(n, t, 255, opts);
#if defined(CUZK__MSM_GLV_BETA)
    /* the GLV route takes np <= ng participating points (cuzk__msm_glv_on) */
    const cuzk_msm_glv glv = opts != NULL ? opts->glv : CUZK_MSM_GLV_AUTO;
    size_t ng = glv == CUZK_MSM_GLV_OFF  ? 0
                : glv == CUZK_MSM_GLV_ON ? n
                : n < cuzk__msm_glv_max_n() ? n
                                            : cuzk__msm_glv_max_n();
    if (ng) {
        size_t g = msm_glv_bytes(ng, 1) + msm_scratch_bound(2 * ng, t, 128, opts);
        if (g > bytes) bytes = g;
    }
#endif
    return bytes;
}

size_t CUZK__EC(msm_scratch_sizeof)(size_t n, unsigned threads) {
    return CUZK__EC(msm_scratch_sizeof_opts)(n, threads, NULL);
}

/* out = sum (b + 1) B[b] over the nb XYZZ buckets: running = B[top] + ... + B[b];
 * total accumulates running once per b, so B[b] is counted b+1 times. */
static void msm_xyzz_reduce(msm_jac *out, const msm_xyzz *B, size_t nb) {
    msm_xyzz running, total;
    CUZK__EC(xyzz_set_inf)(&running);
    CUZK__EC(xyzz_set_inf)(&total);
    for (size_t b = nb; b-- > 0;) {
        CUZK__EC(xyzz_add_var)(&running, &running, &B[b]);
        CUZK__EC(xyzz_add_var)(&total, &total, &running);
    }
    CUZK__EC(xyzz_to_jac)(out, &total);
}

/*
 * sum over i in [lo, hi) (masked) of d_i(j) bases[i] for window j, through the
 * buckets B[0 .. nbuckets-1] (B[b] collects the bases with digit +-(b+1)),
 * then the running-sum reduction. B is cleared here.
 */
static void msm_window_chunk(msm_jac *out, msm_xyzz *B, const cuzk__msm_plan *p, unsigned j,
                             const msm_aff *bases, const uint64_t (*scalars)[4], size_t lo,
                             size_t hi, const uint64_t *mask) {
    memset(B, 0, p->nbuckets * sizeof(msm_xyzz)); /* zero is infinity in XYZZ */
    unsigned c = p->c;
    int dnext = lo < hi ? cuzk__msm_booth_digit(scalars[lo], j, c) : 0;
    for (size_t i = lo; i < hi; i++) {
        /* the digit of the next point one step ahead, to prefetch its bucket
         * while this addition runs (the buckets outgrow L1/L2 from c ~ 11) */
        int d = dnext;
        if (i + 1 < hi) {
            dnext = cuzk__msm_booth_digit(scalars[i + 1], j, c);
            if (dnext) __builtin_prefetch(&B[(dnext < 0 ? -dnext : dnext) - 1], 1);
        }
        if (mask && !msm_bit(mask, i)) continue;
        if (d > 0) {
            CUZK__EC(xyzz_add_aff_var)(&B[d - 1], &B[d - 1], &bases[i]);
        } else if (d < 0) {
            msm_aff neg;
            CUZK__EC(aff_neg)(&neg, &bases[i]);
            CUZK__EC(xyzz_add_aff_var)(&B[-d - 1], &B[-d - 1], &neg);
        }
    }
    msm_xyzz_reduce(out, B, p->nbuckets);
}

/*
 * One batch of pending pairs: bk[bidx[k]] += pts[k] in affine coordinates with
 * one shared inversion (Montgomery's trick, 3M per element), then
 * l = (y2 - y1)/(x2 - x1) (or 3x^2/2y when the two are equal), x3 = l^2 - x1
 * - x2, y3 = l (x1 - x3) - y1: about 6M + 1S per pair. Opposite points empty
 * the bucket.
 */
static void msm_aff_flush(msm_aff_ws *w) {
    size_t m = w->m;
    if (m == 0) return;
#if defined(CUZK__MSM_AFF_BATCH_IFMA)
    /* eight additions at a time (g1_ifma.h) when every pair is a plain
     * addition; a doubling or an opposite pair leaves the batch to the code
     * below */
    if (cuzk__cpu_ifma && m >= MSM_IFMA_MIN) {
        size_t k = 0;
        for (; k < m && !CUZK__FE_OP(eq)(&w->bk[w->bidx[k]].x, &w->pts[k].x); k++) {
            w->vout[k] = &w->bk[w->bidx[k]];
            w->vb[k] = &w->pts[k];
        }
        if (k == m) { /* each bucket is updated in place: outputs are the a inputs */
            CUZK__MSM_AFF_BATCH_IFMA(w->vout, (const msm_aff *const *)w->vout, w->vb, m,
                                     w->vscratch);
            for (k = 0; k < m; k++) w->state[w->bidx[k]] = 1;
            w->m = 0;
            return;
        }
    }
#endif
    msm_fe acc;
    CUZK__FE_OP(set_one)(&acc);
    for (size_t k = 0; k < m; k++) {
        const msm_aff *a = &w->bk[w->bidx[k]], *b = &w->pts[k];
        msm_fe *d = &w->den[k];
        if (!CUZK__FE_OP(eq)(&a->x, &b->x))
            CUZK__FE_OP(sub)(d, &b->x, &a->x);
        else if (CUZK__FE_OP(eq)(&a->y, &b->y) && !CUZK__FE_OP(is_zero)(&a->y))
            CUZK__FE_OP(dbl)(d, &a->y);
        else
            CUZK__FE_OP(set_zero)(d);
        w->pref[k] = acc;
        if (!CUZK__FE_OP(is_zero)(d)) CUZK__FE_OP(mul)(&acc, &acc, d);
    }
    CUZK__FE_OP(inv_var)(&acc, &acc);
    for (size_t k = m; k-- > 0;) {
        msm_fe *d = &w->den[k];
        uint32_t bi = w->bidx[k];
        msm_aff *a = &w->bk[bi];
        const msm_aff *b = &w->pts[k];
        if (CUZK__FE_OP(is_zero)(d)) { /* a = -b */
            w->state[bi] = 0;
            continue;
        }
        msm_fe inv, l, t, x3, y3;
        CUZK__FE_OP(mul)(&inv, &acc, &w->pref[k]);
        CUZK__FE_OP(mul)(&acc, &acc, d);
        if (!CUZK__FE_OP(eq)(&a->x, &b->x)) {
            CUZK__FE_OP(sub)(&t, &b->y, &a->y);
        } else {
            msm_fe t2;
            CUZK__FE_OP(sqr)(&t, &a->x);
            CUZK__FE_OP(dbl)(&t2, &t);
            CUZK__FE_OP(add)(&t, &t2, &t);
        }
        CUZK__FE_OP(mul)(&l, &t, &inv);
        CUZK__FE_OP(sqr)(&x3, &l);
        CUZK__FE_OP(sub)(&x3, &x3, &a->x);
        CUZK__FE_OP(sub)(&x3, &x3, &b->x);
        CUZK__FE_OP(sub)(&t, &a->x, &x3);
        CUZK__FE_OP(mul)(&y3, &l, &t);
        CUZK__FE_OP(sub)(&a->y, &y3, &a->y);
        a->x = x3;
        w->state[bi] = 1;
    }
    w->m = 0;
}

/* bk[b] += P (P finite): fill an empty bucket, pair with a holding one, or
 * defer when the bucket already has a pair pending in this batch. */
static inline void msm_aff_add(msm_aff_ws *w, uint32_t b, const msm_aff *P) {
    uint8_t s = w->state[b];
    if (s == 0) {
        w->bk[b] = *P;
        w->state[b] = 1;
    } else if (s == 1) {
        w->bidx[w->m] = b;
        w->pts[w->m] = *P;
        w->state[b] = 2;
        if (++w->m == w->batch) msm_aff_flush(w);
    } else {
        w->qidx[w->qn] = b;
        w->qpts[w->qn] = *P;
        w->qn++;
    }
}

/* Flush the batch, then re-offer the deferred points (in place: an item is
 * re-queued at an index no larger than its own). */
static void msm_aff_drain(msm_aff_ws *w) {
    msm_aff_flush(w);
    size_t qn = w->qn;
    w->qn = 0;
    for (size_t r = 0; r < qn; r++) {
        msm_aff P = w->qpts[r];
        msm_aff_add(w, w->qidx[r], &P);
    }
}

/* ---- bucket reduction in affine coordinates ------------------------------------- */

/* What phase 1 of a tree level decided for a pair (kept in the output state
 * until phase 2 overwrites it with 0 or 1). */
enum { MSM_T_EMPTY = 0, MSM_T_FIRST, MSM_T_SECOND, MSM_T_ADD, MSM_T_DBL };

/* The inputs i0 < i1 of output o of a tree level over a grid of 2^lc columns:
 * rows 2k and 2k+1 entry by entry (by_rows), else columns 2i and 2i+1. */
static inline void msm_tree_inputs(size_t o, unsigned lc, int by_rows, size_t *i0, size_t *i1) {
    const size_t cols = (size_t)1 << lc;
    *i0 = by_rows ? ((o >> lc) << (lc + 1)) + (o & (cols - 1)) : 2 * o;
    *i1 = by_rows ? *i0 + cols : *i0 + 1;
}

#if defined(CUZK__MSM_AFF_BATCH_IFMA)
/* Outputs [o0, o1) of a tree level (below) with the additions on IFMA: the
 * copies are read first (into w->pts, free during the reduction), the
 * additions then run in increasing output order (g1_ifma.h's aliasing
 * contract holds since an output o only aliases inputs of outputs <= o),
 * and the copies are written last. A doubling leaves the batch to the scalar
 * code: 0 is returned before anything is written. */
static int msm_tree_batch_ifma(msm_aff_ws *w, msm_aff *dst, uint8_t *dst_st, msm_aff *src,
                               uint8_t *src_st, size_t o0, size_t o1, unsigned lc, int by_rows) {
    for (size_t o = o0; o < o1; o++) {
        size_t i0, i1;
        msm_tree_inputs(o, lc, by_rows, &i0, &i1);
        if (src_st[i0] && src_st[i1] && CUZK__FE_OP(eq)(&src[i0].x, &src[i1].x) &&
            CUZK__FE_OP(eq)(&src[i0].y, &src[i1].y) && !CUZK__FE_OP(is_zero)(&src[i0].y))
            return 0;
    }
    msm_aff **out = w->vout;
    const msm_aff **a = w->va, **b = w->vb;
    size_t m = 0, nc = 0;
    for (size_t o = o0; o < o1; o++) {
        size_t i0, i1;
        msm_tree_inputs(o, lc, by_rows, &i0, &i1);
        const int s0 = src_st[i0], s1 = src_st[i1];
        if (s0 && s1 && CUZK__FE_OP(eq)(&src[i0].x, &src[i1].x)) {
            dst_st[o] = 0; /* opposite points */
        } else if (s0 && s1) {
            out[m] = &dst[o], a[m] = &src[i0], b[m] = &src[i1], m++;
            dst_st[o] = 1;
        } else if (s0 || s1) {
            w->pts[nc] = s0 ? src[i0] : src[i1];
            w->bidx[nc++] = (uint32_t)(o - o0);
            dst_st[o] = 1;
        } else {
            dst_st[o] = 0;
        }
    }
    if (m) CUZK__MSM_AFF_BATCH_IFMA(out, a, b, m, w->vscratch);
    for (size_t c = 0; c < nc; c++) dst[o0 + w->bidx[c]] = w->pts[c];
    return 1;
}
#endif

/*
 * One level of a pairwise tree over a rows x cols grid (row-major, cols = 2^lc)
 * of affine points with states (0 empty, 1 holds a point): by_rows adds rows 2k
 * and 2k+1 entry by entry (the result is (rows/2) x cols), otherwise columns 2i
 * and 2i+1 (rows x cols/2). dst may be src: output o reads inputs i0 >= o and
 * i1 > i0 only, and the outputs are written in increasing order, so nothing is
 * overwritten before it is read. Pairs go in batches of w->batch with one shared
 * inversion (Montgomery's trick: 3M each), then l = (y1 - y0)/(x1 - x0) or
 * 3x0^2/2y0, x3 = l^2 - x0 - x1, y3 = l (x0 - x3) - y0: 5M + 1S per addition
 * plus 1/batch of an inversion. An empty input passes the other one through;
 * opposite points give an empty output.
 */
static void msm_tree_level(msm_aff_ws *w, msm_aff *dst, uint8_t *dst_st, msm_aff *src,
                           uint8_t *src_st, size_t rows, unsigned lc, int by_rows) {
    size_t cols = (size_t)1 << lc, npairs = rows * cols / 2;
    for (size_t o0 = 0; o0 < npairs; o0 += w->batch) {
        size_t o1 = npairs - o0 > w->batch ? o0 + w->batch : npairs, m = 0;
#if defined(CUZK__MSM_AFF_BATCH_IFMA)
        if (cuzk__cpu_ifma && o1 - o0 >= MSM_IFMA_MIN &&
            msm_tree_batch_ifma(w, dst, dst_st, src, src_st, o0, o1, lc, by_rows))
            continue;
#endif
        msm_fe acc;
        CUZK__FE_OP(set_one)(&acc);
        for (size_t o = o0; o < o1; o++) {
            size_t i0, i1;
            msm_tree_inputs(o, lc, by_rows, &i0, &i1);
            uint8_t kind;
            if (!src_st[i1]) {
                kind = src_st[i0] ? MSM_T_FIRST : MSM_T_EMPTY;
            } else if (!src_st[i0]) {
                kind = MSM_T_SECOND;
            } else {
                const msm_aff *a = &src[i0], *b = &src[i1];
                msm_fe *d = &w->den[m];
                kind = MSM_T_EMPTY; /* a = -b */
                if (!CUZK__FE_OP(eq)(&a->x, &b->x)) {
                    CUZK__FE_OP(sub)(d, &b->x, &a->x);
                    kind = MSM_T_ADD;
                } else if (CUZK__FE_OP(eq)(&a->y, &b->y) && !CUZK__FE_OP(is_zero)(&a->y)) {
                    CUZK__FE_OP(dbl)(d, &a->y);
                    kind = MSM_T_DBL;
                }
                if (kind != MSM_T_EMPTY) {
                    w->pref[m] = acc;
                    CUZK__FE_OP(mul)(&acc, &acc, d);
                    m++;
                }
            }
            dst_st[o] = kind;
        }
        if (m) {
            /* backwards: acc = (den[0] ... den[k])^-1 before step k; den[k] <- its inverse */
            CUZK__FE_OP(inv_var)(&acc, &acc);
            for (size_t k = m; k-- > 0;) {
                msm_fe inv;
                CUZK__FE_OP(mul)(&inv, &acc, &w->pref[k]);
                CUZK__FE_OP(mul)(&acc, &acc, &w->den[k]);
                w->den[k] = inv;
            }
        }
        m = 0;
        for (size_t o = o0; o < o1; o++) {
            size_t i0, i1;
            msm_tree_inputs(o, lc, by_rows, &i0, &i1);
            uint8_t kind = dst_st[o];
            if (kind == MSM_T_EMPTY) {
                dst_st[o] = 0;
                continue;
            }
            dst_st[o] = 1;
            if (kind == MSM_T_FIRST) {
                if (dst + o != src + i0) dst[o] = src[i0];
                continue;
            }
            if (kind == MSM_T_SECOND) {
                dst[o] = src[i1];
                continue;
            }
            const msm_aff *a = &src[i0], *b = &src[i1];
            msm_fe l, t, x3, y3;
            if (kind == MSM_T_ADD) {
                CUZK__FE_OP(sub)(&t, &b->y, &a->y);
            } else {
                msm_fe t2;
                CUZK__FE_OP(sqr)(&t, &a->x);
                CUZK__FE_OP(dbl)(&t2, &t);
                CUZK__FE_OP(add)(&t, &t2, &t);
            }
            CUZK__FE_OP(mul)(&l, &t, &w->den[m++]);
            CUZK__FE_OP(sqr)(&x3, &l);
            CUZK__FE_OP(sub)(&x3, &x3, &a->x);
            CUZK__FE_OP(sub)(&x3, &x3, &b->x);
            CUZK__FE_OP(sub)(&t, &a->x, &x3);
            CUZK__FE_OP(mul)(&y3, &l, &t);
            CUZK__FE_OP(sub)(&dst[o].y, &y3, &a->y);
            dst[o].x = x3;
        }
    }
}

/* sum over S[i] (state st[i] set) of (i + w0) S[i] for i in [0, len), by the running
 * sum from the top: 2 XYZZ additions per term (8M + 2S mixed, 12M + 2S). */
static void msm_running_sum(msm_xyzz *total, const msm_aff *S, const uint8_t *st, size_t len,
                            unsigned w0) {
    msm_xyzz running;
    CUZK__EC(xyzz_set_inf)(&running);
    CUZK__EC(xyzz_set_inf)(total);
    for (size_t i = len; i-- > (w0 ? 0 : 1);) {
        if (st[i]) CUZK__EC(xyzz_add_aff_var)(&running, &running, &S[i]);
        CUZK__EC(xyzz_add_var)(total, total, &running);
    }
}

/* The same sum by the plain running sum over all nb buckets (2 XYZZ additions
 * per bucket); kept for A/B measurements and tests (CUZK_MSM_REDUCE_RUNNING). */
static void msm_running_sum_all(msm_jac *out, const msm_aff_ws *w, size_t nb) {
    msm_xyzz total;
    msm_running_sum(&total, w->bk, w->state, nb, 1);
    CUZK__EC(xyzz_to_jac)(out, &total);
}

/*
 * out = sum over b < nb = 2^(c-1) of (b + 1) B[b] for the affine buckets of w
 * (states 0 or 1; bk, state and tmp are consumed). With b = b1 2^h + b0
 * (h = floor((c-1)/2), R = 2^(c-1-h) rows b1, C = 2^h columns b0):
 *   sum (b+1) B[b] = 2^h sum_b1 b1 S1[b1] + sum_b0 (b0+1) S0[b0],
 *   S1[b1] = sum_b0 B[b1 C + b0] (row sums), S0[b0] = sum_b1 B[b1 C + b0]
 * (column sums; sum_b B[b] = sum S0 gives the +1). The row and column sums are
 * pairwise trees in affine coordinates (msm_tree_level): nb - R + nb - C
 * additions of 5M + 1S, against 2 nb XYZZ additions (20M + 4S) for the plain
 * running sum; then two running sums of R and C terms and h doublings.
 */
static void msm_aff_reduce(msm_jac *out, msm_aff_ws *w, unsigned c) {
    unsigned h = (c - 1) / 2;
    size_t C = (size_t)1 << h, R = (size_t)1 << (c - 1 - h); /* C <= R */
    /* column sums into tmp: rows halve, the first level reads the buckets */
    if (R == 1) { /* then C = 1 too */
        w->tmp[0] = w->bk[0];
        w->tstate[0] = w->state[0];
    } else {
        msm_tree_level(w, w->tmp, w->tstate, w->bk, w->state, R, h, 1);
        for (size_t r = R / 2; r > 1; r /= 2)
            msm_tree_level(w, w->tmp, w->tstate, w->tmp, w->tstate, r, h, 1);
    }
    /* row sums in place in the buckets: columns halve */
    for (unsigned lc = h; lc > 0; lc--) msm_tree_level(w, w->bk, w->state, w->bk, w->state, R, lc, 0);
    msm_xyzz t1, t0;
    msm_running_sum(&t1, w->bk, w->state, R, 0);
    msm_running_sum(&t0, w->tmp, w->tstate, C, 1);
    for (unsigned k = 0; k < h; k++) CUZK__EC(xyzz_dbl)(&t1, &t1);
    CUZK__EC(xyzz_add_var)(&t1, &t1, &t0);
    CUZK__EC(xyzz_to_jac)(out, &t1);
}

/* Empty the batch and the queue, then reduce the buckets into out. */
static void msm_aff_finish(msm_jac *out, msm_aff_ws *w, const cuzk__msm_plan *p) {
    while (w->m || w->qn) msm_aff_drain(w);
    if (p->running_sum) { /* the plain running sum, for A/B measurements */
        msm_running_sum_all(out, w, p->nbuckets);
        return;
    }
    msm_aff_reduce(out, w, p->c);
}

/* msm_window_chunk with affine buckets filled in batches (msm.h). */
static void msm_window_chunk_aff(msm_jac *out, void *mem, const cuzk__msm_plan *p, unsigned j,
                                 const msm_aff *bases, const uint64_t (*scalars)[4], size_t lo,
                                 size_t hi, const uint64_t *mask) {
    msm_aff_ws w;
    msm_aff_ws_init(&w, mem, p->nbuckets);
    memset(w.state, 0, p->nbuckets);
    unsigned c = p->c;
    int dnext = lo < hi ? cuzk__msm_booth_digit(scalars[lo], j, c) : 0;
    for (size_t i = lo; i < hi; i++) {
        int d = dnext;
        if (i + 1 < hi) { /* prefetch the next point's bucket, as in msm_window_chunk */
            dnext = cuzk__msm_booth_digit(scalars[i + 1], j, c);
            if (dnext) {
                size_t b = (size_t)(dnext < 0 ? -dnext : dnext) - 1;
                __builtin_prefetch(&w.bk[b], 1);
                __builtin_prefetch(&w.state[b], 1);
            }
        }
        if (mask && !msm_bit(mask, i)) continue;
        if (d == 0 || CUZK__EC(aff_is_inf)(&bases[i])) continue;
        if (d > 0) {
            msm_aff_add(&w, (uint32_t)(d - 1), &bases[i]);
        } else {
            msm_aff neg;
            CUZK__EC(aff_neg)(&neg, &bases[i]);
            msm_aff_add(&w, (uint32_t)(-d - 1), &neg);
        }
        if (w.qn == w.batch) msm_aff_drain(&w);
    }
    msm_aff_finish(out, &w, p);
}

/* ---- GLV (G1 only: the including file defines CUZK__MSM_GLV_BETA) ------------- */

#if defined(CUZK__MSM_GLV_BETA)
static const msm_fe msm_glv_beta = {CUZK__MSM_GLV_BETA};

static void msm_glv_layout(msm_glv_items *g, void *mem, size_t np, int masked) {
    uint8_t *q = msm_align(mem);
    g->k = (uint64_t(*)[4])(void *)q;
    q = msm_align(q + np * 4 * sizeof(uint64_t));
    g->x = (msm_fe *)(void *)q;
    q = msm_align(q + np * sizeof(msm_fe));
    g->idx = masked ? (size_t *)(void *)q : NULL;
}

/* Items for the (masked) bases of indices [i0, i1), written from item t on:
 * per base one split (8 word multiplications, msm.c) and beta x (1M). */
static void msm_glv_fill(msm_glv_items *g, const msm_aff *bases, const uint64_t (*scalars)[4],
                         const uint64_t *mask, size_t i0, size_t i1, size_t t) {
    for (size_t i = i0; i < i1; i++) {
        if (mask && !msm_bit(mask, i)) continue;
        uint64_t *k = g->k[t];
        if (CUZK__EC(aff_is_inf)(&bases[i])) {
            k[0] = k[1] = k[2] = k[3] = 0;
        } else {
            cuzk__msm_glv_split(k, k + 2, scalars[i]);
            if (k[2] | k[3]) CUZK__FE_OP(mul)(&g->x[t], &bases[i].x, &msm_glv_beta);
        }
        if (g->idx) g->idx[t] = i;
        t++;
    }
}

/* The point of item t for digit d != 0 of its half h (0: k1, the base; 1: k2,
 * Q = (beta x, -y)), negated for d < 0. */
static inline void msm_glv_point(msm_aff *out, const msm_glv_items *g, const msm_aff *P, size_t t,
                                 int h, int d) {
    if (h == 0) {
        out->x = P->x;
        if (d > 0)
            out->y = P->y;
        else
            CUZK__FE_OP(neg)(&out->y, &P->y);
    } else {
        out->x = g->x[t];
        if (d > 0)
            CUZK__FE_OP(neg)(&out->y, &P->y);
        else
            out->y = P->y;
    }
}

/* msm_window_chunk over GLV items [lo, hi): two points per item, 128-bit digits. */
static void msm_glv_chunk(msm_jac *out, msm_xyzz *B, const cuzk__msm_plan *p, unsigned j,
                          const msm_glv_items *g, const msm_aff *bases, size_t lo, size_t hi) {
    memset(B, 0, p->nbuckets * sizeof(msm_xyzz));
    unsigned c = p->c;
    int n1 = 0, n2 = 0;
    if (lo < hi) {
        n1 = cuzk__msm_booth_digit_n(g->k[lo], 2, j, c);
        n2 = cuzk__msm_booth_digit_n(g->k[lo] + 2, 2, j, c);
    }
    for (size_t t = lo; t < hi; t++) {
        int d[2] = {n1, n2};
        if (t + 1 < hi) { /* the next item's buckets, as in msm_window_chunk */
            n1 = cuzk__msm_booth_digit_n(g->k[t + 1], 2, j, c);
            n2 = cuzk__msm_booth_digit_n(g->k[t + 1] + 2, 2, j, c);
            if (n1) __builtin_prefetch(&B[(n1 < 0 ? -n1 : n1) - 1], 1);
            if (n2) __builtin_prefetch(&B[(n2 < 0 ? -n2 : n2) - 1], 1);
        }
        if (!(d[0] | d[1])) continue;
        const msm_aff *P = &bases[g->idx ? g->idx[t] : t];
        for (int h = 0; h < 2; h++) {
            if (!d[h]) continue;
            msm_aff T;
            const msm_aff *A = P;
            if (h || d[h] < 0) msm_glv_point(&T, g, P, t, h, d[h]), A = &T;
            size_t b = (size_t)(d[h] < 0 ? -d[h] : d[h]) - 1;
            CUZK__EC(xyzz_add_aff_var)(&B[b], &B[b], A);
        }
    }
    msm_xyzz_reduce(out, B, p->nbuckets);
}

/* msm_window_chunk_aff over GLV items [lo, hi). */
static void msm_glv_chunk_aff(msm_jac *out, void *mem, const cuzk__msm_plan *p, unsigned j,
                              const msm_glv_items *g, const msm_aff *bases, size_t lo,
                              size_t hi) {
    msm_aff_ws w;
    msm_aff_ws_init(&w, mem, p->nbuckets);
    memset(w.state, 0, p->nbuckets);
    unsigned c = p->c;
    int n1 = 0, n2 = 0;
    if (lo < hi) {
        n1 = cuzk__msm_booth_digit_n(g->k[lo], 2, j, c);
        n2 = cuzk__msm_booth_digit_n(g->k[lo] + 2, 2, j, c);
    }
    for (size_t t = lo; t < hi; t++) {
        int d[2] = {n1, n2};
        if (t + 1 < hi) {
            n1 = cuzk__msm_booth_digit_n(g->k[t + 1], 2, j, c);
            n2 = cuzk__msm_booth_digit_n(g->k[t + 1] + 2, 2, j, c);
            if (n1) {
                size_t b = (size_t)(n1 < 0 ? -n1 : n1) - 1;
                __builtin_prefetch(&w.bk[b], 1);
                __builtin_prefetch(&w.state[b], 1);
            }
            if (n2) {
                size_t b = (size_t)(n2 < 0 ? -n2 : n2) - 1;
                __builtin_prefetch(&w.bk[b], 1);
                __builtin_prefetch(&w.state[b], 1);
            }
        }
        if (!(d[0] | d[1])) continue;
        const msm_aff *P = &bases[g->idx ? g->idx[t] : t];
        for (int h = 0; h < 2; h++) {
            if (!d[h]) continue;
            msm_aff T;
            const msm_aff *A = P;
            if (h || d[h] < 0) msm_glv_point(&T, g, P, t, h, d[h]), A = &T;
            msm_aff_add(&w, (uint32_t)(d[h] < 0 ? -d[h] : d[h]) - 1, A);
            /* the queue holds w.batch points: drain before it can overflow */
            if (w.qn == w.batch) msm_aff_drain(&w);
        }
    }
    msm_aff_finish(out, &w, p);
}
#endif /* CUZK__MSM_GLV_BETA */

/*
 * The (window, chunk) tasks and Horner's rule over the windows. Items [0, n):
 * the bases (with mask and scalars) when g is NULL, else the GLV items (no mask:
 * the items are the participating bases). mem: p->threads bucket workspaces.
 */
static void msm_run(msm_jac *r, const cuzk__msm_plan *pp, uint8_t *mem, const msm_aff *bases,
                    const uint64_t (*scalars)[4], size_t n, const uint64_t *mask,
                    const msm_glv_items *g) {
    const cuzk__msm_plan p = *pp;
    size_t per_thread = msm_thread_bytes(&p);
    /* Chunks split the item range [0, n) evenly, which splits the
     * participating points evenly when the mask is spread out. */
    msm_jac wsum[256];
    for (unsigned j = 0; j < p.nwin; j++) CUZK__EC(jac_set_inf)(&wsum[j]);
    long tasks = (long)p.nwin * p.nchunks;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(p.threads) schedule(dynamic, 1) if (p.threads > 1)
#endif
    for (long t = 0; t < tasks; t++) {
        unsigned tid = 0;
#if defined(CUZK_HAVE_OPENMP)
        tid = (unsigned)omp_get_thread_num();
#endif
        unsigned j = (unsigned)(t / p.nchunks), ch = (unsigned)(t % p.nchunks);
        size_t lo = n * ch / p.nchunks, hi = n * (ch + 1) / p.nchunks;
        msm_jac part;
        void *tmem = mem + (size_t)tid * per_thread;
#if defined(CUZK__MSM_GLV_BETA)
        if (g && p.affine)
            msm_glv_chunk_aff(&part, tmem, &p, j, g, bases, lo, hi);
        else if (g)
            msm_glv_chunk(&part, msm_align(tmem), &p, j, g, bases, lo, hi);
        else
#else
        (void)g;
#endif
        if (p.affine)
            msm_window_chunk_aff(&part, tmem, &p, j, bases, scalars, lo, hi, mask);
        else
            msm_window_chunk(&part, msm_align(tmem), &p, j, bases, scalars, lo, hi, mask);
        if (p.nchunks == 1) {
            wsum[j] = part;
        } else {
#if defined(CUZK_HAVE_OPENMP)
#pragma omp critical(cuzk_msm_wsum)
#endif
            CUZK__EC(jac_add_var)(&wsum[j], &wsum[j], &part);
        }
    }

    /* Horner: r = (...(W_top 2^c + W_top-1) 2^c + ...) + W_0 */
    msm_jac acc = wsum[p.nwin - 1];
    for (unsigned j = p.nwin - 1; j-- > 0;) {
        for (unsigned k = 0; k < p.c; k++) CUZK__EC(jac_dbl)(&acc, &acc);
        CUZK__EC(jac_add_var)(&acc, &acc, &wsum[j]);
    }
    *r = acc;
}

#if defined(CUZK__MSM_GLV_BETA)
/* Below this many participating points the split runs on one thread. */
#define MSM_GLV_FILL_PAR 8192

/*
 * The MSM by GLV (msm.h): the np participating bases become items (split
 * scalar, beta x) in scratch, then Pippenger over 2 np points with 128-bit
 * scalars: ceil(129/c) windows instead of ceil(256/c), the same number of
 * bucket additions, half the bucket reductions.
 */
static cuzk_status msm_var_glv(msm_jac *r, const msm_aff *bases, const uint64_t (*scalars)[4],
                               size_t n, const uint64_t *mask, size_t np, unsigned tmax,
                               void *scratch, const cuzk_msm_opts *opts) {
    cuzk__msm_plan p;
    cuzk__msm_plan_make_bits(&p, 2 * np, tmax, 128, opts);
    size_t gbytes = msm_glv_bytes(np, mask != NULL);
    void *owned = NULL;
    if (!scratch) {
        owned = cuzk__alloc_large(gbytes + msm_scratch_bytes(&p));
        if (!owned) return CUZK_ERR_NOMEM;
        scratch = owned;
    }
    msm_glv_items g;
    msm_glv_layout(&g, scratch, np, mask != NULL);
    /* split over word-aligned index ranges; range k starts at item
     * popcount(mask below its first index) */
    unsigned ft = np >= MSM_GLV_FILL_PAR ? tmax : 1;
    size_t words = cuzk_msm_bitmap_words(n);
    if ((size_t)ft > words) ft = (unsigned)words;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(ft) schedule(static, 1) if (ft > 1)
#endif
    for (long k = 0; k < (long)ft; k++) {
        size_t i0 = 64 * (words * (size_t)k / ft), i1 = 64 * (words * (size_t)(k + 1) / ft);
        if (i1 > n) i1 = n;
        size_t t0 = mask ? cuzk__msm_popcount(mask, i0) : i0;
        msm_glv_fill(&g, bases, scalars, mask, i0, i1, t0);
    }
    msm_run(r, &p, msm_align((uint8_t *)scratch + gbytes), bases, NULL, np, NULL, &g);
    free(owned);
    return CUZK_OK;
}
#endif

cuzk_status CUZK__EC(msm_opts_var)(msm_jac *r, const msm_aff *bases,
                                   const uint64_t (*scalars)[4], size_t n, const uint64_t *mask,
                                   unsigned threads, void *scratch, const cuzk_msm_opts *opts) {
    if (!r || (n > 0 && (!bases || !scalars))) return CUZK_ERR_INVALID_ARG;
    CUZK__EC(jac_set_inf)(r);
    for (size_t i = 0; i < n; i++)
        if ((scalars[i][3] >> 63) && (!mask || msm_bit(mask, i))) return CUZK_ERR_INVALID_ARG;
    size_t np = mask ? cuzk__msm_popcount(mask, n) : n;
    if (np == 0) return CUZK_OK;

    unsigned tmax = cuzk_msm_threads(threads);
#if defined(CUZK__MSM_GLV_BETA)
    if (cuzk__msm_glv_on(np, opts))
        return msm_var_glv(r, bases, scalars, n, mask, np, tmax, scratch, opts);
#endif
    cuzk__msm_plan p;
    cuzk__msm_plan_make(&p, np, tmax, opts);
    void *owned = NULL;
    if (!scratch) {
        owned = cuzk__alloc_large(msm_scratch_bytes(&p));
        if (!owned) return CUZK_ERR_NOMEM;
        scratch = owned;
    }
    msm_run(r, &p, msm_align(scratch), bases, scalars, n, mask, NULL);
    free(owned);
    return CUZK_OK;
}

cuzk_status CUZK__EC(msm_var)(msm_jac *r, const msm_aff *bases, const uint64_t (*scalars)[4],
                              size_t n, const uint64_t *mask, unsigned threads, void *scratch) {
    return CUZK__EC(msm_opts_var)(r, bases, scalars, n, mask, threads, scratch, NULL);
}

/* ---- bitmap batch-add --------------------------------------------------------- */

#define MSM_BA_PAIRS (CUZK_MSM_BATCH_ADD / 2)
/* Below this many buffered points the tail goes through Jacobian additions:
 * an inversion per round no longer pays. */
#define MSM_BA_TAIL 16

typedef struct {
    msm_aff buf[CUZK_MSM_BATCH_ADD];
    msm_fe den[MSM_BA_PAIRS];  /* denominators, then their inverses */
    msm_fe pref[MSM_BA_PAIRS]; /* prefix products for the batch inversion */
} msm_ba_state;

size_t CUZK__EC(batch_add_scratch_sizeof)(unsigned threads) {
    return (size_t)cuzk_msm_threads(threads) * sizeof(msm_ba_state) + MSM_ALIGN;
}

/*
 * One round: the m buffered (finite) points are added in pairs (buf[2i],
 * buf[2i+1]); the sums (finite ones only) and an odd last point are compacted
 * to the front. Returns the new count. Per pair: the Montgomery-trick
 * inversion (3M, plus one shared inversion), l = num/den (1M), x3 = l^2 - x1 -
 * x2 (1S), y3 = l (x1 - x3) - y1 (1M); a doubling's numerator 3x^2 adds 1S.
 */
static size_t msm_ba_round(msm_ba_state *st, size_t m) {
    size_t pairs = m / 2;
    msm_aff *buf = st->buf;
    msm_fe acc;
    CUZK__FE_OP(set_one)(&acc);
    for (size_t i = 0; i < pairs; i++) {
        const msm_aff *a = &buf[2 * i], *b = &buf[2 * i + 1];
        msm_fe *d = &st->den[i];
        if (!CUZK__FE_OP(eq)(&a->x, &b->x)) {
            CUZK__FE_OP(sub)(d, &b->x, &a->x);
        } else if (CUZK__FE_OP(eq)(&a->y, &b->y) && !CUZK__FE_OP(is_zero)(&a->y)) {
            CUZK__FE_OP(dbl)(d, &a->y); /* doubling: l = 3x^2 / 2y */
        } else {
            CUZK__FE_OP(set_zero)(d); /* a = -b: the pair sums to infinity */
        }
        st->pref[i] = acc;
        if (!CUZK__FE_OP(is_zero)(d)) CUZK__FE_OP(mul)(&acc, &acc, d);
    }
    CUZK__FE_OP(inv_var)(&acc, &acc);
    /* Backwards: acc = (prod of den[0..i])^-1 before step i. Inverses land in
     * den[i]; zero denominators are skipped. */
    for (size_t i = pairs; i-- > 0;) {
        msm_fe *d = &st->den[i];
        if (CUZK__FE_OP(is_zero)(d)) continue;
        msm_fe inv;
        CUZK__FE_OP(mul)(&inv, &acc, &st->pref[i]);
        CUZK__FE_OP(mul)(&acc, &acc, d);
        *d = inv;
    }
    size_t out = 0;
    for (size_t i = 0; i < pairs; i++) {
        const msm_fe *inv = &st->den[i];
        if (CUZK__FE_OP(is_zero)(inv)) continue;
        msm_aff a = buf[2 * i], b = buf[2 * i + 1];
        msm_fe l, t, x3, y3;
        if (!CUZK__FE_OP(eq)(&a.x, &b.x)) {
            CUZK__FE_OP(sub)(&t, &b.y, &a.y);
        } else {
            CUZK__FE_OP(sqr)(&t, &a.x);
            msm_fe t2;
            CUZK__FE_OP(dbl)(&t2, &t);
            CUZK__FE_OP(add)(&t, &t2, &t);
        }
        CUZK__FE_OP(mul)(&l, &t, inv);
        CUZK__FE_OP(sqr)(&x3, &l);
        CUZK__FE_OP(sub)(&x3, &x3, &a.x);
        CUZK__FE_OP(sub)(&x3, &x3, &b.x);
        CUZK__FE_OP(sub)(&t, &a.x, &x3);
        CUZK__FE_OP(mul)(&y3, &l, &t);
        CUZK__FE_OP(sub)(&y3, &y3, &a.y);
        /* out <= i < 2i: buf[out] is no longer needed by a later pair */
        buf[out].x = x3;
        buf[out].y = y3;
        out++;
    }
    if (m & 1) buf[out++] = buf[m - 1];
    return out;
}

/* Sum of the (finite) bases with bit set among indices [lo, hi). */
static void msm_ba_range(msm_jac *out, msm_ba_state *st, const msm_aff *bases,
                         const uint64_t *bitmap, size_t lo, size_t hi) {
    size_t m = 0;
    for (size_t i = lo; i < hi; i++) {
        if (bitmap) {
            uint64_t w = bitmap[i / 64] >> (i % 64);
            if (w == 0) { /* skip to the next word */
                i = (i | 63);
                continue;
            }
            if (!(w & 1)) {
                i += (size_t)__builtin_ctzll(w) - 1;
                continue;
            }
        }
        if (CUZK__EC(aff_is_inf)(&bases[i])) continue;
        st->buf[m++] = bases[i];
        if (m == CUZK_MSM_BATCH_ADD) m = msm_ba_round(st, m);
    }
    while (m > MSM_BA_TAIL) m = msm_ba_round(st, m);
    msm_jac acc;
    CUZK__EC(jac_set_inf)(&acc);
    for (size_t i = 0; i < m; i++) CUZK__EC(jac_add_aff_var)(&acc, &acc, &st->buf[i]);
    *out = acc;
}

cuzk_status CUZK__EC(batch_add_var)(msm_jac *r, const msm_aff *bases, size_t n,
                                    const uint64_t *bitmap, unsigned threads, void *scratch) {
    if (!r || (n > 0 && !bases)) return CUZK_ERR_INVALID_ARG;
    CUZK__EC(jac_set_inf)(r);
    if (n == 0) return CUZK_OK;
    unsigned tmax = cuzk_msm_threads(threads);
    void *owned = NULL;
    /* one thread per 4096 indices at least: below that a team costs more */
    size_t words = cuzk_msm_bitmap_words(n);
    unsigned t = tmax;
    if ((size_t)t > words / 64 + 1) t = (unsigned)(words / 64 + 1);
    if (!scratch) {
        owned = cuzk__alloc_large((size_t)t * sizeof(msm_ba_state) + MSM_ALIGN);
        if (!owned) return CUZK_ERR_NOMEM;
        scratch = owned;
    }
    msm_ba_state *st = msm_align(scratch);
    msm_jac acc;
    CUZK__EC(jac_set_inf)(&acc);
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static, 1) if (t > 1)
#endif
    for (long k = 0; k < (long)t; k++) {
        /* split on word boundaries so the threads read disjoint words */
        size_t lo = 64 * (words * (size_t)k / t), hi = 64 * (words * (size_t)(k + 1) / t);
        if (hi > n) hi = n;
        msm_jac part;
        msm_ba_range(&part, &st[k], bases, bitmap, lo, hi);
#if defined(CUZK_HAVE_OPENMP)
#pragma omp critical(cuzk_msm_batch_add)
#endif
        CUZK__EC(jac_add_var)(&acc, &acc, &part);
    }
    *r = acc;
    free(owned);
    return CUZK_OK;
}

/* ---- classification + batch-add + MSM ------------------------------------------ */

cuzk_status CUZK__EC(msm_with_classification_opts_var)(msm_jac *r, cuzk_msm_counts *counts,
                                                       const msm_aff *bases,
                                                       const uint64_t (*scalars)[4], size_t n,
                                                       unsigned threads,
                                                       const cuzk_msm_opts *opts) {
    if (!r || (n > 0 && (!bases || !scalars))) return CUZK_ERR_INVALID_ARG;
    CUZK__EC(jac_set_inf)(r);
    size_t words = cuzk_msm_bitmap_words(n);
    uint64_t *bm = malloc((2 * words + 1) * sizeof(uint64_t));
    if (!bm) return CUZK_ERR_NOMEM;
    uint64_t *one = bm, *other = bm + words;
    cuzk_msm_counts cnt;
    cuzk_msm_classify_var(NULL, one, other, &cnt, scalars, n, threads);
    if (counts) *counts = cnt;
    msm_jac ones, others;
    cuzk_status st = CUZK_OK;
    CUZK__EC(jac_set_inf)(&ones);
    CUZK__EC(jac_set_inf)(&others);
    if (cnt.one) st = CUZK__EC(batch_add_var)(&ones, bases, n, one, threads, NULL);
    if (st == CUZK_OK && cnt.other)
        st = CUZK__EC(msm_opts_var)(&others, bases, scalars, n, other, threads, NULL, opts);
    free(bm);
    if (st != CUZK_OK) return st;
    CUZK__EC(jac_add_var)(r, &ones, &others);
    return CUZK_OK;
}

cuzk_status CUZK__EC(msm_with_classification_var)(msm_jac *r, cuzk_msm_counts *counts,
                                                  const msm_aff *bases,
                                                  const uint64_t (*scalars)[4], size_t n,
                                                  unsigned threads) {
    return CUZK__EC(msm_with_classification_opts_var)(r, counts, bases, scalars, n, threads, NULL);
}
