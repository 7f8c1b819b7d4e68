/*
 * test_params.c — bellman/Filecoin .params and .vk files (src/io/params.h)
 * and 192-byte proofs with partitioned verification
 * (src/groth16/proof192.h).
 *
 * An honest setup for a tiny circuit is made here from known toxic waste
 * (tau, alpha, beta, gamma, delta) following bellman's generator
 * (doc/formats.md, bellman .params and .vk) with the QAP over Lagrange
 * polynomials of the 7^t domain, computed in closed form in Fr:
 *   circuit: x * x = a1, a1 * x = a2, (a2 + 5x) * 1 = a3, then bellman's
 *   input rows 1 * 0 = 0, x * 0 = 0; inputs (1, x), aux (a1, a2, a3);
 *   5 rows, domain N = 8, h has 7 points; a3 never appears in A and only
 *   (1, x) appear in B, so a and b_g1/b_g2 lose points, as bellman's
 *   generator removes identities.
 * A test-side serializer (byte by byte, independent of params.c's writer)
 * gives the reference bytes; cuzk_params_encode must match them exactly and
 * the reader must return every point. A test-side prover then uses ONLY the
 * points read back (naive scalar multiplications, the bellman assembly with
 * monomial H) and its proof must equal the proof computed from the toxic
 * waste in Fr, and verify through proof192's partition verifier; tampered
 * proofs and partitions must fail, naming the partition.
 * Then the file is damaged: truncation at every length, trailing bytes,
 * every count, shape rules, flag bits, non-canonical coordinates, infinity,
 * points off the curve and outside the subgroup (serial and parallel, in a
 * vector large enough for the parallel path), each with the expected status
 * and a message naming the input, the part and the index.
 *
 * With CUZK_PARAMS_CORPUS=<dir> set, the valid files are also written to
 * <dir>/params (the fuzz seed corpus).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "ec/encode.h"
#include "ff/fp2.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "groth16/groth16.h"
#include "io/params.h"
#include "groth16/proof192.h"
#include "test_util.h"

#define NAME "mem/test.params"

static char tmpdir[256];

/* ---- scalars and points -------------------------------------------------- */

static void fr_u64(cuzk_fr *r, uint64_t v) { cuzk_fr_from_u64(r, v); }

static void g1_mul(cuzk_g1_aff *r, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_test_g1_gen_mul(r, l);
}

static void g2_mul(cuzk_g2_aff *r, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_test_g2_gen_mul(r, l);
}

/* acc += k * p */
static void g1_madd(cuzk_g1_jac *acc, const cuzk_g1_aff *p, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_g1_jac j, t;
    cuzk_g1_aff_to_jac(&j, p);
    cuzk_g1_jac_mul_var(&t, &j, l, 4);
    cuzk_g1_jac_add_var(acc, acc, &t);
}

static void g2_madd(cuzk_g2_jac *acc, const cuzk_g2_aff *p, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_g2_jac j, t;
    cuzk_g2_aff_to_jac(&j, p);
    cuzk_g2_jac_mul_var(&t, &j, l, 4);
    cuzk_g2_jac_add_var(acc, acc, &t);
}

static bool g1_eq_scalar(const cuzk_g1_aff *p, const cuzk_fr *k) {
    cuzk_g1_aff q;
    g1_mul(&q, k);
    return cuzk_g1_aff_eq(p, &q);
}

static bool g2_eq_scalar(const cuzk_g2_aff *p, const cuzk_fr *k) {
    cuzk_g2_aff q;
    g2_mul(&q, k);
    return cuzk_g2_aff_eq(p, &q);
}

/* A G1 point on the curve but (almost surely) outside the subgroup, and one
 * with canonical coordinates off the curve. */
static void g1_not_in_subgroup(cuzk_g1_aff *r) {
    cuzk_fp four, rhs;
    cuzk_fp_from_u64(&four, 4);
    for (uint64_t x = 1 + (cuzk_test_rand64() & 0xffff);; x++) {
        cuzk_fp_from_u64(&r->x, x);
        cuzk_fp_sqr(&rhs, &r->x);
        cuzk_fp_mul(&rhs, &rhs, &r->x);
        cuzk_fp_add(&rhs, &rhs, &four);
        if (cuzk_fp_sqrt(&r->y, &rhs) && cuzk_g1_aff_is_on_curve(r) &&
            !cuzk_g1_aff_in_subgroup_naive_var(r))
            return;
    }
}

static void g2_not_in_subgroup(cuzk_g2_aff *r) {
    /* b' = 4(u + 1) */
    cuzk_fp2 b, rhs;
    cuzk_fp_from_u64(&b.c0, 4);
    cuzk_fp_from_u64(&b.c1, 4);
    for (uint64_t x = 1 + (cuzk_test_rand64() & 0xffff);; x++) {
        cuzk_fp_from_u64(&r->x.c0, x);
        cuzk_fp_from_u64(&r->x.c1, 1);
        cuzk_fp2_sqr(&rhs, &r->x);
        cuzk_fp2_mul(&rhs, &rhs, &r->x);
        cuzk_fp2_add(&rhs, &rhs, &b);
        if (cuzk_fp2_sqrt_var(&r->y, &rhs) && cuzk_g2_aff_is_on_curve(r) &&
            !cuzk_g2_aff_in_subgroup_naive_var(r))
            return;
    }
}

/* ---- the tiny circuit and its honest setup --------------------------------- */

#define N_VARS 5   /* 0 = ONE, 1 = x, 2 = a1, 3 = a2, 4 = a3 */
#define N_INPUTS 2 /* ONE, x */
#define N_ROWS 5   /* 3 constraints + one row per input */
#define DOM 8
#define LOG_DOM 3

typedef struct {
    int row, var;
    uint64_t coef;
} entry;

static const entry mat_a[] = {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {2, 1, 5}, {3, 0, 1}, {4, 1, 1}};
static const entry mat_b[] = {{0, 1, 1}, {1, 1, 1}, {2, 0, 1}};
static const entry mat_c[] = {{0, 2, 1}, {1, 3, 1}, {2, 4, 1}};
#define NE(m) (sizeof(m) / sizeof((m)[0]))

static void witness(cuzk_fr w[N_VARS], const cuzk_fr *x) {
    cuzk_fr five, t;
    cuzk_fr_set_one(&w[0]);
    w[1] = *x;
    cuzk_fr_sqr(&w[2], x);
    cuzk_fr_mul(&w[3], &w[2], x);
    fr_u64(&five, 5);
    cuzk_fr_mul(&t, &five, x);
    cuzk_fr_add(&w[4], &w[3], &t);
}

typedef struct {
    cuzk_fr tau, alpha, beta, gamma, delta;
    cuzk_fr omega;                      /* primitive DOM-th root from 7^((r-1)/DOM) */
    cuzk_fr u[N_VARS], v[N_VARS], w[N_VARS]; /* u_i(tau), v_i(tau), w_i(tau) */
    cuzk_fr zt;                         /* Z(tau) = tau^DOM - 1 */
    int a_idx[N_VARS], b_idx[N_VARS];   /* position in a / b_g1, or -1 (removed) */
    cuzk_params p;                      /* the parameters, built in memory */
} setup;

/* omega = 7^((r-1)/DOM): plain r-1, shifted right by LOG_DOM. */
static void root7(cuzk_fr *omega) {
    uint64_t e[4];
    memcpy(e, cuzk__fr_r, sizeof(e));
    e[0] -= 1; /* r is odd */
    for (int i = 0; i < 4; i++) e[i] = (e[i] >> LOG_DOM) | (i < 3 ? e[i + 1] << (64 - LOG_DOM) : 0);
    cuzk_fr seven;
    fr_u64(&seven, 7);
    cuzk_fr_pow(omega, &seven, e, 4);
}

static void lc(cuzk_fr *out, const cuzk_fr *l_tau, const entry *m, size_t ne, int var) {
    cuzk_fr_set_zero(out);
    for (size_t k = 0; k < ne; k++)
        if (m[k].var == var) {
            cuzk_fr c, t;
            fr_u64(&c, m[k].coef);
            cuzk_fr_mul(&t, &c, &l_tau[m[k].row]);
            cuzk_fr_add(out, out, &t);
        }
}

/* (beta u + alpha v + w) / div */
static void lcomb(cuzk_fr *out, const setup *s, int i, const cuzk_fr *div) {
    cuzk_fr t, acc, inv;
    cuzk_fr_mul(&acc, &s->beta, &s->u[i]);
    cuzk_fr_mul(&t, &s->alpha, &s->v[i]);
    cuzk_fr_add(&acc, &acc, &t);
    cuzk_fr_add(&acc, &acc, &s->w[i]);
    cuzk_fr_inv(&inv, div);
    cuzk_fr_mul(out, &acc, &inv);
}

