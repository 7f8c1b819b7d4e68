/* submit_form.c — a submission from a multipart or JSON body (submit_form.h). */
#include "service/submit_form.h"

#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "service/multipart.h"
#include "util/error.h"
#include "util/mem.h"

#define TEXT_MAX 4096          /* a text field (a server path the longest) */
#define JSON_BODY_MAX (1u << 20) /* the JSON form: paths only */
/* its values: a few members and a witness path a partition (a tree takes
 * ~80 bytes a value: without a bound 1 MiB of "[0,0,...]" costs ~40 MB) */
#define JSON_VALUES_MAX ((size_t)65536 + 64)

typedef enum { F_NONE, F_KEY, F_PRIORITY, F_REQUEST_ID, F_WITNESS, F_WITNESS_PATH } field;

struct cuzk__submit_form {
    cuzk__witness_sink sink;
    cuzk__mp_reader *mp;
    field cur;              /* the part being read */
    char text[TEXT_MAX + 1]; /* a text part so far */
    size_t text_n;
    void *writer; /* the witness file being written */
    uint64_t upload_bytes;

    char key[CUZK__STORE_NAME_MAX + 1];
    char request_id[CUZK__STORE_NAME_MAX + 1];
    int has_key, has_request_id, has_priority;
    cuzk_priority priority;
    cuzk__store_witness *w; /* spool names and paths are malloc'd strings */
    size_t n, cap;
    int keep;
};

static const char *const PRIORITY_NAMES[] = {"low", "normal", "high", "critical"};

int cuzk__priority_parse(const char *s, cuzk_priority *p) {
    for (int i = 0; i < 4; i++)
        if (strcmp(s, PRIORITY_NAMES[i]) == 0) {
            *p = (cuzk_priority)i;
            return 1;
        }
    return 0;
}

const char *cuzk__priority_name(cuzk_priority p) {
    return (unsigned)p < 4 ? PRIORITY_NAMES[p] : "?";
}

cuzk_status cuzk__submit_form_new(cuzk__submit_form **out, const cuzk__witness_sink *sink,
                                  cuzk_error *err) {
    cuzk__error_clear(err);
    *out = calloc(1, sizeof(**out));
    if (*out == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a submission");
    (*out)->sink = *sink;
    (*out)->priority = CUZK_PRIORITY_NORMAL;
    return CUZK_OK;
}

/* One more witness: a spool name or a path (copied). */
static cuzk_status add_witness(cuzk__submit_form *f, const char *spool, const char *path,
                               cuzk_error *err) {
    if (f->n == CUZK__STORE_MAX_PARTITIONS)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness: more than %d partitions",
                          CUZK__STORE_MAX_PARTITIONS);
    if (f->n == f->cap) {
        const size_t cap = f->cap ? 2 * f->cap : 16;
        cuzk__store_witness *p = realloc(f->w, cap * sizeof(*p));
        if (p == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "witness: no memory");
        f->w = p;
        f->cap = cap;
    }
    char *copy = cuzk__strdup(spool != NULL ? spool : path);
    if (copy == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "witness: no memory");
    f->w[f->n].spool = spool != NULL ? copy : NULL;
    f->w[f->n].path = spool != NULL ? NULL : copy;
    f->n++;
    return CUZK_OK;
}

