/* multipart.c — a streaming multipart/form-data reader (multipart.h). */
#define _GNU_SOURCE /* memmem */
#include "service/multipart.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"

/* Bytes of content taken from the input per step, so that what is held
 * (the step and the boundary's tail) stays bounded. */
#define STEP 65536
#define PADDING_MAX 256 /* transport padding after a boundary (spaces, tabs) */

typedef enum {
    ST_BODY,    /* content (or the preamble before the first boundary) */
    ST_AFTER,   /* just after a boundary: "--" (the end) or CRLF (a part) */
    ST_HEADERS, /* a part's headers, up to the empty line */
    ST_DONE,    /* the closing boundary came: the epilogue is ignored */
    ST_FAILED
} state;

struct cuzk__mp_reader {
    cuzk__mp_callbacks cb;
    char delim[CUZK__MP_BOUNDARY_MAX + 5]; /* CRLF "--" boundary */
    size_t dlen;
    state st;
    int in_part; /* a part has begun and not ended (0 in the preamble) */
    size_t parts;
    char *buf; /* held bytes: STEP + the delimiter, or the headers */
    size_t n, cap;
};

static cuzk_status failed(cuzk__mp_reader *r, cuzk_status st) {
    r->st = ST_FAILED;
    return st;
}

/* The value of parameter name in a header's parameter list ("; a=b; c="d""),
 * unquoted; 0 when absent or malformed. */
static int header_param(const char *params, const char *name, char *out, size_t cap) {
    const size_t nl = strlen(name);
    const char *p = params;
    while ((p = strchr(p, ';')) != NULL) {
        p++;
        while (*p == ' ' || *p == '\t') p++;
        if (strncasecmp(p, name, nl) != 0 || p[nl] != '=') continue;
        p += nl + 1;
        size_t k = 0;
        if (*p == '"') {
            for (p++; *p != '"'; p++) {
                if (*p == '\0') return 0;
                if (*p == '\\' && p[1] != '\0') p++;
                if (k + 1 >= cap) return 0;
                out[k++] = *p;
            }
        } else {
            for (; *p != '\0' && *p != ';' && *p != ' ' && *p != '\t'; p++) {
                if (k + 1 >= cap) return 0;
                out[k++] = *p;
            }
        }
        out[k] = '\0';
        return 1;
    }
    return 0;
}

cuzk_status cuzk__mp_reader_new(cuzk__mp_reader **out, const char *content_type,
                                const cuzk__mp_callbacks *cb, cuzk_error *err) {
    cuzk__error_clear(err);
    *out = NULL;
    static const char kind[] = "multipart/form-data";
    if (content_type == NULL || strncasecmp(content_type, kind, sizeof(kind) - 1) != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "Content-Type: not %s", kind);
    char boundary[CUZK__MP_BOUNDARY_MAX + 2];
    if (!header_param(content_type + sizeof(kind) - 1, "boundary", boundary, sizeof(boundary)))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "Content-Type: no boundary of 1 to %d characters",
                          CUZK__MP_BOUNDARY_MAX);
    const size_t bl = strlen(boundary);
    if (bl == 0 || bl > CUZK__MP_BOUNDARY_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "Content-Type: boundary of %zu characters",
                          bl);
    cuzk__mp_reader *r = calloc(1, sizeof(*r));
    if (r == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "multipart: no memory");
    r->cb = *cb;
    memcpy(r->delim, "\r\n--", 4);
    memcpy(r->delim + 4, boundary, bl);
    r->dlen = bl + 4;
    r->cap = STEP + r->dlen + CUZK__MP_HEADERS_MAX;
    r->buf = malloc(r->cap);
    if (r->buf == NULL) {
        free(r);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "multipart: no memory");
    }
    /* the first boundary may open the body: read it as if a CRLF came before */
    memcpy(r->buf, "\r\n", 2);
    r->n = 2;
    r->st = ST_BODY;
    *out = r;
    return CUZK_OK;
}

/* One part's headers (r->buf[0..len), without the blank line) -> begin. */
static cuzk_status part_begin(cuzk__mp_reader *r, size_t len, cuzk_error *err) {
    cuzk__mp_part part;
    memset(&part, 0, sizeof(part));
    r->parts++;
    int disposition = 0;
    char *line = r->buf;
    char *const end = r->buf + len;
    *end = '\0';
    while (line < end) {
        char *eol = strstr(line, "\r\n");
        if (eol == NULL) eol = end;
        *eol = '\0';
        char *colon = strchr(line, ':');
        if (colon == NULL)
            return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                        "multipart: part %zu: a header line without ':'",
                                        r->parts));
        *colon = '\0';
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t') v++;
        if (strcasecmp(line, "Content-Disposition") == 0) {
            if (strncasecmp(v, "form-data", 9) != 0)
                return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                            "multipart: part %zu: Content-Disposition is not "
                                            "form-data",
                                            r->parts));
            if (!header_param(v + 9, "name", part.name, sizeof(part.name)))
                return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                            "multipart: part %zu: no field name (at most %d "
                                            "bytes)",
                                            r->parts, CUZK__MP_NAME_MAX));
            part.has_filename =
                header_param(v + 9, "filename", part.filename, sizeof(part.filename));
            disposition = 1;
        } else if (strcasecmp(line, "Content-Type") == 0) {
            const size_t vl = strlen(v);
            if (vl > CUZK__MP_NAME_MAX)
                return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                            "multipart: part %zu: Content-Type longer than %d "
                                            "bytes",
                                            r->parts, CUZK__MP_NAME_MAX));
            memcpy(part.content_type, v, vl + 1);
        }
        line = eol + 2;
    }
    if (!disposition)
        return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                    "multipart: part %zu: no Content-Disposition header",
                                    r->parts));
    r->in_part = 1;
    const cuzk_status st = r->cb.begin(r->cb.user, &part, err);
    return st == CUZK_OK ? CUZK_OK : failed(r, st);
}

