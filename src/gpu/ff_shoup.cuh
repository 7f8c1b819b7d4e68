/*
 * ff_shoup.cuh — products by a constant with a precomputed quotient
 * (Shoup's trick), the NTT's twiddle products, and the host and device setup
 * of such constants (ff.cuh). Fr only.
 */
#ifndef CUZK_GPU_FF_SHOUP_CUH
#define CUZK_GPU_FF_SHOUP_CUH

#include "gpu/ff_mul.cuh"

namespace cuzk_gpu {

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
 * after the first use it (ntt.cu). Fr only (the static_assert in
 * mul_shoup_lazy).
 *
 * The constant is c itself, not c R: for a = x R, a c = (x c) R, the same
 * Montgomery value that mul(c R, a) gives, mod m.
 */
template <class P>
__host__ __device__ constexpr uint32_t neg_mod(int i) { /* limb i of 2^(32N) - m (m odd) */
    return i == 0 ? 0u - P::mod(0) : ~P::mod(i);
}

/* The products below keep one accumulator per parity of the column a pair
 * starts on (register pairs: ff_mul.cuh). */

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
     * pipe the products contend for), and the rows of q' start at limb 2 */
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

} /* namespace cuzk_gpu */

#endif /* CUZK_GPU_FF_SHOUP_CUH */
