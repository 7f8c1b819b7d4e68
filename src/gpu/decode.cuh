/*
 * decode.cuh — zcash uncompressed point encodings (bellman .params vectors)
 * to device affine points, on the device (params.h, deferred points).
 *
 * The GPU key reads a parameter file's vectors as they are on disk and
 * decodes them where they are used, instead of the host decoding ~47 GiB at
 * 2^27 into its own memory and uploading that.
 * Accepted exactly as params.c's reader at CUZK_PARAMS_CHECK_CURVE accepts:
 * flag bits 0x80, 0x40 (infinity, refused in every vector) and 0x20 clear,
 * both coordinates canonical (< p, every Fp of an Fp2), not the unflagged
 * (0, 0), and on the curve y^2 = x^3 + b (b = 4, 4(1 + u) for G2; the
 * equation costs 3 products a point here, where the host skips it for
 * time). The output is the host's form byte for byte (Montgomery, canonical),
 * so a key decoded here equals one uploaded from decoded parameters.
 *
 * Words: the encoding is loaded as little-endian 32-bit words w (what a GPU
 * load of the bytes gives), so byte 0 of the encoding, the flag byte, is the
 * low byte of w[0], and big-endian limb j of a 48-byte coordinate starting
 * at word s is bswap(w[s + 11 - j]).
 */
#ifndef CUZK_GPU_DECODE_CUH
#define CUZK_GPU_DECODE_CUH

#include "gpu/ec.cuh"

namespace cuzk_gpu {

__device__ __forceinline__ uint32_t bswap32(uint32_t x) {
#if defined(CUZK_GPU_HOST_MODEL)
    return __builtin_bswap32(x);
#else
    return __byte_perm(x, 0, 0x0123);
#endif
}

/* The 48-byte coordinate whose words start at w into r (plain, not yet
 * Montgomery); false if it is not below p. */
__device__ __forceinline__ bool fp_from_be_words(fp_t &r, const uint32_t *w) {
#pragma unroll
    for (int j = 0; j < fp_params::N; j++) r.v[j] = bswap32(w[fp_params::N - 1 - j]);
    /* r < p: the borrow out of r - p (the difference itself is not kept) */
    (void)sub_cc(r.v[0], fp_params::mod(0));
#pragma unroll
    for (int j = 1; j < fp_params::N; j++) (void)subc_cc(r.v[j], fp_params::mod(j));
    return subc(0, 0) != 0;
}

/* plain -> Montgomery: a R = mont(a, R^2) */
__device__ __forceinline__ void fp_to_mont(fp_t &r) {
    fp_t r2;
    constexpr uint64_t w[6] = CUZK__FP_R2;
#pragma unroll
    for (int j = 0; j < fp_params::N; j++) r2.v[j] = limb32(w, j);
    fmul(r, r, r2);
}

/* One coordinate of the group's field from its encoding; false if not
 * canonical. Fp2 is c1 then c0 (zcash). */
__device__ __forceinline__ bool coord_from_be(fp_t &r, const uint32_t *w) {
    if (!fp_from_be_words(r, w)) return false;
    fp_to_mont(r);
    return true;
}
__device__ __forceinline__ bool coord_from_be(fp2_t &r, const uint32_t *w) {
    return coord_from_be(r.c1, w) & coord_from_be(r.c0, w + fp_params::N);
}

/* b of the curve, Montgomery: 4, or 4 + 4u for the twist. */
__device__ __forceinline__ void curve_b(fp_t &b) {
    set_one(b);
    add(b, b, b);
    add(b, b, b);
}
__device__ __forceinline__ void curve_b(fp2_t &b) {
    curve_b(b.c0);
    b.c1 = b.c0;
}

/*
 * Decodes the encoding in w (24 words for G1, 48 for G2) into out; false if
 * params.c's reader would refuse it (above). out is written either way.
 */
template <class F>
__device__ __forceinline__ bool decode_point_be(aff_pt<F> &out, const uint32_t *w) {
    constexpr int CW = (int)(sizeof(F) / 4); /* words per coordinate */
    const bool flags_ok = (w[0] & 0xe0u) == 0;
    bool ok = coord_from_be(out.x, w) & coord_from_be(out.y, w + CW);
    ok = ok && flags_ok && !(is_zero(out.x) && is_zero(out.y));
    F y2, x3, b;
    fsqr(y2, out.y);
    fsqr(x3, out.x);
    fmul(x3, x3, out.x);
    curve_b(b);
    add(x3, x3, b);
    return ok && fe_equal(y2, x3);
}

} /* namespace cuzk_gpu */

#endif /* CUZK_GPU_DECODE_CUH */
