/*
 * test_gpu_setup.c — the development setup's fixed-base multiplications on
 * the GPU (src/gpu/fixed_base.cu through src/gpu/setup_gpu.h) against the
 * CPU's (src/ec/fixed_base.h), byte for byte.
 *
 * Without a device (these run first, everywhere): the setup's accelerator
 * hook (setup.h, cuzk_setup_accel) driven by a CPU accelerator that counts
 * its calls: same .params bytes as the plain setup with another window and
 * small h batches, every point made once through it, load/unload paired;
 * a failing multiplication or load names the vector and keeps the
 * accelerator's words; an accelerator without a callback is refused.
 *
 * With a device (CUZK_GPU_REQUIRED=1 makes a missing one a failure):
 *  - plain scalars, G1 and G2, windows 2, 5, 11, 12, 16: the edge scalars
 *    0, 1, 2, r-1, r, r+1, 2^255, 2^256-1, carry patterns, next to random
 *    256-bit ones, against cuzk_g*_fixed_base_mul_batch_var;
 *  - Montgomery Fr scalars (zeros and ones among random ones) against the
 *    _fr_var batch at n = 1, 2, 1017 and 2^16 + 123 (G1) / 2^13 + 7 (G2),
 *    with the default chunking and with small chunks and few device threads,
 *    so that the two-stream pipeline, grid-stride slices and the per-thread
 *    batch inversion over points with infinities in between all run;
 *  - argument checks;
 *  - whole setups of porep circuits (src/circuit/gen.h) at 2^10 and 2^14 with
 *    fixed toxic waste (cuzk__setup_toxic_from_seed): .params bytes with the
 *    GPU accelerator equal those without; 2^10 again with small chunks and h
 *    batches, and the accelerator reused for a second setup.
 * --bench adds timings of whole calls (host copies included): G1 2^25 and G2
 * 2^24 random Fr scalars, windows 12 and 16, ns per point against the
 * multiply-add floor (14.05e12 IMAD/s, an H200's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ec/fixed_base.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "circuit/gen.h"
#include "gpu/gpu.h"
#include "gpu/gpu_fixed_base.h"
#include "gpu/setup_gpu.h"
#include "gpu_test.h"
#include "harness.h"
#include "io/params.h"
#include "groth16/setup.h"

static const uint64_t R_LIMBS[4] = CUZK__FR_R;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- circuits and parameters --------------------------------------------------- */

static cuzk_gen *porep_circuit(unsigned log_k) {
    cuzk_error err;
    cuzk_gen_params gp = {CUZK_GEN_POREP, log_k, -1.0, 42, 0};
    cuzk_gen *g = NULL;
    cuzk_status st = cuzk_gen_new(&g, &gp, &err);
    if (st != CUZK_OK) printf("gen 2^%u: %s\n", log_k, err.msg);
    CHECK_EQ_INT(st, CUZK_OK);
    return st == CUZK_OK ? g : NULL;
}

static void fixed_toxic(cuzk_setup_toxic *tw) {
    static const char seed[] = "test_gpu_setup";
    cuzk__setup_toxic_from_seed(tw, seed, sizeof(seed) - 1);
}

/* The .params bytes of p (malloc'd, NULL after a failed check). */
static uint8_t *encode(const cuzk_params *p, size_t *len) {
    cuzk_error err;
    *len = (size_t)cuzk_params_encoded_size(p);
    uint8_t *b = malloc(*len ? *len : 1);
    CHECK(b != NULL);
    if (b == NULL) return NULL;
    cuzk_status st = cuzk_params_encode(b, *len, p, CUZK_PARAMS_PARALLEL, &err);
    if (st != CUZK_OK) printf("encode: %s\n", err.msg);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        free(b);
        return NULL;
    }
    return b;
}

/* Same .params bytes; says where they first differ. */
static void check_same_params(const cuzk_params *a, const cuzk_params *b, const char *tag) {
    size_t la = 0, lb = 0;
    uint8_t *ea = encode(a, &la), *eb = encode(b, &lb);
    CHECK_EQ_INT(la, lb);
    if (ea != NULL && eb != NULL && la == lb) {
        size_t i = 0;
        while (i < la && ea[i] == eb[i]) i++;
        if (i < la) printf("  %s: .params differ first at byte %zu of %zu\n", tag, i, la);
        CHECK(i == la);
    }
    free(ea);
    free(eb);
}

