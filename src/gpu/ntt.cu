/*
 * ntt.cu — radix-2^k NTT over Fr on the GPU and the two Groth16 H
 * computations (contract in gpu_ntt.h; semantics of src/poly/ntt.h, h.h).
 *
 * Passes. A size-n transform (n = 2^L) is split into P = ceil(L/10) passes of
 * k <= 10 radix-2 stages each (2^27: 8 + 9 + 10, 2^28: 9 + 9 + 10). As in the
 * CPU code (ntt.c), a DIF pass whose smallest butterfly span is C = 2^cl only
 * mixes the 2^k elements a[blk*2^k*C + t*C + c], t < 2^k, of one group
 * (blk, c): one thread block takes W such groups (W*2^k = 512 or 1024
 * elements, 16-32 KiB of shared memory), runs the k stages and writes the
 * groups back. Adjacent threads take adjacent columns c, so global accesses
 * are contiguous runs; a 32-byte element is one DRAM sector anyway. DIT runs
 * the same plan in reverse (small spans first). So a transform reads and
 * writes the data P times instead of L times. Inside a pass the stages go in
 * pairs (radix 4): a thread holds 4 elements in registers for two stages,
 * and only between pairs do they cross shared memory (pass_kernel below).
 *
 * Twiddles. Stage span h = hr*C pairs rows t, t + hr and multiplies by
 * omega_2h^e with e = (t mod hr)*C + c, i.e. omega_n^(e*n/2h) from one table
 * T[j] = omega_n^j, j < n/2 (16n bytes, Montgomery form). The inverse uses
 * omega_n^-x = -T[n/2 - x], negated as it is loaded. A group's twiddles are
 * distinct per column only in the first DIF pass (last DIT pass): that pass
 * reads about one twiddle per element from memory, the later ones hit L2.
 * The later passes' exponents are multiples of 2^ks[0] (ks[0]: the
 * first pass's stage count), and those passes take their twiddles from a
 * second, small table of just these (2^27: 2^18 entries, 16 MiB) in Shoup
 * form: the plain value and the quotient floor(w 2^256 / r), whose products
 * (ff.cuh mul_shoup_lazy) cost 179 multiply-adds instead of Montgomery's
 * 224. The first pass keeps the Montgomery table: a Shoup one of n/2
 * entries would double the twiddles' memory, which at 2^27 the MSMs need
 * (a slightly faster transform, a slower proof).
 * Butterflies with e = 0 skip the multiplication, decided per unit of 4
 * elements, so it pays where a warp's units agree: in the span-1 stage
 * (every e is 0 when C = 1), n/2 of the (n/2)*L products.
 *
 * Fusions. Elementwise factors ride on the first pass's loads (prologue) or
 * the last pass's stores (epilogue), so they cost multiplications, not
 * passes: 1/n of the inverse, the coset powers c*s^f(i) (f the identity or
 * the bit reversal, from two tables of 2^ceil(L/2) and 2^floor(L/2) powers:
 * two multiplications per element), and H's a*b - c on the last pass of c.
 *
 * Cost model (2^27, a Montgomery Fr mul rate of 50e9/s): (n/2)*27 - n/2 =
 * 1.75e9 multiplications = 35 ms (the passes after the first, 19 of the 27
 * stages, multiply by Shoup's cheaper product); memory 3 passes x 8.6 GB +
 * 4.3 GB of first-pass twiddles = 30 GB = 7 ms at 4.3 TB/s, hidden under
 * the arithmetic. So the transform is bound by the multiplier (and by how
 * many of its products' chains the schedulers keep in flight), which is why
 * the products keep an accumulator per parity (ff_mul.cuh: no register
 * moves on the multiply pipe).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/check.cuh"
#include "gpu/ff.cuh"
#include "gpu/gpu_ntt.h"

using namespace cuzk_gpu;

/* ---- host Montgomery arithmetic for the few constants -------------------- */

/* The domain's constants (roots, 1/n, inverses of shifts) are a few hundred
 * multiplications, done here on 64-bit limbs (CIOS, same R = 2^256 as the
 * host's cuzk_fr) so that this file needs none of the C field headers. */
typedef struct {
    uint64_t l[4];
} hfr;

static const uint64_t HR_MOD[4] = CUZK__FR_R;
static const uint64_t HR_ONE[4] = CUZK__FR_ONE;
static const uint64_t HR_R2[4] = CUZK__FR_R2;
static const uint64_t HR_RM2[4] = CUZK__FR_R_MINUS_2;

static bool h_geq_mod(const uint64_t t[4]) {
    for (int i = 3; i >= 0; i--) {
        if (t[i] != HR_MOD[i]) return t[i] > HR_MOD[i];
    }
    return true;
}

static void h_sub_mod_raw(uint64_t t[4]) { /* t -= m */
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)t[i] - HR_MOD[i] - borrow;
        t[i] = (uint64_t)d;
        borrow = (d >> 64) ? 1 : 0;
    }
}

static hfr h_mul(const hfr &a, const hfr &b) {
    uint64_t t[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        unsigned __int128 uv;
        uint64_t carry = 0;
        for (int j = 0; j < 4; j++) {
            uv = (unsigned __int128)a.l[j] * b.l[i] + t[j] + carry;
            t[j] = (uint64_t)uv;
            carry = (uint64_t)(uv >> 64);
        }
        uv = (unsigned __int128)t[4] + carry;
        t[4] = (uint64_t)uv;
        t[5] = (uint64_t)(uv >> 64);
        const uint64_t m = t[0] * (uint64_t)CUZK__FR_N0;
        uv = (unsigned __int128)m * HR_MOD[0] + t[0];
        carry = (uint64_t)(uv >> 64);
        for (int j = 1; j < 4; j++) {
            uv = (unsigned __int128)m * HR_MOD[j] + t[j] + carry;
            t[j - 1] = (uint64_t)uv;
            carry = (uint64_t)(uv >> 64);
        }
        uv = (unsigned __int128)t[4] + carry;
        t[3] = (uint64_t)uv;
        t[4] = t[5] + (uint64_t)(uv >> 64);
    }
    hfr r;
    if (t[4] || h_geq_mod(t)) h_sub_mod_raw(t);
    memcpy(r.l, t, sizeof r.l);
    return r;
}

static hfr h_one(void) {
    hfr r;
    memcpy(r.l, HR_ONE, sizeof r.l);
    return r;
}

static hfr h_from_u64(uint64_t x) {
    hfr a = {{x, 0, 0, 0}}, r2;
    memcpy(r2.l, HR_R2, sizeof r2.l);
    return h_mul(a, r2);
}

static hfr h_sub(const hfr &a, const hfr &b) {
    hfr r;
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)a.l[i] - b.l[i] - borrow;
        r.l[i] = (uint64_t)d;
        borrow = (d >> 64) ? 1 : 0;
    }
    if (borrow) { /* add m back */
        unsigned __int128 c = 0;
        for (int i = 0; i < 4; i++) {
            c += (unsigned __int128)r.l[i] + HR_MOD[i];
            r.l[i] = (uint64_t)c;
            c >>= 64;
        }
    }
    return r;
}

static bool h_is_zero(const hfr &a) { return !(a.l[0] | a.l[1] | a.l[2] | a.l[3]); }

/* a^e for a little-endian exponent of w words (public exponent). */
static hfr h_pow(const hfr &a, const uint64_t *e, int w) {
    hfr r = h_one();
    for (int i = w * 64 - 1; i >= 0; i--) {
        r = h_mul(r, r);
        if ((e[i / 64] >> (i % 64)) & 1) r = h_mul(r, a);
    }
    return r;
}

/* Fermat: a^(r-2); a nonzero (public values only). */
static hfr h_inv(const hfr &a) { return h_pow(a, HR_RM2, 4); }

