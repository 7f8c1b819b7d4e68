/*
 * jobstore_sqlite.c — the job store on the embedded SQLite store
 * (store.h), used by one daemon.
 *
 * Claims live in this process: a small table of the partitions handed out
 * (job, index, a generation drawn from a counter), under a mutex. Claiming
 * reads the first pending partitions (cuzk__store_pending) and skips those
 * in the table; completing, failing or releasing takes the entry out, so a
 * stale ref (one released, then claimed again under a new generation) is
 * FENCED as on PostgreSQL. Nothing expires: a daemon that dies takes its
 * table with it, and at the next start every partition without a proof is
 * pending again.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/jobstore_impl.h"
#include "util/error.h"

/* Pending partitions one claim reads at most, looking past those of keys
 * not served (a SQLite store's jobs are normally all of served keys: the
 * daemon fails the others at start). */
#define CLAIM_SCAN_MAX 65536

typedef struct {
    uint64_t job_id;
    uint32_t index;
    uint64_t generation;
    cuzk_priority priority;
} claim;

typedef struct {
    cuzk__store *s;
    char where[4096];
    pthread_mutex_t mu; /* the claims */
    claim *v;
    size_t n, cap;
    uint64_t generation;
} sq;

/* ---- the claims (mu held) -------------------------------------------------------- */

static claim *claim_find(sq *q, uint64_t job_id, uint32_t index) {
    for (size_t i = 0; i < q->n; i++)
        if (q->v[i].job_id == job_id && q->v[i].index == index) return &q->v[i];
    return NULL;
}

/* Takes the entry of ref out: 1 when it was there under ref's generation. */
static int claim_take(sq *q, const cuzk__jobstore_ref *ref) {
    claim *c = claim_find(q, ref->job_id, ref->index);
    if (c == NULL || c->generation != ref->generation) return 0;
    *c = q->v[--q->n];
    return 1;
}

static size_t claimed_of(const sq *q, uint64_t job_id) {
    size_t k = 0;
    for (size_t i = 0; i < q->n; i++) k += q->v[i].job_id == job_id;
    return k;
}

/* ---- open and close ------------------------------------------------------------- */

static void sq_close(void *impl) {
    sq *q = impl;
    cuzk__store_close(q->s);
    pthread_mutex_destroy(&q->mu);
    free(q->v);
    free(q);
}

static const char *sq_where(const void *impl) { return ((const sq *)impl)->where; }
static uint64_t sq_self(void *impl) {
    (void)impl;
    return 0;
}
static uint64_t sq_reconnects(void *impl) {
    (void)impl;
    return 0;
}

/* ---- the client side ------------------------------------------------------------- */

static cuzk_status sink_begin(void *user, void **writer, cuzk_error *err) {
    return cuzk__store_spool_begin(((sq *)user)->s, (cuzk__spool_writer **)writer, err);
}
static cuzk_status sink_append(void *writer, const void *p, size_t n, cuzk_error *err) {
    return cuzk__store_spool_append(writer, p, n, err);
}
static cuzk_status sink_commit(void *writer, char *name, size_t cap, cuzk_error *err) {
    return cuzk__store_spool_commit(writer, name, cap, err);
}
static void sink_abort(void *writer) { cuzk__store_spool_abort(writer); }
static void sink_remove(void *user, const char *name) {
    cuzk_error err;
    if (cuzk__store_spool_remove(((sq *)user)->s, name, &err) != CUZK_OK) {
        /* referenced or already gone: the sweep at the next start settles it */
    }
}

static void sq_sink(void *impl, cuzk__witness_sink *sink) {
    sink->begin = sink_begin;
    sink->append = sink_append;
    sink->commit = sink_commit;
    sink->abort = sink_abort;
    sink->remove = sink_remove;
    sink->user = impl;
}

