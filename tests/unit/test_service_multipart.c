/*
 * test_service_multipart.c — the multipart/form-data reader
 * (src/service/multipart.c) and the submission forms (submit_form.c):
 * bodies as curl writes them, fed whole and split at every byte; a
 * preamble and an epilogue; empty parts; content that holds a prefix of the
 * boundary; and each malformed body refused with a message naming what is
 * wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk.h"
#include "harness.h"
#include "service/multipart.h"
#include "service/submit_form.h"
#include "util/error.h"

#define CT "multipart/form-data; boundary=XbX"

typedef struct {
    char names[8][2 * CUZK__MP_NAME_MAX + 2];
    char data[8][256];
    size_t len[8];
    size_t n;
    int open;
    size_t max_piece;
} parts;

static cuzk_status on_begin(void *u, const cuzk__mp_part *p, cuzk_error *err) {
    (void)err;
    parts *ps = u;
    CHECK(!ps->open && ps->n < 8);
    snprintf(ps->names[ps->n], sizeof(ps->names[0]), "%s%s%s", p->name,
             p->has_filename ? "|" : "", p->has_filename ? p->filename : "");
    ps->len[ps->n] = 0;
    ps->open = 1;
    return CUZK_OK;
}

static cuzk_status on_data(void *u, const void *p, size_t n, cuzk_error *err) {
    (void)err;
    parts *ps = u;
    CHECK(ps->open && n > 0);
    if (n > ps->max_piece) ps->max_piece = n;
    CHECK(ps->len[ps->n] + n <= sizeof(ps->data[0]));
    memcpy(ps->data[ps->n] + ps->len[ps->n], p, n);
    ps->len[ps->n] += n;
    return CUZK_OK;
}

static cuzk_status on_end(void *u, cuzk_error *err) {
    (void)err;
    parts *ps = u;
    CHECK(ps->open);
    ps->open = 0;
    ps->n++;
    return CUZK_OK;
}

/* Reads body in two pieces split at `split`; the status, and *ps. */
static cuzk_status read_split(const char *body, size_t n, size_t split, parts *ps,
                              cuzk_error *err) {
    memset(ps, 0, sizeof(*ps));
    const cuzk__mp_callbacks cb = {on_begin, on_data, on_end, ps};
    cuzk__mp_reader *r = NULL;
    cuzk_status st = cuzk__mp_reader_new(&r, CT, &cb, err);
    if (st != CUZK_OK) return st;
    st = cuzk__mp_reader_feed(r, body, split, err);
    if (st == CUZK_OK) st = cuzk__mp_reader_feed(r, body + split, n - split, err);
    if (st == CUZK_OK) st = cuzk__mp_reader_finish(r, err);
    cuzk__mp_reader_free(r);
    return st;
}

static const char GOOD[] =
    "preamble to ignore\r\n"
    "--XbX\r\n"
    "Content-Disposition: form-data; name=\"key\"\r\n"
    "\r\n"
    "sample\r\n"
    "--XbX\r\n"
    "Content-Disposition: form-data; name=\"witness\"; filename=\"w 0.wtns\"\r\n"
    "Content-Type: application/octet-stream\r\n"
    "\r\n"
    "ab\r\n--Xbc\r\n--Xb\r\n"
    "--XbX\r\n"
    "Content-Disposition: form-data; name=\"empty\"\r\n"
    "\r\n"
    "\r\n"
    "--XbX--\r\n"
    "epilogue";

static void test_good_every_split(void) {
    const size_t n = sizeof(GOOD) - 1;
    for (size_t split = 0; split <= n; split++) {
        parts ps;
        cuzk_error err;
        CHECK(read_split(GOOD, n, split, &ps, &err) == CUZK_OK);
        CHECK(ps.n == 3);
        CHECK(strcmp(ps.names[0], "key") == 0 && ps.len[0] == 6 &&
              memcmp(ps.data[0], "sample", 6) == 0);
        /* content holding boundary-like bytes comes out whole and unchanged */
        static const char w[] = "ab\r\n--Xbc\r\n--Xb";
        CHECK(strcmp(ps.names[1], "witness|w 0.wtns") == 0 && ps.len[1] == sizeof(w) - 1 &&
              memcmp(ps.data[1], w, sizeof(w) - 1) == 0);
        CHECK(strcmp(ps.names[2], "empty") == 0 && ps.len[2] == 0);
    }
}

/* Content is handed on as it arrives, never held whole: a 1 MiB part fed in
 * 4 KiB pieces comes out in pieces no larger than what was fed. */
