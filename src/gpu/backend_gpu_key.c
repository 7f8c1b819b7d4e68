/*
 * backend_gpu_key.c — a key of the CUDA backend (backend_gpu_impl.h): its
 * preparation from bellman parameters or a snarkjs key (the circuit, the
 * SRS vectors and the NTT tables made resident on the device, the per-proof
 * work area sized), its release, and the shifted copies of its H and L
 * bases once it has proved often enough to earn them back.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/backend_gpu_impl.h"
#include "util/mem.h"

/* Host memory for a, b, c made on the CPU (bytes): page-locked, so that
 * it goes up in one DMA, else plain memory through the staging buffers
 * (*pinned says which; the test hooks' CUZK__GPU_PIN_FAIL_ABC forces
 * plain); NULL without memory. host_abc_free releases it. */
static cuzk_fr *host_abc_alloc(const gpu_key *k, size_t bytes, int *pinned) {
    void *p = NULL;
    *pinned = (k->inst->hooks.pin_fail & CUZK__GPU_PIN_FAIL_ABC) == 0 &&
              cuzk__gpu_host_alloc(&p, bytes) == CUZK_OK;
    return *pinned ? p : cuzk__alloc_large(bytes);
}
static void host_abc_free(cuzk_fr *p, int pinned) {
    if (pinned)
        cuzk__gpu_host_free(p);
    else
        free(p);
}

