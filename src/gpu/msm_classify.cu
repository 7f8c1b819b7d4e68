/*
 * msm_classify.cu — the scalars' 0/1/other classification on the device
 * (gpu_msm.h cuzk__gpu_msm_classify: bitmaps and counts, so that a proof's
 * ones go to the batch-add and only the others to the MSM), the sum of the
 * two halves on the host, and the count of a device bitmap's set bits that
 * sizes a masked MSM.
 */
#include "gpu/msm_impl.cuh"

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
extern "C" cuzk_status cuzk__gpu_msm_popcount_dev(cuzk__gpu_msm_bases *b,
                                                  const uint64_t *d_bitmap, size_t n,
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

/* Classification into device bitmaps of (n + 63) / 64 words (zero, one,
 * other; NULL: not wanted) and counts. */
extern "C" cuzk_status cuzk__gpu_msm_classify_dev(uint64_t *const d_bits[3],
                                                  unsigned long long *d_counts,
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
    cuzk_status st = cuzk__gpu_msm_classify_dev(d_bits, cnt, ds, n, &c);
    if (st != CUZK_OK) return st;
    for (int k = 0; k < 3; k++)
        if (on_host[k])
            CUZK__CUDA_TRY(
                d2h(outs[k], d_bits[k], words * 8));
    if (counts) *counts = c;
    return CUZK_OK;
}

template <class G>
static void add_halves(uint64_t *result, const uint64_t *ones, const uint64_t *others,
                       const cuzk__gpu_msm_counts *c) {
    uint64_t x[G::JAC_WORDS], y[G::JAC_WORDS];
    memcpy(x, ones, sizeof x);
    memcpy(y, others, sizeof y);
    if (!c->one) G::jac_set_inf(x);
    if (!c->other) G::jac_set_inf(y);
    G::jac_add(x, x, y);
    memcpy(result, x, sizeof x);
}

extern "C" void cuzk__gpu_msm_add_halves(cuzk__gpu_msm_group group, uint64_t *result,
                                         const uint64_t *ones, const uint64_t *others,
                                         const cuzk__gpu_msm_counts *counts) {
    if (group == CUZK__GPU_MSM_G2)
        add_halves<grp_g2>(result, ones, others, counts);
    else
        add_halves<grp_g1>(result, ones, others, counts);
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

