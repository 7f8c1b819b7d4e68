/*
 * The x86-64 BMI2/ADX Fp2 kernels (cuzk__mul_mont_384x_adx,
 * cuzk__sqr_mont_384x_adx in src/ff/asm/mont_x86_64_adx.S: lazy reduction,
 * 768-bit intermediates) against two references built on the portable
 * Montgomery product cuzk__mont_mul_n, bit for bit:
 *   - the same formulas reduced after every product (Karatsuba for mul,
 *     (a0 + a1)(a0 - a1), 2 a0 a1 for sqr), the portable path of fp2.h;
 *   - the schoolbook formulas c0 = a0 b0 - a1 b1, c1 = a0 b1 + a1 b0, which
 *     share no intermediate value with the kernels.
 * Moduli: BLS12-381 p and odd moduli up to the kernels' bound 2^382 (the
 * kernels take m as an argument, and u^2 = -1 is a valid integer identity
 * for every modulus). Inputs: random (limbs biased to 0 / all ones), edge
 * coordinates (0, 1, m-1, (m+-1)/2, R mod m, ...) in every combination, and
 * every aliasing pattern. Also the public cuzk_fp2_mul/sqr, ADX dispatch
 * against cuzk_cpu_force_portable(1). The Fp4 squaring kernel of the
 * cyclotomic squaring (cuzk__fp4_sqr_adx: a^2 + xi b^2 and 2ab, xi = u + 1)
 * the same way, on the moduli below its bound 2^381. Skipped (77) without
 * the kernels.
 */
#include "cuzk.h"
#include "ff/fp2.h"
#include "harness.h"

#if CUZK_HAVE_X86_64_ASM

#define N 6

typedef struct {
    uint64_t m[N];
    uint64_t n0;
    const char *name;
} modulus;

static uint64_t test_n0(uint64_t m0) {
    uint64_t x = m0; /* Newton: 3, 6, 12, 24, 48, 96 correct bits */
    for (int i = 0; i < 5; i++) x *= 2 - m0 * x;
    return 0 - x;
}

/* ---- references (portable Montgomery product, reduced every step) -------- */

static void mmul(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *M) {
    cuzk__mont_mul_n(r, a, b, M->m, M->n0, N);
}
static void madd(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *M) {
    cuzk__add_mod_n(r, a, b, M->m, N);
}
static void msub(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *M) {
    cuzk__sub_mod_n(r, a, b, M->m, N);
}

/* Karatsuba, as cuzk_fp2_mul's portable path */
static void ref_mul_kara(uint64_t r[12], const uint64_t a[12], const uint64_t b[12],
                         const modulus *M) {
    uint64_t t0[N], t1[N], s0[N], s1[N];
    mmul(t0, a, b, M);
    mmul(t1, a + N, b + N, M);
    madd(s0, a, a + N, M);
    madd(s1, b, b + N, M);
    mmul(s0, s0, s1, M);
    msub(s0, s0, t0, M);
    msub(r + N, s0, t1, M);
    msub(r, t0, t1, M);
}

/* schoolbook: c0 = a0 b0 - a1 b1, c1 = a0 b1 + a1 b0 */
static void ref_mul_school(uint64_t r[12], const uint64_t a[12], const uint64_t b[12],
                           const modulus *M) {
    uint64_t x[N], y[N], z[N], w[N];
    mmul(x, a, b, M);
    mmul(y, a + N, b + N, M);
    mmul(z, a, b + N, M);
    mmul(w, a + N, b, M);
    msub(r, x, y, M);
    madd(r + N, z, w, M);
}

/* (a0 + a1)(a0 - a1) + 2 a0 a1 u, as cuzk_fp2_sqr's portable path */
static void ref_sqr(uint64_t r[12], const uint64_t a[12], const modulus *M) {
    uint64_t s[N], d[N], m[N];
    madd(s, a, a + N, M);
    msub(d, a, a + N, M);
    mmul(m, a, a + N, M);
    mmul(r, s, d, M);
    madd(r + N, m, m, M);
}

/* Fp4 squaring: r0 = a^2 + xi b^2, r1 = 2ab, from the schoolbook product */
static void ref_fp4_sqr(uint64_t r0[12], uint64_t r1[12], const uint64_t a[12],
                        const uint64_t b[12], const modulus *M) {
    uint64_t aa[12], bb[12], ab[12];
    ref_mul_school(aa, a, a, M);
    ref_mul_school(bb, b, b, M);
    ref_mul_school(ab, a, b, M);
    /* xi bb = (bb0 - bb1) + (bb0 + bb1) u */
    uint64_t x0[N], x1[N];
    msub(x0, bb, bb + N, M);
    madd(x1, bb, bb + N, M);
    madd(r0, aa, x0, M);
    madd(r0 + N, aa + N, x1, M);
    madd(r1, ab, ab, M);
    madd(r1 + N, ab + N, ab + N, M);
}

