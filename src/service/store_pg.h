/*
 * store_pg.h — the job queue that daemons on many machines share: jobs,
 * their partitions, results and witness payloads in one PostgreSQL
 * database (libpq). Any number of daemons, on any number of machines,
 * submit to it, claim partitions from it and record proofs in it; the
 * database's own locks and transactions are the only coordination.
 *
 * The schema lives in the PostgreSQL schema "cuzk" (so it can share a
 * database, Curio's HarmonyDB for one, with other programs' tables):
 *   schema_version(version, applied_at)
 *   daemons(id, name, started_at, heartbeat_at, info, keys)
 *   jobs(id bigserial, request_id UNIQUE, key_name, priority,
 *        n_partitions, state, created_at, updated_at, finished_at,
 *        error_status, error)
 *   partitions(job_id, idx, state, owner, lease_expires, generation,
 *              witness_id, witness_path, proof, public_inputs)
 *   witnesses(id, job_id, bytes, chunk_bytes, complete, touched_at)
 *   witness_chunks(witness_id, seq, data)
 * (doc/formats.md has every column.) A job's stored state is queued, done,
 * failed or cancelled; "running" is derived: a queued job with a partition
 * claimed or done. A partition is queued, claimed (under a lease), done
 * (its proof recorded) or dropped (its job ended first).
 *
 * Migrations. cuzk__store_pg_open brings the schema to this build's
 * version in one transaction that holds a transaction-level advisory lock
 * (pg_advisory_xact_lock(CUZK__PG_MIGRATION_LOCK)), so daemons that start at
 * once apply each migration exactly once: the first takes the lock and
 * migrates, the others wait for its commit and find nothing to do. A
 * database at a newer version than this build's is refused.
 *
 * Leases and fencing. A daemon registers (cuzk__store_pg_register: its
 * owner id) and claims queued partitions of the keys it serves
 * (cuzk__store_pg_claim: SELECT ... FOR UPDATE SKIP LOCKED, by priority,
 * then job age, then partition index), each under a lease: its owner id,
 * an expiry (the database's now() plus the lease; every time is the
 * database's clock, so machines' clocks need not agree) and a generation,
 * one more than the partition's last. The owner extends its leases with
 * cuzk__store_pg_renew (its heartbeat). Any daemon may run
 * cuzk__store_pg_reap, which puts partitions whose lease expired back in
 * the queue with their generation raised, so another daemon claims them.
 * A result is recorded only under the lease that claimed it: complete
 * checks (owner, generation) under the job's row lock, so a late result of
 * a daemon presumed dead (paused, cut off) is discarded and reported
 * FENCED, and a partition's proof is written exactly once. The call that
 * records a job's last proof makes the job done in the same transaction.
 *
 * Ending a job. Failing or cancelling a job drops its queued partitions at
 * once; its claimed ones stay with their owners until they learn: renew
 * reports them ENDED, complete answers ENDED, and either drops them (the
 * reaper drops those whose lease expires first). Jobs and witnesses are
 * removed from the database when their job ends (witnesses) or is
 * collected or expired (jobs).
 *
 * Witness payloads are bytea rows, not large objects: a witness is a row
 * of witnesses and its bytes are fixed-size chunks (the last one shorter),
 * one row each in witness_chunks, stored uncompressed (STORAGE EXTERNAL:
 * witnesses are random field elements, compression only costs CPU). Why:
 *   - rows go with their job: ON DELETE CASCADE removes a job's witnesses
 *     in the transaction that ends it, while a large object outlives the
 *     row naming it unless every path calls lo_unlink (orphans need
 *     vacuumlo);
 *   - large objects have per-object owners and privileges, so daemons
 *     connecting as different roles would need grants per object; rows
 *     follow the tables' grants;
 *   - logical replication and row-level tooling carry rows but not large
 *     objects;
 *   - chunks stream both ways without holding a payload in memory: each
 *     chunk is one INSERT of one transaction, no value nears bytea's 1 GB
 *     limit, and a read of any byte range fetches only its chunks
 *     (substring() on an uncompressed value reads just the TOAST slices it
 *     needs).
 * An upload (cuzk__store_pg_witness_begin, _append, _commit) is written
 * before the job that references it is submitted, as the SQLite store's
 * spool files are; an upload that was never submitted (a crash) is left
 * for cuzk__store_pg_sweep_witnesses. A partition's witness may instead
 * be a path (a file on storage the daemons share); the store only records
 * it.
 *
 * Notifications. A job's end sends NOTIFY cuzk_job_end with "<id> <state>"
 * (done, failed, cancelled) and a submission NOTIFY cuzk_job_new with
 * "<id> <key name>", both from the transaction that made the change, so
 * they arrive only once it is committed. cuzk__store_pg_listen and
 * cuzk__store_pg_wait receive them; a wait after a reconnect first returns
 * a RESYNC event (notifications sent while the connection was down are
 * lost), after which the caller polls (cuzk__store_pg_get) what it waits
 * for. Polling remains the fallback: waiters poll at their timeout.
 *
 * Transactions, errors and reconnection. Every call is one transaction
 * (READ COMMITTED for changes, REPEATABLE READ READ ONLY for reads). A
 * call that loses its connection (server restart, network) reconnects,
 * retrying for up to reconnect_ms, and runs the call once more when the
 * connection was lost before its COMMIT was sent (the transaction was
 * then rolled back by the server) or when the call is a read or
 * idempotent (renew, reap, witness chunks); a call that lost the
 * connection after sending COMMIT fails with CUZK_ERR_IO saying the change
 * may or may not have been made (complete is safe to call again: a repeat
 * by the same lease answers RECORDED). Deadlocks and serialization
 * failures are retried up to three times. Errors: CUZK_ERR_IO naming the
 * call, the server (user@host:port/database, never the password) and the
 * step, with PostgreSQL's message and SQLSTATE; CUZK_ERR_INVALID_ARG for
 * arguments refused (the sentence says which); CUZK_ERR_NOT_FOUND for an
 * unknown job, witness or daemon; CUZK_ERR_UNSUPPORTED for a schema newer
 * than this build or a server older than PostgreSQL 10; CUZK_ERR_NOMEM.
 * On failure nothing was changed (the transaction rolled back), except
 * after the lost-commit case above.
 *
 * Threads. One handle is one connection behind one mutex that a call
 * holds for its whole transaction; any number of threads may share a
 * handle, and a daemon that wants claims not to wait behind a long read
 * opens more handles. cuzk__store_pg_wait holds its handle while it waits,
 * so a listener wants a handle of its own. A witness writer belongs to one
 * thread at a time.
 *
 * No parser here, hence no fuzz target: every value goes to the server as
 * a bound parameter (arrays as array literals whose elements are quoted),
 * never as SQL text, and the store reads only what it wrote.
 */
