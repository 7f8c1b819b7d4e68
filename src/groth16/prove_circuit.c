/*
 * prove_circuit.c — the Groth16 prover for bellman / Filecoin parameters
 * (.params) over our CSR circuits: bellperson's prover with the MSMs split as
 * the reference system splits them (a batch-add of the bases whose scalar is
 * 1, Pippenger over the other scalars).
 *
 * Scalars: the witness is plain (witness.h); the SpMV works on a Montgomery
 * copy and leaves a, b, c in Montgomery form; H comes out of cuzk_h_bellman
 * in Montgomery form and is converted to plain in place for its MSM.
 *
 * Why every witness 1 goes to the batch-add on the CPU: Pippenger pays
 * ceil(256/c) bucket additions per point (20 at c = 13) plus its share of
 * the bucket reduction, the batch-add about one affine addition (6M + 1S
 * and 1/512 of an inversion). The reference's "split only when the tail is
 * at most half the points" rule is about GPU transfers, not arithmetic, so
 * the CPU always splits; zeros cost nothing either way.
 */
#include "groth16/groth16.h"
#include "util/clock.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "poly/h.h"
#include "util/mem.h"
#include "msm/msm.h"
#include "poly/ntt.h"

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

typedef unsigned long long ull;

static const char *name_of(const char *path, const char *dflt) { return path ? path : dflt; }

cuzk_status cuzk_groth16_check_params(const cuzk_circuit *c, const cuzk_params *p,
                                      cuzk_error *err) {
    if (c == NULL || p == NULL || c->image == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_groth16_check_params: NULL argument");
    const char *cn = name_of(c->path, "(circuit)"), *pn = name_of(p->path, "(params)");
    if (p->root != CUZK_NTT_ROOT7 || p->h_kind != CUZK_H_MONOMIAL)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: only bellman parameters (root 7^t, monomial H) are proved here",
                          pn);
#define MISMATCH(what, have, want)                                                          \
    cuzk__fail(err, CUZK_ERR_INVALID_ARG,                                                  \
               "%s: %s is %llu, but circuit %s needs %llu: parameters of another circuit?", \
               pn, what, (ull)(have), cn, (ull)(want))
    if (p->n_inputs != c->n_inputs)
        return MISMATCH("the input count (IC points)", p->n_inputs, c->n_inputs);
    if (p->n_aux != c->n_aux) return MISMATCH("the aux count (vector l)", p->n_aux, c->n_aux);
    if (p->domain_size != c->domain_size)
        return MISMATCH("the domain size (vector h + 1)", p->domain_size, c->domain_size);
    if (p->h.n + 1 != c->domain_size)
        return MISMATCH("vector h + 1", p->h.n + 1, c->domain_size);
    if (p->a.n != c->n_inputs + c->a_aux_count)
        return MISMATCH("vector a (inputs + popcount(a_aux))", p->a.n,
                        c->n_inputs + c->a_aux_count);
    if (p->b_g1.n != c->b_inp_count + c->b_aux_count)
        return MISMATCH("vector b_g1 (popcount(b_inp) + popcount(b_aux))", p->b_g1.n,
                        c->b_inp_count + c->b_aux_count);
    if (p->b_g2.n != c->b_inp_count + c->b_aux_count)
        return MISMATCH("vector b_g2 (popcount(b_inp) + popcount(b_aux))", p->b_g2.n,
                        c->b_inp_count + c->b_aux_count);
#undef MISMATCH
    return CUZK_OK;
}

/* ---- gathering scalars by density ------------------------------------------ */

static uint64_t bm_word(const uint64_t *bm, size_t i, uint64_t n) {
    uint64_t w = bm[i];
    if ((uint64_t)(i + 1) * 64 > n && n % 64) w &= ((uint64_t)1 << (n % 64)) - 1;
    return w;
}

#define GATHER_MAX_CHUNKS 256

/*
 * out[k] = v[j] for the k-th set bit j of bm (n bits); returns the number
 * copied. Two passes over the bitmap words split into chunks: popcounts,
 * a prefix sum, then each chunk copies to its own offset (32 bytes per
 * selected value; bound by memory bandwidth).
 */
