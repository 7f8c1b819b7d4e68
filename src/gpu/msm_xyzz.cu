/*
 * msm_xyzz.cu — the GPU MSM's additions in XYZZ coordinates (msm_impl.cuh):
 * the accumulation of sorted entries into buckets with mixed additions
 * (the runs the affine levels leave), the combine levels that finish bins
 * cut between threads, the running-sum reduction of each bucket set, and
 * the bitmap batch-add. VARIABLE TIME (public data, as the CPU MSM).
 */
#include "gpu/msm_impl.cuh"

/* Pairs per thread in the combine levels. */
static constexpr uint32_t COMBINE_SLICE = 16;

/*
 * Step 4 in XYZZ coordinates: thread t adds the entries [t S, (t+1) S) of
 * the sorted entries, whatever the bins' sizes (a hot bucket, say every
 * scalar equal, is spread over all threads), with mixed additions (8M +
 * 2S). A run (the entries of one bin) that is the whole bin is written to
 * its bucket; a run cut by the slice's start or end goes out as a (bin,
 * partial sum) pair, two slots a thread (unused slots hold infinity under a
 * neighbouring key, so the pairs stay sorted by bin) for combine_kernel.
 *  - one flat loop over the entries, a run's end a short branch inside it:
 *    with a loop per run, a warp's lanes would wait at the inner loop's end
 *    for the longest run among the 32;
 *  - the base of the next entry is loaded before the current addition, and
 *    the end of the next bin before it is needed;
 *  - a partial sum cut by the slice start or end is stored when its run
 *    ends, not held in registers for the whole slice (2 XYZZ points: 96
 *    registers for G1, 192 for G2).
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

/* Step 5: the same slicing over m sorted (key, partial sum) pairs, with
 * full XYZZ additions (12M + 2S), repeated (combine_levels) until one
 * thread holds all of them. A bin is finished by exactly one thread at
 * exactly one level, which writes it when its sum is finite (every bucket
 * starts as infinity). */
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

/* Step 6: thread (j, s) of nwin * nseg takes the running sums over segment
 * s of set j's buckets [lo, lo + seglen) (2 XYZZ additions a bucket):
 * T = sum (b - lo + 1) B[b], R = sum B[b], and returns T + lo R (lo R by
 * double-and-add), so that the set's sum is the plain sum of its
 * segments' results, sum (b + 1) B[b] (step 7: combine_levels). */
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
 * adds on every iteration, whatever the bitmap looks like (slicing by
 * position would leave a lane idle whenever its next bit is clear). Without
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


template <class F>
static cuzk_status accumulate(const void *points, const uint32_t *vals, const uint32_t *start,
                              uint32_t nbins, uint32_t total, uint64_t resident, void *buckets,
                              uint32_t *ka, void *pa, uint32_t *kb, void *pb) {
    typedef xyzz_pt<F> X;
    uint32_t slice = (uint32_t)((total + resident - 1) / resident);
    if (slice == 0) slice = 1;
    const uint32_t nt = (total + slice - 1) / slice;
    accumulate_kernel<F, madd_t<F>><<<grid(nt, HEAVY_THREADS), HEAVY_THREADS>>>(
        static_cast<const aff_pt<F> *>(points), vals, start, nbins, total, slice, nt,
        static_cast<X *>(buckets), ka, static_cast<X *>(pa));
    CUZK__CUDA_TRY(cudaGetLastError());
    if (nt > 1)
        return combine_levels<F>(ka, static_cast<X *>(pa), kb, static_cast<X *>(pb), 2 * nt,
                                 static_cast<X *>(buckets));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm_accumulate(cuzk__gpu_msm_group g, const void *points,
                                                const uint32_t *vals, const uint32_t *start,
                                                uint32_t nbins, uint32_t total, uint64_t resident,
                                                void *buckets, uint32_t *ka, void *pa,
                                                uint32_t *kb, void *pb) {
    return g == CUZK__GPU_MSM_G1 ? accumulate<fp_t>(points, vals, start, nbins, total, resident,
                                                    buckets, ka, pa, kb, pb)
                                 : accumulate<fp2_t>(points, vals, start, nbins, total, resident,
                                                     buckets, ka, pa, kb, pb);
}

template <class F>
static cuzk_status reduce(const msm_plan &p, const msm_area &a) {
    typedef xyzz_pt<F> X;
    X *buckets = static_cast<X *>(a.buckets), *pa = static_cast<X *>(a.pa),
      *pb = static_cast<X *>(a.pb), *wsum = static_cast<X *>(a.wsum);
    CUZK__CUDA_TRY(cudaMemset(wsum, 0, p.nset * sizeof(X)));
    bucket_reduce_kernel<F, madd_t<F>>
        <<<grid((size_t)p.nset * p.nseg, HEAVY_THREADS), HEAVY_THREADS>>>(
            buckets, p.nb, p.seglen, p.nseg, p.nset, a.ka, pa);
    CUZK__CUDA_TRY(cudaGetLastError());
    return combine_levels<F>(a.ka, pa, a.kb, pb, p.nset * p.nseg, wsum);
}

extern "C" cuzk_status cuzk__gpu_msm_reduce(const msm_plan *p, const msm_area *a) {
    return p->group == CUZK__GPU_MSM_G1 ? reduce<fp_t>(*p, *a) : reduce<fp2_t>(*p, *a);
}

extern "C" cudaError_t cuzk__gpu_msm_accumulate_occupancy(cuzk__gpu_msm_group g, int *blocks) {
    return g == CUZK__GPU_MSM_G1
               ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                     blocks, accumulate_kernel<fp_t, madd_t<fp_t>>, HEAVY_THREADS, 0)
               : cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                     blocks, accumulate_kernel<fp2_t, madd_t<fp2_t>>, HEAVY_THREADS, 0);
}

