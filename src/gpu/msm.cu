/*
 * msm.cu — multi-scalar multiplication in G1 and G2 on the device
 * (gpu_msm.h), bitmap batch-add and the 0/1/other classification.
 * VARIABLE TIME (public data, as the CPU MSM).
 *
 * One MSM over n points, window c <= CUZK__GPU_MSM_MAX_C (cost model in
 * window_bits), nwin = ceil(256/c) windows,
 * nb = 2^(c-1) buckets per window, nbins = nwin * nb bins (bin j*nb + b
 * collects the points whose window-j digit is +-(b+1)):
 *   1. digits_kernel<count>: Booth digits of every scalar (the CPU's
 *      recoding, msm.h), one atomic increment per nonzero digit into its
 *      bin's count; a participating scalar >= 2^255 raises a flag.
 *      (Variant 5 replaces steps 1-3 by a radix sort: see "digit sort".)
 *   2. scan_{tiles,sums,apply}_kernel: exclusive prefix sum of the counts
 *      (tiles of 8192 per block) = the start of each
 *      bin in the sorted entry array (zero digits have no entry at all).
 *   3. digits_kernel<scatter>: the digits again; each nonzero one appends
 *      (point index | sign << 31) to its bin (atomic cursor). The order
 *      inside a bin is arbitrary, which only changes the representation
 *      of the bucket sum, not the point.
 *   4. accumulate_kernel: the sorted entries are cut into equal slices, one
 *      per thread, whatever the bins' sizes (a hot bucket, say every scalar
 *      equal, is spread over all threads). A thread adds its entries in one
 *      flat loop with XYZZ mixed additions (8M + 2S), the next entry's base
 *      loaded during the current addition; a run (the entries of one bin)
 *      ends in a short branch inside that loop. A run that
 *      is the whole bin is written to its bucket; a run cut by the slice's
 *      start or end goes out as a (bin, partial sum) pair, two slots per
 *      thread (unused slots hold infinity under a neighbouring key, so the
 *      pairs stay sorted by bin).
 *   5. combine_kernel, repeated: the same slicing over the pairs with full
 *      XYZZ additions (12M + 2S), until one thread holds all of them. A bin
 *      is finished by exactly one thread at exactly one level, which writes
 *      it when its sum is finite (every bucket starts as infinity).
 *   6. bucket_reduce_kernel: per window, P segments of L buckets (L = 16, or
 *      for large windows as many as make two waves of resident threads); a thread
 *      takes the running sums over its segment (2 XYZZ additions per
 *      bucket): T = sum (b - lo + 1) B[b], R = sum B[b], and returns
 *      T + lo R (lo R by double-and-add), so that the window sum is the
 *      plain sum of its segments' results: sum (b + 1) B[b].
 *   7. combine_kernel over (window, segment result) pairs gives the window
 *      sums; the host combines them (Horner, c doublings apart) with the
 *      CPU's group code and returns a Jacobian point.
 * With k shifted copies of the bases (cuzk__gpu_msm_bases_precompute: copy j
 * holds 2^(jc) P_i), window j's digit of point i appends entry (j % k) n + i
 * to bin (j / k) nb + |d| - 1: the bins form nset = ceil(nwin / k) bucket
 * sets instead of nwin windows, steps 4-7 run over sets, and the host's
 * Horner steps kc doublings apart. The copies' window is larger (the
 * buckets to reduce are k times fewer), so there are fewer windows.
 * Device memory per call: 4 bytes per nonzero digit (n * nwin at most) plus
 * counts, starts, buckets (nbins XYZZ) and the pair lists; the handle keeps
 * this work area between calls.
 * cuzk__gpu_msm_variant selects alternatives for A/B measurements
 * (gpu_msm.h); doc/gpu-notes.md has their numbers. Variant 4 replaces step
 * 4 by batch-affine levels (see "batch-affine accumulation" below): each
 * bin's run is summed pairwise in affine coordinates with one inversion per
 * thread and level, for groups of windows whose level buffers fit a budget,
 * and step 4 as above finishes the short runs left. Variant 5 replaces
 * steps 1-3 by a radix sort of one (key, value) pair per window and point
 * (see "digit sort" below; 16 bytes per pair instead of 4 per entry).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUB (CCCL, shipped with the toolkit) for variant 5's sort. No NVTX ranges
 * (they would add ~70 exported nvtx* symbols to the library) and no C++
 * exceptions (none may cross our C edge; CUB reports through return codes). */
#define CCCL_DISABLE_NVTX
#define CCCL_DISABLE_EXCEPTIONS
#include <cub/device/device_radix_sort.cuh>

#include "gpu/check.cuh"
#include "gpu/decode.cuh"
#include "gpu/ec.cuh"
#include "gpu/gpu_msm.h"
#include "gpu/level_runs.h"

using namespace cuzk_gpu;

/*
 * The host's group operations (src/ec/g1.c, g2.c), declared here with
 * untyped pointers: g1.h / g2.h are C11 headers that do not compile as C++.
 * The layouts are the host's cuzk_g*_jac / cuzk_g*_xyzz (ec.cuh checks the
 * sizes).
 */
extern "C" {
void cuzk_g1_xyzz_to_jac(void *r, const void *a);
void cuzk_g1_jac_dbl(void *r, const void *a);
void cuzk_g1_jac_add_var(void *r, const void *a, const void *b);
void cuzk_g2_xyzz_to_jac(void *r, const void *a);
void cuzk_g2_jac_dbl(void *r, const void *a);
void cuzk_g2_jac_add_var(void *r, const void *a, const void *b);
size_t cuzk__msm_popcount(const uint64_t *bitmap, size_t n); /* src/msm/msm.h */
}

/* Pairs per resident thread a batch-affine level needs by default. With
 * the binary-GCD inversion (ff.cuh inv_var, ~0.15 ms a level launch on the
 * H200 against 1.3 for Fermat's) a level pays for itself down to small
 * batches: G1 2^26 with 6 copies ran 8 levels a set at 16 (4 at 256) and
 * was 0.7% faster, 2^27 with 4 copies 0.6% (doc/perf.md, session 26). */
static constexpr uint64_t BA_MIN_BATCH = 16;

/* ---- groups ---------------------------------------------------------------- */

struct grp_g1 {
    typedef fp_t F;
    static constexpr size_t JAC_WORDS = 18, XYZZ_WORDS = 24, AFF_WORDS = 12;
    static void xyzz_to_jac(uint64_t *r, const uint64_t *a) { cuzk_g1_xyzz_to_jac(r, a); }
    static void jac_dbl(uint64_t *r, const uint64_t *a) { cuzk_g1_jac_dbl(r, a); }
    static void jac_add(uint64_t *r, const uint64_t *a, const uint64_t *b) {
        cuzk_g1_jac_add_var(r, a, b);
    }
};
struct grp_g2 {
    typedef fp2_t F;
    static constexpr size_t JAC_WORDS = 36, XYZZ_WORDS = 48, AFF_WORDS = 24;
    static void xyzz_to_jac(uint64_t *r, const uint64_t *a) { cuzk_g2_xyzz_to_jac(r, a); }
    static void jac_dbl(uint64_t *r, const uint64_t *a) { cuzk_g2_jac_dbl(r, a); }
    static void jac_add(uint64_t *r, const uint64_t *a, const uint64_t *b) {
        cuzk_g2_jac_add_var(r, a, b);
    }
};

/* ---- kernels ------------------------------------------------------------------- */

static constexpr unsigned HEAVY_THREADS = 128; /* curve kernels: many registers */
static_assert(HEAVY_THREADS % 32 == 0, "whole warps: the level kernels step warp-wide");
static constexpr unsigned LIGHT_THREADS = 256;
static constexpr uint32_t SIGN_BIT = 0x80000000u;
/* Pairs per thread in the combine levels. */
static constexpr uint32_t COMBINE_SLICE = 16;
/* Buckets per thread in the bucket reduction. */
static constexpr uint32_t REDUCE_SEGMENT = 16;

/* The CPU's Booth digit (msm.h: cuzk__msm_booth_digit), d in [-2^(c-1), 2^(c-1)]. */
static __device__ __forceinline__ int booth_digit(const uint64_t k[4], unsigned j, unsigned c) {
    uint64_t w;
    const uint64_t mask = ((uint64_t)1 << (c + 1)) - 1;
    if (j == 0) {
        w = (k[0] << 1) & mask;
    } else {
        const unsigned s = j * c - 1, limb = s / 64, off = s % 64;
        w = k[limb] >> off;
        if (off + c + 1 > 64 && limb + 1 < 4) w |= k[limb + 1] << (64 - off);
        w &= mask;
    }
    return (int)((w >> 1) + (w & 1)) - (int)((w >> c) << c);
}

static __device__ __forceinline__ void load_scalar(uint64_t k[4], const uint64_t *s, size_t i) {
    const ulonglong2 *p = reinterpret_cast<const ulonglong2 *>(s + 4 * i);
    const ulonglong2 a = p[0], b = p[1];
    k[0] = a.x, k[1] = a.y, k[2] = b.x, k[3] = b.y;
}

/* Windows of c bits for a 255-bit scalar's Booth digits, and the bucket sets
 * they form with k copies of the bases (window_cost below). */
static __host__ __device__ unsigned window_count(unsigned c) { return (256 + c - 1) / c; }
static __host__ __device__ unsigned window_sets(unsigned nwin, unsigned k) {
    return (nwin + k - 1) / k;
}

/*
 * Where window j's digit d of point i goes: bin (set) nb + |d| - 1, entry
 * (copy) stride + i with the sign in bit 31, where set = j / per_set and
 * copy = j % per_set (per_set = 1 without copies of the bases: bin j nb +
 * |d| - 1, entry i). Stepped window by window (next()), no division.
 */
struct digit_place {
    uint32_t nb, per_set, stride;
    uint32_t set, copy;
    __device__ __forceinline__ uint32_t bin(int d) const {
        return set * nb + (uint32_t)(d < 0 ? -d : d) - 1;
    }
    __device__ __forceinline__ uint32_t val(uint32_t i, int d) const {
        return (copy * stride + i) | (d < 0 ? SIGN_BIT : 0u);
    }
    __device__ __forceinline__ void next() {
        if (++copy == per_set) copy = 0, set++;
    }
};

/* Pass 1 (SCATTER false): counts per bin and the range flag. Pass 2: entries. */
template <bool SCATTER>
static __global__ void digits_kernel(const uint64_t *scalars, const uint64_t *mask, uint32_t n,
                                     unsigned c, unsigned nwin, unsigned per_set,
                                     uint32_t stride, uint32_t *bins, uint32_t *vals,
                                     uint32_t *flag) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (mask && !((mask[i / 64] >> (i % 64)) & 1)) return;
    uint64_t k[4];
    load_scalar(k, scalars, i);
    if (k[3] >> 63) {
        if (!SCATTER) atomicOr(flag, 1u);
        return;
    }
    const uint32_t nb = 1u << (c - 1);
    digit_place at{nb, per_set, stride, 0, 0};
    for (unsigned j = 0; j < nwin; j++, at.next()) {
        const int d = booth_digit(k, j, c);
        if (d == 0) continue;
        const uint32_t bin = at.bin(d);
        if (SCATTER) {
            const uint32_t pos = atomicAdd(&bins[bin], 1u);
            vals[pos] = at.val(i, d);
        } else {
            atomicAdd(&bins[bin], 1u);
        }
    }
}

static constexpr unsigned SCAN_THREADS = 1024;

/*
 * start[g] = sum of cnt[0..g) for g <= nbins, cursor[g] = start[g], over
 * many blocks (a one-block scan took 30 ms for the 6.8M bins of c = 20 and
 * 145 ms for the 25M of c = 22): a tile of SCAN_TILE counts per block,
 * SCAN_ITEMS contiguous ones per thread. Pass 1: tile sums. Pass 2 (one
 * block): exclusive scan of the tile sums in place, and start[nbins] =
 * total. Pass 3: each tile's scan plus its offset into start and cursor.
 */
static constexpr unsigned SCAN_ITEMS = 8, SCAN_TILE = SCAN_THREADS * SCAN_ITEMS;

/* Exclusive block-wide prefix sum of x (blockDim.x = SCAN_THREADS); the
 * block's total in *total. Warp shuffles, then one warp over the warp sums. */
static __device__ __forceinline__ uint32_t block_excl_scan(uint32_t x, uint32_t *total) {
    __shared__ uint32_t wsum[SCAN_THREADS / 32];
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    uint32_t inc = x;
#pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) {
        const uint32_t y = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= o) inc += y;
    }
    if (lane == 31) wsum[w] = inc;
    __syncthreads();
    if (w == 0) {
        uint32_t ws = wsum[lane], wi = ws; /* SCAN_THREADS / 32 == 32 warps */
#pragma unroll
        for (unsigned o = 1; o < 32; o <<= 1) {
            const uint32_t y = __shfl_up_sync(0xffffffffu, wi, o);
            if (lane >= o) wi += y;
        }
        wsum[lane] = wi - ws;
        if (lane == 31) *total = wi;
    }
    __syncthreads();
    return inc - x + wsum[w];
}
static_assert(SCAN_THREADS == 1024, "block_excl_scan: 32 warps");

static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_tiles_kernel(const uint32_t *cnt, uint32_t nbins, uint32_t *tsum) {
    __shared__ uint32_t tot;
    const uint32_t base = blockIdx.x * SCAN_TILE + threadIdx.x * SCAN_ITEMS;
    uint32_t x = 0;
#pragma unroll
    for (unsigned k = 0; k < SCAN_ITEMS; k++)
        if (base + k < nbins) x += cnt[base + k];
    (void)block_excl_scan(x, &tot);
    if (threadIdx.x == 0) tsum[blockIdx.x] = tot;
}

/* One block: tsum[0..ntiles) becomes its exclusive scan; start[nbins] = total. */
static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_sums_kernel(uint32_t *tsum, uint32_t ntiles, uint32_t *start, uint32_t nbins) {
    __shared__ uint32_t tot;
    uint32_t carry = 0;
    for (uint32_t b = 0; b < ntiles; b += SCAN_THREADS) {
        const uint32_t i = b + threadIdx.x;
        const uint32_t x = i < ntiles ? tsum[i] : 0;
        const uint32_t ex = block_excl_scan(x, &tot);
        if (i < ntiles) tsum[i] = carry + ex;
        carry += tot;
        __syncthreads(); /* tot is rewritten by the next round */
    }
    if (threadIdx.x == 0) start[nbins] = carry;
}

static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_apply_kernel(const uint32_t *cnt, uint32_t nbins, const uint32_t *tsum,
                      uint32_t *start, uint32_t *cursor) {
    __shared__ uint32_t tot;
    const uint32_t base = blockIdx.x * SCAN_TILE + threadIdx.x * SCAN_ITEMS;
    uint32_t c[SCAN_ITEMS], x = 0;
#pragma unroll
    for (unsigned k = 0; k < SCAN_ITEMS; k++) {
        c[k] = base + k < nbins ? cnt[base + k] : 0;
        x += c[k];
    }
    uint32_t run = tsum[blockIdx.x] + block_excl_scan(x, &tot);
#pragma unroll
    for (unsigned k = 0; k < SCAN_ITEMS; k++)
        if (base + k < nbins) {
            start[base + k] = run;
            cursor[base + k] = run;
            run += c[k];
        }
}

/* Words of tile sums that excl_scan needs for n counts. */
static size_t scan_tsum_words(uint32_t n) { return (size_t)n / SCAN_TILE + 2; }

/* start[0..n] = exclusive scan of cnt[0..n) with start[n] = the total, and
 * the same starts in cursor (which may be start itself); tsum has
 * scan_tsum_words(n) words. Asynchronous on the default stream; n > 0. */
static cuzk_status excl_scan(const uint32_t *cnt, uint32_t n, uint32_t *tsum, uint32_t *start,
                             uint32_t *cursor) {
    const uint32_t ntiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    scan_tiles_kernel<<<ntiles, SCAN_THREADS>>>(cnt, n, tsum);
    CUZK__CUDA_TRY(cudaGetLastError());
    scan_sums_kernel<<<1, SCAN_THREADS>>>(tsum, ntiles, start, n);
    CUZK__CUDA_TRY(cudaGetLastError());
    scan_apply_kernel<<<ntiles, SCAN_THREADS>>>(cnt, n, tsum, start, cursor);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

/* ---- digit sort (variant 5) ---------------------------------------------------------
 *
 * Steps 1-3 without atomics. digits_keys_kernel writes one pair per
 * (window j, point i) at position j n + i: key = j nb + |d| - 1 for a
 * nonzero digit d, else the sentinel nbins (also for a masked-out point and
 * for a scalar >= 2^255, which raises the flag as in step 1), and value =
 * i | sign << 31. Thread i writes position j n + i for every j, so each
 * window's stores are coalesced, and nothing is compacted: the sentinels
 * sort to the end. cub::DeviceRadixSort::SortPairs orders the pairs by key
 * over bits [0, bits(nbins)) in the double-buffer form (no third copy: 16
 * bytes per pair in all); it is an LSD radix sort, stable, so a bin's
 * entries come out in point order, where the atomics left them in arrival
 * order (same bucket sum, another representation of it). bounds_kernel then
 * gives start[b] = the first position whose key is >= b, for b <= nbins:
 * bin b holds [start[b], start[b+1]), an empty bin has start[b] =
 * start[b+1], and start[nbins] = the first sentinel = the number of
 * entries, which is what step 4 reads.
 */
static __global__ void digits_keys_kernel(const uint64_t *__restrict__ scalars,
                                          const uint64_t *__restrict__ mask, uint32_t n,
                                          unsigned c, unsigned nwin, unsigned per_set,
                                          uint32_t stride, uint32_t *__restrict__ keys,
                                          uint32_t *__restrict__ vals, uint32_t *flag) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t k[4] = {0, 0, 0, 0}; /* a point that does not take part: all digits 0 */
    if (!mask || ((mask[i / 64] >> (i % 64)) & 1)) {
        load_scalar(k, scalars, i);
        if (k[3] >> 63) {
            atomicOr(flag, 1u);
            k[0] = k[1] = k[2] = k[3] = 0;
        }
    }
    const uint32_t nb = 1u << (c - 1), sentinel = window_sets(nwin, per_set) * nb;
    digit_place pl{nb, per_set, stride, 0, 0};
    for (unsigned j = 0; j < nwin; j++, pl.next()) {
        const int d = booth_digit(k, j, c);
        const size_t at = (size_t)j * n + i;
        keys[at] = d == 0 ? sentinel : pl.bin(d);
        vals[at] = pl.val(i, d);
    }
}

