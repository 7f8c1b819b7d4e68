/*
 * msm.cu — the GPU MSM's calls (gpu_msm.h): cuzk__gpu_msm, the batch-add
 * and the classified MSM, from their inputs staged on the device through the
 * steps of msm_impl.cuh to the Jacobian result, with the per-phase profile.
 * VARIABLE TIME (public data, as the CPU MSM).
 */
#include "gpu/msm_impl.cuh"

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

/* The MSM over device scalars and an optional device mask; the work area
 * holds the caller's staged inputs below ws_offset and is already large
 * enough (cuzk__gpu_msm_rest_bytes past ws_offset). */
template <class G>
static cuzk_status msm_dev_body(cuzk__gpu_msm_bases *b, uint64_t *result,
                                const uint64_t *d_scalars, size_t n, const uint64_t *d_mask,
                                size_t ws_offset, const msm_plan &p, msm_prof &prof) {
    typedef typename G::F F;
    typedef xyzz_pt<F> X;
    const unsigned nwin = p.nwin, nset = p.nset;
    const uint32_t nbins = p.nbins;
    /* entry positions are 32-bit: the radix sort has n * nwin pairs, the
     * atomic sort at most npts * nwin entries */
    if ((uint64_t)(p.sort ? n : p.npts) * nwin >= ((uint64_t)1 << 32)) return CUZK_ERR_INVALID_ARG;
    msm_area a;
    if (cuzk__gpu_msm_carve(&a, nullptr, ws_offset, &p, n) > b->work->bytes)
        return area_too_small();
    cuzk__gpu_msm_carve(&a, static_cast<char *>(b->work->p), ws_offset, &p, n);
    X *buckets = static_cast<X *>(a.buckets), *wsum = static_cast<X *>(a.wsum);

    /* 1-3: entries sorted by bin */
    prof_mark(&prof, nullptr);
    const uint32_t *vals = a.vals;
    uint32_t total = 0;
    bool range = false;
    cuzk_status st =
        p.sort ? cuzk__gpu_msm_sort_radix(&p, d_scalars, n, d_mask, &a, &vals, &total, &range,
                                          &prof)
               : cuzk__gpu_msm_sort_atomics(&p, d_scalars, n, d_mask,
                                            reinterpret_cast<uint32_t *>(buckets), &a, &total,
                                            &range, &prof); /* buckets: free until step 4 */
    if (st != CUZK_OK) return st;
    if (range) return CUZK_ERR_INVALID_ARG; /* a scalar >= 2^255 */
    if (total == 0) return CUZK_OK;

    /* 4-5: buckets */
    CUZK__CUDA_TRY(cudaMemset(buckets, 0, (size_t)nbins * sizeof(X)));
    prof_mark(&prof, p.sort ? "boundaries" : "scatter");
    st = cuzk__gpu_msm_levels(b, &p, &a, vals, prof.on);
    if (st != CUZK_OK) return st;
    prof_mark(&prof, "accumulate");

    /* 6-7: the sums of the bucket sets (of the windows without copies) */
    st = cuzk__gpu_msm_reduce(&p, &a);
    if (st != CUZK_OK) return st;
    uint64_t *host_w = static_cast<uint64_t *>(malloc((size_t)nset * G::XYZZ_WORDS * 8));
    if (!host_w) return CUZK_ERR_NOMEM;
    cudaError_t err = d2h(host_w, wsum, nset * sizeof(X));
    if (err != cudaSuccess) {
        free(host_w);
        cuzk__gpu_record_error(err, "cudaMemcpy(wsum, ...)", __FILE__, __LINE__);
        return CUZK_ERR_GPU;
    }
    prof_mark(&prof, "reduce");
    host_horner<G>(result, host_w, nset, p.c * p.k); /* set j weighs 2^(j k c) */
    free(host_w);
    prof_mark(&prof, "host");
    return CUZK_OK;
}

