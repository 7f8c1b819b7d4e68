/*
 * backend_gpu_load.c — the CUDA backend's loader of deferred parameter
 * vectors (backend_gpu_impl.h): the points' encodings read from the file
 * straight into their device memory, beside the key's first proofs, and
 * decoded and checked on the device by the first caller that needs them.
 */
#include <stdlib.h>
#include <string.h>

#ifdef CUZK_HAVE_OPENMP
#include <omp.h>
#endif

#include "gpu/backend_gpu_impl.h"

/*
 * The vectors of deferred parameters (params.h): each is read from the file
 * in runs of the staging size into page-locked buffers (slices on up to 8
 * of the backend's threads: past 8 the reads gain little and can slow a
 * host with more cores), each run's DMA queued while the next one is read,
 * straight into the bases' memory (an encoding has the size of the decoded
 * point, 96 or 192 bytes); then the whole vector is decoded and checked
 * there on the device (decode.cuh). The host never holds the points (at
 * 2^27 they would be ~47 GiB decoded into RAM, then uploaded).
 *
 * A thread of the key's own copies (vector_loader), h first, with its own
 * page-locked buffers, on a stream beside the proofs' (a beside copy queue),
 * so that the key's first proof computes its a, b, c and H, and its H MSM,
 * while the later vectors load. The copies wait for no kernel (check.cuh's
 * cuzk__sync_copy says what stalled them); each vector
 * is decoded by whoever first needs it (vectors_wait: the proof about to run
 * its MSM, or prepare), in that caller's stream order. Without page-locked
 * memory (refused by the host) the runs go through one pageable buffer, in
 * prepare itself: slower, and nothing overlaps.
 */
typedef struct enc_upload {
    cuzk__gpu_copy_queue *cq; /* beside stream (NULL: the pageable way) */
    void *stage[2];           /* page-locked runs, with cq */
    void *host;               /* one pageable run, without */
    size_t run_bytes;
    int threaded;             /* copied by vector_loader (else in prepare) */
} enc_upload;

cuzk_status cuzk__gpu_read_runs(const cuzk_params *p, cuzk_params_vec v, uint64_t first,
                                uint64_t count, uint8_t *dst, unsigned pb, unsigned threads,
                                cuzk_error *err) {
#ifdef CUZK_HAVE_OPENMP
    enum { MAX_SLICES = 8 }; /* see the comment above enc_upload */
    int nt = threads ? (int)threads : omp_get_max_threads();
    if (nt > MAX_SLICES) nt = MAX_SLICES;
    if ((uint64_t)nt > count / 1024) nt = (int)(count / 1024); /* 96 KiB a slice at least */
    if (nt > 1) {
        /* each slice keeps its own error: the first failing one is the run's
         * (a slice that failed holds stale bytes, so none may be missed) */
        cuzk_error *e = calloc((size_t)nt, sizeof(*e));
        if (e == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for read slices");
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int i = 0; i < nt; i++) {
            const uint64_t lo = count * (uint64_t)i / (uint64_t)nt;
            const uint64_t hi = count * (uint64_t)(i + 1) / (uint64_t)nt;
            e[i].status =
                cuzk_params_read_encoded(p, v, first + lo, hi - lo, dst + lo * pb, &e[i]);
        }
        cuzk_status st = CUZK_OK;
        for (int i = 0; i < nt && st == CUZK_OK; i++)
            if (e[i].status != CUZK_OK) {
                st = e[i].status;
                if (err) *err = e[i];
            }
        free(e);
        return st;
    }
#else
    (void)threads;
#endif
    return cuzk_params_read_encoded(p, v, first, count, dst, err);
}

/* Frees what loader_open made (after its queued copies are done). */
static void loader_close(enc_upload *u) {
    if (u == NULL) return;
    cuzk__gpu_copy_queue_free(u->cq); /* first: it waits for what reads the buffers */
    cuzk__gpu_host_free(u->stage[0]);
    cuzk__gpu_host_free(u->stage[1]);
    free(u->host);
    free(u);
}