static hfr h_sqr_times(hfr a, unsigned k) {
    for (unsigned i = 0; i < k; i++) a = h_mul(a, a);
    return a;
}

static fr_t to_dev(const hfr &a) {
    fr_t r;
    memcpy(&r, a.l, sizeof r);
    return r;
}

/* ---- device helpers -------------------------------------------------------- */

static __device__ __forceinline__ fr_t ld(const fr_t *p) {
    fr_t r;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
    d[0] = s[0];
    d[1] = s[1];
    return r;
}

/* Read-only path for tables (twiddles, powers). */
static __device__ __forceinline__ fr_t ldg(const fr_t *p) {
    fr_t r;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
    d[0] = __ldg(s);
    d[1] = __ldg(s + 1);
    return r;
}

static __device__ __forceinline__ void st(fr_t *p, const fr_t &v) {
    const uint4 *s = reinterpret_cast<const uint4 *>(&v);
    uint4 *d = reinterpret_cast<uint4 *>(p);
    d[0] = s[0];
    d[1] = s[1];
}

/* factor(i) = c * s^f(i) = lo[f mod 2^bits] * hi[f >> bits] (c folded into
 * lo), f(i) = i or bitrev_L(i). */
struct pow_tab {
    const fr_t *lo, *hi;
    uint32_t bits, brev;
    fr_t base; /* s itself, read on the host only (scale_step derives the steps from it) */
};

/* The twiddles omega_n^(i 2^shift), i < n/2^(shift+1), in Shoup form
 * (ff.cuh mul_shoup_lazy): the plain value c[i] (not Montgomery's c R) and
 * its quotient cq[i]. */
struct shoup_tab {
    const fr_t *c, *cq;
    uint32_t shift;
};

struct shoup_tw {
    fr_t c, cq;
};

enum { PRO_NONE = 0, PRO_POW = 1 };
enum { EPI_NONE = 0, EPI_MULC = 1, EPI_POW = 2, EPI_ABC = 3 };

struct pass_args {
    fr_t *a;
    const fr_t *tw;    /* omega_n^j, j < n/2, Montgomery form (the first DIF pass) */
    shoup_tab sh;      /* the later passes' twiddles in Shoup form */
    uint32_t L, k, cl; /* n = 2^L; 2^k rows; column stride C = 2^cl */
    uint32_t wl;       /* W = 2^wl groups per block */
    uint32_t inv;
    uint32_t final_pass; /* the transform's last pass, which stores canonical values */
    uint32_t pro, epi;
    pow_tab pro_tab, epi_tab;
    fr_t epi_c;
    const fr_t *ea, *eb; /* EPI_ABC: ea[i] <- ea[i]*eb[i] - x (ea is written) */
    fr_t pro_step, epi_step; /* between a unit's consecutive factors (scale_unit, scale_step) */
};

/* ---- one pass: radix-4 groups in registers ---------------------------------
 *
 * A block holds E = 2^(k + wl) elements: W = 2^wl groups (columns) of 2^k
 * rows; the global index of (column g, row t) is
 * (g >> cl) << (cl + k) | t << cl | (g mod C). The k stages are cut into
 * ng = ceil(k/2) groups of r <= 2 consecutive stages. Group q (counted from
 * the small spans) covers the row bits [b, b + r). A unit is the 2^r rows
 * t = trest + j*2^b (j < 2^r) of one column: a thread loads a unit into
 * registers, runs the group's r stages there (stage m of the group pairs
 * j, j + 2^m) and stores it back. The first group reads global memory, the
 * last writes it, the ones between exchange through shared memory: a k = 9
 * pass makes 4 round trips and 4 barriers (a radix-2 kernel: 9, plus a copy
 * in and out).
 * Each distinct twiddle of a unit is loaded once (2^m in stage m), with the
 * exponent e = ((t mod 2^(b+m)) << cl) | col; e = 0 (no multiplication)
 * happens only for j mod 2^m = 0 and is decided once per unit.
 *
 * Shared memory holds an element as 4 planes of 64-bit words (plane stride E),
 * at the swizzled position swz(l) = l ^ ((l >> 4) & 15): a half-warp's 16
 * lanes touch 16 distinct banks when their l differ in bits that fold onto
 * the 4 low ones. unit_base picks such lane bits for every group (bits 0..3
 * of l where they are not row bits of the group, else bits 4+x, which fold
 * onto bank bit x).
 *
 * Radix 4 at 64 registers is faster at 2^24-2^27 than radix 2 through
 * shared memory every stage, than radix 8 (128 registers, products inline
 * or out of line) and than radix 4 at 72 or 80 registers. (The Shoup
 * passes, whose products need more registers, run at 80: below.)
 */

/* Groups of a k-stage pass, at most 2 stages each (radix 4). */
static __host__ __device__ __forceinline__ uint32_t group_count(uint32_t k) { return (k + 1) / 2; }

/* Group q of ng: its first row bit b and its stage count r, as even as possible. */
static __host__ __device__ __forceinline__ void group_get(uint32_t k, uint32_t ng, uint32_t q,
                                                          uint32_t &b, uint32_t &r) {
    const uint32_t base = k / ng, extra = k % ng;
    r = base + (q < extra ? 1 : 0);
    b = q * base + (q < extra ? q : extra);
}

/* Local index of element j = 0 of unit u: u's bits spread over the bits of l
 * outside G = [s, s + r). Plain insertion, then (s < 4, E >= 256) one rotation
 * of a bit field above G so that u's 4 low bits (a half-warp's lanes) land on
 * [0, s), [s + r, 4) and [4 + s, 4 + s + |G & [0,4)|). */
static __host__ __device__ __forceinline__ uint32_t unit_base(uint32_t u, uint32_t s, uint32_t r,
                                                              uint32_t nbits) {
    uint32_t l = ((u >> s) << (s + r)) | (u & ((1u << s) - 1));
    if (s < 4 && nbits >= 8) {
        /* field at F of width a + c: its low a bits move to its top */
        const uint32_t F = s + r < 4 ? 4 : s + r, a = s + r < 4 ? r : 4 - s,
                       c = s + r < 4 ? s : 4 - r;
        const uint32_t wm = (1u << (a + c)) - 1, f = (l >> F) & wm;
        l = (l & ~(wm << F)) | (((f >> a) | ((f & ((1u << a) - 1)) << c)) << F);
    }
    return l;
}

static __device__ __forceinline__ uint32_t swz(uint32_t l) { return l ^ ((l >> 4) & 15); }

static __device__ __forceinline__ fr_t lds_plane(const uint2 *sm, uint32_t E, uint32_t p) {
    fr_t r;
    uint2 *d = reinterpret_cast<uint2 *>(&r);
#pragma unroll
    for (int q = 0; q < 4; q++) d[q] = sm[q * E + p];
    return r;
}

static __device__ __forceinline__ void sts_plane(uint2 *sm, uint32_t E, uint32_t p, const fr_t &v) {
    const uint2 *s = reinterpret_cast<const uint2 *>(&v);
#pragma unroll
    for (int q = 0; q < 4; q++) sm[q * E + p] = s[q];
}

/* One out-of-line multiplication (values in registers through the ABI): the
 * scalings on the first/last group call it, so their code exists once
 * instead of once per unrolled site. */
static __device__ __noinline__ fr_t mul_ol(const fr_t a, const fr_t b) {
    fr_t r;
    mul(r, a, b);
    return r;
}

/* brev over BITS bits, a constant once the caller's loop is unrolled */
template <int BITS>
static __device__ __forceinline__ int brev_bits(int x) {
    int r = 0;
#pragma unroll
    for (int i = 0; i < BITS; i++) r |= ((x >> i) & 1) << (BITS - 1 - i);
    return r;
}