/* ---- the hook with a CPU accelerator (no device needed) ------------------------ */

typedef struct {
    const cuzk_g1_fixed_base *t1;
    const cuzk_g2_fixed_base *t2;
    unsigned c1, c2; /* the windows load saw (the tables die with the setup) */
    unsigned loads, unloads, g1_calls, g2_calls;
    uint64_t g1_points, g2_points;
    size_t g1_max;
    unsigned fail_g1_call; /* 1-based call that fails; 0 = none */
    int fail_load;
} cpu_accel;

static cuzk_status cpu_load(void *ctx, const cuzk_g1_fixed_base *g1, const cuzk_g2_fixed_base *g2,
                            cuzk_error *err) {
    cpu_accel *a = ctx;
    a->loads++;
    if (a->fail_load) return cuzk__fail(err, CUZK_ERR_GPU, "the test table upload fails");
    a->t1 = g1;
    a->t2 = g2;
    a->c1 = g1->c;
    a->c2 = g2->c;
    return CUZK_OK;
}

static cuzk_status cpu_g1(void *ctx, cuzk_g1_aff *out, const cuzk_fr *k, size_t n,
                          cuzk_error *err) {
    cpu_accel *a = ctx;
    if (++a->g1_calls == a->fail_g1_call)
        return cuzk__fail(err, CUZK_ERR_GPU, "the test device fell over");
    a->g1_points += n;
    if (n > a->g1_max) a->g1_max = n;
    return cuzk_g1_fixed_base_mul_batch_fr_var(a->t1, out, k, n, 0);
}

static cuzk_status cpu_g2(void *ctx, cuzk_g2_aff *out, const cuzk_fr *k, size_t n,
                          cuzk_error *err) {
    (void)err;
    cpu_accel *a = ctx;
    a->g2_calls++;
    a->g2_points += n;
    return cuzk_g2_fixed_base_mul_batch_fr_var(a->t2, out, k, n, 0);
}

static void cpu_unload(void *ctx) { ((cpu_accel *)ctx)->unloads++; }

static cuzk_setup_accel cpu_accel_of(cpu_accel *a) {
    memset(a, 0, sizeof(*a));
    cuzk_setup_accel x = {"test accelerator", a, 7, 100, cpu_load, cpu_g1, cpu_g2, cpu_unload};
    return x;
}

static void test_hook_cpu(void) {
    cuzk_gen *g = porep_circuit(10);
    if (g == NULL) return;
    const cuzk_circuit *c = cuzk_gen_circuit(g);
    cuzk_setup_toxic tw;
    fixed_toxic(&tw);
    cuzk_error err;
    cuzk_params p0, p1;
    CHECK_EQ_INT(cuzk_groth16_setup_dev(&p0, c, &tw, 0, &err), CUZK_OK);
    cpu_accel ca;
    cuzk_setup_accel acc = cpu_accel_of(&ca);
    cuzk_status st = cuzk__groth16_setup_dev_accel(&p1, c, &tw, 0, &acc, NULL, &err);
    if (st != CUZK_OK) printf("  setup with the CPU accelerator: %s\n", err.msg);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        check_same_params(&p0, &p1, "CPU accelerator");
        uint64_t g1 = 3 + p1.vk.n_ic + p1.h.n + p1.l.n + p1.a.n + p1.b_g1.n;
        CHECK_EQ_INT(ca.g1_points, g1);
        CHECK_EQ_INT(ca.g2_points, 3 + p1.b_g2.n);
        /* vk, IC, l, a, b_g1, then h in batches of at most 100 */
        CHECK_EQ_INT(ca.g1_calls, 5 + (p1.h.n + 99) / 100);
        CHECK_EQ_INT(ca.g1_max, p1.l.n > p1.a.n ? p1.l.n : p1.a.n);
        CHECK_EQ_INT(ca.g2_calls, 2);
        CHECK(ca.c1 == 7 && ca.c2 == 7);
        cuzk_params_close(&p1);
    }
    CHECK_EQ_INT(ca.loads, 1);
    CHECK_EQ_INT(ca.unloads, 1);
    cuzk_params_close(&p0);
    cuzk_gen_free(g);
}

