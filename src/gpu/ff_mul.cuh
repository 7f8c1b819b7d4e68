/*
 * ff_mul.cuh — Montgomery products of the device arithmetic (ff.cuh): CIOS
 * multiplication with its accumulators per parity, the squaring, the paired
 * forms whose rows alternate, and the lazy forms (values in [0, 2m), no
 * final subtraction) with their additive companions.
 */
#ifndef CUZK_GPU_FF_MUL_CUH
#define CUZK_GPU_FF_MUL_CUH

#include "gpu/ff_field.cuh"

namespace cuzk_gpu {

/*
 * Register pairs. ptxas fuses a (mad.lo, madc.hi) pair of one product into
 * one IMAD.WIDE.U32(.X) only when the two words it adds to are an aligned
 * register pair; a pair that starts on an odd word of its accumulator costs
 * moves on the multiply pipe instead. So the products keep one accumulator
 * per parity of the column a pair starts on: E holds the columns as they
 * are, O the pairs that start on odd columns, shifted down one word (O[k] =
 * column k + 1), and the two are added once at the end, by ALU additions.
 */

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
 * Accumulators per parity (register pairs, above): the window T is
 * E + O 2^32 with E[k] = column k and O[k] = column k + 1, so the pairs of
 * even limbs (of a, of m) add to E and those of odd limbs to O, each on
 * aligned register pairs (one IMAD.WIDE per pair, no moves; one window
 * array that shifts a word per row would misalign every second pair). A
 * row's division by 2^32 renames: the new E is O; the new O is E
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
 * (register pairs, above): E for the (low, high) pairs starting on
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
 * taking the constant as a parameter makes ptxas spill more in the G1
 * combine kernel. */
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
 * Fp 456 against mul's 588; Fr's cheaper reduction rows (cios_reduce)
 * make it 168 against mul's 224.
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

} /* namespace cuzk_gpu */

#endif /* CUZK_GPU_FF_MUL_CUH */
