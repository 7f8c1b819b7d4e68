/*
 * backend_gpu_prove.c — one proof on the CUDA backend (backend_gpu_impl.h):
 * the witness to a, b, c (the circuit's SpMV) and the satisfaction check,
 * H by NTTs, then the MSMs of H, L (or C), A, B_G1 and B_G2, the sparse ones
 * after a 0/1/other classification. The CPU assembles the proof
 * (prove_finish).
 */
#include <stdlib.h>
#include <string.h>

#include "circuit/witness.h"
#include "gpu/backend_gpu_impl.h"

/* CUZK_OK when w has values and the key's variables (for a circuit, also
 * its input/aux split), else the refusal, naming the call op. */
cuzk_status cuzk__gpu_witness_check(const gpu_key *k, const cuzk_witness *w, const char *op,
                                 cuzk_error *err) {
    if (w == NULL || w->values == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: NULL witness", op);
    if (cuzk_witness_n_vars(w) != k->n_vars ||
        (k->c != NULL && (w->n_inputs != k->c->n_inputs || w->n_aux != k->c->n_aux)))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: %s: witness has %llu inputs + %llu aux, the key expects %llu "
                          "variables: witness of another circuit?",
                          op, w->path ? w->path : "(witness)", (ull)w->n_inputs, (ull)w->n_aux,
                          (ull)k->n_vars);
    return CUZK_OK;
}

/* The points a proof's MSM over A, B_G1 or B_G2 takes: the variables
 * listed for A or B (every variable for a zkey). */
static uint64_t ab_points(const gpu_key *k, cuzk_params_vec v) {
    if (k->c == NULL) return k->n_vars;
    const cuzk__gpu_circuit_info *info = cuzk__gpu_circuit_info_of(k->gc);
    return v == CUZK_PARAMS_VEC_A ? info->a_count : info->b_count;
}

/* Before a kept vector's pieces (L, A or B_G1: the copy stream idle), the
 * first chunks of the next streamed vector with points in the proof's
 * order (A, B_G1, B_G2) go up. */
static void prefetch_after(gpu_key *k, cuzk_params_vec v) {
    for (unsigned u = (unsigned)v + 1; u < 5; u++) {
        const cuzk_params_vec w = (cuzk_params_vec)u;
        if (!cuzk__gpu_streamed(k, w) || !cuzk__gpu_key_has(k, w)) continue;
        const uint64_t n = ab_points(k, w);
        if (n == 0) continue;
        cuzk__gpu_key_prefetch(k, w, n);
        return;
    }
}

/* The 0/1/other classification of n device scalars into the key's device
 * bitmaps, for classified_msm over one or more bases. */
static cuzk_status classify(gpu_key *k, cuzk__gpu_msm_counts *cnt, const uint64_t *scalars,
                            uint64_t n, cuzk_groth16_stage_times *t, cuzk_error *err) {
    const double t0 = cuzk__now_ms();
    cuzk_status st =
        cuzk__gpu_msm_classify(NULL, k->bm_one, k->bm_other, cnt, scalars, (size_t)n);
    t->prep_ms += cuzk__now_ms() - t0;
    if (st != CUZK_OK) return gpu_fail(err, st, "classifying scalars");
    return CUZK_OK;
}

/* sum over the n device scalars of scalar * base of vector v (resident or
 * streamed: backend_gpu_stream.c), after classify() of the same scalars
 * (cnt and the key's bitmaps): batch-add of the ones, Pippenger over the
 * others (result: host Jacobian words). */