static void test_hook_failures(void) {
    cuzk_gen *g = porep_circuit(10);
    if (g == NULL) return;
    const cuzk_circuit *c = cuzk_gen_circuit(g);
    cuzk_setup_toxic tw;
    fixed_toxic(&tw);
    cuzk_error err;
    cuzk_params p;
    cpu_accel ca;

    /* the second G1 batch (IC) fails: the status and words come through */
    cuzk_setup_accel acc = cpu_accel_of(&ca);
    ca.fail_g1_call = 2;
    CHECK_EQ_INT(cuzk__groth16_setup_dev_accel(&p, c, &tw, 0, &acc, NULL, &err), CUZK_ERR_GPU);
    CHECK(strstr(err.msg, "IC") != NULL);
    CHECK(strstr(err.msg, "test accelerator") != NULL);
    CHECK(strstr(err.msg, "the test device fell over") != NULL);
    CHECK(p.vk.ic == NULL && p.h.p == NULL && p.path == NULL);
    CHECK_EQ_INT(ca.loads, 1);
    CHECK_EQ_INT(ca.unloads, 1);
    printf("  %s\n", err.msg);

    /* an h batch fails */
    acc = cpu_accel_of(&ca);
    ca.fail_g1_call = 7;
    CHECK_EQ_INT(cuzk__groth16_setup_dev_accel(&p, c, &tw, 0, &acc, NULL, &err), CUZK_ERR_GPU);
    CHECK(strstr(err.msg, "vector h") != NULL);
    CHECK_EQ_INT(ca.unloads, 1);

    /* load fails: no multiplication, unload still due */
    acc = cpu_accel_of(&ca);
    ca.fail_load = 1;
    CHECK_EQ_INT(cuzk__groth16_setup_dev_accel(&p, c, &tw, 0, &acc, NULL, &err), CUZK_ERR_GPU);
    CHECK(strstr(err.msg, "tables") != NULL && strstr(err.msg, "upload fails") != NULL);
    CHECK_EQ_INT(ca.g1_calls + ca.g2_calls, 0);
    CHECK_EQ_INT(ca.unloads, 1);

    /* a window the tables refuse */
    acc = cpu_accel_of(&ca);
    acc.window_bits = CUZK_FIXED_BASE_MAX_C + 1;
    CHECK_EQ_INT(cuzk__groth16_setup_dev_accel(&p, c, &tw, 0, &acc, NULL, &err),
                 CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "window") != NULL);
    CHECK_EQ_INT(ca.loads, 0);

    /* no G2 multiplication */
    acc = cpu_accel_of(&ca);
    acc.g2_mul = NULL;
    CHECK_EQ_INT(cuzk__groth16_setup_dev_accel(&p, c, &tw, 0, &acc, NULL, &err),
                 CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ca.loads, 0);
    cuzk_gen_free(g);
}

/* ---- GPU against CPU, batches --------------------------------------------------- */

/* Edge scalar `which` for window c (plain limbs, any 256-bit value). */
#define N_EDGE 16
static void edge_scalar(uint64_t k[4], unsigned which, unsigned c) {
    memset(k, 0, 32);
    switch (which) {
    case 0: return;
    case 1: k[0] = 1; return;
    case 2: k[0] = 2; return;
    case 3: memcpy(k, R_LIMBS, 32); k[0] -= 1; return; /* r - 1 */
    case 4: memcpy(k, R_LIMBS, 32); return;            /* r: infinity */
    case 5: memcpy(k, R_LIMBS, 32); k[0] += 1; return; /* r + 1 = 1 */
    case 6: k[3] = (uint64_t)1 << 63; return;          /* 2^255 */
    case 7: for (int j = 0; j < 4; j++) k[j] = ~(uint64_t)0; return; /* 2^256 - 1 */
    case 8: /* every window's top bit: carries ripple through all windows */
        for (unsigned b = c - 1; b < 256; b += c) k[b / 64] |= (uint64_t)1 << (b % 64);
        return;
    case 9: /* 2^(c-2) in every window */
        for (unsigned b = c - 2; b < 256; b += c) k[b / 64] |= (uint64_t)1 << (b % 64);
        return;
    case 10: k[0] = ((uint64_t)1 << c) - 1; return;
    case 11: k[1] = ~(uint64_t)0; return;
    case 12: k[3] = ~(uint64_t)0; return;
    case 13: for (int j = 0; j < 4; j++) k[j] = 0xaaaaaaaaaaaaaaaaULL; return;
    case 14: /* 2r: infinity again, from a scalar above r */
        memcpy(k, R_LIMBS, 32);
        k[3] = k[3] << 1 | k[2] >> 63;
        k[2] = k[2] << 1 | k[1] >> 63;
        k[1] = k[1] << 1 | k[0] >> 63;
        k[0] <<= 1;
        return;
    default: k[0] = 1, k[3] = (uint64_t)1 << 62; return;
    }
}

