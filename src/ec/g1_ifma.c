/* g1_ifma.c — batches of G1 affine additions on AVX-512 IFMA (see g1_ifma.h). */
#include "ec/g1_ifma.h"

#include <stdlib.h>
#include <string.h>

#include "ff/cpu.h"

#if CUZK__IFMA_BUILT
#include <immintrin.h>

#define IFMA __attribute__((target("avx512f,avx512ifma")))
#define M52 0xfffffffffffffULL

/* p in 52-bit limbs, and -p^-1 mod 2^52 (written out from cuzk__fp_p; a wrong
 * limb fails every comparison of test_g1_ifma) */
static const uint64_t P52[8] = {0xeffffffffaaab, 0xfeb153ffffb9f, 0x6b0f6241eabff,
                                0x12bf6730d2a0f, 0x764774b84f385, 0x1ba7b6434bacd,
                                0x1ea397fe69a4b, 0x1a011};
#define N0_52 0x3fffcfffcfffdULL

/* Eight Fp elements: limb i (52 bits, bit 52i up) of lane k in v[i][k]. */
typedef struct {
    __m512i v[8];
} v52;

/* The elements at the eight addresses in addr (one 6-word cuzk_fp each). */
IFMA static inline void v52_load(v52 *r, __m512i addr) {
    const __m512i m = _mm512_set1_epi64((long long)M52);
    __m512i w[6];
    for (int j = 0; j < 6; j++)
        w[j] = _mm512_i64gather_epi64(_mm512_add_epi64(addr, _mm512_set1_epi64(8 * j)), NULL, 1);
    /* limb i = bits [52i, 52i + 52): word j >> s joined with word j + 1 << (64 - s) */
#define JOIN(j, s)                                                                             \
    _mm512_or_si512(_mm512_srli_epi64(w[j], s), _mm512_slli_epi64(w[(j) + 1], 64 - (s)))
    r->v[0] = _mm512_and_si512(w[0], m);
    r->v[1] = _mm512_and_si512(JOIN(0, 52), m);
    r->v[2] = _mm512_and_si512(JOIN(1, 40), m);
    r->v[3] = _mm512_and_si512(JOIN(2, 28), m);
    r->v[4] = _mm512_and_si512(JOIN(3, 16), m);
    r->v[5] = _mm512_and_si512(_mm512_srli_epi64(w[4], 4), m);
    r->v[6] = _mm512_and_si512(JOIN(4, 56), m);
#undef JOIN
    r->v[7] = _mm512_srli_epi64(w[5], 44);
}

/* Writes the lanes in mask to their addresses (fully reduced limbs). */
IFMA static inline void v52_store(__m512i addr, __mmask8 mask, const v52 *a) {
    const __m512i *l = a->v;
    __m512i w[6];
    w[0] = _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(l[1], 12), _mm512_slli_epi64(l[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(l[2], 24), _mm512_slli_epi64(l[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(l[3], 36), _mm512_slli_epi64(l[4], 16));
    w[4] = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi64(l[4], 48), _mm512_slli_epi64(l[5], 4)),
                           _mm512_slli_epi64(l[6], 56));
    w[5] = _mm512_or_si512(_mm512_srli_epi64(l[6], 8), _mm512_slli_epi64(l[7], 44));
    for (int j = 0; j < 6; j++)
        _mm512_mask_i64scatter_epi64(NULL, mask, _mm512_add_epi64(addr, _mm512_set1_epi64(8 * j)),
                                     w[j], 1);
}

/* r = u - p where that does not borrow, else u (u < 2p, limbs normalized). */
IFMA static inline void v52_reduce_once(v52 *r, const __m512i u[8]) {
    const __m512i m = _mm512_set1_epi64((long long)M52);
    __m512i d[8], borrow = _mm512_setzero_si512();
    for (int i = 0; i < 8; i++) {
        __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(u[i], _mm512_set1_epi64((long long)P52[i])),
                                     borrow);
        borrow = _mm512_srli_epi64(x, 63);
        d[i] = _mm512_and_si512(x, m);
    }
    const __mmask8 keep = _mm512_test_epi64_mask(borrow, borrow); /* u < p */
    for (int i = 0; i < 8; i++) r->v[i] = _mm512_mask_blend_epi64(keep, d[i], u[i]);
}

