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
 * cuzk__g1_add_batch_ifma: for k < m, *out[k] = *a[k] + *b[k] in affine
 * coordinates, every sum a plain addition (x coordinates differ; the caller
 * keeps doublings, opposite points and infinity for the scalar code). All
 * inputs of pair k are read before out[k] is written, and outputs are written
 * in increasing k, so out[k] may alias an input of pair k or of an earlier
 * pair (a bucket updated in place; a reduction tree level written over its
 * inputs), never one of a later pair. One shared inversion per
 * CUZK__G1_IFMA_CHUNK pairs (Montgomery's trick over eight lane chains).
 * Results equal the scalar formulas' bit for bit. scratch: at least
 * cuzk__g1_add_batch_ifma_scratch() bytes (64 KiB), any alignment.
 * cuzk__cpu_ifma (cpu.h) says whether it may be called.
 */
#ifndef CUZK_G1_IFMA_H
#define CUZK_G1_IFMA_H

#include <stddef.h>
#include <stdint.h>

#include "ff/cpu.h"
#include "ec/g1.h"

#define CUZK__G1_IFMA_CHUNK 512 /* pairs per shared inversion */

size_t cuzk__g1_add_batch_ifma_scratch(void);
void cuzk__g1_add_batch_ifma(cuzk_g1_aff *const *out, const cuzk_g1_aff *const *a,
                             const cuzk_g1_aff *const *b, size_t m, void *scratch);

#endif /* CUZK_G1_IFMA_H */
