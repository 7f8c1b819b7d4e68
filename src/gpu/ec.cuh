/*
 * ec.cuh — device point arithmetic for G1 (over Fp) and G2 (over Fp2) of
 * BLS12-381: y^2 = x^3 + b, a = 0. One template text over the coordinate
 * field F (fp_t or fp2_t of ff.cuh), as src/ec/ec_impl.h is on the host.
 *
 * Forms (the host's, src/ec/g1.h, g2.h):
 *   affine  (x, y) in Montgomery form; the point at infinity is (0, 0),
 *           which is not on the curve (b != 0), so the encoding is
 *           unambiguous. Byte for byte a host cuzk_g1_aff / cuzk_g2_aff.
 *   XYZZ    (X, Y, ZZ, ZZZ) = (X/ZZ, Y/ZZZ), ZZ^3 = ZZZ^2; infinity has
 *           ZZ = 0 (all zeros is infinity). Byte for byte a host
 *           cuzk_g1_xyzz / cuzk_g2_xyzz, so the host converts the results.
 *
 * VARIABLE TIME: the additions branch on infinity and on P = +-Q (public
 * data: MSM bases and scalars, as the host's _var functions).
 * Formulas: Explicit-Formulas Database (hyperelliptic.org/EFD),
 * g1p/auto-shortw-xyzz: madd-2008-s, add-2008-s, dbl-2008-s-1,
 * mdbl-2008-s-1 (a = 0), written anew. Costs in M, S of the field F
 * (for G2 an Fp2 M is 3 Fp M, an Fp2 S 2 Fp M).
 */
#ifndef CUZK_GPU_EC_CUH
#define CUZK_GPU_EC_CUH

#include "gpu/ff.cuh"