template <class G>
static cuzk_status msm_dev(cuzk__gpu_msm_bases *b, uint64_t *result, const uint64_t *d_scalars,
                           size_t n, const uint64_t *d_mask, size_t npts, size_t ws_offset) {
    memset(result, 0, G::JAC_WORDS * 8); /* infinity */
    if (n == 0) return CUZK_OK;
    msm_plan p;
    cuzk_status st = cuzk__gpu_msm_plan(&p, b, n, d_mask != nullptr, npts);
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

/* The bytes stage_inputs places before the rest: host inputs only. */
static size_t staged_bytes(const uint64_t *scalars, const uint64_t *bitmap, size_t n) {
    size_t off = 0;
    if (scalars && !is_device_ptr(scalars)) off += align_up(n * 32);
    if (bitmap && !is_device_ptr(bitmap)) off += align_up((n + 63) / 64 * 8);
    return off;
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
    const size_t off = staged_bytes(scalars, bitmap, n);
    if (d_bitmap) *d_bitmap = bitmap;
    if (bitmap && is_device_ptr(bitmap)) bitmap = nullptr; /* in place: nothing to copy */
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

/* The points of n that a mask lets take part (all: n), which size the
 * window and the entries (cuzk__gpu_msm_plan), and the work area past the
 * staged inputs that an MSM of them needs. */
static cuzk_status msm_rest(cuzk__gpu_msm_bases *b, size_t n, const uint64_t *mask, size_t *npts,
                            size_t *rest) {
    cuzk_status st = CUZK_OK;
    *npts = n;
    if (mask && is_device_ptr(mask))
        st = cuzk__gpu_msm_popcount_dev(b, mask, n, npts);
    else if (mask)
        *npts = cuzk__msm_popcount(mask, n);
    if (st == CUZK_OK) st = cuzk__gpu_msm_rest_bytes(b, n, mask != nullptr, *npts, rest);
    return st;
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
    cuzk_status st = msm_rest(b, n, mask, &npts, &rest);
    if (st == CUZK_OK && mask && npts > b->masked_npts) b->masked_npts = npts;
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
    cuzk_status st = stage_inputs(b, nullptr, nullptr, &dm, bitmap, n,
                                  cuzk__gpu_msm_batch_add_bytes(b, n), &off);
    if (st != CUZK_OK) return st;
    return cuzk__gpu_msm_batch_add_dev(b, result, n, dm, off);
}

extern "C" cuzk_status cuzk__gpu_msm_split_fits(cuzk__gpu_msm_bases *b, size_t n, int with_ones,
                                                const uint64_t *bm_one, int with_others,
                                                const uint64_t *scalars,
                                                const uint64_t *bm_other, int *fits) {
    if (!b || !fits || n > b->n || (with_others && n && !scalars)) return CUZK_ERR_INVALID_ARG;
    *fits = 0;
    size_t need = 0;
    if (with_ones) need = staged_bytes(nullptr, bm_one, n) + cuzk__gpu_msm_batch_add_bytes(b, n);
    if (with_others && n != 0) {
        size_t npts = 0, rest = 0;
        const cuzk_status st = msm_rest(b, n, bm_other, &npts, &rest);
        if (st == CUZK_ERR_INVALID_ARG) return CUZK_OK; /* an MSM too large to plan: no fit */
        if (st != CUZK_OK) return st;
        const size_t m = staged_bytes(scalars, bm_other, n) + rest;
        if (m > need) need = m;
    }
    *fits = need <= b->work->bytes;
    return CUZK_OK;
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
    cuzk_status st = cuzk__gpu_msm_rest_bytes(b, n, true, n, &r1);
    const size_t r2 = cuzk__gpu_msm_batch_add_bytes(b, n);
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
    st = cuzk__gpu_msm_classify_dev(d_bits, cnt, ds, n, &c);
    if (st != CUZK_OK) return st;
    if (counts) *counts = c;
    uint64_t r_one[G::JAC_WORDS], r_other[G::JAC_WORDS];
    memset(r_one, 0, sizeof r_one);
    memset(r_other, 0, sizeof r_other);
    if (c.one) {
        st = cuzk__gpu_msm_batch_add_dev(b, r_one, n, ones, front);
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
    return b->group == CUZK__GPU_MSM_G1
               ? with_classification<grp_g1>(b, result, counts, scalars, n)
               : with_classification<grp_g2>(b, result, counts, scalars, n);
}

