/*
 * Fp6 and Fp12 against independent references written here:
 *  - products against schoolbook polynomial multiplication (Fp6 over v^3 = xi,
 *    Fp12 flattened to Fp2[w]/(w^6 - xi));
 *  - Frobenius maps against exponentiation by p (square-and-multiply with p's
 *    limbs);
 *  - cyclotomic squaring and pow-by-x against plain squaring and generic pow on
 *    elements made cyclotomic by f^((p^6 - 1)(p^2 + 1));
 *  - the sparse line product against the full product.
 */
#include "ff/fp12.h"
#include "harness.h"
#include "test_util.h"

static const uint64_t P_LIMBS[6] = CUZK__FP_P;

static void rand_fp2(cuzk_fp2 *r) {
    cuzk_test_rand_fp(&r->c0);
    cuzk_test_rand_fp(&r->c1);
}
static void rand_fp6(cuzk_fp6 *r) {
    rand_fp2(&r->c0);
    rand_fp2(&r->c1);
    rand_fp2(&r->c2);
}
static void rand_fp12(cuzk_fp12 *r) {
    rand_fp6(&r->c0);
    rand_fp6(&r->c1);
}

/* ---- references ---------------------------------------------------------- */

/* Schoolbook over Fp2 with v^3 = xi. */
static void ref_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b) {
    const cuzk_fp2 *x[3] = {&a->c0, &a->c1, &a->c2}, *y[3] = {&b->c0, &b->c1, &b->c2};
    cuzk_fp2 acc[5], t;
    for (int i = 0; i < 5; i++) cuzk_fp2_set_zero(&acc[i]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            cuzk_fp2_mul(&t, x[i], y[j]);
            cuzk_fp2_add(&acc[i + j], &acc[i + j], &t);
        }
    for (int k = 3; k < 5; k++) {
        cuzk_fp2_mul_by_xi(&t, &acc[k]);
        cuzk_fp2_add(&acc[k - 3], &acc[k - 3], &t);
    }
    r->c0 = acc[0];
    r->c1 = acc[1];
    r->c2 = acc[2];
}

/* Flatten to the powers of w: w^(2i) <- c0.ci, w^(2i+1) <- c1.ci. */
static void to_w(cuzk_fp2 out[6], const cuzk_fp12 *a) {
    out[0] = a->c0.c0, out[2] = a->c0.c1, out[4] = a->c0.c2;
    out[1] = a->c1.c0, out[3] = a->c1.c1, out[5] = a->c1.c2;
}
static void from_w(cuzk_fp12 *a, const cuzk_fp2 in[6]) {
    a->c0.c0 = in[0], a->c0.c1 = in[2], a->c0.c2 = in[4];
    a->c1.c0 = in[1], a->c1.c1 = in[3], a->c1.c2 = in[5];
}
/* Schoolbook over Fp2 with w^6 = xi. */
static void ref_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b) {
    cuzk_fp2 x[6], y[6], acc[11], t;
    to_w(x, a);
    to_w(y, b);
    for (int i = 0; i < 11; i++) cuzk_fp2_set_zero(&acc[i]);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            cuzk_fp2_mul(&t, &x[i], &y[j]);
            cuzk_fp2_add(&acc[i + j], &acc[i + j], &t);
        }
    for (int k = 6; k < 11; k++) {
        cuzk_fp2_mul_by_xi(&t, &acc[k]);
        cuzk_fp2_add(&acc[k - 6], &acc[k - 6], &t);
    }
    from_w(r, acc);
}

/* a^p by square-and-multiply with the reference multiplications. */
static void ref_fp6_pow_p(cuzk_fp6 *r, const cuzk_fp6 *a) {
    cuzk_fp6 acc;
    cuzk_fp6_set_one(&acc);
    for (int i = 5; i >= 0; i--)
        for (int b = 63; b >= 0; b--) {
            ref_fp6_mul(&acc, &acc, &acc);
            if ((P_LIMBS[i] >> b) & 1) ref_fp6_mul(&acc, &acc, a);
        }
    *r = acc;
}
static void ref_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, int n) {
    cuzk_fp12 acc;
    cuzk_fp12_set_one(&acc);
    for (int i = n - 1; i >= 0; i--)
        for (int b = 63; b >= 0; b--) {
            ref_fp12_mul(&acc, &acc, &acc);
            if ((e[i] >> b) & 1) ref_fp12_mul(&acc, &acc, a);
        }
    *r = acc;
}

