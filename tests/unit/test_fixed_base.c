/*
 * test_fixed_base.c — fixed-base multiplication (src/ec/fixed_base.h)
 * against cuzk_g*_jac_mul_var (wNAF double-and-add, independent code) on
 * random and edge scalars, several windows, bases and thread counts.
 * The group tests are written once and stamped for G1 and G2: this file
 * includes itself with TEST_FB_GROUP set.
 */
#ifndef TEST_FB_GROUP

#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "ec/fixed_base.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"

static const uint64_t R_LIMBS[4] = CUZK__FR_R;

/* Edge scalars: 0, 1, 2, r-1, r, r+1, 2^255, 2^256-1, all-ones patterns that
 * make every Booth digit -2^(c-1) or +2^(c-1), single bits. */
#define N_EDGE 16
static void edge_scalar(uint64_t k[4], unsigned i, unsigned c) {
    memset(k, 0, 4 * sizeof(uint64_t));
    switch (i) {
    case 0: return;
    case 1: k[0] = 1; return;
    case 2: k[0] = 2; return;
    case 3: memcpy(k, R_LIMBS, 32); k[0] -= 1; return;
    case 4: memcpy(k, R_LIMBS, 32); return;
    case 5: memcpy(k, R_LIMBS, 32); k[0] += 1; return;
    case 6: k[3] = (uint64_t)1 << 63; return;
    case 7: for (int j = 0; j < 4; j++) k[j] = ~(uint64_t)0; return;
    case 8: /* bits jc + c - 1 set: every digit's top bit, carries ripple */
        for (unsigned b = c - 1; b < 256; b += c) k[b / 64] |= (uint64_t)1 << (b % 64);
        return;
    case 9: /* 2^(c-2) in every window: no carries */
        for (unsigned b = c - 2; b < 256; b += c) k[b / 64] |= (uint64_t)1 << (b % 64);
        return;
    case 10: k[0] = ((uint64_t)1 << c) - 1; return; /* one full window */
    case 11: k[1] = ~(uint64_t)0; return;
    case 12: k[3] = ~(uint64_t)0; return; /* top limb full */
    case 13: for (int j = 0; j < 4; j++) k[j] = 0xaaaaaaaaaaaaaaaaULL; return;
    case 14: for (int j = 0; j < 4; j++) k[j] = 0x5555555555555555ULL; return;
    default: k[3] = ~(uint64_t)0 >> 1; k[0] = 1; return;
    }
}

static void rand_scalar(uint64_t k[4]) {
    for (int i = 0; i < 4; i++) k[i] = cuzk_test_rand64();
    unsigned kind = (unsigned)(cuzk_test_rand64() % 8);
    if (kind == 0) k[3] = 0, k[2] = 0;                 /* short */
    if (kind == 1) k[3] &= 0x7fffffffffffffffULL;      /* < 2^255 */
    if (kind == 2) k[0] = cuzk_test_rand64() & 0xff, k[1] = k[2] = k[3] = 0; /* tiny */
}

/* The digits recompose the scalar: sum d_j 2^(jc) == k over 320-bit integers. */
static void test_digits(void) {
    for (unsigned c = 2; c <= CUZK_FIXED_BASE_MAX_C; c++) {
        for (unsigned it = 0; it < 40; it++) {
            uint64_t k[4];
            if (it < N_EDGE)
                edge_scalar(k, it, c);
            else
                rand_scalar(k);
            /* acc = sum d_j 2^(jc), as 5 limbs two's complement */
            uint64_t acc[5] = {0, 0, 0, 0, 0};
            unsigned nwin = 256 / c + 1;
            int bad_range = 0;
            for (unsigned j = 0; j < nwin; j++) {
                int d = cuzk__fixed_base_digit(k, j, c);
                if (d > (1 << (c - 1)) || d < -(1 << (c - 1))) bad_range = 1;
                /* term = |d| << (jc) on 5 limbs, added or subtracted */
                uint64_t term[6] = {0, 0, 0, 0, 0, 0};
                uint64_t m = (uint64_t)(d < 0 ? -d : d);
                unsigned s = j * c, limb = s / 64, off = s % 64;
                if (limb < 5) {
                    term[limb] = m << off;
                    if (off) term[limb + 1] = m >> (64 - off);
                }
                unsigned __int128 cy = 0;
                if (d >= 0) {
                    for (int i = 0; i < 5; i++) {
                        cy += (unsigned __int128)acc[i] + term[i];
                        acc[i] = (uint64_t)cy;
                        cy >>= 64;
                    }
                } else {
                    uint64_t br = 0;
                    for (int i = 0; i < 5; i++) {
                        unsigned __int128 v = (unsigned __int128)acc[i] - term[i] - br;
                        acc[i] = (uint64_t)v;
                        br = (uint64_t)(v >> 64) & 1;
                    }
                }
            }
            CHECK(!bad_range);
            CHECK(acc[4] == 0 && memcmp(acc, k, 32) == 0);
        }
    }
}