#ifndef CUZK_SERVICE_STORE_PG_H
#define CUZK_SERVICE_STORE_PG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "service/store.h" /* cuzk__store_job_info, CUZK__STORE_NAME_MAX */

typedef struct cuzk__store_pg cuzk__store_pg;

/* The schema version this build migrates to. */
#define CUZK__PG_SCHEMA_VERSION 3
/* The advisory lock key the migrations take ("czks"). */
#define CUZK__PG_MIGRATION_LOCK 0x637a6b73
/* The advisory lock key bounded submissions take ("czkq"). */
#define CUZK__PG_SUBMIT_LOCK 0x637a6b71
/* Witness chunk size: the default, and the bounds of the option. */
#define CUZK__PG_CHUNK_DEFAULT (4u << 20)
#define CUZK__PG_CHUNK_MIN 64u
#define CUZK__PG_CHUNK_MAX (64u << 20)
/* Keys one claim may name, partitions one claim may take. */
#define CUZK__PG_MAX_KEYS 1024
#define CUZK__PG_MAX_CLAIM 1024
/* Longest lease, ms (a day). */
#define CUZK__PG_MAX_LEASE_MS 86400000

typedef struct {
    uint32_t chunk_bytes;  /* witness chunk size, CUZK__PG_CHUNK_MIN..MAX; 0: the default */
    uint32_t reconnect_ms; /* how long a call tries to reconnect; 0: 5000 */
} cuzk__store_pg_options;

