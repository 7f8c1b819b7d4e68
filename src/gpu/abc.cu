/*
 * abc.cu — the device steps of the abc keys (gpu_abc_kernels.h): the scan of
 * an input's a, b, c and aux (canonical values, a_i b_i = c_i), the zero
 * padding of a, b, c to the domain, and the gather of a query's scalars by
 * a density bitmap with per-word ranks. All are memory-bound single passes
 * on the legacy default stream.
 */
#include <stdint.h>

#include "gpu/check.cuh"
#include "gpu/ec.cuh" /* ld16 */
#include "gpu/ff.cuh"
#include "gpu/gpu_abc_kernels.h"

using namespace cuzk_gpu;

static constexpr unsigned THREADS = 256;

static unsigned grid_for(uint64_t n) {
    uint64_t blocks = (n + THREADS - 1) / THREADS;
    if (blocks == 0) blocks = 1;
    return (unsigned)(blocks < (1u << 20) ? blocks : (1u << 20)); /* grid-stride beyond */
}

/* x < r, limbs compared from the top (the values are public to the prover's
 * timing anyway: the MSMs are variable time in them) */
static __device__ __forceinline__ bool below_r(const fr_t &x) {
#pragma unroll
    for (int i = 7; i >= 0; i--)
        if (x.v[i] != fr_params::mod(i)) return x.v[i] < fr_params::mod(i);
    return false;
}

/* first[0..2]: a, b, c not canonical; first[3]: aux; first[4]: a b != c */
static __global__ void scan_kernel(const fr_t *a, const fr_t *b, const fr_t *c, uint64_t m,
                                   const fr_t *aux, uint64_t n_aux,
                                   unsigned long long *first) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    const uint64_t n = m > n_aux ? m : n_aux;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (i < m) {
            const fr_t x = ld16(&a[i]), y = ld16(&b[i]), z = ld16(&c[i]);
            const bool ok_a = below_r(x), ok_b = below_r(y), ok_c = below_r(z);
            if (!ok_a) atomicMin(&first[0], (unsigned long long)i);
            if (!ok_b) atomicMin(&first[1], (unsigned long long)i);
            if (!ok_c) atomicMin(&first[2], (unsigned long long)i);
            if (ok_a && ok_b && ok_c) {
                fr_t p;
                mul(p, x, y);
                if (!fe_equal(p, z)) atomicMin(&first[4], (unsigned long long)i);
            }
        }
        if (i < n_aux && !below_r(ld16(&aux[i])))
            atomicMin(&first[3], (unsigned long long)i);
    }
}

static __global__ void gather_kernel(fr_t *out, const fr_t *in, const uint64_t *words,
                                     const uint32_t *rank, uint64_t nbits) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < nbits; j += stride) {
        const uint64_t w = words[j >> 6];
        const unsigned bit = (unsigned)(j & 63);
        if ((w >> bit) & 1) {
            const uint64_t below = w & ((1ull << bit) - 1); /* bit 0: none below */
            const uint64_t k = (uint64_t)rank[j >> 6] + (uint64_t)__popcll(below);
            const uint4 *s = reinterpret_cast<const uint4 *>(&in[j]);
            uint4 *d = reinterpret_cast<uint4 *>(&out[k]);
            d[0] = s[0];
            d[1] = s[1];
        }
    }
}

extern "C" cuzk_status cuzk__gpu_abc_scan(uint64_t *first, const void *a, const void *b,
                                          const void *c, uint64_t m, const void *aux,
                                          uint64_t n_aux, uint64_t out[5]) {
    if (!first || !out || (m && (!a || !b || !c)) || (n_aux && !aux)) return CUZK_ERR_INVALID_ARG;
    CUZK__CUDA_TRY(cudaMemsetAsync(first, 0xff, 5 * sizeof(uint64_t), 0));
    const uint64_t n = m > n_aux ? m : n_aux;
    if (n) {
        scan_kernel<<<grid_for(n), THREADS, 0, 0>>>(
            (const fr_t *)a, (const fr_t *)b, (const fr_t *)c, m, (const fr_t *)aux, n_aux,
            reinterpret_cast<unsigned long long *>(first));
        CUZK__CUDA_TRY(cudaGetLastError());
    }
    CUZK__CUDA_TRY(cuzk__sync_copy(out, first, 5 * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_abc_pad(void *abc, uint64_t n, uint64_t m) {
    if (!abc || m > n) return CUZK_ERR_INVALID_ARG;
    if (m == n) return CUZK_OK;
    for (int k = 0; k < 3; k++) {
        char *tail = static_cast<char *>(abc) + ((uint64_t)k * n + m) * sizeof(fr_t);
        CUZK__CUDA_TRY(cudaMemsetAsync(tail, 0, (size_t)(n - m) * sizeof(fr_t), 0));
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_abc_gather(void *out, const void *in, const uint64_t *words,
                                            const uint32_t *rank, uint64_t nbits) {
    if (nbits == 0) return CUZK_OK;
    if (!out || !in || !words || !rank) return CUZK_ERR_INVALID_ARG;
    gather_kernel<<<grid_for(nbits), THREADS, 0, 0>>>((fr_t *)out, (const fr_t *)in, words, rank,
                                                       nbits);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_abc_sync(void) {
    CUZK__CUDA_TRY(cudaStreamSynchronize(0));
    return CUZK_OK;
}
