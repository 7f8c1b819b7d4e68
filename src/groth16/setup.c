/*
 * setup.c — the development Groth16 setup in bellman layout (setup.h).
 *
 * Phases (N rows in the domain, R = n_constraints + n_inputs used rows,
 * V variables):
 *   1. L_i(tau) for i < R in closed form, blocks of LBLK rows, one batch
 *      inversion per block (3 M per row) plus 3 M per row for the rest;
 *   2. u, v, w = A^T L, B^T L, C^T L by column ranges (see setup.h), then
 *      t_j = beta u_j + alpha v_j + w_j in place of w and the IC/l scalars;
 *      a and b scalars compacted in place of u and v by the densities;
 *   3. fixed-base tables for G1 and G2 sized for all their points (or with
 *      an accelerator's window, and handed to it: setup.h);
 *   4. the points, each vector from its scalars as soon as they are ready,
 *      freeing the scalars behind it so the peak stays near the parameters'
 *      own size plus the V-sized vectors; an accelerator, when given, makes
 *      every batch instead of fixed_base.h.
 *
 * VARIABLE TIME in the toxic waste throughout (variable-time inversions,
 * branches on +-1 coefficients, fixed-base table lookups by digit): this is a
 * development setup, the waste is not protected (setup.h).
 */
#include "groth16/setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ec/fixed_base.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "groth16/groth16.h"
#include "util/mem.h"
#include "poly/ntt.h"
#include "groth16/ptau.h" /* cuzk__sha256 */

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

/* Rows per Lagrange block: one batch inversion (~1.7 us) per 1024 rows
 * (~25 us of multiplications) is noise; 2 x 32 KiB of buffers per thread. */
#define LBLK ((size_t)1024)
/* h scalars made per fixed-base batch (8 MiB). Tests shrink both
 * (cuzk__setup_tune) to cross block and chunk edges at small sizes. */
#define HCHUNK ((size_t)1 << 18)
static size_t h_chunk = HCHUNK, lag_block = LBLK;

