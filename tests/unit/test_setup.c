/*
 * test_setup.c — the development Groth16 setup in bellman layout
 * (src/groth16/setup.h).
 *
 * References that do not share code with what they check:
 *  - omega_N from 7^((r-1)/2^32) computed here by a plain power, its order
 *    checked (omega^(N/2) = -1), every power omega^i by repeated products;
 *  - the Lagrange basis by the interpolation product
 *    L_i(tau) = prod_{m != i} (tau - omega^m) / (omega^i - omega^m),
 *    with constant-time inversions (setup.c uses the closed form, batch and
 *    variable-time inversions);
 *  - u, v, w from dense matrices summed from the test's own entry lists (not
 *    the CSR arrays), densities from those lists;
 *  - every point as a constant-time double-and-add multiple of the
 *    generator (cuzk_g1/g2_jac_mul; setup.c uses the fixed-base tables).
 * Random circuits have inputs in B and not in B, aux absent from A, from B
 * and from both (only in C), repeated columns in a row, +-1 and other
 * coefficients. Then: thread-count independence, the .params/.vk write/read
 * round trip (also with tiny Lagrange blocks and h chunks, so every block
 * edge is checked), a 2^12 instance's time with spot checks, the seeded waste against Python's hashlib, refused toxic waste and the
 * identity-point errors.
 *
 * CUZK_SETUP_BIG_LOG=k (k <= 24) adds a timed setup of a random circuit with
 * 2^k - 8 constraints (not a check, a measurement); with CUZK_SETUP_BIG_OUT=path
 * that circuit is written there instead (for timing `cuzk setup`).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "test_util.h"

#include "circuit/circuit.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "groth16/groth16.h"
#include "io/params.h"
#include "groth16/proof192.h"
#include "groth16/setup.h"

static char tmpdir[256];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- scalars and reference points ------------------------------------------ */

/* k times the generators, k in Montgomery form (test_util.h has the plain-limb forms) */
static void g1_ref(cuzk_g1_aff *r, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_test_g1_gen_mul(r, l);
}

static void g2_ref(cuzk_g2_aff *r, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_test_g2_gen_mul(r, l);
}

/* omega_N (N = 2^k) from 7^t, t = (r - 1)/2^32, by a plain power. */
static void ref_omega(cuzk_fr *w, unsigned k) {
    static const uint64_t r[4] = CUZK__FR_R;
    uint64_t t[4] = {(r[0] >> 32) | (r[1] << 32), (r[1] >> 32) | (r[2] << 32),
                     (r[2] >> 32) | (r[3] << 32), r[3] >> 32};
    cuzk_fr seven;
    cuzk_fr_from_u64(&seven, 7);
    cuzk_fr_pow(w, &seven, t, 4);
    for (unsigned i = k; i < 32; i++) cuzk_fr_sqr(w, w);
}

/* L_i(tau), i < rows, by the interpolation product over all N points. */
static void ref_lagrange_one(cuzk_fr *out, const cuzk_fr *pw, uint64_t N, uint64_t i,
                             const cuzk_fr *tau) {
    cuzk_fr num, den, t, inv;
    cuzk_fr_set_one(&num);
    cuzk_fr_set_one(&den);
    for (uint64_t m = 0; m < N; m++) {
        if (m == i) continue;
        cuzk_fr_sub(&t, tau, &pw[m]);
        cuzk_fr_mul(&num, &num, &t);
        cuzk_fr_sub(&t, &pw[i], &pw[m]);
        cuzk_fr_mul(&den, &den, &t);
    }
    cuzk_fr_inv(&inv, &den);
    cuzk_fr_mul(out, &num, &inv);
}

/* omega^i for i < N, checking that omega has order exactly N. */
static cuzk_fr *ref_powers(unsigned k) {
    uint64_t N = (uint64_t)1 << k;
    cuzk_fr w, one, mone;
    ref_omega(&w, k);
    cuzk_fr *pw = malloc(N * sizeof(cuzk_fr));
    cuzk_fr_set_one(&pw[0]);
    for (uint64_t i = 1; i < N; i++) cuzk_fr_mul(&pw[i], &pw[i - 1], &w);
    cuzk_fr_set_one(&one);
    cuzk_fr_neg(&mone, &one);
    cuzk_fr last;
    cuzk_fr_mul(&last, &pw[N - 1], &w);
    CHECK(cuzk_fr_is_one(&last));                    /* omega^N = 1 */
    if (N >= 2) CHECK(cuzk_fr_eq(&pw[N / 2], &mone)); /* and not of smaller order */
    return pw;
}

/* ---- random circuits -------------------------------------------------------------- */

typedef struct {
    uint64_t nc, ni, na;
    uint64_t n[3], cap[3];
    uint64_t *row[3];
    uint32_t *col[3];
    cuzk_fr *cf[3];
    /* CSR form for cuzk_circuit_build */
    uint64_t *rp[3];
    uint32_t *ccol[3];
    cuzk_fr *ccf[3];
} model;

static void add_entry(model *m, int mat, uint64_t row, uint32_t col, const cuzk_fr *cf) {
    if (m->n[mat] == m->cap[mat]) {
        m->cap[mat] = m->cap[mat] ? 2 * m->cap[mat] : 64;
        m->row[mat] = realloc(m->row[mat], m->cap[mat] * sizeof(uint64_t));
        m->col[mat] = realloc(m->col[mat], m->cap[mat] * sizeof(uint32_t));
        m->cf[mat] = realloc(m->cf[mat], m->cap[mat] * sizeof(cuzk_fr));
    }
    m->row[mat][m->n[mat]] = row;
    m->col[mat][m->n[mat]] = col;
    m->cf[mat][m->n[mat]] = *cf;
    m->n[mat]++;
}

static void rand_coeff(cuzk_fr *c, int allow_small) {
    unsigned k = (unsigned)(cuzk_test_rand64() % 4);
    if (!allow_small) k = 3;
    if (k == 0) {
        cuzk_fr_set_one(c);
    } else if (k == 1) {
        cuzk_fr one;
        cuzk_fr_set_one(&one);
        cuzk_fr_neg(c, &one);
    } else if (k == 2) {
        cuzk_fr_from_u64(c, 2 + cuzk_test_rand64() % 5);
    } else {
        cuzk_test_rand_fr_nonzero(c);
    }
}

