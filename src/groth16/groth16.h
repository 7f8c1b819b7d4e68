/*
 * groth16.h — Groth16 over BLS12-381: proofs, verifying keys, verification,
 * and the two-call prover shape (prove_start does all heavy work, prove_finish
 * assembles the proof from r, s) that the engine and the GPU backend reuse.
 *
 * Scalars handed to this layer (public inputs, r, s) are plain canonical
 * little-endian limbs (< r), the form MSMs consume.
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "io/zkey.h"

typedef struct {
    cuzk_g1_aff a;
    cuzk_g2_aff b;
    cuzk_g1_aff c;
} cuzk_groth16_proof;

/* What verification needs. ic has n_public + 1 points (ic[0] is for the
 * constant signal 1). The loaders validate every point (on the curve, in the
 * subgroup, not infinity in ic). */
typedef struct {
    cuzk_g1_aff alpha1;
    cuzk_g2_aff beta2, gamma2, delta2;
    size_t n_public;
    cuzk_g1_aff *ic;
} cuzk_groth16_vk;

/* Frees vk->ic (allocated by the loaders) and clears the struct. */
void cuzk_groth16_vk_free(cuzk_groth16_vk *vk);

/*
 * Verifies proof against vk and the public inputs (n_public plain scalars,
 * each < r). Stricter than snarkjs (doc/formats.md, Verification): the
 * count must equal vk->n_public, each input must be canonical, A, C must be
 * finite points of G1 and B a finite point of G2. Returns CUZK_OK for a
 * valid proof, CUZK_ERR_PROOF_INVALID when the pairing equation fails, or the
 * input error, with the reason in *err.
 */
cuzk_status cuzk_groth16_verify(const cuzk_groth16_vk *vk, const uint64_t (*pub)[4],
                                size_t n_public, const cuzk_groth16_proof *proof,
                                cuzk_error *err);

/* ---- proving ------------------------------------------------------------- */

/* Milliseconds spent in each stage of prove_start / prove_finish. */
typedef struct {
    double abc_ms;    /* a, b (and c) from the key's coefficients and the witness */
    double ntt_ms;    /* H: the NTTs and pointwise products */
    double msm_a_ms;  /* sum w_i A_i */
    double msm_b1_ms; /* sum w_i B1_i */
    double msm_b2_ms; /* sum w_i B2_i (G2) */
    double msm_c_ms;  /* sum of the private w_i C_i (bellman's L) */
    double msm_h_ms;  /* sum h_i H_i */
    double finish_ms; /* assembly with r, s */
    double total_ms;
} cuzk_groth16_timings;

/*
 * What prove_start leaves for prove_finish: the MSM results and copies of the
 * key points the assembly needs. It owns everything it refers to (no pointer
 * into the key), so the key may be closed between the two calls.
 */
typedef struct {
    cuzk_g1_jac msm_a, msm_b1, msm_ch; /* msm_ch = sum C_i w_i + sum H_i h_i */
    cuzk_g2_jac msm_b2;
    cuzk_g1_aff alpha1, beta1, delta1;
    cuzk_g2_aff beta2, delta2;
    cuzk_groth16_timings t;
} cuzk_groth16_partial;

/*
 * All heavy work of a proof for a snarkjs key: a, b from the coefficients,
 * c = a∘b, H at the odd coset of the doubled domain, and the five MSMs.
 * witness: n_witness plain scalars (< r), witness[0] = 1, n_witness equal to
 * the key's nVars. threads: 0 = all cores.
 */
cuzk_status cuzk_groth16_prove_start_zkey(cuzk_groth16_partial *out, const cuzk_zkey *zk,
                                          const uint64_t (*witness)[4], size_t n_witness,
                                          unsigned threads, cuzk_error *err);

/*
 * The first step of prove_start_zkey, shared with the GPU backend: checks the
 * witness against the key (count, w[0] = 1, every value < r) and the key's
 * conventions, then abc[0..3n) = a, b, c = a∘b (Montgomery) over the
 * domain of n = zk->domain_size rows from the key's coefficients.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__groth16_zkey_abc(const cuzk_zkey *zk,
                                                           const uint64_t (*witness)[4],
                                                           size_t n_witness, cuzk_fr *abc,
                                                           cuzk_error *err);

/*
 * The proof from a partial and the blinding scalars r, s (plain, < r; secret:
 * constant-time arithmetic):
 *   A = alpha1 + msm_a + r delta1,  B = beta2 + msm_b2 + s delta2,
 *   C = msm_ch + s A + r (beta1 + msm_b1 + s delta1) - r s delta1.
 */