namespace cuzk_gpu {

#if defined(CUZK_GPU_HOST_MODEL)
/* The host model (ff.cuh) of the point formulas: tests/unit/gpu_ff_model.cpp
 * runs the mixed addition's eager and lazy forms against the CPU's. */
#define __noinline__ __attribute__((noinline))
struct uint4 {
    uint32_t x, y, z, w;
};
#endif

/* ---- field helpers the point code needs beyond ff.cuh -------------------- */

template <class P>
__device__ __forceinline__ bool is_zero(const fe<P> &a) {
    uint32_t t = 0;
#pragma unroll
    for (int i = 0; i < P::N; i++) t |= a.v[i];
    return t == 0;
}
__device__ __forceinline__ bool is_zero(const fp2_t &a) { return is_zero(a.c0) && is_zero(a.c1); }

__device__ __forceinline__ bool fe_equal(const fp2_t &a, const fp2_t &b) {
    return fe_equal(a.c0, b.c0) && fe_equal(a.c1, b.c1);
}

__device__ __forceinline__ void neg(fp2_t &r, const fp2_t &a) {
    neg(r.c0, a.c0);
    neg(r.c1, a.c1);
}

__device__ __forceinline__ void set_zero(fp2_t &r) {
    set_zero(r.c0);
    set_zero(r.c1);
}
__device__ __forceinline__ void set_one(fp2_t &r) {
    set_one(r.c0);
    set_zero(r.c1);
}

/*
 * Multiplication for the point formulas: one out-of-line Fp multiplication
 * (arguments and result by value, in registers) that every formula calls.
 * Inlining 10-40 multiplications of 600 instructions into each kernel made
 * the kernels huge and nvcc slow (minutes per kernel); a call costs a few
 * dozen moves against ~600 multiply-adds. Fp2 multiplies inline as three
 * calls (Karatsuba, ff.cuh's formula).
 */
template <bool LAZY = false>
static __device__ __noinline__ fp_t fp_mul_call(fp_t a, fp_t b) {
    fp_t r;
    if constexpr (LAZY)
        mul_lazy(r, a, b);
    else
        mul(r, a, b);
    return r;
}
/* The squaring out of line for the same reason: ~456 instead of ~588
 * multiply-adds (ff.cuh sqr). LAZY (both): G1's lazy mixed addition (ff.cuh
 * mul_lazy, sqr_lazy: operands and results in [0, 2p), no final
 * subtraction). */
template <bool LAZY = false>
static __device__ __noinline__ fp_t fp_sqr_call(fp_t a) {
    fp_t r;
    if constexpr (LAZY)
        sqr_lazy(r, a);
    else
        sqr(r, a);
    return r;
}
__device__ __forceinline__ void fmul(fp_t &r, const fp_t &a, const fp_t &b) { r = fp_mul_call(a, b); }
__device__ __forceinline__ void fsqr(fp_t &r, const fp_t &a) { r = fp_sqr_call(a); }
__device__ __forceinline__ void fmul(fp2_t &r, const fp2_t &a, const fp2_t &b) {
    fp_t t0, t1, s0, s1;
    fmul(t0, a.c0, b.c0);
    fmul(t1, a.c1, b.c1);
    add(s0, a.c0, a.c1);
    add(s1, b.c0, b.c1);
    fmul(s0, s0, s1);
    sub(s0, s0, t0);
    sub(r.c1, s0, t1);
    sub(r.c0, t0, t1);
}
/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: 2M. */
__device__ __forceinline__ void fsqr(fp2_t &r, const fp2_t &a) {
    fp_t s, d, m;
    add(s, a.c0, a.c1);
    sub(d, a.c0, a.c1);
    fmul(m, a.c0, a.c1);
    fmul(r.c0, s, d);
    add(r.c1, m, m);
}

/*
 * How a point addition multiplies (the policy M of xyzz_add_aff, xyzz_add).
 * The formulas name their independent products in pairs (mul2, sqr2):
 *   mul_call       every product one call of fp_mul_call (fmul; for Fp2 its
 *                  Karatsuba over such calls)
 *   mul_lazy_call  G1: mul_call, except that the mixed addition keeps its
 *                  accumulator lazy (coordinates in [0, 2p), ff.cuh's lazy
 *                  forms): no product pays a final subtraction, sub and the
 *                  zero tests work modulo 2p. A kernel that adds with it
 *                  makes a point canonical (xyzz_canon) before storing it.
 *                  The full addition (xyzz_add) stays canonical.
 * for_field<F, M>::type is M for G1 and mul_call for G2, whose MSM adds
 * most points in affine levels, where the lazy form gains nothing.
 * M::lazy tells the mixed addition which field operations to use.
 */
struct mul_call {
    static constexpr bool lazy = false;
    template <class F>
    static __device__ __forceinline__ void mul2(F &r0, const F &a0, const F &b0, F &r1,
                                                const F &a1, const F &b1) {
        fmul(r0, a0, b0);
        fmul(r1, a1, b1);
    }
    template <class F>
    static __device__ __forceinline__ void sqr2(F &r0, const F &a0, F &r1, const F &a1) {
        fsqr(r0, a0);
        fsqr(r1, a1);
    }
};
struct fp_pair {
    fp_t r0, r1;
};
/* The pair without final subtractions (operands and results in [0, 2p),
 * ff.cuh mul_lazy): G1's affine levels (msm_levels.cu ba_mul2). */
static __device__ __noinline__ fp_pair fp_mul2_lazy_call(fp_t a0, fp_t b0, fp_t a1, fp_t b1) {
    fp_pair r;
    mul_pair_cios<fp_params, true>(r.r0, a0, b0, r.r1, a1, b1);
    return r;
}
struct mul_lazy_call : mul_call {
    static constexpr bool lazy = true;
};
template <class F, class M>
struct for_field {
    typedef M type;
};
template <class M>
struct for_field<fp2_t, M> {
    typedef mul_call type;
};
/* 1/a, 0 giving 0 (ff.cuh inv_var: binary GCD, variable time), out of
 * line like the products: for batch inversions, one per thread and batch. */
static __device__ __noinline__ fp_t fp_inv_call(fp_t a) {
    fp_t r;
    inv_var(r, a);
    return r;
}
__device__ __forceinline__ void finv(fp_t &r, const fp_t &a) { r = fp_inv_call(a); }
/* (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2), since u^2 = -1. */
__device__ __forceinline__ void finv(fp2_t &r, const fp2_t &a) {
    fp_t t0, t1;
    fsqr(t0, a.c0);
    fsqr(t1, a.c1);
    add(t0, t0, t1);
    finv(t0, t0);
    fmul(r.c0, a.c0, t0);
    fmul(t1, a.c1, t0);
    neg(r.c1, t1);
}

/* ---- points -------------------------------------------------------------- */

template <class F>
struct __align__(16) aff_pt {
    F x, y;
};
template <class F>
struct __align__(16) xyzz_pt {
    F x, y, zz, zzz;
};

typedef aff_pt<fp_t> g1_aff;
typedef aff_pt<fp2_t> g2_aff;
typedef xyzz_pt<fp_t> g1_xyzz;
typedef xyzz_pt<fp2_t> g2_xyzz;
static_assert(sizeof(g1_aff) == 96 && sizeof(g2_aff) == 192, "host affine layout");
static_assert(sizeof(g1_xyzz) == 192 && sizeof(g2_xyzz) == 384, "host XYZZ layout");

/* 16-byte loads and stores of whole elements (every size here is a multiple
 * of 16 bytes; cudaMalloc aligns to 256). */
template <class E>
__device__ __forceinline__ E ld16(const E *p) {
    static_assert(sizeof(E) % 16 == 0, "element size");
    E r;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
#pragma unroll
    for (unsigned k = 0; k < sizeof(E) / 16; k++) d[k] = s[k];
    return r;
}
template <class E>
__device__ __forceinline__ void st16(E *p, const E &v) {
    const uint4 *s = reinterpret_cast<const uint4 *>(&v);
    uint4 *d = reinterpret_cast<uint4 *>(p);
#pragma unroll
    for (unsigned k = 0; k < sizeof(E) / 16; k++) d[k] = s[k];
}

template <class F>
__device__ __forceinline__ bool aff_is_inf(const aff_pt<F> &a) {
    return is_zero(a.x) && is_zero(a.y);
}
template <class F>
__device__ __forceinline__ bool xyzz_is_inf(const xyzz_pt<F> &a) {
    return is_zero(a.zz);
}
template <class F>
__device__ __forceinline__ void xyzz_set_inf(xyzz_pt<F> &r) {
    set_zero(r.x);
    set_zero(r.y);
    set_zero(r.zz);
    set_zero(r.zzz);
}

/* r = 2a for an affine, finite a (mdbl-2008-s-1): U = 2y, V = U^2, W = U V,
 * S = x V, M = 3x^2, X3 = M^2 - 2S, Y3 = M (S - X3) - W y, ZZ3 = V,
 * ZZZ3 = W. 3M + 2S. y = 0 cannot occur on the prime-order groups. */
template <class F>
__device__ __forceinline__ void xyzz_dbl_aff(xyzz_pt<F> &r, const aff_pt<F> &a) {
    F u, v, w, s, m, t;
    add(u, a.y, a.y);
    fsqr(v, u);
    fmul(w, u, v);
    fmul(s, a.x, v);
    fsqr(t, a.x);
    add(m, t, t);
    add(m, m, t);
    fsqr(r.x, m);
    sub(r.x, r.x, s);
    sub(r.x, r.x, s);
    sub(t, s, r.x);
    fmul(t, m, t);
    fmul(r.y, w, a.y);
    sub(r.y, t, r.y);
    r.zz = v;
    r.zzz = w;
}

/* r = 2a (dbl-2008-s-1): U = 2Y, V = U^2, W = U V, S = X V, M = 3X^2,
 * X3 = M^2 - 2S, Y3 = M (S - X3) - W Y, ZZ3 = V ZZ, ZZZ3 = W ZZZ.
 * 6M + 3S. Infinity (ZZ = 0) stays infinity. */
template <class F>
__device__ __forceinline__ void xyzz_dbl(xyzz_pt<F> &r, const xyzz_pt<F> &a) {
    F u, v, w, s, m, t;
    add(u, a.y, a.y);
    fsqr(v, u);
    fmul(w, u, v);
    fmul(s, a.x, v);
    fsqr(t, a.x);
    add(m, t, t);
    add(m, m, t);
    fmul(r.zz, v, a.zz);
    fmul(r.zzz, w, a.zzz);
    F y = a.y;
    fsqr(r.x, m);
    sub(r.x, r.x, s);
    sub(r.x, r.x, s);
    sub(t, s, r.x);
    fmul(t, m, t);
    fmul(w, w, y);
    sub(r.y, t, w);
}

/*
 * The field operations of the mixed addition: canonical (products by the
 * policy M), or lazy for G1 (M::lazy: values in [0, 2p), ff.cuh).
 */
template <class M>
struct canon_ops {
    template <class F>
    static __device__ __forceinline__ void mul2(F &r0, const F &a0, const F &b0, F &r1,
                                                const F &a1, const F &b1) {
        M::mul2(r0, a0, b0, r1, a1, b1);
    }
    template <class F>
    static __device__ __forceinline__ void sqr2(F &r0, const F &a0, F &r1, const F &a1) {
        M::sqr2(r0, a0, r1, a1);
    }
    template <class F>
    static __device__ __forceinline__ void fsub(F &r, const F &a, const F &b) {
        sub(r, a, b);
    }
    template <class F>
    static __device__ __forceinline__ bool zero(const F &a) {
        return is_zero(a);
    }
};
struct lazy_ops {
    static __device__ __forceinline__ void mul2(fp_t &r0, const fp_t &a0, const fp_t &b0,
                                                fp_t &r1, const fp_t &a1, const fp_t &b1) {
        r0 = fp_mul_call<true>(a0, b0);
        r1 = fp_mul_call<true>(a1, b1);
    }
    static __device__ __forceinline__ void sqr2(fp_t &r0, const fp_t &a0, fp_t &r1,
                                                const fp_t &a1) {
        r0 = fp_sqr_call<true>(a0);
        r1 = fp_sqr_call<true>(a1);
    }
    static __device__ __forceinline__ void fsub(fp_t &r, const fp_t &a, const fp_t &b) {
        sub_lazy(r, a, b);
    }
    static __device__ __forceinline__ bool zero(const fp_t &a) { return is_zero_lazy(a); }
};
template <class F, class M, bool LAZY = M::lazy>
struct madd_ops {
    typedef canon_ops<M> type;
};
template <class M>
struct madd_ops<fp_t, M, true> {
    typedef lazy_ops type;
};

/* A point of a lazy accumulation made canonical (nothing for other M). */
template <class F, class M>
__device__ __forceinline__ void xyzz_canon(xyzz_pt<F> &a) {
    if constexpr (M::lazy) {
        reduce_lazy(a.x, a.x);
        reduce_lazy(a.y, a.y);
        reduce_lazy(a.zz, a.zz);
        reduce_lazy(a.zzz, a.zzz);
    }
}

/*
 * acc += b for an affine b, negated when neg_b (madd-2008-s): U2 = x ZZ1,
 * S2 = y ZZZ1, P = U2 - X1, R = S2 - Y1, PP = P^2, PPP = P PP, Q = X1 PP,
 * X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP,
 * ZZZ3 = ZZZ1 PPP. 8M + 2S, as five pairs of independent products (M, the
 * multiplier policy above). Handles b = infinity, acc = infinity, b = acc
 * (doubling) and b = -acc (infinity). With a lazy M (G1), acc may be lazy
 * and stays so; b is canonical (a base).
 */
template <class F, class M = mul_call>
__device__ __forceinline__ void xyzz_add_aff(xyzz_pt<F> &acc, const aff_pt<F> &b0, bool neg_b) {
    typedef typename madd_ops<F, M>::type O;
    if (aff_is_inf(b0)) return;
    aff_pt<F> b = b0;
    if (neg_b) neg(b.y, b.y);
    if (O::zero(acc.zz)) { /* infinity */
        acc.x = b.x;
        acc.y = b.y;
        set_one(acc.zz);
        set_one(acc.zzz);
        return;
    }
    F p, r, pp, rr, ppp, q, t;
    O::mul2(p, b.x, acc.zz, r, b.y, acc.zzz);
    O::fsub(p, p, acc.x);
    O::fsub(r, r, acc.y);
    if (O::zero(p)) {
        if (O::zero(r))
            xyzz_dbl_aff(acc, b);
        else
            xyzz_set_inf(acc);
        return;
    }
    O::sqr2(pp, p, rr, r);
    O::mul2(ppp, p, pp, q, acc.x, pp);
    O::mul2(acc.zz, acc.zz, pp, acc.zzz, acc.zzz, ppp);
    O::fsub(t, rr, ppp);
    O::fsub(t, t, q);
    O::fsub(acc.x, t, q);
    O::fsub(t, q, acc.x);
    O::mul2(t, r, t, ppp, acc.y, ppp);
    O::fsub(acc.y, t, ppp);
}

/*
 * acc += b (add-2008-s): U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2,
 * S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1, PP = P^2, PPP = P PP, Q = U1 PP,
 * X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - S1 PPP, ZZ3 = ZZ1 ZZ2 PP,
 * ZZZ3 = ZZZ1 ZZZ2 PPP. 12M + 2S, in pairs as xyzz_add_aff. Handles
 * infinity and b = +-acc.
 */
template <class F, class M = mul_call>
__device__ __forceinline__ void xyzz_add(xyzz_pt<F> &acc, const xyzz_pt<F> &b) {
    if (xyzz_is_inf(b)) return;
    if (xyzz_is_inf(acc)) {
        acc = b;
        return;
    }
    F u1, s1, p, r, pp, rr, ppp, q, t;
    M::mul2(u1, acc.x, b.zz, p, b.x, acc.zz);
    M::mul2(s1, acc.y, b.zzz, r, b.y, acc.zzz);
    sub(p, p, u1);
    sub(r, r, s1);
    if (is_zero(p)) {
        if (is_zero(r))
            xyzz_dbl(acc, b);
        else
            xyzz_set_inf(acc);
        return;
    }
    M::sqr2(pp, p, rr, r);
    M::mul2(ppp, p, pp, q, u1, pp);
    M::mul2(acc.zz, acc.zz, b.zz, acc.zzz, acc.zzz, b.zzz);
    M::mul2(acc.zz, acc.zz, pp, acc.zzz, acc.zzz, ppp);
    sub(t, rr, ppp);
    sub(t, t, q);
    sub(acc.x, t, q);
    sub(t, q, acc.x);
    M::mul2(t, r, t, ppp, s1, ppp);
    sub(acc.y, t, ppp);
}

} /* namespace cuzk_gpu */

#endif /* CUZK_GPU_EC_CUH */
