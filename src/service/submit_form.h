/*
 * submit_form.h — a job submission read from a request body: the
 * multipart/form-data form of POST /v1/jobs (fields key, priority,
 * request_id, then witness file parts and witness_path text parts in
 * partition order) or its JSON form ({"key", "priority", "request_id",
 * "witness_paths"}), doc/api.md.
 *
 * Witness files are streamed to a sink (the daemon's spool) part by part as
 * they arrive; nothing of them is held in memory. Errors name the field
 * ("priority: \"urgent\" is not low, normal, high or critical").
 */
#ifndef CUZK_SERVICE_SUBMIT_FORM_H
#define CUZK_SERVICE_SUBMIT_FORM_H

#include <stddef.h>

#include "cuzk.h"
#include "service/store.h"

/* Where uploaded witnesses go: a writer per file, committed under a name. */
typedef struct {
    cuzk_status (*begin)(void *user, void **writer, cuzk_error *err);
    cuzk_status (*append)(void *writer, const void *p, size_t n, cuzk_error *err);
    /* makes the file durable under a name (cap >= CUZK__STORE_SPOOL_NAME_BYTES);
     * frees the writer whatever the outcome */
    cuzk_status (*commit)(void *writer, char *name, size_t cap, cuzk_error *err);
    void (*abort)(void *writer);
    /* removes a committed file that no job took */
    void (*remove)(void *user, const char *name);
    void *user;
} cuzk__witness_sink;

typedef struct cuzk__submit_form cuzk__submit_form;

/* A form whose witness files go to sink (copied). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__submit_form_new(cuzk__submit_form **out,
                                                          const cuzk__witness_sink *sink,
                                                          cuzk_error *err);

/* A multipart body, fed in pieces, then finished. content_type is the
 * request's Content-Type header. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__submit_form_multipart(cuzk__submit_form *f,
                                                                const char *content_type,
                                                                cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__submit_form_feed(cuzk__submit_form *f, const void *p,
                                                           size_t n, cuzk_error *err);
/* Ends the multipart body and checks the form: a key, at least one witness. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__submit_form_finish(cuzk__submit_form *f,
                                                             cuzk_error *err);

/* The JSON form, whole (len bytes), checked as _finish checks. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__submit_form_json(cuzk__submit_form *f,
                                                           const char *text, size_t len,
                                                           cuzk_error *err);

/* What the form says (valid after a successful _finish or _json). */
const char *cuzk__submit_form_key(const cuzk__submit_form *f);
const char *cuzk__submit_form_request_id(const cuzk__submit_form *f); /* NULL: none */
cuzk_priority cuzk__submit_form_priority(const cuzk__submit_form *f);
const cuzk__store_witness *cuzk__submit_form_witnesses(const cuzk__submit_form *f, size_t *n);
/* Bytes of witness files received. */
uint64_t cuzk__submit_form_upload_bytes(const cuzk__submit_form *f);

/* The committed files now belong to a job: freeing the form keeps them. */
void cuzk__submit_form_keep_files(cuzk__submit_form *f);

/* Frees the form, aborting an open writer and removing committed files not
 * kept. NULL is a no-op. */
void cuzk__submit_form_free(cuzk__submit_form *f);

/* "low", "normal", "high", "critical" -> *p; 0 for anything else. */
int cuzk__priority_parse(const char *s, cuzk_priority *p);
const char *cuzk__priority_name(cuzk_priority p);

#endif /* CUZK_SERVICE_SUBMIT_FORM_H */
