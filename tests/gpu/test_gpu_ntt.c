/*
 * GPU NTT and H (src/gpu/ntt.cu) against the CPU reference (src/poly/ntt.c,
 * h.c), bit for bit.
 *
 * For both roots (5 and 7) and every size 2^0..2^20: fresh seeded random
 * input, every transform (forward, inverse, coset forward, coset inverse
 * with a fresh random shift) in every order (NN, NR, RN, RR), and both H
 * conventions with c given and with c = NULL; at 2^22 (root 5) and 2^23
 * (root 7), the first three-pass plans, the same with one order per
 * transform (NR for the forward ones, NN for the inverse ones). At 2^25 and 2^26, where
 * the last pass takes all 10 stages and a CPU transform would take minutes,
 * every order of the forward and coset forward at random points against
 * Horner's rule, and the inverses by the round trip (test_points). The CPU
 * code is an independent implementation (different blocking, twiddle tables
 * and fusions), so agreement checks the GPU's index arithmetic, twiddles and
 * fused scalings. Also: bad arguments are refused. Exits 77 (skipped)
 * without a CUDA device unless CUZK_GPU_REQUIRED=1.
 *
 * --bench: afterwards, a table for 2^20..2^28 (median of 10 runs after a
 * warm-up, data resident on the device): ms, and "GB/s eff" = 64 n bytes
 * (one read and one write of every element) per NTT over the time, 6 NTTs for
 * snarkjs H, 7 for bellman H; "floor" = (n/2) log2 n Fr multiplications per
 * NTT at 50.3e9 Fr mul/s (an H200's Montgomery Fr product rate).
 *
 * --bench-only: the --bench table alone.
 * --bench-min L, --bench-max L: the table from 2^L, up to 2^L (10..28;
 * default 2^20..2^28).
 */
#include <stdbool.h>

#include "ff/fr.h"
#include "gpu/gpu.h"
#include "gpu/gpu_ntt.h"
#include "poly/h.h"
#include "gpu_test.h"
#include "harness.h"
#include "poly/ntt.h"

static void rand_fr(cuzk_fr *r) {
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++) l[i] = cuzk_test_rand64();
        l[3] &= 0x7fffffffffffffffULL;
    } while (!cuzk__lt_n(l, cuzk__fr_r, 4));
    cuzk_fr_from_limbs(r, l);
}

static void rand_vec(cuzk_fr *v, size_t n) {
    for (size_t i = 0; i < n; i++) rand_fr(&v[i]);
}

/* Number of differing elements; prints the first few. */
static size_t diff(const char *what, unsigned L, int root, const cuzk_fr *got,
                   const cuzk_fr *want, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (memcmp(&got[i], &want[i], sizeof(cuzk_fr)) == 0) continue;
        if (bad++ < 3)
            fprintf(stderr, "  %s 2^%u root %d: element %zu: gpu %016" PRIx64 "... cpu %016" PRIx64
                            "...\n",
                    what, L, root, i, got[i].l[3], want[i].l[3]);
    }
    if (bad) fprintf(stderr, "  %s 2^%u root %d: %zu of %zu differ\n", what, L, root, bad, n);
    return bad;
}

static const char *order_name[4] = {"NN", "NR", "RN", "RR"};
static const char *op_name[4] = {"forward", "inverse", "coset_forward", "coset_inverse"};

static cuzk_status cpu_op(const cuzk_ntt_domain *d, cuzk_fr *a, int op, int order,
                          const cuzk_fr *g) {
    switch (op) {
    case 0: return cuzk_ntt_forward(d, a, d->n, (cuzk_ntt_order)order);
    case 1: return cuzk_ntt_inverse(d, a, d->n, (cuzk_ntt_order)order);
    case 2: return cuzk_ntt_coset_forward(d, a, d->n, (cuzk_ntt_order)order, g);
    default: return cuzk_ntt_coset_inverse(d, a, d->n, (cuzk_ntt_order)order, g);
    }
}

