/*
 * backend_gpu_stream.c — the vectors a key's memory plan streams
 * (backend_gpu_impl.h, plan.h: partly resident, streaming): their points
 * in page-locked host memory, decoded on the device from deferred
 * parameters (the file's runs up through a chunk buffer, decoded and
 * checked there, and back) or copied from the host's points; the streamer
 * that sums them chunk by chunk (gpu_msm_stream.h); and a proof's MSM and
 * batch-add over a vector wherever it lives.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/backend_gpu_impl.h"
#include "util/mem.h"

static cuzk__gpu_msm_group group_of(cuzk_params_vec v) {
    return v == CUZK_PARAMS_VEC_B_G2 ? CUZK__GPU_MSM_G2 : CUZK__GPU_MSM_G1;
}
static size_t point_bytes_of(cuzk_params_vec v) { return v == CUZK_PARAMS_VEC_B_G2 ? 192 : 96; }

/* Vector v's points as prepare got them: the parameters' (not deferred) or
 * the zkey's sections (the same layout: affine, Montgomery coordinates). */
static const void *given_points(const gpu_key *k, cuzk_params_vec v) {
    if (k->zk != NULL) {
        const void *const zp[5] = {k->zk->h.p, k->zk->c.p, k->zk->a.p, k->zk->b1.p, k->zk->b2.p};
        return zp[v];
    }
    const void *const pp[5] = {k->p->h.p, k->p->l.p, k->p->a.p, k->p->b_g1.p, k->p->b_g2.p};
    return pp[v];
}
static uint64_t points_of(const gpu_key *k, cuzk_params_vec v) {
    if (k->zk != NULL) {
        const uint64_t zn[5] = {k->zk->h.n, k->zk->c.n, k->zk->a.n, k->zk->b1.n, k->zk->b2.n};
        return zn[v];
    }
    return vec_count(k->p, v);
}
static const char *stream_what(const gpu_key *k, cuzk_params_vec v) {
    static const char *const zwhat[5] = {"streaming section H", "streaming section C",
                                         "streaming section A", "streaming section B1",
                                         "streaming section B2"};
    static const char *const pwhat[5] = {"streaming vector h", "streaming vector l",
                                         "streaming vector a", "streaming vector b_g1",
                                         "streaming vector b_g2"};
    return k->zk != NULL ? zwhat[v] : pwhat[v];
}

/* Page-locked host memory for vector v (bytes) into k->sv_own[v]; 0 when
 * the host refuses it (or the test hooks make it: CUZK__GPU_PIN_FAIL_STREAM). */
static int own_pinned(gpu_key *k, cuzk_params_vec v, size_t bytes) {
    if ((k->inst->hooks.pin_fail & CUZK__GPU_PIN_FAIL_STREAM) != 0 ||
        cuzk__gpu_host_alloc(&k->sv_own[v], bytes) != CUZK_OK) {
        k->sv_own[v] = NULL;
        return 0;
    }
    k->sv_pinned[v] = 1;
    return 1;
}

/* The caller's points of vector v (bytes) page-locked where they are, for
 * the key's life (no second copy: 47 GB at porep 2^27; the other keys of
 * the same points count as users of the one registration); 0 when the host
 * refuses (or the test hooks make it: CUZK__GPU_PIN_FAIL_STREAM). */
static int given_pinned(gpu_key *k, cuzk_params_vec v, size_t bytes) {
    if ((k->inst->hooks.pin_fail & CUZK__GPU_PIN_FAIL_STREAM) != 0 ||
        cuzk__gpu_host_register(given_points(k, v), bytes) != CUZK_OK)
        return 0;
    k->sv_registered[v] = 1;
    return 1;
}

/* The key's own host memory for vector v (bytes): page-locked, or
 * pageable when the host refuses (the stream then copies at the driver's
 * staged rate: slower proofs, not failed ones). */
static cuzk_status own_host(gpu_key *k, cuzk_params_vec v, size_t bytes, cuzk_error *err) {
    if (own_pinned(k, v, bytes)) return CUZK_OK;
    k->sv_own[v] = cuzk__alloc_large(bytes);
    if (k->sv_own[v] == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "GPU %d: %s: no host memory for %zu bytes",
                          k->device, stream_what(k, v), bytes);
    return CUZK_OK;
}

/*
 * Deferred vector v into the key's host memory: the file's encodings are
 * read in runs of a chunk (an encoding has the size of its decoded point)
 * straight into their place, each run goes up into a chunk buffer, is
 * decoded and checked there (decode.cuh, as the resident loader does) and
 * comes back over its encodings. A refused point is named by the host
 * reader, as for a resident vector.
 */
