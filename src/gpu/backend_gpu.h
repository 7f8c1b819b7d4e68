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
 * That is the resident mode. Both prepares first plan the key within the
 * device's free memory and the instance's vram_limit (plan.h,
 * backend_gpu_plan.c; cuzk_backend_plan asks the same): a key that does
 * not fit whole keeps its H points and the classified vectors that do
 * not fit (partly resident) or all five vectors (streaming) in page-locked
 * host memory, and each MSM over them streams its bases through two device
 * chunk buffers (backend_gpu_stream.c, gpu_msm_stream.h); a key that cannot even stream
 * is refused (CUZK_ERR_DEVICE_NOMEM, naming the plan).
 *
 * prove_start, bellman: witness upload, to Montgomery, SpMV, satisfaction
 * check (the first failing constraint is named, as on the CPU), H by the
 * bellman convention, conversion to plain, the H MSM, then per query
 * (A, B_G1, L in G1 and B_G2 in G2): gather by density, 0/1/other
 * classification, batch-add of the ones and Pippenger over the others.
 * Stage times use the reference's names (cuzk_groth16_stage_times;
 * gpu_total_ms is total_ms before finish).
 *
 * Per-proof uploads (the witness; a, b, c for snarkjs keys): from
 * page-locked memory (cuzk__gpu_host_is_pinned) one DMA; from pageable
 * memory through the key's two page-locked staging buffers, CPU threads
 * filling one while the device reads the other, so an upload costs
 * max(host copy, DMA) plus one chunk instead of the driver's one-thread
 * staged copy (8-10 GB/s); snarkjs keys build a, b, c in a page-locked
 * buffer. Page-locked memory is budgeted: when prepare cannot get it, the
 * key uploads with plain copies (slower proofs, not failed ones). The
 * uploads count in spmv_ms.
 *
 * A key that keeps proving (copies_after proofs, 64 by default: below)
 * makes shifted copies of its H and L bases where the MSM's cost
 * model says they pay and the device has room beside the work area and the
 * staging slot (gpu_msm.h cuzk__gpu_msm_bases_precompute_fit): a 2^24
 * partition proves 7% faster afterwards; a 2^27 one leaves no room.
 *
 * Results are equal bit for bit to the CPU backend's for the same r, s, in
 * every mode (tests/gpu/test_gpu_backend.c, test_gpu_stream.c). Jobs on one key are serialized (one work
 * area and MSM handles that are not reentrant); use one key per device.
 */
#ifndef CUZK_BACKEND_GPU_H
#define CUZK_BACKEND_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/backend.h"
#include "gpu/gpu_circuit.h"

extern const cuzk_backend_ops cuzk_backend_gpu;

/* The host arrays of circuit c as spmv.cu's upload takes them (views, no copy). */
void cuzk__gpu_circuit_src_of(cuzk__gpu_circuit_src *src, const cuzk_circuit *c);

/* The number of usable CUDA devices (0 when there is no device or driver). */
int cuzk__backend_gpu_devices(void);