static cuzk_status sq_check_file(void *impl, const char *name, char *path, size_t cap,
                                 int *temporary, cuzk_error *err) {
    sq *q = impl;
    *temporary = 0;
    const int n = snprintf(path, cap, "%s/%s", cuzk__store_spool_dir(q->s), name);
    if (n < 0 || (size_t)n >= cap)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "upload %.64s: its path is too long", name);
    return CUZK_OK;
}

static cuzk_status sq_submit(void *impl, const cuzk__store_job *job, uint64_t *id, int *existed,
                             cuzk_error *err) {
    return cuzk__store_submit(((sq *)impl)->s, job, id, existed, err);
}

/* The partitions waiting before job's next one: those without a proof
 * ahead of it in the store's order, less those being proved. */
static cuzk_status ahead(sq *q, cuzk__jobstore_job *job, cuzk_error *err) {
    size_t n = 0;
    cuzk_status st = cuzk__store_ahead(q->s, job->rec.priority, job->rec.id, &n, err);
    if (st != CUZK_OK) return st;
    pthread_mutex_lock(&q->mu);
    for (size_t i = 0; i < q->n; i++) {
        const claim *c = &q->v[i];
        if (c->priority > job->rec.priority ||
            (c->priority == job->rec.priority && c->job_id < job->rec.id))
            n -= n > 0;
    }
    pthread_mutex_unlock(&q->mu);
    job->ahead = n;
    return CUZK_OK;
}

static cuzk_status sq_get(void *impl, uint64_t id, cuzk__jobstore_job *job, cuzk_error *err) {
    sq *q = impl;
    cuzk_status st = cuzk__store_get(q->s, id, &job->rec, err);
    if (st != CUZK_OK) return st;
    pthread_mutex_lock(&q->mu);
    job->claimed = claimed_of(q, id);
    pthread_mutex_unlock(&q->mu);
    if (!cuzk__store_state_ended(job->rec.state) &&
        job->rec.n_done + job->claimed < job->rec.n_partitions)
        return ahead(q, job, err);
    return CUZK_OK;
}

static cuzk_status sq_list(void *impl, unsigned mask, uint64_t after, size_t limit,
                           cuzk__jobstore_job **jobs, size_t *n, cuzk_error *err) {
    sq *q = impl;
    cuzk__store_job_info *recs = NULL;
    size_t m = 0;
    cuzk_status st = cuzk__store_list(q->s, mask, after, limit, &recs, &m, err);
    if (st != CUZK_OK || m == 0) return st;
    cuzk__jobstore_job *v = calloc(m, sizeof(*v));
    if (v == NULL) {
        free(recs);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "list: no memory for %zu jobs", m);
    }
    pthread_mutex_lock(&q->mu);
    for (size_t i = 0; i < m; i++) {
        v[i].rec = recs[i];
        v[i].claimed = claimed_of(q, recs[i].id);
    }
    pthread_mutex_unlock(&q->mu);
    free(recs);
    *jobs = v;
    *n = m;
    return CUZK_OK;
}

static cuzk_status sq_counts(void *impl, uint64_t counts[5], cuzk_error *err) {
    return cuzk__store_counts(((sq *)impl)->s, counts, err);
}

static cuzk_status sq_backlog(void *impl, size_t *n, cuzk_error *err) {
    return cuzk__store_backlog(((sq *)impl)->s, n, err);
}

static cuzk_status sq_cancel(void *impl, uint64_t id, cuzk_job_state *state, cuzk_error *err) {
    return cuzk__store_cancel(((sq *)impl)->s, id, state, err);
}

static cuzk_status sq_collect(void *impl, uint64_t id, cuzk_error *err) {
    sq *q = impl;
    cuzk__store_job_info info;
    cuzk_status st = cuzk__store_get(q->s, id, &info, err);
    if (st != CUZK_OK) return st;
    if (!cuzk__store_state_ended(info.state))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job %llu is %s: cancel it first",
                          (unsigned long long)id, cuzk__store_state_name(info.state));
    return cuzk__store_collect(q->s, id, err);
}