/* f^((p^6 - 1)(p^2 + 1)), computed with the library's (separately tested)
 * inverse, conjugation and Frobenius. */
static void make_cyclotomic(cuzk_fp12 *r, const cuzk_fp12 *f) {
    cuzk_fp12 t, a;
    cuzk_fp12_inv(&t, f);
    cuzk_fp12_conjugate(&a, f);
    cuzk_fp12_mul(&a, &a, &t);
    cuzk_fp12_frobenius(&t, &a, 2);
    cuzk_fp12_mul(r, &a, &t);
}

/* ---- Fp6 ----------------------------------------------------------------- */

static void test_fp6_mul_sqr(void) {
    for (unsigned long i = 0; i < ITERS(100); i++) {
        cuzk_fp6 a, b, c, x, y, z;
        rand_fp6(&a);
        rand_fp6(&b);
        rand_fp6(&c);
        cuzk_fp6_mul(&x, &a, &b);
        ref_fp6_mul(&y, &a, &b);
        CHECK(cuzk_fp6_eq(&x, &y));
        cuzk_fp6_sqr(&x, &a);
        ref_fp6_mul(&y, &a, &a);
        CHECK(cuzk_fp6_eq(&x, &y));
        /* aliasing */
        x = a;
        cuzk_fp6_mul(&x, &x, &x);
        CHECK(cuzk_fp6_eq(&x, &y));
        x = a;
        cuzk_fp6_sqr(&x, &x);
        CHECK(cuzk_fp6_eq(&x, &y));
        /* distributivity: a(b + c) = ab + ac */
        cuzk_fp6_add(&x, &b, &c);
        cuzk_fp6_mul(&x, &a, &x);
        cuzk_fp6_mul(&y, &a, &b);
        cuzk_fp6_mul(&z, &a, &c);
        cuzk_fp6_add(&y, &y, &z);
        CHECK(cuzk_fp6_eq(&x, &y));
        /* sparse forms */
        cuzk_fp6 s;
        s.c0 = b.c0;
        s.c1 = b.c1;
        cuzk_fp2_set_zero(&s.c2);
        cuzk_fp6_mul_by_01(&x, &a, &b.c0, &b.c1);
        ref_fp6_mul(&y, &a, &s);
        CHECK(cuzk_fp6_eq(&x, &y));
        cuzk_fp2_set_zero(&s.c0);
        cuzk_fp6_mul_by_1(&x, &a, &b.c1);
        ref_fp6_mul(&y, &a, &s);
        CHECK(cuzk_fp6_eq(&x, &y));
        s.c0 = b.c0;
        cuzk_fp2_set_zero(&s.c1);
        cuzk_fp6_mul_fp2(&x, &a, &b.c0);
        ref_fp6_mul(&y, &a, &s);
        CHECK(cuzk_fp6_eq(&x, &y));
        /* mul_by_v against multiplication by (0, 1, 0) */
        cuzk_fp6_set_zero(&s);
        cuzk_fp2_set_one(&s.c1);
        cuzk_fp6_mul_by_v(&x, &a);
        ref_fp6_mul(&y, &a, &s);
        CHECK(cuzk_fp6_eq(&x, &y));
        /* add/sub/neg */
        cuzk_fp6_sub(&x, &a, &b);
        cuzk_fp6_add(&x, &x, &b);
        CHECK(cuzk_fp6_eq(&x, &a));
        cuzk_fp6_neg(&x, &a);
        cuzk_fp6_add(&x, &x, &a);
        CHECK(cuzk_fp6_is_zero(&x));
    }
}