void cuzk_groth16_prove_finish(cuzk_groth16_proof *proof, cuzk_groth16_partial *p,
                               const uint64_t r[4], const uint64_t s[4]);

/* A uniformly random scalar in [1, r) from the OS CSPRNG (getrandom). */
cuzk_status cuzk_groth16_random_scalar(uint64_t out[4], cuzk_error *err);

/* The verifying key of a snarkjs key (copies; free with cuzk_groth16_vk_free). */
cuzk_status cuzk_groth16_vk_from_zkey(cuzk_groth16_vk *vk, const cuzk_zkey *zk,
                                      cuzk_error *err);

/* ---- proving with bellman / Filecoin parameters over our CSR circuits ------ */

#include "io/params.h"
#include "circuit/witness.h"

/*
 * Milliseconds per stage of a bellman-form proof, named as the reference
 * system's timing lines (its CUZK_TIMING log line) so logs compare directly.
 * The snarkjs path keeps cuzk_groth16_timings; this prover fills both (the
 * partial's t with the per-MSM view, this one with the per-kind view).
 */
typedef struct {
    double spmv_ms;      /* witness -> a, b, c: Montgomery copy and the three SpMVs */
    double check_ms;     /* a_i b_i = c_i on every constraint row (on the same a, b, c) */
    double ntt_ms;       /* H: 7 NTTs (cuzk_h_bellman) and the conversion to plain */
    double msm_h_ms;     /* sum h_i H_i over the N - 1 coefficients */
    double prep_ms;      /* gathering the A and B scalars by density, 0/1/other classification */
    double batch_add_ms; /* bases whose scalar is 1, summed: A, B_G1, L (G1) and B_G2 (G2) */
    double tail_msm_ms;  /* Pippenger over the other scalars: A, B_G1, L (G1) */
    double b_g2_msm_ms;  /* Pippenger over the other scalars of B_G2 (G2) */
    double lock_wait_ms; /* waiting for the device (another proof's kernels on the key) */
    double key_wait_ms;  /* waiting for the key's vectors (a key from prepare_early, still
                            loading; 0 once it is whole) */
    double finish_ms;    /* assembly with r, s (filled by whoever runs prove_finish) */
    double total_ms;     /* prove_start plus finish */
    double cpu_abc_ms;   /* of spmv_ms, a, b, c made on the CPU before the device was waited
                            for (a GPU key that keeps its circuit on the host) */
} cuzk_groth16_stage_times;

