/*
 * plan.h — the GPU memory planner: where a key's data lives on one device
 * (doc/gpu.md, "The memory planner"). Pure host logic, no CUDA call: it is
 * compiled in every build, so that the mode selection is tested without a
 * GPU (tests/unit/test_gpu_plan.c). The GPU backend fills the inputs from
 * the key and the device (backend_gpu_plan.c) and acts on the plan.
 *
 * Modes, from the most resident to the least:
 *   RESIDENT          everything on the device (the circuit, the five SRS
 *                     vectors, the NTT tables, the per-proof buffers, the
 *                     MSM work area); a proof uploads only its witness
 *   PARTLY_RESIDENT   as STREAMING, with the classified vectors (L, A,
 *                     B_G1, B_G2) kept on the device, the largest first, as
 *                     many as fit beside streaming's chunks; H always
 *                     streams (every scalar of its MSM takes part: its
 *                     kernels outlast its copies, while the masked MSMs of
 *                     the others would wait on theirs)
 *   STREAMING         the circuit, the NTT tables, the per-proof buffers
 *                     and the work area on the device; every base in
 *                     page-locked host memory, streamed through two device
 *                     chunk buffers, each the largest that fits
 *                     (CUZK__PLAN_MIN_CHUNK .. CUZK__PLAN_MAX_CHUNK)
 * A plan that streams sums every vector chunk by chunk, a kept one in
 * pieces of a chunk's points on the device, so that its MSM work area is
 * a chunk's: a whole vector's (~30 GB at 2^27) would take the room of the
 * vectors it could keep.
 * When not even STREAMING fits with the circuit on the device, or the
 * floor is below its rung, a key that offers it (cpu_abc_bytes) streams
 * with a, b, c made on the CPU: the
 * circuit stays in host memory, the device holds a, b, c and the density
 * lists, and the witness and the gathered queries take a, b, c's thirds
 * that the NTTs have finished with (abc_on_cpu; PARTLY_RESIDENT or
 * STREAMING by the same rule).
 *   CPU               not even that fits (tables, per-proof buffers, work
 *                     area and two smallest chunks): the key proves on the
 *                     CPU, or is refused on the GPU
 * The first that fits, and is not above the device's floor, is chosen: a
 * key that ran out of device memory in one plan (memory another process
 * took, an estimate short) is planned again with the floor one rung
 * below it (cuzk__plan_rung: the modes with the circuit on the device,
 * then those with a, b, c made on the CPU, then the CPU). Shifted copies of the bases and the
 * witness slot of pre-staging are not planned: they take what the plan
 * leaves (spare_bytes) when the key makes them, and a slot that does not
 * fit there takes b's third of a, b, c (backend_gpu_stage.c).
 *
 * The memory the plan fills is avail = min(free, limit) - reserve, with
 * limit the caller's vram limit (0: none): a card with a limit acts as a
 * card of that size. Every fit is exact (need <= avail) in bytes.
 */
#ifndef CUZK_GPU_PLAN_H
#define CUZK_GPU_PLAN_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    CUZK__PLAN_RESIDENT = 0,
    CUZK__PLAN_PARTLY_RESIDENT = 1,
    CUZK__PLAN_STREAMING = 2,
    CUZK__PLAN_CPU = 3
} cuzk__plan_mode;

/* The step-down ladder, from the most device memory to none: a floor
 * (cuzk__plan_device.floor, a backend's plan_floor) allows its rung and
 * those below it. */
typedef enum {
    CUZK__PLAN_RUNG_RESIDENT = 0,          /* resident (any plan) */
    CUZK__PLAN_RUNG_PARTLY = 1,            /* partly resident */
    CUZK__PLAN_RUNG_STREAMING = 2,         /* streaming */
    CUZK__PLAN_RUNG_CPU_ABC = 3,           /* partly resident, a, b, c made on the CPU */
    CUZK__PLAN_RUNG_CPU_ABC_STREAMING = 4, /* streaming, a, b, c made on the CPU */
    CUZK__PLAN_RUNG_CPU = 5                /* none: the key is refused on the GPU */
} cuzk__plan_rung;

/* The SRS vectors in cuzk_params_vec's order (h, l, a, b_g1, b_g2; a zkey's
 * H, C, A, B1, B2); the last is G2. */
#define CUZK__PLAN_VECS 5
#define CUZK__PLAN_G1_BYTES 96u  /* an affine G1 point on the device or pinned */
#define CUZK__PLAN_G2_BYTES 192u /* an affine G2 point */
/* Chunk sizes are multiples of this many bytes: 64 G2 points, 128 G1
 * points, so that a chunk starts on a bitmap word. */
#define CUZK__PLAN_CHUNK_UNIT ((uint64_t)64 * CUZK__PLAN_G2_BYTES)
/* The smallest chunk worth streaming: 2^16 G2 points (12 MiB; 2^17 G1
 * points), or the largest streamed vector when that is smaller. */
#define CUZK__PLAN_MIN_CHUNK ((uint64_t)65536 * CUZK__PLAN_G2_BYTES)
/* The largest: whole units up to 1 GiB (~20 ms of PCIe Gen5). A vector's
 * first chunk is not overlapped with kernels, and memory past this serves
 * the witness slot and copies better than longer chunks. */