static cuzk_status classified_msm(gpu_key *k, cuzk_params_vec v, uint64_t *result,
                                  const uint64_t *scalars, uint64_t n,
                                  const cuzk__gpu_msm_counts *cnt, cuzk_groth16_stage_times *t,
                                  cuzk_error *err) {
    const int g2 = v == CUZK_PARAMS_VEC_B_G2;
    uint64_t ones[36], others[36];
    memset(ones, 0, sizeof(ones));
    memset(others, 0, sizeof(others));
    if (n == 0 || !cuzk__gpu_key_has(k, v)) {
        if (g2)
            cuzk_g2_jac_set_inf((cuzk_g2_jac *)(void *)result);
        else
            cuzk_g1_jac_set_inf((cuzk_g1_jac *)(void *)result);
        return CUZK_OK;
    }
    cuzk_status st;
    if ((st = injected(k, "batch_add", err)) != CUZK_OK ||
        (st = injected(k, g2 ? "b_g2_msm" : "tail_msm", err)) != CUZK_OK)
        return st;
    double t0 = cuzk__now_ms();
    if (k->streamer != NULL) {
        /* a plan that streams: one pass over the chunks (or pieces) for both
         * halves, timed as the tail */
        if (!cuzk__gpu_streamed(k, v)) prefetch_after(k, v);
        if ((cnt->one || cnt->other) &&
            (st = cuzk__gpu_key_split(k, v, cnt->one ? ones : NULL, cnt->other ? others : NULL,
                                      scalars, n, k->bm_one, k->bm_other)) != CUZK_OK)
            return gpu_fail(err, st, "batch-add and tail MSM");
        *(g2 ? &t->b_g2_msm_ms : &t->tail_msm_ms) += cuzk__now_ms() - t0;
    } else {
        if (cnt->one && (st = cuzk__gpu_key_batch_add(k, v, ones, n, k->bm_one)) != CUZK_OK)
            return gpu_fail(err, st, "batch-add");
        t->batch_add_ms += cuzk__now_ms() - t0;
        t0 = cuzk__now_ms();
        if (cnt->other &&
            (st = cuzk__gpu_key_msm(k, v, others, scalars, n, k->bm_other)) != CUZK_OK)
            return gpu_fail(err, st, "tail MSM");
        *(g2 ? &t->b_g2_msm_ms : &t->tail_msm_ms) += cuzk__now_ms() - t0;
    }
    cuzk__gpu_msm_add_halves(g2 ? CUZK__GPU_MSM_G2 : CUZK__GPU_MSM_G1, result, ones, others, cnt);
    return CUZK_OK;
}

/* classify, then classified_msm over one base vector. */
static cuzk_status split_msm(gpu_key *k, cuzk_params_vec v, uint64_t *result,
                             const uint64_t *scalars, uint64_t n, cuzk_groth16_stage_times *t,
                             cuzk_error *err) {
    cuzk__gpu_msm_counts cnt = {0, 0, 0};
    cuzk_status st;
    if (n != 0 && cuzk__gpu_key_has(k, v) &&
        (st = classify(k, &cnt, scalars, n, t, err)) != CUZK_OK)
        return st;
    return classified_msm(k, v, result, scalars, n, &cnt, t, err);
}

/* B1 (G1) and B2 (G2) over the same n scalars: one classification for both. */
static cuzk_status b_msms(gpu_key *k, cuzk_groth16_partial *out, const uint64_t *scalars,
                          uint64_t n, cuzk_groth16_stage_times *t, cuzk_error *err) {
    cuzk__gpu_msm_counts cnt = {0, 0, 0};
    cuzk_status st;
    const int any = cuzk__gpu_key_has(k, CUZK_PARAMS_VEC_B_G1) ||
                    cuzk__gpu_key_has(k, CUZK_PARAMS_VEC_B_G2);
    if (n != 0 && any && (st = classify(k, &cnt, scalars, n, t, err)) != CUZK_OK) return st;
    if ((st = classified_msm(k, CUZK_PARAMS_VEC_B_G1, (uint64_t *)&out->msm_b1, scalars, n, &cnt,
                             t, err)) != CUZK_OK)
        return st;
    return classified_msm(k, CUZK_PARAMS_VEC_B_G2, (uint64_t *)&out->msm_b2, scalars, n, &cnt, t,
                          err);
}

/* The H step over a, b, c on the device (snarkjs' form or bellman's), the
 * first chunks of streamed H bases sent meanwhile: H, plain, in a's third
 * (N - 1 scalars for bellman, N for snarkjs). */
