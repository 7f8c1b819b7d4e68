/*
 * setup.h — a DEVELOPMENT Groth16 setup for our circuits in bellman/Filecoin
 * layout (.params / .vk, src/io/params.h). NOT FOR PRODUCTION: one party
 * draws (and may keep or print) the toxic waste tau, alpha, beta, gamma,
 * delta, and whoever knows it can forge proofs for the circuit. It exists so
 * that the bellman-form prover can be tested on circuits of every size
 * without a ceremony.
 *
 * The parameters are those of bellman's generator (groth16/generator.rs,
 * doc/formats.md, bellman .params and .vk), computed directly in Fr:
 *   domain N = 2^k >= n_constraints + n_inputs, omega_N from 7^t
 *   (CUZK_NTT_ROOT7); QAP rows are the constraints, then one row
 *   input_i * 0 = 0 per input (row n_constraints + i);
 *   u_j, v_j, w_j = sum_rows A/B/C[row][j] * L_row(tau), with the Lagrange
 *   basis of the domain in closed form
 *     L_i(tau) = omega^i (tau^N - 1) / (N (tau - omega^i));
 *   vk: alpha, beta (G1, G2), gamma (G2), delta (G1, G2),
 *       IC_j = (beta u_j + alpha v_j + w_j)/gamma, inputs j;
 *   h_i = tau^i Z(tau)/delta, i < N - 1, Z(tau) = tau^N - 1 (monomial);
 *   l_j = (beta u_j + alpha v_j + w_j)/delta, one per aux;
 *   a = u_j for all inputs, then aux with the a_aux density bit;
 *   b_g1, b_g2 = v_j for inputs with b_inp, then aux with b_aux.
 * bellman drops identity points from a, b_g1, b_g2; we select by the
 * circuit's density bitmaps instead (what the prover realigns with). The two
 * agree unless a variable's coefficients cancel (e.g. +c and -c on one
 * column in one row, or a zero coefficient): then the selected point is the
 * identity, which no reader accepts, and the setup fails naming the variable.
 * The same holds for an aux variable that appears in no matrix (its l point
 * is the identity) — such a circuit has no valid bellman key either.
 *
 * Cost (N rows, V = n_inputs + n_aux variables, nnz entries):
 *   Fr: ~7N multiplications and one inversion per 4096 rows for L; one
 *   multiplication per matrix entry (none for +-1 coefficients); ~5V for
 *   the l/IC scalars; N for the h scalars;
 *   EC (fixed-base, fixed_base.h, ~22 mixed additions per point at c = 12):
 *   (N - 1) + n_aux + |a| + |b_g1| + n_inputs G1 and |b_g2| G2 points;
 *   an accelerator (cuzk_setup_accel below) can take these over.
 * Memory: the parameters themselves (96 B per G1, 192 B per G2 point) plus
 * 32 B per row (L, freed before the points) and 3 x 32 B per variable
 * (u, v, w), plus 32 MiB of h scalars in flight (512 MiB with the GPU
 * accelerator, which also pins ~3 GB of host staging buffers). At 2^27
 * constraints with ~2^27 variables: ~47 GiB of parameters plus ~16 GiB of
 * scalars at peak.
 *
 * Parallelism: OpenMP (CUZK_HAVE_OPENMP) over rows for L, over column ranges
 * for u, v, w (each task scans all rows and keeps the entries of its columns,
 * so no two threads write one variable and no per-thread copies of the
 * V-sized vectors are needed), and in fixed_base.h for the points. Without
 * OpenMP everything runs on the caller. Results do not depend on threads.
 *
 * VARIABLE TIME in the secret scalars (fixed-base table lookups by digit,
 * variable-time inversions and branches on +-1 coefficients): acceptable only
 * because this is a development setup whose toxic waste is not protected.
 */
#ifndef CUZK_SETUP_H
#define CUZK_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "circuit/circuit.h"
#include "cuzk.h"
#include "util/error.h"
#include "ec/fixed_base.h"
#include "io/params.h"

/* Toxic waste of a development setup: plain canonical scalars (< r), each nonzero. */
typedef struct {
    uint64_t tau[4], alpha[4], beta[4], gamma[4], delta[4];
} cuzk_setup_toxic;

