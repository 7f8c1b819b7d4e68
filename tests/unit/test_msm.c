/*
 * test_msm.c — the CPU MSM, classification and batch-add (src/msm/msm.h).
 *
 * References, both independent of the code under test:
 *   naive  sum of cuzk_g*_jac_mul_var(P_i, k_i) with Jacobian additions;
 *   dlog   the bases are built with known discrete logs (P_i = a_i G, made by
 *          adding random steps s_j G, so a_i is tracked in Fr), and the MSM
 *          must equal (sum k_i a_i mod r) G: one scalar multiplication, which
 *          lets the large sizes run in milliseconds.
 * The group tests are written once and stamped for G1 and G2: this file
 * includes itself with TEST_MSM_GROUP set.
 */
#ifndef TEST_MSM_GROUP

#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "msm/msm.h"

static const uint64_t R_LIMBS[4] = CUZK__FR_R;

/* The overrides every MSM call of the group tests passes (MSM, MSM_SCRATCH
 * below): main and the tests that force a window, a bucket path, a reduction
 * or GLV set them, and put them back to the defaults (all zero) after. */
static cuzk_msm_opts msm_opts;

/* a < b on 4 limbs */
static int lt4(const uint64_t a[4], const uint64_t b[4]) {
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}

/* a + b and a - b on 4 limbs (mod 2^256) */
static void add4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t c = 0;
    for (int i = 0; i < 4; i++) r[i] = cuzk__adc(a[i], b[i], &c);
}
static void sub4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t c = 0;
    for (int i = 0; i < 4; i++) r[i] = cuzk__sbb(a[i], b[i], &c);
}

/* z = x^2 (x the BLS seed) computed here from |x|, independently of msm.c */
static void glv_z(uint64_t z[4]) {
    uint64_t hi;
    memset(z, 0, 4 * sizeof(uint64_t));
    z[0] = cuzk__mac(&hi, CUZK__BLS_X_ABS, CUZK__BLS_X_ABS, 0, 0);
    z[1] = hi;
}

/*
 * The edge scalars of the GLV split (k mod r = k1 + k2 z): 0, 1, 2, z - 1, z,
 * z + 1, 2z, lambda = r - z and lambda +- 1, r - 1 (k2 = z - 1, k1 = 0), r - 2
 * (both halves near z), r, r + 1 (reduced first), z^2 - 1 = r + z - 2,
 * 2^127, 2^128 - 1, 2^128, 2^255 - 1. Returns how many (at most 24).
 */
static int glv_edges(uint64_t (*e)[4]) {
    uint64_t z[4], one[4] = {1, 0, 0, 0}, two[4] = {2, 0, 0, 0}, t[4];
    glv_z(z);
    int m = 0;
    memset(e, 0, 24 * sizeof(*e));
    m++;                                     /* 0 */
    e[m++][0] = 1;                           /* 1 */
    e[m++][0] = 2;                           /* 2 */
    sub4(e[m++], z, one);                    /* z - 1 */
    memcpy(e[m++], z, 32);                   /* z */
    add4(e[m++], z, one);                    /* z + 1 */
    add4(e[m++], z, z);                      /* 2z */
    sub4(e[m++], R_LIMBS, z);                /* lambda */
    sub4(t, R_LIMBS, z), add4(e[m++], t, one); /* lambda + 1 */
    sub4(t, R_LIMBS, z), sub4(e[m++], t, one); /* lambda - 1 */
    sub4(e[m++], R_LIMBS, one);              /* r - 1 */
    sub4(e[m++], R_LIMBS, two);              /* r - 2 */
    memcpy(e[m++], R_LIMBS, 32);             /* r */
    add4(e[m++], R_LIMBS, one);              /* r + 1 */
    add4(t, R_LIMBS, z), sub4(e[m++], t, two); /* z^2 - 1 */
    e[m++][1] = (uint64_t)1 << 63;           /* 2^127 */
    e[m][0] = e[m][1] = ~(uint64_t)0, m++;   /* 2^128 - 1 */
    e[m++][2] = 1;                           /* 2^128 */
    memset(e[m], 0xff, 32), e[m++][3] >>= 1; /* 2^255 - 1 */
    return m;
}

/* A scalar for the tests: mostly uniform below r, sometimes an edge value
 * (the GLV split's edges among them). */
static void rand_scalar(uint64_t k[4]) {
    unsigned kind = (unsigned)(cuzk_test_rand64() % 16);
    memset(k, 0, 4 * sizeof(uint64_t));
    switch (kind) {
    case 0: return; /* 0 */
    case 1: k[0] = 1; return;
    case 2: /* r - 1 */
        memcpy(k, R_LIMBS, sizeof(R_LIMBS));
        k[0] -= 1;
        return;
    case 3: k[0] = cuzk_test_rand64() & 0xffff; return; /* small */
    case 4: k[0] = 2; return;
    case 5:
    case 6: {
        uint64_t e[24][4];
        int m = glv_edges(e);
        memcpy(k, e[cuzk_test_rand64() % (uint64_t)m], 32);
        return;
    }
    default:
        do {
            for (int i = 0; i < 4; i++) k[i] = cuzk_test_rand64();
            k[3] &= 0x7fffffffffffffffULL;
        } while (!lt4(k, R_LIMBS));
    }
}

/* k mod r as an Fr element (k < 2^255 < 2r, so one subtraction at most). */
static void scalar_to_fr(cuzk_fr *r, const uint64_t k[4]) {
    uint64_t t[4];
    memcpy(t, k, sizeof(t));
    if (!lt4(t, R_LIMBS)) {
        uint64_t borrow = 0;
        for (int i = 0; i < 4; i++) t[i] = cuzk__sbb(t[i], R_LIMBS[i], &borrow);
    }
    cuzk_fr_from_limbs(r, t);
}

static void rand_fr_plain(uint64_t k[4]) {
    do {
        for (int i = 0; i < 4; i++) k[i] = cuzk_test_rand64();
        k[3] &= 0x7fffffffffffffffULL;
    } while (!lt4(k, R_LIMBS));
}