static void test_fp6_inv(void) {
    for (unsigned long i = 0; i < ITERS(50); i++) {
        cuzk_fp6 a, b, c;
        rand_fp6(&a);
        cuzk_fp6_inv(&b, &a);
        ref_fp6_mul(&c, &a, &b);
        CHECK(cuzk_fp6_is_one(&c));
        /* sparse inputs exercise zero coordinates */
        cuzk_fp2_set_zero(&a.c1);
        cuzk_fp2_set_zero(&a.c2);
        cuzk_fp6_inv(&b, &a);
        ref_fp6_mul(&c, &a, &b);
        CHECK(cuzk_fp6_is_one(&c));
    }
    cuzk_fp6 z, r;
    cuzk_fp6_set_zero(&z);
    cuzk_fp6_inv(&r, &z);
    CHECK(cuzk_fp6_is_zero(&r));
}

static void test_fp6_frobenius(void) {
    for (unsigned long i = 0; i < ITERS(3); i++) {
        cuzk_fp6 a, ref, x;
        rand_fp6(&a);
        ref = a;
        cuzk_fp6_frobenius(&x, &a, 0);
        CHECK(cuzk_fp6_eq(&x, &a));
        for (unsigned k = 1; k <= 6; k++) {
            ref_fp6_pow_p(&ref, &ref);
            cuzk_fp6_frobenius(&x, &a, k);
            CHECK(cuzk_fp6_eq(&x, &ref));
        }
        CHECK(cuzk_fp6_eq(&ref, &a)); /* p^6 fixes Fp6 */
    }
}

/* ---- Fp12 ---------------------------------------------------------------- */

static void test_fp12_mul_sqr(void) {
    for (unsigned long i = 0; i < ITERS(50); i++) {
        cuzk_fp12 a, b, c, x, y, z;
        rand_fp12(&a);
        rand_fp12(&b);
        rand_fp12(&c);
        cuzk_fp12_mul(&x, &a, &b);
        ref_fp12_mul(&y, &a, &b);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_fp12_mul(&z, &b, &a);
        CHECK(cuzk_fp12_eq(&x, &z));
        cuzk_fp12_sqr(&x, &a);
        ref_fp12_mul(&y, &a, &a);
        CHECK(cuzk_fp12_eq(&x, &y));
        x = a;
        cuzk_fp12_sqr(&x, &x);
        CHECK(cuzk_fp12_eq(&x, &y));
        x = a;
        cuzk_fp12_mul(&x, &x, &x);
        CHECK(cuzk_fp12_eq(&x, &y));
        /* (ab)c = a(bc) and a(b + c) = ab + ac */
        cuzk_fp12_mul(&x, &a, &b);
        cuzk_fp12_mul(&x, &x, &c);
        cuzk_fp12_mul(&y, &b, &c);
        cuzk_fp12_mul(&y, &a, &y);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_fp12_add(&x, &b, &c);
        cuzk_fp12_mul(&x, &a, &x);
        cuzk_fp12_mul(&y, &a, &b);
        cuzk_fp12_mul(&z, &a, &c);
        cuzk_fp12_add(&y, &y, &z);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_fp12_sub(&x, &a, &b);
        cuzk_fp12_add(&x, &x, &b);
        CHECK(cuzk_fp12_eq(&x, &a));
        cuzk_fp12_neg(&x, &a);
        cuzk_fp12_add(&x, &x, &a);
        CHECK(cuzk_fp12_is_zero(&x));
    }
}

static void test_fp12_inv(void) {
    for (unsigned long i = 0; i < ITERS(30); i++) {
        cuzk_fp12 a, b, c;
        rand_fp12(&a);
        cuzk_fp12_inv(&b, &a);
        ref_fp12_mul(&c, &a, &b);
        CHECK(cuzk_fp12_is_one(&c));
        cuzk_fp6_set_zero(&a.c1); /* an element of Fp6 */
        cuzk_fp12_inv(&b, &a);
        ref_fp12_mul(&c, &a, &b);
        CHECK(cuzk_fp12_is_one(&c));
        cuzk_fp6_set_zero(&a.c0); /* 0 */
        cuzk_fp12_inv(&b, &a);
        CHECK(cuzk_fp12_is_zero(&b));
    }
    cuzk_fp12 one, r;
    cuzk_fp12_set_one(&one);
    cuzk_fp12_inv(&r, &one);
    CHECK(cuzk_fp12_is_one(&r));
}

