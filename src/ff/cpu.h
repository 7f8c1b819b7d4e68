/*
 * cpu.h — run-time selection of the x86-64 BMI2/ADX Montgomery kernels.
 * cuzk__cpu_adx is set once before main (CPUID) and read by the inline field
 * operations; the branch is perfectly predicted. cuzk_cpu_force_portable
 * (cuzk.h) clears it and cuzk__cpu_ifma.
 */
#ifndef CUZK_CPU_H
#define CUZK_CPU_H

#include <stdint.h>

#ifndef CUZK_HAVE_X86_64_ASM
#define CUZK_HAVE_X86_64_ASM 0
#endif

extern int cuzk__cpu_adx;

/* The AVX-512 IFMA batch kernels (src/ec/g1_ifma.c) are compiled where this
 * is 1 (x86-64 with 64-bit pointers and a compiler with target attributes);
 * cuzk__cpu_ifma is 1 when they are compiled, the CPU has AVX-512 F and IFMA
 * with the OS saving their registers, and cuzk_cpu_force_portable(1) was not
 * called. */
#if CUZK_HAVE_X86_64_ASM && defined(__x86_64__) && defined(__LP64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define CUZK__IFMA_BUILT 1
#else
#define CUZK__IFMA_BUILT 0
#endif
extern int cuzk__cpu_ifma;

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

/*
 * Modular addition and subtraction inline (a < m, b < m, m odd with a spare
 * top bit; r may alias a or b). After the limb chain, a borrow means m must be
 * added back: the borrow becomes ZF (test), and each limb of m is selected by
 * cmov (which leaves the flags alone) into one register and added with adcx
 * (which touches only CF), so one scratch register serves all limbs. The
 * generic C (limbs.h) needs a register per masked limb, and gcc spills them in
 * the MSM's batch-affine loops. Constant time: cmov always loads. Needs ADX.
 */
/* Limb i of the asm below: load a, subtract/add b or m with the running borrow/carry. */
#define CUZK__ASM_LD(i) "movq " #i "*8(%[a]), %[t" #i "]\n\t"
#define CUZK__ASM_OP(op, i, src) op " " #i "*8(%[" src "]), %[t" #i "]\n\t"
/* the borrow (CF) as ZF, CF cleared; then limb i of m where there was a borrow, else 0, added */
#define CUZK__ASM_BORROW_TO_ZF "sbbq %[q], %[q]\n\ttestq %[q], %[q]\n\t"
#define CUZK__ASM_FIX(i) "movl $0, %k[q]\n\tcmovnzq " #i "*8(%[m]), %[q]\n\tadcxq %[q], %[t" #i "]\n\t"
#define CUZK__ASM_IN(n)                                                                       \
    [a] "r"(a), [b] "r"(b), [m] "r"(m), "m"(*(const uint64_t(*)[n])a),                    \
        "m"(*(const uint64_t(*)[n])b), "m"(*(const uint64_t(*)[n])m)

static inline void cuzk__sub_mod_384_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6],
                                         const uint64_t m[6]) {
    uint64_t t0, t1, t2, t3, t4, t5, q;
    __asm__(CUZK__ASM_LD(0) CUZK__ASM_LD(1) CUZK__ASM_LD(2) CUZK__ASM_LD(3) CUZK__ASM_LD(4)
            CUZK__ASM_LD(5) CUZK__ASM_OP("subq", 0, "b") CUZK__ASM_OP("sbbq", 1, "b")
            CUZK__ASM_OP("sbbq", 2, "b") CUZK__ASM_OP("sbbq", 3, "b")
            CUZK__ASM_OP("sbbq", 4, "b") CUZK__ASM_OP("sbbq", 5, "b")
            CUZK__ASM_BORROW_TO_ZF CUZK__ASM_FIX(0) CUZK__ASM_FIX(1) CUZK__ASM_FIX(2)
            CUZK__ASM_FIX(3) CUZK__ASM_FIX(4) CUZK__ASM_FIX(5)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [q] "=&r"(q)
            : CUZK__ASM_IN(6)
            : "cc");
    r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3, r[4] = t4, r[5] = t5;
}

