/* fp.c — Fp operations that are not inline (see fp.h). */
#include "ff/fp.h"

static const uint64_t field_r2[CUZK_FP_LIMBS] = CUZK__FP_R2;
#define CUZK__F(name) cuzk_fp_##name
#define CUZK__T cuzk_fp
#define CUZK__N CUZK_FP_LIMBS
#define CUZK__MOD cuzk__fp_p
#define CUZK__R3 CUZK__FP_R3
#define CUZK__M_MINUS_2 CUZK__FP_P_MINUS_2
#define CUZK__M_MINUS_1_DIV_2 CUZK__FP_P_MINUS_1_DIV_2
#include "ff/field_impl.h"

static const uint64_t fp_p_plus_1_div_4[CUZK_FP_LIMBS] = CUZK__FP_P_PLUS_1_DIV_4;
static const uint64_t fp_p_minus_1_div_2[CUZK_FP_LIMBS] = CUZK__FP_P_MINUS_1_DIV_2;

bool cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a) {
    /* p = 3 mod 4, so a^((p+1)/4) is a root whenever one exists. */
    cuzk_fp s, check;
    cuzk_fp_pow(&s, a, fp_p_plus_1_div_4, CUZK_FP_LIMBS);
    cuzk_fp_sqr(&check, &s);
    if (!cuzk_fp_eq(&check, a)) return false;
    *r = s;
    return true;
}

bool cuzk_fp_is_lexicographically_largest(const cuzk_fp *a) {
    uint64_t t[CUZK_FP_LIMBS];
    cuzk_fp_to_limbs(t, a);
    return cuzk__lt_n(fp_p_minus_1_div_2, t, CUZK_FP_LIMBS);
}

#if CUZK_HAVE_X86_64_ASM
__attribute__((noinline, cold)) void cuzk__fp_add_c(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) {
    cuzk__add_mod_n(r->l, a->l, b->l, cuzk__fp_p, CUZK_FP_LIMBS);
}
__attribute__((noinline, cold)) void cuzk__fp_sub_c(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) {
    cuzk__sub_mod_n(r->l, a->l, b->l, cuzk__fp_p, CUZK_FP_LIMBS);
}
__attribute__((noinline, cold)) void cuzk__fp_mul_c(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) {
    cuzk__mont_mul_n(r->l, a->l, b->l, cuzk__fp_p, CUZK__FP_N0, CUZK_FP_LIMBS);
}
__attribute__((noinline, cold)) void cuzk__fp_sqr_c(cuzk_fp *r, const cuzk_fp *a) {
    cuzk__mont_mul_n(r->l, a->l, a->l, cuzk__fp_p, CUZK__FP_N0, CUZK_FP_LIMBS);
}
#endif
