/*
 * spmv.cu — the resident circuit and witness -> a, b, c on the device
 * (gpu_circuit.h); the device twin of src/circuit/spmv.c, equal bit for bit.
 *
 * One thread per (matrix, row). Cost per entry as on the CPU: a gather of
 * the 32-byte witness value, then nothing (w = 0), one addition (w = 1, or
 * a +-1 coefficient recognised by its value index) or one multiplication.
 * With PoRep statistics (~5.6 entries per row over A, B, C, mostly +-1 and
 * boolean) the kernel is bound by the scattered witness reads: at 2^27 the
 * floor is ~5.6 * 2^27 * 32 B of gathers (24 GB of sectors at best, more
 * when neighbouring rows touch unrelated columns) plus 12 GB of a, b, c
 * writes, i.e. ~8 ms at 4.8 TB/s if every gather hit a full sector, which
 * random gathers do not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/check.cuh"
#include "gpu/ff.cuh"
#include "gpu/gpu_circuit.h"

using namespace cuzk_gpu;

static constexpr unsigned THREADS = 256;

struct cuzk__gpu_circuit {
    cuzk__gpu_circuit_info info;
    uint64_t *row_ptr[3];
    uint32_t *col[3], *val[3];
    fr_t *values;
    uint32_t *a_vars, *b_vars;
    unsigned long long *first_bad; /* one word for cuzk__gpu_circuit_check */
};

static __device__ __forceinline__ fr_t load_fr(const fr_t *p) {
    fr_t r;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
    d[0] = s[0];
    d[1] = s[1];
    return r;
}

static __device__ __forceinline__ void store_fr(fr_t *p, const fr_t &v) {
    const uint4 *s = reinterpret_cast<const uint4 *>(&v);
    uint4 *d = reinterpret_cast<uint4 *>(p);
    d[0] = s[0];
    d[1] = s[1];
}

static __device__ __forceinline__ bool fr_is_zero(const fr_t &x) {
    uint32_t o = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) o |= x.v[i];
    return o == 0;
}

static __device__ __forceinline__ bool fr_is_one(const fr_t &x) {
    uint32_t o = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) o |= x.v[i] ^ fr_params::one(i);
    return o == 0;
}

struct abc_args {
    const uint64_t *row_ptr[3];
    const uint32_t *col[3], *val[3];
    const fr_t *values;
    const fr_t *w;
    fr_t *out[3];
    uint64_t nc, ni, dom;
};

/* blockIdx.y picks the matrix; rows are grid-strided. */
static __global__ void abc_kernel(abc_args a) {
    const unsigned m = blockIdx.y;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.dom; i += stride) {
        fr_t acc;
        set_zero(acc);
        if (i < a.nc) {
            const uint64_t e = a.row_ptr[m][i + 1];
            for (uint64_t k = a.row_ptr[m][i]; k < e; k++) {
                const uint32_t v = a.val[m][k];
                const fr_t x = load_fr(&a.w[a.col[m][k]]);
                if (fr_is_zero(x)) continue;
                if (fr_is_one(x)) {
                    add(acc, acc, load_fr(&a.values[v]));
                } else if (v == 0) { /* CUZK_CIRCUIT_VAL_ONE */
                    add(acc, acc, x);
                } else if (v == 1) { /* CUZK_CIRCUIT_VAL_MINUS_ONE */
                    sub(acc, acc, x);
                } else {
                    fr_t t;
                    mul(t, load_fr(&a.values[v]), x);
                    add(acc, acc, t);
                }
            }
        } else if (m == 0 && i < a.nc + a.ni) {
            acc = load_fr(&a.w[i - a.nc]); /* bellman's input rows: input_j * 0 = 0 */
        }
        store_fr(&a.out[m][i], acc);
    }
}

static __global__ void check_kernel(const fr_t *a, const fr_t *b, const fr_t *c, uint64_t n,
                                    unsigned long long *first_bad) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        fr_t p;
        mul(p, load_fr(&a[i]), load_fr(&b[i]));
        if (!fe_equal(p, load_fr(&c[i]))) atomicMin(first_bad, (unsigned long long)i);
    }
}

/* mode 0: x -> x R (multiply by R^2); mode 1: x R -> x (multiply by plain 1). */
static __global__ void mont_kernel(fr_t *out, const fr_t *in, uint64_t n, int mode) {
    fr_t k;
    if (mode == 0) {
        constexpr uint64_t r2[4] = CUZK__FR_R2;
#pragma unroll
        for (int i = 0; i < 8; i++) k.v[i] = limb32(r2, i);
    } else {
        set_zero(k);
        k.v[0] = 1;
    }
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        fr_t x;
        mul(x, load_fr(&in[i]), k);
        store_fr(&out[i], x);
    }
}

static __global__ void gather_kernel(fr_t *out, const fr_t *in, const uint32_t *idx, uint64_t n) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
        store_fr(&out[k], load_fr(&in[idx[k]]));
}

