/* daemon.c — the store and the engine bound together (daemon.h). */
#include "service/daemon.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "util/error.h"

/* How often the finisher looks at its jobs when nothing settles (a job's
 * QUEUED -> RUNNING is seen this late at most), and expires old results. */
#define FINISHER_TICK_MS 100
#define EXPIRE_EVERY_MS 60000
/* Engine job ids remembered for the timeline (a ring). */
#define ID_RING 65536

/* A job the engine is proving for us. */
typedef struct {
    uint64_t id, engine_id;
    char key[CUZK__STORE_NAME_MAX + 1];
    size_t n;
    int running_recorded; /* the store says RUNNING */
} active_job;

typedef struct {
    char name[CUZK__CONF_KEY_NAME_MAX + 1];
    cuzk__proof_format format;
} key_entry;

struct cuzk__daemon {
    cuzk__daemon_config cfg; /* keys not copied (cfg.keys NULL) */
    cuzk__store *store;
    cuzk_context *ctx;
    cuzk_engine *engine;
    int64_t started_ms;
    void (*log)(void *, const char *);
    void *log_user;

    pthread_mutex_t mu;  /* everything below */
    pthread_cond_t ended; /* a job's end was recorded (ended_gen moved) */
    uint64_t ended_gen;
    active_job *active; /* by id, ascending */
    size_t n_active, cap_active;
    key_entry *keys;
    size_t n_keys, cap_keys;
    struct {
        uint64_t engine_id, id;
    } ids[ID_RING];
    int draining, stop_finisher, finisher_started;
    int closing; /* drained: awaits answer at once */
    uint64_t requests; /* HTTP requests answered (atomic) */
    pthread_t finisher;
};