void cuzk__setup_tune(size_t hc, size_t lb) {
    h_chunk = hc ? hc : HCHUNK;
    lag_block = lb ? lb : LBLK;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- scalars ----------------------------------------------------------------- */

/* a < r as plain limbs. */
static int plain_lt_r(const uint64_t a[4]) {
    static const uint64_t r[4] = CUZK__FR_R;
    for (int i = 3; i >= 0; i--)
        if (a[i] != r[i]) return a[i] < r[i];
    return 0;
}

/* a^(2^k) == 1. */
static int fr_pow2k_is_one(const cuzk_fr *a, unsigned k) {
    cuzk_fr t = *a;
    for (unsigned i = 0; i < k; i++) cuzk_fr_sqr(&t, &t);
    return cuzk_fr_is_one(&t);
}

cuzk_status cuzk_setup_toxic_random(cuzk_setup_toxic *tw, cuzk_error *err) {
    cuzk__error_clear(err);
    if (tw == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "setup: NULL toxic waste");
    uint64_t *all[5] = {tw->tau, tw->alpha, tw->beta, tw->gamma, tw->delta};
    for (int i = 0; i < 5; i++) {
        cuzk_status st = cuzk_groth16_random_scalar(all[i], err);
        if (st != CUZK_OK) {
            memset(tw, 0, sizeof(*tw));
            return st;
        }
    }
    /* tau in some 2-power domain would make L_i(tau) 0/0: redraw (never
     * happens in practice, 2^32 bad values among ~2^255). */
    for (;;) {
        cuzk_fr t;
        cuzk_fr_from_limbs(&t, tw->tau);
        if (!fr_pow2k_is_one(&t, 32)) break;
        cuzk_status st = cuzk_groth16_random_scalar(tw->tau, err);
        if (st != CUZK_OK) {
            memset(tw, 0, sizeof(*tw));
            return st;
        }
    }
    return CUZK_OK;
}

#define SEED_MAX 256

/* SHA-256("cuzk-setup-dev-v1" 0x00 label 0x00 seed u32le(counter)), top bit
 * cleared, little-endian, for counter = 0, 1, ... until nonzero and < r (and,
 * for tau, no root of unity of 2-power order). */
static void derive_one(uint64_t out[4], const char *label, const uint8_t *seed, size_t seed_len,
                       int not_root) {
    static const char domain[] = "cuzk-setup-dev-v1";
    uint8_t buf[sizeof(domain) + 8 + SEED_MAX + 4], h[32];
    size_t dl = sizeof(domain), ll = strlen(label) + 1; /* labels are at most 6 bytes + NUL */
    memcpy(buf, domain, dl);
    memcpy(buf + dl, label, ll);
    if (seed_len) memcpy(buf + dl + ll, seed, seed_len);
    size_t n = dl + ll + seed_len + 4;
    for (uint32_t ctr = 0;; ctr++) {
        for (int i = 0; i < 4; i++) buf[n - 4 + (size_t)i] = (uint8_t)(ctr >> (8 * i));
        cuzk__sha256(h, buf, n);
        h[31] &= 0x7f;
        for (int i = 0; i < 4; i++) {
            out[i] = 0;
            for (int b = 7; b >= 0; b--) out[i] = out[i] << 8 | h[8 * i + b];
        }
        if ((out[0] | out[1] | out[2] | out[3]) == 0 || !plain_lt_r(out)) continue;
        cuzk_fr t;
        cuzk_fr_from_limbs(&t, out);
        if (not_root && fr_pow2k_is_one(&t, 32)) continue;
        return;
    }
}

void cuzk__setup_toxic_from_seed(cuzk_setup_toxic *tw, const void *seed, size_t seed_len) {
    uint8_t digest[32];
    const uint8_t *sd = seed;
    if (seed_len > SEED_MAX) { /* long seeds stand for their hash */
        cuzk__sha256(digest, seed, seed_len);
        sd = digest;
        seed_len = sizeof(digest);
    }
    derive_one(tw->tau, "tau", sd, seed_len, 1);
    derive_one(tw->alpha, "alpha", sd, seed_len, 0);
    derive_one(tw->beta, "beta", sd, seed_len, 0);
    derive_one(tw->gamma, "gamma", sd, seed_len, 0);
    derive_one(tw->delta, "delta", sd, seed_len, 0);
}

/*
 * L[i] = L_i(tau) = omega^i (tau^N - 1) / (N (tau - omega^i)) for i < rows
 * (the Lagrange basis of <omega>, |<omega>| = N, at tau; Berrut-Trefethen,
 * "Barycentric Lagrange interpolation", the barycentric weights of the roots
 * of unity are omega^i / N). tau must lie outside the domain.
 * Per row: 2 M to make tau - omega^i and keep omega^i, 3 M in the batch
 * inversion, 2 M for the product; one inversion per LBLK rows.
 */
static cuzk_status lagrange_all(cuzk_fr *L, uint64_t rows, unsigned log_n, const cuzk_fr *tau,
                                unsigned nt) {
    static const cuzk_fr root7 = {CUZK__FR_ROOT7};
    cuzk_fr omega = root7, cz, nf, ninv, one;
    for (unsigned i = 32; i > log_n; i--) cuzk_fr_sqr(&omega, &omega);
    cuzk_fr_set_one(&one);
    cz = *tau;
    for (unsigned i = 0; i < log_n; i++) cuzk_fr_sqr(&cz, &cz); /* tau^N */
    cuzk_fr_sub(&cz, &cz, &one);
    cuzk_fr_from_u64(&nf, (uint64_t)1 << log_n);
    cuzk_fr_inv_var(&ninv, &nf);
    cuzk_fr_mul(&cz, &cz, &ninv); /* (tau^N - 1)/N */

    const size_t B = lag_block;
    int64_t nblk = (int64_t)((rows + B - 1) / B);
    int nomem = 0;
    (void)nt;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel num_threads(nt) if (nt > 1 && nblk > 1)
#endif
    {
        cuzk_fr *wb = malloc(B * sizeof(cuzk_fr)), *scratch = malloc(B * sizeof(cuzk_fr));
        int ok = wb != NULL && scratch != NULL;
        if (!ok) {
#if defined(CUZK_HAVE_OPENMP)
#pragma omp atomic write
#endif
            nomem = 1;
        }
#if defined(CUZK_HAVE_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
        for (int64_t b = 0; b < nblk; b++) {
            if (!ok) continue; /* every thread reaches the loop */
            uint64_t lo = (uint64_t)b * B;
            size_t m = rows - lo < B ? (size_t)(rows - lo) : B;
            cuzk_fr wi;
            cuzk_fr_pow(&wi, &omega, &lo, 1);
            for (size_t i = 0; i < m; i++) {
                cuzk_fr_mul(&wb[i], &wi, &cz); /* omega^i (tau^N - 1)/N */
                cuzk_fr_sub(&L[lo + i], tau, &wi);
                cuzk_fr_mul(&wi, &wi, &omega);
            }
            cuzk_fr_batch_inv_var(&L[lo], &L[lo], m, scratch);
            for (size_t i = 0; i < m; i++) cuzk_fr_mul(&L[lo + i], &L[lo + i], &wb[i]);
        }
        free(wb);
        free(scratch);
    }
    return nomem ? CUZK_ERR_NOMEM : CUZK_OK;
}

/*
 * out[j] for j in [lo, hi) = sum over rows of M[row][j] L[row] (plus, for A,
 * L[n_constraints + j] for inputs j: bellman's input rows). Scans every row
 * and keeps the entries whose column falls in the range: no other task
 * writes these variables. +-1 coefficients by their index, no multiply.
 */
static void qap_range(const cuzk_circuit *c, int mat, const cuzk_fr *L, cuzk_fr *out, uint64_t lo,
                      uint64_t hi) {
    const cuzk_csr *m = &c->m[mat];
    uint64_t span = hi - lo;
    for (uint64_t j = lo; j < hi; j++) cuzk_fr_set_zero(&out[j]);
    for (uint64_t row = 0; row < c->n_constraints; row++) {
        uint64_t k1 = m->row_ptr[row + 1];
        for (uint64_t k = m->row_ptr[row]; k < k1; k++) {
            uint64_t j = m->col[k];
            if (j - lo >= span) continue; /* unsigned: also j < lo */
            uint32_t vi = m->val[k];
            if (vi == CUZK_CIRCUIT_VAL_ONE) {
                cuzk_fr_add(&out[j], &out[j], &L[row]);
            } else if (vi == CUZK_CIRCUIT_VAL_MINUS_ONE) {
                cuzk_fr_sub(&out[j], &out[j], &L[row]);
            } else {
                cuzk_fr t;
                cuzk_fr_mul(&t, &c->values[vi], &L[row]);
                cuzk_fr_add(&out[j], &out[j], &t);
            }
        }
    }
    if (mat == CUZK_CIRCUIT_A) {
        uint64_t end = hi < c->n_inputs ? hi : c->n_inputs;
        for (uint64_t j = lo; j < end; j++)
            cuzk_fr_add(&out[j], &out[j], &L[c->n_constraints + j]);
    }
}

static void qap_all(const cuzk_circuit *c, const cuzk_fr *L, cuzk_fr *u, cuzk_fr *v, cuzk_fr *w,
                    unsigned nt) {
    uint64_t nv = cuzk_circuit_n_vars(c);
    /* One column range per thread and matrix: each task costs a scan of the
     * whole matrix, so more tasks than threads only add scans. */
    uint64_t nr = nt;
    if (nr > nv) nr = nv > 0 ? nv : 1;
    int64_t ntask = (int64_t)(3 * nr);
    cuzk_fr *dst[3] = {u, v, w};
    (void)nt;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
#endif
    for (int64_t t = 0; t < ntask; t++) {
        int mat = (int)(t % 3);
        uint64_t r = (uint64_t)t / 3;
        /* no overflow: nv < 2^33 (each part fits a u32) and nr is a thread count */
        uint64_t lo = nv * r / nr, hi = nv * (r + 1) / nr;
        qap_range(c, mat, L, dst[mat], lo, hi);
    }
}

static inline int bit_at(const uint64_t *bm, uint64_t i) { return (int)((bm[i / 64] >> (i % 64)) & 1); }

/* The first zero of s[0..n) or n. */
static uint64_t first_zero(const cuzk_fr *s, uint64_t n, unsigned nt) {
    uint64_t best = n;
    (void)nt;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : best) if (nt > 1 && n > 65536)
#endif
    for (int64_t i = 0; i < (int64_t)n; i++)
        if (cuzk_fr_is_zero(&s[i]) && (uint64_t)i < best) best = (uint64_t)i;
    return best;
}

