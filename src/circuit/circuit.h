/*
 * circuit.h — a prepared R1CS circuit in CSR form (what the reference system
 * calls a "pre-compiled constraint evaluator"): the matrices A, B, C, the density
 * bitmaps the bellman prover needs, our circuit file (doc/formats.md §1), and
 * the witness -> a, b, c evaluation by sparse matrix-vector products.
 *
 * Variables (columns) index the full assignment: inputs first (column 0 is
 * the constant ONE), then aux; column j >= n_inputs is aux j - n_inputs.
 * Rows are constraints <A_i, w> * <B_i, w> = <C_i, w>.
 *
 * Coefficients are not stored per entry: each entry holds a u32 index into
 * one table of distinct Montgomery Fr values shared by A, B and C, where
 * index 0 is +1 and index 1 is -1 (CUZK_CIRCUIT_VAL_ONE / _MINUS_ONE). In a
 * PoRep-like circuit nearly every coefficient is +-1 or one of a few thousand
 * constants, so an entry costs 8 bytes (column + index) instead of 36, and
 * the evaluator recognises +-1 by the index without looking at the value.
 *
 * One representation everywhere: a cuzk_circuit is an index over the file
 * image (header, values, CSR arrays, bitmaps, trailer), either memory-mapped
 * from a file or built in memory (cuzk_circuit_build, cuzk_circuit_from_r1cs).
 * Writing a circuit writes its image plus the checksum. An opened or built
 * circuit is immutable; any number of threads may use it.
 *
 * Density (bellman's synthesis; doc/formats.md §1.1): a variable's bit is set when
 * it appears in at least one entry of the matrix (whatever the coefficient).
 * a_aux: aux variables in A; b_inp: inputs in B; b_aux: aux variables in B.
 * A's input density is implicitly full: the prover appends one constraint
 * input_i * 0 = 0 per input. The .params vectors a, b_g1, b_g2 hold points
 * only for variables whose bit is set.
 *
 * Errors: cuzk_status plus a cuzk_error naming the path (or the name given),
 * the offset or part of the file, and the reason:
 *   ERR_IO            cannot open/stat/map/write the file
 *   ERR_NOMEM         allocation failed
 *   ERR_BAD_LENGTH    truncated file, trailing bytes, sizes that disagree
 *   ERR_BAD_ENCODING  wrong magic, bad checksum, an index or count out of
 *                     range, bitmaps that disagree with the matrices
 *   ERR_NOT_CANONICAL a coefficient >= r
 *   ERR_UNSUPPORTED   version or flags we do not read, domain above 2^31
 */
#ifndef CUZK_CIRCUIT_H
#define CUZK_CIRCUIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "util/error.h"
#include "ff/fr.h"
#include "io/r1cs.h"

#define CUZK_CIRCUIT_MAGIC "cuzkcirc" /* 8 bytes, no NUL in the file */
#define CUZK_CIRCUIT_VERSION 1u
#define CUZK_CIRCUIT_HEADER_BYTES 128u
/* Every part of the file starts at a multiple of this (zero padding). */
#define CUZK_CIRCUIT_ALIGN 64u
/* The checksum hashes the file in blocks of this size (doc/formats.md §1.4). */
#define CUZK_CIRCUIT_BLOCK_BYTES ((uint64_t)1 << 20)
/* bellman refuses domains of 2^32 and more (EvaluationDomain: exp >= S). */
#define CUZK_CIRCUIT_MAX_DOMAIN_LOG 31u

enum { CUZK_CIRCUIT_A = 0, CUZK_CIRCUIT_B = 1, CUZK_CIRCUIT_C = 2 };
/* Reserved value-table indices. */
enum { CUZK_CIRCUIT_VAL_ONE = 0, CUZK_CIRCUIT_VAL_MINUS_ONE = 1 };

/* One matrix in CSR form (views into the image). Row i's entries are
 * k in [row_ptr[i], row_ptr[i+1]): column col[k], coefficient values[val[k]].
 * Columns within a row are in no particular order and may repeat (the
 * entries then add up). */
typedef struct {
    const uint64_t *row_ptr; /* n_constraints + 1 entries, row_ptr[0] = 0 */
    const uint32_t *col;     /* nnz entries, < n_inputs + n_aux */
    const uint32_t *val;     /* nnz entries, < n_values */
    uint64_t nnz;
} cuzk_csr;

