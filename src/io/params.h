/*
 * params.h — bellman / Filecoin Groth16 parameter files (.params) and
 * verifying-key files (.vk), BLS12-381 (doc/formats.md, bellman
 * .params and .vk; zcash point encoding; Two H conventions).
 *
 * Layout (bellman `Parameters::write`, no padding, every integer u32
 * big-endian, every point the 96-byte (G1) or 192-byte (G2) UNCOMPRESSED
 * zcash encoding):
 *
 *   vk:  alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2  (864 B)
 *        u32 n_ic, then n_ic G1 points IC_i = [(beta u_i + alpha v_i + w_i)/gamma]
 *   h:   u32 n, then n G1 points [tau^i Z(tau)/delta], i < N - 1 (monomial)
 *   l:   u32 n, then G1 points [(beta u_j + alpha v_j + w_j)/delta], one per aux
 *   a:   u32 n, then G1 points [u_i(tau)], inputs then aux, identities removed
 *   b_g1: u32 n, then G1 points [v_i(tau)], identities removed
 *   b_g2: u32 n, then G2 points [v_i(tau)], identities removed
 *
 * A .vk file is the vk part alone. Neither file has a header or a checksum.
 *
 * Reading. The file is memory-mapped read-only. Every count is checked
 * against the bytes left in the file with 64-bit arithmetic before anything
 * is allocated, so a hostile count can make us allocate no more than about
 * the file's own size. Then each vector is decoded in one pass into an array
 * of cuzk_g1_aff / cuzk_g2_aff (LE Montgomery limbs, the form every backend
 * uses): zcash is big-endian canonical, so a converted copy cannot be
 * avoided (one Montgomery multiplication per coordinate). The mapping is
 * released before open returns.
 *
 * Checks, in this order per point: flag bits (an uncompressed point must
 * have 0x80 and 0x20 clear; 0x40 = infinity needs every other bit zero),
 * canonical coordinates (< p), the unflagged (0, 0) encoding refused; then,
 * by flag, the curve equation and subgroup membership. Infinity is refused
 * everywhere, as bellperson's `Parameters::read` does for every vector and
 * for IC (a, b_g1, b_g2 have their identities removed by the generator; an
 * infinite h or l point makes the key degenerate), and also in the six vk
 * points, where bellperson accepts it (an infinite delta lets anyone forge
 * proofs; alpha, beta or gamma at infinity is no valid setup either). The six vk points and IC
 * always get the full curve and subgroup check, as bellperson's
 * `VerifyingKey::read` does whatever `checked` says (they are few); the five
 * vectors get what the flags ask for. The first bad point is reported by
 * vector and index ("vector b_g2 point 17"), whichever thread found it.
 *
 * Shape checks (all cheap, all on counts; bellman writes nothing else):
 *   n_ic >= 1 (IC[0] is for the constant input 1);
 *   N = |h| + 1 is a power of two (the evaluation domain; N <= 2^32 since
 *   |h| is a u32) and N >= n_ic (bellman's domain covers the constraints
 *   plus one row per input);
 *   n_ic <= |a| <= n_ic + |l| (the input part of A is dense: bellman adds
 *   one input_i * 0 = 0 row per input; aux points may be removed);
 *   |b_g1| = |b_g2| <= n_ic + |l|;
 *   nothing after b_g2.
 *
 * Memory. An open cuzk_params holds, on the heap,
 *   96 (|IC| + |h| + |l| + |a| + |b_g1|) + 192 |b_g2| bytes,
 * the same as the file's size minus its 24 count bytes; the file's pages
 * are only borrowed while open runs (page cache, released with the
 * mapping). For a 2^27 PoRep partition's parameters (~47 GiB) that is
 * ~47 GiB of RAM. Peak during open: the converted arrays plus whatever part
 * of the mapping the kernel keeps resident.
 *
 * Deferred points (CUZK_PARAMS_DEFER_POINTS, for a GPU backend). The five
 * vectors are ~all of a large file (47 GiB at 2^27), and a device wants them
 * in its own memory, not in ours: decoding them here costs seconds of CPU
 * and page faults plus their size in RAM, and a second pass to upload them.
 * With this flag open reads and checks only the head (vk, IC, counts, shape)
 * through a mapping that is not populated, leaves every vector's p NULL (n
 * and offset set), and keeps the file open: cuzk_params_read_encoded reads a
 * run of a vector's zcash encodings (pread: a file shortened since open is an
 * I/O error, never a signal), and the reader decodes and checks them itself;
 * cuzk_params_point_check explains a point that reader refused, with the
 * message open would have given at CUZK_PARAMS_CHECK_CURVE. The CPU prover,
 * the encoder and the writer refuse deferred parameters
 * (cuzk_params_require_points). The flag cannot be combined with the CHECK
 * flags (the checks move to the reader) nor used with cuzk_params_open_mem
 * (its buffer is only borrowed during the call).
 *
 * Conventions recorded for the prover (doc/formats.md, Two H conventions): root
 * CUZK_NTT_ROOT7 (omega_N from 7^t), H kind CUZK_H_MONOMIAL (N - 1 points,
 * coset NTT with shift g = 7 and division by g^N - 1).
 *
 * Writing (cuzk_params_write, cuzk_params_vk_write) produces exactly this
 * layout. The writer refuses what the reader would refuse for shape or
 * infinity, so a written file always reads back; it does not re-check curve
 * or subgroup membership of in-memory points (they came from our own
 * arithmetic).
 *
 * Errors: cuzk_status plus a cuzk_error whose message names the path (or the
 * name given to the _mem functions), the file offset, the part ("vk", "IC",
 * "vector h") and the reason:
 *   ERR_IO          cannot open/stat/map/write the file
 *   ERR_NOMEM       allocation failed
 *   ERR_BAD_LENGTH  truncated file, a count larger than the bytes left,
 *                   trailing bytes
 *   ERR_BAD_ENCODING flag bits, a shape rule above
 *   ERR_NOT_CANONICAL, ERR_NOT_ON_CURVE, ERR_NOT_IN_SUBGROUP,
 *   ERR_POINT_AT_INFINITY  a point, named by part and index
 *
 * Concurrency: an open cuzk_params is immutable; any number of threads may
 * read it.
 */
