/* g1.c — the group G1 of BLS12-381 (g1.h): ec_impl.h stamped over Fp, plus the
 * endomorphism-based subgroup check. */
#include "ec/g1.h"

static const uint64_t ec_b_limbs[CUZK_FP_LIMBS] = CUZK__G1_B;
static const uint64_t ec_gen_x_limbs[CUZK_FP_LIMBS] = CUZK__G1_GEN_X;
static const uint64_t ec_gen_y_limbs[CUZK_FP_LIMBS] = CUZK__G1_GEN_Y;

#define CUZK__EC(name) cuzk_g1_##name
#define CUZK__FE cuzk_fp
#define CUZK__FE_OP(name) cuzk_fp_##name
#include "ec/ec_impl.h"

/* beta, a primitive cube root of unity in Fp, chosen so that
 * phi(x, y) = (beta x, y) acts on G1 as multiplication by -x^2 (x the seed). */
static const cuzk_fp g1_beta = {CUZK__G1_BETA};

/*
 * Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (ePrint 2021/1130): a point P of E(Fp) lies in G1
 * iff phi(P) = -x^2 P. Cost: two multiplications by the sparse |x| (126 dbl +
 * 10 add) instead of one by the 255-bit r.
 */
bool cuzk_g1_aff_in_subgroup_var(const cuzk_g1_aff *a) {
    if (!cuzk_g1_aff_is_on_curve(a)) return false;
    if (cuzk_g1_aff_is_inf(a)) return true;
    cuzk_g1_jac p, t;
    cuzk_g1_aff_to_jac(&p, a);
    jac_mul_by_x_abs_var(&t, &p);
    jac_mul_by_x_abs_var(&t, &t);
    cuzk_g1_jac_neg(&t, &t);
    cuzk_fp_mul(&p.x, &p.x, &g1_beta);
    return cuzk_g1_jac_eq(&p, &t);
}