/*
 * start[b] for b <= nbins over the m sorted keys: a lower-bound search per
 * bin. (A thread per pair writing the bins between the previous key and
 * its own would be serial over long gaps: with every scalar zero, one
 * thread would write all 25M starts of c = 22. A search costs about
 * log2(m) loads whatever the skew, mostly cache hits since neighbouring
 * bins share their path, and there are 32-128 times fewer bins than pairs.)
 */
static __global__ void bounds_kernel(const uint32_t *__restrict__ keys, uint32_t m, uint32_t nbins,
                                     uint32_t *__restrict__ start) {
    const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b > nbins) return;
    uint32_t lo = 0, hi = m; /* keys[< lo] < b <= keys[>= hi] */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    start[b] = lo;
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

/*
 * Step 4 of the header: entries [t S, (t+1) S) of the bins' sorted entries.
 * Changes against the first version (doc/gpu-notes.md, 2026-11-30):
 *  - one flat loop over the entries; a run's end is a short branch inside
 *    it. With a loop per run inside a loop over runs, a warp's threads that
 *    finished their run waited (reconvergence after the inner loop) for the
 *    longest run among the 32: with ~32-128 entries per bucket (windows
 *    above 16) that idled 15-25% of the lanes;
 *  - the base of the next entry is loaded before the current addition, and
 *    the end of the next bin before it is needed;
 *  - a partial sum cut by the slice start or end is stored when its run
 *    ends instead of living in registers for the whole slice (2 XYZZ
 *    points: 96 registers for G1, 192 for G2).
 */
template <class F, class M>
static __global__ void __launch_bounds__(HEAVY_THREADS)
    accumulate_kernel(const aff_pt<F> *__restrict__ bases, const uint32_t *__restrict__ vals,
                      const uint32_t *__restrict__ start, uint32_t nbins, uint32_t total,
                      uint32_t slice, uint32_t nthreads, xyzz_pt<F> *buckets, uint32_t *okeys,
                      xyzz_pt<F> *opts) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    const uint32_t e0 = (uint32_t)((uint64_t)t * slice); /* < total: nthreads = ceil(total/S) */
    const uint32_t e1 = (uint32_t)((uint64_t)e0 + slice < total ? e0 + slice : total);
    uint32_t g = bin_of(start, 0, nbins, e0);
    okeys[2 * t] = g;
    /* bin g holds entries [s, f); nf = start[g + 2], loaded one run early */
    uint32_t s = start[g], f = start[g + 1];
    uint32_t nf = g + 2 <= nbins ? start[g + 2] : f;
    bool head_set = false, tail_set = false;
    uint32_t v = vals[e0];
    aff_pt<F> nxt = ld16(bases + (v & ~SIGN_BIT));
    xyzz_pt<F> acc;
    xyzz_set_inf(acc);
    for (uint32_t e = e0; e < e1; e++) {
        const aff_pt<F> cur = nxt;
        const bool ng = (v & SIGN_BIT) != 0;
        if (e + 1 < e1) { /* prefetch: in flight during the addition */
            v = vals[e + 1];
            nxt = ld16(bases + (v & ~SIGN_BIT));
        }
        xyzz_add_aff<F, M>(acc, cur, ng);
        if (e + 1 == f || e + 1 == e1) { /* the run ends */
            const bool before = s < e0, after = f > e1;
            xyzz_canon<F, M>(acc);
            if (!before && !after) {
                if (!xyzz_is_inf(acc)) st16(buckets + g, acc);
            } else if (before) {
                st16(opts + 2 * t, acc);
                head_set = true;
            } else {
                st16(opts + 2 * t + 1, acc);
                tail_set = true;
            }
            xyzz_set_inf(acc);
            if (e + 1 < e1) { /* next nonempty bin: starts at e + 1 */
                g++;
                s = f;
                f = nf;
                if (f <= e + 1) { /* bin g is empty: search */
                    g = bin_of(start, g, nbins, e + 1);
                    s = start[g];
                    f = start[g + 1];
                }
                nf = g + 2 <= nbins ? start[g + 2] : f;
            }
        }
    }
    okeys[2 * t + 1] = g;
    xyzz_pt<F> inf;
    xyzz_set_inf(inf);
    if (!head_set) st16(opts + 2 * t, inf);
    if (!tail_set) st16(opts + 2 * t + 1, inf);
}

/* The G1 point additions keep their mixed additions' accumulators lazy
 * (ec.cuh mul_lazy_call); G2's are canonical (for_field). */
template <class F>
using madd_t = typename for_field<F, mul_lazy_call>::type;

/* Step 5: the same slicing over m sorted (key, partial sum) pairs. */
template <class F, class M>
static __global__ void __launch_bounds__(HEAVY_THREADS)
    combine_kernel(const uint32_t *keys, const xyzz_pt<F> *pts, uint32_t m, uint32_t slice,
                   uint32_t nthreads, xyzz_pt<F> *out, uint32_t *okeys, xyzz_pt<F> *opts) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    const uint32_t e0 = t * slice, e1 = e0 + slice < m ? e0 + slice : m;
    xyzz_pt<F> head, tail;
    xyzz_set_inf(head);
    xyzz_set_inf(tail);
    uint32_t e = e0;
    while (e < e1) {
        const uint32_t k = keys[e], s = e;
        xyzz_pt<F> acc;
        xyzz_set_inf(acc);
        for (; e < e1 && keys[e] == k; e++) xyzz_add<F, M>(acc, ld16(pts + e));
        const bool before = s == e0 && e0 > 0 && keys[e0 - 1] == k;
        const bool after = e == e1 && e1 < m && keys[e1] == k;
        if (!before && !after) {
            if (!xyzz_is_inf(acc)) st16(out + k, acc);
        } else if (before) {
            head = acc;
        } else {
            tail = acc;
        }
    }
    okeys[2 * t] = keys[e0];
    st16(opts + 2 * t, head);
    okeys[2 * t + 1] = keys[e1 - 1];
    st16(opts + 2 * t + 1, tail);
}

/* Step 6: thread (j, s) of nwin * nseg. */
template <class F, class M>
static __global__ void __launch_bounds__(HEAVY_THREADS)
    bucket_reduce_kernel(const xyzz_pt<F> *buckets, uint32_t nb, uint32_t seglen, uint32_t nseg,
                         uint32_t nwin, uint32_t *okeys, xyzz_pt<F> *opts) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nwin * nseg) return;
    const uint32_t j = t / nseg, s = t % nseg, lo = s * seglen;
    const uint32_t len = nb - lo < seglen ? nb - lo : seglen; /* lo < nb */
    const xyzz_pt<F> *bk = buckets + (size_t)j * nb + lo;
    xyzz_pt<F> run, tot, acc;
    xyzz_set_inf(run);
    xyzz_set_inf(tot);
    for (uint32_t b = len; b-- > 0;) {
        xyzz_add<F, M>(run, ld16(bk + b));
        xyzz_add<F, M>(tot, run);
    }
    /* + lo * run, most significant bit first */
    xyzz_set_inf(acc);
    if (lo) {
        for (int bit = 31 - __clz(lo); bit >= 0; bit--) {
            xyzz_dbl(acc, acc);
            if ((lo >> bit) & 1) xyzz_add<F, M>(acc, run);
        }
        xyzz_add<F, M>(tot, acc);
    }
    okeys[t] = j;
    st16(opts + t, tot);
}

/*
 * Bitmap batch-add, first level. The set bits are ranked (wpre[w] = set bits
 * in the words before w, wpre[nw] = the total) and thread t sums the bases
 * of ranks [t S, (t+1) S), S = ceil(total / nthreads): every lane of a warp
 * adds on every iteration, whatever the bitmap looks like. (Slicing by
 * position instead left a lane idle whenever its next bit was clear: at
 * half the bits set, 0.95 ns per addition against the MSM's 0.59.) Without
 * a bitmap, rank = index. Thread t's sum goes to pair t (key 0).
 */
static __global__ void word_count_kernel(const uint64_t *bitmap, uint32_t n, uint32_t nw,
                                         uint32_t *cnt) {
    const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nw) return;
    uint64_t x = bitmap[w];
    if (w == nw - 1 && n % 64) x &= ((uint64_t)1 << (n % 64)) - 1; /* bits past n */
    cnt[w] = (uint32_t)__popcll(x);
}

template <class F, class M>
static __global__ void __launch_bounds__(HEAVY_THREADS)
    batch_add_kernel(const aff_pt<F> *bases, const uint64_t *bitmap, const uint32_t *wpre,
                     uint32_t n, uint32_t nw, uint32_t nthreads, uint32_t *okeys,
                     xyzz_pt<F> *opts) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    const uint32_t total = bitmap ? wpre[nw] : n;
    const uint32_t per = (uint32_t)(((uint64_t)total + nthreads - 1) / nthreads);
    const uint64_t r0 = (uint64_t)t * per;
    const uint32_t cnt = r0 >= total ? 0 : (uint32_t)(total - r0 < per ? total - r0 : per);
    xyzz_pt<F> acc;
    xyzz_set_inf(acc);
    /* the word holding rank r0 (the last w with wpre[w] <= r0), and the
     * word's bits from that rank on */
    uint32_t w = 0;
    uint64_t word = 0;
    if (bitmap && cnt) {
        w = bin_of(wpre, 0, nw, r0); /* wpre[0] = 0 <= r0 < total = wpre[nw] */
        word = bitmap[w];
        for (uint32_t k = (uint32_t)(r0 - wpre[w]); k; k--) word &= word - 1;
    }
    /* index of the next set bit at or after the cursor (bitmap), consumed */
    auto next = [&](uint32_t r) -> uint32_t {
        if (!bitmap) return r;
        while (word == 0) word = bitmap[++w];
        const uint32_t i = w * 64 + (uint32_t)(__ffsll((long long)word) - 1);
        word &= word - 1;
        return i;
    };
    if (cnt) {
        aff_pt<F> nxt = ld16(bases + next((uint32_t)r0));
        for (uint32_t k = 0; k < cnt; k++) {
            const aff_pt<F> cur = nxt;
            if (k + 1 < cnt) nxt = ld16(bases + next((uint32_t)r0 + k + 1)); /* in flight */
            xyzz_add_aff<F, M>(acc, cur, false);
        }
    }
    okeys[t] = 0;
    xyzz_canon<F, M>(acc);
    st16(opts + t, acc);
}

/* Classification: one thread per scalar, warp ballots build 32-bit halves of
 * the bitmap words (little-endian: word w = halves 2w, 2w+1). */
static __global__ void classify_kernel(const uint64_t *scalars, uint32_t n, uint32_t halves,
                                       uint32_t *zero, uint32_t *one, uint32_t *other,
                                       unsigned long long *counts) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    bool z = false, o = false, x = false;
    if (i < n) {
        uint64_t k[4];
        load_scalar(k, scalars, i);
        const bool small = (k[1] | k[2] | k[3]) == 0 && k[0] <= 1;
        z = small && k[0] == 0;
        o = small && k[0] == 1;
        x = !small;
    }
    const uint32_t bz = __ballot_sync(0xffffffffu, z), bo = __ballot_sync(0xffffffffu, o),
                   bx = __ballot_sync(0xffffffffu, x);
    const uint32_t h = i / 32;
    if ((threadIdx.x & 31) == 0 && h < halves) {
        if (zero) zero[h] = bz;
        if (one) one[h] = bo;
        if (other) other[h] = bx;
        if (bz) atomicAdd(&counts[0], (unsigned long long)__popc(bz));
        if (bo) atomicAdd(&counts[1], (unsigned long long)__popc(bo));
        if (bx) atomicAdd(&counts[2], (unsigned long long)__popc(bx));
    }
}

/* Points made in XYZZ coordinates, RUN at a time by one thread, written to
 * out as affine points with one inversion (Montgomery's trick on ZZ ZZZ:
 * 1/ZZ = ZZZ / (ZZ ZZZ), 1/ZZZ = ZZ / (ZZ ZZZ)); infinity stays (0, 0). */
static constexpr unsigned RUN = 32;
template <class F>
struct aff_run {
    F zz[RUN], zzz[RUN], pref[RUN], prod;
};
template <class F>
static __device__ __forceinline__ void aff_run_start(aff_run<F> &r) {
    set_one(r.prod);
}
/* point k of the run: x and y to out[k] now, the rest at the end */
template <class F>
static __device__ __forceinline__ void aff_run_put(aff_run<F> &r, aff_pt<F> *out, uint32_t k,
                                                   const xyzz_pt<F> &p) {
    aff_pt<F> xy;
    if (xyzz_is_inf(p)) { /* (0, 0) times anything: factors of 1 */
        set_zero(xy.x);
        set_zero(xy.y);
        set_one(r.zz[k]);
        set_one(r.zzz[k]);
    } else {
        xy.x = p.x;
        xy.y = p.y;
        r.zz[k] = p.zz;
        r.zzz[k] = p.zzz;
    }
    st16(out + k, xy);
    r.pref[k] = r.prod;
    F w;
    fmul(w, r.zz[k], r.zzz[k]);
    fmul(r.prod, r.prod, w);
}
template <class F>
static __device__ __forceinline__ void aff_run_finish(aff_run<F> &r, aff_pt<F> *out,
                                                      uint32_t cnt) {
    finv(r.prod, r.prod); /* 1 / prod of all ZZ ZZZ */
    for (uint32_t k = cnt; k-- > 0;) {
        F ik, w, a;
        fmul(ik, r.prod, r.pref[k]); /* 1 / (ZZ_k ZZZ_k) */
        fmul(w, r.zz[k], r.zzz[k]);
        fmul(r.prod, r.prod, w);
        aff_pt<F> p = ld16(out + k);
        fmul(a, r.zzz[k], ik);
        fmul(p.x, p.x, a);
        fmul(a, r.zz[k], ik);
        fmul(p.y, p.y, a);
        st16(out + k, p);
    }
}

/* Random bases: thread t makes points [t RUN, (t+1) RUN) of a walk that
 * starts at a sum of three table points and adds one table point per step. */
template <class F>
static __global__ void __launch_bounds__(HEAVY_THREADS)
    random_bases_kernel(const aff_pt<F> *table, uint32_t ntable, uint32_t n, uint64_t seed,
                        aff_pt<F> *out) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t lo = (uint64_t)t * RUN;
    if (lo >= n) return;
    const uint32_t cnt = (uint32_t)(n - lo < RUN ? n - lo : RUN);
    const uint64_t h = seed * 0x100000000ULL + t;
    xyzz_pt<F> acc;
    xyzz_set_inf(acc);
    for (unsigned r = 0; r < 3; r++)
        xyzz_add_aff(acc, ld16(table + mix32(h * 4 + r) % ntable), false);
    aff_run<F> run;
    aff_run_start(run);
    for (uint32_t k = 0; k < cnt; k++) {
        xyzz_add_aff(acc, ld16(table + mix32(h * 64 + 4 + k) % ntable), false);
        aff_run_put(run, out + lo, k, acc);
    }
    aff_run_finish(run, out + lo, cnt);
}

/* A shifted copy of the bases (cuzk__gpu_msm_bases_precompute): dst[i] =
 * 2^c src[i], c doublings per point (a finite point stays finite: the
 * groups have odd order, and so do the curves' cofactors), RUN points per
 * thread. */
template <class F>
static __global__ void __launch_bounds__(HEAVY_THREADS)
    shift_kernel(const aff_pt<F> *src, aff_pt<F> *dst, uint32_t n, unsigned c) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t lo = (uint64_t)t * RUN;
    if (lo >= n) return;
    const uint32_t cnt = (uint32_t)(n - lo < RUN ? n - lo : RUN);
    aff_run<F> run;
    aff_run_start(run);
    for (uint32_t k = 0; k < cnt; k++) {
        const aff_pt<F> a = ld16(src + lo + k);
        xyzz_pt<F> p;
        xyzz_set_inf(p);
        if (!aff_is_inf(a)) {
            xyzz_dbl_aff(p, a);
            for (unsigned d = 1; d < c; d++) xyzz_dbl(p, p);
        }
        aff_run_put(run, dst + lo, k, p);
    }
    aff_run_finish(run, dst + lo, cnt);
}

/* ---- batch-affine accumulation (variant 4) ----------------------------------------
 *
 * Replaces step 4 for the long runs. Per group of windows (the level
 * buffers are bounded by a budget), the sorted entries of each bin are
 * summed pairwise, level by level: a bin holding k points at one level
 * holds ceil(k/2) at the next (pairs (2i, 2i+1), an odd last point passes
 * through). A level's output slots o are cut into equal slices, one per
 * thread, whatever the bins' sizes; slot o of bin g reads inputs
 * off_in[g] + 2 (o - off_out[g]) and the one after it, when that is still
 * in the bin. The new offsets are an exclusive scan of ceil(k/2).
 *
 * Affine addition with a shared inversion (Montgomery's trick): forward,
 * each addition's prefix product (of the denominators before it) is kept
 * in its own output slot's x (ba_st_prefix: with its last sector filled);
 * one inversion per thread and level; backward,
 * 1/d = inv * prefix, inv *= d, then l = (y2 - y1)/(x2 - x1) or
 * 3 x1^2 / (2 y1), x3 = l^2 - x1 - x2, y3 = l (x1 - x3) - y1: 5M + 1S per
 * addition (doubling + 1S) plus 1/slice of an inversion (binary GCD),
 * against 8M + 2S for an XYZZ mixed addition (GPU.md section 2). Infinity
 * (0, 0) as an input passes the other point through; P + (-P) gives (0, 0).
 * The denominators are recomputed from the inputs in the backward pass (the
 * same loads, so the same decisions), nothing else is stored.
 *
 * A level runs only while its pairs give each resident thread enough of
 * them to amortize the inversion (cuzk__gpu_msm_ba_min_pairs); what is left
 * (short runs) goes through variant 0's flat XYZZ accumulation with
 * identity indices over the last level's points.
 */

enum { BA_A = 0, BA_B, BA_INF, BA_ADD, BA_DBL }; /* what a level slot does */

/* The slot's kind; d = the denominator for BA_ADD / BA_DBL. A point with
 * y = 0 has order 2 (not in G1, G2): doubling it gives infinity, as on the CPU. */
template <class F>
static __device__ __forceinline__ int ba_kind(const aff_pt<F> &a, const aff_pt<F> &b, bool has_b,
                                              F &d) {
    if (!has_b || aff_is_inf(b)) return BA_A;
    if (aff_is_inf(a)) return BA_B;
    sub(d, b.x, a.x);
    if (!is_zero(d)) return BA_ADD;
    if (!fe_equal(a.y, b.y)) return BA_INF; /* same x, other y: b = -a */
    add(d, a.y, a.y);
    return is_zero(d) ? BA_INF : BA_DBL;
}

/* Asynchronous copies global -> shared (cp.async, sm_80+): in flight while
 * the thread computes, and holding no registers. cg: cached in L2 only. */