/*
 * Settings of one backend instance for tests and benchmarks
 * (cuzk__gpu_backend_set_test_hooks); an instance opens with
 * CUZK__GPU_BACKEND_HOOKS_DEFAULT, what production runs. Read by the
 * instance's keys while they work (set them between calls):
 *   stage_bytes   bytes per staging buffer, at most (0: the default, 32 MiB;
 *                 a key's inputs take at least 4 chunks)
 *   pin_fail      CUZK__GPU_PIN_FAIL_* bits: these page-locked allocations
 *                 of prepare fail as if the host had none left (the fallback
 *                 paths); the STAGE bit also keeps pre-staging off
 *   room_fail     nonzero: the look after a level fit finds no room for the
 *                 staging slot, as if another allocation had taken it (the
 *                 budgets' way back)
 *   loader_hold   nonzero: a key's loader thread stops before the vector
 *                 after h until the key is released (a release while it
 *                 loads; with prepare_early only: prepare would wait forever)
 *   copies_after  after this many proofs a key makes shifted copies of its H
 *                 and L bases where they pay and the device has room
 *                 (key_copies; 0: never; read when a key is prepared)
 *   copies_max    at most this many copies a handle
 *   chunk_bytes   the streaming modes' chunks hold at most this many bytes
 *                 (plan.h max_chunk; 0: the planner's 1 GiB; at least
 *                 12 KiB): many chunks on a small key (read when a key is
 *                 planned)
 *   stage_slot    where pre-staging copies a witness (CUZK__GPU_STAGE_SLOT_*;
 *                 0: a buffer of its own where the device has room beside
 *                 the MSMs, else b's third of a, b, c where the key can,
 *                 else a level fit)
 *   level_budget  the most bytes a key's MSMs give their affine levels
 *                 (0: cuzk__gpu_key_level_budget's share of the card; read
 *                 when a key is planned and prepared)
 */
#define CUZK__GPU_PIN_FAIL_STAGE 1u  /* the staging buffers */
#define CUZK__GPU_PIN_FAIL_ABC 2u    /* host a, b, c: snarkjs keys, a plan's abc_on_cpu */
#define CUZK__GPU_PIN_FAIL_STREAM 4u /* the streamed points: locked in place or a copy */
#define CUZK__GPU_STAGE_SLOT_OWN 1 /* a buffer of its own or a level fit, never b's third */
#define CUZK__GPU_STAGE_SLOT_ABC 2 /* b's third wherever the key can, room or not */
typedef struct {
    size_t stage_bytes;
    unsigned pin_fail;
    int room_fail;
    int loader_hold;
    unsigned copies_after;
    unsigned copies_max;
    size_t chunk_bytes;
    int stage_slot;
    size_t level_budget;
} cuzk__gpu_backend_hooks;
/* 64 proofs: making the copies costs ~0.9 s a handle at 2^24, which a key
 * earns back after 64-140 proofs; 8 copies at most a handle (the cost model
 * and the room decide below that). */
#define CUZK__GPU_BACKEND_HOOKS_DEFAULT {0, 0, 0, 0, 64u, 8u, 0, 0, 0}

/* Sets be's hooks (be opened on cuzk_backend_gpu; NULL: the defaults). */
void cuzk__gpu_backend_set_test_hooks(cuzk_backend *be, const cuzk__gpu_backend_hooks *hooks);

/* The paths the uploads of an instance's keys took, counted by every proof
 * (atomic additions), and the copies made. */
typedef struct {
    uint64_t staged_chunks; /* chunks sent through the staging buffers */
    uint64_t pinned;        /* uploads straight from page-locked memory */
    uint64_t pageable;      /* plain copies from pageable memory (no staging buffers) */
    uint64_t staged_witness;   /* proofs whose witness was pre-staged (cuzk_backend_stage) */
    uint64_t unstaged_witness; /* proofs that uploaded their witness themselves */
    uint64_t level_fits; /* keys whose MSM work area was fitted (level budget lowered where
                          * needed) to make room for the slot */
    uint64_t level_restores; /* fits that did not make the room, undone: the budgets as
                              * before (if the area's growth back fits) */
    uint64_t copies; /* shifted copies made of keys' H and L bases (key_copies) */
    uint64_t streamed_chunks; /* chunks of streamed vectors sent up (plan.h), also
                               * those that decoded deferred points at prepare */
    uint64_t streamed_bytes;  /* bytes of them sent by proofs' MSMs */
    uint64_t streamed_copy_us; /* the copy stream's time on those bytes (events), µs */
} cuzk__gpu_backend_upload_counts;

/* The counts of be's keys so far (zeros for an instance not opened on
 * cuzk_backend_gpu). */
void cuzk__gpu_backend_stats(const cuzk_backend *be, cuzk__gpu_backend_upload_counts *out);

#endif /* CUZK_BACKEND_GPU_H */
