/*
 * bench_blst.c — times blst (supranational) the way `cuzk bench field` times
 * cuzk: same operation names, same inputs (same seeded generator), same
 * chaining, same method and columns (bench/bench.h). Built and run by
 * bench/blst/compare.sh against a blst source tree fetched at build time;
 * no blst code lives in this repository.
 *
 * Mapping (blst 0.3.10 public API):
 *   fp_mul/fp_sqr        blst_fp_mul / blst_fp_sqr
 *   fp_inv               blst_fp_inverse (constant-time)
 *   fp_inv_var           blst_fp_eucl_inverse (in 0.3.10 the same
 *                        constant-time routine: blst has no variable-time one)
 *   fp_add               blst_fp_add
 *   fr_mul               blst_fr_mul
 *   fp2_*, fp12_*        blst_fp2_mul/sqr, blst_fp12_mul/sqr
 *   g1_add_aff/g2_add_aff blst_p{1,2}_add_or_double_affine (complete)
 *   g1_dbl/g2_dbl        blst_p{1,2}_double
 *   g1_mul/g2_mul        blst_p{1,2}_mult, 255 bits (constant-time, GLV/GLS)
 *   *_mul_var            none (blst has no variable-time scalar multiplication)
 *   pairing              blst_miller_loop + blst_final_exp
 *   pairing_product_2    blst_pairing ctx: 2 x raw_aggregate, commit
 *                        (one shared Miller loop), finalverify (final exp,
 *                        compare with 1), on (P,Q), (-P,Q)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blst.h"
#include "blst_aux.h"
#include "../bench.h"

#ifndef BENCH_BLST_KERNELS
#define BENCH_BLST_KERNELS "blst asm"
#endif

/* The same generator and seed as bench/bench_field.c. */
static uint64_t bench_rng = 0x243f6a8885a308d3ULL;

static uint64_t rand64(void) {
    uint64_t z = (bench_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* p and r, plain little-endian limbs, for rejection sampling. */
static const uint64_t P_LIMBS[6] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL,
                                    0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
                                    0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                    0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

static int lt_n(const uint64_t *a, const uint64_t *b, int n) {
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}

static void rand_fp(blst_fp *r) {
    uint64_t l[6];
    do {
        for (int i = 0; i < 6; i++) l[i] = rand64();
        l[5] &= 0x1fffffffffffffffULL;
    } while (!lt_n(l, P_LIMBS, 6));
    blst_fp_from_uint64(r, l);
}

static void rand_fr(blst_fr *r) {
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++) l[i] = rand64();
        l[3] &= 0x7fffffffffffffffULL;
    } while (!lt_n(l, R_LIMBS, 4));
    blst_fr_from_uint64(r, l);
}

/* A 255-bit scalar (bit 254 set) as little-endian bytes. */
static void rand_scalar(uint8_t k[32]) {
    for (int i = 0; i < 4; i++) {
        uint64_t w = rand64();
        if (i == 3) w = (w & 0x3fffffffffffffffULL) | 0x4000000000000000ULL;
        for (int j = 0; j < 8; j++) k[8 * i + j] = (uint8_t)(w >> (8 * j));
    }
}

typedef struct {
    blst_fp a, b, one;
    blst_fr ra, rb;
    blst_fp2 a2, b2;
    blst_fp12 a12, b12;
    uint8_t k[32];
    blst_p1 p1;
    blst_p1_affine p1a, p1a_neg;
    blst_p2 p2;
    blst_p2_affine p2a;
    blst_pairing *pctx;
} ctx_t;

static uint64_t op_fp_mul(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) blst_fp_mul(&x, &x, &c->b);
    c->a = x;
    return x.l[0];
}

static uint64_t op_fp_sqr(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) blst_fp_sqr(&x, &x);
    c->a = x;
    return x.l[0];
}

static uint64_t op_fp_add(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) blst_fp_add(&x, &x, &c->b);
    c->a = x;
    return x.l[0];
}

static uint64_t op_fp_inv(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) {
        blst_fp_inverse(&x, &x);
        blst_fp_add(&x, &x, &c->one);
    }
    c->a = x;
    return x.l[0];
}

static uint64_t op_fp_inv_var(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_fp x = c->a;
    for (uint64_t i = 0; i < n; i++) {
        blst_fp_eucl_inverse(&x, &x);
        blst_fp_add(&x, &x, &c->one);
    }
    c->a = x;
    return x.l[0];
}