static void setup_make(setup *s) {
    memset(s, 0, sizeof(*s));
    cuzk_test_rand_fr_nonzero(&s->tau);
    cuzk_test_rand_fr_nonzero(&s->alpha);
    cuzk_test_rand_fr_nonzero(&s->beta);
    cuzk_test_rand_fr_nonzero(&s->gamma);
    cuzk_test_rand_fr_nonzero(&s->delta);
    root7(&s->omega);
    /* Z(tau), and L_j(tau) = omega^j Z(tau) / (DOM (tau - omega^j)). */
    cuzk_fr one, t, wj, l_tau[DOM], ninv;
    cuzk_fr_set_one(&one);
    cuzk_fr_pow(&t, &s->tau, (const uint64_t[]){DOM}, 1);
    cuzk_fr_sub(&s->zt, &t, &one);
    fr_u64(&t, DOM);
    cuzk_fr_inv(&ninv, &t);
    wj = one;
    for (int j = 0; j < DOM; j++) {
        cuzk_fr d;
        cuzk_fr_sub(&d, &s->tau, &wj);
        cuzk_fr_inv(&d, &d);
        cuzk_fr_mul(&l_tau[j], &wj, &s->zt);
        cuzk_fr_mul(&l_tau[j], &l_tau[j], &ninv);
        cuzk_fr_mul(&l_tau[j], &l_tau[j], &d);
        cuzk_fr_mul(&wj, &wj, &s->omega);
    }
    for (int i = 0; i < N_VARS; i++) {
        lc(&s->u[i], l_tau, mat_a, NE(mat_a), i);
        lc(&s->v[i], l_tau, mat_b, NE(mat_b), i);
        lc(&s->w[i], l_tau, mat_c, NE(mat_c), i);
    }
    cuzk_params *p = &s->p;
    g1_mul(&p->vk.alpha1, &s->alpha);
    g1_mul(&p->vk.beta1, &s->beta);
    g2_mul(&p->vk.beta2, &s->beta);
    g2_mul(&p->vk.gamma2, &s->gamma);
    g1_mul(&p->vk.delta1, &s->delta);
    g2_mul(&p->vk.delta2, &s->delta);
    p->vk.n_ic = N_INPUTS;
    p->vk.ic = calloc(N_INPUTS, sizeof(cuzk_g1_aff));
    for (int i = 0; i < N_INPUTS; i++) {
        lcomb(&t, s, i, &s->gamma);
        g1_mul(&p->vk.ic[i], &t);
    }
    /* h_i = tau^i Z(tau) / delta */
    p->h.n = DOM - 1;
    p->h.p = calloc(DOM - 1, sizeof(cuzk_g1_aff));
    cuzk_fr ti = one, dinv;
    cuzk_fr_inv(&dinv, &s->delta);
    for (int i = 0; i < DOM - 1; i++) {
        cuzk_fr_mul(&t, &ti, &s->zt);
        cuzk_fr_mul(&t, &t, &dinv);
        g1_mul(&p->h.p[i], &t);
        cuzk_fr_mul(&ti, &ti, &s->tau);
    }
    p->l.n = N_VARS - N_INPUTS;
    p->l.p = calloc(N_VARS - N_INPUTS, sizeof(cuzk_g1_aff));
    for (int i = N_INPUTS; i < N_VARS; i++) {
        lcomb(&t, s, i, &s->delta);
        g1_mul(&p->l.p[i - N_INPUTS], &t);
    }
    p->a.p = calloc(N_VARS, sizeof(cuzk_g1_aff));
    p->b_g1.p = calloc(N_VARS, sizeof(cuzk_g1_aff));
    p->b_g2.p = calloc(N_VARS, sizeof(cuzk_g2_aff));
    for (int i = 0; i < N_VARS; i++) {
        s->a_idx[i] = s->b_idx[i] = -1;
        if (!cuzk_fr_is_zero(&s->u[i])) {
            s->a_idx[i] = (int)p->a.n;
            g1_mul(&p->a.p[p->a.n++], &s->u[i]);
        }
        if (!cuzk_fr_is_zero(&s->v[i])) {
            s->b_idx[i] = (int)p->b_g1.n;
            g1_mul(&p->b_g1.p[p->b_g1.n++], &s->v[i]);
            g2_mul(&p->b_g2.p[p->b_g2.n++], &s->v[i]);
        }
    }
    p->domain_size = DOM;
    p->log_domain_size = LOG_DOM;
    p->n_inputs = N_INPUTS;
    p->n_aux = N_VARS - N_INPUTS;
    p->root = CUZK_NTT_ROOT7;
    p->h_kind = CUZK_H_MONOMIAL;
}

static void setup_free(setup *s) { cuzk_params_close(&s->p); }

/* ---- a reference serializer (knows nothing of params.c) ------------------- */

