/* daemon.c — the job store and the engine bound together (daemon.h): start
 * and stop, the API's calls, keys. The work side is daemon_work.c. */
#include "service/daemon.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "service/daemon_impl.h"
#include "util/clock.h"
#include "util/error.h"

#define ROOM_POLL_MS 100 /* a submission waiting for room looks this often */

void cuzk__daemon_logf(cuzk__daemon *d, const char *fmt, ...) {
    if (d->log == NULL) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    d->log(d->log_user, line);
}

void cuzk__daemon_signal_ended(cuzk__daemon *d) {
    pthread_mutex_lock(&d->mu);
    d->ended_gen++;
    pthread_cond_broadcast(&d->ended);
    pthread_mutex_unlock(&d->mu);
}

void cuzk__daemon_wake_claimer(cuzk__daemon *d) {
    pthread_mutex_lock(&d->mu);
    d->wake_gen++;
    pthread_cond_broadcast(&d->wake);
    pthread_mutex_unlock(&d->mu);
}

static const cuzk__daemon_key_entry *key_find(const cuzk__daemon *d, const char *name) {
    for (size_t i = 0; i < d->n_keys; i++)
        if (strcmp(d->keys[i].name, name) == 0) return &d->keys[i];
    return NULL;
}

/* ---- start and stop ------------------------------------------------------------ */

static cuzk_status register_key(cuzk__daemon *d, const char *name, const cuzk_key_source *src,
                                cuzk_error *err) {
    if (strlen(name) > CUZK__CONF_KEY_NAME_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "key name: longer than %d bytes",
                          CUZK__CONF_KEY_NAME_MAX);
    pthread_mutex_lock(&d->mu);
    if (d->n_keys == d->cap_keys) {
        const size_t cap = d->cap_keys ? 2 * d->cap_keys : 8;
        cuzk__daemon_key_entry *p = realloc(d->keys, cap * sizeof(*p));
        if (p == NULL) {
            pthread_mutex_unlock(&d->mu);
            return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for key %s", name);
        }
        d->keys = p;
        d->cap_keys = cap;
    }
    /* named in the engine under d->mu, so two adds of one name cannot race */
    const cuzk_status st = cuzk_engine_key_add(d->engine, name, src, err);
    if (st == CUZK_OK) {
        cuzk__daemon_key_entry *k = &d->keys[d->n_keys++];
        memset(k, 0, sizeof(*k));
        memcpy(k->name, name, strlen(name) + 1);
        k->format = src->zkey != NULL ? CUZK__FORMAT_SNARKJS : CUZK__FORMAT_BELLMAN;
    }
    pthread_mutex_unlock(&d->mu);
    return st;
}

/* What the cluster's view says of this daemon: backend, workers, keys. */
static void describe(cuzk__daemon *d, char *out, size_t cap) {
    cuzk_engine_stats s;
    cuzk_engine_get_stats(d->engine, &s);
    const cuzk__daemon_config *c = &d->cfg;
    size_t k = (size_t)snprintf(out, cap, "backend %s, %zu worker%s",
                                c->backend == CUZK_BACKEND_GPU   ? "gpu"
                                : c->backend == CUZK_BACKEND_CPU ? "cpu"
                                                                 : "auto",
                                s.workers, s.workers == 1 ? "" : "s");
    if (c->backend != CUZK_BACKEND_CPU && k < cap) {
        cuzk_options copt;
        cuzk_engine_options eopt;
        cuzk__daemon_config_to_options(c, &copt, &eopt);
        for (size_t i = 0; i < copt.n_devices && k < cap; i++) {
            cuzk_gpu_info gi;
            cuzk_error err;
            if (cuzk_gpu_get_info(copt.devices[i], &gi, &err) == CUZK_OK)
                k += (size_t)snprintf(out + k, cap - k, "%s GPU %d %s", i ? "," : ";",
                                      copt.devices[i], gi.name);
        }
    }
    pthread_mutex_lock(&d->mu); /* keys may be added meanwhile */
    for (size_t i = 0; i < d->n_keys && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? "," : "; keys ", d->keys[i].name);
    pthread_mutex_unlock(&d->mu);
}