typedef struct {
    char *path; /* the path or name, for messages */
    uint32_t version, flags;
    uint64_t n_constraints;
    uint64_t n_inputs; /* including the constant ONE (input 0) */
    uint64_t n_aux;
    uint64_t domain_size; /* 2^domain_log >= n_constraints + n_inputs */
    unsigned domain_log;
    cuzk_csr m[3]; /* A, B, C */
    uint64_t n_values;
    const cuzk_fr *values; /* Montgomery; values[0] = 1, values[1] = -1 */
    /* Density bitmaps, 64-bit words, bit j = word j/64 bit j%64. */
    const uint64_t *a_aux, *b_inp, *b_aux; /* n_aux, n_inputs, n_aux bits */
    uint64_t a_aux_count, b_inp_count, b_aux_count; /* popcounts */
    uint64_t checksum; /* from the trailer; 0 for a built, unwritten circuit */
    /* The image: the whole file (size bytes, the last 8 the checksum). */
    const uint8_t *image;
    uint64_t size;
    void *map; /* mmap base or NULL */
    size_t map_size;
    void *owned; /* heap image or NULL */
} cuzk_circuit;

/* Flags for cuzk_circuit_open*. */
#define CUZK_CIRCUIT_SKIP_CHECKSUM 1u /* trust the bytes; every other check stays */

/* n_inputs + n_aux, the length of a full assignment. */
static inline uint64_t cuzk_circuit_n_vars(const cuzk_circuit *c) {
    return c->n_inputs + c->n_aux;
}

/*
 * The domain the bellman prover uses for n_constraints + n_inputs rows: the
 * smallest power of two >= that (at least 1). *log2 receives its logarithm.
 * Returns 0 when the domain would exceed 2^CUZK_CIRCUIT_MAX_DOMAIN_LOG.
 */
uint64_t cuzk_circuit_domain_for(uint64_t n_constraints, uint64_t n_inputs, unsigned *log2);

/*
 * Maps path and checks everything (doc/formats.md §1.5): header, sizes
 * (64-bit math, against the file size, before any allocation), the checksum
 * (unless CUZK_CIRCUIT_SKIP_CHECKSUM), coefficients < r, row pointers,
 * column and value indices, zero padding, and that the stored density
 * bitmaps and popcounts equal those computed from the matrices. Runs on all
 * cores (OpenMP). On failure *c is left zeroed (safe to close).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_circuit_open(cuzk_circuit *c, const char *path,
                                                      unsigned flags, cuzk_error *err);
/* The same over a caller's buffer, borrowed when 8-byte aligned (it must
 * then stay alive and unchanged until close), copied otherwise. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_circuit_open_mem(cuzk_circuit *c, const void *data,
                                                          size_t size, const char *name,
                                                          unsigned flags, cuzk_error *err);
/* Unmaps/frees; leaves *c zeroed. Safe on a zeroed or closed object. */
void cuzk_circuit_close(cuzk_circuit *c);

/*
 * Input of cuzk_circuit_build: one matrix in CSR form with explicit
 * coefficients (Montgomery, < r). row_ptr has n_constraints + 1 entries.
 */
typedef struct {
    const uint64_t *row_ptr;
    const uint32_t *col;
    const cuzk_fr *coeff;
} cuzk_circuit_matrix_in;

/*
 * Builds a circuit in memory: validates the input (ERR_INVALID_ARG naming
 * matrix, row and entry), gathers the distinct coefficients into the value
 * table (+1 and -1 at 0 and 1, the others in order of first appearance),
 * computes the domain and the density bitmaps. name stands in for a path in
 * later messages.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_circuit_build(cuzk_circuit *c, uint64_t n_constraints,
                                                       uint64_t n_inputs, uint64_t n_aux,
                                                       const cuzk_circuit_matrix_in m[3],
                                                       const char *name, cuzk_error *err);

/*
 * The same from a ready value table (values[0] = +1, values[1] = -1, all
 * < r, at most 2^32) and per-matrix value indices instead of coefficients:
 * no hashing, for generators of large synthetic circuits.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_circuit_build_indexed(
    cuzk_circuit *c, uint64_t n_constraints, uint64_t n_inputs, uint64_t n_aux,
    const cuzk_fr *values, uint64_t n_values, const uint64_t *const row_ptr[3],
    const uint32_t *const col[3], const uint32_t *const val[3], const char *name,
    cuzk_error *err);

/*
 * Converts a circom .r1cs: wire w becomes column w, so inputs are wire 0
 * (ONE), the public outputs and the public inputs (circom numbers them right
 * after wire 0), and aux are all other wires in wire order. n_inputs =
 * 1 + nPubOut + nPubIn. Coefficients go to Montgomery form; terms are kept as
 * they are (a zero coefficient still counts for density, as in bellman).
 * A circom witness is therefore already in our variable order
 * (cuzk_witness_from_wtns).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_circuit_from_r1cs(cuzk_circuit *c, const cuzk_r1cs *r,
                                                           cuzk_error *err);

/*
 * Writes the circuit with a fresh checksum to path, whole or not at all
 * (util/atomic_write.h: a unique temporary beside it, fsynced and renamed),
 * so a crash never leaves a half-written file under the final name.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_circuit_write(const cuzk_circuit *c, const char *path,
                                                       cuzk_error *err);
/* The same into one output of a set (util/atomic_write.h), committed with
 * the set's other outputs (`cuzk import`: the circuit and its witnesses). */