/*
 * r = a b 2^-384 mod p (a, b < p): the 16-limb product by IFMA low/high
 * halves; seven 52-bit Montgomery rounds (q = t_i n0 mod 2^52 zeroes limb
 * i, whose carry moves up) and one of 20 bits on limb 7 (384 = 7*52 + 20);
 * then limbs 7.. normalized and shifted down 20 bits: the result < 2p, one
 * conditional subtraction. Every limb sum stays below 2^58 (at most 16
 * product halves and 16 reduction halves of < 2^52 each, plus carries).
 */
IFMA static inline void v52_mul(v52 *r, const v52 *a, const v52 *b) {
    const __m512i z = _mm512_setzero_si512(), m = _mm512_set1_epi64((long long)M52);
    const __m512i n0 = _mm512_set1_epi64((long long)N0_52);
    __m512i t[16];
    for (int k = 0; k < 16; k++) t[k] = z;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a->v[i], b->v[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a->v[i], b->v[j]);
        }
    for (int i = 0; i < 8; i++) {
        __m512i q = _mm512_madd52lo_epu64(z, t[i], n0);
        if (i == 7) q = _mm512_and_si512(q, _mm512_set1_epi64(0xfffff));
        for (int j = 0; j < 8; j++) {
            const __m512i pj = _mm512_set1_epi64((long long)P52[j]);
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], q, pj);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], q, pj);
        }
        if (i < 7) t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
    }
    for (int k = 7; k < 15; k++) {
        t[k + 1] = _mm512_add_epi64(t[k + 1], _mm512_srli_epi64(t[k], 52));
        t[k] = _mm512_and_si512(t[k], m);
    }
    __m512i u[8];
    for (int i = 0; i < 8; i++)
        u[i] = _mm512_or_si512(_mm512_srli_epi64(t[7 + i], 20),
                               _mm512_and_si512(_mm512_slli_epi64(t[8 + i], 32), m));
    v52_reduce_once(r, u);
}

/* r = a - b mod p */
IFMA static inline void v52_sub(v52 *r, const v52 *a, const v52 *b) {
    const __m512i m = _mm512_set1_epi64((long long)M52);
    __m512i d[8], borrow = _mm512_setzero_si512();
    for (int i = 0; i < 8; i++) {
        __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(a->v[i], b->v[i]), borrow);
        borrow = _mm512_srli_epi64(x, 63);
        d[i] = _mm512_and_si512(x, m);
    }
    /* a < b: add p back (the sum's carry out of limb 7 cancels the borrow) */
    const __mmask8 neg = _mm512_test_epi64_mask(borrow, borrow);
    __m512i carry = _mm512_setzero_si512();
    for (int i = 0; i < 8; i++) {
        __m512i x = _mm512_add_epi64(_mm512_add_epi64(d[i], _mm512_set1_epi64((long long)P52[i])),
                                     carry);
        carry = _mm512_srli_epi64(x, 52);
        r->v[i] = _mm512_mask_blend_epi64(neg, d[i], _mm512_and_si512(x, m));
    }
}

/* base + k stride for the lanes k = 0..7 (the elements of a local array, or
 * one element eight times with stride 0) */
IFMA static inline __m512i addresses(const void *base, size_t stride) {
    const long long b = (long long)(uintptr_t)base, s = (long long)stride;
    return _mm512_setr_epi64(b, b + s, b + 2 * s, b + 3 * s, b + 4 * s, b + 5 * s, b + 6 * s,
                             b + 7 * s);
}

/* The eight pointers from p[g*8] on as a vector; lanes past m repeat p[0]. */
IFMA static inline __m512i lanes(const void *const *p, size_t g, size_t m) {
    if (g * 8 + 8 <= m) return _mm512_loadu_si512((const void *)(p + g * 8));
    uint64_t v[8];
    for (size_t k = 0; k < 8; k++) v[k] = (uint64_t)(uintptr_t)p[g * 8 + k < m ? g * 8 + k : 0];
    return _mm512_loadu_si512(v);
}

