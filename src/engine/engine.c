/*
 * engine.c — the proving engine's public calls (include/cuzk.h, "the
 * engine"): creation, submission with backpressure (queue room and the
 * host memory budget), job state, await, cancel, counts and the timeline.
 * The queue is queue.c's, the workers worker.c's; engine_impl.h has the
 * objects and the locking.
 *
 * A job ends DONE when its last partition is proved, FAILED at its first
 * failing partition (its queued partitions leave the queue, the running
 * ones are discarded when they end), CANCELLED likewise on request. It is
 * forgotten when awaited after it ended.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine_impl.h"
#include "util/clock.h"
#include "util/mem.h"

#define DEFAULT_MAX_QUEUED 1024
#define MAX_QUEUED (1 << 24)
#define DEFAULT_TIMELINE_EVENTS 65536
#define MAX_WORKERS_PER_DEVICE 16

double cuzk__engine_now(const cuzk_engine *e) { return cuzk__now_ms() - e->t0_ms; }

double cuzk_engine_now_ms(cuzk_engine *e) { return e != NULL ? cuzk__engine_now(e) : 0.0; }

_Static_assert(sizeof((double[])CUZK_STAGE_BUCKET_BOUNDS_MS) / sizeof(double) + 1 ==
                   CUZK_STAGE_BUCKETS,
               "one bucket above the bounds");

void cuzk__engine_count_stage(cuzk_engine *e, cuzk_stage stage, double ms) {
    static const double bounds[] = CUZK_STAGE_BUCKET_BOUNDS_MS;
    if ((unsigned)stage >= CUZK_STAGE_COUNT) return;
    size_t b = 0;
    while (b < sizeof(bounds) / sizeof(bounds[0]) && ms > bounds[b]) b++;
    pthread_mutex_lock(&e->hist_mu);
    e->hist[stage].count[b]++;
    e->hist[stage].n++;
    e->hist[stage].sum_ms += ms;
    pthread_mutex_unlock(&e->hist_mu);
}

void cuzk_engine_stage_histogram(cuzk_engine *e, cuzk_stage stage, cuzk_stage_histogram *out) {
    memset(out, 0, sizeof(*out));
    if (e == NULL || (unsigned)stage >= CUZK_STAGE_COUNT) return;
    pthread_mutex_lock(&e->hist_mu);
    *out = e->hist[stage];
    pthread_mutex_unlock(&e->hist_mu);
}

/* ---- jobs ---------------------------------------------------------------- */

static job *find_job(cuzk_engine *e, uint64_t id) {
    for (job *j = e->jobs; j != NULL; j = j->next)
        if (j->id == id) return j;
    return NULL;
}

/* Frees a partition's witness values (wiped); the bytes they held. */
static uint64_t values_free(cuzk_witness_input *in) {
    if (in->values == NULL) return 0;
    const uint64_t bytes = (uint64_t)in->n_values * 32;
    cuzk__wipe((uint8_t *)in->values, bytes);
    free((uint8_t *)in->values);
    in->values = NULL;
    return bytes;
}

/* Frees j's witness copies (paths and values). */
static void inputs_free(job *j) {
    for (size_t i = 0; j->in != NULL && i < j->n; i++) {
        free((char *)j->in[i].path);
        (void)values_free(&j->in[i]);
    }
    free(j->in);
    j->in = NULL;
}

static void job_free(job *j) {
    if (j == NULL) return;
    inputs_free(j);
    free(j->proving);
    free(j->proofs);
    free(j->pub);
    free(j->times);
    free(j->request_id);
    cuzk__key_unref(j->key);
    free(j);
}

void cuzk__job_drop_inputs(cuzk_engine *e, job *j) {
    if (j->in == NULL) return;
    if (j->running == 0) {
        inputs_free(j);
        e->host_used -= j->held_bytes;
        j->held_bytes = 0;
        return;
    }
    /* the partitions being proved keep theirs until they stop */
    for (size_t i = 0; i < j->n; i++)
        if (!j->proving[i]) {
            const uint64_t bytes = values_free(&j->in[i]);
            e->host_used -= bytes;
            j->held_bytes -= bytes;
        }
}