#ifndef CUZK_PARAMS_H
#define CUZK_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "poly/ntt.h"
#include "io/zkey.h" /* cuzk_h_kind */

/* Open flags. */
#define CUZK_PARAMS_CHECK_CURVE 1u    /* every vector point on its curve */
#define CUZK_PARAMS_CHECK_SUBGROUP 2u /* every vector point in the r-torsion (implies CURVE) */
#define CUZK_PARAMS_PARALLEL 4u       /* decode and check on OpenMP threads */
#define CUZK_PARAMS_DEFER_POINTS 8u   /* leave the five vectors in the file (see above) */

/* The five vectors, for the deferred-point readers. */
typedef enum {
    CUZK_PARAMS_VEC_H,
    CUZK_PARAMS_VEC_L,
    CUZK_PARAMS_VEC_A,
    CUZK_PARAMS_VEC_B_G1,
    CUZK_PARAMS_VEC_B_G2
} cuzk_params_vec;

/* Bytes of the fixed vk head: 3 G1 + 3 G2 uncompressed points. */
#define CUZK_PARAMS_VK_HEAD_BYTES (3u * 96u + 3u * 192u)

/* The verifying-key part (bellman's VerifyingKey). */
typedef struct {
    cuzk_g1_aff alpha1, beta1, delta1;
    cuzk_g2_aff beta2, gamma2, delta2;
    uint64_t n_ic;   /* number of public inputs + 1 (IC[0] is for the constant 1) */
    cuzk_g1_aff *ic; /* n_ic points, heap */
} cuzk_params_vk;

/* One vector: n points on the heap (p is NULL when n is 0) and the file
 * offset of its first point (for messages; 0 for keys built in memory). */
typedef struct {
    cuzk_g1_aff *p;
    uint64_t n;
    uint64_t offset;
} cuzk_params_g1_vec;

typedef struct {
    cuzk_g2_aff *p;
    uint64_t n;
    uint64_t offset;
} cuzk_params_g2_vec;

typedef struct {
    char *path; /* copy of the path or name, for messages */
    cuzk_params_vk vk;
    cuzk_params_g1_vec h;    /* N - 1 points tau^i Z(tau)/delta */
    cuzk_params_g1_vec l;    /* one per aux variable */
    cuzk_params_g1_vec a;    /* inputs (dense) then aux (density a_aux) */
    cuzk_params_g1_vec b_g1; /* inputs (density b_inp) then aux (density b_aux) */
    cuzk_params_g2_vec b_g2; /* same density as b_g1 */
    bool deferred;           /* opened with CUZK_PARAMS_DEFER_POINTS: the vectors' p are NULL */
    int fd;                  /* deferred: the file, open for the readers below */

    /* Derived from the counts. */
    uint64_t domain_size;     /* N = |h| + 1, a power of two */
    uint32_t log_domain_size; /* k with N = 2^k */
    uint64_t n_inputs;        /* = vk.n_ic (the constant 1 included) */
    uint64_t n_aux;           /* = |l| */

    /* Conventions the prover must follow with these parameters. */
    cuzk_ntt_root root; /* CUZK_NTT_ROOT7 */
    cuzk_h_kind h_kind; /* CUZK_H_MONOMIAL */
} cuzk_params;