static cuzk_status fill_deferred(gpu_key *k, cuzk_params_vec v, uint64_t n, uint64_t *d_bad,
                                 cuzk_error *err) {
    const char *what = stream_what(k, v);
    const cuzk__gpu_msm_group g = group_of(v);
    const size_t pb = point_bytes_of(v);
    cuzk__gpu_msm_bases *view = cuzk__gpu_msm_streamer_view(k->streamer, g);
    void *dev = cuzk__gpu_msm_bases_at(view, 0);
    const size_t per = cuzk__gpu_msm_streamer_chunk_points(k->streamer, g);
    uint8_t *host = k->sv_own[v];
    cuzk_status st;
    for (uint64_t first = 0; first < n; first += per) {
        const size_t cnt = (size_t)(n - first < per ? n - first : per);
        const uint64_t none = UINT64_MAX;
        uint64_t bad = none;
        if ((st = cuzk__gpu_read_runs(k->p, v, first, cnt, host + first * pb, (unsigned)pb,
                                      k->threads, err)) != CUZK_OK)
            return st;
        if ((st = cuzk__gpu_msm_bases_retarget(view, dev, cnt)) != CUZK_OK ||
            (st = cuzk__gpu_upload(d_bad, &none, sizeof none)) != CUZK_OK ||
            (st = cuzk__gpu_upload(dev, host + first * pb, cnt * pb)) != CUZK_OK ||
            (st = cuzk__gpu_msm_bases_decode(view, 0, cnt, dev, d_bad)) != CUZK_OK ||
            (st = cuzk__gpu_download(&bad, d_bad, sizeof bad)) != CUZK_OK ||
            (st = cuzk__gpu_download(host + first * pb, dev, cnt * pb)) != CUZK_OK)
            return gpu_fail(err, st, what);
        if (bad != none) {
            if ((st = cuzk_params_point_check(k->p, v, first + bad, err)) != CUZK_OK) return st;
            return cuzk__fail(err, CUZK_ERR_GPU,
                              "GPU %d: %s: point %llu refused on the device, which the host "
                              "reader accepts",
                              k->device, what, (ull)(first + bad));
        }
    }
    count_uploads(&k->inst->stats.streamed_chunks, (n + per - 1) / per);
    return CUZK_OK;
}

cuzk_status cuzk__gpu_stream_setup(gpu_key *k, cuzk_error *err) {
    if (k->plan.streamed == 0) return CUZK_OK;
    /* the chunk buffers; every MSM of the key runs on their views (a kept
     * vector's in pieces), on one work area of the views' own */
    cuzk_status st = cuzk__gpu_msm_streamer_new(&k->streamer, (size_t)k->plan.chunk_bytes, NULL);
    if (st != CUZK_OK)
        return gpu_fail(err, st, "making the chunk buffers of the streamed vectors");
    uint64_t *d_bad = NULL;
    if (k->p != NULL && k->p->deferred &&
        (st = cuzk__gpu_alloc((void **)&d_bad, sizeof(uint64_t))) != CUZK_OK)
        return gpu_fail(err, st, "allocating the decode's flag");
    for (unsigned i = 0; i < 5 && st == CUZK_OK; i++) {
        const cuzk_params_vec v = (cuzk_params_vec)i;
        const uint64_t n = points_of(k, v);
        if (!cuzk__gpu_streamed(k, v) || n == 0) continue;
        const size_t bytes = (size_t)n * point_bytes_of(v);
        if (k->p != NULL && k->p->deferred) {
            if ((st = own_host(k, v, bytes, err)) == CUZK_OK)
                st = fill_deferred(k, v, n, d_bad, err);
        } else if (!given_pinned(k, v, bytes) && own_pinned(k, v, bytes)) {
            memcpy(k->sv_own[v], given_points(k, v), bytes); /* page-locked: the full rate */
        } /* else the caller's points, locked in place or as they are (pageable) */
        k->sv_host[v] = k->sv_own[v] != NULL ? k->sv_own[v] : given_points(k, v);
    }
    cuzk__gpu_free(d_bad);
    return st;
}

void cuzk__gpu_stream_free(gpu_key *k) {
    cuzk__gpu_msm_streamer_free(k->streamer); /* first: it waits for its copies */
    k->streamer = NULL;
    for (unsigned v = 0; v < 5; v++) {
        if (k->sv_registered[v]) cuzk__gpu_host_unregister(k->sv_host[v]);
        k->sv_registered[v] = 0;
        if (k->sv_pinned[v])
            cuzk__gpu_host_free(k->sv_own[v]);
        else
            free(k->sv_own[v]);
        k->sv_own[v] = NULL;
        k->sv_host[v] = NULL;
        k->sv_pinned[v] = 0;
    }
}

