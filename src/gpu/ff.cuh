/*
 * ff.cuh — device arithmetic for BLS12-381's Fr and Fp (and Fp2 over Fp),
 * one template text for both prime fields.
 *
 * Representation: N little-endian 32-bit limbs (Fr 8, Fp 12) holding x*R mod m
 * with the host's R (2^256, 2^384), fully reduced (< m). Byte for byte this is
 * the host's cuzk_fr / cuzk_fp (4 or 6 little-endian 64-bit limbs), so device
 * buffers and host arrays are copied without conversion (gpu.h).
 *
 * Contract of every function: inputs fully reduced, outputs fully reduced,
 * outputs may alias inputs, the modulus has a spare top bit (m < 2^(32N-1)).
 * No branch or memory index depends on the values, with one exception:
 * inv_var's number of rounds (public values only, as its name says).
 *
 * Carry chains are PTX inline asm (add.cc/addc, sub.cc/subc, mad.lo.cc/
 * madc.hi.cc). The carry flag lives between asm statements, so each is
 * volatile (keeps order) and nothing between the statements of one chain
 * may be a carry-writing instruction: only plain moves and 32-bit
 * multiplies appear there, never 64- or 128-bit integer arithmetic.
 */
#ifndef CUZK_GPU_FF_CUH
#define CUZK_GPU_FF_CUH

#include <stdint.h>

#include "ff/bls12_381_consts.h"

namespace cuzk_gpu {

/* ---- host model ------------------------------------------------------------
 *
 * With CUZK_GPU_HOST_MODEL defined, a C++ host compiler runs this text as is:
 * the CUDA qualifiers and the intrinsics used here get host meanings and the
 * carry flag becomes a variable (below). tests/unit/gpu_ff_model.cpp and
 * test_gpu_ff_model.c compare every multiplier with the CPU field that way,
 * so CI, which has no GPU, checks the device arithmetic's carry chains too.
 */
#if defined(CUZK_GPU_HOST_MODEL)
#define __device__
#define __host__
#define __forceinline__ inline
#define __align__(n) alignas(n)
static inline uint32_t __umulhi(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)a * b) >> 32);
}
static inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t s) {
    s &= 31;
    return s == 0 ? hi : (hi << s) | (lo >> (32 - s));
}
static inline uint32_t __funnelshift_r(uint32_t lo, uint32_t hi, uint32_t s) {
    s &= 31;
    return s == 0 ? lo : (lo >> s) | (hi << (32 - s));
}
static inline int __clz(uint32_t x) { return x ? __builtin_clz(x) : 32; }
#endif

/* ---- PTX carry-chain primitives ------------------------------------------ */

#if defined(CUZK_GPU_HOST_MODEL)
/* PTX's CC.CF: add sets it to the carry, sub to the borrow; the c forms
 * consume it; a form without .cc leaves it as it was. */
inline uint32_t &host_cf() {
    static thread_local uint32_t cf;
    return cf;
}
#define CUZK__HOST_OP(name, expr, sets)                                       \
    inline uint32_t name(uint32_t a, uint32_t b, uint32_t c = 0) {            \
        (void)c;                                                              \
        const uint64_t r = (expr);                                            \
        if (sets) host_cf() = (uint32_t)(r >> 32) & 1u;                       \
        return (uint32_t)r;                                                   \
    }
#define CUZK__WIDE(a, b) ((uint64_t)(a) * (uint64_t)(b))
CUZK__HOST_OP(add_cc, (uint64_t)a + b, true)
CUZK__HOST_OP(addc_cc, (uint64_t)a + b + host_cf(), true)
CUZK__HOST_OP(addc, (uint64_t)a + b + host_cf(), false)
CUZK__HOST_OP(sub_cc, (uint64_t)a - b, true)
CUZK__HOST_OP(subc_cc, (uint64_t)a - b - host_cf(), true)
CUZK__HOST_OP(subc, (uint64_t)a - b - host_cf(), false)
CUZK__HOST_OP(mad_lo_cc, (CUZK__WIDE(a, b) & 0xffffffffu) + c, true)
CUZK__HOST_OP(madc_lo_cc, (CUZK__WIDE(a, b) & 0xffffffffu) + c + host_cf(), true)
CUZK__HOST_OP(mad_hi_cc, (CUZK__WIDE(a, b) >> 32) + c, true)
CUZK__HOST_OP(madc_hi_cc, (CUZK__WIDE(a, b) >> 32) + c + host_cf(), true)
CUZK__HOST_OP(madc_hi, (CUZK__WIDE(a, b) >> 32) + c + host_cf(), false)
#undef CUZK__HOST_OP
#undef CUZK__WIDE
#else
#define CUZK__PTX2(name, op)                                                  \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) {        \
        uint32_t r;                                                           \
        asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));           \
        return r;                                                             \
    }
#define CUZK__PTX3(name, op)                                                  \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
        uint32_t r;                                                           \
        asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); \
        return r;                                                             \
    }

CUZK__PTX2(add_cc, "add.cc.u32")   /* a + b, carry out */
CUZK__PTX2(addc_cc, "addc.cc.u32") /* a + b + carry, carry out */
CUZK__PTX2(addc, "addc.u32")       /* a + b + carry */
CUZK__PTX2(sub_cc, "sub.cc.u32")   /* a - b, borrow out */
CUZK__PTX2(subc_cc, "subc.cc.u32") /* a - b - borrow, borrow out */
CUZK__PTX2(subc, "subc.u32")       /* a - b - borrow */
CUZK__PTX3(mad_lo_cc, "mad.lo.cc.u32")   /* lo(a*b) + c, carry out */
CUZK__PTX3(madc_lo_cc, "madc.lo.cc.u32") /* lo(a*b) + c + carry, carry out */
CUZK__PTX3(mad_hi_cc, "mad.hi.cc.u32")   /* hi(a*b) + c, carry out */
CUZK__PTX3(madc_hi_cc, "madc.hi.cc.u32") /* hi(a*b) + c + carry, carry out */
CUZK__PTX3(madc_hi, "madc.hi.u32")       /* hi(a*b) + c + carry */

#undef CUZK__PTX2
#undef CUZK__PTX3
#endif /* CUZK_GPU_HOST_MODEL */

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

/*
 * Does m end in the 32-bit limbs 1, 2^32-1 (m = 2^64 - 2^32 + 1 mod 2^64)?
 * BLS12-381's r does, its p does not. Then n0 = -1, q = -t[0], and the two
 * lowest products of a reduction step need no multiplier (cios_reduce,
 * redc_parity_row).
 */
template <class P>
__host__ __device__ constexpr bool low_limbs_1_ffffffff() {
    return P::mod(0) == 1u && P::mod(1) == 0xffffffffu;
}
static_assert(low_limbs_1_ffffffff<fr_params>() && fr_params::n0 == 0xffffffffu, "Fr's r");
static_assert(!low_limbs_1_ffffffff<fp_params>(), "Fp keeps the generic step");