#define CUZK__PLAN_MAX_CHUNK ((((uint64_t)1 << 30) / CUZK__PLAN_CHUNK_UNIT) * CUZK__PLAN_CHUNK_UNIT)

/* The MSM work area (bytes) of one call over n points of G1 (g2 = 0) or G2
 * (g2 = 1), masked (a classified tail, all n points taking part: the most
 * it can need) or not (H); the MSM's own sizing on the GPU, any monotone
 * model in tests. */
typedef uint64_t (*cuzk__plan_area_fn)(void *ctx, int g2, uint64_t n, int masked);

/* What a key holds, in device bytes (the backend's formulas: backend_gpu.h). */
typedef struct {
    uint64_t points[CUZK__PLAN_VECS]; /* SRS points a vector */
    int h_masked;          /* the H MSM is masked (never: 0) */
    int others_masked;     /* the other MSMs are classified tails (1) */
    uint64_t circuit_bytes; /* the resident circuit: CSR, values, density lists (0: zkey) */
    uint64_t ntt_bytes;     /* the NTT domain's tables */
    uint64_t proof_bytes;   /* per-proof buffers: witness twice, a, b, c, a query, bitmaps */
    uint64_t host_bytes;    /* page-locked host memory in every mode (staging, zkey a, b, c) */
    /* a, b, c made on the CPU: the device's per-proof buffers and density
     * lists in place of circuit_bytes + proof_bytes (0: not offered), and
     * the page-locked host memory the CPU's a, b, c add */
    uint64_t cpu_abc_bytes;
    uint64_t cpu_abc_host_bytes;
} cuzk__plan_key;

/* The device the key goes to. */
typedef struct {
    uint64_t free_bytes; /* free device memory now */
    uint64_t vram_limit; /* the most the key may take (0: no limit) */
    uint64_t reserve;    /* kept free of the plan (runtime, allocator rounding, estimates) */
    uint64_t max_chunk;  /* chunks at most this (whole units, one at least; 0:
                          * CUZK__PLAN_MAX_CHUNK): tests stream small keys in many */
    cuzk__plan_rung floor; /* no plan above this rung (RESIDENT: any): a key
                            * whose device allocation failed steps down */
    cuzk__plan_area_fn area;
    void *area_ctx;
} cuzk__plan_device;

typedef struct cuzk__plan {
    cuzk__plan_mode mode;
    unsigned streamed;     /* bit v: vector v streamed from page-locked host memory */
    int abc_on_cpu;        /* a, b, c made on the CPU, the circuit not on the device */
    int abc_offered;       /* the key offers abc_on_cpu (cpu_abc_bytes) */
    uint64_t avail;        /* min(free, limit) - reserve: what the plan fills */
    uint64_t device_bytes; /* what the plan places on the device */
    uint64_t srs_bytes;    /* the SRS vectors' bytes, all five */
    uint64_t area_bytes;   /* the MSM work area planned (largest call) */
    uint64_t chunk_bytes;  /* each of the two device chunk buffers (0: nothing streamed) */
    uint64_t host_pinned;  /* page-locked host memory: streamed vectors + host_bytes */
    uint64_t spare_bytes;  /* avail - device_bytes: for copies and the witness slot */
    char reason[640];      /* one sentence: the mode and the numbers that chose it */
} cuzk__plan;

/* The plan of key on dev. out->reason names the mode, what it needs against
 * what is available (bytes, and GiB), the limit and free memory, and for
 * the streaming modes the chunk size and host memory. */
void cuzk__plan_make(cuzk__plan *out, const cuzk__plan_key *key, const cuzk__plan_device *dev);

/* "resident", "partly resident", "streaming", "cpu" */
const char *cuzk__plan_mode_name(cuzk__plan_mode m);

/* The rung plan p stands on, and the floor a key whose plan p ran out of
 * device memory is planned on next: the rung below, skipping those with
 * a, b, c made on the CPU where the key does not offer them (CPU at the
 * bottom). */
cuzk__plan_rung cuzk__plan_rung_of(const cuzk__plan *p);
cuzk__plan_rung cuzk__plan_floor_after(const cuzk__plan *p);
/* "resident", ..., "streaming with a, b, c on the CPU", "cpu" */
const char *cuzk__plan_rung_name(cuzk__plan_rung r);

/* bytes as "12.00 GiB" / "512.0 MiB" / "640 KiB" / "100 B" into buf
 * (len >= 16), the form the reasons use; returns buf. */
const char *cuzk__plan_bytes_str(char *buf, size_t len, uint64_t bytes);

/* Points of vector v in a chunk of chunk_bytes (v = 4: G2). */
static inline uint64_t cuzk__plan_chunk_points(uint64_t chunk_bytes, unsigned v) {
    return chunk_bytes / (v == CUZK__PLAN_VECS - 1 ? CUZK__PLAN_G2_BYTES : CUZK__PLAN_G1_BYTES);
}

#endif /* CUZK_GPU_PLAN_H */
