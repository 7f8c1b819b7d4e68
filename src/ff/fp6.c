/* fp6.c — Fp6 operations that are not inline (see fp6.h). */
#include "ff/fp6.h"

/*
 * Karatsuba for a cubic extension (Devegili, O hEigeartaigh, Scott, Dahab,
 * "Multiplication and squaring on pairing-friendly fields", 2006, sec. 4):
 *   v_i = a_i b_i
 *   c0 = v0 + xi((a1 + a2)(b1 + b2) - v1 - v2)
 *   c1 = (a0 + a1)(b0 + b1) - v0 - v1 + xi v2
 *   c2 = (a0 + a2)(b0 + b2) - v0 - v2 + v1
 * 6M + 15 additions.
 */
void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b) {
    cuzk_fp2 v0, v1, v2, s, t, c0, c1, c2;
    cuzk_fp2_mul(&v0, &a->c0, &b->c0);
    cuzk_fp2_mul(&v1, &a->c1, &b->c1);
    cuzk_fp2_mul(&v2, &a->c2, &b->c2);

    cuzk_fp2_add(&s, &a->c1, &a->c2);
    cuzk_fp2_add(&t, &b->c1, &b->c2);
    cuzk_fp2_mul(&c0, &s, &t);
    cuzk_fp2_sub(&c0, &c0, &v1);
    cuzk_fp2_sub(&c0, &c0, &v2);
    cuzk_fp2_mul_by_xi(&c0, &c0);
    cuzk_fp2_add(&c0, &c0, &v0);

    cuzk_fp2_add(&s, &a->c0, &a->c1);
    cuzk_fp2_add(&t, &b->c0, &b->c1);
    cuzk_fp2_mul(&c1, &s, &t);
    cuzk_fp2_sub(&c1, &c1, &v0);
    cuzk_fp2_sub(&c1, &c1, &v1);
    cuzk_fp2_mul_by_xi(&t, &v2);
    cuzk_fp2_add(&c1, &c1, &t);

    cuzk_fp2_add(&s, &a->c0, &a->c2);
    cuzk_fp2_add(&t, &b->c0, &b->c2);
    cuzk_fp2_mul(&c2, &s, &t);
    cuzk_fp2_sub(&c2, &c2, &v0);
    cuzk_fp2_sub(&c2, &c2, &v2);
    cuzk_fp2_add(&c2, &c2, &v1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/*
 * Chung-Hasan SQR2 ("Asymmetric squaring formulae", ARITH 2007):
 *   s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2
 *   c0 = s0 + xi s3,  c1 = s1 + xi s4,  c2 = s1 + s2 + s3 - s0 - s4
 * 2M + 3S.
 */
void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a) {
    cuzk_fp2 s0, s1, s2, s3, s4, t;
    cuzk_fp2_sqr(&s0, &a->c0);
    cuzk_fp2_mul(&s1, &a->c0, &a->c1);
    cuzk_fp2_dbl(&s1, &s1);
    cuzk_fp2_sub(&s2, &a->c0, &a->c1);
    cuzk_fp2_add(&s2, &s2, &a->c2);
    cuzk_fp2_sqr(&s2, &s2);
    cuzk_fp2_mul(&s3, &a->c1, &a->c2);
    cuzk_fp2_dbl(&s3, &s3);
    cuzk_fp2_sqr(&s4, &a->c2);

    cuzk_fp2_add(&r->c2, &s1, &s2);
    cuzk_fp2_add(&r->c2, &r->c2, &s3);
    cuzk_fp2_sub(&r->c2, &r->c2, &s0);
    cuzk_fp2_sub(&r->c2, &r->c2, &s4);
    cuzk_fp2_mul_by_xi(&t, &s3);
    cuzk_fp2_add(&r->c0, &s0, &t);
    cuzk_fp2_mul_by_xi(&t, &s4);
    cuzk_fp2_add(&r->c1, &s1, &t);
}

/*
 * a (b0 + b1 v):
 *   c0 = a0 b0 + xi a2 b1
 *   c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1
 *   c2 = a2 b0 + a1 b1
 * 5M.
 */
void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1) {
    cuzk_fp2 v0, v1, s, t, c0, c1, c2;
    cuzk_fp2_mul(&v0, &a->c0, b0);
    cuzk_fp2_mul(&v1, &a->c1, b1);
    cuzk_fp2_mul(&c0, &a->c2, b1);
    cuzk_fp2_mul_by_xi(&c0, &c0);
    cuzk_fp2_add(&c0, &c0, &v0);
    cuzk_fp2_add(&s, &a->c0, &a->c1);
    cuzk_fp2_add(&t, b0, b1);
    cuzk_fp2_mul(&c1, &s, &t);
    cuzk_fp2_sub(&c1, &c1, &v0);
    cuzk_fp2_sub(&c1, &c1, &v1);
    cuzk_fp2_mul(&c2, &a->c2, b0);
    cuzk_fp2_add(&c2, &c2, &v1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* a (b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2: 3M. */
void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1) {
    cuzk_fp2 c0, c1, c2;
    cuzk_fp2_mul(&c0, &a->c2, b1);
    cuzk_fp2_mul_by_xi(&c0, &c0);
    cuzk_fp2_mul(&c1, &a->c0, b1);
    cuzk_fp2_mul(&c2, &a->c1, b1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void cuzk_fp6_mul_fp2(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b) {
    cuzk_fp2_mul(&r->c0, &a->c0, b);
    cuzk_fp2_mul(&r->c1, &a->c1, b);
    cuzk_fp2_mul(&r->c2, &a->c2, b);
}

/*
 * Inverse through the norm to Fp2 (Scott, "Implementing cryptographic
 * pairings", 2007; also the Guide to Pairing-Based Cryptography, 5.2.3):
 *   t0 = a0^2 - xi a1 a2,  t1 = xi a2^2 - a0 a1,  t2 = a1^2 - a0 a2
 *   N  = a0 t0 + xi (a2 t1 + a1 t2)            (in Fp2)
 *   a^-1 = (t0 + t1 v + t2 v^2) / N
 * 9M + 3S + one Fp2 inversion. N = 0 only for a = 0; then everything is 0.
 */
void cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a) {
    cuzk_fp2 t0, t1, t2, n, s;
    cuzk_fp2_sqr(&t0, &a->c0);
    cuzk_fp2_mul(&s, &a->c1, &a->c2);
    cuzk_fp2_mul_by_xi(&s, &s);
    cuzk_fp2_sub(&t0, &t0, &s);

    cuzk_fp2_sqr(&t1, &a->c2);
    cuzk_fp2_mul_by_xi(&t1, &t1);
    cuzk_fp2_mul(&s, &a->c0, &a->c1);
    cuzk_fp2_sub(&t1, &t1, &s);

    cuzk_fp2_sqr(&t2, &a->c1);
    cuzk_fp2_mul(&s, &a->c0, &a->c2);
    cuzk_fp2_sub(&t2, &t2, &s);

    cuzk_fp2_mul(&n, &a->c2, &t1);
    cuzk_fp2_mul(&s, &a->c1, &t2);
    cuzk_fp2_add(&n, &n, &s);
    cuzk_fp2_mul_by_xi(&n, &n);
    cuzk_fp2_mul(&s, &a->c0, &t0);
    cuzk_fp2_add(&n, &n, &s);
    cuzk_fp2_inv(&n, &n);

    cuzk_fp2_mul(&r->c0, &t0, &n);
    cuzk_fp2_mul(&r->c1, &t1, &n);
    cuzk_fp2_mul(&r->c2, &t2, &n);
}

/* v^(p^k) = v xi^((p^k - 1)/3), (v^2)^(p^k) = v^2 xi^(2(p^k - 1)/3); the
 * constants come from tools/gen_consts.py. */
/* The generated Fp2 initializers elide the braces around cuzk_fp's limb
 * array (valid C, but -Wmissing-braces objects). */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-braces"
#endif
static const cuzk_fp2 fp6_frob_c1[6] = {CUZK__FP6_FROB_C1_0, CUZK__FP6_FROB_C1_1,
                                        CUZK__FP6_FROB_C1_2, CUZK__FP6_FROB_C1_3,
                                        CUZK__FP6_FROB_C1_4, CUZK__FP6_FROB_C1_5};
static const cuzk_fp2 fp6_frob_c2[6] = {CUZK__FP6_FROB_C2_0, CUZK__FP6_FROB_C2_1,
                                        CUZK__FP6_FROB_C2_2, CUZK__FP6_FROB_C2_3,
                                        CUZK__FP6_FROB_C2_4, CUZK__FP6_FROB_C2_5};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

void cuzk_fp6_frobenius(cuzk_fp6 *r, const cuzk_fp6 *a, unsigned power) {
    unsigned k = power % 6;
    cuzk_fp2_frobenius(&r->c0, &a->c0, k);
    cuzk_fp2_frobenius(&r->c1, &a->c1, k);
    cuzk_fp2_frobenius(&r->c2, &a->c2, k);
    if (k == 0) return;
    cuzk_fp2_mul(&r->c1, &r->c1, &fp6_frob_c1[k]);
    cuzk_fp2_mul(&r->c2, &r->c2, &fp6_frob_c2[k]);
}