/* ---- moduli and inputs ----------------------------------------------------- */

#define NMOD 9
static modulus mods[NMOD];
static size_t nmods;

static void add_modulus(const uint64_t *m, const char *name) {
    modulus *M = &mods[nmods++];
    memcpy(M->m, m, sizeof(M->m));
    M->n0 = test_n0(m[0]);
    M->name = name;
}

static void setup_moduli(void) {
    static const uint64_t p[N] = CUZK__FP_P;
    uint64_t m[N];
    add_modulus(p, "BLS12-381 p");
    for (int i = 0; i < N; i++) m[i] = ~(uint64_t)0;
    m[N - 1] >>= 2; /* 2^382 - 1, the largest allowed */
    add_modulus(m, "2^382-1");
    m[N - 1] >>= 1; /* 2^381 - 1, the largest for the Fp4 kernel */
    add_modulus(m, "2^381-1");
    for (int i = 0; i < N; i++) m[i] = cuzk_test_rand64();
    m[0] |= 1;
    m[N - 1] = 1; /* short top limb */
    add_modulus(m, "short top limb");
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < N; i++) m[i] = cuzk_test_rand64();
        m[0] |= 1;
        m[N - 1] >>= 2 + (k == 4 ? 20 : 0);
        m[N - 1] |= 1;
        if (k == 0) m[N - 1] |= (uint64_t)1 << 61; /* above the Fp4 kernel's bound */
        if (k == 1) m[N - 1] &= ~((uint64_t)1 << 61); /* below it, full length */
        if (k == 1) m[N - 1] |= (uint64_t)1 << 60;
        add_modulus(m, "random");
    }
}

static int geq(const uint64_t *a, const uint64_t *b) {
    for (size_t i = N; i-- > 0;)
        if (a[i] != b[i]) return a[i] > b[i];
    return 1;
}

/* a coordinate < m; limbs from {0, all ones, random} when biased */
static void rand_below(uint64_t *x, const modulus *M, int biased) {
    uint64_t mask = M->m[N - 1];
    for (int s = 1; s < 64; s <<= 1) mask |= mask >> s;
    do {
        for (int i = 0; i < N; i++) {
            uint64_t r = cuzk_test_rand64();
            if (biased) {
                uint64_t sel = cuzk_test_rand64() % 3;
                r = sel == 0 ? 0 : sel == 1 ? ~(uint64_t)0 : r;
            }
            x[i] = r;
        }
        x[N - 1] &= mask;
    } while (geq(x, M->m));
}

#define NEDGE 10
/* 0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2, low limbs all ones, R mod m, only the
 * top limb set */
static size_t edge_values(uint64_t e[NEDGE][N], const modulus *M) {
    static const uint64_t one[N] = {1}, two[N] = {2};
    size_t k = 0;
    memset(e, 0, NEDGE * N * sizeof(uint64_t));
    k++;
    e[k++][0] = 1;
    e[k++][0] = 2;
    cuzk__sub_mod_n(e[k++], one, two, M->m, N); /* 1 - 2 = m - 1 */
    cuzk__sub_mod_n(e[k++], one, two, M->m, N);
    cuzk__sub_mod_n(e[k - 1], e[k - 1], one, M->m, N);
    for (int i = 0; i < N; i++) e[k][i] = (M->m[i] >> 1) | (i + 1 < N ? M->m[i + 1] << 63 : 0);
    k++;
    cuzk__add_mod_n(e[k], e[k - 1], one, M->m, N);
    k++;
    for (int i = 0; i + 1 < N; i++) e[k][i] = ~(uint64_t)0;
    e[k++][N - 1] = M->m[N - 1] - 1;
    /* R mod m: 384 modular doublings of 1 */
    uint64_t x[N] = {1};
    for (int i = 0; i < 384; i++) cuzk__add_mod_n(x, x, x, M->m, N);
    memcpy(e[k++], x, sizeof(x));
    e[k++][N - 1] = M->m[N - 1] - 1;
    return k;
}

/* ---- checks ---------------------------------------------------------------- */

static unsigned long mismatches;

static void report(const char *what, const modulus *M, const uint64_t *a, const uint64_t *b) {
    if (mismatches++ < 5)
        fprintf(stderr, "%s mismatch (%s): a=%016" PRIx64 "..%016" PRIx64 " b=%016" PRIx64 "..\n",
                what, M->name, a[0], a[N], b ? b[0] : 0);
    CHECK(0);
}

