/*
 * msm_impl.cuh — what the GPU MSM's translation units (msm*.cu) share: the
 * handle and its work area, the plan of one MSM and where its buffers lie,
 * the launch shapes, small host and device helpers, and the internal entry
 * points each unit gives the others. Not a public header: only msm*.cu
 * include it.
 *
 * One MSM over n points (masked: npts of them take part), window c, nwin =
 * ceil(256/c) windows, nb = 2^(c-1) buckets a window; with k shifted copies
 * of the bases (cuzk__gpu_msm_bases_precompute) window j's digits index copy
 * j % k and share bucket set j / k, so there are nset = ceil(nwin / k) sets
 * and nbins = nset nb bins (bin s nb + b collects the digits +-(b+1) of set
 * s). The steps and their units:
 *   1-3  sort (msm_sort.cu): Booth digits, and one entry (point | sign << 31)
 *        a nonzero digit, sorted by bin: a radix sort of one (key, value)
 *        pair a window and point, or for masked MSMs (mostly sparse) a
 *        counting sort with atomics over the points that take part; start[b]
 *        = the first entry of bin b.
 *   4-5  bucket sums (msm_levels.cu): per group of bucket sets whose level
 *        buffers fit the budget, each bin's entries summed pairwise in
 *        affine coordinates, level by level, with one inversion per thread
 *        and level, while a level has enough pairs to pay for it; the short
 *        runs left summed with XYZZ mixed additions (msm_xyzz.cu).
 *   6-7  reduction (msm_xyzz.cu): running sums over segments of each set's
 *        buckets, the segments' results combined into one sum a set; the
 *        host (msm.cu) combines the sets by Horner's rule, kc doublings apart.
 * Planning and work-area sizing: msm_plan.cu. The handle: msm_bases.cu.
 * Classification and bitmap counts: msm_classify.cu.
 */
#ifndef CUZK_GPU_MSM_IMPL_CUH
#define CUZK_GPU_MSM_IMPL_CUH

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/check.cuh"
#include "gpu/ec.cuh"
#include "gpu/gpu_msm.h"

using namespace cuzk_gpu; /* the msm*.cu units are written in the device namespace's terms */

/*
 * The host's group operations (src/ec/g1.c, g2.c), declared here with
 * untyped pointers: g1.h / g2.h are C11 headers that do not compile as C++.
 * The layouts are the host's cuzk_g*_jac / cuzk_g*_xyzz (ec.cuh checks the
 * sizes).
 */
extern "C" {
void cuzk_g1_jac_set_inf(void *r);
void cuzk_g1_xyzz_to_jac(void *r, const void *a);
void cuzk_g1_jac_dbl(void *r, const void *a);
void cuzk_g1_jac_add_var(void *r, const void *a, const void *b);
void cuzk_g2_jac_set_inf(void *r);
void cuzk_g2_xyzz_to_jac(void *r, const void *a);
void cuzk_g2_jac_dbl(void *r, const void *a);
void cuzk_g2_jac_add_var(void *r, const void *a, const void *b);
size_t cuzk__msm_popcount(const uint64_t *bitmap, size_t n); /* src/msm/msm.h */
}

/* ---- groups ---------------------------------------------------------------- */

struct grp_g1 {
    typedef fp_t F;
    static constexpr size_t JAC_WORDS = 18, XYZZ_WORDS = 24, AFF_WORDS = 12;
    static void jac_set_inf(uint64_t *r) { cuzk_g1_jac_set_inf(r); }
    static void xyzz_to_jac(uint64_t *r, const uint64_t *a) { cuzk_g1_xyzz_to_jac(r, a); }
    static void jac_dbl(uint64_t *r, const uint64_t *a) { cuzk_g1_jac_dbl(r, a); }
    static void jac_add(uint64_t *r, const uint64_t *a, const uint64_t *b) {
        cuzk_g1_jac_add_var(r, a, b);
    }
};
struct grp_g2 {
    typedef fp2_t F;
    static constexpr size_t JAC_WORDS = 36, XYZZ_WORDS = 48, AFF_WORDS = 24;
    static void jac_set_inf(uint64_t *r) { cuzk_g2_jac_set_inf(r); }
    static void xyzz_to_jac(uint64_t *r, const uint64_t *a) { cuzk_g2_xyzz_to_jac(r, a); }
    static void jac_dbl(uint64_t *r, const uint64_t *a) { cuzk_g2_jac_dbl(r, a); }
    static void jac_add(uint64_t *r, const uint64_t *a, const uint64_t *b) {
        cuzk_g2_jac_add_var(r, a, b);
    }
};

