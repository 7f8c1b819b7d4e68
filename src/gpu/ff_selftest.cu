/*
 * ff_selftest.cu — elementwise field kernels behind the C entry points of
 * gpu.h, for comparing the device arithmetic (ff.cuh, and ec.cuh's
 * out-of-line inversion) with the CPU bit for bit, and a multiplication
 * throughput kernel.
 */
#include <stdint.h>

#include "gpu/check.cuh"
#include "gpu/ec.cuh" /* finv */
#include "gpu/ff.cuh"

/* Everything but the extern "C" entry points is static: nvcc turns an
 * anonymous namespace into a uniquely named global one, whose functions would
 * be exported. */
using namespace cuzk_gpu;

static constexpr unsigned THREADS = 256;

/* Whole-element 16-byte loads and stores (every element size is a multiple
 * of 16 bytes and cudaMalloc aligns to 256). */
template <class E>
static __device__ __forceinline__ E load(const E *p) {
    static_assert(sizeof(E) % 16 == 0, "element size");
    E r;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
#pragma unroll
    for (unsigned k = 0; k < sizeof(E) / 16; k++) d[k] = s[k];
    return r;
}

template <class E>
static __device__ __forceinline__ void store(E *p, const E &v) {
    const uint4 *s = reinterpret_cast<const uint4 *>(&v);
    uint4 *d = reinterpret_cast<uint4 *>(p);
#pragma unroll
    for (unsigned k = 0; k < sizeof(E) / 16; k++) d[k] = s[k];
}

/* Operations as types, so each kernel instantiation inlines its own. */
struct op_mul {
    static constexpr bool binary = true;
    template <class E>
    __device__ static void apply(E &r, const E &a, const E &b) { mul(r, a, b); }
};
struct op_sqr {
    static constexpr bool binary = false;
    template <class E>
    __device__ static void apply(E &r, const E &a, const E &) { sqr(r, a); }
};
/* Two Fp squarings in one sqr_pair, an Fp2 element carrying the pair. */
struct op_sqr_pair {
    static constexpr bool binary = false;
    __device__ static void apply(fp2_t &r, const fp2_t &a, const fp2_t &) {
        sqr_pair(r.c0, a.c0, r.c1, a.c1);
    }
};
/* Two Fp multiplications in one mul_pair, Fp2 elements carrying the pairs. */
struct op_mul_pair {
    static constexpr bool binary = true;
    __device__ static void apply(fp2_t &r, const fp2_t &a, const fp2_t &b) {
        mul_pair(r.c0, a.c0, b.c0, r.c1, a.c1, b.c1);
    }
};
struct op_add {
    static constexpr bool binary = true;
    template <class E>
    __device__ static void apply(E &r, const E &a, const E &b) { add(r, a, b); }
};
struct op_sub {
    static constexpr bool binary = true;
    template <class E>
    __device__ static void apply(E &r, const E &a, const E &b) { sub(r, a, b); }
};
struct op_neg {
    static constexpr bool binary = false;
    template <class E>
    __device__ static void apply(E &r, const E &a, const E &) { neg(r, a); }
};
struct op_inv {
    static constexpr bool binary = false;
    template <class E>
    __device__ static void apply(E &r, const E &a, const E &) { finv(r, a); }
};

template <class E, class Op>
static __global__ void elementwise_kernel(E *out, const E *a, const E *b, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        E x = load(a + i), y, r;
        if (Op::binary) y = load(b + i);
        Op::apply(r, x, y);
        store(out + i, r);
    }
}

static unsigned grid_for(size_t n) {
    size_t blocks = (n + THREADS - 1) / THREADS;
    return (unsigned)(blocks < (1u << 20) ? blocks : (1u << 20)); /* grid-stride beyond */
}