/* x[j] *= c * s^f(ib + j*2^d): one table product for j = 0, then a running
 * product by step = s^(2^d) (f natural; step^j) or s^(2^(L-d-R)) (f bit
 * reversed: f(ib + j 2^d) = f(ib) + brev_R(j) 2^(L-d-R), so the power index
 * of j is brev_R(j)). 2 multiplications per element, 2 table loads per unit. */
template <int R>
static __device__ __forceinline__ void scale_unit(fr_t (&x)[1 << R], const pow_tab &tb,
                                                  const fr_t &step, uint32_t ib, uint32_t L) {
    const uint32_t fi = tb.brev ? (__brev(ib) >> (32 - L)) : ib;
    fr_t f = mul_ol(ldg(tb.lo + (fi & ((1u << tb.bits) - 1))), ldg(tb.hi + (fi >> tb.bits)));
    if (tb.brev) {
#pragma unroll
        for (int m = 0; m < (1 << R); m++) {
            if (m) f = mul_ol(f, step);
            x[brev_bits<R>(m)] = mul_ol(x[brev_bits<R>(m)], f);
        }
    } else {
#pragma unroll
        for (int m = 0; m < (1 << R); m++) {
            if (m) f = mul_ol(f, step);
            x[m] = mul_ol(x[m], f);
        }
    }
}

/* DIF (x + y, (x - y) w), DIT (x + y w, x - y w); w = 1: (x + y, x - y).
 * The inverse's w = omega^-e is -T[n/2 - e], negated once per loaded twiddle,
 * which keeps one butterfly code for both directions. Lazy: x, y and the
 * results in [0, 2r) (ff.cuh: add_lazy, sub_lazy; mul_lazy with tw
 * canonical; mul_shoup_lazy, whose operand must be below 2r: sub_lazy's
 * output in DIF, in DIT an element that is lazy, or canonical as the
 * transform's input and the prologue's scaling are), so no product pays a
 * final subtraction; run_group reduces each element once, on the last
 * group of the last pass. */
static __device__ __forceinline__ void tw_mul(fr_t &r, const fr_t &tw, const fr_t &a) {
    mul_lazy(r, tw, a);
}
static __device__ __forceinline__ void tw_mul(fr_t &r, const shoup_tw &tw, const fr_t &a) {
    mul_shoup_lazy(r, a, tw.c, tw.cq);
}

template <bool DIT, class TW>
static __device__ __forceinline__ void bfly(fr_t &x, fr_t &y, const TW &tw) {
    fr_t u, v;
    if (!DIT) {
        add_lazy(u, x, y);
        sub_lazy(v, x, y);
        tw_mul(v, tw, v);
    } else {
        fr_t m;
        tw_mul(m, tw, y);
        add_lazy(u, x, m);
        sub_lazy(v, x, m);
    }
    x = u;
    y = v;
}

/* Twiddle j (omega_n^j), negated for the inverse (w = -T[n/2 - e]): from
 * the Montgomery table, or (SHOUP) from the Shoup one, which holds the
 * multiples of 2^shift that the later passes' exponents are. */
template <bool SHOUP>
struct tw_load;
template <>
struct tw_load<false> {
    static __device__ __forceinline__ fr_t get(const pass_args &p, uint32_t j) {
        fr_t tw = ldg(p.tw + j);
        if (p.inv) neg(tw, tw);
        return tw;
    }
};
template <>
struct tw_load<true> {
    static __device__ __forceinline__ shoup_tw get(const pass_args &p, uint32_t j) {
        shoup_tw tw;
        tw.c = ldg(p.sh.c + (j >> p.sh.shift));
        tw.cq = ldg(p.sh.cq + (j >> p.sh.shift));
        if (p.inv) neg_shoup(tw.c, tw.cq);
        return tw;
    }
};

static __device__ __forceinline__ void bfly1(fr_t &x, fr_t &y) {
    fr_t u, v;
    add_lazy(u, x, y);
    sub_lazy(v, x, y);
    x = u;
    y = v;
}

/* Stage m of a unit (pairs j, j + 2^m; span 2^(b+m) rows), then the next
 * ones: template recursion, so that every index into x is a constant and x
 * stays in registers. */
template <bool DIT, bool SHOUP, int R, int MM>
static __device__ __forceinline__ void unit_stages(fr_t (&x)[1 << R], const pass_args &p,
                                                   uint32_t b, uint32_t d, uint32_t ebase) {
    constexpr int m = DIT ? MM : R - 1 - MM, NR = 1 << R;
    const uint32_t sh = p.L - 1 - (b + m) - p.cl, half_n = 1u << (p.L - 1);
#pragma unroll
    for (int jp = 0; jp < (1 << m); jp++) {
        if (jp == 0 && ebase == 0) {
#pragma unroll
            for (int j0 = 0; j0 < NR; j0 += 2 << m) bfly1(x[j0], x[j0 + (1 << m)]);
        } else {
            const uint32_t xe = (((uint32_t)jp << d) | ebase) << sh;
            const auto tw = tw_load<SHOUP>::get(p, p.inv ? half_n - xe : xe);
#pragma unroll
            for (int j0 = jp; j0 < NR; j0 += 2 << m) bfly<DIT>(x[j0], x[j0 + (1 << m)], tw);
        }
    }
    if constexpr (MM + 1 < R) unit_stages<DIT, SHOUP, R, MM + 1>(x, p, b, d, ebase);
}

/* One group of R stages over all units of the block (row bits [b, b + R)).
 * FUSED: the pass may have a prologue or epilogue (p.pro, p.epi); without,
 * their code is compiled out. */
template <bool DIT, bool SHOUP, int R, bool FUSED>
static __device__ __forceinline__ void run_group(const pass_args &p, uint2 *sm, uint32_t nbits,
                                                 uint32_t b, bool first, bool last) {
    constexpr int NR = 1 << R;
    const uint32_t E = 1u << nbits, k = p.k, wl = p.wl, cl = p.cl, L = p.L;
    const uint32_t s = wl + b, d = b + cl;
    for (uint32_t u = threadIdx.x; u < (E >> R); u += blockDim.x) {
        const uint32_t lb = unit_base(u, s, R, nbits);
        const uint32_t w = lb & ((1u << wl) - 1), trest = lb >> wl;
        const uint32_t g = (blockIdx.x << wl) + w, col = g & ((1u << cl) - 1);
        /* global index of element j: ib + j*2^d (trest has bits [b, b + R) clear) */
        const uint32_t ib = ((g >> cl) << (cl + k)) | (trest << cl) | col;
        fr_t x[NR];
        if (first) {
#pragma unroll
            for (int j = 0; j < NR; j++) x[j] = ld(p.a + ib + ((uint32_t)j << d));
            if (FUSED && p.pro == PRO_POW) scale_unit<R>(x, p.pro_tab, p.pro_step, ib, L);
        } else {
#pragma unroll
            for (int j = 0; j < NR; j++) x[j] = lds_plane(sm, E, swz(lb | ((uint32_t)j << s)));
        }
        const uint32_t ebase = ((trest & ((1u << b) - 1)) << cl) | col; /* < 2^d */
        unit_stages<DIT, SHOUP, R, 0>(x, p, b, d, ebase);
        if (!last) {
#pragma unroll
            for (int j = 0; j < NR; j++) sts_plane(sm, E, swz(lb | ((uint32_t)j << s)), x[j]);
            continue;
        }
        if (p.final_pass) { /* earlier passes store lazy values for the next one */
#pragma unroll
            for (int j = 0; j < NR; j++) reduce_lazy(x[j], x[j]);
        }
        if (FUSED && p.epi == EPI_POW) scale_unit<R>(x, p.epi_tab, p.epi_step, ib, L);
#pragma unroll
        for (int j = 0; j < NR; j++) {
            const uint32_t i = ib + ((uint32_t)j << d);
            if (FUSED && p.epi == EPI_MULC) {
                x[j] = mul_ol(x[j], p.epi_c);
            } else if (FUSED && p.epi == EPI_ABC) {
                const fr_t ab = mul_ol(ld(p.ea + i), ld(p.eb + i));
                sub(x[j], ab, x[j]);
                st(const_cast<fr_t *>(p.ea) + i, x[j]);
                continue;
            }
            st(p.a + i, x[j]);
        }
    }
}