/* The G1 point additions keep their mixed additions' accumulators lazy
 * (ec.cuh mul_lazy_call); G2's are canonical (for_field). */
template <class F>
using madd_t = typename for_field<F, mul_lazy_call>::type;

/* ---- launch shapes ---------------------------------------------------------- */

static constexpr unsigned HEAVY_THREADS = 128; /* curve kernels: many registers */
static_assert(HEAVY_THREADS % 32 == 0, "whole warps: the level kernels step warp-wide");
static constexpr unsigned LIGHT_THREADS = 256;
static constexpr uint32_t SIGN_BIT = 0x80000000u;
/* Buckets per thread in the bucket reduction. */
static constexpr uint32_t REDUCE_SEGMENT = 16;

/* The multi-block scan (msm_sort.cu): a tile of SCAN_TILE counts a block,
 * SCAN_ITEMS contiguous ones a thread. */
static constexpr unsigned SCAN_THREADS = 1024;
static constexpr unsigned SCAN_ITEMS = 8, SCAN_TILE = SCAN_THREADS * SCAN_ITEMS;
/* Words of tile sums that cuzk__gpu_msm_excl_scan needs for n counts. */
static inline size_t scan_tsum_words(uint32_t n) { return (size_t)n / SCAN_TILE + 2; }

/* Threads of an affine level block at most (its launch bounds), one block
 * an SM. G1's kernel fits 128 registers, so 512 threads (16 warps, its
 * stages in 216 KiB of shared memory) fill an SM: one block of 16 warps
 * keeps an SM's warps on adjacent runs of slots. G2's kernel (~230
 * registers) runs 128 threads a block. A card with less shared memory a
 * block (sm_80 163 KiB, sm_86/89/120 99 KiB) runs fewer: the handle's
 * ba_threads (cuzk__gpu_msm_levels_shape). */
template <class F>
constexpr unsigned BA_THREADS = sizeof(F) <= 48 ? 512 : HEAVY_THREADS;
/* Claimed runs: at most this many blocks a launch, and levels past the
 * table's last share its row of speeds. */
static constexpr size_t BA_MAX_RUNS = 4096;
static constexpr unsigned BA_SPEED_LEVELS = 16;

/* ---- shared device helpers ------------------------------------------------------ */

static __device__ __forceinline__ void load_scalar(uint64_t k[4], const uint64_t *s, size_t i) {
    const ulonglong2 *p = reinterpret_cast<const ulonglong2 *>(s + 4 * i);
    const ulonglong2 a = p[0], b = p[1];
    k[0] = a.x, k[1] = a.y, k[2] = b.x, k[3] = b.y;
}

/* Windows of c bits for a 255-bit scalar's Booth digits, and the bucket sets
 * they form with k copies of the bases (msm_plan.cu window_cost). */
static inline __host__ __device__ unsigned window_count(unsigned c) { return (256 + c - 1) / c; }
static inline __host__ __device__ unsigned window_sets(unsigned nwin, unsigned k) {
    return (nwin + k - 1) / k;
}