static void test_window_choice(void) {
    CHECK(cuzk_fixed_base_window_bits(0) >= 2);
    CHECK(cuzk_fixed_base_window_bits(1) <= 4);
    CHECK(cuzk_fixed_base_window_bits((size_t)1 << 20) == CUZK_FIXED_BASE_AUTO_MAX_C);
    unsigned prev = 0;
    for (size_t n = 1; n < ((size_t)1 << 24); n *= 2) { /* monotone in n */
        unsigned c = cuzk_fixed_base_window_bits(n);
        CHECK(c >= prev);
        prev = c;
    }
}

#define TEST_FB_GROUP 1
#include "test_fixed_base.c"
#undef TEST_FB_GROUP
#define TEST_FB_GROUP 2
#include "test_fixed_base.c"
#undef TEST_FB_GROUP

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_digits);
    RUN(test_window_choice);
    RUN(test_g1_mul);
    RUN(test_g1_batch);
    RUN(test_g1_errors);
    RUN(test_g2_mul);
    RUN(test_g2_batch);
    RUN(test_g2_errors);
    return cuzk_test_finish();
}

#else /* ---- per group ------------------------------------------------------ */

#if TEST_FB_GROUP == 1
#define G(name) cuzk_g1_##name
#define T(name) test_g1_##name
#define GFE cuzk_fp
#else
#define G(name) cuzk_g2_##name
#define T(name) test_g2_##name
#define GFE cuzk_fp2
#endif

/* A random base r·G with its Jacobian form. */
static void T(rand_base)(G(aff) *b) {
    G(aff) g;
    G(jac) gj, bj;
    uint64_t k[4];
    G(generator)(&g);
    G(aff_to_jac)(&gj, &g);
    for (int i = 0; i < 4; i++) k[i] = cuzk_test_rand64();
    G(jac_mul_var)(&bj, &gj, k, 4);
    G(jac_to_aff_var)(b, &bj);
}

/* One scalar at a time, every window from 2 to 13 (and 16 once), generator
 * and a random base, edge and random scalars. */
static void T(mul)(void) {
    unsigned cs[] = {2, 3, 4, 5, 7, 8, 11, 13, 16};
    for (unsigned ci = 0; ci < sizeof(cs) / sizeof(cs[0]); ci++) {
        unsigned c = cs[ci];
        for (int which = 0; which < 2; which++) {
            if (c == 16 && (which == 1 || TEST_FB_GROUP == 2)) continue; /* big table: once */
            G(aff) b;
            if (which == 0)
                G(generator)(&b);
            else
                T(rand_base)(&b);
            G(jac) bj;
            G(aff_to_jac)(&bj, &b);
            G(fixed_base) t;
            CHECK(G(fixed_base_init)(&t, &b, c, 0, 0) == CUZK_OK);
            CHECK(t.c == c && t.nwin == 256 / c + 1);
            unsigned n = N_EDGE + (unsigned)ITERS(TEST_FB_GROUP == 1 ? 6 : 3);
            for (unsigned i = 0; i < n; i++) {
                uint64_t k[4];
                if (i < N_EDGE)
                    edge_scalar(k, i, c);
                else
                    rand_scalar(k);
                G(jac) got, want;
                G(fixed_base_mul_var)(&t, &got, k);
                G(jac_mul_var)(&want, &bj, k, 4);
                CHECK(G(jac_eq)(&got, &want));
            }
            G(fixed_base_free)(&t);
            CHECK(t.tbl == NULL);
        }
    }
    /* The base at infinity: every product is infinity. */
    G(aff) inf;
    G(aff_set_inf)(&inf);
    G(fixed_base) t;
    CHECK(G(fixed_base_init)(&t, &inf, 4, 0, 1) == CUZK_OK);
    uint64_t k[4] = {12345, 6, 7, 8};
    G(jac) r;
    G(fixed_base_mul_var)(&t, &r, k);
    CHECK(G(jac_is_inf)(&r));
    G(fixed_base_free)(&t);
}

/* Batches (plain and Fr scalars) across chunk boundaries and thread counts;
 * affine outputs compared with the reference. */