/*
 * Connects to conninfo (a libpq connection string or URI,
 * "postgres://user@host:port/db"), checks the server (PostgreSQL 10 or
 * later), and migrates the schema to CUZK__PG_SCHEMA_VERSION (see above).
 * *migrated (may be NULL): how many migrations this call applied (0 when
 * another process had already applied them). opts may be NULL. The first
 * connection is tried once (a wrong address fails at once).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_open(cuzk__store_pg **out,
                                                        const char *conninfo,
                                                        const cuzk__store_pg_options *opts,
                                                        int *migrated, cuzk_error *err);

/* Closes the connection. No call may be in progress or follow; writers
 * must have been committed or aborted. NULL is a no-op. */
void cuzk__store_pg_close(cuzk__store_pg *s);

/* "user@host:port/database" (no password): what messages name. */
const char *cuzk__store_pg_where(const cuzk__store_pg *s);

/* How many times this handle reconnected after losing its connection. */
uint64_t cuzk__store_pg_reconnects(cuzk__store_pg *s);

/* ---- daemons ---------------------------------------------------------------- */

/* A new daemon row (name: 1..CUZK__STORE_NAME_MAX bytes, need not be
 * unique): *daemon_id is the owner id its claims carry. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_register(cuzk__store_pg *s, const char *name,
                                                            uint64_t *daemon_id,
                                                            cuzk_error *err);

/* A daemon's clean exit: its claimed partitions go back to the queue
 * (generation raised; dropped for jobs that ended), then its row is
 * deleted. *released (may be NULL): how many partitions it held. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_leave(cuzk__store_pg *s, uint64_t daemon_id,
                                                         size_t *released, cuzk_error *err);

/* Longest description of a daemon, with its NUL. */
#define CUZK__PG_INFO_BYTES 512

/* Sets what a daemon is, as others see it in cuzk__store_pg_daemons (its
 * backend, devices, workers and keys, as one line of text shorter than
 * CUZK__PG_INFO_BYTES). CUZK_ERR_NOT_FOUND for a daemon not registered. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_describe(cuzk__store_pg *s, uint64_t daemon_id,
                                                            const char *info, cuzk_error *err);

/* Sets the keys a daemon claims (keys[0..nkeys), 0..CUZK__PG_MAX_KEYS
 * names; they replace those set before): a job's place in the queue
 * (cuzk__store_pg_ahead) counts the jobs of other keys only where one
 * daemon claims both. CUZK_ERR_NOT_FOUND for a daemon not registered. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_serve(cuzk__store_pg *s, uint64_t daemon_id,
                                                         const char *const *keys, size_t nkeys,
                                                         cuzk_error *err);

/* Removes the rows of daemons silent for longer than age_ms (the
 * database's clock) that hold no lease: daemons that died (a kill -9, a
 * lost machine) and whose partitions the reaper gave back. A daemon that
 * was only paused finds itself unregistered (CUZK_ERR_NOT_FOUND from
 * claim or renew) and registers again. *removed (may be NULL): how many. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_forget(cuzk__store_pg *s, int64_t age_ms,
                                                          size_t *removed, cuzk_error *err);

typedef struct {
    uint64_t id;
    char name[CUZK__STORE_NAME_MAX + 1];
    int64_t started_ms, heartbeat_ms; /* Unix ms, the database's clock */
    int64_t heartbeat_age_ms;         /* the database's now() minus heartbeat */
    size_t held;                      /* partitions it has claimed now */
    char info[CUZK__PG_INFO_BYTES];   /* cuzk__store_pg_describe's ("" before) */
} cuzk__store_pg_daemon;