static uint64_t gather(uint64_t (*out)[4], const uint64_t (*v)[4], const uint64_t *bm, uint64_t n,
                       unsigned threads) {
    size_t words = (size_t)((n + 63) / 64);
    if (words == 0) return 0;
    size_t chunks = (size_t)threads * 4;
    if (chunks > GATHER_MAX_CHUNKS) chunks = GATHER_MAX_CHUNKS;
    if (words < 1024) chunks = 1; /* below 64K values a team costs more than it saves */
    if (chunks > words) chunks = words;
    uint64_t start[GATHER_MAX_CHUNKS + 1];
    int t = (int)threads;
    (void)t;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static) if (chunks > 1)
#endif
    for (long k = 0; k < (long)chunks; k++) {
        size_t w0 = words * (size_t)k / chunks, w1 = words * (size_t)(k + 1) / chunks;
        uint64_t cnt = 0;
        for (size_t i = w0; i < w1; i++) cnt += (uint64_t)__builtin_popcountll(bm_word(bm, i, n));
        start[k + 1] = cnt;
    }
    start[0] = 0;
    for (size_t k = 0; k < chunks; k++) start[k + 1] += start[k];
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static) if (chunks > 1)
#endif
    for (long k = 0; k < (long)chunks; k++) {
        size_t w0 = words * (size_t)k / chunks, w1 = words * (size_t)(k + 1) / chunks;
        uint64_t o = start[k];
        for (size_t i = w0; i < w1; i++) {
            uint64_t w = bm_word(bm, i, n);
            while (w) {
                size_t j = i * 64 + (size_t)__builtin_ctzll(w);
                memcpy(out[o++], v[j], 32);
                w &= w - 1;
            }
        }
    }
    return start[chunks];
}

/* One query's scalars and their classification. */
typedef struct {
    const uint64_t (*sc)[4]; /* n scalars, aligned with the query's bases */
    uint64_t (*owned)[4];    /* gathered copy (NULL when sc points into the witness) */
    uint64_t *one, *other;   /* bitmaps of n bits */
    size_t n;
    cuzk_msm_counts counts;
} query;

static void query_free(query *q) {
    free(q->owned);
    free(q->one);
    free(q->other);
    memset(q, 0, sizeof(*q));
}

