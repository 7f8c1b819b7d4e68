/*
 * store.h — the daemon's durable job store: every accepted job and every
 * result in an embedded SQLite database, the witnesses sent with the jobs
 * in a spool folder beside it.
 *
 * What is durable. A call that changes the database returns CUZK_OK only
 * once its transaction is committed with the write-ahead log fsynced
 * (journal_mode=WAL, synchronous=FULL): an acknowledged submission or
 * result survives a kill -9, a crash or a power loss. Each call is one
 * transaction, so a job is there with all its partitions or not at all,
 * and a finished job has every partition's proof.
 *
 * The spool. A witness the client uploads is streamed to the spool folder
 * (cuzk__store_spool_begin/append/commit) through the project's writer
 * (util/atomic_write.h): a temporary, fsync, rename to a unique name
 * "wit-<32 hex>", fsync of the folder. Only then is the name given to
 * cuzk__store_submit, so a committed row never names a file that is not
 * durably complete. Files go in the opposite order: a call that drops a
 * reference (the end of a job, collect, expire) commits the row change
 * first and unlinks afterwards, so a crash in between leaves a file that
 * nothing references, never a row naming a missing file;
 * cuzk__store_sweep_spool removes such files (and writers' temporaries
 * left by a crash). A job's spool files are released when the job ends
 * (done, failed or cancelled), since nothing reads its witnesses then.
 * Witnesses given as a path on the server are the client's files: the
 * store records the path and never removes them.
 *
 * Ids. A job's id is the row's INTEGER PRIMARY KEY with AUTOINCREMENT, so
 * an id is never given twice, even after the newest job was collected. A
 * request id makes a submission idempotent: a second submission with it
 * returns the first job's id for as long as that job is in the store.
 *
 * Threads. One store may be used from any number of threads at once. One
 * mutex guards the connection for the whole of each call (a transaction
 * spans several statements, which SQLite's serialized mode alone would
 * interleave between threads); the connection is opened with
 * SQLITE_OPEN_NOMUTEX since nothing reaches it outside that mutex. Spool
 * writers do their file I/O outside it, so a large upload never holds up
 * the database. A writer belongs to one thread at a time.
 *
 * Processes. A store takes an exclusive flock on "<spool>/.lock" at open:
 * a second store over the same spool folder, in this process or another,
 * is refused (CUZK_ERR_BUSY) rather than sweeping or recovering jobs under
 * the first. A child forked while a store is open shares that lock.
 * Other processes may read the database meanwhile (sqlite3 on the file);
 * the store waits up to 5 s for their locks (busy_timeout).
 *
 * Errors: CUZK_ERR_IO naming the database or spool path and SQLite's or
 * the system's message; CUZK_ERR_INVALID_ARG for arguments the store
 * refuses (the sentence says which); CUZK_ERR_NOT_FOUND for an unknown or
 * collected job; CUZK_ERR_NOMEM. On failure nothing in the database was
 * changed: the transaction was rolled back. A file that cannot be unlinked
 * after a commit is not an error: it is left for the sweep.
 *
 * No parser here, hence no fuzz target: the store reads only what it wrote
 * itself (its own schema, with prepared statements and bound parameters,
 * never SQL built from text); the only untrusted bytes are the witness
 * payloads, stored opaquely, and the strings (request ids, key names,
 * paths), stored as bound values with their lengths checked.
 */
#ifndef CUZK_SERVICE_STORE_H
#define CUZK_SERVICE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

typedef struct cuzk__store cuzk__store;

/* Longest request id and key name, in bytes (without the NUL). */
#define CUZK__STORE_NAME_MAX 255
/* Room for a spool file's name with its NUL ("wit-" and 32 hex digits). */
#define CUZK__STORE_SPOOL_NAME_BYTES 40
/* Partitions of one job at most. */
#define CUZK__STORE_MAX_PARTITIONS 65536

/*
 * Opens the store, creating what is missing: the database file at db_path
 * (its folder must exist) and the spool folder (mode 0700, with its missing
 * parents). Sets WAL, synchronous=FULL, foreign keys and the busy timeout,
 * creates the schema in a fresh database or checks the version of an
 * existing one (PRAGMA user_version; CUZK_ERR_UNSUPPORTED for one a newer
 * cuzk wrote, CUZK_ERR_INVALID_ARG for a SQLite database of another
 * program). Errors name the path: a db_path that is a folder, a spool path
 * that is a file or cannot be written, a file that is not a database.
 * Nothing else happens at open: cuzk__store_recover and
 * cuzk__store_sweep_spool are the caller's to run.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_open(cuzk__store **out, const char *db_path,
                                                     const char *spool_dir, cuzk_error *err);

/* Closes the database (its WAL checkpointed) and releases the lock. No call
 * on s may be in progress or follow; open spool writers must have been
 * committed or aborted. NULL is a no-op. */
