/*
 * encode.c — zcash/bellman and snarkjs byte encodings of G1/G2 points
 * (encode.h; doc/formats.md, zkey point encoding and zcash point encoding).
 *
 * Encoders are constant-time in the point (they may serialize secret
 * intermediate values). Decoders are variable-time: they read public data
 * (keys, proofs) and stop at the first error, in this order: length, flag
 * bits, canonical coordinates, curve equation (or square root), subgroup.
 */
#include <string.h>

#include "ec/encode.h"

#define ZC_COMPRESSED 0x80u
#define ZC_INFINITY 0x40u
#define ZC_LARGEST 0x20u
#define ZC_FLAGS 0xe0u

static const cuzk_fp g1_b = {CUZK__G1_B};
/* The generated initializer is {c0 limbs, c1 limbs}: load it as a plain array. */
static const uint64_t g2_b_limbs[2][CUZK_FP_LIMBS] = CUZK__G2_B;

/* ---- field elements ------------------------------------------------------ */

/* Big-endian canonical Fp; masked: ignore the three flag bits of byte 0. */
static bool read_fp_be(cuzk_fp *r, const uint8_t in[CUZK_FP_BYTES], bool masked) {
    uint8_t buf[CUZK_FP_BYTES];
    memcpy(buf, in, sizeof(buf));
    if (masked) buf[0] &= (uint8_t)~ZC_FLAGS;
    return cuzk_fp_from_bytes_be(r, buf);
}

/* zcash Fp2: c1 then c0; the flags sit in c1's first byte. */
static bool read_fp2_be(cuzk_fp2 *r, const uint8_t in[2 * CUZK_FP_BYTES], bool masked) {
    cuzk_fp2 t;
    if (!read_fp_be(&t.c1, in, masked) || !read_fp_be(&t.c0, in + CUZK_FP_BYTES, false))
        return false;
    *r = t;
    return true;
}

static void write_fp2_be(uint8_t out[2 * CUZK_FP_BYTES], const cuzk_fp2 *a) {
    cuzk_fp_to_bytes_be(out, &a->c1);
    cuzk_fp_to_bytes_be(out + CUZK_FP_BYTES, &a->c0);
}

/* snarkjs: the 48 little-endian bytes are the Montgomery limbs themselves
 * (x*R mod p); a stored value >= p is not canonical. No conversion needed. */
static bool read_fp_mont_le(cuzk_fp *r, const uint8_t in[CUZK_FP_BYTES]) {
    uint64_t l[CUZK_FP_LIMBS];
    for (size_t i = 0; i < CUZK_FP_LIMBS; i++) {
        uint64_t w = 0;
        for (size_t j = 8; j-- > 0;) w = (w << 8) | in[i * 8 + j];
        l[i] = w;
    }
    if (!cuzk__lt_n(l, cuzk__fp_p, CUZK_FP_LIMBS)) return false;
    memcpy(r->l, l, sizeof(r->l));
    return true;
}

static void write_fp_mont_le(uint8_t out[CUZK_FP_BYTES], const cuzk_fp *a) {
    for (size_t i = 0; i < CUZK_FP_LIMBS; i++)
        for (size_t j = 0; j < 8; j++) out[i * 8 + j] = (uint8_t)(a->l[i] >> (8 * j));
}

static bool all_zero(const uint8_t *in, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= in[i];
    return acc == 0;
}

/* ---- zcash flag byte ----------------------------------------------------- */

/*
 * Checks the length and the flag bits of a zcash encoding whose compressed
 * form has clen bytes. Length picks the form; 0x80 must agree with it.
 * Infinity (0x40) needs every other bit zero, 0x20 included; 0x20 is allowed
 * only on a compressed finite point.
 */