/* Takes j out of the engine (the lock held); the caller frees it after
 * unlocking, since its key's last reference may go with it. */
static job *forget_job(cuzk_engine *e, job *j) {
    for (job **p = &e->jobs; *p != NULL; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            break;
        }
    if (j->in != NULL) e->host_used -= j->held_bytes;
    return j;
}

void cuzk__job_end(cuzk_engine *e, job *j, cuzk_job_state state) {
    j->state = state;
    j->finish_seq = ++e->finish_seq;
    if (j->running == 0) e->settled++;
    if (j->queued) cuzk__queue_remove_job(e, j);
    cuzk__job_drop_inputs(e, j);
    pthread_cond_broadcast(&e->changed);
}

/* ---- the public calls ----------------------------------------------------- */

#define DEFAULT_BATCH_WAIT_MS 10000u

void cuzk_engine_options_init(cuzk_engine_options *opt) {
    memset(opt, 0, sizeof(*opt));
    opt->struct_size = sizeof(*opt);
    opt->max_queued_partitions = DEFAULT_MAX_QUEUED;
    opt->max_retries = 1;
    opt->timeline_events = DEFAULT_TIMELINE_EVENTS;
    opt->batch_wait_ms = DEFAULT_BATCH_WAIT_MS;
    opt->fault_status = CUZK_ERR_GPU;
}

/* The lane slots of a context: the GPUs it lists, or its CPU lanes (AUTO:
 * whichever is more, as its keys may take either). */
static size_t lane_slots(const cuzk_options *c) {
    const size_t gpu = c->n_devices ? c->n_devices : 1;
    const size_t cpu = c->cpu_lanes > 1 ? c->cpu_lanes : 1;
    if (c->backend == CUZK_BACKEND_CPU) return cpu;
    if (c->backend == CUZK_BACKEND_GPU) return gpu;
    return gpu > cpu ? gpu : cpu;
}

static uint64_t default_budget(void) {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || size <= 0) return UINT64_MAX;
    return (uint64_t)pages / 4 * 3 * (uint64_t)size;
}

static cuzk_status check_options(cuzk_engine_options *o, const cuzk_engine_options *opt,
                                 const cuzk_context *ctx, cuzk_error *err) {
    cuzk_engine_options_init(o);
    if (opt != NULL) {
        if (opt->struct_size != sizeof(*o))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "engine options: struct_size %zu, this library's is %zu (call "
                              "cuzk_engine_options_init)",
                              opt->struct_size, sizeof(*o));
        *o = *opt;
    }
    if (o->max_queued_partitions == 0 || o->max_queued_partitions > MAX_QUEUED)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "engine options: max_queued_partitions %zu: 1..%d",
                          o->max_queued_partitions, MAX_QUEUED);
    if (o->workers_per_device > MAX_WORKERS_PER_DEVICE)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "engine options: workers_per_device %u: at most %d",
                          o->workers_per_device, MAX_WORKERS_PER_DEVICE);
    if (o->fault_stage != NULL && strlen(o->fault_stage) >= CUZK__FAULT_STAGE_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine options: fault_stage \"%s\": too long",
                          o->fault_stage);
    if (o->fault_status != CUZK_ERR_GPU && o->fault_status != CUZK_ERR_DEVICE_NOMEM)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "engine options: fault_status %d: CUZK_ERR_GPU or CUZK_ERR_DEVICE_NOMEM",
                          (int)o->fault_status);
    const int gpu = ctx->opt.backend == CUZK_BACKEND_GPU ||
                    (ctx->opt.backend == CUZK_BACKEND_AUTO && cuzk_gpu_count() > 0);
    if (o->workers_per_device == 0) o->workers_per_device = gpu ? 2 : 1;
    if (o->host_memory_budget == 0) o->host_memory_budget = default_budget();
    /* keys resident on a card at once must fit it: a GPU engine's named keys
     * count against the smallest card's memory unless told otherwise */
    if (o->key_cache_bytes == 0 && gpu) o->key_cache_bytes = cuzk__context_card_bytes(ctx);
    return CUZK_OK;
}

