/*
 * limbs.h — generic constant-time modular kernels on n 64-bit limbs
 * (least-significant limb first). The modulus and its Montgomery constant
 * n0 = -m^-1 mod 2^64 are arguments, so one text serves every field of every
 * curve; fp.h and fr.h bind BLS12-381's constants. Called with a constant n,
 * the loops unroll after inlining.
 *
 * Contract for all kernels: the modulus m is odd and m < 2^(64n-1) (one spare
 * top bit, true of both BLS12-381 fields), inputs are fully reduced (< m),
 * outputs are fully reduced. Outputs may alias inputs. No branch or memory
 * index depends on the values.
 */
#ifndef CUZK_LIMBS_H
#define CUZK_LIMBS_H

#include <stddef.h>
#include <stdint.h>

#include "ff/u128.h"

#define CUZK__MAX_LIMBS 6

/* r = a + b mod m */
static inline void cuzk__add_mod_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                   const uint64_t *m, size_t n) {
    uint64_t t[CUZK__MAX_LIMBS], u[CUZK__MAX_LIMBS], carry = 0, borrow = 0;
    for (size_t i = 0; i < n; i++) t[i] = cuzk__adc(a[i], b[i], &carry);
    for (size_t i = 0; i < n; i++) u[i] = cuzk__sbb(t[i], m[i], &borrow);
    /* a + b < 2m < 2^(64n): no carry out; keep t when t < m (borrow set). */
    uint64_t keep = 0 - borrow;
    for (size_t i = 0; i < n; i++) r[i] = (t[i] & keep) | (u[i] & ~keep);
}

/* r = a - b mod m */
static inline void cuzk__sub_mod_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                   const uint64_t *m, size_t n) {
    uint64_t t[CUZK__MAX_LIMBS], borrow = 0, carry = 0;
    for (size_t i = 0; i < n; i++) t[i] = cuzk__sbb(a[i], b[i], &borrow);
    uint64_t mask = 0 - borrow;
    for (size_t i = 0; i < n; i++) r[i] = cuzk__adc(t[i], m[i] & mask, &carry);
}

/* r = -a mod m (0 stays 0) */
static inline void cuzk__neg_mod_n(uint64_t *r, const uint64_t *a, const uint64_t *m, size_t n) {
    uint64_t nz = 0, borrow = 0, t[CUZK__MAX_LIMBS];
    for (size_t i = 0; i < n; i++) nz |= a[i];
    uint64_t mask = 0 - (uint64_t)(nz != 0);
    for (size_t i = 0; i < n; i++) t[i] = cuzk__sbb(m[i], a[i], &borrow);
    for (size_t i = 0; i < n; i++) r[i] = t[i] & mask;
}

/*
 * r = a * b * 2^(-64n) mod m (Montgomery product, CIOS). With m < 2^(64n-1)
 * the running value stays below 2m, so n+1 words suffice.
 */
static inline void cuzk__mont_mul_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                    const uint64_t *m, uint64_t n0, size_t n) {
    uint64_t t[CUZK__MAX_LIMBS + 1] = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t hi = 0, lo;
        for (size_t j = 0; j < n; j++) t[j] = cuzk__mac(&hi, a[j], b[i], t[j], hi);
        uint64_t top = t[n] + hi; /* < 2^64: t[n] <= 1 before this step */
        uint64_t q = t[0] * n0;
        lo = cuzk__mac(&hi, q, m[0], t[0], 0);
        (void)lo; /* zero by the choice of q */
        for (size_t j = 1; j < n; j++) t[j - 1] = cuzk__mac(&hi, q, m[j], t[j], hi);
        uint64_t c = 0;
        t[n - 1] = cuzk__adc(top, hi, &c);
        t[n] = c;
    }
    uint64_t u[CUZK__MAX_LIMBS], borrow = 0;
    for (size_t i = 0; i < n; i++) u[i] = cuzk__sbb(t[i], m[i], &borrow);
    /* t < 2m; keep t only when t - m borrowed past the top word t[n]. */
    uint64_t bw = 0;
    (void)cuzk__sbb(t[n], 0, &borrow);
    bw = borrow;
    uint64_t keep = 0 - bw;
    for (size_t i = 0; i < n; i++) r[i] = (t[i] & keep) | (u[i] & ~keep);
}

/* Constant-time helpers. */
static inline uint64_t cuzk__is_zero_n(const uint64_t *a, size_t n) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= a[i];
    return (uint64_t)1 ^ ((acc | (0 - acc)) >> 63);
}

static inline uint64_t cuzk__eq_n(const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= a[i] ^ b[i];
    return (uint64_t)1 ^ ((acc | (0 - acc)) >> 63);
}

/* r = flag ? a : r, flag in {0,1} */
static inline void cuzk__cmov_n(uint64_t *r, const uint64_t *a, uint64_t flag, size_t n) {
    uint64_t mask = 0 - flag;
    for (size_t i = 0; i < n; i++) r[i] ^= (r[i] ^ a[i]) & mask;
}

/* 1 when a < b as plain integers. */
static inline uint64_t cuzk__lt_n(const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) (void)cuzk__sbb(a[i], b[i], &borrow);
    return borrow;
}

#endif /* CUZK_LIMBS_H */
