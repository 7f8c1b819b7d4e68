/*
 * fp2.h — Fp2 = Fp[u]/(u^2 + 1), elements c0 + c1*u.
 * The non-residue used by the tower above is xi = u + 1 (fp6.h).
 * Same contract as fp.h: fully reduced Montgomery coordinates, aliasing
 * allowed, constant-time unless the name ends in _var.
 */
#ifndef CUZK_FP2_H
#define CUZK_FP2_H

#include "ff/fp.h"

typedef struct {
    cuzk_fp c0, c1;
} cuzk_fp2;

static inline void cuzk_fp2_set_zero(cuzk_fp2 *r) {
    cuzk_fp_set_zero(&r->c0);
    cuzk_fp_set_zero(&r->c1);
}
static inline void cuzk_fp2_set_one(cuzk_fp2 *r) {
    cuzk_fp_set_one(&r->c0);
    cuzk_fp_set_zero(&r->c1);
}
/*
 * Coordinate additions for the tower. Same results as cuzk_fp_add/sub/neg;
 * written here so that each stays one scalar carry chain. GCC vectorizes the
 * final select loop of the generic limbs.h kernels with 16-byte loads of
 * words it has just stored one by one, a failed store-to-load forward per
 * pair of words; inside the Fp6/Fp12 formulas that made an Fp addition cost
 * about twice its stand-alone time (doc/lessons.md). fp2__keep() is an empty
 * asm statement: it pins a word to a register at that point, which keeps the
 * loop scalar and costs no instruction.
 */
#if defined(__GNUC__) || defined(__clang__)
#define fp2__keep(x) __asm__("" : "+r"(x))
#else
#define fp2__keep(x) ((void)0)
#endif

/* r = a + b mod p */
static inline void fp2__fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) {
    uint64_t t[CUZK_FP_LIMBS], u[CUZK_FP_LIMBS], carry = 0, borrow = 0;
    for (int i = 0; i < CUZK_FP_LIMBS; i++) t[i] = cuzk__adc(a->l[i], b->l[i], &carry);
    for (int i = 0; i < CUZK_FP_LIMBS; i++) u[i] = cuzk__sbb(t[i], cuzk__fp_p[i], &borrow);
    /* a + b < 2p < 2^384: keep t when t - p borrowed */
    uint64_t keep = 0 - borrow;
    fp2__keep(keep);
    for (int i = 0; i < CUZK_FP_LIMBS; i++) {
        uint64_t w = (t[i] & keep) | (u[i] & ~keep);
        fp2__keep(w);
        r->l[i] = w;
    }
}

/* r = a - b mod p */
static inline void fp2__fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) {
    uint64_t t[CUZK_FP_LIMBS], borrow = 0, carry = 0;
    for (int i = 0; i < CUZK_FP_LIMBS; i++) t[i] = cuzk__sbb(a->l[i], b->l[i], &borrow);
    uint64_t mask = 0 - borrow;
    fp2__keep(mask);
    for (int i = 0; i < CUZK_FP_LIMBS; i++) {
        uint64_t m = cuzk__fp_p[i] & mask;
        fp2__keep(m);
        r->l[i] = cuzk__adc(t[i], m, &carry);
    }
}

/* r = -a mod p (0 stays 0) */
static inline void fp2__fp_neg(cuzk_fp *r, const cuzk_fp *a) {
    uint64_t nz = 0, borrow = 0, t[CUZK_FP_LIMBS];
    for (int i = 0; i < CUZK_FP_LIMBS; i++) {
        uint64_t w = a->l[i];
        fp2__keep(w);
        nz |= w;
    }
    uint64_t mask = 0 - (uint64_t)(nz != 0);
    fp2__keep(mask);
    for (int i = 0; i < CUZK_FP_LIMBS; i++) t[i] = cuzk__sbb(cuzk__fp_p[i], a->l[i], &borrow);
    for (int i = 0; i < CUZK_FP_LIMBS; i++) {
        uint64_t w = t[i] & mask;
        fp2__keep(w);
        r->l[i] = w;
    }
}

static inline void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) {
    fp2__fp_add(&r->c0, &a->c0, &b->c0);
    fp2__fp_add(&r->c1, &a->c1, &b->c1);
}
static inline void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) {
    fp2__fp_sub(&r->c0, &a->c0, &b->c0);
    fp2__fp_sub(&r->c1, &a->c1, &b->c1);
}
static inline void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_add(r, a, a); }
static inline void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a) {
    fp2__fp_neg(&r->c0, &a->c0);
    fp2__fp_neg(&r->c1, &a->c1);
}
/* complex conjugate = Frobenius on Fp2 */
static inline void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a) {
    r->c0 = a->c0;
    fp2__fp_neg(&r->c1, &a->c1);
}