/* May variable j appear in matrix mat? Aux i by i % 4: 0 anywhere, 1 not in
 * A, 2 not in B, 3 in C only. Inputs: odd ones >= 3 never in B. */
static bool allowed(const model *m, int mat, uint64_t j) {
    if (j < m->ni) return !(mat == CUZK_CIRCUIT_B && j >= 3 && (j & 1));
    uint64_t cls = (j - m->ni) % 4;
    if (mat == CUZK_CIRCUIT_A) return cls == 0 || cls == 2;
    if (mat == CUZK_CIRCUIT_B) return cls == 0 || cls == 1;
    return true;
}

/* Entries in row order (the order the build wants: counting sort by row). */
static void model_csr(model *m) {
    for (int mat = 0; mat < 3; mat++) {
        free(m->rp[mat]);
        free(m->ccol[mat]);
        free(m->ccf[mat]);
        m->rp[mat] = calloc(m->nc + 1, sizeof(uint64_t));
        m->ccol[mat] = malloc((m->n[mat] + 1) * sizeof(uint32_t));
        m->ccf[mat] = malloc((m->n[mat] + 1) * sizeof(cuzk_fr));
        for (uint64_t k = 0; k < m->n[mat]; k++) m->rp[mat][m->row[mat][k] + 1]++;
        for (uint64_t i = 0; i < m->nc; i++) m->rp[mat][i + 1] += m->rp[mat][i];
        uint64_t *fill = malloc((m->nc + 1) * sizeof(uint64_t));
        memcpy(fill, m->rp[mat], (m->nc + 1) * sizeof(uint64_t));
        for (uint64_t k = 0; k < m->n[mat]; k++) {
            uint64_t p = fill[m->row[mat][k]]++;
            m->ccol[mat][p] = m->col[mat][k];
            m->ccf[mat][p] = m->cf[mat][k];
        }
        free(fill);
    }
}

/* A random circuit per the classes above; every aux appears somewhere (a
 * lone one is added to C), repeated columns get a random coefficient so
 * they never cancel. */
static void model_random(model *m, uint64_t nc, uint64_t ni, uint64_t na, unsigned per_row) {
    memset(m, 0, sizeof(*m));
    m->nc = nc;
    m->ni = ni;
    m->na = na;
    uint64_t nv = ni + na;
    bool *used = calloc(nv, sizeof(bool));
    for (int mat = 0; mat < 3; mat++)
        for (uint64_t i = 0; i < nc; i++) {
            unsigned k = (unsigned)(cuzk_test_rand64() % (per_row + 1));
            uint32_t seen[16];
            for (unsigned e = 0; e < k && e < 16; e++) {
                uint32_t j;
                if (e > 0 && cuzk_test_rand64() % 4 == 0) {
                    j = seen[e - 1]; /* a repeated column */
                } else {
                    do j = (uint32_t)(cuzk_test_rand64() % nv);
                    while (!allowed(m, mat, j));
                }
                /* a column already in this row gets a random coefficient:
                 * +1 then -1 would cancel (a density bit over a zero point) */
                bool again = false;
                for (unsigned q = 0; q < e; q++) again = again || seen[q] == j;
                cuzk_fr cf;
                rand_coeff(&cf, !again);
                add_entry(m, mat, i, j, &cf);
                used[j] = true;
                seen[e] = j;
            }
        }
    for (uint64_t j = ni; j < nv; j++)
        if (!used[j]) {
            cuzk_fr cf;
            rand_coeff(&cf, 1);
            add_entry(m, CUZK_CIRCUIT_C, cuzk_test_rand64() % nc, (uint32_t)j, &cf);
        }
    free(used);
    model_csr(m);
}

static void model_free(model *m) {
    for (int mat = 0; mat < 3; mat++) {
        free(m->row[mat]);
        free(m->col[mat]);
        free(m->cf[mat]);
        free(m->rp[mat]);
        free(m->ccol[mat]);
        free(m->ccf[mat]);
    }
    memset(m, 0, sizeof(*m));
}

static cuzk_status model_build(cuzk_circuit *c, const model *m, const char *name,
                               cuzk_error *err) {
    cuzk_circuit_matrix_in in[3];
    for (int mat = 0; mat < 3; mat++) {
        in[mat].row_ptr = m->rp[mat];
        in[mat].col = m->ccol[mat];
        in[mat].coeff = m->ccf[mat];
    }
    return cuzk_circuit_build(c, m->nc, m->ni, m->na, in, name, err);
}

static void rand_toxic(cuzk_setup_toxic *tw) {
    uint64_t *all[5] = {tw->tau, tw->alpha, tw->beta, tw->gamma, tw->delta};
    for (int i = 0; i < 5; i++) {
        cuzk_fr f;
        cuzk_test_rand_fr_nonzero(&f);
        cuzk_fr_to_limbs(all[i], &f);
    }
}

/* ---- the full reference check ---------------------------------------------------- */

static bool g1_vec_eq(const cuzk_g1_aff *a, const cuzk_g1_aff *b, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        if (!cuzk_g1_aff_eq(&a[i], &b[i])) return false;
    return true;
}
static bool g2_vec_eq(const cuzk_g2_aff *a, const cuzk_g2_aff *b, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        if (!cuzk_g2_aff_eq(&a[i], &b[i])) return false;
    return true;
}