static __device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
    const uint32_t sa = (uint32_t)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(gmem) : "memory");
}
template <class E>
static __device__ __forceinline__ void cp_async(E *smem, const E *gmem) {
    static_assert(sizeof(E) % 16 == 0, "element size");
#pragma unroll
    for (unsigned k = 0; k < sizeof(E) / 16; k++)
        cp_async16(reinterpret_cast<uint4 *>(smem) + k, reinterpret_cast<const uint4 *>(gmem) + k);
}
static __device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
static __device__ __forceinline__ void cp_async_wait_all() {
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

/* Threads of a level block, one block an SM. G1's kernel fits 128
 * registers, so 512 threads (16 warps, its stages in 221 KB of shared
 * memory) fill an SM: at 16 warps a chain of products runs at the full
 * rate, at 12 at 87% of it (test_gpu_ff --bench, doc/perf.md session 22).
 * One block of 16 warps rather than four of 4 was 4.5% faster on the MSM
 * (2^26 with 6 copies 315.2 -> 301.2 ms, H200, session 25): an SM's
 * warps then take adjacent runs of slots, and the warps' ends spread less
 * (the inversion's longest 1.4 ms against 3.5-4.3). G2's kernel (~230
 * registers) runs 128 threads a block. */
template <class F>
constexpr unsigned BA_THREADS = sizeof(F) <= 48 ? 512 : HEAVY_THREADS;
template <class F>
constexpr int BA_MIN_BLOCKS = 1;

/* Claimed runs (cuzk__gpu_msm_ba_runs): at most this many blocks a launch,
 * and levels past the table's last share its row of speeds. */
static constexpr size_t BA_MAX_RUNS = 4096;
static constexpr unsigned BA_SPEED_LEVELS = 16;

/* A level thread's shared-memory slot: its slots' inputs, copied ahead by
 * its warp (ba_fetch_warp) into buffer j % 2 for slot j, each coordinate
 * read where it is used (the forward pass takes the x coordinates, and a
 * lone point's y), and the prefix, copied by the thread itself. */
template <class F>
struct ba_stage {
    aff_pt<F> a[2], b[2];
    F pre;
};

/* A read of a stage where it is used: asm volatile, so that the compiler
 * neither merges two reads of one coordinate (keeping it live across the
 * step's calls) nor hoists them. */
template <class E>
static __device__ __forceinline__ E ba_lds(const E &s) {
    static_assert(sizeof(E) % 16 == 0, "element size");
    E r;
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(&s);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
#pragma unroll
    for (unsigned k = 0; k < sizeof(E) / 16; k++)
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(d[k].x), "=r"(d[k].y), "=r"(d[k].z), "=r"(d[k].w)
                     : "r"(a + 16 * k));
    return r;
}

/* The bin of a level thread's current slot, with its bounds in registers
 * (reloaded only when the slot crosses into another bin). */
struct ba_bin {
    uint32_t g, out_lo, out_hi, in_lo, in_hi;
};
static __device__ __forceinline__ void ba_bin_load(ba_bin &b, const uint32_t *__restrict__ off_in,
                                                   const uint32_t *__restrict__ off_out,
                                                   uint32_t g) {
    b.g = g;
    b.out_lo = off_out[g];
    b.out_hi = off_out[g + 1];
    b.in_lo = off_in[g];
    b.in_hi = off_in[g + 1];
}
/* Slot o's inputs ia and, when has_b, ia + 1; the bin moves forward (FWD)
 * or back to o's. */
template <bool FWD>
static __device__ __forceinline__ void ba_slot(ba_bin &b, const uint32_t *__restrict__ off_in,
                                               const uint32_t *__restrict__ off_out, uint32_t o,
                                               uint32_t &ia, bool &has_b) {
    if (FWD) {
        while (o >= b.out_hi) ba_bin_load(b, off_in, off_out, b.g + 1);
    } else {
        while (o < b.out_lo) ba_bin_load(b, off_in, off_out, b.g - 1);
    }
    ia = b.in_lo + 2 * (o - b.out_lo);
    has_b = ia + 1 < b.in_hi;
}

/* Input i's index in its source (the bases at level 0, else the previous
 * level's points); *neg: its y is to be negated (a negative digit). */
template <bool ENTRIES>
static __device__ __forceinline__ uint32_t ba_index(const uint32_t *vals, uint32_t i, bool *neg) {
    if (!ENTRIES) {
        *neg = false;
        return i;
    }
    const uint32_t v = vals[i];
    *neg = (v & SIGN_BIT) != 0;
    return v & ~SIGN_BIT;
}

/* Input i of a level: entry i's base at level 0, else point i of the
 * previous level; *neg as ba_index's. */
template <class F, bool ENTRIES>
static __device__ __forceinline__ const aff_pt<F> *ba_src(const aff_pt<F> *bases,
                                                          const uint32_t *vals,
                                                          const aff_pt<F> *in, uint32_t i,
                                                          bool *neg) {
    return (ENTRIES ? bases : in) + ba_index<ENTRIES>(vals, i, neg);
}

/* A point as loaded or copied, with its digit's sign applied ((0, 0) stays). */
template <class F>
static __device__ __forceinline__ aff_pt<F> ba_arrived(const aff_pt<F> &s, bool neg) {
    aff_pt<F> p = s;
    if (neg) cuzk_gpu::neg(p.y, p.y);
    return p;
}
/* Input i, loaded now (the forward pass's rare cases). */
template <class F, bool ENTRIES>
static __device__ __forceinline__ aff_pt<F> ba_load(const aff_pt<F> *bases, const uint32_t *vals,
                                                    const aff_pt<F> *in, uint32_t i) {
    bool neg;
    const aff_pt<F> *src = ba_src<F, ENTRIES>(bases, vals, in, i, &neg);
    return ba_arrived(ld16(src), neg);
}
/*
 * A forward-pass prefix into its slot's x. A G1 x (48 bytes at the start of
 * a 96-byte point, 32-byte aligned) ends mid-sector; a sector written in
 * part must, as we read the measurement below, be completed from DRAM
 * before L2 writes it back (the level's outputs are many times L2, so every
 * prefix's second sector went that way: a random read a slot). So the
 * sector is filled: zeros in the first 16 bytes of y, which the slot's
 * result (the backward pass, 96 bytes) overwrites. With the 48-byte store,
 * level 0's forward pass took 25.9 ms (2^26 x6), 13.2 with no store at all,
 * and 17.5 with the filled one: the MSM 292.2 -> 263.7 ms, 2^27 x4 576.0 ->
 * 519.4 (H200, doc/perf.md session 28).
 */
template <class F>
static __device__ __forceinline__ void ba_st_prefix(aff_pt<F> *p, const F &acc) {
    st16(&p->x, acc);
    if constexpr (sizeof(F) % 32 != 0) {
        static_assert(sizeof(F) % 32 == 16, "a prefix's last sector is half-filled");
        *reinterpret_cast<uint4 *>(&p->y) = make_uint4(0, 0, 0, 0);
    }
}
/* No input: an index no source reaches (inputs and bases < 2^32 - 1). */
static constexpr uint32_t BA_NONE = 0xffffffffu;

/*
 * The warp's copies of its 32 lanes' inputs into their stages: lane q's a
 * (index ia in src, or BA_NONE: none) into ws[q].a, its b (ib) into ws[q].b,
 * X_ONLY their x coordinates. The lanes copy together, 16 bytes each per
 * access, a point's pieces in adjacent lanes (a point may straddle two
 * accesses). Each lane copying its own
 * points (16 bytes at a time, 32 scattered points per access) reached 7.3 G
 * points of 96 bytes per second from random bases on the H200, together 21.2
 * (test_gpu_msm --gather, session 12): the memory system is bound by the
 * requests it tracks, not by the bytes. Every lane of the warp must call this.
 */
template <class F, bool X_ONLY>
static __device__ __forceinline__ void ba_fetch_warp(ba_stage<F> *ws, unsigned buf,
                                                     const aff_pt<F> *src, uint32_t ia,
                                                     uint32_t ib) {
    constexpr unsigned W = (X_ONLY ? sizeof(F) : sizeof(aff_pt<F>)) / 16; /* pieces per point */
    /* read here, not hoisted: the (q, piece) pairs of every access kept live
     * across the slot loop would cost ~2 W registers (spills in G1's level) */
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
#pragma unroll
    for (unsigned h = 0; h < 2; h++) {
#pragma unroll
        for (unsigned k = 0; k < W; k++) {
            const unsigned w = 32 * k + lane, q = w / W, piece = w % W; /* q: the lane served */
            const uint32_t idx = __shfl_sync(0xffffffffu, h ? ib : ia, q);
            /* X_ONLY: a lane with a lone point (no b) gets that point's y in
             * b's turn, so that its forward pass passes the point on without
             * a load of its own (one lane's load held its warp in ~40% of
             * the steps: doc/perf.md, session 19) */
            const uint32_t lone = X_ONLY && h ? __shfl_sync(0xffffffffu, ia, q) : BA_NONE;
            if (idx != BA_NONE)
                cp_async16(reinterpret_cast<uint4 *>(h ? &ws[q].b[buf] : &ws[q].a[buf]) + piece,
                           reinterpret_cast<const uint4 *>(src + idx) + piece);
            else if (lone != BA_NONE)
                cp_async16(reinterpret_cast<uint4 *>(&ws[q].a[buf]) + W + piece,
                           reinterpret_cast<const uint4 *>(src + lone) + W + piece);
        }
    }
}

/* Slot o's inputs queued into the warp's stages (its bin walked to, FWD or
 * back), for the lanes that are active; returns its first input's index,
 * has_b whether the second is in the bin. Every lane of the warp calls it. */
template <class F, bool ENTRIES, bool FWD, bool X_ONLY>
static __device__ __forceinline__ uint32_t
ba_queue_warp(ba_stage<F> *ws, unsigned buf, ba_bin &bin, const uint32_t *__restrict__ off_in,
              const uint32_t *__restrict__ off_out, uint32_t o, bool active,
              const aff_pt<F> *bases, const uint32_t *vals, const aff_pt<F> *in, bool &has_b,
              bool &a_neg, bool &b_neg) {
    uint32_t ia = 0, sa = BA_NONE, sb = BA_NONE;
    has_b = false;
    if (active) {
        ba_slot<FWD>(bin, off_in, off_out, o, ia, has_b);
        /* a lone point was passed on by the forward pass: nothing to copy back */
        if (FWD || has_b) sa = ba_index<ENTRIES>(vals, ia, &a_neg);
        if (has_b) sb = ba_index<ENTRIES>(vals, ia + 1, &b_neg);
    }
    ba_fetch_warp<F, X_ONLY>(ws, buf, ENTRIES ? bases : in, sa, sb);
    return ia;
}

/*
 * The level's field operations. G1's are lazy (ff.cuh's lazy forms: values
 * in [0, 2p), no product pays a final subtraction; the chain's running
 * product, the prefixes and the inverses stay lazy, and a stored
 * coordinate is made canonical once), G2's canonical (its Fp2 products are
 * Karatsuba over canonical calls, and the lazy form made no difference to
 * its XYZZ path: ec.cuh for_field). The doubling's 3x^2 stays canonical in
 * both (add's bound).
 */
template <class F>
constexpr bool BA_LAZY = sizeof(F) == sizeof(fp_t);
template <class F>
static __device__ __forceinline__ void ba_mul(F &r, const F &a, const F &b) {
    if constexpr (BA_LAZY<F>)
        r = fp_mul_call<true>(a, b);
    else
        fmul(r, a, b);
}
/* Two independent products; G1's in one call with their rows alternating
 * (ff.cuh mul_pair_cios), which the level's few warps per scheduler leave
 * room for: G1 MSM 2^27 684.5 -> 681.8 ms against two calls (doc/perf.md,
 * session 18). */
template <class F>
static __device__ __forceinline__ void ba_mul2(F &r0, const F &a0, const F &b0, F &r1,
                                               const F &a1, const F &b1) {
    if constexpr (BA_LAZY<F>) {
        const fp_pair q = fp_mul2_lazy_call(a0, b0, a1, b1);
        r0 = q.r0;
        r1 = q.r1;
    } else {
        ba_mul(r0, a0, b0);
        ba_mul(r1, a1, b1);
    }
}
template <class F>
static __device__ __forceinline__ void ba_sqr(F &r, const F &a) {
    if constexpr (BA_LAZY<F>)
        r = fp_sqr_call<true>(a);
    else
        fsqr(r, a);
}
/* r = a + b for canonical a, b: for G1 unreduced (< 2p, a product's operand) */
template <class F>
static __device__ __forceinline__ void ba_add_xs(F &r, const F &a, const F &b) {
    if constexpr (BA_LAZY<F>)
        add_noreduce(r, a, b);
    else
        add(r, a, b);
}
/* r = a - b for canonical a, b as a product's operand: for G1 a + p - b in
 * (0, 2p), with no conditional step */
template <class F>
static __device__ __forceinline__ void ba_diff(F &r, const F &a, const F &b) {
    if constexpr (BA_LAZY<F>)
        sub_plus_m(r, a, b);
    else
        sub(r, a, b);
}
/* d = bx - ax (ba_diff) for a pair's staged x coordinates; true where x
 * alone does not make it a plain addition (either point at infinity, whose
 * x is 0, or equal x) and the points must decide (ba_kind). */
template <class F>
static __device__ __forceinline__ bool ba_x_undecided(F &d, const F &ax, const F &bx) {
    ba_diff(d, bx, ax);
    return is_zero(ax) || is_zero(bx) || fe_equal(ax, bx);
}
/* A staged point's y with its digit's sign applied: for G1 p - y when
 * negated (in [0, p], no zero test), canonical for G2. */
template <class F>
static __device__ __forceinline__ F ba_y(const aff_pt<F> &s, bool neg) {
    F y = ba_lds(s.y);
    if (neg) {
        if constexpr (BA_LAZY<F>)
            neg_lazy(y, y);
        else
            cuzk_gpu::neg(y, y);
    }
    return y;
}
/* r = a - b, both lazy for G1 */
template <class F>
static __device__ __forceinline__ void ba_sub(F &r, const F &a, const F &b) {
    if constexpr (BA_LAZY<F>)
        sub_lazy(r, a, b);
    else
        sub(r, a, b);
}
template <class F>
static __device__ __forceinline__ void ba_canon(F &r) {
    if constexpr (BA_LAZY<F>) reduce_lazy(r, r);
}

/* The pass clock of a level warp (the profile only; clk null otherwise):
 * lane 0 writes the global timer at mark k of BA_CLOCK_MARKS (start,
 * forward pass done, inversion done, backward pass done). */
static constexpr unsigned BA_CLOCK_MARKS = 5; /* the fifth: the warp's SM */
static __device__ __forceinline__ unsigned long long ba_now() {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
}
static __device__ __forceinline__ uint32_t ba_smid() {
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    return sm;
}
static __device__ __forceinline__ void ba_clock(unsigned long long *clk, uint32_t t, unsigned k) {
    if (clk && t % 32 == 0) {
        clk[(size_t)(t / 32) * BA_CLOCK_MARKS + k] = ba_now();
        if (k == 0) clk[(size_t)(t / 32) * BA_CLOCK_MARKS + 4] = ba_smid();
    }
}

/*
 * The run a level block takes when the runs are claimed (ba_level_kernel:
 * runs non-null): the first free one of nruns from its SM's first,
 * sm x per_sm (per_sm: blocks an SM holds), so that a run's key names the
 * same SM from launch to launch and the host can size it by that SM's
 * speed. claim: nruns words, zero before the launch. The grid is nruns
 * blocks and each takes one run, so a block always finds one within nruns
 * tries and every run is taken once, wherever the blocks land.
 */
static __device__ uint32_t ba_claim_run(unsigned long long *claim, uint32_t nruns,
                                        uint32_t per_sm) {
    const uint32_t k0 = (uint32_t)((uint64_t)ba_smid() * per_sm % nruns);
    for (uint32_t i = 0; i < nruns; i++) {
        const uint32_t k = k0 + i < nruns ? k0 + i : k0 + i - nruns;
        if (atomicExch(&claim[k], 1ull) == 0) return k;
    }
    __trap(); /* unreachable: more blocks than runs */
    return 0;
}
/*
 * One level: out[o] for o in [0, total_out). Bins [0, nbins) with offsets
 * off_in (inputs) and off_out (outputs), off_*[nbins] = the totals. Each
 * thread runs one Montgomery chain over up to `slice` slots: warp w takes
 * the run [w 32 slice, (w+1) 32 slice), its lane l the slots l, l + 32, ...
 * of it, so that a warp-wide access to the entries, the offsets, the
 * results (and the inputs of later levels) covers adjacent slots, a few
 * sectors. A contiguous run per thread touched 32 sectors per access
 * (Nsight, session 10) and was slower: G1 2^27 872 against 760 ms, G2 2^24
 * 328 against 323 (H200, session 11).
 *
 * With runs (non-null: nruns + 1 bounds, runs[nruns] = total_out, nruns
 * the grid's blocks), the runs are a block's, not a warp's: the block
 * claims run k (ba_claim_run on rclk[0, nruns)), and its warps split
 * [runs[k], runs[k + 1]) as above; it records its start and its last
 * warp's end at rclk[nruns + 2k] and [nruns + 2k + 1], from which the host
 * measures the SMs' speeds and sizes the runs of later launches.
 *
 * Both passes queue the next slot's loads (cp.async into the lanes' stages
 * in shared memory) before working on the current one. The first version
 * waited on its loads (the chain offsets -> entry -> base) for half of its
 * stall cycles and issued on 30% of the cycles (Nsight, 2026-11-30);
 * loading ahead into registers cost a third of the warps (168 -> 232
 * registers) and lost 5%. The warp copies its lanes' points together
 * (ba_fetch_warp), so the lanes step through their slots in lockstep: a lane
 * with one slot fewer idles through the last step, and in a last run
 * shorter than 32 slots the lanes without one idle through every step. The bin
 * bounds stay in registers. Each pass's stages are double-buffered: slot j's
 * inputs in buffer j % 2 while slot j + 1's (j - 1's going back) are copied
 * into the other, each coordinate read where it is used, so that no point
 * is held in registers across the step's calls: G1's kernel fits 128
 * registers and 16 warps an SM (it needed ~164 for 12). The forward pass
 * needs only the x coordinates: both nonzero and different is an addition
 * (what ba_kind decides for them); a lone last point of its bin (copied
 * whole) is passed on; anything else (x = 0, equal x) loads the points and
 * asks ba_kind, as the backward pass does.
 */
