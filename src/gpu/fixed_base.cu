/*
 * fixed_base.cu — fixed-base multiplication k[i]·G in G1 and G2 on the
 * device from the CPU's table (gpu_fixed_base.h). VARIABLE TIME.
 *
 * Per chunk of m points, nthreads device threads (the resident ones, or
 * fewer for small m); thread t takes the points t, t + nthreads, ... so
 * that neighbouring threads touch neighbouring memory.
 *   forward   for each point: the scalar (Montgomery form converted with
 *             one Fr multiplication by 1), the CPU's signed digits
 *             (fixed_base.h: w = bits jc-1 .. jc+c-1, d = (w >> 1) + (w & 1)
 *             - 2^c (w >> c)), one XYZZ mixed addition of the table entry
 *             (negated for d < 0) per nonzero digit; X, Y go to out, ZZ, ZZZ
 *             and the running product P of the thread's earlier ZZ·ZZZ to
 *             scratch (a point at infinity, ZZ = 0, stays out of P);
 *   inverse   one inversion of the thread's product (a binary GCD);
 *   backward  the thread's points in reverse: 1/(ZZ ZZZ) = inv·P_before,
 *             inv *= ZZ ZZZ, x = X·ZZZ/(ZZ ZZZ), y = Y·ZZ/(ZZ ZZZ); an
 *             infinity is written as (0, 0).
 * Cost per point: one mixed addition (8M + 2S) per nonzero digit but the
 * first (a copy), 9M to make it affine, and 1/(points per thread) of an
 * inversion.
 *
 * Host pipeline per call, chunks i = 0, 1, ... alternating between two
 * buffer sets and two streams: copy chunk i's scalars into pinned memory
 * (host threads), upload, kernel, download into pinned memory (all async on
 * stream i & 1); then wait for chunk i-1 and copy its points out while chunk
 * i runs. Set i & 1 was last used by chunk i-2, which chunk i-1's iteration
 * already waited for.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/check.cuh"
#include "gpu/ec.cuh"
#include "gpu/gpu_fixed_base.h"
#include "util/mem.h"

using namespace cuzk_gpu;

static constexpr unsigned FB_THREADS = 128; /* curve kernels: many registers */
static constexpr unsigned FB_MAX_C = 16;    /* CUZK_FIXED_BASE_MAX_C of fixed_base.h */
static constexpr unsigned COPY_THREADS_MAX = 8; /* host memory bandwidth is saturated by then */

/* ---- device code ------------------------------------------------------------- */

struct __align__(16) scalar_t {
    uint64_t w[4];
};
static_assert(sizeof(scalar_t) == 32, "host scalar layout");

/* Limb i of k without indexing a local array (i is a run-time value). */
static __device__ __forceinline__ uint64_t limb_at(const uint64_t (&k)[4], unsigned i) {
    uint64_t r = k[0];
    r = i == 1 ? k[1] : r;
    r = i == 2 ? k[2] : r;
    r = i == 3 ? k[3] : r;
    return r;
}

/* cuzk__fixed_base_digit of fixed_base.h, the same formula and edge cases. */
static __device__ __forceinline__ int fb_digit(const uint64_t (&k)[4], unsigned j, unsigned c) {
    const uint64_t mask = ((uint64_t)1 << (c + 1)) - 1;
    uint64_t w;
    if (j == 0) {
        w = (k[0] << 1) & mask;
    } else {
        const unsigned s = j * c - 1, limb = s / 64, off = s % 64;
        if (limb >= 4) return 0;
        w = limb_at(k, limb) >> off;
        if (off + c + 1 > 64 && limb + 1 < 4) w |= limb_at(k, limb + 1) << (64 - off);
        w &= mask;
    }
    return (int)((w >> 1) + (w & 1)) - (int)((w >> c) << c);
}

/* The plain limbs of scalar i: as stored, or a Montgomery-form Fr times 1
 * (one Montgomery reduction: a R * 1 / R = a). */