/* A variable's name for messages: "input 3" / "aux 17". */
static void var_name(char *buf, size_t cap, const cuzk_circuit *c, uint64_t j) {
    if (j < c->n_inputs)
        snprintf(buf, cap, "input %llu", (unsigned long long)j);
    else
        snprintf(buf, cap, "aux %llu", (unsigned long long)(j - c->n_inputs));
}

/* ---- the setup ----------------------------------------------------------------- */

/*
 * The state of one setup, passed through its steps. Each step either fills
 * its part and returns CUZK_OK, or records the message in err and returns
 * the status; cuzk__groth16_setup_dev_accel frees everything at the end
 * either way. The scalar arrays are freed as soon as their points are made.
 */
typedef struct {
    const cuzk_circuit *c;
    const char *name;
    cuzk_error *err;
    unsigned nt;
    cuzk_g1_fixed_base g1;
    cuzk_g2_fixed_base g2;
    const cuzk_setup_accel *acc; /* NULL: the CPU's fixed-base code */
    int loaded;                  /* acc->load called: unload is due */
    cuzk_setup_times *times;     /* may be NULL */
    double t0;                   /* start of the current phase */

    /* Counts: N = n_dom = 2^log_n rows, inputs, aux, V = n_in + n_aux
     * variables; the sizes a and b must have by the densities. */
    unsigned log_n;
    uint64_t n_dom, n_in, n_aux, nv, n_a, n_b;

    /* The toxic waste (Montgomery) and the inverses of gamma and delta. */
    cuzk_fr s[5]; /* tau, alpha, beta, gamma, delta */
    cuzk_fr gamma_inv, delta_inv;

    /* Scalars: L_i(tau); u, v, w per variable (then a, b compacted in u, v
     * and the l scalars in w's aux part); IC's scalars; one chunk of h's. */
    cuzk_fr *L, *u, *v, *w, *hs, *ic_s;
    cuzk_fr ic_s_small[1];
    uint64_t na, nb; /* the compacted lengths of a (in u) and b (in v) */
} ctx;

enum { TW_TAU, TW_ALPHA, TW_BETA, TW_GAMMA, TW_DELTA };

/* The accelerator's failure, its own message kept after the setup's words. */
static cuzk_status accel_fail(ctx *x, cuzk_status st, const cuzk_error *why, const char *part) {
    char detail[CUZK_ERROR_MSG_BYTES];
    snprintf(detail, sizeof(detail), "%s", cuzk__error_text(why));
    return cuzk__fail(x->err, st, "setup for %s: %s: fixed-base multiplication on the %s: %s",
                      x->name, part, x->acc->name != NULL ? x->acc->name : "accelerator", detail);
}