/* The Booth digits of msm.h recombine to k: sum d_j 2^(jc) over 5 limbs (two's
 * complement for the negative partial sums), digits within [-2^(c-1), 2^(c-1)]. */
static void test_booth_digits(void) {
    for (unsigned long it = 0; it < ITERS(200); it++) {
        uint64_t k[4];
        for (int i = 0; i < 4; i++) k[i] = cuzk_test_rand64();
        k[3] &= 0x7fffffffffffffffULL;
        if (it == 0) memset(k, 0xff, sizeof(k)), k[3] = 0x7fffffffffffffffULL; /* 2^255 - 1 */
        for (unsigned c = 1; c <= CUZK_MSM_MAX_C; c++) {
            unsigned nwin = (256 + c - 1) / c;
            uint64_t acc[5] = {0};
            int range_ok = 1;
            for (unsigned j = 0; j < nwin; j++) {
                int d = cuzk__msm_booth_digit(k, j, c);
                if (d > (1 << (c - 1)) || d < -(1 << (c - 1))) range_ok = 0;
                /* acc += d * 2^(jc) */
                uint64_t term[5] = {0}, mag = (uint64_t)(d < 0 ? -d : d);
                unsigned s = j * c, limb = s / 64, off = s % 64;
                term[limb] = mag << off;
                if (off && limb + 1 < 5) term[limb + 1] = mag >> (64 - off);
                uint64_t carry = 0;
                for (int i = 0; i < 5; i++)
                    acc[i] = d < 0 ? cuzk__sbb(acc[i], term[i], &carry)
                                   : cuzk__adc(acc[i], term[i], &carry);
            }
            CHECK(range_ok);
            CHECK(acc[4] == 0 && memcmp(acc, k, 4 * sizeof(uint64_t)) == 0);
        }
    }
}

/* The same for the GLV halves: 2-limb scalars (up to 2^128 - 1) with
 * nwin = ceil(129/c) windows, the top digit included (no carry out). */
static void test_booth_digits_128(void) {
    for (unsigned long it = 0; it < ITERS(200); it++) {
        uint64_t k[2] = {cuzk_test_rand64(), cuzk_test_rand64()};
        if (it == 0) k[0] = k[1] = ~(uint64_t)0;
        if (it == 1) k[0] = 0, k[1] = (uint64_t)1 << 63;
        for (unsigned c = 1; c <= CUZK_MSM_MAX_C; c++) {
            unsigned nwin = (129 + c - 1) / c;
            cuzk__msm_plan p;
            cuzk_msm_opts o = {c, CUZK_MSM_PATH_AUTO, CUZK_MSM_REDUCE_TREE, CUZK_MSM_GLV_AUTO};
            cuzk__msm_plan_make_bits(&p, 1000, 1, 128, &o);
            CHECK(p.nwin == nwin && p.c == c);
            uint64_t acc[4] = {0};
            int range_ok = 1;
            for (unsigned j = 0; j < nwin; j++) {
                int d = cuzk__msm_booth_digit_n(k, 2, j, c);
                if (d > (1 << (c - 1)) || d < -(1 << (c - 1))) range_ok = 0;
                uint64_t term[4] = {0}, mag = (uint64_t)(d < 0 ? -d : d);
                unsigned s = j * c, limb = s / 64, off = s % 64;
                term[limb] = mag << off;
                if (off && limb + 1 < 4) term[limb + 1] = mag >> (64 - off);
                if (d < 0)
                    sub4(acc, acc, term);
                else
                    add4(acc, acc, term);
            }
            CHECK(range_ok);
            CHECK(acc[0] == k[0] && acc[1] == k[1] && acc[2] == 0 && acc[3] == 0);
        }
    }
}

/* q = floor(t / z), rem = t mod z for t < 2^256, z < 2^128: bit-by-bit long
 * division (the reference for the split's Barrett quotient). */
static void ref_divmod(uint64_t q[4], uint64_t rem[4], const uint64_t t[4], const uint64_t z[4]) {
    memset(q, 0, 32);
    memset(rem, 0, 32);
    for (int b = 255; b >= 0; b--) {
        for (int i = 3; i > 0; i--) rem[i] = (rem[i] << 1) | (rem[i - 1] >> 63);
        rem[0] = (rem[0] << 1) | ((t[b / 64] >> (b % 64)) & 1);
        if (!lt4(rem, z)) {
            sub4(rem, rem, z);
            q[b / 64] |= (uint64_t)1 << (b % 64);
        }
    }
}

/* cuzk__msm_glv_split on the edge scalars and random ones (below r and below
 * 2^255): k1, k2 equal the long division of k mod r by z, both are below
 * z < 2^128, and k1 + k2 z = k in Fr (with z = x * x in Fr). */
static void test_glv_split(void) {
    uint64_t z[4], e[24][4];
    glv_z(z);
    CHECK(z[1] >> 63); /* 2^127 < z < 2^128 */
    cuzk_fr xf, zf;
    uint64_t xl[4] = {CUZK__BLS_X_ABS, 0, 0, 0};
    cuzk_fr_from_limbs(&xf, xl);
    cuzk_fr_mul(&zf, &xf, &xf);
    int ne = glv_edges(e);
    for (unsigned long it = 0; it < (unsigned long)ne + ITERS(3000); it++) {
        uint64_t k[4];
        if (it < (unsigned long)ne) {
            memcpy(k, e[it], 32);
        } else {
            for (int i = 0; i < 4; i++) k[i] = cuzk_test_rand64();
            k[3] &= 0x7fffffffffffffffULL;
            if (it % 2) k[3] &= 0x3fffffffffffffffULL; /* mostly below r too */
        }
        uint64_t k1[2], k2[2], t[4], q[4], rem[4];
        cuzk__msm_glv_split(k1, k2, k);
        memcpy(t, k, 32);
        if (!lt4(t, R_LIMBS)) sub4(t, t, R_LIMBS);
        ref_divmod(q, rem, t, z);
        int ok = q[2] == 0 && q[3] == 0 && k1[0] == rem[0] && k1[1] == rem[1] &&
                 k2[0] == q[0] && k2[1] == q[1];
        uint64_t a1[4] = {k1[0], k1[1], 0, 0}, a2[4] = {k2[0], k2[1], 0, 0};
        ok &= lt4(a1, z) && lt4(a2, z);
        cuzk_fr f1, f2, fk;
        cuzk_fr_from_limbs(&f1, a1);
        cuzk_fr_from_limbs(&f2, a2);
        cuzk_fr_mul(&f2, &f2, &zf);
        cuzk_fr_add(&f1, &f1, &f2);
        scalar_to_fr(&fk, k);
        ok &= cuzk_fr_eq(&f1, &fk);
        CHECK(ok);
        if (!ok) printf("  split mismatch at case %lu\n", it);
    }
}

