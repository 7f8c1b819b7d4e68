/*
 * daemon.h — the daemon's jobs: the job store (jobstore.h: SQLite, or a
 * PostgreSQL queue shared with other daemons) and the engine bound
 * together, what the HTTP API (http.h) calls.
 *
 * A submission is committed to the store before it is acknowledged; the
 * daemon then works as every daemon of a cluster does, alone or not: a
 * claimer thread claims partitions of the keys it serves, about as many as
 * its engine's workers can start soon (twice the workers: one proving and
 * one waiting each), copies a payload witness to local disk when needed,
 * and queues each partition in the engine as a job of its own; a finisher
 * thread records each partition's proof (or its failure) as the engine
 * settles it, the record of a job's last proof making the job done. With
 * PostgreSQL, a heartbeat thread renews the leases of what the daemon holds
 * (stopping partitions whose job ended or whose lease another daemon took)
 * and puts back the partitions of daemons that died, and a listener thread
 * turns notifications into wake-ups (new work, ended jobs), with polling
 * every poll_ms as the fallback. A result that comes after its lease passed
 * to another daemon is discarded (fenced), logged and counted.
 *
 * At start a SQLite store's unfinished jobs are proved again from their
 * first partition without a proof (the proofs recorded are kept); jobs of
 * keys no longer configured fail. Draining stops intake and claims, gives
 * back what is claimed but unstarted, lets the partitions being proved
 * finish, records them and leaves the cluster; what is still queued stays
 * in the store for the next start, or for the other daemons.
 *
 * Job ids are the store's. Every call may come from any thread.
 */
#ifndef CUZK_SERVICE_DAEMON_H
#define CUZK_SERVICE_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "service/config.h"
#include "service/jobstore.h"
#include "service/store.h"

typedef struct cuzk__daemon cuzk__daemon;

/* The proofs' format: a snarkjs .zkey key, or a circuit with bellman .params. */
typedef enum { CUZK__FORMAT_SNARKJS = 1, CUZK__FORMAT_BELLMAN = 2 } cuzk__proof_format;

/*
 * Creates the context and engine from cfg (checked), names cfg's keys,
 * opens the job store cfg names (sweeping a SQLite spool; registering in a
 * PostgreSQL cluster), fails a SQLite store's jobs of keys not configured,
 * and starts the work side. cfg is copied where needed and may be freed
 * after. log (may be NULL) receives one line per event worth an operator's
 * eye (failures, discarded results, reaped leases, expiry).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_start(cuzk__daemon **out,
                                                       const cuzk__daemon_config *cfg,
                                                       void (*log)(void *user, const char *line),
                                                       void *log_user, cuzk_error *err);

/*
 * Stops intake (submissions then fail with CUZK_ERR_BUSY "draining") and
 * claims, gives back the partitions claimed but not started, waits for
 * those being proved to finish and their results to be recorded, and
 * leaves the cluster. Idempotent. Queued work stays in the store.
 */
void cuzk__daemon_drain(cuzk__daemon *d);

/* Refuses submissions from now on, as a drain does, and returns at once
 * (the signal thread, the moment SIGTERM arrives); the drain follows. */
void cuzk__daemon_close_intake(cuzk__daemon *d);

/* Drains (if not yet), closes the store, destroys the engine and context. */
void cuzk__daemon_stop(cuzk__daemon *d);

int cuzk__daemon_draining(cuzk__daemon *d);

/* ---- jobs ------------------------------------------------------------------ */

/* A job as the API shows it: the store's record, its partitions proved,
 * being proved (by any daemon) and waiting before its next one. */
typedef struct {
    cuzk__store_job_info rec;
    size_t partitions_done, partitions_running, queue_position;
} cuzk__daemon_job;

/* A submission: witnesses as the store takes them (spool names or server
 * paths); the spool files become the job's on success with *existed 0. */
typedef struct {
    const char *key_name;
    const char *request_id; /* NULL: none */
    cuzk_priority priority;
    const cuzk__store_witness *witnesses;
    size_t n;
} cuzk__daemon_submission;

/*
 * Checks the witnesses against the key (their headers: a witness of
 * another circuit or a truncated one is refused now, CUZK_ERR_INVALID_ARG),
 * then commits the job to the store, trying for up to wait_ms while its
 * queue would pass max_queued_partitions with this job (CUZK_ERR_BUSY
 * then; a job larger than the bound is CUZK_ERR_INVALID_ARG; the store
 * checks the bound in the transaction that inserts): *job the job, *existed 1 when its request id named a job already
 * there. CUZK_ERR_NOT_FOUND for an unknown key, CUZK_ERR_BUSY when
 * draining, CUZK_ERR_INVALID_ARG as the store refuses.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_submit(cuzk__daemon *d,
                                                        const cuzk__daemon_submission *sub,
                                                        int wait_ms, cuzk__daemon_job *job,
                                                        int *existed, cuzk_error *err);

/* The job now (CUZK_ERR_NOT_FOUND for an unknown or collected id). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_get(cuzk__daemon *d, uint64_t id,
                                                         cuzk__daemon_job *job, cuzk_error *err);

/* Waits up to timeout_ms for the job to end, then returns it as it is (a
 * job that ended through another daemon is seen by its notification, or
 * within poll_ms). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_await(cuzk__daemon *d, uint64_t id,
                                                           int timeout_ms, cuzk__daemon_job *job,
                                                           cuzk_error *err);

/* Cancels a job that has not ended; returns it as it is afterwards. The
 * partitions this daemon proves stop now; other daemons' at their next
 * heartbeat. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_cancel(cuzk__daemon *d, uint64_t id,
                                                            cuzk__daemon_job *job,
                                                            cuzk_error *err);

/* Forgets a job (cancelling it first if it has not ended). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_collect(cuzk__daemon *d, uint64_t id,
                                                             cuzk_error *err);

/* A done job's results (cuzk__store_results) and its key's format. */
typedef struct {
    cuzk__proof_format format;
    size_t n;          /* partitions */
    cuzk_proof *proofs; /* n */
    uint8_t *public_inputs; /* n x n_public x 32 bytes (NULL when none) */
    size_t n_public;
} cuzk__daemon_result;

CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_result(cuzk__daemon *d, uint64_t id,
                                                            cuzk__daemon_result *res,
                                                            cuzk_error *err);
void cuzk__daemon_result_free(cuzk__daemon_result *res);

/* Jobs as cuzk__store_list lists them, with their partitions' counts
 * (queue_position 0: only cuzk__daemon_job_get computes it). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_list(cuzk__daemon *d, unsigned state_mask,
                                                          uint64_t after_id, size_t limit,
                                                          cuzk__daemon_job **jobs, size_t *n,
                                                          cuzk_error *err);

/* ---- keys and the rest ------------------------------------------------------ */

typedef struct {
    char name[CUZK__CONF_KEY_NAME_MAX + 1];
    cuzk__proof_format format;
    cuzk_engine_key_info info;
    size_t queued_partitions, running_partitions; /* of those this daemon holds */
} cuzk__daemon_key_status;

/* Every key (*keys malloc'd, *n of them, in the order they were named). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_keys(cuzk__daemon *d,
                                                      cuzk__daemon_key_status **keys, size_t *n,
                                                      cuzk_error *err);
/* One key (CUZK_ERR_NOT_FOUND for an unknown name). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_key_get(cuzk__daemon *d, const char *name,
                                                     cuzk__daemon_key_status *key,
                                                     cuzk_error *err);
/* Names a key from its files (a name as the config's sections take). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_key_add(cuzk__daemon *d, const char *name,
                                                         const cuzk_key_source *src,
                                                         cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_key_preload(cuzk__daemon *d, const char *name,
                                                             cuzk_key_tier tier, cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_key_evict(cuzk__daemon *d, const char *name,
                                                           cuzk_error *err);

/* Unix ms when the daemon started; its job store; its engine; its
 * configuration; jobs per state in the store. */
int64_t cuzk__daemon_started_ms(cuzk__daemon *d);
cuzk__jobstore *cuzk__daemon_jobstore(cuzk__daemon *d);
/* Counts an HTTP request answered, and reads the count. */
void cuzk__daemon_count_request(cuzk__daemon *d);
uint64_t cuzk__daemon_requests(cuzk__daemon *d);
cuzk_engine *cuzk__daemon_engine(cuzk__daemon *d);
const cuzk__daemon_config *cuzk__daemon_config_of(cuzk__daemon *d);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_counts(cuzk__daemon *d, uint64_t counts[5],
                                                            cuzk_error *err);

/* ---- the work side and the cluster --------------------------------------------- */

typedef struct {
    uint64_t claimed;      /* partitions claimed */
    uint64_t recorded;     /* proofs recorded */
    uint64_t failed;       /* partitions that failed their job */
    uint64_t fenced;       /* results discarded: the lease had passed to another daemon */
    uint64_t lost;         /* partitions stopped: the heartbeat found their lease taken */
    uint64_t ended;        /* partitions stopped, or results dropped: their job had ended */
    uint64_t released;     /* given back unproved (a drain, a witness that could not be read) */
    uint64_t requeued;     /* other daemons' partitions this one's reaper put back */
    uint64_t store_errors; /* store calls of the work side that failed (and were retried) */
    uint64_t reconnects;   /* PostgreSQL connections made again */
    size_t held;           /* partitions held now */
    size_t fetching;       /* ... of them, those whose uploaded witness is being copied here */
    size_t cost_samples;   /* the store's time per partition (claim, renewals, result): */
    double cost_median_ms, cost_p99_ms; /* ... over the last samples */
} cuzk__daemon_work_stats;

void cuzk__daemon_work_stats_get(cuzk__daemon *d, cuzk__daemon_work_stats *s);

/* This daemon's name in the cluster. */
const char *cuzk__daemon_name(cuzk__daemon *d);

/*
 * The engine's timeline events ending after since_ms, the newest cap of
 * them, oldest first, with job ids and partitions translated to the store's (events of
 * partitions the daemon no longer remembers get job 0). Returns how many.
 */
size_t cuzk__daemon_timeline(cuzk__daemon *d, double since_ms, cuzk_timeline_event *out,
                             size_t cap);

#endif /* CUZK_SERVICE_DAEMON_H */