/* Every transform and order, then both H, at size 2^L for one root. */
static void check_size(unsigned L, int root, bool all_orders) {
    const size_t n = (size_t)1 << L;
    cuzk_ntt_domain cd;
    cuzk__gpu_ntt_domain *gd = NULL;
    cuzk_fr *in = malloc(3 * n * sizeof *in), *want = malloc(3 * n * sizeof *want),
            *got = malloc(3 * n * sizeof *got);
    CHECK(in && want && got);
    CHECK(cuzk_ntt_domain_init(&cd, L, (cuzk_ntt_root)root) == CUZK_OK);
    cuzk_status st = cuzk__gpu_ntt_domain_create(&gd, L, root);
    if (st != CUZK_OK) fprintf(stderr, "  domain 2^%u: %s\n", L, cuzk__gpu_last_error());
    CHECK(st == CUZK_OK);
    if (!(in && want && got) || st != CUZK_OK) goto out;
    CHECK(cuzk__gpu_ntt_domain_log(gd) == L);

    for (int op = 0; op < 4; op++)
        for (int order = 0; order < 4; order++) {
            if (!all_orders && order != (op & 1 ? 0 : 1)) continue;
            cuzk_fr g;
            rand_fr(&g);
            rand_vec(in, n);
            memcpy(want, in, n * sizeof *in);
            memcpy(got, in, n * sizeof *in);
            CHECK(cpu_op(&cd, want, op, order, &g) == CUZK_OK);
            st = cuzk__gpu_ntt_host(gd, got[0].l, (cuzk__gpu_ntt_op)op, order, g.l);
            if (st != CUZK_OK)
                fprintf(stderr, "  %s %s 2^%u: %s\n", op_name[op], order_name[order], L,
                        cuzk__gpu_last_error());
            CHECK(st == CUZK_OK);
            char what[64];
            snprintf(what, sizeof what, "%s %s", op_name[op], order_name[order]);
            CHECK(diff(what, L, root, got, want, n) == 0);
        }

    for (int bell = 0; bell < 2; bell++)
        for (int with_c = 0; with_c < 2; with_c++) {
            rand_vec(in, 3 * n);
            if (!with_c) /* a satisfied system: c = a*b, which the NULL path forms */
                for (size_t i = 0; i < n; i++) cuzk_fr_mul(&in[2 * n + i], &in[i], &in[n + i]);
            memcpy(want, in, 3 * n * sizeof *in);
            st = bell ? cuzk_h_bellman(&cd, want, want + n, want + 2 * n, n)
                      : cuzk_h_snarkjs(&cd, want, want + n, want + 2 * n, n);
            CHECK(st == CUZK_OK);
            memcpy(got, in, 3 * n * sizeof *in);
            st = cuzk__gpu_h_host(gd, got[0].l, got[n].l, with_c ? got[2 * n].l : NULL, bell);
            if (st != CUZK_OK) fprintf(stderr, "  H 2^%u: %s\n", L, cuzk__gpu_last_error());
            CHECK(st == CUZK_OK);
            char what[64];
            snprintf(what, sizeof what, "h_%s%s", bell ? "bellman" : "snarkjs",
                     with_c ? "" : " (c NULL)");
            CHECK(diff(what, L, root, got, want, n) == 0);
        }
out:
    cuzk__gpu_ntt_domain_destroy(gd);
    cuzk_ntt_domain_free(&cd);
    free(in), free(want), free(got);
}

static void test_small(void) {
    for (int r = 0; r < 2; r++)
        for (unsigned L = 0; L <= 14; L++) check_size(L, r ? 7 : 5, true);
}

static void test_medium(void) {
    for (int r = 0; r < 2; r++)
        for (unsigned L = 15; L <= 20; L++) check_size(L, r ? 7 : 5, true);
}

/* Larger sizes: one order per operation (NR forward, NN inverse). */
static void test_large(void) {
    check_size(22, 5, false);
    check_size(23, 7, false);
}

/* i's low L bits reversed (1 <= L <= 32). */
static size_t brev_index(size_t i, unsigned L) {
    uint32_t x = (uint32_t)i;
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    x = (x >> 16) | (x << 16);
    return x >> (32 - L);
}

/* p(x) = sum c_i x^i by Horner's rule: n products. */
static void horner(cuzk_fr *r, const cuzk_fr *c, size_t n, const cuzk_fr *x) {
    cuzk_fr_set_zero(r);
    for (size_t i = n; i-- > 0;) {
        cuzk_fr_mul(r, r, x);
        cuzk_fr_add(r, r, &c[i]);
    }
}

