/*
 * r1cs.h — circom constraint systems (.r1cs version 1; doc/formats.md, r1cs),
 * BLS12-381 only.
 *
 * Section 1 (header): u32 n8, prime, u32 nWires, nPubOut, nPubIn, nPrvIn,
 * u64 nLabels, u32 nConstraints. Section 2: nConstraints constraints, each
 * three linear combinations A, B, C meaning <A,w> * <B,w> - <C,w> = 0; a
 * linear combination is u32 nTerms then nTerms * (u32 wireId, n8-byte plain
 * LE coefficient). Section 3 (optional): nWires u64 label ids. Sections 4, 5
 * (PLONK custom gates) and unknown ones are ignored. Wire 0 is the constant 1.
 *
 * cuzk_r1cs_open walks section 2 once to check it: every count against the
 * bytes left, every wireId < nWires, every coefficient < r, and the section
 * consumed exactly. After that, iteration cannot fail. Terms are not required
 * to be sorted by wire (the spec says they are; nothing depends on it).
 */
#ifndef CUZK_R1CS_H
#define CUZK_R1CS_H

#include <stdbool.h>
#include <stdint.h>

#include "io/binfile.h"
#include "util/error.h"
#include "ff/fr.h"

enum {
    CUZK_R1CS_SEC_HEADER = 1,
    CUZK_R1CS_SEC_CONSTRAINTS = 2,
    CUZK_R1CS_SEC_WIRE2LABEL = 3,
    CUZK_R1CS_SEC_CUSTOM_GATES_LIST = 4, /* refused: PLONK only */
    CUZK_R1CS_SEC_CUSTOM_GATES_USES = 5
};

#define CUZK_R1CS_TERM_BYTES 36u /* u32 wireId + 32-byte coefficient */

typedef struct {
    cuzk_binfile file;
    uint32_t n8;                   /* 32 */
    uint64_t prime[CUZK_FR_LIMBS]; /* r, plain limbs */
    uint32_t n_wires;              /* witness length, wire 0 = 1 */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    uint64_t n_terms; /* total terms over all 3 * n_constraints combinations */
    const uint8_t *constraints; /* section 2 payload in the mapping */
    uint64_t constraints_offset, constraints_size;
    /* Section 3, or NULL when absent: wire i has label wire2label[i]. */
    const uint64_t *wire2label;
    void *owned;
} cuzk_r1cs;

/* A linear combination: n terms of CUZK_R1CS_TERM_BYTES at `terms` (unaligned). */
typedef struct {
    uint32_t n;
    const uint8_t *terms;
} cuzk_r1cs_lc;

typedef struct {
    cuzk_r1cs_lc a, b, c;
} cuzk_r1cs_constraint;

typedef struct {
    const cuzk_r1cs *r1cs;
    const uint8_t *p;
    uint32_t index; /* of the next constraint */
} cuzk_r1cs_iter;

CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_r1cs_open(cuzk_r1cs *r, const char *path,
                                                   cuzk_error *err);
/* Over a borrowed buffer (alive until close); name is for messages. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_r1cs_open_mem(cuzk_r1cs *r, const void *data,
                                                       size_t size, const char *name,
                                                       cuzk_error *err);
void cuzk_r1cs_close(cuzk_r1cs *r);

/* Iteration in file order: init, then next() until it returns false. */
void cuzk_r1cs_iter_init(cuzk_r1cs_iter *it, const cuzk_r1cs *r);
bool cuzk_r1cs_iter_next(cuzk_r1cs_iter *it, cuzk_r1cs_constraint *out);

/* Term i < lc->n: wire id and plain coefficient limbs (< r). */
static inline void cuzk_r1cs_lc_term(const cuzk_r1cs_lc *lc, uint32_t i, uint32_t *wire,
                                     uint64_t coeff[CUZK_FR_LIMBS]) {
    const uint8_t *p = lc->terms + (uint64_t)i * CUZK_R1CS_TERM_BYTES;
    *wire = cuzk__load_le32(p);
    cuzk__load_le64_n(coeff, p + 4, CUZK_FR_LIMBS);
}

/*
 * Checks a witness (n_w values of 4 plain limbs each, each < r, e.g. a
 * cuzk_wtns's values) against every constraint. CUZK_OK when n_w = nWires,
 * w[0] = 1 and every constraint holds. Otherwise ERR_INVALID_ARG with a
 * message naming r1cs path and wname; *first_bad (may be NULL) receives the
 * index of the first failing constraint, or UINT64_MAX when the failure is
 * not a constraint (length, w[0]).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_r1cs_check_witness(const cuzk_r1cs *r,
                                                            const uint64_t *w, uint64_t n_w,
                                                            const char *wname,
                                                            uint64_t *first_bad,
                                                            cuzk_error *err);

#endif /* CUZK_R1CS_H */