static __device__ __forceinline__ void load_scalar(uint64_t (&k)[4], const scalar_t *p,
                                                   bool mont) {
    const scalar_t s = ld16(p);
    if (!mont) {
#pragma unroll
        for (int i = 0; i < 4; i++) k[i] = s.w[i];
        return;
    }
    fr_t a, one, r;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        a.v[2 * i] = (uint32_t)s.w[i];
        a.v[2 * i + 1] = (uint32_t)(s.w[i] >> 32);
    }
    set_zero(one);
    one.v[0] = 1;
    mul(r, a, one);
#pragma unroll
    for (int i = 0; i < 4; i++) k[i] = (uint64_t)r.v[2 * i] | (uint64_t)r.v[2 * i + 1] << 32;
}


template <class F>
static __global__ void __launch_bounds__(FB_THREADS)
    fb_mul_kernel(const aff_pt<F> *__restrict__ tbl, uint32_t c, uint32_t nwin, uint32_t per_win,
                  const scalar_t *__restrict__ k, int mont, uint32_t m, uint32_t nthreads,
                  aff_pt<F> *__restrict__ out, F *__restrict__ zz, F *__restrict__ zzz,
                  F *__restrict__ pre) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads || t >= m) return;
    F prod;
    set_one(prod);
    for (uint32_t i = t; i < m; i += nthreads) {
        uint64_t s[4];
        load_scalar(s, k + i, mont != 0);
        xyzz_pt<F> acc;
        xyzz_set_inf(acc);
        for (uint32_t j = 0; j < nwin; j++) {
            const int d = fb_digit(s, j, c);
            if (d == 0) continue;
            const uint32_t a = (uint32_t)(d > 0 ? d : -d);
            xyzz_add_aff(acc, ld16(tbl + (size_t)j * per_win + a - 1), d < 0);
        }
        aff_pt<F> xy;
        if (xyzz_is_inf(acc)) {
            set_zero(xy.x); /* the host's encoding of infinity */
            set_zero(xy.y);
        } else {
            xy.x = acc.x;
            xy.y = acc.y;
        }
        st16(out + i, xy);
        st16(zz + i, acc.zz);
        st16(zzz + i, acc.zzz);
        st16(pre + i, prod);
        if (!xyzz_is_inf(acc)) {
            F d;
            fmul(d, acc.zz, acc.zzz);
            fmul(prod, prod, d);
        }
    }
    F acc_inv;
    finv(acc_inv, prod); /* prod is a product of nonzero values (or 1) */
    const uint32_t last = t + (m - 1 - t) / nthreads * nthreads;
    for (uint32_t i = last;; i -= nthreads) {
        const F z2 = ld16(zz + i);
        if (!is_zero(z2)) {
            const F z3 = ld16(zzz + i), p = ld16(pre + i);
            F d, id, a;
            fmul(d, z2, z3);
            fmul(id, acc_inv, p); /* 1/(ZZ ZZZ) */
            fmul(acc_inv, acc_inv, d);
            aff_pt<F> xy = ld16(out + i);
            fmul(a, id, z3); /* 1/ZZ */
            fmul(xy.x, xy.x, a);
            fmul(a, id, z2); /* 1/ZZZ */
            fmul(xy.y, xy.y, a);
            st16(out + i, xy);
        }
        if (i < nthreads) break;
    }
}

/* ---- host side ----------------------------------------------------------------- */

struct cuzk__gpu_fixed_base {
    cuzk__gpu_fb_group group;
    unsigned c, nwin;
    uint32_t per_win;
    size_t aff_bytes, fe_bytes; /* one affine point, one coordinate element */
    void *tbl;                  /* device copy of the table */
    unsigned resident;          /* device threads that run at once */
    unsigned copy_threads;
    cudaStream_t stream[2];
    size_t cap;     /* points per buffer set */
    void *dev[2];   /* per set: scalars, out, zz, zzz, pre */
    void *pin_k[2]; /* pinned scalars */
    void *pin_o[2]; /* pinned points */
    cuzk__gpu_fixed_base_config cfg; /* zero: the defaults */
};