static cuzk_status mul_g1(ctx *x, cuzk_g1_aff *out, const cuzk_fr *k, size_t n, const char *part) {
    if (x->acc != NULL) {
        cuzk_error why;
        cuzk__error_clear(&why);
        cuzk_status st = x->acc->g1_mul(x->acc->ctx, out, k, n, &why);
        return st == CUZK_OK ? CUZK_OK : accel_fail(x, st, &why, part);
    }
    cuzk_status st = cuzk_g1_fixed_base_mul_batch_fr_var(&x->g1, out, k, n, x->nt);
    if (st != CUZK_OK)
        return cuzk__fail(x->err, st, "setup for %s: %s: fixed-base multiplication: %s", x->name,
                          part, cuzk_strerror(st));
    return CUZK_OK;
}

static cuzk_status mul_g2(ctx *x, cuzk_g2_aff *out, const cuzk_fr *k, size_t n, const char *part) {
    if (x->acc != NULL) {
        cuzk_error why;
        cuzk__error_clear(&why);
        cuzk_status st = x->acc->g2_mul(x->acc->ctx, out, k, n, &why);
        return st == CUZK_OK ? CUZK_OK : accel_fail(x, st, &why, part);
    }
    cuzk_status st = cuzk_g2_fixed_base_mul_batch_fr_var(&x->g2, out, k, n, x->nt);
    if (st != CUZK_OK)
        return cuzk__fail(x->err, st, "setup for %s: %s: fixed-base multiplication: %s", x->name,
                          part, cuzk_strerror(st));
    return CUZK_OK;
}

static cuzk_status nomem(ctx *x, const char *what, uint64_t n, size_t each) {
    return cuzk__fail(x->err, CUZK_ERR_NOMEM, "setup for %s: no memory for %s (%llu x %zu bytes)",
                      x->name, what, (unsigned long long)n, each);
}

/* Allocates n elements of `each` bytes (a non-NULL pointer even for n = 0 is
 * not needed: NULL for n = 0, as params.h's vectors). */
static void *alloc_n(uint64_t n, size_t each, int *fail) {
    if (n == 0) return NULL;
    if (n > SIZE_MAX / each) {
        *fail = 1;
        return NULL;
    }
    void *p = cuzk__alloc_large((size_t)n * each);
    if (p == NULL) *fail = 1;
    return p;
}

/* Seconds since the current phase began; the next phase begins now. */
static double phase_end(ctx *x) {
    double t1 = now_s(), dt = t1 - x->t0;
    x->t0 = t1;
    return dt;
}

/* The circuit's domain and the vector sizes, each of which must fit the u32
 * counts of the file. */
static cuzk_status check_circuit(ctx *x) {
    const cuzk_circuit *c = x->c;
    x->n_dom = cuzk_circuit_domain_for(c->n_constraints, c->n_inputs, &x->log_n);
    if (x->n_dom == 0 || x->n_dom != c->domain_size || x->log_n != c->domain_log)
        return cuzk__fail(x->err, CUZK_ERR_BAD_ENCODING,
                          "setup for %s: domain 2^%u does not fit %llu constraints + %llu inputs",
                          x->name, c->domain_log, (unsigned long long)c->n_constraints,
                          (unsigned long long)c->n_inputs);
    if (c->n_inputs < 1)
        return cuzk__fail(x->err, CUZK_ERR_INVALID_ARG,
                          "setup for %s: no inputs (input 0 is ONE)", x->name);
    x->n_in = c->n_inputs;
    x->n_aux = c->n_aux;
    x->nv = x->n_in + x->n_aux;
    x->n_a = x->n_in + c->a_aux_count;
    x->n_b = c->b_inp_count + c->b_aux_count;
    if (x->n_in > UINT32_MAX || x->n_aux > UINT32_MAX || x->n_a > UINT32_MAX ||
        x->n_b > UINT32_MAX)
        return cuzk__fail(x->err, CUZK_ERR_INVALID_ARG,
                          "setup for %s: a vector would hold more than 2^32 - 1 points "
                          "(inputs %llu, aux %llu)",
                          x->name, (unsigned long long)x->n_in, (unsigned long long)x->n_aux);
    return CUZK_OK;
}

/* The toxic waste into Montgomery form: each value nonzero and below r, and
 * tau outside the evaluation domain (else the Lagrange basis is 0/0). */
static cuzk_status toxic_to_fr(ctx *x, const cuzk_setup_toxic *tw) {
    static const char *const tw_names[5] = {"tau", "alpha", "beta", "gamma", "delta"};
    const uint64_t *tw_l[5] = {tw->tau, tw->alpha, tw->beta, tw->gamma, tw->delta};
    for (int i = 0; i < 5; i++) {
        if (!plain_lt_r(tw_l[i]) || (tw_l[i][0] | tw_l[i][1] | tw_l[i][2] | tw_l[i][3]) == 0)
            return cuzk__fail(x->err, CUZK_ERR_INVALID_ARG,
                              "setup for %s: toxic %s is zero or not below r", x->name,
                              tw_names[i]);
        cuzk_fr_from_limbs(&x->s[i], tw_l[i]);
    }
    if (fr_pow2k_is_one(&x->s[TW_TAU], x->log_n))
        return cuzk__fail(x->err, CUZK_ERR_INVALID_ARG,
                          "setup for %s: tau lies in the evaluation domain of size 2^%u "
                          "(Lagrange basis undefined)",
                          x->name, x->log_n);
    return CUZK_OK;
}