/* One pass: E/4 threads (groups of 1 stage use E/2 units, a thread taking
 * two). DIF runs the groups from the large spans down, DIT up. */
template <bool DIT, bool FUSED, bool SHOUP>
static __device__ __forceinline__ void pass_body(const pass_args &p) {
    extern __shared__ uint4 smem_raw[];
    uint2 *sm = reinterpret_cast<uint2 *>(smem_raw);
    const uint32_t nbits = p.k + p.wl, ng = group_count(p.k);
    for (uint32_t qq = 0; qq < ng; qq++) {
        uint32_t b, r;
        group_get(p.k, ng, DIT ? qq : ng - 1 - qq, b, r);
        if (qq) __syncthreads();
        const bool first = qq == 0, last = qq == ng - 1;
        if (r == 1)
            run_group<DIT, SHOUP, 1, FUSED>(p, sm, nbits, b, first, last);
        else
            run_group<DIT, SHOUP, 2, FUSED>(p, sm, nbits, b, first, last);
    }
}

/* The first DIF pass (last DIT pass), Montgomery twiddles: 4 blocks of 256
 * threads per SM cap the registers at 64 (32 warps per SM; ptxas spills
 * 48-92 B in the plain instances, 112-160 B in the fused ones); more
 * registers and fewer warps gain nothing. */
template <bool DIT, bool FUSED>
static __global__ void __launch_bounds__(256, 4) pass_kernel(const pass_args p) {
    pass_body<DIT, FUSED, false>(p);
}

/* The other passes, Shoup twiddles, at 80 registers (spills 36-44 B plain,
 * 108-124 B fused): 24 warps per SM, the fastest of 64, 72 and 80 with the
 * accumulators per parity (ff_mul.cuh), which need the registers. */
template <bool DIT, bool FUSED>
static __global__ void __maxnreg__(80) pass_kernel_shoup(const pass_args p) {
    pass_body<DIT, FUSED, true>(p);
}

/* In-place bit reversal by 16x16 tiles (L >= 8): i = (a, m, c) with a the top
 * 4 bits and c the low 4 goes to (brev c, brev m, brev a). Block m swaps its
 * tile with that of m' = brev(m) (m <= m'; m = m' transposes one tile), both
 * through shared memory, so each global access is a run of 16 elements
 * (512 B) instead of a scattered 32-byte swap. Rows padded to 17: the store
 * (lanes along c) and the load (lanes along brev c, a row each) hit 16
 * distinct banks. */
static __global__ void __launch_bounds__(256) bitrev_tile_kernel(fr_t *a, uint32_t L) {
    __shared__ uint2 t0[4][16 * 17], t1[4][16 * 17];
    const uint32_t mb = L - 8, m = blockIdx.x, m2 = mb ? __brev(m) >> (32 - mb) : 0;
    if (m > m2) return;
    const uint32_t ta = threadIdx.x >> 4, tc = threadIdx.x & 15;
    const uint32_t i0 = (ta << (L - 4)) | (m << 4) | tc, i1 = (ta << (L - 4)) | (m2 << 4) | tc;
    const uint32_t in = ta * 17 + tc, out = (__brev(tc) >> 28) * 17 + (__brev(ta) >> 28);
    {
        const fr_t x = ld(a + i0);
        const uint2 *s = reinterpret_cast<const uint2 *>(&x);
#pragma unroll
        for (int q = 0; q < 4; q++) t0[q][in] = s[q];
    }
    if (m != m2) {
        const fr_t y = ld(a + i1);
        const uint2 *s = reinterpret_cast<const uint2 *>(&y);
#pragma unroll
        for (int q = 0; q < 4; q++) t1[q][in] = s[q];
    }
    __syncthreads();
    fr_t x, y;
    uint2 *dx = reinterpret_cast<uint2 *>(&x), *dy = reinterpret_cast<uint2 *>(&y);
    /* position (a, m, c) receives the old element (brev c, m', brev a) */
#pragma unroll
    for (int q = 0; q < 4; q++) {
        dx[q] = m != m2 ? t1[q][out] : t0[q][out];
        dy[q] = t0[q][out];
    }
    st(a + i0, x);
    if (m != m2) st(a + i1, y);
}

/* out[j] = c * base^j for j < count (square and multiply over j's bits). */
static __global__ void powers_kernel(fr_t *out, uint32_t count, const fr_t base, const fr_t c) {
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    fr_t acc = c, b = base;
    for (uint32_t e = j; e; e >>= 1) {
        if (e & 1) mul(acc, acc, b);
        mul(b, b, b);
    }
    st(out + j, acc);
}

/* tw[j] = lo[j mod 2^bits] * hi[j >> bits], j < count. */
static __global__ void twiddle_kernel(fr_t *tw, size_t count, const fr_t *lo, const fr_t *hi,
                                      uint32_t bits) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < count; j += stride) {
        fr_t r;
        mul(r, ldg(lo + (j & ((1u << bits) - 1))), ldg(hi + (j >> bits)));
        st(tw + j, r);
    }
}

/* c[i], cq[i] = the Shoup form of tw[i << shift], i < count (ff.cuh
 * shoup_prepare; minv = r^-1 mod 2^256). */
static __global__ void shoup_kernel(fr_t *c, fr_t *cq, const fr_t *tw, size_t count,
                                    uint32_t shift, const fr_t minv) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        shoup_tw t;
        shoup_prepare(t.c, t.cq, ldg(tw + (i << shift)), minv);
        st(c + i, t.c);
        st(cq + i, t.cq);
    }
}

/* In-place bit-reversal permutation (an involution: swap i < rev(i)), for
 * n < 2^8, where bitrev_tile_kernel's 16x16 tiles do not fit. */
static __global__ void bitrev_kernel(fr_t *a, uint32_t L) {
    const uint32_t n = 1u << L, stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const uint32_t j = __brev(i) >> (32 - L);
        if (i < j) {
            const fr_t x = ld(a + i), y = ld(a + j);
            st(a + i, y);
            st(a + j, x);
        }
    }
}

/* out[i] = a[i] * b[i] */
static __global__ void hadamard_kernel(fr_t *out, const fr_t *a, const fr_t *b, uint32_t n) {
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        fr_t r;
        mul(r, ld(a + i), ld(b + i));
        st(out + i, r);
    }
}

/* a[i] = (a[i] * b[i] - c[i]) * k */
static __global__ void abc_kernel(fr_t *a, const fr_t *b, const fr_t *c, const fr_t k,
                                  uint32_t n) {
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        fr_t r;
        mul(r, ld(a + i), ld(b + i));
        sub(r, r, ld(c + i));
        mul(r, r, k);
        st(a + i, r);
    }
}

/* Pseudo-random reduced elements for the benchmark (mix32, ff.cuh). */
static __global__ void fill_kernel(fr_t *out, size_t n, uint64_t seed) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        fr_t r;
#pragma unroll
        for (int j = 0; j < 8; j++) r.v[j] = mix32((seed * 0x100000000ULL + i) * 8 + (uint64_t)j);
        r.v[7] &= fr_params::mod(7) >> 1; /* below the modulus */
        st(out + i, r);
    }
}

