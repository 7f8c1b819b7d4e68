/*
 * wtns.h — circom/snarkjs witness files (.wtns version 2; doc/formats.md, wtns),
 * BLS12-381 only.
 *
 * Section 1: u32 n8, prime (n8 bytes LE), u32 nWitness. Section 2: nWitness
 * values of n8 bytes, PLAIN little-endian integers (not Montgomery), w[0] = 1.
 * cuzk_wtns_open maps the file, requires n8 = 32 and prime = BLS12-381 r
 * (BN254's r gives "curve not supported: BN254 (r = 0x...)"), section 2 of
 * exactly nWitness * 32 bytes, and every value < r ("non-canonical field
 * element at offset X"). w[0] = 1 is not checked here (cuzk_r1cs_check_witness
 * and the prover do).
 */
#ifndef CUZK_WTNS_H
#define CUZK_WTNS_H

#include <stdint.h>

#include "io/binfile.h"
#include "util/error.h"
#include "ff/fr.h"

enum { CUZK_WTNS_SEC_HEADER = 1, CUZK_WTNS_SEC_VALUES = 2 };

typedef struct {
    cuzk_binfile file;
    uint32_t n8;                 /* 32 */
    uint64_t prime[CUZK_FR_LIMBS]; /* r, plain limbs */
    uint32_t n_witness;
    /* Value i is values[4*i .. 4*i+3], plain little-endian limbs, < r: in the
     * mapping when section 2 is 8-byte aligned, else an aligned copy (owned). */
    const uint64_t *values;
    uint64_t values_offset; /* file offset of section 2's payload */
    void *owned;
} cuzk_wtns;

CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_wtns_open(cuzk_wtns *w, const char *path,
                                                   cuzk_error *err);
/* Over a borrowed buffer (alive until close); name is for messages. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_wtns_open_mem(cuzk_wtns *w, const void *data,
                                                       size_t size, const char *name,
                                                       cuzk_error *err);
void cuzk_wtns_close(cuzk_wtns *w);

/* Pointer to the 4 plain limbs of value i (i < n_witness). */
static inline const uint64_t *cuzk_wtns_value(const cuzk_wtns *w, uint64_t i) {
    return w->values + 4 * i;
}

#endif /* CUZK_WTNS_H */