typedef struct {
    size_t total, max, parts;
} counter;

static cuzk_status c_begin(void *u, const cuzk__mp_part *p, cuzk_error *err) {
    (void)p;
    (void)err;
    ((counter *)u)->parts++;
    return CUZK_OK;
}
static cuzk_status c_data(void *u, const void *p, size_t n, cuzk_error *err) {
    (void)p;
    (void)err;
    counter *c = u;
    c->total += n;
    if (n > c->max) c->max = n;
    return CUZK_OK;
}
static cuzk_status c_end(void *u, cuzk_error *err) {
    (void)u;
    (void)err;
    return CUZK_OK;
}

static void test_streams(void) {
    const size_t big = 1u << 20, piece = 4096;
    char *body = malloc(big + 256);
    const int k = snprintf(body, 256,
                           "--XbX\r\nContent-Disposition: form-data; name=\"witness\"; "
                           "filename=\"w\"\r\n\r\n");
    memset(body + k, 'x', big);
    memcpy(body + k + big, "\r\n--XbX--", 9);
    const size_t n = (size_t)k + big + 9;
    counter c = {0, 0, 0};
    const cuzk__mp_callbacks cb = {c_begin, c_data, c_end, &c};
    cuzk__mp_reader *r = NULL;
    cuzk_error err;
    CHECK(cuzk__mp_reader_new(&r, CT, &cb, &err) == CUZK_OK);
    for (size_t off = 0; off < n; off += piece)
        CHECK(cuzk__mp_reader_feed(r, body + off, n - off < piece ? n - off : piece, &err) ==
              CUZK_OK);
    CHECK(cuzk__mp_reader_finish(r, &err) == CUZK_OK);
    CHECK(c.parts == 1 && c.total == big && c.max <= piece + 16);
    CHECK(cuzk__mp_reader_parts(r) == 1);
    cuzk__mp_reader_free(r);
    free(body);
}