/* d[0] = a, d[1] = b, d[2] = out on the device; the caller frees them. */
template <class E, class Op>
static cuzk_status elementwise_body(void *d[3], uint64_t *out, const uint64_t *a,
                                    const uint64_t *b, size_t n) {
    const size_t bytes = n * sizeof(E);
    CUZK__CUDA_TRY(cudaMalloc(&d[0], bytes));
    CUZK__CUDA_TRY(cudaMalloc(&d[2], bytes));
    CUZK__CUDA_TRY(cudaMemcpy(d[0], a, bytes, cudaMemcpyHostToDevice));
    if (Op::binary) {
        CUZK__CUDA_TRY(cudaMalloc(&d[1], bytes));
        CUZK__CUDA_TRY(cudaMemcpy(d[1], b, bytes, cudaMemcpyHostToDevice));
    }
    /* Poison the output: all-ones limbs are never a reduced element, so an
     * element the kernel fails to write cannot match the CPU. */
    CUZK__CUDA_TRY(cudaMemset(d[2], 0xff, bytes));
    elementwise_kernel<E, Op><<<grid_for(n), THREADS>>>(
        static_cast<E *>(d[2]), static_cast<const E *>(d[0]), static_cast<const E *>(d[1]), n);
    CUZK__CUDA_TRY(cudaGetLastError());
    CUZK__CUDA_TRY(cudaMemcpy(out, d[2], bytes, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

template <class E, class Op>
static cuzk_status elementwise(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n) {
    if (n == 0) return CUZK_OK;
    if (out == nullptr || a == nullptr || (Op::binary && b == nullptr))
        return CUZK_ERR_INVALID_ARG;
    if (n > SIZE_MAX / sizeof(E)) return CUZK_ERR_INVALID_ARG;
    void *d[3] = {nullptr, nullptr, nullptr};
    cuzk_status st = elementwise_body<E, Op>(d, out, a, b, n);
    for (int i = 0; i < 3; i++)
        if (d[i]) (void)cudaFree(d[i]); /* a failure here has nowhere to go */
    return st;
}

/* ---- throughput ----------------------------------------------------------- */

/* Pseudo-random reduced elements: mix32 (ff.cuh) of (seed, index, limb),
 * with the top limb masked below the modulus's top limb. */
template <class P>
static __device__ __forceinline__ void fill_one(fe<P> &r, uint64_t key) {
#pragma unroll
    for (int j = 0; j < P::N; j++) r.v[j] = mix32(key * 64 + (uint64_t)j);
    r.v[P::N - 1] &= P::mod(P::N - 1) >> 1; /* < top limb of m, so r < m */
}
static __device__ __forceinline__ void fill_one(fp2_t &r, uint64_t key) {
    fill_one(r.c0, 2 * key);
    fill_one(r.c1, 2 * key + 1);
}

template <class E>
static __global__ void fill_kernel(E *out, size_t n, uint64_t seed) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        E r;
        fill_one(r, seed * 0x100000000ULL + i);
        store(out + i, r);
    }
}

/* What a chain kernel runs per step: the field's own mul on one chain; two
 * independent CIOS Fr chains per thread; or, as a probe of the FP64 pipe,
 * FP64_OPS fused multiply-adds in four independent chains (the count of an Fr
 * product with six 50-bit limbs and its column sums kept in doubles: 72
 * partial products x 4), alone or beside one CIOS product. */
enum chain_mode { CHAIN_MUL, CHAIN_CIOS2, CHAIN_FP64, CHAIN_CIOS_FP64, CHAIN_LAZY, CHAIN_LAZY2 };
static constexpr int FP64_OPS = 288;

/* FP64_OPS / 4 steps of four bounded chains d = d k + e */
static __device__ __forceinline__ void fp64_steps(double (&d)[4]) {
#pragma unroll
    for (int j = 0; j < FP64_OPS / 4; j++)
#pragma unroll
        for (int q = 0; q < 4; q++) d[q] = fma(d[q], 0.9999999, 1e-3 * (q + 1));
}

/* x[i] = x[i] * y[i], iters times: one dependent chain per thread (two for
 * CHAIN_CIOS2 and CHAIN_LAZY2: x[i] and x[i + n/2]); at full occupancy the
 * many resident warps hide the chains' latency (the lazy rows also run at
 * the MSM level kernel's occupancy). */
template <class E, int MODE>
static __global__ void mul_chain_kernel(E *x, const E *y, size_t n, unsigned iters) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    if constexpr (MODE == CHAIN_MUL || MODE == CHAIN_LAZY) {
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            E a = load(x + i);
            const E b = load(y + i);
#pragma unroll 1
            for (unsigned k = 0; k < iters; k++) {
                if constexpr (MODE == CHAIN_LAZY)
                    mul_lazy(a, a, b);
                else
                    mul(a, a, b);
            }
            store(x + i, a);
        }
    } else if constexpr (MODE == CHAIN_FP64 || MODE == CHAIN_CIOS_FP64) {
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            E a = load(x + i);
            const E b = load(y + i);
            double d[4];
#pragma unroll
            for (int q = 0; q < 4; q++) d[q] = (double)a.v[q];
#pragma unroll 1
            for (unsigned k = 0; k < iters; k++) {
                if (MODE == CHAIN_CIOS_FP64) mul_cios(a, a, b);
                fp64_steps(d);
            }
#pragma unroll
            for (int q = 0; q < 4; q++) a.v[q] ^= (uint32_t)(long long)d[q]; /* keep d live */
            store(x + i, a);
        }
    } else {
        const size_t h = n / 2;
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < h; i += stride) {
            E a = load(x + i), c = load(x + h + i);
            const E b = load(y + i);
#pragma unroll 1
            for (unsigned k = 0; k < iters; k++) {
                if constexpr (MODE == CHAIN_LAZY2) {
                    mul_pair_cios<fp_params, true>(a, a, b, c, c, b);
                } else {
                    mul_cios(a, a, b);
                    mul_cios(c, c, b);
                }
            }
            store(x + i, a);
            store(x + h + i, c);
        }
    }
}

