/*
 * engine.c — the proving engine (include/cuzk.h, "the engine"): jobs, one
 * ordered queue of partitions, worker threads over the keys' lanes.
 *
 * Design
 *   - One mutex guards everything here; proofs run outside it. Two
 *     condition variables: `work` wakes workers (a partition queued, resume,
 *     stop), `changed` wakes submitters waiting for room and awaiters
 *     waiting for a job to end.
 *   - The queue is a binary heap of (job, partition) ordered by priority
 *     (high first), then job sequence (old first), then partition, so a job
 *     finishes before a younger one of its priority starts. Its size is
 *     bounded by max_queued_partitions (backpressure at submission).
 *   - A job ends DONE when its last partition is proved, FAILED at its first
 *     failing partition (its queued partitions leave the heap, the running
 *     ones are discarded when they end), CANCELLED likewise on request. It
 *     is forgotten when awaited after it ended.
 *   - Worker w proves on lane w of the job's key, so partitions of one key
 *     spread over the key's devices (or CPU lanes) and each lane's prepared
 *     key is reused from job to job.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "util/mem.h"

#define DEFAULT_MAX_QUEUED 1024

typedef struct job {
    uint64_t id, seq;
    cuzk_priority prio;
    cuzk_key *key; /* a reference, dropped when the job is forgotten */
    size_t n;
    cuzk_witness_input *in; /* deep copies */
    cuzk_proof *proofs;
    uint8_t *pub;
    cuzk_proof_times *times;
    size_t done, running, queued;
    cuzk_job_state state;
    cuzk_error err;
    uint64_t finish_seq;
    char *request_id;
    struct job *next;
} job;

typedef struct {
    job *j;
    size_t part;
} entry;

struct cuzk_engine {
    cuzk_context *ctx;
    cuzk_engine_options opt;
    pthread_mutex_t mu;
    pthread_cond_t work, changed;
    entry *heap;
    size_t heap_n;
    job *jobs; /* every known job */
    uint64_t next_id, next_seq, finish_seq;
    int paused, stop;
    size_t n_workers;
    pthread_t *workers;
};

/* ---- the ordered queue --------------------------------------------------- */

/* a before b: higher priority, then older job, then lower partition */
static int before(const entry *a, const entry *b) {
    if (a->j->prio != b->j->prio) return a->j->prio > b->j->prio;
    if (a->j->seq != b->j->seq) return a->j->seq < b->j->seq;
    return a->part < b->part;
}

static void heap_swap(entry *h, size_t a, size_t b) {
    const entry t = h[a];
    h[a] = h[b];
    h[b] = t;
}