static unsigned grid_for(size_t n, unsigned threads) {
    size_t b = (n + threads - 1) / threads;
    return (unsigned)(b < 65536 ? (b ? b : 1) : 65536);
}

/* ---- domain ----------------------------------------------------------------- */

struct cuzk__gpu_ntt_domain {
    unsigned L;
    uint32_t n;
    int root;
    fr_t *tw;   /* n/2 twiddles (NULL for n = 1) */
    fr_t *sh_c, *sh_cq; /* the later passes' ones in Shoup form (shoup_tab; NULL for 1 pass) */
    uint32_t sh_shift;
    fr_t *tabs; /* the three H power tables, each lo (2^bits) then hi (2^(L-bits)) */
    hfr omega, omega_inv, n_inv, omega_2n, g, g_inv, bell_k; /* bell_k = zinv / n */
    pow_tab snark, bfwd, binv; /* omega_2n^j / n; g^j / n; g^-j zinv / n */
};

static uint32_t lo_bits(unsigned L) { return (L + 1) / 2; }
static size_t tab_elems(unsigned L) {
    return ((size_t)1 << lo_bits(L)) + ((size_t)1 << (L - lo_bits(L)));
}

/* Fills a table of tab_elems(L) elements at dst for c * s^j and describes it. */
static cuzk_status build_pow_tab(pow_tab *tb, fr_t *dst, unsigned L, const hfr &s, const hfr &c,
                                 uint32_t brev, cudaStream_t st) {
    const uint32_t b = lo_bits(L), nlo = 1u << b, nhi = 1u << (L - b);
    const hfr s_hi = h_sqr_times(s, b);
    powers_kernel<<<(nlo + 127) / 128, 128, 0, st>>>(dst, nlo, to_dev(s), to_dev(c));
    CUZK__CUDA_TRY(cudaGetLastError());
    powers_kernel<<<(nhi + 127) / 128, 128, 0, st>>>(dst + nlo, nhi, to_dev(s_hi),
                                                     to_dev(h_one()));
    CUZK__CUDA_TRY(cudaGetLastError());
    tb->lo = dst;
    tb->hi = dst + nlo;
    tb->bits = b;
    tb->brev = brev;
    tb->base = to_dev(s);
    return CUZK_OK;
}

static unsigned plan_passes(unsigned L, unsigned ks[4]);

static cuzk_status domain_body(cuzk__gpu_ntt_domain *d, fr_t **tmp) {
    const unsigned L = d->L;
    static const uint64_t r5[4] = CUZK__FR_ROOT5, r7[4] = CUZK__FR_ROOT7;
    hfr w;
    memcpy(w.l, d->root == 5 ? r5 : r7, sizeof w.l);
    /* omega_2^32 squared (32 - L) times has order 2^L; omega_2n one squaring earlier */
    d->omega_2n = h_sqr_times(w, 31 - L);
    d->omega = h_mul(d->omega_2n, d->omega_2n);
    d->omega_inv = h_inv(d->omega);
    d->n_inv = h_inv(h_from_u64((uint64_t)1 << L));
    d->g = h_from_u64(7); /* CUZK_H_BELLMAN_COSET_GEN (h.h) */
    d->g_inv = h_inv(d->g);
    /* Z(g omega^i) = g^n - 1: one constant, never zero (7 has order r - 1) */
    const hfr zinv = h_inv(h_sub(h_sqr_times(d->g, L), h_one()));
    d->bell_k = h_mul(zinv, d->n_inv);
    if (L == 0) return CUZK_OK;

    const size_t half = (size_t)1 << (L - 1), te = tab_elems(L);
    CUZK__CUDA_TRY(cudaMalloc(&d->tw, half * sizeof(fr_t)));
    CUZK__CUDA_TRY(cudaMalloc(&d->tabs, 3 * te * sizeof(fr_t)));
    CUZK__CUDA_TRY(cudaMalloc(tmp, tab_elems(L > 1 ? L - 1 : 1) * sizeof(fr_t)));
    /* twiddles omega^j, j < n/2 = 2^(L-1), from omega's power tables (for
     * L = 1 the one twiddle 1: tables of one element each) */
    pow_tab t;
    cuzk_status st;
    if ((st = build_pow_tab(&t, *tmp, L - 1, d->omega, h_one(), 0, 0)) != CUZK_OK) return st;
    twiddle_kernel<<<grid_for(half, 256), 256>>>(d->tw, half, t.lo, t.hi, t.bits);
    CUZK__CUDA_TRY(cudaGetLastError());
    /* the passes after the first read only exponents that are multiples of
     * 2^ks[0] (stage span h of a later pass: n/2h divides by 2^ks[0]) */
    unsigned ks[4];
    if (plan_passes(L, ks) > 1) {
        d->sh_shift = ks[0];
        const size_t nsh = half >> d->sh_shift;
        CUZK__CUDA_TRY(cudaMalloc(&d->sh_c, nsh * sizeof(fr_t)));
        CUZK__CUDA_TRY(cudaMalloc(&d->sh_cq, nsh * sizeof(fr_t)));
        fr_t minv;
        mod_inverse_words<fr_params>(minv.v);
        shoup_kernel<<<grid_for(nsh, 256), 256>>>(d->sh_c, d->sh_cq, d->tw, nsh, d->sh_shift,
                                                  minv);
        CUZK__CUDA_TRY(cudaGetLastError());
    }
    if ((st = build_pow_tab(&d->snark, d->tabs, L, d->omega_2n, d->n_inv, 1, 0)) != CUZK_OK)
        return st;
    if ((st = build_pow_tab(&d->bfwd, d->tabs + te, L, d->g, d->n_inv, 1, 0)) != CUZK_OK)
        return st;
    if ((st = build_pow_tab(&d->binv, d->tabs + 2 * te, L, d->g_inv, d->bell_k, 1, 0)) !=
        CUZK_OK)
        return st;
    CUZK__CUDA_TRY(cudaDeviceSynchronize());
    return CUZK_OK;
}

extern "C" void cuzk__gpu_ntt_domain_destroy(cuzk__gpu_ntt_domain *d) {
    if (!d) return;
    (void)cudaDeviceSynchronize(); /* no transform may still read the tables */
    if (d->tw) (void)cudaFree(d->tw);
    if (d->sh_c) (void)cudaFree(d->sh_c);
    if (d->sh_cq) (void)cudaFree(d->sh_cq);
    if (d->tabs) (void)cudaFree(d->tabs);
    memset(d, 0, sizeof *d);
    free(d);
}

extern "C" cuzk_status cuzk__gpu_ntt_domain_create(cuzk__gpu_ntt_domain **out, unsigned log_n,
                                                   int root) {
    if (!out) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    if (log_n > CUZK__GPU_NTT_MAX_LOG || (root != 5 && root != 7)) return CUZK_ERR_INVALID_ARG;
    cuzk__gpu_ntt_domain *d = (cuzk__gpu_ntt_domain *)calloc(1, sizeof *d);
    if (!d) return CUZK_ERR_NOMEM;
    d->L = log_n;
    d->n = 1u << log_n;
    d->root = root;
    fr_t *tmp = NULL;
    cuzk_status st = domain_body(d, &tmp);
    if (tmp) (void)cudaFree(tmp);
    if (st != CUZK_OK) {
        cuzk__gpu_ntt_domain_destroy(d);
        return st;
    }
    *out = d;
    return CUZK_OK;
}

extern "C" unsigned cuzk__gpu_ntt_domain_log(const cuzk__gpu_ntt_domain *d) {
    return d ? d->L : 0;
}

/* ---- transforms --------------------------------------------------------------- */

enum { ORD_NN = 0, ORD_NR = 1, ORD_RN = 2, ORD_RR = 3 };

