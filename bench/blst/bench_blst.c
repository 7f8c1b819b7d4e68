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
 *
 * `bench_blst msm [--log N]... [--reps R]` times blst_p1s_mult_pippenger
 * (single-threaded, 255-bit scalars, caller scratch) the way `cuzk bench msm
 * --g1 --threads 1` times cuzk: same inputs (same generator, same order of
 * draws), same columns, thread CPU clock, min / median of R runs after a
 * warm-up.
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

/* ---- msm mode --------------------------------------------------------------- */

/* A scalar below r as 4 little-endian limbs (bench_msm.c's msm_rand_scalar). */
static void rand_scalar_lt_r(uint64_t k[4]) {
    do {
        for (int i = 0; i < 4; i++) k[i] = rand64();
        k[3] &= 0x7fffffffffffffffULL;
    } while (!lt_n(k, R_LIMBS, 4));
}

static void limbs_to_bytes(uint8_t out[32], const uint64_t k[4]) {
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(k[i / 8] >> (8 * (i % 8)));
}

static double msm_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int bench_msm(int argc, char **argv) {
    int logs[32], nlogs = 0, reps = 3;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--log") == 0 && i + 1 < argc && nlogs < 32) {
            logs[nlogs++] = atoi(argv[++i]);
            if (logs[nlogs - 1] < 1 || logs[nlogs - 1] > 26) return 2;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1 || reps > CUZK_BENCH_MAX_BATCHES) return 2;
        } else if (strcmp(argv[i], "--g1") == 0 || strcmp(argv[i], "--no-batch-add") == 0) {
            /* accepted for symmetry with cuzk bench msm */
        } else {
            fprintf(stderr, "usage: bench_blst msm [--log N]... [--reps R]\n");
            return 2;
        }
    }
    if (nlogs == 0)
        for (int lg = 10; lg <= 18; lg += 2) logs[nlogs++] = lg;
    int maxlog = 0;
    for (int i = 0; i < nlogs; i++) maxlog = logs[i] > maxlog ? logs[i] : maxlog;
    size_t nmax = (size_t)1 << maxlog;
    /* Draw order as in bench_msm.c: all scalars, then 8 step scalars, then the
     * walk P_i+1 = P_i + S_(rand % 8) from S_0. */
    uint8_t *k = malloc(nmax * 32);
    blst_p1_affine *bases = malloc(nmax * sizeof(*bases));
    blst_p1 *tmp = malloc(4096 * sizeof(*tmp));
    if (!k || !bases || !tmp) return 1;
    for (size_t i = 0; i < nmax; i++) {
        uint64_t l[4];
        rand_scalar_lt_r(l);
        limbs_to_bytes(k + 32 * i, l);
    }
    blst_p1 steps[8], cur;
    for (int j = 0; j < 8; j++) {
        uint64_t l[4];
        uint8_t b[32];
        rand_scalar_lt_r(l);
        limbs_to_bytes(b, l);
        blst_p1_mult(&steps[j], blst_p1_generator(), b, 255);
    }
    cur = steps[0];
    for (size_t i0 = 0; i0 < nmax; i0 += 4096) {
        size_t m = nmax - i0 < 4096 ? nmax - i0 : 4096;
        for (size_t i = 0; i < m; i++) {
            blst_p1_add_or_double(&cur, &cur, &steps[rand64() % 8]);
            tmp[i] = cur;
        }
        const blst_p1 *pp[2] = {tmp, NULL};
        blst_p1s_to_affine(bases + i0, pp, m);
    }
    free(tmp);
    printf("blst bench msm (%s; blst_p1s_mult_pippenger, 1 thread; min / median of %d runs "
           "after a warm-up; thread-cpu clock)\n", BENCH_BLST_KERNELS, reps);
    printf("%-10s %5s %9s %7s %3s %11s %11s %10s\n", "operation", "log2n", "n", "threads", "c",
           "min ms", "median ms", "ns/point");
    for (int li = 0; li < nlogs; li++) {
        size_t n = (size_t)1 << logs[li];
        limb_t *scratch = malloc(blst_p1s_mult_pippenger_scratch_sizeof(n));
        if (!scratch) return 1;
        const blst_p1_affine *pts[2] = {bases, NULL};
        const uint8_t *scs[2] = {k, NULL};
        double t[CUZK_BENCH_MAX_BATCHES];
        for (int r = -1; r < reps; r++) {
            blst_p1 out;
            double t0 = msm_now_ms();
            blst_p1s_mult_pippenger(&out, pts, n, scs, 255, scratch);
            double t1 = msm_now_ms();
            cuzk_bench_sink ^= *(const uint64_t *)&out;
            if (r >= 0) t[r] = t1 - t0;
        }
        free(scratch);
        /* blst's window: log2(n) - 3 above 2^12, - 2 above 2^4 (pippenger_window_size) */
        int c = logs[li] > 12 ? logs[li] - 3 : logs[li] > 4 ? logs[li] - 2 : 2;
        double mn = cuzk_bench_min(t, reps), md = cuzk_bench_median(t, reps);
        printf("%-10s %5d %9zu %7u %3d %11.3f %11.3f %10.1f\n", "g1_msm", logs[li], n, 1u, c, mn,
               md, mn * 1e6 / (double)n);
        fflush(stdout);
    }
    free(k);
    free(bases);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "msm") == 0) return bench_msm(argc - 2, argv + 2);
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