cuzk_status cuzk_engine_create(cuzk_engine **out, cuzk_context *ctx,
                               const cuzk_engine_options *opt, cuzk_error *err) {
    cuzk__error_clear(err);
    if (out == NULL || ctx == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_create: NULL argument");
    *out = NULL;
    cuzk_engine_options o;
    cuzk_status st = check_options(&o, opt, ctx, err);
    if (st != CUZK_OK) return st;
    cuzk_engine *e = calloc(1, sizeof(*e));
    if (e == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for an engine");
    e->ctx = ctx;
    e->opt = o;
    e->opt.fault_stage = NULL; /* the caller's string: copied into the context's slot */
    e->paused = o.start_paused != 0;
    e->next_id = 1;
    e->t0_ms = cuzk__now_ms();
    e->n_slots = lane_slots(&ctx->opt);
    const size_t n_workers = e->n_slots * o.workers_per_device;
    e->heap = malloc(o.max_queued_partitions * sizeof(*e->heap));
    e->retry = malloc(n_workers * sizeof(*e->retry));
    e->resets = malloc(n_workers * sizeof(*e->resets));
    e->slots = calloc(e->n_slots, sizeof(*e->slots));
    e->workers = calloc(n_workers, sizeof(*e->workers));
    if (o.timeline_events != 0) e->timeline = cuzk__timeline_new(o.timeline_events);
    if (e->heap == NULL || e->retry == NULL || e->resets == NULL || e->slots == NULL ||
        e->workers == NULL || (o.timeline_events != 0 && e->timeline == NULL) ||
        pthread_mutex_init(&e->mu, NULL) != 0) {
        free(e->heap);
        free(e->retry);
        free(e->resets);
        free(e->slots);
        free(e->workers);
        cuzk__timeline_free(e->timeline);
        free(e);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for an engine");
    }
    (void)cuzk__cond_init(&e->work);
    (void)cuzk__cond_init(&e->changed);
    pthread_mutex_init(&e->hist_mu, NULL);
    if (o.fault_stage != NULL && o.fault_nth != 0) { /* armed last: nth publishes the rest */
        atomic_store(&ctx->fault.nth, 0);
        strcpy(ctx->fault.stage, o.fault_stage);
        ctx->fault.nomem = o.fault_status == CUZK_ERR_DEVICE_NOMEM;
        atomic_store(&ctx->fault.launches, 0);
        atomic_store(&ctx->fault.nth, o.fault_nth);
        e->armed_fault = 1;
    }
    for (; e->n_workers < n_workers; e->n_workers++) {
        cuzk__worker_arg *a = malloc(sizeof(*a));
        if (a == NULL) break;
        a->e = e;
        a->index = e->n_workers;
        if (pthread_create(&e->workers[e->n_workers], NULL, cuzk__worker_main, a) != 0) {
            free(a);
            break;
        }
    }
    if (e->n_workers < n_workers) {
        cuzk_engine_destroy(e);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "cannot start %zu worker threads", n_workers);
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
    while (e->jobs != NULL) job_free(forget_job(e, e->jobs));
    for (size_t i = 0; i < e->n_resets; i++) cuzk__key_unref(e->resets[i].key);
    cuzk__cache_free(e);
    if (e->armed_fault) atomic_store(&e->ctx->fault.nth, 0);
    pthread_cond_destroy(&e->work);
    pthread_cond_destroy(&e->changed);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->hist_mu);
    cuzk__timeline_free(e->timeline);
    free(e->heap);
    free(e->retry);
    free(e->resets);
    free(e->slots);
    free(e->workers);
    free(e);
}

void cuzk_engine_get_stats(cuzk_engine *e, cuzk_engine_stats *out) {
    memset(out, 0, sizeof(*out));
    if (e == NULL) return;
    pthread_mutex_lock(&e->mu);
    *out = e->stats;
    out->host_bytes_used = e->host_used;
    out->host_bytes_budget = e->opt.host_memory_budget;
    out->queued_partitions = e->heap_n + e->retry_n;
    for (size_t s = 0; s < e->n_slots; s++) out->running_partitions += e->slots[s].busy;
    out->workers = e->n_workers;
    out->lane_slots = e->n_slots;
    pthread_mutex_unlock(&e->mu);
    out->timeline_dropped = cuzk__timeline_dropped(e->timeline);
}

size_t cuzk_engine_timeline(cuzk_engine *e, cuzk_timeline_event *out, size_t cap) {
    if (e == NULL || out == NULL) return 0;
    return cuzk__timeline_copy(e->timeline, out, cap);
}

size_t cuzk_engine_timeline_since(cuzk_engine *e, double since_ms, cuzk_timeline_event *out,
                                  size_t cap) {
    if (e == NULL || out == NULL) return 0;
    return cuzk__timeline_copy_since(e->timeline, since_ms, out, cap);
}

void cuzk_engine_pause(cuzk_engine *e, int paused) {
    if (e == NULL) return;
    pthread_mutex_lock(&e->mu);
    e->paused = paused != 0;
    pthread_cond_broadcast(&e->work);
    pthread_mutex_unlock(&e->mu);
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
static cuzk_status job_new(job **out, const cuzk__key_shape *shape, const cuzk_witness_input *in,
                           size_t n, cuzk_priority prio, const char *request_id, cuzk_error *err) {
    job *j = calloc(1, sizeof(*j));
    const size_t np = (size_t)shape->n_public;
    if (j == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a job");
    j->n = n;
    j->prio = prio;
    j->in = calloc(n, sizeof(*j->in));
    j->proving = calloc(n, 1);
    j->proofs = calloc(n, sizeof(*j->proofs));
    j->pub = malloc(n * np * 32 + 1);
    j->times = calloc(n, sizeof(*j->times));
    int ok = j->in != NULL && j->proving != NULL && j->proofs != NULL && j->pub != NULL &&
             j->times != NULL;
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
            j->held_bytes += in[i].n_values * 32;
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
    if (key == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_submit: NULL argument or no partition");
    const cuzk__key_shape shape = cuzk__shape_of(key);
    return cuzk__engine_submit(e, job_id, key, NULL, &shape, witnesses, n, priority, request_id,
                               timeout_ms, err);
}

/* Admission order (cuzk__admit_waiter): higher priority, then earlier. */
static void waiter_insert(cuzk_engine *e, cuzk__admit_waiter *w) {
    cuzk__admit_waiter **p = &e->waiters;
    while (*p != NULL && ((*p)->prio > w->prio || ((*p)->prio == w->prio && (*p)->seq < w->seq)))
        p = &(*p)->next;
    w->next = *p;
    *p = w;
}

/* w leaves the line; the next in it may fit now. */
static void waiter_remove(cuzk_engine *e, cuzk__admit_waiter *w) {
    for (cuzk__admit_waiter **p = &e->waiters; *p != NULL; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    pthread_cond_broadcast(&e->changed);
}

/* A resubmission returns the job its request id made (1, with *st: OK, or
 * INVALID_ARG when that job has another key or partition count); 0 when no
 * job has the id. With the lock held. */
static int find_request(cuzk_engine *e, const char *request_id, const cuzk_key *key,
                        const cache_entry *ce, size_t n, uint64_t *job_id, cuzk_status *st,
                        cuzk_error *err) {
    /* (a named key's job keeps no key: key is NULL for both) */
    if (request_id == NULL) return 0;
    for (job *k = e->jobs; k != NULL; k = k->next)
        if (k->request_id != NULL && strcmp(k->request_id, request_id) == 0) {
            *st = k->key == key && k->ce == ce && k->n == n
                      ? CUZK_OK
                      : cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                   "request %s was submitted with another key or partition "
                                   "count",
                                   request_id);
            *job_id = k->id;
            return 1;
        }
    return 0;
}

cuzk_status cuzk__engine_submit(cuzk_engine *e, uint64_t *job_id, cuzk_key *key, cache_entry *ce,
                                const cuzk__key_shape *shape,
                                const cuzk_witness_input *witnesses, size_t n,
                                cuzk_priority priority, const char *request_id, int timeout_ms,
                                cuzk_error *err) {
    if (e == NULL || job_id == NULL || (key == NULL) == (ce == NULL) || witnesses == NULL || n == 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_submit: NULL argument or no partition");
    if (shape->ctx != e->ctx)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "engine_submit: the key belongs to another context than the engine");
    if (priority < CUZK_PRIORITY_LOW || priority > CUZK_PRIORITY_CRITICAL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_submit: priority %d: 0..3",
                          (int)priority);
    if (n > e->opt.max_queued_partitions)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "engine_submit: %zu partitions, the queue holds %zu", n,
                          e->opt.max_queued_partitions);
    if (shape->n_public != 0 && n > SIZE_MAX / 32 / shape->n_public)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_submit: %zu partitions: too many", n);
    /* the values' bytes first: a submission waiting for room holds no copy */
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (witnesses[i].path == NULL && witnesses[i].values != NULL) {
            if (witnesses[i].n_values > (UINT64_MAX - bytes) / 32)
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                  "engine_submit: partition %zu: %zu values: too many", i,
                                  witnesses[i].n_values);
            bytes += (uint64_t)witnesses[i].n_values * 32;
        }
    if (bytes > e->opt.host_memory_budget)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "engine_submit: the witness values take %llu bytes, the host memory "
                          "budget is %llu",
                          (unsigned long long)bytes,
                          (unsigned long long)e->opt.host_memory_budget);
    job *j = NULL;
    cuzk_status st;
    const struct timespec until = cuzk__deadline_in_ms(timeout_ms > 0 ? timeout_ms : 0);
    pthread_mutex_lock(&e->mu);
    cuzk__admit_waiter me = {priority, e->admit_seq++, NULL};
    waiter_insert(e, &me);
    for (;;) {
        if (find_request(e, request_id, key, ce, n, job_id, &st, err)) {
            waiter_remove(e, &me);
            pthread_mutex_unlock(&e->mu);
            return st;
        }
        const int room = e->heap_n + e->reserved_partitions + n <= e->opt.max_queued_partitions;
        const int memory = e->host_used + bytes <= e->opt.host_memory_budget;
        const int first = e->waiters == &me;
        if (room && memory && first) break;
        if (e->stop || timeout_ms == 0 || !wait_changed(e, timeout_ms, &until)) {
            st = !room     ? cuzk__fail(err, CUZK_ERR_BUSY,
                                        "engine_submit: no room for %zu partitions (%zu of %zu "
                                        "queued)",
                                        n, e->heap_n + e->reserved_partitions,
                                        e->opt.max_queued_partitions)
                 : !memory ? cuzk__fail(err, CUZK_ERR_BUSY,
                                        "engine_submit: %llu bytes of witness values would pass "
                                        "the host memory budget (%llu of %llu bytes held)",
                                        (unsigned long long)bytes,
                                        (unsigned long long)e->host_used,
                                        (unsigned long long)e->opt.host_memory_budget)
                           : cuzk__fail(err, CUZK_ERR_BUSY,
                                        "engine_submit: submissions of higher priority or "
                                        "older wait for room ahead of this one");
            waiter_remove(e, &me);
            pthread_mutex_unlock(&e->mu);
            return st;
        }
    }
    waiter_remove(e, &me);
    /* room and bytes held while the values are copied, outside the lock */
    e->host_used += bytes;
    e->reserved_partitions += n;
    pthread_mutex_unlock(&e->mu);
    st = job_new(&j, shape, witnesses, n, priority, request_id, err);
    pthread_mutex_lock(&e->mu);
    e->reserved_partitions -= n;
    int existed = 0;
    if (st == CUZK_OK) /* the same request admitted meanwhile by another thread */
        existed = find_request(e, request_id, key, ce, n, job_id, &st, err);
    if (st != CUZK_OK || existed) {
        e->host_used -= bytes;
        pthread_cond_broadcast(&e->changed);
        pthread_mutex_unlock(&e->mu);
        job_free(j);
        return st;
    }
    if (key != NULL) {
        atomic_fetch_add(&key->refs, 1);
        j->key = key;
    }
    j->ce = ce;
    j->n_public = shape->n_public;
    j->n_vars = shape->n_vars;
    j->n_lanes = shape->n_lanes;
    j->id = e->next_id++;
    j->seq = e->next_seq++;
    j->next = e->jobs;
    j->submit_ms = cuzk__engine_now(e);
    e->jobs = j; /* its held_bytes, the bytes counted above, are in host_used */
    for (size_t i = 0; i < n; i++) cuzk__queue_push(e, (entry){j, i, SIZE_MAX, 0, 0});
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
        info->n_public = j->n_public;
        if (j->queued) { /* other jobs' partitions that go before this one's next */
            const entry *first = NULL;
            for (size_t i = 0; i < e->heap_n; i++)
                if (e->heap[i].j == j && (first == NULL || cuzk__entry_before(&e->heap[i], first)))
                    first = &e->heap[i];
            for (size_t i = 0; first != NULL && i < e->heap_n; i++)
                if (e->heap[i].j != j && cuzk__entry_before(&e->heap[i], first))
                    info->queued_ahead++;
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
    const struct timespec until = cuzk__deadline_in_ms(timeout_ms > 0 ? timeout_ms : 0);
    pthread_mutex_lock(&e->mu);
    job *j = find_job(e, job_id);
    /* ended, and no partition of it still being proved */
    while (j != NULL && !(cuzk__job_ended(j) && j->running == 0)) {
        const int woken = !e->stop && timeout_ms != 0 && wait_changed(e, timeout_ms, &until);
        j = find_job(e, job_id); /* another caller may have collected it meanwhile */
        if (!woken && j != NULL && !(cuzk__job_ended(j) && j->running == 0)) {
            const cuzk_status st =
                cuzk__fail(err, CUZK_ERR_TIMEOUT, "job %llu: still %s after %d ms",
                           (unsigned long long)job_id,
                           j->state == CUZK_JOB_QUEUED ? "queued" : "running", timeout_ms);
            pthread_mutex_unlock(&e->mu);
            return st;
        }
    }
    cuzk_status st;
    job *collected = j;
    if (j == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                        (unsigned long long)job_id);
    } else if (j->state == CUZK_JOB_DONE) {
        const size_t np = (size_t)j->n_public;
        if (proofs != NULL) memcpy(proofs, j->proofs, j->n * sizeof(*proofs));
        if (public_inputs != NULL) memcpy(public_inputs, j->pub, j->n * np * 32);
        if (times != NULL) memcpy(times, j->times, j->n * sizeof(*times));
        st = CUZK_OK;
        (void)forget_job(e, j);
    } else if (j->state == CUZK_JOB_FAILED) {
        if (err != NULL) *err = j->err;
        st = j->err.status;
        (void)forget_job(e, j);
    } else {
        st = cuzk__fail(err, CUZK_ERR_CANCELLED, "job %llu: cancelled",
                        (unsigned long long)job_id);
        (void)forget_job(e, j);
    }
    pthread_mutex_unlock(&e->mu);
    job_free(collected); /* outside the lock: a key may go with it */
    return st;
}

uint64_t cuzk_engine_wait_settled(cuzk_engine *e, uint64_t seen, int timeout_ms) {
    if (e == NULL) return seen;
    const struct timespec until = cuzk__deadline_in_ms(timeout_ms > 0 ? timeout_ms : 0);
    pthread_mutex_lock(&e->mu);
    while (e->settled <= seen && !e->stop && timeout_ms != 0 &&
           wait_changed(e, timeout_ms, &until)) {
    }
    const uint64_t settled = e->settled;
    pthread_mutex_unlock(&e->mu);
    return settled;
}

cuzk_status cuzk_engine_cancel(cuzk_engine *e, uint64_t job_id, cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_cancel: NULL engine");
    pthread_mutex_lock(&e->mu);
    job *j = find_job(e, job_id);
    if (j != NULL && !cuzk__job_ended(j)) cuzk__job_end(e, j, CUZK_JOB_CANCELLED);
    pthread_mutex_unlock(&e->mu);
    return j != NULL ? CUZK_OK
                     : cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                                  (unsigned long long)job_id);
}