/* Every point of p against the naive computation from m and tw. */
static void check_against_reference(const cuzk_params *p, const model *m,
                                    const cuzk_setup_toxic *tw) {
    uint64_t ni = m->ni, na = m->na, nv = ni + na, rows = m->nc + ni;
    unsigned k = 0;
    while (((uint64_t)1 << k) < rows) k++;
    uint64_t N = (uint64_t)1 << k;
    CHECK_EQ_INT(p->domain_size, N);
    CHECK_EQ_INT(p->log_domain_size, k);
    CHECK_EQ_INT(p->n_inputs, ni);
    CHECK_EQ_INT(p->n_aux, na);
    CHECK_EQ_INT(p->root, CUZK_NTT_ROOT7);
    CHECK_EQ_INT(p->h_kind, CUZK_H_MONOMIAL);
    CHECK(p->h.offset == 0 && p->l.offset == 0 && p->a.offset == 0 && p->b_g1.offset == 0 &&
          p->b_g2.offset == 0);

    cuzk_fr tau, alpha, beta, gamma, delta;
    cuzk_fr_from_limbs(&tau, tw->tau);
    cuzk_fr_from_limbs(&alpha, tw->alpha);
    cuzk_fr_from_limbs(&beta, tw->beta);
    cuzk_fr_from_limbs(&gamma, tw->gamma);
    cuzk_fr_from_limbs(&delta, tw->delta);

    /* Lagrange basis at tau by interpolation */
    cuzk_fr *pw = ref_powers(k), *L = malloc(rows * sizeof(cuzk_fr));
    for (uint64_t i = 0; i < rows; i++) ref_lagrange_one(&L[i], pw, N, i, &tau);

    /* dense matrices over rows (constraints, then input_i * 0 = 0) */
    cuzk_fr *D[3];
    bool *app[3];
    for (int mat = 0; mat < 3; mat++) {
        D[mat] = calloc(rows * nv, sizeof(cuzk_fr));
        app[mat] = calloc(nv, sizeof(bool));
        for (uint64_t e = 0; e < m->n[mat]; e++) {
            cuzk_fr *d = &D[mat][m->row[mat][e] * nv + m->col[mat][e]];
            cuzk_fr_add(d, d, &m->cf[mat][e]);
            app[mat][m->col[mat][e]] = true;
        }
    }
    for (uint64_t j = 0; j < ni; j++) cuzk_fr_set_one(&D[CUZK_CIRCUIT_A][(m->nc + j) * nv + j]);

    cuzk_fr *uvw[3];
    for (int mat = 0; mat < 3; mat++) {
        uvw[mat] = calloc(nv, sizeof(cuzk_fr));
        for (uint64_t j = 0; j < nv; j++)
            for (uint64_t i = 0; i < rows; i++) {
                cuzk_fr t;
                cuzk_fr_mul(&t, &D[mat][i * nv + j], &L[i]);
                cuzk_fr_add(&uvw[mat][j], &uvw[mat][j], &t);
            }
    }

    /* vk */
    cuzk_g1_aff e1;
    cuzk_g2_aff e2;
    g1_ref(&e1, &alpha);
    CHECK(cuzk_g1_aff_eq(&p->vk.alpha1, &e1));
    g1_ref(&e1, &beta);
    CHECK(cuzk_g1_aff_eq(&p->vk.beta1, &e1));
    g1_ref(&e1, &delta);
    CHECK(cuzk_g1_aff_eq(&p->vk.delta1, &e1));
    g2_ref(&e2, &beta);
    CHECK(cuzk_g2_aff_eq(&p->vk.beta2, &e2));
    g2_ref(&e2, &gamma);
    CHECK(cuzk_g2_aff_eq(&p->vk.gamma2, &e2));
    g2_ref(&e2, &delta);
    CHECK(cuzk_g2_aff_eq(&p->vk.delta2, &e2));

    /* IC and l: (beta u + alpha v + w) / gamma or delta */
    cuzk_fr ginv, dinv;
    cuzk_fr_inv(&ginv, &gamma);
    cuzk_fr_inv(&dinv, &delta);
    CHECK_EQ_INT(p->vk.n_ic, ni);
    CHECK_EQ_INT(p->l.n, na);
    unsigned bad = 0;
    for (uint64_t j = 0; j < nv; j++) {
        cuzk_fr s, t;
        cuzk_fr_mul(&s, &beta, &uvw[0][j]);
        cuzk_fr_mul(&t, &alpha, &uvw[1][j]);
        cuzk_fr_add(&s, &s, &t);
        cuzk_fr_add(&s, &s, &uvw[2][j]);
        cuzk_fr_mul(&s, &s, j < ni ? &ginv : &dinv);
        g1_ref(&e1, &s);
        const cuzk_g1_aff *got = j < ni ? &p->vk.ic[j] : &p->l.p[j - ni];
        if (j < ni ? j < p->vk.n_ic : j - ni < p->l.n) bad += !cuzk_g1_aff_eq(got, &e1);
    }
    CHECK_EQ_INT(bad, 0);

    /* a: every input, then aux in A; b: inputs and aux in B */
    uint64_t na_exp = ni, nb_exp = 0;
    for (uint64_t j = ni; j < nv; j++) na_exp += app[0][j];
    for (uint64_t j = 0; j < nv; j++) nb_exp += app[1][j];
    CHECK_EQ_INT(p->a.n, na_exp);
    CHECK_EQ_INT(p->b_g1.n, nb_exp);
    CHECK_EQ_INT(p->b_g2.n, nb_exp);
    uint64_t ia = 0, ib = 0;
    bad = 0;
    for (uint64_t j = 0; j < nv; j++) {
        if ((j < ni || app[0][j]) && ia < p->a.n) {
            g1_ref(&e1, &uvw[0][j]);
            bad += !cuzk_g1_aff_eq(&p->a.p[ia++], &e1);
        }
        if (app[1][j] && ib < p->b_g1.n && ib < p->b_g2.n) {
            g1_ref(&e1, &uvw[1][j]);
            bad += !cuzk_g1_aff_eq(&p->b_g1.p[ib], &e1);
            g2_ref(&e2, &uvw[1][j]);
            bad += !cuzk_g2_aff_eq(&p->b_g2.p[ib], &e2);
            ib++;
        }
    }
    CHECK_EQ_INT(bad, 0);

    /* h: tau^i (tau^N - 1)/delta, i < N - 1 */
    CHECK_EQ_INT(p->h.n, N - 1);
    cuzk_fr tn, ti, one, zd;
    cuzk_fr_set_one(&one);
    cuzk_fr_set_one(&tn);
    for (uint64_t i = 0; i < N; i++) cuzk_fr_mul(&tn, &tn, &tau);
    cuzk_fr_sub(&zd, &tn, &one);
    cuzk_fr_mul(&zd, &zd, &dinv);
    cuzk_fr_set_one(&ti);
    bad = 0;
    for (uint64_t i = 0; i + 1 < N && i < p->h.n; i++) {
        cuzk_fr s;
        cuzk_fr_mul(&s, &ti, &zd);
        g1_ref(&e1, &s);
        bad += !cuzk_g1_aff_eq(&p->h.p[i], &e1);
        cuzk_fr_mul(&ti, &ti, &tau);
    }
    CHECK_EQ_INT(bad, 0);

    for (int mat = 0; mat < 3; mat++) {
        free(D[mat]);
        free(app[mat]);
        free(uvw[mat]);
    }
    free(pw);
    free(L);
}

