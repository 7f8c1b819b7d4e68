/*
 * daemon_impl.h — the daemon's state, shared by daemon.c (start, stop, the
 * API's calls, keys), daemon_work.c (the work side: claims, the engine,
 * results, heartbeats, notifications, the drain) and daemon_fetch.c (the
 * copies of uploaded witnesses). Only those include it.
 */
#ifndef CUZK_SERVICE_DAEMON_IMPL_H
#define CUZK_SERVICE_DAEMON_IMPL_H

#include <pthread.h>

#include "service/daemon.h"
#include "service/jobstore.h"

/* Engine job ids remembered for the timeline (a ring). */
#define CUZK__DAEMON_ID_RING 65536
/* Samples of the queue's cost per partition kept (a ring). */
#define CUZK__DAEMON_COST_RING 4096
/* Threads copying uploaded witnesses into the scratch folder (a shared
 * store), and so partitions held beyond twice the workers while their
 * witness is copied. */
#define CUZK__DAEMON_FETCHERS_MAX 16 /* [cluster] fetchers: 1..16 */

/* A partition this daemon claimed, from its claim until its end is
 * recorded (or given back). Until it is in the engine (engine_id 0) it
 * belongs to the thread bringing it there (the claimer, or a fetcher
 * while its witness is copied): others only mark it dropped or given
 * back, and that thread lets it go. */
typedef struct {
    cuzk__jobstore_part part;
    uint64_t seq;        /* this daemon's name for it, from its claim */
    int fetching;        /* its witness is a payload being copied (or waiting for a fetcher) */
    int fetch_started;   /* a fetcher took it */
    uint64_t fetch_bytes; /* its payload's bytes, counted in d->fetch_bytes until it goes */
    uint64_t engine_id;  /* its one-partition job in the engine (0: not there yet) */
    int started;         /* the engine began proving it */
    int dropped;         /* lease lost or job ended: engine job cancelled, nothing to record */
    int given_back;      /* released unstarted at a drain: engine job cancelled */
    int pending;         /* proved; recording the result failed: tried again at retry_ms */
    int64_t retry_ms;
    unsigned tries;
    cuzk_proof proof;    /* when pending */
    uint8_t *pub;
    size_t pub_bytes;
    double cost_ms;      /* the store's time for it so far: its share of claims and renewals */
} cuzk__held;

typedef struct {
    char name[CUZK__CONF_KEY_NAME_MAX + 1];
    cuzk__proof_format format;
} cuzk__daemon_key_entry;

struct cuzk__daemon {
    cuzk__daemon_config cfg; /* keys not copied (cfg.keys NULL) */
    cuzk__jobstore *js;
    cuzk_context *ctx;
    cuzk_engine *engine;
    int64_t started_ms;
    char name[CUZK__CONF_NAME_MAX + 1]; /* in the cluster */
    unsigned heartbeat_ms;
    void (*log)(void *, const char *);
    void *log_user;

    pthread_mutex_t mu;    /* everything below */
    pthread_cond_t ended;  /* a job's end was seen (ended_gen moved) */
    pthread_cond_t wake;   /* the claimer has something to look at (wake_gen moved) */
    pthread_cond_t beat;   /* the heartbeat thread is to stop */
    pthread_cond_t fetch;  /* the fetchers have something to look at */
    uint64_t ended_gen, wake_gen;
    cuzk__held *held;
    size_t n_held, cap_held;
    uint64_t next_seq;
    uint64_t fetch_bytes;  /* payload bytes fetched or being fetched, of held partitions */
    uint64_t fetch_budget; /* ... at most (one payload alone may pass it): the engine's host budget */
    cuzk__daemon_key_entry *keys;
    size_t n_keys, cap_keys;
    struct {
        uint64_t engine_id, job_id;
        uint32_t index;
    } ids[CUZK__DAEMON_ID_RING];
    int draining, closing;
    int intake_closed; /* cuzk__daemon_close_intake: submissions refused, nothing else yet */
    int stop_claimer, stop_finisher, stop_side; /* side: heartbeat and listener */
    int stop_fetchers;
    int claimer_started, finisher_started, heartbeat_started, listener_started;
    size_t fetchers_started;
    cuzk__daemon_work_stats stats;
    double cost[CUZK__DAEMON_COST_RING];
    uint64_t n_cost;
    uint64_t requests; /* HTTP requests answered (atomic) */
    pthread_t claimer, finisher, heartbeat, listener;
    pthread_t fetchers[CUZK__DAEMON_FETCHERS_MAX];
};

void cuzk__daemon_logf(cuzk__daemon *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Wakes those awaiting a job's end / the claimer (mu not held). */
void cuzk__daemon_signal_ended(cuzk__daemon *d);
void cuzk__daemon_wake_claimer(cuzk__daemon *d);

/* daemon_work.c: starts the work side's threads; stops them as a drain
 * says (what is claimed but unstarted is given back, what runs finishes
 * and is recorded, then the daemon leaves the cluster). */
cuzk_status cuzk__daemon_work_start(cuzk__daemon *d, cuzk_error *err);
void cuzk__daemon_work_drain(cuzk__daemon *d);

/* The engine ids of the partitions held of job id (for a cancel): marks
 * them dropped and cancels them in the engine. */
void cuzk__daemon_work_drop_job(cuzk__daemon *d, uint64_t job_id);

/* The held partitions (d->mu held): the one named seq (NULL: gone), and
 * one taken out (its payload's bytes no longer counted). */
cuzk__held *cuzk__daemon_held_seq(cuzk__daemon *d, uint64_t seq);
void cuzk__daemon_held_remove(cuzk__daemon *d, cuzk__held *h);

/* A claim let go unproved (mu not held): its copy removed, the partition
 * given back to the queue and the reason logged; or, for one dropped
 * (its job ended, its lease lost), the claim only forgotten. */
void cuzk__daemon_give_back(cuzk__daemon *d, cuzk__jobstore_part *p, const char *why);
void cuzk__daemon_forget_claim(cuzk__daemon *d, cuzk__jobstore_part *p);

/* Puts held partition seq, its witness now a file here, in the engine
 * (mu not held; called by the thread it belongs to). */
void cuzk__daemon_work_enqueue(cuzk__daemon *d, uint64_t seq);

/* daemon_fetch.c: the fetchers (a shared store). _start starts them;
 * _stop, once nothing is held, stops them. */
cuzk_status cuzk__daemon_fetch_start(cuzk__daemon *d, cuzk_error *err);
void cuzk__daemon_fetch_stop(cuzk__daemon *d);

#endif /* CUZK_SERVICE_DAEMON_IMPL_H */
