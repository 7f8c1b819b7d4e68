/*
 * groth16.h — Groth16 over BLS12-381: proofs, verifying keys, verification,
 * and the two-call prover shape (prove_start does all heavy work, prove_finish
 * assembles the proof from r, s) that the engine and the GPU backend reuse.
 *
 * Scalars handed to this layer (public inputs, r, s) are plain canonical
 * little-endian limbs (< r), the form MSMs consume.
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "g1.h"
#include "g2.h"

typedef struct {
    cuzk_g1_aff a;
    cuzk_g2_aff b;
    cuzk_g1_aff c;
} cuzk_groth16_proof;

/* What verification needs. ic has n_public + 1 points (ic[0] is for the
 * constant signal 1). The loaders validate every point (on the curve, in the
 * subgroup, not infinity in ic). */
typedef struct {
    cuzk_g1_aff alpha1;
    cuzk_g2_aff beta2, gamma2, delta2;
    size_t n_public;
    cuzk_g1_aff *ic;
} cuzk_groth16_vk;

/* Frees vk->ic (allocated by the loaders) and clears the struct. */
void cuzk_groth16_vk_free(cuzk_groth16_vk *vk);

/*
 * Verifies proof against vk and the public inputs (n_public plain scalars,
 * each < r). Stricter than snarkjs (FORMATS.md §11): the count must equal
 * vk->n_public, each input must be canonical, A, C must be finite points of
 * G1 and B a finite point of G2. Returns CUZK_OK for a valid proof,
 * CUZK_ERR_PROOF_INVALID when the pairing equation fails, or the input error,
 * with the reason in *err.
 */
cuzk_status cuzk_groth16_verify(const cuzk_groth16_vk *vk, const uint64_t (*pub)[4],
                                size_t n_public, const cuzk_groth16_proof *proof,
                                cuzk_error *err);

#endif /* CUZK_GROTH16_H */