/* Every registered daemon, by id: *v a malloc'd array of *n (NULL when
 * none; free it). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_daemons(cuzk__store_pg *s,
                                                           cuzk__store_pg_daemon **v, size_t *n,
                                                           cuzk_error *err);

/* ---- witness payloads --------------------------------------------------------- */

typedef struct cuzk__store_pg_writer cuzk__store_pg_writer;

/* A new witness payload (a row, committed, not yet complete); its bytes
 * go through *w. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_witness_begin(cuzk__store_pg *s,
                                                                 cuzk__store_pg_writer **w,
                                                                 cuzk_error *err);

/* Appends n bytes (any size, 0 included); every full chunk is written in
 * its own transaction. On failure w is still to be aborted. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_witness_append(cuzk__store_pg_writer *w,
                                                                  const void *p, size_t n,
                                                                  cuzk_error *err);

/* Writes the last chunk and marks the payload complete: *witness_id is
 * what a submission names. Frees w whatever the outcome (on failure the
 * row is removed, or left for the sweep when it cannot be). The caller
 * owns the payload until a submission naming it returns CUZK_OK with
 * *existed 0; until then it removes it (cuzk__store_pg_witness_remove)
 * when it does not submit it. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_witness_commit(cuzk__store_pg_writer *w,
                                                                  uint64_t *witness_id,
                                                                  cuzk_error *err);

/* Removes the payload written so far (best effort) and frees w. NULL is
 * a no-op. */
void cuzk__store_pg_witness_abort(cuzk__store_pg_writer *w);

/* Removes a payload no job references (CUZK_ERR_INVALID_ARG when one
 * does; one already gone is not an error). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_witness_remove(cuzk__store_pg *s,
                                                                  uint64_t witness_id,
                                                                  cuzk_error *err);

/* A complete payload's size (CUZK_ERR_NOT_FOUND once its job ended or for
 * an unknown id; CUZK_ERR_INVALID_ARG while it is being written). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_witness_size(cuzk__store_pg *s,
                                                                uint64_t witness_id,
                                                                uint64_t *bytes,
                                                                cuzk_error *err);

/* Reads up to cap bytes of a complete payload from offset into buf, in
 * one transaction: *got bytes (less than cap only at the end; 0 at or
 * past it). Errors as cuzk__store_pg_witness_size's. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_witness_read(cuzk__store_pg *s,
                                                                uint64_t witness_id,
                                                                uint64_t offset, void *buf,
                                                                size_t cap, size_t *got,
                                                                cuzk_error *err);

/* Removes payloads no job references whose last write is older than
 * age_ms by the database's clock (uploads a crash left, complete or not).
 * Choose an age longer than any upload pauses between chunks. *removed
 * (may be NULL): how many. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_sweep_witnesses(cuzk__store_pg *s,
                                                                   int64_t age_ms,
                                                                   size_t *removed,
                                                                   cuzk_error *err);

/* Marks the payloads ids[0..n) (uploads no job took yet) as written now,
 * so that a sweep leaves them: the uploads a live daemon holds for a
 * submission still arriving (a multipart form's earlier witnesses while its
 * later ones upload, which may take longer than the sweep's age). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_witness_touch(cuzk__store_pg *s,
                                                                 const uint64_t *ids, size_t n,
                                                                 cuzk_error *err);

/* ---- jobs ------------------------------------------------------------------- */

/* A partition's witness: exactly one of the two is set. */
typedef struct {
    uint64_t witness_id; /* a committed payload (0: none) */
    const char *path;    /* an absolute path on storage the daemons share */
} cuzk__store_pg_witness;

typedef struct {
    const char *request_id; /* NULL: none; else 1..CUZK__STORE_NAME_MAX bytes */
    const char *key_name;   /* 1..CUZK__STORE_NAME_MAX bytes */
    cuzk_priority priority;
    size_t n_partitions;                     /* 1..CUZK__STORE_MAX_PARTITIONS */
    const cuzk__store_pg_witness *witnesses; /* n_partitions of them */
    /* 0: no bound; else the partitions not yet proved of live jobs
     * (cuzk__store_pg_backlog), this job's with them, may not pass it */
    size_t max_backlog;
} cuzk__store_pg_job;