/* A SQLite store's unfinished jobs of keys this daemon lacks now (one
 * registered through the API before a restart, or gone from the
 * configuration) wait in the queue, acknowledged and kept: registering the
 * key again resumes them, cancelling ends them. Each is named in the log. */
static cuzk_status report_waiting_jobs(cuzk__daemon *d, cuzk_error *err) {
    cuzk__jobstore_job *jobs = NULL;
    size_t n = 0;
    cuzk_status st = cuzk__jobstore_list(d->js, (1u << CUZK_JOB_QUEUED) | (1u << CUZK_JOB_RUNNING),
                                         0, 0, &jobs, &n, err);
    if (st != CUZK_OK) return st;
    size_t live = 0;
    for (size_t i = 0; i < n; i++) {
        const cuzk__store_job_info *r = &jobs[i].rec;
        if (key_find(d, r->key_name) != NULL)
            live++;
        else
            cuzk__daemon_logf(d,
                              "job %llu waits for key %s, which is not registered: register it "
                              "(POST /v1/keys) to resume the job, or cancel it",
                              (unsigned long long)r->id, r->key_name);
    }
    if (live != 0)
        cuzk__daemon_logf(d, "resuming %zu unfinished job%s", live, live == 1 ? "" : "s");
    free(jobs);
    return CUZK_OK;
}