/* The ADX kernels read and write an Fp2 as 12 consecutive words. */
_Static_assert(sizeof(cuzk_fp2) == 96 && offsetof(cuzk_fp2, c1) == 48, "cuzk_fp2 layout");

/* Karatsuba: 3 Fp multiplications. With ADX, one kernel forms the three
 * products at full width and reduces each coordinate once (cpu.h). */
static inline void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__mul_mont_384x_adx(r, a, b, cuzk__fp_p, CUZK__FP_N0);
        return;
    }
#endif
    cuzk_fp t0, t1, s0, s1;
    cuzk_fp_mul(&t0, &a->c0, &b->c0);
    cuzk_fp_mul(&t1, &a->c1, &b->c1);
    cuzk_fp_add(&s0, &a->c0, &a->c1);
    cuzk_fp_add(&s1, &b->c0, &b->c1);
    cuzk_fp_mul(&s0, &s0, &s1);
    cuzk_fp_sub(&s0, &s0, &t0);
    cuzk_fp_sub(&r->c1, &s0, &t1);
    cuzk_fp_sub(&r->c0, &t0, &t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: 2 Fp multiplications. */
static inline void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__sqr_mont_384x_adx(r, a, cuzk__fp_p, CUZK__FP_N0);
        return;
    }
#endif
    cuzk_fp s, d, m;
    cuzk_fp_add(&s, &a->c0, &a->c1);
    cuzk_fp_sub(&d, &a->c0, &a->c1);
    cuzk_fp_mul(&m, &a->c0, &a->c1);
    cuzk_fp_mul(&r->c0, &s, &d);
    cuzk_fp_dbl(&r->c1, &m);
}

static inline void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b) {
    cuzk_fp_mul(&r->c0, &a->c0, b);
    cuzk_fp_mul(&r->c1, &a->c1, b);
}

/* r = a * (u + 1) = (a0 - a1) + (a0 + a1) u */
static inline void cuzk_fp2_mul_by_xi(cuzk_fp2 *r, const cuzk_fp2 *a) {
    cuzk_fp t;
    fp2__fp_sub(&t, &a->c0, &a->c1);
    fp2__fp_add(&r->c1, &a->c0, &a->c1);
    for (int i = 0; i < CUZK_FP_LIMBS; i++) { /* word by word: see fp2__keep */
        uint64_t w = t.l[i];
        fp2__keep(w);
        r->c0.l[i] = w;
    }
}

static inline bool cuzk_fp2_is_zero(const cuzk_fp2 *a) {
    return (unsigned)cuzk_fp_is_zero(&a->c0) & (unsigned)cuzk_fp_is_zero(&a->c1);
}
static inline bool cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b) {
    return (unsigned)cuzk_fp_eq(&a->c0, &b->c0) & (unsigned)cuzk_fp_eq(&a->c1, &b->c1);
}
static inline bool cuzk_fp2_is_one(const cuzk_fp2 *a) {
    return (unsigned)cuzk_fp_is_one(&a->c0) & (unsigned)cuzk_fp_is_zero(&a->c1);
}
static inline void cuzk_fp2_cmov(cuzk_fp2 *r, const cuzk_fp2 *a, bool flag) {
    cuzk_fp_cmov(&r->c0, &a->c0, flag);
    cuzk_fp_cmov(&r->c1, &a->c1, flag);
}

/* r = a^-1 via the norm a0^2 + a1^2 (0 maps to 0); constant-time. */
void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_inv_var(cuzk_fp2 *r, const cuzk_fp2 *a);
/* r = a^(p^power) */
void cuzk_fp2_frobenius(cuzk_fp2 *r, const cuzk_fp2 *a, unsigned power);
void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, size_t nlimbs);
/* Square root when one exists (true); variable-time (used on public data). */
bool cuzk_fp2_sqrt_var(cuzk_fp2 *r, const cuzk_fp2 *a);
/* zcash's "largest" flag: compare c1, or c0 when c1 = 0. */
bool cuzk_fp2_is_lexicographically_largest(const cuzk_fp2 *a);

#endif /* CUZK_FP2_H */