/* A text value for a field: key, priority, request_id or a witness path. */
static cuzk_status set_text(cuzk__submit_form *f, field which, const char *v, size_t len,
                            cuzk_error *err) {
    if (memchr(v, '\0', len) != NULL || !cuzk_json_utf8_valid(v, len))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "a text field holds a NUL byte or bytes that are not UTF-8");
    switch (which) {
    case F_KEY:
    case F_REQUEST_ID: {
        const char *name = which == F_KEY ? "key" : "request_id";
        int *has = which == F_KEY ? &f->has_key : &f->has_request_id;
        char *dst = which == F_KEY ? f->key : f->request_id;
        if (*has) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: given twice", name);
        if (len == 0 || len > CUZK__STORE_NAME_MAX)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %zu bytes, not 1 to %d", name,
                              len, CUZK__STORE_NAME_MAX);
        memcpy(dst, v, len);
        dst[len] = '\0';
        *has = 1;
        return CUZK_OK;
    }
    case F_PRIORITY: {
        char s[16] = "";
        if (f->has_priority) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "priority: given twice");
        if (len < sizeof(s)) memcpy(s, v, len);
        if (len >= sizeof(s) || !cuzk__priority_parse(s, &f->priority))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "priority: \"%.*s\" is not low, normal, high or critical",
                              (int)(len < 32 ? len : 32), v);
        f->has_priority = 1;
        return CUZK_OK;
    }
    case F_WITNESS_PATH: {
        if (len == 0 || v[0] != '/')
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "witness_path %zu: not an absolute path on the server", f->n);
        /* the JSON reader's values are not bounded by TEXT_MAX as parts are */
        if (len >= TEXT_MAX)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "witness_path %zu: %zu bytes, longer than a path (%d at most)",
                              f->n, len, TEXT_MAX - 1);
        char path[TEXT_MAX];
        memcpy(path, v, len);
        path[len] = '\0';
        return add_witness(f, NULL, path, err);
    }
    default:
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "no such field");
    }
}

/* ---- multipart ---------------------------------------------------------------- */

static cuzk_status part_begin(void *user, const cuzk__mp_part *part, cuzk_error *err) {
    cuzk__submit_form *f = user;
    static const struct {
        const char *name;
        field f;
    } fields[] = {{"key", F_KEY},
                  {"priority", F_PRIORITY},
                  {"request_id", F_REQUEST_ID},
                  {"witness", F_WITNESS},
                  {"witness_path", F_WITNESS_PATH}};
    f->cur = F_NONE;
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        if (strcmp(part->name, fields[i].name) == 0) f->cur = fields[i].f;
    if (f->cur == F_NONE)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "form field \"%.64s\": not key, priority, request_id, witness or "
                          "witness_path",
                          part->name);
    f->text_n = 0;
    if (f->cur == F_WITNESS) {
        if (f->n == CUZK__STORE_MAX_PARTITIONS)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness: more than %d partitions",
                              CUZK__STORE_MAX_PARTITIONS);
        return f->sink.begin(f->sink.user, &f->writer, err);
    }
    return CUZK_OK;
}

static cuzk_status part_data(void *user, const void *p, size_t n, cuzk_error *err) {
    cuzk__submit_form *f = user;
    if (f->cur == F_WITNESS) {
        f->upload_bytes += n;
        return f->sink.append(f->writer, p, n, err);
    }
    if (n > TEXT_MAX - f->text_n)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "form field: longer than %d bytes",
                          TEXT_MAX);
    memcpy(f->text + f->text_n, p, n);
    f->text_n += n;
    return CUZK_OK;
}

static cuzk_status part_end(void *user, cuzk_error *err) {
    cuzk__submit_form *f = user;
    if (f->cur != F_WITNESS) return set_text(f, f->cur, f->text, f->text_n, err);
    char name[CUZK__STORE_SPOOL_NAME_BYTES];
    void *w = f->writer;
    f->writer = NULL;
    cuzk_status st = f->sink.commit(w, name, sizeof(name), err);
    if (st != CUZK_OK) return st;
    st = add_witness(f, name, NULL, err);
    if (st != CUZK_OK) f->sink.remove(f->sink.user, name);
    return st;
}

cuzk_status cuzk__submit_form_multipart(cuzk__submit_form *f, const char *content_type,
                                        cuzk_error *err) {
    const cuzk__mp_callbacks cb = {part_begin, part_data, part_end, f};
    return cuzk__mp_reader_new(&f->mp, content_type, &cb, err);
}

cuzk_status cuzk__submit_form_feed(cuzk__submit_form *f, const void *p, size_t n,
                                   cuzk_error *err) {
    if (f->mp == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "submit form: not a multipart body");
    return cuzk__mp_reader_feed(f->mp, p, n, err);
}

