/*
 * bench_field.c — `cuzk bench field`: ns/op of the field, group and pairing
 * primitives (method in bench.h, how to read it in doc/bench.md).
 *
 * Every operation chains its result into its next input (x = x*y, P = 2P,
 * P = k*P, ...), so each batch measures latency, not throughput, and nothing
 * can be hoisted or dropped. bench/blst/bench_blst.c times blst the same way
 * under the same names, so the two tables line up row by row.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuzk.h"
#include "ff/fp.h"
#include "ff/fp12.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "pairing/pairing.h"

/* Inputs: fixed pseudo-random values (splitmix64 from a constant seed), so
 * runs compare like with like. */
typedef struct {
    cuzk_fp a, b;
    cuzk_fr ra, rb;
    cuzk_fp2 a2, b2;
    cuzk_fp12 a12, b12;
    uint64_t k[4]; /* 255-bit scalar, bit 254 set, plain limbs */
    cuzk_g1_jac p1;
    cuzk_g1_aff p1a, p1a_neg;
    cuzk_g2_jac p2;
    cuzk_g2_aff p2a;
} field_ctx;

static uint64_t bench_rng = 0x243f6a8885a308d3ULL;

static uint64_t rand64(void) {
    uint64_t z = (bench_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rand_fp(cuzk_fp *r) {
    uint64_t l[CUZK_FP_LIMBS];
    do {
        for (int i = 0; i < CUZK_FP_LIMBS; i++) l[i] = rand64();
        l[CUZK_FP_LIMBS - 1] &= 0x1fffffffffffffffULL; /* p < 2^381 */
    } while (!cuzk__lt_n(l, cuzk__fp_p, CUZK_FP_LIMBS));
    cuzk_fp_from_limbs(r, l);
}

static void rand_fr(cuzk_fr *r) {
    uint64_t l[CUZK_FR_LIMBS];
    do {
        for (int i = 0; i < CUZK_FR_LIMBS; i++) l[i] = rand64();
        l[CUZK_FR_LIMBS - 1] &= 0x7fffffffffffffffULL; /* r < 2^255 */
    } while (!cuzk__lt_n(l, cuzk__fr_r, CUZK_FR_LIMBS));
    cuzk_fr_from_limbs(r, l);
}

static void rand_scalar(uint64_t k[4]) {
    for (int i = 0; i < 4; i++) k[i] = rand64();
    k[3] = (k[3] & 0x3fffffffffffffffULL) | 0x4000000000000000ULL;
}

/* ---- field operations ---------------------------------------------------- */

static uint64_t op_fp_mul(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) cuzk_fp_mul(&x, &x, &c->b);
    c->a = x;
    return x.l[0];
}

static uint64_t op_fp_add(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) cuzk_fp_add(&x, &x, &c->b);
    c->a = x;
    return x.l[0];
}

static uint64_t op_fp_sqr(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) cuzk_fp_sqr(&x, &x);
    c->a = x;
    return x.l[0];
}

/* x = 1/x + 1: the +1 (a few ns) keeps the input moving so the variable-time
 * inverse does not cycle between two values. */
static uint64_t op_fp_inv(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_fp_inv(&x, &x);
        cuzk_fp_add(&x, &x, &cuzk__fp_one);
    }
    c->a = x;
    return x.l[0];
}

static uint64_t op_fp_inv_var(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_fp_inv_var(&x, &x);
        cuzk_fp_add(&x, &x, &cuzk__fp_one);
    }
    c->a = x;
    return x.l[0];
}

static uint64_t op_fr_mul(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_fr x = c->ra;
    for (uint64_t i = 0; i < n; i++) cuzk_fr_mul(&x, &x, &c->rb);
    c->ra = x;
    return x.l[0];
}

/* Extension fields: not in the list above, but they locate a gap between
 * the Fp rows and the group/pairing rows. */
static uint64_t op_fp2_mul(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_fp2 x = c->a2;
    for (uint64_t i = 0; i < n; i++) cuzk_fp2_mul(&x, &x, &c->b2);
    c->a2 = x;
    return x.c0.l[0];
}

static uint64_t op_fp2_sqr(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_fp2 x = c->a2;
    for (uint64_t i = 0; i < n; i++) cuzk_fp2_sqr(&x, &x);
    c->a2 = x;
    return x.c0.l[0];
}

static uint64_t op_fp12_mul(void *vc, uint64_t n) {
    field_ctx *c = vc;
    for (uint64_t i = 0; i < n; i++) cuzk_fp12_mul(&c->a12, &c->a12, &c->b12);
    return c->a12.c0.c0.c0.l[0];
}