/* Moves the first k held bytes out (r->buf keeps the rest). */
static void drop(cuzk__mp_reader *r, size_t k) {
    memmove(r->buf, r->buf + k, r->n - k);
    r->n -= k;
}

/* Content bytes r->buf[0..k) to the open part (the preamble's are dropped). */
static cuzk_status emit(cuzk__mp_reader *r, size_t k, cuzk_error *err) {
    if (k != 0 && r->in_part) {
        const cuzk_status st = r->cb.data(r->cb.user, r->buf, k, err);
        if (st != CUZK_OK) return failed(r, st);
    }
    drop(r, k);
    return CUZK_OK;
}

/* Handles what is held, as far as it can. */
static cuzk_status step(cuzk__mp_reader *r, cuzk_error *err) {
    for (;;) {
        switch (r->st) {
        case ST_BODY: {
            const char *hit = memmem(r->buf, r->n, r->delim, r->dlen);
            if (hit == NULL) { /* keep what may be the start of the delimiter */
                const size_t keep = r->n < r->dlen - 1 ? r->n : r->dlen - 1;
                return emit(r, r->n - keep, err);
            }
            const size_t at = (size_t)(hit - r->buf);
            cuzk_status st = emit(r, at, err);
            if (st != CUZK_OK) return st;
            drop(r, r->dlen);
            if (r->in_part) {
                r->in_part = 0;
                st = r->cb.end(r->cb.user, err);
                if (st != CUZK_OK) return failed(r, st);
            }
            r->st = ST_AFTER;
            break;
        }
        case ST_AFTER: {
            size_t i = 0; /* transport padding before the CRLF */
            while (i < r->n && (r->buf[i] == ' ' || r->buf[i] == '\t')) i++;
            if (i > PADDING_MAX) /* held, it would fill the buffer */
                return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                            "multipart: after boundary %zu: more than %d bytes "
                                            "of padding",
                                            r->parts + 1, PADDING_MAX));
            if (r->n - i < 2) return CUZK_OK;
            if (r->buf[i] == '-' && r->buf[i + 1] == '-') {
                r->st = ST_DONE;
                r->n = 0;
                return CUZK_OK;
            }
            if (r->buf[i] != '\r' || r->buf[i + 1] != '\n')
                return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                            "multipart: after boundary %zu: neither CRLF nor "
                                            "\"--\"",
                                            r->parts + 1));
            drop(r, i + 2);
            r->st = ST_HEADERS;
            break;
        }
        case ST_HEADERS: {
            const char *blank = r->n >= 2 && r->buf[0] == '\r' && r->buf[1] == '\n'
                                    ? r->buf
                                    : memmem(r->buf, r->n, "\r\n\r\n", 4);
            if (blank == NULL) {
                if (r->n > CUZK__MP_HEADERS_MAX)
                    return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                                "multipart: part %zu: headers longer than %d "
                                                "bytes",
                                                r->parts + 1, CUZK__MP_HEADERS_MAX));
                return CUZK_OK;
            }
            const size_t len = (size_t)(blank - r->buf);
            if (len > CUZK__MP_HEADERS_MAX)
                return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                            "multipart: part %zu: headers longer than %d bytes",
                                            r->parts + 1, CUZK__MP_HEADERS_MAX));
            /* part_begin writes into the headers; they and the blank line go */
            const cuzk_status st = part_begin(r, len, err);
            if (st != CUZK_OK) return st;
            drop(r, len == 0 ? 2 : len + 4);
            r->st = ST_BODY;
            break;
        }
        case ST_DONE:
            r->n = 0;
            return CUZK_OK;
        case ST_FAILED:
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "multipart: the body was refused");
        }
    }
}

cuzk_status cuzk__mp_reader_feed(cuzk__mp_reader *r, const void *p, size_t n, cuzk_error *err) {
    cuzk__error_clear(err);
    const unsigned char *in = p;
    while (n != 0) {
        if (r->st == ST_FAILED)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "multipart: the body was refused");
        if (r->st == ST_DONE) return CUZK_OK; /* the epilogue */
        size_t room = r->cap - r->n;
        if (room > STEP) room = STEP;
        const size_t k = n < room ? n : room;
        if (k == 0) /* every state drops what it has read or fails before the buffer fills */
            return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                        "multipart: %zu bytes held and none handled", r->n));
        memcpy(r->buf + r->n, in, k);
        r->n += k;
        in += k;
        n -= k;
        const cuzk_status st = step(r, err);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

cuzk_status cuzk__mp_reader_finish(cuzk__mp_reader *r, cuzk_error *err) {
    cuzk__error_clear(err);
    if (r->st == ST_DONE) return CUZK_OK;
    if (r->st == ST_FAILED)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "multipart: the body was refused");
    return failed(r, cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                "multipart: the body ended before its closing boundary (%zu "
                                "part%s begun)",
                                r->parts, r->parts == 1 ? "" : "s"));
}

size_t cuzk__mp_reader_parts(const cuzk__mp_reader *r) { return r->parts; }

void cuzk__mp_reader_free(cuzk__mp_reader *r) {
    if (r == NULL) return;
    free(r->buf);
    free(r);
}
