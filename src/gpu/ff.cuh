/*
 * ff.cuh — device arithmetic for BLS12-381's Fr and Fp (and Fp2 over Fp),
 * one template text for both prime fields.
 *
 * Representation: N little-endian 32-bit limbs (Fr 8, Fp 12) holding x*R mod m
 * with the host's R (2^256, 2^384), fully reduced (< m). Byte for byte this is
 * the host's cuzk_fr / cuzk_fp (4 or 6 little-endian 64-bit limbs), so device
 * buffers and host arrays are copied without conversion (gpu.h).
 *
 * Contract of every function: inputs fully reduced, outputs fully reduced,
 * outputs may alias inputs, the modulus has a spare top bit (m < 2^(32N-1)).
 * No branch or memory index depends on the values, with one exception:
 * inv_var's number of rounds (public values only, as its name says).
 *
 * Carry chains are PTX inline asm (add.cc/addc, sub.cc/subc, mad.lo.cc/
 * madc.hi.cc). The carry flag lives between asm statements, so each is
 * volatile (keeps order) and nothing between the statements of one chain
 * may be a carry-writing instruction: only plain moves and 32-bit
 * multiplies appear there, never 64- or 128-bit integer arithmetic.
 *
 * The parts: ff_ptx.cuh (carry-chain primitives, and their host model),
 * ff_field.cuh (parameters, elements, additive operations), ff_mul.cuh
 * (Montgomery products, squaring, lazy forms), ff_shoup.cuh (products by
 * precomputed constants, for the NTT), ff_inv.cuh (inversion); Fp2's
 * operations are here.
 */
#ifndef CUZK_GPU_FF_CUH
#define CUZK_GPU_FF_CUH

#include "gpu/ff_field.cuh"
#include "gpu/ff_inv.cuh"
#include "gpu/ff_mul.cuh"
#include "gpu/ff_shoup.cuh"

namespace cuzk_gpu {

/* ---- Fp2 = Fp[u]/(u^2 + 1) ----------------------------------------------- */

__device__ __forceinline__ void add(fp2_t &r, const fp2_t &a, const fp2_t &b) {
    add(r.c0, a.c0, b.c0);
    add(r.c1, a.c1, b.c1);
}

__device__ __forceinline__ void sub(fp2_t &r, const fp2_t &a, const fp2_t &b) {
    sub(r.c0, a.c0, b.c0);
    sub(r.c1, a.c1, b.c1);
}

/* Karatsuba with u^2 = -1: c0 = a0 b0 - a1 b1,
 * c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1. 3M + 2A + 3S (Fp). */
__device__ __forceinline__ void mul(fp2_t &r, const fp2_t &a, const fp2_t &b) {
    fp_t t0, t1, s0, s1;
    mul(t0, a.c0, b.c0);
    mul(t1, a.c1, b.c1);
    add(s0, a.c0, a.c1);
    add(s1, b.c0, b.c1);
    mul(s0, s0, s1);
    sub(s0, s0, t0);
    sub(r.c1, s0, t1);
    sub(r.c0, t0, t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. 2M + 3A (Fp). */
__device__ __forceinline__ void sqr(fp2_t &r, const fp2_t &a) {
    fp_t s, d, m;
    add(s, a.c0, a.c1);
    sub(d, a.c0, a.c1);
    mul(m, a.c0, a.c1);
    mul(r.c0, s, d);
    add(r.c1, m, m);
}

} /* namespace cuzk_gpu */

#endif /* CUZK_GPU_FF_CUH */
