/*
 * gpu_abc.h — proofs from a, b, c computed elsewhere, on a CUDA device: the
 * GPU side of supraseal-c2's interface (src/supraseal), internal to cuzk.
 * Compiled only when CMake finds nvcc (CUZK_HAVE_CUDA=1).
 *
 * The CUDA backend's keys (backend_gpu.h) hold a circuit and compute a, b, c
 * from a witness; a caller that synthesizes circuits itself (bellperson)
 * hands over what cuzk__groth16_prove_start_abc takes instead
 * (cuzk_groth16_abc_input: a, b, c over abc_size rows, both assignments and
 * the three density bitmaps, every scalar Montgomery, in host memory). An abc
 * key holds bellman parameters alone, resident on one device, and proves
 * such inputs with the CPU prover's steps, so that the same input and r, s
 * give the same proof bytes:
 *   - a, b, c uploaded, zero-padded to the domain N; the scan of
 *     cuzk__groth16_abc_scan (a, b, c and aux canonical, a_i b_i = c_i) on
 *     the device, the few-value checks on the host, refused in the CPU
 *     prover's words (cuzk__groth16_abc_verdict);
 *   - H by the bellman convention (cuzk__gpu_h_bellman, the steps of the
 *     backend's stage_h_bellman after its SpMV), its N - 1 coefficients
 *     made plain for the H MSM;
 *   - the assignment uploaded (inputs then aux) and made plain; L over the
 *     aux, A over every input and the aux with a_aux, B_G1 and B_G2 over the
 *     inputs with b_inp and the aux with b_aux: the call's own bitmaps,
 *     uploaded with per-word ranks and gathered on the device (the backend
 *     gathers by its circuit's variable lists instead); each MSM split into
 *     the batch-add of the scalars equal to 1 and a masked MSM of the others.
 * Several inputs in one call reuse the key's buffers, and the next input's
 * a, b, c (and, where the device has room for a second assignment buffer,
 * its assignment) are copied onto the device on a copy stream beside the
 * current input's MSMs (abc_copy.c).
 *
 * Device memory of a key: the SRS 96 (|h| + |l| + |a| + |b_g1|) + 192
 * |b_g2| bytes, the NTT tables 16 N, a, b, c 96 N, the assignment 32 (or 64)
 * per variable, one gathered query 32 per point, and the MSMs' shared work
 * area as the MSM plans it (cuzk__gpu_msm_bases_area_bytes) for its largest
 * call, with the level buffers' budget a seventh of the card, halved down
 * to 1 GiB where the room is short; 256 MiB and a 64th of the card are kept
 * free beside it. A key is made only when all of that fits the device's
 * free memory; else CUZK_ERR_DEVICE_NOMEM says what was needed, and nothing stays
 * allocated.
 */
#ifndef CUZK_GPU_ABC_H
#define CUZK_GPU_ABC_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu_abc_kernels.h"
#include "groth16/groth16.h"
#include "io/params.h"
#include "util/error.h"

typedef struct cuzk__gpu_abc_key cuzk__gpu_abc_key;

/* Settings of a key (zero: the defaults). mem_limit: the key sees at most
 * this many bytes of the device as free (tests of the fallback, a device
 * shared with others); threads: host threads for the copies through
 * page-locked buffers (0: all cores); one_assignment: no second assignment
 * buffer even where it fits (tests: the order of copies without it). */
typedef struct {
    size_t mem_limit;
    unsigned threads;
    int one_assignment;
} cuzk__gpu_abc_opts;

/*
 * A key of p (bellman parameters, points decoded in memory) on device:
 * uploads the five vectors and makes the NTT tables and the work area.
 * Borrows p until the free (it reads the verifying key's points at each
 * proof). Leaves the caller's current device as it was. Errors:
 * CUZK_ERR_DEVICE_NOMEM when the device has not the room (the message gives the
 * bytes needed and free), CUZK_ERR_GPU for a device failure,
 * CUZK_ERR_INVALID_ARG for parameters that are not bellman's or are
 * deferred.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_abc_key_new(cuzk__gpu_abc_key **out, int device,
                                                          const cuzk_params *p,
                                                          const cuzk__gpu_abc_opts *o,
                                                          cuzk_error *err);
/* Frees everything (NULL is fine). No proof of the key may be running. */
void cuzk__gpu_abc_key_free(cuzk__gpu_abc_key *k);
/* Device bytes the key holds now (its work area as reserved so far). */
uint64_t cuzk__gpu_abc_key_device_bytes(const cuzk__gpu_abc_key *k);
/* 1 when the key keeps a second assignment buffer (the next input's
 * assignment is uploaded beside the current one's MSMs). */
int cuzk__gpu_abc_key_overlaps_assignment(const cuzk__gpu_abc_key *k);

/*
 * Proves ins[0..n) one after another into out[0..n) (what prove_finish
 * takes; the same points as cuzk__groth16_prove_start_abc's), each input
 * checked with cuzk_groth16_check_abc_input against the key's parameters
 * first. times (may be NULL): n entries, the stage times of each. Calls on
 * one key are serialized (its lock). On failure *failed (may be NULL) is the
 * index of the input that failed (out[0..*failed) are done) and err holds
 * the reason: the CPU prover's refusal for an input it would refuse, or
 * CUZK_ERR_GPU / CUZK_ERR_DEVICE_NOMEM for a device failure (the key should then
 * be freed: its state is unknown). Reads ins' memory during the call only.
 * Leaves the caller's current device as it was.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_abc_prove(cuzk__gpu_abc_key *k,
                                                        const cuzk_groth16_abc_input *ins,
                                                        size_t n, cuzk_groth16_partial *out,
                                                        cuzk_groth16_stage_times *times,
                                                        size_t *failed, cuzk_error *err);

#endif /* CUZK_GPU_ABC_H */
