/*
 * fp6.h — Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1; elements c0 + c1 v + c2 v^2.
 * The middle floor of the zcash/noble tower Fp2 -> Fp6 -> Fp12 (fp12.h).
 *
 * Same contract as fp.h: fully reduced Montgomery coordinates, outputs may
 * alias inputs, constant-time in the field values.
 * Operation counts below are in Fp2 multiplications (M) and squarings (S).
 */
#ifndef CUZK_FP6_H
#define CUZK_FP6_H

#include "ff/fp2.h"

typedef struct {
    cuzk_fp2 c0, c1, c2;
} cuzk_fp6;

static inline void cuzk_fp6_set_zero(cuzk_fp6 *r) {
    cuzk_fp2_set_zero(&r->c0);
    cuzk_fp2_set_zero(&r->c1);
    cuzk_fp2_set_zero(&r->c2);
}
static inline void cuzk_fp6_set_one(cuzk_fp6 *r) {
    cuzk_fp2_set_one(&r->c0);
    cuzk_fp2_set_zero(&r->c1);
    cuzk_fp2_set_zero(&r->c2);
}
static inline void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b) {
    cuzk_fp2_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp2_add(&r->c1, &a->c1, &b->c1);
    cuzk_fp2_add(&r->c2, &a->c2, &b->c2);
}
static inline void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b) {
    cuzk_fp2_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp2_sub(&r->c1, &a->c1, &b->c1);
    cuzk_fp2_sub(&r->c2, &a->c2, &b->c2);
}
static inline void cuzk_fp6_dbl(cuzk_fp6 *r, const cuzk_fp6 *a) { cuzk_fp6_add(r, a, a); }
static inline void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a) {
    cuzk_fp2_neg(&r->c0, &a->c0);
    cuzk_fp2_neg(&r->c1, &a->c1);
    cuzk_fp2_neg(&r->c2, &a->c2);
}
/* r = a * v = xi a2 + a0 v + a1 v^2 (no multiplication) */
static inline void cuzk_fp6_mul_by_v(cuzk_fp6 *r, const cuzk_fp6 *a) {
    cuzk_fp2 t;
    cuzk_fp2_mul_by_xi(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}
static inline bool cuzk_fp6_is_zero(const cuzk_fp6 *a) {
    return (unsigned)cuzk_fp2_is_zero(&a->c0) & (unsigned)cuzk_fp2_is_zero(&a->c1) &
           (unsigned)cuzk_fp2_is_zero(&a->c2);
}
static inline bool cuzk_fp6_is_one(const cuzk_fp6 *a) {
    return (unsigned)cuzk_fp2_is_one(&a->c0) & (unsigned)cuzk_fp2_is_zero(&a->c1) &
           (unsigned)cuzk_fp2_is_zero(&a->c2);
}
static inline bool cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b) {
    return (unsigned)cuzk_fp2_eq(&a->c0, &b->c0) & (unsigned)cuzk_fp2_eq(&a->c1, &b->c1) &
           (unsigned)cuzk_fp2_eq(&a->c2, &b->c2);
}
static inline void cuzk_fp6_cmov(cuzk_fp6 *r, const cuzk_fp6 *a, bool flag) {
    cuzk_fp2_cmov(&r->c0, &a->c0, flag);
    cuzk_fp2_cmov(&r->c1, &a->c1, flag);
    cuzk_fp2_cmov(&r->c2, &a->c2, flag);
}

/* Karatsuba-style interpolation: 6M. */
void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
/* Chung-Hasan SQR2: 2M + 3S. */
void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = a * (b0 + b1 v), the shape of a Miller-loop line's first half: 5M. */
void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1);
/* r = a * (b1 v): 3M. */
void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1);
/* r = a * b, b in Fp2: 3M. */
void cuzk_fp6_mul_fp2(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b);
/* r = a^-1 (0 maps to 0); constant-time (one Fp2 inversion, Fermat). */
void cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = a^(p^power), any power (reduced mod 6). */
void cuzk_fp6_frobenius(cuzk_fp6 *r, const cuzk_fp6 *a, unsigned power);

#endif /* CUZK_FP6_H */