void cuzk__store_close(cuzk__store *s);

/* ---- the spool ------------------------------------------------------------- */

typedef struct cuzk__spool_writer cuzk__spool_writer;

/* A new spool file, written through a temporary ".wit-<hex>.XXXXXX" in the
 * spool folder until committed. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_spool_begin(cuzk__store *s,
                                                            cuzk__spool_writer **w,
                                                            cuzk_error *err);

/* Appends n bytes (any size, 0 included). On failure w is still to be
 * aborted. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_spool_append(cuzk__spool_writer *w,
                                                             const void *p, size_t n,
                                                             cuzk_error *err);

/* Bytes appended so far (an upload's size limit is the caller's). */
uint64_t cuzk__store_spool_size(const cuzk__spool_writer *w);

/*
 * Makes the file durable under its name (flush, fsync, rename, fsync of
 * the folder) and writes the name into name (cap bytes, at least
 * CUZK__STORE_SPOOL_NAME_BYTES). Frees w whatever the outcome; on failure
 * the temporary is removed. The caller owns the file until a submission
 * naming it returns CUZK_OK with *existed 0; until then it removes the
 * file with cuzk__store_spool_remove when it does not submit it.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_spool_commit(cuzk__spool_writer *w, char *name,
                                                             size_t cap, cuzk_error *err);

/* Removes the temporary and frees w. NULL is a no-op. */
void cuzk__store_spool_abort(cuzk__spool_writer *w);

/* Removes a committed spool file that no job references (one the caller
 * still owns: its submission failed or found an existing job).
 * CUZK_ERR_INVALID_ARG for a name that is not a spool name or that a job
 * references; a file already gone is not an error. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_spool_remove(cuzk__store *s, const char *name,
                                                             cuzk_error *err);

/*
 * Removes what a crash can leave in the spool folder: spool files that no
 * job references and writers' temporaries. Only entries older than this
 * store's open (their modification time before the lock file's) are
 * touched, so files being written or waiting for their submission in this
 * process are safe; still, run it at start-up, before serving, since a
 * clock stepped back could make a new file look old. Entries whose names
 * are not the store's are left alone. *removed (may be NULL): how many
 * were removed.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_sweep_spool(cuzk__store *s, size_t *removed,
                                                            cuzk_error *err);

/* ---- jobs ------------------------------------------------------------------ */

/* A partition's witness: exactly one of the two is set. */
typedef struct {
    const char *spool; /* a name from cuzk__store_spool_commit */
    const char *path;  /* an absolute path to a file on the server (the client's) */
} cuzk__store_witness;

typedef struct {
    const char *request_id; /* NULL: none; else 1..CUZK__STORE_NAME_MAX bytes */
    const char *key_name;   /* 1..CUZK__STORE_NAME_MAX bytes */
    cuzk_priority priority;
    size_t n_partitions; /* 1..CUZK__STORE_MAX_PARTITIONS */
    const cuzk__store_witness *witnesses; /* n_partitions of them */
    /* 0: no bound; else the partitions not yet proved of live jobs, this
     * job's with them, may not pass it (checked in the submission's
     * transaction: CUZK_ERR_BUSY) */
    size_t max_backlog;
} cuzk__store_job;

