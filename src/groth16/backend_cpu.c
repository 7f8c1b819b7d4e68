/*
 * backend_cpu.c — the CPU backend (backend.h): a key borrows the circuit and
 * parameters (or the zkey) and owns the NTT domain, built once per key
 * (32 N bytes of twiddles, which a per-proof build would recompute every
 * time); a job owns the cuzk_groth16_partial (MSM results and copies of the
 * five key points), so nothing it needs lives in the key.
 */
#include "groth16/backend.h"
#include "util/clock.h"
#include "util/fault.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/mem.h"
#include "poly/ntt.h"

typedef struct {
    cuzk_backend_key base; /* first member: the pointer handed out */
    const cuzk_circuit *c; /* borrowed (bellman keys) */
    const cuzk_params *p;
    const cuzk_zkey *zk;   /* borrowed (snarkjs keys) */
    cuzk_ntt_domain dom;   /* owned (bellman keys) */
} cpu_key;

typedef cuzk__backend_partial_job cpu_job;

static cuzk_status cpu_open(cuzk_backend *be, cuzk_error *err) {
    (void)err;
    be->impl = NULL; /* no state: threads come from be->threads */
    return CUZK_OK;
}

static void cpu_close(cuzk_backend *be) { be->impl = NULL; }

static cuzk_status cpu_prepare(cuzk_backend *be, cuzk_backend_key **out, const cuzk_circuit *c,
                               const cuzk_params *p, cuzk_error *err) {
    (void)be;
    cuzk__error_clear(err);
    cuzk_status st = cuzk_groth16_check_params(c, p, err);
    if (st != CUZK_OK) return st;
    if ((st = cuzk_params_require_points(p, "the CPU backend", err)) != CUZK_OK) return st;
    cpu_key *k = calloc(1, sizeof(*k));
    if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a backend key");
    if ((st = cuzk_ntt_domain_init(&k->dom, p->log_domain_size, CUZK_NTT_ROOT7)) != CUZK_OK) {
        free(k);
        return cuzk__fail(err, st, "cannot set up the 2^%u NTT domain of %s", p->log_domain_size,
                          p->path ? p->path : "(params)");
    }
    k->base.ops = &cuzk_backend_cpu;
    k->base.n_inputs = c->n_inputs;
    k->base.n_aux = c->n_aux;
    k->base.n_public = c->n_inputs - 1;
    k->base.log_domain = p->log_domain_size;
    k->c = c;
    k->p = p;
    *out = &k->base;
    return CUZK_OK;
}

static cuzk_status cpu_prepare_zkey(cuzk_backend *be, cuzk_backend_key **out,
                                    const cuzk_zkey *zk, cuzk_error *err) {
    (void)be;
    cuzk__error_clear(err);
    cpu_key *k = calloc(1, sizeof(*k));
    if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a backend key");
    k->base.ops = &cuzk_backend_cpu;
    k->base.n_inputs = (uint64_t)zk->n_public + 1;
    k->base.n_aux = zk->n_vars - k->base.n_inputs;
    k->base.n_public = zk->n_public;
    k->base.log_domain = zk->log_domain_size;
    k->zk = zk;
    *out = &k->base;
    return CUZK_OK;
}

static cuzk_status cpu_prove_start(cuzk_backend *be, cuzk_backend_job **out,
                                   cuzk_backend_key *key, const cuzk_witness *w,
                                   cuzk_error *err) {
    cpu_key *k = (cpu_key *)key;
    if (w == NULL || w->values == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "prove_start: NULL witness");
    /* a proof here runs every stage: each counts one launch */
    static const char *const stages[] = {"spmv", "ntt", "msm_h", "batch_add", "tail_msm",
                                         "b_g2_msm"};
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
        const unsigned launch = cuzk__fault_hit(be->fault, stages[i]);
        if (launch != 0 && be->fault->nomem)
            return cuzk__fail(err, CUZK_ERR_DEVICE_NOMEM,
                              "CPU lane: %s: out of device memory (injected at launch %u)",
                              stages[i], launch);
        if (launch != 0)
            return cuzk__fail(err, CUZK_ERR_GPU, "CPU lane: %s: injected fault at launch %u",
                              stages[i], launch);
    }
    cpu_job *j = calloc(1, sizeof(*j));
    if (j == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a proof job");
    j->base.ops = &cuzk_backend_cpu;
    cuzk_status st;
    if (k->zk != NULL) {
        st = cuzk_groth16_prove_start_zkey(&j->part, k->zk, (const uint64_t(*)[4])w->values,
                                           (size_t)cuzk_witness_n_vars(w), be->threads, err);
        /* the snarkjs stages in the bellman names where they correspond */
        j->base.t.spmv_ms = j->part.t.abc_ms;
        j->base.t.ntt_ms = j->part.t.ntt_ms;
        j->base.t.msm_h_ms = j->part.t.msm_h_ms;
        j->base.t.tail_msm_ms = j->part.t.msm_a_ms + j->part.t.msm_b1_ms + j->part.t.msm_c_ms;
        j->base.t.b_g2_msm_ms = j->part.t.msm_b2_ms;
        j->base.t.total_ms = j->part.t.total_ms;
    } else {
        st = cuzk__groth16_prove_start_circuit_dom(&j->part, &j->base.t, k->c, k->p, &k->dom, w,
                                                   be->threads, err);
    }
    if (st != CUZK_OK) {
        cuzk__backend_partial_release(be, &j->base);
        return st;
    }
    *out = &j->base;
    return CUZK_OK;
}

cuzk_status cuzk__backend_partial_finish(cuzk_backend *be, cuzk_groth16_proof *proof,
                                         cuzk_backend_job *job, const uint64_t r[4],
                                         const uint64_t s[4], cuzk_error *err) {
    (void)be;
    cuzk__backend_partial_job *j = (cuzk__backend_partial_job *)job;
    if (j->finished)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "prove_finish: this job is already finished");
    const double t = cuzk__now_ms();
    cuzk_groth16_prove_finish(proof, &j->part, r, s);
    j->finished = 1;
    j->base.t.finish_ms = cuzk__now_ms() - t;
    j->base.t.total_ms += j->base.t.finish_ms;
    return CUZK_OK;
}

void cuzk__backend_partial_release(cuzk_backend *be, cuzk_backend_job *job) {
    (void)be;
    cuzk__backend_partial_job *j = (cuzk__backend_partial_job *)job;
    cuzk__wipe(&j->part, sizeof(j->part)); /* MSM results are witness-derived */
    free(j);
}

static void cpu_release_key(cuzk_backend *be, cuzk_backend_key *key) {
    (void)be;
    cpu_key *k = (cpu_key *)key;
    cuzk_ntt_domain_free(&k->dom);
    free(k);
}

const cuzk_backend_ops cuzk_backend_cpu = {
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .prepare = cpu_prepare,
    .prepare_zkey = cpu_prepare_zkey,
    .prove_start = cpu_prove_start,
    .prove_finish = cuzk__backend_partial_finish,
    .release_job = cuzk__backend_partial_release,
    .release_key = cpu_release_key,
};