/*
 * From 2^25 up (where the last pass takes 10 stages) the CPU transform as a
 * reference would take minutes, so the GPU's transforms are checked without
 * it: the forward and coset forward, in every order, at POINTS random indices
 * against p(omega^j) and p(g omega^j) by Horner's rule on the CPU (the
 * coefficients c_i placed at i or, for RN and RR, at bitrev(i); the value for
 * j read at j or, for NR and RR, at bitrev(j)); then the matching inverse
 * (NR <-> RN, NN and RR to themselves) must give the input back exactly.
 */
#define POINTS 3
static void check_points(unsigned L, int root) {
    const size_t n = (size_t)1 << L;
    cuzk_ntt_domain cd;
    cuzk__gpu_ntt_domain *gd = NULL;
    cuzk_fr *c = malloc(n * sizeof *c), *in = malloc(n * sizeof *in),
            *y = malloc(n * sizeof *y);
    CHECK(c && in && y);
    CHECK(cuzk_ntt_domain_init(&cd, L, (cuzk_ntt_root)root) == CUZK_OK);
    cuzk_status st = cuzk__gpu_ntt_domain_create(&gd, L, root);
    if (st != CUZK_OK) fprintf(stderr, "  domain 2^%u: %s\n", L, cuzk__gpu_last_error());
    CHECK(st == CUZK_OK);
    if (!(c && in && y) || st != CUZK_OK) goto out;
    rand_vec(c, n);
    cuzk_fr g, want[2][POINTS];
    size_t js[POINTS];
    rand_fr(&g);
    for (int k = 0; k < POINTS; k++) {
        js[k] = (size_t)(cuzk_test_rand64() & (n - 1));
        cuzk_fr x;
        const uint64_t e = js[k];
        cuzk_fr_pow(&x, &cd.omega, &e, 1);
        horner(&want[0][k], c, n, &x);
        cuzk_fr_mul(&x, &x, &g);
        horner(&want[1][k], c, n, &x);
    }
    for (int coset = 0; coset < 2; coset++)
        for (int order = 0; order < 4; order++) {
            const bool rin = order >= 2, rout = order & 1; /* RN, RR; NR, RR */
            for (size_t i = 0; i < n; i++) in[rin ? brev_index(i, L) : i] = c[i];
            memcpy(y, in, n * sizeof *y);
            const cuzk__gpu_ntt_op fwd = coset ? CUZK__GPU_NTT_COSET_FWD : CUZK__GPU_NTT_FWD;
            const cuzk__gpu_ntt_op inv = coset ? CUZK__GPU_NTT_COSET_INV : CUZK__GPU_NTT_INV;
            st = cuzk__gpu_ntt_host(gd, y[0].l, fwd, order, g.l);
            CHECK(st == CUZK_OK);
            for (int k = 0; k < POINTS; k++) {
                const size_t at = rout ? brev_index(js[k], L) : js[k];
                if (cuzk_fr_eq(&y[at], &want[coset][k])) continue;
                fprintf(stderr, "  %s %s 2^%u root %d: value %zu differs from p(x) by Horner\n",
                        op_name[fwd], order_name[order], L, root, js[k]);
                CHECK(0);
            }
            const int back = order == 1 ? 2 : order == 2 ? 1 : order; /* NR <-> RN */
            st = cuzk__gpu_ntt_host(gd, y[0].l, inv, back, g.l);
            CHECK(st == CUZK_OK);
            char what[64];
            snprintf(what, sizeof what, "%s %s then %s %s", op_name[fwd], order_name[order],
                     op_name[inv], order_name[back]);
            CHECK(diff(what, L, root, y, in, n) == 0);
        }
out:
    cuzk__gpu_ntt_domain_destroy(gd);
    cuzk_ntt_domain_free(&cd);
    free(c), free(in), free(y);
}

/* The plans with a full last pass (2^25 7+8+10, 2^26 8+8+10). */
static void test_points(void) {
    check_points(25, 7);
    check_points(26, 5);
}

