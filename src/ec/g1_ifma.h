/*
 * g1_ifma.h — batches of G1 affine additions on AVX-512 IFMA (internal).
 *
 * The CPU MSM's batch-affine buckets (msm_impl.h) spend most of their time in
 * Fp multiplications of independent additions. With AVX-512 IFMA (52-bit
 * multiply-adds, 8 lanes) eight of them run at once: each element as eight
 * 52-bit limbs, limb i of eight elements in one vector, and a Montgomery
 * product with R = 2^384 (seven 52-bit reduction rounds and one of 20 bits),
 * so the values are the host's cuzk_fp Montgomery residues, bit for bit.
 *
 * cuzk__g1_add_batch_ifma: for k < m, buckets[aidx[k]] += pts[k] in affine
 * coordinates, the aidx distinct, every sum a plain addition (x coordinates
 * differ; the caller keeps doublings, opposite points and infinity for the
 * scalar code). One shared inversion per call (Montgomery's trick over eight
 * lane chains). Results equal the scalar formulas' bit for bit.
 * cuzk__cpu_ifma says whether the CPU has it (and CUZK_NO_ASM is unset);
 * without it the function must not be called.
 */
#ifndef CUZK_G1_IFMA_H
#define CUZK_G1_IFMA_H

#include <stddef.h>
#include <stdint.h>

#include "g1.h"

extern int cuzk__cpu_ifma;

void cuzk__g1_add_batch_ifma(cuzk_g1_aff *buckets, const uint32_t *aidx, const cuzk_g1_aff *pts,
                             size_t m);

#endif /* CUZK_G1_IFMA_H */
