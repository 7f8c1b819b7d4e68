/*
 * daemon.h — the daemon's jobs: the durable store and the engine bound
 * together, what the HTTP API (http.h) calls.
 *
 * A submission is committed to the store before it is queued in the engine
 * and acknowledged; a finisher thread records each job's end (results or
 * error) in the store as the engine settles it, and wakes those awaiting
 * it. At start the store's unfinished jobs are queued again (a RUNNING job
 * starts over: partial results are not kept). Draining stops intake,
 * lets the partitions being proved finish and records what ended; what is
 * still queued stays queued in the store for the next start.
 *
 * Job ids are the store's. Every call may come from any thread.
 */
#ifndef CUZK_SERVICE_DAEMON_H
#define CUZK_SERVICE_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "service/config.h"
#include "service/store.h"

typedef struct cuzk__daemon cuzk__daemon;

/* The proofs' format: a snarkjs .zkey key, or a circuit with bellman .params. */
typedef enum { CUZK__FORMAT_SNARKJS = 1, CUZK__FORMAT_BELLMAN = 2 } cuzk__proof_format;

/*
 * Opens the store (sweeping its spool), creates the context and engine from
 * cfg (checked), names cfg's keys, queues the store's unfinished jobs again
 * and starts the finisher. cfg is copied where needed and may be freed
 * after. log (may be NULL) receives one line per event worth an operator's
 * eye (recovery, failures, expiry).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_start(cuzk__daemon **out,
                                                       const cuzk__daemon_config *cfg,
                                                       void (*log)(void *user, const char *line),
                                                       void *log_user, cuzk_error *err);

/*
 * Stops intake (submissions then fail with CUZK_ERR_BUSY "draining"), waits
 * for the partitions being proved to finish and their jobs' ends to be
 * recorded, and stops the finisher. Idempotent. Queued work stays in the
 * store.
 */
void cuzk__daemon_drain(cuzk__daemon *d);

/* Drains (if not yet), destroys the engine and context, closes the store. */
void cuzk__daemon_stop(cuzk__daemon *d);

int cuzk__daemon_draining(cuzk__daemon *d);

/* ---- jobs ------------------------------------------------------------------ */

/* A job as the API shows it: the store's record with the engine's live counts. */
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
 * Commits the job to the store and queues it: *job the job, *existed 1 when
 * its request id named a job already there (then nothing was queued).
 * CUZK_ERR_NOT_FOUND for an unknown key, CUZK_ERR_BUSY when draining or the
 * queue stayed full for wait_ms, CUZK_ERR_INVALID_ARG as the store refuses.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_submit(cuzk__daemon *d,
                                                        const cuzk__daemon_submission *sub,
                                                        int wait_ms, cuzk__daemon_job *job,
                                                        int *existed, cuzk_error *err);

/* The job now (CUZK_ERR_NOT_FOUND for an unknown or collected id). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_get(cuzk__daemon *d, uint64_t id,
                                                         cuzk__daemon_job *job, cuzk_error *err);

/* Waits up to timeout_ms for the job to end, then returns it as it is. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_await(cuzk__daemon *d, uint64_t id,
                                                           int timeout_ms, cuzk__daemon_job *job,
                                                           cuzk_error *err);

/* Cancels a job that has not ended; returns it as it is afterwards. */
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

/* Jobs as cuzk__store_list lists them, with the engine's live counts. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_list(cuzk__daemon *d, unsigned state_mask,
                                                          uint64_t after_id, size_t limit,
                                                          cuzk__daemon_job **jobs, size_t *n,
                                                          cuzk_error *err);

/* ---- keys and the rest ------------------------------------------------------ */

typedef struct {
    char name[CUZK__CONF_KEY_NAME_MAX + 1];
    cuzk__proof_format format;
    cuzk_engine_key_info info;
    size_t queued_partitions, running_partitions; /* of the daemon's active jobs */
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

/* Unix ms when the daemon started; its engine; its configuration; jobs
 * per state in the store. */
int64_t cuzk__daemon_started_ms(cuzk__daemon *d);
cuzk__store *cuzk__daemon_store(cuzk__daemon *d);
/* Counts an HTTP request answered, and reads the count. */
void cuzk__daemon_count_request(cuzk__daemon *d);
uint64_t cuzk__daemon_requests(cuzk__daemon *d);
cuzk_engine *cuzk__daemon_engine(cuzk__daemon *d);
const cuzk__daemon_config *cuzk__daemon_config_of(cuzk__daemon *d);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_job_counts(cuzk__daemon *d, uint64_t counts[5],
                                                            cuzk_error *err);

/*
 * The engine's timeline events ending after since_ms, the newest cap of
 * them, oldest first, with job ids translated to the store's (events of jobs the daemon
 * no longer follows keep id 0). Returns how many.
 */
size_t cuzk__daemon_timeline(cuzk__daemon *d, double since_ms, cuzk_timeline_event *out,
                             size_t cap);

#endif /* CUZK_SERVICE_DAEMON_H */