static cuzk_status check(const cuzk__submit_form *f, cuzk_error *err) {
    if (!f->has_key) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "key: missing");
    if (f->n == 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "no witness: give one witness or witness_path per partition");
    return CUZK_OK;
}

cuzk_status cuzk__submit_form_finish(cuzk__submit_form *f, cuzk_error *err) {
    if (f->mp == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "submit form: not a multipart body");
    const cuzk_status st = cuzk__mp_reader_finish(f->mp, err);
    return st == CUZK_OK ? check(f, err) : st;
}

/* ---- JSON ------------------------------------------------------------------------ */

static cuzk_status json_text(cuzk__submit_form *f, const cuzk_json *v, field which,
                             const char *name, cuzk_error *err) {
    if (v->type != CUZK_JSON_STRING)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s (line %u): a %s, not a string", name,
                          v->line, cuzk_json_type_name(v->type));
    return set_text(f, which, v->str, v->len, err);
}

cuzk_status cuzk__submit_form_json(cuzk__submit_form *f, const char *text, size_t len,
                                   cuzk_error *err) {
    cuzk_json *root = NULL;
    const cuzk_json_limits lim = {JSON_BODY_MAX, 8, JSON_VALUES_MAX};
    cuzk_status st = cuzk_json_parse(&root, text, len, &lim, err);
    if (st != CUZK_OK) return st;
    if (root->type != CUZK_JSON_OBJECT) {
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "body: a %s, not an object",
                        cuzk_json_type_name(root->type));
        goto out;
    }
    for (const cuzk_json *m = root->len ? root->items[0] : NULL; st == CUZK_OK && m != NULL;
         m = m->next) {
        if (strcmp(m->key, "key") == 0) {
            st = json_text(f, m, F_KEY, "key", err);
        } else if (strcmp(m->key, "priority") == 0) {
            st = json_text(f, m, F_PRIORITY, "priority", err);
        } else if (strcmp(m->key, "request_id") == 0) {
            if (m->type != CUZK_JSON_NULL) st = json_text(f, m, F_REQUEST_ID, "request_id", err);
        } else if (strcmp(m->key, "witness_paths") == 0) {
            if (m->type != CUZK_JSON_ARRAY) {
                st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                "witness_paths (line %u): a %s, not an array", m->line,
                                cuzk_json_type_name(m->type));
                break;
            }
            for (size_t i = 0; st == CUZK_OK && i < m->len; i++)
                st = json_text(f, m->items[i], F_WITNESS_PATH, "witness_paths[]", err);
        } else {
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "\"%.64s\" (line %u): not key, priority, request_id or "
                            "witness_paths",
                            m->key, m->line);
        }
    }
    if (st == CUZK_OK) st = check(f, err);
out:
    cuzk_json_free(root);
    return st;
}

/* ---- what it says ------------------------------------------------------------------ */

const char *cuzk__submit_form_key(const cuzk__submit_form *f) { return f->key; }
const char *cuzk__submit_form_request_id(const cuzk__submit_form *f) {
    return f->has_request_id ? f->request_id : NULL;
}
cuzk_priority cuzk__submit_form_priority(const cuzk__submit_form *f) { return f->priority; }
const cuzk__store_witness *cuzk__submit_form_witnesses(const cuzk__submit_form *f, size_t *n) {
    *n = f->n;
    return f->w;
}
uint64_t cuzk__submit_form_upload_bytes(const cuzk__submit_form *f) { return f->upload_bytes; }
void cuzk__submit_form_keep_files(cuzk__submit_form *f) { f->keep = 1; }

void cuzk__submit_form_free(cuzk__submit_form *f) {
    if (f == NULL) return;
    if (f->writer != NULL) f->sink.abort(f->writer);
    for (size_t i = 0; i < f->n; i++) {
        if (f->w[i].spool != NULL && !f->keep) f->sink.remove(f->sink.user, f->w[i].spool);
        free((void *)(f->w[i].spool != NULL ? f->w[i].spool : f->w[i].path));
    }
    free(f->w);
    cuzk__mp_reader_free(f->mp);
    free(f);
}
