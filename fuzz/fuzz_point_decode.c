/*
 * fuzz_point_decode.c — libFuzzer target for every point decoder (encode.h).
 *
 * Input layout: byte 0 selects, the rest is the encoding.
 *   sel & 3      0 zcash G1 (any length: 48/96 decode, others must give
 *                BAD_LENGTH), 1 zcash G2 (96/192), 2 snarkjs G1 (exactly 96
 *                bytes), 3 snarkjs G2 (exactly 192 bytes)
 *   sel & 0x10   decode with CUZK_DECODE_NO_SUBGROUP_CHECK
 * Properties checked (abort on violation, so libFuzzer reports a crash):
 *   - every accepted point is on the curve (and in the subgroup unless the
 *     flag skipped the check) and re-encodes to exactly the input bytes
 *     (each accepted encoding is canonical);
 *   - it survives a trip through the other two encodings;
 *   - the zcash length verdict matches the length alone; validate() agrees
 *     with the checked decoder; a point refused only for the subgroup decodes
 *     with the check skipped;
 *   - a refused input leaves the output untouched.
 *
 * fuzz/replay_main.c turns this file into a corpus replayer for any compiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/encode.h"
#include "fuzz_common.h"

#define SEL_G1_ZCASH 0u
#define SEL_G2_ZCASH 1u
#define SEL_G1_SNARKJS 2u
#define SEL_G2_SNARKJS 3u
#define SEL_NO_SUBGROUP 0x10u

/* Fill an output with a pattern no decoder writes, to see it left untouched. */
#define POISON 0xa5

static int poisoned(const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != POISON) return 0;
    return 1;
}

/* The point decoded from one form must give the same point from the other two. */
static void g1_cross_forms(const cuzk_g1_aff *p, unsigned flags) {
    uint8_t zc[48], zu[96], sj[96];
    cuzk_g1_aff q;
    cuzk_g1_to_zcash_compressed(zc, p);
    cuzk_g1_to_zcash_uncompressed(zu, p);
    cuzk_g1_to_snarkjs(sj, p);
    FUZZ_ASSERT(cuzk_g1_from_zcash(&q, zc, 48, flags) == CUZK_OK && cuzk_g1_aff_eq(&q, p));
    FUZZ_ASSERT(cuzk_g1_from_zcash(&q, zu, 96, flags) == CUZK_OK && cuzk_g1_aff_eq(&q, p));
    FUZZ_ASSERT(cuzk_g1_from_snarkjs(&q, sj, flags) == CUZK_OK && cuzk_g1_aff_eq(&q, p));
}

static void g2_cross_forms(const cuzk_g2_aff *p, unsigned flags) {
    uint8_t zc[96], zu[192], sj[192];
    cuzk_g2_aff q;
    cuzk_g2_to_zcash_compressed(zc, p);
    cuzk_g2_to_zcash_uncompressed(zu, p);
    cuzk_g2_to_snarkjs(sj, p);
    FUZZ_ASSERT(cuzk_g2_from_zcash(&q, zc, 96, flags) == CUZK_OK && cuzk_g2_aff_eq(&q, p));
    FUZZ_ASSERT(cuzk_g2_from_zcash(&q, zu, 192, flags) == CUZK_OK && cuzk_g2_aff_eq(&q, p));
    FUZZ_ASSERT(cuzk_g2_from_snarkjs(&q, sj, flags) == CUZK_OK && cuzk_g2_aff_eq(&q, p));
}

static void fuzz_g1_zcash(const uint8_t *in, size_t len, unsigned flags) {
    cuzk_g1_aff p;
    memset(&p, POISON, sizeof(p));
    cuzk_status st = cuzk_g1_from_zcash(&p, in, len, flags);
    FUZZ_ASSERT((unsigned)st < CUZK_STATUS_COUNT);
    FUZZ_ASSERT((st == CUZK_ERR_BAD_LENGTH) == (len != 48 && len != 96));
    if (!flags) FUZZ_ASSERT(cuzk_g1_validate(in, len) == st);
    if (st != CUZK_OK) {
        FUZZ_ASSERT(poisoned(&p, sizeof(p)));
        if (st == CUZK_ERR_NOT_IN_SUBGROUP)
            FUZZ_ASSERT(cuzk_g1_from_zcash(&p, in, len, CUZK_DECODE_NO_SUBGROUP_CHECK) == CUZK_OK);
        return;
    }
    FUZZ_ASSERT(cuzk_g1_aff_is_on_curve(&p));
    if (!flags) FUZZ_ASSERT(cuzk_g1_aff_in_subgroup_var(&p));
    uint8_t out[96];
    if (len == 48)
        cuzk_g1_to_zcash_compressed(out, &p);
    else
        cuzk_g1_to_zcash_uncompressed(out, &p);
    FUZZ_ASSERT(memcmp(out, in, len) == 0);
    g1_cross_forms(&p, flags);
}