static void check_pair(const uint64_t a[12], const uint64_t b[12], const modulus *M) {
    uint64_t want[12], school[12], got[12];
    ref_mul_kara(want, a, b, M);
    ref_mul_school(school, a, b, M);
    if (memcmp(want, school, sizeof(want)) != 0) report("reference", M, a, b);
    cuzk__mul_mont_384x_adx(got, a, b, M->m, M->n0);
    if (memcmp(want, got, sizeof(want)) != 0) report("mul", M, a, b);
    ref_sqr(want, a, M);
    ref_mul_school(school, a, a, M);
    if (memcmp(want, school, sizeof(want)) != 0) report("sqr reference", M, a, NULL);
    cuzk__sqr_mont_384x_adx(got, a, M->m, M->n0);
    if (memcmp(want, got, sizeof(want)) != 0) report("sqr", M, a, NULL);
}

/* the Fp4 kernel's bound: m < 2^381 */
static int fp4_ok(const modulus *M) { return M->m[N - 1] >> 61 == 0; }

static void check_fp4(const uint64_t a[12], const uint64_t b[12], const modulus *M) {
    uint64_t w0[12], w1[12], g0[12], g1[12];
    ref_fp4_sqr(w0, w1, a, b, M);
    cuzk__fp4_sqr_adx(g0, g1, a, b, M->m, M->n0);
    if (memcmp(w0, g0, sizeof(w0)) != 0 || memcmp(w1, g1, sizeof(w1)) != 0)
        report("fp4 sqr", M, a, b);
}

static void test_fp4(void) {
    uint64_t e[NEDGE][N];
    size_t used = 0;
    for (size_t k = 0; k < nmods; k++) {
        const modulus *M = &mods[k];
        if (!fp4_ok(M)) continue;
        used++;
        /* edge coordinates: a and b each from a few edge pairs */
        size_t ne = edge_values(e, M);
        for (size_t i = 0; i < ne * ne; i += 3)
            for (size_t j = 0; j < ne * ne; j += 7) {
                uint64_t a[12], b[12];
                memcpy(a, e[i / ne], 48);
                memcpy(a + N, e[i % ne], 48);
                memcpy(b, e[j / ne], 48);
                memcpy(b + N, e[(j + i) % ne], 48);
                check_fp4(a, b, M);
            }
        for (unsigned long i = 0; i < ITERS(k == 0 ? 5000 : 1000); i++) {
            uint64_t a[12], b[12];
            rand_below(a, M, (i & 3) == 0);
            rand_below(a + N, M, (i & 5) == 0);
            rand_below(b, M, (i & 6) == 0);
            rand_below(b + N, M, (i & 9) == 0);
            check_fp4(a, b, M);
            /* aliasing: r0 == a, r1 == b */
            uint64_t w0[12], w1[12], x[12], y[12];
            ref_fp4_sqr(w0, w1, a, b, M);
            memcpy(x, a, sizeof(x));
            memcpy(y, b, sizeof(y));
            cuzk__fp4_sqr_adx(x, y, x, y, M->m, M->n0);
            CHECK_MEM(x, w0, sizeof(x));
            CHECK_MEM(y, w1, sizeof(y));
            /* r1 == a, r0 == b */
            memcpy(x, a, sizeof(x));
            memcpy(y, b, sizeof(y));
            cuzk__fp4_sqr_adx(y, x, x, y, M->m, M->n0);
            CHECK_MEM(y, w0, sizeof(y));
            CHECK_MEM(x, w1, sizeof(x));
        }
    }
    CHECK(used >= 5); /* p, 2^381-1, short top limb, random k = 1 and k = 4 */
}

static void test_edges(void) {
    uint64_t e[NEDGE][N];
    for (size_t k = 0; k < nmods; k++) {
        const modulus *M = &mods[k];
        size_t ne = edge_values(e, M);
        for (size_t i = 0; i < ne; i++) CHECK(!geq(e[i], M->m));
        /* every (a0, a1) against every (b0, b1) from the edge set */
        for (size_t i = 0; i < ne * ne; i++)
            for (size_t j = 0; j < ne * ne; j++) {
                uint64_t a[12], b[12];
                memcpy(a, e[i / ne], 48);
                memcpy(a + N, e[i % ne], 48);
                memcpy(b, e[j / ne], 48);
                memcpy(b + N, e[j % ne], 48);
                check_pair(a, b, M);
            }
    }
}