static uint64_t op_fp12_sqr(void *vc, uint64_t n) {
    field_ctx *c = vc;
    for (uint64_t i = 0; i < n; i++) cuzk_fp12_sqr(&c->a12, &c->a12);
    return c->a12.c0.c0.c0.l[0];
}

/* ---- group operations --------------------------------------------------- */
static uint64_t op_g1_add_aff(void *vc, uint64_t n) {
    field_ctx *c = vc;
    for (uint64_t i = 0; i < n; i++) cuzk_g1_jac_add_aff(&c->p1, &c->p1, &c->p1a);
    return c->p1.x.l[0];
}

static uint64_t op_g1_dbl(void *vc, uint64_t n) {
    field_ctx *c = vc;
    for (uint64_t i = 0; i < n; i++) cuzk_g1_jac_dbl(&c->p1, &c->p1);
    return c->p1.x.l[0];
}

static uint64_t op_g2_add_aff(void *vc, uint64_t n) {
    field_ctx *c = vc;
    for (uint64_t i = 0; i < n; i++) cuzk_g2_jac_add_aff(&c->p2, &c->p2, &c->p2a);
    return c->p2.x.c0.l[0];
}

static uint64_t op_g2_dbl(void *vc, uint64_t n) {
    field_ctx *c = vc;
    for (uint64_t i = 0; i < n; i++) cuzk_g2_jac_dbl(&c->p2, &c->p2);
    return c->p2.x.c0.l[0];
}

/* P = k*P with the same k each time: the point keeps changing. */
static uint64_t op_g1_mul(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_g1_jac t;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_g1_jac_mul(&t, &c->p1, c->k, 4);
        c->p1 = t;
    }
    return c->p1.x.l[0];
}

static uint64_t op_g1_mul_var(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_g1_jac t;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_g1_jac_mul_var(&t, &c->p1, c->k, 4);
        c->p1 = t;
    }
    return c->p1.x.l[0];
}

static uint64_t op_g2_mul(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_g2_jac t;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_g2_jac_mul(&t, &c->p2, c->k, 4);
        c->p2 = t;
    }
    return c->p2.x.c0.l[0];
}

static uint64_t op_g2_mul_var(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_g2_jac t;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_g2_jac_mul_var(&t, &c->p2, c->k, 4);
        c->p2 = t;
    }
    return c->p2.x.c0.l[0];
}

static void setup_points(field_ctx *c) {
    uint64_t s[4];
    cuzk_g1_aff g1;
    cuzk_g2_aff g2;
    cuzk_g1_jac j1, t1;
    cuzk_g2_jac j2, t2;
    cuzk_g1_generator(&g1);
    cuzk_g2_generator(&g2);
    cuzk_g1_aff_to_jac(&j1, &g1);
    cuzk_g2_aff_to_jac(&j2, &g2);
    /* Random multiples of the generators, drawn in bench_blst.c's order. */
    rand_scalar(s);
    cuzk_g1_jac_mul_var(&t1, &j1, s, 4);
    cuzk_g1_jac_to_aff(&c->p1a, &t1);
    cuzk_g1_aff_neg(&c->p1a_neg, &c->p1a);
    rand_scalar(s);
    cuzk_g2_jac_mul_var(&t2, &j2, s, 4);
    cuzk_g2_jac_to_aff(&c->p2a, &t2);
    rand_scalar(s);
    cuzk_g1_jac_mul_var(&c->p1, &j1, s, 4);
    rand_scalar(s);
    cuzk_g2_jac_mul_var(&c->p2, &j2, s, 4);
}

/* ---- pairings ------------------------------------------------------------ */
static uint64_t op_pairing(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_fp12 f;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_pairing(&f, &c->p1a, &c->p2a);
        acc += f.c0.c0.c0.l[0];
    }
    return acc;
}

/* e(P,Q) * e(-P,Q) == 1: true every time, and checked, so a broken build
 * cannot post a fast time. */
static uint64_t op_pairing_product_2(void *vc, uint64_t n) {
    field_ctx *c = vc;
    cuzk_g1_aff ps[2] = {c->p1a, c->p1a_neg};
    cuzk_g2_aff qs[2] = {c->p2a, c->p2a};
    uint64_t ok = 0;
    for (uint64_t i = 0; i < n; i++) ok += cuzk_pairing_product_is_one(ps, qs, 2) ? 1 : 0;
    if (ok != n) {
        fprintf(stderr, "cuzk bench field: e(P,Q)*e(-P,Q) != 1\n");
        exit(1);
    }
    return ok;
}

/* ---- the table ----------------------------------------------------------- */