/*
 * Records a new job, QUEUED, in one transaction (BEGIN IMMEDIATE ..
 * COMMIT): *id its id, *existed 0. When job->request_id names a job in the
 * store, nothing is recorded: *id is that job's id and *existed 1, or
 * CUZK_ERR_INVALID_ARG when its key name or partition count differ (as
 * the engine refuses them). CUZK_ERR_INVALID_ARG also for a witness that
 * is neither or both of spool and path, a spool name that is not a
 * committed spool file or that a job already references, a path that is
 * not absolute, names out of bounds, a priority out of range.
 * CUZK_ERR_BUSY when job->max_backlog is set and the store's partitions not
 * yet proved (cuzk__store_backlog) and this job's would pass it: counted
 * and inserted in one transaction, so submissions at once never pass it
 * together (a request id that names a job answers that job, full or not).
 * On any outcome but CUZK_OK with *existed 0 the caller keeps its spool
 * files.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_submit(cuzk__store *s, const cuzk__store_job *job,
                                                       uint64_t *id, int *existed,
                                                       cuzk_error *err);

/* A job as the store has it. Times are Unix milliseconds. */
typedef struct {
    uint64_t id;
    int has_request_id;
    char request_id[CUZK__STORE_NAME_MAX + 1]; /* "" without one */
    char key_name[CUZK__STORE_NAME_MAX + 1];
    cuzk_priority priority;
    size_t n_partitions;
    cuzk_job_state state;
    int64_t created_ms, updated_ms;
    int64_t finished_ms;      /* 0 until the job ended */
    cuzk_status error_status; /* FAILED: the job's status; else CUZK_OK */
    char error[CUZK_ERROR_MSG_BYTES]; /* FAILED: the job's message */
    size_t n_done; /* partitions whose proof is recorded */
} cuzk__store_job_info;

/* The job's record (CUZK_ERR_NOT_FOUND for an unknown or collected id). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_get(cuzk__store *s, uint64_t id,
                                                    cuzk__store_job_info *info, cuzk_error *err);

/*
 * The witnesses of a job as paths to open: spool files joined to the spool
 * folder, server paths as given; NULL for spool files already released
 * (the job ended). *paths is one malloc'd block (free it once) of *n
 * pointers and their strings.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_witness_paths(cuzk__store *s, uint64_t id,
                                                              char ***paths, size_t *n,
                                                              cuzk_error *err);

/* QUEUED -> RUNNING (RUNNING stays RUNNING). CUZK_ERR_INVALID_ARG naming
 * the state for a job that has ended; nothing changes then. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_set_running(cuzk__store *s, uint64_t id,
                                                            cuzk_error *err);

/*
 * QUEUED or RUNNING -> DONE with every partition's result, in one
 * transaction: proofs (n of them, n the job's partition count) and
 * public_inputs (n x public_bytes bytes, partition after partition, as
 * cuzk_engine_await gives them; may be NULL when public_bytes is 0). The
 * job's spool files are released. CUZK_ERR_INVALID_ARG for a job that has
 * ended (a cancelled job keeps no late result) or a wrong n.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_finish(cuzk__store *s, uint64_t id,
                                                       const cuzk_proof *proofs, size_t n,
                                                       const uint8_t *public_inputs,
                                                       size_t public_bytes, cuzk_error *err);

/* QUEUED or RUNNING -> FAILED with the job's status (not CUZK_OK) and
 * message (msg may be NULL: cuzk_strerror's). Spool files released.
 * CUZK_ERR_INVALID_ARG for a job that has ended. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_fail(cuzk__store *s, uint64_t id,
                                                     cuzk_status status, const char *msg,
                                                     cuzk_error *err);

/* QUEUED or RUNNING -> CANCELLED, spool files released; a job that has
 * ended stays as it ended (CUZK_OK). *state (may be NULL): the job's state
 * afterwards. The caller cancels the job in the engine too. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_cancel(cuzk__store *s, uint64_t id,
                                                       cuzk_job_state *state, cuzk_error *err);

/*
 * A DONE job's results: proofs (cap at least its partition count; the
 * count is in cuzk__store_get's info) and, when public_inputs is not NULL,
 * a malloc'd copy of the public inputs (n x *public_bytes bytes; NULL when
 * *public_bytes is 0). CUZK_ERR_INVALID_ARG naming the state for a job
 * that is not DONE (its error is in cuzk__store_get's info) or a cap too
 * small.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_results(cuzk__store *s, uint64_t id,
                                                        cuzk_proof *proofs, size_t cap,
                                                        uint8_t **public_inputs,
                                                        size_t *public_bytes, cuzk_error *err);

/*
 * Jobs whose state is in state_mask (bit 1u << state; 0: every state),
 * with ids above after_id, by id (submission order), at most limit of them
 * (0: no limit): *jobs a malloc'd array of *n (NULL when none; free it).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_list(cuzk__store *s, unsigned state_mask,
                                                     uint64_t after_id, size_t limit,
                                                     cuzk__store_job_info **jobs, size_t *n,
                                                     cuzk_error *err);

/* Jobs per state now: counts[state] for the five states. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_counts(cuzk__store *s, uint64_t counts[5],
                                                       cuzk_error *err);

/*
 * What a restart resubmits, at start-up before the engine runs: in one
 * transaction every RUNNING job goes back to QUEUED (nothing runs in a
 * fresh process), then the QUEUED jobs, oldest first, as
 * cuzk__store_list gives them. Only at start-up: later, RUNNING would be
 * wrong.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_recover(cuzk__store *s,
                                                        cuzk__store_job_info **jobs, size_t *n,
                                                        cuzk_error *err);

/*
 * Forgets a job in any state (CUZK_ERR_NOT_FOUND for an unknown one): its
 * row and its partitions are deleted and committed, then its spool files
 * unlinked (a crash in between leaves files for the sweep). Its request id
 * becomes free. An unfinished job must be cancelled in the engine first.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_collect(cuzk__store *s, uint64_t id,
                                                        cuzk_error *err);

/*
 * Collects every job that ended (DONE, FAILED, CANCELLED) before
 * finished_before_ms (Unix milliseconds; the caller passes now minus the
 * age results are kept), a few hundred per transaction. *removed (may be
 * NULL): how many.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_expire(cuzk__store *s, int64_t finished_before_ms,
                                                       size_t *removed, cuzk_error *err);

/* ---- partitions one at a time ------------------------------------------------ */

