/*
 * witness.h — our witness file (doc/formats.md §2): one full assignment of a
 * circuit (inputs, then aux), and the witness -> a, b, c entry point.
 *
 * Layout: a 32-byte header (magic "cuzkwitn", u32 version 1, u32 flags 0,
 * u64 n_inputs, u64 n_aux), then n_inputs + n_aux values of 32 bytes each,
 * PLAIN little-endian integers < r (not Montgomery), input 0 = 1. Plain
 * because the MSMs take plain scalars: the prover's L, A and B MSMs read the
 * mapped file directly; only the SpMV needs Montgomery copies.
 *
 * The reader maps the file, checks the size exactly against the counts
 * (64-bit math, before anything else), every value < r and input 0 = 1.
 * There is no checksum: a corrupted value either still satisfies every
 * constraint (then it is a valid witness) or the satisfaction check names
 * the constraint it breaks; sizes are checked exactly.
 */
#ifndef CUZK_WITNESS_H
#define CUZK_WITNESS_H

#include <stdint.h>

#include "circuit/circuit.h"
#include "util/error.h"
#include "ff/fr.h"
#include "io/wtns.h"

#define CUZK_WITNESS_MAGIC "cuzkwitn"
#define CUZK_WITNESS_VERSION 1u
#define CUZK_WITNESS_HEADER_BYTES 32u

typedef struct {
    char *path;
    uint32_t version, flags;
    uint64_t n_inputs; /* including the constant ONE */
    uint64_t n_aux;
    /* Value i (inputs first, then aux) is values[4*i .. 4*i+3], plain limbs,
     * < r; value 0 is 1. values + 4*n_inputs are the aux scalars. */
    const uint64_t *values;
    const uint8_t *image;
    uint64_t size;
    void *map;
    size_t map_size;
    void *owned;
} cuzk_witness;

static inline uint64_t cuzk_witness_n_vars(const cuzk_witness *w) {
    return w->n_inputs + w->n_aux;
}

CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_witness_open(cuzk_witness *w, const char *path,
                                                      cuzk_error *err);
/* Over a caller's buffer: borrowed when 8-byte aligned (alive and unchanged
 * until close), copied otherwise. name stands in for the path. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_witness_open_mem(cuzk_witness *w, const void *data,
                                                          size_t size, const char *name,
                                                          cuzk_error *err);
void cuzk_witness_close(cuzk_witness *w);

/* Over buf, a malloc'd image of size bytes that the witness takes (freed at
 * close, or here on failure). name stands in for the path. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__witness_adopt(cuzk_witness *w, void *buf, size_t size,
                                                        const char *name, cuzk_error *err);

/* A witness in memory from n_inputs + n_aux plain values (4 limbs each);
 * copies. The same checks as the reader (ERR_NOT_CANONICAL, ERR_INVALID_ARG). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_witness_from_values(cuzk_witness *w,
                                                             const uint64_t *values,
                                                             uint64_t n_inputs, uint64_t n_aux,
                                                             const char *name, cuzk_error *err);

/*
 * A circom witness for a circuit made by cuzk_circuit_from_r1cs: wire i is
 * variable i there, so the values are taken in order. Requires nWitness =
 * n_inputs + n_aux of the circuit and w[0] = 1 (ERR_INVALID_ARG naming both
 * files). The result is named after the .wtns.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_witness_from_wtns(cuzk_witness *w,
                                                           const cuzk_circuit *c,
                                                           const cuzk_wtns *src,
                                                           cuzk_error *err);

/* Writes the witness whole or not at all (util/atomic_write.h). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_witness_write(const cuzk_witness *w, const char *path,
                                                       cuzk_error *err);
/* The same into one output of a set (util/atomic_write.h). */
struct cuzk__out;
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__witness_write_out(struct cuzk__out *o,
                                                            const cuzk_witness *w,
                                                            cuzk_error *err);
/* The file's bytes in a malloc'ed buffer; for tests and fuzz seeds. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_witness_to_bytes(const cuzk_witness *w, uint8_t **out,
                                                          size_t *n, cuzk_error *err);

/* out[i] = value i in Montgomery form, i < n_inputs + n_aux; on `threads`. */
void cuzk_witness_to_mont(cuzk_fr *out, const cuzk_witness *w, unsigned threads);

#define CUZK_SPMV_NO_CHECK 4u /* cuzk_witness_abc_var: skip the satisfaction check */

/*
 * The whole step: counts of w against c (ERR_INVALID_ARG naming both), the
 * Montgomery assignment (allocated here: ERR_NOMEM), cuzk_circuit_abc_var
 * with flags, then, unless CUZK_SPMV_NO_CHECK, cuzk_circuit_check_abc
 * (ERR_WITNESS_UNSATISFIED, *first_bad = the row; may be NULL). a, b, cc:
 * c->domain_size values each.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_witness_abc_var(const cuzk_circuit *c,
                                                         const cuzk_witness *w, cuzk_fr *a,
                                                         cuzk_fr *b, cuzk_fr *cc, unsigned flags,
                                                         unsigned threads, uint64_t *first_bad,
                                                         cuzk_error *err);

#endif /* CUZK_WITNESS_H */