/* Which cube root of unity mod r our beta gives: phi(x, y) = (beta x, y) must
 * be -z = -x^2 (msm.c relies on it), not the other root z - 1, on real points. */
static void test_glv_endo(void) {
    static const cuzk_fp beta = {CUZK__G1_BETA};
    uint64_t z[4], zm1[4], one[4] = {1, 0, 0, 0};
    glv_z(z);
    sub4(zm1, z, one);
    cuzk_g1_aff g;
    cuzk_g1_jac gj;
    cuzk_g1_generator(&g);
    cuzk_g1_aff_to_jac(&gj, &g);
    for (int it = 0; it < 4; it++) {
        uint64_t a[4];
        rand_fr_plain(a);
        cuzk_g1_jac pj, zp, zm1p, phi, mphi;
        cuzk_g1_aff p;
        cuzk_g1_jac_mul_var(&pj, &gj, a, 4);
        cuzk_g1_jac_to_aff_var(&p, &pj);
        cuzk_g1_aff ph = p, mph;
        cuzk_fp_mul(&ph.x, &p.x, &beta);
        cuzk_g1_aff_neg(&mph, &ph);
        cuzk_g1_aff_to_jac(&phi, &ph);
        cuzk_g1_aff_to_jac(&mphi, &mph);
        cuzk_g1_jac_mul_var(&zp, &pj, z, 4);
        cuzk_g1_jac_mul_var(&zm1p, &pj, zm1, 4);
        CHECK(cuzk_g1_jac_eq(&mphi, &zp));    /* -phi(P) = z P */
        CHECK(!cuzk_g1_jac_eq(&phi, &zm1p));  /* lambda is not z - 1 for this beta */
    }
}

/* Larger n never gets a smaller window (the scratch bound relies on it). */
static void test_window_monotone(void) {
    for (unsigned threads = 1; threads <= 4; threads += 3) {
        unsigned prev = 0;
        for (size_t n = 1; n < ((size_t)1 << 28); n = n + n / 7 + 1) {
            unsigned c = cuzk_msm_window_bits(n, threads);
            CHECK(c >= prev && c >= 1 && c <= CUZK_MSM_MAX_C);
            prev = c;
        }
    }
    CHECK(cuzk_msm_window_bits((size_t)1 << 16, 1) >= 10);
}

/* Bitmaps and counts against a direct reading of the scalars. */
static void test_classify(void) {
    size_t sizes[] = {0, 1, 63, 64, 65, 1000, 70000};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si], words = cuzk_msm_bitmap_words(n);
        uint64_t(*k)[4] = malloc((n + 1) * sizeof(*k));
        uint64_t *bz = malloc((words + 1) * 8), *bo = malloc((words + 1) * 8),
                 *bx = malloc((words + 1) * 8);
        CHECK(k && bz && bo && bx);
        if (!k || !bz || !bo || !bx) return;
        size_t cz = 0, co = 0, cx = 0;
        for (size_t i = 0; i < n; i++) {
            rand_scalar(k[i]);
            if (cuzk_test_rand64() % 8 == 0) { /* 1 in a high limb only: "other" */
                memset(k[i], 0, 32);
                k[i][1 + cuzk_test_rand64() % 3] = 1;
            }
        }
        for (unsigned threads = 1; threads <= 3; threads += 2) {
            cuzk_msm_counts cnt;
            memset(bz, 0xaa, (words + 1) * 8);
            cuzk_msm_classify_var(bz, bo, bx, &cnt, (const uint64_t(*)[4])k, n, threads);
            cz = co = cx = 0;
            int ok = 1;
            for (size_t i = 0; i < words * 64; i++) {
                int z = (bz[i / 64] >> (i % 64)) & 1, o = (bo[i / 64] >> (i % 64)) & 1,
                    x = (bx[i / 64] >> (i % 64)) & 1;
                if (i >= n) {
                    if (z | o | x) ok = 0;
                    continue;
                }
                int is0 = !(k[i][0] | k[i][1] | k[i][2] | k[i][3]);
                int is1 = k[i][0] == 1 && !(k[i][1] | k[i][2] | k[i][3]);
                if (z != is0 || o != is1 || x != (!is0 && !is1)) ok = 0;
                cz += (size_t)is0;
                co += (size_t)is1;
                cx += (size_t)(!is0 && !is1);
            }
            CHECK(ok);
            CHECK(cnt.zero == cz && cnt.one == co && cnt.other == cx);
            CHECK(cuzk__msm_popcount(bx, n) == cx);
        }
        free(k);
        free(bz);
        free(bo);
        free(bx);
    }
}