static void T(batch)(void) {
    size_t n = 300 + (size_t)ITERS(TEST_FB_GROUP == 1 ? 300 : 60); /* > 2 chunks of 256 */
    G(aff) b;
    T(rand_base)(&b);
    G(jac) bj;
    G(aff_to_jac)(&bj, &b);
    uint64_t(*k)[4] = malloc(n * sizeof(*k));
    cuzk_fr *kf = malloc(n * sizeof(cuzk_fr));
    G(aff) *out = malloc(n * sizeof(G(aff)));
    G(aff) *out2 = malloc(n * sizeof(G(aff)));
    CHECK(k && kf && out && out2);
    if (!(k && kf && out && out2)) goto done;
    for (size_t i = 0; i < n; i++) {
        if (i < N_EDGE)
            edge_scalar(k[i], (unsigned)i, 10);
        else
            rand_scalar(k[i]);
        /* an Fr copy of k mod r (reduce by subtraction: k < 2^256 < 3r) */
        uint64_t t[4];
        memcpy(t, k[i], 32);
        for (int rep = 0; rep < 2; rep++) {
            int ge = 1;
            for (int j = 3; j >= 0; j--)
                if (t[j] != R_LIMBS[j]) {
                    ge = t[j] > R_LIMBS[j];
                    break;
                }
            if (!ge) break;
            uint64_t br = 0;
            for (int j = 0; j < 4; j++) {
                unsigned __int128 v = (unsigned __int128)t[j] - R_LIMBS[j] - br;
                t[j] = (uint64_t)v;
                br = (uint64_t)(v >> 64) & 1;
            }
        }
        cuzk_fr_from_limbs(&kf[i], t);
    }
    unsigned threads[] = {1, 2, 0};
    for (unsigned ti = 0; ti < 3; ti++) {
        G(fixed_base) t;
        CHECK(G(fixed_base_init)(&t, &b, 0, n, threads[ti]) == CUZK_OK);
        CHECK(G(fixed_base_mul_batch_var)(&t, out, (const uint64_t(*)[4])k, n, threads[ti]) ==
              CUZK_OK);
        CHECK(G(fixed_base_mul_batch_fr_var)(&t, out2, kf, n, threads[ti]) == CUZK_OK);
        size_t bad = 0, bad2 = 0;
        for (size_t i = 0; i < n; i++) {
            G(jac) want;
            G(aff) wa;
            G(jac_mul_var)(&want, &bj, k[i], 4);
            G(jac_to_aff_var)(&wa, &want);
            bad += !G(aff_eq)(&out[i], &wa);
            bad2 += !G(aff_eq)(&out2[i], &wa);
            if (ti > 0) i += 3; /* later thread counts: a sample */
        }
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(bad2, 0);
        /* k = 0 gives the encoding of infinity, (0, 0) */
        CHECK(G(aff_is_inf)(&out[0]));
        G(fixed_base_free)(&t);
    }
done:
    free(k);
    free(kf);
    free(out);
    free(out2);
}

static void T(errors)(void) {
    G(aff) g;
    G(generator)(&g);
    G(fixed_base) t;
    CHECK(G(fixed_base_init)(&t, &g, 1, 0, 1) == CUZK_ERR_INVALID_ARG);
    CHECK(t.tbl == NULL);
    CHECK(G(fixed_base_init)(&t, &g, CUZK_FIXED_BASE_MAX_C + 1, 0, 1) == CUZK_ERR_INVALID_ARG);
    CHECK(G(fixed_base_init)(&t, NULL, 4, 0, 1) == CUZK_ERR_INVALID_ARG);
    CHECK(G(fixed_base_init)(NULL, &g, 4, 0, 1) == CUZK_ERR_INVALID_ARG);
    G(aff) out[1];
    uint64_t k[1][4] = {{1, 0, 0, 0}};
    CHECK(G(fixed_base_mul_batch_var)(&t, out, (const uint64_t(*)[4])k, 1, 1) ==
          CUZK_ERR_INVALID_ARG); /* empty table */
    CHECK(G(fixed_base_init)(&t, &g, 3, 0, 1) == CUZK_OK);
    CHECK(G(fixed_base_mul_batch_var)(&t, out, NULL, 1, 1) == CUZK_ERR_INVALID_ARG);
    CHECK(G(fixed_base_mul_batch_var)(&t, NULL, (const uint64_t(*)[4])k, 1, 1) ==
          CUZK_ERR_INVALID_ARG);
    CHECK(G(fixed_base_mul_batch_var)(&t, NULL, NULL, 0, 1) == CUZK_OK);
    CHECK(G(fixed_base_mul_batch_var)(&t, out, (const uint64_t(*)[4])k, 1, 1) == CUZK_OK);
    CHECK(G(aff_eq)(&out[0], &g));
    G(fixed_base_free)(&t);
    G(fixed_base_free)(&t); /* twice is fine */
    G(fixed_base_free)(NULL);
}

#undef G
#undef T
#undef GFE
#endif