/* Index of the first differing element of two arrays of n elements of `each`
 * bytes, or n. */
static size_t first_diff(const void *a, const void *b, size_t n, size_t each) {
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)a + i * each, (const char *)b + i * each, each) != 0) return i;
    return n;
}

/* The configuration gpu_batch gives its handles (zero: the defaults). */
static cuzk__gpu_fixed_base_config fb_cfg;

/* GPU batch of group g over table words tbl (c, nwin, per_win) into out. */
static cuzk_status gpu_batch(cuzk__gpu_fb_group grp, const void *tbl, unsigned c, unsigned nwin,
                             size_t per_win, void *out, const void *k, size_t n,
                             cuzk__gpu_fb_scalars form) {
    cuzk__gpu_fixed_base *h = NULL;
    cuzk_status st = cuzk__gpu_fixed_base_upload(&h, grp, tbl, c, nwin, per_win, 0);
    cuzk__gpu_fixed_base_configure(h, &fb_cfg);
    if (st == CUZK_OK) st = cuzk__gpu_fixed_base_mul_batch(h, out, k, n, form);
    if (st != CUZK_OK) printf("  GPU: %s: %s\n", cuzk_status_name(st), cuzk__gpu_last_error());
    cuzk__gpu_fixed_base_free(h);
    return st;
}

/* One comparison: n scalars (plain words or Fr), GPU vs CPU in group g. */
static void compare(int g2, unsigned c, const void *k, size_t n, int fr, const char *tag) {
    size_t each = g2 ? sizeof(cuzk_g2_aff) : sizeof(cuzk_g1_aff);
    void *cpu = malloc(n * each), *gpu = malloc(n * each);
    CHECK(cpu != NULL && gpu != NULL);
    if (cpu == NULL || gpu == NULL) goto out;
    memset(gpu, 0x5a, n * each); /* nothing left unwritten passes */
    cuzk_status st;
    if (!g2) {
        cuzk_g1_fixed_base t;
        cuzk_g1_aff gen;
        cuzk_g1_generator(&gen);
        CHECK_EQ_INT(cuzk_g1_fixed_base_init(&t, &gen, c, n, 0), CUZK_OK);
        st = fr ? cuzk_g1_fixed_base_mul_batch_fr_var(&t, cpu, k, n, 0)
                : cuzk_g1_fixed_base_mul_batch_var(&t, cpu, k, n, 0);
        CHECK_EQ_INT(st, CUZK_OK);
        st = gpu_batch(CUZK__GPU_FB_G1, t.tbl, t.c, t.nwin, t.per_win, gpu, k, n,
                       fr ? CUZK__GPU_FB_MONT : CUZK__GPU_FB_PLAIN);
        cuzk_g1_fixed_base_free(&t);
    } else {
        cuzk_g2_fixed_base t;
        cuzk_g2_aff gen;
        cuzk_g2_generator(&gen);
        CHECK_EQ_INT(cuzk_g2_fixed_base_init(&t, &gen, c, n, 0), CUZK_OK);
        st = fr ? cuzk_g2_fixed_base_mul_batch_fr_var(&t, cpu, k, n, 0)
                : cuzk_g2_fixed_base_mul_batch_var(&t, cpu, k, n, 0);
        CHECK_EQ_INT(st, CUZK_OK);
        st = gpu_batch(CUZK__GPU_FB_G2, t.tbl, t.c, t.nwin, t.per_win, gpu, k, n,
                       fr ? CUZK__GPU_FB_MONT : CUZK__GPU_FB_PLAIN);
        cuzk_g2_fixed_base_free(&t);
    }
    CHECK_EQ_INT(st, CUZK_OK);
    size_t d = first_diff(cpu, gpu, n, each);
    if (d < n) printf("  %s: G%d c=%u n=%zu: point %zu differs\n", tag, g2 ? 2 : 1, c, n, d);
    CHECK(d == n);
out:
    free(cpu);
    free(gpu);
}