/*
 * r = a * b * 2^(-32N) mod m: CIOS Montgomery multiplication (Koc, Acar,
 * Kaliski, "Analyzing and comparing Montgomery multiplication algorithms",
 * 1996) with 32-bit words. Row i adds a*b[i] and q*m (q = the window's
 * column 0 times n0) and divides by 2^32. 4N^2 + N multiply-adds (PTX
 * mad/mul, a product's low and high halves counted apart): Fp 588; Fr 224,
 * its reduction steps being cheaper (Fr's low limbs of m: cios_reduce).
 *
 * Accumulators per parity (the register pairs at mac_low): the window T is
 * E + O 2^32 with E[k] = column k and O[k] = column k + 1, so the pairs of
 * even limbs (of a, of m) add to E and those of odd limbs to O, each on
 * aligned register pairs (one IMAD.WIDE per pair, no moves: with one
 * window array that shifts a word per row, every second pair was
 * misaligned; doc/perf.md session 17: Fr -2% on the NTT, Fp -4% on the G1
 * MSM). A row's division by 2^32 renames: the new E is O; the new O is E
 * shifted down two words (even, so pairs stay aligned), which the row's
 * first chain (a's odd limbs) takes as its addends; E[1], column 0 of the
 * new window, is added to the new E[0] first and its carry enters that
 * chain. The carry out of an E chain (column N) goes to O[N-1] (an addc);
 * no O chain carries out, as each accumulator is at most the whole window.
 *
 * Bound: before a row T < 2m; T + a*b[i] + q*m < 2m + 2(2^32-1)m < 2^33 m
 * < 2^(32N+32) since m < 2^(32N-1), so columns 0..N hold it and the
 * shifted result is again < 2m. Column 0, hence q, is the same value as in
 * a one-array CIOS, so the results are those bits (lazy bounds included).
 * R = 2^(32N) equals the host's 2^(64 n).
 */

/* First carry-chain operation (in = false) or a later one. */
__device__ __forceinline__ uint32_t chain_lo(bool in, uint32_t x, uint32_t y, uint32_t acc) {
    return in ? madc_lo_cc(x, y, acc) : mad_lo_cc(x, y, acc);
}

/* E += x y(j) for the even j >= j0 (pairs on columns j, j + 1): one chain,
 * which continues the caller's carry when IN; its carry out of column N-1
 * goes to O[N-1] (column N). */
template <int N, class Y>
__device__ __forceinline__ void cios_even_pairs(uint32_t (&e)[N], uint32_t (&o)[N], uint32_t x, Y y,
                                                int j0, bool in) {
#pragma unroll
    for (int j = j0; j < N; j += 2) {
        e[j] = chain_lo(in, x, y(j), e[j]);
        in = true;
        e[j + 1] = madc_hi_cc(x, y(j), e[j + 1]);
    }
    o[N - 1] = addc(o[N - 1], 0);
}

/* The new O of a row's renaming: E shifted down two words (O'[k] =
 * E[k+2]) plus x y(j) for the odd j >= j1 (pairs on O'[j-1], O'[j]), one
 * chain that takes the caller's carry (the renaming's add) and carries out
 * nothing (the window's bound). */
template <int N, class Y>
__device__ __forceinline__ void cios_odd_pairs_shifted(uint32_t (&no)[N], const uint32_t (&e)[N],
                                                       uint32_t x, Y y, int j1) {
#pragma unroll
    for (int j = j1; j < N; j += 2) {
        no[j - 1] = madc_lo_cc(x, y(j), j + 1 < N ? e[j + 1] : 0u);
        no[j] = j + 2 < N ? madc_hi_cc(x, y(j), e[j + 2]) : madc_hi(x, y(j), 0u);
    }
}

/* E += q m's even limbs, the carry into O[N-1] (Fr: q m(0) = q by an add,
 * whose sum E[0] + q is 0 mod 2^32 and only its carry is kept). */
template <class P>
__device__ __forceinline__ void cios_even_qm(uint32_t (&e)[P::N], uint32_t (&o)[P::N], uint32_t q) {
    auto m = [](int j) { return P::mod(j); };
    if constexpr (low_limbs_1_ffffffff<P>()) {
        (void)add_cc(e[0], q); /* carry [E[0] != 0] */
        e[1] = addc_cc(e[1], 0);
        cios_even_pairs<P::N>(e, o, q, m, 2, true);
    } else {
        cios_even_pairs<P::N>(e, o, q, m, 0, false);
    }
}

/*
 * T += q m with q = column 0 times n0: column 0's sum is 0 mod 2^32 and
 * only its carry is kept (E[0] is not read again: the next row and
 * cios_done start at E[1]; Fr's branch leaves it unwritten).
 *
 * Fr's low limbs 1, 2^32 - 1 take adds for the same q m, so every window
 * value is the generic step's: with t0 = column 0, n0 = -1 gives q = -t0
 * mod 2^32, and
 *   q m(0) = q, and t0 + q = [t0 != 0] 2^32 exactly: an add whose sum is
 *     dropped, only its carry kept;
 *   q m(1) = q (2^32 - 1) = t0 + h 2^32 exactly, h = q - [t0 != 0] (q = 0:
 *     both sides 0; else q 2^32 - q = (q - 1) 2^32 + (2^32 - q) with
 *     2^32 - q = t0 and q - 1 = ~t0): t0 is added at column 1 and h at
 *     column 2, both below 2^32, ordinary chain operands like a product's
 *     low and high words;
 *   q m(j), j >= 2: products, as for any modulus.
 * That is 2(N-2) multiply-adds instead of 2N for the row's q m.
 */
template <class P>
__device__ __forceinline__ void cios_reduce(uint32_t (&e)[P::N], uint32_t (&o)[P::N]) {
    constexpr int N = P::N;
    static_assert(N % 2 == 0 && N >= 4, "the chains take limbs in pairs");
    const uint32_t t0 = e[0], q = t0 * P::n0; /* Fr: n0 = -1, q = -t0 */
    cios_even_qm<P>(e, o, q);
    if constexpr (low_limbs_1_ffffffff<P>()) {
        const uint32_t h = t0 != 0u ? ~t0 : 0u;
        o[0] = add_cc(o[0], t0);
        o[1] = addc_cc(o[1], h);
    } else {
        o[0] = mad_lo_cc(q, P::mod(1), o[0]);
        o[1] = madc_hi_cc(q, P::mod(1), o[1]);
    }
#pragma unroll
    for (int j = 3; j < N; j += 2) {
        o[j - 1] = madc_lo_cc(q, P::mod(j), o[j - 1]);
        o[j] = j + 1 < N ? madc_hi_cc(q, P::mod(j), o[j]) : madc_hi(q, P::mod(j), o[j]);
    }
}

/* Row 0 on T = 0: the products of one parity do not overlap. */
template <class P>
__device__ __forceinline__ void cios_row0(uint32_t (&e)[P::N], uint32_t (&o)[P::N],
                                          const fe<P> &a, uint32_t bi) {
#pragma unroll
    for (int j = 0; j < P::N; j += 2) {
        e[j] = a.v[j] * bi;
        e[j + 1] = __umulhi(a.v[j], bi);
        o[j] = a.v[j + 1] * bi;
        o[j + 1] = __umulhi(a.v[j + 1], bi);
    }
    cios_reduce<P>(e, o);
}

/* Row i > 0: the previous row's division by 2^32, then a*b[i] and q*m. */
template <class P>
__device__ __forceinline__ void cios_row(uint32_t (&e)[P::N], uint32_t (&o)[P::N], const fe<P> &a,
                                         uint32_t bi) {
    constexpr int N = P::N;
    auto av = [&a](int j) { return a.v[j]; };
    uint32_t ne[N], no[N];
#pragma unroll
    for (int k = 0; k < N; k++) ne[k] = o[k];
    ne[0] = add_cc(ne[0], e[1]);
    cios_odd_pairs_shifted<N>(no, e, bi, av, 1); /* a's odd limbs */
    cios_even_pairs<N>(ne, no, bi, av, 0, false);
    cios_reduce<P>(ne, no);
#pragma unroll
    for (int k = 0; k < N; k++) {
        e[k] = ne[k];
        o[k] = no[k];
    }
}

