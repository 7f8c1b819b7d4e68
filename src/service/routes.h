/*
 * routes.h — the HTTP API of doc/api.md as plain functions of a request,
 * apart from any HTTP library: http.c reads requests off the sockets and
 * calls these; the fuzz target calls them directly.
 *
 * A request is handled in two steps: cuzk__route_body says, from the method
 * and path alone, what the body is for (so the transport can stream a
 * submission's witnesses to the spool as they arrive and refuse what no
 * route takes), then cuzk__route_handle answers it.
 */
#ifndef CUZK_SERVICE_ROUTES_H
#define CUZK_SERVICE_ROUTES_H

#include <stddef.h>

#include "cuzk.h"
#include "service/daemon.h"
#include "service/submit_form.h"

/* What a route does with a request body. */
typedef enum {
    CUZK__BODY_NONE,   /* none is read (one sent is ignored) */
    CUZK__BODY_SUBMIT, /* a submission: multipart streamed to the spool, or JSON */
    CUZK__BODY_JSON    /* a small JSON document, read whole */
} cuzk__body_kind;

/* The largest CUZK__BODY_JSON body (and JSON submission). */
#define CUZK__ROUTE_JSON_MAX (1u << 20)

typedef struct {
    const char *method; /* "GET", "POST", "DELETE", ... */
    const char *path;   /* without the query string, not decoded further */
    /* a query parameter's decoded value, or NULL when absent */
    const char *(*query)(void *user, const char *name);
    void *query_user;
    cuzk__submit_form *form; /* CUZK__BODY_SUBMIT: the submission, read and finished */
    const char *json;        /* CUZK__BODY_JSON: the body (json_len bytes) */
    size_t json_len;
} cuzk__request;

typedef struct {
    unsigned code;            /* the HTTP status */
    const char *content_type; /* NULL with no body */
    char *body;               /* malloc'd, or static when body_static */
    size_t len;
    int body_static;
    const char *allow;        /* 405: the Allow header's value */
} cuzk__response;

/* The body the route of (method, path) takes. */
cuzk__body_kind cuzk__route_body(const char *method, const char *path);

/* The witness sink of submissions: the job store's (the SQLite spool, or
 * PostgreSQL payloads). */
void cuzk__route_spool_sink(cuzk__daemon *d, cuzk__witness_sink *sink);

/* Answers req; *resp is to be freed with cuzk__response_free. Never fails:
 * errors are answers (doc/api.md). */
void cuzk__route_handle(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp);

/* An error answer (the JSON error object) for a status and message. */
void cuzk__response_error(cuzk__response *resp, unsigned code, cuzk_status st,
                          const char *message);
/* The HTTP code an error status maps to (doc/api.md). */
unsigned cuzk__http_code(cuzk_status st);

void cuzk__response_free(cuzk__response *resp);

#endif /* CUZK_SERVICE_ROUTES_H */