static unsigned grid_for(uint64_t n) {
    uint64_t blocks = (n + THREADS - 1) / THREADS;
    if (blocks == 0) blocks = 1;
    return (unsigned)(blocks < (1u << 20) ? blocks : (1u << 20)); /* grid-stride beyond */
}

/* ---- upload ----------------------------------------------------------------- */

static int bit_of(const uint64_t *bm, uint64_t j) { return (int)((bm[j / 64] >> (j % 64)) & 1); }

/* The variable lists of A and B (see gpu_circuit.h) into host arrays. */
static cuzk_status make_var_lists(const cuzk__gpu_circuit_src *s, uint32_t **a_out,
                                  uint64_t *na, uint32_t **b_out, uint64_t *nb) {
    uint64_t nv = s->n_inputs + s->n_aux;
    uint32_t *a = (uint32_t *)malloc((nv ? nv : 1) * sizeof(uint32_t));
    uint32_t *b = (uint32_t *)malloc((nv ? nv : 1) * sizeof(uint32_t));
    if (!a || !b) {
        free(a);
        free(b);
        return CUZK_ERR_NOMEM;
    }
    uint64_t ka = 0, kb = 0;
    for (uint64_t j = 0; j < s->n_inputs; j++) {
        a[ka++] = (uint32_t)j;
        if (bit_of(s->b_inp, j)) b[kb++] = (uint32_t)j;
    }
    for (uint64_t j = 0; j < s->n_aux; j++) {
        if (bit_of(s->a_aux, j)) a[ka++] = (uint32_t)(s->n_inputs + j);
        if (bit_of(s->b_aux, j)) b[kb++] = (uint32_t)(s->n_inputs + j);
    }
    *a_out = a, *na = ka, *b_out = b, *nb = kb;
    return CUZK_OK;
}

/* The caller's copy, or cudaMemcpy. */
struct copier {
    cuzk__gpu_copy_fn fn;
    void *ctx;
};

template <class T>
static cuzk_status upload(T **dst, const T *src, uint64_t n, uint64_t *bytes, const copier &c) {
    size_t sz = (size_t)(n ? n : 1) * sizeof(T);
    CUZK__CUDA_TRY(cudaMalloc((void **)dst, sz));
    if (n && c.fn) {
        const cuzk_status st = c.fn(c.ctx, *dst, src, (size_t)n * sizeof(T));
        if (st != CUZK_OK) return st;
    } else if (n) {
        CUZK__CUDA_TRY(cudaMemcpy(*dst, src, (size_t)n * sizeof(T), cudaMemcpyHostToDevice));
    }
    *bytes += sz;
    return CUZK_OK;
}

/* The matrices and values (matrices 0: only the variable lists). */
static cuzk_status upload_body(cuzk__gpu_circuit *g, const cuzk__gpu_circuit_src *s,
                               uint32_t *av, uint32_t *bv, int matrices, const copier &c) {
    uint64_t bytes = 0;
    cuzk_status st;
    for (int m = 0; m < 3 && matrices; m++) {
        if ((st = upload(&g->row_ptr[m], s->row_ptr[m], s->n_constraints + 1, &bytes, c)) !=
            CUZK_OK)
            return st;
        if ((st = upload(&g->col[m], s->col[m], s->nnz[m], &bytes, c)) != CUZK_OK) return st;
        if ((st = upload(&g->val[m], s->val[m], s->nnz[m], &bytes, c)) != CUZK_OK) return st;
    }
    if (matrices &&
        (st = upload(&g->values, (const fr_t *)s->values, s->n_values, &bytes, c)) != CUZK_OK)
        return st;
    if ((st = upload(&g->a_vars, av, g->info.a_count, &bytes, c)) != CUZK_OK) return st;
    if ((st = upload(&g->b_vars, bv, g->info.b_count, &bytes, c)) != CUZK_OK) return st;
    CUZK__CUDA_TRY(cudaMalloc((void **)&g->first_bad, sizeof(unsigned long long)));
    g->info.device_bytes = bytes + sizeof(unsigned long long);
    g->info.a_vars = g->a_vars;
    g->info.b_vars = g->b_vars;
    return CUZK_OK;
}

extern "C" void cuzk__gpu_circuit_free(cuzk__gpu_circuit *g) {
    if (!g) return;
    for (int m = 0; m < 3; m++) {
        if (g->row_ptr[m]) (void)cudaFree(g->row_ptr[m]);
        if (g->col[m]) (void)cudaFree(g->col[m]);
        if (g->val[m]) (void)cudaFree(g->val[m]);
    }
    if (g->values) (void)cudaFree(g->values);
    if (g->a_vars) (void)cudaFree(g->a_vars);
    if (g->b_vars) (void)cudaFree(g->b_vars);
    if (g->first_bad) (void)cudaFree(g->first_bad);
    free(g);
}

