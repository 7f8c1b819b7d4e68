/*
 * msm_sort.cu — steps 1-3 of the GPU MSM (msm_impl.cuh): the scalars' Booth
 * digits and the entries (point | sign << 31) sorted by bin, by a radix sort
 * of (bin, entry) pairs or by counting with atomics; and the multi-block
 * exclusive scan that the atomic sort, the affine levels and the batch-add
 * share. VARIABLE TIME (public data, as the CPU MSM).
 */
/* CUB (CCCL, shipped with the toolkit) for the radix sort. No NVTX ranges
 * (they would add ~70 exported nvtx* symbols to the library) and no C++
 * exceptions (none may cross our C edge; CUB reports through return codes). */
#define CCCL_DISABLE_NVTX
#define CCCL_DISABLE_EXCEPTIONS
#include <cub/device/device_radix_sort.cuh>

#include "gpu/msm_impl.cuh"

/* ---- sort by atomics ------------------------------------------------------------------
 *
 *   1. digits_kernel<count>: Booth digits of every scalar (the CPU's
 *      recoding, msm.h), one atomic increment per nonzero digit into its
 *      bin's count; a participating scalar >= 2^255 raises a flag.
 *   2. cuzk__gpu_msm_excl_scan: exclusive prefix sum of the counts = the
 *      start of each bin in the sorted entry array (zero digits have no
 *      entry at all).
 *   3. digits_kernel<scatter>: the digits again; each nonzero one appends
 *      (point index | sign << 31) to its bin (atomic cursor). The order
 *      inside a bin is arbitrary, which only changes the representation of
 *      the bucket sum, not the point.
 */

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

/*
 * start[g] = sum of cnt[0..g) for g <= nbins, cursor[g] = start[g], over
 * many blocks (c = 22 has 25M bins): a tile of SCAN_TILE counts per block,
 * SCAN_ITEMS contiguous ones per thread. Pass 1: tile sums. Pass 2 (one
 * block): exclusive scan of the tile sums in place, and start[nbins] =
 * total. Pass 3: each tile's scan plus its offset into start and cursor.
 */

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

extern "C" cuzk_status cuzk__gpu_msm_excl_scan(const uint32_t *cnt, uint32_t n, uint32_t *tsum,
                                               uint32_t *start, uint32_t *cursor) {
    const uint32_t ntiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    scan_tiles_kernel<<<ntiles, SCAN_THREADS>>>(cnt, n, tsum);
    CUZK__CUDA_TRY(cudaGetLastError());
    scan_sums_kernel<<<1, SCAN_THREADS>>>(tsum, ntiles, start, n);
    CUZK__CUDA_TRY(cudaGetLastError());
    scan_apply_kernel<<<ntiles, SCAN_THREADS>>>(cnt, n, tsum, start, cursor);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

/* ---- sort by radix --------------------------------------------------------------------
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

/* Steps 1-3 by atomics: counts, starts, scatter
 * (atomic cursors). *total = the entries; *range: a scalar >= 2^255. */
extern "C" cuzk_status cuzk__gpu_msm_sort_atomics(const msm_plan *pp, const uint64_t *d_scalars,
                                                  size_t n, const uint64_t *d_mask, uint32_t *cnt,
                                                  const msm_area *a, uint32_t *total, bool *range,
                                                  msm_prof *prof) {
    const msm_plan &p = *pp;
    const uint32_t nbins = p.nbins;
    uint32_t *start = a->start, *cursor = a->cursor, *flag = a->start + nbins + 1;
    /* counted into cnt, which the scan reads to write the starts and the cursors */
    CUZK__CUDA_TRY(cudaMemset(cnt, 0, (size_t)nbins * 4));
    CUZK__CUDA_TRY(cudaMemset(flag, 0, 4));
    digits_kernel<false><<<grid(n, LIGHT_THREADS), LIGHT_THREADS>>>(
        d_scalars, d_mask, (uint32_t)n, p.c, p.nwin, p.k, p.stride, cnt, nullptr, flag);
    CUZK__CUDA_TRY(cudaGetLastError());
    cuzk_status sst = cuzk__gpu_msm_excl_scan(cnt, nbins, a->tsum, start, cursor);
    if (sst != CUZK_OK) return sst;
    uint32_t hdr[2];
    CUZK__CUDA_TRY(d2h(hdr, start + nbins, 8));
    prof_mark(prof, "count+scan");
    *total = hdr[0];
    *range = hdr[1] != 0;
    if (*range || *total == 0) return CUZK_OK;
    digits_kernel<true><<<grid(n, LIGHT_THREADS), LIGHT_THREADS>>>(
        d_scalars, d_mask, (uint32_t)n, p.c, p.nwin, p.k, p.stride, cursor, a->vals, flag);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

/* Steps 1-3 by radix ("sort by radix" above): pairs, radix sort, starts.
 * *vals = the sorted values (one of the two buffers). */
extern "C" cuzk_status cuzk__gpu_msm_sort_radix(const msm_plan *pp, const uint64_t *d_scalars,
                                                size_t n, const uint64_t *d_mask, const msm_area *a,
                                                const uint32_t **vals, uint32_t *total, bool *range,
                                                msm_prof *prof) {
    const msm_plan &p = *pp;
    const uint32_t nbins = p.nbins, m = (uint32_t)(n * p.nwin); /* < 2^32: checked */
    uint32_t *flag = a->start + nbins + 1;
    CUZK__CUDA_TRY(cudaMemset(flag, 0, 4));
    digits_keys_kernel<<<grid(n, LIGHT_THREADS), LIGHT_THREADS>>>(
        d_scalars, d_mask, (uint32_t)n, p.c, p.nwin, p.k, p.stride, a->sk[0], a->sv[0], flag);
    CUZK__CUDA_TRY(cudaGetLastError());
    prof_mark(prof, "digits");
    cub::DoubleBuffer<uint32_t> keys(a->sk[0], a->sk[1]), sv(a->sv[0], a->sv[1]);
    size_t tmp = p.sort_tmp;
    CUZK__CUDA_TRY(cub::DeviceRadixSort::SortPairs(a->sort_tmp, tmp, keys, sv, m, 0, p.sort_bits));
    prof_mark(prof, "sort");
    bounds_kernel<<<grid((size_t)nbins + 1, LIGHT_THREADS), LIGHT_THREADS>>>(keys.Current(), m,
                                                                           nbins, a->start);
    CUZK__CUDA_TRY(cudaGetLastError());
    uint32_t hdr[2];
    CUZK__CUDA_TRY(d2h(hdr, a->start + nbins, 8));
    *vals = sv.Current();
    *total = hdr[0];
    *range = hdr[1] != 0;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm_radix_temp_bytes(uint32_t pairs, int bits, size_t *bytes) {
    cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr), vals(nullptr, nullptr);
    *bytes = 0;
    CUZK__CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, *bytes, keys, vals, pairs, 0, bits));
    return CUZK_OK;
}