/* Phase 1: L_i(tau) for the rows in use (constraints, then one per input). */
static cuzk_status make_lagrange(ctx *x) {
    uint64_t rows = x->c->n_constraints + x->n_in;
    int fail = 0;
    x->L = alloc_n(rows, sizeof(cuzk_fr), &fail);
    if (fail) return nomem(x, "the Lagrange coefficients", rows, sizeof(cuzk_fr));
    if (rows > 0 && lagrange_all(x->L, rows, x->log_n, &x->s[TW_TAU], x->nt) != CUZK_OK)
        return nomem(x, "the Lagrange block buffers", 2 * lag_block, sizeof(cuzk_fr));
    return CUZK_OK;
}

/* Phase 2a: u, v, w = A^T L, B^T L, C^T L (L is freed), then
 * t_j = beta u_j + alpha v_j + w_j: divided by gamma for the inputs (IC's
 * scalars) and by delta for the aux (l's scalars, in place of w). Neither
 * may be zero: the point would be the identity. */
static cuzk_status make_qap_scalars(ctx *x) {
    const uint64_t n_in = x->n_in, n_aux = x->n_aux, nv = x->nv;
    int fail = 0;
    x->u = alloc_n(nv, sizeof(cuzk_fr), &fail);
    x->v = alloc_n(nv, sizeof(cuzk_fr), &fail);
    x->w = alloc_n(nv, sizeof(cuzk_fr), &fail);
    x->ic_s = n_in <= 1 ? x->ic_s_small : malloc((size_t)n_in * sizeof(cuzk_fr));
    if (fail || x->ic_s == NULL) return nomem(x, "u, v, w", 3 * nv, sizeof(cuzk_fr));
    qap_all(x->c, x->L, x->u, x->v, x->w, x->nt);
    free(x->L);
    x->L = NULL;

    const cuzk_fr *alpha = &x->s[TW_ALPHA], *beta = &x->s[TW_BETA];
    cuzk_fr *u = x->u, *v = x->v, *w = x->w, *ic_s = x->ic_s;
    cuzk_fr_inv_var(&x->gamma_inv, &x->s[TW_GAMMA]);
    cuzk_fr_inv_var(&x->delta_inv, &x->s[TW_DELTA]);
    const cuzk_fr *gamma_inv = &x->gamma_inv, *delta_inv = &x->delta_inv;
    const unsigned nt = x->nt;
    (void)nt;
    /* w_j <- beta u_j + alpha v_j + w_j; then /gamma for inputs (to ic_s), /delta for aux */
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && nv > 65536)
#endif
    for (int64_t j = 0; j < (int64_t)nv; j++) {
        cuzk_fr t1f, t2f;
        cuzk_fr_mul(&t1f, beta, &u[j]);
        cuzk_fr_mul(&t2f, alpha, &v[j]);
        cuzk_fr_add(&t1f, &t1f, &t2f);
        cuzk_fr_add(&t1f, &t1f, &w[j]);
        if ((uint64_t)j < n_in)
            cuzk_fr_mul(&ic_s[j], &t1f, gamma_inv);
        else
            cuzk_fr_mul(&w[j], &t1f, delta_inv);
    }
    uint64_t z = first_zero(ic_s, n_in, x->nt);
    if (z < n_in)
        return cuzk__fail(x->err, CUZK_ERR_POINT_AT_INFINITY,
                          "setup for %s: IC point %llu is the identity: input %llu has "
                          "beta u + alpha v + w = 0 at tau",
                          x->name, (unsigned long long)z, (unsigned long long)z);
    z = first_zero(w + n_in, n_aux, x->nt);
    if (z < n_aux)
        return cuzk__fail(x->err, CUZK_ERR_POINT_AT_INFINITY,
                          "setup for %s: vector l point %llu is the identity: aux %llu appears "
                          "in no constraint (or its coefficients cancel)",
                          x->name, (unsigned long long)z, (unsigned long long)z);
    return CUZK_OK;
}

/* The variable at position z of the compacted b (inputs in b_inp, then aux
 * in b_aux). */
static uint64_t b_variable(const ctx *x, uint64_t z) {
    const cuzk_circuit *c = x->c;
    uint64_t seen = 0;
    for (uint64_t k = 0; k < x->nv; k++) {
        int in_b = k < x->n_in ? bit_at(c->b_inp, k) : bit_at(c->b_aux, k - x->n_in);
        if (in_b && seen++ == z) return k;
    }
    return 0;
}

/* The variable at position z of the compacted a (every input, then aux in
 * a_aux). */
static uint64_t a_variable(const ctx *x, uint64_t z) {
    if (z < x->n_in) return z;
    uint64_t seen = x->n_in;
    for (uint64_t i = 0; i < x->n_aux; i++)
        if (bit_at(x->c->a_aux, i) && seen++ == z) return x->n_in + i;
    return z;
}

