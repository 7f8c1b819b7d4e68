/*
 * ff_inv.cuh — inversion in Fr and Fp by a binary GCD (ff.cuh). VARIABLE
 * TIME: its rounds depend on the value (public values only).
 */
#ifndef CUZK_GPU_FF_INV_CUH
#define CUZK_GPU_FF_INV_CUH

#include "gpu/ff_mul.cuh"

namespace cuzk_gpu {

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

} /* namespace cuzk_gpu */

#endif /* CUZK_GPU_FF_INV_CUH */