/* r = T / 2^32 = O + E[1..N-1] (< 2m), reduced unless LAZY. */
template <class P, bool LAZY>
__device__ __forceinline__ void cios_done(fe<P> &r, const uint32_t (&e)[P::N],
                                          const uint32_t (&o)[P::N]) {
    constexpr int N = P::N;
    uint32_t t[N];
    t[0] = add_cc(o[0], e[1]);
#pragma unroll
    for (int k = 1; k < N - 1; k++) t[k] = addc_cc(o[k], e[k + 1]);
    t[N - 1] = addc(o[N - 1], 0);
    reduce_unless<LAZY>(r, t);
}

/* LAZY: without the final subtraction (mul_lazy: r < 2m for a < m). */
template <class P, bool LAZY = false>
__device__ __forceinline__ void mul_cios(fe<P> &r, const fe<P> &a, const fe<P> &b) {
    uint32_t e[P::N], o[P::N];
    cios_row0<P>(e, o, a, b.v[0]);
#pragma unroll
    for (int i = 1; i < P::N; i++) cios_row<P>(e, o, a, b.v[i]);
    cios_done<P, LAZY>(r, e, o);
}

/* r0 = a0 b0 and r1 = a1 b1 by CIOS, the rows of the two products
 * alternating (see mul_pair); LAZY as mul_cios's. */
template <class P, bool LAZY = false>
__device__ __forceinline__ void mul_pair_cios(fe<P> &r0, const fe<P> &a0, const fe<P> &b0,
                                              fe<P> &r1, const fe<P> &a1, const fe<P> &b1) {
    uint32_t e0[P::N], o0[P::N], e1[P::N], o1[P::N];
    cios_row0<P>(e0, o0, a0, b0.v[0]);
    cios_row0<P>(e1, o1, a1, b1.v[0]);
#pragma unroll
    for (int i = 1; i < P::N; i++) {
        cios_row<P>(e0, o0, a0, b0.v[i]);
        cios_row<P>(e1, o1, a1, b1.v[i]);
    }
    cios_done<P, LAZY>(r0, e0, o0);
    cios_done<P, LAZY>(r1, e1, o1);
}

/*
 * r = w R^-1 mod m for a 2N-word w = L + H 2^(32N) (sqr):
 * N Montgomery rows on the low half L alone in mul_cios's window, then the
 * high half H added. Row 0 is cios_reduce on E = L, O = 0; each later row
 * renames as cios_row does (E[1] added to the new E[0], its carry into the
 * odd chain of q m, which takes E shifted down two words as its addends),
 * then the even chain. Since L + Q m = 0 mod 2^(32N) for the Q the rows
 * pick, (w + Q m) / 2^(32N) = H + (L + Q m) / 2^(32N): the high words need
 * no carries through the rows.
 *
 * Bounds: V_0 = L < 2^(32N); a row adds q m < 2^32 m, so V + q m <
 * 2^(32N) + 2^(32N+31) < 2^(32(N+1)) fits columns 0..N, and V' = (V + q m)
 * / 2^32 < 2^(32N-32) + m < 2^(32N). After N rows V = (L + Q m) / 2^(32N)
 * < (2^(32N) + 2^(32N) m) / 2^(32N), so V <= m. For w = ab with a, b <= m-1
 * (a square too), H <= (m-1)^2 / 2^(32N) < m/2, so V + H < 2m < 2^(32N):
 * the final addition does not carry out and reduce_once's input is < 2m.
 */
template <class P>
__device__ __forceinline__ void redc_parity_row(uint32_t (&e)[P::N], uint32_t (&o)[P::N]) {
    constexpr int N = P::N;
    uint32_t ne[N], no[N];
#pragma unroll
    for (int k = 0; k < N; k++) ne[k] = o[k];
    ne[0] = add_cc(ne[0], e[1]);
    /* column 0 of the new window; the add's carry waits for the odd chain */
    const uint32_t t0 = ne[0], q = t0 * P::n0;
    auto m = [](int j) { return P::mod(j); };
    if constexpr (low_limbs_1_ffffffff<P>()) { /* q m(1) = t0 + h 2^32 (cios_reduce) */
        no[0] = addc_cc(e[2], t0);
        no[1] = addc_cc(e[3], t0 != 0u ? ~t0 : 0u);
        cios_odd_pairs_shifted<N>(no, e, q, m, 3);
    } else {
        cios_odd_pairs_shifted<N>(no, e, q, m, 1);
    }
    cios_even_qm<P>(ne, no, q);
#pragma unroll
    for (int k = 0; k < N; k++) {
        e[k] = ne[k];
        o[k] = no[k];
    }
}

/* Row 0: the window is the low half. */
template <class P>
__device__ __forceinline__ void redc_parity_row0(uint32_t (&e)[P::N], uint32_t (&o)[P::N],
                                                 const uint32_t (&w)[2 * P::N]) {
#pragma unroll
    for (int k = 0; k < P::N; k++) {
        e[k] = w[k];
        o[k] = 0;
    }
    cios_reduce<P>(e, o);
}

/* r = V + H, V = O + E[1..N-1] after the rows; reduced unless LAZY
 * (mul_lazy, sqr_lazy). */
template <class P, bool LAZY>
__device__ __forceinline__ void redc_parity_done(fe<P> &r, const uint32_t (&e)[P::N],
                                                 const uint32_t (&o)[P::N],
                                                 const uint32_t (&w)[2 * P::N]) {
    constexpr int N = P::N;
    fe<P> v;
    cios_done<P, true>(v, e, o);
    uint32_t s[N];
    s[0] = add_cc(v.v[0], w[N]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) s[j] = addc_cc(v.v[j], w[N + j]);
    s[N - 1] = addc(v.v[N - 1], w[2 * N - 1]);
    reduce_unless<LAZY>(r, s);
}

template <class P, bool LAZY>
__device__ __forceinline__ void redc_parity(fe<P> &r, const uint32_t (&w)[2 * P::N]) {
    uint32_t e[P::N], o[P::N];
    redc_parity_row0<P>(e, o, w);
#pragma unroll
    for (int i = 1; i < P::N; i++) redc_parity_row<P>(e, o);
    redc_parity_done<P, LAZY>(r, e, o, w);
}

/* Two of them with their rows alternating (for the pairs: mul_pair). */
template <class P>
__device__ __forceinline__ void redc_parity_pair(fe<P> &r0, const uint32_t (&w0)[2 * P::N],
                                                 fe<P> &r1, const uint32_t (&w1)[2 * P::N]) {
    uint32_t e0[P::N], o0[P::N], e1[P::N], o1[P::N];
    redc_parity_row0<P>(e0, o0, w0);
    redc_parity_row0<P>(e1, o1, w1);
#pragma unroll
    for (int i = 1; i < P::N; i++) {
        redc_parity_row<P>(e0, o0);
        redc_parity_row<P>(e1, o1);
    }
    redc_parity_done<P, false>(r0, e0, o0, w0);
    redc_parity_done<P, false>(r1, e1, o1, w1);
}

/* r = E + O 2^32 over W words (O: W - 1 words, O[k] = column k + 1), the
 * carry out of word W-1 dropped (the callers' sums fit W words, or are
 * taken mod 2^(32W)). */
template <int W>
__device__ __forceinline__ void join_parity(uint32_t (&r)[W], const uint32_t (&e)[W],
                                            const uint32_t (&o)[W - 1]) {
    r[0] = e[0];
    r[1] = add_cc(e[1], o[0]);
#pragma unroll
    for (int k = 2; k < W - 1; k++) r[k] = addc_cc(e[k], o[k - 1]);
    r[W - 1] = addc(e[W - 1], o[W - 2]);
}

/*
 * A product of L-limb operands (2L columns) with an accumulator per parity
 * (the register pairs at mac_low): E for the (low, high) pairs starting on
 * even columns, O for the odd ones, a word down, so that every pair is an
 * aligned register pair; w = E + O 2^32 at the end (join_parity). sqr's
 * cross products use it.
 */