#define TEST_MSM_GROUP 1
#include "test_msm.c"
#undef TEST_MSM_GROUP
#define TEST_MSM_GROUP 2
#include "test_msm.c"
#undef TEST_MSM_GROUP

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_booth_digits);
    RUN(test_booth_digits_128);
    RUN(test_glv_split);
    RUN(test_glv_endo);
    RUN(test_window_monotone);
    RUN(test_classify);
    /* G1 with GLV forced on at every size, then off (G2 has no GLV; the plain
     * path's window, reduction and thread tests are the same code as G2's, so
     * the second pass keeps the cheap ones) */
    for (int glv = CUZK_MSM_GLV_ON; glv >= CUZK_MSM_GLV_OFF; glv--) {
        msm_opts.glv = (cuzk_msm_glv)glv;
        printf("G1, GLV %s:\n", glv == CUZK_MSM_GLV_ON ? "on" : "off");
        fflush(stdout);
        RUN(g1_test_small_naive);
        RUN(g1_test_edges);
        RUN(g1_test_mask_and_classification);
        RUN(g1_test_paths);
        RUN(g1_test_bad_args);
        if (glv == CUZK_MSM_GLV_OFF) continue;
        RUN(g1_test_dlog_large);
        RUN(g1_test_reduce_grid);
        RUN(g1_test_every_window);
        RUN(g1_test_glv_mask_threads);
    }
    msm_opts.glv = CUZK_MSM_GLV_AUTO;
    RUN(g1_test_default_opts);
    RUN(g1_test_batch_add);
    RUN(g2_test_small_naive);
    RUN(g2_test_edges);
    RUN(g2_test_dlog_large);
    RUN(g2_test_mask_and_classification);
    RUN(g2_test_batch_add);
    RUN(g2_test_paths);
    RUN(g2_test_reduce_grid);
    RUN(g2_test_every_window);
    RUN(g2_test_glv_mask_threads);
    RUN(g2_test_bad_args);
    RUN(g2_test_default_opts);
    return cuzk_test_finish();
}

#else /* TEST_MSM_GROUP: the per-group tests, stamped twice */

#if TEST_MSM_GROUP == 1
#define G(name) cuzk_g1_##name
#define T(name) g1_##name
#define NAIVE_MAX 1000
#define LARGE_N 4000
#else
#define G(name) cuzk_g2_##name
#define T(name) g2_##name
#define NAIVE_MAX 300
#define LARGE_N 2500
#endif

typedef G(aff) T(aff);
typedef G(jac) T(jac);

/*
 * n bases with known logs: a_i in Fr, P_i = a_i G. A walk with random steps
 * from 8 precomputed s_j G; then ~3% infinity (a_i = 0) and ~3% repeats of an
 * earlier base or its negation.
 */
static void T(make_bases)(T(aff) *P, cuzk_fr *a, size_t n) {
    T(aff) g;
    T(jac) gj, steps[8], cur;
    cuzk_fr s[8], acc;
    G(generator)(&g);
    G(aff_to_jac)(&gj, &g);
    for (int j = 0; j < 8; j++) {
        uint64_t k[4];
        rand_fr_plain(k);
        cuzk_fr_from_limbs(&s[j], k);
        G(jac_mul_var)(&steps[j], &gj, k, 4);
    }
    uint64_t k0[4];
    rand_fr_plain(k0);
    cuzk_fr_from_limbs(&acc, k0);
    G(jac_mul_var)(&cur, &gj, k0, 4);
    T(jac) *pj = malloc((n + 1) * sizeof(*pj));
    if (!pj) return;
    for (size_t i = 0; i < n; i++) {
        unsigned j = (unsigned)(cuzk_test_rand64() % 8);
        G(jac_add_var)(&cur, &cur, &steps[j]);
        cuzk_fr_add(&acc, &acc, &s[j]);
        pj[i] = cur;
        a[i] = acc;
    }
    if (n) {
        void *scr = malloc(n * sizeof(pj[0].z));
        if (scr) G(jac_batch_to_aff_var)(P, pj, n, scr);
        free(scr);
    }
    free(pj);
    for (size_t i = 0; i < n; i++) {
        unsigned r = (unsigned)(cuzk_test_rand64() % 64);
        if (r < 2) {
            G(aff_set_inf)(&P[i]);
            cuzk_fr_set_zero(&a[i]);
        } else if (r < 4 && i > 0) {
            size_t src = (size_t)(cuzk_test_rand64() % i);
            P[i] = P[src];
            a[i] = a[src];
            if (r == 3) {
                G(aff_neg)(&P[i], &P[i]);
                cuzk_fr_neg(&a[i], &a[i]);
            }
        }
    }
}

/* sum_i k_i P_i by scalar multiplications (mask: only bits set; NULL: all) */
static void T(naive)(T(jac) *r, const T(aff) *P, const uint64_t (*k)[4], size_t n,
                     const uint64_t *mask) {
    T(jac) acc, t, pj;
    G(jac_set_inf)(&acc);
    for (size_t i = 0; i < n; i++) {
        if (mask && !((mask[i / 64] >> (i % 64)) & 1)) continue;
        G(aff_to_jac)(&pj, &P[i]);
        G(jac_mul_var)(&t, &pj, k[i], 4);
        G(jac_add_var)(&acc, &acc, &t);
    }
    *r = acc;
}

/* (sum_i k_i a_i) G */
static void T(dlog_ref)(T(jac) *r, const cuzk_fr *a, const uint64_t (*k)[4], size_t n,
                        const uint64_t *mask) {
    cuzk_fr sum, t, kf;
    cuzk_fr_set_zero(&sum);
    for (size_t i = 0; i < n; i++) {
        if (mask && !((mask[i / 64] >> (i % 64)) & 1)) continue;
        scalar_to_fr(&kf, k[i]);
        cuzk_fr_mul(&t, &kf, &a[i]);
        cuzk_fr_add(&sum, &sum, &t);
    }
    uint64_t e[4];
    cuzk_fr_to_limbs(e, &sum);
    T(aff) g;
    T(jac) gj;
    G(generator)(&g);
    G(aff_to_jac)(&gj, &g);
    G(jac_mul_var)(r, &gj, e, 4);
}

typedef struct {
    T(aff) *P;
    cuzk_fr *a;
    uint64_t (*k)[4];
    size_t n;
} T(data);

static int T(data_new)(T(data) *d, size_t n) {
    d->n = n;
    d->P = malloc((n + 1) * sizeof(*d->P));
    d->a = malloc((n + 1) * sizeof(*d->a));
    d->k = malloc((n + 1) * sizeof(*d->k));
    if (!d->P || !d->a || !d->k) return 0;
    T(make_bases)(d->P, d->a, n);
    for (size_t i = 0; i < n; i++) rand_scalar(d->k[i]);
    return 1;
}

static void T(data_free)(T(data) *d) {
    free(d->P);
    free(d->a);
    free(d->k);
}

