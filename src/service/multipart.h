/*
 * multipart.h — a streaming reader of multipart/form-data bodies (RFC 7578,
 * RFC 2046 section 5.1), what `curl -F` sends to POST /v1/jobs.
 *
 * Bytes go in as they arrive, in pieces of any size; each part comes out as
 * a begin (its name, file name and content type from its headers), its
 * content in pieces as soon as they cannot be the start of the boundary,
 * and an end. Memory is bounded: a part's headers at most
 * CUZK__MP_HEADERS_MAX bytes, the content held back at most the boundary's
 * length, whatever the size of the body. Errors name what is wrong and
 * where ("multipart: part 3: no Content-Disposition header").
 */
#ifndef CUZK_SERVICE_MULTIPART_H
#define CUZK_SERVICE_MULTIPART_H

#include <stddef.h>

#include "cuzk.h"

#define CUZK__MP_BOUNDARY_MAX 70 /* RFC 2046 */
#define CUZK__MP_HEADERS_MAX 8192
#define CUZK__MP_NAME_MAX 255

typedef struct {
    char name[CUZK__MP_NAME_MAX + 1];         /* the form field's name */
    char filename[CUZK__MP_NAME_MAX + 1];     /* "" when the part is not a file */
    char content_type[CUZK__MP_NAME_MAX + 1]; /* "" when not given */
    int has_filename;
} cuzk__mp_part;

/* What the reader calls; a status other than CUZK_OK stops it with that
 * status and the callback's err. */
typedef struct {
    cuzk_status (*begin)(void *user, const cuzk__mp_part *part, cuzk_error *err);
    cuzk_status (*data)(void *user, const void *p, size_t n, cuzk_error *err);
    cuzk_status (*end)(void *user, cuzk_error *err);
    void *user;
} cuzk__mp_callbacks;

typedef struct cuzk__mp_reader cuzk__mp_reader;

/*
 * A reader for a body whose Content-Type header is content_type
 * ("multipart/form-data; boundary=..."): CUZK_ERR_INVALID_ARG when it is
 * not multipart/form-data or its boundary is missing or malformed.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__mp_reader_new(cuzk__mp_reader **out,
                                                        const char *content_type,
                                                        const cuzk__mp_callbacks *cb,
                                                        cuzk_error *err);

/* The next n bytes of the body. After a failure the reader refuses more. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__mp_reader_feed(cuzk__mp_reader *r, const void *p,
                                                         size_t n, cuzk_error *err);

/* The body ended: CUZK_ERR_INVALID_ARG unless its closing boundary came. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__mp_reader_finish(cuzk__mp_reader *r, cuzk_error *err);

/* Parts begun so far. */
size_t cuzk__mp_reader_parts(const cuzk__mp_reader *r);

void cuzk__mp_reader_free(cuzk__mp_reader *r);

#endif /* CUZK_SERVICE_MULTIPART_H */