/* Phase 2b: the a and b scalars compacted by the densities, in place of u
 * (every input, then the aux in a_aux) and v (the inputs in b_inp, then the
 * aux in b_aux). Their lengths must match the stored popcounts, and no
 * scalar may be zero (the point would be the identity). */
static cuzk_status compact_by_density(ctx *x) {
    const cuzk_circuit *c = x->c;
    const uint64_t n_in = x->n_in, n_aux = x->n_aux;
    cuzk_fr *u = x->u, *v = x->v;
    char vn[64];
    /* a: u of every input, then of the aux in a_aux; in place (dst <= src). */
    uint64_t na = n_in;
    for (uint64_t i = 0; i < n_aux; i++)
        if (bit_at(c->a_aux, i)) u[na++] = u[n_in + i];
    /* b: v of the inputs in b_inp, then of the aux in b_aux. */
    uint64_t nb = 0;
    for (uint64_t j = 0; j < n_in; j++)
        if (bit_at(c->b_inp, j)) v[nb++] = v[j];
    for (uint64_t i = 0; i < n_aux; i++)
        if (bit_at(c->b_aux, i)) v[nb++] = v[n_in + i];
    x->na = na;
    x->nb = nb;
    if (na != x->n_a || nb != x->n_b)
        return cuzk__fail(x->err, CUZK_ERR_BAD_ENCODING,
                          "setup for %s: density popcounts (a_aux %llu, b %llu) disagree with "
                          "the bitmaps (%llu, %llu)",
                          x->name, (unsigned long long)c->a_aux_count,
                          (unsigned long long)x->n_b, (unsigned long long)(na - n_in),
                          (unsigned long long)nb);
    uint64_t z = first_zero(u, na, x->nt);
    if (z < na) {
        var_name(vn, sizeof(vn), c, a_variable(x, z));
        return cuzk__fail(x->err, CUZK_ERR_POINT_AT_INFINITY,
                          "setup for %s: vector a point %llu is the identity: %s is in A but "
                          "u(tau) = 0 (its coefficients cancel or are zero)",
                          x->name, (unsigned long long)z, vn);
    }
    z = first_zero(v, nb, x->nt);
    if (z < nb) {
        var_name(vn, sizeof(vn), c, b_variable(x, z));
        return cuzk__fail(x->err, CUZK_ERR_POINT_AT_INFINITY,
                          "setup for %s: vector b_g1 point %llu is the identity: %s is in B but "
                          "v(tau) = 0 (its coefficients cancel or are zero)",
                          x->name, (unsigned long long)z, vn);
    }
    return CUZK_OK;
}

/* Phase 3: the fixed-base tables of both generators, windows sized for all
 * the points of each group (or the accelerator's window), then handed to the
 * accelerator. */
static cuzk_status make_tables(ctx *x) {
    const cuzk_setup_accel *acc = x->acc;
    uint64_t n_h = x->n_dom - 1;
    uint64_t g1_total = 3 + x->n_in + x->n_aux + x->na + x->nb + n_h;
    unsigned wbits = acc != NULL ? acc->window_bits : 0;
    cuzk_g1_aff g1gen;
    cuzk_g2_aff g2gen;
    cuzk_g1_generator(&g1gen);
    cuzk_g2_generator(&g2gen);
    cuzk_status st;
    if ((st = cuzk_g1_fixed_base_init(&x->g1, &g1gen, wbits, (size_t)g1_total, x->nt)) !=
            CUZK_OK ||
        (st = cuzk_g2_fixed_base_init(&x->g2, &g2gen, wbits, (size_t)(3 + x->nb), x->nt)) !=
            CUZK_OK)
        return cuzk__fail(x->err, st, "setup for %s: fixed-base tables (window %u): %s",
                          x->name, wbits, cuzk_strerror(st));
    if (acc != NULL && acc->load != NULL) {
        cuzk_error why;
        cuzk__error_clear(&why);
        x->loaded = 1;
        if ((st = acc->load(acc->ctx, &x->g1, &x->g2, &why)) != CUZK_OK)
            return cuzk__fail(x->err, st, "setup for %s: fixed-base tables to the %s: %s",
                              x->name, acc->name != NULL ? acc->name : "accelerator",
                              cuzk__error_text(&why));
    }
    return CUZK_OK;
}

/* Phase 4a: the six vk points, then IC from its scalars. */
static cuzk_status make_vk(ctx *x, cuzk_params *out) {
    const cuzk_fr *s = x->s;
    cuzk_fr k1[3] = {s[TW_ALPHA], s[TW_BETA], s[TW_DELTA]};
    cuzk_fr k2[3] = {s[TW_BETA], s[TW_GAMMA], s[TW_DELTA]};
    cuzk_g1_aff p1[3];
    cuzk_g2_aff p2[3];
    cuzk_status st;
    if ((st = mul_g1(x, p1, k1, 3, "vk")) != CUZK_OK ||
        (st = mul_g2(x, p2, k2, 3, "vk")) != CUZK_OK)
        return st;
    out->vk.alpha1 = p1[0];
    out->vk.beta1 = p1[1];
    out->vk.delta1 = p1[2];
    out->vk.beta2 = p2[0];
    out->vk.gamma2 = p2[1];
    out->vk.delta2 = p2[2];
    int fail = 0;
    out->vk.ic = alloc_n(x->n_in, sizeof(cuzk_g1_aff), &fail);
    if (fail) return nomem(x, "IC", x->n_in, sizeof(cuzk_g1_aff));
    out->vk.n_ic = x->n_in;
    return mul_g1(x, out->vk.ic, x->ic_s, (size_t)x->n_in, "IC");
}