/* Draws fresh toxic waste from the OS CSPRNG (cuzk_groth16_random_scalar).
 * tau is redrawn while it is a root of unity of 2-power order (it would lie
 * in some evaluation domain; probability ~2^-222). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_setup_toxic_random(cuzk_setup_toxic *tw,
                                                            cuzk_error *err);

/*
 * A development SRS (NOT for production: one party knows the toxic waste) for circuit c,
 * in bellman/Filecoin layout: fills an in-memory cuzk_params (src/io/params.h; vector offsets 0,
 * root CUZK_NTT_ROOT7, h_kind CUZK_H_MONOMIAL, domain = cuzk_circuit_domain_for(n_constraints, n_inputs))
 * that cuzk_params_write can write and cuzk_params_close frees. tw NULL = fresh random.
 * threads 0 = all cores.
 *
 * Errors (*out is then zeroed): ERR_INVALID_ARG for NULL arguments, toxic
 * scalars that are zero or >= r, tau in the domain (tau^N = 1), counts above
 * the u32 the file holds; ERR_NOMEM; ERR_POINT_AT_INFINITY when a point the
 * file must hold is the identity (message names the vector and the
 * variable); ERR_BAD_ENCODING for a circuit whose domain disagrees with its
 * counts.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_groth16_setup_dev(cuzk_params *out,
                                                           const cuzk_circuit *c,
                                                           const cuzk_setup_toxic *tw,
                                                           unsigned threads, cuzk_error *err);

/* ---- internal ---------------------------------------------------------------- */

/*
 * An optional accelerator for the fixed-base multiplications, the setup's
 * dominant cost (`cuzk setup --backend gpu`: src/gpu/setup_gpu.h fills one
 * over src/gpu/fixed_base.cu). The core library knows only these function
 * pointers and links no CUDA. With an accelerator the setup
 *   - builds both tables with window_bits (0 = its own choice), since a
 *     device may prefer fewer, larger windows; the points do not depend on it;
 *   - calls load once with the tables before the first multiplication and
 *     unload once at the end (also after a failure, also when load failed);
 *     either may be NULL;
 *   - calls g1_mul / g2_mul for every batch instead of
 *     cuzk_g*_fixed_base_mul_batch_fr_var, which they must equal byte for
 *     byte: out[i] = k[i]·G affine, infinity as (0, 0), k Montgomery-form Fr;
 *   - makes the h scalars h_chunk at a time (0 = the CPU path's size), so that
 *     each call is large enough to keep a device busy.
 * A callback that fails returns its status and says why in *err; the setup
 * fails with that status and names the vector. Calls come from the thread
 * that called the setup, one at a time.
 */
typedef struct cuzk_setup_accel {
    const char *name; /* for messages, e.g. "GPU" */
    void *ctx;        /* passed to every callback */
    unsigned window_bits;
    size_t h_chunk;
    cuzk_status (*load)(void *ctx, const cuzk_g1_fixed_base *g1, const cuzk_g2_fixed_base *g2,
                        cuzk_error *err);
    cuzk_status (*g1_mul)(void *ctx, cuzk_g1_aff *out, const cuzk_fr *k, size_t n,
                          cuzk_error *err);
    cuzk_status (*g2_mul)(void *ctx, cuzk_g2_aff *out, const cuzk_fr *k, size_t n,
                          cuzk_error *err);
    void (*unload)(void *ctx);
} cuzk_setup_accel;

/* Wall-clock seconds per phase of one setup (for `cuzk setup`). */
typedef struct {
    double lagrange; /* L_i(tau) for every row */
    double qap;      /* u, v, w per variable and the l/IC scalars */
    double tables;   /* fixed-base tables for G1 and G2 */
    double g1, g2;   /* the fixed-base multiplications (h, l, a, b_g1, vk; b_g2) */
} cuzk_setup_times;

/* cuzk_groth16_setup_dev with per-phase times (times may be NULL). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__groth16_setup_dev_timed(
    cuzk_params *out, const cuzk_circuit *c, const cuzk_setup_toxic *tw, unsigned threads,
    cuzk_setup_times *times, cuzk_error *err);

/* The same with an accelerator (NULL = the CPU's fixed-base code, as the two
 * above). ERR_INVALID_ARG for an accelerator without g1_mul or g2_mul. The
 * tables time includes load. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__groth16_setup_dev_accel(
    cuzk_params *out, const cuzk_circuit *c, const cuzk_setup_toxic *tw, unsigned threads,
    const cuzk_setup_accel *accel, cuzk_setup_times *times, cuzk_error *err);

/*
 * INSECURE, for tests and reproducible files: toxic waste derived from a
 * seed (any bytes) that anyone who knows the seed can recompute. Each scalar
 * is the first SHA-256("cuzk-setup-dev-v1" 0x00 label 0x00 seed
 * u32le(counter)), top bit cleared, read little-endian, that is nonzero and
 * < r (labels "tau", "alpha", "beta", "gamma", "delta"; counter from 0); tau
 * moreover no root of unity of 2-power order. A seed longer than 256 bytes
 * is replaced by its SHA-256 first.
 */
void cuzk__setup_toxic_from_seed(cuzk_setup_toxic *tw, const void *seed, size_t seed_len);

/* Tests only (not thread-safe): h scalars per fixed-base batch (0 = default
 * 2^18) and rows per Lagrange block / h sub-block (0 = default 1024). */
void cuzk__setup_tune(size_t h_chunk, size_t lag_block);

#endif /* CUZK_SETUP_H */