static bool params_equal(const cuzk_params *a, const cuzk_params *b) {
    const cuzk_params_vk *x = &a->vk, *y = &b->vk;
    bool ok = cuzk_g1_aff_eq(&x->alpha1, &y->alpha1) && cuzk_g1_aff_eq(&x->beta1, &y->beta1) &&
              cuzk_g1_aff_eq(&x->delta1, &y->delta1) && cuzk_g2_aff_eq(&x->beta2, &y->beta2) &&
              cuzk_g2_aff_eq(&x->gamma2, &y->gamma2) && cuzk_g2_aff_eq(&x->delta2, &y->delta2) &&
              x->n_ic == y->n_ic && g1_vec_eq(x->ic, y->ic, x->n_ic);
    ok = ok && a->h.n == b->h.n && g1_vec_eq(a->h.p, b->h.p, a->h.n);
    ok = ok && a->l.n == b->l.n && g1_vec_eq(a->l.p, b->l.p, a->l.n);
    ok = ok && a->a.n == b->a.n && g1_vec_eq(a->a.p, b->a.p, a->a.n);
    ok = ok && a->b_g1.n == b->b_g1.n && g1_vec_eq(a->b_g1.p, b->b_g1.p, a->b_g1.n);
    ok = ok && a->b_g2.n == b->b_g2.n && g2_vec_eq(a->b_g2.p, b->b_g2.p, a->b_g2.n);
    ok = ok && a->domain_size == b->domain_size && a->log_domain_size == b->log_domain_size &&
         a->n_inputs == b->n_inputs && a->n_aux == b->n_aux && a->root == b->root &&
         a->h_kind == b->h_kind;
    return ok;
}

/* Writes p (and its vk), reads both back, compares. */
static void check_round_trip(const cuzk_params *p, const char *tag) {
    char path[320], vpath[320];
    snprintf(path, sizeof(path), "%s/%s.params", tmpdir, tag);
    snprintf(vpath, sizeof(vpath), "%s/%s.vk", tmpdir, tag);
    cuzk_error err;
    cuzk_status st = cuzk_params_write(path, p, CUZK_PARAMS_PARALLEL, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "  write: %s\n", err.msg);
        return;
    }
    cuzk_params q;
    st = cuzk_params_open(&q, path, CUZK_PARAMS_CHECK_SUBGROUP | CUZK_PARAMS_PARALLEL, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) fprintf(stderr, "  open: %s\n", err.msg);
    if (st == CUZK_OK) CHECK(params_equal(p, &q));
    cuzk_params_close(&q);
    st = cuzk_params_vk_write(vpath, &p->vk, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    cuzk_params_vk vk;
    st = cuzk_params_vk_open(&vk, vpath, 0, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        CHECK(cuzk_g1_aff_eq(&vk.alpha1, &p->vk.alpha1) && cuzk_g2_aff_eq(&vk.delta2, &p->vk.delta2));
        CHECK(vk.n_ic == p->vk.n_ic && g1_vec_eq(vk.ic, p->vk.ic, vk.n_ic));
    }
    cuzk_params_vk_free(&vk);
    unlink(path);
    unlink(vpath);
}

/* ---- tests ------------------------------------------------------------------------- */

static void one_random(uint64_t nc, uint64_t ni, uint64_t na, unsigned per_row, const char *tag) {
    model m;
    model_random(&m, nc, ni, na, per_row);
    cuzk_circuit c;
    cuzk_error err;
    cuzk_status st = model_build(&c, &m, tag, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "  build: %s\n", err.msg);
        model_free(&m);
        return;
    }
    cuzk_setup_toxic tw;
    rand_toxic(&tw);
    cuzk_params p, q;
    st = cuzk_groth16_setup_dev(&p, &c, &tw, 1, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "  setup: %s\n", err.msg);
    } else {
        check_against_reference(&p, &m, &tw);
        /* the result must not depend on the thread count */
        st = cuzk_groth16_setup_dev(&q, &c, &tw, 3, &err);
        CHECK_EQ_INT(st, CUZK_OK);
        if (st == CUZK_OK) CHECK(params_equal(&p, &q));
        cuzk_params_close(&q);
        check_round_trip(&p, tag);
    }
    cuzk_params_close(&p);
    cuzk_circuit_close(&c);
    model_free(&m);
}

static void test_random_small(void) {
    one_random(5, 1, 4, 3, "r5");     /* N = 8 */
    one_random(21, 3, 18, 4, "r21");  /* N = 32, 24 rows */
    one_random(28, 4, 30, 4, "r28");  /* N = 32 exactly full */
    one_random(55, 7, 60, 5, "r55");  /* N = 64 */
    cuzk__setup_tune(9, 5);           /* h chunks and Lagrange blocks with ragged edges */
    one_random(40, 5, 37, 4, "r40");  /* N = 64 */
    cuzk__setup_tune(0, 0);
    one_random(1, 2, 1, 2, "r1");     /* N = 4 */
}

/* No constraints, one input: N = 1, empty h and l, a = [1 G]. */
static void test_trivial(void) {
    model m;
    memset(&m, 0, sizeof(m));
    m.ni = 1;
    model_csr(&m);
    cuzk_circuit c;
    cuzk_error err;
    cuzk_status st = model_build(&c, &m, "trivial", &err);
    if (st != CUZK_OK) {
        printf("  (circuit build refuses 0 constraints: %s; skipped)\n", err.msg);
        model_free(&m);
        return;
    }
    cuzk_setup_toxic tw;
    rand_toxic(&tw);
    cuzk_params p;
    st = cuzk_groth16_setup_dev(&p, &c, &tw, 0, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        CHECK_EQ_INT(p.domain_size, 1);
        CHECK_EQ_INT(p.h.n, 0);
        CHECK_EQ_INT(p.a.n, 1);
        check_against_reference(&p, &m, &tw);
        check_round_trip(&p, "trivial");
    } else {
        fprintf(stderr, "  setup: %s\n", err.msg);
    }
    cuzk_params_close(&p);
    cuzk_circuit_close(&c);
    model_free(&m);
}