template <class F, bool ENTRIES>
static __global__ void __launch_bounds__(BA_THREADS<F>, BA_MIN_BLOCKS<F>)
    ba_level_kernel(const aff_pt<F> *__restrict__ bases, const uint32_t *__restrict__ vals,
                    const aff_pt<F> *__restrict__ in, const uint32_t *__restrict__ off_in,
                    const uint32_t *__restrict__ off_out, uint32_t nbins, uint32_t total_out,
                    uint32_t slice, uint32_t nthreads, const uint32_t *__restrict__ runs,
                    uint32_t per_sm, unsigned long long *__restrict__ rclk,
                    aff_pt<F> *__restrict__ out, unsigned long long *__restrict__ clk) {
    extern __shared__ uint4 ba_smem[];
    __shared__ uint32_t run_key; /* with runs: the block's */
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % 32;
    /* this warp's slots [wb, we); total_out <= (entries + bins) / 2 with
     * entries < 2^32 (msm_dev_body), so no slot index wraps */
    uint64_t wb, we;
    if (runs) {
        if (threadIdx.x == 0) {
            run_key = ba_claim_run(rclk, gridDim.x, per_sm);
            rclk[gridDim.x + 2 * run_key] = ba_now();
        }
        __syncthreads();
        const uint32_t rb = runs[run_key], re = runs[run_key + 1];
        const uint64_t per = ((uint64_t)(re - rb) + blockDim.x - 1) / blockDim.x; /* a lane's */
        wb = rb + (uint64_t)(threadIdx.x / 32) * 32 * per;
        we = wb + 32 * per < re ? wb + 32 * per : re;
    } else {
        if (t >= nthreads) return; /* whole warps: nthreads is a multiple of 32 */
        wb = (uint64_t)(t / 32) * 32 * slice;
        we = wb + 32ull * slice < total_out ? wb + 32ull * slice : total_out;
    }
    if (wb >= we) return; /* the whole warp: no slot (defensive: the launch sizes nthreads) */
    ba_stage<F> *ws = reinterpret_cast<ba_stage<F> *>(ba_smem) + (threadIdx.x - lane);
    ba_stage<F> &sl = ws[lane];
    /* this lane's slots: o0 + 32 j for j < cnt */
    const uint64_t first = wb + lane;
    const uint32_t o0 = (uint32_t)first;
    const uint32_t cnt = first < we ? (uint32_t)((we - 1 - first) / 32 + 1) : 0;
    const uint32_t steps = __shfl_sync(0xffffffffu, cnt, 0); /* lane 0's: the most */
    ba_clock(clk, t, 0);
    /* the bin of o0: the last g with off_out[g] <= o0 (off_out[nbins] > o0) */
    ba_bin bin = {0, 0, 0, 0, 0};
    if (cnt) ba_bin_load(bin, off_in, off_out, bin_of(off_out, 0, nbins, o0));
    F acc;
    set_one(acc);
    bool nhb, na_neg = false, nb_neg = false;
    uint32_t nia = ba_queue_warp<F, ENTRIES, true, true>(ws, 0, bin, off_in, off_out, o0, cnt > 0,
                                                         bases, vals, in, nhb, na_neg, nb_neg);
    cp_async_commit();
    for (uint32_t j = 0; j < steps; j++) {
        const uint32_t o = o0 + 32 * j, ia = nia;
        const bool has_b = nhb, a_neg = na_neg;
        cp_async_wait_all();
        /* every lane's copies into buffer j % 2 have landed, and every lane
         * has finished with the other buffer (the step before) */
        __syncwarp();
        if (j + 1 < steps) { /* the next slot's loads, in flight during this slot's work */
            nia = ba_queue_warp<F, ENTRIES, true, true>(ws, (j + 1) & 1, bin, off_in, off_out,
                                                        o + 32, j + 1 < cnt, bases, vals, in, nhb,
                                                        na_neg, nb_neg);
            cp_async_commit();
        }
        if (j >= cnt) continue;
        const aff_pt<F> &sa = sl.a[j & 1];
        if (!has_b) { /* a lone point, copied whole: passed on (infinity too) */
            st16(out + o, ba_arrived(ba_lds(sa), a_neg));
            continue;
        }
        F d;
        int kind = BA_ADD;
        aff_pt<F> a, b;
        if (ba_x_undecided(d, ba_lds(sa.x), ba_lds(sl.b[j & 1].x))) { /* rare */
            a = ba_load<F, ENTRIES>(bases, vals, in, ia);
            b = ba_load<F, ENTRIES>(bases, vals, in, ia + 1);
            kind = ba_kind(a, b, true, d);
        }
        if (kind >= BA_ADD) {
            ba_st_prefix(out + o, acc); /* the product of the denominators before this one */
            ba_mul(acc, acc, d);
        } else {
            aff_pt<F> r = kind == BA_A ? a : b;
            if (kind == BA_INF) {
                set_zero(r.x);
                set_zero(r.y);
            }
            st16(out + o, r);
        }
    }
    ba_clock(clk, t, 1);
    ba_canon(acc); /* inv's products are canonical */
    finv(acc, acc); /* 1 / (product of all denominators); nonzero: no factor is 0 */
    ba_clock(clk, t, 2);
    /* backward from the last step; the bin is the lane's last slot's, and the
     * prefixes were written by this lane (above) */
    uint32_t j = steps - 1;
    ba_queue_warp<F, ENTRIES, false, false>(ws, j & 1, bin, off_in, off_out, o0 + 32 * j, j < cnt,
                                            bases, vals, in, nhb, na_neg, nb_neg);
    if (j < cnt) cp_async(&sl.pre, &out[o0 + 32 * j].x);
    cp_async_commit();
    for (;; j--) {
        const uint32_t o = o0 + 32 * j;
        const bool has_b = nhb, a_neg = na_neg, b_neg = nb_neg;
        cp_async_wait_all();
        __syncwarp(); /* as in the forward pass */
        const F pre = sl.pre;
        if (j > 0) { /* the previous slot's loads, into the other buffer */
            ba_queue_warp<F, ENTRIES, false, false>(ws, (j - 1) & 1, bin, off_in, off_out, o - 32,
                                                    j - 1 < cnt, bases, vals, in, nhb, na_neg,
                                                    nb_neg);
            /* per lane: copying the prefixes together (adjacent slots, not scattered)
             * was 1% slower (session 12) */
            if (j - 1 < cnt) cp_async(&sl.pre, &out[o - 32].x);
            cp_async_commit();
        }
        if (j < cnt && has_b) { /* a lone point was written in the forward pass */
            const aff_pt<F> &sa = sl.a[j & 1], &sb = sl.b[j & 1];
            F d;
            int kind = BA_ADD;
            if (ba_x_undecided(d, ba_lds(sa.x), ba_lds(sb.x))) /* as forward */
                kind = ba_kind(ba_arrived(ba_lds(sa), a_neg), ba_arrived(ba_lds(sb), b_neg), true,
                               d);
            if (kind >= BA_ADD) { /* the others were written in the forward pass */
                F id, num, l, t2;
                /* 1 / d, and 1 / (the product of the denominators before) */
                ba_mul2(id, acc, pre, acc, acc, d);
                if (kind == BA_ADD) {
                    ba_diff(num, ba_y(sb, b_neg), ba_y(sa, a_neg));
                } else {
                    fsqr(t2, ba_lds(sa.x));
                    add(num, t2, t2);
                    add(num, num, t2);
                }
                ba_mul(l, num, id);
                aff_pt<F> r;
                ba_add_xs(t2, ba_lds(sa.x), ba_lds(sb.x)); /* beside the squaring */
                ba_sqr(r.x, l);
                ba_sub(r.x, r.x, t2);
                ba_canon(r.x);
                ba_diff(t2, ba_lds(sa.x), r.x);
                ba_mul(r.y, l, t2);
                ba_sub(r.y, r.y, ba_y(sa, a_neg));
                ba_canon(r.y);
                st16(out + o, r);
            }
        }
        if (j == 0) break;
    }
    ba_clock(clk, t, 3);
    if (runs && lane == 0) atomicMax(&rclk[gridDim.x + 2 * run_key + 1], ba_now());
}

/* Dynamic shared memory of a level block: one ba_stage per thread. */
template <class F>
static constexpr size_t ba_smem_bytes() {
    return (size_t)BA_THREADS<F> * sizeof(ba_stage<F>);
}

/* cnt[g] = ceil(k/2) for the k = off_in[g+1] - off_in[g] points of bin g. */
static __global__ void ba_count_kernel(const uint32_t *off_in, uint32_t nbins, uint32_t *cnt) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nbins) cnt[i] = (off_in[i + 1] - off_in[i] + 1) / 2;
}

/* off[i] = start[i] - e0 for i < m: a group's bin starts relative to its first entry. */
static __global__ void ba_rel_kernel(const uint32_t *start, uint32_t m, uint32_t e0, uint32_t *off) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) off[i] = start[i] - e0;
}

/* v[i] = i: the points of the last level read by the XYZZ accumulation. */
static __global__ void ba_iota_kernel(uint32_t *v, uint32_t m) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) v[i] = i;
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
    unsigned copies;    /* 1: the bases alone */
    unsigned copies_c;  /* the window the copies serve */
    msm_work *work;
    int sms;
    int heavy_blocks; /* resident blocks per SM of accumulate_kernel (every variant) */
    int ba_blocks;    /* resident blocks per SM of the batch-affine level kernels */
    size_t ba_budget; /* default byte budget of the level buffers (variant 4) */
    cuzk__gpu_msm_config cfg; /* cuzk__gpu_msm_bases_configure; zero: the defaults */
    /* claimed level runs (cuzk__gpu_msm_ba_runs): a launch's blocks (its SMs x
     * ba_blocks; 0: no table, even runs), and in host memory the speed of
     * each run's SM at each level (level_runs.h), the last launch's runs
     * and its blocks' clocks */
    uint32_t ba_nruns;
    float *ba_speed; /* BA_SPEED_LEVELS x ba_nruns */
    uint32_t *ba_hruns;
    unsigned long long *ba_hclk;
    size_t masked_npts; /* the most points a masked MSM on the handle had (fit_work's estimate) */
};

/* Does the handle's configuration fix the window? */
static bool forced_window(const cuzk__gpu_msm_bases *b) {
    return b->cfg.window >= 1 && b->cfg.window <= CUZK__GPU_MSM_MAX_C;
}

/* A synchronous read of device results (check.cuh's cuzk__sync_copy). */
static cudaError_t d2h(void *dst, const void *src, size_t bytes) {
    return cuzk__sync_copy(dst, src, bytes, cudaMemcpyDeviceToHost);
}

static size_t align_up(size_t x) { return (x + 255) & ~(size_t)255; }

/* Grows the work area to at least bytes (contents are not kept). */
static cuzk_status ws_reserve(cuzk__gpu_msm_bases *b, size_t bytes) {
    msm_work *w = b->work;
    if (w->bytes >= bytes) return CUZK_OK;
    if (w->p) (void)cudaFree(w->p);
    w->p = nullptr;
    w->bytes = 0;
    CUZK__CUDA_TRY(cudaMalloc(&w->p, bytes));
    w->bytes = bytes;
    return CUZK_OK;
}

static void work_release(msm_work *w) {
    if (w && --w->refs == 0) {
        if (w->p) (void)cudaFree(w->p);
        free(w);
    }
}

/* Carves aligned pieces off the work area. */
struct carver {
    char *base;
    size_t off;
    template <class T>
    T *take(size_t count) {
        T *p = reinterpret_cast<T *>(base + off);
        off += align_up(count * sizeof(T));
        return p;
    }
};

/* A caller reserved less than a step carves: a bug here, reported as a GPU error. */
static cuzk_status area_too_small(void) {
    cuzk__gpu_record_error(cudaErrorMemoryAllocation, "work area smaller than planned",
                           __FILE__, __LINE__);
    return CUZK_ERR_GPU;
}

static bool is_device_ptr(const void *p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

static unsigned grid(size_t threads, unsigned block) {
    return (unsigned)((threads + block - 1) / block);
}

/* ---- window choice --------------------------------------------------------------- */

/*
 * Cost in mixed additions: every point once per window (n nwin), every
 * bucket K times (sets 2^(c-1) K). The CPU's model (msm.c) takes K = 2.8
 * for the two full XYZZ additions of the running sums; on the device a
 * bucket also costs a clear, a 192-byte store and load and its share of
 * the count/scan, so K = 4 for the window without copies (an A/B of c at
 * 2^24-2^27 agrees, doc/perf.md session 20). Without copies of the bases
 * every window has its own set of buckets; with k shifted copies
 * (cuzk__gpu_msm_bases_precompute) window j's digits index copy j % k and
 * bucket set j / k, so ceil(nwin / k) sets serve all windows. The copies'
 * window, and whether an MSM reads them, use K = 8, fitted to four runs:
 * at their larger windows a bin holds fewer entries (16-48 against 64-128),
 * and the levels' cost per entry rises as it falls (more odd bins passing a
 * point through, per-bin scans, bounds and clears: 0.386 ns an entry at 48
 * a bin, 0.365 at 192); K = 4 picked c = 24 where c = 22 was faster (2^26,
 * 6 copies: 329 against 321 ms; 2^27, 4 copies: 635 against 629).
 */
static constexpr unsigned BUCKET_COST = 4, BUCKET_COST_COPIES = 8;

/* kb: the model's bucket cost */
static double window_cost(size_t n, unsigned c, unsigned k, unsigned kb) {
    const double nb = (double)((size_t)1 << (c - 1));
    return (double)window_count(c) * (double)n + (double)kb * window_sets(window_count(c), k) * nb;
}

/* The largest argmin of window_cost over c in [1, cmax] for n points and k
 * copies, the buckets limited to n (their memory to twice the bases'). */
static unsigned window_bits_k(size_t n, unsigned k, unsigned cmax, unsigned kb) {
    unsigned best = 1;
    for (unsigned c = 2; c <= cmax; c++) {
        const double nb = (double)((size_t)1 << (c - 1));
        if (window_sets(window_count(c), k) * nb > (double)n) break;
        if (window_cost(n, c, k, kb) <= window_cost(n, best, k, kb)) best = c;
    }
    return best;
}

/* Without copies: at most CUZK__GPU_MSM_MAX_C, or the handle's configured window. */
static unsigned window_bits(const cuzk__gpu_msm_bases *b, size_t n) {
    if (forced_window(b)) return b->cfg.window;
    return window_bits_k(n, 1, CUZK__GPU_MSM_MAX_C, BUCKET_COST);
}

/* ---- the pair-list levels (step 5) ------------------------------------------------ */

/* Reduces m sorted pairs in (ka, pa) into out[key]; (kb, pb) is the other
 * buffer; both hold cap pairs. */
template <class F>
static cuzk_status combine_levels(uint32_t *ka, xyzz_pt<F> *pa, uint32_t *kb, xyzz_pt<F> *pb,
                                  uint32_t m, xyzz_pt<F> *out) {
    while (m > 0) {
        const uint32_t nt = (m + COMBINE_SLICE - 1) / COMBINE_SLICE;
        combine_kernel<F, madd_t<F>><<<grid(nt, HEAVY_THREADS), HEAVY_THREADS>>>(
            ka, pa, m, COMBINE_SLICE, nt, out, kb, pb);
        CUZK__CUDA_TRY(cudaGetLastError());
        if (nt == 1) break;
        uint32_t *kt = ka;
        ka = kb, kb = kt;
        xyzz_pt<F> *pt = pa;
        pa = pb, pb = pt;
        m = 2 * nt;
    }
    return CUZK_OK;
}

/* Host Horner over the sets' sums (XYZZ words): r = sum 2^(j shift) W_j. */
template <class G>
static void host_horner(uint64_t *result, const uint64_t *wsum, unsigned nset, unsigned shift) {
    uint64_t acc[G::JAC_WORDS], w[G::JAC_WORDS];
    G::xyzz_to_jac(acc, wsum + (size_t)(nset - 1) * G::XYZZ_WORDS);
    for (unsigned j = nset - 1; j-- > 0;) {
        for (unsigned k = 0; k < shift; k++) G::jac_dbl(acc, acc);
        G::xyzz_to_jac(w, wsum + (size_t)j * G::XYZZ_WORDS);
        G::jac_add(acc, acc, w);
    }
    memcpy(result, acc, sizeof acc);
}

/* ---- MSM ------------------------------------------------------------------------ */

/* The shape of one MSM: window, bins, reduction segments, pair capacity,
 * the sort (radix: its key bits and temporary storage) and the affine
 * levels' window groups and buffers. */
struct msm_plan {
    unsigned c, nwin;
    unsigned k;      /* windows per bucket set: the copies of the bases used (1: none) */
    unsigned nset;   /* bucket sets, ceil(nwin / k) */
    uint32_t stride; /* points between copies of the bases (the handle's count) */
    uint32_t nb, nbins, seglen, nseg;
    uint64_t resident; /* threads of accumulate_kernel resident at once */
    size_t cap;        /* pairs per list buffer */
    bool sort;         /* by radix (else by atomics) */
    int sort_bits;     /* key bits: those of nbins, the sentinel */
    size_t sort_tmp;   /* bytes of CUB's temporary storage */
    unsigned ba_gw;    /* bucket sets per group */
    uint32_t ba_nbg;   /* bins per group */
    size_t ba_psz;     /* bytes per affine point */
    size_t ba_acap, ba_bcap; /* points in the even / odd level buffers */
    uint64_t ba_resident;    /* threads per level */
    uint32_t ba_nruns;       /* blocks of a level launch when their runs are claimed, else 0 */
    size_t npts;             /* points that take part (the mask's count; n unmasked) */
    size_t set_entries;      /* entries one bucket set can have: npts k */
};

static size_t aff_bytes(cuzk__gpu_msm_group g);

/* Points a level can output from in points over bins bins: sum of ceil(k/2)
 * = (in + #odd bins)/2 <= (in + bins)/2, and never more than in. */
static size_t ba_bound_out(size_t in, size_t bins) {
    const size_t h = (in + bins + 1) / 2;
    return h < in ? h : in;
}

/* Level buffer capacities of a group of gw bucket sets (<= n entries each):
 * level 0 writes the even buffer, level 1 the odd one, and the outputs
 * never grow from a level to the next, so these bound every level. */
static void ba_caps(msm_plan &p, size_t n, unsigned gw) {
    const size_t bins = (size_t)gw * p.nb;
    p.ba_acap = ba_bound_out((size_t)gw * n, bins);
    p.ba_bcap = ba_bound_out(p.ba_acap, bins);
}

/* Bytes of the level buffers (points only) of a group of gw bucket sets. */
static size_t ba_point_bytes(msm_plan &p, size_t n, unsigned gw) {
    ba_caps(p, n, gw);
    return (p.ba_acap + p.ba_bcap) * p.ba_psz;
}

/* Threads of the accumulation kernel resident at once. */
static uint64_t resident_threads(const cuzk__gpu_msm_bases *b) {
    const int hb = b->heavy_blocks;
    return (uint64_t)b->sms * (uint64_t)(hb > 0 ? hb : 1) * HEAVY_THREADS;
}

/* The plan of an MSM of n points; fails only when CUB cannot size its
 * temporary storage. */
/* npts: how many of the n points take part (the mask's count, n when
 * unmasked): the window is sized to them, not to n, so a sparse tail (at
 * 2^27 a few million of the 2^27 points) gets a window of its own size and
 * not 2^21 buckets per window to reduce. */
static cuzk_status plan_make(msm_plan &p, const cuzk__gpu_msm_bases *b, size_t n, bool masked,
                             size_t npts) {
    /* The radix sort sorts every (window, point) pair, masked-out points
     * too (under the sentinel key); the atomic sort's work is the points
     * that take part. The masked MSMs (a proof's tails) are mostly sparse:
     * they keep the atomic sort (2^24 porep partition: tails 53 ms against
     * 62 ms sorted by radix, doc/gpu-notes.md). */
    p.sort = !masked;
    p.npts = masked ? npts : n;
    const size_t pts = p.npts ? p.npts : 1;
    p.c = window_bits(b, pts);
    p.k = 1;
    /* the copies serve their own window, when it costs less than the best without them */
    if (b->copies > 1 && !forced_window(b) &&
        window_cost(pts, b->copies_c, b->copies, BUCKET_COST_COPIES) <
            window_cost(pts, p.c, 1, BUCKET_COST_COPIES)) {
        p.c = b->copies_c;
        p.k = b->copies;
    }
    p.nwin = window_count(p.c);
    p.nset = window_sets(p.nwin, p.k);
    p.stride = (uint32_t)b->n; /* < 2^31 (handle_new), k n < 2^31 (precompute) */
    p.set_entries = p.npts * p.k;
    /* CUB's sort takes a 32-bit count (and has hung near 2^32: NVIDIA/cub
     * #459): 2^31 pairs and more go to the atomic sort */
    if ((uint64_t)n * p.nwin >= ((uint64_t)1 << 31)) p.sort = false;
    /* entry positions are 32-bit: at most npts * nwin entries (atomic sort) */
    if ((uint64_t)p.npts * p.nwin >= ((uint64_t)1 << 32)) {
        char what[96];
        snprintf(what, sizeof what, "MSM of %zu points: %zu x %u windows >= 2^32 entries", n,
                 p.npts, p.nwin);
        cuzk__gpu_record_error(cudaErrorInvalidValue, what, __FILE__, __LINE__);
        return CUZK_ERR_INVALID_ARG;
    }
    p.nb = 1u << (p.c - 1);
    p.nbins = p.nset * p.nb;
    p.resident = resident_threads(b);
    p.seglen = p.nb < REDUCE_SEGMENT ? p.nb : REDUCE_SEGMENT;
    p.nseg = p.nb / p.seglen;
    /* large windows: longer segments, as many as make two full waves of
     * resident threads (the double-and-add of lo costs ~1.5c additions per
     * segment, the running sums 2 per bucket). Powers of two here left the
     * last wave part empty: 1.45 waves at c = 22 (doc/gpu-notes.md). The
     * last segment of a window may be shorter. */
    if ((uint64_t)p.nset * p.nseg > 2 * p.resident) {
        uint64_t nseg = 2 * p.resident / p.nset;
        if (nseg == 0) nseg = 1;
        p.seglen = (uint32_t)((p.nb + nseg - 1) / nseg);
        p.nseg = (p.nb + p.seglen - 1) / p.seglen;
    }
    p.sort_bits = 32 - __builtin_clz(p.nbins); /* nbins >= 256 */
    p.sort_tmp = 0;
    const uint64_t pairs = (uint64_t)n * p.nwin;
    if (p.sort && pairs < ((uint64_t)1 << 32)) { /* more is refused by msm_dev_body */
        cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr), vals(nullptr, nullptr);
        CUZK__CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, p.sort_tmp, keys, vals,
                                                       (uint32_t)pairs, 0, p.sort_bits));
    }
    p.cap = 2 * p.resident + 2; /* 2 pairs per accumulate thread, 1 per reduce thread */
    if (p.cap < (size_t)p.nset * p.nseg + 2) p.cap = (size_t)p.nset * p.nseg + 2;
    p.ba_psz = aff_bytes(b->group);
    p.ba_nruns = 0;
    const size_t budget = b->cfg.ba_budget ? b->cfg.ba_budget : b->ba_budget;
    unsigned gw = p.nset;
    while (gw > 1 && ba_point_bytes(p, p.set_entries, gw) > budget) gw--;
    ba_caps(p, p.set_entries, gw);
    p.ba_gw = gw;
    p.ba_nbg = gw * p.nb;
    p.ba_resident = (uint64_t)b->sms * (uint64_t)(b->ba_blocks > 0 ? b->ba_blocks : 1) *
                    (b->group == CUZK__GPU_MSM_G1 ? BA_THREADS<fp_t> : BA_THREADS<fp2_t>);
    if (b->cfg.ba_max_threads && p.ba_resident > b->cfg.ba_max_threads)
        p.ba_resident = b->cfg.ba_max_threads;
    else
        p.ba_nruns = b->ba_nruns; /* 0 where the handle has no speed table */
    return CUZK_OK;
}