static void test_errors(void) {
    cuzk__gpu_ntt_domain *gd = NULL;
    CHECK(cuzk__gpu_ntt_domain_create(&gd, 29, 5) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_ntt_domain_create(&gd, 4, 3) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_ntt_domain_create(NULL, 4, 5) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_ntt_domain_create(&gd, 4, 5) == CUZK_OK);
    if (!gd) return;
    cuzk_fr a[16], zero;
    cuzk_fr_set_zero(&zero);
    rand_vec(a, 16);
    CHECK(cuzk__gpu_ntt_forward(gd, NULL, 0, NULL) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_ntt_host(gd, a[0].l, CUZK__GPU_NTT_FWD, 4, NULL) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_ntt_host(gd, a[0].l, CUZK__GPU_NTT_COSET_FWD, 0, NULL) ==
          CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_ntt_host(gd, a[0].l, CUZK__GPU_NTT_COSET_INV, 0, zero.l) ==
          CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_h_snarkjs(gd, NULL, a[0].l, NULL, NULL) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_h_bellman(NULL, a[0].l, a[0].l, NULL, NULL) == CUZK_ERR_INVALID_ARG);
    cuzk__gpu_ntt_domain_destroy(gd);
    cuzk__gpu_ntt_domain_destroy(NULL);
}

static unsigned bench_min = 20, bench_max = 28;

static void bench(void) {
    static const char *names[CUZK__GPU_BENCH_COUNT] = {
        "fwd_nr", "fwd_nn", "inv_nn", "coset_fwd_nn", "coset_inv_nn", "h_snarkjs", "h_bellman"};
    static const double ntts[CUZK__GPU_BENCH_COUNT] = {1, 1, 1, 1, 1, 6, 7};
    char name[128];
    int sms = 0;
    if (cuzk__gpu_device_name(cuzk_gpu_test_dev, name, sizeof name, &sms) != CUZK_OK) return;
    printf("\nNTT on %s (%d SMs), data on the device, median of 10 after a warm-up\n", name, sms);
    printf("%-4s %-13s %10s %10s %10s %10s\n", "log", "op", "median ms", "min ms", "GB/s eff",
           "floor ms");
    for (unsigned L = bench_min; L <= bench_max; L++) {
        cuzk__gpu_ntt_domain *gd = NULL;
        if (cuzk__gpu_ntt_domain_create(&gd, L, 5) != CUZK_OK) {
            printf("2^%u: domain failed: %s\n", L, cuzk__gpu_last_error());
            CHECK(0);
            return;
        }
        const double n = (double)((size_t)1 << L);
        for (int op = 0; op < CUZK__GPU_BENCH_COUNT; op++) {
            cuzk__gpu_ntt_bench_result res;
            cuzk_status st = cuzk__gpu_ntt_bench(&res, gd, (cuzk__gpu_ntt_bench_op)op, 10);
            if (st != CUZK_OK) {
                printf("%-4u %-13s failed: %s\n", L, names[op], cuzk__gpu_last_error());
                CHECK(st == CUZK_OK);
                continue;
            }
            double floor_ms = ntts[op] * n / 2 * L / 50.3e9 * 1e3;
            printf("%-4u %-13s %10.3f %10.3f %10.0f %10.2f\n", L, names[op], res.ms_median,
                   res.ms_min, ntts[op] * 64 * n / (res.ms_median * 1e-3) * 1e-9, floor_ms);
            fflush(stdout);
        }
        cuzk__gpu_ntt_domain_destroy(gd);
    }
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    int need = cuzk_gpu_test_need_device(argc, argv);
    if (need != 0) return need;
    int tests = 1; /* --bench-only: the tables without the comparisons (profiling runs) */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bench-only") == 0) tests = 0;
        const bool lo = strcmp(argv[i], "--bench-min") == 0,
                   hi = strcmp(argv[i], "--bench-max") == 0;
        if ((lo || hi) && i + 1 < argc) {
            const long l = strtol(argv[i + 1], NULL, 10);
            if (l < 10 || l > 28) {
                fprintf(stderr, "%s: 10..28\n", argv[i]);
                return 2;
            }
            *(lo ? &bench_min : &bench_max) = (unsigned)l;
        }
    }
    if (bench_min > bench_max) {
        fprintf(stderr, "--bench-min %u is above --bench-max %u\n", bench_min, bench_max);
        return 2;
    }
    if (tests) {
        RUN(test_errors);
        RUN(test_small);
        RUN(test_medium);
        RUN(test_large);
        RUN(test_points);
    }
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--bench") == 0 || strcmp(argv[i], "--bench-only") == 0) RUN(bench);
    return cuzk_test_finish();
}