template <int L>
struct wide_parity {
    uint32_t e[2 * L];     /* e[k]: column k */
    uint32_t o[2 * L - 1]; /* o[k]: column k + 1 */
};

/* Row i's chain x y(j) over j = j0, j0+2, ... <= L-1 (pairs on columns
 * i+j, i+j+1), in the accumulator of column i + j0's parity. The chain
 * that holds j = L-1 ends at column i+L; the other ends at column i+L-1
 * and carries into column i+L. Bound: each accumulator is at most the sum,
 * which after row i is below 2^(32(i+1+L)) (the callers' rows), so no
 * carry leaves column i+L. */
template <int L, class Y>
__device__ __forceinline__ void wide_chain(wide_parity<L> &c, uint32_t x, Y y, int i, int j0) {
    const bool even = (i + j0) % 2 == 0, reaches_top = ((L - 1 - j0) & 1) == 0;
    const int last = reaches_top ? L - 1 : L - 2;
    auto at = [&](int col) -> uint32_t & { return even ? c.e[col] : c.o[col - 1]; };
#pragma unroll
    for (int j = j0; j <= last; j += 2) {
        at(i + j) = chain_lo(j != j0, x, y(j), at(i + j));
        at(i + j + 1) = j == last && reaches_top ? madc_hi(x, y(j), at(i + j + 1))
                                                 : madc_hi_cc(x, y(j), at(i + j + 1));
    }
    if (!reaches_top) at(i + L) = addc(at(i + L), 0);
}

/* Row 0 on zero accumulators: x y(j) for j >= j0, no two of one parity
 * overlapping, so they are set without carries. */
template <int L, class Y>
__device__ __forceinline__ void wide_row0(wide_parity<L> &c, uint32_t x, Y y, int j0) {
#pragma unroll
    for (int k = 0; k < 2 * L; k++) c.e[k] = 0;
#pragma unroll
    for (int k = 0; k < 2 * L - 1; k++) c.o[k] = 0;
#pragma unroll
    for (int j = j0; j < L; j++) {
        uint32_t &lo = j % 2 == 0 ? c.e[j] : c.o[j - 1], &hi = j % 2 == 0 ? c.e[j + 1] : c.o[j];
        lo = x * y(j);
        hi = __umulhi(x, y(j));
    }
}

/* r = a * b * 2^(-32N) mod m (mul_cios). */
template <class P>
__device__ __forceinline__ void mul(fe<P> &r, const fe<P> &a, const fe<P> &b) {
    mul_cios<P>(r, a, b);
}

/*
 * Lazy forms: values kept in [0, 2m) instead of [0, m), for a field whose 2m
 * fits N words, so that a product needs no final conditional subtraction:
 * the NTT's butterflies (Fr, 2r < 2^256) reduce once per element at the end
 * of a transform, G1's mixed additions (Fp, 8p < 2^384) once per stored
 * point.
 *
 * mul_lazy: r = a b R^-1 mod m by CIOS without the final subtraction, so
 * r = (ab + Qm)/R < ab/R + m. A row keeps t < a + m whatever the 32-bit
 * limb of b (the argument at mul_cios with a + m in place of 2m), which
 * must fit N words: for Fr, whose 2m is close to R, a must be canonical,
 * and then any N-word b gives r < 2m (b is the operand split into limbs, so
 * it is the lazy one); for Fp (m < 2^(32N-3)), a, b < 2m give t < 3m and,
 * as 4m^2/R < m/2, r < 1.5m: [0, 2m) is closed under the product.
 */
template <class P>
__host__ __device__ constexpr uint32_t mod2(int i) { /* limb i of 2m */
    return (P::mod(i) << 1) | (i ? P::mod(i - 1) >> 31 : 0u);
}

template <class P>
__device__ __forceinline__ void mul_lazy(fe<P> &r, const fe<P> &a, const fe<P> &b) {
    static_assert(P::mod(P::N - 1) < 0x80000000u, "2m must fit N words");
    mul_cios<P, true>(r, a, b);
}

/* r = a + b mod m in [0, 2m), for a, b < 2m: the N-word sum with its carry
 * c (a + b < 4m may pass 2^(32N)), then 2m subtracted unless the sum is
 * below 2m. The subtraction borrows out of the N words exactly when
 * c + (sum mod 2^(32N)) < 2m would need the carry: keep = c - borrow is
 * all ones only for c = 0 with a borrow (sum < 2m); c = 1 without a borrow
 * would mean a sum >= 2^(32N) + 2m > 4m, impossible. */
template <class P>
__device__ __forceinline__ void add_lazy(fe<P> &r, const fe<P> &a, const fe<P> &b) {
    constexpr int N = P::N;
    uint32_t t[N], u[N];
    t[0] = add_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N; i++) t[i] = addc_cc(a.v[i], b.v[i]);
    const uint32_t c = addc(0, 0);
    u[0] = sub_cc(t[0], mod2<P>(0));
#pragma unroll
    for (int i = 1; i < N; i++) u[i] = subc_cc(t[i], mod2<P>(i));
    const uint32_t keep = subc(c, 0);
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = (t[i] & keep) | (u[i] & ~keep);
}

/* r = a - b mod m in [0, 2m), for a, b < 2m: 2m added back under the
 * borrow (a - b > -2m). sub's text with 2m for m, kept apart: one template
 * taking the constant as a parameter changed ptxas's allocation of the G1
 * combine kernel (416 -> 624 bytes of spill stores, sm_90, CUDA 13.0). */
template <class P>
__device__ __forceinline__ void sub_lazy(fe<P> &r, const fe<P> &a, const fe<P> &b) {
    constexpr int N = P::N;
    uint32_t t[N];
    t[0] = sub_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N; i++) t[i] = subc_cc(a.v[i], b.v[i]);
    const uint32_t mask = subc(0, 0);
    r.v[0] = add_cc(t[0], mod2<P>(0) & mask);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.v[i] = addc_cc(t[i], mod2<P>(i) & mask);
    r.v[N - 1] = addc(t[N - 1], mod2<P>(N - 1) & mask);
}

/* r = a + (m - b) for b <= m and a + m < 2^(32N): a - b as a lazy value
 * with no conditional step (canonical a, b give r in (0, 2m)). */
template <class P>
__device__ __forceinline__ void sub_plus_m(fe<P> &r, const fe<P> &a, const fe<P> &b) {
    fe<P> t;
    neg_lazy(t, b);
    add_noreduce(r, a, t);
}

/* The canonical value of a lazy one (a < 2m). */
template <class P>
__device__ __forceinline__ void reduce_lazy(fe<P> &r, const fe<P> &a) {
    reduce_once(r, a.v);
}

/* Is a lazy value (a < 2m) zero mod m, i.e. 0 or m? */
template <class P>
__device__ __forceinline__ bool is_zero_lazy(const fe<P> &a) {
    uint32_t z = 0, e = 0;
#pragma unroll
    for (int i = 0; i < P::N; i++) {
        z |= a.v[i];
        e |= a.v[i] ^ P::mod(i);
    }
    return z == 0 || e == 0;
}

