/*
 * jobstore.h — the daemon's job store behind one interface, with two
 * implementations the configuration chooses ([store] store):
 *   - sqlite (the default): the embedded store of store.h, used by one
 *     daemon, its uploads in a spool folder (jobstore_sqlite.c);
 *   - a PostgreSQL connection string: the queue of store_pg.h, which
 *     daemons on many machines share (jobstore_pg.c).
 * The daemon (daemon.c) and so the HTTP API have one path for both.
 *
 * The client side: witness uploads (a cuzk__witness_sink whose names a
 * submission then gives as cuzk__store_witness.spool), submit, get, list,
 * counts, cancel, collect, results, expire. Job ids, states and errors are
 * those of store.h; a job is RUNNING once one of its partitions is claimed
 * or proved.
 *
 * The work side: a daemon proves jobs partition by partition. It claims
 * partitions of the keys it serves (best first: priority, then age, then
 * index), proves each, and records its proof (complete: the call that
 * records a job's last proof makes the job DONE), gives it back (release),
 * or fails its job (fail). A claim is named by a ref.
 *   - On PostgreSQL a claim is a lease: it stays the daemon's while renew
 *     (its heartbeat) extends it; reap, run by any daemon, puts partitions
 *     whose lease expired back in the queue (their daemon died), and a
 *     result recorded under a lease that is no longer its partition's is
 *     discarded (FENCED). renew also says which of the daemon's partitions
 *     belong to jobs that ended (cancelled through another daemon).
 *   - On SQLite a claim is this process's memory: one daemon uses the
 *     store, nothing expires, and after a restart every partition without
 *     a proof can be claimed again (the proofs recorded are kept). renew
 *     still reports the partitions of jobs that ended.
 * A claimed partition's witness is a file on this machine to prove from:
 * the spool file or the client's path on SQLite; on PostgreSQL a shared
 * path, or a copy of the uploaded payload that cuzk__jobstore_fetch makes
 * in the daemon's scratch folder (removed by cuzk__jobstore_done_with).
 * A copy may take long (a PoRep partition's witness is gigabytes): the
 * daemon makes it on threads of its own, asking between blocks whether to
 * stop (the job ended, the lease was lost, a drain).
 *
 * Queue positions. A job's place (cuzk__jobstore_job.ahead) counts the
 * partitions waiting before its next one in the claim order, of its key
 * and of the keys that a daemon serving its key serves too: the daemons
 * that could prove it take those first, and no others. PostgreSQL knows
 * each daemon's keys from cuzk__jobstore_describe; SQLite's one daemon
 * counts every key: it refuses submissions of keys it lacks, and the jobs
 * of a key it lacks after a restart (one registered through the API) wait
 * for the key to be registered again.
 *
 * Notifications (PostgreSQL): cuzk__jobstore_wait returns the ends and
 * submissions of jobs by any daemon (LISTEN/NOTIFY); after a reconnect it
 * says RESYNC, since notifications may have been lost. A SQLite store has
 * no other writer: the daemon knows every change it makes.
 *
 * Threads. Every call may come from any thread. The PostgreSQL store keeps
 * one connection per kind of work (requests, claims, results, heartbeats,
 * notifications, and fetchers of payload copies), so a long upload or
 * copy does not hold up a heartbeat or a claim.
 *
 * No parser here, hence no fuzz target: names and paths go to the stores
 * as bound values; the only untrusted bytes are witness payloads, stored
 * opaquely.
 */
#ifndef CUZK_SERVICE_JOBSTORE_H
#define CUZK_SERVICE_JOBSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "service/store.h"
#include "service/submit_form.h"

typedef struct cuzk__jobstore cuzk__jobstore;

typedef struct {
    const char *store;     /* "sqlite" or a PostgreSQL connection string */
    const char *database;  /* SQLite: the database file */
    const char *spool_dir; /* SQLite: the spool; PostgreSQL: the scratch folder */
    const char *name;      /* PostgreSQL: the daemon's name in the cluster */
    const char *info;      /* PostgreSQL: what the daemon is (backend, devices, keys) */
    uint32_t lease_ms;     /* PostgreSQL: a claim's lease */
    const char *const *keys; /* PostgreSQL: the keys the daemon claims (n_keys of them) */
    size_t n_keys;
    unsigned fetchers; /* PostgreSQL: payload copies made at once, each on its own
                        * connection (0: 1) */
} cuzk__jobstore_options;

/*
 * Opens the store opt->store names. SQLite: the database and spool
 * (store.h), its spool swept, its RUNNING jobs back to QUEUED (nothing
 * runs in a fresh process). PostgreSQL: connects (migrating the schema),
 * registers the daemon and makes its scratch folder, removing those of
 * daemons no longer registered. log (may be NULL) gets a line for what an
 * operator wants to know (files swept, a re-registration).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_open(cuzk__jobstore **out,
                                                        const cuzk__jobstore_options *opt,
                                                        void (*log)(void *user, const char *line),
                                                        void *log_user, cuzk_error *err);

/* Closes the store (no call in progress; a daemon leaves first). NULL: no-op. */
void cuzk__jobstore_close(cuzk__jobstore *js);

