/*
 * fp.h — the base field Fp of BLS12-381 (381-bit p), Montgomery form over six
 * 64-bit limbs.
 *
 * Contract: a cuzk_fp always holds x*R mod p with R = 2^384, fully reduced
 * (< p). Every function accepts aliased outputs. Functions are constant-time
 * in their field inputs unless their name ends in _var.
 */
#ifndef CUZK_FP_H
#define CUZK_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ff/bls12_381_consts.h"
#include "ff/cpu.h"
#include "ff/limbs.h"

#define CUZK_FP_LIMBS 6
#define CUZK_FP_BYTES 48

typedef struct {
    uint64_t l[CUZK_FP_LIMBS];
} cuzk_fp;

static const uint64_t cuzk__fp_p[CUZK_FP_LIMBS] = CUZK__FP_P;
static const cuzk_fp cuzk__fp_one = {CUZK__FP_ONE};

#if CUZK_HAVE_X86_64_ASM
/* The portable kernels of limbs.h, not inlined (for CPUs without ADX); fp.c. */
void cuzk__fp_add_c(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk__fp_sub_c(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk__fp_mul_c(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk__fp_sqr_c(cuzk_fp *r, const cuzk_fp *a);
#endif

static inline void cuzk_fp_set_zero(cuzk_fp *r) {
    for (int i = 0; i < CUZK_FP_LIMBS; i++) r->l[i] = 0;
}
static inline void cuzk_fp_set_one(cuzk_fp *r) { *r = cuzk__fp_one; }

static inline void cuzk_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__add_mod_384_adx(r->l, a->l, b->l, cuzk__fp_p);
        return;
    }
    cuzk__fp_add_c(r, a, b); /* out of line: keeps the callers lean */
#else
    cuzk__add_mod_n(r->l, a->l, b->l, cuzk__fp_p, CUZK_FP_LIMBS);
#endif
}
static inline void cuzk_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__sub_mod_384_adx(r->l, a->l, b->l, cuzk__fp_p);
        return;
    }
    cuzk__fp_sub_c(r, a, b); /* out of line: keeps the callers lean */
#else
    cuzk__sub_mod_n(r->l, a->l, b->l, cuzk__fp_p, CUZK_FP_LIMBS);
#endif
}
static inline void cuzk_fp_dbl(cuzk_fp *r, const cuzk_fp *a) { cuzk_fp_add(r, a, a); }
static inline void cuzk_fp_neg(cuzk_fp *r, const cuzk_fp *a) {
    cuzk__neg_mod_n(r->l, a->l, cuzk__fp_p, CUZK_FP_LIMBS);
}

static inline void cuzk_fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__mul_mont_384_adx(r->l, a->l, b->l, cuzk__fp_p, CUZK__FP_N0);
        return;
    }
    cuzk__fp_mul_c(r, a, b); /* out of line: keeps the callers lean */
#else
    cuzk__mont_mul_n(r->l, a->l, b->l, cuzk__fp_p, CUZK__FP_N0, CUZK_FP_LIMBS);
#endif
}
static inline void cuzk_fp_sqr(cuzk_fp *r, const cuzk_fp *a) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__sqr_mont_384_adx(r->l, a->l, cuzk__fp_p, CUZK__FP_N0);
        return;
    }
    cuzk__fp_sqr_c(r, a); /* out of line: keeps the callers lean */
#else
    cuzk__mont_mul_n(r->l, a->l, a->l, cuzk__fp_p, CUZK__FP_N0, CUZK_FP_LIMBS);
#endif
}

static inline bool cuzk_fp_is_zero(const cuzk_fp *a) {
    return cuzk__is_zero_n(a->l, CUZK_FP_LIMBS);
}
static inline bool cuzk_fp_eq(const cuzk_fp *a, const cuzk_fp *b) {
    return cuzk__eq_n(a->l, b->l, CUZK_FP_LIMBS);
}
static inline bool cuzk_fp_is_one(const cuzk_fp *a) { return cuzk_fp_eq(a, &cuzk__fp_one); }
/* r = flag ? a : r */
static inline void cuzk_fp_cmov(cuzk_fp *r, const cuzk_fp *a, bool flag) {
    cuzk__cmov_n(r->l, a->l, (uint64_t)flag, CUZK_FP_LIMBS);
}

/* Conversions between Montgomery and plain limbs; plain input must be < p. */
void cuzk_fp_from_limbs(cuzk_fp *r, const uint64_t a[CUZK_FP_LIMBS]);
void cuzk_fp_to_limbs(uint64_t r[CUZK_FP_LIMBS], const cuzk_fp *a);
void cuzk_fp_from_u64(cuzk_fp *r, uint64_t v);

/* Canonical 48-byte encodings. from_* returns false (r untouched) when the
 * integer is >= p. */
bool cuzk_fp_from_bytes_be(cuzk_fp *r, const uint8_t in[CUZK_FP_BYTES]);
bool cuzk_fp_from_bytes_le(cuzk_fp *r, const uint8_t in[CUZK_FP_BYTES]);
void cuzk_fp_to_bytes_be(uint8_t out[CUZK_FP_BYTES], const cuzk_fp *a);
void cuzk_fp_to_bytes_le(uint8_t out[CUZK_FP_BYTES], const cuzk_fp *a);

/* r = a^e, e given as little-endian limbs of nlimbs words (public exponent:
 * the time depends on e, not on a). */
void cuzk_fp_pow(cuzk_fp *r, const cuzk_fp *a, const uint64_t *e, size_t nlimbs);
/* r = a^-1 (0 maps to 0). Constant-time (Fermat). */
void cuzk_fp_inv(cuzk_fp *r, const cuzk_fp *a);
/* r = a^-1 (0 maps to 0). Variable-time binary extended Euclid; for public values. */
void cuzk_fp_inv_var(cuzk_fp *r, const cuzk_fp *a);
/* out[i] = a[i]^-1 for all i with one inversion (Montgomery's trick); zeros stay
 * zero. scratch holds n elements. Variable-time in which inputs are zero. */
void cuzk_fp_batch_inv_var(cuzk_fp *out, const cuzk_fp *a, size_t n, cuzk_fp *scratch);
/* r = sqrt(a) when a is a square (returns true); otherwise false, r untouched.
 * The root returned is a^((p+1)/4), no sign normalization. */
bool cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a);
/* true when a is a nonzero square or zero (Euler's criterion). */
bool cuzk_fp_is_square(const cuzk_fp *a);
/* true when the canonical value of a is > (p-1)/2 (zcash's "largest" flag). */
bool cuzk_fp_is_lexicographically_largest(const cuzk_fp *a);

#endif /* CUZK_FP_H */
