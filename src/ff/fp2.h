/*
 * fp2.h — Fp2 = Fp[u]/(u^2 + 1), elements c0 + c1*u.
 * The non-residue used by the tower above is xi = u + 1 (fp6.h).
 * Same contract as fp.h: fully reduced Montgomery coordinates, aliasing
 * allowed, constant-time unless the name ends in _var.
 */
#ifndef CUZK_FP2_H
#define CUZK_FP2_H

#include "fp.h"

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
static inline void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) {
    cuzk_fp_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp_add(&r->c1, &a->c1, &b->c1);
}
static inline void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) {
    cuzk_fp_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp_sub(&r->c1, &a->c1, &b->c1);
}
static inline void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_add(r, a, a); }
static inline void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a) {
    cuzk_fp_neg(&r->c0, &a->c0);
    cuzk_fp_neg(&r->c1, &a->c1);
}
/* complex conjugate = Frobenius on Fp2 */
static inline void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a) {
    r->c0 = a->c0;
    cuzk_fp_neg(&r->c1, &a->c1);
}

/* Karatsuba: 3 Fp multiplications. */
static inline void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) {
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
    cuzk_fp_sub(&t, &a->c0, &a->c1);
    cuzk_fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
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