/* Device bytes per point of one set. */
static size_t dev_bytes_per_point(const cuzk__gpu_fixed_base *h) {
    return sizeof(scalar_t) + h->aff_bytes + 3 * h->fe_bytes;
}

/* ---- handle ---- */

template <class F>
static cuzk_status resident_threads(unsigned *out) {
    int dev = 0, sms = 0, blocks = 0;
    CUZK__CUDA_TRY(cudaGetDevice(&dev));
    CUZK__CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUZK__CUDA_TRY(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fb_mul_kernel<F>, FB_THREADS, 0));
    if (blocks < 1) blocks = 1;
    *out = (unsigned)sms * (unsigned)blocks * FB_THREADS;
    return CUZK_OK;
}

static cuzk_status upload_body(cuzk__gpu_fixed_base *h, const uint64_t *table) {
    const size_t bytes = (size_t)h->nwin * h->per_win * h->aff_bytes;
    CUZK__CUDA_TRY(cudaStreamCreateWithFlags(&h->stream[0], cudaStreamNonBlocking));
    CUZK__CUDA_TRY(cudaStreamCreateWithFlags(&h->stream[1], cudaStreamNonBlocking));
    CUZK__CUDA_TRY(cudaMalloc(&h->tbl, bytes));
    CUZK__CUDA_TRY(cudaMemcpy(h->tbl, table, bytes, cudaMemcpyHostToDevice));
    return h->group == CUZK__GPU_FB_G1 ? resident_threads<fp_t>(&h->resident)
                                       : resident_threads<fp2_t>(&h->resident);
}

extern "C" cuzk_status cuzk__gpu_fixed_base_upload(cuzk__gpu_fixed_base **out,
                                                   cuzk__gpu_fb_group group,
                                                   const uint64_t *table, unsigned c,
                                                   unsigned nwin, size_t per_win,
                                                   unsigned host_threads) {
    if (out == NULL) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    if (table == NULL || (group != CUZK__GPU_FB_G1 && group != CUZK__GPU_FB_G2) || c < 2 ||
        c > FB_MAX_C || nwin != 256 / c + 1 || per_win != (size_t)1 << (c - 1))
        return CUZK_ERR_INVALID_ARG;
    cuzk__gpu_fixed_base *h = (cuzk__gpu_fixed_base *)calloc(1, sizeof(*h));
    if (h == NULL) return CUZK_ERR_NOMEM;
    h->group = group;
    h->c = c;
    h->nwin = nwin;
    h->per_win = (uint32_t)per_win;
    h->aff_bytes = group == CUZK__GPU_FB_G1 ? sizeof(g1_aff) : sizeof(g2_aff);
    h->fe_bytes = group == CUZK__GPU_FB_G1 ? sizeof(fp_t) : sizeof(fp2_t);
    if (host_threads == 0) {
        const long n = sysconf(_SC_NPROCESSORS_ONLN);
        host_threads = n > 0 ? (unsigned)n : 1;
    }
    h->copy_threads = host_threads < COPY_THREADS_MAX ? host_threads : COPY_THREADS_MAX;
    const cuzk_status st = upload_body(h, table);
    if (st != CUZK_OK) {
        cuzk__gpu_fixed_base_free(h);
        return st;
    }
    *out = h;
    return CUZK_OK;
}

