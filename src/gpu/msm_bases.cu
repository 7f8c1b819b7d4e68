/*
 * msm_bases.cu — the GPU MSM's bases handle (gpu_msm.h): bases uploaded,
 * decoded from their encodings or made at random on the device, shifted
 * copies of them, the handle's configuration, level budget and work area,
 * and scalars kept on the device. VARIABLE TIME (public data).
 */
#include "gpu/decode.cuh"
#include "gpu/msm_impl.cuh"

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

static void work_release(msm_work *w) {
    if (w && --w->refs == 0) {
        if (w->p) (void)cudaFree(w->p);
        free(w);
    }
}


/* The handle's level blocks shaped for the current device under `limit`
 * bytes of shared memory a block (0: the device's), and their speed table
 * made again. On failure the handle goes without levels (XYZZ alone). */
static cuzk_status level_shape_set(cuzk__gpu_msm_bases *b, size_t limit) {
    cuzk__gpu_msm_level_speeds_free(b);
    b->ba_smem_limit = limit;
    unsigned threads = 0;
    int blocks = 0;
    const cudaError_t e = cuzk__gpu_msm_levels_shape(b->group, limit, &threads, &blocks);
    b->ba_threads = e == cudaSuccess ? threads : 0;
    b->ba_blocks = e == cudaSuccess ? blocks : 0;
    if (e != cudaSuccess) {
        cuzk__gpu_record_error(e, "the level blocks' shape", __FILE__, __LINE__);
        return CUZK_ERR_GPU;
    }
    cuzk__gpu_msm_level_speeds_new(b);
    return CUZK_OK;
}

/* A handle of n bases of the group on the current device: its shape, work
 * area and budget, and (mem NULL) its own memory for the bases, else the
 * caller's at mem. */
static cuzk_status handle_new(cuzk__gpu_msm_bases **out, cuzk__gpu_msm_group group, size_t n,
                              void *mem) {
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
    CUZK__CUDA_TRY(cuzk__gpu_msm_accumulate_occupancy(group, &b->heavy_blocks));
    /* the level buffers: a quarter of the device, unless a caller lowers it */
    size_t mem_free = 0, mem_total = 0;
    CUZK__CUDA_TRY(cudaMemGetInfo(&mem_free, &mem_total));
    b->ba_budget = (mem_total / 4 >> 20) << 20;
    cuzk_status st = level_shape_set(b, 0);
    if (st != CUZK_OK) return st;
    if (mem != nullptr) {
        b->bases = mem;
        b->borrowed = true;
        return CUZK_OK;
    }
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
    /* a failure is recorded, and the handle runs without levels */
    if (b->cfg.smem_limit != b->ba_smem_limit) (void)level_shape_set(b, b->cfg.smem_limit);
}

extern "C" unsigned cuzk__gpu_msm_bases_level_threads(const cuzk__gpu_msm_bases *b) {
    return b ? b->ba_threads : 0;
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

extern "C" void cuzk__gpu_msm_bases_free(cuzk__gpu_msm_bases *b) {
    if (!b) return;
    if (b->bases && !b->borrowed) (void)cudaFree(b->bases);
    work_release(b->work);
    cuzk__gpu_msm_level_speeds_free(b);
    free(b);
}

extern "C" cuzk_status cuzk__gpu_msm_bases_alloc(cuzk__gpu_msm_bases **out,
                                                 cuzk__gpu_msm_group group, size_t n) {
    if (!out) return CUZK_ERR_INVALID_ARG;
    cuzk_status st = handle_new(out, group, n, nullptr);
    if (st != CUZK_OK && *out) {
        cuzk__gpu_msm_bases_free(*out);
        *out = nullptr;
    }
    return st;
}

extern "C" cuzk_status cuzk__gpu_msm_bases_view(cuzk__gpu_msm_bases **out,
                                                cuzk__gpu_msm_group group, void *dev, size_t n) {
    if (!out || !dev) return CUZK_ERR_INVALID_ARG;
    cuzk_status st = handle_new(out, group, n, dev);
    if (st != CUZK_OK && *out) {
        cuzk__gpu_msm_bases_free(*out);
        *out = nullptr;
    }
    return st;
}

extern "C" cuzk_status cuzk__gpu_msm_bases_retarget(cuzk__gpu_msm_bases *b, void *dev, size_t n) {
    if (!b || !dev || !b->borrowed || n == 0 || n >= ((size_t)1 << 31)) return CUZK_ERR_INVALID_ARG;
    b->bases = dev;
    b->n = n;
    return CUZK_OK;
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
    cuzk_status st = handle_new(out, group, n, nullptr);
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
    if (!b || copies == 0 || b->borrowed) return CUZK_ERR_INVALID_ARG;
    /* the window for the copies, and no more copies than it has windows */
    unsigned c = cuzk__gpu_msm_copies_window(b->n, copies);
    while (copies > window_count(c)) {
        copies = window_count(c);
        c = cuzk__gpu_msm_copies_window(b->n, copies);
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
        return err == cudaErrorMemoryAllocation ? CUZK_ERR_DEVICE_NOMEM : CUZK_ERR_GPU;
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