static uint64_t op_fr_mul(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_fr x = c->ra;
    for (uint64_t i = 0; i < n; i++) blst_fr_mul(&x, &x, &c->rb);
    c->ra = x;
    return x.l[0];
}

static uint64_t op_fp2_mul(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_fp2 x = c->a2;
    for (uint64_t i = 0; i < n; i++) blst_fp2_mul(&x, &x, &c->b2);
    c->a2 = x;
    return x.fp[0].l[0];
}

static uint64_t op_fp2_sqr(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_fp2 x = c->a2;
    for (uint64_t i = 0; i < n; i++) blst_fp2_sqr(&x, &x);
    c->a2 = x;
    return x.fp[0].l[0];
}

static uint64_t op_fp12_mul(void *vc, uint64_t n) {
    ctx_t *c = vc;
    for (uint64_t i = 0; i < n; i++) blst_fp12_mul(&c->a12, &c->a12, &c->b12);
    return c->a12.fp6[0].fp2[0].fp[0].l[0];
}

static uint64_t op_fp12_sqr(void *vc, uint64_t n) {
    ctx_t *c = vc;
    for (uint64_t i = 0; i < n; i++) blst_fp12_sqr(&c->a12, &c->a12);
    return c->a12.fp6[0].fp2[0].fp[0].l[0];
}

static uint64_t op_g1_add_aff(void *vc, uint64_t n) {
    ctx_t *c = vc;
    for (uint64_t i = 0; i < n; i++) blst_p1_add_or_double_affine(&c->p1, &c->p1, &c->p1a);
    return c->p1.x.l[0];
}

static uint64_t op_g1_dbl(void *vc, uint64_t n) {
    ctx_t *c = vc;
    for (uint64_t i = 0; i < n; i++) blst_p1_double(&c->p1, &c->p1);
    return c->p1.x.l[0];
}

static uint64_t op_g2_add_aff(void *vc, uint64_t n) {
    ctx_t *c = vc;
    for (uint64_t i = 0; i < n; i++) blst_p2_add_or_double_affine(&c->p2, &c->p2, &c->p2a);
    return c->p2.x.fp[0].l[0];
}

static uint64_t op_g2_dbl(void *vc, uint64_t n) {
    ctx_t *c = vc;
    for (uint64_t i = 0; i < n; i++) blst_p2_double(&c->p2, &c->p2);
    return c->p2.x.fp[0].l[0];
}

static uint64_t op_g1_mul(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_p1 t;
    for (uint64_t i = 0; i < n; i++) {
        blst_p1_mult(&t, &c->p1, c->k, 255);
        c->p1 = t;
    }
    return c->p1.x.l[0];
}

static uint64_t op_g2_mul(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_p2 t;
    for (uint64_t i = 0; i < n; i++) {
        blst_p2_mult(&t, &c->p2, c->k, 255);
        c->p2 = t;
    }
    return c->p2.x.fp[0].l[0];
}

static uint64_t op_pairing(void *vc, uint64_t n) {
    ctx_t *c = vc;
    blst_fp12 f;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        blst_miller_loop(&f, &c->p2a, &c->p1a);
        blst_final_exp(&f, &f);
        acc += f.fp6[0].fp2[0].fp[0].l[0];
    }
    return acc;
}

static uint64_t op_pairing_product_2(void *vc, uint64_t n) {
    ctx_t *c = vc;
    uint64_t ok = 0;
    for (uint64_t i = 0; i < n; i++) {
        blst_pairing_init(c->pctx, 0, NULL, 0);
        blst_pairing_raw_aggregate(c->pctx, &c->p2a, &c->p1a);
        blst_pairing_raw_aggregate(c->pctx, &c->p2a, &c->p1a_neg);
        blst_pairing_commit(c->pctx);
        ok += blst_pairing_finalverify(c->pctx, NULL) ? 1 : 0;
    }
    if (ok != n) {
        fprintf(stderr, "bench_blst: e(P,Q)*e(-P,Q) != 1\n");
        exit(1);
    }
    return ok;
}

typedef struct {
    const char *name, *desc;
    cuzk_bench_fn fn;
} bench_op;

