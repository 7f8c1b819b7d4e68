/*
 * The x86-64 BMI2/ADX Montgomery kernels (src/ff/asm/mont_x86_64_adx.S) and
 * the inline add/sub kernels (cpu.h) against the portable limbs.h kernels,
 * bit for bit, and against a slow
 * reference written here (schoolbook product, bitwise Montgomery halving)
 * that shares no code with limbs.h. Moduli: BLS12-381 p and r, and random
 * odd moduli below 2^(64n-1), since the kernels take the modulus as an
 * argument. Skipped (77) where the kernels are not in use.
 */
#include "cuzk.h"
#include "ff/fp.h"
#include "ff/fr.h"
#include "harness.h"

#if CUZK_HAVE_X86_64_ASM

#define MAXN 6

typedef struct {
    size_t n;
    uint64_t m[MAXN];
    uint64_t n0;
    const char *name;
} modulus;

/* -m^-1 mod 2^64 by Newton's iteration (x = m is correct to 3 bits for odd m;
 * each step doubles the correct bits: 3, 6, 12, 24, 48, 96). */
static uint64_t test_n0(uint64_t m0) {
    uint64_t x = m0;
    for (int i = 0; i < 5; i++) x *= 2 - m0 * x;
    return 0 - x;
}

/* ---- slow reference, independent of limbs.h ------------------------------ */

static int ref_geq(const uint64_t *a, const uint64_t *b, size_t n) {
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i]) return a[i] > b[i];
    return 1;
}

/* a -= b over n words; returns the borrow */
static unsigned ref_sub(uint64_t *a, const uint64_t *b, size_t n) {
    unsigned borrow = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        a[i] = (uint64_t)d;
        borrow = (unsigned)(d >> 127);
    }
    return borrow;
}

/*
 * r = a*b*2^(-64n) mod m: the 2n-word schoolbook product, then 64n halvings
 * modulo m (add m when odd, shift right), then one subtraction. After k
 * halvings x < a*b/2^k + m, so x < m^2/2^(64n) + m < 2m at the end.
 */
static void ref_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *M) {
    size_t n = M->n;
    uint64_t x[2 * MAXN + 1] = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < n; j++) {
            unsigned __int128 t = (unsigned __int128)a[i] * b[j] + x[i + j] + carry;
            x[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        x[i + n] = carry;
    }
    for (size_t k = 0; k < 64 * n; k++) {
        if (x[0] & 1) {
            unsigned __int128 c = 0;
            for (size_t i = 0; i < 2 * n + 1; i++) {
                c += (unsigned __int128)x[i] + (i < n ? M->m[i] : 0);
                x[i] = (uint64_t)c;
                c >>= 64;
            }
        }
        for (size_t i = 0; i < 2 * n; i++) x[i] = (x[i] >> 1) | (x[i + 1] << 63);
        x[2 * n] >>= 1;
    }
    /* x < 2m < 2^(64n): words n.. are zero */
    if (ref_geq(x, M->m, n)) ref_sub(x, M->m, n);
    memcpy(r, x, n * sizeof(uint64_t));
}

/* R mod m = 2^(64n) mod m by 64n modular doublings of 1. */
static void ref_r_mod(uint64_t *r, const modulus *M) {
    size_t n = M->n;
    uint64_t x[MAXN + 1] = {1};
    for (size_t k = 0; k < 64 * n; k++) {
        uint64_t top = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t nt = x[i] >> 63;
            x[i] = (x[i] << 1) | top;
            top = nt;
        }
        /* x < 2m < 2^(64n): the shifted-out bit is zero */
        if (ref_geq(x, M->m, n)) ref_sub(x, M->m, n);
    }
    memcpy(r, x, n * sizeof(uint64_t));
}

/* ---- the code under test --------------------------------------------------- */

static void asm_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *M) {
    if (M->n == 6)
        cuzk__mul_mont_384_adx(r, a, b, M->m, M->n0);
    else
        cuzk__mul_mont_256_adx(r, a, b, M->m, M->n0);
}

static void asm_sqr(uint64_t *r, const uint64_t *a, const modulus *M) {
    if (M->n == 6)
        cuzk__sqr_mont_384_adx(r, a, M->m, M->n0);
    else
        cuzk__sqr_mont_256_adx(r, a, M->m, M->n0);
}

