/*
 * cuzk_supraseal.h — supraseal-c2's C interface, as libcuzk_supraseal is to
 * export it: the calls through which Filecoin's Rust stack (bellperson with
 * its `cuda-supraseal` feature, Curio's prover) hands synthesized circuits
 * to a Groth16 prover. doc/formats.md §17 is the specification: where each
 * fact comes from upstream, what each field means, and what could not be
 * confirmed from source.
 *
 * THE ONE HEADER WITH NAMES OUTSIDE cuzk_. Every other public name of cuzk
 * starts with cuzk_ (include/cuzk.h; scripts/check-symbols.sh holds libcuzk
 * to that). The ten functions below keep upstream's names (create_SRS,
 * generate_groth16_proofs_c, ...) because they are found by the linker under
 * those names: the Rust side declares them in `extern "C"` blocks and links
 * whichever library defines them. They therefore live in a library of their
 * own, libcuzk_supraseal, never in libcuzk. The types are ours (cuzk_supraseal_
 * prefix): C types are not part of the link, only their layouts are, and
 * those are fixed by the static assertions at the end of this file.
 *
 * Which upstream. Three mutually incompatible versions of these signatures
 * exist (§17.1). This header declares the one on filecoin-project/curio's
 * main branch (extern/supraseal-c2, since commit 3f74a5cd): gpu_mtx and
 * gpu_index on the proving calls, and the split start/finalize form. Rust
 * code built for stock supraseal-c2 0.1.0 (six parameters) must not be
 * linked against this library directly: it would leave gpu_mtx and
 * gpu_index unset on the stack. It reaches the library through the shim
 * crate, which offers either Rust API over this one C interface.
 *
 * Representations (x86-64 and any other LP64 target; §17.3, §17.4):
 *   - Scalars (cuzk_supraseal_fr): blst's blst_fr, four little-endian u64
 *     limbs holding v * 2^256 mod r (Montgomery form), fully reduced. This
 *     holds for every scalar crossing the interface: a, b, c, both
 *     assignments, r and s.
 *   - Base field (cuzk_supraseal_fp): blst_fp, six little-endian u64 limbs
 *     holding v * 2^384 mod p. Fp2 is c0 then c1 (the file encodings of
 *     bellman write c1 first; in memory it is c0 first).
 *   - Affine points: x then y, the point at infinity all zero (blst's and
 *     blstrs's convention; there is no flag byte).
 *   - Density bitmaps: u64 words, bit i of the vector is bit i % 64 of word
 *     i / 64 (Rust bitvec's Lsb0 over usize). Only the first bit_len bits
 *     are meaningful; the bits after them in the last word are unspecified.
 *
 * Ownership and errors (§17.9): every call that can fail returns a
 * cuzk_supraseal_error by value. code 0 is success. message is NULL or a
 * string from malloc() that the CALLER frees with free() (the Rust side
 * does so in sppark::Error's Drop), so it must never point to static or
 * library-owned storage; a successful call returns message NULL.
 *
 * Threads: every function may be called from any thread; handles (SRS,
 * GPU mutex) are shared between threads by the Rust side (SRS is Send and
 * Sync there). A pending proof handle is used by one thread at a time.
 */
#ifndef CUZK_SUPRASEAL_H
#define CUZK_SUPRASEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what libcuzk_supraseal exports (its other symbols are hidden). */
#if defined(__GNUC__) && !defined(_WIN32)
#define CUZK_SUPRASEAL_API __attribute__((visibility("default")))
#else
#define CUZK_SUPRASEAL_API
#endif

/* ==== types ================================================================ */

/* An element of Fr (upstream: sppark's fr_t, blst_fr; Rust: blstrs::Scalar). */
typedef struct {
    uint64_t l[4];
} cuzk_supraseal_fr;

/* An element of Fp (blst_fp). */
typedef struct {
    uint64_t l[6];
} cuzk_supraseal_fp;

/* An element of Fp2 = Fp[u]/(u^2 + 1): c0 + c1 u (blst_fp2). */
typedef struct {
    cuzk_supraseal_fp c0, c1;
} cuzk_supraseal_fp2;

