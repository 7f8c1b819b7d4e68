/*
 * engine_impl.h — the engine's objects, shared by the files of src/engine
 * (not installed): jobs, the ordered queue (queue.c), the workers
 * (worker.c) and the public calls (engine.c).
 *
 * One mutex (mu) guards everything here; witnesses load and proofs run
 * outside it. Two condition variables: `work` wakes workers (a partition
 * queued, resume, a lane back in service, stop), `changed` wakes
 * submitters waiting for room and awaiters waiting for a job to end.
 */
#ifndef CUZK_ENGINE_ENGINE_IMPL_H
#define CUZK_ENGINE_ENGINE_IMPL_H

#include <pthread.h>
#include <stdint.h>

#include "api/api.h"
#include "engine/timeline.h"
#include "util/fault.h"

/* A named key (key_cache.c). mu guards every field; the key opens and
 * prepares outside it (loading set meanwhile). */
typedef struct cache_entry {
    char *name;
    char *zkey, *r1cs, *circuit, *params; /* copies of the source's paths */
    cuzk_key *key; /* the cache's reference while WARM or HOT; NULL: COLD */
    cuzk_key_tier tier;
    int loading;   /* a thread is opening or preparing it */
    uint64_t bytes;
    size_t running; /* partitions being proved with it */
    uint64_t loads, evictions;
    double last_used_ms;
    struct cache_entry *next;
} cache_entry;

typedef struct job {
    uint64_t id, seq;
    cuzk_priority prio;
    cuzk_key *key;     /* a reference, dropped when the job is forgotten; NULL for a named key */
    cache_entry *ce;   /* the named key's entry (entries live as long as the engine) */
    uint64_t n_public, n_vars; /* the key's, learned at submission */
    size_t n_lanes;
    size_t n;
    cuzk_witness_input *in; /* deep copies */
    uint8_t *proving;       /* per partition: 1 while a worker reads or proves it */
    cuzk_proof *proofs;
    uint8_t *pub;
    cuzk_proof_times *times;
    size_t done, running, queued;
    cuzk_job_state state;
    cuzk_error err;
    uint64_t finish_seq;
    char *request_id;
    uint64_t held_bytes; /* charged to the host budget: the witness values copied */
    double submit_ms;    /* the engine's clock */
    struct job *next;
} job;

/* A queued partition. avoid: the lane slot that faulted on it (SIZE_MAX:
 * none); attempt: 0 first, 1.. retries after faults; requeued: back after
 * a fault or a plan's step down (its queue wait is on the timeline once). */
typedef struct {
    job *j;
    size_t part;
    size_t avoid;
    unsigned attempt;
    int requeued;
} entry;

/* A lane slot: lane s of every key (a GPU listed, or a CPU lane) and the
 * workers that prove there. A slot retires after a device fault: its
 * workers take nothing until the partitions in flight there have ended and
 * the faulting keys' lanes have been reset. */
typedef struct {
    size_t busy;     /* partitions being proved on it */
    size_t retiring; /* pending resets that involve it: it takes nothing */
} slot;

/* A lane to reset after a fault on it: lane `lane` of key, which slots
 * s with s % key->n_lanes == lane share. It runs once they are all idle.
 * step: its device memory ran out, so it steps down a memory plan. */
typedef struct {
    cuzk_key *key; /* a reference */
    size_t lane;
    int running;
    int step;
} reset_req;

struct cuzk_engine {
    cuzk_context *ctx;
    cuzk_engine_options opt;
    pthread_mutex_t mu;
    pthread_cond_t work, changed;
    entry *heap; /* queue.c */
    size_t heap_n;
    entry *retry; /* partitions to prove again after a fault, oldest first */
    size_t retry_n;
    job *jobs; /* every known job */
    uint64_t next_id, next_seq, finish_seq;
    uint64_t settled; /* jobs ended with no partition still being proved */
    int paused, stop;
    size_t n_workers, n_slots;
    pthread_t *workers;
    slot *slots;
    reset_req *resets; /* at most n_workers pending (one per fault in flight) */
    size_t n_resets;
    uint64_t host_used; /* bytes charged to opt.host_memory_budget */
    size_t reserved_partitions; /* queue room held by submissions copying their values */
    struct cuzk__admit_waiter *waiters; /* submissions waiting for room, in admission order */
    uint64_t admit_seq;
    cuzk_engine_stats stats;
    cuzk__timeline *timeline;
    int armed_fault; /* this engine armed its context's fault slot */
    double t0_ms; /* the engine's clock starts here */
    pthread_mutex_t hist_mu; /* the histograms (events are recorded outside mu) */
    cuzk_stage_histogram hist[CUZK_STAGE_COUNT];
    cache_entry *keys; /* the named keys */
    uint64_t cache_used; /* bytes of the named keys open */
    /* Tests: called by a worker once a partition's witness has loaded,
     * before its proof starts (set before the first submission; NULL: none). */
    void (*loaded_hook)(void *user);
    void *loaded_hook_user;
};