static cuzk_status query_classify(query *q, unsigned threads, cuzk_error *err) {
    size_t words = cuzk_msm_bitmap_words(q->n);
    q->one = malloc((words ? words : 1) * sizeof(uint64_t));
    q->other = malloc((words ? words : 1) * sizeof(uint64_t));
    if (q->one == NULL || q->other == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the bitmaps of %zu scalars", q->n);
    cuzk_msm_classify_var(NULL, q->one, q->other, &q->counts, q->sc, q->n, threads);
    return CUZK_OK;
}

/*
 * What the queries need to know of a circuit: its counts and the density
 * bitmaps that line the assignment up with the vectors a, b_g1 and b_g2. A
 * circuit's own (shape_of_circuit), or a caller's (prove_start_abc); the
 * counts are the bitmaps' popcounts (checked by whoever made the shape).
 */
typedef struct {
    uint64_t n_inputs, n_aux;
    cuzk_groth16_density a_aux, b_inp, b_aux;
} shape;

static void shape_of_circuit(shape *s, const cuzk_circuit *c) {
    s->n_inputs = c->n_inputs;
    s->n_aux = c->n_aux;
    s->a_aux = (cuzk_groth16_density){c->a_aux, c->n_aux, c->a_aux_count};
    s->b_inp = (cuzk_groth16_density){c->b_inp, c->n_inputs, c->b_inp_count};
    s->b_aux = (cuzk_groth16_density){c->b_aux, c->n_aux, c->b_aux_count};
}

/* A's scalars: every input, then the aux with a_aux. v: the plain
 * assignment, inputs then aux. */
static cuzk_status query_a(query *q, const shape *s, const uint64_t (*v)[4], unsigned threads,
                           cuzk_error *err) {
    q->n = (size_t)(s->n_inputs + s->a_aux.count);
    if (s->a_aux.count == s->n_aux) {
        q->sc = v; /* dense: the assignment itself */
    } else {
        q->owned = cuzk__alloc_large((q->n ? q->n : 1) * 32);
        if (q->owned == NULL)
            return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu A scalars", q->n);
        memcpy(q->owned, v, (size_t)s->n_inputs * 32);
        gather(q->owned + s->n_inputs, v + s->n_inputs, s->a_aux.words, s->n_aux, threads);
        q->sc = (const uint64_t(*)[4])q->owned;
    }
    return query_classify(q, threads, err);
}

/* B's scalars: the inputs with b_inp, then the aux with b_aux. */
static cuzk_status query_b(query *q, const shape *s, const uint64_t (*v)[4], unsigned threads,
                           cuzk_error *err) {
    q->n = (size_t)(s->b_inp.count + s->b_aux.count);
    if (s->b_inp.count == s->n_inputs && s->b_aux.count == s->n_aux) {
        q->sc = v;
    } else {
        q->owned = cuzk__alloc_large((q->n ? q->n : 1) * 32);
        if (q->owned == NULL)
            return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu B scalars", q->n);
        uint64_t k = gather(q->owned, v, s->b_inp.words, s->n_inputs, threads);
        gather(q->owned + k, v + s->n_inputs, s->b_aux.words, s->n_aux, threads);
        q->sc = (const uint64_t(*)[4])q->owned;
    }
    return query_classify(q, threads, err);
}

/* L's scalars: every aux value, read in place. */
static cuzk_status query_l(query *q, const shape *s, const uint64_t (*v)[4], unsigned threads,
                           cuzk_error *err) {
    q->n = (size_t)s->n_aux;
    q->sc = v + s->n_inputs;
    return query_classify(q, threads, err);
}

/* sum over the query of scalar * base: batch-add of the ones + tail MSM of the
 * others. Adds the two times to *batch_ms and *tail_ms (the stage totals) and
 * sets *total_ms (this query's), failed or not. One text stamped for G1 and
 * G2 (g1_split, g2_split), so the two cannot drift apart. */
#define DEFINE_SPLIT(G)                                                                       \
    static cuzk_status G##_split(cuzk_##G##_jac *r, const cuzk_##G##_aff *bases,              \
                                 const query *q, unsigned threads, double *batch_ms,          \
                                 double *tail_ms, double *total_ms) {                         \
        cuzk_##G##_jac ones, others;                                                          \
        cuzk_##G##_jac_set_inf(&ones);                                                        \
        cuzk_##G##_jac_set_inf(&others);                                                      \
        cuzk_status st = CUZK_OK;                                                             \
        double t0 = cuzk__now_ms();                                                                 \
        if (q->counts.one)                                                                    \
            st = cuzk_##G##_batch_add_var(&ones, bases, q->n, q->one, threads, NULL);         \
        double t1 = cuzk__now_ms();                                                                 \
        if (st == CUZK_OK && q->counts.other)                                                 \
            st = cuzk_##G##_msm_var(&others, bases, q->sc, q->n, q->other, threads, NULL);    \
        double t2 = cuzk__now_ms();                                                                 \
        if (st == CUZK_OK) cuzk_##G##_jac_add_var(r, &ones, &others);                         \
        *batch_ms += t1 - t0;                                                                 \
        *tail_ms += t2 - t1;                                                                  \
        *total_ms = t2 - t0;                                                                  \
        return st;                                                                            \
    }
DEFINE_SPLIT(g1)
DEFINE_SPLIT(g2)
#undef DEFINE_SPLIT

void cuzk__groth16_partial_fill(cuzk_groth16_partial *out, const cuzk_params_vk *vk,
                                const cuzk_g1_jac *msm_l, const cuzk_g1_jac *msm_h) {
    cuzk_g1_jac_add_var(&out->msm_ch, msm_l, msm_h);
    out->alpha1 = vk->alpha1;
    out->beta1 = vk->beta1;
    out->delta1 = vk->delta1;
    out->beta2 = vk->beta2;
    out->delta2 = vk->delta2;
}

/*
 * The part both entries share. In: a, b, c (Montgomery, p->domain_size values
 * each, one buffer of three at *abc, freed here as soon as the H MSM is done
 * with it, *abc then NULL) and the plain assignment v (inputs then aux) with
 * the shape that lines it up with p's vectors. H from a, b, c, its MSM, then
 * the A, B_G1, L and B_G2 queries and their split MSMs. dom: p's domain, or
 * NULL (one is built and freed). Fills out and every field of *tm after
 * check_ms except the totals.
 */