/* The MSM's pieces of the work area from byte offset off (base NULL: sizes only). */
template <class X>
struct msm_area {
    uint32_t *start; /* nbins + 1 starts (the last is the total), then the range flag */
    uint32_t *cursor; /* atomic sort: counts, then the scatter's cursors */
    uint32_t *vals;   /* atomic sort: npts * nwin entries at most */
    X *buckets;
    uint32_t *ka, *kb;
    X *pa, *pb;
    X *wsum;
    uint32_t *tsum; /* tile sums of the multi-block scans */
    /* radix sort: keys and values of the n * nwin pairs (two buffers each), CUB's storage */
    uint32_t *sk[2], *sv[2];
    void *sort_tmp;
    /* the affine levels: a group's offsets (two levels), counts, level points, identity indices */
    uint32_t *ba_offa, *ba_offb, *ba_cnt, *ba_idv;
    char *ba_pta, *ba_ptb;
    /* claimed runs (p.ba_nruns): their bounds, then the claims and the blocks' clocks */
    uint32_t *ba_runs;
    unsigned long long *ba_rclk;
};

template <class X>
static size_t msm_carve(msm_area<X> &a, char *base, size_t off, const msm_plan &p, size_t n) {
    carver cv{base, off};
    a.start = cv.take<uint32_t>(p.nbins + 1 + 16);
    a.cursor = a.vals = a.tsum = nullptr;
    a.sk[0] = a.sk[1] = a.sv[0] = a.sv[1] = nullptr;
    a.sort_tmp = nullptr;
    if (p.sort) {
        for (int h = 0; h < 2; h++) {
            a.sk[h] = cv.take<uint32_t>(n * p.nwin);
            a.sv[h] = cv.take<uint32_t>(n * p.nwin);
        }
        a.sort_tmp = cv.take<char>(p.sort_tmp);
    } else {
        a.cursor = cv.take<uint32_t>(p.nbins + 1);
        a.vals = cv.take<uint32_t>(p.npts * p.nwin); /* the entries of the points taking part */
    }
    /* tile sums of the scans: the atomic sort's, and the batch-affine levels'
     * offsets (which run after either sort) */
    a.tsum = cv.take<uint32_t>(scan_tsum_words(p.nbins));
    a.buckets = cv.take<X>(p.nbins);
    a.ka = cv.take<uint32_t>(p.cap);
    a.kb = cv.take<uint32_t>(p.cap);
    a.pa = cv.take<X>(p.cap);
    a.pb = cv.take<X>(p.cap);
    a.wsum = cv.take<X>(p.nset);
    a.ba_runs = nullptr;
    a.ba_rclk = nullptr;
    if (p.ba_nruns) {
        a.ba_runs = cv.take<uint32_t>((size_t)p.ba_nruns + 1);
        a.ba_rclk = cv.take<unsigned long long>(3 * (size_t)p.ba_nruns);
    }
    a.ba_offa = cv.take<uint32_t>((size_t)p.ba_nbg + 1);
    a.ba_offb = cv.take<uint32_t>((size_t)p.ba_nbg + 1);
    a.ba_cnt = cv.take<uint32_t>(p.ba_nbg);
    a.ba_idv = cv.take<uint32_t>(p.ba_acap);
    a.ba_pta = cv.take<char>(p.ba_acap * p.ba_psz);
    a.ba_ptb = cv.take<char>(p.ba_bcap * p.ba_psz);
    return cv.off;
}

/* Work-area bytes an MSM of n points needs past its staged inputs. */
template <class G>
static cuzk_status msm_rest_bytes_g(const cuzk__gpu_msm_bases *b, size_t n, bool masked,
                                    size_t npts, size_t *bytes) {
    msm_plan p;
    cuzk_status st = plan_make(p, b, n, masked, npts);
    if (st != CUZK_OK) return st;
    msm_area<xyzz_pt<typename G::F>> a;
    *bytes = msm_carve(a, nullptr, 0, p, n);
    return CUZK_OK;
}
static cuzk_status msm_rest_bytes(const cuzk__gpu_msm_bases *b, size_t n, bool masked,
                                  size_t npts, size_t *bytes) {
    return b->group == CUZK__GPU_MSM_G1 ? msm_rest_bytes_g<grp_g1>(b, n, masked, npts, bytes)
                                        : msm_rest_bytes_g<grp_g2>(b, n, masked, npts, bytes);
}

static int u64_asc(const void *x, const void *y) {
    const uint64_t a = *static_cast<const uint64_t *>(x), b = *static_cast<const uint64_t *>(y);
    return a < b ? -1 : a > b;
}
/* The q-th percentile in ms of v[0, n) (n > 0), sorted, in ns. */
static double pct_ms(const uint64_t *v, uint32_t n, unsigned q) {
    return v[(size_t)(n - 1) * q / 100] / 1e6;
}
/* Two lines on stderr for a level launch timed by its warps' pass clocks
 * (ba_clock; a warp with no slot left its marks 0): the launch's span, the
 * median and the longest forward pass, inversion and backward pass of a
 * warp; then the warps' ends and each SM's last end, from the launch's
 * first start, at percentiles 0, 10, 50, 90 and 100 (where the span goes:
 * the warps of a slow SM or the last warps of each). Waits for the launch. */
static cuzk_status ba_clock_report(const unsigned long long *clk, uint32_t nwarps, unsigned lev,
                                   uint32_t slots) {
    const unsigned sms = 1024; /* above any GPU's %nsmid (SM ids may have gaps) */
    const size_t marks = (size_t)nwarps * BA_CLOCK_MARKS;
    /* the marks, then the three passes' times, the ends, and the SMs' ends */
    uint64_t *h = static_cast<uint64_t *>(malloc((marks + 4 * (size_t)nwarps + sms) * sizeof *h));
    if (!h) return CUZK_ERR_NOMEM;
    uint64_t *pass = h + marks, *end = pass + 3 * (size_t)nwarps, *sm_end = end + nwarps;
    const cudaError_t e = d2h(h, clk, marks * sizeof *h);
    if (e != cudaSuccess) {
        free(h);
        cuzk__gpu_record_error(e, "level pass clocks", __FILE__, __LINE__);
        return CUZK_ERR_GPU;
    }
    uint32_t m = 0;
    uint64_t first = UINT64_MAX;
    for (uint32_t w = 0; w < nwarps; w++)
        if (h[(size_t)w * BA_CLOCK_MARKS] != 0 && h[(size_t)w * BA_CLOCK_MARKS] < first)
            first = h[(size_t)w * BA_CLOCK_MARKS];
    memset(sm_end, 0, sms * sizeof *sm_end);
    for (uint32_t w = 0; w < nwarps; w++) {
        const uint64_t *k = h + (size_t)w * BA_CLOCK_MARKS;
        if (k[0] == 0) continue;
        for (unsigned q = 0; q < 3; q++) pass[(size_t)q * nwarps + m] = k[q + 1] - k[q];
        end[m] = k[3] - first;
        if (k[4] < sms && end[m] > sm_end[k[4]]) sm_end[k[4]] = end[m];
        m++;
    }
    uint32_t used = 0; /* the SMs that ran a warp */
    for (unsigned i = 0; i < sms; i++)
        if (sm_end[i] != 0) sm_end[used++] = sm_end[i];
    for (unsigned q = 0; q < 3; q++) qsort(pass + (size_t)q * nwarps, m, sizeof *h, u64_asc);
    qsort(end, m, sizeof *h, u64_asc);
    qsort(sm_end, used, sizeof *h, u64_asc);
    if (m > 0) {
        double med[3], top[3];
        for (unsigned q = 0; q < 3; q++) {
            med[q] = pct_ms(pass + (size_t)q * nwarps, m, 50);
            top[q] = pct_ms(pass + (size_t)q * nwarps, m, 100);
        }
        fprintf(stderr,
                "msm level %u: %u slots, %u warps, span %.2f ms; per warp, median (longest): "
                "forward %.2f (%.2f), inversion %.3f (%.3f), backward %.2f (%.2f) ms\n",
                lev, slots, m, pct_ms(end, m, 100), med[0], top[0],
                med[1], top[1], med[2], top[2]);
        fprintf(stderr, "  warp ends %.2f %.2f %.2f %.2f %.2f", pct_ms(end, m, 0),
                pct_ms(end, m, 10), pct_ms(end, m, 50), pct_ms(end, m, 90), pct_ms(end, m, 100));
        if (used > 0)
            fprintf(stderr, "; SM ends (%u SMs) %.2f %.2f %.2f %.2f %.2f", used,
                    pct_ms(sm_end, used, 0), pct_ms(sm_end, used, 10), pct_ms(sm_end, used, 50),
                    pct_ms(sm_end, used, 90), pct_ms(sm_end, used, 100));
        fprintf(stderr, " ms (percentiles 0 10 50 90 100)\n");
    }
    free(h);
    return CUZK_OK;
}

/* A handle's speeds at level lev. */
static float *ba_speed_row(cuzk__gpu_msm_bases *b, unsigned lev) {
    const unsigned row = lev < BA_SPEED_LEVELS ? lev : BA_SPEED_LEVELS - 1;
    return b->ba_speed + (size_t)row * b->ba_nruns;
}

/*
 * Variant 4's steps 4-5 (the batch-affine block above msm.cu's kernels):
 * per group of p.ba_gw bucket sets, affine levels over the group's entries
 * while a level has enough pairs, then variant 0's XYZZ accumulation and
 * combine levels over what is left, into the group's buckets. verbose:
 * one line per group on stderr (with the profile); clk (with it, or null):
 * room for the level warps' pass clocks, two lines per level launch.
 */