/* Affine G1 and G2 points (blst_p1_affine, blst_p2_affine; Rust:
 * blstrs::G1Affine, G2Affine). Infinity: every limb zero. */
typedef struct {
    cuzk_supraseal_fp x, y;
} cuzk_supraseal_g1_affine;
typedef struct {
    cuzk_supraseal_fp2 x, y;
} cuzk_supraseal_g2_affine;

/* One proof as the proving calls write it (upstream: groth16_proof; Rust:
 * bellperson's #[repr(C)] Proof<Bls12>). Not the 192-byte compressed
 * encoding: bellperson compresses it later with Proof::write. */
typedef struct {
    cuzk_supraseal_g1_affine a;
    cuzk_supraseal_g2_affine b;
    cuzk_supraseal_g1_affine c;
} cuzk_supraseal_proof;

/* A handle to loaded parameters (upstream: class SRS, a pointer to a
 * reference-counted body; Rust: #[repr(C)] struct SRS { ptr }). All-zero
 * (ptr NULL) is the empty handle Rust's SRS::default() makes. Copying the
 * struct does not take a reference: clone_SRS does. */
typedef struct {
    const void *ptr;
} cuzk_supraseal_srs;

/* The status every fallible call returns by value (upstream: sppark's
 * RustError::by_value; Rust: sppark::Error { code: i32, str:
 * Option<NonNull<i8>> }). 16 bytes, returned in RAX:RDX on x86-64. */
typedef struct {
    int32_t code;  /* 0: success; otherwise an errno value or -cudaError_t upstream */
    char *message; /* NULL or malloc()ed, NUL-terminated; the caller free()s it */
} cuzk_supraseal_error;

/*
 * One circuit's synthesized assignment (upstream: template Assignment<fr_t>;
 * Rust: supraseal_c2::Assignment<Scalar>, filled by bellperson from its
 * ProvingAssignment). Every pointer is borrowed; scalars are Montgomery.
 * Let n_inp = inp_assignment_size, n_aux = aux_assignment_size.
 */
typedef struct {
    /* Aux variables used in A (selects the A bases after the inputs). */
    const uint64_t *a_aux_density; /* ceil(a_aux_bit_len / 64) words */
    size_t a_aux_bit_len;          /* = n_aux */
    size_t a_aux_popcount;         /* set bits among the a_aux_bit_len */

    /* Inputs used in B (selects the first B_G1 and B_G2 bases). */
    const uint64_t *b_inp_density;
    size_t b_inp_bit_len; /* = n_inp */
    size_t b_inp_popcount;

    /* Aux variables used in B (selects the remaining B_G1 and B_G2 bases). */
    const uint64_t *b_aux_density;
    size_t b_aux_bit_len; /* = n_aux */
    size_t b_aux_popcount;

    /* <A_i, w>, <B_i, w>, <C_i, w> for every constraint i, the circuit's
     * own followed by one input_j * 0 = 0 per input: the three polynomials'
     * values on the domain, zero-padded by the prover to N = |H| + 1. */
    const cuzk_supraseal_fr *a;
    const cuzk_supraseal_fr *b;
    const cuzk_supraseal_fr *c;
    size_t abc_size; /* constraints + n_inp, at most N */

    /* The witness: inputs (element 0 is one) and the private variables. */
    const cuzk_supraseal_fr *inp_assignment_data;
    size_t inp_assignment_size;
    const cuzk_supraseal_fr *aux_assignment_data;
    size_t aux_assignment_size;
} cuzk_supraseal_assignment;

/* ==== parameters ============================================================ */

/*
 * Loads the bellman parameters file at srs_path (a Filecoin
 * v28-...params; doc/formats.md §12) into *ret, which the caller passes
 * empty. cache true: a process-wide cache keyed by the path string as
 * given is consulted first and the loaded parameters are entered into it
 * (upstream keeps the 4 most recently used); the handle returned shares
 * them. cache false: a private load, never entered into the cache. The
 * first proof may wait for the points (upstream returns once the counts
 * are read and converts the points on a thread of its own).
 */
