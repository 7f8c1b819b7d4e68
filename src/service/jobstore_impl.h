/*
 * jobstore_impl.h — what an implementation of jobstore.h provides: a table
 * of operations over its own state, which jobstore.c dispatches to. Only
 * jobstore.c and the implementations (jobstore_sqlite.c, jobstore_pg.c)
 * include it.
 */
#ifndef CUZK_SERVICE_JOBSTORE_IMPL_H
#define CUZK_SERVICE_JOBSTORE_IMPL_H

#include "service/jobstore.h"

typedef struct {
    const char *kind;
    int shared;
    void (*close)(void *impl);
    const char *(*where)(const void *impl);
    uint64_t (*self)(void *impl);
    uint64_t (*reconnects)(void *impl);
    void (*sink)(void *impl, cuzk__witness_sink *sink);
    cuzk_status (*upload_check_file)(void *impl, const char *name, char *path, size_t cap,
                                     int *temporary, cuzk_error *err);
    cuzk_status (*submit)(void *impl, const cuzk__store_job *job, uint64_t *id, int *existed,
                          cuzk_error *err);
    cuzk_status (*get)(void *impl, uint64_t id, cuzk__jobstore_job *job, cuzk_error *err);
    cuzk_status (*list)(void *impl, unsigned mask, uint64_t after, size_t limit,
                        cuzk__jobstore_job **jobs, size_t *n, cuzk_error *err);
    cuzk_status (*counts)(void *impl, uint64_t counts[5], cuzk_error *err);
    cuzk_status (*backlog)(void *impl, size_t *n, cuzk_error *err);
    cuzk_status (*cancel)(void *impl, uint64_t id, cuzk_job_state *state, cuzk_error *err);
    cuzk_status (*collect)(void *impl, uint64_t id, cuzk_error *err);
    cuzk_status (*results)(void *impl, uint64_t id, cuzk_proof *proofs, uint64_t *owners,
                           size_t cap, uint8_t **pub, size_t *pub_bytes, cuzk_error *err);
    cuzk_status (*expire)(void *impl, int64_t age_ms, size_t *removed, cuzk_error *err);
    cuzk_status (*claim)(void *impl, const char *const *keys, size_t nkeys, size_t max,
                         cuzk__jobstore_part *parts, size_t *n, cuzk_error *err);
    cuzk_status (*describe)(void *impl, const char *info, const char *const *keys, size_t nkeys,
                            cuzk_error *err);
    cuzk_status (*fetch)(void *impl, cuzk__jobstore_part *part, int (*stop)(void *),
                         void *stop_user, cuzk_error *err);
    cuzk_status (*complete)(void *impl, const cuzk__jobstore_ref *ref, const cuzk_proof *proof,
                            const uint8_t *pub, size_t pub_bytes, cuzk__jobstore_outcome *outcome,
                            int *job_done, cuzk_error *err);
    cuzk_status (*fail)(void *impl, const cuzk__jobstore_ref *ref, cuzk_status status,
                        const char *msg, cuzk__jobstore_outcome *outcome, cuzk_error *err);
    cuzk_status (*release)(void *impl, const cuzk__jobstore_ref *ref,
                           cuzk__jobstore_outcome *outcome, cuzk_error *err);
    cuzk_status (*renew)(void *impl, cuzk__jobstore_lease *held, size_t n, cuzk_error *err);
    cuzk_status (*reap)(void *impl, size_t *requeued, cuzk_error *err);
    cuzk_status (*leave)(void *impl, size_t *released, cuzk_error *err);
    /* NULL: no notifications (the store has no other writer) */
    cuzk_status (*wait)(void *impl, int timeout_ms, cuzk__jobstore_event *ev, uint64_t *job_id,
                        int *got, cuzk_error *err);
    cuzk_status (*daemons)(void *impl, cuzk__jobstore_daemon **v, size_t *n, cuzk_error *err);
} cuzk__jobstore_ops;

typedef void (*cuzk__jobstore_log)(void *user, const char *line);

/* The two implementations' constructors: *ops their table, *impl their state. */
cuzk_status cuzk__jobstore_open_sqlite(const cuzk__jobstore_ops **ops, void **impl,
                                       const cuzk__jobstore_options *opt, cuzk__jobstore_log log,
                                       void *log_user, cuzk_error *err);
cuzk_status cuzk__jobstore_open_pg(const cuzk__jobstore_ops **ops, void **impl,
                                   const cuzk__jobstore_options *opt, cuzk__jobstore_log log,
                                   void *log_user, cuzk_error *err);

#endif /* CUZK_SERVICE_JOBSTORE_IMPL_H */
