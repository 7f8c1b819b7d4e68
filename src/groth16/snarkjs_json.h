/*
 * snarkjs_json.h — snarkjs's JSON files for Groth16 on BLS12-381
 * (doc/formats.md, snarkjs JSON): proof.json, public.json, verification_key.json,
 * and the decimal-string field elements they are made of.
 *
 * Decimal strings. A field element is a JSON string of ASCII digits: no sign,
 * no spaces, no leading zeros ("0" itself is fine; "007" is rejected, as
 * snarkjs never writes one and an unambiguous text per value lets a file be
 * compared byte for byte), no JSON numbers, and the value must be canonical
 * (< p for coordinates, < r for public signals; otherwise
 * CUZK_ERR_NOT_CANONICAL, "not canonical: ..."). The conversions are
 * variable-time (_var): they read and write public data.
 *
 * Points. G1 is [x, y, z], G2 is [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]].
 * z must be 1 (affine; then (x, y) must be on the curve and in the subgroup)
 * or 0 with the exact snarkjs infinity form: G1 ["0","1","0"], G2
 * [["0","0"],["1","0"],["0","0"]]. Other projective z values are not
 * accepted (snarkjs writes none).
 *
 * Readers. Every error names the file, the line and column, the JSON path
 * and the reason, e.g.
 *   "proof.json:12:3: pi_b[1][0]: not canonical: 40024...559788 >= p",
 *   "vk.json:18:2: vk_delta_2: not in the G2 subgroup".
 * Checks (stricter than snarkjs; doc/formats.md, Verification):
 *   - proof: "protocol" must be "groth16"; "curve" may be absent (rapidsnark
 *     omits it) but if present must name BLS12-381; pi_a, pi_c are G1 and
 *     pi_b G2 points, checked for curve and subgroup membership; the infinity
 *     form is accepted here and returned as infinity (the verifier rejects it).
 *   - public: a top-level array of decimal strings < r (may be empty).
 *   - verification key: protocol "groth16"; curve required, compared after
 *     upper-casing and removing non-alphanumerics ("bls12381", "BLS12-381");
 *     BN254 names (bn128, bn254, altbn128) and others fail with
 *     CUZK_ERR_UNSUPPORTED; nPublic a JSON integer; vk_alpha_1, vk_beta_2,
 *     vk_gamma_2, vk_delta_2 and IC[0..nPublic] valid points, none at
 *     infinity; IC has exactly nPublic + 1 entries; vk_alphabeta_12 is
 *     ignored (any value or absent).
 *   - a known key given twice is an error; unknown keys are ignored.
 * Size limits (CUZK_ERR_BAD_LENGTH beyond them): 1 MiB for proof.json and
 * public.json (some 12,000 public signals), 256 MiB for the key (about a
 * million public signals); the parsed tree can cost up to ~36x the input
 * (json.h).
 *
 * Writers produce the bytes `snarkjs groth16 prove` / `zkey export
 * verificationkey` produce (bfj, one-space indent, key order as snarkjs, no
 * final newline). *_format returns the text in a malloc'd NUL-terminated
 * buffer; *_write stores it in a file, whole or not at all
 * (util/atomic_write.h: a kill or a full disk leaves the old file).
 */
#ifndef CUZK_SNARKJS_JSON_H
#define CUZK_SNARKJS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "ff/fp12.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "groth16/groth16.h"
#include "io/json.h"

/* Buffer sizes for the decimal text of an Fp / Fr value, NUL included
 * (p < 10^115, r < 10^77). */
#define CUZK_FP_DEC_BYTES 116
#define CUZK_FR_DEC_BYTES 78

/*
 * Parses the decimal digits s[0..len) into r. CUZK_ERR_BAD_ENCODING for
 * anything but digits without a leading zero, CUZK_ERR_NOT_CANONICAL for a
 * value >= the modulus; *r is untouched on failure. The message in *err says
 * why ("not canonical: 1234...5678 >= r").
 */