static void test_refused(void) {
    static const struct {
        const char *body, *msg;
    } bad[] = {
        {"--XbX\r\nContent-Disposition: form-data; name=\"k\"\r\n\r\nv\r\n--XbX",
         "before its closing boundary"},
        {"--XbX\r\nContent-Type: text/plain\r\n\r\nv\r\n--XbX--", "no Content-Disposition"},
        {"--XbX\r\nContent-Disposition: attachment; name=\"k\"\r\n\r\nv\r\n--XbX--",
         "not form-data"},
        {"--XbX\r\nContent-Disposition: form-data\r\n\r\nv\r\n--XbX--", "no field name"},
        {"--XbX\r\nno colon here\r\n\r\nv\r\n--XbX--", "without ':'"},
        {"--XbXjunk\r\n", "neither CRLF"},
        {"no boundary at all", "before its closing boundary"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const size_t n = strlen(bad[i].body);
        for (size_t split = 0; split <= n; split++) {
            parts ps;
            cuzk_error err;
            CHECK(read_split(bad[i].body, n, split, &ps, &err) == CUZK_ERR_INVALID_ARG);
            CHECK(strstr(err.msg, bad[i].msg) != NULL);
        }
    }
    /* padding after a boundary: a little is allowed, a flood refused at
     * once (held, it would fill the reader's buffer), whole or in pieces */
    {
        static const char padded[] = "--XbX  \t \r\nContent-Disposition: form-data; "
                                     "name=\"k\"\r\n\r\nv\r\n--XbX \r\n"
                                     "Content-Disposition: form-data; name=\"j\"\r\n\r\nw"
                                     "\r\n--XbX--";
        parts ps;
        cuzk_error err;
        CHECK(read_split(padded, strlen(padded), 3, &ps, &err) == CUZK_OK && ps.n == 2);
        const size_t pn = 100000;
        char *pad = malloc(pn + 16);
        memcpy(pad, "--XbX", 5);
        memset(pad + 5, ' ', pn);
        for (size_t piece = 1; piece <= pn + 5; piece *= 64) {
            memset(&ps, 0, sizeof(ps));
            const cuzk__mp_callbacks cb = {on_begin, on_data, on_end, &ps};
            cuzk__mp_reader *r = NULL;
            CHECK(cuzk__mp_reader_new(&r, CT, &cb, &err) == CUZK_OK);
            cuzk_status st = CUZK_OK;
            for (size_t at = 0; st == CUZK_OK && at < pn + 5; at += piece)
                st = cuzk__mp_reader_feed(r, pad + at, at + piece < pn + 5 ? piece : pn + 5 - at,
                                          &err);
            CHECK(st == CUZK_ERR_INVALID_ARG && strstr(err.msg, "padding") != NULL);
            cuzk__mp_reader_free(r);
        }
        free(pad);
    }
    /* headers beyond the cap */
    const size_t hn = CUZK__MP_HEADERS_MAX + 100;
    char *h = malloc(hn + 64);
    int k = snprintf(h, 64, "--XbX\r\nX-Long: ");
    memset(h + k, 'a', hn);
    parts ps;
    cuzk_error err;
    CHECK(read_split(h, (size_t)k + hn, 10, &ps, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "headers longer than") != NULL);
    free(h);
    /* content types the reader does not take */
    cuzk__mp_reader *r = NULL;
    const cuzk__mp_callbacks cb = {on_begin, on_data, on_end, &ps};
    CHECK(cuzk__mp_reader_new(&r, "multipart/form-data", &cb, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "no boundary") != NULL);
    CHECK(cuzk__mp_reader_new(&r, "application/json", &cb, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__mp_reader_new(&r, "multipart/form-data; boundary=\"q b\"", &cb, &err) ==
          CUZK_OK);
    cuzk__mp_reader_free(r);
}

/* ---- submission forms, with witnesses kept in memory -------------------------- */

typedef struct {
    char files[4][64];
    size_t len[4];
    size_t n, removed;
} mem_sink;

typedef struct {
    mem_sink *s;
    size_t i;
} mem_writer;

static cuzk_status s_begin(void *user, void **w, cuzk_error *err) {
    mem_sink *s = user;
    if (s->n == 4) return cuzk__fail(err, CUZK_ERR_IO, "sink full");
    mem_writer *mw = malloc(sizeof(*mw));
    mw->s = s;
    mw->i = s->n++;
    s->len[mw->i] = 0;
    *w = mw;
    return CUZK_OK;
}
static cuzk_status s_append(void *w, const void *p, size_t n, cuzk_error *err) {
    mem_writer *mw = w;
    if (mw->s->len[mw->i] + n > 64) return cuzk__fail(err, CUZK_ERR_IO, "file too big");
    memcpy(mw->s->files[mw->i] + mw->s->len[mw->i], p, n);
    mw->s->len[mw->i] += n;
    return CUZK_OK;
}
static cuzk_status s_commit(void *w, char *name, size_t cap, cuzk_error *err) {
    (void)err;
    mem_writer *mw = w;
    snprintf(name, cap, "wit-%032zu", mw->i);
    free(mw);
    return CUZK_OK;
}
static void s_abort(void *w) { free(w); }
static void s_remove(void *user, const char *name) {
    (void)name;
    ((mem_sink *)user)->removed++;
}

static cuzk_status form_from(const char *ct, const char *body, mem_sink *s,
                             cuzk__submit_form **f, cuzk_error *err) {
    memset(s, 0, sizeof(*s));
    const cuzk__witness_sink sink = {s_begin, s_append, s_commit, s_abort, s_remove, s};
    cuzk_status st = cuzk__submit_form_new(f, &sink, err);
    if (st != CUZK_OK) return st;
    if (ct == NULL) return cuzk__submit_form_json(*f, body, strlen(body), err);
    st = cuzk__submit_form_multipart(*f, ct, err);
    if (st == CUZK_OK) st = cuzk__submit_form_feed(*f, body, strlen(body), err);
    if (st == CUZK_OK) st = cuzk__submit_form_finish(*f, err);
    return st;
}

static void test_forms(void) {
    mem_sink s;
    cuzk__submit_form *f = NULL;
    cuzk_error err;
    static const char mp[] =
        "--XbX\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nporep\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"priority\"\r\n\r\ncritical\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"request_id\"\r\n\r\nsector-7\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"witness\"; filename=\"a\"\r\n\r\nAAA\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"witness_path\"\r\n\r\n/srv/w1\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"witness\"; filename=\"b\"\r\n\r\nBB\r\n"
        "--XbX--\r\n";
    CHECK(form_from(CT, mp, &s, &f, &err) == CUZK_OK);
    size_t n = 0;
    const cuzk__store_witness *w = cuzk__submit_form_witnesses(f, &n);
    CHECK(n == 3 && w[0].spool != NULL && w[1].path != NULL && w[2].spool != NULL);
    CHECK(strcmp(w[1].path, "/srv/w1") == 0);
    CHECK(strcmp(cuzk__submit_form_key(f), "porep") == 0);
    CHECK(strcmp(cuzk__submit_form_request_id(f), "sector-7") == 0);
    CHECK(cuzk__submit_form_priority(f) == CUZK_PRIORITY_CRITICAL);
    CHECK(cuzk__submit_form_upload_bytes(f) == 5);
    CHECK(s.n == 2 && s.len[0] == 3 && memcmp(s.files[0], "AAA", 3) == 0);
    cuzk__submit_form_free(f); /* not kept: both uploads removed */
    CHECK(s.removed == 2);

    CHECK(form_from(CT, mp, &s, &f, &err) == CUZK_OK);
    cuzk__submit_form_keep_files(f);
    cuzk__submit_form_free(f);
    CHECK(s.removed == 0);

    CHECK(form_from(NULL, "{\"key\":\"k\",\"witness_paths\":[\"/a\",\"/b\"],\"request_id\":null}",
                    &s, &f, &err) == CUZK_OK);
    CHECK(cuzk__submit_form_witnesses(f, &n) != NULL && n == 2);
    CHECK(cuzk__submit_form_request_id(f) == NULL);
    CHECK(cuzk__submit_form_priority(f) == CUZK_PRIORITY_NORMAL);
    cuzk__submit_form_free(f);

    /* a JSON witness path: the longest a path can be, and one past it */
    for (size_t len = 4094; len <= 9000; len += 9000 - 4094) {
        char *body = malloc(len + 64);
        const int k = snprintf(body, 64, "{\"key\":\"k\",\"witness_paths\":[\"/");
        memset(body + k, 'p', len);
        snprintf(body + k + len, 8, "\"]}");
        const cuzk_status st = form_from(NULL, body, &s, &f, &err);
        if (len == 4094) {
            CHECK(st == CUZK_OK && cuzk__submit_form_witnesses(f, &n) != NULL && n == 1);
            CHECK(strlen(cuzk__submit_form_witnesses(f, &n)[0].path) == 4095);
        } else {
            CHECK(st == CUZK_ERR_INVALID_ARG && strstr(err.msg, "longer than a path") != NULL);
        }
        cuzk__submit_form_free(f);
        free(body);
    }

    static const struct {
        const char *ct, *body, *msg;
    } bad[] = {
        {NULL, "{\"witness_paths\":[\"/a\"]}", "key: missing"},
        {NULL, "{\"key\":\"k\"}", "no witness"},
        {NULL, "{\"key\":\"k\",\"witness_paths\":[]}", "no witness"},
        {NULL, "{\"key\":\"k\",\"witness_paths\":[\"rel/w\"]}", "not an absolute path"},
        {NULL, "{\"key\":\"k\",\"priority\":\"urgent\",\"witness_paths\":[\"/a\"]}",
         "is not low, normal, high or critical"},
        {NULL, "{\"key\":7,\"witness_paths\":[\"/a\"]}", "not a string"},
        {NULL, "{\"key\":\"k\",\"extra\":1,\"witness_paths\":[\"/a\"]}", "\"extra\""},
        {NULL, "[1]", "not an object"},
        {NULL, "{\"key\":\"k\",\"key\":\"j\",\"witness_paths\":[\"/a\"]}", "given twice"},
        {CT, "--XbX\r\nContent-Disposition: form-data; name=\"nope\"\r\n\r\nv\r\n--XbX--",
         "form field \"nope\""},
        {CT, "--XbX\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\n\r\n--XbX--",
         "key: 0 bytes"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK(form_from(bad[i].ct, bad[i].body, &s, &f, &err) == CUZK_ERR_INVALID_ARG);
        CHECK(strstr(err.msg, bad[i].msg) != NULL);
        cuzk__submit_form_free(f);
        f = NULL;
    }
    /* a sink that fails: the error comes through, nothing is left behind */
    static const char five[] =
        "--XbX\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nk\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"witness\"; filename=\"a\"\r\n\r\n1\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"witness\"; filename=\"a\"\r\n\r\n2\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"witness\"; filename=\"a\"\r\n\r\n3\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"witness\"; filename=\"a\"\r\n\r\n4\r\n"
        "--XbX\r\nContent-Disposition: form-data; name=\"witness\"; filename=\"a\"\r\n\r\n5\r\n"
        "--XbX--";
    CHECK(form_from(CT, five, &s, &f, &err) == CUZK_ERR_IO);
    CHECK(strstr(err.msg, "sink full") != NULL);
    cuzk__submit_form_free(f);
    CHECK(s.removed == 4);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_good_every_split);
    RUN(test_streams);
    RUN(test_refused);
    RUN(test_forms);
    return cuzk_test_finish();
}