/* Phase 4b: vector l from the aux part of w, then a from u; each scalar
 * array is freed once its points are made. */
static cuzk_status make_l_and_a(ctx *x, cuzk_params *out) {
    int fail = 0;
    cuzk_status st;
    out->l.p = alloc_n(x->n_aux, sizeof(cuzk_g1_aff), &fail);
    if (fail) return nomem(x, "vector l", x->n_aux, sizeof(cuzk_g1_aff));
    out->l.n = x->n_aux;
    if ((st = mul_g1(x, out->l.p, x->w + x->n_in, (size_t)x->n_aux, "vector l")) != CUZK_OK)
        return st;
    free(x->w);
    x->w = NULL;

    out->a.p = alloc_n(x->na, sizeof(cuzk_g1_aff), &fail);
    if (fail) return nomem(x, "vector a", x->na, sizeof(cuzk_g1_aff));
    out->a.n = x->na;
    if ((st = mul_g1(x, out->a.p, x->u, (size_t)x->na, "vector a")) != CUZK_OK) return st;
    free(x->u);
    x->u = NULL;
    return CUZK_OK;
}

/* Phase 4c: vectors b_g1 and b_g2 from v (v is freed); *g2_s receives the
 * seconds spent on G2. */
static cuzk_status make_b(ctx *x, cuzk_params *out, double *g2_s) {
    int fail = 0;
    cuzk_status st;
    const uint64_t nb = x->nb;
    out->b_g1.p = alloc_n(nb, sizeof(cuzk_g1_aff), &fail);
    out->b_g2.p = alloc_n(nb, sizeof(cuzk_g2_aff), &fail);
    if (fail)
        return nomem(x, "vectors b_g1, b_g2", nb, sizeof(cuzk_g1_aff) + sizeof(cuzk_g2_aff));
    out->b_g1.n = nb;
    out->b_g2.n = nb;
    if ((st = mul_g1(x, out->b_g1.p, x->v, (size_t)nb, "vector b_g1")) != CUZK_OK) return st;
    double t = now_s();
    if ((st = mul_g2(x, out->b_g2.p, x->v, (size_t)nb, "vector b_g2")) != CUZK_OK) return st;
    *g2_s = now_s() - t;
    free(x->v);
    x->v = NULL;
    return CUZK_OK;
}

/* Phase 4d: h_i = tau^i Z(tau)/delta, i < N - 1, made and multiplied a chunk
 * of scalars at a time (the accelerator's h_chunk, else h_chunk). */
