/* g2.c — the group G2 of BLS12-381 (g2.h): ec_impl.h stamped over Fp2, plus the
 * endomorphism-based subgroup check. */
#include "ec/g2.h"

static const uint64_t ec_b_limbs[2][CUZK_FP_LIMBS] = CUZK__G2_B;
static const uint64_t ec_gen_x_limbs[2][CUZK_FP_LIMBS] = CUZK__G2_GEN_X;
static const uint64_t ec_gen_y_limbs[2][CUZK_FP_LIMBS] = CUZK__G2_GEN_Y;

#define CUZK__EC(name) cuzk_g2_##name
#define CUZK__FE cuzk_fp2
#define CUZK__FE_OP(name) cuzk_fp2_##name
#include "ec/ec_impl.h"

/* psi = untwist, Frobenius, twist: psi(x, y) = (conj(x) CX, conj(y) CY). */
static const uint64_t g2_psi_cx[2][CUZK_FP_LIMBS] = CUZK__G2_PSI_CX;
static const uint64_t g2_psi_cy[2][CUZK_FP_LIMBS] = CUZK__G2_PSI_CY;

void cuzk_g2_aff_psi(cuzk_g2_aff *r, const cuzk_g2_aff *a) {
    cuzk_fp2 cx, cy;
    fe_load(&cx, g2_psi_cx);
    fe_load(&cy, g2_psi_cy);
    cuzk_fp2_conj(&r->x, &a->x);
    cuzk_fp2_mul(&r->x, &r->x, &cx);
    cuzk_fp2_conj(&r->y, &a->y);
    cuzk_fp2_mul(&r->y, &r->y, &cy);
}

/*
 * Scott (ePrint 2021/1130): a point P of E'(Fp2) lies in G2 iff psi(P) = x P;
 * x is negative, so psi(P) = -(|x| P). Cost: one multiplication by the sparse
 * |x| (63 dbl + 5 add).
 */
bool cuzk_g2_aff_in_subgroup_var(const cuzk_g2_aff *a) {
    if (!cuzk_g2_aff_is_on_curve(a)) return false;
    if (cuzk_g2_aff_is_inf(a)) return true;
    cuzk_g2_aff q;
    cuzk_g2_jac p, t;
    cuzk_g2_aff_to_jac(&p, a);
    jac_mul_by_x_abs_var(&t, &p);
    cuzk_g2_jac_neg(&t, &t);
    cuzk_g2_aff_psi(&q, a);
    cuzk_g2_aff_to_jac(&p, &q);
    return cuzk_g2_jac_eq(&p, &t);
}