static void logf_(cuzk__daemon *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(cuzk__daemon *d, const char *fmt, ...) {
    if (d->log == NULL) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    d->log(d->log_user, line);
}

/* ---- the active jobs (d->mu held) -------------------------------------------- */

static active_job *active_find(cuzk__daemon *d, uint64_t id) {
    size_t lo = 0, hi = d->n_active;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (d->active[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->n_active && d->active[lo].id == id ? &d->active[lo] : NULL;
}

static cuzk_status active_add(cuzk__daemon *d, const active_job *a, cuzk_error *err) {
    if (d->n_active == d->cap_active) {
        const size_t cap = d->cap_active ? 2 * d->cap_active : 64;
        active_job *p = realloc(d->active, cap * sizeof(*p));
        if (p == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "daemon: no memory for a job");
        d->active = p;
        d->cap_active = cap;
    }
    size_t i = d->n_active; /* ids mostly arrive in order */
    while (i > 0 && d->active[i - 1].id > a->id) i--;
    memmove(&d->active[i + 1], &d->active[i], (d->n_active - i) * sizeof(*a));
    d->active[i] = *a;
    d->n_active++;
    d->ids[a->engine_id % ID_RING].engine_id = a->engine_id;
    d->ids[a->engine_id % ID_RING].id = a->id;
    return CUZK_OK;
}

static void active_remove(cuzk__daemon *d, uint64_t id) {
    active_job *a = active_find(d, id);
    if (a == NULL) return;
    const size_t i = (size_t)(a - d->active);
    memmove(a, a + 1, (d->n_active - i - 1) * sizeof(*a));
    d->n_active--;
}

static void ended_signal(cuzk__daemon *d) {
    pthread_mutex_lock(&d->mu);
    d->ended_gen++;
    pthread_cond_broadcast(&d->ended);
    pthread_mutex_unlock(&d->mu);
}

static const key_entry *key_find(const cuzk__daemon *d, const char *name) {
    for (size_t i = 0; i < d->n_keys; i++)
        if (strcmp(d->keys[i].name, name) == 0) return &d->keys[i];
    return NULL;
}

/* ---- the finisher ------------------------------------------------------------ */

/* Records the end of a job the engine settled (outside d->mu). */
static void record_end(cuzk__daemon *d, const active_job *a, const cuzk_job_info *info) {
    cuzk_error err, rerr;
    cuzk_proof *proofs = calloc(a->n, sizeof(*proofs));
    const size_t pub_bytes = (size_t)info->n_public * 32;
    uint8_t *pub = malloc(a->n * pub_bytes + 1);
    cuzk_status st;
    if (proofs == NULL || pub == NULL)
        st = cuzk__fail(&err, CUZK_ERR_NOMEM, "no memory for the job's %zu proofs", a->n);
    else
        st = cuzk_engine_await(d->engine, a->engine_id, 0, proofs, pub, NULL, &err);
    cuzk_status rst;
    if (st == CUZK_OK) {
        rst = cuzk__store_finish(d->store, a->id, proofs, a->n, pub, pub_bytes, &rerr);
    } else if (st == CUZK_ERR_CANCELLED) {
        rst = cuzk__store_cancel(d->store, a->id, NULL, &rerr);
    } else {
        logf_(d, "job %llu failed: %s", (unsigned long long)a->id, cuzk_error_text(&err));
        rst = cuzk__store_fail(d->store, a->id, st, cuzk_error_text(&err), &rerr);
    }
    /* A job the client cancelled or collected meanwhile has ended in the store. */
    if (rst != CUZK_OK && rst != CUZK_ERR_NOT_FOUND && rst != CUZK_ERR_INVALID_ARG)
        logf_(d, "job %llu: its end could not be recorded: %s", (unsigned long long)a->id,
              cuzk_error_text(&rerr));
    free(proofs);
    free(pub);
    pthread_mutex_lock(&d->mu);
    active_remove(d, a->id);
    d->ended_gen++;
    pthread_cond_broadcast(&d->ended);
    pthread_mutex_unlock(&d->mu);
}

/* One look at every active job: records RUNNING and ends. */
static void finisher_pass(cuzk__daemon *d) {
    pthread_mutex_lock(&d->mu);
    const size_t n = d->n_active;
    active_job *snap = n ? malloc(n * sizeof(*snap)) : NULL;
    if (snap != NULL) memcpy(snap, d->active, n * sizeof(*snap));
    pthread_mutex_unlock(&d->mu);
    if (snap == NULL) return;
    for (size_t i = 0; i < n; i++) {
        cuzk_job_info info;
        cuzk_error err;
        if (cuzk_engine_job_info(d->engine, snap[i].engine_id, &info, &err) != CUZK_OK) continue;
        if (cuzk__store_state_ended(info.state) && info.n_running == 0) {
            record_end(d, &snap[i], &info);
        } else if (!snap[i].running_recorded && (info.n_running > 0 || info.n_done > 0)) {
            if (cuzk__store_set_running(d->store, snap[i].id, &err) == CUZK_OK) {
                pthread_mutex_lock(&d->mu);
                active_job *a = active_find(d, snap[i].id);
                if (a != NULL) a->running_recorded = 1;
                pthread_mutex_unlock(&d->mu);
            }
        }
    }
    free(snap);
}

static void expire_results(cuzk__daemon *d) {
    const int64_t before = cuzk__store_now_ms() - (int64_t)d->cfg.result_retention_s * 1000;
    size_t removed = 0;
    cuzk_error err;
    if (cuzk__store_expire(d->store, before, &removed, &err) != CUZK_OK)
        logf_(d, "expiring old results: %s", cuzk_error_text(&err));
    else if (removed != 0)
        logf_(d, "forgot %zu finished job%s older than %llu s", removed, removed == 1 ? "" : "s",
              (unsigned long long)d->cfg.result_retention_s);
}

static void *finisher_main(void *arg) {
    cuzk__daemon *d = arg;
    uint64_t seen = 0;
    int64_t next_expire = 0;
    for (;;) {
        pthread_mutex_lock(&d->mu);
        const int stop = d->stop_finisher;
        pthread_mutex_unlock(&d->mu);
        if (stop) break;
        seen = cuzk_engine_wait_settled(d->engine, seen, FINISHER_TICK_MS);
        finisher_pass(d);
        const int64_t now = cuzk__store_now_ms();
        if (now >= next_expire) {
            expire_results(d);
            next_expire = now + EXPIRE_EVERY_MS;
        }
    }
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
        key_entry *p = realloc(d->keys, cap * sizeof(*p));
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
        key_entry *k = &d->keys[d->n_keys++];
        memset(k, 0, sizeof(*k));
        memcpy(k->name, name, strlen(name) + 1);
        k->format = src->zkey != NULL ? CUZK__FORMAT_SNARKJS : CUZK__FORMAT_BELLMAN;
    }
    pthread_mutex_unlock(&d->mu);
    return st;
}

/* Cancels a job in the engine; one it no longer knows has nothing left to stop. */
static void engine_cancel(cuzk__daemon *d, uint64_t engine_id) {
    cuzk_error err;
    const cuzk_status st = cuzk_engine_cancel(d->engine, engine_id, &err);
    if (st != CUZK_OK && st != CUZK_ERR_NOT_FOUND)
        logf_(d, "cancelling a job in the engine: %s", cuzk_error_text(&err));
}

/* Queues a job of the store in the engine (its witnesses by path). */
static cuzk_status enqueue(cuzk__daemon *d, const cuzk__store_job_info *rec, int wait_ms,
                           cuzk_error *err) {
    char **paths = NULL;
    size_t n = 0;
    cuzk_status st = cuzk__store_witness_paths(d->store, rec->id, &paths, &n, err);
    if (st != CUZK_OK) return st;
    cuzk_witness_input *in = calloc(n ? n : 1, sizeof(*in));
    if (in == NULL) {
        free(paths);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for job %llu",
                          (unsigned long long)rec->id);
    }
    for (size_t i = 0; i < n; i++) in[i].path = paths[i];
    uint64_t engine_id = 0;
    st = cuzk_engine_submit_named(d->engine, &engine_id, rec->key_name, in, n, rec->priority,
                                  NULL, wait_ms, err);
    free(in);
    free(paths);
    if (st != CUZK_OK) return st;
    active_job a;
    memset(&a, 0, sizeof(a));
    a.id = rec->id;
    a.engine_id = engine_id;
    memcpy(a.key, rec->key_name, sizeof(a.key));
    a.n = rec->n_partitions;
    pthread_mutex_lock(&d->mu);
    st = active_add(d, &a, err);
    pthread_mutex_unlock(&d->mu);
    if (st != CUZK_OK) { /* not followed: cancelled and forgotten in the engine now */
        engine_cancel(d, engine_id);
        cuzk_error aerr;
        const cuzk_status ast = cuzk_engine_await(d->engine, engine_id, -1, NULL, NULL, NULL, &aerr);
        (void)ast; /* CUZK_ERR_CANCELLED, as asked */
    }
    return st;
}

/* The store's unfinished jobs queued again; one that cannot be (its key is
 * gone from the config, its witness file too) fails with the reason. */
static cuzk_status recover(cuzk__daemon *d, cuzk_error *err) {
    cuzk__store_job_info *jobs = NULL;
    size_t n = 0;
    cuzk_status st = cuzk__store_recover(d->store, &jobs, &n, err);
    if (st != CUZK_OK) return st;
    size_t requeued = 0;
    for (size_t i = 0; i < n; i++) {
        cuzk_error jerr;
        cuzk_status js = enqueue(d, &jobs[i], -1, &jerr);
        if (js == CUZK_OK) {
            requeued++;
            continue;
        }
        logf_(d, "job %llu cannot resume: %s", (unsigned long long)jobs[i].id,
              cuzk_error_text(&jerr));
        cuzk_error ferr;
        if (cuzk__store_fail(d->store, jobs[i].id, js, cuzk_error_text(&jerr), &ferr) != CUZK_OK)
            logf_(d, "job %llu: %s", (unsigned long long)jobs[i].id, cuzk_error_text(&ferr));
    }
    if (n != 0) logf_(d, "resumed %zu of %zu unfinished job%s", requeued, n, n == 1 ? "" : "s");
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
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->ended, NULL);

    cuzk_status st = cuzk__store_open(&d->store, cfg->database, cfg->spool_dir, err);
    size_t swept = 0;
    if (st == CUZK_OK) st = cuzk__store_sweep_spool(d->store, &swept, err);
    if (st == CUZK_OK && swept != 0)
        logf_(d, "removed %zu spool file%s no job referenced", swept, swept == 1 ? "" : "s");
    cuzk_options copt;
    cuzk_engine_options eopt;
    cuzk__daemon_config_to_options(cfg, &copt, &eopt);
    if (st == CUZK_OK) st = cuzk_context_create(&d->ctx, &copt, err);
    if (st == CUZK_OK) st = cuzk_engine_create(&d->engine, d->ctx, &eopt, err);
    for (size_t i = 0; st == CUZK_OK && i < cfg->n_keys; i++) {
        cuzk_key_source src;
        cuzk__daemon_key_source(&cfg->keys[i], &src);
        st = register_key(d, cfg->keys[i].name, &src, err);
    }
    if (st == CUZK_OK) st = recover(d, err);
    if (st == CUZK_OK) {
        if (pthread_create(&d->finisher, NULL, finisher_main, d) != 0)
            st = cuzk__fail(err, CUZK_ERR_NOMEM, "daemon: cannot start the finisher thread");
        else
            d->finisher_started = 1;
    }
    if (st != CUZK_OK) {
        cuzk__daemon_stop(d);
        return st;
    }
    *out = d;
    return CUZK_OK;
}