typedef struct {
    const char *name, *desc;
    cuzk_bench_fn fn; /* NULL: no such operation (prints "-") */
} bench_op;

static const bench_op field_ops[] = {
    {"fp_mul", "Fp Montgomery multiplication", op_fp_mul},
    {"fp_sqr", "Fp Montgomery squaring", op_fp_sqr},
    {"fp_add", "Fp addition", op_fp_add},
    {"fp_inv", "Fp inverse, constant-time", op_fp_inv},
    {"fp_inv_var", "Fp inverse, variable-time", op_fp_inv_var},
    {"fr_mul", "Fr Montgomery multiplication", op_fr_mul},
    {"fp2_mul", "Fp2 multiplication", op_fp2_mul},
    {"fp2_sqr", "Fp2 squaring", op_fp2_sqr},
    {"fp12_mul", "Fp12 multiplication", op_fp12_mul},
    {"fp12_sqr", "Fp12 squaring", op_fp12_sqr},
    {"g1_add_aff", "G1 Jacobian += affine (complete)", op_g1_add_aff},
    {"g1_dbl", "G1 Jacobian doubling", op_g1_dbl},
    {"g2_add_aff", "G2 Jacobian += affine (complete)", op_g2_add_aff},
    {"g2_dbl", "G2 Jacobian doubling", op_g2_dbl},
    {"g1_mul", "G1 k*P, 255-bit k, constant-time", op_g1_mul},
    {"g1_mul_var", "G1 k*P, 255-bit k, variable-time", op_g1_mul_var},
    {"g2_mul", "G2 k*P, 255-bit k, constant-time", op_g2_mul},
    {"g2_mul_var", "G2 k*P, 255-bit k, variable-time", op_g2_mul_var},
    {"pairing", "e(P,Q): Miller loop + final exp", op_pairing},
    {"pairing_product_2", "e(P1,Q1)*e(P2,Q2) == 1 check", op_pairing_product_2},
};
#define N_OPS (sizeof(field_ops) / sizeof(field_ops[0]))

int cuzk__bench_field(int argc, char **argv) {
    cuzk_bench_cfg cfg;
    /* Single-threaded: time on the thread's CPU clock by default (bench.h). */
    int left = cuzk_bench_cfg_init(&cfg, argc, argv, CLOCK_THREAD_CPUTIME_ID);
    if (left > 0 && (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0)) {
        printf("usage: cuzk bench field [--json] [--iters N] [--clock cpu|wall]\n");
        return 0;
    }
    if (left < 0)
        fprintf(stderr, "cuzk bench field: %s\n", cfg.bad);
    else if (left > 0)
        fprintf(stderr, "cuzk bench field: unknown option '%s'\n", argv[0]);
    if (left != 0) {
        fprintf(stderr,
                "usage: cuzk bench field [--json] [--iters N] [--clock cpu|wall]\n"
                "  N >= 1 (default %d, or CUZK_BENCH_ITERS): each batch lasts N x 4 ms\n"
                "  clock (default cpu, or CUZK_BENCH_CLOCK): thread CPU time or wall time\n",
                CUZK_BENCH_DEFAULT_ITERS);
        return 2;
    }
    field_ctx ctx;
    rand_fp(&ctx.a);
    rand_fp(&ctx.b);
    rand_fr(&ctx.ra);
    rand_fr(&ctx.rb);
    rand_fp(&ctx.a2.c0);
    rand_fp(&ctx.a2.c1);
    rand_fp(&ctx.b2.c0);
    rand_fp(&ctx.b2.c1);
    /* cuzk_fp12 is 12 cuzk_fp in flattened order (fp12.h), as blst_fp12 is. */
    for (int i = 0; i < 12; i++) rand_fp((cuzk_fp *)&ctx.a12 + i);
    for (int i = 0; i < 12; i++) rand_fp((cuzk_fp *)&ctx.b12 + i);
    rand_scalar(ctx.k);
    setup_points(&ctx);

    cuzk_bench_result res[N_OPS];
    if (!cfg.json) cuzk_bench_print_header("cuzk bench field", cuzk_cpu_kernels(), &cfg);
    for (size_t i = 0; i < N_OPS; i++) {
        memset(&res[i], 0, sizeof(res[i]));
        res[i].name = field_ops[i].name;
        res[i].desc = field_ops[i].desc;
        if (field_ops[i].fn) cuzk_bench_time(&cfg, &res[i], field_ops[i].fn, &ctx);
        if (!cfg.json) cuzk_bench_print_row(&res[i]);
    }
    if (cfg.json) cuzk_bench_print_json("field", "cuzk", cuzk_cpu_kernels(), &cfg, res, (int)N_OPS);
    return 0;
}