static cuzk_status make_h(ctx *x, cuzk_params *out) {
    const uint64_t n_h = x->n_dom - 1;
    const cuzk_fr *tau = &x->s[TW_TAU];
    const unsigned nt = x->nt;
    (void)nt;
    int fail = 0;
    out->h.p = alloc_n(n_h, sizeof(cuzk_g1_aff), &fail);
    size_t hc = x->acc != NULL && x->acc->h_chunk != 0 ? x->acc->h_chunk : h_chunk;
    if (n_h < hc) hc = (size_t)n_h;
    x->hs = alloc_n(hc, sizeof(cuzk_fr), &fail);
    if (fail) return nomem(x, "vector h", n_h, sizeof(cuzk_g1_aff));
    out->h.n = n_h;
    cuzk_fr *hs = x->hs;
    cuzk_fr zd = *tau, one;
    cuzk_fr_set_one(&one);
    for (unsigned i = 0; i < x->log_n; i++) cuzk_fr_sqr(&zd, &zd);
    cuzk_fr_sub(&zd, &zd, &one);
    cuzk_fr_mul(&zd, &zd, &x->delta_inv); /* Z(tau)/delta, nonzero: tau is outside the domain */
    for (uint64_t lo = 0; lo < n_h; lo += hc) {
        size_t m = n_h - lo < hc ? (size_t)(n_h - lo) : hc;
        const size_t hb = lag_block; /* rows per sub-block: one pow each */
        int64_t nblk = (int64_t)((m + hb - 1) / hb);
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && nblk > 1)
#endif
        for (int64_t b = 0; b < nblk; b++) {
            size_t i0 = (size_t)b * hb, i1 = i0 + hb < m ? i0 + hb : m;
            uint64_t e = lo + i0;
            cuzk_fr p;
            cuzk_fr_pow(&p, tau, &e, 1);
            cuzk_fr_mul(&p, &p, &zd);
            for (size_t i = i0; i < i1; i++) {
                hs[i] = p;
                cuzk_fr_mul(&p, &p, tau);
            }
        }
        cuzk_status st = mul_g1(x, out->h.p + lo, hs, m, "vector h");
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

/* Phase 4: every point, each vector as soon as its scalars are ready. */
static cuzk_status make_points(ctx *x, cuzk_params *out) {
    cuzk_status st;
    double g2_s = 0;
    if ((st = make_vk(x, out)) != CUZK_OK || (st = make_l_and_a(x, out)) != CUZK_OK ||
        (st = make_b(x, out, &g2_s)) != CUZK_OK)
        return st;
    if (x->times) x->times->g2 = g2_s;
    if ((st = make_h(x, out)) != CUZK_OK) return st;
    double t = phase_end(x);
    if (x->times) x->times->g1 = t - g2_s;
    out->domain_size = x->n_dom;
    out->log_domain_size = x->log_n;
    out->n_inputs = x->n_in;
    out->n_aux = x->n_aux;
    out->root = CUZK_NTT_ROOT7;
    out->h_kind = CUZK_H_MONOMIAL;
    return CUZK_OK;
}

/* Frees the scalars and tables, unloads the accelerator and wipes the
 * toxic waste. */
static void ctx_free(ctx *x) {
    free(x->L);
    free(x->u);
    free(x->v);
    free(x->w);
    free(x->hs);
    if (x->ic_s != x->ic_s_small) free(x->ic_s);
    if (x->loaded && x->acc->unload != NULL) x->acc->unload(x->acc->ctx);
    cuzk_g1_fixed_base_free(&x->g1);
    cuzk_g2_fixed_base_free(&x->g2);
    cuzk__wipe(x->s, sizeof(x->s));
    cuzk__wipe(&x->gamma_inv, sizeof(x->gamma_inv));
    cuzk__wipe(&x->delta_inv, sizeof(x->delta_inv));
}

/* The phases in order, with their times. */
static cuzk_status setup_run(ctx *x, cuzk_params *out, const cuzk_setup_toxic *tw) {
    cuzk_status st;
    if ((st = toxic_to_fr(x, tw)) != CUZK_OK) return st;
    x->t0 = now_s();
    out->path = cuzk__strdup(x->name);
    if (out->path == NULL) return nomem(x, "the name", 1, strlen(x->name) + 1);
    if ((st = make_lagrange(x)) != CUZK_OK) return st;
    double t = phase_end(x);
    if (x->times) x->times->lagrange = t;
    if ((st = make_qap_scalars(x)) != CUZK_OK || (st = compact_by_density(x)) != CUZK_OK)
        return st;
    t = phase_end(x);
    if (x->times) x->times->qap = t;
    if ((st = make_tables(x)) != CUZK_OK) return st;
    t = phase_end(x);
    if (x->times) x->times->tables = t;
    return make_points(x, out);
}

cuzk_status cuzk__groth16_setup_dev_accel(cuzk_params *out, const cuzk_circuit *c,
                                          const cuzk_setup_toxic *tw_in, unsigned threads,
                                          const cuzk_setup_accel *acc, cuzk_setup_times *times,
                                          cuzk_error *err) {
    cuzk__error_clear(err);
    if (times != NULL) memset(times, 0, sizeof(*times));
    if (out == NULL || c == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "setup: NULL parameters or circuit");
    memset(out, 0, sizeof(*out));
    const char *name = c->path != NULL ? c->path : "circuit";
    if (acc != NULL && (acc->g1_mul == NULL || acc->g2_mul == NULL))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "setup for %s: the %s accelerator lacks a G1 or G2 multiplication",
                          name, acc->name != NULL ? acc->name : "fixed-base");

    ctx x;
    memset(&x, 0, sizeof(x));
    x.c = c;
    x.name = name;
    x.err = err;
    x.acc = acc;
    x.times = times;
    cuzk_status st = check_circuit(&x);
    if (st != CUZK_OK) return st;

    cuzk_setup_toxic tw_fresh;
    const cuzk_setup_toxic *tw = tw_in;
    if (tw == NULL) {
        st = cuzk_setup_toxic_random(&tw_fresh, err);
        if (st != CUZK_OK) return st;
        tw = &tw_fresh;
    }
    x.nt = cuzk_circuit_threads(threads);
    st = setup_run(&x, out, tw);
    ctx_free(&x);
    if (tw == &tw_fresh) cuzk__wipe(&tw_fresh, sizeof(tw_fresh));
    if (st != CUZK_OK) cuzk_params_close(out);
    return st;
}

cuzk_status cuzk__groth16_setup_dev_timed(cuzk_params *out, const cuzk_circuit *c,
                                          const cuzk_setup_toxic *tw, unsigned threads,
                                          cuzk_setup_times *times, cuzk_error *err) {
    return cuzk__groth16_setup_dev_accel(out, c, tw, threads, NULL, times, err);
}

cuzk_status cuzk_groth16_setup_dev(cuzk_params *out, const cuzk_circuit *c,
                                   const cuzk_setup_toxic *tw, unsigned threads, cuzk_error *err) {
    return cuzk__groth16_setup_dev_accel(out, c, tw, threads, NULL, NULL, err);
}