static cuzk_status h_step(gpu_key *k, int snarkjs, cuzk_groth16_stage_times *t,
                          cuzk_error *err) {
    const uint64_t n = k->n_dom;
    uint8_t *abc = k->abc;
    void *a = abc, *b = abc + 32 * n, *cc = abc + 64 * n;
    cuzk_status st;
    if ((st = injected(k, "ntt", err)) != CUZK_OK) return st;
    cuzk__gpu_key_prefetch(k, CUZK_PARAMS_VEC_H, k->n_h); /* up during the NTTs */
    const double t0 = cuzk__now_ms();
    if ((st = snarkjs ? cuzk__gpu_h_snarkjs(k->dom, a, b, cc, NULL)
                      : cuzk__gpu_h_bellman(k->dom, a, b, cc, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_fr_from_mont(a, a, (size_t)(snarkjs ? n : k->n_h), NULL)) != CUZK_OK ||
        (st = cuzk__gpu_sync_kernels()) != CUZK_OK) /* not the chunks sent ahead */
        return gpu_fail(err, st, "H");
    t->ntt_ms = cuzk__now_ms() - t0;
    return CUZK_OK;
}

/* Bellman: witness -> a, b, c -> check -> H (plain, in abc's first third). */
static cuzk_status stage_h_bellman(gpu_key *k, const cuzk_witness *w, int staged,
                                   cuzk_groth16_stage_times *t, cuzk_error *err) {
    const cuzk_circuit *c = k->c;
    const uint64_t n = k->n_dom;
    uint8_t *abc = k->abc;
    void *a = abc, *b = abc + 32 * n, *cc = abc + 64 * n;
    cuzk_status st;
    if ((st = injected(k, "spmv", err)) != CUZK_OK) return st;
    double t0 = cuzk__now_ms();
    if (!staged) { /* ahead of a loader still copying the key's vectors */
        if (k->ld_thread_on) cuzk__gpu_loader_yield(k, 1);
        st = cuzk__gpu_upload_input(k, k->w_plain, w->values, k->n_vars * 32);
        if (k->ld_thread_on) cuzk__gpu_loader_yield(k, 0);
        if (st != CUZK_OK) return gpu_fail(err, st, "witness -> a, b, c");
    }
    if ((st = cuzk__gpu_fr_to_mont(k->w_mont, k->w_plain, k->n_vars, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_circuit_abc(k->gc, a, b, cc, k->w_mont, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_sync()) != CUZK_OK)
        return gpu_fail(err, st, "witness -> a, b, c");
    t->spmv_ms = cuzk__now_ms() - t0;
    t0 = cuzk__now_ms();
    uint64_t bad = UINT64_MAX;
    if ((st = cuzk__gpu_circuit_check(k->gc, a, b, cc, &bad, NULL)) != CUZK_OK)
        return gpu_fail(err, st, "satisfaction check");
    t->check_ms = cuzk__now_ms() - t0;
    if (bad != UINT64_MAX)
        return cuzk__fail(err, CUZK_ERR_WITNESS_UNSATISFIED,
                          "%s: witness %s does not satisfy constraint %llu (A*B != C)",
                          c->path ? c->path : "(circuit)", w->path ? w->path : "(assignment)",
                          (ull)bad);
    return h_step(k, 0, t, err);
}

/* snarkjs: a, b, c from the coefficients on the CPU, H on the device. */
static cuzk_status stage_h_zkey(gpu_key *k, const cuzk_witness *w, int staged,
                                cuzk_groth16_stage_times *t, cuzk_error *err) {
    cuzk_status st;
    if ((st = injected(k, "spmv", err)) != CUZK_OK) return st;
    const double t0 = cuzk__now_ms();
    st = cuzk__groth16_zkey_abc(k->zk, (const uint64_t(*)[4])w->values,
                                (size_t)cuzk_witness_n_vars(w), k->host_abc, err);
    if (st != CUZK_OK) return st;
    if ((st = cuzk__gpu_upload_input(k, k->abc, k->host_abc, 3 * k->n_dom * 32)) != CUZK_OK ||
        (!staged &&
         (st = cuzk__gpu_upload_input(k, k->w_plain, w->values, k->n_vars * 32)) != CUZK_OK))
        return gpu_fail(err, st, "uploading a, b, c and the witness");
    t->spmv_ms = cuzk__now_ms() - t0;
    return h_step(k, 1, t, err);
}

/* A plan with a, b, c made on the CPU: before the key's lock, a free host
 * buffer (waiting for one) filled with w's a, b, c, the satisfaction
 * checked there too; its index into *slot. The lock's holder meanwhile
 * proves another witness on the device. */
static cuzk_status cpu_abc_make(gpu_key *k, const cuzk_witness *w, int *slot,
                                cuzk_groth16_stage_times *t, cuzk_error *err) {
    cuzk_status st;
    const double t0 = cuzk__now_ms();
    pthread_mutex_lock(&k->cab_mu);
    while (k->cab_busy == 3u) pthread_cond_wait(&k->cab_cv, &k->cab_mu);
    *slot = (k->cab_busy & 1u) ? 1 : 0;
    k->cab_busy |= 1u << *slot;
    pthread_mutex_unlock(&k->cab_mu);
    const uint64_t n = k->n_dom;
    cuzk_fr *abc = k->cab_host[*slot];
    uint64_t bad = UINT64_MAX;
    st = cuzk_witness_abc_var(k->c, w, abc, abc + n, abc + 2 * n, CUZK_SPMV_DEFAULT, k->threads,
                              &bad, err);
    t->cpu_abc_ms = t->spmv_ms = cuzk__now_ms() - t0; /* the buffer's wait included */
    return st;
}

/* The host buffer back for the next proof's a, b, c (slot -1: none). */
static void cpu_abc_release(gpu_key *k, int slot) {
    if (slot < 0) return;
    pthread_mutex_lock(&k->cab_mu);
    k->cab_busy &= ~(1u << slot);
    pthread_cond_broadcast(&k->cab_cv);
    pthread_mutex_unlock(&k->cab_mu);
}

/* Before the transforms of a, b or c (vec): the legacy stream waits for
 * that third's copy on the key's queue beside the kernels. */
static cuzk_status abc_arrived(void *ctx, unsigned vec, cuzk__gpu_stream s) {
    return cuzk__gpu_copy_queue_order(((gpu_key *)ctx)->cab_cq, vec, (void *)s);
}

/* a, b, c made on the CPU (cpu_abc_make) go up and H is made from them on
 * the device: from page-locked memory each third on the queue beside the
 * kernels, so that b's and c's copies run beside the transforms of a and b;
 * else in line, before them. The host buffer is released once its copies
 * are done (*slot = -1). The witness goes up after (witness_beside). */
static cuzk_status stage_h_cpu_abc(gpu_key *k, int *slot, cuzk_groth16_stage_times *t,
                                   cuzk_error *err) {
    const uint64_t n = k->n_dom;
    uint8_t *abc = k->abc;
    void *a = abc, *b = abc + 32 * n, *cc = abc + 64 * n;
    const cuzk_fr *host = k->cab_host[*slot];
    cuzk_status st;
    if ((st = injected(k, "spmv", err)) != CUZK_OK || (st = injected(k, "ntt", err)) != CUZK_OK)
        return st;
    const int beside = k->cab_cq != NULL && k->cab_pinned[*slot];
    const double t0 = cuzk__now_ms();
    if (k->ld_thread_on) cuzk__gpu_loader_yield(k, 1);
    if (beside) {
        for (unsigned v = 0; v < 3 && st == CUZK_OK; v++)
            st = cuzk__gpu_copy_queue_upload(k->cab_cq, v, abc + v * 32 * n, host + v * n, 32 * n);
    } else {
        st = cuzk__gpu_upload_input(k, abc, host, 3 * n * 32);
    }
    cuzk__gpu_key_prefetch(k, CUZK_PARAMS_VEC_H, k->n_h); /* up during the NTTs */
    if (st == CUZK_OK)
        st = beside ? cuzk__gpu_h_bellman_arriving(k->dom, a, b, cc, abc_arrived, k, NULL)
                    : cuzk__gpu_h_bellman(k->dom, a, b, cc, NULL);
    if (st == CUZK_OK) st = cuzk__gpu_fr_from_mont(a, a, (size_t)k->n_h, NULL);
    if (st == CUZK_OK) st = cuzk__gpu_sync_kernels(); /* not the chunks sent ahead */
    if (beside) { /* every copy of the host buffer done, also after a failure */
        const cuzk_status cs = cuzk__gpu_copy_queue_sync(k->cab_cq);
        if (st == CUZK_OK) st = cs;
    }
    if (k->ld_thread_on) cuzk__gpu_loader_yield(k, 0);
    cpu_abc_release(k, *slot);
    *slot = -1;
    if (st != CUZK_OK) return gpu_fail(err, st, "a, b, c up and H");
    t->ntt_ms = cuzk__now_ms() - t0;
    return CUZK_OK;
}

/* The witness of a key whose a, b, c the CPU makes goes up into b's third
 * on a thread of its own, beside the H MSM (which reads only a's). */
typedef struct {
    gpu_key *k;
    const cuzk_witness *w;
    cuzk_status st;
    cuzk_error err; /* its words, made on the thread whose CUDA call failed */
    pthread_t thread;
    int running;
} witness_upload;

static void *witness_upload_run(void *arg) {
    witness_upload *u = arg;
    u->st = cuzk__gpu_set_device(u->k->device);
    if (u->st == CUZK_OK)
        u->st = cuzk__gpu_upload_beside(u->k, u->k->w_plain, u->w->values, u->k->n_vars * 32);
    if (u->st != CUZK_OK) (void)gpu_fail(&u->err, u->st, "uploading the witness");
    return NULL;
}

/* Starts it (in line when no thread can be made: u->st says how that went). */
static void witness_beside(witness_upload *u, gpu_key *k, const cuzk_witness *w) {
    u->k = k;
    u->w = w;
    u->st = CUZK_OK;
    u->running = pthread_create(&u->thread, NULL, witness_upload_run, u) == 0;
    if (!u->running) witness_upload_run(u);
}

/* Its end: the wait counted as spmv (the part the H MSM did not hide). */
static cuzk_status witness_beside_end(witness_upload *u, cuzk_groth16_stage_times *t,
                                      cuzk_error *err) {
    const double t0 = cuzk__now_ms();
    if (u->running) (void)pthread_join(u->thread, NULL);
    u->running = 0;
    t->spmv_ms += cuzk__now_ms() - t0;
    if (u->st != CUZK_OK) {
        if (err != NULL) *err = u->err; /* the failed call's words are the upload thread's */
        return u->st;
    }
    return CUZK_OK;
}

/* Vector v (and those before it) on the device: a key from prepare_early
 * may still be loading it, or have it to decode (key_wait counts both). */
static cuzk_status vector_need(gpu_key *k, cuzk_params_vec v, cuzk_groth16_stage_times *t,
                               cuzk_error *err) {
    if (k->ld_decoded > (unsigned)v) return CUZK_OK;
    const double t0 = cuzk__now_ms();
    const cuzk_status st = cuzk__gpu_vectors_wait(k, 1 + (unsigned)v, err);
    t->key_wait_ms += cuzk__now_ms() - t0;
    return st;
}

static cuzk_status prove_locked(gpu_key *k, gpu_job *j, const cuzk_witness *w, int *cab,
                                cuzk_error *err) {
    cuzk_groth16_stage_times *t = &j->base.t;
    cuzk_groth16_partial *out = &j->part;
    cuzk_status st;
    if ((st = cuzk__gpu_witness_check(k, w, "prove_start", err)) != CUZK_OK) return st;
    /* first, so that every proof uses up its announcement, also one that
     * fails below (stage_take); a wait for its copy counts as spmv */
    const double t_take = cuzk__now_ms();
    const int staged = cuzk__gpu_stage_take(k, w);
    const double take_ms = cuzk__now_ms() - t_take;
    j->base.witness_staged = staged;
    if ((st = cuzk__gpu_load_status(k, err)) != CUZK_OK) return st; /* a vector failed to load */
    if ((st = cuzk__gpu_set_device(k->device)) != CUZK_OK)
        return gpu_fail(err, st, "selecting the device");
    if (staged && k->st_in_abc && (st = cuzk__gpu_stage_abc_taken(k)) != CUZK_OK)
        return gpu_fail(err, st, "the staged witness to its buffer");
    st = *cab >= 0 ? stage_h_cpu_abc(k, cab, t, err)
         : k->zk   ? stage_h_zkey(k, w, staged, t, err)
                   : stage_h_bellman(k, w, staged, t, err);
    if (st != CUZK_OK) return st;
    cuzk__gpu_stage_abc_free(k); /* b's third: the next witness may go up beside the MSMs */
    t->spmv_ms += take_ms;

    /* H: N - 1 (bellman) or N (snarkjs) random scalars, no split */
    cuzk_g1_jac msm_h, msm_l;
    cuzk_g1_jac_set_inf(&msm_h); /* a domain of 1 has no h points */
    if ((st = vector_need(k, CUZK_PARAMS_VEC_H, t, err)) != CUZK_OK ||
        (st = injected(k, "msm_h", err)) != CUZK_OK)
        return st;
    witness_upload wu;
    memset(&wu, 0, sizeof wu);
    if (k->w_in_abc) witness_beside(&wu, k, w); /* b's third, free since the NTTs */
    double t0 = cuzk__now_ms();
    if (k->n_h != 0 && (st = cuzk__gpu_key_msm(k, CUZK_PARAMS_VEC_H, (uint64_t *)&msm_h, k->abc,
                                               k->n_h, NULL)) != CUZK_OK)
        st = gpu_fail(err, st, "H MSM");
    t->msm_h_ms = cuzk__now_ms() - t0;
    if (k->w_in_abc) { /* joined also after a failed H MSM */
        const cuzk_status ws = witness_beside_end(&wu, t, st == CUZK_OK ? err : NULL);
        if (st == CUZK_OK) st = ws;
    }
    if (st != CUZK_OK) return st;

    const uint64_t *wp = k->w_plain;
    /* L (bellman) or C (snarkjs): the aux / private variables in place */
    if ((st = vector_need(k, CUZK_PARAMS_VEC_L, t, err)) != CUZK_OK ||
        (st = split_msm(k, CUZK_PARAMS_VEC_L, (uint64_t *)&msm_l, wp + 4 * k->l_first,
                        k->n_vars - k->l_first, t, err)) != CUZK_OK)
        return st;
    if (k->c != NULL) {
        const cuzk__gpu_circuit_info *info = cuzk__gpu_circuit_info_of(k->gc);
        t0 = cuzk__now_ms();
        if ((st = cuzk__gpu_fr_gather(k->gath, wp, info->a_vars, (size_t)info->a_count, NULL)) !=
            CUZK_OK)
            return gpu_fail(err, st, "gathering A's scalars");
        t->prep_ms += cuzk__now_ms() - t0;
        if ((st = vector_need(k, CUZK_PARAMS_VEC_A, t, err)) != CUZK_OK ||
            (st = split_msm(k, CUZK_PARAMS_VEC_A, (uint64_t *)&out->msm_a, k->gath,
                            info->a_count, t, err)) != CUZK_OK)
            return st;
        t0 = cuzk__now_ms();
        if ((st = cuzk__gpu_fr_gather(k->gath, wp, info->b_vars, (size_t)info->b_count, NULL)) !=
            CUZK_OK)
            return gpu_fail(err, st, "gathering B's scalars");
        t->prep_ms += cuzk__now_ms() - t0;
        if ((st = vector_need(k, CUZK_PARAMS_VEC_B_G2, t, err)) != CUZK_OK ||
            (st = b_msms(k, out, k->gath, info->b_count, t, err)) != CUZK_OK)
            return st;
    } else { /* snarkjs: A, B1, B2 over every variable */
        if ((st = split_msm(k, CUZK_PARAMS_VEC_A, (uint64_t *)&out->msm_a, wp, k->n_vars, t,
                            err)) != CUZK_OK ||
            (st = b_msms(k, out, wp, k->n_vars, t, err)) != CUZK_OK)
            return st;
    }
    cuzk_g1_jac_add_var(&out->msm_ch, &msm_l, &msm_h);
    out->alpha1 = k->alpha1;
    out->beta1 = k->beta1;
    out->delta1 = k->delta1;
    out->beta2 = k->beta2;
    out->delta2 = k->delta2;
    /* the per-MSM view of the snarkjs timings, for callers that print it */
    out->t.abc_ms = t->spmv_ms + t->check_ms;
    out->t.ntt_ms = t->ntt_ms;
    out->t.msm_h_ms = t->msm_h_ms;
    return CUZK_OK;
}

cuzk_status cuzk__gpu_op_prove_start(cuzk_backend *be, cuzk_backend_job **out,
                                   cuzk_backend_key *key, const cuzk_witness *w,
                                   cuzk_error *err) {
    cuzk__error_clear(err);
    gpu_key *k = (gpu_key *)key;
    gpu_job *j = calloc(1, sizeof(*j));
    if (j == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a proof job");
    j->base.ops = &cuzk_backend_gpu;
    const double t_begin = cuzk__now_ms();
    int cab = -1; /* the host buffer of a, b, c made on the CPU */
    cuzk_status st;
    if (k->plan.abc_on_cpu) {
        if ((st = cuzk__gpu_witness_check(k, w, "prove_start", err)) != CUZK_OK ||
            (st = cpu_abc_make(k, w, &cab, &j->base.t, err)) != CUZK_OK) {
            cpu_abc_release(k, cab);
            cuzk__backend_partial_release(be, &j->base);
            return st;
        }
    }
    const double t0 = cuzk__now_ms();
    pthread_mutex_lock(&k->lock);
    j->base.t.lock_wait_ms = cuzk__now_ms() - t0;
    k->fault = be->fault;
    st = prove_locked(k, j, w, &cab, err);
    cpu_abc_release(k, cab); /* a proof that failed before its upload */
    cuzk__gpu_stage_abc_free(k); /* one that failed before its NTTs were done */
    cuzk__gpu_loader_reap(k, 0); /* its buffers go once it is done, before the staging's look */
    int staging_open = 0; /* the slot wanted, neither made nor given up yet */
    if (st == CUZK_OK && !k->st_thread_on && !k->st_off) {
        pthread_mutex_lock(&k->st_mu);
        const int wanted = k->st_wanted;
        pthread_mutex_unlock(&k->st_mu);
        if (wanted) cuzk__gpu_stage_setup(k);
        staging_open = wanted && !k->st_thread_on && !k->st_off;
    }
    const double t1 = cuzk__now_ms();
    if (st == CUZK_OK) k->proofs++;
    /* the copies take what room is left once the slot is settled; not this proof's time */
    if (st == CUZK_OK && k->copies_after != 0 && k->proofs >= k->copies_after &&
        !staging_open) {
        k->copies_after = 0; /* once a key */
        cuzk__gpu_key_copies(k);
    }
    pthread_mutex_unlock(&k->lock);
    j->base.t.total_ms = t1 - t_begin;
    j->part.t.total_ms = j->base.t.total_ms;
    if (st != CUZK_OK) {
        cuzk__backend_partial_release(be, &j->base);
        return st;
    }
    *out = &j->base;
    return CUZK_OK;
}

