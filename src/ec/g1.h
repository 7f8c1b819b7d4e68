/*
 * g1.h — the group G1 of BLS12-381: E(Fp): y^2 = x^3 + 4, prime-order
 * subgroup of order r (cofactor h1 = 0x396c8c005555e1568c00aaab0000aaab).
 *
 * Forms:
 *   affine   (x, y); the point at infinity is (0, 0), which is not on the
 *            curve (b != 0), so the encoding is unambiguous (as in snarkjs).
 *   Jacobian (X, Y, Z) = (X/Z^2, Y/Z^3); infinity has Z = 0.
 *   XYZZ     (X, Y, ZZ, ZZZ) = (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; infinity has
 *            ZZ = 0. Cheap mixed additions for MSM buckets.
 * The set_inf functions write all zeros, so zeroed memory is infinity in
 * every form.
 * Every operation handles infinity and equal/opposite inputs. Functions are
 * constant-time in the point coordinates and scalars unless they end in _var.
 * Scalars are plain little-endian 64-bit limbs (not Montgomery).
 */
#ifndef CUZK_G1_H
#define CUZK_G1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ff/fp.h"

typedef struct {
    cuzk_fp x, y;
} cuzk_g1_aff;
typedef struct {
    cuzk_fp x, y, z;
} cuzk_g1_jac;
typedef struct {
    cuzk_fp x, y, zz, zzz;
} cuzk_g1_xyzz;

void cuzk_g1_generator(cuzk_g1_aff *r);
void cuzk_g1_aff_set_inf(cuzk_g1_aff *r);
bool cuzk_g1_aff_is_inf(const cuzk_g1_aff *a);
void cuzk_g1_jac_set_inf(cuzk_g1_jac *r);
bool cuzk_g1_jac_is_inf(const cuzk_g1_jac *a);

void cuzk_g1_aff_to_jac(cuzk_g1_jac *r, const cuzk_g1_aff *a);
void cuzk_g1_jac_to_aff(cuzk_g1_aff *r, const cuzk_g1_jac *a);
/* The same with a variable-time inversion (public points). */
void cuzk_g1_jac_to_aff_var(cuzk_g1_aff *r, const cuzk_g1_jac *a);
/* out[i] = in[i] in affine form with one field inversion; scratch holds n
 * field elements. Variable-time only in which inputs are infinity. out and
 * in must not overlap. */
void cuzk_g1_jac_batch_to_aff_var(cuzk_g1_aff *out, const cuzk_g1_jac *in, size_t n,
                                  cuzk_fp *scratch);

void cuzk_g1_aff_neg(cuzk_g1_aff *r, const cuzk_g1_aff *a);
void cuzk_g1_jac_neg(cuzk_g1_jac *r, const cuzk_g1_jac *a);
void cuzk_g1_jac_dbl(cuzk_g1_jac *r, const cuzk_g1_jac *a);
void cuzk_g1_jac_add(cuzk_g1_jac *r, const cuzk_g1_jac *a, const cuzk_g1_jac *b);
void cuzk_g1_jac_add_aff(cuzk_g1_jac *r, const cuzk_g1_jac *a, const cuzk_g1_aff *b);
/* Variable-time versions: they branch on infinity and on a == +-b (public
 * points, MSM); the plain ones compute the doubling too and select. */
void cuzk_g1_jac_add_var(cuzk_g1_jac *r, const cuzk_g1_jac *a, const cuzk_g1_jac *b);
void cuzk_g1_jac_add_aff_var(cuzk_g1_jac *r, const cuzk_g1_jac *a, const cuzk_g1_aff *b);
bool cuzk_g1_jac_eq(const cuzk_g1_jac *a, const cuzk_g1_jac *b);
bool cuzk_g1_aff_eq(const cuzk_g1_aff *a, const cuzk_g1_aff *b);

void cuzk_g1_xyzz_set_inf(cuzk_g1_xyzz *r);
bool cuzk_g1_xyzz_is_inf(const cuzk_g1_xyzz *a);
void cuzk_g1_xyzz_dbl(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *a);
void cuzk_g1_xyzz_add(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *a, const cuzk_g1_xyzz *b);
void cuzk_g1_xyzz_add_aff(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *a, const cuzk_g1_aff *b);
void cuzk_g1_xyzz_add_var(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *a, const cuzk_g1_xyzz *b);
void cuzk_g1_xyzz_add_aff_var(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *a, const cuzk_g1_aff *b);
void cuzk_g1_xyzz_neg(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *a);
void cuzk_g1_xyzz_to_jac(cuzk_g1_jac *r, const cuzk_g1_xyzz *a);
void cuzk_g1_aff_to_xyzz(cuzk_g1_xyzz *r, const cuzk_g1_aff *a);
void cuzk_g1_jac_to_xyzz(cuzk_g1_xyzz *r, const cuzk_g1_jac *a);

/* r = k*a, constant-time in a and k (k has nlimbs limbs, any value). */
void cuzk_g1_jac_mul(cuzk_g1_jac *r, const cuzk_g1_jac *a, const uint64_t *k, size_t nlimbs);
/* r = k*a, variable-time (public scalars). */
void cuzk_g1_jac_mul_var(cuzk_g1_jac *r, const cuzk_g1_jac *a, const uint64_t *k, size_t nlimbs);

/* Infinity counts as on the curve and in the subgroup; a point off the curve
 * is in no subgroup (both checks return false). */
bool cuzk_g1_aff_is_on_curve(const cuzk_g1_aff *a);
bool cuzk_g1_jac_is_on_curve(const cuzk_g1_jac *a);
/* Fast check (endomorphism: phi(P) == -x^2 P); variable-time (public points). */
bool cuzk_g1_aff_in_subgroup_var(const cuzk_g1_aff *a);
/* Reference check r*P == O, slow; tests compare the two. */
bool cuzk_g1_aff_in_subgroup_naive_var(const cuzk_g1_aff *a);

#endif /* CUZK_G1_H */