#define KC(d) ((const uint64_t(*)[4])(d).k)
/* The MSM and its scratch size with the current overrides (msm_opts). */
#define MSM(...) G(msm_opts_var)(__VA_ARGS__, &msm_opts)
#define MSM_SCRATCH(n, threads) G(msm_scratch_sizeof_opts)(n, threads, &msm_opts)

/* n in {0, 1, 2, 3, 17, 100, NAIVE_MAX} against the naive sum; the dlog
 * reference is checked against the naive one on the way. */
static void T(test_small_naive)(void) {
    size_t sizes[] = {0, 1, 2, 3, 17, 100, NAIVE_MAX};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        T(data) d;
        CHECK(T(data_new)(&d, sizes[si]));
        T(jac) ref, ref2, got;
        T(naive)(&ref, d.P, KC(d), d.n, NULL);
        T(dlog_ref)(&ref2, d.a, KC(d), d.n, NULL);
        CHECK(G(jac_eq)(&ref, &ref2));
        CHECK(MSM(&got, d.P, KC(d), d.n, NULL, 1, NULL) == CUZK_OK);
        CHECK(G(jac_eq)(&got, &ref));
        CHECK(MSM(&got, d.P, KC(d), d.n, NULL, 0, NULL) == CUZK_OK);
        CHECK(G(jac_eq)(&got, &ref));
        if (!G(jac_eq)(&got, &ref)) printf("  mismatch at n = %zu\n", d.n);
        T(data_free)(&d);
    }
}

/* All scalars r-1, all equal, all 0, all 1; all bases infinity; one base
 * repeated with k and r-k; 2^255 - 1 (the top Booth window). */
static void T(test_edges)(void) {
    const size_t n = 51; /* odd: the pairs below cancel, the last scalar is 1 */
    T(data) d;
    CHECK(T(data_new)(&d, n));
    T(jac) ref, got;
    uint64_t same[4];
    rand_fr_plain(same);
    for (int kind = 0; kind < 6; kind++) {
        for (size_t i = 0; i < n; i++) {
            memset(d.k[i], 0, 32);
            switch (kind) {
            case 0: memcpy(d.k[i], R_LIMBS, 32), d.k[i][0] -= 1; break;
            case 1: memcpy(d.k[i], same, 32); break;
            case 2: break;
            case 3: d.k[i][0] = 1; break;
            case 4: memset(d.k[i], 0xff, 32), d.k[i][3] >>= 1; break; /* 2^255 - 1 */
            case 5: d.k[i][3] = 0x4000000000000000ULL; break;         /* 2^254 */
            }
        }
        T(dlog_ref)(&ref, d.a, KC(d), n, NULL);
        CHECK(MSM(&got, d.P, KC(d), n, NULL, 1, NULL) == CUZK_OK);
        CHECK(G(jac_eq)(&got, &ref));
        CHECK(MSM(&got, d.P, KC(d), n, NULL, 3, NULL) == CUZK_OK);
        CHECK(G(jac_eq)(&got, &ref));
        if (kind == 2) CHECK(G(jac_is_inf)(&got));
    }
    /* all bases at infinity */
    T(aff) *inf = calloc(n, sizeof(*inf));
    CHECK(inf != NULL);
    if (inf) {
        for (size_t i = 0; i < n; i++) rand_scalar(d.k[i]);
        CHECK(MSM(&got, inf, KC(d), n, NULL, 2, NULL) == CUZK_OK);
        CHECK(G(jac_is_inf)(&got));
        CHECK(G(msm_with_classification_opts_var)(&got, NULL, inf, KC(d), n, 2, &msm_opts) ==
              CUZK_OK);
        CHECK(G(jac_is_inf)(&got));
    }
    free(inf);
    /* P_i = P_0 for all i, scalars k and r - k alternating (+ one 1): sum = P_0 */
    for (size_t i = 0; i < n; i++) {
        d.P[i] = d.P[1];
        d.a[i] = d.a[1];
        if (i % 2 == 0) {
            rand_fr_plain(d.k[i]);
        } else {
            uint64_t borrow = 0;
            for (int l = 0; l < 4; l++) d.k[i][l] = cuzk__sbb(R_LIMBS[l], d.k[i - 1][l], &borrow);
        }
    }
    d.k[n - 1][0] = 1, d.k[n - 1][1] = d.k[n - 1][2] = d.k[n - 1][3] = 0;
    T(dlog_ref)(&ref, d.a, KC(d), n, NULL);
    CHECK(MSM(&got, d.P, KC(d), n, NULL, 1, NULL) == CUZK_OK);
    CHECK(G(jac_eq)(&got, &ref));
    T(jac) p1;
    G(aff_to_jac)(&p1, &d.P[1]);
    CHECK(G(jac_eq)(&got, &p1));
    T(data_free)(&d);
}

/* A few thousand points (and 2^14 for G1) against the dlog reference,
 * single-threaded and on 2, 3 and all threads, with and without scratch. */
static void T(test_dlog_large)(void) {
    size_t sizes[] = {LARGE_N, TEST_MSM_GROUP == 1 ? ((size_t)1 << 14) : 777};
    for (size_t si = 0; si < 2; si++) {
        T(data) d;
        CHECK(T(data_new)(&d, sizes[si]));
        T(jac) ref, got, got1;
        T(dlog_ref)(&ref, d.a, KC(d), d.n, NULL);
        CHECK(MSM(&got1, d.P, KC(d), d.n, NULL, 1, NULL) == CUZK_OK);
        CHECK(G(jac_eq)(&got1, &ref));
        unsigned tl[] = {2, 3, 0};
        for (int ti = 0; ti < 3; ti++) {
            size_t bytes = MSM_SCRATCH(d.n, tl[ti]);
            void *scr = malloc(bytes);
            CHECK(scr != NULL);
            CHECK(MSM(&got, d.P, KC(d), d.n, NULL, tl[ti], scr) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &got1));
            free(scr);
        }
        T(data_free)(&d);
    }
}

/* Masked MSM against the reference over the masked subset; classification +
 * batch-add equals the plain MSM, with zeros and ones made frequent. */