int cuzk__daemon_draining(cuzk__daemon *d) {
    pthread_mutex_lock(&d->mu);
    const int v = d->draining;
    pthread_mutex_unlock(&d->mu);
    return v;
}

void cuzk__daemon_drain(cuzk__daemon *d) {
    if (d == NULL) return;
    pthread_mutex_lock(&d->mu);
    const int was = d->draining;
    d->draining = 1;
    pthread_mutex_unlock(&d->mu);
    if (was || d->engine == NULL) return;
    cuzk_engine_pause(d->engine, 1);
    /* the partitions being proved finish; the finisher records what ends */
    for (;;) {
        cuzk_engine_stats s;
        cuzk_engine_get_stats(d->engine, &s);
        if (s.running_partitions == 0) break;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (d->finisher_started) {
        pthread_mutex_lock(&d->mu);
        d->stop_finisher = 1;
        pthread_mutex_unlock(&d->mu);
        pthread_join(d->finisher, NULL);
        d->finisher_started = 0;
        finisher_pass(d); /* what settled after its last look */
    }
    pthread_mutex_lock(&d->mu);
    d->closing = 1;
    pthread_cond_broadcast(&d->ended);
    pthread_mutex_unlock(&d->mu);
}

void cuzk__daemon_stop(cuzk__daemon *d) {
    if (d == NULL) return;
    cuzk__daemon_drain(d);
    cuzk_engine_destroy(d->engine);
    cuzk_context_destroy(d->ctx);
    cuzk__store_close(d->store);
    free(d->active);
    free(d->keys);
    pthread_cond_destroy(&d->ended);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

/* ---- jobs ------------------------------------------------------------------------ */

/* The store's record with the engine's counts. */
static cuzk_status job_fill(cuzk__daemon *d, cuzk__daemon_job *job, cuzk_error *err) {
    job->partitions_done = job->partitions_running = job->queue_position = 0;
    if (job->rec.state == CUZK_JOB_DONE) {
        job->partitions_done = job->rec.n_partitions;
        return CUZK_OK;
    }
    pthread_mutex_lock(&d->mu);
    const active_job *a = active_find(d, job->rec.id);
    const uint64_t engine_id = a != NULL ? a->engine_id : 0;
    pthread_mutex_unlock(&d->mu);
    cuzk_job_info info;
    if (engine_id != 0 && cuzk_engine_job_info(d->engine, engine_id, &info, err) == CUZK_OK) {
        job->partitions_done = info.n_done;
        job->partitions_running = info.n_running;
        job->queue_position = info.queued_ahead;
        if (job->rec.state == CUZK_JOB_QUEUED && (info.n_running > 0 || info.n_done > 0))
            job->rec.state = CUZK_JOB_RUNNING; /* the store hears of it within a tick */
    }
    cuzk__error_clear(err);
    return CUZK_OK;
}

cuzk_status cuzk__daemon_job_get(cuzk__daemon *d, uint64_t id, cuzk__daemon_job *job,
                                 cuzk_error *err) {
    memset(job, 0, sizeof(*job));
    const cuzk_status st = cuzk__store_get(d->store, id, &job->rec, err);
    return st == CUZK_OK ? job_fill(d, job, err) : st;
}

/* Refuses now (400) a witness of another circuit, or a truncated one, that
 * would otherwise be accepted only to fail its job later. */
static cuzk_status check_witnesses(cuzk__daemon *d, const cuzk__daemon_submission *sub,
                                   cuzk_error *err) {
    for (size_t i = 0; i < sub->n; i++) {
        char path[4096];
        const cuzk__store_witness *w = &sub->witnesses[i];
        if (w->spool != NULL)
            snprintf(path, sizeof(path), "%s/%s", cuzk__store_spool_dir(d->store), w->spool);
        else
            snprintf(path, sizeof(path), "%s", w->path != NULL ? w->path : "");
        const cuzk_status st = cuzk_engine_key_check_witness(d->engine, sub->key_name, path, err);
        if (st != CUZK_OK) {
            char msg[CUZK_ERROR_MSG_BYTES];
            snprintf(msg, sizeof(msg), "%s", cuzk_error_text(err));
            return cuzk__fail(err, st == CUZK_ERR_NOT_FOUND ? st : CUZK_ERR_INVALID_ARG,
                              "witness %zu%s: %s", i, w->spool != NULL ? " (uploaded)" : "", msg);
        }
    }
    return CUZK_OK;
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
    cuzk__store_job sj = {sub->request_id, sub->key_name, sub->priority, sub->n, sub->witnesses};
    uint64_t id = 0;
    cuzk_status st = cuzk__store_submit(d->store, &sj, &id, existed, err);
    if (st != CUZK_OK) return st;
    if (*existed) return cuzk__daemon_job_get(d, id, job, err);
    cuzk__store_job_info rec;
    st = check_witnesses(d, sub, err);
    if (st == CUZK_OK) st = cuzk__store_get(d->store, id, &rec, err);
    if (st == CUZK_OK) st = enqueue(d, &rec, wait_ms, err);
    if (st != CUZK_OK) {
        /* not acknowledged: the job is forgotten, its spool files with it */
        cuzk_error cerr;
        if (cuzk__store_collect(d->store, id, &cerr) != CUZK_OK)
            logf_(d, "job %llu: %s", (unsigned long long)id, cuzk_error_text(&cerr));
        return st;
    }
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
        pthread_mutex_lock(&d->mu);
        int timed_out = d->closing;
        while (d->ended_gen == gen && !timed_out)
            timed_out = pthread_cond_timedwait(&d->ended, &d->mu, &until) == ETIMEDOUT;
        pthread_mutex_unlock(&d->mu);
        if (timed_out) return cuzk__daemon_job_get(d, id, job, err);
    }
}

cuzk_status cuzk__daemon_job_cancel(cuzk__daemon *d, uint64_t id, cuzk__daemon_job *job,
                                    cuzk_error *err) {
    cuzk_job_state state;
    cuzk_status st = cuzk__store_cancel(d->store, id, &state, err);
    if (st != CUZK_OK) return st;
    pthread_mutex_lock(&d->mu);
    const active_job *a = active_find(d, id);
    const uint64_t engine_id = a != NULL ? a->engine_id : 0;
    pthread_mutex_unlock(&d->mu);
    if (engine_id != 0 && state == CUZK_JOB_CANCELLED)
        engine_cancel(d, engine_id); /* the finisher collects it */
    ended_signal(d);
    return cuzk__daemon_job_get(d, id, job, err);
}

cuzk_status cuzk__daemon_job_collect(cuzk__daemon *d, uint64_t id, cuzk_error *err) {
    cuzk__daemon_job job;
    cuzk_status st = cuzk__daemon_job_cancel(d, id, &job, err);
    if (st != CUZK_OK) return st;
    return cuzk__store_collect(d->store, id, err);
}

cuzk_status cuzk__daemon_job_result(cuzk__daemon *d, uint64_t id, cuzk__daemon_result *res,
                                    cuzk_error *err) {
    memset(res, 0, sizeof(*res));
    cuzk__store_job_info rec;
    cuzk_status st = cuzk__store_get(d->store, id, &rec, err);
    if (st != CUZK_OK) return st;
    pthread_mutex_lock(&d->mu);
    const key_entry *k = key_find(d, rec.key_name);
    res->format = k != NULL ? k->format : CUZK__FORMAT_BELLMAN;
    pthread_mutex_unlock(&d->mu);
    res->n = rec.n_partitions;
    res->proofs = calloc(res->n, sizeof(*res->proofs));
    if (res->proofs == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the proofs");
    size_t pub_bytes = 0;
    st = cuzk__store_results(d->store, id, res->proofs, res->n, &res->public_inputs, &pub_bytes,
                             err);
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
    cuzk__store_job_info *recs = NULL;
    size_t m = 0;
    cuzk_status st = cuzk__store_list(d->store, state_mask, after_id, limit, &recs, &m, err);
    if (st != CUZK_OK) return st;
    if (m == 0) return CUZK_OK;
    cuzk__daemon_job *out = calloc(m, sizeof(*out));
    if (out == NULL) {
        free(recs);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu jobs", m);
    }
    for (size_t i = 0; i < m; i++) {
        out[i].rec = recs[i];
        (void)job_fill(d, &out[i], err);
    }
    free(recs);
    *jobs = out;
    *n = m;
    return CUZK_OK;
}

cuzk_status cuzk__daemon_job_counts(cuzk__daemon *d, uint64_t counts[5], cuzk_error *err) {
    return cuzk__store_counts(d->store, counts, err);
}

/* ---- keys ----------------------------------------------------------------------- */

static cuzk_status key_status(cuzk__daemon *d, const key_entry *k, cuzk__daemon_key_status *ks,
                              cuzk_error *err) {
    memset(ks, 0, sizeof(*ks));
    memcpy(ks->name, k->name, sizeof(ks->name));
    ks->format = k->format;
    cuzk_status st = cuzk_engine_key_get_info(d->engine, k->name, &ks->info, err);
    if (st != CUZK_OK) return st;
    pthread_mutex_lock(&d->mu);
    size_t n = d->n_active;
    uint64_t *eids = n ? malloc(n * sizeof(*eids)) : NULL;
    size_t m = 0;
    for (size_t i = 0; eids != NULL && i < n; i++)
        if (strcmp(d->active[i].key, k->name) == 0) eids[m++] = d->active[i].engine_id;
    pthread_mutex_unlock(&d->mu);
    for (size_t i = 0; i < m; i++) {
        cuzk_job_info info;
        cuzk_error jerr;
        if (cuzk_engine_job_info(d->engine, eids[i], &info, &jerr) != CUZK_OK) continue;
        ks->running_partitions += info.n_running;
        if (!cuzk__store_state_ended(info.state))
            ks->queued_partitions += info.n_partitions - info.n_done - info.n_running;
    }
    free(eids);
    return CUZK_OK;
}

cuzk_status cuzk__daemon_keys(cuzk__daemon *d, cuzk__daemon_key_status **keys, size_t *n,
                              cuzk_error *err) {
    *keys = NULL;
    *n = 0;
    pthread_mutex_lock(&d->mu);
    const size_t m = d->n_keys;
    key_entry *snap = m ? malloc(m * sizeof(*snap)) : NULL;
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
    const key_entry *k = key_find(d, name);
    key_entry copy;
    if (k != NULL) copy = *k;
    pthread_mutex_unlock(&d->mu);
    if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "key %s: no such key", name);
    return key_status(d, &copy, key, err);
}

cuzk_status cuzk__daemon_key_add(cuzk__daemon *d, const char *name, const cuzk_key_source *src,
                                 cuzk_error *err) {
    cuzk__error_clear(err);
    if (!cuzk__daemon_key_name_ok(name))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "key name \"%.64s\": 1 to %d of A-Z a-z 0-9 . _ -", name,
                          CUZK__CONF_KEY_NAME_MAX);
    return register_key(d, name, src, err);
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
cuzk__store *cuzk__daemon_store(cuzk__daemon *d) { return d->store; }
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
    const size_t n = cuzk_engine_timeline(d->engine, all, ring);
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
        out[m].job_id = d->ids[eid % ID_RING].engine_id == eid ? d->ids[eid % ID_RING].id : 0;
        m++;
    }
    pthread_mutex_unlock(&d->mu);
    free(all);
    return m;
}
