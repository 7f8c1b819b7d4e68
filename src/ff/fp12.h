/*
 * fp12.h — Fp12 = Fp6[w]/(w^2 - v); elements c0 + c1 w (fp6.h has v).
 * The pairing target group GT is the order-r subgroup of Fp12^*.
 *
 * Coefficient order, flattened over Fp: c0.c0.c0, c0.c0.c1, c0.c1.c0, ...,
 * c1.c2.c1, the same tower and order as zcash's bls12_381 and @noble/curves.
 * Same contract as fp.h: fully reduced Montgomery coordinates, outputs may
 * alias inputs, constant-time in the field values.
 */
#ifndef CUZK_FP12_H
#define CUZK_FP12_H

#include "ff/fp6.h"

typedef struct {
    cuzk_fp6 c0, c1;
} cuzk_fp12;

static inline void cuzk_fp12_set_zero(cuzk_fp12 *r) {
    cuzk_fp6_set_zero(&r->c0);
    cuzk_fp6_set_zero(&r->c1);
}
static inline void cuzk_fp12_set_one(cuzk_fp12 *r) {
    cuzk_fp6_set_one(&r->c0);
    cuzk_fp6_set_zero(&r->c1);
}
static inline void cuzk_fp12_add(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b) {
    cuzk_fp6_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp6_add(&r->c1, &a->c1, &b->c1);
}
static inline void cuzk_fp12_sub(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b) {
    cuzk_fp6_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp6_sub(&r->c1, &a->c1, &b->c1);
}
static inline void cuzk_fp12_neg(cuzk_fp12 *r, const cuzk_fp12 *a) {
    cuzk_fp6_neg(&r->c0, &a->c0);
    cuzk_fp6_neg(&r->c1, &a->c1);
}
/* r = a^(p^6) = c0 - c1 w; the inverse for elements of the cyclotomic subgroup
 * (everything after the easy part of the final exponentiation). */
static inline void cuzk_fp12_conjugate(cuzk_fp12 *r, const cuzk_fp12 *a) {
    r->c0 = a->c0;
    cuzk_fp6_neg(&r->c1, &a->c1);
}
static inline bool cuzk_fp12_is_zero(const cuzk_fp12 *a) {
    return (unsigned)cuzk_fp6_is_zero(&a->c0) & (unsigned)cuzk_fp6_is_zero(&a->c1);
}
static inline bool cuzk_fp12_is_one(const cuzk_fp12 *a) {
    return (unsigned)cuzk_fp6_is_one(&a->c0) & (unsigned)cuzk_fp6_is_zero(&a->c1);
}
static inline bool cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b) {
    return (unsigned)cuzk_fp6_eq(&a->c0, &b->c0) & (unsigned)cuzk_fp6_eq(&a->c1, &b->c1);
}
static inline void cuzk_fp12_cmov(cuzk_fp12 *r, const cuzk_fp12 *a, bool flag) {
    cuzk_fp6_cmov(&r->c0, &a->c0, flag);
    cuzk_fp6_cmov(&r->c1, &a->c1, flag);
}

/* Karatsuba over Fp6: 3 Fp6 mul = 18 Fp2 M. */
void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b);
/* Complex squaring: 2 Fp6 mul = 12 Fp2 M. */
void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^-1 (0 maps to 0); constant-time. */
void cuzk_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^(p^power), any power (reduced mod 12). */
void cuzk_fp12_frobenius(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned power);
/*
 * r = a * l with the sparse line l = (l0 + l1 v) + (l4 v) w, the shape our
 * Miller loop produces on the M-type twist (nonzero flattened Fp2 slots 0, 1
 * and 4). 13 Fp2 M instead of 18.
 */
void cuzk_fp12_mul_by_014(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp2 *l0,
                          const cuzk_fp2 *l1, const cuzk_fp2 *l4);
/*
 * Granger-Scott squaring ("Faster squaring in the cyclotomic subgroup of
 * sixth degree extensions", PKC 2010), valid only for a in the cyclotomic
 * subgroup a^(p^4 - p^2 + 1) = 1, which holds after the easy part of the
 * final exponentiation: 9 Fp2 S instead of 12 Fp2 M. Garbage for other inputs.
 */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^|x| with |x| = 0xd201000000010000 the BLS parameter; a cyclotomic.
 * 63 cyclotomic squarings + 5 multiplications. */
void cuzk_fp12_cyclotomic_pow_x(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^e, e given as little-endian limbs (public exponent; generic). */
void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t nlimbs);

#endif /* CUZK_FP12_H */