/*
 * Montgomery's trick over eight lane chains for up to 512 pairs: forward,
 * den = bx - ax and the lane's prefix product; the eight lane products
 * inverted together (scalar); backward, each den replaced by its inverse;
 * then, groups in increasing order, l = (by - ay)/den, x3 = l^2 - ax - bx,
 * y3 = l (ax - x3) - ay, each group loading all its inputs before storing
 * (the aliasing contract of the header). Lanes past m compute pair 0 again
 * and store nothing.
 */
IFMA static void add_chunk(cuzk_g1_aff *const *out, const cuzk_g1_aff *const *a,
                           const cuzk_g1_aff *const *b, size_t m, v52 *den, v52 *pref) {
    v52 acc;
    const size_t groups = (m + 7) / 8;
    const __m512i yoff = _mm512_set1_epi64((long long)sizeof(cuzk_fp));
    v52_load(&acc, addresses(&cuzk__fp_one, 0));
    for (size_t g = 0; g < groups; g++) {
        v52 ax, bx;
        v52_load(&ax, lanes((const void *const *)a, g, m));
        v52_load(&bx, lanes((const void *const *)b, g, m));
        v52_sub(&den[g], &bx, &ax);
        pref[g] = acc;
        v52_mul(&acc, &acc, &den[g]);
    }
    /* the eight lane products (nonzero) inverted together on the scalar side */
    cuzk_fp lane[8], tmp[8];
    v52_store(addresses(lane, sizeof(cuzk_fp)), 0xff, &acc);
    cuzk_fp_batch_inv_var(lane, lane, 8, tmp);
    v52_load(&acc, addresses(lane, sizeof(cuzk_fp)));
    for (size_t g = groups; g-- > 0;) {
        v52 dinv;
        v52_mul(&dinv, &acc, &pref[g]);
        v52_mul(&acc, &acc, &den[g]);
        den[g] = dinv;
    }
    for (size_t g = 0; g < groups; g++) {
        const __m512i pa = lanes((const void *const *)a, g, m);
        const __m512i pb = lanes((const void *const *)b, g, m);
        const __m512i po = lanes((const void *const *)out, g, m);
        const __mmask8 valid = (__mmask8)(m - g * 8 >= 8 ? 0xff : (1u << (m - g * 8)) - 1);
        v52 ax, ay, bx, by, l, t, x3, y3;
        v52_load(&ax, pa);
        v52_load(&ay, _mm512_add_epi64(pa, yoff));
        v52_load(&bx, pb);
        v52_load(&by, _mm512_add_epi64(pb, yoff));
        v52_sub(&t, &by, &ay);
        v52_mul(&l, &t, &den[g]);
        v52_mul(&x3, &l, &l);
        v52_sub(&x3, &x3, &ax);
        v52_sub(&x3, &x3, &bx);
        v52_sub(&t, &ax, &x3);
        v52_mul(&y3, &l, &t);
        v52_sub(&y3, &y3, &ay);
        v52_store(po, valid, &x3);
        v52_store(_mm512_add_epi64(po, yoff), valid, &y3);
    }
}

size_t cuzk__g1_add_batch_ifma_scratch(void) {
    return 2 * (CUZK__G1_IFMA_CHUNK / 8) * sizeof(v52) + 64;
}

IFMA void cuzk__g1_add_batch_ifma(cuzk_g1_aff *const *out, const cuzk_g1_aff *const *a,
                                  const cuzk_g1_aff *const *b, size_t m, void *scratch) {
    v52 *den = (v52 *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    v52 *pref = den + CUZK__G1_IFMA_CHUNK / 8;
    for (size_t k = 0; k < m; k += CUZK__G1_IFMA_CHUNK)
        add_chunk(out + k, a + k, b + k, m - k < CUZK__G1_IFMA_CHUNK ? m - k : CUZK__G1_IFMA_CHUNK,
                  den, pref);
}

#else

size_t cuzk__g1_add_batch_ifma_scratch(void) { return 0; }

void cuzk__g1_add_batch_ifma(cuzk_g1_aff *const *out, const cuzk_g1_aff *const *a,
                             const cuzk_g1_aff *const *b, size_t m, void *scratch) {
    (void)out, (void)a, (void)b, (void)m, (void)scratch;
    abort(); /* not compiled here, so cuzk__cpu_ifma is 0 and no caller gets here */
}

#endif
