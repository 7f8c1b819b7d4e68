/*
 * field_cases.h — field element inputs shared by the device arithmetic tests
 * (tests/gpu/test_gpu_ff.c on the GPU, tests/unit/test_gpu_ff_model.c on the
 * host model): uniform values, edge values and carry-heavy values of a prime
 * field given as 64-bit limbs. Include after harness.h.
 */
#ifndef CUZK_TEST_FIELD_CASES_H
#define CUZK_TEST_FIELD_CASES_H

#include <stdint.h>
#include <string.h>

#include "ff/limbs.h"

#define MAX_COORDS 32 /* edge values of one prime field */

/* Uniform in [0, m) by rejection over the bit length of m. */
static inline void rand_coord(uint64_t *r, const uint64_t *m, size_t n) {
    uint64_t top = m[n - 1], mask = top;
    for (int s = 1; s < 64; s <<= 1) mask |= mask >> s;
    do {
        for (size_t i = 0; i < n; i++) r[i] = cuzk_test_rand64();
        r[n - 1] &= mask;
    } while (!cuzk__lt_n(r, m, n));
}

static inline void sub_small(uint64_t *r, const uint64_t *a, uint64_t v, size_t n) {
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) r[i] = cuzk__sbb(a[i], i == 0 ? v : 0, &borrow);
}

/* Edge coordinates of one prime field (plain limbs used as Montgomery
 * representatives: every reduced value is a valid element). */
static inline size_t edge_coords(uint64_t out[][6], const uint64_t *m, const uint64_t *one, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < MAX_COORDS; i++) memset(out[i], 0, sizeof out[i]);
    k++;                        /* 0 */
    out[k++][0] = 1;            /* 1 (= R^-1 as a value) */
    out[k++][0] = 2;
    out[k++][0] = 0xffffffffULL; /* 32-bit limb boundary */
    out[k++][0] = 0x100000000ULL;
    out[k++][0] = ~0ULL; /* 64-bit limb boundary */
    out[k][1] = 1, k++;
    sub_small(out[k++], m, 1, n); /* m-1 = -1 (as a value) */
    sub_small(out[k++], m, 2, n); /* m-2 */
    memcpy(out[k++], one, n * 8); /* R mod m = Montgomery one */
    {
        uint64_t borrow = 0; /* m - (R mod m) = Montgomery -1 */
        for (size_t i = 0; i < n; i++) out[k][i] = cuzk__sbb(m[i], one[i], &borrow);
        k++;
    }
    for (size_t i = 0; i < n; i++) /* (m-1)/2 */
        out[k][i] = (m[i] >> 1) | (i + 1 < n ? m[i + 1] << 63 : 0);
    k++;
    memcpy(out[k], out[k - 1], n * 8), out[k][0] += 1, k++; /* (m+1)/2 */
    for (size_t i = 0; i + 1 < n; i++) out[k][i] = ~0ULL;  /* 2^(64(n-1)) - 1 */
    k++;
    out[k][n - 1] = m[n - 1], k++; /* m's top limb, zeros below (< m) */
    out[k][n - 1] = m[n - 1] >> 1, out[k][0] = 0xffffffff00000000ULL, k++;
    /* 2^(32j) - 1 for the j = 3..2n-1 not above, all below m since its top
     * 32-bit limb is nonzero */
    for (size_t j = 3; j < 2 * n; j++) {
        if (j == 2 * (n - 1)) continue; /* 2^(64(n-1)) - 1, above */
        for (size_t i = 0; i < j / 2; i++) out[k][i] = ~0ULL;
        if (j % 2) out[k][j / 2] = 0xffffffffULL;
        k++;
    }
    /* every 32-bit limb 0xffffffff but the top one, which is m's minus 1 or
     * halved: the largest carries in every product row below the top */
    for (size_t i = 0; i + 1 < n; i++) out[k][i] = out[k + 1][i] = ~0ULL;
    out[k][n - 1] = (((m[n - 1] >> 32) - 1) << 32) | 0xffffffffULL, k++;
    out[k][n - 1] = ((m[n - 1] >> 33) << 32) | 0xffffffffULL, k++;
    return k;
}

/* Sets 32-bit limb i of r (limb 2j is the low half of word j). */
static inline void set_limb32(uint64_t *r, size_t i, uint32_t v) {
    r[i / 2] = (i % 2) ? (r[i / 2] & 0xffffffffULL) | ((uint64_t)v << 32)
                       : (r[i / 2] & ~0xffffffffULL) | v;
}

/* Below m (by rejection), each 32-bit limb drawn with probability 3/4 from
 * values that make the longest carry runs (0, 1, 0xffffffff, 0xfffffffe, m's
 * own limb and one less), else random: uniform inputs almost never hit them. */
static inline void rand_carry_heavy(uint64_t *r, const uint64_t *m, size_t n) {
    uint64_t top = m[n - 1], mask = top;
    for (int s = 1; s < 64; s <<= 1) mask |= mask >> s;
    do {
        memset(r, 0, n * 8);
        for (size_t i = 0; i < 2 * n; i++) {
            const uint64_t x = cuzk_test_rand64();
            const uint32_t m32 = (uint32_t)(m[i / 2] >> (32 * (i % 2)));
            const uint32_t pick[8] = {0, 1, 0xffffffffu, 0xfffffffeu, m32, m32 - 1,
                                      (uint32_t)(x >> 32), (uint32_t)(x >> 32)};
            set_limb32(r, i, pick[x & 7]);
        }
        r[n - 1] &= mask;
    } while (!cuzk__lt_n(r, m, n));
}

#endif /* CUZK_TEST_FIELD_CASES_H */
