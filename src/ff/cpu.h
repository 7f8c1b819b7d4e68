/*
 * cpu.h — run-time selection of the x86-64 BMI2/ADX Montgomery kernels.
 * cuzk__cpu_adx is set once before main (CPUID, CUZK_NO_ASM) and read by the
 * inline field operations; the branch is perfectly predicted.
 */
#ifndef CUZK_CPU_H
#define CUZK_CPU_H

#include <stdint.h>

#ifndef CUZK_HAVE_X86_64_ASM
#define CUZK_HAVE_X86_64_ASM 0
#endif

extern int cuzk__cpu_adx;

#if CUZK_HAVE_X86_64_ASM
/* src/ff/asm/mont_x86_64_adx.S: same contract as cuzk__mont_mul_n (limbs.h). */
void cuzk__mul_mont_384_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6],
                            const uint64_t m[6], uint64_t n0);
void cuzk__sqr_mont_384_adx(uint64_t r[6], const uint64_t a[6], const uint64_t m[6],
                            uint64_t n0);
void cuzk__mul_mont_256_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                            const uint64_t m[4], uint64_t n0);
void cuzk__sqr_mont_256_adx(uint64_t r[4], const uint64_t a[4], const uint64_t m[4],
                            uint64_t n0);
/* Fp2 = F_m[u]/(u^2 + 1) on 12 words (c0 then c1; a cuzk_fp2 or uint64_t[12]),
 * lazy reduction: r = a*b
 * and r = a^2, coordinates < m in and out, odd m < 2^382, r may alias a, b.
 * Same results as the Karatsuba/complex formulas over cuzk__mont_mul_n. */
void cuzk__mul_mont_384x_adx(void *r, const void *a, const void *b, const uint64_t m[6],
                             uint64_t n0);
void cuzk__sqr_mont_384x_adx(void *r, const void *a, const uint64_t m[6], uint64_t n0);
/* Fp4 = Fp2[s]/(s^2 - xi), xi = u + 1: r0 = a^2 + xi b^2, r1 = 2ab (Fp2 values
 * as above), lazy reduction; odd m < 2^381; r0, r1 may alias a, b, not each other. */
void cuzk__fp4_sqr_adx(void *r0, void *r1, const void *a, const void *b, const uint64_t m[6],
                       uint64_t n0);
#endif

#endif /* CUZK_CPU_H */