static void port_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *M) {
    cuzk__mont_mul_n(r, a, b, M->m, M->n0, M->n);
}

/* ---- moduli and inputs ----------------------------------------------------- */

#define NMOD 14
static modulus mods[NMOD];
static size_t nmods;

static void add_modulus(const uint64_t *m, size_t n, const char *name) {
    modulus *M = &mods[nmods++];
    M->n = n;
    memset(M->m, 0, sizeof(M->m));
    memcpy(M->m, m, n * sizeof(uint64_t));
    M->n0 = test_n0(m[0]);
    M->name = name;
}

static void setup_moduli(void) {
    static const uint64_t p[6] = CUZK__FP_P, q[4] = CUZK__FR_R;
    add_modulus(p, 6, "BLS12-381 p");
    add_modulus(q, 4, "BLS12-381 r");
    for (size_t n = 4; n <= 6; n += 2) {
        uint64_t m[MAXN];
        /* the largest allowed modulus, 2^(64n-1) - 1: every limb saturated */
        for (size_t i = 0; i < n; i++) m[i] = ~(uint64_t)0;
        m[n - 1] >>= 1;
        add_modulus(m, n, "2^(64n-1)-1");
        /* a short top limb: m just above 2^(64(n-1)) */
        for (size_t i = 0; i < n; i++) m[i] = cuzk_test_rand64();
        m[0] |= 1;
        m[n - 1] = 1;
        add_modulus(m, n, "short top limb");
        /* random odd moduli with the top bit clear, mostly full length */
        for (int k = 0; k < 4; k++) {
            for (size_t i = 0; i < n; i++) m[i] = cuzk_test_rand64();
            m[0] |= 1;
            m[n - 1] >>= 1 + (k == 3 ? 20 : 0);
            m[n - 1] |= 1; /* keep the top limb nonzero */
            if (k == 0) m[n - 1] |= (uint64_t)1 << 62;
            add_modulus(m, n, "random");
        }
    }
}

/* A value < m. Limbs are drawn from {0, all ones, random} to reach carry
 * corners, with the top limb masked to m's bit length; rejection keeps it < m. */
static void rand_below(uint64_t *x, const modulus *M, int biased) {
    size_t n = M->n;
    uint64_t top = M->m[n - 1], mask = top;
    for (int s = 1; s < 64; s <<= 1) mask |= mask >> s;
    do {
        for (size_t i = 0; i < n; i++) {
            uint64_t r = cuzk_test_rand64();
            if (biased) {
                uint64_t sel = cuzk_test_rand64() % 3;
                r = sel == 0 ? 0 : sel == 1 ? ~(uint64_t)0 : r;
            }
            x[i] = r;
        }
        x[n - 1] &= mask;
    } while (ref_geq(x, M->m, n));
}

#define NEDGE 10
/* 0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2, low limbs all ones, R mod m, and a
 * value with only the top limb set */
static size_t edge_values(uint64_t e[NEDGE][MAXN], const modulus *M) {
    size_t n = M->n, k = 0;
    uint64_t one[MAXN] = {1}, two[MAXN] = {2};
    memset(e, 0, NEDGE * MAXN * sizeof(uint64_t));
    k++; /* 0 */
    e[k++][0] = 1;
    e[k++][0] = 2;
    memcpy(e[k], M->m, n * 8);
    ref_sub(e[k++], one, n);
    memcpy(e[k], M->m, n * 8);
    ref_sub(e[k++], two, n);
    for (size_t i = 0; i < n; i++) /* (m-1)/2 = m >> 1 for odd m */
        e[k][i] = (M->m[i] >> 1) | (i + 1 < n ? M->m[i + 1] << 63 : 0);
    k++;
    memcpy(e[k], e[k - 1], n * 8); /* (m+1)/2 = (m-1)/2 + 1 */
    for (size_t i = 0; i < n && ++e[k][i] == 0; i++) {
    }
    k++;
    for (size_t i = 0; i + 1 < n; i++) e[k][i] = ~(uint64_t)0;
    e[k][n - 1] = M->m[n - 1] - 1; /* m's top limb is >= 1 */
    k++;
    ref_r_mod(e[k++], M);
    e[k][n - 1] = M->m[n - 1] - 1; /* only the top limb set */
    k++;
    return k;
}