static void test_random(void) {
    for (size_t k = 0; k < nmods; k++) {
        const modulus *M = &mods[k];
        unsigned long count = k == 0 ? ITERS(20000) : ITERS(4000);
        for (unsigned long i = 0; i < count; i++) {
            uint64_t a[12], b[12];
            rand_below(a, M, (i & 3) == 0);
            rand_below(a + N, M, (i & 5) == 0);
            rand_below(b, M, (i & 6) == 0);
            rand_below(b + N, M, (i & 9) == 0);
            check_pair(a, b, M);
        }
    }
}

/* T0 < T1 (a0 b0 < a1 b1) and T0 = T1 exercise the sign correction of c0. */
static void test_c0_sign(void) {
    for (size_t k = 0; k < nmods; k++) {
        const modulus *M = &mods[k];
        for (unsigned long i = 0; i < ITERS(500); i++) {
            uint64_t a[12], b[12];
            rand_below(a, M, 0);
            rand_below(b + N, M, 0);
            memcpy(a + N, a, 48); /* a1 = a0 */
            if (i & 1)
                memcpy(b, b + N, 48); /* b0 = b1: T0 = T1 */
            else
                for (int j = 0; j < N; j++) b[j] = b[N + j] >> (1 + (i % 7)); /* b0 < b1 */
            check_pair(a, b, M);
        }
    }
}

static void test_aliasing(void) {
    for (size_t k = 0; k < nmods; k++) {
        const modulus *M = &mods[k];
        for (unsigned long i = 0; i < ITERS(300); i++) {
            uint64_t a[12], b[12], want[12], wsq[12], x[12];
            rand_below(a, M, i & 1);
            rand_below(a + N, M, i & 2);
            rand_below(b, M, 0);
            rand_below(b + N, M, i & 4);
            ref_mul_kara(want, a, b, M);
            ref_sqr(wsq, a, M);
            memcpy(x, a, sizeof(x)); /* r == a */
            cuzk__mul_mont_384x_adx(x, x, b, M->m, M->n0);
            CHECK_MEM(x, want, sizeof(x));
            memcpy(x, b, sizeof(x)); /* r == b */
            cuzk__mul_mont_384x_adx(x, a, x, M->m, M->n0);
            CHECK_MEM(x, want, sizeof(x));
            memcpy(x, a, sizeof(x)); /* r == a == b */
            cuzk__mul_mont_384x_adx(x, x, x, M->m, M->n0);
            CHECK_MEM(x, wsq, sizeof(x));
            memcpy(x, a, sizeof(x)); /* sqr in place */
            cuzk__sqr_mont_384x_adx(x, x, M->m, M->n0);
            CHECK_MEM(x, wsq, sizeof(x));
        }
    }
}

/* The public inline operations: ADX dispatch against the portable path. */
static void test_public_dispatch(void) {
    const modulus *M = &mods[0];
    for (unsigned long i = 0; i < ITERS(2000); i++) {
        cuzk_fp2 a, b, r_adx, s_adx, r_port, s_port;
        rand_below(a.c0.l, M, i & 1);
        rand_below(a.c1.l, M, i & 2);
        rand_below(b.c0.l, M, 0);
        rand_below(b.c1.l, M, i & 4);
        cuzk_fp2_mul(&r_adx, &a, &b);
        cuzk_fp2_sqr(&s_adx, &a);
        cuzk_cpu_force_portable(1);
        cuzk_fp2_mul(&r_port, &a, &b);
        cuzk_fp2_sqr(&s_port, &a);
        cuzk_cpu_force_portable(0);
        CHECK(cuzk_fp2_eq(&r_adx, &r_port));
        CHECK(cuzk_fp2_eq(&s_adx, &s_port));
        cuzk_fp2 x = a; /* aliasing through the public API */
        cuzk_fp2_mul(&x, &x, &b);
        CHECK(cuzk_fp2_eq(&x, &r_port));
        x = a;
        cuzk_fp2_sqr(&x, &x);
        CHECK(cuzk_fp2_eq(&x, &s_port));
    }
    CHECK(cuzk_cpu_features() & CUZK_CPU_ADX); /* restored */
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    if (!(cuzk_cpu_features() & CUZK_CPU_ADX))
        return cuzk_test_skip("BMI2/ADX kernels not in use on this CPU or build");
    setup_moduli();
    RUN(test_edges);
    RUN(test_c0_sign);
    RUN(test_aliasing);
    RUN(test_random);
    RUN(test_public_dispatch);
    RUN(test_fp4);
    return cuzk_test_finish();
}

#else /* !CUZK_HAVE_X86_64_ASM */

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    return cuzk_test_skip("built without the x86-64 assembly kernels");
}

#endif