/* "sqlite" or "postgres". */
const char *cuzk__jobstore_kind(const cuzk__jobstore *js);
/* The database's file, or user@host:port/db (never a password). */
const char *cuzk__jobstore_where(const cuzk__jobstore *js);
/* 1 when other daemons may share the store (PostgreSQL). */
int cuzk__jobstore_shared(const cuzk__jobstore *js);
/* This daemon's id in the cluster (0 on SQLite). */
uint64_t cuzk__jobstore_self(cuzk__jobstore *js);
/* Times a PostgreSQL connection was made again after it was lost. */
uint64_t cuzk__jobstore_reconnects(cuzk__jobstore *js);

/* ---- the client side ------------------------------------------------------ */

/* The sink uploads go to; its names are what submissions give as spool. */
void cuzk__jobstore_sink(cuzk__jobstore *js, cuzk__witness_sink *sink);

/*
 * A file on this machine holding an upload's header and size, for
 * cuzk_engine_key_check_witness (which reads only those): the spool file
 * itself, or a sparse copy of the payload's first bytes (*temporary 1: the
 * caller removes it).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_upload_check_file(cuzk__jobstore *js,
                                                                     const char *name, char *path,
                                                                     size_t cap, int *temporary,
                                                                     cuzk_error *err);

/* As cuzk__store_submit (witnesses: upload names or server paths). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_submit(cuzk__jobstore *js,
                                                          const cuzk__store_job *job, uint64_t *id,
                                                          int *existed, cuzk_error *err);

/* A job with its partitions' counts. */
typedef struct {
    cuzk__store_job_info rec; /* rec.n_done: partitions proved */
    size_t claimed;           /* being proved now, by any daemon */
    size_t ahead;             /* _get only: partitions waiting before its next one */
} cuzk__jobstore_job;

CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_get(cuzk__jobstore *js, uint64_t id,
                                                       cuzk__jobstore_job *job, cuzk_error *err);
/* As cuzk__store_list; *jobs malloc'd (free it). ahead is 0 in them. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_list(cuzk__jobstore *js, unsigned state_mask,
                                                        uint64_t after_id, size_t limit,
                                                        cuzk__jobstore_job **jobs, size_t *n,
                                                        cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_counts(cuzk__jobstore *js, uint64_t counts[5],
                                                          cuzk_error *err);
/* Partitions not yet proved of the jobs that have not ended (the queue's
 * length, with those being proved), in *n. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_backlog(cuzk__jobstore *js, size_t *n,
                                                           cuzk_error *err);
/* As cuzk__store_cancel: the daemons proving its partitions learn on
 * renew. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_cancel(cuzk__jobstore *js, uint64_t id,
                                                          cuzk_job_state *state, cuzk_error *err);
/* Forgets a job that ended (CUZK_ERR_INVALID_ARG for a live one). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_collect(cuzk__jobstore *js, uint64_t id,
                                                           cuzk_error *err);
/* As cuzk__store_results; owners (may be NULL; cap of them): the daemon
 * that proved each partition (0 on SQLite). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_results(cuzk__jobstore *js, uint64_t id,
                                                           cuzk_proof *proofs, uint64_t *owners,
                                                           size_t cap, uint8_t **public_inputs,
                                                           size_t *public_bytes, cuzk_error *err);
/* Collects the jobs that ended more than age_ms ago. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_expire(cuzk__jobstore *js, int64_t age_ms,
                                                          size_t *removed, cuzk_error *err);

/* ---- the work side ---------------------------------------------------------- */

/* One claim: the partition and, on PostgreSQL, the lease. */
typedef struct {
    uint64_t owner; /* the daemon that claimed it */
    uint64_t job_id;
    uint32_t index;
    uint64_t generation;
} cuzk__jobstore_ref;

typedef struct {
    cuzk__jobstore_ref ref;
    cuzk_priority priority;
    char key_name[CUZK__STORE_NAME_MAX + 1];
    size_t n_partitions; /* of the job */
    uint64_t payload;    /* an uploaded payload to fetch (0: path is the witness) */
    uint64_t payload_bytes; /* its size */
    char path[4096];     /* the witness to prove from (after _fetch for a payload) */
    int temporary;       /* path is this daemon's copy (_done_with removes it) */
} cuzk__jobstore_part;