static void sift_up(entry *h, size_t i) {
    while (i > 0 && before(&h[i], &h[(i - 1) / 2])) {
        heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(entry *h, size_t n, size_t i) {
    for (;;) {
        size_t best = i;
        const size_t l = 2 * i + 1, r = l + 1;
        if (l < n && before(&h[l], &h[best])) best = l;
        if (r < n && before(&h[r], &h[best])) best = r;
        if (best == i) return;
        heap_swap(h, i, best);
        i = best;
    }
}

static entry heap_pop(cuzk_engine *e) {
    const entry top = e->heap[0];
    e->heap[0] = e->heap[--e->heap_n];
    sift_down(e->heap, e->heap_n, 0);
    return top;
}

/* Drops every queued partition of j (rebuilding the heap). */
static void heap_remove_job(cuzk_engine *e, job *j) {
    size_t k = 0;
    for (size_t i = 0; i < e->heap_n; i++)
        if (e->heap[i].j != j) e->heap[k++] = e->heap[i];
    e->heap_n = k;
    for (size_t i = k / 2 + 1; i-- > 0;) sift_down(e->heap, e->heap_n, i);
    j->queued = 0;
}

/* ---- jobs ---------------------------------------------------------------- */

static job *find_job(cuzk_engine *e, uint64_t id) {
    for (job *j = e->jobs; j != NULL; j = j->next)
        if (j->id == id) return j;
    return NULL;
}

static void job_free(job *j) {
    if (j == NULL) return;
    for (size_t i = 0; j->in != NULL && i < j->n; i++) {
        free((char *)j->in[i].path);
        if (j->in[i].values != NULL) {
            cuzk__wipe((uint8_t *)j->in[i].values, j->in[i].n_values * 32);
            free((uint8_t *)j->in[i].values);
        }
    }
    free(j->in);
    free(j->proofs);
    free(j->pub);
    free(j->times);
    free(j->request_id);
    cuzk__key_unref(j->key);
    free(j);
}

static void forget_job(cuzk_engine *e, job *j) {
    for (job **p = &e->jobs; *p != NULL; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            break;
        }
    job_free(j);
}

static int ended(const job *j) { return j->state >= CUZK_JOB_DONE; }

/* Ends j (DONE, FAILED or CANCELLED) and wakes whoever waits on it. */
static void end_job(cuzk_engine *e, job *j, cuzk_job_state state) {
    j->state = state;
    j->finish_seq = ++e->finish_seq;
    if (j->queued) heap_remove_job(e, j);
    pthread_cond_broadcast(&e->changed);
}

/* ---- workers ------------------------------------------------------------- */

typedef struct {
    cuzk_engine *e;
    size_t index;
} worker_arg;

static void *worker_main(void *arg) {
    cuzk_engine *e = ((worker_arg *)arg)->e;
    const size_t lane = ((worker_arg *)arg)->index;
    free(arg);
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->stop && (e->paused || e->heap_n == 0)) pthread_cond_wait(&e->work, &e->mu);
        if (e->stop) break;
        const entry en = heap_pop(e);
        job *j = en.j;
        j->queued--;
        j->running++;
        if (j->state == CUZK_JOB_QUEUED) j->state = CUZK_JOB_RUNNING;
        pthread_cond_broadcast(&e->changed); /* room in the queue */
        const size_t np = (size_t)j->key->n_public;
        pthread_mutex_unlock(&e->mu);

        /* the proof, outside the lock; results go to the job's own slots */
        cuzk_error perr;
        cuzk__error_clear(&perr);
        cuzk_pending_proof *p = NULL;
        cuzk_proof proof;
        cuzk_proof_times t;
        uint8_t *pub = malloc(np * 32 + 1);
        cuzk_status st = pub == NULL ? cuzk__fail(&perr, CUZK_ERR_NOMEM, "no memory")
                                     : cuzk__prove_start_on_lane(j->key, lane, &p, &j->in[en.part],
                                                                 &perr);
        if (st == CUZK_OK) st = cuzk_prove_finish(p, &proof, pub, &t, &perr);
        cuzk_pending_proof_release(p);

        pthread_mutex_lock(&e->mu);
        j->running--;
        if (!ended(j)) {
            if (st == CUZK_OK) {
                j->proofs[en.part] = proof;
                memcpy(j->pub + en.part * np * 32, pub, np * 32);
                j->times[en.part] = t;
                if (++j->done == j->n) end_job(e, j, CUZK_JOB_DONE);
            } else {
                const char *name = j->in[en.part].path ? j->in[en.part].path
                                                       : "the witness in memory";
                cuzk__fail(&j->err, st, "partition %zu (%s): %s", en.part, name,
                           cuzk__error_text(&perr));
                end_job(e, j, CUZK_JOB_FAILED);
            }
        } else if (j->running == 0) {
            pthread_cond_broadcast(&e->changed); /* a cancelled job is quiet now */
        }
        free(pub);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- the public calls ----------------------------------------------------- */

void cuzk_engine_options_init(cuzk_engine_options *opt) {
    memset(opt, 0, sizeof(*opt));
    opt->struct_size = sizeof(*opt);
    opt->max_queued_partitions = DEFAULT_MAX_QUEUED;
}

cuzk_status cuzk_engine_create(cuzk_engine **out, cuzk_context *ctx,
                               const cuzk_engine_options *opt, cuzk_error *err) {
    cuzk__error_clear(err);
    if (out == NULL || ctx == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_create: NULL argument");
    *out = NULL;
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    if (opt != NULL) {
        if (opt->struct_size != sizeof(o))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "engine options: struct_size %zu, this library's is %zu (call "
                              "cuzk_engine_options_init)",
                              opt->struct_size, sizeof(o));
        o = *opt;
    }
    if (o.max_queued_partitions == 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine options: max_queued_partitions 0");
    if (o.workers > 4 * CUZK_MAX_LANES)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine options: workers %u: at most %d",
                          o.workers, 4 * CUZK_MAX_LANES);
    if (o.workers == 0) {
        const cuzk_options *c = &ctx->opt;
        o.workers = c->backend == CUZK_BACKEND_CPU ? (c->cpu_lanes > 1 ? c->cpu_lanes : 1)
                                                   : (c->n_devices ? (unsigned)c->n_devices : 1);
    }
    cuzk_engine *e = calloc(1, sizeof(*e));
    if (e == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for an engine");
    e->ctx = ctx;
    e->opt = o;
    e->paused = o.start_paused != 0;
    e->next_id = 1;
    e->heap = malloc(o.max_queued_partitions * sizeof(*e->heap));
    e->workers = calloc(o.workers, sizeof(*e->workers));
    if (e->heap == NULL || e->workers == NULL || pthread_mutex_init(&e->mu, NULL) != 0) {
        free(e->heap);
        free(e->workers);
        free(e);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for an engine");
    }
    pthread_cond_init(&e->work, NULL);
    pthread_cond_init(&e->changed, NULL);
    for (; e->n_workers < o.workers; e->n_workers++) {
        worker_arg *a = malloc(sizeof(*a));
        if (a == NULL) break;
        a->e = e;
        a->index = e->n_workers;
        if (pthread_create(&e->workers[e->n_workers], NULL, worker_main, a) != 0) {
            free(a);
            break;
        }
    }
    if (e->n_workers < o.workers) {
        cuzk_engine_destroy(e);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "cannot start %u worker threads", o.workers);
    }
    *out = e;
    return CUZK_OK;
}

void cuzk_engine_destroy(cuzk_engine *e) {
    if (e == NULL) return;
    pthread_mutex_lock(&e->mu);
    e->stop = 1;
    pthread_cond_broadcast(&e->work);
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->mu);
    for (size_t i = 0; i < e->n_workers; i++) pthread_join(e->workers[i], NULL);
    while (e->jobs != NULL) forget_job(e, e->jobs);
    pthread_cond_destroy(&e->work);
    pthread_cond_destroy(&e->changed);
    pthread_mutex_destroy(&e->mu);
    free(e->heap);
    free(e->workers);
    free(e);
}

void cuzk_engine_pause(cuzk_engine *e, int paused) {
    if (e == NULL) return;
    pthread_mutex_lock(&e->mu);
    e->paused = paused != 0;
    pthread_cond_broadcast(&e->work);
    pthread_mutex_unlock(&e->mu);
}

/* The deadline timeout_ms from now (CLOCK_REALTIME, as the condition waits
 * use). */
static struct timespec deadline_in(int timeout_ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* Waits on `changed` until the deadline (timeout_ms < 0: none); 0 when it
 * passed. Called with the lock held. */
static int wait_changed(cuzk_engine *e, int timeout_ms, const struct timespec *until) {
    if (timeout_ms < 0) {
        pthread_cond_wait(&e->changed, &e->mu);
        return 1;
    }
    return pthread_cond_timedwait(&e->changed, &e->mu, until) != ETIMEDOUT;
}

/* A job with deep copies of its witnesses. */
static cuzk_status job_new(job **out, cuzk_key *key, const cuzk_witness_input *in, size_t n,
                           cuzk_priority prio, const char *request_id, cuzk_error *err) {
    job *j = calloc(1, sizeof(*j));
    const size_t np = (size_t)key->n_public;
    if (j == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a job");
    j->n = n;
    j->prio = prio;
    j->in = calloc(n, sizeof(*j->in));
    j->proofs = calloc(n, sizeof(*j->proofs));
    j->pub = malloc(n * np * 32 + 1);
    j->times = calloc(n, sizeof(*j->times));
    int ok = j->in != NULL && j->proofs != NULL && j->pub != NULL && j->times != NULL;
    if (ok && request_id != NULL) ok = (j->request_id = cuzk__strdup(request_id)) != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        if (in[i].path != NULL) {
            ok = (j->in[i].path = cuzk__strdup(in[i].path)) != NULL;
        } else if (in[i].values != NULL && in[i].n_values <= SIZE_MAX / 32) {
            uint8_t *v = malloc(in[i].n_values * 32 + 1);
            ok = v != NULL;
            if (ok) memcpy(v, in[i].values, in[i].n_values * 32);
            j->in[i].values = v;
            j->in[i].n_values = in[i].n_values;
        } else {
            job_free(j);
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "partition %zu: neither a path nor values",
                              i);
        }
    }
    if (!ok) {
        job_free(j);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a job of %zu partitions", n);
    }
    *out = j;
    return CUZK_OK;
}

cuzk_status cuzk_engine_submit(cuzk_engine *e, uint64_t *job_id, cuzk_key *key,
                               const cuzk_witness_input *witnesses, size_t n,
                               cuzk_priority priority, const char *request_id, int timeout_ms,
                               cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL || job_id == NULL || key == NULL || witnesses == NULL || n == 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_submit: NULL argument or no partition");
    if (priority < CUZK_PRIORITY_LOW || priority > CUZK_PRIORITY_CRITICAL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_submit: priority %d: 0..3",
                          (int)priority);
    if (n > e->opt.max_queued_partitions)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "engine_submit: %zu partitions, the queue holds %zu", n,
                          e->opt.max_queued_partitions);
    if (key->n_public != 0 && n > SIZE_MAX / 32 / key->n_public)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_submit: %zu partitions: too many", n);
    job *j = NULL;
    cuzk_status st = job_new(&j, key, witnesses, n, priority, request_id, err);
    if (st != CUZK_OK) return st;
    const struct timespec until = deadline_in(timeout_ms > 0 ? timeout_ms : 0);
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (request_id != NULL) /* a resubmission returns the job it made */
            for (job *k = e->jobs; k != NULL; k = k->next)
                if (k->request_id != NULL && strcmp(k->request_id, request_id) == 0) {
                    st = k->key == key && k->n == n
                             ? CUZK_OK
                             : cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                          "request %s was submitted with another key or "
                                          "partition count",
                                          request_id);
                    *job_id = k->id;
                    pthread_mutex_unlock(&e->mu);
                    job_free(j);
                    return st;
                }
        if (e->heap_n + n <= e->opt.max_queued_partitions) break;
        if (e->stop || timeout_ms == 0 || !wait_changed(e, timeout_ms, &until)) {
            pthread_mutex_unlock(&e->mu);
            job_free(j);
            return cuzk__fail(err, CUZK_ERR_BUSY,
                              "engine_submit: no room for %zu partitions (%zu of %zu queued)", n,
                              e->heap_n, e->opt.max_queued_partitions);
        }
    }
    atomic_fetch_add(&key->refs, 1);
    j->key = key;
    j->id = e->next_id++;
    j->seq = e->next_seq++;
    j->next = e->jobs;
    e->jobs = j;
    for (size_t i = 0; i < n; i++) {
        e->heap[e->heap_n] = (entry){j, i};
        sift_up(e->heap, e->heap_n++);
    }
    j->queued = n;
    *job_id = j->id;
    pthread_cond_broadcast(&e->work);
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