static cuzk_status prove_tail(cuzk_groth16_partial *out, cuzk_groth16_stage_times *tm,
                              const cuzk_params *p, const cuzk_ntt_domain *dom, cuzk_fr **abc,
                              const shape *s, const uint64_t (*v)[4], unsigned threads,
                              cuzk_error *err) {
    const size_t n = (size_t)p->domain_size;
    cuzk_fr *a = *abc, *b = a + n, *cc = a + 2 * n;
    cuzk_status st = CUZK_OK;
    cuzk_ntt_domain own_dom;
    memset(&own_dom, 0, sizeof(own_dom));
    query qa, qb, ql;
    memset(&qa, 0, sizeof(qa));
    memset(&qb, 0, sizeof(qb));
    memset(&ql, 0, sizeof(ql));

    /* H: coefficients of (ab - c)/Z, the first N - 1 of them plain for the MSM */
    double t = cuzk__now_ms();
    if (dom == NULL) {
        if ((st = cuzk_ntt_domain_init(&own_dom, p->log_domain_size, CUZK_NTT_ROOT7)) !=
            CUZK_OK) {
            cuzk__fail(err, st, "cannot set up the 2^%u NTT domain", p->log_domain_size);
            goto done;
        }
        dom = &own_dom;
    }
    if ((st = cuzk_h_bellman(dom, a, b, cc, n)) != CUZK_OK) {
        cuzk__fail(err, st, "H computation failed");
        goto done;
    }
    {
        int nt = (int)threads;
        (void)nt;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) if (n >= 65536)
#endif
        for (long i = 0; i < (long)n - 1; i++) cuzk_fr_to_limbs(a[i].l, &a[i]);
    }
    tm->ntt_ms = cuzk__now_ms() - t;

    cuzk_g1_jac msm_h, msm_l;
    t = cuzk__now_ms();
    st = cuzk_g1_msm_var(&msm_h, p->h.p, (const uint64_t(*)[4])(const void *)a, n - 1, NULL,
                         threads, NULL);
    tm->msm_h_ms = cuzk__now_ms() - t;
    out->t.msm_h_ms = tm->msm_h_ms;
    if (st != CUZK_OK) goto msm_failed;
    free(*abc);
    *abc = NULL;

    /* scalars per query by density, classified 0/1/other */
    t = cuzk__now_ms();
    if ((st = query_a(&qa, s, v, threads, err)) != CUZK_OK) goto done;
    if ((st = query_b(&qb, s, v, threads, err)) != CUZK_OK) goto done;
    if ((st = query_l(&ql, s, v, threads, err)) != CUZK_OK) goto done;
    tm->prep_ms = cuzk__now_ms() - t;

    st = g1_split(&out->msm_a, p->a.p, &qa, threads, &tm->batch_add_ms, &tm->tail_msm_ms,
                  &out->t.msm_a_ms);
    if (st != CUZK_OK) goto msm_failed;
    st = g1_split(&out->msm_b1, p->b_g1.p, &qb, threads, &tm->batch_add_ms, &tm->tail_msm_ms,
                  &out->t.msm_b1_ms);
    if (st != CUZK_OK) goto msm_failed;
    st = g1_split(&msm_l, p->l.p, &ql, threads, &tm->batch_add_ms, &tm->tail_msm_ms,
                  &out->t.msm_c_ms);
    if (st != CUZK_OK) goto msm_failed;
    /* the G2 tail is reported on its own (b_g2_msm_ms, still 0 here) */
    st = g2_split(&out->msm_b2, p->b_g2.p, &qb, threads, &tm->batch_add_ms, &tm->b_g2_msm_ms,
                  &out->t.msm_b2_ms);
    if (st != CUZK_OK) goto msm_failed;
    cuzk__groth16_partial_fill(out, &p->vk, &msm_l, &msm_h);
    goto done;

msm_failed:
    cuzk__fail(err, st, "multi-scalar multiplication failed: %s", cuzk_strerror(st));
done:
    query_free(&qa);
    query_free(&qb);
    query_free(&ql);
    cuzk_ntt_domain_free(&own_dom);
    out->t.ntt_ms = tm->ntt_ms;
    return st;
}

/* The domain a caller passed is p's (root 7, p's size). */
static cuzk_status check_dom(const cuzk_params *p, const cuzk_ntt_domain *dom, cuzk_error *err) {
    if (dom != NULL && (dom->n != p->domain_size || dom->root != CUZK_NTT_ROOT7))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "prove: the NTT domain (2^%u, root %d) is not the parameters' "
                          "(2^%u, root 7)",
                          dom->log_n, (int)dom->root, p->log_domain_size);
    return CUZK_OK;
}