CUZK_SUPRASEAL_API cuzk_supraseal_error create_SRS(cuzk_supraseal_srs *ret, const char *srs_path,
                                                   bool cache);

/* Removes the cache's entry for srs's path (the handle itself stays valid;
 * the parameters are freed when the last handle is dropped). */
CUZK_SUPRASEAL_API void evict_SRS(const cuzk_supraseal_srs *srs);

/* Releases the reference srs holds; the last one frees the parameters. An
 * empty handle is accepted. The handle is not written (Rust passes a shared
 * reference and clears its pointer itself afterwards). */
CUZK_SUPRASEAL_API void drop_SRS(const cuzk_supraseal_srs *srs);

/* A second handle to the same parameters (one more reference). */
CUZK_SUPRASEAL_API cuzk_supraseal_srs clone_SRS(const cuzk_supraseal_srs *srs);

/* ==== proving ================================================================ */

/* An opaque mutex for gpu_mtx (upstream: a heap std::mutex). Curio makes one
 * per GPU and passes it with that GPU's gpu_index. destroy_gpu_mutex(NULL) is
 * a no-op; destroying a mutex that a call still holds is a caller error. */
CUZK_SUPRASEAL_API void *create_gpu_mutex(void);
CUZK_SUPRASEAL_API void destroy_gpu_mutex(void *mtx);

/*
 * Proves num_circuits circuits of one shape against srs: proofs[i] from
 * provers[i] with blinding scalars r_s[i], s_s[i] (Montgomery, drawn by the
 * caller), in that order. All circuits of a call share the densities and
 * sizes of the circuit srs was made for. gpu_mtx: held around the part of
 * the call that uses the GPU; NULL: one mutex private to the library,
 * shared by every caller that passes NULL. gpu_index >= 0: every circuit
 * runs on that GPU (an index into the CUDA devices in CUDA order, modulo
 * their number: here an index past them wraps, upstream it is undefined);
 * negative: the circuits are spread over the GPUs in contiguous blocks.
 * Without a GPU (or a library built without CUDA), or where a GPU has not
 * the memory for srs, the CPU proves them: the proofs are the same. Blocks
 * until the proofs are written; every input is borrowed for the call only.
 */
CUZK_SUPRASEAL_API cuzk_supraseal_error generate_groth16_proofs_c(
    const cuzk_supraseal_assignment provers[], size_t num_circuits, const cuzk_supraseal_fr r_s[],
    const cuzk_supraseal_fr s_s[], cuzk_supraseal_proof proofs[], const cuzk_supraseal_srs *srs,
    void *gpu_mtx, int gpu_index);

/*
 * The first half of generate_groth16_proofs_c: returns once the GPU part is
 * done (gpu_mtx released) with the rest (upstream: the B_G2 tail MSM on the
 * CPU) still running, and a handle for it in *pending_out. The handle owns
 * copies of provers[] (the structs, not what they point to), r_s and s_s:
 * the caller may free those arrays, and every a, b and c vector, as soon as
 * this returns; the density bitmaps and both assignments must stay valid
 * until finalize_groth16_proof_c or destroy_pending_proof returns (Curio's
 * bellperson keeps them so). srs must stay loaded until then too. On
 * failure *pending_out is NULL and nothing is left to free (upstream may
 * store a handle and return an error; Rust then ignores the handle).
 */
CUZK_SUPRASEAL_API cuzk_supraseal_error generate_groth16_proofs_start_c(
    const cuzk_supraseal_assignment provers[], size_t num_circuits, const cuzk_supraseal_fr r_s[],
    const cuzk_supraseal_fr s_s[], const cuzk_supraseal_srs *srs, void *gpu_mtx, int gpu_index,
    void **pending_out);

/* Waits for the rest of the work of handle, writes its num_circuits proofs
 * to proofs[] in the order of the start call, and frees the handle, whether
 * it succeeds or not (as upstream). destroy_pending_proof on a handle that
 * finalize has freed must be harmless: Curio's bellperson makes that call
 * when finalize fails (doc/formats.md §17.8). */