/* a + b < 2m < 2^384 never carries out; subtract m, then add it back on a borrow. */
static inline void cuzk__add_mod_384_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6],
                                         const uint64_t m[6]) {
    uint64_t t0, t1, t2, t3, t4, t5, q;
    __asm__(CUZK__ASM_LD(0) CUZK__ASM_LD(1) CUZK__ASM_LD(2) CUZK__ASM_LD(3) CUZK__ASM_LD(4)
            CUZK__ASM_LD(5) CUZK__ASM_OP("addq", 0, "b") CUZK__ASM_OP("adcq", 1, "b")
            CUZK__ASM_OP("adcq", 2, "b") CUZK__ASM_OP("adcq", 3, "b")
            CUZK__ASM_OP("adcq", 4, "b") CUZK__ASM_OP("adcq", 5, "b")
            CUZK__ASM_OP("subq", 0, "m") CUZK__ASM_OP("sbbq", 1, "m")
            CUZK__ASM_OP("sbbq", 2, "m") CUZK__ASM_OP("sbbq", 3, "m")
            CUZK__ASM_OP("sbbq", 4, "m") CUZK__ASM_OP("sbbq", 5, "m")
            CUZK__ASM_BORROW_TO_ZF CUZK__ASM_FIX(0) CUZK__ASM_FIX(1) CUZK__ASM_FIX(2)
            CUZK__ASM_FIX(3) CUZK__ASM_FIX(4) CUZK__ASM_FIX(5)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [q] "=&r"(q)
            : CUZK__ASM_IN(6)
            : "cc");
    r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3, r[4] = t4, r[5] = t5;
}

static inline void cuzk__sub_mod_256_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                         const uint64_t m[4]) {
    uint64_t t0, t1, t2, t3, q;
    __asm__(CUZK__ASM_LD(0) CUZK__ASM_LD(1) CUZK__ASM_LD(2) CUZK__ASM_LD(3)
            CUZK__ASM_OP("subq", 0, "b") CUZK__ASM_OP("sbbq", 1, "b")
            CUZK__ASM_OP("sbbq", 2, "b") CUZK__ASM_OP("sbbq", 3, "b")
            CUZK__ASM_BORROW_TO_ZF CUZK__ASM_FIX(0) CUZK__ASM_FIX(1) CUZK__ASM_FIX(2)
            CUZK__ASM_FIX(3)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [q] "=&r"(q)
            : CUZK__ASM_IN(4)
            : "cc");
    r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3;
}

/* a + b < 2m < 2^256 never carries out (m < 2^255). */
static inline void cuzk__add_mod_256_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                         const uint64_t m[4]) {
    uint64_t t0, t1, t2, t3, q;
    __asm__(CUZK__ASM_LD(0) CUZK__ASM_LD(1) CUZK__ASM_LD(2) CUZK__ASM_LD(3)
            CUZK__ASM_OP("addq", 0, "b") CUZK__ASM_OP("adcq", 1, "b")
            CUZK__ASM_OP("adcq", 2, "b") CUZK__ASM_OP("adcq", 3, "b")
            CUZK__ASM_OP("subq", 0, "m") CUZK__ASM_OP("sbbq", 1, "m")
            CUZK__ASM_OP("sbbq", 2, "m") CUZK__ASM_OP("sbbq", 3, "m")
            CUZK__ASM_BORROW_TO_ZF CUZK__ASM_FIX(0) CUZK__ASM_FIX(1) CUZK__ASM_FIX(2)
            CUZK__ASM_FIX(3)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [q] "=&r"(q)
            : CUZK__ASM_IN(4)
            : "cc");
    r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3;
}
#endif

#endif /* CUZK_CPU_H */