template <class F>
static cuzk_status ba_accumulate_levels(cuzk__gpu_msm_bases *b, const msm_plan &p,
                                        const msm_area<xyzz_pt<F>> &a, const uint32_t *vals,
                                        bool verbose, unsigned long long *clk) {
    typedef aff_pt<F> A;
    const A *bases = static_cast<const A *>(b->bases);
    A *pta = reinterpret_cast<A *>(a.ba_pta), *ptb = reinterpret_cast<A *>(a.ba_ptb);
    /* ew[j] = start[j nb], the first entry of set j; ew[nset] = total */
    uint32_t ew[257];
    CUZK__CUDA_TRY(cudaStreamSynchronize(0)); /* the wait outside the copy: cuzk__sync_copy */
    CUZK__CUDA_TRY(cudaMemcpy2D(ew, sizeof(uint32_t), a.start, (size_t)p.nb * sizeof(uint32_t),
                                sizeof(uint32_t), p.nset + 1, cudaMemcpyDeviceToHost));
    const uint64_t res = p.ba_resident;
    /* claimed runs: k blocks a launch, whose clocks measure the SMs' speeds */
    const uint32_t k = p.ba_nruns;
    const unsigned per_sm = b->ba_blocks > 0 ? (unsigned)b->ba_blocks : 1;
    /* the level whose launch's clocks are still to be read (after the next
     * synchronizing copy: reading them at once would idle the device while
     * the host queues the next level's counts) */
    int unread = -1;
    auto learn = [&]() -> cuzk_status {
        if (unread < 0) return CUZK_OK;
        const cudaError_t e =
            d2h(b->ba_hclk, a.ba_rclk + k, 2 * (size_t)k * sizeof *b->ba_hclk);
        if (e != cudaSuccess) {
            cuzk__gpu_record_error(e, "level run clocks", __FILE__, __LINE__);
            return CUZK_ERR_GPU;
        }
        cuzk__level_speed_learn(ba_speed_row(b, (unsigned)unread), b->ba_hruns, b->ba_hclk, k);
        unread = -1;
        return CUZK_OK;
    };
    const uint64_t min_pairs =
        b->cfg.ba_min_pairs ? b->cfg.ba_min_pairs : res * BA_MIN_BATCH;
    for (unsigned j0 = 0; j0 < p.nset; j0 += p.ba_gw) {
        const unsigned j1 = j0 + p.ba_gw < p.nset ? j0 + p.ba_gw : p.nset;
        const uint32_t b0 = j0 * p.nb, nbg = (j1 - j0) * p.nb, e0 = ew[j0], eg = ew[j1] - e0;
        if (eg == 0) continue;
        /* level 0 reads the group's entries: offsets relative to its first one */
        ba_rel_kernel<<<grid((size_t)nbg + 1, LIGHT_THREADS), LIGHT_THREADS>>>(a.start + b0,
                                                                             nbg + 1, e0, a.ba_offa);
        CUZK__CUDA_TRY(cudaGetLastError());
        uint32_t *oin = a.ba_offa, *oout = a.ba_offb;
        const A *pin = nullptr;
        A *pout = pta;
        uint32_t tin = eg; /* points at the current level */
        unsigned lev = 0;
        while (b->cfg.ba_max_levels == 0 || lev < b->cfg.ba_max_levels) {
            /* the next level's offsets: scan of ceil(k/2) */
            ba_count_kernel<<<grid(nbg, LIGHT_THREADS), LIGHT_THREADS>>>(oin, nbg, a.ba_cnt);
            CUZK__CUDA_TRY(cudaGetLastError());
            cuzk_status st = excl_scan(a.ba_cnt, nbg, a.tsum, oout, oout);
            if (st != CUZK_OK) return st;
            uint32_t tout = 0;
            CUZK__CUDA_TRY(d2h(&tout, oout + nbg, sizeof tout));
            st = learn(); /* the last launch is done: the copy waited for it */
            if (st != CUZK_OK) return st;
            const uint32_t pairs = tin - tout;
            if (pairs == 0 || pairs < min_pairs) break;
            if (tout > (pout == pta ? p.ba_acap : p.ba_bcap)) return area_too_small();
            /* whole warps, a run of 32 slice slots each */
            const uint64_t warps = res / 32 ? res / 32 : 1;
            uint32_t slice = (uint32_t)((tout + 32 * warps - 1) / (32 * warps));
            if (slice == 0) slice = 1;
            uint32_t nt = (uint32_t)((tout + 32ull * slice - 1) / (32ull * slice) * 32);
            const uint32_t *runs = nullptr;
            if (k) { /* every block, each claiming a run */
                cuzk__level_runs_plan(b->ba_hruns, ba_speed_row(b, lev), k, tout);
                CUZK__CUDA_TRY(cuzk__sync_copy(a.ba_runs, b->ba_hruns,
                                               ((size_t)k + 1) * sizeof *b->ba_hruns,
                                               cudaMemcpyHostToDevice));
                CUZK__CUDA_TRY(cudaMemsetAsync(a.ba_rclk, 0, 3 * (size_t)k * sizeof *a.ba_rclk));
                runs = a.ba_runs;
                nt = k * BA_THREADS<F>;
            }
            const size_t sm = ba_smem_bytes<F>();
            const dim3 gr = grid(nt, BA_THREADS<F>);
            if (clk)
                CUZK__CUDA_TRY(cudaMemsetAsync(clk, 0, (size_t)nt / 32 * BA_CLOCK_MARKS *
                                                           sizeof *clk));
            if (lev == 0)
                ba_level_kernel<F, true><<<gr, BA_THREADS<F>, sm>>>(
                    bases, vals + e0, nullptr, oin, oout, nbg, tout, slice, nt, runs, per_sm,
                    a.ba_rclk, pout, clk);
            else
                ba_level_kernel<F, false><<<gr, BA_THREADS<F>, sm>>>(
                    nullptr, nullptr, pin, oin, oout, nbg, tout, slice, nt, runs, per_sm,
                    a.ba_rclk, pout, clk);
            CUZK__CUDA_TRY(cudaGetLastError());
            if (k) unread = (int)lev;
            if (clk) {
                cuzk_status cs = ba_clock_report(clk, nt / 32, lev, tout);
                if (cs != CUZK_OK) return cs;
            }
            pin = pout;
            pout = pout == pta ? ptb : pta;
            uint32_t *ot = oin;
            oin = oout, oout = ot;
            tin = tout;
            lev++;
        }
        cuzk_status lst = learn(); /* a launch the level cap ended the loop after */
        if (lst != CUZK_OK) return lst;
        /* what is left: oin offsets over tin points (the entries when lev = 0) */
        const A *src = bases;
        const uint32_t *sv = vals + e0;
        if (lev > 0) {
            ba_iota_kernel<<<grid(tin, LIGHT_THREADS), LIGHT_THREADS>>>(a.ba_idv, tin);
            CUZK__CUDA_TRY(cudaGetLastError());
            src = pin;
            sv = a.ba_idv;
        }
        uint32_t slice = (uint32_t)((tin + p.resident - 1) / p.resident);
        if (slice == 0) slice = 1;
        const uint32_t nt = (tin + slice - 1) / slice;
        accumulate_kernel<F, madd_t<F>><<<grid(nt, HEAVY_THREADS), HEAVY_THREADS>>>(
            src, sv, oin, nbg, tin, slice, nt, a.buckets + b0, a.ka, a.pa);
        CUZK__CUDA_TRY(cudaGetLastError());
        if (nt > 1) {
            cuzk_status st = combine_levels<F>(a.ka, a.pa, a.kb, a.pb, 2 * nt, a.buckets + b0);
            if (st != CUZK_OK) return st;
        }
        if (verbose)
            fprintf(stderr,
                    "msm batch-affine sets [%u, %u): %u entries, %u affine levels, %u points "
                    "left for XYZZ (%llu resident threads, min pairs %llu)\n",
                    j0, j1, eg, lev, tin, (unsigned long long)res,
                    (unsigned long long)min_pairs);
    }
    return CUZK_OK;
}
template <class F>
static cuzk_status ba_accumulate(cuzk__gpu_msm_bases *b, const msm_plan &p,
                                 const msm_area<xyzz_pt<F>> &a, const uint32_t *vals,
                                 bool verbose) {
    /* the pass clocks: a warp's marks for each warp a level launches
     * (no more than the resident threads' warps); without the memory, the
     * profile goes without them */
    unsigned long long *clk = nullptr;
    const uint64_t warps = p.ba_resident / 32 ? p.ba_resident / 32 : 1;
    if (verbose && cudaMalloc(&clk, warps * BA_CLOCK_MARKS * sizeof *clk) != cudaSuccess) {
        (void)cudaGetLastError();
        clk = nullptr;
    }
    const cuzk_status st = ba_accumulate_levels<F>(b, p, a, vals, verbose, clk);
    if (clk) (void)cudaFree(clk);
    return st;
}

/* Per-phase device times of one MSM when cuzk__gpu_msm_profile is set
 * (an event after each phase, named by the phase it ends; printed to
 * stderr). Plain functions, no members: inline members would be exported
 * as weak symbols. */
static constexpr int PROF_MARKS = 8;
struct msm_prof {
    cudaEvent_t ev[PROF_MARKS];
    const char *name[PROF_MARKS];
    int k;
    bool on;
};
static void prof_mark(msm_prof &pr, const char *ends) {
    if (!pr.on || pr.k >= PROF_MARKS) return;
    pr.name[pr.k] = ends;
    (void)cudaEventRecord(pr.ev[pr.k++]);
}

/* Steps 1-3 of variants 0 and 4: counts (atomics), starts, scatter
 * (atomic cursors). *total = the entries; *range: a scalar >= 2^255. */
template <class X>
static cuzk_status sort_by_atomics(const msm_plan &p, const uint64_t *d_scalars, size_t n,
                                   const uint64_t *d_mask, uint32_t *cnt, const msm_area<X> &a,
                                   uint32_t *total, bool *range, msm_prof &prof) {
    const uint32_t nbins = p.nbins;
    uint32_t *start = a.start, *cursor = a.cursor, *flag = a.start + nbins + 1;
    CUZK__CUDA_TRY(cudaMemset(cursor, 0, (size_t)nbins * 4));
    CUZK__CUDA_TRY(cudaMemset(flag, 0, 4));
    digits_kernel<false><<<grid(n, LIGHT_THREADS), LIGHT_THREADS>>>(
        d_scalars, d_mask, (uint32_t)n, p.c, p.nwin, p.k, p.stride, cursor, nullptr, flag);
    CUZK__CUDA_TRY(cudaGetLastError());
    /* the scan reads the counts and rewrites cursor as starts: counts to cnt first */
    CUZK__CUDA_TRY(cudaMemcpy(cnt, cursor, (size_t)nbins * 4, cudaMemcpyDeviceToDevice));
    cuzk_status sst = excl_scan(cnt, nbins, a.tsum, start, cursor);
    if (sst != CUZK_OK) return sst;
    uint32_t hdr[2];
    CUZK__CUDA_TRY(d2h(hdr, start + nbins, 8));
    prof_mark(prof, "count+scan");
    *total = hdr[0];
    *range = hdr[1] != 0;
    if (*range || *total == 0) return CUZK_OK;
    digits_kernel<true><<<grid(n, LIGHT_THREADS), LIGHT_THREADS>>>(
        d_scalars, d_mask, (uint32_t)n, p.c, p.nwin, p.k, p.stride, cursor, a.vals, flag);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

/* Steps 1-3 of variant 5 ("digit sort" above): pairs, radix sort, starts.
 * *vals = the sorted values (one of the two buffers). */
template <class X>
static cuzk_status sort_by_radix(const msm_plan &p, const uint64_t *d_scalars, size_t n,
                                 const uint64_t *d_mask, const msm_area<X> &a,
                                 const uint32_t **vals, uint32_t *total, bool *range,
                                 msm_prof &prof) {
    const uint32_t nbins = p.nbins, m = (uint32_t)(n * p.nwin); /* < 2^32: checked */
    uint32_t *flag = a.start + nbins + 1;
    CUZK__CUDA_TRY(cudaMemset(flag, 0, 4));
    digits_keys_kernel<<<grid(n, LIGHT_THREADS), LIGHT_THREADS>>>(
        d_scalars, d_mask, (uint32_t)n, p.c, p.nwin, p.k, p.stride, a.sk[0], a.sv[0], flag);
    CUZK__CUDA_TRY(cudaGetLastError());
    prof_mark(prof, "digits");
    cub::DoubleBuffer<uint32_t> keys(a.sk[0], a.sk[1]), sv(a.sv[0], a.sv[1]);
    size_t tmp = p.sort_tmp;
    CUZK__CUDA_TRY(cub::DeviceRadixSort::SortPairs(a.sort_tmp, tmp, keys, sv, m, 0, p.sort_bits));
    prof_mark(prof, "sort");
    bounds_kernel<<<grid((size_t)nbins + 1, LIGHT_THREADS), LIGHT_THREADS>>>(keys.Current(), m,
                                                                           nbins, a.start);
    CUZK__CUDA_TRY(cudaGetLastError());
    uint32_t hdr[2];
    CUZK__CUDA_TRY(d2h(hdr, a.start + nbins, 8));
    *vals = sv.Current();
    *total = hdr[0];
    *range = hdr[1] != 0;
    return CUZK_OK;
}

/* The MSM over device scalars and an optional device mask; the work area
 * holds the caller's staged inputs below ws_offset and is already large
 * enough (msm_rest_bytes past ws_offset). */
template <class G>
static cuzk_status msm_dev_body(cuzk__gpu_msm_bases *b, uint64_t *result,
                                const uint64_t *d_scalars, size_t n, const uint64_t *d_mask,
                                size_t ws_offset, const msm_plan &p, msm_prof &prof) {
    typedef typename G::F F;
    typedef xyzz_pt<F> X;
    const unsigned nwin = p.nwin, nset = p.nset;
    const uint32_t nb = p.nb, nbins = p.nbins, seglen = p.seglen, nseg = p.nseg;
    /* entry positions are 32-bit: the radix sort has n * nwin pairs, the
     * atomic sort at most npts * nwin entries */
    if ((uint64_t)(p.sort ? n : p.npts) * nwin >= ((uint64_t)1 << 32)) return CUZK_ERR_INVALID_ARG;
    msm_area<X> a;
    if (msm_carve(a, nullptr, ws_offset, p, n) > b->work->bytes) return area_too_small();
    msm_carve(a, static_cast<char *>(b->work->p), ws_offset, p, n);
    X *buckets = a.buckets, *pa = a.pa, *pb = a.pb, *wsum = a.wsum;
    uint32_t *ka = a.ka, *kb = a.kb;

    /* 1-3: entries sorted by bin */
    prof_mark(prof, nullptr);
    const uint32_t *vals = a.vals;
    uint32_t total = 0;
    bool range = false;
    cuzk_status st =
        p.sort ? sort_by_radix(p, d_scalars, n, d_mask, a, &vals, &total, &range, prof)
               : sort_by_atomics(p, d_scalars, n, d_mask, reinterpret_cast<uint32_t *>(buckets),
                                 a, &total, &range, prof); /* buckets: free until step 4 */
    if (st != CUZK_OK) return st;
    if (range) return CUZK_ERR_INVALID_ARG; /* a scalar >= 2^255 */
    if (total == 0) return CUZK_OK;

    /* 4-5: buckets */
    CUZK__CUDA_TRY(cudaMemset(buckets, 0, (size_t)nbins * sizeof(X)));
    prof_mark(prof, p.sort ? "boundaries" : "scatter");
    st = ba_accumulate<F>(b, p, a, vals, prof.on);
    if (st != CUZK_OK) return st;
    prof_mark(prof, "accumulate");

    /* 6-7: the sums of the bucket sets (of the windows without copies) */
    CUZK__CUDA_TRY(cudaMemset(wsum, 0, nset * sizeof(X)));
    bucket_reduce_kernel<F, madd_t<F>>
        <<<grid((size_t)nset * nseg, HEAVY_THREADS), HEAVY_THREADS>>>(buckets, nb, seglen,
                                                                      nseg, nset, ka, pa);
    CUZK__CUDA_TRY(cudaGetLastError());
    st = combine_levels<F>(ka, pa, kb, pb, nset * nseg, wsum);
    if (st != CUZK_OK) return st;
    uint64_t *host_w = static_cast<uint64_t *>(malloc((size_t)nset * G::XYZZ_WORDS * 8));
    if (!host_w) return CUZK_ERR_NOMEM;
    cudaError_t err = d2h(host_w, wsum, nset * sizeof(X));
    if (err != cudaSuccess) {
        free(host_w);
        cuzk__gpu_record_error(err, "cudaMemcpy(wsum, ...)", __FILE__, __LINE__);
        return CUZK_ERR_GPU;
    }
    prof_mark(prof, "reduce");
    host_horner<G>(result, host_w, nset, p.c * p.k); /* set j weighs 2^(j k c) */
    free(host_w);
    prof_mark(prof, "host");
    return CUZK_OK;
}

template <class G>
static cuzk_status msm_dev(cuzk__gpu_msm_bases *b, uint64_t *result, const uint64_t *d_scalars,
                           size_t n, const uint64_t *d_mask, size_t npts, size_t ws_offset) {
    memset(result, 0, G::JAC_WORDS * 8); /* infinity */
    if (n == 0) return CUZK_OK;
    msm_plan p;
    cuzk_status st = plan_make(p, b, n, d_mask != nullptr, npts);
    if (st != CUZK_OK) return st;
    msm_prof prof;
    prof.k = 0;
    prof.on = b->cfg.profile != 0;
    int made = 0;
    for (; prof.on && made < PROF_MARKS; made++)
        if (cudaEventCreate(&prof.ev[made]) != cudaSuccess) {
            prof.on = false;
            break;
        }
    st = msm_dev_body<G>(b, result, d_scalars, n, d_mask, ws_offset, p, prof);
    if (prof.on && st == CUZK_OK && prof.k >= 2 &&
        cudaEventSynchronize(prof.ev[prof.k - 1]) == cudaSuccess) {
        fprintf(stderr, "msm profile %s n=%zu c=%u copies=%u sort=%s seg=%u threads=%llu:",
                G::JAC_WORDS == 18 ? "G1" : "G2", n, p.c, p.k, p.sort ? "radix" : "atomics",
                p.seglen,
                (unsigned long long)p.resident);
        for (int i = 1; i < prof.k; i++) {
            float ms = 0;
            (void)cudaEventElapsedTime(&ms, prof.ev[i - 1], prof.ev[i]);
            fprintf(stderr, " %s %.2f", prof.name[i], ms);
        }
        fprintf(stderr, " ms\n");
    }
    (void)cudaGetLastError();
    for (int i = 0; i < made; i++) (void)cudaEventDestroy(prof.ev[i]);
    return st;
}

/* Batch-add shape: thread count and its pair buffers. */
struct ba_plan {
    uint32_t nt, nw; /* threads; bitmap words */
    size_t cap;      /* pairs */
    size_t tsum;     /* tile-sum words of the rank scan over nw counts */
};
static void ba_plan_make(ba_plan &p, const cuzk__gpu_msm_bases *b, size_t n) {
    const uint64_t resident = resident_threads(b);
    size_t per = (n + resident - 1) / resident;
    if (per < 64) per = 64;
    p.nt = (uint32_t)((n + per - 1) / per);
    p.nw = (uint32_t)((n + 63) / 64);
    p.cap = 2 * (size_t)p.nt + 2;
    p.tsum = scan_tsum_words(p.nw);
}
template <class X>
static size_t ba_carve(uint32_t **ka, uint32_t **kb, X **pa, X **pb, X **out, uint32_t **wcnt,
                       uint32_t **wpre, uint32_t **tsum, char *base, size_t off,
                       const ba_plan &p) {
    carver cv{base, off};
    *ka = cv.take<uint32_t>(p.cap);
    *kb = cv.take<uint32_t>(p.cap);
    *pa = cv.take<X>(p.cap);
    *pb = cv.take<X>(p.cap);
    *out = cv.take<X>(1);
    *wcnt = cv.take<uint32_t>(p.nw);
    *wpre = cv.take<uint32_t>((size_t)p.nw + 1);
    *tsum = cv.take<uint32_t>(p.tsum);
    return cv.off;
}
template <class G>
static size_t batch_add_rest_bytes_g(const cuzk__gpu_msm_bases *b, size_t n) {
    typedef xyzz_pt<typename G::F> X;
    ba_plan p;
    ba_plan_make(p, b, n);
    uint32_t *ka, *kb, *wcnt, *wpre, *tsum;
    X *pa, *pb, *out;
    return ba_carve(&ka, &kb, &pa, &pb, &out, &wcnt, &wpre, &tsum, nullptr, 0, p);
}
static size_t batch_add_rest_bytes(const cuzk__gpu_msm_bases *b, size_t n) {
    return b->group == CUZK__GPU_MSM_G1 ? batch_add_rest_bytes_g<grp_g1>(b, n)
                                        : batch_add_rest_bytes_g<grp_g2>(b, n);
}

/* Batch-add over a device bitmap (or all): result as host Jacobian words.
 * The work area is large enough past ws_offset (batch_add_rest_bytes). */
template <class G>
static cuzk_status batch_add_dev(cuzk__gpu_msm_bases *b, uint64_t *result, size_t n,
                                 const uint64_t *d_bitmap, size_t ws_offset) {
    typedef typename G::F F;
    typedef xyzz_pt<F> X;
    memset(result, 0, G::JAC_WORDS * 8);
    if (n == 0) return CUZK_OK;
    ba_plan p;
    ba_plan_make(p, b, n);
    cuzk_status st;
    const uint32_t nt = p.nt;
    uint32_t *ka, *kb, *wcnt, *wpre, *tsum;
    X *pa, *pb, *out;
    if (ba_carve(&ka, &kb, &pa, &pb, &out, &wcnt, &wpre, &tsum, nullptr, ws_offset, p) >
        b->work->bytes)
        return area_too_small();
    ba_carve(&ka, &kb, &pa, &pb, &out, &wcnt, &wpre, &tsum, static_cast<char *>(b->work->p),
             ws_offset, p);
    CUZK__CUDA_TRY(cudaMemset(out, 0, sizeof(X)));
    if (d_bitmap) {
        word_count_kernel<<<grid(p.nw, LIGHT_THREADS), LIGHT_THREADS>>>(d_bitmap, (uint32_t)n,
                                                                         p.nw, wcnt);
        CUZK__CUDA_TRY(cudaGetLastError());
        st = excl_scan(wcnt, p.nw, tsum, wpre, wpre);
        if (st != CUZK_OK) return st;
    }
    batch_add_kernel<F, madd_t<F>><<<grid(nt, HEAVY_THREADS), HEAVY_THREADS>>>(
        static_cast<const aff_pt<F> *>(b->bases), d_bitmap, wpre, (uint32_t)n, p.nw, nt, ka,
        pa);
    CUZK__CUDA_TRY(cudaGetLastError());
    st = combine_levels<F>(ka, pa, kb, pb, nt, out);
    if (st != CUZK_OK) return st;
    uint64_t w[G::XYZZ_WORDS];
    CUZK__CUDA_TRY(d2h(w, out, sizeof(X)));
    G::xyzz_to_jac(result, w);
    return CUZK_OK;
}

/* ---- the C edge ---------------------------------------------------------------- */

static size_t aff_bytes(cuzk__gpu_msm_group g) {
    return g == CUZK__GPU_MSM_G1 ? sizeof(g1_aff) : sizeof(g2_aff);
}

/* Resident blocks per SM of the accumulation kernel (*acc) and of the
 * batch-affine level kernels (*ba). */
template <class F>
static cudaError_t occupancy(int *acc, int *ba) {
    int a0 = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &a0, accumulate_kernel<F, madd_t<F>>, HEAVY_THREADS, 0);
    /* the stages take 216 KiB a block for G1 and 108 KiB for G2, past the
     * 48 KiB a launch gets unasked; both level kernels share one occupancy */
    const int smem = (int)ba_smem_bytes<F>();
    const void *lk[2] = {(const void *)ba_level_kernel<F, true>,
                         (const void *)ba_level_kernel<F, false>};
    int bmin = 0;
    for (int k = 0; k < 2 && e == cudaSuccess; k++) {
        int bk = 0;
        e = cudaFuncSetAttribute(lk[k], cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        if (e == cudaSuccess) /* the blocks' stages take most of an SM's shared memory */
            e = cudaFuncSetAttribute(lk[k], cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared);
        if (e == cudaSuccess)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bk, lk[k], BA_THREADS<F>, smem);
        if (k == 0 || bk < bmin) bmin = bk;
    }
    *acc = a0;
    *ba = bmin;
    return e;
}