CUZK_SUPRASEAL_API cuzk_supraseal_error finalize_groth16_proof_c(void *handle,
                                                                 cuzk_supraseal_proof proofs[]);

/* Abandons a handle that was not finalized: waits for its work, frees it,
 * writes nothing. NULL and handles already freed are ignored. */
CUZK_SUPRASEAL_API void destroy_pending_proof(void *handle);

/* ==== layouts ================================================================ */

/*
 * The layouts the Rust declarations imply (checked there with Debian's
 * rustc 1.63 on x86-64; doc/formats.md §17.3). Rust's usize is size_t and
 * every pointer is 8 bytes on LP64 targets, which the offsets below assume.
 */
#if defined(__cplusplus)
#define CUZK__SUPRASEAL_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define CUZK__SUPRASEAL_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#if defined(__LP64__) || defined(_LP64)
CUZK__SUPRASEAL_ASSERT(sizeof(size_t) == 8 && sizeof(void *) == 8, "usize is size_t, 8 bytes");
CUZK__SUPRASEAL_ASSERT(sizeof(bool) == 1 && sizeof(int) == 4, "Rust bool and i32");

CUZK__SUPRASEAL_ASSERT(sizeof(cuzk_supraseal_fr) == 32, "fr: 4 limbs");
CUZK__SUPRASEAL_ASSERT(sizeof(cuzk_supraseal_fp) == 48, "fp: 6 limbs");
CUZK__SUPRASEAL_ASSERT(sizeof(cuzk_supraseal_fp2) == 96, "fp2");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_fp2, c1) == 48, "fp2: c0 then c1");
CUZK__SUPRASEAL_ASSERT(sizeof(cuzk_supraseal_g1_affine) == 96, "G1 affine");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_g1_affine, y) == 48, "G1 affine: x then y");
CUZK__SUPRASEAL_ASSERT(sizeof(cuzk_supraseal_g2_affine) == 192, "G2 affine");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_g2_affine, y) == 96, "G2 affine: x then y");

CUZK__SUPRASEAL_ASSERT(sizeof(cuzk_supraseal_proof) == 384, "groth16_proof");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_proof, a) == 0, "groth16_proof.a");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_proof, b) == 96, "groth16_proof.b");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_proof, c) == 288, "groth16_proof.c");

CUZK__SUPRASEAL_ASSERT(sizeof(cuzk_supraseal_srs) == 8, "SRS: one pointer");
CUZK__SUPRASEAL_ASSERT(sizeof(cuzk_supraseal_error) == 16, "sppark::Error");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_error, code) == 0, "sppark::Error.code");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_error, message) == 8, "sppark::Error.str");

CUZK__SUPRASEAL_ASSERT(sizeof(cuzk_supraseal_assignment) == 136, "Assignment: 17 words");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, a_aux_density) == 0, "a_aux_density");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, a_aux_bit_len) == 8, "a_aux_bit_len");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, a_aux_popcount) == 16,
                       "a_aux_popcount");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, b_inp_density) == 24, "b_inp_density");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, b_inp_bit_len) == 32, "b_inp_bit_len");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, b_inp_popcount) == 40,
                       "b_inp_popcount");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, b_aux_density) == 48, "b_aux_density");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, b_aux_bit_len) == 56, "b_aux_bit_len");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, b_aux_popcount) == 64,
                       "b_aux_popcount");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, a) == 72, "a");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, b) == 80, "b");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, c) == 88, "c");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, abc_size) == 96, "abc_size");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, inp_assignment_data) == 104,
                       "inp_assignment_data");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, inp_assignment_size) == 112,
                       "inp_assignment_size");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, aux_assignment_data) == 120,
                       "aux_assignment_data");
CUZK__SUPRASEAL_ASSERT(offsetof(cuzk_supraseal_assignment, aux_assignment_size) == 128,
                       "aux_assignment_size");
#endif

#ifdef __cplusplus
}
#endif

#endif /* CUZK_SUPRASEAL_H */