/*
 * Records a new job with its partitions, queued, in one transaction, and
 * notifies cuzk_job_new: *id its id, *existed 0. When job->request_id
 * names a job already there, nothing is recorded: *id is that job and
 * *existed 1, or CUZK_ERR_INVALID_ARG when its key or partition count
 * differ (concurrent submissions with one request id make one job).
 * CUZK_ERR_INVALID_ARG also for a witness payload that is not complete,
 * unknown or referenced by a job (or named twice), a path that is not
 * absolute, names out of bounds, a priority out of range. CUZK_ERR_BUSY
 * when job->max_backlog would be passed: bounded submissions count and
 * insert under one advisory lock (pg_advisory_xact_lock(
 * CUZK__PG_SUBMIT_LOCK)), so any number of them at once, from any number of
 * daemons, never pass it together (unbounded ones do not take the lock).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_submit(cuzk__store_pg *s,
                                                          const cuzk__store_pg_job *job,
                                                          uint64_t *id, int *existed,
                                                          cuzk_error *err);

/* What names one lease: the owner and the partition's generation at claim. */
typedef struct {
    uint64_t owner;
    uint64_t job_id;
    uint32_t index;
    uint64_t generation;
} cuzk__store_pg_ref;

typedef struct {
    cuzk__store_pg_ref ref;
    cuzk_priority priority;
    char key_name[CUZK__STORE_NAME_MAX + 1];
    size_t n_partitions;         /* of the job */
    uint64_t witness_id;         /* 0: the witness is witness_path */
    uint64_t witness_bytes;      /* the payload's size (0 for a path) */
    char witness_path[PATH_MAX]; /* "" for a payload */
    int64_t created_ms;          /* the job's */
    int64_t lease_expires_ms;    /* Unix ms, the database's clock */
} cuzk__store_pg_part; /* a claimed partition */

/*
 * Takes up to max (1..CUZK__PG_MAX_CLAIM) queued partitions of live jobs
 * whose key is one of keys (1..CUZK__PG_MAX_KEYS names), highest priority
 * first, then oldest job, then lowest index, skipping rows other claims
 * hold locked, for owner (a registered daemon) under a lease of lease_ms
 * (1..CUZK__PG_MAX_LEASE_MS); the owner's heartbeat is updated too.
 * claims[0..*n) in that order; *n 0 when nothing is queued for those keys.
 * CUZK_ERR_NOT_FOUND for an owner not registered (or that left).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_claim(cuzk__store_pg *s, uint64_t owner,
                                                         const char *const *keys, size_t nkeys,
                                                         size_t max, uint32_t lease_ms,
                                                         cuzk__store_pg_part *claims, size_t *n,
                                                         cuzk_error *err);

typedef enum {
    CUZK__PG_RECORDED = 0, /* done: the change was made (or had been, by this lease) */
    CUZK__PG_FENCED = 1,   /* the lease is not the partition's any more: nothing changed */
    CUZK__PG_ENDED = 2     /* the job ended (failed, cancelled): the partition was dropped */
} cuzk__store_pg_outcome;

/* "recorded", "fenced", "ended". */
const char *cuzk__store_pg_outcome_name(cuzk__store_pg_outcome o);

typedef enum {
    CUZK__PG_HELD = 0, /* the lease is the owner's, extended */
    CUZK__PG_LOST = 1, /* reaped, released or claimed again: stop, the result would be fenced */
    CUZK__PG_JOB_ENDED = 2 /* the job failed or was cancelled: stop (the partition was dropped) */
} cuzk__store_pg_lease_state;

typedef struct {
    cuzk__store_pg_ref ref;           /* in: a lease the owner believes it holds */
    cuzk__store_pg_lease_state state; /* out */
} cuzk__store_pg_lease;