static void put_be32(cuzk_test_buf *b, uint32_t v) {
    uint8_t t[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    cuzk_test_put(b, t, 4);
}
/* Uncompressed zcash by hand: x then y, each big-endian canonical; Fp2 c1
 * then c0. (No flags: every point here is finite.) */
static void put_fp(cuzk_test_buf *b, const cuzk_fp *a) {
    uint64_t l[6];
    cuzk_fp_to_limbs(l, a);
    uint8_t t[48];
    for (int i = 0; i < 48; i++) t[i] = (uint8_t)(l[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
    cuzk_test_put(b, t, 48);
}
static void put_g1(cuzk_test_buf *b, const cuzk_g1_aff *p) {
    put_fp(b, &p->x);
    put_fp(b, &p->y);
}
static void put_g2(cuzk_test_buf *b, const cuzk_g2_aff *p) {
    put_fp(b, &p->x.c1);
    put_fp(b, &p->x.c0);
    put_fp(b, &p->y.c1);
    put_fp(b, &p->y.c0);
}

/* Counts may be given explicitly (cnt != NULL) to write a wrong shape; the
 * points written are always the arrays' own. */
static void ref_vk(cuzk_test_buf *b, const cuzk_params_vk *vk, const uint64_t *ic_cnt) {
    put_g1(b, &vk->alpha1);
    put_g1(b, &vk->beta1);
    put_g2(b, &vk->beta2);
    put_g2(b, &vk->gamma2);
    put_g1(b, &vk->delta1);
    put_g2(b, &vk->delta2);
    put_be32(b, (uint32_t)(ic_cnt ? *ic_cnt : vk->n_ic));
    for (uint64_t i = 0; i < vk->n_ic; i++) put_g1(b, &vk->ic[i]);
}

static void ref_params(cuzk_test_buf *b, const cuzk_params *p) {
    ref_vk(b, &p->vk, NULL);
    const cuzk_params_g1_vec *v[4] = {&p->h, &p->l, &p->a, &p->b_g1};
    for (int k = 0; k < 4; k++) {
        put_be32(b, (uint32_t)v[k]->n);
        for (uint64_t i = 0; i < v[k]->n; i++) put_g1(b, &v[k]->p[i]);
    }
    put_be32(b, (uint32_t)p->b_g2.n);
    for (uint64_t i = 0; i < p->b_g2.n; i++) put_g2(b, &p->b_g2.p[i]);
}

/* File offsets of part k's count (k: 0 IC, 1 h, 2 l, 3 a, 4 b_g1, 5 b_g2). */
static size_t count_off(const cuzk_params *p, int k) {
    uint64_t n[6] = {p->vk.n_ic, p->h.n, p->l.n, p->a.n, p->b_g1.n, p->b_g2.n};
    size_t off = CUZK_PARAMS_VK_HEAD_BYTES;
    for (int j = 0; j < k; j++) off += 4 + (size_t)n[j] * (j == 5 ? 192 : 96);
    return off;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n) {
    uint8_t *r = malloc(n ? n : 1);
    if (n) memcpy(r, p, n);
    return r;
}

static void set_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static bool params_equal(const cuzk_params *a, const cuzk_params *b) {
    bool ok = cuzk_g1_aff_eq(&a->vk.alpha1, &b->vk.alpha1) &&
              cuzk_g1_aff_eq(&a->vk.beta1, &b->vk.beta1) &&
              cuzk_g2_aff_eq(&a->vk.beta2, &b->vk.beta2) &&
              cuzk_g2_aff_eq(&a->vk.gamma2, &b->vk.gamma2) &&
              cuzk_g1_aff_eq(&a->vk.delta1, &b->vk.delta1) &&
              cuzk_g2_aff_eq(&a->vk.delta2, &b->vk.delta2) && a->vk.n_ic == b->vk.n_ic &&
              a->h.n == b->h.n && a->l.n == b->l.n && a->a.n == b->a.n &&
              a->b_g1.n == b->b_g1.n && a->b_g2.n == b->b_g2.n;
    if (!ok) return false;
    for (uint64_t i = 0; i < a->vk.n_ic; i++) ok &= cuzk_g1_aff_eq(&a->vk.ic[i], &b->vk.ic[i]);
    const cuzk_params_g1_vec *va[4] = {&a->h, &a->l, &a->a, &a->b_g1};
    const cuzk_params_g1_vec *vb[4] = {&b->h, &b->l, &b->a, &b->b_g1};
    for (int k = 0; k < 4; k++)
        for (uint64_t i = 0; i < va[k]->n; i++) ok &= cuzk_g1_aff_eq(&va[k]->p[i], &vb[k]->p[i]);
    for (uint64_t i = 0; i < a->b_g2.n; i++) ok &= cuzk_g2_aff_eq(&a->b_g2.p[i], &b->b_g2.p[i]);
    return ok;
}

/* ---- round trip ---------------------------------------------------------- */

static void test_roundtrip(void) {
    setup s;
    setup_make(&s);
    /* The shape bellman's generator gives this circuit. */
    CHECK_EQ_INT(s.p.a.n, 4);    /* ONE, x, a1, a2 (a3 not in A) */
    CHECK_EQ_INT(s.p.b_g1.n, 2); /* ONE, x */
    cuzk_test_buf ref = {0};
    ref_params(&ref, &s.p);
    CHECK_EQ_INT(ref.n, cuzk_params_encoded_size(&s.p));
    CHECK_EQ_INT(ref.n, 864 + 4 + 2 * 96 + 4 * 4 + (7 + 3 + 4 + 2) * 96 + 4 + 2 * 192);
    cuzk_error e;
    /* Writer: byte for byte the reference, serial and parallel. */
    uint8_t *enc = malloc(ref.n);
    for (unsigned fl = 0; fl <= CUZK_PARAMS_PARALLEL; fl += CUZK_PARAMS_PARALLEL) {
        memset(enc, 0xee, ref.n);
        CHECK_EQ_INT(cuzk_params_encode(enc, ref.n, &s.p, fl, &e), CUZK_OK);
        CHECK_MEM(enc, ref.p, ref.n);
    }
    EXPECT_FAIL(cuzk_params_encode(enc, ref.n - 1, &s.p, 0, &e), CUZK_ERR_INVALID_ARG, e,
                "buffer", NULL);
    free(enc);
    /* Reader: every point, every flag combination. */
    for (unsigned fl = 0; fl < 8; fl++) {
        cuzk_params q;
        CHECK_EQ_INT(cuzk_params_open_mem(&q, ref.p, ref.n, NAME, fl, &e), CUZK_OK);
        CHECK(params_equal(&q, &s.p));
        CHECK_EQ_INT(q.domain_size, DOM);
        CHECK_EQ_INT(q.log_domain_size, LOG_DOM);
        CHECK_EQ_INT(q.n_inputs, N_INPUTS);
        CHECK_EQ_INT(q.n_aux, N_VARS - N_INPUTS);
        CHECK(q.root == CUZK_NTT_ROOT7 && q.h_kind == CUZK_H_MONOMIAL);
        CHECK_EQ_INT(q.h.offset, count_off(&s.p, 1) + 4);
        CHECK_EQ_INT(q.b_g2.offset, count_off(&s.p, 5) + 4);
        CHECK(q.path != NULL && strcmp(q.path, NAME) == 0);
        cuzk_params_close(&q);
        uint8_t zero[sizeof(q)];
        memset(zero, 0, sizeof(zero));
        CHECK_MEM(&q, zero, sizeof(q));
    }
    /* The same through files: write, read back, and the .vk. */
    char path[512], vkpath[512];
    snprintf(path, sizeof(path), "%s/t.params", tmpdir);
    snprintf(vkpath, sizeof(vkpath), "%s/t.vk", tmpdir);
    CHECK_EQ_INT(cuzk_params_write(path, &s.p, CUZK_PARAMS_PARALLEL, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk_params_vk_write(vkpath, &s.p.vk, &e), CUZK_OK);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f != NULL) {
        uint8_t *fb = malloc(ref.n + 1);
        CHECK_EQ_INT(fread(fb, 1, ref.n + 1, f), ref.n);
        CHECK_MEM(fb, ref.p, ref.n);
        free(fb);
        fclose(f);
    }
    cuzk_params q;
    CHECK_EQ_INT(cuzk_params_open(&q, path, CUZK_PARAMS_CHECK_SUBGROUP | CUZK_PARAMS_PARALLEL,
                                  &e),
                 CUZK_OK);
    CHECK(params_equal(&q, &s.p));
    cuzk_params_close(&q);
    /* .vk = the vk part alone. */
    size_t vkn = count_off(&s.p, 1);
    CHECK_EQ_INT(cuzk_params_vk_encoded_size(&s.p.vk), vkn);
    uint8_t *vkb = malloc(vkn);
    CHECK_EQ_INT(cuzk_params_vk_encode(vkb, vkn, &s.p.vk, &e), CUZK_OK);
    CHECK_MEM(vkb, ref.p, vkn);
    free(vkb);
    cuzk_params_vk vk;
    CHECK_EQ_INT(cuzk_params_vk_open(&vk, vkpath, 0, &e), CUZK_OK);
    CHECK_EQ_INT(vk.n_ic, N_INPUTS);
    CHECK(cuzk_g2_aff_eq(&vk.gamma2, &s.p.vk.gamma2));
    CHECK(vk.n_ic == N_INPUTS && cuzk_g1_aff_eq(&vk.ic[1], &s.p.vk.ic[1]));
    cuzk_params_vk_free(&vk);
    CHECK_EQ_INT(cuzk_params_vk_open_mem(&vk, ref.p, vkn, "mem/t.vk", CUZK_PARAMS_PARALLEL, &e),
                 CUZK_OK);
    if (vk.n_ic == N_INPUTS) {
        cuzk_params_vk cp;
        CHECK_EQ_INT(cuzk_params_vk_copy(&cp, &vk, &e), CUZK_OK);
        CHECK(cp.ic != vk.ic && cuzk_g1_aff_eq(&cp.ic[0], &s.p.vk.ic[0]));
        cuzk_params_vk_free(&cp);
    }
    cuzk_params_vk_free(&vk);
    /* A .params is not a .vk (trailing vectors), and a .vk is not a .params. */
    EXPECT_FAIL(cuzk_params_vk_open(&vk, path, 0, &e), CUZK_ERR_BAD_LENGTH, e, path,
                "unexpected bytes");
    EXPECT_FAIL(cuzk_params_open(&q, vkpath, 0, &e), CUZK_ERR_BAD_LENGTH, e, vkpath,
                "count of vector h");
    /* Missing file; a writer that cannot create leaves nothing behind. */
    char missing[600];
    snprintf(missing, sizeof(missing), "%s/none.params", tmpdir);
    EXPECT_FAIL(cuzk_params_open(&q, missing, 0, &e), CUZK_ERR_IO, e, missing, "cannot open");
    snprintf(missing, sizeof(missing), "%s/no/dir.params", tmpdir);
    EXPECT_FAIL(cuzk_params_write(missing, &s.p, 0, &e), CUZK_ERR_IO, e, "cannot create", NULL);
    remove(path);
    remove(vkpath);
    free(ref.p);
    setup_free(&s);
}

/* ---- damaged files ------------------------------------------------------- */

static cuzk_status open_bytes(const uint8_t *p, size_t n, unsigned flags, cuzk_error *e) {
    uint8_t *c = dup_bytes(p, n); /* exact size: ASan sees any overread */
    cuzk_params q;
    cuzk_status st = cuzk_params_open_mem(&q, c, n, NAME, flags, e);
    if (st == CUZK_OK) {
        cuzk_params_close(&q);
    } else {
        uint8_t zero[sizeof(q)];
        memset(zero, 0, sizeof(zero));
        CHECK_MEM(&q, zero, sizeof(q));
        CHECK(cuzk_test_msg_has(e, NAME));
        CHECK(e->status == st);
    }
    free(c);
    return st;
}

static void test_truncated(void) {
    setup s;
    setup_make(&s);
    cuzk_test_buf ref = {0};
    ref_params(&ref, &s.p);
    cuzk_error e;
    /* Every length short of the whole file: a length error naming the file,
     * found by the layout walk before any point is decoded. */
    for (size_t n = 0; n < ref.n; n++) {
        cuzk_status st = open_bytes(ref.p, n, CUZK_PARAMS_CHECK_SUBGROUP, &e);
        CHECK_EQ_INT(st, CUZK_ERR_BAD_LENGTH);
        if (!cuzk_test_msg_has(&e, "truncated")) {
            CHECK(!"truncation not called so");
            fprintf(stderr, "  length %zu: %s\n", n, e.msg);
        }
    }
    /* Each part named when its count or its points are cut. */
    static const char *const part[6] = {"IC",       "vector h",    "vector l",
                                        "vector a", "vector b_g1", "vector b_g2"};
    for (int k = 0; k < 6; k++) {
        size_t co = count_off(&s.p, k);
        EXPECT_FAIL(open_bytes(ref.p, co + 2, 0, &e), CUZK_ERR_BAD_LENGTH, e, part[k],
                    "needs 4 bytes");
        EXPECT_FAIL(open_bytes(ref.p, co + 4 + 95, 0, &e), CUZK_ERR_BAD_LENGTH, e, part[k],
                    "only 95 left");
    }
    EXPECT_FAIL(open_bytes(ref.p, 863, 0, &e), CUZK_ERR_BAD_LENGTH, e, "six points", "863 bytes");
    /* Trailing bytes. */
    uint8_t *c = dup_bytes(ref.p, ref.n + 1);
    memcpy(c, ref.p, ref.n);
    c[ref.n] = 0;
    EXPECT_FAIL(open_bytes(c, ref.n + 1, 0, &e), CUZK_ERR_BAD_LENGTH, e, "1 unexpected bytes",
                "vector b_g2");
    free(c);
    /* .vk: every length but the exact one. */
    size_t vkn = count_off(&s.p, 1);
    for (size_t n = 0; n <= vkn + 1; n++) {
        uint8_t *d = dup_bytes(ref.p, n);
        cuzk_params_vk vk;
        cuzk_status st = cuzk_params_vk_open_mem(&vk, d, n, "mem/t.vk", 0, &e);
        if (n == vkn) {
            CHECK_EQ_INT(st, CUZK_OK);
            cuzk_params_vk_free(&vk);
        } else {
            CHECK_EQ_INT(st, CUZK_ERR_BAD_LENGTH);
            CHECK(cuzk_test_msg_has(&e, "mem/t.vk"));
            CHECK(vk.ic == NULL && vk.n_ic == 0);
        }
        free(d);
    }
    free(ref.p);
    setup_free(&s);
}

static void test_counts(void) {
    setup s;
    setup_make(&s);
    cuzk_test_buf ref = {0};
    ref_params(&ref, &s.p);
    cuzk_error e;
    static const char *const part[6] = {"IC",       "vector h",    "vector l",
                                        "vector a", "vector b_g1", "vector b_g2"};
    for (int k = 0; k < 6; k++) {
        size_t co = count_off(&s.p, k);
        uint8_t *c = dup_bytes(ref.p, ref.n);
        /* A huge count: refused against the bytes left, nothing allocated. */
        set_be32(c + co, 0xffffffffu);
        EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_BAD_LENGTH, e, part[k], "4294967295");
        char off[32];
        snprintf(off, sizeof(off), "offset %zu", co);
        CHECK(cuzk_test_msg_has(&e, off));
        /* One more point than present, one fewer: never accepted. */
        uint32_t n = (uint32_t)ref.p[co] << 24 | (uint32_t)ref.p[co + 1] << 16 |
            (uint32_t)ref.p[co + 2] << 8 | ref.p[co + 3];
        set_be32(c + co, n + 1);
        CHECK(open_bytes(c, ref.n, 0, &e) != CUZK_OK);
        set_be32(c + co, n - 1);
        CHECK(open_bytes(c, ref.n, 0, &e) != CUZK_OK);
        free(c);
    }
    free(ref.p);

    /* Shape rules, with files written by the reference serializer (which
     * writes any shape) and refused by the writer too. */
    cuzk_params *p = &s.p;
    struct {
        int what; /* 0 IC empty, 1 h not 2^k - 1, 2 a short, 3 a long, 4 b_g2 != b_g1, 5 b long,
                     6 domain smaller than the inputs */
        const char *words;
    } cases[] = {{0, "IC is empty"},        {1, "power-of-two domain"},
                 {2, "vector a has 1"},     {3, "vector a has 6"},
                 {4, "vector b_g2 has 1"},  {5, "vector b_g1 has 6"},
                 {6, "cannot hold the rows"}};
    cuzk_params_vk ic0 = p->vk;
    cuzk_params_g1_vec h0 = p->h, a0 = p->a, b10 = p->b_g1;
    cuzk_params_g2_vec b20 = p->b_g2;
    cuzk_g1_aff big_g1[6];
    cuzk_g2_aff big_g2[6];
    for (int i = 0; i < 6; i++) {
        big_g1[i] = p->a.p[i % p->a.n];
        big_g2[i] = p->b_g2.p[i % p->b_g2.n];
    }
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        p->vk = ic0;
        p->h = h0;
        p->a = a0;
        p->b_g1 = b10;
        p->b_g2 = b20;
        switch (cases[c].what) {
        case 0: p->vk.n_ic = 0; break;
        case 1: p->h.n = 6; break;
        case 2: p->a.n = 1; break;
        case 3: p->a.n = 6; p->a.p = big_g1; break;
        case 4: p->b_g2.n = 1; break;
        case 5: p->b_g1.n = 6; p->b_g1.p = big_g1; p->b_g2.n = 6; p->b_g2.p = big_g2; break;
        default: p->h.n = 0; break; /* N = 1 < 2 inputs */
        }
        cuzk_test_buf b = {0};
        ref_params(&b, p);
        EXPECT_FAIL(open_bytes(b.p, b.n, 0, &e), CUZK_ERR_BAD_ENCODING, e, cases[c].words, NULL);
        uint8_t *out = malloc(b.n + 1);
        EXPECT_FAIL(cuzk_params_encode(out, b.n + 1, p, 0, &e), CUZK_ERR_BAD_ENCODING, e,
                    cases[c].words, NULL);
        free(out);
        free(b.p);
    }
    p->vk = ic0;
    p->h = h0;
    p->a = a0;
    p->b_g1 = b10;
    p->b_g2 = b20;
    /* An empty IC in a .vk. */
    {
        cuzk_test_buf b = {0};
        uint64_t zero = 0;
        ref_vk(&b, &p->vk, &zero);
        b.n -= 2 * 96; /* drop the points the count no longer announces */
        cuzk_params_vk vk;
        EXPECT_FAIL(cuzk_params_vk_open_mem(&vk, b.p, b.n, "mem/t.vk", 0, &e),
                    CUZK_ERR_BAD_ENCODING, e, "mem/t.vk", "IC is empty");
        free(b.p);
    }
    setup_free(&s);
}

/* Replaces point `index` of part k (0 IC, 1 h, 2 l, 3 a, 4 b_g1, 5 b_g2) or,
 * with k < 0, vk head point -k-1 (0 alpha_g1 .. 5 delta_g2) by `pt`. */
static size_t point_off(const cuzk_params *p, int k, uint64_t index) {
    if (k < 0) {
        static const size_t head[6] = {0, 96, 192, 384, 576, 672};
        return head[-k - 1];
    }
    return count_off(p, k) + 4 + (size_t)index * (k == 5 ? 192 : 96);
}

/* A copy of ref with the encoded point pt over the bytes at off. */
static uint8_t *with_point(const cuzk_test_buf *ref, size_t off, const cuzk_test_buf *pt) {
    uint8_t *c = dup_bytes(ref->p, ref->n);
    memcpy(c + off, pt->p, pt->n);
    return c;
}

static void test_points(void) {
    setup s;
    setup_make(&s);
    cuzk_test_buf ref = {0};
    ref_params(&ref, &s.p);
    const cuzk_params *p = &s.p;
    cuzk_error e;
    uint8_t *c;
    unsigned all = CUZK_PARAMS_CHECK_SUBGROUP;

    /* Off the curve: y + 1 in vector l point 1. Refused with the curve
     * check, accepted without (bellman's unchecked mode). */
    cuzk_g1_aff bad1 = p->l.p[1];
    cuzk_fp one;
    cuzk_fp_set_one(&one);
    cuzk_fp_add(&bad1.y, &bad1.y, &one);
    cuzk_test_buf pb = {0};
    put_g1(&pb, &bad1);
    c = with_point(&ref, point_off(p, 2, 1), &pb);
    EXPECT_FAIL(open_bytes(c, ref.n, CUZK_PARAMS_CHECK_CURVE, &e), CUZK_ERR_NOT_ON_CURVE, e,
                "vector l point 1", "not on the curve");
    EXPECT_FAIL(open_bytes(c, ref.n, all | CUZK_PARAMS_PARALLEL, &e), CUZK_ERR_NOT_ON_CURVE, e,
                "vector l point 1", NULL);
    CHECK_EQ_INT(open_bytes(c, ref.n, 0, &e), CUZK_OK);
    free(c);
    /* The same in IC and in the vk head: always refused. */
    c = with_point(&ref, point_off(p, 0, 1), &pb);
    EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_NOT_ON_CURVE, e, "IC point 1", NULL);
    free(c);
    pb.n = 0;
    cuzk_g2_aff bad2 = p->vk.gamma2;
    cuzk_fp_add(&bad2.y.c0, &bad2.y.c0, &one);
    put_g2(&pb, &bad2);
    c = with_point(&ref, point_off(p, -4, 0), &pb);
    EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_NOT_ON_CURVE, e,
                "verifying key gamma_g2", "offset 384");
    free(c);

    /* Outside the subgroup: b_g2 point 1, a point 2, IC 0, delta_g1. */
    cuzk_g2_aff ns2;
    g2_not_in_subgroup(&ns2);
    pb.n = 0;
    put_g2(&pb, &ns2);
    c = with_point(&ref, point_off(p, 5, 1), &pb);
    CHECK_EQ_INT(open_bytes(c, ref.n, CUZK_PARAMS_CHECK_CURVE, &e), CUZK_OK);
    EXPECT_FAIL(open_bytes(c, ref.n, all, &e), CUZK_ERR_NOT_IN_SUBGROUP, e, "vector b_g2 point 1",
                "subgroup");
    free(c);
    cuzk_g1_aff ns1;
    g1_not_in_subgroup(&ns1);
    pb.n = 0;
    put_g1(&pb, &ns1);
    c = with_point(&ref, point_off(p, 3, 2), &pb);
    CHECK_EQ_INT(open_bytes(c, ref.n, CUZK_PARAMS_CHECK_CURVE, &e), CUZK_OK);
    EXPECT_FAIL(open_bytes(c, ref.n, all | CUZK_PARAMS_PARALLEL, &e), CUZK_ERR_NOT_IN_SUBGROUP, e,
                "vector a point 2", NULL);
    memcpy(c + point_off(p, 3, 2), ref.p + point_off(p, 3, 2), 96);
    memcpy(c + point_off(p, 0, 0), pb.p, 96);
    EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_NOT_IN_SUBGROUP, e, "IC point 0", NULL);
    memcpy(c + point_off(p, 0, 0), ref.p + point_off(p, 0, 0), 96);
    memcpy(c + point_off(p, -5, 0), pb.p, 96);
    EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_NOT_IN_SUBGROUP, e,
                "verifying key delta_g1", NULL);
    free(c);

    /* Infinity (0x40 then zeros) anywhere: refused, even unchecked. */
    for (int k = -6; k < 6; k++) {
        size_t off = point_off(p, k, 0);
        bool g2 = k == 5 || k == -3 || k == -4 || k == -6;
        c = dup_bytes(ref.p, ref.n);
        memset(c + off, 0, g2 ? 192 : 96);
        c[off] = 0x40;
        EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_POINT_AT_INFINITY, e, "infinity",
                    k >= 0 ? "point 0" : "verifying key");
        /* Unflagged all zero: not a point. */
        c[off] = 0;
        EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_NOT_ON_CURVE, e, "not on the curve",
                    NULL);
        /* Infinity flag with a nonzero body; compressed flag; sort flag. */
        memcpy(c + off, ref.p + off, g2 ? 192 : 96);
        c[off] |= 0x40;
        EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_BAD_ENCODING, e, "flag bits", NULL);
        c[off] = (uint8_t)((ref.p[off] & 0x1f) | 0x80);
        EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_BAD_ENCODING, e, "flag bits", NULL);
        c[off] = (uint8_t)((ref.p[off] & 0x1f) | 0x20);
        EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_BAD_ENCODING, e, "flag bits", NULL);
        /* Non-canonical: the first coordinate (x, or x.c1) set to p. */
        uint8_t pbe[48];
        for (int i = 0; i < 48; i++)
            pbe[i] = (uint8_t)(cuzk__fp_p[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
        memcpy(c + off, pbe, 48);
        EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_NOT_CANONICAL, e, "canonical", NULL);
        /* ... and the last coordinate (y, or y.c0) set to all ones
         * (>= p: the top three bits of a field element are never set). */
        memcpy(c + off, ref.p + off, g2 ? 192 : 96);
        memset(c + off + (g2 ? 144 : 48), 0xff, 48);
        EXPECT_FAIL(open_bytes(c, ref.n, 0, &e), CUZK_ERR_NOT_CANONICAL, e, "canonical", NULL);
        free(c);
    }
    free(pb.p);
    free(ref.p);
    setup_free(&s);
}