/* a += b over n words; returns the carry */
static unsigned ref_add(uint64_t *a, const uint64_t *b, size_t n) {
    unsigned carry = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 t = (unsigned __int128)a[i] + b[i] + carry;
        a[i] = (uint64_t)t;
        carry = (unsigned)(t >> 64);
    }
    return carry;
}

static unsigned long mismatches;

/* The inline add/sub kernels (cpu.h) exist for 4 and 6 limbs: against the
 * portable limbs.h kernels and against ref_add/ref_sub, r aliasing a and b too. */
static void check_add_sub(const uint64_t *a, const uint64_t *b, const modulus *M) {
    size_t n = M->n;
    if (n != 4 && n != 6) return;
    uint64_t want_add[MAXN], want_sub[MAXN], x[MAXN], t[MAXN];
    memcpy(want_add, a, n * 8); /* (a + b) mod m: one subtraction at most */
    ref_add(want_add, b, n);
    if (ref_geq(want_add, M->m, n)) ref_sub(want_add, M->m, n);
    memcpy(want_sub, a, n * 8); /* (a - b) mod m: add m back on a borrow */
    if (ref_sub(want_sub, b, n)) ref_add(want_sub, M->m, n);
    cuzk__add_mod_n(t, a, b, M->m, n);
    CHECK_MEM(t, want_add, n * 8);
    cuzk__sub_mod_n(t, a, b, M->m, n);
    CHECK_MEM(t, want_sub, n * 8);
    for (int alias = 0; alias < 3; alias++) { /* none, r == a, r == b */
        for (int op = 0; op < 2; op++) {
            const uint64_t *pa = a, *pb = b;
            if (alias == 1) memcpy(x, a, n * 8), pa = x;
            if (alias == 2) memcpy(x, b, n * 8), pb = x;
            uint64_t *r = alias ? x : t;
            if (n == 6 && op == 0) cuzk__add_mod_384_adx(r, pa, pb, M->m);
            if (n == 6 && op == 1) cuzk__sub_mod_384_adx(r, pa, pb, M->m);
            if (n == 4 && op == 0) cuzk__add_mod_256_adx(r, pa, pb, M->m);
            if (n == 4 && op == 1) cuzk__sub_mod_256_adx(r, pa, pb, M->m);
            if (memcmp(r, op ? want_sub : want_add, n * 8) != 0) {
                if (mismatches++ < 5)
                    fprintf(stderr, "%s mismatch (%s, n=%zu, alias %d): a0=%016" PRIx64
                            " b0=%016" PRIx64 "\n", op ? "sub" : "add", M->name, n, alias, a[0],
                            b[0]);
                CHECK(0);
            }
        }
    }
}

static void check_one(const uint64_t *a, const uint64_t *b, const modulus *M) {
    size_t n = M->n;
    uint64_t want[MAXN], got[MAXN], sq[MAXN], psq[MAXN];
    port_mul(want, a, b, M);
    asm_mul(got, a, b, M);
    if (memcmp(want, got, n * 8) != 0) {
        if (mismatches++ < 5) {
            fprintf(stderr, "mul mismatch (%s, n=%zu): a0=%016" PRIx64 " b0=%016" PRIx64 "\n",
                    M->name, n, a[0], b[0]);
        }
        CHECK(0);
    }
    check_add_sub(a, b, M);
    check_add_sub(a, a, M);
    asm_sqr(sq, a, M);
    port_mul(psq, a, a, M);
    if (memcmp(sq, psq, n * 8) != 0) {
        if (mismatches++ < 5)
            fprintf(stderr, "sqr mismatch (%s, n=%zu): a0=%016" PRIx64 "\n", M->name, n, a[0]);
        CHECK(0);
    }
}

/* ---- tests ----------------------------------------------------------------- */

static void test_random_bls(void) {
    uint64_t a[MAXN], b[MAXN];
    for (size_t k = 0; k < 2; k++) {
        const modulus *M = &mods[k];
        for (unsigned long i = 0; i < ITERS(100000); i++) {
            rand_below(a, M, (i & 3) == 0);
            rand_below(b, M, (i & 5) == 0);
            check_one(a, b, M);
        }
    }
}