/*
 * Checks that parameters p belong to circuit c, with a message naming both
 * files and the count that differs (ERR_INVALID_ARG): n_inputs (= |IC|),
 * n_aux (= |l|), the domain (|h| + 1 = c's domain), |a| = n_inputs +
 * popcount(a_aux), |b_g1| = |b_g2| = popcount(b_inp) + popcount(b_aux), and
 * the conventions (root 7^t, monomial H; ERR_UNSUPPORTED otherwise).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_groth16_check_params(const cuzk_circuit *c,
                                                              const cuzk_params *p,
                                                              cuzk_error *err);

/*
 * All heavy work of one bellman-form proof (bellperson's prover with the
 * reference system's split MSMs), for circuit c with parameters p (checked
 * by cuzk_groth16_check_params) and witness w.
 *
 * Witness: a cuzk_witness (witness.h): the full assignment, inputs then aux,
 * PLAIN canonical limbs, input 0 = 1 (the reader and
 * cuzk_witness_from_values check all of that). Plain because every MSM
 * reads it as is (L directly, A and B after gathering by density); only the
 * SpMV works on a Montgomery copy. Counts must equal c's (ERR_INVALID_ARG).
 *
 * Steps: a, b, c by SpMV (rows n_constraints + i get a = input_i, b = c = 0);
 * refusal of an unsatisfying witness (ERR_WITNESS_UNSATISFIED naming the
 * circuit, the witness and the first failing constraint) from the a, b, c
 * just computed; H = (ab - c)/Z by cuzk_h_bellman in p's domain; the MSMs
 *   A   = sum over inputs (dense) and aux with a_aux of w_j A_j
 *   B   = sum over inputs with b_inp and aux with b_aux of w_j B_j (G1, G2)
 *   L   = sum over aux of w_j L_j,   H = sum_{i < N-1} h_i H_i,
 * the witness ones split as bitmap batch-add (ones) + Pippenger (others).
 * out receives the MSM results and copies of alpha1, beta1, delta1, beta2,
 * delta2: it refers to nothing of c, p or w, which may be closed before
 * cuzk_groth16_prove_finish. times (may be NULL) receives the stage times
 * (finish_ms 0; out->t has the per-MSM view).
 *
 * threads: SpMV, classification, batch-adds and MSMs (0 = all cores); the
 * NTTs use omp_get_max_threads() as ntt.h says. VARIABLE TIME in the witness
 * (msm.h, doc/timing.md), as in the reference system.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_groth16_prove_start_circuit(
    cuzk_groth16_partial *out, cuzk_groth16_stage_times *times, const cuzk_circuit *c,
    const cuzk_params *p, const cuzk_witness *w, unsigned threads, cuzk_error *err);

/* The same with a ready NTT domain of p's size and root (dom may be NULL: one
 * is built and freed per call); for the backend, which keeps one per circuit. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__groth16_prove_start_circuit_dom(
    cuzk_groth16_partial *out, cuzk_groth16_stage_times *times, const cuzk_circuit *c,
    const cuzk_params *p, const cuzk_ntt_domain *dom, const cuzk_witness *w, unsigned threads,
    cuzk_error *err);

/* What every bellman-form prove_start ends with, wherever its MSMs ran:
 * out->msm_ch = msm_l + msm_h, and copies of vk's alpha1, beta1, delta1,
 * beta2 and delta2. */
void cuzk__groth16_partial_fill(cuzk_groth16_partial *out, const cuzk_params_vk *vk,
                                const cuzk_g1_jac *msm_l, const cuzk_g1_jac *msm_h);

/* ---- proving from a, b, c computed elsewhere -------------------------------
 *
 * For callers that synthesize circuits themselves and hand over what
 * bellperson's ProvingAssignment holds (supraseal-c2's interface,
 * doc/formats.md §17, src/supraseal): a, b, c evaluated on every constraint
 * row, the two assignments and the density bitmaps. Everything after a, b,
 * c is the circuit prover's own code (H, the A, B_G1, L, B_G2 queries and
 * their split MSMs), so the same assignment and the same r, s give the same
 * proof as cuzk_groth16_prove_start_circuit.
 */

/* One density bitmap: bit j of the vector is bit j % 64 of words[j / 64]
 * (Rust bitvec's Lsb0 over u64 words); n bits, of which count are set. Bits
 * at n and after in the last word are ignored; words is not read when n is
 * 0 (it may then be dangling, as a Rust empty slice's pointer is). */
typedef struct {
    const uint64_t *words;
    uint64_t n;
    uint64_t count;
} cuzk_groth16_density;

/*
 * One circuit's synthesized assignment. Every pointer is borrowed for the
 * call; every scalar is MONTGOMERY (x 2^256 mod r, limbs < r, blst's
 * blst_fr), as bellperson holds them.
 *   a, b, c: abc_size values each, <A_i, w>, <B_i, w>, <C_i, w> for every
 *     constraint row i: the circuit's own, then one row input_j * 0 = 0 per
 *     input j (a = input_j, b = c = 0), as synthesis appends them. The prover
 *     zero-pads them to the parameters' domain N = |h| + 1 (abc_size <= N).
 *   inputs: n_inputs values, inputs[0] = one; aux: n_aux values.
 *   a_aux (n_aux bits): aux variables in A; b_inp (n_inputs bits): inputs in
 *     B; b_aux (n_aux bits): aux variables in B (A's inputs are all in A).
 *   name: for messages ("circuit 3"); may be NULL.
 */
typedef struct {
    const cuzk_fr *a, *b, *c;
    uint64_t abc_size;
    const cuzk_fr *inputs;
    uint64_t n_inputs;
    const cuzk_fr *aux;
    uint64_t n_aux;
    cuzk_groth16_density a_aux, b_inp, b_aux;
    const char *name;
} cuzk_groth16_abc_input;