/* 2^12 domain: time it, spot-check points against the reference. */
static void test_medium_fast(void) {
    model m;
    uint64_t nc = 4000, ni = 9, na = 4100;
    model_random(&m, nc, ni, na, 3);
    cuzk_circuit c;
    cuzk_error err;
    cuzk_status st = model_build(&c, &m, "medium", &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        model_free(&m);
        return;
    }
    CHECK_EQ_INT(c.domain_size, 4096);
    cuzk_setup_toxic tw;
    rand_toxic(&tw);
    cuzk_params p;
    cuzk_setup_times tm;
    double t0 = now_s();
    st = cuzk__groth16_setup_dev_timed(&p, &c, &tw, 0, &tm, &err);
    double dt = now_s() - t0;
    /* the same with other chunk and block sizes must give the same parameters */
    cuzk_params q;
    cuzk__setup_tune(1000, 77);
    cuzk_status st2 = cuzk_groth16_setup_dev(&q, &c, &tw, 2, &err);
    cuzk__setup_tune(0, 0);
    CHECK_EQ_INT(st2, CUZK_OK);
    if (st == CUZK_OK && st2 == CUZK_OK) CHECK(params_equal(&p, &q));
    cuzk_params_close(&q);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "  setup: %s\n", err.msg);
        cuzk_circuit_close(&c);
        model_free(&m);
        return;
    }
    printf("  2^12 setup (%llu constraints, %llu vars, %llu+%llu+%llu+%llu G1, %llu G2): %.3f s "
           "(lagrange %.3f, qap %.3f, tables %.3f, g1 %.3f, g2 %.3f)\n",
           (unsigned long long)nc, (unsigned long long)(ni + na), (unsigned long long)p.h.n,
           (unsigned long long)p.l.n, (unsigned long long)p.a.n, (unsigned long long)p.b_g1.n,
           (unsigned long long)p.b_g2.n, dt, tm.lagrange, tm.qap, tm.tables, tm.g1, tm.g2);
    CHECK(dt < 10.0); /* ~0.3 s on one loaded core; far above that means a complexity bug */

    /* Spot checks: a few variables' a/b/l points and h points. */
    uint64_t N = 4096, nv = ni + na;
    cuzk_fr tau, alpha, beta, delta, dinv;
    cuzk_fr_from_limbs(&tau, tw.tau);
    cuzk_fr_from_limbs(&alpha, tw.alpha);
    cuzk_fr_from_limbs(&beta, tw.beta);
    cuzk_fr_from_limbs(&delta, tw.delta);
    cuzk_fr_inv(&dinv, &delta);
    cuzk_fr *pw = ref_powers(12);
    /* positions of every variable in a and b (from the entry lists) */
    bool *inA = calloc(nv, sizeof(bool)), *inB = calloc(nv, sizeof(bool));
    for (uint64_t e = 0; e < m.n[0]; e++) inA[m.col[0][e]] = true;
    for (uint64_t e = 0; e < m.n[1]; e++) inB[m.col[1][e]] = true;
    unsigned bad = 0;
    for (int s = 0; s < 6; s++) {
        uint64_t j = ni + cuzk_test_rand64() % na;
        cuzk_fr uvw[3];
        for (int mat = 0; mat < 3; mat++) {
            cuzk_fr_set_zero(&uvw[mat]);
            for (uint64_t e = 0; e < m.n[mat]; e++) {
                if (m.col[mat][e] != j) continue;
                cuzk_fr Lr, t;
                ref_lagrange_one(&Lr, pw, N, m.row[mat][e], &tau);
                cuzk_fr_mul(&t, &Lr, &m.cf[mat][e]);
                cuzk_fr_add(&uvw[mat], &uvw[mat], &t);
            }
        }
        uint64_t pa = ni, pb = 0;
        for (uint64_t k = 0; k < j; k++) {
            if (k >= ni && inA[k]) pa++;
            if (inB[k]) pb++;
        }
        cuzk_g1_aff e1;
        cuzk_g2_aff e2;
        if (inA[j]) {
            g1_ref(&e1, &uvw[0]);
            bad += pa >= p.a.n || !cuzk_g1_aff_eq(&p.a.p[pa], &e1);
        }
        if (inB[j]) {
            g1_ref(&e1, &uvw[1]);
            bad += pb >= p.b_g1.n || !cuzk_g1_aff_eq(&p.b_g1.p[pb], &e1);
            g2_ref(&e2, &uvw[1]);
            bad += pb >= p.b_g2.n || !cuzk_g2_aff_eq(&p.b_g2.p[pb], &e2);
        }
        cuzk_fr l, t;
        cuzk_fr_mul(&l, &beta, &uvw[0]);
        cuzk_fr_mul(&t, &alpha, &uvw[1]);
        cuzk_fr_add(&l, &l, &t);
        cuzk_fr_add(&l, &l, &uvw[2]);
        cuzk_fr_mul(&l, &l, &dinv);
        g1_ref(&e1, &l);
        bad += !cuzk_g1_aff_eq(&p.l.p[j - ni], &e1);
    }
    for (int s = 0; s < 4; s++) {
        uint64_t i = s == 0 ? N - 2 : cuzk_test_rand64() % (N - 1);
        cuzk_fr ti, zd, one, e;
        cuzk_fr_set_one(&one);
        cuzk_fr_set_one(&ti);
        cuzk_fr_set_one(&zd);
        for (uint64_t k = 0; k < N; k++) {
            if (k == i) ti = zd;
            cuzk_fr_mul(&zd, &zd, &tau);
        }
        cuzk_fr_sub(&zd, &zd, &one);
        cuzk_fr_mul(&e, &ti, &zd);
        cuzk_fr_mul(&e, &e, &dinv);
        cuzk_g1_aff e1;
        g1_ref(&e1, &e);
        bad += !cuzk_g1_aff_eq(&p.h.p[i], &e1);
    }
    CHECK_EQ_INT(bad, 0);
    check_round_trip(&p, "medium");
    free(inA);
    free(inB);
    free(pw);
    cuzk_params_close(&p);
    cuzk_circuit_close(&c);
    model_free(&m);
}