static cuzk_status zcash_header(bool *compressed, bool *inf, bool *largest, const uint8_t *in,
                                size_t len, size_t clen) {
    if (len == clen)
        *compressed = true;
    else if (len == 2 * clen)
        *compressed = false;
    else
        return CUZK_ERR_BAD_LENGTH;
    unsigned b0 = in[0];
    bool c = (b0 & ZC_COMPRESSED) != 0;
    *inf = (b0 & ZC_INFINITY) != 0;
    *largest = (b0 & ZC_LARGEST) != 0;
    if (c != *compressed) return CUZK_ERR_BAD_ENCODING;
    if (*inf) {
        if ((b0 & ~(ZC_COMPRESSED | ZC_INFINITY)) != 0 || !all_zero(in + 1, len - 1))
            return CUZK_ERR_BAD_ENCODING;
    } else if (*largest && !c) {
        return CUZK_ERR_BAD_ENCODING;
    }
    return CUZK_OK;
}

/* ---- G1 ------------------------------------------------------------------ */

/* y with y^2 = x^3 + 4 and is_lexicographically_largest(y) == largest.
 * Cost: 1S + 1M + one Fp square root (an exponentiation). */
static bool g1_y_from_x(cuzk_fp *y, const cuzk_fp *x, bool largest) {
    cuzk_fp rhs, s, ns;
    cuzk_fp_sqr(&rhs, x);
    cuzk_fp_mul(&rhs, &rhs, x);
    cuzk_fp_add(&rhs, &rhs, &g1_b);
    if (!cuzk_fp_sqrt(&s, &rhs)) return false;
    cuzk_fp_neg(&ns, &s);
    /* y = 0 would make both signs "not largest"; it cannot occur: -4 is not
     * a cube in Fp, so E(Fp) has no point of order 2. */
    cuzk_fp_cmov(&s, &ns, cuzk_fp_is_lexicographically_largest(&s) != largest);
    *y = s;
    return true;
}

cuzk_status cuzk_g1_from_zcash(cuzk_g1_aff *r, const uint8_t *in, size_t len, unsigned flags) {
    if (r == NULL || in == NULL) return CUZK_ERR_INVALID_ARG;
    bool compressed, inf, largest;
    cuzk_status st = zcash_header(&compressed, &inf, &largest, in, len, CUZK_G1_COMPRESSED_BYTES);
    if (st != CUZK_OK) return st;
    cuzk_g1_aff t;
    if (inf) {
        cuzk_g1_aff_set_inf(r);
        return CUZK_OK;
    }
    if (!read_fp_be(&t.x, in, true)) return CUZK_ERR_NOT_CANONICAL;
    if (compressed) {
        if (!g1_y_from_x(&t.y, &t.x, largest)) return CUZK_ERR_NOT_ON_CURVE;
    } else {
        if (!read_fp_be(&t.y, in + CUZK_FP_BYTES, false)) return CUZK_ERR_NOT_CANONICAL;
        /* (0, 0) is our in-memory infinity and counts as "on the curve";
         * here it is an unflagged all-zero encoding, which zcash rejects. */
        if (cuzk_g1_aff_is_inf(&t) || !cuzk_g1_aff_is_on_curve(&t)) return CUZK_ERR_NOT_ON_CURVE;
    }
    if (!(flags & CUZK_DECODE_NO_SUBGROUP_CHECK) && !cuzk_g1_aff_in_subgroup_var(&t))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = t;
    return CUZK_OK;
}

/* Clear every byte when inf, then put the flags on byte 0 (constant-time). */
static void zcash_finish(uint8_t *out, size_t n, bool inf, unsigned finite_flags,
                         unsigned inf_flags) {
    uint8_t keep = (uint8_t)(0u - (unsigned)!inf);
    for (size_t i = 0; i < n; i++) out[i] &= keep;
    out[0] |= (uint8_t)((finite_flags & keep) | (inf_flags & (uint8_t)~keep));
}

void cuzk_g1_to_zcash_compressed(uint8_t out[CUZK_G1_COMPRESSED_BYTES], const cuzk_g1_aff *a) {
    bool inf = cuzk_g1_aff_is_inf(a);
    unsigned big = cuzk_fp_is_lexicographically_largest(&a->y) ? ZC_LARGEST : 0;
    cuzk_fp_to_bytes_be(out, &a->x);
    zcash_finish(out, CUZK_G1_COMPRESSED_BYTES, inf, ZC_COMPRESSED | big,
                 ZC_COMPRESSED | ZC_INFINITY);
}