static void test_random_generic(void) {
    uint64_t a[MAXN], b[MAXN];
    for (size_t k = 2; k < nmods; k++) {
        const modulus *M = &mods[k];
        for (unsigned long i = 0; i < ITERS(10000); i++) {
            rand_below(a, M, (i & 3) == 0);
            rand_below(b, M, (i & 5) == 0);
            check_one(a, b, M);
        }
    }
}

static void test_edges(void) {
    uint64_t e[NEDGE][MAXN];
    for (size_t k = 0; k < nmods; k++) {
        const modulus *M = &mods[k];
        size_t ne = edge_values(e, M);
        for (size_t i = 0; i < ne; i++) {
            CHECK(!ref_geq(e[i], M->m, M->n)); /* the edge values are inputs < m */
            for (size_t j = 0; j < ne; j++) {
                check_one(e[i], e[j], M);
                uint64_t want[MAXN], got[MAXN];
                ref_mont_mul(want, e[i], e[j], M);
                asm_mul(got, e[i], e[j], M);
                CHECK_MEM(want, got, M->n * 8);
            }
        }
    }
}

static void test_aliasing(void) {
    for (size_t k = 0; k < nmods; k++) {
        const modulus *M = &mods[k];
        size_t n = M->n;
        for (unsigned long i = 0; i < ITERS(200); i++) {
            uint64_t a[MAXN], b[MAXN], want[MAXN], wsq[MAXN], x[MAXN];
            rand_below(a, M, i & 1);
            rand_below(b, M, 0);
            port_mul(want, a, b, M);
            port_mul(wsq, a, a, M);
            memcpy(x, a, n * 8); /* r == a */
            asm_mul(x, x, b, M);
            CHECK_MEM(x, want, n * 8);
            memcpy(x, b, n * 8); /* r == b */
            asm_mul(x, a, x, M);
            CHECK_MEM(x, want, n * 8);
            memcpy(x, a, n * 8); /* r == a == b */
            asm_mul(x, x, x, M);
            CHECK_MEM(x, wsq, n * 8);
            memcpy(x, a, n * 8); /* sqr in place */
            asm_sqr(x, x, M);
            CHECK_MEM(x, wsq, n * 8);
        }
    }
}

/* The independent reference on random inputs, fewer cases (it is slow). */
static void test_reference(void) {
    for (size_t k = 0; k < nmods; k++) {
        const modulus *M = &mods[k];
        unsigned long count = k < 2 ? ITERS(1000) : ITERS(100);
        for (unsigned long i = 0; i < count; i++) {
            uint64_t a[MAXN], b[MAXN], want[MAXN], got[MAXN];
            rand_below(a, M, (i & 3) == 0);
            rand_below(b, M, (i & 7) == 0);
            ref_mont_mul(want, a, b, M);
            asm_mul(got, a, b, M);
            CHECK_MEM(want, got, M->n * 8);
            ref_mont_mul(want, a, a, M);
            asm_sqr(got, a, M);
            CHECK_MEM(want, got, M->n * 8);
        }
    }
}

/* The reference checks itself without the code under test:
 * mont(x, R mod m) = x, and its R mod p matches the generated constant. */
static void test_reference_sanity(void) {
    for (size_t k = 0; k < nmods; k++) {
        const modulus *M = &mods[k];
        uint64_t rm[MAXN], x[MAXN], y[MAXN];
        ref_r_mod(rm, M);
        rand_below(x, M, 0);
        ref_mont_mul(y, x, rm, M);
        CHECK_MEM(x, y, M->n * 8);
    }
    /* Fp's R mod p from the constants generator agrees with the reference */
    static const uint64_t one[6] = CUZK__FP_ONE;
    uint64_t rm[MAXN];
    ref_r_mod(rm, &mods[0]);
    CHECK_MEM(rm, one, 48);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    if (!(cuzk_cpu_features() & CUZK_CPU_ADX))
        return cuzk_test_skip("BMI2/ADX kernels not in use on this CPU or build");
    setup_moduli();
    RUN(test_reference_sanity);
    RUN(test_edges);
    RUN(test_aliasing);
    RUN(test_random_bls);
    RUN(test_random_generic);
    RUN(test_reference);
    return cuzk_test_finish();
}

#else /* !CUZK_HAVE_X86_64_ASM */

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    return cuzk_test_skip("built without the x86-64 assembly kernels");
}

#endif