static void test_fp12_frobenius(void) {
    for (unsigned long i = 0; i < ITERS(1); i++) {
        cuzk_fp12 a, ref, x;
        rand_fp12(&a);
        ref = a;
        for (unsigned k = 1; k <= 12; k++) {
            ref_fp12_pow(&ref, &ref, P_LIMBS, 6);
            cuzk_fp12_frobenius(&x, &a, k);
            CHECK(cuzk_fp12_eq(&x, &ref));
            if (k == 6) {
                cuzk_fp12_conjugate(&x, &a);
                CHECK(cuzk_fp12_eq(&x, &ref));
            }
        }
        CHECK(cuzk_fp12_eq(&ref, &a));
        x = a; /* aliasing */
        cuzk_fp12_frobenius(&x, &x, 13);
        cuzk_fp12_frobenius(&ref, &a, 1);
        CHECK(cuzk_fp12_eq(&x, &ref));
    }
}

static void test_fp12_mul_by_014(void) {
    for (unsigned long i = 0; i < ITERS(100); i++) {
        cuzk_fp12 a, l, x, y;
        cuzk_fp2 l0, l1, l4;
        rand_fp12(&a);
        rand_fp2(&l0);
        rand_fp2(&l1);
        rand_fp2(&l4);
        cuzk_fp12_set_zero(&l);
        l.c0.c0 = l0;
        l.c0.c1 = l1;
        l.c1.c1 = l4;
        cuzk_fp12_mul_by_014(&x, &a, &l0, &l1, &l4);
        ref_fp12_mul(&y, &a, &l);
        CHECK(cuzk_fp12_eq(&x, &y));
        x = a;
        cuzk_fp12_mul_by_014(&x, &x, &l0, &l1, &l4);
        CHECK(cuzk_fp12_eq(&x, &y));
    }
}

static void test_fp12_cyclotomic(void) {
    const uint64_t xabs = CUZK__BLS_X_ABS;
    for (unsigned long i = 0; i < ITERS(20); i++) {
        cuzk_fp12 f, a, x, y;
        rand_fp12(&f);
        make_cyclotomic(&a, &f);
        /* a^(p^4 - p^2 + 1) = 1: a^(p^4) a = a^(p^2) */
        cuzk_fp12_frobenius(&x, &a, 4);
        cuzk_fp12_mul(&x, &x, &a);
        cuzk_fp12_frobenius(&y, &a, 2);
        CHECK(cuzk_fp12_eq(&x, &y));
        /* conjugate is the inverse there */
        cuzk_fp12_conjugate(&x, &a);
        cuzk_fp12_mul(&x, &x, &a);
        CHECK(cuzk_fp12_is_one(&x));

        cuzk_fp12_cyclotomic_sqr(&x, &a);
        ref_fp12_mul(&y, &a, &a);
        CHECK(cuzk_fp12_eq(&x, &y));
        x = a;
        cuzk_fp12_cyclotomic_sqr(&x, &x);
        CHECK(cuzk_fp12_eq(&x, &y));

        if (i < 3) {
            cuzk_fp12_cyclotomic_pow_x(&x, &a);
            ref_fp12_pow(&y, &a, &xabs, 1);
            CHECK(cuzk_fp12_eq(&x, &y));
            x = a;
            cuzk_fp12_cyclotomic_pow_x(&x, &x);
            CHECK(cuzk_fp12_eq(&x, &y));
            cuzk_fp12_pow(&x, &a, &xabs, 1);
            CHECK(cuzk_fp12_eq(&x, &y));
        }
    }
    /* The cyclotomic squaring is not a general squaring: on a random element it
     * must differ (guards against a test that cannot fail). */
    cuzk_fp12 f, x, y;
    rand_fp12(&f);
    cuzk_fp12_cyclotomic_sqr(&x, &f);
    cuzk_fp12_sqr(&y, &f);
    CHECK(!cuzk_fp12_eq(&x, &y));
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_fp6_mul_sqr);
    RUN(test_fp6_inv);
    RUN(test_fp6_frobenius);
    RUN(test_fp12_mul_sqr);
    RUN(test_fp12_inv);
    RUN(test_fp12_frobenius);
    RUN(test_fp12_mul_by_014);
    RUN(test_fp12_cyclotomic);
    return cuzk_test_finish();
}