/*
 * Products by a constant with a precomputed quotient (V. Shoup's trick, as
 * D. Harvey uses it for NTT butterflies, "Faster arithmetic for
 * number-theoretic transforms", 2014), for the NTT's twiddles.
 *
 * A constant c (plain, 0 < c < m) travels with cq = floor(c 2^(32N) / m),
 * N words. For a < 2m (a lazy value),
 *   q' = the high half of a cq from its upper columns (shoup_high),
 *   r  = a c - q' m, taken mod 2^(32N),
 * is a c mod m in [0, 2m), with no Montgomery reduction. With
 * d = c 2^(32N)/m - cq in [0, 1), q_true = floor(a cq / 2^(32N)) and
 * f = frac(a cq / 2^(32N)),
 *   r/m = (q_true + f) - q' + a d / 2^(32N),  a d / 2^(32N) < a / 2^(32N) < 2m / 2^(32N).
 * shoup_high drops the products below column N-1 (less than 2^(32(N-1)+4)
 * for N = 8): q' is q_true, and r/m < 1 + 2m/2^(32N), or q_true - 1 when the
 * dropped part crossed an integer, and then f < 2^-28, r/m < 1 + 2^-28 +
 * 2m/2^(32N). Both are below 2 for Fr (2m/2^256 = 0.906), so r < 2m < 2^256:
 * the N-word difference is exact and lazy-reduced, like mul_lazy's. (Unlike
 * mul_lazy's limb-split operand, a must be below 2m, not any N-word value.)
 *
 * PTX multiply-adds for Fr, a product's halves apart: 79 for q', 64 for the
 * low half of a c, 36 for that of q' (2^256 - r) (limb 0 by adds, limb 1
 * zero): 179, against CIOS's 224, and the chains of q' and of a c are
 * independent (CIOS's rows each wait for the one before): the NTT's passes
 * after the first use it (ntt.cu; doc/perf.md, session 16). Fr only (the
 * static_assert in mul_shoup_lazy).
 *
 * The constant is c itself, not c R: for a = x R, a c = (x c) R, the same
 * Montgomery value that mul(c R, a) gives, mod m.
 */
template <class P>
__host__ __device__ constexpr uint32_t neg_mod(int i) { /* limb i of 2^(32N) - m (m odd) */
    return i == 0 ? 0u - P::mod(0) : ~P::mod(i);
}

/*
 * Register pairs. ptxas fuses a (mad.lo, madc.hi) pair of one product into
 * one IMAD.WIDE.U32(.X) only when the two words it adds to are an aligned
 * register pair; a pair that starts on an odd word of its accumulator costs
 * moves on the multiply pipe instead (the NTT's census, doc/perf.md session
 * 17: 86 IMAD.MOV per product when one accumulator took both parities).
 * So the products below keep one accumulator per parity of the column a
 * pair starts on: E holds the columns as they are, O the pairs that start
 * on odd columns, shifted down one word (O[k] = column k + 1), and the two
 * are added once at the end, by ALU additions.
 */

/*
 * s += x * y(j) 2^(32(i+j)) mod 2^(32N) for j = j0, j0+2, ... (i + j < N):
 * one carry chain of (low, high) pairs on columns (i+j, i+j+1), stored at
 * s[column - OFF] (OFF = 1: the O accumulator, N-1 words), the high half of
 * the last one dropped where it would land on column N. Every such chain
 * ends on column N-1, so no carry is lost that the sum mod 2^(32N) needs.
 */
template <int N, int OFF, class Y>
__device__ __forceinline__ void mac_low(uint32_t (&s)[N - OFF], uint32_t x, Y y, int i, int j0) {
    bool in = false;
#pragma unroll
    for (int j = j0; j < N - i; j += 2) {
        s[i + j - OFF] = chain_lo(in, x, y(j), s[i + j - OFF]);
        in = true;
        if (i + j + 1 < N) s[i + j + 1 - OFF] = madc_hi_cc(x, y(j), s[i + j + 1 - OFF]);
    }
}

/* Row i of a product mod 2^(32N), both parities: into E the pairs that
 * start on even columns, into O the odd ones. */
template <int N, class Y>
__device__ __forceinline__ void mac_low_row(uint32_t (&e)[N], uint32_t (&o)[N - 1], uint32_t x, Y y,
                                            int i, int j0) {
    if ((i + j0) % 2 == 0) {
        mac_low<N, 0>(e, x, y, i, j0);
        mac_low<N, 1>(o, x, y, i, j0 + 1);
    } else {
        mac_low<N, 1>(o, x, y, i, j0);
        mac_low<N, 0>(e, x, y, i, j0 + 1);
    }
}

/*
 * q = the words N .. 2N-1 of a * cq from its products at columns >= N-1
 * only. Row i (limb a_i) adds the high half of a_i cq_(N-2-i) at column N-1
 * (for i <= N-2) and the whole a_i cq_j, j >= N-1-i, in two chains by the
 * parity of the column a pair starts on: chain X's pairs start on columns
 * N-1, N+1, ... and go to t (t[k] = column N-1+k), chain Y (that high half,
 * then the pairs from column N) to z (column N-1) and u (u[k] = column N+k).
 * The window after row i is at most a_0..i * cq / 2^(32(N-1)) <
 * 2^(32(i+2)), and each of X and Y is at most the window, so each chain's
 * carry stops at column N+i (an addc where the chain's last pair ends
 * below it). The two are added at the end.
 */
template <class P>
__device__ __forceinline__ void shoup_high(uint32_t (&q)[P::N], const fe<P> &a,
                                           const uint32_t (&cq)[P::N]) {
    constexpr int N = P::N;
    uint32_t t[N + 1], u[N], z = 0;
#pragma unroll
    for (int k = 0; k <= N; k++) t[k] = 0;
#pragma unroll
    for (int k = 0; k < N; k++) u[k] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        const uint32_t x = a.v[i];
        int top = 0;
        bool in = false;
#pragma unroll
        for (int o = 0; o <= i; o += 2) { /* chain X: j = N - 1 - i + o, o even */
            t[o] = chain_lo(in, x, cq[N - 1 - i + o], t[o]);
            in = true;
            t[o + 1] = madc_hi_cc(x, cq[N - 1 - i + o], t[o + 1]);
            top = o + 1;
        }
        if (top < i + 1) t[i + 1] = addc(t[i + 1], 0);
        in = false; /* chain Y, on z and u (column N-1+o is u[o-1]) */
        if (i <= N - 2) {
            z = mad_hi_cc(x, cq[N - 2 - i], z);
            in = true;
        }
        top = 0;
#pragma unroll
        for (int o = 1; o <= i; o += 2) {
            u[o - 1] = chain_lo(in, x, cq[N - 1 - i + o], u[o - 1]);
            in = true;
            u[o] = madc_hi_cc(x, cq[N - 1 - i + o], u[o]);
            top = o + 1;
        }
        if (in && top < i + 1) u[i] = addc(u[i], 0);
    }
    (void)add_cc(t[0], z); /* column N-1: only its carry */
#pragma unroll
    for (int k = 1; k < N; k++) q[k - 1] = addc_cc(t[k], u[k - 1]);
    q[N - 1] = addc(t[N], u[N - 1]);
}

/* r = a c mod m in [0, 2m) for a < 2m and the constant (c, cq) above: the
 * window's q', then a c + q' (2^(32N) - m) mod 2^(32N) (= a c - q' m), row
 * by row (row i of a c, then row i of q'), into the E and O accumulators. */