static cuzk_status sq_results(void *impl, uint64_t id, cuzk_proof *proofs, uint64_t *owners,
                              size_t cap, uint8_t **pub, size_t *pub_bytes, cuzk_error *err) {
    if (owners != NULL) memset(owners, 0, cap * sizeof(*owners));
    return cuzk__store_results(((sq *)impl)->s, id, proofs, cap, pub, pub_bytes, err);
}

static cuzk_status sq_expire(void *impl, int64_t age_ms, size_t *removed, cuzk_error *err) {
    return cuzk__store_expire(((sq *)impl)->s, cuzk__store_now_ms() - age_ms, removed, err);
}

/* ---- the work side ----------------------------------------------------------------- */

static int key_served(const char *const *keys, size_t nkeys, const char *name) {
    for (size_t i = 0; i < nkeys; i++)
        if (strcmp(keys[i], name) == 0) return 1;
    return 0;
}

static cuzk_status sq_claim(void *impl, const char *const *keys, size_t nkeys, size_t max,
                            cuzk__jobstore_part *parts, size_t *n, cuzk_error *err) {
    sq *q = impl;
    pthread_mutex_lock(&q->mu);
    cuzk_status st = CUZK_OK;
    if (q->cap < q->n + max) {
        claim *v = realloc(q->v, (q->n + max) * sizeof(*v));
        if (v == NULL)
            st = cuzk__fail(err, CUZK_ERR_NOMEM, "claim: no memory");
        else {
            q->v = v;
            q->cap = q->n + max;
        }
    }
    /* the first pending partitions, as many more as are claimed already
     * (those come back too); more when some are of keys not served */
    size_t limit = max + q->n, m = 0, k = 0;
    cuzk__store_part *pend = NULL;
    uint64_t running[64];
    size_t n_running = 0;
    while (st == CUZK_OK) {
        free(pend);
        pend = malloc(limit * sizeof(*pend));
        st = pend != NULL ? cuzk__store_pending(q->s, limit, pend, &m, err)
                          : cuzk__fail(err, CUZK_ERR_NOMEM, "claim: no memory");
        if (st != CUZK_OK) break;
        size_t usable = 0;
        for (size_t i = 0; i < m; i++)
            usable += claim_find(q, pend[i].job_id, pend[i].index) == NULL &&
                      key_served(keys, nkeys, pend[i].key_name);
        if (usable >= max || m < limit || limit >= CLAIM_SCAN_MAX) break;
        limit *= 4;
    }
    for (size_t i = 0; st == CUZK_OK && i < m && k < max; i++) {
        const cuzk__store_part *p = &pend[i];
        if (claim_find(q, p->job_id, p->index) != NULL || !key_served(keys, nkeys, p->key_name))
            continue;
        claim *c = &q->v[q->n++];
        c->job_id = p->job_id;
        c->index = p->index;
        c->generation = ++q->generation;
        c->priority = p->priority;
        cuzk__jobstore_part *o = &parts[k++];
        memset(o, 0, sizeof(*o));
        o->ref.owner = 0;
        o->ref.job_id = p->job_id;
        o->ref.index = p->index;
        o->ref.generation = c->generation;
        o->priority = p->priority;
        memcpy(o->key_name, p->key_name, sizeof(o->key_name));
        o->n_partitions = p->n_partitions;
        memcpy(o->path, p->path, sizeof(o->path));
        if (p->job_state == CUZK_JOB_QUEUED && n_running < 64) {
            size_t j = 0;
            while (j < n_running && running[j] != p->job_id) j++;
            if (j == n_running) running[n_running++] = p->job_id;
        }
    }
    pthread_mutex_unlock(&q->mu);
    free(pend);
    /* a job is RUNNING from its first claim (an ended one stays as it ended) */
    for (size_t j = 0; j < n_running; j++) {
        cuzk_error rerr;
        if (cuzk__store_set_running(q->s, running[j], &rerr) != CUZK_OK) {
            /* ended meanwhile: its partitions are told so when they are recorded */
        }
    }
    *n = k;
    return st;
}