cuzk_status cuzk_engine_job_info(cuzk_engine *e, uint64_t job_id, cuzk_job_info *info,
                                 cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL || info == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_job_info: NULL argument");
    memset(info, 0, sizeof(*info));
    pthread_mutex_lock(&e->mu);
    const job *j = find_job(e, job_id);
    if (j != NULL) {
        info->state = j->state;
        info->n_partitions = j->n;
        info->n_done = j->done;
        info->n_running = j->running;
        info->finish_seq = j->finish_seq;
        if (j->queued) { /* other jobs' partitions that go before this one's next */
            const entry *first = NULL;
            for (size_t i = 0; i < e->heap_n; i++)
                if (e->heap[i].j == j && (first == NULL || before(&e->heap[i], first)))
                    first = &e->heap[i];
            for (size_t i = 0; i < e->heap_n; i++)
                if (e->heap[i].j != j && before(&e->heap[i], first)) info->queued_ahead++;
        }
    }
    pthread_mutex_unlock(&e->mu);
    return j != NULL ? CUZK_OK
                     : cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                                  (unsigned long long)job_id);
}

cuzk_status cuzk_engine_await(cuzk_engine *e, uint64_t job_id, int timeout_ms, cuzk_proof *proofs,
                              uint8_t *public_inputs, cuzk_proof_times *times, cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_await: NULL engine");
    const struct timespec until = deadline_in(timeout_ms > 0 ? timeout_ms : 0);
    pthread_mutex_lock(&e->mu);
    job *j = find_job(e, job_id);
    /* ended, and no partition of it still being proved */
    while (j != NULL && !(ended(j) && j->running == 0)) {
        if (e->stop || timeout_ms == 0 || !wait_changed(e, timeout_ms, &until)) {
            pthread_mutex_unlock(&e->mu);
            return cuzk__fail(err, CUZK_ERR_TIMEOUT, "job %llu: still %s after %d ms",
                              (unsigned long long)job_id,
                              j->state == CUZK_JOB_QUEUED ? "queued" : "running", timeout_ms);
        }
        j = find_job(e, job_id);
    }
    cuzk_status st;
    if (j == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                        (unsigned long long)job_id);
    } else if (j->state == CUZK_JOB_DONE) {
        const size_t np = (size_t)j->key->n_public;
        if (proofs != NULL) memcpy(proofs, j->proofs, j->n * sizeof(*proofs));
        if (public_inputs != NULL) memcpy(public_inputs, j->pub, j->n * np * 32);
        if (times != NULL) memcpy(times, j->times, j->n * sizeof(*times));
        st = CUZK_OK;
        forget_job(e, j);
    } else if (j->state == CUZK_JOB_FAILED) {
        if (err != NULL) *err = j->err;
        st = j->err.status;
        forget_job(e, j);
    } else {
        st = cuzk__fail(err, CUZK_ERR_CANCELLED, "job %llu: cancelled",
                        (unsigned long long)job_id);
        forget_job(e, j);
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

cuzk_status cuzk_engine_cancel(cuzk_engine *e, uint64_t job_id, cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_cancel: NULL engine");
    pthread_mutex_lock(&e->mu);
    job *j = find_job(e, job_id);
    if (j != NULL && !ended(j)) end_job(e, j, CUZK_JOB_CANCELLED);
    pthread_mutex_unlock(&e->mu);
    return j != NULL ? CUZK_OK
                     : cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                                  (unsigned long long)job_id);
}