struct cuzk__out;
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__circuit_write_out(struct cuzk__out *o,
                                                            const cuzk_circuit *c,
                                                            cuzk_error *err);
/* The file's bytes in a malloc'ed buffer (*out, *n); for tests and fuzz seeds. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_circuit_to_bytes(const cuzk_circuit *c, uint8_t **out,
                                                          size_t *n, cuzk_error *err);

/* ---- witness -> a, b, c --------------------------------------------------- */

/* Flags for cuzk_circuit_abc_var. */
#define CUZK_SPMV_COEFF_PM1 1u  /* +-1 coefficients by their index: add/sub, no multiply */
#define CUZK_SPMV_WITNESS_01 2u /* witness 0: skip; 1: add the coefficient (variable time) */
#define CUZK_SPMV_DEFAULT (CUZK_SPMV_COEFF_PM1 | CUZK_SPMV_WITNESS_01)

/*
 * a, b, c (each domain_size cuzk_fr, Montgomery, caller-allocated):
 *   row i < n_constraints:          a_i = <A_i, w>, b_i = <B_i, w>, c_i = <C_i, w>
 *   row n_constraints + j, j < n_inputs: a = w_j, b = 0, c = 0 (bellman's
 *                                     input constraints)
 *   the other rows up to domain_size: 0.
 * w is the full assignment (n_inputs + n_aux values, Montgomery, w[0] = 1).
 * Rows are split in blocks over `threads` OpenMP threads (0 = all cores).
 * Flags pick the fast paths; flags = 0 is the generic path (one
 * multiplication per entry). Without CUZK_SPMV_WITNESS_01 the running time
 * does not depend on the witness values; with it (the default, as in the
 * reference system) it does: see doc/timing.md. ERR_INVALID_ARG for NULL
 * arrays only.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_circuit_abc_var(const cuzk_circuit *c, cuzk_fr *a,
                                                         cuzk_fr *b, cuzk_fr *cc,
                                                         const cuzk_fr *w, unsigned flags,
                                                         unsigned threads);

/*
 * Checks a_i * b_i = c_i for every constraint row i < n_constraints.
 * CUZK_OK, or ERR_WITNESS_UNSATISFIED with *first_bad (may be NULL) = the
 * smallest failing row and a message naming the circuit, wname (the witness,
 * may be NULL) and the row. *first_bad = UINT64_MAX when all hold.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_circuit_check_abc(const cuzk_circuit *c,
                                                           const cuzk_fr *a, const cuzk_fr *b,
                                                           const cuzk_fr *cc, const char *wname,
                                                           unsigned threads, uint64_t *first_bad,
                                                           cuzk_error *err);

/* Threads a call with `threads` uses: threads, or all cores for 0 (1 without OpenMP). */
unsigned cuzk_circuit_threads(unsigned threads);

/* ---- internal (tests, fuzz targets) ---------------------------------------- */

/* XXH64 of n bytes with a seed (Collet's xxHash, 64-bit variant; written from
 * its specification). */
uint64_t cuzk__xxh64(const void *data, size_t n, uint64_t seed);
/* The file checksum of n bytes (doc/formats.md §1.4): XXH64 of the
 * concatenated little-endian XXH64 digests of the 1 MiB blocks. */
uint64_t cuzk__circuit_checksum(const uint8_t *data, uint64_t n, unsigned threads);

#endif /* CUZK_CIRCUIT_H */