static void test_toxic_random(void) {
    cuzk_setup_toxic a, b;
    cuzk_error err;
    CHECK_EQ_INT(cuzk_setup_toxic_random(&a, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_setup_toxic_random(&b, &err), CUZK_OK);
    static const uint64_t r[4] = CUZK__FR_R;
    const uint64_t *all[5] = {a.tau, a.alpha, a.beta, a.gamma, a.delta};
    for (int i = 0; i < 5; i++) {
        CHECK((all[i][0] | all[i][1] | all[i][2] | all[i][3]) != 0);
        int lt = 0;
        for (int k = 3; k >= 0; k--)
            if (all[i][k] != r[k]) {
                lt = all[i][k] < r[k];
                break;
            }
        CHECK(lt);
    }
    CHECK(memcmp(&a, &b, sizeof(a)) != 0);
    CHECK(memcmp(a.tau, a.alpha, 32) != 0);

    /* tw = NULL draws fresh waste: two setups differ */
    model m;
    model_random(&m, 6, 2, 5, 3);
    cuzk_circuit c;
    cuzk_status st = model_build(&c, &m, "fresh", &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        cuzk_params p, q;
        CHECK_EQ_INT(cuzk_groth16_setup_dev(&p, &c, NULL, 0, &err), CUZK_OK);
        if (err.status != CUZK_OK) fprintf(stderr, "  %s\n", err.msg);
        CHECK_EQ_INT(cuzk_groth16_setup_dev(&q, &c, NULL, 0, &err), CUZK_OK);
        CHECK(p.vk.n_ic == 2 && q.vk.n_ic == 2 && !cuzk_g1_aff_eq(&p.vk.alpha1, &q.vk.alpha1));
        cuzk_params_close(&p);
        cuzk_params_close(&q);
        cuzk_circuit_close(&c);
    }
    model_free(&m);
}

/* ---- an end-to-end proof ------------------------------------------------------ */

static void g1_acc(cuzk_g1_jac *acc, const cuzk_g1_aff *p, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_g1_jac pj, t;
    cuzk_g1_aff_to_jac(&pj, p);
    cuzk_g1_jac_mul(&t, &pj, l, 4);
    cuzk_g1_jac_add(acc, acc, &t);
}

static void g2_acc(cuzk_g2_jac *acc, const cuzk_g2_aff *p, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_g2_jac pj, t;
    cuzk_g2_aff_to_jac(&pj, p);
    cuzk_g2_jac_mul(&t, &pj, l, 4);
    cuzk_g2_jac_add(acc, acc, &t);
}

/*
 * A random circuit made satisfiable (each row's C gets +1 on an output aux
 * of its own whose value closes <A,w><B,w> = <C,w>), a setup from fresh waste, and a proof made
 * here from the parameter points alone, with the quotient
 * h(x) = (a(x) b(x) - c(x)) / (x^N - 1) by naive interpolation and long
 * division (remainder checked zero) — bellman's assembly (doc/formats.md,
 * bellman .params and .vk). It must pass cuzk_groth16_verify on the
 * parameters' vk and fail for a changed public input.
 */
static void test_proof_verifies(void) {
    uint64_t nc = 13, ni = 3, na0 = 14, na = na0 + nc;
    model m;
    model_random(&m, nc, ni, na0, 3);
    m.na = na; /* plus one output aux per row, in C only */
    uint64_t nv = ni + na;
    cuzk_fr *w = malloc(nv * sizeof(cuzk_fr));
    cuzk_fr_set_one(&w[0]);
    for (uint64_t j = 1; j < nv; j++) cuzk_test_rand_fr_nonzero(&w[j]);
    /* row i closes through its output aux: C gets +1 on it, whose value is
     * <A,w><B,w> - <C,w> (any value, zero included) */
    for (uint64_t i = 0; i < nc; i++) {
        cuzk_fr acc[3], t, one;
        for (int mat = 0; mat < 3; mat++) {
            cuzk_fr_set_zero(&acc[mat]);
            for (uint64_t e = 0; e < m.n[mat]; e++)
                if (m.row[mat][e] == i) {
                    cuzk_fr_mul(&t, &m.cf[mat][e], &w[m.col[mat][e]]);
                    cuzk_fr_add(&acc[mat], &acc[mat], &t);
                }
        }
        uint32_t j = (uint32_t)(ni + na0 + i);
        cuzk_fr_mul(&w[j], &acc[0], &acc[1]);
        cuzk_fr_sub(&w[j], &w[j], &acc[2]);
        cuzk_fr_set_one(&one);
        add_entry(&m, CUZK_CIRCUIT_C, i, j, &one);
    }
    model_csr(&m);
    cuzk_circuit c;
    cuzk_error err;
    cuzk_status st = model_build(&c, &m, "prove", &err);
    CHECK_EQ_INT(st, CUZK_OK);
    cuzk_params p;
    memset(&p, 0, sizeof(p));
    if (st == CUZK_OK) st = cuzk_groth16_setup_dev(&p, &c, NULL, 0, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "  %s\n", err.msg);
        goto out;
    }
    uint64_t N = p.domain_size;
    unsigned k = p.log_domain_size;

    /* evaluations over the domain rows, then coefficients by the inverse DFT */
    cuzk_fr *ev[3], *co[3];
    for (int mat = 0; mat < 3; mat++) {
        ev[mat] = calloc(N, sizeof(cuzk_fr));
        co[mat] = calloc(N, sizeof(cuzk_fr));
        for (uint64_t e = 0; e < m.n[mat]; e++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &m.cf[mat][e], &w[m.col[mat][e]]);
            cuzk_fr_add(&ev[mat][m.row[mat][e]], &ev[mat][m.row[mat][e]], &t);
        }
    }
    for (uint64_t j = 0; j < ni; j++) ev[0][nc + j] = w[j]; /* input_j * 0 = 0 */
    cuzk_fr *pw = ref_powers(k), ninv, nf;
    cuzk_fr_from_u64(&nf, N);
    cuzk_fr_inv(&ninv, &nf);
    for (int mat = 0; mat < 3; mat++)
        for (uint64_t d = 0; d < N; d++) {
            for (uint64_t i = 0; i < N; i++) {
                cuzk_fr t;
                cuzk_fr_mul(&t, &ev[mat][i], &pw[(N - (i * d) % N) % N]); /* omega^(-id) */
                cuzk_fr_add(&co[mat][d], &co[mat][d], &t);
            }
            cuzk_fr_mul(&co[mat][d], &co[mat][d], &ninv);
        }
    /* P = A B - C (degree <= 2N - 2), divided by x^N - 1 */
    cuzk_fr *P = calloc(2 * N, sizeof(cuzk_fr)), *h = calloc(N, sizeof(cuzk_fr));
    for (uint64_t i = 0; i < N; i++)
        for (uint64_t j = 0; j < N; j++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &co[0][i], &co[1][j]);
            cuzk_fr_add(&P[i + j], &P[i + j], &t);
        }
    for (uint64_t i = 0; i < N; i++) cuzk_fr_sub(&P[i], &P[i], &co[2][i]);
    for (uint64_t d = 2 * N - 1; d >= N; d--) {
        h[d - N] = P[d];
        cuzk_fr_add(&P[d - N], &P[d - N], &P[d]);
        cuzk_fr_set_zero(&P[d]);
    }
    bool rem_zero = true;
    for (uint64_t i = 0; i < N; i++) rem_zero = rem_zero && cuzk_fr_is_zero(&P[i]);
    CHECK(rem_zero);                 /* the witness satisfies the QAP */
    CHECK(cuzk_fr_is_zero(&h[N - 1])); /* deg h <= N - 2: N - 1 h points suffice */

    /* the proof from the points: bellman's assembly with blinding r, s */
    cuzk_fr r, s;
    cuzk_test_rand_fr_nonzero(&r);
    cuzk_test_rand_fr_nonzero(&s);
    bool *inA = calloc(nv, sizeof(bool)), *inB = calloc(nv, sizeof(bool));
    for (uint64_t e = 0; e < m.n[0]; e++) inA[m.col[0][e]] = true;
    for (uint64_t e = 0; e < m.n[1]; e++) inB[m.col[1][e]] = true;
    cuzk_g1_jac A, B1, C;
    cuzk_g2_jac B2;
    cuzk_g1_aff_to_jac(&A, &p.vk.alpha1);
    cuzk_g1_aff_to_jac(&B1, &p.vk.beta1);
    cuzk_g2_aff_to_jac(&B2, &p.vk.beta2);
    cuzk_g1_jac_set_inf(&C);
    uint64_t ia = 0, ib = 0;
    for (uint64_t j = 0; j < nv; j++) {
        if (j < ni || inA[j]) g1_acc(&A, &p.a.p[ia++], &w[j]);
        if (inB[j]) {
            g1_acc(&B1, &p.b_g1.p[ib], &w[j]);
            g2_acc(&B2, &p.b_g2.p[ib], &w[j]);
            ib++;
        }
        if (j >= ni) g1_acc(&C, &p.l.p[j - ni], &w[j]);
    }
    CHECK(ia == p.a.n && ib == p.b_g1.n);
    for (uint64_t i = 0; i + 1 < N; i++) g1_acc(&C, &p.h.p[i], &h[i]);
    g1_acc(&A, &p.vk.delta1, &r);
    g1_acc(&B1, &p.vk.delta1, &s);
    g2_acc(&B2, &p.vk.delta2, &s);
    cuzk_g1_aff Aa, B1a;
    cuzk_g1_jac_to_aff(&Aa, &A);
    cuzk_g1_jac_to_aff(&B1a, &B1);
    g1_acc(&C, &Aa, &s);  /* + s A */
    g1_acc(&C, &B1a, &r); /* + r B1 */
    cuzk_fr rs;
    cuzk_fr_mul(&rs, &r, &s);
    cuzk_fr_neg(&rs, &rs);
    g1_acc(&C, &p.vk.delta1, &rs); /* - r s delta */
    cuzk_groth16_proof pr;
    pr.a = Aa;
    cuzk_g2_jac_to_aff(&pr.b, &B2);
    cuzk_g1_jac_to_aff(&pr.c, &C);

    cuzk_groth16_vk vk;
    st = cuzk_groth16_vk_from_params(&vk, &p.vk, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        uint64_t(*pub)[4] = malloc((ni - 1) * sizeof(*pub));
        for (uint64_t j = 1; j < ni; j++) cuzk_fr_to_limbs(pub[j - 1], &w[j]);
        st = cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, ni - 1, &pr, &err);
        CHECK_EQ_INT(st, CUZK_OK);
        if (st != CUZK_OK) fprintf(stderr, "  verify: %s\n", err.msg);
        pub[0][0] ^= 1;
        CHECK_EQ_INT(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, ni - 1, &pr, &err),
                     CUZK_ERR_PROOF_INVALID);
        free(pub);
        cuzk_groth16_vk_free(&vk);
    }
    free(inA);
    free(inB);
    free(P);
    free(h);
    free(pw);
    for (int mat = 0; mat < 3; mat++) {
        free(ev[mat]);
        free(co[mat]);
    }