cuzk_status cuzk__groth16_prove_start_circuit_dom(cuzk_groth16_partial *out,
                                                  cuzk_groth16_stage_times *times,
                                                  const cuzk_circuit *c, const cuzk_params *p,
                                                  const cuzk_ntt_domain *dom,
                                                  const cuzk_witness *w, unsigned threads,
                                                  cuzk_error *err) {
    const double t0 = cuzk__now_ms();
    cuzk_groth16_stage_times tm;
    memset(&tm, 0, sizeof(tm));
    memset(out, 0, sizeof(*out));
    cuzk__error_clear(err);
    if (w == NULL || w->values == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_groth16_prove_start_circuit: NULL "
                                                     "witness");
    cuzk_status st = cuzk_groth16_check_params(c, p, err);
    if (st != CUZK_OK) return st;
    if ((st = cuzk_params_require_points(p, "the CPU prover", err)) != CUZK_OK) return st;
    const char *wn = name_of(w->path, "(witness)");
    if (w->n_inputs != c->n_inputs || w->n_aux != c->n_aux)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: witness has %llu inputs + %llu aux, but circuit %s has %llu + "
                          "%llu: witness of another circuit?",
                          wn, (ull)w->n_inputs, (ull)w->n_aux, name_of(c->path, "(circuit)"),
                          (ull)c->n_inputs, (ull)c->n_aux);
    if ((st = check_dom(p, dom, err)) != CUZK_OK) return st;
    threads = cuzk_msm_threads(threads);

    const size_t n = (size_t)p->domain_size;
    cuzk_fr *abc = cuzk__alloc_large(3 * n * sizeof(cuzk_fr));
    if (abc == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a, b, c over the 2^%u domain",
                        p->log_domain_size);
        goto done;
    }
    cuzk_fr *a = abc, *b = abc + n, *cc = abc + 2 * n;

    /* witness -> a, b, c, then the satisfaction check on those same vectors */
    double t = cuzk__now_ms();
    st = cuzk_witness_abc_var(c, w, a, b, cc, CUZK_SPMV_DEFAULT | CUZK_SPMV_NO_CHECK, threads,
                              NULL, err);
    tm.spmv_ms = cuzk__now_ms() - t;
    if (st != CUZK_OK) goto done;
    t = cuzk__now_ms();
    uint64_t bad;
    st = cuzk_circuit_check_abc(c, a, b, cc, wn, threads, &bad, err);
    tm.check_ms = cuzk__now_ms() - t;
    if (st != CUZK_OK) goto done;

    shape s;
    shape_of_circuit(&s, c);
    st = prove_tail(out, &tm, p, dom, &abc, &s, (const uint64_t(*)[4])w->values, threads, err);

done:
    free(abc);
    out->t.abc_ms = tm.spmv_ms + tm.check_ms;
    tm.total_ms = cuzk__now_ms() - t0;
    out->t.total_ms = tm.total_ms;
    if (times != NULL) *times = tm;
    return st;
}

cuzk_status cuzk_groth16_prove_start_circuit(cuzk_groth16_partial *out,
                                             cuzk_groth16_stage_times *times,
                                             const cuzk_circuit *c, const cuzk_params *p,
                                             const cuzk_witness *w, unsigned threads,
                                             cuzk_error *err) {
    return cuzk__groth16_prove_start_circuit_dom(out, times, c, p, NULL, w, threads, err);
}

/* ---- from a, b, c computed elsewhere ----------------------------------------- */

/* Set bits among the first d->n (the bits after them in the last word are
 * not looked at; the words are not read at all when n is 0). */
static uint64_t density_popcount(const cuzk_groth16_density *d) {
    uint64_t cnt = 0;
    for (size_t i = 0; i < (size_t)((d->n + 63) / 64); i++)
        cnt += (uint64_t)__builtin_popcountll(bm_word(d->words, i, d->n));
    return cnt;
}

cuzk_status cuzk_groth16_check_abc_input(const cuzk_groth16_abc_input *in, const cuzk_params *p,
                                         cuzk_error *err) {
    if (in == NULL || p == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_groth16_check_abc_input: NULL "
                                                     "argument");
    const char *nm = name_of(in->name, "(assignment)"), *pn = name_of(p->path, "(params)");
    if (p->root != CUZK_NTT_ROOT7 || p->h_kind != CUZK_H_MONOMIAL)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: only bellman parameters (root 7^t, monomial H) are proved here",
                          pn);