void cuzk_g1_to_zcash_uncompressed(uint8_t out[CUZK_G1_UNCOMPRESSED_BYTES],
                                   const cuzk_g1_aff *a) {
    bool inf = cuzk_g1_aff_is_inf(a);
    cuzk_fp_to_bytes_be(out, &a->x);
    cuzk_fp_to_bytes_be(out + CUZK_FP_BYTES, &a->y);
    zcash_finish(out, CUZK_G1_UNCOMPRESSED_BYTES, inf, 0, ZC_INFINITY);
}

cuzk_status cuzk_g1_from_snarkjs(cuzk_g1_aff *r, const uint8_t in[96], unsigned flags) {
    if (r == NULL || in == NULL) return CUZK_ERR_INVALID_ARG;
    cuzk_g1_aff t;
    if (!read_fp_mont_le(&t.x, in) || !read_fp_mont_le(&t.y, in + CUZK_FP_BYTES))
        return CUZK_ERR_NOT_CANONICAL;
    if (all_zero(in, 96)) {
        cuzk_g1_aff_set_inf(r);
        return CUZK_OK;
    }
    if (!cuzk_g1_aff_is_on_curve(&t)) return CUZK_ERR_NOT_ON_CURVE;
    if (!(flags & CUZK_DECODE_NO_SUBGROUP_CHECK) && !cuzk_g1_aff_in_subgroup_var(&t))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = t;
    return CUZK_OK;
}

void cuzk_g1_to_snarkjs(uint8_t out[96], const cuzk_g1_aff *a) {
    bool inf = cuzk_g1_aff_is_inf(a);
    write_fp_mont_le(out, &a->x);
    write_fp_mont_le(out + CUZK_FP_BYTES, &a->y);
    zcash_finish(out, 96, inf, 0, 0); /* infinity is all zero, no flags */
}

/* ---- G2 ------------------------------------------------------------------ */

/* As g1_y_from_x on E': y^2 = x^3 + 4(u+1). Cost: 1S2 + 1M2 + one Fp2 root.
 * Again y != 0: -4(u+1) is not a cube in Fp2 (checked with Python). */
static bool g2_y_from_x(cuzk_fp2 *y, const cuzk_fp2 *x, bool largest) {
    cuzk_fp2 rhs, s, ns, b;
    memcpy(b.c0.l, g2_b_limbs[0], sizeof(b.c0.l));
    memcpy(b.c1.l, g2_b_limbs[1], sizeof(b.c1.l));
    cuzk_fp2_sqr(&rhs, x);
    cuzk_fp2_mul(&rhs, &rhs, x);
    cuzk_fp2_add(&rhs, &rhs, &b);
    if (!cuzk_fp2_sqrt_var(&s, &rhs)) return false;
    cuzk_fp2_neg(&ns, &s);
    cuzk_fp2_cmov(&s, &ns, cuzk_fp2_is_lexicographically_largest(&s) != largest);
    *y = s;
    return true;
}

cuzk_status cuzk_g2_from_zcash(cuzk_g2_aff *r, const uint8_t *in, size_t len, unsigned flags) {
    if (r == NULL || in == NULL) return CUZK_ERR_INVALID_ARG;
    bool compressed, inf, largest;
    cuzk_status st = zcash_header(&compressed, &inf, &largest, in, len, CUZK_G2_COMPRESSED_BYTES);
    if (st != CUZK_OK) return st;
    cuzk_g2_aff t;
    if (inf) {
        cuzk_g2_aff_set_inf(r);
        return CUZK_OK;
    }
    if (!read_fp2_be(&t.x, in, true)) return CUZK_ERR_NOT_CANONICAL;
    if (compressed) {
        if (!g2_y_from_x(&t.y, &t.x, largest)) return CUZK_ERR_NOT_ON_CURVE;
    } else {
        if (!read_fp2_be(&t.y, in + 2 * CUZK_FP_BYTES, false)) return CUZK_ERR_NOT_CANONICAL;
        if (cuzk_g2_aff_is_inf(&t) || !cuzk_g2_aff_is_on_curve(&t)) return CUZK_ERR_NOT_ON_CURVE;
    }
    if (!(flags & CUZK_DECODE_NO_SUBGROUP_CHECK) && !cuzk_g2_aff_in_subgroup_var(&t))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = t;
    return CUZK_OK;
}

