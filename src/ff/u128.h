/*
 * u128.h — 64x64->128 multiplication and add-with-carry behind one API, so
 * the limb kernels are written once. The native backend uses the compiler's
 * unsigned __int128; the portable one splits into 32-bit halves.
 */
#ifndef CUZK_U128_H
#define CUZK_U128_H

#include <stdint.h>

#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 cuzk__u128;

/* lo + hi*2^64 = a*b + c + d (never overflows: (2^64-1)^2 + 2(2^64-1) < 2^128) */
static inline uint64_t cuzk__mac(uint64_t *hi, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    cuzk__u128 t = (cuzk__u128)a * b + c + d;
    *hi = (uint64_t)(t >> 64);
    return (uint64_t)t;
}
#else
static inline uint64_t cuzk__mac(uint64_t *hi, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    uint64_t lo = (mid << 32) | (uint32_t)ll;
    uint64_t h = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    lo += c; h += lo < c;
    lo += d; h += lo < d;
    *hi = h;
    return lo;
}
#endif

/*
 * a + b + carry_in and a - b - borrow_in, the flag (0 or 1) passed in and out
 * through *carry / *borrow. On x86-64 the intrinsics compile to one adc/sbb
 * each, so unrolled limb loops become single carry chains; the portable
 * versions are what compilers cannot always see through (about 3x slower Fp
 * additions, measured in doc/performance.md).
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
static inline uint64_t cuzk__adc(uint64_t a, uint64_t b, uint64_t *carry) {
    unsigned long long s;
    *carry = _addcarry_u64((unsigned char)*carry, a, b, &s);
    return s;
}
static inline uint64_t cuzk__sbb(uint64_t a, uint64_t b, uint64_t *borrow) {
    unsigned long long d;
    *borrow = _subborrow_u64((unsigned char)*borrow, a, b, &d);
    return d;
}
#else
static inline uint64_t cuzk__adc(uint64_t a, uint64_t b, uint64_t *carry) {
    uint64_t s = a + *carry;
    uint64_t c1 = s < a;
    s += b;
    *carry = c1 | (s < b);
    return s;
}
static inline uint64_t cuzk__sbb(uint64_t a, uint64_t b, uint64_t *borrow) {
    uint64_t d = a - b;
    uint64_t b1 = a < b;
    uint64_t r = d - *borrow;
    *borrow = b1 | (d < *borrow);
    return r;
}
#endif

#endif /* CUZK_U128_H */