/* ---- queue.c: the ordered queue (called with mu held) ---- */

/* a before b: higher priority, then older job, then lower partition */
int cuzk__entry_before(const entry *a, const entry *b);
void cuzk__queue_push(cuzk_engine *e, entry en);
/* The next partition to prove: the heap's head, unless its named key is
 * closed and partitions of the same priority with open keys wait (then the
 * first of those), for up to opt.batch_wait_ms after the head's job was
 * submitted. The heap must not be empty. */
entry cuzk__queue_take(cuzk_engine *e, double now_ms);
entry cuzk__queue_pop(cuzk_engine *e);
/* Drops every queued partition of j (the retry list's too). */
void cuzk__queue_remove_job(cuzk_engine *e, job *j);

/* ---- engine.c ---- */

/* Ends j (DONE, FAILED or CANCELLED) and wakes whoever waits on it. */
void cuzk__job_end(cuzk_engine *e, job *j, cuzk_job_state state);
/* Frees an ended job's witness values that no worker reads (those of the
 * partitions not being proved), and every copy once none runs, giving
 * their bytes back to the budget. */
void cuzk__job_drop_inputs(cuzk_engine *e, job *j);
static inline int cuzk__job_ended(const job *j) { return j->state >= CUZK_JOB_DONE; }
/* Milliseconds on the engine's clock. */
double cuzk__engine_now(const cuzk_engine *e);
/* Counts one stage's duration in its histogram. */
void cuzk__engine_count_stage(cuzk_engine *e, cuzk_stage stage, double ms);

/* A submission waiting for room in the queue and the budget: admitted in
 * order of priority, then arrival (one that fits never overtakes one that
 * waits ahead of it, which could then wait forever). */
typedef struct cuzk__admit_waiter {
    cuzk_priority prio;
    uint64_t seq;
    struct cuzk__admit_waiter *next;
} cuzk__admit_waiter;

/* What a job needs of its key's shape. */
typedef struct {
    const cuzk_context *ctx;
    uint64_t n_public, n_vars;
    size_t n_lanes;
} cuzk__key_shape;
static inline cuzk__key_shape cuzk__shape_of(const cuzk_key *k) {
    return (cuzk__key_shape){k->ctx, k->n_public, k->n_vars, k->n_lanes};
}

/* Queues a job of partitions of key (a reference taken), or of the named
 * key ce (key NULL: the job names it, and may wait for room without keeping
 * it open); shape: the key's. */
cuzk_status cuzk__engine_submit(cuzk_engine *e, uint64_t *job_id, cuzk_key *key, cache_entry *ce,
                                const cuzk__key_shape *shape,
                                const cuzk_witness_input *witnesses, size_t n,
                                cuzk_priority priority, const char *request_id, int timeout_ms,
                                cuzk_error *err);

/* ---- key_cache.c (called with mu held; may drop it while opening) ---- */

/* A reference to the key a partition of j proves with (*out, to drop with
 * cuzk__key_unref): the job's own, or its named key's, opened again if it
 * was evicted. */
cuzk_status cuzk__cache_acquire(cuzk_engine *e, job *j, cuzk_key **out, cuzk_error *err);
/* A partition of j ended (named keys: no longer running, last use now;
 * proved: it proved, so its lane is prepared: the key is HOT). */
void cuzk__cache_release(cuzk_engine *e, job *j, int proved);
/* A lane of key was reset or stepped down: a named key's tier goes back to
 * WARM (prepared again by its next proof). */
void cuzk__cache_unprepared(cuzk_engine *e, const cuzk_key *key);
/* Frees the entries (engine destroy). */
void cuzk__cache_free(cuzk_engine *e);

/* ---- worker.c ---- */

typedef struct {
    cuzk_engine *e;
    size_t index;
} cuzk__worker_arg;

void *cuzk__worker_main(void *arg);

#endif /* CUZK_ENGINE_ENGINE_IMPL_H */
