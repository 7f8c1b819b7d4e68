/* cpu.c — CPU feature detection for the field kernels (see cpu.h). The
 * library reads no environment: a program that wants the portable kernels
 * calls cuzk_cpu_force_portable(1) (the cuzk command does for CUZK_NO_ASM). */

#include "cuzk.h"
#include "ff/cpu.h"

int cuzk__cpu_adx = 0;
int cuzk__cpu_ifma = 0;

#if CUZK_HAVE_X86_64_ASM && (defined(__x86_64__) || defined(_M_X64))
#define CPU_HAS_CPUID 1
/* r = eax, ebx, ecx, edx of CPUID leaf (sub-leaf sub) */
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
    __asm__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

/* EBX of leaf 7 (the extended features), 0 when the CPU has no leaf 7 */
static unsigned cpuid_leaf7_ebx(void) {
    unsigned r[4];
    cpuid(0, 0, r);
    if (r[0] < 7) return 0;
    cpuid(7, 0, r);
    return r[1];
}
#else
#define CPU_HAS_CPUID 0
#endif

/* AVX-512 F and IFMA, with the OS saving the ZMM and mask registers. */
static int cpu_supports_ifma(void) {
#if CUZK__IFMA_BUILT && CPU_HAS_CPUID
    const unsigned b = cpuid_leaf7_ebx();
    if (!(b & (1u << 16)) || !(b & (1u << 21))) return 0; /* AVX512F, AVX512IFMA */
    unsigned r[4];
    cpuid(1, 0, r);
    if (!(r[2] & (1u << 27))) return 0; /* OSXSAVE: xgetbv is there */
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xe6u) == 0xe6u; /* XMM, YMM, opmask, ZMM state */
#else
    return 0;
#endif
}

static int cpu_supports_adx(void) {
#if CPU_HAS_CPUID
    const unsigned b = cpuid_leaf7_ebx(), bmi2 = 1u << 8, adx = 1u << 19;
    return (b & bmi2) && (b & adx);
#else
    return 0;
#endif
}

__attribute__((constructor)) static void cpu_init(void) { cuzk_cpu_force_portable(0); }

unsigned cuzk_cpu_features(void) {
    return (cuzk__cpu_adx ? CUZK_CPU_ADX : 0u) | (cuzk__cpu_ifma ? CUZK_CPU_IFMA : 0u);
}

const char *cuzk_cpu_kernels(void) {
    if (cuzk__cpu_ifma)
        return cuzk__cpu_adx ? "x86-64 BMI2/ADX + AVX-512 IFMA" : "portable C + AVX-512 IFMA";
    return cuzk__cpu_adx ? "x86-64 BMI2/ADX" : "portable C";
}

void cuzk_cpu_force_portable(int on) {
    cuzk__cpu_adx = on ? 0 : cpu_supports_adx();
    cuzk__cpu_ifma = on ? 0 : cpu_supports_ifma();
}