/*
 * The owner's heartbeat: its daemon row's heartbeat, and each lease of
 * held[] it still holds on a live job extended to now() + lease_ms (a
 * partition it claimed and does not list lapses, so that a claim it lost
 * track of is reaped); its claimed partitions of jobs that ended are
 * dropped. held[0..n) (may be NULL with n 0): the leases the owner
 * believes it holds, each told HELD, LOST or JOB_ENDED.
 * *renewed (may be NULL): how many leases were extended.
 * CUZK_ERR_NOT_FOUND for an owner not registered (left).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_renew(cuzk__store_pg *s, uint64_t owner,
                                                         uint32_t lease_ms,
                                                         cuzk__store_pg_lease *held, size_t n,
                                                         size_t *renewed, cuzk_error *err);

/*
 * Records a partition's proof and public inputs (public_bytes of them;
 * public_inputs may be NULL when 0) under the lease ref, fenced: RECORDED
 * when ref is the partition's current lease (or recorded this already: a
 * repeat after a lost commit), FENCED when it is not, ENDED when the job
 * ended (the partition is dropped). *job_done (may be NULL): 1 when this
 * call recorded the job's last partition, so the job is DONE (in the same
 * transaction, which also releases its witnesses and notifies
 * cuzk_job_end). CUZK_ERR_NOT_FOUND for an unknown job or partition.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_complete(cuzk__store_pg *s,
                                                            const cuzk__store_pg_ref *ref,
                                                            const cuzk_proof *proof,
                                                            const uint8_t *public_inputs,
                                                            size_t public_bytes,
                                                            cuzk__store_pg_outcome *outcome,
                                                            int *job_done, cuzk_error *err);

/* Gives a claimed partition back to the queue (generation raised) without
 * a result, e.g. when its daemon drains: RECORDED, FENCED or ENDED. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_release(cuzk__store_pg *s,
                                                           const cuzk__store_pg_ref *ref,
                                                           cuzk__store_pg_outcome *outcome,
                                                           cuzk_error *err);

/*
 * A queued or running job -> FAILED with status (not CUZK_OK) and msg (may
 * be NULL: cuzk_strerror's): its queued partitions dropped, its witnesses
 * released, cuzk_job_end notified; RECORDED. by (may be NULL) fences the
 * failure to a lease: a partition's failure counts only from the daemon
 * that holds it (FENCED otherwise; its partition is dropped). ENDED for a
 * job that had ended already (it stays as it ended).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_fail(cuzk__store_pg *s, uint64_t job_id,
                                                        const cuzk__store_pg_ref *by,
                                                        cuzk_status status, const char *msg,
                                                        cuzk__store_pg_outcome *outcome,
                                                        cuzk_error *err);

/* A queued or running job -> CANCELLED: queued partitions dropped,
 * witnesses released, cuzk_job_end notified; the owners of its claimed
 * partitions learn on renew or complete. A job that ended stays as it
 * ended (CUZK_OK). *state (may be NULL): the job's state afterwards. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_cancel(cuzk__store_pg *s, uint64_t job_id,
                                                          cuzk_job_state *state,
                                                          cuzk_error *err);

/* Claimed partitions whose lease expired (by the database's clock): back
 * to the queue with their generation raised (dropped when their job
 * ended). Any daemon may call it, at any time. *requeued (may be NULL):
 * how many went back to the queue. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_reap(cuzk__store_pg *s, size_t *requeued,
                                                        cuzk_error *err);

/* A job with its partitions' counts. */
typedef struct {
    cuzk__store_job_info job; /* state RUNNING: queued with a partition claimed or done */
    size_t queued, claimed, done, dropped;
} cuzk__store_pg_job_info;