#define NTT_KMAX 10u /* stages per pass: 2^10 elements, 32 KiB of shared memory */
#define NTT_MIN_BLOCK_LOG 9u /* at least 512 elements per block when n allows */

/* Stages per pass, DIF order (ks[0]: the top stages, the largest spans). As
 * few passes as NTT_KMAX allows, the stages split as evenly as possible with
 * the extra ones on the last passes; from 2^25 up the last pass takes the
 * full NTT_KMAX and the others split the rest that way (2^27: 8+9+10,
 * 2^28: 9+9+10; 2^24 stays 8+8+8). Chosen by timing the splits, not by a
 * model: the differences are a few percent. */
static unsigned plan_passes(unsigned L, unsigned ks[4]) {
    const unsigned P = (L + NTT_KMAX - 1) / NTT_KMAX;
    unsigned rest = L, even = P; /* stages and passes split evenly */
    if (P == 3 && L >= 25) {
        ks[2] = NTT_KMAX;
        rest -= NTT_KMAX;
        even = 2;
    }
    for (unsigned p = 0; p < even; p++) ks[p] = rest / even + (p >= even - rest % even ? 1 : 0);
    return P;
}

/* Steps of scale_unit for the group that loads (first) or stores (last). */
static fr_t scale_step(const pow_tab &tb, const pass_args &pa, bool dit, bool first) {
    const uint32_t ng = group_count(pa.k);
    uint32_t b, r;
    group_get(pa.k, ng, (dit == first) ? 0 : ng - 1, b, r);
    const uint32_t d = b + pa.cl;
    hfr base;
    memcpy(base.l, &tb.base, sizeof base.l);
    return to_dev(h_sqr_times(base, tb.brev ? pa.L - d - r : d));
}

/* One pass; shoup for all but the pass of the largest spans (pass_kernel,
 * pass_kernel_shoup). A pass without prologue or epilogue takes the kernel
 * instance without their code (smaller, for the instruction cache and the
 * register allocation of the plain passes that every transform has). */