static cuzk_status circuit_upload(cuzk__gpu_circuit **out, const cuzk__gpu_circuit_src *s,
                                  int matrices, cuzk__gpu_copy_fn copy, void *ctx) {
    if (!out || !s) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    /* Columns and variable lists are u32 on the device as on the host. */
    if (s->n_inputs + s->n_aux > UINT32_MAX) return CUZK_ERR_UNSUPPORTED;
    cuzk__gpu_circuit *g = (cuzk__gpu_circuit *)calloc(1, sizeof *g);
    if (!g) return CUZK_ERR_NOMEM;
    g->info.n_constraints = s->n_constraints;
    g->info.n_inputs = s->n_inputs;
    g->info.n_aux = s->n_aux;
    g->info.domain_size = s->domain_size;
    uint32_t *av = NULL, *bv = NULL;
    cuzk_status st = make_var_lists(s, &av, &g->info.a_count, &bv, &g->info.b_count);
    if (st == CUZK_OK) st = upload_body(g, s, av, bv, matrices, copier{copy, ctx});
    free(av);
    free(bv);
    if (st != CUZK_OK) {
        cuzk__gpu_circuit_free(g);
        return st;
    }
    *out = g;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_circuit_upload(cuzk__gpu_circuit **out,
                                                const cuzk__gpu_circuit_src *s,
                                                cuzk__gpu_copy_fn copy, void *ctx) {
    return circuit_upload(out, s, 1, copy, ctx);
}

extern "C" cuzk_status cuzk__gpu_circuit_upload_lists(cuzk__gpu_circuit **out,
                                                      const cuzk__gpu_circuit_src *s,
                                                      cuzk__gpu_copy_fn copy, void *ctx) {
    return circuit_upload(out, s, 0, copy, ctx);
}

extern "C" const cuzk__gpu_circuit_info *cuzk__gpu_circuit_info_of(const cuzk__gpu_circuit *g) {
    return g ? &g->info : NULL;
}

/* ---- per proof ---------------------------------------------------------------- */

extern "C" cuzk_status cuzk__gpu_circuit_abc(const cuzk__gpu_circuit *g, void *a, void *b,
                                             void *c, const void *w, void *stream) {
    if (!g || !a || !b || !c || !w || !g->row_ptr[0]) return CUZK_ERR_INVALID_ARG;
    abc_args x;
    for (int m = 0; m < 3; m++) {
        x.row_ptr[m] = g->row_ptr[m];
        x.col[m] = g->col[m];
        x.val[m] = g->val[m];
    }
    x.values = g->values;
    x.w = (const fr_t *)w;
    x.out[0] = (fr_t *)a, x.out[1] = (fr_t *)b, x.out[2] = (fr_t *)c;
    x.nc = g->info.n_constraints, x.ni = g->info.n_inputs, x.dom = g->info.domain_size;
    dim3 grid(grid_for(x.dom), 3);
    abc_kernel<<<grid, THREADS, 0, (cudaStream_t)stream>>>(x);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_circuit_check(const cuzk__gpu_circuit *g, const void *a,
                                               const void *b, const void *c,
                                               uint64_t *first_bad, void *stream) {
    if (!g || !a || !b || !c || !first_bad || !g->row_ptr[0]) return CUZK_ERR_INVALID_ARG;
    cudaStream_t s = (cudaStream_t)stream;
    unsigned long long none = ~0ull, got = 0;
    CUZK__CUDA_TRY(cudaMemcpyAsync(g->first_bad, &none, sizeof none, cudaMemcpyHostToDevice, s));
    uint64_t n = g->info.n_constraints;
    if (n) {
        check_kernel<<<grid_for(n), THREADS, 0, s>>>((const fr_t *)a, (const fr_t *)b,
                                                     (const fr_t *)c, n, g->first_bad);
        CUZK__CUDA_TRY(cudaGetLastError());
    }
    CUZK__CUDA_TRY(cudaMemcpyAsync(&got, g->first_bad, sizeof got, cudaMemcpyDeviceToHost, s));
    CUZK__CUDA_TRY(cudaStreamSynchronize(s));
    *first_bad = (uint64_t)got;
    return CUZK_OK;
}

static cuzk_status mont(void *out, const void *in, size_t n, void *stream, int mode) {
    if (n == 0) return CUZK_OK;
    if (!out || !in) return CUZK_ERR_INVALID_ARG;
    mont_kernel<<<grid_for(n), THREADS, 0, (cudaStream_t)stream>>>((fr_t *)out,
                                                                   (const fr_t *)in, n, mode);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_fr_to_mont(void *out, const void *in, size_t n, void *stream) {
    return mont(out, in, n, stream, 0);
}

extern "C" cuzk_status cuzk__gpu_fr_from_mont(void *out, const void *in, size_t n,
                                              void *stream) {
    return mont(out, in, n, stream, 1);
}

extern "C" cuzk_status cuzk__gpu_fr_gather(void *out, const void *in, const uint32_t *idx,
                                           size_t n, void *stream) {
    if (n == 0) return CUZK_OK;
    if (!out || !in || !idx) return CUZK_ERR_INVALID_ARG;
    gather_kernel<<<grid_for(n), THREADS, 0, (cudaStream_t)stream>>>((fr_t *)out,
                                                                     (const fr_t *)in, idx, n);
    CUZK__CUDA_TRY(cudaGetLastError());
    return CUZK_OK;
}