/* What the daemon is and the keys it claims, anew (a key added): on
 * PostgreSQL the cluster's view and queue positions use them, and they are
 * given again after a re-registration. Nothing to do on SQLite. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_describe(cuzk__jobstore *js, const char *info,
                                                            const char *const *keys, size_t nkeys,
                                                            cuzk_error *err);

/* Takes up to max queued partitions of the keys named (nkeys >= 1) into
 * parts: *n of them (0: nothing waits for those keys). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_claim(cuzk__jobstore *js,
                                                         const char *const *keys, size_t nkeys,
                                                         size_t max, cuzk__jobstore_part *parts,
                                                         size_t *n, cuzk_error *err);

/* Makes part->path a file to prove from: a payload copied into the
 * scratch folder (CUZK_ERR_NOT_FOUND once its job ended); nothing to do
 * for a path. stop (may be NULL) is asked before each block of the copy:
 * once it answers nonzero the copy ends with CUZK_ERR_CANCELLED. On any
 * failure the partial copy is removed. Calls at once beyond the options'
 * fetchers wait for a connection. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_fetch(cuzk__jobstore *js,
                                                         cuzk__jobstore_part *part,
                                                         int (*stop)(void *user), void *stop_user,
                                                         cuzk_error *err);

/* Removes the copy _fetch made, if any. */
void cuzk__jobstore_done_with(cuzk__jobstore *js, cuzk__jobstore_part *part);

typedef enum {
    CUZK__JS_RECORDED = 0, /* the change was made */
    CUZK__JS_FENCED = 1,   /* the claim is not the partition's any more: nothing changed */
    CUZK__JS_ENDED = 2     /* the job ended (failed, cancelled, collected) */
} cuzk__jobstore_outcome;

const char *cuzk__jobstore_outcome_name(cuzk__jobstore_outcome o);

/* Records the partition's proof and public inputs (public_bytes; may be
 * NULL when 0). *job_done (may be NULL) 1 when the job is now DONE. A
 * repeat by the same claim after a lost connection answers RECORDED. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_complete(cuzk__jobstore *js,
                                                            const cuzk__jobstore_ref *ref,
                                                            const cuzk_proof *proof,
                                                            const uint8_t *public_inputs,
                                                            size_t public_bytes,
                                                            cuzk__jobstore_outcome *outcome,
                                                            int *job_done, cuzk_error *err);

/* The partition could not be proved: its job fails with status and msg. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_fail(cuzk__jobstore *js,
                                                        const cuzk__jobstore_ref *ref,
                                                        cuzk_status status, const char *msg,
                                                        cuzk__jobstore_outcome *outcome,
                                                        cuzk_error *err);

/* Gives the partition back unproved (another daemon, or this one later,
 * claims it again). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_release(cuzk__jobstore *js,
                                                           const cuzk__jobstore_ref *ref,
                                                           cuzk__jobstore_outcome *outcome,
                                                           cuzk_error *err);

typedef enum {
    CUZK__JS_HELD = 0,     /* still this daemon's (lease extended) */
    CUZK__JS_LOST = 1,     /* another daemon's now: stop, a result would be fenced */
    CUZK__JS_JOB_ENDED = 2 /* its job ended: stop */
} cuzk__jobstore_lease_state;

typedef struct {
    cuzk__jobstore_ref ref;           /* in */
    cuzk__jobstore_lease_state state; /* out */
} cuzk__jobstore_lease;

/* The heartbeat: extends the daemon's leases and tells each of held[0..n)
 * (may be NULL with n 0) whether it is still the daemon's. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_renew(cuzk__jobstore *js,
                                                         cuzk__jobstore_lease *held, size_t n,
                                                         cuzk_error *err);

/* Puts back in the queue the partitions whose lease expired, and forgets
 * daemons silent for long (PostgreSQL; nothing expires on SQLite). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_reap(cuzk__jobstore *js, size_t *requeued,
                                                        cuzk_error *err);

/* The daemon's clean exit: what it still holds goes back to the queue and
 * its row goes (PostgreSQL). *released (may be NULL): how many. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_leave(cuzk__jobstore *js, size_t *released,
                                                         cuzk_error *err);

/* ---- notifications and the cluster ------------------------------------------ */

typedef enum {
    CUZK__JS_EVENT_END = 0,   /* a job ended */
    CUZK__JS_EVENT_NEW = 1,   /* a job was submitted */
    CUZK__JS_EVENT_RESYNC = 2 /* events may have been lost: look again */
} cuzk__jobstore_event;

/* The next notification within timeout_ms: *got 1 and *ev, or *got 0.
 * CUZK_ERR_UNSUPPORTED on SQLite (nothing else writes to it). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_wait(cuzk__jobstore *js, int timeout_ms,
                                                        cuzk__jobstore_event *ev, uint64_t *job_id,
                                                        int *got, cuzk_error *err);

typedef struct {
    uint64_t id;
    char name[CUZK__STORE_NAME_MAX + 1];
    char info[512];
    int64_t started_ms, heartbeat_age_ms;
    size_t held; /* partitions it has claimed */
} cuzk__jobstore_daemon;

/* Every daemon registered: *v malloc'd, *n of them (free it). SQLite:
 * none (the daemon describes itself). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__jobstore_daemons(cuzk__jobstore *js,
                                                           cuzk__jobstore_daemon **v, size_t *n,
                                                           cuzk_error *err);

#endif /* CUZK_SERVICE_JOBSTORE_H */