static void T(test_mask_and_classification)(void) {
    size_t sizes[] = {1, 70, 3000};
    for (size_t si = 0; si < 3; si++) {
        T(data) d;
        size_t n = sizes[si];
        CHECK(T(data_new)(&d, n));
        for (size_t i = 0; i < n; i++) {
            unsigned r = (unsigned)(cuzk_test_rand64() % 3);
            if (r < 2) memset(d.k[i], 0, 32), d.k[i][0] = r; /* a third 0, a third 1 */
        }
        size_t words = cuzk_msm_bitmap_words(n);
        uint64_t *mask = calloc(words, 8);
        CHECK(mask != NULL);
        if (!mask) return;
        for (size_t w = 0; w < words; w++) mask[w] = cuzk_test_rand64() & cuzk_test_rand64();
        T(jac) ref, got, plain;
        T(dlog_ref)(&ref, d.a, KC(d), n, mask);
        CHECK(MSM(&got, d.P, KC(d), n, mask, 1, NULL) == CUZK_OK);
        CHECK(G(jac_eq)(&got, &ref));
        CHECK(MSM(&got, d.P, KC(d), n, mask, 0, NULL) == CUZK_OK);
        CHECK(G(jac_eq)(&got, &ref));

        T(dlog_ref)(&ref, d.a, KC(d), n, NULL);
        CHECK(MSM(&plain, d.P, KC(d), n, NULL, 0, NULL) == CUZK_OK);
        CHECK(G(jac_eq)(&plain, &ref));
        cuzk_msm_counts cnt;
        for (unsigned threads = 1; threads <= 3; threads += 2) {
            CHECK(G(msm_with_classification_opts_var)(&got, &cnt, d.P, KC(d), n, threads,
                                                      &msm_opts) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &plain));
            CHECK(cnt.zero + cnt.one + cnt.other == n);
        }
        /* the pieces: batch_add(ones) + msm(others) */
        uint64_t *one = calloc(words, 8), *other = calloc(words, 8);
        CHECK(one && other);
        if (one && other) {
            cuzk_msm_classify_var(NULL, one, other, NULL, KC(d), n, 1);
            T(jac) a, b, s;
            CHECK(G(batch_add_var)(&a, d.P, n, one, 1, NULL) == CUZK_OK);
            T(naive)(&s, d.P, KC(d), n, one);
            CHECK(G(jac_eq)(&a, &s));
            CHECK(MSM(&b, d.P, KC(d), n, other, 2, NULL) == CUZK_OK);
            G(jac_add_var)(&s, &a, &b);
            CHECK(G(jac_eq)(&s, &plain));
        }
        free(one);
        free(other);
        free(mask);
        T(data_free)(&d);
    }
}

/* Batch-add against Jacobian additions: sizes across the round boundaries,
 * many equal points (doublings in a round), P with -P (infinity), infinity
 * bases, all-ones and random bitmaps, NULL bitmap, 1 and several threads. */
static void T(test_batch_add)(void) {
    size_t sizes[] = {0, 1, 2, 3, 16, 17, CUZK_MSM_BATCH_ADD - 1, CUZK_MSM_BATCH_ADD + 1,
                      TEST_MSM_GROUP == 1 ? 9000 : 2100};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si], words = cuzk_msm_bitmap_words(n);
        T(data) d;
        CHECK(T(data_new)(&d, n));
        /* a run of equal points and a run of P, -P pairs */
        for (size_t i = 0; i + 1 < n && i < n / 4; i++) d.P[i] = d.P[0];
        for (size_t i = n / 4; i + 1 < n / 2; i += 2) G(aff_neg)(&d.P[i + 1], &d.P[i]);
        uint64_t *bm = calloc(words + 1, 8);
        CHECK(bm != NULL);
        if (!bm) return;
        for (int variant = 0; variant < 3; variant++) {
            for (size_t w = 0; w < words; w++)
                bm[w] = variant == 0 ? ~(uint64_t)0 : variant == 1 ? cuzk_test_rand64() : 0x5;
            if (n % 64 && words) bm[words - 1] &= ((uint64_t)1 << (n % 64)) - 1;
            T(jac) ref, got;
            G(jac_set_inf)(&ref);
            for (size_t i = 0; i < n; i++)
                if ((bm[i / 64] >> (i % 64)) & 1) G(jac_add_aff_var)(&ref, &ref, &d.P[i]);
            CHECK(G(batch_add_var)(&got, d.P, n, bm, 1, NULL) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &ref));
            void *scr = malloc(G(batch_add_scratch_sizeof)(3));
            CHECK(G(batch_add_var)(&got, d.P, n, bm, 3, scr) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &ref));
            free(scr);
            if (variant == 0) {
                CHECK(G(batch_add_var)(&got, d.P, n, NULL, 0, NULL) == CUZK_OK);
                CHECK(G(jac_eq)(&got, &ref));
            }
        }
        free(bm);
        T(data_free)(&d);
    }
}

/* Both bucket accumulations (XYZZ and batch-affine) forced on every size,
 * with the edge cases of test_edges, against the dlog reference. */
static void T(test_paths)(void) {
    size_t sizes[] = {1, 2, 17, 300, TEST_MSM_GROUP == 1 ? 3000 : 1000};
    for (int path = 1; path <= 2; path++) {
        msm_opts.path = (cuzk_msm_path)path;
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            T(data) d;
            CHECK(T(data_new)(&d, sizes[si]));
            T(jac) ref, got;
            T(dlog_ref)(&ref, d.a, KC(d), d.n, NULL);
            CHECK(MSM(&got, d.P, KC(d), d.n, NULL, 1, NULL) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &ref));
            CHECK(MSM(&got, d.P, KC(d), d.n, NULL, 3, NULL) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &ref));
            T(data_free)(&d);
        }
        T(test_edges)();
    }
    msm_opts.path = CUZK_MSM_PATH_AUTO;
}