#define CUZK__BENCH_MAX_REPS 64

/* d[0] = x, d[1] = y, ev[0..1] = events; the caller frees them. */
template <class E, int MODE>
static cuzk_status bench_mul_body(void *d[2], cudaEvent_t ev[2], cuzk__gpu_bench_result *res,
                                  size_t n, unsigned iters, unsigned reps) {
    const size_t bytes = n * sizeof(E);
    CUZK__CUDA_TRY(cudaMalloc(&d[0], bytes));
    CUZK__CUDA_TRY(cudaMalloc(&d[1], bytes));
    CUZK__CUDA_TRY(cudaEventCreate(&ev[0]));
    CUZK__CUDA_TRY(cudaEventCreate(&ev[1]));
    E *x = static_cast<E *>(d[0]), *y = static_cast<E *>(d[1]);
    fill_kernel<E><<<grid_for(n), THREADS>>>(x, n, 1);
    CUZK__CUDA_TRY(cudaGetLastError());
    fill_kernel<E><<<grid_for(n), THREADS>>>(y, n, 2);
    CUZK__CUDA_TRY(cudaGetLastError());
    /* the lazy rows in blocks of 128 threads, as the MSM's level kernel: n sets
     * the warps an SM (n = 512 x SMs: its 16) */
    const unsigned bt = MODE == CHAIN_LAZY || MODE == CHAIN_LAZY2 ? 128 : THREADS;
    const size_t threads = MODE == CHAIN_CIOS2 || MODE == CHAIN_LAZY2 ? n / 2 : n;
    const unsigned gb = (unsigned)((threads + bt - 1) / bt);
    mul_chain_kernel<E, MODE><<<gb, bt>>>(x, y, n, iters); /* warm-up */
    CUZK__CUDA_TRY(cudaGetLastError());
    CUZK__CUDA_TRY(cudaDeviceSynchronize());
    double ms[CUZK__BENCH_MAX_REPS] = {0};
    for (unsigned r = 0; r < reps; r++) {
        CUZK__CUDA_TRY(cudaEventRecord(ev[0]));
        mul_chain_kernel<E, MODE><<<gb, bt>>>(x, y, n, iters);
        CUZK__CUDA_TRY(cudaGetLastError());
        CUZK__CUDA_TRY(cudaEventRecord(ev[1]));
        CUZK__CUDA_TRY(cudaEventSynchronize(ev[1]));
        float t = 0;
        CUZK__CUDA_TRY(cudaEventElapsedTime(&t, ev[0], ev[1]));
        /* insertion into the sorted prefix */
        unsigned k = r;
        for (; k > 0 && ms[k - 1] > t; k--) ms[k] = ms[k - 1];
        ms[k] = t;
    }
    res->ms_min = ms[0];
    res->ms_median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    const size_t muls = MODE == CHAIN_CIOS2 || MODE == CHAIN_LAZY2 ? n / 2 * 2 : n;
    res->mul_per_s = (double)muls * iters / (res->ms_median * 1e-3);
    return CUZK_OK;
}