/* The job's record (CUZK_ERR_NOT_FOUND for an unknown or collected id). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_get(cuzk__store_pg *s, uint64_t id,
                                                       cuzk__store_pg_job_info *info,
                                                       cuzk_error *err);

/*
 * A DONE job's results, as cuzk__store_results gives them: proofs (cap at
 * least its partition count) and, when public_inputs is not NULL, a
 * malloc'd copy of the public inputs (n x *public_bytes, NULL when 0);
 * owners (may be NULL; cap entries) the daemon that proved each
 * partition. CUZK_ERR_INVALID_ARG naming the state for a job not DONE.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_results(cuzk__store_pg *s, uint64_t id,
                                                           cuzk_proof *proofs, uint64_t *owners,
                                                           size_t cap, uint8_t **public_inputs,
                                                           size_t *public_bytes,
                                                           cuzk_error *err);

/* Jobs whose state (RUNNING as derived) is in state_mask (bit 1u << state;
 * 0: every state), ids above after_id, by id, at most limit (0: no
 * limit): *jobs a malloc'd array of *n (NULL when none; free it). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_list(cuzk__store_pg *s, unsigned state_mask,
                                                        uint64_t after_id, size_t limit,
                                                        cuzk__store_pg_job_info **jobs,
                                                        size_t *n, cuzk_error *err);

/* Queued partitions of live jobs before job id's in the order claims take
 * them (priority, then job age), of its key and of the keys that a daemon
 * claiming its key claims too (cuzk__store_pg_serve), since those are what
 * its daemons take first: *n (0 for an unknown job). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_ahead(cuzk__store_pg *s, uint64_t id,
                                                         size_t *n, cuzk_error *err);

/* Partitions queued or claimed of live jobs, whatever their key: *n. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_backlog(cuzk__store_pg *s, size_t *n,
                                                           cuzk_error *err);

/* Jobs per state now: counts[state] for the five states. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_counts(cuzk__store_pg *s, uint64_t counts[5],
                                                          cuzk_error *err);

/* Forgets a job that ended (its partitions and witnesses with it); its
 * request id becomes free. CUZK_ERR_INVALID_ARG for a live job (cancel it
 * first), CUZK_ERR_NOT_FOUND for an unknown one. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_collect(cuzk__store_pg *s, uint64_t id,
                                                           cuzk_error *err);

/* Collects jobs that ended more than age_ms ago (the database's clock), a
 * few hundred per transaction. *removed (may be NULL): how many. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_expire(cuzk__store_pg *s, int64_t age_ms,
                                                          size_t *removed, cuzk_error *err);

/* ---- notifications ------------------------------------------------------------ */

#define CUZK__PG_CHANNEL_END 1u /* cuzk_job_end: "<id> <state>" */
#define CUZK__PG_CHANNEL_NEW 2u /* cuzk_job_new: "<id> <key name>" */

typedef enum {
    CUZK__PG_EVENT_JOB_END = 0, /* job_id ended in state */
    CUZK__PG_EVENT_JOB_NEW = 1, /* job_id was submitted for key_name */
    CUZK__PG_EVENT_RESYNC = 2   /* reconnected: events may have been lost; poll */
} cuzk__store_pg_event_kind;

typedef struct {
    cuzk__store_pg_event_kind kind;
    uint64_t job_id;
    cuzk_job_state state;
    char key_name[CUZK__STORE_NAME_MAX + 1];
} cuzk__store_pg_event;

/* LISTENs on the channels in mask (CUZK__PG_CHANNEL_*), added to those
 * listened to already; they are listened to again after a reconnect. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_listen(cuzk__store_pg *s, unsigned mask,
                                                          cuzk_error *err);

/*
 * The next notification: *got 1 and *ev, or *got 0 when none came within
 * timeout_ms (0: only what has arrived already). Waits on the
 * connection's socket, holding the handle; a lost connection is
 * reconnected and answered with a RESYNC event.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pg_wait(cuzk__store_pg *s, int timeout_ms,
                                                        cuzk__store_pg_event *ev, int *got,
                                                        cuzk_error *err);

#endif /* CUZK_SERVICE_STORE_PG_H */