/* The claimed runs' host tables (one allocation: the clocks, the speeds,
 * the runs), every SM's speed 1 at first. Without the memory the handle
 * runs even runs (ba_nruns = 0). */
static void ba_speed_table_new(cuzk__gpu_msm_bases *b) {
    const size_t k = (size_t)b->sms * (size_t)(b->ba_blocks > 0 ? b->ba_blocks : 1);
    b->ba_nruns = 0;
    b->ba_speed = nullptr;
    if (k == 0 || k > BA_MAX_RUNS) return;
    const size_t speeds = BA_SPEED_LEVELS * k;
    unsigned long long *m = static_cast<unsigned long long *>(
        malloc(2 * k * sizeof *m + speeds * sizeof(float) + (k + 1) * sizeof(uint32_t)));
    if (!m) return;
    b->ba_hclk = m;
    b->ba_speed = reinterpret_cast<float *>(m + 2 * k);
    for (size_t i = 0; i < speeds; i++) b->ba_speed[i] = 1.0f;
    b->ba_hruns = reinterpret_cast<uint32_t *>(b->ba_speed + speeds);
    b->ba_nruns = (uint32_t)k;
}

static cuzk_status handle_new(cuzk__gpu_msm_bases **out, cuzk__gpu_msm_group group, size_t n) {
    *out = nullptr;
    if ((group != CUZK__GPU_MSM_G1 && group != CUZK__GPU_MSM_G2) || n == 0 ||
        n >= ((size_t)1 << 31))
        return CUZK_ERR_INVALID_ARG;
    cuzk__gpu_msm_bases *b =
        static_cast<cuzk__gpu_msm_bases *>(calloc(1, sizeof(cuzk__gpu_msm_bases)));
    if (!b) return CUZK_ERR_NOMEM;
    b->group = group;
    b->n = n;
    b->copies = 1;
    b->work = static_cast<msm_work *>(calloc(1, sizeof(msm_work)));
    if (!b->work) {
        free(b);
        return CUZK_ERR_NOMEM;
    }
    b->work->refs = 1;
    *out = b;
    int dev = 0;
    CUZK__CUDA_TRY(cudaGetDevice(&dev));
    CUZK__CUDA_TRY(cudaDeviceGetAttribute(&b->sms, cudaDevAttrMultiProcessorCount, dev));
    if (group == CUZK__GPU_MSM_G1)
        CUZK__CUDA_TRY(occupancy<fp_t>(&b->heavy_blocks, &b->ba_blocks));
    else
        CUZK__CUDA_TRY(occupancy<fp2_t>(&b->heavy_blocks, &b->ba_blocks));
    /* variant 4's level buffers: CUZK_GPU_MSM_BA_BUDGET_MB, else a quarter of the device */
    size_t mem_free = 0, mem_total = 0;
    CUZK__CUDA_TRY(cudaMemGetInfo(&mem_free, &mem_total));
    b->ba_budget = (mem_total / 4 >> 20) << 20;
    ba_speed_table_new(b);
    CUZK__CUDA_TRY(cudaMalloc(&b->bases, n * aff_bytes(group)));
    return CUZK_OK;
}

extern "C" void cuzk__gpu_msm_bases_share_work(cuzk__gpu_msm_bases *b,
                                               cuzk__gpu_msm_bases *with) {
    if (!b || !with || b->work == with->work) return;
    work_release(b->work);
    b->work = with->work;
    b->work->refs++;
}

extern "C" void cuzk__gpu_msm_bases_configure(cuzk__gpu_msm_bases *b,
                                              const cuzk__gpu_msm_config *cfg) {
    if (b == nullptr) return;
    if (cfg != nullptr)
        b->cfg = *cfg;
    else
        memset(&b->cfg, 0, sizeof b->cfg);
}

extern "C" void cuzk__gpu_msm_bases_cap_level_budget(cuzk__gpu_msm_bases *b, size_t bytes) {
    if (b && bytes != 0 && bytes < b->ba_budget) b->ba_budget = bytes;
}
extern "C" size_t cuzk__gpu_msm_bases_work_bytes(const cuzk__gpu_msm_bases *b) {
    return b && b->work ? b->work->bytes : 0;
}
extern "C" size_t cuzk__gpu_msm_bases_level_budget(const cuzk__gpu_msm_bases *b) {
    return b ? b->ba_budget : 0;
}
extern "C" void cuzk__gpu_msm_bases_restore_level_budget(cuzk__gpu_msm_bases *b, size_t bytes) {
    if (b && bytes != 0) b->ba_budget = bytes;
}

/*
 * An estimate of the work area the calls `serves` (CUZK__GPU_MSM_SERVES_*)
 * on b need with its level budget at `budget` (0 on failure): an MSM of all
 * b->n points, a masked one of as many points as the most a masked call on
 * b has had (none if none has run), and a batch-add, with scalars and
 * bitmaps on the device. An estimate, not a bound: the next masked call may have more
 * points, or fewer and a larger window group under the same budget, so
 * callers check the room again after the calls have run. (Planned for all
 * n, a proof's sparse tails looked like the largest calls: at 2^18 the G2
 * handle's, whose real calls have few points and small levels.)
 */
static size_t area_estimate(const cuzk__gpu_msm_bases *b, size_t budget, unsigned serves) {
    cuzk__gpu_msm_bases t = *b; /* plan_make reads the budget from the handle */
    t.ba_budget = budget;
    const size_t n = b->n;
    size_t plain = 0, masked = 0;
    if ((serves & CUZK__GPU_MSM_SERVES_MSM) && msm_rest_bytes(&t, n, false, n, &plain) != CUZK_OK)
        return 0;
    if (serves & CUZK__GPU_MSM_SERVES_MASKED) {
        masked = batch_add_rest_bytes(&t, n);
        size_t m = 0; /* none yet (no scalar other than 0 and 1 so far): the batch-add's */
        if (b->masked_npts && msm_rest_bytes(&t, n, true, b->masked_npts, &m) != CUZK_OK) return 0;
        if (m > masked) masked = m;
    }
    return plain > masked ? plain : masked;
}

static int size_desc(const void *a, const void *b) {
    const size_t x = *static_cast<const size_t *>(a), y = *static_cast<const size_t *>(b);
    return x < y ? 1 : x > y ? -1 : 0;
}

extern "C" cuzk_status cuzk__gpu_msm_bases_fit_work(cuzk__gpu_msm_bases *const *hs,
                                                    const unsigned *serves, unsigned nh,
                                                    size_t free_now, size_t room, int *freed) {
    if (!freed || !hs || !serves || nh == 0 || nh > 8) return CUZK_ERR_INVALID_ARG;
    *freed = 0;
    for (unsigned i = 0; i < nh; i++)
        if (!hs[i] || hs[i]->work != hs[0]->work) return CUZK_ERR_INVALID_ARG;
    if (free_now >= room) return CUZK_OK;
    for (unsigned i = 0; i < nh; i++) /* a budget set for tuning decides */
        if (hs[i]->cfg.ba_budget) return CUZK_OK;
    /* the budgets where a handle's window groups change size, below its own:
     * each group size's level bytes in the plans area_estimate makes
     * (plan_make's own loop picks the largest group that fits the budget) */
    size_t cand[2 * 8 * 256];
    unsigned nc = 0;
    for (unsigned i = 0; i < nh; i++)
        for (unsigned kind = 0; kind < 2; kind++) {
            const bool masked = kind == 1;
            if (!(serves[i] & (masked ? CUZK__GPU_MSM_SERVES_MASKED : CUZK__GPU_MSM_SERVES_MSM)))
                continue;
            cuzk__gpu_msm_bases t = *hs[i];
            t.ba_budget = SIZE_MAX;
            const size_t npts = masked ? t.masked_npts : t.n;
            if (npts == 0) continue;
            msm_plan p;
            if (plan_make(p, &t, t.n, masked, npts) != CUZK_OK) continue;
            for (unsigned gw = 1; gw <= p.nset && nc < sizeof cand / sizeof cand[0]; gw++) {
                const size_t lv = ba_point_bytes(p, p.set_entries, gw);
                if (lv < hs[i]->ba_budget) cand[nc++] = lv;
            }
        }
    /* the estimated area under budget cap (SIZE_MAX: each handle's own);
     * SIZE_MAX when a plan fails */
    auto area_under = [&](size_t cap) -> size_t {
        size_t area = 0;
        for (unsigned i = 0; i < nh; i++) {
            const size_t own = hs[i]->ba_budget;
            const size_t a = area_estimate(hs[i], cap < own ? cap : own, serves[i]);
            if (a == 0 && serves[i] != 0) return SIZE_MAX;
            if (a > area) area = a;
        }
        return area;
    };
    /* the largest budget under which the estimate falls by what is missing,
     * and a page more (cudaMalloc rounds to 2 MiB pages): the estimate's
     * fall, not its level against the area reserved now, so that what it
     * leaves out (it is not a bound) cancels */
    const size_t now = area_under(SIZE_MAX), missing = room - free_now + ((size_t)2 << 20);
    if (now == SIZE_MAX) return CUZK_OK;
    msm_work *w = hs[0]->work;
    size_t best = SIZE_MAX; /* the area reserved is larger than the calls need: no budget falls */
    if (w->bytes < now || w->bytes - now < missing) {
        best = 0; /* the first that does, largest first (the estimate falls with the budget) */
        qsort(cand, nc, sizeof cand[0], size_desc);
        for (unsigned c = 0; c < nc && best == 0; c++) {
            const size_t area = area_under(cand[c]);
            if (area <= now && now - area >= missing) best = cand[c];
        }
        if (best == 0) return CUZK_OK; /* no budget makes the room: the caller goes without */
        for (unsigned i = 0; i < nh; i++) cuzk__gpu_msm_bases_cap_level_budget(hs[i], best);
    }
    if (w->p) (void)cudaFree(w->p); /* reserved again by the next call, at its new size */
    w->p = nullptr;
    w->bytes = 0;
    *freed = 1;
    return CUZK_OK;
}

extern "C" void cuzk__gpu_msm_bases_free(cuzk__gpu_msm_bases *b) {
    if (!b) return;
    if (b->bases) (void)cudaFree(b->bases);
    work_release(b->work);
    free(b->ba_hclk);
    free(b);
}

extern "C" cuzk_status cuzk__gpu_msm_bases_alloc(cuzk__gpu_msm_bases **out,
                                                 cuzk__gpu_msm_group group, size_t n) {
    if (!out) return CUZK_ERR_INVALID_ARG;
    cuzk_status st = handle_new(out, group, n);
    if (st != CUZK_OK && *out) {
        cuzk__gpu_msm_bases_free(*out);
        *out = nullptr;
    }
    return st;
}

extern "C" cuzk_status cuzk__gpu_msm_bases_upload(cuzk__gpu_msm_bases **out,
                                                  cuzk__gpu_msm_group group,
                                                  const uint64_t *bases, size_t n) {
    if (!out || !bases) return CUZK_ERR_INVALID_ARG;
    cuzk_status st = cuzk__gpu_msm_bases_alloc(out, group, n);
    if (st != CUZK_OK) return st;
    cudaError_t err =
        cudaMemcpy((*out)->bases, bases, n * aff_bytes(group), cudaMemcpyHostToDevice);
    if (err != cudaSuccess) {
        cuzk__gpu_record_error(err, "cudaMemcpy(bases)", __FILE__, __LINE__);
        cuzk__gpu_msm_bases_free(*out);
        *out = nullptr;
        return CUZK_ERR_GPU;
    }
    return CUZK_OK;
}

extern "C" void *cuzk__gpu_msm_bases_at(cuzk__gpu_msm_bases *b, size_t i) {
    return b ? static_cast<uint8_t *>(b->bases) + i * aff_bytes(b->group) : nullptr;
}

extern "C" size_t cuzk__gpu_msm_bases_count(const cuzk__gpu_msm_bases *b) { return b ? b->n : 0; }

/* One thread a point: its encoding in 16-byte loads (records are 96 or 192
 * bytes, 16-aligned), decoded into the handle's bases; enc may be out itself
 * (a thread reads its whole record before it writes the point there). */
template <class F>
static __global__ void decode_kernel(aff_pt<F> *out, const uint4 *enc, size_t n,
                                     unsigned long long first,
                                     unsigned long long *first_bad) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    constexpr int Q = (int)(sizeof(aff_pt<F>) / 16);
    uint32_t w[4 * Q];
#pragma unroll
    for (int q = 0; q < Q; q++) {
        const uint4 v = enc[i * Q + q];
        w[4 * q] = v.x;
        w[4 * q + 1] = v.y;
        w[4 * q + 2] = v.z;
        w[4 * q + 3] = v.w;
    }
    aff_pt<F> p;
    if (!decode_point_be(p, w)) atomicMin(first_bad, first + i);
    st16(out + i, p);
}

