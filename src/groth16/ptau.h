/*
 * ptau.h — a DEVELOPMENT powers-of-tau writer: a snarkjs-compatible,
 * phase-2-prepared .ptau for BLS12-381 made in seconds from three known
 * secrets (tau, alpha, beta). NOT FOR PRODUCTION: whoever knows the secrets
 * (here: anyone who knows the seed) can forge proofs for every key made from
 * the file. It exists so that test keys for large circuits (2^15 and up) can
 * be made by `snarkjs groth16 setup` without snarkjs's `powersoftau prepare
 * phase2`, which takes hours in JavaScript at those sizes.
 *
 * The file is what snarkjs 0.7.6 writes for `powersoftau new` followed by
 * `prepare phase2` (src/powersoftau_new.js, powersoftau_preparephase2.js,
 * powersoftau_utils.js), with the points of a ceremony whose secrets are
 * tau, alpha, beta but with no contribution record (section 7 holds a count
 * of 0, as after `new`): `groth16 setup` reads only sections 1-6 and 12-15,
 * and `powersoftau verify` refuses the file ("This file has no
 * contribution"), which is right for a file whose secrets are public.
 * doc/formats.md, ptau. Layout, n = 2^power, points in LEM (doc/formats.md,
 * zkey point encoding):
 *
 *   "ptau", u32 version 1, u32 nSections 11, then sections in this order:
 *    1  header: u32 n8q = 48, q (48 bytes LE), u32 power, u32 ceremonyPower = power
 *    2  tauG1       tau^i·G1,          i < 2n - 1
 *    3  tauG2       tau^i·G2,          i < n
 *    4  alphaTauG1  alpha·tau^i·G1,    i < n
 *    5  betaTauG1   beta·tau^i·G1,     i < n
 *    6  betaG2      beta·G2
 *    7  contributions: u32 0
 *   12  tauG1 Lagrange blocks j = 0..power+1, block j (2^j points) at point
 *       offset 2^j - 1: L_i(tau)·G1 for the basis of <omega_(2^j)>
 *   13  tauG2 blocks j = 0..power: L_i(tau)·G2
 *   14  alphaTauG1 blocks: alpha·L_i(tau)·G1
 *   15  betaTauG1 blocks:  beta·L_i(tau)·G1
 *
 * snarkjs makes block j as the inverse FFT (ffjavascript, roots 5^t;
 * doc/formats.md, zkey domain) of the first 2^j points of the monomial
 * section, so block j holds sum_k tau^k omega^(-ik) / 2^j = L_i(tau). The one exception:
 * the tauG1 block power+1 is the inverse FFT of tau^0..tau^(N-2) and a zero
 * in place of tau^(N-1) (N = 2n: section 2 has only 2n - 1 points), so its
 * entries are L_i(tau) - tau^(N-1) omega^i / N.
 * Here the L_i(tau) are computed in Fr in closed form,
 *   L_i(tau) = omega^i (tau^m - 1) / (m (tau - omega^i)),  m = 2^j,
 * with one batch inversion per block, and every point is a fixed-base
 * multiple of the generator (fixed_base.h).
 */
#ifndef CUZK_PTAU_H
#define CUZK_PTAU_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "util/error.h"
#include "ff/fr.h"

/* Largest power accepted (block power+1 then has 2^29 points). */
#define CUZK_PTAU_MAX_POWER 27

#define CUZK_PTAU_SEC_HEADER 1u
#define CUZK_PTAU_SEC_TAU_G1 2u
#define CUZK_PTAU_SEC_TAU_G2 3u
#define CUZK_PTAU_SEC_ALPHA_TAU_G1 4u
#define CUZK_PTAU_SEC_BETA_TAU_G1 5u
#define CUZK_PTAU_SEC_BETA_G2 6u
#define CUZK_PTAU_SEC_CONTRIBUTIONS 7u
#define CUZK_PTAU_SEC_LAGRANGE_TAU_G1 12u
#define CUZK_PTAU_SEC_LAGRANGE_TAU_G2 13u
#define CUZK_PTAU_SEC_LAGRANGE_ALPHA_G1 14u
#define CUZK_PTAU_SEC_LAGRANGE_BETA_G1 15u

typedef struct {
    cuzk_fr tau, alpha, beta;
} cuzk_ptau_secrets;

/*
 * Derives the secrets from a seed (any bytes): each of tau, alpha, beta is
 * the first SHA-256("cuzk-ptau-dev-v1" 0x00 label 0x00 seed u32le(counter)),
 * top bit cleared, read little-endian, that is a nonzero element below r
 * (label "tau", "alpha", "beta"; counter from 0). tau must moreover lie
 * outside the 2^32-th roots of unity, so that no Lagrange basis degenerates.
 * Deterministic; independent of the power.
 */
void cuzk_ptau_secrets_from_seed(cuzk_ptau_secrets *s, const void *seed, size_t seed_len);

/* The number of points in section `id` of a file of this power (0 for an
 * unknown id or the header/contribution sections). */
uint64_t cuzk_ptau_section_points(uint32_t id, unsigned power);
/* Payload bytes of section `id` (header 60, contributions 4). */
uint64_t cuzk_ptau_section_bytes(uint32_t id, unsigned power);
/* Bytes of the whole file. */
uint64_t cuzk_ptau_file_bytes(unsigned power);

/*
 * Writes the file (layout above) to path, replacing it. threads: OpenMP
 * threads for the point multiplications (0 = all). CUZK_ERR_INVALID_ARG for a
 * power outside 1..CUZK_PTAU_MAX_POWER or secrets that are zero (tau also
 * must not be a root of unity of order dividing 2^32: L_i(tau) would be 0/0),
 * CUZK_ERR_NOMEM, CUZK_ERR_IO (the message names the path and the step).
 * The file is written whole or not at all (util/atomic_write.h): on failure
 * path keeps its old content, or does not exist if it did not before.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_ptau_write_dev(const char *path, unsigned power,
                                                        const cuzk_ptau_secrets *s,
                                                        unsigned threads, cuzk_error *err);

/* ---- internal, for tests ---------------------------------------------------- */

/* SHA-256 (FIPS 180-4) of len bytes. */
void cuzk__sha256(uint8_t out[32], const void *data, size_t len);
/* omega of order 2^j (j <= 32) on ffjavascript's domain: (5^t)^(2^(32-j)). */
void cuzk__ptau_root(cuzk_fr *w, unsigned j);
/*
 * The scalars of the Lagrange blocks 0..last of a tauG1-style section:
 * out[2^j - 1 + i] = L_i(tau) for the basis of size 2^j (2^(last+1) - 1
 * entries); with zero_top, block `last` gets the snarkjs exception above.
 * CUZK_ERR_NOMEM or CUZK_ERR_INVALID_ARG (tau a root of unity).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__ptau_lagrange_scalars(cuzk_fr *out, const cuzk_fr *tau,
                                                                unsigned last, int zero_top);

#endif /* CUZK_PTAU_H */