static void fuzz_g2_zcash(const uint8_t *in, size_t len, unsigned flags) {
    cuzk_g2_aff p;
    memset(&p, POISON, sizeof(p));
    cuzk_status st = cuzk_g2_from_zcash(&p, in, len, flags);
    FUZZ_ASSERT((unsigned)st < CUZK_STATUS_COUNT);
    FUZZ_ASSERT((st == CUZK_ERR_BAD_LENGTH) == (len != 96 && len != 192));
    if (!flags) FUZZ_ASSERT(cuzk_g2_validate(in, len) == st);
    if (st != CUZK_OK) {
        FUZZ_ASSERT(poisoned(&p, sizeof(p)));
        if (st == CUZK_ERR_NOT_IN_SUBGROUP)
            FUZZ_ASSERT(cuzk_g2_from_zcash(&p, in, len, CUZK_DECODE_NO_SUBGROUP_CHECK) == CUZK_OK);
        return;
    }
    FUZZ_ASSERT(cuzk_g2_aff_is_on_curve(&p));
    if (!flags) FUZZ_ASSERT(cuzk_g2_aff_in_subgroup_var(&p));
    uint8_t out[192];
    if (len == 96)
        cuzk_g2_to_zcash_compressed(out, &p);
    else
        cuzk_g2_to_zcash_uncompressed(out, &p);
    FUZZ_ASSERT(memcmp(out, in, len) == 0);
    g2_cross_forms(&p, flags);
}

static void fuzz_g1_snarkjs(const uint8_t *in, size_t len, unsigned flags) {
    if (len != 96) return;
    cuzk_g1_aff p;
    memset(&p, POISON, sizeof(p));
    cuzk_status st = cuzk_g1_from_snarkjs(&p, in, flags);
    FUZZ_ASSERT(st == CUZK_OK || st == CUZK_ERR_NOT_CANONICAL || st == CUZK_ERR_NOT_ON_CURVE ||
                st == CUZK_ERR_NOT_IN_SUBGROUP);
    if (st != CUZK_OK) {
        FUZZ_ASSERT(poisoned(&p, sizeof(p)));
        if (st == CUZK_ERR_NOT_IN_SUBGROUP)
            FUZZ_ASSERT(cuzk_g1_from_snarkjs(&p, in, CUZK_DECODE_NO_SUBGROUP_CHECK) == CUZK_OK);
        return;
    }
    FUZZ_ASSERT(cuzk_g1_aff_is_on_curve(&p));
    if (!flags) FUZZ_ASSERT(cuzk_g1_aff_in_subgroup_var(&p));
    uint8_t out[96];
    cuzk_g1_to_snarkjs(out, &p);
    FUZZ_ASSERT(memcmp(out, in, 96) == 0);
    g1_cross_forms(&p, flags);
}

static void fuzz_g2_snarkjs(const uint8_t *in, size_t len, unsigned flags) {
    if (len != 192) return;
    cuzk_g2_aff p;
    memset(&p, POISON, sizeof(p));
    cuzk_status st = cuzk_g2_from_snarkjs(&p, in, flags);
    FUZZ_ASSERT(st == CUZK_OK || st == CUZK_ERR_NOT_CANONICAL || st == CUZK_ERR_NOT_ON_CURVE ||
                st == CUZK_ERR_NOT_IN_SUBGROUP);
    if (st != CUZK_OK) {
        FUZZ_ASSERT(poisoned(&p, sizeof(p)));
        if (st == CUZK_ERR_NOT_IN_SUBGROUP)
            FUZZ_ASSERT(cuzk_g2_from_snarkjs(&p, in, CUZK_DECODE_NO_SUBGROUP_CHECK) == CUZK_OK);
        return;
    }
    FUZZ_ASSERT(cuzk_g2_aff_is_on_curve(&p));
    if (!flags) FUZZ_ASSERT(cuzk_g2_aff_in_subgroup_var(&p));
    uint8_t out[192];
    cuzk_g2_to_snarkjs(out, &p);
    FUZZ_ASSERT(memcmp(out, in, 192) == 0);
    g2_cross_forms(&p, flags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    unsigned sel = data[0];
    unsigned flags = (sel & SEL_NO_SUBGROUP) ? CUZK_DECODE_NO_SUBGROUP_CHECK : 0;
    /* Copy to an exact-size heap block so ASan sees any read past the end. */
    size_t len = size - 1;
    uint8_t *in = malloc(len ? len : 1);
    if (in == NULL) return 0;
    memcpy(in, data + 1, len);
    switch (sel & 3u) {
    case SEL_G1_ZCASH: fuzz_g1_zcash(in, len, flags); break;
    case SEL_G2_ZCASH: fuzz_g2_zcash(in, len, flags); break;
    case SEL_G1_SNARKJS: fuzz_g1_snarkjs(in, len, flags); break;
    default: fuzz_g2_snarkjs(in, len, flags); break;
    }
    free(in);
    return 0;
}
