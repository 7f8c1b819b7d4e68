/*
 * msm_plan.cu — the GPU MSM's planning, on the host (msm_impl.cuh): the
 * window from a cost model, the shape of one MSM and where its buffers lie
 * in the handle's work area, and the estimates behind the callers' memory
 * decisions (which copies of the bases pay and fit, how low the affine
 * levels' budget must go to leave a caller its room).
 */
#include "gpu/msm_impl.cuh"

/* ---- window choice --------------------------------------------------------------- */

/*
 * Cost in mixed additions: every point once per window (n nwin), every
 * bucket K times (sets 2^(c-1) K). The CPU's model (msm.c) takes K = 2.8
 * for the two full XYZZ additions of the running sums; on the device a
 * bucket also costs a clear, a 192-byte store and load and its share of
 * the count/scan, so K = 4 for the window without copies (the fastest c at
 * 2^24-2^27). Without copies of the bases every window has its own set of
 * buckets; with k shifted copies (cuzk__gpu_msm_bases_precompute) window
 * j's digits index copy j % k and bucket set j / k, so ceil(nwin / k) sets
 * serve all windows. The copies' window, and whether an MSM reads them, use
 * K = 8: at their larger windows a bin holds fewer entries (16-48 against
 * 64-128), and the levels' cost per entry rises as it falls (more odd bins
 * passing a point through, per-bin scans, bounds and clears).
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

extern "C" unsigned cuzk__gpu_msm_copies_window(size_t n, unsigned copies) {
    return window_bits_k(n, copies, CUZK__GPU_MSM_MAX_C_COPIES, BUCKET_COST_COPIES);
}

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

/* npts: how many of the n points take part (the mask's count, n when
 * unmasked): the window is sized to them, not to n, so a sparse tail (at
 * 2^27 a few million of the 2^27 points) gets a window of its own size and
 * not 2^21 buckets per window to reduce. */
extern "C" cuzk_status cuzk__gpu_msm_plan(msm_plan *pp, const cuzk__gpu_msm_bases *b, size_t n,
                                          bool masked, size_t npts) {
    msm_plan &p = *pp;
    p.group = b->group;
    /* The radix sort sorts every (window, point) pair, masked-out points
     * too (under the sentinel key); the atomic sort's work is the points
     * that take part. The masked MSMs (a proof's tails) are mostly sparse:
     * they take the atomic sort. */
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
     * segment, the running sums 2 per bucket; powers of two would leave the
     * last wave part empty). The last segment of a window may be shorter. */
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
        const cuzk_status st = cuzk__gpu_msm_radix_temp_bytes((uint32_t)pairs, p.sort_bits,
                                                              &p.sort_tmp);
        if (st != CUZK_OK) return st;
    }
    p.cap = 2 * p.resident + 2; /* 2 pairs per accumulate thread, 1 per reduce thread */
    if (p.cap < (size_t)p.nset * p.nseg + 2) p.cap = (size_t)p.nset * p.nseg + 2;
    p.ba_psz = aff_bytes(b->group);
    p.ba_nruns = 0;
    const size_t budget = b->cfg.ba_budget ? b->cfg.ba_budget : b->ba_budget;
    p.ba_threads = b->ba_threads;
    unsigned gw = p.nset;
    if (p.ba_threads == 0) { /* no levels (no block fits the device): one group, no buffers */
        p.ba_acap = p.ba_bcap = 0;
    } else {
        while (gw > 1 && ba_point_bytes(p, p.set_entries, gw) > budget) gw--;
        ba_caps(p, p.set_entries, gw);
    }
    p.ba_gw = gw;
    p.ba_nbg = gw * p.nb;
    p.ba_resident = (uint64_t)b->sms * (uint64_t)(b->ba_blocks > 0 ? b->ba_blocks : 1) *
                    p.ba_threads;
    if (b->cfg.ba_max_threads && p.ba_resident > b->cfg.ba_max_threads)
        p.ba_resident = b->cfg.ba_max_threads;
    else
        p.ba_nruns = b->ba_nruns; /* 0 where the handle has no speed table (or no levels) */
    return CUZK_OK;
}

extern "C" size_t cuzk__gpu_msm_carve(msm_area *ap, char *base, size_t off, const msm_plan *pp,
                                      size_t n) {
    msm_area &a = *ap;
    const msm_plan &p = *pp;
    const size_t xs = xyzz_bytes(p.group); /* a bucket's, a pair's point */
    carver cv{base, off};
    a.start = carve<uint32_t>(cv, p.nbins + 1 + 16);
    a.cursor = a.vals = a.tsum = nullptr;
    a.sk[0] = a.sk[1] = a.sv[0] = a.sv[1] = nullptr;
    a.sort_tmp = nullptr;
    if (p.sort) {
        for (int h = 0; h < 2; h++) {
            a.sk[h] = carve<uint32_t>(cv, n * p.nwin);
            a.sv[h] = carve<uint32_t>(cv, n * p.nwin);
        }
        a.sort_tmp = carve<char>(cv, p.sort_tmp);
    } else {
        a.cursor = carve<uint32_t>(cv, p.nbins + 1);
        a.vals = carve<uint32_t>(cv, p.npts * p.nwin); /* the entries of the points taking part */
    }
    /* tile sums of the scans: the atomic sort's, and the batch-affine levels'
     * offsets (which run after either sort) */
    a.tsum = carve<uint32_t>(cv, scan_tsum_words(p.nbins));
    a.buckets = carve<char>(cv, p.nbins * xs);
    a.ka = carve<uint32_t>(cv, p.cap);
    a.kb = carve<uint32_t>(cv, p.cap);
    a.pa = carve<char>(cv, p.cap * xs);
    a.pb = carve<char>(cv, p.cap * xs);
    a.wsum = carve<char>(cv, p.nset * xs);
    a.ba_rclk = nullptr;
    if (p.ba_nruns) {
        a.ba_rclk = carve<unsigned long long>(cv, 3 * (size_t)p.ba_nruns);
    }
    a.ba_offa = carve<uint32_t>(cv, (size_t)p.ba_nbg + 1);
    a.ba_offb = carve<uint32_t>(cv, (size_t)p.ba_nbg + 1);
    a.ba_cnt = carve<uint32_t>(cv, p.ba_nbg);
    a.ba_idv = carve<uint32_t>(cv, p.ba_acap);
    a.ba_pta = carve<char>(cv, p.ba_acap * p.ba_psz);
    a.ba_ptb = carve<char>(cv, p.ba_bcap * p.ba_psz);
    return cv.off;
}

