/*
 * gpu_circuit.h — a circuit resident on the device and the witness -> a, b, c
 * step on the GPU (the device side of src/circuit/spmv.c), internal to cuzk.
 *
 * cuzk__gpu_circuit_upload copies the CSR matrices (row pointers, columns,
 * value indices), the value table and, for the prover's density-filtered
 * MSMs, the variable lists of A (all inputs, then aux with the a_aux bit),
 * B (inputs with b_inp, then aux with b_aux) once; every proof then only
 * uploads its witness. Device memory: 3 (n_constraints + 1) 8-byte row
 * pointers + 8 bytes per nonzero + 32 per distinct value + 4 per listed
 * variable. At PoRep size (2^27, ~1.7 G nonzeros) that is ~17 GiB.
 *
 * Buffers passed as void * are device pointers to cuzk_fr-layout elements
 * (4 little-endian 64-bit words; gpu.h); stream is a cudaStream_t (NULL:
 * the default stream). Functions are asynchronous on the stream unless they
 * return a value to the host (check, upload).
 */
#ifndef CUZK_GPU_CIRCUIT_H
#define CUZK_GPU_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk__gpu_circuit cuzk__gpu_circuit;

/* The host arrays of a circuit (views into a cuzk_circuit; this header does
 * not include circuit.h: the C headers are not C++). cuzk__gpu_circuit_src_of
 * (backend_gpu.h) fills it from a cuzk_circuit. */
typedef struct {
    uint64_t n_constraints, n_inputs, n_aux, domain_size;
    const uint64_t *row_ptr[3]; /* A, B, C */
    const uint32_t *col[3], *val[3];
    uint64_t nnz[3];
    const uint64_t *values; /* n_values elements, 4 words each, Montgomery */
    uint64_t n_values;
    const uint64_t *a_aux, *b_inp, *b_aux; /* density bitmaps */
} cuzk__gpu_circuit_src;

/* What an uploaded circuit holds (host copies of the counts). */
typedef struct {
    uint64_t n_constraints, n_inputs, n_aux, domain_size;
    uint64_t a_count;  /* variables listed for A: n_inputs + popcount(a_aux) */
    uint64_t b_count;  /* variables listed for B: popcount(b_inp) + popcount(b_aux) */
    uint64_t device_bytes;
    const uint32_t *a_vars; /* device: a_count variable indices */
    const uint32_t *b_vars; /* device: b_count variable indices */
} cuzk__gpu_circuit_info;

/* A host -> device copy the uploader may be given (backend_gpu_stage.c
 * passes its staged copy: pageable arrays through page-locked buffers on
 * several threads, faster than cudaMemcpy from the circuit file's pageable
 * mapping). */
typedef cuzk_status (*cuzk__gpu_copy_fn)(void *ctx, void *dst, const void *src, size_t bytes);

/* Uploads a circuit to the current device; copy (NULL: cudaMemcpy) moves
 * the arrays. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_circuit_upload(cuzk__gpu_circuit **out,
                                                             const cuzk__gpu_circuit_src *src,
                                                             cuzk__gpu_copy_fn copy, void *ctx);
/* Only the variable lists of A and B (a key whose a, b, c are made on the
 * CPU gathers its queries on the device): abc and check refuse it. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_circuit_upload_lists(
    cuzk__gpu_circuit **out, const cuzk__gpu_circuit_src *src, cuzk__gpu_copy_fn copy, void *ctx);
void cuzk__gpu_circuit_free(cuzk__gpu_circuit *g);
const cuzk__gpu_circuit_info *cuzk__gpu_circuit_info_of(const cuzk__gpu_circuit *g);

/*
 * a, b, c: domain_size elements each (Montgomery), rows as in
 * cuzk_circuit_abc_var: constraint rows, then bellman's input rows
 * (a = w_j, b = c = 0), then zeros. w: the full assignment, Montgomery.
 * Bit for bit equal to the CPU's result.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_circuit_abc(const cuzk__gpu_circuit *g, void *a,
                                                          void *b, void *c, const void *w,
                                                          void *stream);

/* The smallest constraint row with a*b != c into *first_bad (UINT64_MAX when
 * all hold). Synchronizes the stream. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_circuit_check(const cuzk__gpu_circuit *g,
                                                            const void *a, const void *b,
                                                            const void *c, uint64_t *first_bad,
                                                            void *stream);

/* out[i] = in[i] to / from Montgomery form (plain canonical limbs <-> x R),
 * i < n; out may equal in. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fr_to_mont(void *out, const void *in, size_t n,
                                                         void *stream);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fr_from_mont(void *out, const void *in, size_t n,
                                                           void *stream);

/* out[k] = in[idx[k]], k < n (32-byte elements; idx on the device). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_fr_gather(void *out, const void *in,
                                                        const uint32_t *idx, size_t n,
                                                        void *stream);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GPU_CIRCUIT_H */