#define BAD(...) cuzk__fail(err, CUZK_ERR_INVALID_ARG, __VA_ARGS__)
    if (in->n_inputs == 0)
        return BAD("%s: no inputs (input 0, the constant one, is always there)", nm);
    if (in->inputs == NULL) return BAD("%s: the input assignment is NULL", nm);
    if (in->n_aux > 0 && in->aux == NULL)
        return BAD("%s: the aux assignment is NULL (%llu values)", nm, (ull)in->n_aux);
    if (in->abc_size > 0 && (in->a == NULL || in->b == NULL || in->c == NULL))
        return BAD("%s: a, b or c is NULL (abc_size %llu)", nm, (ull)in->abc_size);
    const struct {
        const char *what;
        const cuzk_groth16_density *d;
        uint64_t want;
        const char *want_what;
    } dens[3] = {
        {"a_aux", &in->a_aux, in->n_aux, "aux assignment size"},
        {"b_inp", &in->b_inp, in->n_inputs, "input assignment size"},
        {"b_aux", &in->b_aux, in->n_aux, "aux assignment size"},
    };
    for (int k = 0; k < 3; k++) {
        const cuzk_groth16_density *d = dens[k].d;
        if (d->n != dens[k].want)
            return BAD("%s: the %s density has %llu bits, but the %s is %llu", nm,
                       dens[k].what, (ull)d->n, dens[k].want_what, (ull)dens[k].want);
        if (d->n > 0 && d->words == NULL)
            return BAD("%s: the %s density is NULL (%llu bits)", nm, dens[k].what, (ull)d->n);
        uint64_t pc = density_popcount(d);
        if (pc != d->count)
            return BAD("%s: the %s density has %llu bits set, but its popcount says %llu", nm,
                       dens[k].what, (ull)pc, (ull)d->count);
    }
    if (in->n_inputs != p->n_inputs)
        return BAD("%s: %llu inputs, but %s is for %llu (its IC points): parameters of another "
                   "circuit?",
                   nm, (ull)in->n_inputs, pn, (ull)p->n_inputs);
    if (in->n_aux != p->n_aux)
        return BAD("%s: %llu aux variables, but %s is for %llu (its vector l): parameters of "
                   "another circuit?",
                   nm, (ull)in->n_aux, pn, (ull)p->n_aux);
    if (p->a.n != in->n_inputs + in->a_aux.count)
        return BAD("%s: inputs + popcount(a_aux) = %llu, but vector a of %s has %llu points: "
                   "parameters of another circuit?",
                   nm, (ull)(in->n_inputs + in->a_aux.count), pn, (ull)p->a.n);
    if (p->b_g1.n != in->b_inp.count + in->b_aux.count || p->b_g2.n != p->b_g1.n)
        return BAD("%s: popcount(b_inp) + popcount(b_aux) = %llu, but vectors b_g1 and b_g2 of "
                   "%s have %llu and %llu points: parameters of another circuit?",
                   nm, (ull)(in->b_inp.count + in->b_aux.count), pn, (ull)p->b_g1.n,
                   (ull)p->b_g2.n);
    if (in->abc_size > p->domain_size)
        return BAD("%s: abc_size %llu exceeds the domain of %s (2^%u = |h| + 1)", nm,
                   (ull)in->abc_size, pn, p->log_domain_size);
    if (in->abc_size < in->n_inputs)
        return BAD("%s: abc_size %llu is below the %llu inputs (one row input_i * 0 = 0 per "
                   "input ends a, b, c)",
                   nm, (ull)in->abc_size, (ull)in->n_inputs);
#undef BAD
    return CUZK_OK;
}

/* The first index i < n with v[i] >= r (n when none); all cores. */
static uint64_t first_not_canonical(const cuzk_fr *v, uint64_t n, unsigned threads) {
    int64_t best = (int64_t)n;
    int t = (int)threads;
    (void)t;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static) reduction(min : best) if (n >= 65536)
#endif
    for (int64_t i = 0; i < (int64_t)n; i++)
        if (i < best && !cuzk__lt_n(v[i].l, cuzk__fr_r, 4)) best = i;
    return (uint64_t)best;
}