template <class P>
__device__ __forceinline__ void mul_shoup_lazy(fe<P> &r, const fe<P> &a, const fe<P> &c,
                                               const fe<P> &cq) {
    constexpr int N = P::N;
    static_assert(P::mod(N - 1) < 0x80000000u, "2m must fit N words");
    /* q' (2^256 - r): Fr's limbs 0 and 1 of 2^256 - r are 2^32 - 1 and 0, so
     * limb 0's row is q' (2^32 - 1) = (q' << 32) - q', an add and a subtract
     * chain (15 ALU operations instead of 15 multiply-adds, which take the
     * pipe the products contend for: doc/perf.md, session 16), and the rows
     * of q' start at limb 2 */
    static_assert(neg_mod<P>(0) == 0xffffffffu && neg_mod<P>(1) == 0u,
                  "the low limbs of Fr's 2^256 - r");
    uint32_t q[N];
    shoup_high<P>(q, a, cq.v);
    auto cv = [&c](int j) { return c.v[j]; };
    auto nm = [](int j) { return neg_mod<P>(j); };
    uint32_t e[N], o[N - 1];
    /* row 0 of a c: no two of its products of one parity overlap */
#pragma unroll
    for (int j = 0; j < N; j += 2) {
        e[j] = a.v[0] * c.v[j];
        e[j + 1] = __umulhi(a.v[0], c.v[j]);
    }
#pragma unroll
    for (int j = 1; j < N; j += 2) {
        o[j - 1] = a.v[0] * c.v[j];
        if (j < N - 1) o[j] = __umulhi(a.v[0], c.v[j]);
    }
    e[1] = add_cc(e[1], q[0]);
#pragma unroll
    for (int k = 2; k < N; k++) e[k] = addc_cc(e[k], q[k - 1]);
    e[0] = sub_cc(e[0], q[0]);
#pragma unroll
    for (int k = 1; k < N; k++) e[k] = subc_cc(e[k], q[k]);
    mac_low_row<N>(e, o, q[0], nm, 0, 2);
#pragma unroll
    for (int i = 1; i < N; i++) {
        mac_low_row<N>(e, o, a.v[i], cv, i, 0);
        mac_low_row<N>(e, o, q[i], nm, i, 2);
    }
    join_parity<N>(r.v, e, o);
}

/* The constant -c mod m in the same form: m - c and ~cq, since
 * floor((m - c) 2^K / m) = 2^K - ceil(c 2^K / m) = 2^K - 1 - cq, c 2^K / m
 * not being an integer for a prime m and 0 < c < m. */
template <class P>
__device__ __forceinline__ void neg_shoup(fe<P> &c, fe<P> &cq) {
    neg(c, c);
#pragma unroll
    for (int k = 0; k < P::N; k++) cq.v[k] = ~cq.v[k];
}

/* r = a b mod 2^(32N) (host and device; the tables' setup only). */
template <class P>
__host__ __device__ inline void low_mul_words(uint32_t (&r)[P::N], const uint32_t (&a)[P::N],
                                              const uint32_t (&b)[P::N]) {
    constexpr int N = P::N;
    uint32_t t[N] = {0};
    for (int i = 0; i < N; i++) {
        uint64_t carry = 0;
        for (int j = 0; i + j < N; j++) {
            const uint64_t v = (uint64_t)a[i] * b[j] + t[i + j] + carry;
            t[i + j] = (uint32_t)v;
            carry = v >> 32;
        }
    }
    for (int k = 0; k < N; k++) r[k] = t[k];
}

/* m^-1 mod 2^(32N) by Newton's iteration x <- x (2 - m x), which doubles
 * the correct low bits (x = m is right mod 2^3 for odd m). */
template <class P>
__host__ __device__ inline void mod_inverse_words(uint32_t (&x)[P::N]) {
    constexpr int N = P::N;
    uint32_t m[N], mx[N];
    for (int k = 0; k < N; k++) m[k] = x[k] = P::mod(k);
    for (int it = 0; (3 << it) < 32 * N; it++) {
        low_mul_words<P>(mx, m, x);
        uint64_t borrow = 0; /* mx <- 2 - mx */
        for (int k = 0; k < N; k++) {
            const uint64_t v = (uint64_t)(k == 0 ? 2u : 0u) - mx[k] - borrow;
            mx[k] = (uint32_t)v;
            borrow = (v >> 32) & 1;
        }
        low_mul_words<P>(x, x, mx);
    }
}

/*
 * The Shoup form of a constant given in Montgomery form cR (cR != 0):
 * c = cR R^-1 (mul by the plain 1) and cq = floor(c 2^(32N) / m). Since
 * c 2^(32N) mod m is cR itself, c 2^(32N) - cR is a multiple of m, and
 * cq = (c 2^(32N) - cR) / m = -cR m^-1 mod 2^(32N): an exact division, done
 * as a product by minv = m^-1 mod 2^(32N) (mod_inverse_words).
 */
template <class P>
__device__ __forceinline__ void shoup_prepare(fe<P> &c, fe<P> &cq, const fe<P> &cR,
                                              const fe<P> &minv) {
    constexpr int N = P::N;
    fe<P> one_plain, ncr;
#pragma unroll
    for (int k = 0; k < N; k++) one_plain.v[k] = k == 0 ? 1u : 0u;
    mul(c, cR, one_plain);
    uint64_t borrow = 0;
#pragma unroll
    for (int k = 0; k < N; k++) {
        const uint64_t v = 0 - (uint64_t)cR.v[k] - borrow;
        ncr.v[k] = (uint32_t)v;
        borrow = (v >> 32) & 1;
    }
    low_mul_words<P>(cq.v, ncr.v, minv.v);
}

/*
 * r0 = a0 b0 and r1 = a1 b1, the rows (and chains) of the two products
 * alternating, so that the second product's chain can fill the first's
 * latency where few warps share a scheduler (the lazy form: ec.cuh
 * fp_mul2_lazy_call, for G1's affine levels). Same results as two mul.
 */
template <class P>
__device__ __forceinline__ void mul_pair(fe<P> &r0, const fe<P> &a0, const fe<P> &b0, fe<P> &r1,
                                         const fe<P> &a1, const fe<P> &b1) {
    mul_pair_cios<P>(r0, a0, b0, r1, a1, b1);
}

/*
 * r = a^2 * 2^(-32N) mod m, equal to mul(r, a, a) bit for bit (both outputs
 * are the unique reduced value). A product needs each a[i] a[j], i != j,
 * once instead of twice, so:
 *   1. cross products: sum over i < j of a[i] a[j] 2^(32(i+j)), row i
 *      adding a[i] * a[i+1..N-1] as two chains of (low, high) pairs split
 *      by the parity of j (no pair of one chain overlaps another), each
 *      into its accumulator (wide_parity: E for the pairs starting on even
 *      columns, O for the odd ones, a word down, so that every pair is an
 *      aligned register pair, as in mul_cios), then w = E + O 2^32;
 *   2. w = 2w by funnel shifts, then the squares a[i]^2 on words 2i, 2i+1
 *      as one chain of pairs: w = a^2, 2N words;
 *   3. redc_parity: N Montgomery rows on the low half, then the high half;
 *   4. one conditional subtraction.
 * Multiply-adds: N(N-1) cross + 2N squares + N(2N+1) reduction = 3N^2 + 2N,
 * Fp 456 against mul's 588; Fr's
 * cheaper reduction rows (cios_reduce) make it 168 against mul's 224. The
 * accumulators per parity took the G1 MSM at 2^27 from 700.0 to 688.3 ms
 * against one array (doc/perf.md, session 18).
 *
 * Bounds (a <= m-1 < 2^(32N-1), so no carry is ever dropped):
 *  - rows: after row i, the cross sum is <= (a[0..i] as a number) * a <
 *    2^(32(i+1)) 2^(32N), so columns above i+N stay zero; each chain only
 *    adds, and each accumulator is at most the sum, so the carry a chain
 *    drops (madc.hi without .cc at column i+N) or its addc into column i+N
 *    cannot be a carry out of column i+N, and none leaves an accumulator.
 *  - doubling and squares: after the last row (i = N-2) w < 2^(32(2N-1)),
 *    word 2N-1 is zero and takes the bit shifted out of word 2N-2, so 2w
 *    loses nothing; 2w + sum a[i]^2 2^(64i) = a^2 < 2^(64N-2), so the
 *    square chain's final carry out of word 2N-1 is zero.
 *  - reduction: at redc_parity (a^2 = a a with a <= m-1).
 */