/*
 * A daemon proves a job partition by partition: it takes the next
 * partitions without a proof (cuzk__store_pending), proves each and
 * records its proof (cuzk__store_record); the call that records a job's
 * last proof makes the job DONE. Which partitions are being proved is the
 * daemon's to remember (one process uses a store), so after a restart
 * every partition without a proof is pending again and the proofs already
 * recorded are kept.
 */

/* A partition without a proof, with what proving it needs. */
typedef struct {
    uint64_t job_id;
    uint32_t index;
    cuzk_priority priority;
    cuzk_job_state job_state; /* QUEUED or RUNNING */
    char key_name[CUZK__STORE_NAME_MAX + 1];
    size_t n_partitions;      /* of the job */
    char path[4096];          /* its witness: the spool file or the client's path */
} cuzk__store_part;

/*
 * The first limit partitions without a proof of the jobs that have not
 * ended, in the order they are best proved: highest priority first, then
 * oldest job (lowest id), then lowest index. parts has room for limit;
 * *n how many there were. A caller that is proving some of them already
 * asks for that many more and skips them.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_pending(cuzk__store *s, size_t limit,
                                                        cuzk__store_part *parts, size_t *n,
                                                        cuzk_error *err);

/*
 * Records partition index's proof and public inputs (public_bytes of them;
 * may be NULL when 0) in one transaction; the job becomes RUNNING, or DONE
 * when this was its last partition without a proof (*job_done 1; may be
 * NULL), its spool files then released. A partition proved already keeps
 * its first proof (CUZK_OK). CUZK_ERR_INVALID_ARG naming the state for a
 * job that ended (the proof is not kept), CUZK_ERR_NOT_FOUND for an
 * unknown job or index.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_record(cuzk__store *s, uint64_t id, size_t index,
                                                       const cuzk_proof *proof,
                                                       const uint8_t *public_inputs,
                                                       size_t public_bytes, int *job_done,
                                                       cuzk_error *err);

/* Partitions without a proof, of jobs that have not ended, before those of
 * job id (at priority) in cuzk__store_pending's order, in *n. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_ahead(cuzk__store *s, cuzk_priority priority,
                                                      uint64_t id, size_t *n, cuzk_error *err);

/* Partitions without a proof of jobs that have not ended, in *n. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__store_backlog(cuzk__store *s, size_t *n,
                                                        cuzk_error *err);

/* The spool folder's absolute path (where a spool name's file lives). */
const char *cuzk__store_spool_dir(const cuzk__store *s);

/* Unix milliseconds now (the store's clock for the times above). */
int64_t cuzk__store_now_ms(void);

/* 1 for the states a job ends in: DONE, FAILED, CANCELLED. */
int cuzk__store_state_ended(cuzk_job_state state);

/* "queued", "running", "done", "failed", "cancelled" ("?" out of range). */
const char *cuzk__store_state_name(cuzk_job_state state);

#endif /* CUZK_SERVICE_STORE_H */
