/*
 * fr.h — the scalar field Fr of BLS12-381 (255-bit r), Montgomery form over
 * four 64-bit limbs.
 *
 * Contract: a cuzk_fr always holds x*R mod r with R = 2^256, fully reduced
 * (< r). Every function accepts aliased outputs. Functions are constant-time
 * in their field inputs unless their name ends in _var.
 */
#ifndef CUZK_FR_H
#define CUZK_FR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ff/bls12_381_consts.h"
#include "ff/cpu.h"
#include "ff/limbs.h"

#define CUZK_FR_LIMBS 4
#define CUZK_FR_BYTES 32

typedef struct {
    uint64_t l[CUZK_FR_LIMBS];
} cuzk_fr;

static const uint64_t cuzk__fr_r[CUZK_FR_LIMBS] = CUZK__FR_R;
static const cuzk_fr cuzk__fr_one = {CUZK__FR_ONE};

#if CUZK_HAVE_X86_64_ASM
/* The portable kernels of limbs.h, not inlined (for CPUs without ADX); fr.c. */
void cuzk__fr_add_c(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk__fr_sub_c(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk__fr_mul_c(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk__fr_sqr_c(cuzk_fr *r, const cuzk_fr *a);
#endif

static inline void cuzk_fr_set_zero(cuzk_fr *r) {
    for (int i = 0; i < CUZK_FR_LIMBS; i++) r->l[i] = 0;
}
static inline void cuzk_fr_set_one(cuzk_fr *r) { *r = cuzk__fr_one; }

static inline void cuzk_fr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__add_mod_256_adx(r->l, a->l, b->l, cuzk__fr_r);
        return;
    }
    cuzk__fr_add_c(r, a, b); /* out of line: keeps the callers lean */
#else
    cuzk__add_mod_n(r->l, a->l, b->l, cuzk__fr_r, CUZK_FR_LIMBS);
#endif
}
static inline void cuzk_fr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__sub_mod_256_adx(r->l, a->l, b->l, cuzk__fr_r);
        return;
    }
    cuzk__fr_sub_c(r, a, b); /* out of line: keeps the callers lean */
#else
    cuzk__sub_mod_n(r->l, a->l, b->l, cuzk__fr_r, CUZK_FR_LIMBS);
#endif
}
static inline void cuzk_fr_dbl(cuzk_fr *r, const cuzk_fr *a) { cuzk_fr_add(r, a, a); }
static inline void cuzk_fr_neg(cuzk_fr *r, const cuzk_fr *a) {
    cuzk__neg_mod_n(r->l, a->l, cuzk__fr_r, CUZK_FR_LIMBS);
}

static inline void cuzk_fr_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__mul_mont_256_adx(r->l, a->l, b->l, cuzk__fr_r, CUZK__FR_N0);
        return;
    }
    cuzk__fr_mul_c(r, a, b); /* out of line: keeps the callers lean */
#else
    cuzk__mont_mul_n(r->l, a->l, b->l, cuzk__fr_r, CUZK__FR_N0, CUZK_FR_LIMBS);
#endif
}
static inline void cuzk_fr_sqr(cuzk_fr *r, const cuzk_fr *a) {
#if CUZK_HAVE_X86_64_ASM
    if (cuzk__cpu_adx) {
        cuzk__sqr_mont_256_adx(r->l, a->l, cuzk__fr_r, CUZK__FR_N0);
        return;
    }
    cuzk__fr_sqr_c(r, a); /* out of line: keeps the callers lean */
#else
    cuzk__mont_mul_n(r->l, a->l, a->l, cuzk__fr_r, CUZK__FR_N0, CUZK_FR_LIMBS);
#endif
}

static inline bool cuzk_fr_is_zero(const cuzk_fr *a) {
    return cuzk__is_zero_n(a->l, CUZK_FR_LIMBS);
}
static inline bool cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b) {
    return cuzk__eq_n(a->l, b->l, CUZK_FR_LIMBS);
}
static inline bool cuzk_fr_is_one(const cuzk_fr *a) { return cuzk_fr_eq(a, &cuzk__fr_one); }
static inline void cuzk_fr_cmov(cuzk_fr *r, const cuzk_fr *a, bool flag) {
    cuzk__cmov_n(r->l, a->l, (uint64_t)flag, CUZK_FR_LIMBS);
}

/* Conversions between Montgomery and plain limbs; plain input must be < r. */
void cuzk_fr_from_limbs(cuzk_fr *r, const uint64_t a[CUZK_FR_LIMBS]);
void cuzk_fr_to_limbs(uint64_t r[CUZK_FR_LIMBS], const cuzk_fr *a);
void cuzk_fr_from_u64(cuzk_fr *r, uint64_t v);

/* Canonical 32-byte encodings; from_* returns false (r untouched) when >= r. */
bool cuzk_fr_from_bytes_be(cuzk_fr *r, const uint8_t in[CUZK_FR_BYTES]);
bool cuzk_fr_from_bytes_le(cuzk_fr *r, const uint8_t in[CUZK_FR_BYTES]);
void cuzk_fr_to_bytes_be(uint8_t out[CUZK_FR_BYTES], const cuzk_fr *a);
void cuzk_fr_to_bytes_le(uint8_t out[CUZK_FR_BYTES], const cuzk_fr *a);

void cuzk_fr_pow(cuzk_fr *r, const cuzk_fr *a, const uint64_t *e, size_t nlimbs);
void cuzk_fr_inv(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_inv_var(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_batch_inv_var(cuzk_fr *out, const cuzk_fr *a, size_t n, cuzk_fr *scratch);
/* Tonelli-Shanks (2-adicity 32). Variable-time. */
bool cuzk_fr_sqrt_var(cuzk_fr *r, const cuzk_fr *a);
bool cuzk_fr_is_square(const cuzk_fr *a);

#endif /* CUZK_FR_H */