out:
    cuzk_params_close(&p);
    cuzk_circuit_close(&c);
    free(w);
    model_free(&m);
}

/* Seeded waste against values from Python's hashlib (the derivation in
 * setup.h); alpha and gamma take counter 1 (counter 0 gave a value >= r). */
static void test_toxic_seed(void) {
    static const uint8_t seed[3] = {0x01, 0x02, 0xab};
    static const uint64_t want[5][4] = {
        {0xfe2deaf497262041ULL, 0x5b41374b728ccaf7ULL, 0x0345d945d9a98526ULL, 0x3e5905f0b30b6665ULL},
        {0x906110e8ae591d36ULL, 0xc8e5785edbb2ba67ULL, 0xb2e9d582efe26c23ULL, 0x216f058f7e48c674ULL},
        {0xf853719bd8dcde91ULL, 0x7b8ef7c4c3da2b87ULL, 0x8e0a9ae3212d6d06ULL, 0x4a7a6f45c6be0d0bULL},
        {0x5076a5a511b314e5ULL, 0xb0c7ca6b061be648ULL, 0xc1b0b21c97de368fULL, 0x1b767cd0e9523445ULL},
        {0xe49b5f8ab1c4188fULL, 0xa339a7aa78c27a6aULL, 0xee403ca98de07c61ULL, 0x4ba0f3f31a54933eULL}};
    cuzk_setup_toxic tw;
    cuzk__setup_toxic_from_seed(&tw, seed, sizeof(seed));
    const uint64_t *got[5] = {tw.tau, tw.alpha, tw.beta, tw.gamma, tw.delta};
    for (int i = 0; i < 5; i++) CHECK_MEM(got[i], want[i], 32);
    /* a seed longer than 256 bytes stands for its SHA-256 */
    uint8_t lng[300];
    for (int i = 0; i < 300; i++) lng[i] = (uint8_t)(i % 251);
    static const uint64_t want_tau[4] = {0xaf5f9eceb91a4761ULL, 0x3bba7ad0b97452f0ULL,
                                         0xc4493decef28c5c8ULL, 0x3e13c9a2e8eb9161ULL};
    cuzk__setup_toxic_from_seed(&tw, lng, sizeof(lng));
    CHECK_MEM(tw.tau, want_tau, 32);
}