/*
 * The affine bucket reduction (msm_impl.h: row and column trees) with the bucket
 * contents chosen: window c forced, scalar b + 1 puts a base into bucket b of
 * window 0 (the top one, b + 1 = 2^(c-1), Booth-recodes to -2^(c-1) + 2^c: the
 * negated base there and the base in window 1, so opposite buckets meet in the
 * first column level too). Per bucket, at random: empty, P, -P, Q, P twice,
 * or P and Q; or (variant 1) every bucket P, so that every tree level doubles,
 * or (variant 2) rows alternating P and -P, so that the first column level
 * cancels. Every c from 1 to max_c, both reductions, threads 1 and 2, against
 * the dlog reference.
 */
static void T(test_reduce_grid)(void) {
    unsigned max_c = TEST_MSM_GROUP == 1 ? 16 : 14;
    T(data) base;
    CHECK(T(data_new)(&base, 4));
    if (!base.P) return;
    size_t cap = 2 * ((size_t)1 << (max_c - 1));
    T(aff) *P = malloc(cap * sizeof(*P));
    cuzk_fr *a = malloc(cap * sizeof(*a));
    uint64_t(*k)[4] = calloc(cap, sizeof(*k));
    CHECK(P && a && k);
    if (!P || !a || !k) return;
    /* base.P[0], P[1] are finite with high probability; use entries 0 and 1 */
    T(aff) p0 = base.P[0], q0 = base.P[1], np0;
    cuzk_fr ap = base.a[0], aq = base.a[1], anp;
    if (G(aff_is_inf)(&p0) || G(aff_is_inf)(&q0)) { /* make_bases' rare infinity */
        T(data_free)(&base);
        free(P), free(a), free(k);
        return;
    }
    G(aff_neg)(&np0, &p0);
    cuzk_fr_neg(&anp, &ap);
    msm_opts.path = CUZK_MSM_PATH_AFFINE;
    for (unsigned c = 1; c <= max_c; c++) {
        size_t nb = (size_t)1 << (c - 1);
        unsigned h = (c - 1) / 2;
        /* the largest windows (one thread at 2^19 points and more) once */
        for (int variant = 0; variant < (c <= 13 ? 3 : 1); variant++) {
            size_t n = 0;
            for (size_t b = 0; b < nb; b++) {
                unsigned kind = variant == 1 ? 1
                                : variant == 2 ? (((b >> h) & 1) ? 2 : 1)
                                               : (unsigned)(cuzk_test_rand64() % 6);
                const T(aff) *pts[2] = {NULL, NULL};
                const cuzk_fr *logs[2] = {NULL, NULL};
                switch (kind) {
                case 0: break;
                case 1: pts[0] = &p0, logs[0] = &ap; break;
                case 2: pts[0] = &np0, logs[0] = &anp; break;
                case 3: pts[0] = &q0, logs[0] = &aq; break;
                case 4: pts[0] = pts[1] = &p0, logs[0] = logs[1] = &ap; break;
                default: pts[0] = &p0, pts[1] = &q0, logs[0] = &ap, logs[1] = &aq; break;
                }
                for (int e = 0; e < 2 && pts[e]; e++) {
                    P[n] = *pts[e];
                    a[n] = *logs[e];
                    memset(k[n], 0, 32);
                    k[n][0] = b + 1;
                    n++;
                }
            }
            if (c == 1 && variant == 0 && n == 0) { /* keep one point in the one bucket */
                P[0] = p0, a[0] = ap, memset(k[0], 0, 32), k[0][0] = 1, n = 1;
            }
            T(jac) ref, got;
            T(dlog_ref)(&ref, a, (const uint64_t(*)[4])k, n, NULL);
            msm_opts.c = c;
            for (int red = 0; red <= 1; red++) {
                msm_opts.reduce = (cuzk_msm_reduce)red;
                for (unsigned threads = 1; threads <= (c <= 13 ? 2u : 1u); threads++) {
                    CHECK(MSM(&got, P, (const uint64_t(*)[4])k, n, NULL, threads, NULL) ==
                          CUZK_OK);
                    CHECK(G(jac_eq)(&got, &ref));
                    if (!G(jac_eq)(&got, &ref))
                        printf("  mismatch: c %u variant %d reduce %d threads %u\n", c, variant,
                               red, threads);
                }
            }
            msm_opts.reduce = CUZK_MSM_REDUCE_TREE;
            msm_opts.c = 0;
        }
    }
    msm_opts.path = CUZK_MSM_PATH_AUTO;
    free(P);
    free(a);
    free(k);
    T(data_free)(&base);
}

/* Random data (the edge scalars of rand_scalar, repeated and opposite bases,
 * infinity) with every window c and both bucket paths forced, and with the
 * window the plan picks for sizes around its thresholds, against the dlog
 * reference; a random mask on the way. */
static void T(test_every_window)(void) {
    size_t n = TEST_MSM_GROUP == 1 ? 400 : 150;
    T(data) d;
    CHECK(T(data_new)(&d, n));
    size_t words = cuzk_msm_bitmap_words(n);
    uint64_t *mask = calloc(words, 8);
    CHECK(mask != NULL);
    if (!mask) return;
    for (size_t w = 0; w < words; w++) mask[w] = cuzk_test_rand64() | cuzk_test_rand64();
    T(jac) ref, refm, got;
    T(dlog_ref)(&ref, d.a, KC(d), n, NULL);
    T(dlog_ref)(&refm, d.a, KC(d), n, mask);
    /* the plan takes XYZZ buckets below c = 10 only (msm.c); the large XYZZ
     * windows cost a full running sum per window, so they stop at 11 here */
    for (unsigned c = 1; c <= CUZK_MSM_MAX_C; c++) {
        msm_opts.c = c;
        for (int path = c <= 11 ? 1 : 2; path <= 2; path++) {
            msm_opts.path = (cuzk_msm_path)path;
            CHECK(MSM(&got, d.P, KC(d), n, NULL, 1, NULL) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &ref));
            /* the scratch size knows the forced window and path */
            void *scr = malloc(MSM_SCRATCH(n, 1));
            CHECK(scr != NULL);
            CHECK(MSM(&got, d.P, KC(d), n, mask, 1, scr) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &refm));
            free(scr);
            if (c > 13) continue; /* several threads stop at 13 */
            CHECK(MSM(&got, d.P, KC(d), n, mask, 2, NULL) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &refm));
        }
    }
    msm_opts.c = 0;
    msm_opts.path = CUZK_MSM_PATH_AUTO;
    T(data_free)(&d);
    free(mask);
    /* the plan's own choice just below and above its thresholds (msm.c) */
    size_t sizes[] = {255, 256, 511, 512, 513, TEST_MSM_GROUP == 1 ? 4095 : 0,
                      TEST_MSM_GROUP == 1 ? 4096 : 0};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        if (!sizes[si]) continue;
        CHECK(T(data_new)(&d, sizes[si]));
        T(dlog_ref)(&ref, d.a, KC(d), d.n, NULL);
        for (unsigned threads = 1; threads <= 2; threads++) {
            void *scr = malloc(MSM_SCRATCH(d.n, threads));
            CHECK(scr != NULL);
            CHECK(MSM(&got, d.P, KC(d), d.n, NULL, threads, scr) == CUZK_OK);
            CHECK(G(jac_eq)(&got, &ref));
            free(scr);
        }
        T(data_free)(&d);
    }
}