/* The loader's buffers: page-locked runs of the key's staging size on a
 * beside queue, or (page-locked memory refused, or the key has none) one
 * pageable run of 8 MiB. */
static cuzk_status loader_open(gpu_key *k, enc_upload **out, cuzk_error *err) {
    enc_upload *u = calloc(1, sizeof(*u));
    *out = u;
    if (u == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for an upload buffer");
    u->run_bytes = k->cq ? k->stage_bytes : (size_t)8 << 20;
    if (k->cq != NULL && cuzk__gpu_copy_queue_create_beside(&u->cq, 2) == CUZK_OK &&
        cuzk__gpu_host_alloc(&u->stage[0], u->run_bytes) == CUZK_OK &&
        cuzk__gpu_host_alloc(&u->stage[1], u->run_bytes) == CUZK_OK)
        return CUZK_OK;
    cuzk__gpu_copy_queue_free(u->cq);
    cuzk__gpu_host_free(u->stage[0]);
    cuzk__gpu_host_free(u->stage[1]);
    u->cq = NULL;
    u->stage[0] = u->stage[1] = NULL;
    u->run_bytes = (size_t)8 << 20;
    if ((u->host = malloc(u->run_bytes)) == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for an upload buffer");
    return CUZK_OK;
}

/* Vector v's encodings (n points) into the memory of handle b (allocated by
 * prepare), every copy done on return. */
static cuzk_status copy_encoded(gpu_key *k, enc_upload *u, cuzk__gpu_msm_bases *b,
                                cuzk_params_vec v, uint64_t n, cuzk_error *err) {
    const char *what = upload_what(v);
    if (n == 0) return CUZK_OK;
    const unsigned pb = v == CUZK_PARAMS_VEC_B_G2 ? 192u : 96u;
    const uint64_t per = u->run_bytes / pb;
    uint8_t *dst = cuzk__gpu_msm_bases_at(b, 0);
    cuzk_status st;
    if (per == 0) /* a staging size below one point (the test knob) */
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU: %s: runs of %zu bytes hold no point",
                          what, u->run_bytes);
    uint64_t runs = 0;
    for (uint64_t first = 0; first < n; first += per, runs++) {
        const int hold = k->inst->hooks.loader_hold && v != CUZK_PARAMS_VEC_H && u->threaded;
        pthread_mutex_lock(&k->ld_mu);
        while ((k->ld_yield || hold) && !__atomic_load_n(&k->ld_quit, __ATOMIC_RELAXED))
            pthread_cond_wait(&k->ld_cv, &k->ld_mu);
        pthread_mutex_unlock(&k->ld_mu);
        if (__atomic_load_n(&k->ld_quit, __ATOMIC_RELAXED))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU: %s: the key was released", what);
        const unsigned slot = (unsigned)(runs & 1);
        const uint64_t cnt = n - first < per ? n - first : per;
        uint8_t *host = u->cq ? u->stage[slot] : u->host;
        /* the buffer's previous DMA must be done before it is refilled */
        if (u->cq && (st = cuzk__gpu_copy_queue_wait(u->cq, slot)) != CUZK_OK)
            return gpu_fail(err, st, what);
        if ((st = cuzk__gpu_read_runs(k->p, v, first, cnt, host, pb, k->threads, err)) !=
            CUZK_OK)
            return st;
        st = u->cq ? cuzk__gpu_copy_queue_upload(u->cq, slot, dst + first * pb, host, cnt * pb)
                   : cuzk__gpu_upload(dst + first * pb, host, cnt * pb);
        if (st != CUZK_OK) return gpu_fail(err, st, what);
    }
    if (u->cq && (st = cuzk__gpu_copy_queue_sync(u->cq)) != CUZK_OK)
        return gpu_fail(err, st, what);
    count_uploads(&k->inst->stats.staged_chunks, u->cq ? runs : 0);
    return CUZK_OK;
}

/* The loader stops at its next run, also one paused for a proof's upload. */
static void loader_quit(gpu_key *k) {
    pthread_mutex_lock(&k->ld_mu);
    __atomic_store_n(&k->ld_quit, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&k->ld_cv);
    pthread_mutex_unlock(&k->ld_mu);
}

/* The loader's failure, or a decode's: every later wait returns it, and the
 * loader stops (ld_mu not held). Recorded before the loader is told to quit,
 * so that its "released" failure can never take the place of this one. */
static void load_failed(gpu_key *k, cuzk_status st, const cuzk_error *e) {
    pthread_mutex_lock(&k->ld_mu);
    if (k->ld_st == CUZK_OK) {
        k->ld_st = st;
        k->ld_err = *e;
    }
    __atomic_store_n(&k->ld_quit, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&k->ld_cv);
    pthread_mutex_unlock(&k->ld_mu);
}

/* A proof's own witness upload goes first (on 1, off 0): the loader pauses
 * at its next run until it is done. It has time to spare (at 2^27 it is done
 * long before the first proof needs l), while an upload beside it would
 * take nearly twice as long. */
void cuzk__gpu_loader_yield(gpu_key *k, int on) {
    pthread_mutex_lock(&k->ld_mu);
    k->ld_yield = on;
    pthread_cond_broadcast(&k->ld_cv);
    pthread_mutex_unlock(&k->ld_mu);
}

/* The load's failure so far (CUZK_OK: none), copied into err. */
cuzk_status cuzk__gpu_load_status(gpu_key *k, cuzk_error *err) {
    pthread_mutex_lock(&k->ld_mu);
    const cuzk_status st = k->ld_st;
    if (st != CUZK_OK && err != NULL) *err = k->ld_err;
    pthread_mutex_unlock(&k->ld_mu);
    return st;
}

/* Copies the five vectors in order, publishing each as it is on the device
 * (or the first failure, after which nothing more is copied). */
static void load_vectors(gpu_key *k) {
    cuzk_error e;
    cuzk__error_clear(&e);
    cuzk_status st = cuzk__gpu_set_device(k->device);
    if (st != CUZK_OK) gpu_fail(&e, st, "selecting the device");
    for (unsigned i = 0; i < 5 && st == CUZK_OK; i++) {
        const cuzk_params_vec v = (cuzk_params_vec)i;
        /* a streamed vector is in host memory already (backend_gpu_stream.c) */
        if (!cuzk__gpu_streamed(k, v) &&
            (st = copy_encoded(k, k->ld_up, *key_vec(k, v), v, vec_count(k->p, v), &e)) !=
                CUZK_OK)
            break;
        pthread_mutex_lock(&k->ld_mu);
        k->ld_copied = i + 1;
        pthread_cond_broadcast(&k->ld_cv);
        pthread_mutex_unlock(&k->ld_mu);
    }
    if (st != CUZK_OK) load_failed(k, st, &e);
}

static void *vector_loader(void *arg) {
    load_vectors(arg);
    return NULL;
}

/* Vector v, copied, decoded and checked in place (the legacy stream: in
 * order with the calling proof); a refused point is named by the host's
 * reader (the same message as at open). */
static cuzk_status decode_vector(gpu_key *k, cuzk_params_vec v, cuzk_error *err) {
    cuzk__gpu_msm_bases *const b = *key_vec(k, v);
    const char *what = upload_what(v);
    if (b == NULL) return CUZK_OK; /* no points */
    const uint64_t none = UINT64_MAX;
    uint64_t bad = none;
    const size_t n = cuzk__gpu_msm_bases_count(b);
    cuzk_status st;
    if ((st = cuzk__gpu_upload(k->ld_bad, &none, sizeof none)) != CUZK_OK ||
        (st = cuzk__gpu_msm_bases_decode(b, 0, n, cuzk__gpu_msm_bases_at(b, 0), k->ld_bad)) !=
            CUZK_OK ||
        (st = cuzk__gpu_download(&bad, k->ld_bad, sizeof bad)) != CUZK_OK)
        return gpu_fail(err, st, what);
    if (bad == none) return CUZK_OK;
    if ((st = cuzk_params_point_check(k->p, v, bad, err)) != CUZK_OK) return st;
    return cuzk__fail(err, CUZK_ERR_GPU, "GPU: %s: point %llu refused on the device, which the "
                                         "host reader accepts",
                      what, (ull)bad);
}

/* Vectors [0, upto) of cuzk_params_vec ready on the device: waits for the
 * loader's copies and decodes those not yet decoded (the caller holds the
 * key's lock, or owns the key in prepare). A failure (the loader's or a
 * decode's) is every later call's too. */
cuzk_status cuzk__gpu_vectors_wait(gpu_key *k, unsigned upto, cuzk_error *err) {
    pthread_mutex_lock(&k->ld_mu);
    while (k->ld_copied < upto && k->ld_st == CUZK_OK) pthread_cond_wait(&k->ld_cv, &k->ld_mu);
    cuzk_status st = k->ld_st;
    if (st != CUZK_OK && err != NULL) *err = k->ld_err;
    pthread_mutex_unlock(&k->ld_mu);
    if (st != CUZK_OK) return st;
    for (; k->ld_decoded < upto; k->ld_decoded++) {
        cuzk_error e;
        cuzk__error_clear(&e);
        if ((st = decode_vector(k, (cuzk_params_vec)k->ld_decoded, &e)) != CUZK_OK) {
            load_failed(k, st, &e);
            if (err != NULL) *err = e;
            return st;
        }
    }
    return CUZK_OK;
}

/* Once the loader has finished (or, quit, after it stops at its next run):
 * joins it and frees its buffers. Not on the loader's way out: freeing
 * page-locked memory waits for the device, and a proof's kernels would hold
 * up its last vector. No-op without a loader or while it still copies. */
void cuzk__gpu_loader_reap(gpu_key *k, int quit) {
    if (quit) loader_quit(k);
    if (k->ld_thread_on) {
        pthread_mutex_lock(&k->ld_mu);
        const int done = k->ld_copied == 5 || k->ld_st != CUZK_OK;
        pthread_mutex_unlock(&k->ld_mu);
        if (!done && !quit) return;
        (void)pthread_join(k->ld_thread, NULL);
        k->ld_thread_on = 0;
    }
    loader_close(k->ld_up);
    k->ld_up = NULL;
}

/* The handles of the deferred vectors the key keeps on the device (the
 * plan's streamed ones stay in host memory), not yet filled: made before
 * the work area, so that it sees them as when uploaded. */
cuzk_status cuzk__gpu_bases_alloc_deferred(gpu_key *k, const cuzk_params *p, cuzk_error *err) {
    for (unsigned i = 0; i < 5; i++) {
        const cuzk_params_vec v = (cuzk_params_vec)i;
        const cuzk__gpu_msm_group g =
            v == CUZK_PARAMS_VEC_B_G2 ? CUZK__GPU_MSM_G2 : CUZK__GPU_MSM_G1;
        const uint64_t n = vec_count(p, v);
        cuzk_status st;
        if (n != 0 && !cuzk__gpu_streamed(k, v) &&
            (st = cuzk__gpu_msm_bases_alloc(key_vec(k, v), g, (size_t)n)) != CUZK_OK)
            return gpu_fail(err, st, upload_what(v));
    }
    return CUZK_OK;
}

/* The loader's buffers, then its thread (in line, in prepare, without
 * page-locked buffers or a thread); the load's status is vectors_wait's. */
cuzk_status cuzk__gpu_loader_start(gpu_key *k, cuzk_error *err) {
    cuzk_status st;
    if ((st = cuzk__gpu_alloc((void **)&k->ld_bad, sizeof(uint64_t))) != CUZK_OK)
        return gpu_fail(err, st, "allocating the decode's flag");
    if ((st = loader_open(k, &k->ld_up, err)) != CUZK_OK) return st;
    k->ld_copied = k->ld_decoded = 0;
    k->ld_up->threaded = k->ld_up->cq != NULL; /* before the thread reads it */
    if (k->ld_up->threaded && pthread_create(&k->ld_thread, NULL, vector_loader, k) == 0) {
        k->ld_thread_on = 1;
        return CUZK_OK;
    }
    k->ld_up->threaded = 0;
    load_vectors(k);
    return CUZK_OK;
}

