/*
 * ff_field.cuh — the fields of the device arithmetic (ff.cuh): Fr's and Fp's
 * parameters split into 32-bit limbs from the host's constants, the
 * elements (fe<P>, fp2_t) and the additive operations (set, compare, add,
 * sub, negate, one conditional subtraction); and pseudo-random words for
 * test and benchmark data.
 */
#ifndef CUZK_GPU_FF_FIELD_CUH
#define CUZK_GPU_FF_FIELD_CUH

#include <stdint.h>

#include "ff/bls12_381_consts.h"
#include "gpu/ff_ptx.cuh"

namespace cuzk_gpu {

/* ---- pseudo-random words (test and benchmark data) ------------------------------ */

/* splitmix64's output function (the caller steps the state by
 * 0x9e3779b97f4a7c15) */
__device__ __forceinline__ uint64_t splitmix64_out(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
/* A pseudo-random word of key x: one splitmix64 step from x. */
__device__ __forceinline__ uint32_t mix32(uint64_t x) {
    return (uint32_t)splitmix64_out(x + 0x9e3779b97f4a7c15ULL);
}

/* ---- field parameters, split from the host's 64-bit constants ------------ */

/* 32-bit limb i of a little-endian array of 64-bit words. */
template <int W>
__host__ __device__ constexpr uint32_t limb32(const uint64_t (&w)[W], int i) {
    return (uint32_t)(w[i >> 1] >> ((i & 1) * 32));
}

/*
 * The host's n0 = -m^-1 mod 2^64; its low 32 bits are -m^-1 mod 2^32, the
 * constant a 32-bit Montgomery reduction needs. The limb accessors are
 * constexpr and are called with indices that are constant after unrolling,
 * so the values end up as immediates (no memory, no local array).
 */
struct fr_params {
    static constexpr int N = 8;
    static constexpr uint32_t n0 = (uint32_t)CUZK__FR_N0;
    __host__ __device__ static constexpr uint32_t mod(int i) {
        constexpr uint64_t w[4] = CUZK__FR_R;
        return limb32(w, i);
    }
    __host__ __device__ static constexpr uint32_t one(int i) {
        constexpr uint64_t w[4] = CUZK__FR_ONE;
        return limb32(w, i);
    }
    __host__ __device__ static constexpr uint32_t r3(int i) { /* R^3 mod m */
        constexpr uint64_t w[4] = CUZK__FR_R3;
        return limb32(w, i);
    }
};

struct fp_params {
    static constexpr int N = 12;
    static constexpr uint32_t n0 = (uint32_t)CUZK__FP_N0;
    __host__ __device__ static constexpr uint32_t mod(int i) {
        constexpr uint64_t w[6] = CUZK__FP_P;
        return limb32(w, i);
    }
    __host__ __device__ static constexpr uint32_t one(int i) {
        constexpr uint64_t w[6] = CUZK__FP_ONE;
        return limb32(w, i);
    }
    __host__ __device__ static constexpr uint32_t r3(int i) { /* R^3 mod m */
        constexpr uint64_t w[6] = CUZK__FP_R3;
        return limb32(w, i);
    }
};

/* The split is right only if m*n0 = -1 mod 2^32; the kernels need a spare bit. */
static_assert((uint32_t)(fr_params::mod(0) * fr_params::n0) == 0xffffffffu, "Fr n0");
static_assert((uint32_t)(fp_params::mod(0) * fp_params::n0) == 0xffffffffu, "Fp n0");
static_assert(fr_params::mod(fr_params::N - 1) < 0x80000000u, "Fr needs a spare top bit");
static_assert(fp_params::mod(fp_params::N - 1) < 0x80000000u, "Fp needs a spare top bit");

/* ---- elements ------------------------------------------------------------ */

template <class P>
struct __align__(16) fe {
    uint32_t v[P::N];
};
typedef fe<fr_params> fr_t;
typedef fe<fp_params> fp_t;

struct __align__(16) fp2_t {
    fp_t c0, c1;
};

static_assert(sizeof(fr_t) == 32 && sizeof(fp_t) == 48 && sizeof(fp2_t) == 96,
              "device elements must match the host's cuzk_fr/cuzk_fp/cuzk_fp2");

template <class P>
__device__ __forceinline__ void set_zero(fe<P> &r) {
#pragma unroll
    for (int i = 0; i < P::N; i++) r.v[i] = 0;
}

template <class P>
__device__ __forceinline__ void set_one(fe<P> &r) {
#pragma unroll
    for (int i = 0; i < P::N; i++) r.v[i] = P::one(i);
}

/* a == b for canonical elements */
template <class P>
__device__ __forceinline__ bool fe_equal(const fe<P> &a, const fe<P> &b) {
    uint32_t t = 0;
#pragma unroll
    for (int i = 0; i < P::N; i++) t |= a.v[i] ^ b.v[i];
    return t == 0;
}

/* r = t < m ? t : t - m, for t < 2m (N limbs). Constant-time select. */
template <class P>
__device__ __forceinline__ void reduce_once(fe<P> &r, const uint32_t (&t)[P::N]) {
    constexpr int N = P::N;
    uint32_t u[N];
    u[0] = sub_cc(t[0], P::mod(0));
#pragma unroll
    for (int i = 1; i < N; i++) u[i] = subc_cc(t[i], P::mod(i));
    const uint32_t keep = subc(0, 0); /* all ones when t - m borrowed, i.e. t < m */
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = (t[i] & keep) | (u[i] & ~keep);
}

/* reduce_once, or for LAZY (a product without its final subtraction:
 * mul_lazy, sqr_lazy) t as it is. */
template <bool LAZY, class P>
__device__ __forceinline__ void reduce_unless(fe<P> &r, const uint32_t (&t)[P::N]) {
    if constexpr (LAZY) {
#pragma unroll
        for (int j = 0; j < P::N; j++) r.v[j] = t[j];
    } else {
        reduce_once(r, t);
    }
}

/* r = a + b with no reduction, for a + b < 2^(32N): a product's lazy
 * operand (canonical a, b give r < 2m). */
template <class P>
__device__ __forceinline__ void add_noreduce(fe<P> &r, const fe<P> &a, const fe<P> &b) {
    constexpr int N = P::N;
    r.v[0] = add_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.v[i] = addc_cc(a.v[i], b.v[i]);
    r.v[N - 1] = addc(a.v[N - 1], b.v[N - 1]);
}

/* r = a + b mod m: the sum (a + b < 2m < 2^(32N), no carry out), then one
 * conditional subtraction. */
template <class P>
__device__ __forceinline__ void add(fe<P> &r, const fe<P> &a, const fe<P> &b) {
    fe<P> t;
    add_noreduce(t, a, b);
    reduce_once(r, t.v);
}

/* r = a - b mod m: subtract, then add m back under the borrow mask. */
template <class P>
__device__ __forceinline__ void sub(fe<P> &r, const fe<P> &a, const fe<P> &b) {
    constexpr int N = P::N;
    uint32_t t[N];
    t[0] = sub_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N; i++) t[i] = subc_cc(a.v[i], b.v[i]);
    const uint32_t mask = subc(0, 0); /* all ones when a < b */
    r.v[0] = add_cc(t[0], P::mod(0) & mask);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.v[i] = addc_cc(t[i], P::mod(i) & mask);
    r.v[N - 1] = addc(t[N - 1], P::mod(N - 1) & mask);
}

/* r = m - a for a <= m: -a with no zero test (0 gives m, which a lazy value
 * may be). */
template <class P>
__device__ __forceinline__ void neg_lazy(fe<P> &r, const fe<P> &a) {
    constexpr int N = P::N;
    r.v[0] = sub_cc(P::mod(0), a.v[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.v[i] = subc_cc(P::mod(i), a.v[i]);
    r.v[N - 1] = subc(P::mod(N - 1), a.v[N - 1]);
}

/* r = -a mod m (0 stays 0): m - a, masked to 0 for a = 0. */
template <class P>
__device__ __forceinline__ void neg(fe<P> &r, const fe<P> &a) {
    constexpr int N = P::N;
    uint32_t nz = 0;
#pragma unroll
    for (int i = 0; i < N; i++) nz |= a.v[i];
    const uint32_t mask = 0u - (uint32_t)(nz != 0);
    fe<P> t;
    neg_lazy(t, a);
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = t.v[i] & mask;
}

} /* namespace cuzk_gpu */

#endif /* CUZK_GPU_FF_FIELD_CUH */
