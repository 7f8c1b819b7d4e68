/* jobstore.c — the job store's one interface (jobstore.h) over its two
 * implementations: the call goes to the table of the store that is open. */
#include "service/jobstore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/jobstore_impl.h"
#include "util/error.h"

struct cuzk__jobstore {
    const cuzk__jobstore_ops *ops;
    void *impl;
};

cuzk_status cuzk__jobstore_open(cuzk__jobstore **out, const cuzk__jobstore_options *opt,
                                void (*log)(void *user, const char *line), void *log_user,
                                cuzk_error *err) {
    *out = NULL;
    cuzk__jobstore *js = calloc(1, sizeof(*js));
    if (js == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the job store");
    const int pg = opt->store != NULL && opt->store[0] != '\0' && strcmp(opt->store, "sqlite") != 0;
    const cuzk_status st =
        pg ? cuzk__jobstore_open_pg(&js->ops, &js->impl, opt, log, log_user, err)
           : cuzk__jobstore_open_sqlite(&js->ops, &js->impl, opt, log, log_user, err);
    if (st != CUZK_OK) {
        free(js);
        return st;
    }
    *out = js;
    return CUZK_OK;
}

void cuzk__jobstore_close(cuzk__jobstore *js) {
    if (js == NULL) return;
    js->ops->close(js->impl);
    free(js);
}

const char *cuzk__jobstore_kind(const cuzk__jobstore *js) { return js->ops->kind; }
const char *cuzk__jobstore_where(const cuzk__jobstore *js) { return js->ops->where(js->impl); }
int cuzk__jobstore_shared(const cuzk__jobstore *js) { return js->ops->shared; }
uint64_t cuzk__jobstore_self(cuzk__jobstore *js) { return js->ops->self(js->impl); }
uint64_t cuzk__jobstore_reconnects(cuzk__jobstore *js) { return js->ops->reconnects(js->impl); }

const char *cuzk__jobstore_outcome_name(cuzk__jobstore_outcome o) {
    switch (o) {
    case CUZK__JS_RECORDED: return "recorded";
    case CUZK__JS_FENCED: return "fenced";
    case CUZK__JS_ENDED: return "ended";
    }
    return "?";
}

/* ---- the client side ---------------------------------------------------------- */

void cuzk__jobstore_sink(cuzk__jobstore *js, cuzk__witness_sink *sink) {
    js->ops->sink(js->impl, sink);
}

cuzk_status cuzk__jobstore_upload_check_file(cuzk__jobstore *js, const char *name, char *path,
                                             size_t cap, int *temporary, cuzk_error *err) {
    *temporary = 0;
    return js->ops->upload_check_file(js->impl, name, path, cap, temporary, err);
}

cuzk_status cuzk__jobstore_submit(cuzk__jobstore *js, const cuzk__store_job *job, uint64_t *id,
                                  int *existed, cuzk_error *err) {
    return js->ops->submit(js->impl, job, id, existed, err);
}

cuzk_status cuzk__jobstore_get(cuzk__jobstore *js, uint64_t id, cuzk__jobstore_job *job,
                               cuzk_error *err) {
    memset(job, 0, sizeof(*job));
    return js->ops->get(js->impl, id, job, err);
}

cuzk_status cuzk__jobstore_list(cuzk__jobstore *js, unsigned state_mask, uint64_t after_id,
                                size_t limit, cuzk__jobstore_job **jobs, size_t *n,
                                cuzk_error *err) {
    *jobs = NULL;
    *n = 0;
    return js->ops->list(js->impl, state_mask, after_id, limit, jobs, n, err);
}

cuzk_status cuzk__jobstore_counts(cuzk__jobstore *js, uint64_t counts[5], cuzk_error *err) {
    return js->ops->counts(js->impl, counts, err);
}

cuzk_status cuzk__jobstore_backlog(cuzk__jobstore *js, size_t *n, cuzk_error *err) {
    *n = 0;
    return js->ops->backlog(js->impl, n, err);
}

cuzk_status cuzk__jobstore_cancel(cuzk__jobstore *js, uint64_t id, cuzk_job_state *state,
                                  cuzk_error *err) {
    return js->ops->cancel(js->impl, id, state, err);
}

cuzk_status cuzk__jobstore_collect(cuzk__jobstore *js, uint64_t id, cuzk_error *err) {
    return js->ops->collect(js->impl, id, err);
}

cuzk_status cuzk__jobstore_results(cuzk__jobstore *js, uint64_t id, cuzk_proof *proofs,
                                   uint64_t *owners, size_t cap, uint8_t **public_inputs,
                                   size_t *public_bytes, cuzk_error *err) {
    return js->ops->results(js->impl, id, proofs, owners, cap, public_inputs, public_bytes, err);
}

cuzk_status cuzk__jobstore_expire(cuzk__jobstore *js, int64_t age_ms, size_t *removed,
                                  cuzk_error *err) {
    if (removed != NULL) *removed = 0;
    return js->ops->expire(js->impl, age_ms, removed, err);
}

/* ---- the work side -------------------------------------------------------------- */

cuzk_status cuzk__jobstore_claim(cuzk__jobstore *js, const char *const *keys, size_t nkeys,
                                 size_t max, cuzk__jobstore_part *parts, size_t *n,
                                 cuzk_error *err) {
    *n = 0;
    if (nkeys == 0 || max == 0) return CUZK_OK;
    return js->ops->claim(js->impl, keys, nkeys, max, parts, n, err);
}

cuzk_status cuzk__jobstore_describe(cuzk__jobstore *js, const char *info,
                                    const char *const *keys, size_t nkeys, cuzk_error *err) {
    return js->ops->describe(js->impl, info, keys, nkeys, err);
}

cuzk_status cuzk__jobstore_fetch(cuzk__jobstore *js, cuzk__jobstore_part *part,
                                 int (*stop)(void *user), void *stop_user, cuzk_error *err) {
    if (part->payload == 0) return CUZK_OK;
    return js->ops->fetch(js->impl, part, stop, stop_user, err);
}

void cuzk__jobstore_done_with(cuzk__jobstore *js, cuzk__jobstore_part *part) {
    (void)js;
    if (part->temporary && part->path[0] != '\0') (void)remove(part->path);
    part->temporary = 0;
}

cuzk_status cuzk__jobstore_complete(cuzk__jobstore *js, const cuzk__jobstore_ref *ref,
                                    const cuzk_proof *proof, const uint8_t *public_inputs,
                                    size_t public_bytes, cuzk__jobstore_outcome *outcome,
                                    int *job_done, cuzk_error *err) {
    if (job_done != NULL) *job_done = 0;
    *outcome = CUZK__JS_FENCED;
    return js->ops->complete(js->impl, ref, proof, public_inputs, public_bytes, outcome, job_done,
                             err);
}

cuzk_status cuzk__jobstore_fail(cuzk__jobstore *js, const cuzk__jobstore_ref *ref,
                                cuzk_status status, const char *msg,
                                cuzk__jobstore_outcome *outcome, cuzk_error *err) {
    *outcome = CUZK__JS_FENCED;
    return js->ops->fail(js->impl, ref, status, msg, outcome, err);
}

cuzk_status cuzk__jobstore_release(cuzk__jobstore *js, const cuzk__jobstore_ref *ref,
                                   cuzk__jobstore_outcome *outcome, cuzk_error *err) {
    *outcome = CUZK__JS_FENCED;
    return js->ops->release(js->impl, ref, outcome, err);
}

cuzk_status cuzk__jobstore_renew(cuzk__jobstore *js, cuzk__jobstore_lease *held, size_t n,
                                 cuzk_error *err) {
    return js->ops->renew(js->impl, held, n, err);
}

cuzk_status cuzk__jobstore_reap(cuzk__jobstore *js, size_t *requeued, cuzk_error *err) {
    if (requeued != NULL) *requeued = 0;
    return js->ops->reap(js->impl, requeued, err);
}

cuzk_status cuzk__jobstore_leave(cuzk__jobstore *js, size_t *released, cuzk_error *err) {
    if (released != NULL) *released = 0;
    return js->ops->leave(js->impl, released, err);
}

/* ---- notifications and the cluster -------------------------------------------------- */

cuzk_status cuzk__jobstore_wait(cuzk__jobstore *js, int timeout_ms, cuzk__jobstore_event *ev,
                                uint64_t *job_id, int *got, cuzk_error *err) {
    *got = 0;
    *job_id = 0;
    if (js->ops->wait == NULL)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED, "%s store: no notifications (one daemon "
                          "writes to it)", js->ops->kind);
    return js->ops->wait(js->impl, timeout_ms, ev, job_id, got, err);
}

cuzk_status cuzk__jobstore_daemons(cuzk__jobstore *js, cuzk__jobstore_daemon **v, size_t *n,
                                   cuzk_error *err) {
    *v = NULL;
    *n = 0;
    return js->ops->daemons(js->impl, v, n, err);
}
