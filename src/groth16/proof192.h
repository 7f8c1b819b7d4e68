/*
 * proof192.h — bellman/Filecoin Groth16 proofs: the 192-byte encoding,
 * concatenated partition proofs, and verification against a bellman
 * verifying key (doc/formats.md, The 192-byte proof and Verification; params.h
 * for the .vk).
 *
 * Encoding (bellperson `Proof::write`): A as a 48-byte compressed G1 point,
 * B as a 96-byte compressed G2 point (Fp2 written c1 then c0), C as a 48-byte
 * compressed G1 point, zcash flags (doc/formats.md, zcash point encoding):
 * 192 bytes, no header. A job of N partitions is the N proofs concatenated
 * in partition order, N x 192 bytes, again without a header (PoRep 32 GiB:
 * 10 x 192 = 1920 bytes).
 *
 * Decoding checks, per element, in this order: flag bits (compressed bit
 * set, infinity bit only on the all-zero encoding, sign bit only on finite
 * points), canonical x (< p), x on the curve (the square root exists), the
 * point in the prime-order subgroup, and refuses infinity (bellperson's
 * checked read does too). Errors name the element and its byte range:
 *   "proof: B (bytes 48..143): point not in the prime-order subgroup"
 *   "partition 3 (bytes 576..767): C (bytes 144..191): ..."
 *
 * Verification (bellman's `verify_proof`): with public inputs x_1..x_l (the
 * constant input x_0 = 1 not included, as in bellman's API), IC_i =
 * [(beta u_i + alpha v_i + w_i)/gamma] and an arbitrary gamma,
 *   e(A, B) = e(alpha, beta) e(IC_0 + sum_i x_i IC_i, gamma) e(C, delta).
 * That is cuzk_groth16_verify's equation with ic[0] the constant term, so a
 * bellman vk is converted (cuzk_groth16_vk_from_params) and that function
 * does the work; it also refuses an input count other than n_ic - 1 and any
 * input >= r. One proof and one input vector per partition.
 */
#ifndef CUZK_PROOF192_H
#define CUZK_PROOF192_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "groth16/groth16.h"
#include "io/params.h"

#define CUZK_PROOF192_BYTES 192u

/* The 192 bytes of a proof. Points at infinity are encoded as zcash does
 * (decoding then refuses them). Constant-time in the points. */
void cuzk_proof192_encode(uint8_t out[CUZK_PROOF192_BYTES], const cuzk_groth16_proof *p);

/* Decodes and checks one proof (see above); *p is untouched on failure. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_proof192_decode(cuzk_groth16_proof *p,
                                                         const uint8_t in[CUZK_PROOF192_BYTES],
                                                         cuzk_error *err);

/* n proofs into out (n x 192 bytes). */
void cuzk_proof192_encode_n(uint8_t *out, const cuzk_groth16_proof *p, size_t n);

/*
 * Splits a concatenation of partition proofs: len must be a positive
 * multiple of 192 (else ERR_BAD_LENGTH). On success *out is a heap array of
 * *n = len / 192 proofs (free() it); on failure *out is NULL, *n is 0 and
 * the message starts with "partition i (bytes a..b): ".
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_proof192_decode_n(cuzk_groth16_proof **out, size_t *n,
                                                           const uint8_t *in, size_t len,
                                                           cuzk_error *err);

/* The verifying key of bellman parameters in the form cuzk_groth16_verify
 * takes (copies; free with cuzk_groth16_vk_free). n_public = n_ic - 1. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_groth16_vk_from_params(cuzk_groth16_vk *out,
                                                                const cuzk_params_vk *vk,
                                                                cuzk_error *err);

/*
 * Verifies the n_partitions proofs in proofs[0..len) (len must be exactly
 * n_partitions x 192), partition i against the public inputs
 * inputs[i * n_public .. (i + 1) * n_public) (plain little-endian limbs, each
 * < r; the constant 1 not included). Stops at the first partition that fails
 * to decode or to verify and returns its status, with *failed (when not
 * NULL) set to its index and the message starting "partition i"; on
 * success *failed = n_partitions. CUZK_ERR_PROOF_INVALID means a well-formed
 * proof that does not verify.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_proof192_verify_partitions(
    const cuzk_groth16_vk *vk, const uint8_t *proofs, size_t len, const uint64_t (*inputs)[4],
    size_t n_public, size_t n_partitions, size_t *failed, cuzk_error *err);

#endif /* CUZK_PROOF192_H */