int cuzk__gpu_key_has(const gpu_key *k, cuzk_params_vec v) {
    if (cuzk__gpu_streamed(k, v)) return k->sv_host[v] != NULL;
    cuzk__gpu_msm_bases *const all[5] = {k->h, k->l, k->a, k->b1, k->b2};
    return all[v] != NULL;
}

/* The streamer's chunks and bytes of one call, into the instance's counts. */
static void count_stream(gpu_key *k, const cuzk__gpu_msm_stream_stats *before) {
    cuzk__gpu_msm_stream_stats now;
    cuzk__gpu_msm_streamer_stats(k->streamer, &now);
    count_uploads(&k->inst->stats.streamed_chunks, now.chunks - before->chunks);
    count_uploads(&k->inst->stats.streamed_bytes, now.bytes - before->bytes);
    const double us = (now.copy_ms - before->copy_ms) * 1e3;
    count_uploads(&k->inst->stats.streamed_copy_us, us > 0 ? (uint64_t)(us + 0.5) : 0);
}

/*
 * Both halves of a classified MSM over vector v (either NULL: not
 * computed; a NULL bitmap: every point): a resident key's in one call
 * each on the vector's handle; a streamed plan's on the streamer, each
 * chunk of a streamed vector sent once for both, a resident vector summed
 * whole where its calls fit the work area as it stands, else in pieces of
 * a chunk (whose MSMs need no more work area than a chunk's: the plan
 * counted no more).
 */
cuzk_status cuzk__gpu_key_split(gpu_key *k, cuzk_params_vec v, uint64_t *ones, uint64_t *others,
                                const uint64_t *scalars, uint64_t n, const uint64_t *bm_one,
                                const uint64_t *bm_other) {
    cuzk_status st = CUZK_OK;
    if (k->streamer == NULL) {
        cuzk__gpu_msm_bases *h = *key_vec(k, v);
        if (ones != NULL) st = cuzk__gpu_msm_batch_add(h, ones, (size_t)n, bm_one);
        if (st == CUZK_OK && others != NULL)
            st = cuzk__gpu_msm(h, others, scalars, (size_t)n, bm_other);
        return st;
    }
    if (!cuzk__gpu_streamed(k, v)) {
        cuzk__gpu_msm_bases *h = *key_vec(k, v);
        if (n > cuzk__gpu_msm_bases_count(h)) return CUZK_ERR_INVALID_ARG; /* as an MSM's */
        return cuzk__gpu_msm_pieces_split(k->streamer, group_of(v), cuzk__gpu_msm_bases_at(h, 0),
                                          ones, others, scalars, (size_t)n, bm_one, bm_other);
    }
    cuzk__gpu_msm_stream_stats before;
    cuzk__gpu_msm_streamer_stats(k->streamer, &before);
    st = cuzk__gpu_msm_streamed_split(k->streamer, group_of(v), k->sv_host[v], ones, others,
                                      scalars, (size_t)n, bm_one, bm_other);
    count_stream(k, &before);
    return st;
}

void cuzk__gpu_key_prefetch(gpu_key *k, cuzk_params_vec v, uint64_t n) {
    if (k->streamer == NULL || !cuzk__gpu_streamed(k, v) || k->sv_host[v] == NULL) return;
    cuzk__gpu_msm_stream_stats before;
    cuzk__gpu_msm_streamer_stats(k->streamer, &before);
    const cuzk_status st =
        cuzk__gpu_msm_streamer_prefetch(k->streamer, group_of(v), k->sv_host[v], (size_t)n);
    (void)st; /* a refusal only leaves the call to send its chunks itself */
    count_stream(k, &before);
}

cuzk_status cuzk__gpu_key_msm(gpu_key *k, cuzk_params_vec v, uint64_t *result,
                              const uint64_t *scalars, uint64_t n, const uint64_t *mask) {
    return cuzk__gpu_key_split(k, v, NULL, result, scalars, n, NULL, mask);
}

cuzk_status cuzk__gpu_key_batch_add(gpu_key *k, cuzk_params_vec v, uint64_t *result, uint64_t n,
                                    const uint64_t *bitmap) {
    return cuzk__gpu_key_split(k, v, result, NULL, NULL, n, bitmap, NULL);
}