/* The parallel decoder reports the first bad point of a long vector, like
 * the serial one, wherever the threads found theirs. */
static void test_parallel_first_bad(void) {
    setup s;
    setup_make(&s);
    cuzk_params *p = &s.p;
    /* h of 1023 points (N = 1024): k G for k = 1.. (cheap multiples). */
    enum { NH = 1023 };
    cuzk_g1_aff *h = malloc(NH * sizeof(*h));
    cuzk_g1_aff g;
    cuzk_g1_generator(&g);
    cuzk_g1_jac acc;
    cuzk_g1_jac_set_inf(&acc);
    for (int i = 0; i < NH; i++) {
        cuzk_g1_jac_add_aff_var(&acc, &acc, &g);
        cuzk_g1_jac_to_aff_var(&h[i], &acc);
    }
    cuzk_params_g1_vec h0 = p->h;
    p->h.p = h;
    p->h.n = NH;
    cuzk_test_buf ref = {0};
    ref_params(&ref, p);
    cuzk_error e, e2;
    /* Round trip, parallel encode and decode. */
    uint8_t *enc = malloc(ref.n);
    CHECK_EQ_INT(cuzk_params_encode(enc, ref.n, p, CUZK_PARAMS_PARALLEL, &e), CUZK_OK);
    CHECK_MEM(enc, ref.p, ref.n);
    free(enc);
    cuzk_params q;
    CHECK_EQ_INT(cuzk_params_open_mem(&q, ref.p, ref.n, NAME,
                                      CUZK_PARAMS_CHECK_SUBGROUP | CUZK_PARAMS_PARALLEL, &e),
                 CUZK_OK);
    CHECK(params_equal(&q, p));
    CHECK_EQ_INT(q.domain_size, 1024);
    CHECK_EQ_INT(q.log_domain_size, 10);
    cuzk_params_close(&q);
    /* Bad points at 700 (subgroup), 300 (off curve), 900 (canonical). */
    uint8_t *c = dup_bytes(ref.p, ref.n);
    cuzk_g1_aff ns;
    g1_not_in_subgroup(&ns);
    cuzk_test_buf pb = {0};
    put_g1(&pb, &ns);
    memcpy(c + point_off(p, 1, 700), pb.p, 96);
    c[point_off(p, 1, 900)] |= 0x1f; /* x >= p */
    EXPECT_FAIL(open_bytes(c, ref.n, CUZK_PARAMS_CHECK_SUBGROUP, &e), CUZK_ERR_NOT_IN_SUBGROUP, e,
                "vector h point 700", NULL);
    EXPECT_FAIL(open_bytes(c, ref.n, CUZK_PARAMS_CHECK_SUBGROUP | CUZK_PARAMS_PARALLEL, &e2),
                CUZK_ERR_NOT_IN_SUBGROUP, e2, "vector h point 700", NULL);
    CHECK(strcmp(e.msg, e2.msg) == 0);
    EXPECT_FAIL(open_bytes(c, ref.n, CUZK_PARAMS_PARALLEL, &e), CUZK_ERR_NOT_CANONICAL, e,
                "vector h point 900", NULL);
    c[point_off(p, 1, 300) + 95] ^= 1; /* y changes: off the curve */
    EXPECT_FAIL(open_bytes(c, ref.n, CUZK_PARAMS_CHECK_CURVE | CUZK_PARAMS_PARALLEL, &e),
                CUZK_ERR_NOT_ON_CURVE, e, "vector h point 300", NULL);
    char off[40];
    snprintf(off, sizeof(off), "offset %zu", point_off(p, 1, 300));
    CHECK(cuzk_test_msg_has(&e, off));
    free(c);
    free(pb.p);
    /* The writer refuses infinity, naming where, serial and parallel. */
    cuzk_g1_aff_set_inf(&h[600]);
    uint8_t *out = malloc(ref.n);
    EXPECT_FAIL(cuzk_params_encode(out, ref.n, p, CUZK_PARAMS_PARALLEL, &e),
                CUZK_ERR_POINT_AT_INFINITY, e, "vector h point 600", NULL);
    EXPECT_FAIL(cuzk_params_encode(out, ref.n, p, 0, &e), CUZK_ERR_POINT_AT_INFINITY, e,
                "vector h point 600", NULL);
    char path[512];
    snprintf(path, sizeof(path), "%s/inf.params", tmpdir);
    EXPECT_FAIL(cuzk_params_write(path, p, 0, &e), CUZK_ERR_POINT_AT_INFINITY, e, path, NULL);
    CHECK(access(path, F_OK) != 0); /* nothing left behind */
    free(out);
    cuzk_g2_aff_set_inf(&p->vk.gamma2);
    EXPECT_FAIL(cuzk_params_vk_write(path, &p->vk, &e), CUZK_ERR_POINT_AT_INFINITY, e,
                "gamma_g2", NULL);
    CHECK(access(path, F_OK) != 0);
    free(h);
    /* A vector longer than the writer's chunk (copies of one point: the
     * writer and the unchecked reader do not care), infinity past it. */
    enum { NBIG = 65535 };
    h = malloc(NBIG * sizeof(*h));
    for (int i = 0; i < NBIG; i++) h[i] = p->a.p[0];
    p->h.p = h;
    p->h.n = NBIG;
    p->vk.gamma2 = p->vk.beta2;
    size_t nb = (size_t)cuzk_params_encoded_size(p);
    out = malloc(nb);
    CHECK_EQ_INT(cuzk_params_encode(out, nb, p, CUZK_PARAMS_PARALLEL, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk_params_open_mem(&q, out, nb, NAME, CUZK_PARAMS_PARALLEL, &e), CUZK_OK);
    CHECK(params_equal(&q, p));
    CHECK_EQ_INT(q.domain_size, 65536);
    cuzk_params_close(&q);
    cuzk_g1_aff_set_inf(&h[40000]);
    EXPECT_FAIL(cuzk_params_encode(out, nb, p, CUZK_PARAMS_PARALLEL, &e),
                CUZK_ERR_POINT_AT_INFINITY, e, "vector h point 40000", NULL);
    EXPECT_FAIL(cuzk_params_encode(out, nb, p, 0, &e), CUZK_ERR_POINT_AT_INFINITY, e,
                "vector h point 40000", NULL);
    free(out);
    free(h);
    free(ref.p);
    p->h = h0;
    setup_free(&s);
}

/* ---- proving with the parameters read back, and verification ------------ */

typedef struct {
    cuzk_groth16_proof proof;
    cuzk_fr a, b, c; /* discrete logs of A, B, C */
} tproof;

/*
 * bellman's prover on the points of q (params read from the file): a, b, c
 * at the rows, coefficients by a naive inverse DFT over <omega>, h = (ab -
 * c) / (X^N - 1) taken from the top half of the product, then
 *   A = alpha + sum w_i a_i + r delta, B = beta + sum w_i b_i + s delta,
 *   C = s A + r B1 - r s delta + sum h_i H_i + sum_aux w_j L_j.
 * Also the same in Fr from the toxic waste, for comparison.
 */
static void prove(tproof *out, const setup *s, const cuzk_params *q, const cuzk_fr *x) {
    cuzk_fr w[N_VARS];
    witness(w, x);
    cuzk_fr ev[3][DOM];
    const entry *mats[3] = {mat_a, mat_b, mat_c};
    size_t nes[3] = {NE(mat_a), NE(mat_b), NE(mat_c)};
    for (int m = 0; m < 3; m++) {
        for (int j = 0; j < DOM; j++) cuzk_fr_set_zero(&ev[m][j]);
        for (size_t k = 0; k < nes[m]; k++) {
            cuzk_fr cf, t;
            fr_u64(&cf, mats[m][k].coef);
            cuzk_fr_mul(&t, &cf, &w[mats[m][k].var]);
            cuzk_fr_add(&ev[m][mats[m][k].row], &ev[m][mats[m][k].row], &t);
        }
    }
    /* coef_k = (1/N) sum_j ev_j omega^(-jk) */
    cuzk_fr coef[3][DOM], oinv, ninv, t;
    cuzk_fr_inv(&oinv, &s->omega);
    fr_u64(&t, DOM);
    cuzk_fr_inv(&ninv, &t);
    for (int m = 0; m < 3; m++)
        for (int k = 0; k < DOM; k++) {
            cuzk_fr acc, pw, step;
            cuzk_fr_set_zero(&acc);
            cuzk_fr_set_one(&pw);
            cuzk_fr_pow(&step, &oinv, (const uint64_t[]){(uint64_t)k}, 1);
            for (int j = 0; j < DOM; j++) {
                cuzk_fr_mul(&t, &ev[m][j], &pw);
                cuzk_fr_add(&acc, &acc, &t);
                cuzk_fr_mul(&pw, &pw, &step);
            }
            cuzk_fr_mul(&coef[m][k], &acc, &ninv);
        }
    cuzk_fr prod[2 * DOM - 1];
    for (int k = 0; k < 2 * DOM - 1; k++) cuzk_fr_set_zero(&prod[k]);
    for (int i = 0; i < DOM; i++)
        for (int j = 0; j < DOM; j++) {
            cuzk_fr_mul(&t, &coef[0][i], &coef[1][j]);
            cuzk_fr_add(&prod[i + j], &prod[i + j], &t);
        }
    for (int k = 0; k < DOM; k++) cuzk_fr_sub(&prod[k], &prod[k], &coef[2][k]);
    /* ab - c = h (X^N - 1): the remainder must vanish (witness satisfies). */
    cuzk_fr h[DOM - 1];
    for (int i = 0; i < DOM - 1; i++) h[i] = prod[i + DOM];
    bool exact = cuzk_fr_is_zero(&prod[DOM - 1]);
    for (int k = 0; k < DOM - 1; k++) {
        cuzk_fr_add(&t, &prod[k], &h[k]);
        exact &= cuzk_fr_is_zero(&t);
    }
    CHECK(exact);

    cuzk_fr r, sb;
    cuzk_test_rand_fr_nonzero(&r);
    cuzk_test_rand_fr_nonzero(&sb);
    /* Points from q only. */
    cuzk_g1_jac A, B1, C;
    cuzk_g2_jac B2;
    cuzk_g1_aff_to_jac(&A, &q->vk.alpha1);
    cuzk_g1_aff_to_jac(&B1, &q->vk.beta1);
    cuzk_g2_aff_to_jac(&B2, &q->vk.beta2);
    for (int i = 0; i < N_VARS; i++) {
        if (s->a_idx[i] >= 0) g1_madd(&A, &q->a.p[s->a_idx[i]], &w[i]);
        if (s->b_idx[i] >= 0) {
            g1_madd(&B1, &q->b_g1.p[s->b_idx[i]], &w[i]);
            g2_madd(&B2, &q->b_g2.p[s->b_idx[i]], &w[i]);
        }
    }
    g1_madd(&A, &q->vk.delta1, &r);
    g1_madd(&B1, &q->vk.delta1, &sb);
    g2_madd(&B2, &q->vk.delta2, &sb);
    cuzk_g1_aff Aa, B1a;
    cuzk_g1_jac_to_aff(&Aa, &A);
    cuzk_g1_jac_to_aff(&B1a, &B1);
    cuzk_g1_jac_set_inf(&C);
    g1_madd(&C, &Aa, &sb);
    g1_madd(&C, &B1a, &r);
    cuzk_fr rs;
    cuzk_fr_mul(&rs, &r, &sb);
    cuzk_fr_neg(&rs, &rs);
    g1_madd(&C, &q->vk.delta1, &rs);
    for (int i = 0; i < DOM - 1; i++) g1_madd(&C, &q->h.p[i], &h[i]);
    for (int j = N_INPUTS; j < N_VARS; j++) g1_madd(&C, &q->l.p[j - N_INPUTS], &w[j]);
    out->proof.a = Aa;
    cuzk_g2_jac_to_aff(&out->proof.b, &B2);
    cuzk_g1_jac_to_aff(&out->proof.c, &C);

    /* The same in Fr. */
    cuzk_fr a = s->alpha, b = s->beta, b1, c, dinv, hsum, pw;
    for (int i = 0; i < N_VARS; i++) {
        cuzk_fr_mul(&t, &w[i], &s->u[i]);
        cuzk_fr_add(&a, &a, &t);
        cuzk_fr_mul(&t, &w[i], &s->v[i]);
        cuzk_fr_add(&b, &b, &t);
    }
    cuzk_fr_mul(&t, &r, &s->delta);
    cuzk_fr_add(&a, &a, &t);
    b1 = b;
    cuzk_fr_mul(&t, &sb, &s->delta);
    cuzk_fr_add(&b, &b, &t);
    cuzk_fr_add(&b1, &b1, &t);
    cuzk_fr_mul(&c, &sb, &a);
    cuzk_fr_mul(&t, &r, &b1);
    cuzk_fr_add(&c, &c, &t);
    cuzk_fr_mul(&t, &rs, &s->delta);
    cuzk_fr_add(&c, &c, &t);
    cuzk_fr_inv(&dinv, &s->delta);
    cuzk_fr_set_zero(&hsum);
    cuzk_fr_set_one(&pw);
    for (int i = 0; i < DOM - 1; i++) {
        cuzk_fr_mul(&t, &h[i], &pw);
        cuzk_fr_add(&hsum, &hsum, &t);
        cuzk_fr_mul(&pw, &pw, &s->tau);
    }
    cuzk_fr_mul(&hsum, &hsum, &s->zt);
    cuzk_fr_mul(&hsum, &hsum, &dinv);
    cuzk_fr_add(&c, &c, &hsum);
    for (int j = N_INPUTS; j < N_VARS; j++) {
        lcomb(&t, s, j, &s->delta);
        cuzk_fr_mul(&t, &t, &w[j]);
        cuzk_fr_add(&c, &c, &t);
    }
    out->a = a;
    out->b = b;
    out->c = c;
}

/* ab = alpha beta + sum_inputs w_i (beta u_i + alpha v_i + w_i) + c delta */
static bool qap_identity(const setup *s, const tproof *t, const cuzk_fr *x) {
    cuzk_fr w[N_VARS], lhs, rhs, u;
    witness(w, x);
    cuzk_fr_mul(&lhs, &t->a, &t->b);
    cuzk_fr_mul(&rhs, &s->alpha, &s->beta);
    for (int i = 0; i < N_INPUTS; i++) {
        lcomb(&u, s, i, &s->gamma);
        cuzk_fr_mul(&u, &u, &s->gamma);
        cuzk_fr_mul(&u, &u, &w[i]);
        cuzk_fr_add(&rhs, &rhs, &u);
    }
    cuzk_fr_mul(&u, &t->c, &s->delta);
    cuzk_fr_add(&rhs, &rhs, &u);
    return cuzk_fr_eq(&lhs, &rhs);
}

static void to_plain(uint64_t out[4], const cuzk_fr *a) { cuzk_fr_to_limbs(out, a); }

static void test_prove_verify(void) {
    setup s;
    setup_make(&s);
    /* omega really is a primitive DOM-th root: omega^(DOM/2) = -1. */
    cuzk_fr t, m1;
    cuzk_fr_pow(&t, &s.omega, (const uint64_t[]){DOM / 2}, 1);
    cuzk_fr_set_one(&m1);
    cuzk_fr_neg(&m1, &m1);
    CHECK(cuzk_fr_eq(&t, &m1));
    cuzk_test_buf ref = {0};
    ref_params(&ref, &s.p);
    cuzk_error e;
    cuzk_params q;
    CHECK_EQ_INT(cuzk_params_open_mem(&q, ref.p, ref.n, NAME, CUZK_PARAMS_CHECK_SUBGROUP, &e),
                 CUZK_OK);
    cuzk_groth16_vk vk;
    if (q.vk.n_ic != N_INPUTS || !params_equal(&q, &s.p)) {
        CHECK(!"the parameters did not read back");
        cuzk_params_close(&q);
        free(ref.p);
        setup_free(&s);
        return;
    }
    CHECK_EQ_INT(cuzk_groth16_vk_from_params(&vk, &q.vk, &e), CUZK_OK);
    CHECK_EQ_INT(vk.n_public, 1);

    enum { NP = 3 };
    cuzk_fr xs[NP];
    tproof tp[NP];
    uint64_t inputs[NP][4];
    cuzk_groth16_proof proofs[NP];
    for (int i = 0; i < NP; i++) {
        cuzk_test_rand_fr_nonzero(&xs[i]);
        prove(&tp[i], &s, &q, &xs[i]);
        /* The point proof is the toxic-waste proof, and that one satisfies
         * the verification equation in the exponent. */
        CHECK(g1_eq_scalar(&tp[i].proof.a, &tp[i].a));
        CHECK(g2_eq_scalar(&tp[i].proof.b, &tp[i].b));
        CHECK(g1_eq_scalar(&tp[i].proof.c, &tp[i].c));
        CHECK(qap_identity(&s, &tp[i], &xs[i]));
        to_plain(inputs[i], &xs[i]);
        proofs[i] = tp[i].proof;
        CHECK_EQ_INT(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])inputs[i], 1, &proofs[i], &e),
                     CUZK_OK);
    }
    /* A proof built directly from discrete logs: pick a, b; C from the
     * equation with the IC evaluations. */
    {
        cuzk_fr a, b, c, acc, u, w[N_VARS], dinv;
        cuzk_test_rand_fr_nonzero(&a);
        cuzk_test_rand_fr_nonzero(&b);
        witness(w, &xs[0]);
        cuzk_fr_mul(&c, &a, &b);
        cuzk_fr_mul(&acc, &s.alpha, &s.beta);
        cuzk_fr_sub(&c, &c, &acc);
        for (int i = 0; i < N_INPUTS; i++) {
            lcomb(&u, &s, i, &s.gamma);
            cuzk_fr_mul(&u, &u, &s.gamma);
            cuzk_fr_mul(&u, &u, &w[i]);
            cuzk_fr_sub(&c, &c, &u);
        }
        cuzk_fr_inv(&dinv, &s.delta);
        cuzk_fr_mul(&c, &c, &dinv);
        cuzk_groth16_proof pr;
        g1_mul(&pr.a, &a);
        g2_mul(&pr.b, &b);
        g1_mul(&pr.c, &c);
        CHECK_EQ_INT(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])inputs[0], 1, &pr, &e),
                     CUZK_OK);
        CHECK_EQ_INT(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])inputs[1], 1, &pr, &e),
                     CUZK_ERR_PROOF_INVALID);
    }

    /* Partitions: N x 192 bytes, verified against N input vectors. */
    uint8_t buf192[NP * 192];
    cuzk_proof192_encode_n(buf192, proofs, NP);
    size_t failed = 99;
    CHECK_EQ_INT(cuzk_proof192_verify_partitions(&vk, buf192, sizeof(buf192),
                                                 (const uint64_t(*)[4])inputs, 1, NP, &failed,
                                                 &e),
                 CUZK_OK);
    CHECK_EQ_INT(failed, NP);
    /* Through a .vk file too. */
    {
        char vkpath[512];
        snprintf(vkpath, sizeof(vkpath), "%s/pv.vk", tmpdir);
        CHECK_EQ_INT(cuzk_params_vk_write(vkpath, &q.vk, &e), CUZK_OK);
        cuzk_params_vk fvk;
        CHECK_EQ_INT(cuzk_params_vk_open(&fvk, vkpath, 0, &e), CUZK_OK);
        cuzk_groth16_vk vk2;
        CHECK_EQ_INT(cuzk_groth16_vk_from_params(&vk2, &fvk, &e), CUZK_OK);
        if (vk2.ic != NULL)
            CHECK_EQ_INT(cuzk_proof192_verify_partitions(&vk2, buf192, sizeof(buf192),
                                                         (const uint64_t(*)[4])inputs, 1, NP,
                                                         NULL, &e),
                         CUZK_OK);
        cuzk_groth16_vk_free(&vk2);
        cuzk_params_vk_free(&fvk);
        remove(vkpath);
    }
    /* Partition 1 with partition 2's input: fails at 1. */
    uint64_t swapped[NP][4];
    memcpy(swapped, inputs, sizeof(swapped));
    memcpy(swapped[1], inputs[2], 32);
    EXPECT_FAIL(cuzk_proof192_verify_partitions(&vk, buf192, sizeof(buf192),
                                                (const uint64_t(*)[4])swapped, 1, NP, &failed,
                                                &e),
                CUZK_ERR_PROOF_INVALID, e, "partition 1: ", "pairing");
    CHECK_EQ_INT(failed, 1);
    /* Proofs in the wrong order: partition 0 fails. */
    uint8_t reord[NP * 192];
    memcpy(reord, buf192 + 192, 192);
    memcpy(reord + 192, buf192, 192);
    memcpy(reord + 384, buf192 + 384, 192);
    EXPECT_FAIL(cuzk_proof192_verify_partitions(&vk, reord, sizeof(reord),
                                                (const uint64_t(*)[4])inputs, 1, NP, &failed, &e),
                CUZK_ERR_PROOF_INVALID, e, "partition 0: ", NULL);
    CHECK_EQ_INT(failed, 0);
    /* A damaged partition 2 (C's sort flag flipped: -C, still a valid point). */
    uint8_t dam[NP * 192];
    memcpy(dam, buf192, sizeof(dam));
    dam[2 * 192 + 144] ^= 0x20;
    EXPECT_FAIL(cuzk_proof192_verify_partitions(&vk, dam, sizeof(dam),
                                                (const uint64_t(*)[4])inputs, 1, NP, &failed, &e),
                CUZK_ERR_PROOF_INVALID, e, "partition 2: ", NULL);
    CHECK_EQ_INT(failed, 2);
    /* ... an undecodable partition 1 (B infinity). */
    memcpy(dam, buf192, sizeof(dam));
    memset(dam + 192 + 48, 0, 96);
    dam[192 + 48] = 0xc0;
    EXPECT_FAIL(cuzk_proof192_verify_partitions(&vk, dam, sizeof(dam),
                                                (const uint64_t(*)[4])inputs, 1, NP, &failed, &e),
                CUZK_ERR_POINT_AT_INFINITY, e, "partition 1 (bytes 192..383): B (bytes 48..143)",
                "infinity");
    CHECK_EQ_INT(failed, 1);
    /* Lengths and counts. */
    EXPECT_FAIL(cuzk_proof192_verify_partitions(&vk, buf192, sizeof(buf192) - 1,
                                                (const uint64_t(*)[4])inputs, 1, NP, &failed, &e),
                CUZK_ERR_BAD_LENGTH, e, "575 bytes", "3 partitions");
    EXPECT_FAIL(cuzk_proof192_verify_partitions(&vk, buf192, sizeof(buf192),
                                                (const uint64_t(*)[4])inputs, 2, 1, &failed, &e),
                CUZK_ERR_BAD_LENGTH, e, "1 partitions", NULL);
    EXPECT_FAIL(cuzk_proof192_verify_partitions(&vk, buf192, 192, (const uint64_t(*)[4])inputs, 2,
                                                1, &failed, &e),
                CUZK_ERR_INVALID_ARG, e, "partition 0: ", "2 given");
    /* An input >= r. */
    uint64_t big[NP][4];
    memcpy(big, inputs, sizeof(big));
    memcpy(big[2], cuzk__fr_r, 32);
    EXPECT_FAIL(cuzk_proof192_verify_partitions(&vk, buf192, sizeof(buf192),
                                                (const uint64_t(*)[4])big, 1, NP, &failed, &e),
                CUZK_ERR_NOT_CANONICAL, e, "partition 2: ", NULL);
    /* A tampered proof: A + G. */
    cuzk_groth16_proof bad = proofs[0];
    {
        cuzk_g1_jac j;
        cuzk_g1_aff g;
        cuzk_g1_generator(&g);
        cuzk_g1_aff_to_jac(&j, &bad.a);
        cuzk_g1_jac_add_aff_var(&j, &j, &g);
        cuzk_g1_jac_to_aff(&bad.a, &j);
    }
    CHECK_EQ_INT(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])inputs[0], 1, &bad, &e),
                 CUZK_ERR_PROOF_INVALID);
    cuzk_groth16_vk_free(&vk);
    /* An empty IC cannot make a cuzk_groth16_vk. */
    cuzk_params_vk empty = q.vk;
    empty.n_ic = 0;
    EXPECT_FAIL(cuzk_groth16_vk_from_params(&vk, &empty, &e), CUZK_ERR_INVALID_ARG, e, "IC", NULL);
    cuzk_params_close(&q);
    free(ref.p);
    setup_free(&s);
}

