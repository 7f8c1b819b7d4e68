/*
 * backend_gpu.h — the CUDA backend (backend.h): one device proves a whole
 * partition; the CPU only assembles the proof from r, s (prove_finish).
 *
 * prepare (bellman parameters): uploads the circuit's CSR matrices and
 * density lists (gpu_circuit.h), the five SRS vectors h, l, a, b_g1, b_g2
 * (gpu_msm.h) and the NTT tables of the domain (gpu_ntt.h), and sizes the
 * per-proof work area: the whole key is resident and a proof uploads only
 * its witness (32 bytes per variable). Device memory, about:
 *   SRS     96 (|h| + |l| + |a| + |b_g1|) + 192 |b_g2|
 *   circuit 8 per nonzero + 24 per constraint + 4 per listed variable
 *   NTT     16 N
 *   work    32 (2 n_vars + 3 N + max(|a|, |b|))
 * prepare_zkey (snarkjs): uploads the A, B1, B2, C, H sections and the NTT
 * tables; a, b, c come from the key's coefficient list on the CPU (a
 * scatter with repeated rows) and are uploaded per proof.
 *
 * prove_start, bellman: witness upload, to Montgomery, SpMV, satisfaction
 * check (the first failing constraint is named, as on the CPU), H by the
 * bellman convention, conversion to plain, the H MSM, then per query
 * (A, B_G1, L in G1 and B_G2 in G2): gather by density, 0/1/other
 * classification, batch-add of the ones and Pippenger over the others.
 * Stage times use the reference's names (cuzk_groth16_stage_times;
 * gpu_total_ms is total_ms before finish).
 *
 * Results are equal bit for bit to the CPU backend's for the same r, s
 * (tests/gpu/test_gpu_backend.c). Jobs on one key are serialized (one work
 * area and MSM handles that are not reentrant); use one key per device.
 */
#ifndef CUZK_BACKEND_GPU_H
#define CUZK_BACKEND_GPU_H

#include "backend.h"
#include "gpu_circuit.h"

extern const cuzk_backend_ops cuzk_backend_gpu;

/* The host arrays of circuit c as spmv.cu's upload takes them (views, no copy). */
void cuzk__gpu_circuit_src_of(cuzk__gpu_circuit_src *src, const cuzk_circuit *c);

/* The number of usable CUDA devices (0 when there is no device or driver). */
int cuzk__backend_gpu_devices(void);

#endif /* CUZK_BACKEND_GPU_H */