extern "C" cuzk_status cuzk__gpu_msm_bases_decode(cuzk__gpu_msm_bases *b, size_t first,
                                                  size_t count, const void *encoded,
                                                  uint64_t *first_bad) {
    if (!b || !encoded || !first_bad || first > b->n || count > b->n - first)
        return CUZK_ERR_INVALID_ARG;
    if (count == 0) return CUZK_OK;
    b->copies = 1; /* new bases: the copies of the old ones no longer apply */
    unsigned long long *bad = reinterpret_cast<unsigned long long *>(first_bad);
    const uint4 *enc = static_cast<const uint4 *>(encoded);
    if (b->group == CUZK__GPU_MSM_G1)
        decode_kernel<fp_t><<<grid(count, 128), 128>>>(static_cast<g1_aff *>(b->bases) + first,
                                                        enc, count, first, bad);
    else
        decode_kernel<fp2_t><<<grid(count, 128), 128>>>(
            static_cast<g2_aff *>(b->bases) + first, enc, count, first, bad);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

template <class F>
static cuzk_status random_body(cuzk__gpu_msm_bases *b, void **d_table, const uint64_t *table,
                               size_t ntable, uint64_t seed) {
    CUZK__CUDA_TRY(cudaMalloc(d_table, ntable * sizeof(aff_pt<F>)));
    CUZK__CUDA_TRY(cudaMemcpy(*d_table, table, ntable * sizeof(aff_pt<F>),
                              cudaMemcpyHostToDevice));
    const size_t threads = (b->n + RUN - 1) / RUN;
    random_bases_kernel<F><<<grid(threads, HEAVY_THREADS), HEAVY_THREADS>>>(
        static_cast<const aff_pt<F> *>(*d_table), (uint32_t)ntable, (uint32_t)b->n, seed,
        static_cast<aff_pt<F> *>(b->bases));
    CUZK__CUDA_TRY(cudaGetLastError());
    CUZK__CUDA_TRY(cudaDeviceSynchronize());
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm_bases_random(cuzk__gpu_msm_bases **out,
                                                  cuzk__gpu_msm_group group,
                                                  const uint64_t *table, size_t ntable,
                                                  size_t n, uint64_t seed) {
    if (!out || !table || ntable == 0 || ntable >= ((size_t)1 << 31))
        return CUZK_ERR_INVALID_ARG;
    cuzk_status st = handle_new(out, group, n);
    void *d_table = nullptr;
    if (st == CUZK_OK)
        st = group == CUZK__GPU_MSM_G1 ? random_body<fp_t>(*out, &d_table, table, ntable, seed)
                                       : random_body<fp2_t>(*out, &d_table, table, ntable, seed);
    if (d_table) (void)cudaFree(d_table);
    if (st != CUZK_OK && *out) {
        cuzk__gpu_msm_bases_free(*out);
        *out = nullptr;
    }
    return st;
}

extern "C" cuzk_status cuzk__gpu_msm_bases_download(const cuzk__gpu_msm_bases *b,
                                                    uint64_t *bases, size_t n) {
    if (!b || (n && !bases) || n > b->n) return CUZK_ERR_INVALID_ARG;
    if (n == 0) return CUZK_OK;
    CUZK__CUDA_TRY(d2h(bases, b->bases, n * aff_bytes(b->group)));
    return CUZK_OK;
}

template <class F>
static cuzk_status copies_body(cuzk__gpu_msm_bases *b, aff_pt<F> *all, unsigned copies,
                               unsigned c) {
    const size_t n = b->n;
    CUZK__CUDA_TRY(cudaMemcpy(all, b->bases, n * sizeof(aff_pt<F>), cudaMemcpyDeviceToDevice));
    for (unsigned j = 1; j < copies; j++) {
        shift_kernel<F><<<grid((n + RUN - 1) / RUN, HEAVY_THREADS), HEAVY_THREADS>>>(
            all + (j - 1) * n, all + j * n, (uint32_t)n, c);
        CUZK__CUDA_TRY(cudaGetLastError());
    }
    CUZK__CUDA_TRY(cudaDeviceSynchronize());
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm_bases_precompute(cuzk__gpu_msm_bases *b, unsigned copies) {
    if (!b || copies == 0) return CUZK_ERR_INVALID_ARG;
    /* the window for the copies, and no more copies than it has windows */
    unsigned c = window_bits_k(b->n, copies, CUZK__GPU_MSM_MAX_C_COPIES, BUCKET_COST_COPIES);
    while (copies > window_count(c)) {
        copies = window_count(c);
        c = window_bits_k(b->n, copies, CUZK__GPU_MSM_MAX_C_COPIES, BUCKET_COST_COPIES);
    }
    if (copies == b->copies && (copies == 1 || c == b->copies_c)) return CUZK_OK;
    if ((uint64_t)copies * b->n >= ((uint64_t)1 << 31)) { /* entries are 31-bit */
        char what[96];
        snprintf(what, sizeof what, "%u copies of %zu bases: 2^31 points or more", copies, b->n);
        cuzk__gpu_record_error(cudaErrorInvalidValue, what, __FILE__, __LINE__);
        return CUZK_ERR_INVALID_ARG;
    }
    const size_t bytes = copies * b->n * aff_bytes(b->group);
    void *all = nullptr;
    cudaError_t err = cudaMalloc(&all, bytes);
    if (err != cudaSuccess) { /* the handle stays as it was */
        (void)cudaGetLastError();
        char what[96];
        snprintf(what, sizeof what, "cudaMalloc(%zu bytes) for %u copies of the bases", bytes,
                 copies);
        cuzk__gpu_record_error(err, what, __FILE__, __LINE__);
        return CUZK_ERR_NOMEM;
    }
    const cuzk_status st =
        b->group == CUZK__GPU_MSM_G1
            ? copies_body<fp_t>(b, static_cast<g1_aff *>(all), copies, c)
            : copies_body<fp2_t>(b, static_cast<g2_aff *>(all), copies, c);
    if (st != CUZK_OK) {
        (void)cudaFree(all);
        return st;
    }
    (void)cudaFree(b->bases);
    b->bases = all;
    b->copies = copies;
    b->copies_c = copies > 1 ? c : 0;
    return CUZK_OK;
}

extern "C" unsigned cuzk__gpu_msm_bases_copies(const cuzk__gpu_msm_bases *b) {
    return b ? b->copies : 0;
}

extern "C" unsigned cuzk__gpu_msm_bases_window(const cuzk__gpu_msm_bases *b, size_t n,
                                               int masked, size_t npts, unsigned *copies) {
    msm_plan p;
    if (copies) *copies = 0;
    if (!b || n == 0 || n > b->n || plan_make(p, b, n, masked, npts) != CUZK_OK)
        return 0;
    if (copies) *copies = p.k;
    return p.c;
}

extern "C" cuzk_status cuzk__gpu_msm_bases_precompute_fit(cuzk__gpu_msm_bases *b,
                                                        unsigned max_copies, unsigned serves,
                                                        size_t keep, unsigned *made) {
    if (!b || !made || max_copies == 0 ||
        (serves & ~(CUZK__GPU_MSM_SERVES_MSM | CUZK__GPU_MSM_SERVES_MASKED)) != 0)
        return CUZK_ERR_INVALID_ARG;
    *made = b->copies;
    if (b->copies > 1 || max_copies < 2) return CUZK_OK;
    size_t free_b = 0, total_b = 0;
    CUZK__CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    const size_t reserved = b->work ? b->work->bytes : 0;
    for (unsigned k = max_copies; k >= 2; k--) {
        const unsigned c = window_bits_k(b->n, k, CUZK__GPU_MSM_MAX_C_COPIES, BUCKET_COST_COPIES);
        if (k > window_count(c) || (uint64_t)k * b->n >= ((uint64_t)1 << 31)) continue;
        cuzk__gpu_msm_bases t = *b; /* the handle as it would be with k copies */
        t.copies = k;
        t.copies_c = c;
        /* read by the calls it serves: an MSM of all its points, or of as many
         * as its largest masked MSM so far had */
        msm_plan p;
        const bool plain = (serves & CUZK__GPU_MSM_SERVES_MSM) &&
                           plan_make(p, &t, b->n, false, b->n) == CUZK_OK && p.k == k;
        const bool masked = (serves & CUZK__GPU_MSM_SERVES_MASKED) && b->masked_npts &&
                            plan_make(p, &t, b->n, true, b->masked_npts) == CUZK_OK && p.k == k;
        if (!plain && !masked) continue;
        /* the new array is made while the old one still exists */
        const size_t bytes = (size_t)k * b->n * aff_bytes(b->group);
        if (bytes > total_b / 8) continue;
        const size_t area = area_estimate(&t, t.ba_budget, serves);
        if (area == 0) continue;
        const size_t grow = area > reserved ? area - reserved : 0;
        if (free_b < keep || free_b - keep < bytes || free_b - keep - bytes < grow) continue;
        const cuzk_status st = cuzk__gpu_msm_bases_precompute(b, k);
        if (st == CUZK_ERR_NOMEM) { /* taken meanwhile: fewer may still fit */
            CUZK__CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
            continue;
        }
        if (st != CUZK_OK) return st;
        *made = b->copies;
        return CUZK_OK;
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm_scalars_upload(uint64_t **dev, const uint64_t *scalars,
                                                    size_t n) {
    if (!dev || !scalars || n == 0) return CUZK_ERR_INVALID_ARG;
    *dev = nullptr;
    void *p = nullptr;
    CUZK__CUDA_TRY(cudaMalloc(&p, n * 32));
    cudaError_t err = cudaMemcpy(p, scalars, n * 32, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) {
        (void)cudaFree(p);
        cuzk__gpu_record_error(err, "cudaMemcpy(scalars)", __FILE__, __LINE__);
        return CUZK_ERR_GPU;
    }
    *dev = static_cast<uint64_t *>(p);
    return CUZK_OK;
}

extern "C" void cuzk__gpu_msm_scalars_free(uint64_t *dev) {
    if (dev) (void)cudaFree(dev);
}

/* Set bits below n of a device bitmap (the bits past n in its last word do
 * not count): a warp sum per 32 words, one atomic per warp. */
static __global__ void popcount_kernel(const uint64_t *bitmap, uint32_t n,
                                       unsigned long long *count) {
    const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x, nw = (n + 63) / 64;
    uint32_t c = 0;
    if (w < nw) {
        uint64_t x = bitmap[w];
        if (w == nw - 1 && n % 64) x &= ((uint64_t)1 << (n % 64)) - 1;
        c = (uint32_t)__popcll(x);
    }
    c = __reduce_add_sync(0xffffffffu, c);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, (unsigned long long)c);
}

/* The count in the work area's first word: the area is only grown here
 * (its contents are scratch between calls), and the caller plans the rest
 * of the call with the count afterwards. */
static cuzk_status device_popcount(cuzk__gpu_msm_bases *b, const uint64_t *d_bitmap, size_t n,
                                   size_t *count) {
    cuzk_status st = ws_reserve(b, sizeof(unsigned long long));
    if (st != CUZK_OK) return st;
    unsigned long long *d = static_cast<unsigned long long *>(b->work->p), h = 0;
    CUZK__CUDA_TRY(cudaMemset(d, 0, sizeof h));
    popcount_kernel<<<grid((n + 63) / 64, LIGHT_THREADS), LIGHT_THREADS>>>(d_bitmap, (uint32_t)n,
                                                                            d);
    CUZK__CUDA_TRY(cudaGetLastError());
    CUZK__CUDA_TRY(d2h(&h, d, sizeof h));
    *count = (size_t)h;
    return CUZK_OK;
}

/*
 * Places the inputs that live on the host (scalars, a bitmap of n bits) at
 * the start of the work area; *offset is where the rest begins. Device
 * pointers are used in place. The work area is first grown to what the
 * whole call needs (msm_dev/batch_add_dev recompute and check it).
 */
static cuzk_status stage_inputs(cuzk__gpu_msm_bases *b, const uint64_t **d_scalars,
                                const uint64_t *scalars, const uint64_t **d_bitmap,
                                const uint64_t *bitmap, size_t n, size_t rest, size_t *offset) {
    const bool host_scalars = scalars && !is_device_ptr(scalars);
    const size_t words = (n + 63) / 64;
    size_t off = 0;
    if (d_bitmap) *d_bitmap = bitmap;
    if (bitmap && is_device_ptr(bitmap)) bitmap = nullptr; /* in place: nothing to copy */
    if (host_scalars) off += align_up(n * 32);
    if (bitmap) off += align_up(words * 8);
    cuzk_status st = ws_reserve(b, off + rest);
    if (st != CUZK_OK) return st;
    char *p = static_cast<char *>(b->work->p);
    if (scalars) *d_scalars = scalars;
    if (host_scalars) {
        CUZK__CUDA_TRY(cudaMemcpy(p, scalars, n * 32, cudaMemcpyHostToDevice));
        *d_scalars = reinterpret_cast<const uint64_t *>(p);
        p += align_up(n * 32);
    }
    if (bitmap) {
        CUZK__CUDA_TRY(cudaMemcpy(p, bitmap, words * 8, cudaMemcpyHostToDevice));
        *d_bitmap = reinterpret_cast<const uint64_t *>(p);
    }
    *offset = off;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm(cuzk__gpu_msm_bases *b, uint64_t *result,
                                     const uint64_t *scalars, size_t n, const uint64_t *mask) {
    if (!b || !result || n > b->n || (n && !scalars)) return CUZK_ERR_INVALID_ARG;
    if (n == 0) {
        memset(result, 0, (b->group == CUZK__GPU_MSM_G1 ? 18 : 36) * 8);
        return CUZK_OK;
    }
    const uint64_t *ds = nullptr, *dm = nullptr;
    size_t off = 0, rest = 0, npts = n;
    /* the mask's count sizes the window and the entries (plan_make) */
    cuzk_status st = CUZK_OK;
    if (mask && is_device_ptr(mask))
        st = device_popcount(b, mask, n, &npts);
    else if (mask)
        npts = cuzk__msm_popcount(mask, n);
    if (st == CUZK_OK && mask && npts > b->masked_npts) b->masked_npts = npts;
    if (st == CUZK_OK) st = msm_rest_bytes(b, n, mask != nullptr, npts, &rest);
    if (st == CUZK_OK) st = stage_inputs(b, &ds, scalars, &dm, mask, n, rest, &off);
    if (st != CUZK_OK) return st;
    return b->group == CUZK__GPU_MSM_G1 ? msm_dev<grp_g1>(b, result, ds, n, dm, npts, off)
                                        : msm_dev<grp_g2>(b, result, ds, n, dm, npts, off);
}

extern "C" cuzk_status cuzk__gpu_msm_batch_add(cuzk__gpu_msm_bases *b, uint64_t *result,
                                               size_t n, const uint64_t *bitmap) {
    if (!b || !result || n > b->n) return CUZK_ERR_INVALID_ARG;
    if (n == 0) {
        memset(result, 0, (b->group == CUZK__GPU_MSM_G1 ? 18 : 36) * 8);
        return CUZK_OK;
    }
    const uint64_t *dm = nullptr;
    size_t off = 0;
    cuzk_status st =
        stage_inputs(b, nullptr, nullptr, &dm, bitmap, n, batch_add_rest_bytes(b, n), &off);
    if (st != CUZK_OK) return st;
    return b->group == CUZK__GPU_MSM_G1 ? batch_add_dev<grp_g1>(b, result, n, dm, off)
                                        : batch_add_dev<grp_g2>(b, result, n, dm, off);
}

/* Classification into device bitmaps of (n + 63) / 64 words (zero, one,
 * other; NULL: not wanted) and counts. */
static cuzk_status classify_dev(uint64_t *const d_bits[3], unsigned long long *d_counts,
                                const uint64_t *d_scalars, size_t n,
                                cuzk__gpu_msm_counts *counts) {
    const size_t words = (n + 63) / 64;
    uint32_t *hw[3]; /* the kernel writes 32-bit halves */
    for (int k = 0; k < 3; k++) {
        hw[k] = reinterpret_cast<uint32_t *>(d_bits[k]);
        if (hw[k]) CUZK__CUDA_TRY(cudaMemset(hw[k], 0, words * 8)); /* halves no warp writes */
    }
    CUZK__CUDA_TRY(cudaMemset(d_counts, 0, 3 * sizeof(unsigned long long)));
    classify_kernel<<<grid(n, LIGHT_THREADS), LIGHT_THREADS>>>(
        d_scalars, (uint32_t)n, (uint32_t)(2 * words), hw[0], hw[1], hw[2], d_counts);
    CUZK__CUDA_TRY(cudaGetLastError());
    unsigned long long h[3];
    CUZK__CUDA_TRY(d2h(h, d_counts, sizeof h));
    counts->zero = (size_t)h[0];
    counts->one = (size_t)h[1];
    counts->other = (size_t)h[2];
    return CUZK_OK;
}

/* A device output bitmap is written in place; a host one through a device
 * copy in *mem (with the counts and host scalars). */
static cuzk_status classify_body(void **mem, uint64_t *zero, uint64_t *one, uint64_t *other,
                                 cuzk__gpu_msm_counts *counts, const uint64_t *scalars,
                                 size_t n) {
    const size_t words = (n + 63) / 64;
    const bool dev = is_device_ptr(scalars);
    uint64_t *outs[3] = {zero, one, other};
    bool on_host[3];
    size_t host_outs = 0;
    for (int k = 0; k < 3; k++) {
        on_host[k] = outs[k] && !is_device_ptr(outs[k]);
        host_outs += on_host[k];
    }
    const size_t bits_bytes = align_up(host_outs * words * 8);
    size_t bytes = align_up(64) + bits_bytes + (dev ? 0 : align_up(n * 32));
    CUZK__CUDA_TRY(cudaMalloc(mem, bytes));
    char *p = static_cast<char *>(*mem);
    unsigned long long *cnt = reinterpret_cast<unsigned long long *>(p);
    uint64_t *d_bits[3], *next = reinterpret_cast<uint64_t *>(p + align_up(64));
    for (int k = 0; k < 3; k++) {
        d_bits[k] = on_host[k] ? next : outs[k];
        if (on_host[k]) next += words;
    }
    const uint64_t *ds = scalars;
    if (!dev) {
        uint64_t *s = reinterpret_cast<uint64_t *>(p + align_up(64) + bits_bytes);
        CUZK__CUDA_TRY(cudaMemcpy(s, scalars, n * 32, cudaMemcpyHostToDevice));
        ds = s;
    }
    cuzk__gpu_msm_counts c;
    cuzk_status st = classify_dev(d_bits, cnt, ds, n, &c);
    if (st != CUZK_OK) return st;
    for (int k = 0; k < 3; k++)
        if (on_host[k])
            CUZK__CUDA_TRY(
                d2h(outs[k], d_bits[k], words * 8));
    if (counts) *counts = c;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm_classify(uint64_t *zero, uint64_t *one, uint64_t *other,
                                              cuzk__gpu_msm_counts *counts,
                                              const uint64_t *scalars, size_t n) {
    if (counts) counts->zero = counts->one = counts->other = 0;
    if (n == 0) return CUZK_OK;
    if (!scalars || n >= ((size_t)1 << 31)) return CUZK_ERR_INVALID_ARG;
    void *mem = nullptr;
    cuzk_status st = classify_body(&mem, zero, one, other, counts, scalars, n);
    if (mem) (void)cudaFree(mem);
    return st;
}

template <class G>
static cuzk_status with_classification(cuzk__gpu_msm_bases *b, uint64_t *result,
                                       cuzk__gpu_msm_counts *counts, const uint64_t *scalars,
                                       size_t n) {
    const size_t words = (n + 63) / 64;
    const bool host_scalars = !is_device_ptr(scalars);
    /* work area: [scalars][bitmaps one, other][counts][the larger of msm/batch-add] */
    size_t front = (host_scalars ? align_up(n * 32) : 0) + align_up(2 * words * 8) + align_up(64);
    size_t r1 = 0;
    /* the others: a masked MSM, planned for all n points (their count is
     * only known after the classification, when the area is already laid out) */
    cuzk_status st = msm_rest_bytes(b, n, true, n, &r1);
    const size_t r2 = batch_add_rest_bytes(b, n);
    if (st == CUZK_OK) st = ws_reserve(b, front + (r1 > r2 ? r1 : r2));
    if (st != CUZK_OK) return st;
    char *p = static_cast<char *>(b->work->p);
    const uint64_t *ds = scalars;
    if (host_scalars) {
        CUZK__CUDA_TRY(cudaMemcpy(p, scalars, n * 32, cudaMemcpyHostToDevice));
        ds = reinterpret_cast<const uint64_t *>(p);
        p += align_up(n * 32);
    }
    uint64_t *ones = reinterpret_cast<uint64_t *>(p), *others = ones + words;
    p += align_up(2 * words * 8);
    unsigned long long *cnt = reinterpret_cast<unsigned long long *>(p);
    uint64_t *const d_bits[3] = {nullptr, ones, others};
    cuzk__gpu_msm_counts c;
    st = classify_dev(d_bits, cnt, ds, n, &c);
    if (st != CUZK_OK) return st;
    if (counts) *counts = c;
    uint64_t r_one[G::JAC_WORDS], r_other[G::JAC_WORDS];
    memset(r_one, 0, sizeof r_one);
    memset(r_other, 0, sizeof r_other);
    if (c.one) {
        st = batch_add_dev<G>(b, r_one, n, ones, front);
        if (st != CUZK_OK) return st;
    }
    if (c.other) {
        st = msm_dev<G>(b, r_other, ds, n, others, n, front);
        if (st != CUZK_OK) return st;
    }
    G::jac_add(result, r_one, r_other);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm_with_classification(cuzk__gpu_msm_bases *b,
                                                         uint64_t *result,
                                                         cuzk__gpu_msm_counts *counts,
                                                         const uint64_t *scalars, size_t n) {
    if (!b || !result || n > b->n || (n && !scalars)) return CUZK_ERR_INVALID_ARG;
    if (counts) counts->zero = counts->one = counts->other = 0;
    if (n == 0) {
        memset(result, 0, (b->group == CUZK__GPU_MSM_G1 ? 18 : 36) * 8);
        return CUZK_OK;
    }
    return b->group == CUZK__GPU_MSM_G1 ? with_classification<grp_g1>(b, result, counts, scalars, n)
                                        : with_classification<grp_g2>(b, result, counts, scalars, n);
}