static void test_refusals(void) {
    model m;
    model_random(&m, 10, 2, 8, 3);
    cuzk_circuit c;
    cuzk_error err;
    cuzk_status st = model_build(&c, &m, "refuse", &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        model_free(&m);
        return;
    }
    cuzk_setup_toxic tw, bad;
    rand_toxic(&tw);
    cuzk_params p;
    memset(&p, 0x5a, sizeof(p));

    bad = tw;
    memset(bad.alpha, 0, 32);
    EXPECT_FAIL(cuzk_groth16_setup_dev(&p, &c, &bad, 0, &err), CUZK_ERR_INVALID_ARG, err, "alpha",
                "refuse");
    CHECK(p.h.p == NULL && p.vk.ic == NULL && p.path == NULL); /* left zeroed */

    bad = tw;
    static const uint64_t r[4] = CUZK__FR_R;
    memcpy(bad.delta, r, 32);
    EXPECT_FAIL(cuzk_groth16_setup_dev(&p, &c, &bad, 0, &err), CUZK_ERR_INVALID_ARG, err, "delta",
                NULL);

    /* tau = omega_16^3: in the domain (N = 16) */
    bad = tw;
    cuzk_fr w, w3;
    ref_omega(&w, 4);
    cuzk_fr_sqr(&w3, &w);
    cuzk_fr_mul(&w3, &w3, &w);
    cuzk_fr_to_limbs(bad.tau, &w3);
    CHECK_EQ_INT(c.domain_size, 16);
    EXPECT_FAIL(cuzk_groth16_setup_dev(&p, &c, &bad, 0, &err), CUZK_ERR_INVALID_ARG, err, "domain",
                "tau");
    /* ... but a root of order 32 is outside a domain of 16 and fine */
    ref_omega(&w, 5);
    cuzk_fr_to_limbs(bad.tau, &w);
    st = cuzk_groth16_setup_dev(&p, &c, &bad, 0, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) check_against_reference(&p, &m, &bad);
    cuzk_params_close(&p);

    CHECK_EQ_INT(cuzk_groth16_setup_dev(NULL, &c, &tw, 0, &err), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk_groth16_setup_dev(&p, NULL, &tw, 0, &err), CUZK_ERR_INVALID_ARG);
    cuzk_circuit_close(&c);

    /* an aux variable in no matrix: its l point would be the identity */
    model_free(&m);
    memset(&m, 0, sizeof(m));
    m.nc = 2;
    m.ni = 1;
    m.na = 3;
    cuzk_fr one, five, mone;
    cuzk_fr_set_one(&one);
    cuzk_fr_neg(&mone, &one);
    cuzk_fr_from_u64(&five, 5);
    add_entry(&m, 0, 0, 1, &one);  /* aux 0 * aux 0 = aux 1 */
    add_entry(&m, 1, 0, 1, &one);
    add_entry(&m, 2, 0, 2, &one);
    add_entry(&m, 0, 1, 0, &five); /* 5 * 1 = 5 (aux 2 unused) */
    add_entry(&m, 1, 1, 0, &one);
    add_entry(&m, 2, 1, 0, &five);
    model_csr(&m);
    st = model_build(&c, &m, "unused_aux", &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        EXPECT_FAIL(cuzk_groth16_setup_dev(&p, &c, &tw, 0, &err), CUZK_ERR_POINT_AT_INFINITY, err,
                    "aux 2", "unused_aux");
        CHECK(p.h.p == NULL && p.path == NULL);
        cuzk_circuit_close(&c);
    }

    /* +1 and -1 on aux 2 in one row of A: it is in A's density, u = 0 */
    add_entry(&m, 0, 1, 3, &one);
    add_entry(&m, 0, 1, 3, &mone);
    add_entry(&m, 2, 0, 3, &five); /* keep its l point finite */
    model_csr(&m);
    st = model_build(&c, &m, "cancel", &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        EXPECT_FAIL(cuzk_groth16_setup_dev(&p, &c, &tw, 0, &err), CUZK_ERR_POINT_AT_INFINITY, err,
                    "vector a", "aux 2");
        cuzk_circuit_close(&c);
    }
    model_free(&m);
}

/* CUZK_SETUP_BIG_LOG=k: a timed setup of 2^k - 8 constraints (measurement only). */
static void bench_big(void) {
    const char *s = getenv("CUZK_SETUP_BIG_LOG");
    unsigned k = s ? (unsigned)atoi(s) : 0;
    if (k < 4 || k > 24) return;
    uint64_t nc = ((uint64_t)1 << k) - 8, ni = 4, na = nc;
    model m;
    double t0 = now_s();
    model_random(&m, nc, ni, na, 3);
    cuzk_circuit c;
    cuzk_error err;
    cuzk_status st = model_build(&c, &m, "big", &err);
    model_free(&m);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) return;
    printf("  2^%u circuit built in %.2f s (nnz %llu/%llu/%llu)\n", k, now_s() - t0,
           (unsigned long long)c.m[0].nnz, (unsigned long long)c.m[1].nnz,
           (unsigned long long)c.m[2].nnz);
    const char *outp = getenv("CUZK_SETUP_BIG_OUT");
    if (outp && *outp) {
        st = cuzk_circuit_write(&c, outp, &err);
        CHECK_EQ_INT(st, CUZK_OK);
        printf("  wrote %s (no setup here: time `cuzk setup` on it)\n", outp);
        cuzk_circuit_close(&c);
        return;
    }
    cuzk_setup_toxic tw;
    rand_toxic(&tw);
    cuzk_params p;
    cuzk_setup_times tm;
    t0 = now_s();
    st = cuzk__groth16_setup_dev_timed(&p, &c, &tw, 0, &tm, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    printf("  2^%u setup: %.2f s (lagrange %.3f, qap %.3f, tables %.3f, g1 %.2f, g2 %.2f)\n", k,
           now_s() - t0, tm.lagrange, tm.qap, tm.tables, tm.g1, tm.g2);
    cuzk_params_close(&p);
    cuzk_circuit_close(&c);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/cuzk_setup_XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_random_small);
    RUN(test_trivial);
    RUN(test_toxic_random);
    RUN(test_toxic_seed);
    RUN(test_proof_verifies);
    RUN(test_refusals);
    RUN(test_medium_fast);
    RUN(bench_big);
    rmdir(tmpdir);
    return cuzk_test_finish();
}
