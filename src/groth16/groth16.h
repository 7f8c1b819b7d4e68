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
#include "zkey.h"

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

/* ---- proving ------------------------------------------------------------- */

/* Milliseconds spent in each stage of prove_start / prove_finish. */
typedef struct {
    double abc_ms;    /* a, b (and c) from the key's coefficients and the witness */
    double ntt_ms;    /* H: the NTTs and pointwise products */
    double msm_a_ms;  /* sum w_i A_i */
    double msm_b1_ms; /* sum w_i B1_i */
    double msm_b2_ms; /* sum w_i B2_i (G2) */
    double msm_c_ms;  /* sum of the private w_i C_i (bellman's L) */
    double msm_h_ms;  /* sum h_i H_i */
    double finish_ms; /* assembly with r, s */
    double total_ms;
} cuzk_groth16_timings;

/*
 * What prove_start leaves for prove_finish: the MSM results and copies of the
 * key points the assembly needs. It owns everything it refers to (no pointer
 * into the key), so the key may be closed between the two calls.
 */
typedef struct {
    cuzk_g1_jac msm_a, msm_b1, msm_ch; /* msm_ch = sum C_i w_i + sum H_i h_i */
    cuzk_g2_jac msm_b2;
    cuzk_g1_aff alpha1, beta1, delta1;
    cuzk_g2_aff beta2, delta2;
    cuzk_groth16_timings t;
} cuzk_groth16_partial;

/*
 * All heavy work of a proof for a snarkjs key: a, b from the coefficients,
 * c = a∘b, H at the odd coset of the doubled domain, and the five MSMs.
 * witness: n_witness plain scalars (< r), witness[0] = 1, n_witness equal to
 * the key's nVars. threads: 0 = all cores.
 */
cuzk_status cuzk_groth16_prove_start_zkey(cuzk_groth16_partial *out, const cuzk_zkey *zk,
                                          const uint64_t (*witness)[4], size_t n_witness,
                                          unsigned threads, cuzk_error *err);

/*
 * The proof from a partial and the blinding scalars r, s (plain, < r; secret:
 * constant-time arithmetic):
 *   A = alpha1 + msm_a + r delta1,  B = beta2 + msm_b2 + s delta2,
 *   C = msm_ch + s A + r (beta1 + msm_b1 + s delta1) - r s delta1.
 */
void cuzk_groth16_prove_finish(cuzk_groth16_proof *proof, cuzk_groth16_partial *p,
                               const uint64_t r[4], const uint64_t s[4]);

/* A uniformly random scalar in [1, r) from the OS CSPRNG (getrandom). */
cuzk_status cuzk_groth16_random_scalar(uint64_t out[4], cuzk_error *err);

/* The verifying key of a snarkjs key (copies; free with cuzk_groth16_vk_free). */
cuzk_status cuzk_groth16_vk_from_zkey(cuzk_groth16_vk *vk, const cuzk_zkey *zk,
                                      cuzk_error *err);

#endif /* CUZK_GROTH16_H */