void cuzk_g2_to_zcash_compressed(uint8_t out[CUZK_G2_COMPRESSED_BYTES], const cuzk_g2_aff *a) {
    bool inf = cuzk_g2_aff_is_inf(a);
    unsigned big = cuzk_fp2_is_lexicographically_largest(&a->y) ? ZC_LARGEST : 0;
    write_fp2_be(out, &a->x);
    zcash_finish(out, CUZK_G2_COMPRESSED_BYTES, inf, ZC_COMPRESSED | big,
                 ZC_COMPRESSED | ZC_INFINITY);
}

void cuzk_g2_to_zcash_uncompressed(uint8_t out[CUZK_G2_UNCOMPRESSED_BYTES],
                                   const cuzk_g2_aff *a) {
    bool inf = cuzk_g2_aff_is_inf(a);
    write_fp2_be(out, &a->x);
    write_fp2_be(out + 2 * CUZK_FP_BYTES, &a->y);
    zcash_finish(out, CUZK_G2_UNCOMPRESSED_BYTES, inf, 0, ZC_INFINITY);
}

/* snarkjs G2: x.c0, x.c1, y.c0, y.c1 (c0 first, the reverse of zcash). */
cuzk_status cuzk_g2_from_snarkjs(cuzk_g2_aff *r, const uint8_t in[192], unsigned flags) {
    if (r == NULL || in == NULL) return CUZK_ERR_INVALID_ARG;
    cuzk_g2_aff t;
    if (!read_fp_mont_le(&t.x.c0, in) || !read_fp_mont_le(&t.x.c1, in + CUZK_FP_BYTES) ||
        !read_fp_mont_le(&t.y.c0, in + 2 * CUZK_FP_BYTES) ||
        !read_fp_mont_le(&t.y.c1, in + 3 * CUZK_FP_BYTES))
        return CUZK_ERR_NOT_CANONICAL;
    if (all_zero(in, 192)) {
        cuzk_g2_aff_set_inf(r);
        return CUZK_OK;
    }
    if (!cuzk_g2_aff_is_on_curve(&t)) return CUZK_ERR_NOT_ON_CURVE;
    if (!(flags & CUZK_DECODE_NO_SUBGROUP_CHECK) && !cuzk_g2_aff_in_subgroup_var(&t))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = t;
    return CUZK_OK;
}

void cuzk_g2_to_snarkjs(uint8_t out[192], const cuzk_g2_aff *a) {
    bool inf = cuzk_g2_aff_is_inf(a);
    write_fp_mont_le(out, &a->x.c0);
    write_fp_mont_le(out + CUZK_FP_BYTES, &a->x.c1);
    write_fp_mont_le(out + 2 * CUZK_FP_BYTES, &a->y.c0);
    write_fp_mont_le(out + 3 * CUZK_FP_BYTES, &a->y.c1);
    zcash_finish(out, 192, inf, 0, 0);
}

/* ---- public validation (include/cuzk.h) ---------------------------------- */

cuzk_status cuzk_g1_validate(const uint8_t *in, size_t len) {
    cuzk_g1_aff p;
    return cuzk_g1_from_zcash(&p, in, len, 0);
}

cuzk_status cuzk_g2_validate(const uint8_t *in, size_t len) {
    cuzk_g2_aff p;
    return cuzk_g2_from_zcash(&p, in, len, 0);
}
