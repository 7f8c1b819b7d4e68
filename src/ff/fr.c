/* fr.c — Fr operations that are not inline (see fr.h). */
#include "ff/fr.h"

static const uint64_t field_r2[CUZK_FR_LIMBS] = CUZK__FR_R2;
#define CUZK__F(name) cuzk_fr_##name
#define CUZK__T cuzk_fr
#define CUZK__N CUZK_FR_LIMBS
#define CUZK__MOD cuzk__fr_r
#define CUZK__R3 CUZK__FR_R3
#define CUZK__M_MINUS_2 CUZK__FR_R_MINUS_2
#define CUZK__M_MINUS_1_DIV_2 CUZK__FR_R_MINUS_1_DIV_2
#include "ff/field_impl.h"

static const uint64_t fr_t_minus_1_div_2[CUZK_FR_LIMBS] = CUZK__FR_T_MINUS_1_DIV_2;

bool cuzk_fr_sqrt_var(cuzk_fr *r, const cuzk_fr *a) {
    /* Tonelli-Shanks: r - 1 = 2^S T. With w = a^((T-1)/2): x = a w = a^((T+1)/2),
     * b = x w = a^T (of order dividing 2^S), z = 7^T generates the 2-Sylow group. */
    if (cuzk_fr_is_zero(a)) {
        cuzk_fr_set_zero(r);
        return true;
    }
    cuzk_fr w, x, b, z = {CUZK__FR_ROOT7};
    cuzk_fr_pow(&w, a, fr_t_minus_1_div_2, CUZK_FR_LIMBS);
    cuzk_fr_mul(&x, a, &w);
    cuzk_fr_mul(&b, &x, &w);
    unsigned v = CUZK__FR_TWO_ADICITY;
    while (!cuzk_fr_is_one(&b)) {
        /* least k with b^(2^k) = 1 */
        unsigned k = 0;
        cuzk_fr t = b;
        while (!cuzk_fr_is_one(&t)) {
            cuzk_fr_sqr(&t, &t);
            if (++k >= v) return false; /* a is not a square */
        }
        cuzk_fr g = z;
        for (unsigned i = 0; i + k + 1 < v; i++) cuzk_fr_sqr(&g, &g);
        cuzk_fr_sqr(&z, &g);
        cuzk_fr_mul(&b, &b, &z);
        cuzk_fr_mul(&x, &x, &g);
        v = k;
    }
    *r = x;
    return true;
}

#if CUZK_HAVE_X86_64_ASM
__attribute__((noinline, cold)) void cuzk__fr_add_c(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    cuzk__add_mod_n(r->l, a->l, b->l, cuzk__fr_r, CUZK_FR_LIMBS);
}
__attribute__((noinline, cold)) void cuzk__fr_sub_c(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    cuzk__sub_mod_n(r->l, a->l, b->l, cuzk__fr_r, CUZK_FR_LIMBS);
}
__attribute__((noinline, cold)) void cuzk__fr_mul_c(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
    cuzk__mont_mul_n(r->l, a->l, b->l, cuzk__fr_r, CUZK__FR_N0, CUZK_FR_LIMBS);
}
__attribute__((noinline, cold)) void cuzk__fr_sqr_c(cuzk_fr *r, const cuzk_fr *a) {
    cuzk__mont_mul_n(r->l, a->l, a->l, cuzk__fr_r, CUZK__FR_N0, CUZK_FR_LIMBS);
}
#endif