template <class E, int MODE = CHAIN_MUL>
static cuzk_status bench_mul(cuzk__gpu_bench_result *res, size_t n, unsigned iters,
                             unsigned reps) {
    if (res == nullptr || n == 0 || iters == 0 || reps == 0 || reps > CUZK__BENCH_MAX_REPS ||
        n > SIZE_MAX / sizeof(E))
        return CUZK_ERR_INVALID_ARG;
    void *d[2] = {nullptr, nullptr};
    cudaEvent_t ev[2] = {nullptr, nullptr};
    cuzk_status st = bench_mul_body<E, MODE>(d, ev, res, n, iters, reps);
    for (int i = 0; i < 2; i++) {
        if (d[i]) (void)cudaFree(d[i]);
        if (ev[i]) (void)cudaEventDestroy(ev[i]);
    }
    return st;
}


#define CUZK__GPU_BINARY(name, E, Op)                                                         \
    extern "C" cuzk_status name(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n) { \
        return elementwise<E, Op>(out, a, b, n);                                              \
    }
#define CUZK__GPU_UNARY(name, E, Op)                                            \
    extern "C" cuzk_status name(uint64_t *out, const uint64_t *a, size_t n) {  \
        return elementwise<E, Op>(out, a, nullptr, n);                          \
    }

CUZK__GPU_BINARY(cuzk__gpu_fr_mul, fr_t, op_mul)
CUZK__GPU_UNARY(cuzk__gpu_fr_sqr, fr_t, op_sqr)
CUZK__GPU_BINARY(cuzk__gpu_fr_add, fr_t, op_add)
CUZK__GPU_BINARY(cuzk__gpu_fr_sub, fr_t, op_sub)
CUZK__GPU_UNARY(cuzk__gpu_fr_neg, fr_t, op_neg)
CUZK__GPU_BINARY(cuzk__gpu_fp_mul, fp_t, op_mul)
CUZK__GPU_UNARY(cuzk__gpu_fp_sqr, fp_t, op_sqr)
CUZK__GPU_BINARY(cuzk__gpu_fp_add, fp_t, op_add)
CUZK__GPU_BINARY(cuzk__gpu_fp_sub, fp_t, op_sub)
CUZK__GPU_UNARY(cuzk__gpu_fp_neg, fp_t, op_neg)
CUZK__GPU_UNARY(cuzk__gpu_fp_inv, fp_t, op_inv)
CUZK__GPU_BINARY(cuzk__gpu_fp2_mul, fp2_t, op_mul)
CUZK__GPU_UNARY(cuzk__gpu_fp2_sqr, fp2_t, op_sqr)
CUZK__GPU_UNARY(cuzk__gpu_fp2_inv, fp2_t, op_inv)
CUZK__GPU_UNARY(cuzk__gpu_fp_sqr_pair, fp2_t, op_sqr_pair)
CUZK__GPU_BINARY(cuzk__gpu_fp_mul_pair, fp2_t, op_mul_pair)

extern "C" cuzk_status cuzk__gpu_bench_mul(cuzk__gpu_bench_result *res, cuzk__gpu_field field,
                                           size_t n, unsigned iters, unsigned reps) {
    switch (field) {
    case CUZK__GPU_FR:
        return bench_mul<fr_t>(res, n, iters, reps);
    case CUZK__GPU_FP:
        return bench_mul<fp_t>(res, n, iters, reps);
    case CUZK__GPU_FP2:
        return bench_mul<fp2_t>(res, n, iters, reps);
    case CUZK__GPU_FR_CIOS2:
        return bench_mul<fr_t, CHAIN_CIOS2>(res, n, iters, reps);
    case CUZK__GPU_FP64_PROBE:
        return bench_mul<fr_t, CHAIN_FP64>(res, n, iters, reps);
    case CUZK__GPU_FR_CIOS_FP64_PROBE:
        return bench_mul<fr_t, CHAIN_CIOS_FP64>(res, n, iters, reps);
    case CUZK__GPU_FP_LAZY:
        return bench_mul<fp_t, CHAIN_LAZY>(res, n, iters, reps);
    case CUZK__GPU_FP_LAZY2:
        return bench_mul<fp_t, CHAIN_LAZY2>(res, n, iters, reps);
    }
    return CUZK_ERR_INVALID_ARG;
}
