/* prove.c — one proof, whole or split into start and finish (include/cuzk.h). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/clock.h"
#include "ff/fr.h"
#include "ff/limbs.h"
#include "groth16/proof192.h"
#include "util/mem.h"

void cuzk__times_from_stage(cuzk_proof_times *out, const cuzk_groth16_stage_times *t,
                            int witness_staged) {
    memset(out, 0, sizeof(*out));
    out->abc_ms = t->spmv_ms;
    out->check_ms = t->check_ms;
    out->ntt_ms = t->ntt_ms;
    out->msm_h_ms = t->msm_h_ms;
    out->prep_ms = t->prep_ms;
    out->batch_add_ms = t->batch_add_ms;
    out->tail_msm_ms = t->tail_msm_ms;
    out->b_g2_msm_ms = t->b_g2_msm_ms;
    out->key_wait_ms = t->key_wait_ms;
    out->lock_wait_ms = t->lock_wait_ms;
    out->finish_ms = t->finish_ms;
    out->total_ms = t->total_ms;
    out->witness_staged = witness_staged;
    out->cpu_abc_ms = t->cpu_abc_ms;
}

/* The pending proof's witness: kept only when the self-check may need it
 * to name a failing constraint (a zkey with its r1cs attached). */
typedef struct {
    cuzk_pending_proof pub; /* first member */
    cuzk_witness w;
    int have_w;
} pending_impl;

cuzk_status cuzk_prove_start(cuzk_key *key, cuzk_pending_proof **out,
                             const cuzk_witness_input *witness, cuzk_error *err) {
    if (key == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "prove_start: NULL key");
    return cuzk__prove_start_on_lane(key, atomic_fetch_add(&key->next_lane, 1), out, witness,
                                     err);
}

cuzk_status cuzk__prove_start_on_lane(cuzk_key *key, size_t lane, cuzk_pending_proof **out,
                                      const cuzk_witness_input *witness, cuzk_error *err) {
    cuzk__error_clear(err);
    if (out == NULL || key == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "prove_start: NULL argument");
    *out = NULL;
    cuzk_witness w;
    cuzk_status st = cuzk__witness_load(key, &w, witness, err);
    if (st != CUZK_OK) return st;
    st = cuzk__prove_start_loaded(key, lane, out, &w, err);
    if (st != CUZK_OK) cuzk_witness_close(&w);
    return st;
}

cuzk_status cuzk__prove_start_loaded(cuzk_key *key, size_t lane, cuzk_pending_proof **out,
                                     cuzk_witness *w, cuzk_error *err) {
    *out = NULL;
    const double t0 = cuzk__now_ms();
    cuzk__lane *L = &key->lanes[lane % key->n_lanes];
    cuzk_status st = cuzk__lane_prepare(L, err);
    if (st != CUZK_OK) return st;
    pending_impl *p = calloc(1, sizeof(*p));
    const size_t n_pub = (size_t)key->n_public;
    if (p == NULL || (p->pub.pub = malloc((n_pub ? n_pub : 1) * sizeof(*p->pub.pub))) == NULL ||
        (p->pub.witness_name = cuzk__strdup(w->path ? w->path : "the witness in memory")) ==
            NULL) {
        if (p != NULL) free(p->pub.pub);
        free(p);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a pending proof");
    }
    for (size_t i = 0; i < n_pub; i++) memcpy(p->pub.pub[i], w->values + 4 * (i + 1), 32);
    /* w itself, the witness an announcement (cuzk_backend_stage) names */
    st = cuzk_backend_prove_start(&L->be, &p->pub.job, L->bkey, w, err);
    if (st != CUZK_OK) {
        free(p->pub.witness_name);
        free(p->pub.pub);
        free(p);
        return st;
    }
    if (key->have_r1cs) { /* kept for the self-check to name a constraint */
        p->w = *w;
        p->have_w = 1;
    } else {
        cuzk_witness_close(w);
    }
    memset(w, 0, sizeof(*w));
    atomic_fetch_add(&key->refs, 1);
    p->pub.key = key;
    p->pub.be = &L->be;
    p->pub.self_check = key->ctx->opt.self_check;
    p->pub.start_ms = t0;
    *out = &p->pub;
    return CUZK_OK;
}