/* Row 0: a[0] a[j], j >= 1. */
template <int N>
__device__ __forceinline__ void sqr_cross_row0(wide_parity<N> &c, const uint32_t (&a)[N]) {
    static_assert(N % 2 == 0 && N >= 4, "row 0 assumes an even limb count");
    wide_row0<N>(c, a[0], [&a](int j) { return a[j]; }, 1);
}

/* Row i >= 1: the chain ending below column i+N first, so that its carry
 * lands in the still zero column i+N, then the one ending on it. */
template <int N>
__device__ __forceinline__ void sqr_cross_row(wide_parity<N> &c, const uint32_t (&a)[N], int i) {
    const int top_start = ((N - i) & 1) == 0 ? i + 1 : i + 2;
    const int short_start = top_start == i + 1 ? i + 2 : i + 1;
    if (short_start <= N - 2) wide_chain<N>(c, a[i], [&a](int j) { return a[j]; }, i, short_start);
    wide_chain<N>(c, a[i], [&a](int j) { return a[j]; }, i, top_start);
}

/* w = 2 (E + O 2^32) + sum a[i]^2 2^(64i) = a^2. Funnel shifts write no
 * carry, so the squares form one clean chain. Word 0 holds no cross
 * product: it stays 0. */
template <int N>
__device__ __forceinline__ void sqr_finish(uint32_t (&w)[2 * N], const wide_parity<N> &c,
                                           const uint32_t (&a)[N]) {
    join_parity<2 * N>(w, c.e, c.o);
#pragma unroll
    for (int k = 2 * N - 1; k > 0; k--) w[k] = __funnelshift_l(w[k - 1], w[k], 1);
    w[0] = mad_lo_cc(a[0], a[0], w[0]);
    w[1] = madc_hi_cc(a[0], a[0], w[1]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) {
        w[2 * i] = madc_lo_cc(a[i], a[i], w[2 * i]);
        w[2 * i + 1] = madc_hi_cc(a[i], a[i], w[2 * i + 1]);
    }
    w[2 * N - 2] = madc_lo_cc(a[N - 1], a[N - 1], w[2 * N - 2]);
    w[2 * N - 1] = madc_hi(a[N - 1], a[N - 1], w[2 * N - 1]);
}

template <class P, bool LAZY = false>
__device__ __forceinline__ void sqr(fe<P> &r, const fe<P> &a) {
    constexpr int N = P::N;
    wide_parity<N> c;
    sqr_cross_row0<N>(c, a.v);
#pragma unroll
    for (int i = 1; i < N - 1; i++) sqr_cross_row<N>(c, a.v, i);
    uint32_t w[2 * N];
    sqr_finish<N>(w, c, a.v);
    redc_parity<P, LAZY>(r, w);
}

/* r = a^2 R^-1 mod m in [0, 2m) for a < 2m where 4m^2/R < m (Fp: see
 * mul_lazy): sqr's rows and doubling only need a < 2^(32N-1), and the
 * reduction gives V + Hw < m + a^2/R. */
template <class P>
__device__ __forceinline__ void sqr_lazy(fe<P> &r, const fe<P> &a) {
    static_assert(P::mod(P::N - 1) < 0x20000000u, "needs 4m^2/R < m: m < 2^(32N-3)");
    sqr<P, true>(r, a);
}

/* r0 = a0^2 and r1 = a1^2 with their rows and chains alternating, for the
 * same reason as mul_pair. Same results as two sqr. */
template <class P>
__device__ __forceinline__ void sqr_pair(fe<P> &r0, const fe<P> &a0, fe<P> &r1, const fe<P> &a1) {
    constexpr int N = P::N;
    wide_parity<N> c0, c1;
    sqr_cross_row0<N>(c0, a0.v);
    sqr_cross_row0<N>(c1, a1.v);
#pragma unroll
    for (int i = 1; i < N - 1; i++) {
        sqr_cross_row<N>(c0, a0.v, i);
        sqr_cross_row<N>(c1, a1.v, i);
    }
    uint32_t w0[2 * N], w1[2 * N];
    sqr_finish<N>(w0, c0, a0.v);
    sqr_finish<N>(w1, c1, a1.v);
    redc_parity_pair(r0, w0, r1, w1);
}

/* ---- inversion (variable time) ------------------------------------------ */

/*
 * inv_var: r = a^-1 (0 gives 0), a canonical. Pornin's optimized binary GCD
 * (eprint 2020/972, Algorithm 2), the host's inv_var (src/ff/field_impl.h)
 * with k = 31 instead of 32: each round approximates a and b by 62 bits
 * (their low 30 bits exact, then the top 32 bits of the longer one), runs
 * 30 binary-GCD steps on the approximations alone, and applies the
 * accumulated update factors to the full a, b and to u, v (mod m). With 30
 * steps a round the factors stay within 2^30 in magnitude, so they are
 * signed 32-bit words and each full update is a 32-bit multiply-add chain.
 * The steps are branch-free (selects), so a warp's lanes stay together
 * within a round; a lane stops after the round that makes a zero, so a
 * warp runs as many rounds as its slowest lane (at most gcd_rounds: 26
 * for Fp, and random inputs need 24-25, so a warp runs nearly all).
 * Invariants a = u y, b = v y (mod m) for the input's representative y = aR
 * hold through the exact divisions by 2^30 (Montgomery divisions on u, v);
 * at the end b = 1 and v = y^-1, so r = v R^3 R^-1 = a^-1 R.
 * Cost: ~1.5k 32-bit instructions a round, ~25 rounds for Fp, against
 * ~600 dependent products (~360k multiply-adds) for a^(p-2).
 */
static constexpr int GCD_STEPS = 30;

template <class P>
__host__ __device__ constexpr int modulus_bits() {
    int b = 32 * (P::N - 1);
    for (uint32_t t = P::mod(P::N - 1); t; t >>= 1) b++;
    return b;
}
/* len(a) + len(b) starts at most 2 len(m) and falls by GCD_STEPS a round
 * (the paper's bound for k - 1 steps) until a = 0 and b = 1. */
template <class P>
__host__ __device__ constexpr int gcd_rounds() {
    return (2 * modulus_bits<P>() - 1 + GCD_STEPS - 1) / GCD_STEPS;
}

/* Bits [s, s + 32) of the N-limb a, 0 <= s <= 32(N - 1), without indexing
 * the registers by a value (which would put a in local memory). */
template <int N>
__device__ __forceinline__ uint32_t gcd_bits32(const uint32_t (&a)[N], int s) {
    const int i = s >> 5;
    uint32_t lo = 0, hi = 0;
#pragma unroll
    for (int k = 0; k < N; k++) {
        lo = k == i ? a[k] : lo;
        hi = k == i + 1 ? a[k] : hi;
    }
    return __funnelshift_r(lo, hi, (uint32_t)s & 31);
}

/* r = |a f + b g| / 2^30, exact; returns whether a f + b g < 0. The sum is
 * formed as an (N+1)-limb two's complement: a f = (a ^ s)|f| + (s & |f|)
 * for the sign mask s of f (|a f + b g| < 2^30 m fits, sign bit included). */