static void free_buffers(cuzk__gpu_fixed_base *h) {
    for (int b = 0; b < 2; b++) {
        /* the scalars are the setup's toxic waste: wiped before the memory goes back */
        if (h->dev[b]) {
            (void)cudaMemset(h->dev[b], 0, h->cap * sizeof(scalar_t));
            (void)cudaFree(h->dev[b]);
        }
        if (h->pin_k[b]) {
            memset(h->pin_k[b], 0, h->cap * sizeof(scalar_t));
            (void)cudaFreeHost(h->pin_k[b]);
        }
        if (h->pin_o[b]) (void)cudaFreeHost(h->pin_o[b]);
        h->dev[b] = h->pin_k[b] = h->pin_o[b] = NULL;
    }
    h->cap = 0;
}

extern "C" void cuzk__gpu_fixed_base_configure(cuzk__gpu_fixed_base *h,
                                               const cuzk__gpu_fixed_base_config *cfg) {
    if (h == NULL) return;
    if (cfg != NULL)
        h->cfg = *cfg;
    else
        memset(&h->cfg, 0, sizeof h->cfg);
}

extern "C" void cuzk__gpu_fixed_base_free(cuzk__gpu_fixed_base *h) {
    if (h == NULL) return;
    for (int b = 0; b < 2; b++)
        if (h->stream[b]) (void)cudaStreamSynchronize(h->stream[b]);
    free_buffers(h);
    if (h->tbl) (void)cudaFree(h->tbl);
    for (int b = 0; b < 2; b++)
        if (h->stream[b]) (void)cudaStreamDestroy(h->stream[b]);
    free(h);
}

/* Points per chunk for a call of n: the configured or the default count, so
 * that both sets take at most half of the free device memory. */
static cuzk_status chunk_points(const cuzk__gpu_fixed_base *h, size_t n, size_t *out) {
    size_t ch = h->cfg.chunk ? h->cfg.chunk : CUZK__GPU_FB_DEFAULT_CHUNK;
    size_t free_b = 0, total_b = 0;
    CUZK__CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    /* what this handle holds now is free for the new sets */
    free_b += h->cap * dev_bytes_per_point(h) * 2;
    const size_t fit = free_b / 4 / dev_bytes_per_point(h);
    if (ch > fit) ch = fit > 1024 ? fit : 1024;
    if (ch > UINT32_MAX / 2) ch = UINT32_MAX / 2; /* device indices are 32-bit */
    *out = ch < n ? ch : n;
    return CUZK_OK;
}

/* Both sets hold at least `want` points (freed and made anew when smaller). */
static cuzk_status ensure_cap(cuzk__gpu_fixed_base *h, size_t want) {
    if (want <= h->cap) return CUZK_OK;
    free_buffers(h);
    for (int b = 0; b < 2; b++) {
        CUZK__CUDA_TRY(cudaMalloc(&h->dev[b], want * dev_bytes_per_point(h)));
        CUZK__CUDA_HOST_TRY(
            cudaHostAlloc(&h->pin_k[b], want * sizeof(scalar_t), cudaHostAllocDefault));
        CUZK__CUDA_HOST_TRY(cudaHostAlloc(&h->pin_o[b], want * h->aff_bytes, cudaHostAllocDefault));
    }
    h->cap = want;
    return CUZK_OK;
}