static void test_plain_edges(void) {
    static const unsigned cs[] = {2, 5, 11, 12, 16};
    enum { N = 3 * N_EDGE + 40 };
    uint64_t(*k)[4] = malloc(N * sizeof(*k));
    CHECK(k != NULL);
    if (k == NULL) return;
    for (size_t ci = 0; ci < sizeof(cs) / sizeof(cs[0]); ci++) {
        unsigned c = cs[ci];
        /* each edge alone, then among random 256-bit values */
        size_t n = 0;
        for (unsigned e = 0; e < N_EDGE; e++) edge_scalar(k[n++], e, c);
        for (unsigned e = 0; e < N_EDGE; e++) {
            for (int j = 0; j < 4; j++) k[n][j] = cuzk_test_rand64();
            n++;
            edge_scalar(k[n++], e, c);
        }
        while (n < N) {
            for (int j = 0; j < 4; j++) k[n][j] = cuzk_test_rand64();
            n++;
        }
        for (int g2 = 0; g2 < 2; g2++) {
            compare(g2, c, k, n, 0, "plain edges");
            compare(g2, c, k, 1, 0, "plain n = 1");
        }
        /* every edge as the only scalar, G1 (n = 1 pipelines) */
        for (unsigned e = 0; e < N_EDGE; e++) compare(0, c, k[e], 1, 0, "plain single");
    }
    free(k);
}

/* n Fr scalars: random, with zeros, ones and r - 1 spread in. */
static cuzk_fr *fr_scalars(size_t n) {
    cuzk_fr *k = malloc((n ? n : 1) * sizeof(cuzk_fr));
    CHECK(k != NULL);
    if (k == NULL) return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t l[4];
        for (int j = 0; j < 4; j++) l[j] = cuzk_test_rand64();
        l[3] &= 0x3fffffffffffffffULL; /* < 2^254 < r */
        cuzk_fr_from_limbs(&k[i], l);
        unsigned sel = (unsigned)(cuzk_test_rand64() % 61);
        if (sel == 0) cuzk_fr_set_zero(&k[i]);
        if (sel == 1) cuzk_fr_set_one(&k[i]);
        if (sel == 2) {
            cuzk_fr one;
            cuzk_fr_set_one(&one);
            cuzk_fr_neg(&k[i], &one);
        }
    }
    if (n > 2) cuzk_fr_set_zero(&k[n / 2]); /* at least one infinity inside a run */
    return k;
}

static void test_fr_batches(void) {
    static const cuzk__gpu_fixed_base_config ks[] = {{0, 0}, {97, 5}, {4096, 33}, {1000, 1}};
    static const size_t ns1[] = {1, 2, 1017, ((size_t)1 << 16) + 123};
    static const size_t ns2[] = {1, 2, 1017, ((size_t)1 << 13) + 7};
    for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
        fb_cfg = ks[ki];
        for (int g2 = 0; g2 < 2; g2++)
            for (size_t ni = 0; ni < 4; ni++) {
                size_t n = g2 ? ns2[ni] : ns1[ni];
                if (ks[ki].max_threads == 1 && n > 5000) continue; /* one thread: minutes */
                cuzk_fr *k = fr_scalars(n);
                if (k == NULL) continue;
                char tag[96];
                snprintf(tag, sizeof tag, "Fr, chunk %zu, threads %u", ks[ki].chunk,
                         ks[ki].max_threads);
                compare(g2, 0 /* the CPU's window for n */, k, n, 1, tag);
                if (n == ns1[2] || n == ns2[2]) compare(g2, 16, k, n, 1, tag);
                free(k);
            }
    }
    memset(&fb_cfg, 0, sizeof fb_cfg);
}