static const bench_op ops[] = {
    {"fp_mul", "blst_fp_mul", op_fp_mul},
    {"fp_sqr", "blst_fp_sqr", op_fp_sqr},
    {"fp_add", "blst_fp_add", op_fp_add},
    {"fp_inv", "blst_fp_inverse (constant-time)", op_fp_inv},
    {"fp_inv_var", "blst_fp_eucl_inverse (same CT routine in 0.3.10)", op_fp_inv_var},
    {"fr_mul", "blst_fr_mul", op_fr_mul},
    {"fp2_mul", "blst_fp2_mul", op_fp2_mul},
    {"fp2_sqr", "blst_fp2_sqr", op_fp2_sqr},
    {"fp12_mul", "blst_fp12_mul", op_fp12_mul},
    {"fp12_sqr", "blst_fp12_sqr", op_fp12_sqr},
    {"g1_add_aff", "blst_p1_add_or_double_affine", op_g1_add_aff},
    {"g1_dbl", "blst_p1_double", op_g1_dbl},
    {"g2_add_aff", "blst_p2_add_or_double_affine", op_g2_add_aff},
    {"g2_dbl", "blst_p2_double", op_g2_dbl},
    {"g1_mul", "blst_p1_mult, 255 bits", op_g1_mul},
    {"g1_mul_var", "(blst has no variable-time mult)", NULL},
    {"g2_mul", "blst_p2_mult, 255 bits", op_g2_mul},
    {"g2_mul_var", "(blst has no variable-time mult)", NULL},
    {"pairing", "blst_miller_loop + blst_final_exp", op_pairing},
    {"pairing_product_2", "blst_pairing raw_aggregate x2, finalverify", op_pairing_product_2},
};
#define N_OPS (sizeof(ops) / sizeof(ops[0]))

int main(int argc, char **argv) {
    cuzk_bench_cfg cfg;
    if (cuzk_bench_cfg_init(&cfg, argc - 1, argv + 1, CLOCK_THREAD_CPUTIME_ID) != 0) {
        fprintf(stderr, "usage: bench_blst [--json] [--iters N] [--clock cpu|wall]\n");
        return 2;
    }
    static ctx_t c;
    uint64_t one[6] = {1, 0, 0, 0, 0, 0};
    rand_fp(&c.a);
    rand_fp(&c.b);
    rand_fr(&c.ra);
    rand_fr(&c.rb);
    rand_fp(&c.a2.fp[0]);
    rand_fp(&c.a2.fp[1]);
    rand_fp(&c.b2.fp[0]);
    rand_fp(&c.b2.fp[1]);
    for (int i = 0; i < 12; i++) rand_fp((blst_fp *)&c.a12 + i);
    for (int i = 0; i < 12; i++) rand_fp((blst_fp *)&c.b12 + i);
    blst_fp_from_uint64(&c.one, one);
    rand_scalar(c.k);
    /* Points: multiples of the generators by random scalars. */
    uint8_t s[32];
    blst_p1 t1;
    blst_p2 t2;
    rand_scalar(s);
    blst_p1_mult(&t1, blst_p1_generator(), s, 255);
    blst_p1_to_affine(&c.p1a, &t1);
    blst_p1_cneg(&t1, 1);
    blst_p1_to_affine(&c.p1a_neg, &t1);
    rand_scalar(s);
    blst_p2_mult(&t2, blst_p2_generator(), s, 255);
    blst_p2_to_affine(&c.p2a, &t2);
    rand_scalar(s);
    blst_p1_mult(&c.p1, blst_p1_generator(), s, 255);
    rand_scalar(s);
    blst_p2_mult(&c.p2, blst_p2_generator(), s, 255);
    c.pctx = malloc(blst_pairing_sizeof());
    if (!c.pctx) return 1;

    cuzk_bench_result res[N_OPS];
    if (!cfg.json) cuzk_bench_print_header("blst bench field", BENCH_BLST_KERNELS, &cfg);
    for (size_t i = 0; i < N_OPS; i++) {
        memset(&res[i], 0, sizeof(res[i]));
        res[i].name = ops[i].name;
        res[i].desc = ops[i].desc;
        if (ops[i].fn) cuzk_bench_time(&cfg, &res[i], ops[i].fn, &c);
        if (!cfg.json) cuzk_bench_print_row(&res[i]);
    }
    if (cfg.json) cuzk_bench_print_json("field", "blst", BENCH_BLST_KERNELS, &cfg, res, (int)N_OPS);
    free(c.pctx);
    return 0;
}