/* The last bin g in [lo, hi) with start[g] <= e (start[lo] <= e < start[hi]). */
static __device__ __forceinline__ uint32_t bin_of(const uint32_t *start, uint32_t lo, uint32_t hi,
                                                  uint32_t e) {
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (start[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- the handle and its work area ----------------------------------------------- */

/* A work area, shared by the handles joined with cuzk__gpu_msm_bases_share_work. */
struct msm_work {
    void *p;
    size_t bytes;
    unsigned refs;
};

struct cuzk__gpu_msm_bases {
    cuzk__gpu_msm_group group;
    size_t n;
    void *bases;        /* copies x n points: copy j is 2^(j copies_c) times copy 0 */
    bool borrowed;      /* bases are the caller's (cuzk__gpu_msm_bases_view): never freed here */
    unsigned copies;    /* 1: the bases alone */
    unsigned copies_c;  /* the window the copies serve */
    msm_work *work;
    int sms;
    int heavy_blocks; /* resident blocks per SM of the XYZZ accumulation kernel */
    unsigned ba_threads; /* threads of an affine level block (0: no levels, XYZZ alone) */
    int ba_blocks;    /* resident blocks per SM of the affine level kernels */
    size_t ba_smem_limit; /* the shared-memory limit ba_threads was shaped under (0: the device's) */
    size_t ba_budget; /* byte budget of the level buffers */
    cuzk__gpu_msm_config cfg; /* cuzk__gpu_msm_bases_configure; zero: the defaults */
    /* claimed level runs: a launch's blocks (its SMs x ba_blocks; 0: no
     * table, even runs), and in host memory the speed of each run's SM at
     * each level (level_runs.h), the last launch's runs (page-locked,
     * read by the kernels through ba_druns) and its blocks' clocks */
    uint32_t ba_nruns;
    float *ba_speed; /* BA_SPEED_LEVELS x ba_nruns */
    uint32_t *ba_hruns;
    const uint32_t *ba_druns;
    unsigned long long *ba_hclk;
    size_t masked_npts; /* the most points a masked MSM on the handle had (fit_work's estimate) */
};

/* Does the handle's configuration fix the window? */
static inline bool forced_window(const cuzk__gpu_msm_bases *b) {
    return b->cfg.window >= 1 && b->cfg.window <= CUZK__GPU_MSM_MAX_C;
}

static inline size_t aff_bytes(cuzk__gpu_msm_group g) {
    return g == CUZK__GPU_MSM_G1 ? sizeof(g1_aff) : sizeof(g2_aff);
}
static inline size_t xyzz_bytes(cuzk__gpu_msm_group g) {
    return g == CUZK__GPU_MSM_G1 ? sizeof(g1_xyzz) : sizeof(g2_xyzz);
}

/* Threads of the XYZZ accumulation kernel resident at once. */
static inline uint64_t resident_threads(const cuzk__gpu_msm_bases *b) {
    const int hb = b->heavy_blocks;
    return (uint64_t)b->sms * (uint64_t)(hb > 0 ? hb : 1) * HEAVY_THREADS;
}

/* A synchronous read of device results (check.cuh's cuzk__sync_copy). */
static inline cudaError_t d2h(void *dst, const void *src, size_t bytes) {
    return cuzk__sync_copy(dst, src, bytes, cudaMemcpyDeviceToHost);
}

static inline size_t align_up(size_t x) { return (x + 255) & ~(size_t)255; }

/* Grows the work area to at least bytes (contents are not kept). */
static inline cuzk_status ws_reserve(cuzk__gpu_msm_bases *b, size_t bytes) {
    msm_work *w = b->work;
    if (w->bytes >= bytes) return CUZK_OK;
    if (w->p) (void)cudaFree(w->p);
    w->p = nullptr;
    w->bytes = 0;
    CUZK__CUDA_TRY(cudaMalloc(&w->p, bytes));
    w->bytes = bytes;
    return CUZK_OK;
}

/* Carves aligned pieces off the work area (base NULL: sizes only). */
struct carver {
    char *base;
    size_t off;
};
template <class T>
static inline T *carve(carver &cv, size_t count) {
    T *p = reinterpret_cast<T *>(cv.base + cv.off);
    cv.off += align_up(count * sizeof(T));
    return p;
}

/* A caller reserved less than a step carves: a bug here, reported as a GPU error. */
static inline cuzk_status area_too_small(void) {
    cuzk__gpu_record_error(cudaErrorMemoryAllocation, "work area smaller than planned",
                           __FILE__, __LINE__);
    return CUZK_ERR_GPU;
}

static inline bool is_device_ptr(const void *p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

static inline unsigned grid(size_t threads, unsigned block) {
    return (unsigned)((threads + block - 1) / block);
}

/* ---- one MSM's plan and work area ------------------------------------------------ */

/* The shape of one MSM: window, bins, reduction segments, pair capacity,
 * the sort (radix: its key bits and temporary storage) and the affine
 * levels' window groups and buffers. */
struct msm_plan {
    cuzk__gpu_msm_group group;
    unsigned c, nwin;
    unsigned k;      /* windows per bucket set: the copies of the bases used (1: none) */
    unsigned nset;   /* bucket sets, ceil(nwin / k) */
    uint32_t stride; /* points between copies of the bases (the handle's count) */
    uint32_t nb, nbins, seglen, nseg;
    uint64_t resident; /* threads of the XYZZ accumulation resident at once */
    size_t cap;        /* pairs per list buffer */
    bool sort;         /* by radix (else by atomics) */
    int sort_bits;     /* key bits: those of nbins, the sentinel */
    size_t sort_tmp;   /* bytes of CUB's temporary storage */
    unsigned ba_gw;    /* bucket sets per group */
    uint32_t ba_nbg;   /* bins per group */
    size_t ba_psz;     /* bytes per affine point */
    size_t ba_acap, ba_bcap; /* points in the even / odd level buffers */
    unsigned ba_threads;     /* threads of a level block (0: no levels) */
    uint64_t ba_resident;    /* threads per level */
    uint32_t ba_nruns;       /* blocks of a level launch when their runs are claimed, else 0 */
    size_t npts;             /* points that take part (the mask's count; n unmasked) */
    size_t set_entries;      /* entries one bucket set can have: npts k */
};

/* The MSM's pieces of the work area (cuzk__gpu_msm_carve); the point arrays
 * hold XYZZ points of the plan's group. */
struct msm_area {
    uint32_t *start; /* nbins + 1 starts (the last is the total), then the range flag */
    uint32_t *cursor; /* atomic sort: counts, then the scatter's cursors */
    uint32_t *vals;   /* atomic sort: npts * nwin entries at most */
    void *buckets;    /* nbins */
    uint32_t *ka, *kb; /* the pair lists' keys */
    void *pa, *pb;     /* ... and points */
    void *wsum;        /* nset */
    uint32_t *tsum; /* tile sums of the multi-block scans */
    /* radix sort: keys and values of the n * nwin pairs (two buffers each), CUB's storage */
    uint32_t *sk[2], *sv[2];
    void *sort_tmp;
    /* the affine levels: a group's offsets (two levels), counts, level points, identity indices */
    uint32_t *ba_offa, *ba_offb, *ba_cnt, *ba_idv;
    char *ba_pta, *ba_ptb;
    /* claimed runs (p.ba_nruns): the claims, then the blocks' clocks */
    unsigned long long *ba_rclk;
};

/* Per-phase GPU times of one MSM when the handle's profile is on (an
 * event after each phase, named by the phase it ends; printed to stderr).
 * Plain functions, no members: inline members would be exported as weak
 * symbols. */
static constexpr int PROF_MARKS = 8;
struct msm_prof {
    cudaEvent_t ev[PROF_MARKS];
    const char *name[PROF_MARKS];
    int k;
    bool on;
};
static inline void prof_mark(msm_prof *pr, const char *ends) {
    if (!pr->on || pr->k >= PROF_MARKS) return;
    pr->name[pr->k] = ends;
    (void)cudaEventRecord(pr->ev[pr->k++]);
}

/* ---- the units' entry points ------------------------------------------------------ */

extern "C" {

/* msm_plan.cu. The plan of an MSM of n points (npts of them take part; the
 * window is sized to them); fails when the entries would not fit 32-bit
 * positions, or CUB cannot size its temporary storage. */
cuzk_status cuzk__gpu_msm_plan(msm_plan *p, const cuzk__gpu_msm_bases *b, size_t n, bool masked,
                               size_t npts);
/* The pieces of p's work area from byte offset off of base (NULL: sizes
 * only); returns the offset past them. */
size_t cuzk__gpu_msm_carve(msm_area *a, char *base, size_t off, const msm_plan *p, size_t n);
/* Work-area bytes an MSM of n points needs past its staged inputs. */
cuzk_status cuzk__gpu_msm_rest_bytes(const cuzk__gpu_msm_bases *b, size_t n, bool masked,
                                     size_t npts, size_t *bytes);
/* The window that `copies` shifted copies of n bases serve. */
unsigned cuzk__gpu_msm_copies_window(size_t n, unsigned copies);

/* msm_sort.cu. start[0..n] = exclusive scan of cnt[0..n) with start[n] =
 * the total, and the same starts in cursor (which may be start itself);
 * tsum has scan_tsum_words(n) words. Asynchronous on the default stream;
 * n > 0. */
cuzk_status cuzk__gpu_msm_excl_scan(const uint32_t *cnt, uint32_t n, uint32_t *tsum,
                                    uint32_t *start, uint32_t *cursor);
/* Steps 1-3: the entries sorted by bin into a->start and *vals (a->vals by
 * atomics, one of the radix sort's buffers); *total = the entries, *range:
 * a participating scalar >= 2^255. cnt (atomics): nbins words of scratch. */
cuzk_status cuzk__gpu_msm_sort_atomics(const msm_plan *p, const uint64_t *d_scalars, size_t n,
                                       const uint64_t *d_mask, uint32_t *cnt, const msm_area *a,
                                       uint32_t *total, bool *range, msm_prof *prof);
cuzk_status cuzk__gpu_msm_sort_radix(const msm_plan *p, const uint64_t *d_scalars, size_t n,
                                     const uint64_t *d_mask, const msm_area *a,
                                     const uint32_t **vals, uint32_t *total, bool *range,
                                     msm_prof *prof);
/* CUB's temporary storage for a radix sort of `pairs` pairs by `bits` key bits. */
cuzk_status cuzk__gpu_msm_radix_temp_bytes(uint32_t pairs, int bits, size_t *bytes);

/* msm_levels.cu. Steps 4-5 into a->buckets (cleared), from the sorted
 * entries vals; verbose: a line a window group and the levels' pass times
 * on stderr. */
cuzk_status cuzk__gpu_msm_levels(cuzk__gpu_msm_bases *b, const msm_plan *p, const msm_area *a,
                                 const uint32_t *vals, bool verbose);
/* The level blocks' shape on the current device with at most `limit` bytes
 * of shared memory a block (0, or above the device's opt-in limit: the
 * device's): *threads, whole warps whose stages fit (at most BA_THREADS),
 * and *blocks, resident blocks per SM, the kernels' shared memory set up.
 * *threads = 0 (no levels) when not one warp fits, the device refuses the
 * size or no block can be resident; an error only for a failed query. */
cudaError_t cuzk__gpu_msm_levels_shape(cuzk__gpu_msm_group g, size_t limit, unsigned *threads,
                                       int *blocks);
/* The claimed runs' host tables of b (b->sms, b->ba_blocks set); without
 * the memory the handle runs even runs. */
void cuzk__gpu_msm_level_speeds_new(cuzk__gpu_msm_bases *b);
/* Frees them (the handle then runs even runs). */
void cuzk__gpu_msm_level_speeds_free(cuzk__gpu_msm_bases *b);

/* msm_xyzz.cu. The XYZZ accumulation of `total` entries (vals: point index
 * | sign, start: nbins + 1 bin starts) of the points into buckets (steps 4
 * and 5), with ka, pa, kb, pb the pair lists (p.cap pairs each). */
cuzk_status cuzk__gpu_msm_accumulate(cuzk__gpu_msm_group g, const void *points,
                                     const uint32_t *vals, const uint32_t *start, uint32_t nbins,
                                     uint32_t total, uint64_t resident, void *buckets,
                                     uint32_t *ka, void *pa, uint32_t *kb, void *pb);
/* Steps 6-7 on the device: wsum[s] = sum (b + 1) buckets[s nb + b] for s < nset. */
cuzk_status cuzk__gpu_msm_reduce(const msm_plan *p, const msm_area *a);
/* Resident blocks per SM of the XYZZ accumulation kernel. */
cudaError_t cuzk__gpu_msm_accumulate_occupancy(cuzk__gpu_msm_group g, int *blocks);
/* The batch-add: work-area bytes past the staged inputs, and the sum of the
 * bases whose bit is set in a device bitmap (all with NULL) as host
 * Jacobian words, the area carved from ws_offset. */
size_t cuzk__gpu_msm_batch_add_bytes(const cuzk__gpu_msm_bases *b, size_t n);
cuzk_status cuzk__gpu_msm_batch_add_dev(cuzk__gpu_msm_bases *b, uint64_t *result, size_t n,
                                        const uint64_t *d_bitmap, size_t ws_offset);

/* msm_classify.cu. The classification of n device scalars into device
 * bitmaps of (n + 63) / 64 words (zero, one, other; NULL: not wanted) and
 * counts, d_counts 3 words of device scratch. */
cuzk_status cuzk__gpu_msm_classify_dev(uint64_t *const d_bits[3], unsigned long long *d_counts,
                                       const uint64_t *d_scalars, size_t n,
                                       cuzk__gpu_msm_counts *counts);
/* The set bits below n of a device bitmap, counted in b's work area. */
cuzk_status cuzk__gpu_msm_popcount_dev(cuzk__gpu_msm_bases *b, const uint64_t *d_bitmap,
                                       size_t n, size_t *count);
}

#endif /* CUZK_GPU_MSM_IMPL_CUH */