static cuzk_status sq_describe(void *impl, const char *info, const char *const *keys,
                               size_t nkeys, cuzk_error *err) {
    (void)impl;
    (void)info;
    (void)keys;
    (void)nkeys;
    (void)err;
    return CUZK_OK; /* one daemon: it describes itself */
}

static cuzk_status sq_fetch(void *impl, cuzk__jobstore_part *part, int (*stop)(void *),
                            void *stop_user, cuzk_error *err) {
    (void)impl;
    (void)stop;
    (void)stop_user;
    return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job %llu: a SQLite store has no payloads",
                      (unsigned long long)part->ref.job_id);
}

/* What a store call that found the job ended (or collected) means. */
static cuzk_status ended_or(cuzk_status st, cuzk__jobstore_outcome *outcome) {
    if (st == CUZK_ERR_INVALID_ARG || st == CUZK_ERR_NOT_FOUND) {
        *outcome = CUZK__JS_ENDED;
        return CUZK_OK;
    }
    if (st == CUZK_OK) *outcome = CUZK__JS_RECORDED;
    return st;
}

static cuzk_status sq_complete(void *impl, const cuzk__jobstore_ref *ref, const cuzk_proof *proof,
                               const uint8_t *pub, size_t pub_bytes,
                               cuzk__jobstore_outcome *outcome, int *job_done, cuzk_error *err) {
    sq *q = impl;
    pthread_mutex_lock(&q->mu);
    const claim *c = claim_find(q, ref->job_id, ref->index);
    const int mine = c != NULL && c->generation == ref->generation;
    pthread_mutex_unlock(&q->mu);
    if (!mine) return CUZK_OK; /* FENCED */
    cuzk_error serr;
    cuzk_status st = cuzk__store_record(q->s, ref->job_id, ref->index, proof, pub, pub_bytes,
                                        job_done, &serr);
    if (st != CUZK_OK && st != CUZK_ERR_INVALID_ARG && st != CUZK_ERR_NOT_FOUND) {
        *err = serr; /* kept: the caller tries again */
        return st;
    }
    pthread_mutex_lock(&q->mu);
    claim_take(q, ref);
    pthread_mutex_unlock(&q->mu);
    return ended_or(st, outcome);
}

static cuzk_status sq_fail(void *impl, const cuzk__jobstore_ref *ref, cuzk_status status,
                           const char *msg, cuzk__jobstore_outcome *outcome, cuzk_error *err) {
    sq *q = impl;
    pthread_mutex_lock(&q->mu);
    const int mine = claim_take(q, ref);
    pthread_mutex_unlock(&q->mu);
    if (!mine) return CUZK_OK; /* FENCED */
    cuzk_error serr;
    cuzk_status st = cuzk__store_fail(q->s, ref->job_id, status, msg, &serr);
    if (st != CUZK_OK && st != CUZK_ERR_INVALID_ARG && st != CUZK_ERR_NOT_FOUND) *err = serr;
    return ended_or(st, outcome);
}

static cuzk_status sq_release(void *impl, const cuzk__jobstore_ref *ref,
                              cuzk__jobstore_outcome *outcome, cuzk_error *err) {
    (void)err;
    sq *q = impl;
    pthread_mutex_lock(&q->mu);
    if (claim_take(q, ref)) *outcome = CUZK__JS_RECORDED;
    pthread_mutex_unlock(&q->mu);
    return CUZK_OK;
}