static void key_free(gpu_key *k) {
    if (k == NULL) return;
    /* best effort: on failure the frees below still release what they can */
    cuzk_status st = cuzk__gpu_set_device(k->device);
    (void)st;
    cuzk__gpu_loader_reap(k, 1); /* it may be writing the bases */
    cuzk__gpu_stage_stop(k);     /* its copy may be writing w_slot */
    cuzk__gpu_stream_free(k);    /* waits for its chunks' copies */
    cuzk__gpu_circuit_free(k->gc);
    cuzk__gpu_ntt_domain_destroy(k->dom);
    cuzk__gpu_msm_bases_free(k->h);
    cuzk__gpu_msm_bases_free(k->l);
    cuzk__gpu_msm_bases_free(k->a);
    cuzk__gpu_msm_bases_free(k->b1);
    cuzk__gpu_msm_bases_free(k->b2);
    if (!k->w_in_abc) cuzk__gpu_free(k->w_plain);
    cuzk__gpu_free(k->w_mont); /* and gath, which shares it */
    cuzk__gpu_free(k->abc);
    cuzk__gpu_copy_queue_free(k->cab_cq); /* first: they wait for copies reading the buffers */
    cuzk__gpu_copy_queue_free(k->cq);
    cuzk__gpu_host_free(k->stage[0]);
    cuzk__gpu_host_free(k->stage[1]);
    cuzk__gpu_copy_queue_free(k->st_cq);
    cuzk__gpu_host_free(k->st_stage[0]);
    cuzk__gpu_host_free(k->st_stage[1]);
    if (!k->st_in_abc) cuzk__gpu_free(k->w_slot); /* else abc's */
    host_abc_free(k->host_abc, k->host_abc_pinned);
    for (int i = 0; i < 2; i++) host_abc_free(k->cab_host[i], k->cab_pinned[i]);
    cuzk__gpu_free(k->bm_one);
    cuzk__gpu_free(k->bm_other);
    cuzk__gpu_free(k->ld_bad);
    pthread_cond_destroy(&k->cab_cv);
    pthread_mutex_destroy(&k->cab_mu);
    pthread_cond_destroy(&k->ld_cv);
    pthread_mutex_destroy(&k->ld_mu);
    pthread_cond_destroy(&k->st_cv);
    pthread_mutex_destroy(&k->st_mu);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

static gpu_key *key_new(cuzk_backend *be) {
    gpu_key *k = calloc(1, sizeof(*k));
    if (k == NULL) return NULL;
    int made = 0; /* how many of the seven below exist */
    if (pthread_mutex_init(&k->lock, NULL) == 0) made = 1;
    if (made == 1 && pthread_mutex_init(&k->st_mu, NULL) == 0) made = 2;
    if (made == 2 && pthread_cond_init(&k->st_cv, NULL) == 0) made = 3;
    if (made == 3 && pthread_mutex_init(&k->ld_mu, NULL) == 0) made = 4;
    if (made == 4 && pthread_cond_init(&k->ld_cv, NULL) == 0) made = 5;
    if (made == 5 && pthread_mutex_init(&k->cab_mu, NULL) == 0) made = 6;
    if (made == 6 && pthread_cond_init(&k->cab_cv, NULL) == 0) made = 7;
    if (made < 7) {
        if (made > 5) pthread_mutex_destroy(&k->cab_mu);
        if (made > 4) pthread_cond_destroy(&k->ld_cv);
        if (made > 3) pthread_mutex_destroy(&k->ld_mu);
        if (made > 2) pthread_cond_destroy(&k->st_cv);
        if (made > 1) pthread_mutex_destroy(&k->st_mu);
        if (made > 0) pthread_mutex_destroy(&k->lock);
        free(k);
        return NULL;
    }
    k->ld_copied = k->ld_decoded = 5; /* nothing to load unless prepare starts a loader */
    k->inst = be->impl;
    k->copies_after = k->inst->hooks.copies_after;
    k->device = be->device;
    k->threads = be->threads;
    k->base.ops = &cuzk_backend_gpu;
    return k;
}

/* Vector v's n points (host, affine) uploaded into its handle, naming the
 * vector on failure; nothing for a vector the plan streams (stream_setup). */
static cuzk_status upload_vec(gpu_key *k, cuzk_params_vec v, const void *p, uint64_t n,
                              const char *what, cuzk_error *err) {
    if (n == 0 || cuzk__gpu_streamed(k, v)) return CUZK_OK;
    const cuzk__gpu_msm_group g = v == CUZK_PARAMS_VEC_B_G2 ? CUZK__GPU_MSM_G2 : CUZK__GPU_MSM_G1;
    cuzk_status st = cuzk__gpu_msm_bases_upload(key_vec(k, v), g, (const uint64_t *)p, (size_t)n);
    if (st != CUZK_OK) return gpu_fail(err, st, what);
    return CUZK_OK;
}

/* The key's MSM handles that exist, H first, into hs; returns how many. */
unsigned cuzk__gpu_key_msms(const gpu_key *k, cuzk__gpu_msm_bases *hs[5]) {
    cuzk__gpu_msm_bases *const all[5] = {k->h, k->l, k->a, k->b1, k->b2};
    unsigned nh = 0;
    for (int i = 0; i < 5; i++)
        if (all[i] != NULL) hs[nh++] = all[i];
    return nh;
}

/* The work area: witness (plain and Montgomery), a, b, c, one gathered
 * query, the classification bitmaps and the staging buffers. */
static cuzk_status work_alloc(gpu_key *k, cuzk_error *err) {
    size_t fr = 32;
    cuzk_status st;
    /* the key's MSMs run one after another: one MSM work area for all
     * (at 2^27 one area is ~30 GB; five side by side do not fit); their
     * affine levels get at most cuzk__gpu_key_level_budget: more takes the
     * room of the next witness's staging slot (stage_setup) */
    size_t free_b = 0, total_b = 0;
    if ((st = cuzk__gpu_mem_info(&free_b, &total_b)) != CUZK_OK)
        return gpu_fail(err, st, "reading the device's memory");
    cuzk__gpu_msm_bases *hs[5];
    const unsigned nh = cuzk__gpu_key_msms(k, hs);
    const size_t budget = cuzk__gpu_key_level_budget(k->inst, total_b, k->vram_limit);
    for (unsigned i = 0; i < nh; i++) {
        if (k->h != NULL) cuzk__gpu_msm_bases_share_work(hs[i], k->h); /* H's own: no-op */
        cuzk__gpu_msm_bases_cap_level_budget(hs[i], budget);
    }
    /* the streamed vectors' chunks are summed on the streamer's views, on
     * the same area (stream_setup shared it) and budget */
    cuzk__gpu_msm_bases_cap_level_budget(
        cuzk__gpu_msm_streamer_view(k->streamer, CUZK__GPU_MSM_G1), budget);
    cuzk__gpu_msm_bases_cap_level_budget(
        cuzk__gpu_msm_streamer_view(k->streamer, CUZK__GPU_MSM_G2), budget);
    /* the bitmaps stay on the device: the classification writes them and the
     * batch-add and masked MSM read them there (no round trips through the
     * host) */
    const size_t bm_bytes = (size_t)cuzk__gpu_bitmap_bytes(k->max_query);
    /* the Montgomery witness is dead once the SpMV has made a, b, c; the
     * gathered queries come after, in the same buffer (4 GB at 2^27) */
    if (k->plan.abc_on_cpu) {
        /* the witness and the gathered queries in a, b, c's later thirds
         * (backend_gpu_plan.c offers this plan only where they fit) */
        if ((st = cuzk__gpu_alloc(&k->abc, 3 * k->n_dom * fr)) != CUZK_OK ||
            (st = cuzk__gpu_alloc((void **)&k->bm_one, bm_bytes)) != CUZK_OK ||
            (st = cuzk__gpu_alloc((void **)&k->bm_other, bm_bytes)) != CUZK_OK)
            return gpu_fail(err, st, "allocating the per-proof work area");
        k->w_plain = (uint8_t *)k->abc + k->n_dom * fr;
        k->gath = (uint8_t *)k->abc + 2 * k->n_dom * fr;
        k->w_in_abc = 1;
        k->st_off = 1; /* no slot to swap with a witness that lives in abc */
        return CUZK_OK;
    }
    const size_t shared = k->n_vars > k->max_query ? k->n_vars : (k->max_query ? k->max_query : 1);
    if ((st = cuzk__gpu_alloc(&k->w_plain, k->n_vars * fr)) != CUZK_OK ||
        (st = cuzk__gpu_alloc(&k->w_mont, shared * fr)) != CUZK_OK ||
        (st = cuzk__gpu_alloc(&k->abc, 3 * k->n_dom * fr)) != CUZK_OK ||
        (st = cuzk__gpu_alloc((void **)&k->bm_one, bm_bytes)) != CUZK_OK ||
        (st = cuzk__gpu_alloc((void **)&k->bm_other, bm_bytes)) != CUZK_OK)
        return gpu_fail(err, st, "allocating the per-proof work area");
    k->gath = k->w_mont;
    cuzk__gpu_stage_alloc(k);
    return CUZK_OK;
}

/* The two host buffers of a, b, c made on the CPU, and the queue their
 * copies take beside the kernels (none: in line). */
static cuzk_status cab_alloc(gpu_key *k, cuzk_error *err) {
    const size_t bytes = 3 * (size_t)k->n_dom * sizeof(cuzk_fr);
    for (int i = 0; i < 2; i++) {
        k->cab_host[i] = host_abc_alloc(k, bytes, &k->cab_pinned[i]);
        if (k->cab_host[i] == NULL)
            return cuzk__fail(err, CUZK_ERR_NOMEM, "no host memory for a, b, c (2 x %llu bytes)",
                              (ull)bytes);
    }
    if (cuzk__gpu_copy_queue_create_beside(&k->cab_cq, 3) != CUZK_OK) k->cab_cq = NULL;
    return CUZK_OK;
}

/* prepare (early 0) or prepare_early (1: returns once h is on the device,
 * the other deferred vectors loading beside the first proofs). */
static cuzk_status prepare_with(cuzk_backend *be, cuzk_backend_key **out, const cuzk_circuit *c,
                                const cuzk_params *p, int early, cuzk_error *err) {
    cuzk__error_clear(err);
    cuzk_status st = cuzk_groth16_check_params(c, p, err);
    if (st != CUZK_OK) return st;
    if ((st = cuzk__gpu_set_device(be->device)) != CUZK_OK)
        return gpu_fail(err, st, "selecting the device");
    if (be->impl == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU backend not opened");
    gpu_key *k = key_new(be);
    if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a backend key");
    k->c = c;
    k->p = p;
    k->n_vars = cuzk_circuit_n_vars(c);
    k->n_dom = c->domain_size;
    k->n_h = p->h.n;
    k->l_first = c->n_inputs;
    k->max_query = p->a.n > p->b_g1.n ? p->a.n : p->b_g1.n;
    if (c->n_aux > k->max_query) k->max_query = c->n_aux;
    if (k->n_h > k->max_query) k->max_query = k->n_h;
    /* the memory plan: what stays on the device, what streams from host memory */
    if ((st = cuzk__gpu_key_plan(k, be, err)) != CUZK_OK) goto fail;

    /* the staging buffers first: the circuit (8.9 GB at 2^27) goes through
     * them, and the loader's runs take their size */
    cuzk__gpu_stage_alloc(k);
    cuzk__gpu_circuit_src src;
    cuzk__gpu_circuit_src_of(&src, c);
    if (k->plan.abc_on_cpu) { /* the CPU makes a, b, c: only the query lists go up */
        if ((st = cuzk__gpu_circuit_upload_lists(&k->gc, &src, cuzk__gpu_staged_copy, k)) !=
            CUZK_OK) {
            gpu_fail(err, st, "uploading the circuit's variable lists");
            goto fail;
        }
        if ((st = cab_alloc(k, err)) != CUZK_OK) goto fail;
    } else if ((st = cuzk__gpu_circuit_upload(&k->gc, &src, cuzk__gpu_staged_copy, k)) !=
               CUZK_OK) {
        gpu_fail(err, st, "uploading the circuit");
        goto fail;
    }
    if ((st = cuzk__gpu_ntt_domain_create(&k->dom, p->log_domain_size, CUZK_NTT_ROOT7)) !=
        CUZK_OK) {
        gpu_fail(err, st, "NTT tables");
        goto fail;
    }
    if (p->deferred) {
        if ((st = cuzk__gpu_bases_alloc_deferred(k, p, err)) != CUZK_OK) goto fail;
    } else {
        const void *const pts[5] = {p->h.p, p->l.p, p->a.p, p->b_g1.p, p->b_g2.p};
        for (unsigned v = 0; v < 5; v++)
            if ((st = upload_vec(k, (cuzk_params_vec)v, pts[v], vec_count(p, (cuzk_params_vec)v),
                                 upload_what((cuzk_params_vec)v), err)) != CUZK_OK)
                goto fail;
    }
    if ((st = cuzk__gpu_stream_setup(k, err)) != CUZK_OK || (st = work_alloc(k, err)) != CUZK_OK)
        goto fail;
    k->alpha1 = p->vk.alpha1;
    k->beta1 = p->vk.beta1;
    k->delta1 = p->vk.delta1;
    k->beta2 = p->vk.beta2;
    k->delta2 = p->vk.delta2;
    k->base.n_inputs = c->n_inputs;
    k->base.n_aux = c->n_aux;
    k->base.n_public = c->n_inputs - 1;
    k->base.log_domain = p->log_domain_size;
    if (p->deferred) {
        if ((st = cuzk__gpu_loader_start(k, err)) != CUZK_OK ||
            (st = cuzk__gpu_vectors_wait(k, early ? 1 : 5, err)) != CUZK_OK)
            goto fail;
        cuzk__gpu_loader_reap(k, 0); /* frees its buffers if it is done */
    }
    *out = &k->base;
    return CUZK_OK;
fail:
    key_free(k);
    return st;
}

cuzk_status cuzk__gpu_op_prepare(cuzk_backend *be, cuzk_backend_key **out, const cuzk_circuit *c,
                               const cuzk_params *p, cuzk_error *err) {
    return prepare_with(be, out, c, p, 0, err);
}

cuzk_status cuzk__gpu_op_prepare_early(cuzk_backend *be, cuzk_backend_key **out,
                                     const cuzk_circuit *c, const cuzk_params *p,
                                     cuzk_error *err) {
    return prepare_with(be, out, c, p, 1, err);
}

/* The whole key: its loader's status (its buffers freed once it is done). */
cuzk_status cuzk__gpu_op_key_wait(cuzk_backend *be, cuzk_backend_key *key, cuzk_error *err) {
    (void)be;
    cuzk__error_clear(err);
    gpu_key *k = (gpu_key *)key;
    pthread_mutex_lock(&k->lock); /* the decodes and loader_reap are the proofs' too */
    cuzk_status st = cuzk__gpu_set_device(k->device); /* the decodes run on it */
    if (st != CUZK_OK)
        gpu_fail(err, st, "selecting the device");
    else
        st = cuzk__gpu_vectors_wait(k, 5, err);
    cuzk__gpu_loader_reap(k, 0);
    pthread_mutex_unlock(&k->lock);
    return st;
}

cuzk_status cuzk__gpu_op_prepare_zkey(cuzk_backend *be, cuzk_backend_key **out,
                                    const cuzk_zkey *zk, cuzk_error *err) {
    cuzk__error_clear(err);
    cuzk_status st;
    if ((st = cuzk__gpu_set_device(be->device)) != CUZK_OK)
        return gpu_fail(err, st, "selecting the device");
    if (zk->root != CUZK_NTT_ROOT5 || zk->h_kind != CUZK_H_ODD_COSET_LAGRANGE)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: only snarkjs keys (root 5^t, odd-coset H) are proved here",
                          zk->file.path);
    if (be->impl == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU backend not opened");
    gpu_key *k = key_new(be);
    if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a backend key");
    k->zk = zk;
    k->n_vars = zk->n_vars;
    k->n_dom = zk->domain_size;
    k->n_h = zk->domain_size;
    k->l_first = (uint64_t)zk->n_public + 1;
    k->max_query = k->n_vars > k->n_dom ? k->n_vars : k->n_dom;
    if ((st = cuzk__gpu_key_plan(k, be, err)) != CUZK_OK) goto fail;
    const size_t abc_bytes = 3 * (size_t)k->n_dom * sizeof(cuzk_fr);
    k->host_abc = host_abc_alloc(k, abc_bytes, &k->host_abc_pinned);
    if (k->host_abc == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a, b, c");
        goto fail;
    }
    if ((st = cuzk__gpu_ntt_domain_create(&k->dom, zk->log_domain_size, CUZK_NTT_ROOT5)) !=
        CUZK_OK) {
        gpu_fail(err, st, "NTT tables");
        goto fail;
    }
    if ((st = upload_vec(k, CUZK_PARAMS_VEC_H, zk->h.p, zk->h.n, "uploading section H", err)) !=
            CUZK_OK ||
        (st = upload_vec(k, CUZK_PARAMS_VEC_L, zk->c.p, zk->c.n, "uploading section C", err)) !=
            CUZK_OK ||
        (st = upload_vec(k, CUZK_PARAMS_VEC_A, zk->a.p, zk->a.n, "uploading section A", err)) !=
            CUZK_OK ||
        (st = upload_vec(k, CUZK_PARAMS_VEC_B_G1, zk->b1.p, zk->b1.n, "uploading section B1",
                         err)) != CUZK_OK ||
        (st = upload_vec(k, CUZK_PARAMS_VEC_B_G2, zk->b2.p, zk->b2.n, "uploading section B2",
                         err)) != CUZK_OK ||
        (st = cuzk__gpu_stream_setup(k, err)) != CUZK_OK || (st = work_alloc(k, err)) != CUZK_OK)
        goto fail;
    k->alpha1 = zk->alpha1;
    k->beta1 = zk->beta1;
    k->delta1 = zk->delta1;
    k->beta2 = zk->beta2;
    k->delta2 = zk->delta2;
    k->base.n_inputs = (uint64_t)zk->n_public + 1;
    k->base.n_aux = zk->n_vars - k->base.n_inputs;
    k->base.n_public = zk->n_public;
    k->base.log_domain = zk->log_domain_size;
    *out = &k->base;
    return CUZK_OK;
fail:
    key_free(k);
    return st;
}

/*
 * Shifted copies of the bases of the key's dense MSMs, H and L (A and B_G1
 * are sparse tails), once the key has done k->copies_after proofs: a 2^24
 * porep partition's H MSM takes an eighth less time with them. A handle
 * gets them only if
 * its calls would read them: H's MSM of all its points, L's masked MSM at
 * the most points it has had (a masked MSM of few points does not read
 * them, and copies nobody reads would only hold memory). Making them costs
 * ~0.9 s a handle at 2^24, which a key that has served that many proofs is
 * likely to earn back (1.8 s for H and L against 13-28 ms saved a proof:
 * 64-140 proofs; a one-shot command's few proofs never pay for them). They
 * take the room the proofs leave: after the first proofs the work area and the
 * staging slot are made, and cuzk__gpu_msm_bases_precompute_fit keeps a
 * sixteenth of the device (or of the key's limit) free beside them (other
 * keys, the estimate's error); where the room is not there (a 2^27
 * partition) nothing changes.
 * A failure leaves the handle as it was: the proofs go on without copies.
 */
void cuzk__gpu_key_copies(gpu_key *k) {
    /* a plan that streams sums every vector in chunks or pieces: copies of
     * a whole vector would serve no call */
    if (k->plan.streamed != 0) return;
    size_t free_b = 0, total_b = 0;
    if (cuzk__gpu_key_mem(k, &free_b, &total_b) != CUZK_OK) return;
    /* H's MSM has all of its points; L's is masked (its scalars 0 and 1 apart) */
    cuzk__gpu_msm_bases *const hs[2] = {k->h, k->l};
    const unsigned serves[2] = {CUZK__GPU_MSM_SERVES_MSM, CUZK__GPU_MSM_SERVES_MASKED};
    /* a sixteenth of what the key may use stays free, and what its limit hides */
    const size_t mine = k->vram_limit != 0 && k->vram_limit < total_b ? k->vram_limit : total_b;
    for (int i = 0; i < 2; i++) {
        unsigned made = 1;
        if (hs[i] != NULL &&
            cuzk__gpu_msm_bases_precompute_fit(hs[i], k->inst->hooks.copies_max, serves[i],
                                               mine / 16 + k->hidden, &made) == CUZK_OK &&
            made > 1)
            count_uploads(&k->inst->stats.copies, made);
    }
}

void cuzk__gpu_op_release_key(cuzk_backend *be, cuzk_backend_key *key) {
    (void)be;
    key_free((gpu_key *)key);
}