/* ---- the 192-byte encoding ----------------------------------------------- */

static void rand_proof(cuzk_groth16_proof *p) {
    cuzk_fr k;
    cuzk_test_rand_fr_nonzero(&k);
    g1_mul(&p->a, &k);
    cuzk_test_rand_fr_nonzero(&k);
    g2_mul(&p->b, &k);
    cuzk_test_rand_fr_nonzero(&k);
    g1_mul(&p->c, &k);
}

static void test_proof192(void) {
    cuzk_error e;
    for (unsigned long it = 0; it < ITERS(4); it++) {
        cuzk_groth16_proof p, d;
        rand_proof(&p);
        uint8_t b[192];
        cuzk_proof192_encode(b, &p);
        /* Layout by hand: A.x, B.x.c1, B.x.c0, C.x big-endian; compressed
         * flag on each of the three first bytes; sort flags per element. */
        uint8_t x[48];
        cuzk_fp_to_bytes_be(x, &p.a.x);
        CHECK(b[0] == (x[0] | 0x80 | (cuzk_fp_is_lexicographically_largest(&p.a.y) ? 0x20 : 0)));
        CHECK_MEM(b + 1, x + 1, 47);
        cuzk_fp_to_bytes_be(x, &p.b.x.c1);
        CHECK(b[48] ==
              (x[0] | 0x80 | (cuzk_fp2_is_lexicographically_largest(&p.b.y) ? 0x20 : 0)));
        CHECK_MEM(b + 49, x + 1, 47);
        cuzk_fp_to_bytes_be(x, &p.b.x.c0);
        CHECK_MEM(b + 96, x, 48);
        cuzk_fp_to_bytes_be(x, &p.c.x);
        CHECK((b[144] & 0x1f) == x[0] && (b[144] & 0x80));
        CHECK_MEM(b + 145, x + 1, 47);
        CHECK_EQ_INT(cuzk_proof192_decode(&d, b, &e), CUZK_OK);
        CHECK(cuzk_g1_aff_eq(&d.a, &p.a) && cuzk_g2_aff_eq(&d.b, &p.b) &&
              cuzk_g1_aff_eq(&d.c, &p.c));

        /* Every element, every kind of damage. */
        static const struct {
            size_t off, len;
            const char *name;
        } el[3] = {{0, 48, "A (bytes 0..47)"}, {48, 96, "B (bytes 48..143)"},
                   {144, 48, "C (bytes 144..191)"}};
        for (int k = 0; k < 3; k++) {
            uint8_t c[192];
            cuzk_groth16_proof keep = p;
            d = keep;
            /* infinity */
            memcpy(c, b, 192);
            memset(c + el[k].off, 0, el[k].len);
            c[el[k].off] = 0xc0;
            EXPECT_FAIL(cuzk_proof192_decode(&d, c, &e), CUZK_ERR_POINT_AT_INFINITY, e, el[k].name,
                        "proof: ");
            CHECK(memcmp(&d, &keep, sizeof(d)) == 0); /* untouched */
            /* not compressed */
            memcpy(c, b, 192);
            c[el[k].off] &= 0x7f;
            EXPECT_FAIL(cuzk_proof192_decode(&d, c, &e), CUZK_ERR_BAD_ENCODING, e, el[k].name,
                        "flag");
            /* infinity flag on a finite point */
            memcpy(c, b, 192);
            c[el[k].off] |= 0x40;
            EXPECT_FAIL(cuzk_proof192_decode(&d, c, &e), CUZK_ERR_BAD_ENCODING, e, el[k].name,
                        NULL);
            /* non-canonical x (x = p; for B in c1) */
            memcpy(c, b, 192);
            for (int i = 0; i < 48; i++)
                c[el[k].off + i] = (uint8_t)(cuzk__fp_p[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
            c[el[k].off] |= 0x80;
            EXPECT_FAIL(cuzk_proof192_decode(&d, c, &e), CUZK_ERR_NOT_CANONICAL, e, el[k].name,
                        "canonical");
            /* not in the subgroup */
            memcpy(c, b, 192);
            if (k == 1) {
                cuzk_g2_aff ns;
                g2_not_in_subgroup(&ns);
                cuzk_g2_to_zcash_compressed(c + 48, &ns);
            } else {
                cuzk_g1_aff ns;
                g1_not_in_subgroup(&ns);
                cuzk_g1_to_zcash_compressed(c + el[k].off, &ns);
            }
            EXPECT_FAIL(cuzk_proof192_decode(&d, c, &e), CUZK_ERR_NOT_IN_SUBGROUP, e, el[k].name,
                        "subgroup");
        }
        /* an x with no point (G1: x^3 + 4 not a square) */
        {
            uint8_t c[192];
            memcpy(c, b, 192);
            cuzk_fp fx, rhs, four, y;
            cuzk_fp_from_u64(&four, 4);
            for (uint64_t v = 2;; v++) {
                cuzk_fp_from_u64(&fx, v);
                cuzk_fp_sqr(&rhs, &fx);
                cuzk_fp_mul(&rhs, &rhs, &fx);
                cuzk_fp_add(&rhs, &rhs, &four);
                if (!cuzk_fp_sqrt(&y, &rhs)) break;
            }
            cuzk_fp_to_bytes_be(c + 144, &fx);
            c[144] |= 0x80;
            EXPECT_FAIL(cuzk_proof192_decode(&d, c, &e), CUZK_ERR_NOT_ON_CURVE, e,
                        "C (bytes 144..191)", NULL);
        }
        /* Random single-byte damage: refused, or decodes to another proof. */
        for (int r = 0; r < 16; r++) {
            uint8_t c[192];
            memcpy(c, b, 192);
            size_t at = (size_t)(cuzk_test_rand64() % 192);
            uint8_t flip = (uint8_t)(1 + cuzk_test_rand64() % 255);
            c[at] ^= flip;
            cuzk_status st = cuzk_proof192_decode(&d, c, &e);
            if (st == CUZK_OK)
                CHECK(!(cuzk_g1_aff_eq(&d.a, &p.a) && cuzk_g2_aff_eq(&d.b, &p.b) &&
                        cuzk_g1_aff_eq(&d.c, &p.c)));
            else
                CHECK(cuzk_test_msg_has(&e, "proof: "));
        }
    }
    /* Concatenations. */
    enum { NP = 4 };
    cuzk_groth16_proof ps[NP];
    for (int i = 0; i < NP; i++) rand_proof(&ps[i]);
    uint8_t all[NP * 192];
    cuzk_proof192_encode_n(all, ps, NP);
    for (int i = 0; i < NP; i++) {
        uint8_t one[192];
        cuzk_proof192_encode(one, &ps[i]);
        CHECK_MEM(all + 192 * i, one, 192);
    }
    cuzk_groth16_proof *out = NULL;
    size_t n = 0;
    CHECK_EQ_INT(cuzk_proof192_decode_n(&out, &n, all, sizeof(all), &e), CUZK_OK);
    CHECK_EQ_INT(n, NP);
    for (size_t i = 0; out != NULL && i < n; i++)
        CHECK(cuzk_g1_aff_eq(&out[i].a, &ps[i].a) && cuzk_g2_aff_eq(&out[i].b, &ps[i].b) &&
              cuzk_g1_aff_eq(&out[i].c, &ps[i].c));
    free(out);
    static const size_t bad_len[] = {0, 1, 191, 193, 383};
    for (size_t i = 0; i < sizeof(bad_len) / sizeof(bad_len[0]); i++) {
        out = (cuzk_groth16_proof *)1;
        n = 7;
        EXPECT_FAIL(cuzk_proof192_decode_n(&out, &n, all, bad_len[i], &e), CUZK_ERR_BAD_LENGTH, e,
                    "multiple of 192", NULL);
        CHECK(out == NULL && n == 0);
    }
    all[2 * 192 + 150] ^= 0xff; /* partition 2, C's x: no point or not canonical or ... */
    all[2 * 192 + 144] = (uint8_t)((all[2 * 192 + 144] & 0xe0) | 0x1f); /* x >= p for sure */
    EXPECT_FAIL(cuzk_proof192_decode_n(&out, &n, all, sizeof(all), &e), CUZK_ERR_NOT_CANONICAL, e,
                "partition 2 (bytes 384..575): C (bytes 144..191)", NULL);
    CHECK(out == NULL && n == 0);
}

/* ---- seed corpus --------------------------------------------------------- */

static void write_corpus(const char *dir) {
    setup s;
    setup_make(&s);
    cuzk_test_buf ref = {0};
    ref_params(&ref, &s.p);
    cuzk_test_write_seed(dir, "params", "tiny_circuit.params", ref.p, ref.n);
    cuzk_test_write_seed(dir, "params", "tiny_circuit.vk", ref.p, count_off(&s.p, 1));
    free(ref.p);
    setup_free(&s);
    printf("wrote the params seed corpus under %s/params\n", dir);
}

/* ---- deferred points ------------------------------------------------------- */

/* Open with CUZK_PARAMS_DEFER_POINTS: the head as a full open gives it, the
 * vectors left in the file and read back byte for byte, a bad point
 * explained as open would explain it, the refusals, and a file that shrank
 * after open. */
static void test_deferred(void) {
    setup s;
    setup_make(&s);
    cuzk_test_buf ref = {0};
    ref_params(&ref, &s.p);
    char path[512];
    snprintf(path, sizeof(path), "%s/deferred.params", tmpdir);
    cuzk_error e;
    CHECK_EQ_INT(cuzk_params_write(path, &s.p, 0, &e), CUZK_OK);
    cuzk_params q, full;
    CHECK_EQ_INT(cuzk_params_open(&full, path, 0, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk_params_open(&q, path, CUZK_PARAMS_DEFER_POINTS | CUZK_PARAMS_PARALLEL, &e),
                 CUZK_OK);
    CHECK(q.deferred && !full.deferred);
    CHECK(q.h.p == NULL && q.l.p == NULL && q.a.p == NULL && q.b_g1.p == NULL &&
          q.b_g2.p == NULL);
    CHECK_EQ_INT(q.vk.n_ic, full.vk.n_ic);
    CHECK(cuzk_g2_aff_eq(&q.vk.delta2, &full.vk.delta2));
    CHECK_EQ_INT(q.domain_size, full.domain_size);
    const cuzk_params_g1_vec *v1[4] = {&full.h, &full.l, &full.a, &full.b_g1};
    const cuzk_params_g1_vec *d1[4] = {&q.h, &q.l, &q.a, &q.b_g1};
    for (int k = 0; k < 4; k++) { /* every G1 vector: the file's bytes, the same points */
        CHECK_EQ_INT(d1[k]->n, v1[k]->n);
        CHECK_EQ_INT(d1[k]->offset, v1[k]->offset);
        uint8_t enc[16 * 96];
        CHECK(v1[k]->n <= 16);
        CHECK_EQ_INT(cuzk_params_read_encoded(&q, (cuzk_params_vec)k, 0, v1[k]->n, enc, &e),
                     CUZK_OK);
        CHECK_MEM(enc, ref.p + v1[k]->offset, v1[k]->n * 96);
        for (uint64_t i = 0; i < v1[k]->n; i++) {
            cuzk_g1_aff pt;
            CHECK_EQ_INT(cuzk_g1_from_zcash(&pt, enc + i * 96, 96, 0), CUZK_OK);
            CHECK(cuzk_g1_aff_eq(&pt, &v1[k]->p[i]));
            CHECK_EQ_INT(cuzk_params_point_check(&q, (cuzk_params_vec)k, i, &e), CUZK_OK);
        }
    }
    uint8_t enc2[192 * 2];
    CHECK_EQ_INT(q.b_g2.n, 2);
    CHECK_EQ_INT(cuzk_params_read_encoded(&q, CUZK_PARAMS_VEC_B_G2, 1, 1, enc2, &e), CUZK_OK);
    CHECK_MEM(enc2, ref.p + full.b_g2.offset + 192, 192);
    /* ranges and misuse */
    EXPECT_FAIL(cuzk_params_read_encoded(&q, CUZK_PARAMS_VEC_B_G2, 1, 2, enc2, &e),
                CUZK_ERR_INVALID_ARG, e, "vector b_g2", "outside");
    EXPECT_FAIL(cuzk_params_point_check(&q, CUZK_PARAMS_VEC_H, q.h.n, &e), CUZK_ERR_INVALID_ARG,
                e, "vector h", "outside");
    EXPECT_FAIL(cuzk_params_read_encoded(&full, CUZK_PARAMS_VEC_H, 0, 1, enc2, &e),
                CUZK_ERR_INVALID_ARG, e, "deferred", NULL);
    cuzk_params r;
    EXPECT_FAIL(cuzk_params_open(&r, path, CUZK_PARAMS_DEFER_POINTS | CUZK_PARAMS_CHECK_CURVE, &e),
                CUZK_ERR_INVALID_ARG, e, path, "reader");
    EXPECT_FAIL(cuzk_params_open_mem(&r, ref.p, ref.n, NAME, CUZK_PARAMS_DEFER_POINTS, &e),
                CUZK_ERR_INVALID_ARG, e, NAME, "file");
    EXPECT_FAIL(cuzk_params_read_encoded(&q, (cuzk_params_vec)5, 0, 1, enc2, &e),
                CUZK_ERR_INVALID_ARG, e, "no vector 5", NULL);
    /* nothing reads the missing points: the writer, the encoder refuse */
    uint8_t *out = malloc(ref.n);
    EXPECT_FAIL(cuzk_params_encode(out, ref.n, &q, 0, &e), CUZK_ERR_INVALID_ARG, e, path,
                "the encoder");
    free(out);
    char wpath[512];
    snprintf(wpath, sizeof(wpath), "%s/deferred_copy.params", tmpdir);
    EXPECT_FAIL(cuzk_params_write(wpath, &q, 0, &e), CUZK_ERR_INVALID_ARG, e, "the writer", NULL);
    CHECK(access(wpath, F_OK) != 0);
    CHECK_EQ_INT(cuzk_params_require_points(&full, "x", &e), CUZK_OK);
    /* a bad point: open with deferred points does not see it, point_check
     * names it as a full open does */
    char bad_path[512];
    snprintf(bad_path, sizeof(bad_path), "%s/deferred_bad.params", tmpdir);
    uint8_t *bad = malloc(ref.n);
    memcpy(bad, ref.p, ref.n);
    bad[full.l.offset + 2 * 96 + 95] ^= 1; /* l point 2: y off by one bit, off the curve */
    FILE *f = fopen(bad_path, "wb");
    CHECK(f != NULL && fwrite(bad, 1, ref.n, f) == ref.n && fclose(f) == 0);
    cuzk_error e_full;
    EXPECT_FAIL(cuzk_params_open(&r, bad_path, CUZK_PARAMS_CHECK_CURVE, &e_full),
                CUZK_ERR_NOT_ON_CURVE, e_full, "vector l point 2", NULL);
    CHECK_EQ_INT(cuzk_params_open(&r, bad_path, CUZK_PARAMS_DEFER_POINTS, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk_params_point_check(&r, CUZK_PARAMS_VEC_L, 1, &e), CUZK_OK);
    EXPECT_FAIL(cuzk_params_point_check(&r, CUZK_PARAMS_VEC_L, 2, &e), CUZK_ERR_NOT_ON_CURVE, e,
                "vector l point 2", NULL);
    CHECK(strcmp(e.msg, e_full.msg) == 0);
    /* the file shrinks after open: a read past its new end is an I/O error */
    CHECK(truncate(bad_path, (off_t)(ref.n - 100)) == 0);
    EXPECT_FAIL(cuzk_params_read_encoded(&r, CUZK_PARAMS_VEC_B_G2, 1, 1, enc2, &e), CUZK_ERR_IO,
                e, "vector b_g2", "shorter");
    CHECK_EQ_INT(cuzk_params_read_encoded(&r, CUZK_PARAMS_VEC_H, 0, 1, enc2, &e), CUZK_OK);
    cuzk_params_close(&r);
    uint8_t zero[sizeof(r)];
    memset(zero, 0, sizeof(zero));
    CHECK_MEM(&r, zero, sizeof(r));
    free(bad);
    unlink(bad_path);
    cuzk_params_close(&q);
    cuzk_params_close(&full);
    unlink(path);
    free(ref.p);
    setup_free(&s);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/cuzk_test_params.XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_roundtrip);
    RUN(test_truncated);
    RUN(test_counts);
    RUN(test_points);
    RUN(test_parallel_first_bad);
    RUN(test_deferred);
    RUN(test_prove_verify);
    RUN(test_proof192);
    const char *corpus = getenv("CUZK_PARAMS_CORPUS");
    if (corpus && *corpus) write_corpus(corpus);
    rmdir(tmpdir);
    return cuzk_test_finish();
}