cuzk_status cuzk__groth16_abc_refuse(const cuzk_groth16_abc_input *in,
                                     cuzk__groth16_abc_fault what, uint64_t i,
                                     cuzk_error *err) {
    const char *nm = name_of(in->name, "(assignment)");
    static const char *const vname[3] = {"a", "b", "c"};
    switch (what) {
    case CUZK__ABC_A:
    case CUZK__ABC_B:
    case CUZK__ABC_C:
        return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                          "%s: %s[%llu] is not a Montgomery scalar below r", nm,
                          vname[what - CUZK__ABC_A], (ull)i);
    case CUZK__ABC_INPUT0:
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: input 0 is not one (in Montgomery form: 2^256 mod r)", nm);
    case CUZK__ABC_INPUT:
        return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                          "%s: input %llu is not a Montgomery scalar below r", nm, (ull)i);
    case CUZK__ABC_AUX:
        return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                          "%s: aux %llu is not a Montgomery scalar below r", nm, (ull)i);
    case CUZK__ABC_INPUT_ROW: {
        const uint64_t n_inp = in->n_inputs, row0 = in->abc_size - n_inp;
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: row %llu of a, b, c is not input %llu * 0 = 0 (the last "
                          "%llu rows must be one such row per input, as synthesis appends "
                          "them)",
                          nm, (ull)i, (ull)(i - row0), (ull)n_inp);
    }
    case CUZK__ABC_UNSATISFIED:
    default:
        return cuzk__fail(err, CUZK_ERR_WITNESS_UNSATISFIED,
                          "%s: constraint %lld is not satisfied (a * b != c)", nm, (long long)i);
    }
}

cuzk_status cuzk__groth16_abc_check_inputs(const cuzk_groth16_abc_input *in, cuzk_error *err) {
    if (!cuzk_fr_is_one(&in->inputs[0]))
        return cuzk__groth16_abc_refuse(in, CUZK__ABC_INPUT0, 0, err);
    const uint64_t bad = first_not_canonical(in->inputs, in->n_inputs, 1);
    if (bad < in->n_inputs) return cuzk__groth16_abc_refuse(in, CUZK__ABC_INPUT, bad, err);
    return CUZK_OK;
}

cuzk_status cuzk__groth16_abc_check_input_rows(const cuzk_groth16_abc_input *in,
                                               cuzk_error *err) {
    const uint64_t n_inp = in->n_inputs, row0 = in->abc_size - n_inp;
    for (uint64_t j = 0; j < n_inp; j++) {
        const uint64_t row = row0 + j;
        if (!cuzk_fr_eq(&in->a[row], &in->inputs[j]) || !cuzk_fr_is_zero(&in->b[row]) ||
            !cuzk_fr_is_zero(&in->c[row]))
            return cuzk__groth16_abc_refuse(in, CUZK__ABC_INPUT_ROW, row, err);
    }
    return CUZK_OK;
}

cuzk_status cuzk__groth16_abc_verdict(const cuzk_groth16_abc_input *in,
                                      const cuzk__groth16_abc_scan *scan, cuzk_error *err) {
    const uint64_t m = in->abc_size;
    const uint64_t first[3] = {scan->a, scan->b, scan->c};
    for (int k = 0; k < 3; k++)
        if (first[k] < m)
            return cuzk__groth16_abc_refuse(in, (cuzk__groth16_abc_fault)(CUZK__ABC_A + k),
                                            first[k], err);
    cuzk_status st = cuzk__groth16_abc_check_inputs(in, err);
    if (st != CUZK_OK) return st;
    if (scan->aux < in->n_aux) return cuzk__groth16_abc_refuse(in, CUZK__ABC_AUX, scan->aux, err);
    if ((st = cuzk__groth16_abc_check_input_rows(in, err)) != CUZK_OK) return st;
    if (scan->unsatisfied < m)
        return cuzk__groth16_abc_refuse(in, CUZK__ABC_UNSATISFIED, scan->unsatisfied, err);
    return CUZK_OK;
}