/* Uploads chunk [lo, lo + m) into set b and queues its kernel and download. */
static cuzk_status launch_chunk(cuzk__gpu_fixed_base *h, int b, const uint64_t *k, size_t lo,
                                uint32_t m, cuzk__gpu_fb_scalars form) {
    cudaStream_t s = h->stream[b];
    char *base = (char *)h->dev[b];
    scalar_t *dk = (scalar_t *)base;
    char *dout = base + h->cap * sizeof(scalar_t);
    char *dzz = dout + h->cap * h->aff_bytes;
    char *dzzz = dzz + h->cap * h->fe_bytes;
    char *dpre = dzzz + h->cap * h->fe_bytes;
    cuzk__memcpy_parallel(h->pin_k[b], k + 4 * lo, (size_t)m * sizeof(scalar_t), h->copy_threads);
    CUZK__CUDA_TRY(cudaMemcpyAsync(dk, h->pin_k[b], (size_t)m * sizeof(scalar_t),
                                   cudaMemcpyHostToDevice, s));
    uint32_t nth = m < h->resident ? m : h->resident;
    if (h->cfg.max_threads && nth > h->cfg.max_threads) nth = h->cfg.max_threads;
    const unsigned blocks = (nth + FB_THREADS - 1) / FB_THREADS;
    const int mont = form == CUZK__GPU_FB_MONT;
    if (h->group == CUZK__GPU_FB_G1)
        fb_mul_kernel<fp_t><<<blocks, FB_THREADS, 0, s>>>(
            (const g1_aff *)h->tbl, h->c, h->nwin, h->per_win, dk, mont, m, nth, (g1_aff *)dout,
            (fp_t *)dzz, (fp_t *)dzzz, (fp_t *)dpre);
    else
        fb_mul_kernel<fp2_t><<<blocks, FB_THREADS, 0, s>>>(
            (const g2_aff *)h->tbl, h->c, h->nwin, h->per_win, dk, mont, m, nth, (g2_aff *)dout,
            (fp2_t *)dzz, (fp2_t *)dzzz, (fp2_t *)dpre);
    CUZK__CUDA_TRY(cudaGetLastError());
    CUZK__CUDA_TRY(
        cudaMemcpyAsync(h->pin_o[b], dout, (size_t)m * h->aff_bytes, cudaMemcpyDeviceToHost, s));
    return CUZK_OK;
}

/* Waits for the chunk in set b and copies its m points to out + lo. */
static cuzk_status finish_chunk(cuzk__gpu_fixed_base *h, int b, uint64_t *out, size_t lo,
                                uint32_t m) {
    CUZK__CUDA_TRY(cudaStreamSynchronize(h->stream[b]));
    const size_t words = h->aff_bytes / 8;
    cuzk__memcpy_parallel(out + words * lo, h->pin_o[b], (size_t)m * h->aff_bytes, h->copy_threads);
    return CUZK_OK;
}

static cuzk_status mul_body(cuzk__gpu_fixed_base *h, uint64_t *out, const uint64_t *k, size_t n,
                            cuzk__gpu_fb_scalars form) {
    size_t ch = 0;
    cuzk_status st = chunk_points(h, n, &ch);
    if (st != CUZK_OK) return st;
    if ((st = ensure_cap(h, ch)) != CUZK_OK) return st;
    const size_t nch = (n + ch - 1) / ch;
    for (size_t i = 0; i <= nch; i++) {
        if (i < nch) {
            const size_t lo = i * ch;
            const uint32_t m = (uint32_t)(n - lo < ch ? n - lo : ch);
            if ((st = launch_chunk(h, (int)(i & 1), k, lo, m, form)) != CUZK_OK) return st;
        }
        if (i > 0) {
            const size_t lo = (i - 1) * ch;
            const uint32_t m = (uint32_t)(n - lo < ch ? n - lo : ch);
            if ((st = finish_chunk(h, (int)((i - 1) & 1), out, lo, m)) != CUZK_OK) return st;
        }
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_fixed_base_mul_batch(cuzk__gpu_fixed_base *h, uint64_t *out,
                                                      const uint64_t *k, size_t n,
                                                      cuzk__gpu_fb_scalars form) {
    if (h == NULL || (form != CUZK__GPU_FB_PLAIN && form != CUZK__GPU_FB_MONT))
        return CUZK_ERR_INVALID_ARG;
    if (n == 0) return CUZK_OK;
    if (out == NULL || k == NULL) return CUZK_ERR_INVALID_ARG;
    const cuzk_status st = mul_body(h, out, k, n, form);
    if (st != CUZK_OK) /* no copy may still run into the pinned buffers */
        for (int b = 0; b < 2; b++) (void)cudaStreamSynchronize(h->stream[b]);
    return st;
}