extern "C" cuzk_status cuzk__gpu_msm_rest_bytes(const cuzk__gpu_msm_bases *b, size_t n,
                                                bool masked, size_t npts, size_t *bytes) {
    msm_plan p;
    cuzk_status st = cuzk__gpu_msm_plan(&p, b, n, masked, npts);
    if (st != CUZK_OK) return st;
    msm_area a;
    *bytes = cuzk__gpu_msm_carve(&a, nullptr, 0, &p, n);
    return CUZK_OK;
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
    cuzk__gpu_msm_bases t = *b; /* the plan reads the budget from the handle */
    t.ba_budget = budget;
    const size_t n = b->n;
    size_t plain = 0, masked = 0;
    if ((serves & CUZK__GPU_MSM_SERVES_MSM) &&
        cuzk__gpu_msm_rest_bytes(&t, n, false, n, &plain) != CUZK_OK)
        return 0;
    if (serves & CUZK__GPU_MSM_SERVES_MASKED) {
        masked = cuzk__gpu_msm_batch_add_bytes(&t, n);
        size_t m = 0; /* none yet (no scalar other than 0 and 1 so far): the batch-add's */
        if (b->masked_npts &&
            cuzk__gpu_msm_rest_bytes(&t, n, true, b->masked_npts, &m) != CUZK_OK)
            return 0;
        if (m > masked) masked = m;
    }
    return plain > masked ? plain : masked;
}

extern "C" cuzk_status cuzk__gpu_msm_bases_area_bytes(const cuzk__gpu_msm_bases *b, size_t n,
                                                      int masked, size_t *bytes) {
    if (!b || !bytes || n == 0 || n >= ((size_t)1 << 31)) return CUZK_ERR_INVALID_ARG;
    cuzk__gpu_msm_bases t = *b; /* the plan reads the count and copies from the handle */
    t.n = n;
    t.copies = 1;
    t.copies_c = 0;
    size_t area = 0;
    cuzk_status st = cuzk__gpu_msm_rest_bytes(&t, n, masked != 0, n, &area);
    if (st != CUZK_OK) return st;
    if (masked) {
        const size_t add = cuzk__gpu_msm_batch_add_bytes(&t, n);
        if (add > area) area = add;
    }
    *bytes = area;
    return CUZK_OK;
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
     * (the plan's own loop picks the largest group that fits the budget) */
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
            if (cuzk__gpu_msm_plan(&p, &t, t.n, masked, npts) != CUZK_OK) continue;
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

extern "C" unsigned cuzk__gpu_msm_bases_window(const cuzk__gpu_msm_bases *b, size_t n,
                                               int masked, size_t npts, unsigned *copies) {
    msm_plan p;
    if (copies) *copies = 0;
    if (!b || n == 0 || n > b->n || cuzk__gpu_msm_plan(&p, b, n, masked, npts) != CUZK_OK)
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
        const unsigned c = cuzk__gpu_msm_copies_window(b->n, k);
        if (k > window_count(c) || (uint64_t)k * b->n >= ((uint64_t)1 << 31)) continue;
        cuzk__gpu_msm_bases t = *b; /* the handle as it would be with k copies */
        t.copies = k;
        t.copies_c = c;
        /* read by the calls it serves: an MSM of all its points, or of as many
         * as its largest masked MSM so far had */
        msm_plan p;
        const bool plain = (serves & CUZK__GPU_MSM_SERVES_MSM) &&
                           cuzk__gpu_msm_plan(&p, &t, b->n, false, b->n) == CUZK_OK && p.k == k;
        const bool masked = (serves & CUZK__GPU_MSM_SERVES_MASKED) && b->masked_npts &&
                            cuzk__gpu_msm_plan(&p, &t, b->n, true, b->masked_npts) == CUZK_OK &&
                            p.k == k;
        if (!plain && !masked) continue;
        /* the new array is made while the old one still exists */
        const size_t bytes = (size_t)k * b->n * aff_bytes(b->group);
        if (bytes > total_b / 8) continue;
        const size_t area = area_estimate(&t, t.ba_budget, serves);
        if (area == 0) continue;
        const size_t grow = area > reserved ? area - reserved : 0;
        if (free_b < keep || free_b - keep < bytes || free_b - keep - bytes < grow) continue;
        const cuzk_status st = cuzk__gpu_msm_bases_precompute(b, k);
        if (st == CUZK_ERR_DEVICE_NOMEM) { /* taken meanwhile: fewer may still fit */
            CUZK__CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
            continue;
        }
        if (st != CUZK_OK) return st;
        *made = b->copies;
        return CUZK_OK;
    }
    return CUZK_OK;
}