static cuzk_status launch_pass(bool dit, bool shoup, pass_args &pa, uint32_t n, cudaStream_t s) {
    if (pa.pro == PRO_POW) pa.pro_step = scale_step(pa.pro_tab, pa, dit, true);
    if (pa.epi == EPI_POW) pa.epi_step = scale_step(pa.epi_tab, pa, dit, false);
    const uint32_t E = 1u << (pa.k + pa.wl), threads = E >> 2 ? E >> 2 : 1;
    const uint32_t blocks = n / E;
    const size_t smem = (size_t)E * sizeof(fr_t);
    const bool fused = pa.pro != PRO_NONE || pa.epi != EPI_NONE;
    void (*kern)(const pass_args);
    if (shoup)
        kern = dit ? (fused ? pass_kernel_shoup<true, true> : pass_kernel_shoup<true, false>)
                   : (fused ? pass_kernel_shoup<false, true> : pass_kernel_shoup<false, false>);
    else
        kern = dit ? (fused ? pass_kernel<true, true> : pass_kernel<true, false>)
                   : (fused ? pass_kernel<false, true> : pass_kernel<false, false>);
    kern<<<blocks, threads, smem, s>>>(pa);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

/* Elementwise extras of one transform. */
struct fuse {
    uint32_t pro, epi;
    pow_tab pro_tab, epi_tab;
    fr_t epi_c;
    const fr_t *ea, *eb;
};

/* All passes of a DIF (natural -> bit-reversed) or DIT (bit-reversed ->
 * natural), with the prologue on the first pass, the epilogue on the last. */
static cuzk_status run_passes(const cuzk__gpu_ntt_domain *d, fr_t *a, bool dit, bool inv,
                              const fuse &fz, cudaStream_t s) {
    unsigned ks[4];
    const unsigned L = d->L, P = plan_passes(L, ks);
    unsigned cls[4], rem = L;
    for (unsigned p = 0; p < P; p++) {
        rem -= ks[p];
        cls[p] = rem;
    }
    for (unsigned q = 0; q < P; q++) {
        const unsigned p = dit ? P - 1 - q : q;
        pass_args pa;
        memset(&pa, 0, sizeof pa);
        pa.a = a;
        pa.tw = d->tw;
        pa.sh.c = d->sh_c;
        pa.sh.cq = d->sh_cq;
        pa.sh.shift = d->sh_shift;
        pa.L = L;
        pa.k = ks[p];
        pa.cl = cls[p];
        const unsigned blog = L < NTT_MIN_BLOCK_LOG ? L : NTT_MIN_BLOCK_LOG;
        pa.wl = ks[p] >= blog ? 0 : blog - ks[p];
        pa.inv = inv;
        pa.final_pass = q == P - 1;
        if (q == 0) {
            pa.pro = fz.pro;
            pa.pro_tab = fz.pro_tab;
        }
        if (q == P - 1) {
            pa.epi = fz.epi;
            pa.epi_tab = fz.epi_tab;
            pa.epi_c = fz.epi_c;
            pa.ea = fz.ea;
            pa.eb = fz.eb;
        }
        cuzk_status st = launch_pass(dit, p > 0, pa, d->n, s);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

static cuzk_status permute(const cuzk__gpu_ntt_domain *d, fr_t *a, cudaStream_t s) {
    if (d->L < 2) return CUZK_OK;
    if (d->L >= 8)
        bitrev_tile_kernel<<<d->n >> 8, 256, 0, s>>>(a, d->L);
    else
        bitrev_kernel<<<grid_for(d->n, 256), 256, 0, s>>>(a, d->L);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

/* One transform in the given order. coef (may be NULL) scales the
 * coefficient side: the input of a forward transform, the output of an
 * inverse one (then it includes 1/n; without it the inverse multiplies by
 * 1/n). */
static cuzk_status transform(const cuzk__gpu_ntt_domain *d, fr_t *a, int order, bool inv,
                             const pow_tab *coef, cudaStream_t s) {
    const bool dit = order == ORD_RN;
    fuse fz;
    memset(&fz, 0, sizeof fz);
    if (!inv) {
        if (coef) {
            fz.pro = PRO_POW;
            fz.pro_tab = *coef;
            fz.pro_tab.brev = dit; /* DIT reads coefficients bit-reversed */
        }
    } else if (coef) {
        fz.epi = EPI_POW;
        fz.epi_tab = *coef;
        fz.epi_tab.brev = !dit; /* DIF writes coefficients bit-reversed */
    } else {
        fz.epi = EPI_MULC;
        fz.epi_c = to_dev(d->n_inv);
    }
    cuzk_status st;
    if (order == ORD_RR && (st = permute(d, a, s)) != CUZK_OK) return st;
    if ((st = run_passes(d, a, dit, inv, fz, s)) != CUZK_OK) return st;
    if (order == ORD_NN && (st = permute(d, a, s)) != CUZK_OK) return st;
    return CUZK_OK;
}

static cuzk_status check_xform(const cuzk__gpu_ntt_domain *d, const uint64_t *a, int order) {
    if (!d || !a || order < ORD_NN || order > ORD_RR) return CUZK_ERR_INVALID_ARG;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_ntt_forward(const cuzk__gpu_ntt_domain *d, uint64_t *a,
                                             int order, cuzk__gpu_stream s) {
    cuzk_status st = check_xform(d, a, order);
    if (st != CUZK_OK || d->L == 0) return st;
    return transform(d, reinterpret_cast<fr_t *>(a), order, false, NULL, s);
}

extern "C" cuzk_status cuzk__gpu_ntt_inverse(const cuzk__gpu_ntt_domain *d, uint64_t *a,
                                             int order, cuzk__gpu_stream s) {
    cuzk_status st = check_xform(d, a, order);
    if (st != CUZK_OK || d->L == 0) return st; /* n = 1: 1/n = 1 */
    return transform(d, reinterpret_cast<fr_t *>(a), order, true, NULL, s);
}

/* The bodies' stream-ordered scratch freed (NULL: none); a failure there is
 * the call's error unless the body had already failed. */
static cuzk_status free_scratch(fr_t *scratch, cuzk_status st, cudaStream_t s) {
    if (!scratch) return st;
    const cudaError_t e = cudaFreeAsync(scratch, s);
    if (e != cudaSuccess && st == CUZK_OK) {
        cuzk__gpu_record_error(e, "cudaFreeAsync(scratch, s)", __FILE__, __LINE__);
        st = CUZK_ERR_GPU;
    }
    return st;
}

/* A coset transform with its power table in stream-ordered scratch. */
static cuzk_status coset_body(const cuzk__gpu_ntt_domain *d, fr_t *a, int order, bool inv,
                              const hfr &g, fr_t **scratch, cudaStream_t s) {
    CUZK__CUDA_TRY(cudaMallocAsync(scratch, tab_elems(d->L) * sizeof(fr_t), s));
    pow_tab tb;
    cuzk_status st = inv ? build_pow_tab(&tb, *scratch, d->L, h_inv(g), d->n_inv, 0, s)
                         : build_pow_tab(&tb, *scratch, d->L, g, h_one(), 0, s);
    if (st != CUZK_OK) return st;
    return transform(d, a, order, inv, &tb, s);
}

static cuzk_status coset(const cuzk__gpu_ntt_domain *d, uint64_t *a, int order, bool inv,
                         const uint64_t *gw, cudaStream_t s) {
    cuzk_status st = check_xform(d, a, order);
    if (st != CUZK_OK) return st;
    if (!gw) return CUZK_ERR_INVALID_ARG;
    hfr g;
    memcpy(g.l, gw, sizeof g.l);
    if (h_is_zero(g)) return CUZK_ERR_INVALID_ARG;
    if (d->L == 0) return CUZK_OK; /* p(g) = p_0 */
    fr_t *scratch = NULL;
    st = coset_body(d, reinterpret_cast<fr_t *>(a), order, inv, g, &scratch, s);
    return free_scratch(scratch, st, s);
}

extern "C" cuzk_status cuzk__gpu_ntt_coset_forward(const cuzk__gpu_ntt_domain *d, uint64_t *a,
                                                   int order, const uint64_t *g,
                                                   cuzk__gpu_stream s) {
    return coset(d, a, order, false, g, s);
}

extern "C" cuzk_status cuzk__gpu_ntt_coset_inverse(const cuzk__gpu_ntt_domain *d, uint64_t *a,
                                                   int order, const uint64_t *g,
                                                   cuzk__gpu_stream s) {
    return coset(d, a, order, true, g, s);
}

/* ---- H ---------------------------------------------------------------------------- */

/* Values on <omega> -> values on zeta<omega>, natural order both sides (h.c):
 * DIF inverse, coefficient bitrev(p) times zeta^j / n on the last store, DIT
 * forward; for c the DIT's last store forms a = a*b - c. */
static cuzk_status coset_shift(const cuzk__gpu_ntt_domain *d, fr_t *v, const pow_tab &zeta,
                               const fr_t *abc_a, const fr_t *abc_b, cudaStream_t s) {
    fuse f1, f2;
    memset(&f1, 0, sizeof f1);
    memset(&f2, 0, sizeof f2);
    f1.epi = EPI_POW;
    f1.epi_tab = zeta; /* brev = 1 */
    cuzk_status st = run_passes(d, v, false, true, f1, s);
    if (st != CUZK_OK) return st;
    if (abc_a) {
        f2.epi = EPI_ABC;
        f2.ea = abc_a;
        f2.eb = abc_b;
    }
    return run_passes(d, v, true, false, f2, s);
}

/* before(ctx, vec, s) ahead of vector vec's first kernel (NULL: nothing). */
struct h_feed {
    cuzk__gpu_h_before_fn before;
    void *ctx;
};
static cuzk_status feed(const h_feed &f, unsigned vec, cudaStream_t s) {
    return f.before ? f.before(f.ctx, vec, (cuzk__gpu_stream)s) : CUZK_OK;
}

static cuzk_status h_body(const cuzk__gpu_ntt_domain *d, fr_t *a, fr_t *b, fr_t *c,
                          bool bellman, const h_feed &fd, fr_t **scratch, cudaStream_t s) {
    const uint32_t n = d->n;
    cuzk_status st;
    if (!c) {
        CUZK__CUDA_TRY(cudaMallocAsync(scratch, (size_t)n * sizeof(fr_t), s));
        c = *scratch;
        hadamard_kernel<<<grid_for(n, 256), 256, 0, s>>>(c, a, b, n);
        CUZK__CUDA_TRY(cudaGetLastError());
    }
    if (d->L == 0) {
        /* n = 1: every transform is the identity; snarkjs a*b - c, bellman
         * (a*b - c) * (g - 1)^-1 (1/n = 1) */
        for (unsigned v = 0; v < 3; v++)
            if ((st = feed(fd, v, s)) != CUZK_OK) return st;
        const fr_t k = to_dev(bellman ? d->bell_k : h_one());
        abc_kernel<<<1, 32, 0, s>>>(a, b, c, k, 1);
        CUZK__CUDA_TRY(cudaGetLastError());
        return CUZK_OK;
    }
    const pow_tab &z = bellman ? d->bfwd : d->snark;
    if ((st = feed(fd, 0, s)) != CUZK_OK || (st = coset_shift(d, a, z, NULL, NULL, s)) != CUZK_OK)
        return st;
    if ((st = feed(fd, 1, s)) != CUZK_OK || (st = coset_shift(d, b, z, NULL, NULL, s)) != CUZK_OK)
        return st;
    if ((st = feed(fd, 2, s)) != CUZK_OK || (st = coset_shift(d, c, z, a, b, s)) != CUZK_OK)
        return st;
    if (!bellman) return CUZK_OK;
    /* coset inverse with (g^n - 1)^-1 folded into 1/n, then natural order */
    fuse f;
    memset(&f, 0, sizeof f);
    f.epi = EPI_POW;
    f.epi_tab = d->binv;
    if ((st = run_passes(d, a, false, true, f, s)) != CUZK_OK) return st;
    return permute(d, a, s);
}

static cuzk_status h_run(const cuzk__gpu_ntt_domain *d, uint64_t *a, uint64_t *b, uint64_t *c,
                         bool bellman, const h_feed &fd, cudaStream_t s) {
    if (!d || !a || !b) return CUZK_ERR_INVALID_ARG;
    fr_t *scratch = NULL;
    cuzk_status st = h_body(d, reinterpret_cast<fr_t *>(a), reinterpret_cast<fr_t *>(b),
                            reinterpret_cast<fr_t *>(c), bellman, fd, &scratch, s);
    return free_scratch(scratch, st, s);
}

extern "C" cuzk_status cuzk__gpu_h_snarkjs(const cuzk__gpu_ntt_domain *d, uint64_t *a,
                                           uint64_t *b, uint64_t *c, cuzk__gpu_stream s) {
    return h_run(d, a, b, c, false, h_feed{NULL, NULL}, s);
}

extern "C" cuzk_status cuzk__gpu_h_bellman(const cuzk__gpu_ntt_domain *d, uint64_t *a,
                                           uint64_t *b, uint64_t *c, cuzk__gpu_stream s) {
    return h_run(d, a, b, c, true, h_feed{NULL, NULL}, s);
}

extern "C" cuzk_status cuzk__gpu_h_bellman_arriving(const cuzk__gpu_ntt_domain *d, uint64_t *a,
                                                    uint64_t *b, uint64_t *c,
                                                    cuzk__gpu_h_before_fn before, void *ctx,
                                                    cuzk__gpu_stream s) {
    if (!c || !before) return CUZK_ERR_INVALID_ARG;
    return h_run(d, a, b, c, true, h_feed{before, ctx}, s);
}

/* ---- host-buffer conveniences ------------------------------------------------------- */

static cuzk_status host_body(const cuzk__gpu_ntt_domain *d, void **buf, uint64_t *a,
                             uint64_t *b, uint64_t *c, int what, int order, const uint64_t *g) {
    const size_t bytes = (size_t)d->n * sizeof(fr_t);
    const int nvec = what >= 4 ? (c ? 3 : 2) : 1;
    uint64_t *host[3] = {a, b, c};
    CUZK__CUDA_TRY(cudaMalloc(buf, nvec * bytes));
    uint64_t *dv[3];
    for (int v = 0; v < nvec; v++) {
        dv[v] = reinterpret_cast<uint64_t *>(static_cast<char *>(*buf) + v * bytes);
        CUZK__CUDA_TRY(cudaMemcpy(dv[v], host[v], bytes, cudaMemcpyHostToDevice));
    }
    cuzk_status st = CUZK_ERR_INVALID_ARG;
    switch (what) {
    case CUZK__GPU_NTT_FWD: st = cuzk__gpu_ntt_forward(d, dv[0], order, NULL); break;
    case CUZK__GPU_NTT_INV: st = cuzk__gpu_ntt_inverse(d, dv[0], order, NULL); break;
    case CUZK__GPU_NTT_COSET_FWD: st = cuzk__gpu_ntt_coset_forward(d, dv[0], order, g, NULL); break;
    case CUZK__GPU_NTT_COSET_INV: st = cuzk__gpu_ntt_coset_inverse(d, dv[0], order, g, NULL); break;
    case 4: st = cuzk__gpu_h_snarkjs(d, dv[0], dv[1], nvec == 3 ? dv[2] : NULL, NULL); break;
    case 5: st = cuzk__gpu_h_bellman(d, dv[0], dv[1], nvec == 3 ? dv[2] : NULL, NULL); break;
    }
    if (st != CUZK_OK) return st;
    CUZK__CUDA_TRY(cudaDeviceSynchronize());
    for (int v = 0; v < nvec; v++)
        CUZK__CUDA_TRY(cudaMemcpy(host[v], dv[v], bytes, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

static cuzk_status host_run(const cuzk__gpu_ntt_domain *d, uint64_t *a, uint64_t *b,
                            uint64_t *c, int what, int order, const uint64_t *g) {
    if (!d || !a || (what >= 4 && !b)) return CUZK_ERR_INVALID_ARG;
    void *buf = NULL;
    cuzk_status st = host_body(d, &buf, a, b, c, what, order, g);
    if (buf) (void)cudaFree(buf);
    return st;
}

extern "C" cuzk_status cuzk__gpu_ntt_host(const cuzk__gpu_ntt_domain *d, uint64_t *a,
                                          cuzk__gpu_ntt_op op, int order, const uint64_t *g) {
    if ((unsigned)op > CUZK__GPU_NTT_COSET_INV) return CUZK_ERR_INVALID_ARG;
    return host_run(d, a, NULL, NULL, (int)op, order, g);
}

extern "C" cuzk_status cuzk__gpu_h_host(const cuzk__gpu_ntt_domain *d, uint64_t *a, uint64_t *b,
                                        uint64_t *c, int bellman) {
    return host_run(d, a, b, c, bellman ? 5 : 4, 0, NULL);
}

/* ---- timing --------------------------------------------------------------------------- */

#define NTT_BENCH_MAX_REPS 64

static cuzk_status bench_once(const cuzk__gpu_ntt_domain *d, fr_t *v, int op, cudaStream_t s) {
    uint64_t *a = reinterpret_cast<uint64_t *>(v);
    const size_t n = d->n;
    const hfr g = h_from_u64(7);
    switch (op) {
    case CUZK__GPU_BENCH_FWD_NR: return cuzk__gpu_ntt_forward(d, a, ORD_NR, s);
    case CUZK__GPU_BENCH_FWD_NN: return cuzk__gpu_ntt_forward(d, a, ORD_NN, s);
    case CUZK__GPU_BENCH_INV_NN: return cuzk__gpu_ntt_inverse(d, a, ORD_NN, s);
    case CUZK__GPU_BENCH_COSET_FWD_NN: return cuzk__gpu_ntt_coset_forward(d, a, ORD_NN, g.l, s);
    case CUZK__GPU_BENCH_COSET_INV_NN: return cuzk__gpu_ntt_coset_inverse(d, a, ORD_NN, g.l, s);
    case CUZK__GPU_BENCH_H_SNARKJS:
        return cuzk__gpu_h_snarkjs(d, a, a + 4 * n, a + 8 * n, s);
    case CUZK__GPU_BENCH_H_BELLMAN:
        return cuzk__gpu_h_bellman(d, a, a + 4 * n, a + 8 * n, s);
    }
    return CUZK_ERR_INVALID_ARG;
}

static cuzk_status bench_body(cuzk__gpu_ntt_bench_result *res, const cuzk__gpu_ntt_domain *d,
                              int op, unsigned reps, void **buf, cudaStream_t *s,
                              cudaEvent_t ev[2]) {
    const size_t elems = (size_t)d->n * (op >= CUZK__GPU_BENCH_H_SNARKJS ? 3 : 1);
    CUZK__CUDA_TRY(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    CUZK__CUDA_TRY(cudaEventCreate(&ev[0]));
    CUZK__CUDA_TRY(cudaEventCreate(&ev[1]));
    CUZK__CUDA_TRY(cudaMalloc(buf, elems * sizeof(fr_t)));
    fr_t *v = static_cast<fr_t *>(*buf);
    fill_kernel<<<grid_for(elems, 256), 256, 0, *s>>>(v, elems, 12345);
    CUZK__CUDA_TRY(cudaGetLastError());
    cuzk_status st = bench_once(d, v, op, *s); /* warm-up */
    if (st != CUZK_OK) return st;
    CUZK__CUDA_TRY(cudaStreamSynchronize(*s));
    double ms[NTT_BENCH_MAX_REPS] = {0};
    for (unsigned r = 0; r < reps; r++) {
        CUZK__CUDA_TRY(cudaEventRecord(ev[0], *s));
        if ((st = bench_once(d, v, op, *s)) != CUZK_OK) return st;
        CUZK__CUDA_TRY(cudaEventRecord(ev[1], *s));
        CUZK__CUDA_TRY(cudaEventSynchronize(ev[1]));
        float t = 0;
        CUZK__CUDA_TRY(cudaEventElapsedTime(&t, ev[0], ev[1]));
        unsigned k = r;
        for (; k > 0 && ms[k - 1] > t; k--) ms[k] = ms[k - 1];
        ms[k] = t;
    }
    res->reps = reps;
    res->ms_min = ms[0];
    res->ms_median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_ntt_bench(cuzk__gpu_ntt_bench_result *res,
                                           const cuzk__gpu_ntt_domain *d,
                                           cuzk__gpu_ntt_bench_op op, unsigned reps) {
    if (!res || !d || (unsigned)op >= CUZK__GPU_BENCH_COUNT || reps == 0 ||
        reps > NTT_BENCH_MAX_REPS)
        return CUZK_ERR_INVALID_ARG;
    void *buf = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    cuzk_status st = bench_body(res, d, (int)op, reps, &buf, &s, ev);
    if (s) (void)cudaStreamSynchronize(s);
    if (buf) (void)cudaFree(buf);
    for (int i = 0; i < 2; i++)
        if (ev[i]) (void)cudaEventDestroy(ev[i]);
    if (s) (void)cudaStreamDestroy(s);
    return st;
}