/* 10000 bases under a random mask (7/8 of them: above the size from which the
 * GLV split runs on several threads), with the GLV edge scalars frequent and
 * some infinity bases, on 1 and 2 threads with and without scratch, against
 * the dlog reference (for G2 the same test of the plain path). */
static void T(test_glv_mask_threads)(void) {
    size_t n = TEST_MSM_GROUP == 1 ? 10000 : 500, words = cuzk_msm_bitmap_words(n);
    T(data) d;
    CHECK(T(data_new)(&d, n));
    uint64_t e[24][4];
    int ne = glv_edges(e);
    for (size_t i = 0; i < n; i++)
        if (cuzk_test_rand64() % 4 == 0) memcpy(d.k[i], e[cuzk_test_rand64() % (uint64_t)ne], 32);
    uint64_t *mask = calloc(words, 8);
    CHECK(mask != NULL);
    if (!mask) return;
    for (size_t w = 0; w < words; w++)
        mask[w] = cuzk_test_rand64() | cuzk_test_rand64() | cuzk_test_rand64();
    mask[words / 2] = 0; /* an empty word inside */
    T(jac) ref, refm, got;
    T(dlog_ref)(&ref, d.a, KC(d), n, NULL);
    T(dlog_ref)(&refm, d.a, KC(d), n, mask);
    CHECK(MSM(&got, d.P, KC(d), n, mask, 1, NULL) == CUZK_OK);
    CHECK(G(jac_eq)(&got, &refm));
    void *scr = malloc(MSM_SCRATCH(n, 2));
    CHECK(scr != NULL);
    CHECK(MSM(&got, d.P, KC(d), n, NULL, 2, scr) == CUZK_OK);
    CHECK(G(jac_eq)(&got, &ref));
    CHECK(MSM(&got, d.P, KC(d), n, mask, 2, scr) == CUZK_OK);
    CHECK(G(jac_eq)(&got, &refm));
    free(scr);
    free(mask);
    T(data_free)(&d);
}

static void T(test_bad_args)(void) {
    T(data) d;
    CHECK(T(data_new)(&d, 5));
    T(jac) got;
    d.k[3][3] |= (uint64_t)1 << 63; /* 2^255 and above are refused */
    CHECK(MSM(&got, d.P, KC(d), d.n, NULL, 1, NULL) == CUZK_ERR_INVALID_ARG);
    uint64_t mask = 0x17; /* bit 3 clear: the bad scalar does not take part */
    CHECK(MSM(&got, d.P, KC(d), d.n, &mask, 1, NULL) == CUZK_OK);
    CHECK(MSM(&got, NULL, KC(d), d.n, NULL, 1, NULL) == CUZK_ERR_INVALID_ARG);
    CHECK(MSM(&got, NULL, NULL, 0, NULL, 1, NULL) == CUZK_OK);
    CHECK(G(jac_is_inf)(&got));
    T(data_free)(&d);
}

/* The forms without options, NULL options and zeroed options are the same
 * MSM (the defaults), with scratch sized either way. */
static void T(test_default_opts)(void) {
    T(data) d;
    CHECK(T(data_new)(&d, 700));
    const cuzk_msm_opts zero = {0, CUZK_MSM_PATH_AUTO, CUZK_MSM_REDUCE_TREE, CUZK_MSM_GLV_AUTO};
    T(jac) ref, got;
    T(dlog_ref)(&ref, d.a, KC(d), d.n, NULL);
    CHECK(G(msm_scratch_sizeof)(d.n, 2) == G(msm_scratch_sizeof_opts)(d.n, 2, NULL));
    CHECK(G(msm_scratch_sizeof)(d.n, 2) == G(msm_scratch_sizeof_opts)(d.n, 2, &zero));
    void *scr = malloc(G(msm_scratch_sizeof)(d.n, 2));
    CHECK(scr != NULL);
    CHECK(G(msm_var)(&got, d.P, KC(d), d.n, NULL, 2, scr) == CUZK_OK);
    CHECK(G(jac_eq)(&got, &ref));
    CHECK(G(msm_opts_var)(&got, d.P, KC(d), d.n, NULL, 2, scr, NULL) == CUZK_OK);
    CHECK(G(jac_eq)(&got, &ref));
    CHECK(G(msm_opts_var)(&got, d.P, KC(d), d.n, NULL, 1, NULL, &zero) == CUZK_OK);
    CHECK(G(jac_eq)(&got, &ref));
    CHECK(G(msm_with_classification_var)(&got, NULL, d.P, KC(d), d.n, 2) == CUZK_OK);
    CHECK(G(jac_eq)(&got, &ref));
    CHECK(G(msm_with_classification_opts_var)(&got, NULL, d.P, KC(d), d.n, 1, NULL) == CUZK_OK);
    CHECK(G(jac_eq)(&got, &ref));
    free(scr);
    T(data_free)(&d);
}

#undef MSM
#undef MSM_SCRATCH
#undef G
#undef T
#undef NAIVE_MAX
#undef LARGE_N
#undef KC

#endif /* TEST_MSM_GROUP */