static cuzk_status sq_renew(void *impl, cuzk__jobstore_lease *held, size_t n, cuzk_error *err) {
    sq *q = impl;
    for (size_t i = 0; i < n; i++) {
        const cuzk__jobstore_ref *ref = &held[i].ref;
        pthread_mutex_lock(&q->mu);
        const claim *c = claim_find(q, ref->job_id, ref->index);
        const int mine = c != NULL && c->generation == ref->generation;
        pthread_mutex_unlock(&q->mu);
        held[i].state = mine ? CUZK__JS_HELD : CUZK__JS_LOST;
        if (!mine) continue;
        cuzk__store_job_info info;
        cuzk_status st = cuzk__store_get(q->s, ref->job_id, &info, err);
        if (st == CUZK_ERR_NOT_FOUND || (st == CUZK_OK && cuzk__store_state_ended(info.state)))
            held[i].state = CUZK__JS_JOB_ENDED;
        else if (st != CUZK_OK)
            return st;
    }
    return CUZK_OK;
}

static cuzk_status sq_reap(void *impl, size_t *requeued, cuzk_error *err) {
    (void)impl;
    (void)err;
    *requeued = 0; /* a claim lives as long as its process: none expires */
    return CUZK_OK;
}

static cuzk_status sq_leave(void *impl, size_t *released, cuzk_error *err) {
    (void)err;
    sq *q = impl;
    pthread_mutex_lock(&q->mu);
    *released = q->n;
    q->n = 0;
    pthread_mutex_unlock(&q->mu);
    return CUZK_OK;
}

static cuzk_status sq_daemons(void *impl, cuzk__jobstore_daemon **v, size_t *n, cuzk_error *err) {
    (void)impl;
    (void)err;
    *v = NULL; /* one daemon: it describes itself */
    *n = 0;
    return CUZK_OK;
}

static const cuzk__jobstore_ops SQLITE_OPS = {
    .kind = "sqlite",
    .shared = 0,
    .close = sq_close,
    .where = sq_where,
    .self = sq_self,
    .reconnects = sq_reconnects,
    .sink = sq_sink,
    .upload_check_file = sq_check_file,
    .submit = sq_submit,
    .get = sq_get,
    .list = sq_list,
    .counts = sq_counts,
    .backlog = sq_backlog,
    .cancel = sq_cancel,
    .collect = sq_collect,
    .results = sq_results,
    .expire = sq_expire,
    .claim = sq_claim,
    .describe = sq_describe,
    .fetch = sq_fetch,
    .complete = sq_complete,
    .fail = sq_fail,
    .release = sq_release,
    .renew = sq_renew,
    .reap = sq_reap,
    .leave = sq_leave,
    .wait = NULL,
    .daemons = sq_daemons,
};

cuzk_status cuzk__jobstore_open_sqlite(const cuzk__jobstore_ops **ops, void **impl,
                                       const cuzk__jobstore_options *opt, cuzk__jobstore_log log,
                                       void *log_user, cuzk_error *err) {
    sq *q = calloc(1, sizeof(*q));
    if (q == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the job store");
    pthread_mutex_init(&q->mu, NULL);
    snprintf(q->where, sizeof(q->where), "%s", opt->database);
    cuzk_status st = cuzk__store_open(&q->s, opt->database, opt->spool_dir, err);
    size_t swept = 0;
    if (st == CUZK_OK) st = cuzk__store_sweep_spool(q->s, &swept, err);
    if (st == CUZK_OK && swept != 0 && log != NULL) {
        char line[160];
        snprintf(line, sizeof(line), "removed %zu spool file%s no job referenced", swept,
                 swept == 1 ? "" : "s");
        log(log_user, line);
    }
    /* nothing runs in a fresh process: RUNNING jobs are QUEUED again */
    cuzk__store_job_info *jobs = NULL;
    size_t n = 0;
    if (st == CUZK_OK) st = cuzk__store_recover(q->s, &jobs, &n, err);
    free(jobs);
    if (st != CUZK_OK) {
        cuzk__store_close(q->s);
        pthread_mutex_destroy(&q->mu);
        free(q);
        return st;
    }
    *ops = &SQLITE_OPS;
    *impl = q;
    return CUZK_OK;
}
