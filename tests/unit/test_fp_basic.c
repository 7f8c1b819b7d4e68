/* Quick algebraic self-checks of Fp, Fr and Fp2 that need no reference library. */
#include "ff/fp2.h"
#include "ff/fr.h"
#include "harness.h"
#include "test_util.h"

static void test_fp_inverse_and_sqrt(void) {
    for (unsigned long i = 0; i < ITERS(200); i++) {
        cuzk_fp a, b, c, s;
        cuzk_test_rand_fp(&a);
        cuzk_fp_inv(&b, &a);
        cuzk_fp_inv_var(&c, &a);
        CHECK(cuzk_fp_eq(&b, &c));
        cuzk_fp_mul(&c, &a, &b);
        CHECK(cuzk_fp_is_one(&c));
        cuzk_fp_sqr(&b, &a);
        CHECK(cuzk_fp_sqrt(&s, &b));
        cuzk_fp_neg(&c, &a);
        CHECK(cuzk_fp_eq(&s, &a) || cuzk_fp_eq(&s, &c));
    }
}

static void test_fp2_field(void) {
    for (unsigned long i = 0; i < ITERS(100); i++) {
        cuzk_fp2 a, b, c, s, t;
        cuzk_test_rand_fp(&a.c0);
        cuzk_test_rand_fp(&a.c1);
        cuzk_fp2_inv(&b, &a);
        cuzk_fp2_mul(&c, &a, &b);
        CHECK(cuzk_fp2_is_one(&c));
        cuzk_fp2_sqr(&b, &a);
        cuzk_fp2_mul(&c, &a, &a);
        CHECK(cuzk_fp2_eq(&b, &c));
        CHECK(cuzk_fp2_sqrt_var(&s, &b));
        cuzk_fp2_sqr(&t, &s);
        CHECK(cuzk_fp2_eq(&t, &b));
    }
}

static void test_fr_sqrt(void) {
    for (unsigned long i = 0; i < ITERS(50); i++) {
        cuzk_fr a, b, s, t;
        uint64_t l[4] = {cuzk_test_rand64(), cuzk_test_rand64(), cuzk_test_rand64(),
                         cuzk_test_rand64() & 0x3fffffffffffffffULL};
        cuzk_fr_from_limbs(&a, l);
        cuzk_fr_sqr(&b, &a);
        CHECK(cuzk_fr_sqrt_var(&s, &b));
        cuzk_fr_sqr(&t, &s);
        CHECK(cuzk_fr_eq(&t, &b));
        cuzk_fr_inv_var(&t, &a);
        cuzk_fr_mul(&t, &t, &a);
        CHECK(cuzk_fr_is_one(&t));
    }
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_fp_inverse_and_sqrt);
    RUN(test_fp2_field);
    RUN(test_fr_sqrt);
    return cuzk_test_finish();
}