cuzk_status cuzk__groth16_prove_start_abc(cuzk_groth16_partial *out,
                                          cuzk_groth16_stage_times *times,
                                          const cuzk_groth16_abc_input *in,
                                          const cuzk_params *p, const cuzk_ntt_domain *dom,
                                          unsigned threads, cuzk_error *err) {
    const double t0 = cuzk__now_ms();
    cuzk_groth16_stage_times tm;
    memset(&tm, 0, sizeof(tm));
    memset(out, 0, sizeof(*out));
    cuzk__error_clear(err);
    cuzk_status st = cuzk_groth16_check_abc_input(in, p, err);
    if (st != CUZK_OK) return st;
    if ((st = cuzk_params_require_points(p, "the CPU prover", err)) != CUZK_OK) return st;
    if ((st = check_dom(p, dom, err)) != CUZK_OK) return st;
    threads = cuzk_msm_threads(threads);
    const char *nm = name_of(in->name, "(assignment)");
    const size_t n = (size_t)p->domain_size, m = (size_t)in->abc_size;
    const size_t n_inp = (size_t)in->n_inputs, n_aux = (size_t)in->n_aux;
    int nt = (int)threads;
    (void)nt;

    uint64_t(*v)[4] = NULL;
    cuzk_fr *abc = cuzk__alloc_large(3 * n * sizeof(cuzk_fr));
    if (abc == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a, b, c over the 2^%u domain",
                        p->log_domain_size);
        goto done;
    }

    /* a, b, c: checked canonical, copied, zero-padded to the domain */
    double t = cuzk__now_ms();
    const cuzk_fr *src[3] = {in->a, in->b, in->c};
    for (int k = 0; k < 3; k++) {
        uint64_t bad = m ? first_not_canonical(src[k], m, threads) : 0;
        if (bad < m) {
            st = cuzk__groth16_abc_refuse(in, (cuzk__groth16_abc_fault)(CUZK__ABC_A + k), bad,
                                          err);
            goto done;
        }
        if (m) memcpy(abc + (size_t)k * n, src[k], m * sizeof(cuzk_fr));
        memset(abc + (size_t)k * n + m, 0, (n - m) * sizeof(cuzk_fr));
    }

    /* the assignment: input 0 is one; every value canonical; plain copies */
    if ((st = cuzk__groth16_abc_check_inputs(in, err)) != CUZK_OK) goto done;
    uint64_t bad = n_aux ? first_not_canonical(in->aux, n_aux, threads) : 0;
    if (bad < n_aux) {
        st = cuzk__groth16_abc_refuse(in, CUZK__ABC_AUX, bad, err);
        goto done;
    }
    v = cuzk__alloc_large((n_inp + n_aux) * 32);
    if (v == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory for %llu plain assignment values", nm,
                        (ull)(n_inp + n_aux));
        goto done;
    }
    for (size_t i = 0; i < n_inp; i++) cuzk_fr_to_limbs(v[i], &in->inputs[i]);
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) if (n_aux >= 65536)
#endif
    for (long i = 0; i < (long)n_aux; i++) cuzk_fr_to_limbs(v[n_inp + (size_t)i], &in->aux[i]);
    tm.spmv_ms = cuzk__now_ms() - t;

    /* the rows bellperson appends, input_j * 0 = 0, end a, b, c; then every
     * row must hold a * b = c */
    t = cuzk__now_ms();
    if ((st = cuzk__groth16_abc_check_input_rows(in, err)) != CUZK_OK) goto done;
    {
        int64_t best = (int64_t)m;
        const cuzk_fr *a = abc, *b = abc + n, *cc = abc + 2 * n;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : best) if (m >= 65536)
#endif
        for (int64_t i = 0; i < (int64_t)m; i++) {
            if (i >= best) continue;
            cuzk_fr pr;
            cuzk_fr_mul(&pr, &a[i], &b[i]);
            if (!cuzk_fr_eq(&pr, &cc[i])) best = i;
        }
        tm.check_ms = cuzk__now_ms() - t;
        if (best < (int64_t)m) {
            st = cuzk__groth16_abc_refuse(in, CUZK__ABC_UNSATISFIED, (uint64_t)best, err);
            goto done;
        }
    }

    shape s = {in->n_inputs, in->n_aux, in->a_aux, in->b_inp, in->b_aux};
    st = prove_tail(out, &tm, p, dom, &abc, &s, (const uint64_t(*)[4])v, threads, err);

done:
    free(abc);
    if (v != NULL) {
        cuzk__wipe(v, (n_inp + n_aux) * 32); /* the prover's secret, copied from the caller */
        free(v);
    }
    out->t.abc_ms = tm.spmv_ms + tm.check_ms;
    tm.total_ms = cuzk__now_ms() - t0;
    out->t.total_ms = tm.total_ms;
    if (times != NULL) *times = tm;
    return st;
}