static void test_args(void) {
    cuzk_g1_fixed_base t;
    cuzk_g1_aff gen;
    cuzk_g1_generator(&gen);
    CHECK_EQ_INT(cuzk_g1_fixed_base_init(&t, &gen, 8, 0, 0), CUZK_OK);
    cuzk__gpu_fixed_base *h = NULL;
    const uint64_t *w = (const uint64_t *)t.tbl;
    CHECK_EQ_INT(cuzk__gpu_fixed_base_upload(&h, CUZK__GPU_FB_G1, NULL, 8, t.nwin, t.per_win, 0),
                 CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_upload(&h, CUZK__GPU_FB_G1, w, 8, t.nwin + 1, t.per_win, 0),
                 CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_upload(&h, CUZK__GPU_FB_G1, w, 8, t.nwin, t.per_win * 2, 0),
                 CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_upload(&h, CUZK__GPU_FB_G1, w, 1, 257, 1, 0),
                 CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_upload(&h, CUZK__GPU_FB_G1, w, 17, 16, 1u << 16, 0),
                 CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_upload(&h, (cuzk__gpu_fb_group)3, w, 8, t.nwin, t.per_win, 0),
                 CUZK_ERR_INVALID_ARG);
    CHECK(h == NULL);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_upload(&h, CUZK__GPU_FB_G1, w, 8, t.nwin, t.per_win, 0),
                 CUZK_OK);
    uint64_t k[4] = {5, 0, 0, 0};
    cuzk_g1_aff out;
    CHECK_EQ_INT(cuzk__gpu_fixed_base_mul_batch(h, NULL, k, 1, CUZK__GPU_FB_PLAIN),
                 CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_mul_batch(h, (uint64_t *)&out, NULL, 1, CUZK__GPU_FB_PLAIN),
                 CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_mul_batch(h, NULL, NULL, 0, CUZK__GPU_FB_PLAIN), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_mul_batch(h, (uint64_t *)&out, k, 1, (cuzk__gpu_fb_scalars)2),
                 CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__gpu_fixed_base_mul_batch(NULL, (uint64_t *)&out, k, 1, CUZK__GPU_FB_PLAIN),
                 CUZK_ERR_INVALID_ARG);
    /* the handle still works after refused calls: 5 G */
    CHECK_EQ_INT(cuzk__gpu_fixed_base_mul_batch(h, (uint64_t *)&out, k, 1, CUZK__GPU_FB_PLAIN),
                 CUZK_OK);
    cuzk_g1_aff ref;
    CHECK_EQ_INT(cuzk_g1_fixed_base_mul_batch_var(&t, &ref, (const uint64_t(*)[4])k, 1, 0),
                 CUZK_OK);
    CHECK_MEM(&out, &ref, sizeof ref);
    cuzk__gpu_fixed_base_free(h);
    cuzk__gpu_fixed_base_free(NULL);
    cuzk_g1_fixed_base_free(&t);
}

/* ---- whole setups ------------------------------------------------------------- */

static void setup_case(unsigned log_k, size_t chunk, unsigned threads, size_t h_chunk) {
    cuzk_gen *g = porep_circuit(log_k);
    if (g == NULL) return;
    const cuzk_circuit *c = cuzk_gen_circuit(g);
    cuzk_setup_toxic tw;
    fixed_toxic(&tw);
    cuzk_error err;
    cuzk_params pc, pg;
    double t0 = now_s();
    CHECK_EQ_INT(cuzk_groth16_setup_dev(&pc, c, &tw, 0, &err), CUZK_OK);
    double t_cpu = now_s() - t0;
    cuzk_setup_accel acc;
    cuzk_status st = cuzk__gpu_setup_accel_open(&acc, cuzk_gpu_test_dev, 0, &err);
    if (st != CUZK_OK) printf("  accelerator: %s\n", err.msg);
    CHECK_EQ_INT(st, CUZK_OK);
    if (h_chunk) acc.h_chunk = h_chunk;
    const cuzk__gpu_fixed_base_config cfg = {chunk, threads};
    cuzk__gpu_setup_accel_configure(&acc, &cfg);
    /* twice on one accelerator: load after unload must work */
    for (int rep = 0; rep < 2 && st == CUZK_OK; rep++) {
        cuzk_setup_times tm;
        t0 = now_s();
        st = cuzk__groth16_setup_dev_accel(&pg, c, &tw, 0, &acc, &tm, &err);
        double t_gpu = now_s() - t0;
        if (st != CUZK_OK) printf("  GPU setup: %s\n", err.msg);
        CHECK_EQ_INT(st, CUZK_OK);
        if (st != CUZK_OK) break;
        char tag[64];
        snprintf(tag, sizeof tag, "setup 2^%u", log_k);
        check_same_params(&pc, &pg, tag);
        printf("  porep 2^%u (chunk %zu, threads %u, h batch %zu): CPU %.2f s, GPU %.2f s "
               "(tables %.2f, G1 %.2f, G2 %.2f)\n",
               log_k, chunk, threads, acc.h_chunk, t_cpu, t_gpu, tm.tables, tm.g1, tm.g2);
        cuzk_params_close(&pg);
    }
    cuzk__gpu_setup_accel_close(&acc);
    cuzk_params_close(&pc);
    cuzk_gen_free(g);
}

