/*
 * fuzz_request.c — libFuzzer target for the daemon's request handling: the
 * multipart reader (src/service/multipart.c), the submission forms
 * (submit_form.c) and every route (routes.c), against a real daemon (CPU
 * backend, a store in a temporary folder, no keys) started once.
 *
 * Input: a flags byte (bit 0: the body is multipart, else JSON; bits 1-3:
 * the method), a byte that picks where the body is split in two, the
 * request target ("/v1/jobs?limit=3") up to a newline, then the body.
 *
 * Properties: the multipart reader gives the same parts, the same bytes
 * and the same verdict whether the body comes whole or in two pieces, and
 * never holds a part's content whole; every answer is a status code the
 * API uses with a body that parses as JSON (or a static file, metrics
 * text, or proofs); an error answer carries a status name that is not OK.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "io/json.h"
#include "service/config.h"
#include "service/daemon.h"
#include "service/multipart.h"
#include "service/routes.h"
#include "service/submit_form.h"

#define BOUNDARY "b0undary"
#define CT_MULTIPART "multipart/form-data; boundary=" BOUNDARY

/* ---- the reader, whole against split ------------------------------------------ */

typedef struct {
    char log[1 << 14]; /* the parts and a digest of their bytes, as text */
    size_t n;
    uint64_t digest;
} record;

static void rec_add(record *r, const char *s) {
    const size_t k = strlen(s);
    if (k < sizeof(r->log) - r->n) {
        memcpy(r->log + r->n, s, k);
        r->n += k;
    }
}

static cuzk_status rec_begin(void *user, const cuzk__mp_part *p, cuzk_error *err) {
    (void)err;
    record *r = user;
    char line[3 * CUZK__MP_NAME_MAX + 32];
    snprintf(line, sizeof(line), "[%s|%d:%s|%s]", p->name, p->has_filename, p->filename,
             p->content_type);
    rec_add(r, line);
    r->digest = 1469598103934665603ull;
    return CUZK_OK;
}

static cuzk_status rec_data(void *user, const void *p, size_t n, cuzk_error *err) {
    (void)err;
    record *r = user;
    FUZZ_ASSERT(n > 0);
    for (size_t i = 0; i < n; i++) r->digest = (r->digest ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
    return CUZK_OK;
}

static cuzk_status rec_end(void *user, cuzk_error *err) {
    (void)err;
    record *r = user;
    char line[32];
    snprintf(line, sizeof(line), "<%016llx>", (unsigned long long)r->digest);
    rec_add(r, line);
    return CUZK_OK;
}

static cuzk_status read_multipart(const uint8_t *body, size_t n, size_t split, record *r) {
    memset(r, 0, sizeof(*r));
    const cuzk__mp_callbacks cb = {rec_begin, rec_data, rec_end, r};
    cuzk__mp_reader *mp = NULL;
    cuzk_error err;
    FUZZ_ASSERT(cuzk__mp_reader_new(&mp, CT_MULTIPART, &cb, &err) == CUZK_OK);
    cuzk_status st = cuzk__mp_reader_feed(mp, body, split, &err);
    if (st == CUZK_OK) st = cuzk__mp_reader_feed(mp, body + split, n - split, &err);
    if (st == CUZK_OK) st = cuzk__mp_reader_finish(mp, &err);
    if (st != CUZK_OK) {
        FUZZ_ASSERT(st == CUZK_ERR_INVALID_ARG && err.status == st && err.msg[0] != '\0');
        rec_add(r, "!refused");
    }
    cuzk__mp_reader_free(mp);
    return st;
}

/* ---- a daemon to answer ------------------------------------------------------------ */

static cuzk__daemon *daemon_;
static char dir_[64];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void teardown(void) {
    cuzk__daemon_stop(daemon_);
    if (dir_[0] != '\0') nftw(dir_, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void) {
    snprintf(dir_, sizeof(dir_), "/tmp/cuzk-fuzz-request.XXXXXX");
    FUZZ_ASSERT(mkdtemp(dir_) != NULL);
    cuzk__daemon_config cfg;
    cuzk__daemon_config_defaults(&cfg);
    char db[128], spool[128];
    snprintf(db, sizeof(db), "%s/db", dir_);
    snprintf(spool, sizeof(spool), "%s/spool", dir_);
    cuzk_error err;
    FUZZ_ASSERT(cuzk__daemon_config_set(&cfg, "store.database", db, &err) == CUZK_OK);
    FUZZ_ASSERT(cuzk__daemon_config_set(&cfg, "store.spool_dir", spool, &err) == CUZK_OK);
    FUZZ_ASSERT(cuzk__daemon_config_set(&cfg, "engine.backend", "cpu", &err) == CUZK_OK);
    FUZZ_ASSERT(cuzk__daemon_config_set(&cfg, "engine.threads", "1", &err) == CUZK_OK);
    FUZZ_ASSERT(cuzk__daemon_config_check(&cfg, &err) == CUZK_OK);
    FUZZ_ASSERT(cuzk__daemon_start(&daemon_, &cfg, NULL, NULL, &err) == CUZK_OK);
    cuzk__daemon_config_free(&cfg);
    atexit(teardown);
}

/* The query of the request target: "a=1&b=2", looked up by name. */
typedef struct {
    char text[512];
    const char *name[16], *value[16];
    size_t n;
} query;

static const char *query_get(void *user, const char *name) {
    const query *q = user;
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->name[i], name) == 0) return q->value[i];
    return NULL;
}

