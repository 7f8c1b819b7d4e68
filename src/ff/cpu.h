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
#endif

#endif /* CUZK_CPU_H */
