/*
 * pairing.h — the optimal ate pairing of BLS12-381, e: G1 x G2 -> GT ⊂ Fp12.
 *
 * e(P, Q) = final_exp(miller_loop(P, Q)) with
 *   miller_loop = f_{x,Q}(P), x = -0xd201000000010000 (conjugated because x < 0);
 *   final_exp(f) = f^(3 (p^12 - 1) / r).
 * The factor 3 is not a slip: the hard part uses the Hayashida-Hayasaka-Teruya
 * chain (eprint 2020/875), 3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3,
 * the same exponent as blst, zcash's bls12_381 and @noble/curves, so GT
 * values agree with theirs bit for bit. It is still a non-degenerate bilinear
 * pairing (gcd(3, r) = 1).
 *
 * Inputs are affine; the point at infinity is (0, 0) (g1.h, g2.h), and a pair
 * with an infinite point contributes 1. Points must be in G1 and G2 (callers
 * validate them: cuzk_g1_validate etc.); otherwise the value is meaningless
 * but computing it is still safe. Which inputs are infinity is not secret
 * (variable-time in that alone); otherwise constant-time.
 */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "ff/fp12.h"
#include "ec/g1.h"
#include "ec/g2.h"

/* r = prod_i f_{x,q[i]}(p[i]), the n Miller loops sharing one squaring chain. */
void cuzk_miller_loop(cuzk_fp12 *r, const cuzk_g1_aff *p, const cuzk_g2_aff *q, size_t n);
/* r = f^(3 (p^12 - 1) / r) (see above). */
void cuzk_final_exp(cuzk_fp12 *r, const cuzk_fp12 *f);
/* r = e(p, q). */
void cuzk_pairing(cuzk_fp12 *r, const cuzk_g1_aff *p, const cuzk_g2_aff *q);
/* prod_i e(p[i], q[i]) == 1, with one final exponentiation (Groth16 verify). */
bool cuzk_pairing_product_is_one(const cuzk_g1_aff *p, const cuzk_g2_aff *q, size_t n);

#endif /* CUZK_PAIRING_H */
