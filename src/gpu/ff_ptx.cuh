/*
 * ff_ptx.cuh — the carry-chain primitives of the device field arithmetic
 * (ff.cuh): PTX add.cc/addc, sub.cc/subc and mad.lo.cc/madc.hi.cc, or with
 * CUZK_GPU_HOST_MODEL their host model (the CUDA qualifiers and intrinsics
 * given host meanings, the carry flag a variable), so that a C++ host
 * compiler runs the arithmetic as it is.
 */
#ifndef CUZK_GPU_FF_PTX_CUH
#define CUZK_GPU_FF_PTX_CUH

#include <stdint.h>

namespace cuzk_gpu {

/* ---- host model ------------------------------------------------------------
 *
 * With CUZK_GPU_HOST_MODEL defined, a C++ host compiler runs this text as is:
 * the CUDA qualifiers and the intrinsics used here get host meanings and the
 * carry flag becomes a variable (below). tests/unit/gpu_ff_model.cpp and
 * test_gpu_ff_model.c compare every multiplier with the CPU field that way,
 * so CI, which has no GPU, checks the device arithmetic's carry chains too.
 */
#if defined(CUZK_GPU_HOST_MODEL)
#define __device__
#define __host__
#define __forceinline__ inline
#define __align__(n) alignas(n)
static inline uint32_t __umulhi(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)a * b) >> 32);
}
static inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t s) {
    s &= 31;
    return s == 0 ? hi : (hi << s) | (lo >> (32 - s));
}
static inline uint32_t __funnelshift_r(uint32_t lo, uint32_t hi, uint32_t s) {
    s &= 31;
    return s == 0 ? lo : (lo >> s) | (hi << (32 - s));
}
static inline int __clz(uint32_t x) { return x ? __builtin_clz(x) : 32; }
#endif

/* ---- PTX carry-chain primitives ------------------------------------------ */

#if defined(CUZK_GPU_HOST_MODEL)
/* PTX's CC.CF: add sets it to the carry, sub to the borrow; the c forms
 * consume it; a form without .cc leaves it as it was. */
inline uint32_t &host_cf() {
    static thread_local uint32_t cf;
    return cf;
}
#define CUZK__HOST_OP(name, expr, sets)                                       \
    inline uint32_t name(uint32_t a, uint32_t b, uint32_t c = 0) {            \
        (void)c;                                                              \
        const uint64_t r = (expr);                                            \
        if (sets) host_cf() = (uint32_t)(r >> 32) & 1u;                       \
        return (uint32_t)r;                                                   \
    }
#define CUZK__WIDE(a, b) ((uint64_t)(a) * (uint64_t)(b))
CUZK__HOST_OP(add_cc, (uint64_t)a + b, true)
CUZK__HOST_OP(addc_cc, (uint64_t)a + b + host_cf(), true)
CUZK__HOST_OP(addc, (uint64_t)a + b + host_cf(), false)
CUZK__HOST_OP(sub_cc, (uint64_t)a - b, true)
CUZK__HOST_OP(subc_cc, (uint64_t)a - b - host_cf(), true)
CUZK__HOST_OP(subc, (uint64_t)a - b - host_cf(), false)
CUZK__HOST_OP(mad_lo_cc, (CUZK__WIDE(a, b) & 0xffffffffu) + c, true)
CUZK__HOST_OP(madc_lo_cc, (CUZK__WIDE(a, b) & 0xffffffffu) + c + host_cf(), true)
CUZK__HOST_OP(mad_hi_cc, (CUZK__WIDE(a, b) >> 32) + c, true)
CUZK__HOST_OP(madc_hi_cc, (CUZK__WIDE(a, b) >> 32) + c + host_cf(), true)
CUZK__HOST_OP(madc_hi, (CUZK__WIDE(a, b) >> 32) + c + host_cf(), false)
#undef CUZK__HOST_OP
#undef CUZK__WIDE
#else
#define CUZK__PTX2(name, op)                                                  \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) {        \
        uint32_t r;                                                           \
        asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));           \
        return r;                                                             \
    }
#define CUZK__PTX3(name, op)                                                  \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
        uint32_t r;                                                           \
        asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); \
        return r;                                                             \
    }

CUZK__PTX2(add_cc, "add.cc.u32")   /* a + b, carry out */
CUZK__PTX2(addc_cc, "addc.cc.u32") /* a + b + carry, carry out */
CUZK__PTX2(addc, "addc.u32")       /* a + b + carry */
CUZK__PTX2(sub_cc, "sub.cc.u32")   /* a - b, borrow out */
CUZK__PTX2(subc_cc, "subc.cc.u32") /* a - b - borrow, borrow out */
CUZK__PTX2(subc, "subc.u32")       /* a - b - borrow */
CUZK__PTX3(mad_lo_cc, "mad.lo.cc.u32")   /* lo(a*b) + c, carry out */
CUZK__PTX3(madc_lo_cc, "madc.lo.cc.u32") /* lo(a*b) + c + carry, carry out */
CUZK__PTX3(mad_hi_cc, "mad.hi.cc.u32")   /* hi(a*b) + c, carry out */
CUZK__PTX3(madc_hi_cc, "madc.hi.cc.u32") /* hi(a*b) + c + carry, carry out */
CUZK__PTX3(madc_hi, "madc.hi.u32")       /* hi(a*b) + c + carry */

#undef CUZK__PTX2
#undef CUZK__PTX3
#endif /* CUZK_GPU_HOST_MODEL */

} /* namespace cuzk_gpu */

#endif /* CUZK_GPU_FF_PTX_CUH */