static void test_setup_2_10(void) { setup_case(10, 0, 0, 0); }
static void test_setup_2_10_small_chunks(void) { setup_case(10, 333, 40, 300); }
static void test_setup_2_14(void) { setup_case(14, 0, 0, 0); }

/* ---- timings ------------------------------------------------------------------ */

static void bench_one(int g2, unsigned c, size_t n) {
    cuzk_fr *k = fr_scalars(n);
    size_t each = g2 ? sizeof(cuzk_g2_aff) : sizeof(cuzk_g1_aff);
    void *out = malloc(n * each);
    CHECK(k != NULL && out != NULL);
    cuzk__gpu_fixed_base *h = NULL;
    cuzk_status st;
    if (!g2) {
        cuzk_g1_fixed_base t;
        cuzk_g1_aff gen;
        cuzk_g1_generator(&gen);
        CHECK_EQ_INT(cuzk_g1_fixed_base_init(&t, &gen, c, n, 0), CUZK_OK);
        st = cuzk__gpu_fixed_base_upload(&h, CUZK__GPU_FB_G1, (const uint64_t *)t.tbl, t.c,
                                         t.nwin, t.per_win, 0);
        cuzk_g1_fixed_base_free(&t);
    } else {
        cuzk_g2_fixed_base t;
        cuzk_g2_aff gen;
        cuzk_g2_generator(&gen);
        CHECK_EQ_INT(cuzk_g2_fixed_base_init(&t, &gen, c, n, 0), CUZK_OK);
        st = cuzk__gpu_fixed_base_upload(&h, CUZK__GPU_FB_G2, (const uint64_t *)t.tbl, t.c,
                                         t.nwin, t.per_win, 0);
        cuzk_g2_fixed_base_free(&t);
    }
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK && k != NULL && out != NULL) {
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) { /* the first also grows the buffers */
            double t0 = now_s();
            st = cuzk__gpu_fixed_base_mul_batch(h, out, (const uint64_t *)k, n, CUZK__GPU_FB_MONT);
            double dt = now_s() - t0;
            CHECK_EQ_INT(st, CUZK_OK);
            if (dt < best) best = dt;
        }
        /* floor: additions (the floor(255/c) + 1 windows a scalar < 2^255 can
         * have nonzero, less the first, a copy) x 10 M (G1) / 28 M (G2) + 9 M
         * to make it affine, at CUZK_TEST_FP_MUL_IMAD (gpu_test.h) per Fp M
         * and 14.05e12 IMAD/s */
        unsigned adds = 255 / c;
        double m = g2 ? 28.0 * adds + 27 : 10.0 * adds + 9;
        double floor_ns = m * CUZK_TEST_FP_MUL_IMAD / 14.05e12 * 1e9;
        printf("  bench G%d c=%u n=%zu: %.1f ms, %.2f ns/point (floor %.2f ns, %.0f%%)\n",
               g2 ? 2 : 1, c, n, best * 1e3, best * 1e9 / (double)n, floor_ns,
               100.0 * floor_ns / (best * 1e9 / (double)n));
    }
    cuzk__gpu_fixed_base_free(h);
    free(k);
    free(out);
}

/* Sizes of several default chunks, so that the pipeline's overlap counts as
 * in the setup's large calls. */
static void bench(void) {
    bench_one(0, 16, (size_t)1 << 25);
    bench_one(0, 12, (size_t)1 << 25);
    bench_one(1, 16, (size_t)1 << 24);
    bench_one(1, 12, (size_t)1 << 24);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    int do_bench = 0;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--bench") == 0) do_bench = 1;
    RUN(test_hook_cpu);
    RUN(test_hook_failures);
    int rc = cuzk_gpu_test_need_device(argc, argv);
    if (rc != 0) return cuzk_test_cases_failed ? cuzk_test_finish() : rc;
    RUN(test_args);
    RUN(test_plain_edges);
    RUN(test_fr_batches);
    RUN(test_setup_2_10);
    RUN(test_setup_2_10_small_chunks);
    RUN(test_setup_2_14);
    if (do_bench) RUN(bench);
    return cuzk_test_finish();
}
