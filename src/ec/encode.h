/*
 * encode.h — byte encodings of G1/G2 points.
 *
 * zcash/bellman form (doc/formats.md, zcash point encoding): big-endian
 * canonical coordinates, Fp2 written c1 then c0; flags in the top three bits
 * of byte 0: 0x80 compressed, 0x40 infinity (all other bits then zero), 0x20
 * "y is the lexicographically largest root" (compressed, finite only).
 * Lengths are exact: G1 48/96, G2 96/192 bytes.
 *
 * snarkjs form (doc/formats.md, zkey point encoding): coordinates
 * little-endian in Montgomery form (x * 2^384 mod p), Fp2 c0 then c1,
 * infinity as all-zero bytes. G1 96 B, G2 192 B.
 *
 * Decoders return CUZK_OK or the precise reason (ERR_BAD_LENGTH,
 * ERR_BAD_ENCODING, ERR_NOT_CANONICAL, ERR_NOT_ON_CURVE, ERR_NOT_IN_SUBGROUP)
 * and leave *r untouched on failure. With CUZK_DECODE_NO_SUBGROUP_CHECK the
 * (costly) subgroup check is skipped, for trusted data checked elsewhere.
 */
#ifndef CUZK_ENCODE_H
#define CUZK_ENCODE_H

#include "cuzk.h"
#include "ec/g1.h"
#include "ec/g2.h"

#define CUZK_DECODE_NO_SUBGROUP_CHECK 1u

cuzk_status cuzk_g1_from_zcash(cuzk_g1_aff *r, const uint8_t *in, size_t len, unsigned flags);
cuzk_status cuzk_g2_from_zcash(cuzk_g2_aff *r, const uint8_t *in, size_t len, unsigned flags);
void cuzk_g1_to_zcash_compressed(uint8_t out[CUZK_G1_COMPRESSED_BYTES], const cuzk_g1_aff *a);
void cuzk_g1_to_zcash_uncompressed(uint8_t out[CUZK_G1_UNCOMPRESSED_BYTES], const cuzk_g1_aff *a);
void cuzk_g2_to_zcash_compressed(uint8_t out[CUZK_G2_COMPRESSED_BYTES], const cuzk_g2_aff *a);
void cuzk_g2_to_zcash_uncompressed(uint8_t out[CUZK_G2_UNCOMPRESSED_BYTES], const cuzk_g2_aff *a);

cuzk_status cuzk_g1_from_snarkjs(cuzk_g1_aff *r, const uint8_t in[96], unsigned flags);
cuzk_status cuzk_g2_from_snarkjs(cuzk_g2_aff *r, const uint8_t in[192], unsigned flags);
void cuzk_g1_to_snarkjs(uint8_t out[96], const cuzk_g1_aff *a);
void cuzk_g2_to_snarkjs(uint8_t out[192], const cuzk_g2_aff *a);

#endif /* CUZK_ENCODE_H */