/* Batch-add shape: thread count and its pair buffers. */
struct add_plan {
    uint32_t nt, nw; /* threads; bitmap words */
    size_t cap;      /* pairs */
    size_t tsum;     /* tile-sum words of the rank scan over nw counts */
};
static void add_plan_make(add_plan &p, const cuzk__gpu_msm_bases *b, size_t n) {
    const uint64_t resident = resident_threads(b);
    size_t per = (n + resident - 1) / resident;
    if (per < 64) per = 64;
    p.nt = (uint32_t)((n + per - 1) / per);
    p.nw = (uint32_t)((n + 63) / 64);
    p.cap = 2 * (size_t)p.nt + 2;
    p.tsum = scan_tsum_words(p.nw);
}
template <class X>
static size_t add_carve(uint32_t **ka, uint32_t **kb, X **pa, X **pb, X **out, uint32_t **wcnt,
                       uint32_t **wpre, uint32_t **tsum, char *base, size_t off,
                       const add_plan &p) {
    carver cv{base, off};
    *ka = carve<uint32_t>(cv, p.cap);
    *kb = carve<uint32_t>(cv, p.cap);
    *pa = carve<X>(cv, p.cap);
    *pb = carve<X>(cv, p.cap);
    *out = carve<X>(cv, 1);
    *wcnt = carve<uint32_t>(cv, p.nw);
    *wpre = carve<uint32_t>(cv, (size_t)p.nw + 1);
    *tsum = carve<uint32_t>(cv, p.tsum);
    return cv.off;
}
template <class G>
static size_t batch_add_rest_bytes_g(const cuzk__gpu_msm_bases *b, size_t n) {
    typedef xyzz_pt<typename G::F> X;
    add_plan p;
    add_plan_make(p, b, n);
    uint32_t *ka, *kb, *wcnt, *wpre, *tsum;
    X *pa, *pb, *out;
    return add_carve(&ka, &kb, &pa, &pb, &out, &wcnt, &wpre, &tsum, nullptr, 0, p);
}
extern "C" size_t cuzk__gpu_msm_batch_add_bytes(const cuzk__gpu_msm_bases *b, size_t n) {
    return b->group == CUZK__GPU_MSM_G1 ? batch_add_rest_bytes_g<grp_g1>(b, n)
                                        : batch_add_rest_bytes_g<grp_g2>(b, n);
}

/* Batch-add over a device bitmap (or all): result as host Jacobian words.
 * The work area is large enough past ws_offset (cuzk__gpu_msm_batch_add_bytes). */
template <class G>
static cuzk_status batch_add_dev(cuzk__gpu_msm_bases *b, uint64_t *result, size_t n,
                                 const uint64_t *d_bitmap, size_t ws_offset) {
    typedef typename G::F F;
    typedef xyzz_pt<F> X;
    memset(result, 0, G::JAC_WORDS * 8);
    if (n == 0) return CUZK_OK;
    add_plan p;
    add_plan_make(p, b, n);
    cuzk_status st;
    const uint32_t nt = p.nt;
    uint32_t *ka, *kb, *wcnt, *wpre, *tsum;
    X *pa, *pb, *out;
    if (add_carve(&ka, &kb, &pa, &pb, &out, &wcnt, &wpre, &tsum, nullptr, ws_offset, p) >
        b->work->bytes)
        return area_too_small();
    add_carve(&ka, &kb, &pa, &pb, &out, &wcnt, &wpre, &tsum, static_cast<char *>(b->work->p),
             ws_offset, p);
    CUZK__CUDA_TRY(cudaMemset(out, 0, sizeof(X)));
    if (d_bitmap) {
        word_count_kernel<<<grid(p.nw, LIGHT_THREADS), LIGHT_THREADS>>>(d_bitmap, (uint32_t)n,
                                                                         p.nw, wcnt);
        CUZK__CUDA_TRY(cudaGetLastError());
        st = cuzk__gpu_msm_excl_scan(wcnt, p.nw, tsum, wpre, wpre);
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

extern "C" cuzk_status cuzk__gpu_msm_batch_add_dev(cuzk__gpu_msm_bases *b, uint64_t *result,
                                                   size_t n, const uint64_t *d_bitmap,
                                                   size_t ws_offset) {
    return b->group == CUZK__GPU_MSM_G1 ? batch_add_dev<grp_g1>(b, result, n, d_bitmap, ws_offset)
                                        : batch_add_dev<grp_g2>(b, result, n, d_bitmap, ws_offset);
}