static void query_parse(query *q, const char *s, size_t len) {
    q->n = 0;
    if (len >= sizeof(q->text)) len = sizeof(q->text) - 1;
    memcpy(q->text, s, len);
    q->text[len] = '\0';
    for (char *p = q->text; p != NULL && *p != '\0' && q->n < 16;) {
        char *amp = strchr(p, '&');
        if (amp != NULL) *amp = '\0';
        char *eq = strchr(p, '=');
        if (eq != NULL) *eq = '\0';
        q->name[q->n] = p;
        q->value[q->n] = eq != NULL ? eq + 1 : "";
        q->n++;
        p = amp != NULL ? amp + 1 : NULL;
    }
}

static void check_answer(const cuzk__response *r) {
    static const unsigned codes[] = {200, 201, 202, 204, 400, 401, 404, 405, 409, 413, 500, 503};
    int known = 0;
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) known |= r->code == codes[i];
    FUZZ_ASSERT(known);
    if (r->code == 204) {
        FUZZ_ASSERT(r->len == 0);
        return;
    }
    FUZZ_ASSERT(r->body != NULL && r->len > 0 && r->content_type != NULL);
    if (strcmp(r->content_type, "application/json") != 0) return;
    cuzk_json *root = NULL;
    cuzk_error err;
    FUZZ_ASSERT(cuzk_json_parse(&root, r->body, r->len, NULL, &err) == CUZK_OK);
    if (r->code >= 400) {
        const cuzk_json *e = cuzk_json_get(root, "error");
        const cuzk_json *st = cuzk_json_get(e, "status");
        FUZZ_ASSERT(st != NULL && st->type == CUZK_JSON_STRING && strcmp(st->str, "OK") != 0);
        FUZZ_ASSERT(cuzk_json_get(e, "message") != NULL);
        FUZZ_ASSERT(r->code != 405 || r->allow != NULL);
    }
    cuzk_json_free(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (daemon_ == NULL) setup();
    if (size < 2) return 0;
    static const char *const methods[] = {"GET", "POST", "DELETE", "PUT",
                                          "GET", "POST", "HEAD",   "PATCH"};
    const int multipart = data[0] & 1;
    const char *method = methods[(data[0] >> 1) & 7];
    const uint8_t *line = data + 2, *nl = memchr(line, '\n', size - 2);
    if (nl == NULL) return 0;
    const uint8_t *body = nl + 1;
    const size_t body_n = size - (size_t)(body - data);
    const size_t split = body_n ? data[1] % (body_n + 1) : 0;

    char target[1024];
    const size_t tl = (size_t)(nl - line) < sizeof(target) - 1 ? (size_t)(nl - line)
                                                               : sizeof(target) - 1;
    memcpy(target, line, tl);
    target[tl] = '\0';
    if (strlen(target) != tl || target[0] != '/') return 0; /* what HTTP delivers */
    char *qm = strchr(target, '?');
    query q;
    query_parse(&q, qm != NULL ? qm + 1 : "", qm != NULL ? strlen(qm + 1) : 0);
    if (qm != NULL) *qm = '\0';

    /* the multipart reader: whole and split agree */
    if (multipart) {
        static record whole, parts;
        const cuzk_status a = read_multipart(body, body_n, body_n, &whole);
        const cuzk_status b = read_multipart(body, body_n, split, &parts);
        FUZZ_ASSERT(a == b);
        FUZZ_ASSERT(whole.n == parts.n && memcmp(whole.log, parts.log, whole.n) == 0);
    }

    /* the route, with its body read as the HTTP server reads it */
    cuzk__request req = {method, target, query_get, &q, NULL, (const char *)body, body_n};
    cuzk__response resp;
    cuzk__submit_form *form = NULL;
    if (cuzk__route_body(method, target) == CUZK__BODY_SUBMIT) {
        cuzk__witness_sink sink;
        cuzk__route_spool_sink(daemon_, &sink);
        cuzk_error err;
        FUZZ_ASSERT(cuzk__submit_form_new(&form, &sink, &err) == CUZK_OK);
        cuzk_status st;
        if (multipart) {
            st = cuzk__submit_form_multipart(form, CT_MULTIPART, &err);
            if (st == CUZK_OK) st = cuzk__submit_form_feed(form, body, split, &err);
            if (st == CUZK_OK) st = cuzk__submit_form_feed(form, body + split, body_n - split, &err);
            if (st == CUZK_OK) st = cuzk__submit_form_finish(form, &err);
        } else {
            st = cuzk__submit_form_json(form, (const char *)body, body_n, &err);
        }
        if (st != CUZK_OK) {
            FUZZ_ASSERT((unsigned)st < CUZK_STATUS_COUNT && err.msg[0] != '\0');
            cuzk__submit_form_free(form);
            return 0;
        }
        req.form = form;
    }
    cuzk__route_handle(daemon_, &req, &resp);
    check_answer(&resp);
    cuzk__response_free(&resp);
    cuzk__submit_form_free(form);
    return 0;
}