template <int N>
__device__ __forceinline__ bool gcd_update_ab(uint32_t (&r)[N], const uint32_t (&a)[N], int32_t f,
                                              const uint32_t (&b)[N], int32_t g) {
    const uint32_t fs = f < 0 ? ~0u : 0u, gs = g < 0 ? ~0u : 0u;
    const uint32_t fm = (f ^ fs) - fs, gm = (g ^ gs) - gs;
    uint32_t t[N + 1];
    uint64_t c = (uint64_t)(fs & fm) + (gs & gm);
#pragma unroll
    for (int i = 0; i <= N; i++) {
        const uint32_t ai = (i < N ? a[i] : 0u) ^ fs, bi = (i < N ? b[i] : 0u) ^ gs;
        c += (uint64_t)ai * fm + (uint64_t)bi * gm;
        t[i] = (uint32_t)c;
        c >>= 32;
    }
    const uint32_t neg = t[N] >> 31 ? ~0u : 0u;
    c = neg & 1u; /* |t| = (t ^ neg) + (neg & 1) */
#pragma unroll
    for (int i = 0; i <= N; i++) {
        c += t[i] ^ neg;
        t[i] = (uint32_t)c;
        c >>= 32;
    }
#pragma unroll
    for (int i = 0; i < N; i++) r[i] = __funnelshift_r(t[i], t[i + 1], GCD_STEPS);
    return neg != 0;
}

/* r = (u f + v g) / 2^30 mod m for u, v < m: m - u serves a negative f (and
 * m - v a negative g), so t = u'|f| + v'|g| <= 2^30 m; q = -t m^-1 mod 2^30
 * makes t + q m divisible by 2^30, and (t + q m) / 2^30 < 2m. */
template <class P>
__device__ __forceinline__ void gcd_update_uv(uint32_t (&r)[P::N], const uint32_t (&u)[P::N],
                                              int32_t f, const uint32_t (&v)[P::N], int32_t g) {
    constexpr int N = P::N;
    const uint32_t fs = f < 0 ? ~0u : 0u, gs = g < 0 ? ~0u : 0u;
    const uint32_t fm = (f ^ fs) - fs, gm = (g ^ gs) - gs;
    uint32_t t[N + 1];
    uint64_t c = 0, bu = 0, bv = 0; /* the carry, and the borrows of m - u, m - v */
#pragma unroll
    for (int i = 0; i < N; i++) {
        const uint64_t du = (uint64_t)P::mod(i) - u[i] - bu, dv = (uint64_t)P::mod(i) - v[i] - bv;
        bu = du >> 63;
        bv = dv >> 63;
        const uint32_t ui = fs ? (uint32_t)du : u[i], vi = gs ? (uint32_t)dv : v[i];
        c += (uint64_t)ui * fm + (uint64_t)vi * gm;
        t[i] = (uint32_t)c;
        c >>= 32;
    }
    t[N] = (uint32_t)c;
    const uint32_t q = (t[0] * P::n0) & ((1u << GCD_STEPS) - 1);
    c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        c += (uint64_t)q * P::mod(i) + t[i];
        t[i] = (uint32_t)c;
        c >>= 32;
    }
    t[N] += (uint32_t)c;
    uint32_t s[N], d[N];
    uint64_t bw = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        s[i] = __funnelshift_r(t[i], t[i + 1], GCD_STEPS);
        const uint64_t x = (uint64_t)s[i] - P::mod(i) - bw;
        d[i] = (uint32_t)x;
        bw = x >> 63;
    }
#pragma unroll
    for (int i = 0; i < N; i++) r[i] = bw ? s[i] : d[i]; /* s < m: keep s */
}

template <class P>
__device__ __forceinline__ void inv_var(fe<P> &r, const fe<P> &x) {
    constexpr int N = P::N;
    uint32_t a[N], b[N], u[N], v[N];
#pragma unroll
    for (int i = 0; i < N; i++) {
        a[i] = x.v[i];
        b[i] = P::mod(i);
        u[i] = i == 0;
        v[i] = 0;
    }
    constexpr uint32_t LOW = (1u << GCD_STEPS) - 1;
#pragma unroll 1
    for (int round = 0; round < gcd_rounds<P>(); round++) {
        uint32_t any = 0;
#pragma unroll
        for (int i = 0; i < N; i++) any |= a[i];
        if (!any) break;
        /* n = max(len a, len b, 62); the top 32 bits below bit n of each */
        int n = 62;
#pragma unroll
        for (int i = 1; i < N; i++) {
            const uint32_t w = a[i] | b[i];
            n = w ? 32 * i + 32 - __clz(w) : n;
        }
        n = n < 62 ? 62 : n;
        uint64_t xa = (uint64_t)gcd_bits32(a, n - 32) << GCD_STEPS | (a[0] & LOW);
        uint64_t xb = (uint64_t)gcd_bits32(b, n - 32) << GCD_STEPS | (b[0] & LOW);
        int32_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
        /* One step: if xa is odd, order xa >= xb (swapping the factor pairs)
         * and subtract; then halve xa and double (f1, g1). */
#pragma unroll
        for (int j = 0; j < GCD_STEPS; j++) {
            const bool odd = xa & 1, sw = odd && xa < xb;
            const uint64_t ta = sw ? xb : xa, tb = sw ? xa : xb;
            const int32_t tf0 = sw ? f1 : f0, tf1 = sw ? f0 : f1;
            const int32_t tg0 = sw ? g1 : g0, tg1 = sw ? g0 : g1;
            xa = (odd ? ta - tb : ta) >> 1;
            xb = tb;
            f0 = odd ? tf0 - tf1 : tf0;
            g0 = odd ? tg0 - tg1 : tg0;
            f1 = tf1 * 2;
            g1 = tg1 * 2;
        }
        uint32_t na[N], nb[N], nu[N];
        if (gcd_update_ab(na, a, f0, b, g0)) f0 = -f0, g0 = -g0;
        if (gcd_update_ab(nb, a, f1, b, g1)) f1 = -f1, g1 = -g1;
        gcd_update_uv<P>(nu, u, f0, v, g0);
        gcd_update_uv<P>(v, u, f1, v, g1);
#pragma unroll
        for (int i = 0; i < N; i++) {
            a[i] = na[i];
            b[i] = nb[i];
            u[i] = nu[i];
        }
    }
    fe<P> y, r3;
#pragma unroll
    for (int i = 0; i < N; i++) {
        y.v[i] = v[i];
        r3.v[i] = P::r3(i);
    }
    mul(r, y, r3);
}

/* ---- Fp2 = Fp[u]/(u^2 + 1) ----------------------------------------------- */

__device__ __forceinline__ void add(fp2_t &r, const fp2_t &a, const fp2_t &b) {
    add(r.c0, a.c0, b.c0);
    add(r.c1, a.c1, b.c1);
}

__device__ __forceinline__ void sub(fp2_t &r, const fp2_t &a, const fp2_t &b) {
    sub(r.c0, a.c0, b.c0);
    sub(r.c1, a.c1, b.c1);
}

/* Karatsuba with u^2 = -1: c0 = a0 b0 - a1 b1,
 * c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1. 3M + 2A + 3S (Fp). */
__device__ __forceinline__ void mul(fp2_t &r, const fp2_t &a, const fp2_t &b) {
    fp_t t0, t1, s0, s1;
    mul(t0, a.c0, b.c0);
    mul(t1, a.c1, b.c1);
    add(s0, a.c0, a.c1);
    add(s1, b.c0, b.c1);
    mul(s0, s0, s1);
    sub(s0, s0, t0);
    sub(r.c1, s0, t1);
    sub(r.c0, t0, t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. 2M + 3A (Fp). */
__device__ __forceinline__ void sqr(fp2_t &r, const fp2_t &a) {
    fp_t s, d, m;
    add(s, a.c0, a.c1);
    sub(d, a.c0, a.c1);
    mul(m, a.c0, a.c1);
    mul(r.c0, s, d);
    add(r.c1, m, m);
}

} /* namespace cuzk_gpu */

#endif /* CUZK_GPU_FF_CUH */