/*
 * The shape checks alone, on counts and bitmaps (no scalar is read): p is
 * bellman parameters; n_inputs >= 1; no NULL where values are due; bit
 * lengths a_aux = b_aux = n_aux, b_inp = n_inputs; each count equal to its
 * bitmap's popcount; against p: n_inputs = |IC|, n_aux = |l|, |a| =
 * n_inputs + count(a_aux), |b_g1| = |b_g2| = count(b_inp) + count(b_aux);
 * n_inputs <= abc_size <= N. ERR_INVALID_ARG naming the assignment, what
 * differs and both counts (ERR_UNSUPPORTED for snarkjs-form parameters).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_groth16_check_abc_input(
    const cuzk_groth16_abc_input *in, const cuzk_params *p, cuzk_error *err);

/*
 * All heavy work of one bellman-form proof from a synthesized assignment:
 * the shape checks above, then, reading the scalars, every a, b, c value
 * and every assignment value canonical (ERR_NOT_CANONICAL naming the vector
 * and index), inputs[0] one and the last n_inputs rows input_j * 0 = 0
 * (ERR_INVALID_ARG), a_i b_i = c_i on every row (ERR_WITNESS_UNSATISFIED
 * naming the first row that fails); then H from a, b, c zero-padded to N
 * and the MSMs of cuzk_groth16_prove_start_circuit, over plain copies of
 * the assignment (the copies are wiped before return). dom: p's NTT domain
 * (root 7) or NULL (one is built per call). out refers to nothing of in or
 * p (finish with cuzk_groth16_prove_finish, r and s plain). threads as for
 * the circuit prover; VARIABLE TIME in the assignment, as it is.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__groth16_prove_start_abc(
    cuzk_groth16_partial *out, cuzk_groth16_stage_times *times, const cuzk_groth16_abc_input *in,
    const cuzk_params *p, const cuzk_ntt_domain *dom, unsigned threads, cuzk_error *err);

/*
 * The refusals of prove_start_abc's scalar checks, shared with the GPU
 * prover (src/gpu/gpu_abc.h), which scans the long vectors on the device,
 * so that both word a refusal alike. In the order prove_start_abc checks:
 */
typedef enum {
    CUZK__ABC_A,           /* a[i] not canonical (ERR_NOT_CANONICAL) */
    CUZK__ABC_B,           /* b[i] */
    CUZK__ABC_C,           /* c[i] */
    CUZK__ABC_INPUT0,      /* input 0 is not one (ERR_INVALID_ARG) */
    CUZK__ABC_INPUT,       /* input i not canonical */
    CUZK__ABC_AUX,         /* aux i not canonical */
    CUZK__ABC_INPUT_ROW,   /* row i is not input_j * 0 = 0 (ERR_INVALID_ARG) */
    CUZK__ABC_UNSATISFIED  /* a_i b_i != c_i (ERR_WITNESS_UNSATISFIED) */
} cuzk__groth16_abc_fault;

/* The refusal of in for fault what at index i (the message names in->name). */
cuzk_status cuzk__groth16_abc_refuse(const cuzk_groth16_abc_input *in,
                                     cuzk__groth16_abc_fault what, uint64_t i,
                                     cuzk_error *err);
/* Input 0 one and every input canonical (a few values, in's host memory). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__groth16_abc_check_inputs(
    const cuzk_groth16_abc_input *in, cuzk_error *err);
/* The last n_inputs rows of in's a, b, c are input_j * 0 = 0 (host memory). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__groth16_abc_check_input_rows(
    const cuzk_groth16_abc_input *in, cuzk_error *err);

/* What a scan of the long vectors found elsewhere: the first index of each
 * failing check, or at least the vector's length (abc_size; n_aux for aux)
 * when none fails. */
typedef struct {
    uint64_t a, b, c;    /* not canonical */
    uint64_t aux;        /* not canonical */
    uint64_t unsatisfied; /* a_i b_i != c_i (read only when a, b, c are canonical) */
} cuzk__groth16_abc_scan;

/* prove_start_abc's refusal of in given scan (the checks of the few values
 * run here, on in's host arrays), in prove_start_abc's order; CUZK_OK when
 * it would prove in. in passed cuzk_groth16_check_abc_input. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__groth16_abc_verdict(
    const cuzk_groth16_abc_input *in, const cuzk__groth16_abc_scan *scan, cuzk_error *err);

#endif /* CUZK_GROTH16_H */