cuzk_status cuzk_fp_from_dec_var(cuzk_fp *r, const char *s, size_t len, cuzk_error *err);
cuzk_status cuzk_fr_from_dec_var(cuzk_fr *r, const char *s, size_t len, cuzk_error *err);
/* Writes the canonical decimal text and its NUL; returns its length. */
size_t cuzk_fp_to_dec_var(char out[CUZK_FP_DEC_BYTES], const cuzk_fp *a);
size_t cuzk_fr_to_dec_var(char out[CUZK_FR_DEC_BYTES], const cuzk_fr *a);

/*
 * Generic forms on plain little-endian limbs: parse (value must be < mod,
 * which has nlimbs limbs, nlimbs <= 6) and print (out holds cap bytes; returns
 * the length, or 0 when cap is too small).
 */
cuzk_status cuzk__dec_to_limbs_var(uint64_t *out, const uint64_t *mod, size_t nlimbs,
                                   const char *mod_name, const char *s, size_t len,
                                   cuzk_error *err);
size_t cuzk__limbs_to_dec_var(char *out, size_t cap, const uint64_t *a, size_t nlimbs);

/* ---- proof.json ------------------------------------------------------------ */

/* name labels messages (NULL: "proof.json"). */
cuzk_status cuzk_snarkjs_proof_parse(cuzk_groth16_proof *proof, const char *text, size_t len,
                                     const char *name, cuzk_error *err);
cuzk_status cuzk_snarkjs_proof_read(cuzk_groth16_proof *proof, const char *path,
                                    cuzk_error *err);
cuzk_status cuzk_snarkjs_proof_format(char **out, size_t *len, const cuzk_groth16_proof *proof);
cuzk_status cuzk_snarkjs_proof_write(const char *path, const cuzk_groth16_proof *proof,
                                     cuzk_error *err);

/* ---- public.json ----------------------------------------------------------- */

/* *pub receives a malloc'd array of *n elements (NULL when *n is 0); free()
 * it. name labels messages (NULL: "public.json"). */
cuzk_status cuzk_snarkjs_public_parse(cuzk_fr **pub, size_t *n, const char *text, size_t len,
                                      const char *name, cuzk_error *err);
cuzk_status cuzk_snarkjs_public_read(cuzk_fr **pub, size_t *n, const char *path,
                                     cuzk_error *err);
cuzk_status cuzk_snarkjs_public_format(char **out, size_t *len, const cuzk_fr *pub, size_t n);
cuzk_status cuzk_snarkjs_public_write(const char *path, const cuzk_fr *pub, size_t n,
                                      cuzk_error *err);

/* ---- verification_key.json ------------------------------------------------- */

/* On success vk->ic is malloc'd (cuzk_groth16_vk_free releases it); on
 * failure *vk is zeroed. name labels messages (NULL: "verification_key.json"). */
cuzk_status cuzk_snarkjs_vk_parse(cuzk_groth16_vk *vk, const char *text, size_t len,
                                  const char *name, cuzk_error *err);
cuzk_status cuzk_snarkjs_vk_read(cuzk_groth16_vk *vk, const char *path, cuzk_error *err);
/*
 * alphabeta is e(alpha, beta) for the "vk_alphabeta_12" member, written as
 * [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]] of [c0, c1] pairs (the
 * snarkjs layout); NULL omits the member (snarkjs's verifier does not read
 * it). Note that snarkjs's value is its own pairing's output; a pairing with
 * a different final exponent gives a different (equally valid) value.
 */
cuzk_status cuzk_snarkjs_vk_format(char **out, size_t *len, const cuzk_groth16_vk *vk,
                                   const cuzk_fp12 *alphabeta);
cuzk_status cuzk_snarkjs_vk_write(const char *path, const cuzk_groth16_vk *vk,
                                  const cuzk_fp12 *alphabeta, cuzk_error *err);

/* The curve name as snarkjs compares it: upper-cased, non-alphanumerics
 * dropped, at most cap - 1 characters kept. */
void cuzk__snarkjs_curve_normalize(char *out, size_t cap, const char *name, size_t len);

#endif /* CUZK_SNARKJS_JSON_H */