cuzk_status cuzk__daemon_start(cuzk__daemon **out, const cuzk__daemon_config *cfg,
                               void (*log)(void *user, const char *line), void *log_user,
                               cuzk_error *err) {
    cuzk__error_clear(err);
    *out = NULL;
    cuzk__daemon *d = calloc(1, sizeof(*d));
    if (d == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the daemon");
    d->cfg = *cfg;
    d->cfg.keys = NULL;
    d->cfg.n_keys = d->cfg.cap_keys = 0;
    d->log = log;
    d->log_user = log_user;
    d->started_ms = cuzk__store_now_ms();
    d->heartbeat_ms = cfg->heartbeat_ms != 0 ? cfg->heartbeat_ms : cfg->lease_ms / 3;
    if (d->heartbeat_ms == 0) d->heartbeat_ms = 1;
    if (cfg->cluster_name[0] != '\0') {
        snprintf(d->name, sizeof(d->name), "%s", cfg->cluster_name);
    } else {
        char host[256] = "localhost";
        if (gethostname(host, sizeof(host)) != 0) snprintf(host, sizeof(host), "localhost");
        host[sizeof(host) - 1] = '\0';
        snprintf(d->name, sizeof(d->name), "%s:%ld", host, (long)getpid());
    }
    pthread_mutex_init(&d->mu, NULL);
    (void)cuzk__cond_init(&d->ended);
    (void)cuzk__cond_init(&d->wake);
    (void)cuzk__cond_init(&d->beat);
    (void)cuzk__cond_init(&d->fetch);

    cuzk_options copt;
    cuzk_engine_options eopt;
    cuzk__daemon_config_to_options(cfg, &copt, &eopt);
    cuzk_status st = cuzk_context_create(&d->ctx, &copt, err);
    if (st == CUZK_OK) st = cuzk_engine_create(&d->engine, d->ctx, &eopt, err);
    for (size_t i = 0; st == CUZK_OK && i < cfg->n_keys; i++) {
        cuzk_key_source src;
        cuzk__daemon_key_source(&cfg->keys[i], &src);
        st = register_key(d, cfg->keys[i].name, &src, err);
    }
    const char **names = d->n_keys ? malloc(d->n_keys * sizeof(*names)) : NULL;
    if (st == CUZK_OK && d->n_keys != 0 && names == NULL)
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the names of %zu keys", d->n_keys);
    if (st == CUZK_OK) {
        char info[512];
        describe(d, info, sizeof(info));
        for (size_t i = 0; i < d->n_keys; i++) names[i] = d->keys[i].name;
        const cuzk__jobstore_options jo = {.store = cfg->store,
                                           .database = cfg->database,
                                           .spool_dir = cfg->spool_dir,
                                           .name = d->name,
                                           .info = info,
                                           .lease_ms = cfg->lease_ms,
                                           .keys = names,
                                           .n_keys = d->n_keys,
                                           .fetchers = cfg->fetchers};
        st = cuzk__jobstore_open(&d->js, &jo, log, log_user, err);
    }
    free(names);
    if (st == CUZK_OK && !cuzk__jobstore_shared(d->js)) st = report_waiting_jobs(d, err);
    if (st == CUZK_OK) st = cuzk__daemon_work_start(d, err);
    if (st != CUZK_OK) {
        cuzk__daemon_stop(d);
        return st;
    }
    *out = d;
    return CUZK_OK;
}

void cuzk__daemon_close_intake(cuzk__daemon *d) {
    if (d == NULL) return;
    pthread_mutex_lock(&d->mu);
    d->intake_closed = 1;
    pthread_mutex_unlock(&d->mu);
}

int cuzk__daemon_draining(cuzk__daemon *d) {
    pthread_mutex_lock(&d->mu);
    const int v = d->draining || d->intake_closed;
    pthread_mutex_unlock(&d->mu);
    return v;
}

void cuzk__daemon_drain(cuzk__daemon *d) {
    if (d == NULL) return;
    pthread_mutex_lock(&d->mu);
    const int was = d->draining;
    d->draining = 1;
    pthread_mutex_unlock(&d->mu);
    if (was) return;
    cuzk__daemon_work_drain(d);
    pthread_mutex_lock(&d->mu);
    d->closing = 1;
    pthread_cond_broadcast(&d->ended);
    pthread_mutex_unlock(&d->mu);
}

void cuzk__daemon_stop(cuzk__daemon *d) {
    if (d == NULL) return;
    cuzk__daemon_drain(d);
    cuzk__jobstore_close(d->js);
    cuzk_engine_destroy(d->engine);
    cuzk_context_destroy(d->ctx);
    for (size_t i = 0; i < d->n_held; i++) free(d->held[i].pub);
    free(d->held);
    free(d->keys);
    pthread_cond_destroy(&d->fetch);
    pthread_cond_destroy(&d->beat);
    pthread_cond_destroy(&d->wake);
    pthread_cond_destroy(&d->ended);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

/* ---- jobs ------------------------------------------------------------------------ */

static void job_of(const cuzk__jobstore_job *in, cuzk__daemon_job *out) {
    memset(out, 0, sizeof(*out));
    out->rec = in->rec;
    out->partitions_done = in->rec.n_done;
    out->partitions_running = cuzk__store_state_ended(in->rec.state) ? 0 : in->claimed;
    out->queue_position = in->ahead;
}

cuzk_status cuzk__daemon_job_get(cuzk__daemon *d, uint64_t id, cuzk__daemon_job *job,
                                 cuzk_error *err) {
    cuzk__jobstore_job j;
    memset(job, 0, sizeof(*job));
    const cuzk_status st = cuzk__jobstore_get(d->js, id, &j, err);
    if (st == CUZK_OK) job_of(&j, job);
    return st;
}

/* Refuses now (400) a witness of another circuit, or a truncated one, that
 * would otherwise be accepted only to fail its job later. A failure on the
 * daemon's side (its key's files, its spool) keeps its own status (500). */
static cuzk_status check_witnesses(cuzk__daemon *d, const cuzk__daemon_submission *sub,
                                   cuzk_error *err) {
    for (size_t i = 0; i < sub->n; i++) {
        char path[4096];
        int temporary = 0;
        const cuzk__store_witness *w = &sub->witnesses[i];
        cuzk_status st = CUZK_OK;
        if (w->spool != NULL)
            st = cuzk__jobstore_upload_check_file(d->js, w->spool, path, sizeof(path), &temporary,
                                                  err);
        else
            snprintf(path, sizeof(path), "%s", w->path != NULL ? w->path : "");
        if (st == CUZK_OK) st = cuzk_engine_key_check_witness(d->engine, sub->key_name, path, err);
        if (temporary) (void)unlink(path);
        if (st != CUZK_OK) {
            char msg[CUZK_ERROR_MSG_BYTES];
            snprintf(msg, sizeof(msg), "%s", cuzk_error_text(err));
            return cuzk__fail(err, st, "witness %zu%s: %s", i,
                              w->spool != NULL ? " (uploaded)" : "", msg);
        }
    }
    return CUZK_OK;
}

/* Submits sj, waiting up to wait_ms (trying every ROOM_POLL_MS) for the
 * store's queue to have room for it: the bound is the configuration's
 * max_queued_partitions (the queue of a cluster is the store's, so it
 * bounds the partitions waiting there, whoever submitted them), checked by
 * the store in the transaction that inserts the job, so submissions at
 * once, through any daemons, never pass it together. */
static cuzk_status submit_bounded(cuzk__daemon *d, cuzk__store_job *sj, int wait_ms, uint64_t *id,
                                  int *existed, cuzk_error *err) {
    const size_t max = d->cfg.max_queued_partitions;
    if (sj->n_partitions > max)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "a job of %zu partitions: more than "
                          "max_queued_partitions (%zu)", sj->n_partitions, max);
    sj->max_backlog = max;
    const int64_t until = cuzk__store_now_ms() + (wait_ms > 0 ? wait_ms : 0);
    for (;;) {
        const cuzk_status st = cuzk__jobstore_submit(d->js, sj, id, existed, err);
        if (st != CUZK_ERR_BUSY) return st;
        if (cuzk__store_now_ms() >= until || cuzk__daemon_draining(d)) {
            char msg[CUZK_ERROR_MSG_BYTES];
            snprintf(msg, sizeof(msg), "%s", cuzk_error_text(err));
            return cuzk__fail(err, CUZK_ERR_BUSY, "%s (max_queued_partitions %zu); try again "
                              "later", msg, max);
        }
        struct timespec ts = {0, ROOM_POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
}

cuzk_status cuzk__daemon_submit(cuzk__daemon *d, const cuzk__daemon_submission *sub, int wait_ms,
                                cuzk__daemon_job *job, int *existed, cuzk_error *err) {
    cuzk__error_clear(err);
    *existed = 0;
    memset(job, 0, sizeof(*job));
    if (cuzk__daemon_draining(d))
        return cuzk__fail(err, CUZK_ERR_BUSY, "the daemon is draining: no new jobs");
    pthread_mutex_lock(&d->mu);
    const int known = key_find(d, sub->key_name) != NULL;
    pthread_mutex_unlock(&d->mu);
    if (!known) return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "key %s: no such key", sub->key_name);
    /* checked before the job exists: once submitted, any daemon may claim it */
    cuzk_status st = check_witnesses(d, sub, err);
    if (st != CUZK_OK) return st;
    cuzk__store_job sj = {sub->request_id, sub->key_name, sub->priority, sub->n, sub->witnesses,
                          0};
    uint64_t id = 0;
    st = submit_bounded(d, &sj, wait_ms, &id, existed, err);
    if (st != CUZK_OK) return st;
    if (!*existed) cuzk__daemon_wake_claimer(d);
    return cuzk__daemon_job_get(d, id, job, err);
}

cuzk_status cuzk__daemon_job_await(cuzk__daemon *d, uint64_t id, int timeout_ms,
                                   cuzk__daemon_job *job, cuzk_error *err) {
    const struct timespec until = cuzk__deadline_in_ms(timeout_ms > 0 ? timeout_ms : 0);
    for (;;) {
        pthread_mutex_lock(&d->mu);
        const uint64_t gen = d->ended_gen;
        pthread_mutex_unlock(&d->mu);
        const cuzk_status st = cuzk__daemon_job_get(d, id, job, err);
        if (st != CUZK_OK || cuzk__store_state_ended(job->rec.state)) return st;
        /* an end recorded elsewhere comes by notification, or is polled */
        const struct timespec poll = cuzk__deadline_in_ms((int)d->cfg.poll_ms);
        const int poll_first = poll.tv_sec < until.tv_sec ||
                               (poll.tv_sec == until.tv_sec && poll.tv_nsec < until.tv_nsec);
        pthread_mutex_lock(&d->mu);
        int timed_out = d->closing, polled = 0;
        while (d->ended_gen == gen && !timed_out && !polled) {
            const int rc = pthread_cond_timedwait(&d->ended, &d->mu, poll_first ? &poll : &until);
            if (rc == ETIMEDOUT) {
                if (poll_first)
                    polled = 1;
                else
                    timed_out = 1;
            }
        }
        pthread_mutex_unlock(&d->mu);
        if (timed_out) return cuzk__daemon_job_get(d, id, job, err);
    }
}

cuzk_status cuzk__daemon_job_cancel(cuzk__daemon *d, uint64_t id, cuzk__daemon_job *job,
                                    cuzk_error *err) {
    cuzk_job_state state;
    cuzk_status st = cuzk__jobstore_cancel(d->js, id, &state, err);
    if (st != CUZK_OK) return st;
    if (state == CUZK_JOB_CANCELLED) cuzk__daemon_work_drop_job(d, id);
    cuzk__daemon_signal_ended(d);
    return cuzk__daemon_job_get(d, id, job, err);
}

cuzk_status cuzk__daemon_job_collect(cuzk__daemon *d, uint64_t id, cuzk_error *err) {
    cuzk__daemon_job job;
    cuzk_status st = cuzk__daemon_job_cancel(d, id, &job, err);
    if (st != CUZK_OK) return st;
    return cuzk__jobstore_collect(d->js, id, err);
}

cuzk_status cuzk__daemon_job_result(cuzk__daemon *d, uint64_t id, cuzk__daemon_result *res,
                                    cuzk_error *err) {
    memset(res, 0, sizeof(*res));
    cuzk__jobstore_job j;
    cuzk_status st = cuzk__jobstore_get(d->js, id, &j, err);
    if (st != CUZK_OK) return st;
    pthread_mutex_lock(&d->mu);
    const cuzk__daemon_key_entry *k = key_find(d, j.rec.key_name);
    res->format = k != NULL ? k->format : CUZK__FORMAT_BELLMAN;
    pthread_mutex_unlock(&d->mu);
    res->n = j.rec.n_partitions;
    res->proofs = calloc(res->n, sizeof(*res->proofs));
    if (res->proofs == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the proofs");
    size_t pub_bytes = 0;
    st = cuzk__jobstore_results(d->js, id, res->proofs, NULL, res->n, &res->public_inputs,
                                &pub_bytes, err);
    if (st != CUZK_OK) {
        cuzk__daemon_result_free(res);
        return st;
    }
    res->n_public = pub_bytes / 32;
    return CUZK_OK;
}

void cuzk__daemon_result_free(cuzk__daemon_result *res) {
    free(res->proofs);
    free(res->public_inputs);
    memset(res, 0, sizeof(*res));
}

cuzk_status cuzk__daemon_job_list(cuzk__daemon *d, unsigned state_mask, uint64_t after_id,
                                  size_t limit, cuzk__daemon_job **jobs, size_t *n,
                                  cuzk_error *err) {
    *jobs = NULL;
    *n = 0;
    cuzk__jobstore_job *v = NULL;
    size_t m = 0;
    cuzk_status st = cuzk__jobstore_list(d->js, state_mask, after_id, limit, &v, &m, err);
    if (st != CUZK_OK || m == 0) return st;
    cuzk__daemon_job *out = calloc(m, sizeof(*out));
    if (out == NULL) {
        free(v);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu jobs", m);
    }
    for (size_t i = 0; i < m; i++) job_of(&v[i], &out[i]);
    free(v);
    *jobs = out;
    *n = m;
    return CUZK_OK;
}

cuzk_status cuzk__daemon_job_counts(cuzk__daemon *d, uint64_t counts[5], cuzk_error *err) {
    return cuzk__jobstore_counts(d->js, counts, err);
}

/* ---- keys ----------------------------------------------------------------------- */

static cuzk_status key_status(cuzk__daemon *d, const cuzk__daemon_key_entry *k,
                              cuzk__daemon_key_status *ks, cuzk_error *err) {
    memset(ks, 0, sizeof(*ks));
    memcpy(ks->name, k->name, sizeof(ks->name));
    ks->format = k->format;
    cuzk_status st = cuzk_engine_key_get_info(d->engine, k->name, &ks->info, err);
    if (st != CUZK_OK) return st;
    pthread_mutex_lock(&d->mu);
    for (size_t i = 0; i < d->n_held; i++) {
        const cuzk__held *h = &d->held[i];
        if (h->dropped || h->given_back || h->pending || strcmp(h->part.key_name, k->name) != 0)
            continue;
        if (h->started)
            ks->running_partitions++;
        else
            ks->queued_partitions++;
    }
    pthread_mutex_unlock(&d->mu);
    return CUZK_OK;
}

cuzk_status cuzk__daemon_keys(cuzk__daemon *d, cuzk__daemon_key_status **keys, size_t *n,
                              cuzk_error *err) {
    *keys = NULL;
    *n = 0;
    pthread_mutex_lock(&d->mu);
    const size_t m = d->n_keys;
    cuzk__daemon_key_entry *snap = m ? malloc(m * sizeof(*snap)) : NULL;
    if (snap != NULL) memcpy(snap, d->keys, m * sizeof(*snap));
    pthread_mutex_unlock(&d->mu);
    if (m == 0) return CUZK_OK;
    cuzk__daemon_key_status *out = snap ? calloc(m, sizeof(*out)) : NULL;
    if (out == NULL) {
        free(snap);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu keys", m);
    }
    cuzk_status st = CUZK_OK;
    for (size_t i = 0; st == CUZK_OK && i < m; i++) st = key_status(d, &snap[i], &out[i], err);
    free(snap);
    if (st != CUZK_OK) {
        free(out);
        return st;
    }
    *keys = out;
    *n = m;
    return CUZK_OK;
}

cuzk_status cuzk__daemon_key_get(cuzk__daemon *d, const char *name, cuzk__daemon_key_status *key,
                                 cuzk_error *err) {
    pthread_mutex_lock(&d->mu);
    const cuzk__daemon_key_entry *k = key_find(d, name);
    cuzk__daemon_key_entry copy;
    if (k != NULL) copy = *k;
    pthread_mutex_unlock(&d->mu);
    if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "key %s: no such key", name);
    return key_status(d, &copy, key, err);
}

/* The store learns the daemon's keys anew (a key was added): the
 * cluster's view and queue positions. A failure is logged: the key serves
 * here all the same. */
static void tell_keys(cuzk__daemon *d) {
    char info[512];
    describe(d, info, sizeof(info));
    pthread_mutex_lock(&d->mu);
    const size_t n = d->n_keys;
    char(*copy)[CUZK__CONF_KEY_NAME_MAX + 1] = n ? malloc(n * sizeof(*copy)) : NULL;
    const char **names = n ? malloc(n * sizeof(*names)) : NULL;
    for (size_t i = 0; copy != NULL && names != NULL && i < n; i++) {
        memcpy(copy[i], d->keys[i].name, sizeof(copy[i]));
        names[i] = copy[i];
    }
    pthread_mutex_unlock(&d->mu);
    cuzk_error err;
    cuzk_status st = n != 0 && (copy == NULL || names == NULL)
                         ? cuzk__fail(&err, CUZK_ERR_NOMEM, "no memory for %zu key names", n)
                         : cuzk__jobstore_describe(d->js, info, names, n, &err);
    if (st != CUZK_OK)
        cuzk__daemon_logf(d, "telling the store this daemon's keys: %s", cuzk_error_text(&err));
    free(names);
    free(copy);
}

cuzk_status cuzk__daemon_key_add(cuzk__daemon *d, const char *name, const cuzk_key_source *src,
                                 cuzk_error *err) {
    cuzk__error_clear(err);
    if (!cuzk__daemon_key_name_ok(name))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "key name \"%.64s\": 1 to %d of A-Z a-z 0-9 . _ -", name,
                          CUZK__CONF_KEY_NAME_MAX);
    const cuzk_status st = register_key(d, name, src, err);
    if (st != CUZK_OK) return st;
    tell_keys(d);
    cuzk__daemon_wake_claimer(d); /* its jobs may be waiting */
    return st;
}

cuzk_status cuzk__daemon_key_preload(cuzk__daemon *d, const char *name, cuzk_key_tier tier,
                                     cuzk_error *err) {
    return cuzk_engine_key_preload(d->engine, name, tier, err);
}

cuzk_status cuzk__daemon_key_evict(cuzk__daemon *d, const char *name, cuzk_error *err) {
    return cuzk_engine_key_evict(d->engine, name, err);
}

/* ---- the rest ---------------------------------------------------------------------- */

int64_t cuzk__daemon_started_ms(cuzk__daemon *d) { return d->started_ms; }
cuzk__jobstore *cuzk__daemon_jobstore(cuzk__daemon *d) { return d->js; }
const char *cuzk__daemon_name(cuzk__daemon *d) { return d->name; }
void cuzk__daemon_count_request(cuzk__daemon *d) {
    __atomic_add_fetch(&d->requests, 1, __ATOMIC_RELAXED);
}
uint64_t cuzk__daemon_requests(cuzk__daemon *d) {
    return __atomic_load_n(&d->requests, __ATOMIC_RELAXED);
}
cuzk_engine *cuzk__daemon_engine(cuzk__daemon *d) { return d->engine; }
const cuzk__daemon_config *cuzk__daemon_config_of(cuzk__daemon *d) { return &d->cfg; }

size_t cuzk__daemon_timeline(cuzk__daemon *d, double since_ms, cuzk_timeline_event *out,
                             size_t cap) {
    /* the engine's newest events (its ring holds at most timeline_events) */
    const size_t ring = d->cfg.timeline_events;
    cuzk_timeline_event *all = ring ? malloc(ring * sizeof(*all)) : NULL;
    if (all == NULL) return 0;
    const size_t n = cuzk_engine_timeline_since(d->engine, since_ms, all, ring);
    size_t match = 0; /* the newest cap of those that match */
    for (size_t i = 0; i < n; i++)
        match += all[i].stage != CUZK_STAGE_QUEUED && all[i].end_ms > since_ms;
    size_t skip = match > cap ? match - cap : 0, m = 0;
    pthread_mutex_lock(&d->mu);
    for (size_t i = 0; i < n && m < cap; i++) {
        if (all[i].stage == CUZK_STAGE_QUEUED || all[i].end_ms <= since_ms) continue;
        if (skip != 0) {
            skip--;
            continue;
        }
        out[m] = all[i];
        const uint64_t eid = all[i].job_id;
        const size_t r = eid % CUZK__DAEMON_ID_RING;
        const int known = d->ids[r].engine_id == eid;
        out[m].job_id = known ? d->ids[r].job_id : 0;
        if (known) out[m].partition = d->ids[r].index;
        m++;
    }
    pthread_mutex_unlock(&d->mu);
    free(all);
    return m;
}