static cuzk_status finish(cuzk_pending_proof *pp, cuzk_proof *proof, uint8_t *public_inputs,
                          cuzk_proof_times *times, const uint64_t r[4], const uint64_t s[4],
                          cuzk_error *err) {
    pending_impl *p = (pending_impl *)pp;
    if (pp->finished)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "prove_finish: this proof is finished");
    cuzk_groth16_proof g;
    cuzk_status st = cuzk_backend_prove_finish(pp->be, &g, pp->job, r, s, err);
    pp->finished = 1;
    if (st != CUZK_OK) return st;
    double check_ms = 0;
    if (pp->self_check) {
        const double t = cuzk__now_ms();
        st = cuzk__self_check(pp->key, &pp->key->vk, &g, (const uint64_t(*)[4])pp->pub,
                              pp->witness_name, p->have_w ? &p->w : NULL, err);
        check_ms = cuzk__now_ms() - t;
        if (st != CUZK_OK) return st;
    }
    if (proof != NULL) cuzk_proof192_encode(proof->bytes, &g);
    if (public_inputs != NULL)
        for (uint64_t i = 0; i < pp->key->n_public; i++)
            cuzk__scalar_to_bytes(public_inputs + 32 * i, pp->pub[i]);
    if (times != NULL) {
        cuzk__times_from_stage(times, cuzk_backend_job_times(pp->job), pp->job->witness_staged);
        times->self_check_ms = check_ms;
        times->total_ms = cuzk__now_ms() - pp->start_ms;
    }
    return CUZK_OK;
}

static cuzk_status rs_from_bytes(uint64_t r[4], uint64_t s[4], const uint8_t rb[32],
                                 const uint8_t sb[32], cuzk_error *err) {
    static const uint64_t order[4] = CUZK__FR_R;
    cuzk__scalar_from_bytes(r, rb);
    cuzk__scalar_from_bytes(s, sb);
    const uint64_t zero[4] = {0, 0, 0, 0};
    if (!cuzk__lt_n(r, order, 4) || !cuzk__lt_n(s, order, 4) || memcmp(r, zero, 32) == 0 ||
        memcmp(s, zero, 32) == 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "prove_finish_with_rs: r and s must be in [1, r)");
    return CUZK_OK;
}

cuzk_status cuzk_prove_finish_with_rs(cuzk_pending_proof *pending, cuzk_proof *proof,
                                      uint8_t *public_inputs, cuzk_proof_times *times,
                                      const uint8_t rb[CUZK_SCALAR_BYTES],
                                      const uint8_t sb[CUZK_SCALAR_BYTES], cuzk_error *err) {
    cuzk__error_clear(err);
    if (pending == NULL || rb == NULL || sb == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "prove_finish_with_rs: NULL argument");
    uint64_t r[4], s[4];
    cuzk_status st = rs_from_bytes(r, s, rb, sb, err);
    if (st == CUZK_OK) st = finish(pending, proof, public_inputs, times, r, s, err);
    cuzk__wipe(r, sizeof(r));
    cuzk__wipe(s, sizeof(s));
    return st;
}

cuzk_status cuzk_prove_finish(cuzk_pending_proof *pending, cuzk_proof *proof,
                              uint8_t *public_inputs, cuzk_proof_times *times, cuzk_error *err) {
    cuzk__error_clear(err);
    if (pending == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "prove_finish: NULL pending proof");
    uint64_t r[4], s[4];
    cuzk_status st = cuzk_groth16_random_scalar(r, err);
    if (st == CUZK_OK) st = cuzk_groth16_random_scalar(s, err);
    if (st == CUZK_OK) st = finish(pending, proof, public_inputs, times, r, s, err);
    cuzk__wipe(r, sizeof(r));
    cuzk__wipe(s, sizeof(s));
    return st;
}

void cuzk_pending_proof_release(cuzk_pending_proof *pp) {
    if (pp == NULL) return;
    pending_impl *p = (pending_impl *)pp;
    cuzk_backend_release_job(pp->be, pp->job);
    if (p->have_w) cuzk_witness_close(&p->w);
    cuzk__key_unref(pp->key);
    free(pp->witness_name);
    free(pp->pub);
    free(p);
}

cuzk_status cuzk_prove(cuzk_key *key, cuzk_proof *proof, uint8_t *public_inputs,
                       cuzk_proof_times *times, const cuzk_witness_input *witness,
                       cuzk_error *err) {
    cuzk_pending_proof *p = NULL;
    cuzk_status st = cuzk_prove_start(key, &p, witness, err);
    if (st == CUZK_OK) st = cuzk_prove_finish(p, proof, public_inputs, times, err);
    cuzk_pending_proof_release(p);
    return st;
}
