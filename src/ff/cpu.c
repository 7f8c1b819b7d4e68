/* cpu.c — CPU feature detection for the field kernels (see cpu.h). */
#include <stdlib.h>
#include <string.h>

#include "cuzk.h"
#include "cpu.h"

int cuzk__cpu_adx = 0;
int cuzk__cpu_ifma = 0;

/* AVX-512 F and IFMA, with the OS saving the ZMM and mask registers. */
static int cpu_supports_ifma(void) {
#if CUZK__IFMA_BUILT
    unsigned a = 0, b, c = 0, d;
    __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    if (a < 7) return 0;
    a = 1;
    c = 0;
    __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    if (!(c & (1u << 27))) return 0; /* OSXSAVE */
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0xe6u) != 0xe6u) return 0; /* XMM, YMM, opmask, ZMM state */
    a = 7;
    c = 0;
    __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    return (b & (1u << 16)) && (b & (1u << 21)); /* AVX512F, AVX512IFMA */
#else
    return 0;
#endif
}

static int cpu_supports_adx(void) {
#if CUZK_HAVE_X86_64_ASM && (defined(__x86_64__) || defined(_M_X64))
    unsigned a = 7, b, c = 0, d;
    unsigned max;
    __asm__("cpuid" : "=a"(max), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
    if (max < 7) return 0;
    a = 7;
    c = 0;
    __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    const unsigned bmi2 = 1u << 8, adx = 1u << 19;
    return (b & bmi2) && (b & adx);
#else
    return 0;
#endif
}

static int asm_disabled_by_env(void) {
    const char *v = getenv("CUZK_NO_ASM");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
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
    cuzk__cpu_adx = on ? 0 : (cpu_supports_adx() && !asm_disabled_by_env());
    cuzk__cpu_ifma = on ? 0 : (cpu_supports_ifma() && !asm_disabled_by_env());
}