/* Opens and checks a .params file (see above). On failure *p is left
 * closed (zeroed). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_open(cuzk_params *p, const char *path,
                                                     unsigned flags, cuzk_error *err);
/* The same over a caller's buffer (read during the call only); name stands
 * in for the path in messages. For fuzzing and keys already in memory. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_open_mem(cuzk_params *p, const void *data,
                                                         size_t size, const char *name,
                                                         unsigned flags, cuzk_error *err);
/* Frees everything (and closes a deferred file); leaves *p zeroed. Safe on a
 * zeroed or closed object. */
void cuzk_params_close(cuzk_params *p);

/* Deferred parameters: copies the zcash encodings of points [first, first +
 * count) of vector v (96 bytes each, 192 for b_g2) into dst. ERR_INVALID_ARG
 * if p is not deferred or the range is outside the vector; ERR_IO (naming the
 * file and offset) if the read fails or comes up short. Thread-safe. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_read_encoded(const cuzk_params *p,
                                                             cuzk_params_vec v, uint64_t first,
                                                             uint64_t count, void *dst,
                                                             cuzk_error *err);
/* CUZK_OK if p's vectors are decoded in memory; else ERR_INVALID_ARG with a
 * message naming the file and who (e.g. "the CPU prover") needs them. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_require_points(const cuzk_params *p,
                                                               const char *who,
                                                               cuzk_error *err);
/* Deferred parameters: decodes point index of vector v with the curve check
 * and returns what open would have said of it (CUZK_OK if nothing is wrong
 * with it; else the status, and a message naming the file, offset, vector and
 * index). For a reader that refused the point, to say why. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_point_check(const cuzk_params *p,
                                                            cuzk_params_vec v, uint64_t index,
                                                            cuzk_error *err);

/* Deferred parameters: checks every point of the five vectors (flags,
 * canonical coordinates, not infinity, the curve, the subgroup), reading the
 * file a chunk at a time on OpenMP threads. CUZK_OK, or the first bad point's
 * status with a message naming the file, offset, vector and index; ERR_IO
 * for a read that fails. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_check_vectors(const cuzk_params *p,
                                                              cuzk_error *err);

/* Opens a .vk file (the vk part alone, nothing after it). Every point gets
 * the full check; flags may hold CUZK_PARAMS_PARALLEL. On failure *vk is
 * zeroed. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_vk_open(cuzk_params_vk *vk, const char *path,
                                                        unsigned flags, cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_vk_open_mem(cuzk_params_vk *vk, const void *data,
                                                            size_t size, const char *name,
                                                            unsigned flags, cuzk_error *err);
/* Frees vk->ic; leaves *vk zeroed. */
void cuzk_params_vk_free(cuzk_params_vk *vk);

/* A deep copy (for a .vk taken from an open .params). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_vk_copy(cuzk_params_vk *out,
                                                        const cuzk_params_vk *vk,
                                                        cuzk_error *err);

/*
 * Serialized sizes (64-bit; no overflow for any counts that fit in memory).
 * The encoders write exactly that many bytes into out (cap must be at least
 * that); the writers write a file whole or not at all (util/atomic_write.h:
 * a unique temporary file in the target's folder, fsynced and renamed over
 * it on success, removed on failure). Every count must fit in a
 * u32 (else ERR_INVALID_ARG) and follow the shape rules above (else
 * ERR_BAD_ENCODING, the reader's message without an offset); no point of
 * the vk, IC or a vector may be infinity (ERR_POINT_AT_INFINITY naming the
 * part and index). On failure the buffer holds a partial encoding. The flags of the writers
 * may hold CUZK_PARAMS_PARALLEL (encode chunks on OpenMP threads).
 */
uint64_t cuzk_params_vk_encoded_size(const cuzk_params_vk *vk);
uint64_t cuzk_params_encoded_size(const cuzk_params *p);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_vk_encode(uint8_t *out, size_t cap,
                                                          const cuzk_params_vk *vk,
                                                          cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_encode(uint8_t *out, size_t cap,
                                                       const cuzk_params *p, unsigned flags,
                                                       cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_vk_write(const char *path,
                                                         const cuzk_params_vk *vk,
                                                         cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_params_write(const char *path, const cuzk_params *p,
                                                      unsigned flags, cuzk_error *err);

/* The same encodings into one output of a set (util/atomic_write.h), so a
 * command commits a .params and its .vk together. */
struct cuzk__out;
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__params_vk_write_out(struct cuzk__out *o,
                                                              const cuzk_params_vk *vk,
                                                              cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__params_write_out(struct cuzk__out *o,
                                                           const cuzk_params *p, unsigned flags,
                                                           cuzk_error *err);

#endif /* CUZK_PARAMS_H */
