/* routes.c — the HTTP API's routes (routes.h, doc/api.md). */
#include "service/routes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/timeline.h"
#include "io/json.h"
#include "service/jobstore.h"
#include "service/metrics.h"
#include "service/store.h"
#include "service/www.h"
#include "util/error.h"

#define SUBMIT_WAIT_MS 10000   /* room in the queue */
#define AWAIT_DEFAULT_MS 30000
#define PROVE_DEFAULT_MS 300000
#define WAIT_MAX_MS 3600000
#define LIST_DEFAULT 100
#define LIST_MAX 1000
#define TIMELINE_MAX 5000
#define BUSY_WINDOW_MS 10000.0

/* ---- answers ------------------------------------------------------------------ */

unsigned cuzk__http_code(cuzk_status st) {
    switch (st) {
    case CUZK_OK:
        return 200;
    case CUZK_ERR_NOT_FOUND:
        return 404;
    case CUZK_ERR_BUSY:
        return 503;
    case CUZK_ERR_NOMEM:
    case CUZK_ERR_DEVICE_NOMEM:
    case CUZK_ERR_IO:
    case CUZK_ERR_GPU:
    case CUZK_ERR_KEY_CORRUPT:
        return 500;
    default:
        return 400;
    }
}

void cuzk__response_free(cuzk__response *resp) {
    if (!resp->body_static) free(resp->body);
    memset(resp, 0, sizeof(*resp));
}

static void answer_json(cuzk__response *resp, unsigned code, cuzk_json_writer *w) {
    char *text = NULL;
    size_t len = 0;
    if (cuzk_json_writer_finish(w, &text, &len) != CUZK_OK) {
        static const char oom[] =
            "{\"error\":{\"status\":\"ERR_NOMEM\",\"message\":\"no memory for the answer\"}}";
        resp->code = 500;
        resp->content_type = "application/json";
        resp->body = (char *)oom;
        resp->len = sizeof(oom) - 1;
        resp->body_static = 1;
        return;
    }
    resp->code = code;
    resp->content_type = "application/json";
    resp->body = text;
    resp->len = len;
}

static void jkey(cuzk_json_writer *w, const char *k) { cuzk_json_key(w, k, strlen(k)); }
static void jstr(cuzk_json_writer *w, const char *k, const char *v) {
    jkey(w, k);
    cuzk_json_string(w, v, strlen(v));
}
static void ju64(cuzk_json_writer *w, const char *k, uint64_t v) {
    char t[24];
    jkey(w, k);
    cuzk_json_raw(w, t, (size_t)snprintf(t, sizeof(t), "%llu", (unsigned long long)v));
}
static void jdbl(cuzk_json_writer *w, const char *k, double v) {
    char t[32];
    jkey(w, k);
    cuzk_json_raw(w, t, (size_t)snprintf(t, sizeof(t), "%.3f", v));
}
static void jint(cuzk_json_writer *w, const char *k, long long v) {
    char t[24];
    jkey(w, k);
    cuzk_json_raw(w, t, (size_t)snprintf(t, sizeof(t), "%lld", v));
}
static void jraw(cuzk_json_writer *w, const char *k, const char *v) {
    jkey(w, k);
    cuzk_json_raw(w, v, strlen(v));
}

void cuzk__response_error(cuzk__response *resp, unsigned code, cuzk_status st,
                          const char *message) {
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    cuzk_json_begin_object(&w);
    jkey(&w, "error");
    cuzk_json_begin_object(&w);
    jstr(&w, "status", cuzk_status_name(st == CUZK_OK ? CUZK_ERR_INVALID_ARG : st));
    jstr(&w, "message", message != NULL && message[0] ? message : cuzk_strerror(st));
    cuzk_json_end_object(&w);
    cuzk_json_end_object(&w);
    answer_json(resp, code, &w);
}

static void answer_err(cuzk__response *resp, const cuzk_error *err) {
    cuzk__response_error(resp, cuzk__http_code(err->status), err->status, cuzk_error_text(err));
}

static void answer_fail(cuzk__response *resp, unsigned code, cuzk_status st, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));
static void answer_fail(cuzk__response *resp, unsigned code, cuzk_status st, const char *fmt,
                        ...) {
    char msg[CUZK_ERROR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cuzk__response_error(resp, code, st, msg);
}

/* ---- the JSON of things -------------------------------------------------------- */

static void write_job(cuzk_json_writer *w, const cuzk__daemon_job *j) {
    const cuzk__store_job_info *r = &j->rec;
    ju64(w, "id", r->id);
    if (r->has_request_id)
        jstr(w, "request_id", r->request_id);
    else
        jraw(w, "request_id", "null");
    jstr(w, "key", r->key_name);
    jstr(w, "priority", cuzk__priority_name(r->priority));
    jstr(w, "state", cuzk__store_state_name(r->state));
    ju64(w, "partitions", r->n_partitions);
    ju64(w, "partitions_done", j->partitions_done);
    ju64(w, "partitions_running", j->partitions_running);
    ju64(w, "queue_position", j->queue_position);
    jint(w, "created_ms", r->created_ms);
    jint(w, "updated_ms", r->updated_ms);
    if (r->finished_ms != 0)
        jint(w, "finished_ms", r->finished_ms);
    else
        jraw(w, "finished_ms", "null");
    jkey(w, "error");
    if (r->state == CUZK_JOB_FAILED) {
        cuzk_json_begin_object(w);
        jstr(w, "status", cuzk_status_name(r->error_status));
        jstr(w, "message", r->error);
        cuzk_json_end_object(w);
    } else {
        cuzk_json_raw(w, "null", 4);
    }
}

static const char *format_name(cuzk__proof_format f) {
    return f == CUZK__FORMAT_SNARKJS ? "snarkjs" : "bellman";
}

/* The result's members (id, key, format, partitions, proofs). */
static cuzk_status write_result(cuzk_json_writer *w, const cuzk__store_job_info *rec,
                                const cuzk__daemon_result *res, cuzk_error *err) {
    static const char hex[] = "0123456789abcdef";
    ju64(w, "id", rec->id);
    jstr(w, "key", rec->key_name);
    jstr(w, "format", format_name(res->format));
    ju64(w, "partitions", res->n);
    jkey(w, "proofs");
    cuzk_json_begin_array(w);
    for (size_t i = 0; i < res->n; i++) {
        cuzk_json_begin_object(w);
        ju64(w, "partition", i);
        char h[2 * CUZK_PROOF_BYTES];
        for (size_t b = 0; b < CUZK_PROOF_BYTES; b++) {
            h[2 * b] = hex[res->proofs[i].bytes[b] >> 4];
            h[2 * b + 1] = hex[res->proofs[i].bytes[b] & 15];
        }
        jkey(w, "proof");
        cuzk_json_string(w, h, sizeof(h));
        char *text = NULL;
        size_t len = 0;
        if (res->format == CUZK__FORMAT_SNARKJS) {
            cuzk_status st = cuzk_proof_to_json(&text, &len, &res->proofs[i], err);
            if (st != CUZK_OK) return st;
            jraw(w, "proof_json", text);
            cuzk_free(text);
        }
        const uint8_t *pub =
            res->public_inputs != NULL ? res->public_inputs + i * res->n_public * 32 : NULL;
        cuzk_status st = cuzk_public_to_json(&text, &len, pub, res->n_public, err);
        if (st != CUZK_OK) return st;
        jraw(w, "public", text);
        cuzk_free(text);
        cuzk_json_end_object(w);
    }
    cuzk_json_end_array(w);
    return CUZK_OK;
}

static const char *tier_name(cuzk_key_tier t) {
    return t == CUZK_KEY_HOT ? "hot" : t == CUZK_KEY_WARM ? "warm" : "cold";
}

static void write_key(cuzk_json_writer *w, const cuzk__daemon_key_status *k) {
    cuzk_json_begin_object(w);
    jstr(w, "name", k->name);
    jstr(w, "format", format_name(k->format));
    jstr(w, "tier", tier_name(k->info.tier));
    ju64(w, "bytes", k->info.bytes);
    ju64(w, "queued_partitions", k->queued_partitions);
    ju64(w, "running_partitions", k->running_partitions);
    ju64(w, "loads", k->info.loads);
    ju64(w, "evictions", k->info.evictions);
    cuzk_json_end_object(w);
}

/* ---- query parameters ---------------------------------------------------------- */

/* A decimal integer in [lo, hi] from the query (def when absent); 0 after
 * answering 400. */
static int query_u64(const cuzk__request *req, cuzk__response *resp, const char *name,
                     uint64_t def, uint64_t lo, uint64_t hi, uint64_t *out) {
    const char *v = req->query != NULL ? req->query(req->query_user, name) : NULL;
    if (v == NULL) {
        *out = def;
        return 1;
    }
    uint64_t x = 0;
    const char *p = v;
    for (; *p >= '0' && *p <= '9' && p - v < 20; p++) x = x * 10 + (uint64_t)(*p - '0');
    if (p == v || *p != '\0' || p - v > 19 || x < lo || x > hi) {
        answer_fail(resp, 400, CUZK_ERR_INVALID_ARG, "%s: \"%.32s\" is not an integer in %llu..%llu",
                    name, v, (unsigned long long)lo, (unsigned long long)hi);
        return 0;
    }
    *out = x;
    return 1;
}

/* A job id from a path segment; 0 when it is not one. */
static uint64_t parse_id(const char *s, size_t n) {
    if (n == 0 || n > 19) return 0;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    return x;
}

/* ---- jobs ------------------------------------------------------------------------ */

static void answer_job(cuzk__response *resp, unsigned code, const cuzk__daemon_job *job) {
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    cuzk_json_begin_object(&w);
    write_job(&w, job);
    cuzk_json_end_object(&w);
    answer_json(resp, code, &w);
}

static int submit(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp,
                  cuzk__daemon_job *job, int *existed) {
    cuzk_error err;
    size_t n = 0;
    const cuzk__store_witness *wit = cuzk__submit_form_witnesses(req->form, &n);
    const cuzk__daemon_submission sub = {cuzk__submit_form_key(req->form),
                                         cuzk__submit_form_request_id(req->form),
                                         cuzk__submit_form_priority(req->form), wit, n};
    const cuzk_status st = cuzk__daemon_submit(d, &sub, SUBMIT_WAIT_MS, job, existed, &err);
    if (st != CUZK_OK) {
        answer_err(resp, &err);
        return 0;
    }
    if (!*existed) cuzk__submit_form_keep_files(req->form);
    return 1;
}

static void route_submit(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp) {
    cuzk__daemon_job job;
    int existed = 0;
    if (submit(d, req, resp, &job, &existed)) answer_job(resp, existed ? 200 : 201, &job);
}

static void route_prove(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp) {
    uint64_t timeout;
    if (!query_u64(req, resp, "timeout_ms", PROVE_DEFAULT_MS, 0, WAIT_MAX_MS, &timeout)) return;
    cuzk__daemon_job job;
    int existed = 0;
    if (!submit(d, req, resp, &job, &existed)) return;
    cuzk_error err;
    cuzk_status st = cuzk__daemon_job_await(d, job.rec.id, (int)timeout, &job, &err);
    if (st != CUZK_OK) return answer_err(resp, &err);
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    cuzk_json_begin_object(&w);
    write_job(&w, &job);
    if (job.rec.state == CUZK_JOB_DONE) {
        cuzk__daemon_result res;
        st = cuzk__daemon_job_result(d, job.rec.id, &res, &err);
        if (st == CUZK_OK) {
            jkey(&w, "result");
            cuzk_json_begin_object(&w);
            st = write_result(&w, &job.rec, &res, &err);
            cuzk_json_end_object(&w);
            cuzk__daemon_result_free(&res);
        }
        if (st != CUZK_OK) {
            cuzk_json_writer_free(&w);
            return answer_err(resp, &err);
        }
    }
    cuzk_json_end_object(&w);
    answer_json(resp, cuzk__store_state_ended(job.rec.state) ? 200 : 202, &w);
}

static void route_list(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp) {
    uint64_t after, limit;
    if (!query_u64(req, resp, "after", 0, 0, UINT64_MAX >> 1, &after) ||
        !query_u64(req, resp, "limit", LIST_DEFAULT, 1, LIST_MAX, &limit))
        return;
    unsigned mask = 0;
    const char *states = req->query != NULL ? req->query(req->query_user, "state") : NULL;
    for (const char *p = states; p != NULL && *p != '\0';) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        int found = 0;
        for (unsigned s = 0; s < 5; s++) {
            const char *name = cuzk__store_state_name((cuzk_job_state)s);
            if (strlen(name) == len && memcmp(name, p, len) == 0) {
                mask |= 1u << s;
                found = 1;
            }
        }
        if (!found)
            return answer_fail(resp, 400, CUZK_ERR_INVALID_ARG,
                               "state: \"%.*s\" is not queued, running, done, failed or cancelled",
                               (int)(len < 32 ? len : 32), p);
        p = comma != NULL ? comma + 1 : p + len;
    }
    cuzk__daemon_job *jobs = NULL;
    size_t n = 0;
    cuzk_error err;
    /* one more than asked, to know whether more follow */
    if (cuzk__daemon_job_list(d, mask, after, (size_t)limit + 1, &jobs, &n, &err) != CUZK_OK)
        return answer_err(resp, &err);
    const int more = n > limit;
    if (more) n = (size_t)limit;
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    cuzk_json_begin_object(&w);
    jkey(&w, "jobs");
    cuzk_json_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
        cuzk_json_begin_object(&w);
        write_job(&w, &jobs[i]);
        cuzk_json_end_object(&w);
    }
    cuzk_json_end_array(&w);
    if (more)
        ju64(&w, "next_after", jobs[n - 1].rec.id);
    else
        jraw(&w, "next_after", "null");
    cuzk_json_end_object(&w);
    free(jobs);
    answer_json(resp, 200, &w);
}

static void route_result(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp,
                         uint64_t id) {
    const char *format = req->query != NULL ? req->query(req->query_user, "format") : NULL;
    const int binary = format != NULL && strcmp(format, "binary") == 0;
    if (format != NULL && !binary && strcmp(format, "json") != 0)
        return answer_fail(resp, 400, CUZK_ERR_INVALID_ARG,
                           "format: \"%.32s\" is not json or binary", format);
    cuzk__daemon_job job;
    cuzk_error err;
    if (cuzk__daemon_job_get(d, id, &job, &err) != CUZK_OK) return answer_err(resp, &err);
    if (job.rec.state != CUZK_JOB_DONE) {
        if (job.rec.state == CUZK_JOB_FAILED)
            return answer_fail(resp, 409, CUZK_ERR_INVALID_ARG, "job %llu failed: %s",
                               (unsigned long long)id, job.rec.error);
        return answer_fail(resp, 409, CUZK_ERR_INVALID_ARG, "job %llu is %s, not done",
                           (unsigned long long)id, cuzk__store_state_name(job.rec.state));
    }
    cuzk__daemon_result res;
    if (cuzk__daemon_job_result(d, id, &res, &err) != CUZK_OK) return answer_err(resp, &err);
    if (binary) {
        resp->code = 200;
        resp->content_type = "application/octet-stream";
        resp->body = (char *)res.proofs; /* n x 192 bytes, handed over */
        resp->len = res.n * sizeof(cuzk_proof);
        res.proofs = NULL;
        cuzk__daemon_result_free(&res);
        return;
    }
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    cuzk_json_begin_object(&w);
    const cuzk_status st = write_result(&w, &job.rec, &res, &err);
    cuzk_json_end_object(&w);
    cuzk__daemon_result_free(&res);
    if (st != CUZK_OK) {
        cuzk_json_writer_free(&w);
        return answer_err(resp, &err);
    }
    answer_json(resp, 200, &w);
}

/* /v1/jobs/{id}[/what] */
static void route_job(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp,
                      const char *rest) {
    const char *slash = strchr(rest, '/');
    const size_t idlen = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
    const char *what = slash != NULL ? slash + 1 : "";
    const int get = strcmp(req->method, "GET") == 0, post = strcmp(req->method, "POST") == 0;
    const char *allow = NULL;
    if (what[0] == '\0')
        allow = "GET, DELETE";
    else if (strcmp(what, "await") == 0 || strcmp(what, "result") == 0)
        allow = "GET";
    else if (strcmp(what, "cancel") == 0)
        allow = "POST";
    else
        return answer_fail(resp, 404, CUZK_ERR_NOT_FOUND, "no route %s %.200s", req->method,
                           req->path);
    const uint64_t id = parse_id(rest, idlen);
    cuzk__daemon_job job;
    cuzk_error err;
    if (what[0] == '\0' && (get || strcmp(req->method, "DELETE") == 0)) {
        if (id == 0) goto unknown;
        if (get) {
            if (cuzk__daemon_job_get(d, id, &job, &err) != CUZK_OK) return answer_err(resp, &err);
            return answer_job(resp, 200, &job);
        }
        if (cuzk__daemon_job_collect(d, id, &err) != CUZK_OK) return answer_err(resp, &err);
        resp->code = 204;
        return;
    }
    if (strcmp(what, "await") == 0 && get) {
        uint64_t t;
        if (!query_u64(req, resp, "timeout_ms", AWAIT_DEFAULT_MS, 0, WAIT_MAX_MS, &t)) return;
        if (id == 0) goto unknown;
        if (cuzk__daemon_job_await(d, id, (int)t, &job, &err) != CUZK_OK)
            return answer_err(resp, &err);
        return answer_job(resp, 200, &job);
    }
    if (strcmp(what, "result") == 0 && get) {
        if (id == 0) goto unknown;
        return route_result(d, req, resp, id);
    }
    if (strcmp(what, "cancel") == 0 && post) {
        if (id == 0) goto unknown;
        if (cuzk__daemon_job_cancel(d, id, &job, &err) != CUZK_OK) return answer_err(resp, &err);
        return answer_job(resp, 200, &job);
    }
    answer_fail(resp, 405, CUZK_ERR_INVALID_ARG, "%s %.200s: allowed: %s", req->method,
                req->path, allow);
    resp->allow = allow;
    return;
unknown:
    answer_fail(resp, 404, CUZK_ERR_NOT_FOUND, "job %.*s: no such job",
                (int)(idlen < 40 ? idlen : 40), rest);
}

/* ---- keys ---------------------------------------------------------------------------- */

static void answer_key(cuzk__daemon *d, cuzk__response *resp, unsigned code, const char *name) {
    cuzk__daemon_key_status k;
    cuzk_error err;
    if (cuzk__daemon_key_get(d, name, &k, &err) != CUZK_OK) return answer_err(resp, &err);
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    write_key(&w, &k);
    answer_json(resp, code, &w);
}

static void write_keys(cuzk__daemon *d, cuzk_json_writer *w) {
    cuzk__daemon_key_status *keys = NULL;
    size_t n = 0;
    cuzk_error err;
    jkey(w, "keys");
    cuzk_json_begin_array(w);
    if (cuzk__daemon_keys(d, &keys, &n, &err) == CUZK_OK)
        for (size_t i = 0; i < n; i++) write_key(w, &keys[i]);
    cuzk_json_end_array(w);
    free(keys);
}

static void route_key_add(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp) {
    cuzk_json *root = NULL;
    cuzk_error err;
    const cuzk_json_limits lim = {CUZK__ROUTE_JSON_MAX, 4, 4096};
    if (cuzk_json_parse(&root, req->json, req->json_len, &lim, &err) != CUZK_OK)
        return answer_err(resp, &err);
    static const char *const names[] = {"name", "zkey", "r1cs", "circuit", "params"};
    const char *v[5] = {NULL, NULL, NULL, NULL, NULL};
    cuzk_status st = CUZK_OK;
    if (root->type != CUZK_JSON_OBJECT)
        st = cuzk__fail(&err, CUZK_ERR_INVALID_ARG, "body: a %s, not an object",
                        cuzk_json_type_name(root->type));
    for (size_t i = 0; st == CUZK_OK && i < root->len; i++) {
        const cuzk_json *m = root->items[i];
        size_t f = 0;
        while (f < 5 && strcmp(m->key, names[f]) != 0) f++;
        if (f == 5)
            st = cuzk__fail(&err, CUZK_ERR_INVALID_ARG,
                            "\"%.64s\": not name, zkey, r1cs, circuit or params", m->key);
        else if (m->type != CUZK_JSON_STRING || v[f] != NULL)
            st = cuzk__fail(&err, CUZK_ERR_INVALID_ARG, "%s: %s", names[f],
                            v[f] != NULL ? "given twice" : "not a string");
        else if (f > 0 && m->str[0] != '/')
            st = cuzk__fail(&err, CUZK_ERR_INVALID_ARG, "%s: not an absolute path", names[f]);
        else
            v[f] = m->str;
    }
    if (st == CUZK_OK && v[0] == NULL) st = cuzk__fail(&err, CUZK_ERR_INVALID_ARG, "name: missing");
    if (st == CUZK_OK) {
        const cuzk_key_source src = {v[1], v[2], v[3], v[4]};
        st = cuzk__daemon_key_add(d, v[0], &src, &err);
    }
    if (st == CUZK_OK) {
        char name[CUZK__CONF_KEY_NAME_MAX + 1];
        snprintf(name, sizeof(name), "%s", v[0]);
        cuzk_json_free(root);
        return answer_key(d, resp, 201, name);
    }
    cuzk_json_free(root);
    /* a missing file is an unknown thing (404), not a server fault */
    cuzk__response_error(resp, st == CUZK_ERR_IO ? 404 : cuzk__http_code(st), st,
                         cuzk_error_text(&err));
}

/* /v1/keys/{name}/preload|evict */
static void route_key(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp,
                      const char *rest) {
    const char *slash = strchr(rest, '/');
    if (slash == NULL || (strcmp(slash, "/preload") != 0 && strcmp(slash, "/evict") != 0))
        return answer_fail(resp, 404, CUZK_ERR_NOT_FOUND, "no route %s %.200s", req->method,
                           req->path);
    if (strcmp(req->method, "POST") != 0) {
        answer_fail(resp, 405, CUZK_ERR_INVALID_ARG, "%s %.200s: allowed: POST", req->method,
                    req->path);
        resp->allow = "POST";
        return;
    }
    char name[CUZK__CONF_KEY_NAME_MAX + 1];
    const size_t nl = (size_t)(slash - rest);
    if (nl == 0 || nl > CUZK__CONF_KEY_NAME_MAX)
        return answer_fail(resp, 404, CUZK_ERR_NOT_FOUND, "key %.*s: no such key",
                           (int)(nl < 64 ? nl : 64), rest);
    memcpy(name, rest, nl);
    name[nl] = '\0';
    cuzk_error err;
    cuzk__daemon_key_status k;
    if (cuzk__daemon_key_get(d, name, &k, &err) != CUZK_OK) return answer_err(resp, &err);
    cuzk_status st;
    if (strcmp(slash, "/preload") == 0) {
        const char *tier = req->query != NULL ? req->query(req->query_user, "tier") : NULL;
        cuzk_key_tier t = CUZK_KEY_HOT;
        if (tier != NULL && strcmp(tier, "warm") == 0)
            t = CUZK_KEY_WARM;
        else if (tier != NULL && strcmp(tier, "hot") != 0)
            return answer_fail(resp, 400, CUZK_ERR_INVALID_ARG,
                               "tier: \"%.32s\" is not hot or warm", tier);
        st = cuzk__daemon_key_preload(d, name, t, &err);
    } else {
        st = cuzk__daemon_key_evict(d, name, &err);
        if (st == CUZK_ERR_BUSY)
            return cuzk__response_error(resp, 409, st, cuzk_error_text(&err));
    }
    if (st != CUZK_OK) return answer_err(resp, &err);
    answer_key(d, resp, 200, name);
}

/* ---- status, timeline, metrics --------------------------------------------------------- */

/* Each lane slot's busy fraction over the timeline's last BUSY_WINDOW_MS
 * (ending at its newest event): the union of the kernel stages of the
 * slot's workers (cuzk__timeline_busy), from the window's events only. */
static void slot_busy(cuzk_engine *e, const cuzk_engine_stats *s, size_t ring, double *out) {
    cuzk_timeline_event last;
    if (s->workers == 0 || s->lane_slots == 0 || ring == 0 ||
        cuzk_engine_timeline(e, &last, 1) == 0)
        return;
    const double to = last.end_ms, from = to - BUSY_WINDOW_MS;
    cuzk_timeline_event *ev = malloc(ring * sizeof(*ev));
    const size_t n = ev != NULL ? cuzk_engine_timeline_since(e, from, ev, ring) : 0;
    cuzk_timeline_event *sel = n ? malloc(n * sizeof(*sel)) : NULL;
    const size_t per = s->workers / s->lane_slots ? s->workers / s->lane_slots : 1;
    for (size_t slot = 0; sel != NULL && slot < s->lane_slots && slot < CUZK_MAX_LANES; slot++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (ev[i].worker != UINT32_MAX && ev[i].worker / per == slot) sel[m++] = ev[i];
        const double f = m ? cuzk__timeline_busy(sel, m, sel[0].device, from, to) : 0;
        out[slot] = f < 0 ? 0 : f > 1 ? 1 : f;
    }
    free(ev);
    free(sel);
}

static void route_status(cuzk__daemon *d, cuzk__response *resp) {
    const cuzk__daemon_config *cfg = cuzk__daemon_config_of(d);
    cuzk_engine *e = cuzk__daemon_engine(d);
    const int64_t now = cuzk__store_now_ms(), started = cuzk__daemon_started_ms(d);
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    cuzk_json_begin_object(&w);
    jstr(&w, "version", cuzk_version());
    jint(&w, "started_ms", started);
    jdbl(&w, "uptime_s", (double)(now - started) / 1000.0);
    jraw(&w, "draining", cuzk__daemon_draining(d) ? "true" : "false");
    jstr(&w, "backend", cfg->backend == CUZK_BACKEND_GPU   ? "gpu"
                        : cfg->backend == CUZK_BACKEND_CPU ? "cpu"
                                                           : "auto");
    cuzk_options copt;
    cuzk_engine_options eopt;
    cuzk__daemon_config_to_options(cfg, &copt, &eopt);
    jkey(&w, "devices");
    cuzk_json_begin_array(&w);
    for (size_t i = 0; cfg->backend != CUZK_BACKEND_CPU && i < copt.n_devices; i++) {
        cuzk_gpu_info gi;
        cuzk_error err;
        if (cuzk_gpu_get_info(copt.devices[i], &gi, &err) != CUZK_OK) continue;
        cuzk_json_begin_object(&w);
        ju64(&w, "index", (uint64_t)copt.devices[i]);
        jstr(&w, "name", gi.name);
        ju64(&w, "memory_total", gi.memory_total);
        ju64(&w, "memory_free", gi.memory_free);
        cuzk_json_end_object(&w);
    }
    cuzk_json_end_array(&w);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    jkey(&w, "engine");
    cuzk_json_begin_object(&w);
    ju64(&w, "workers", s.workers);
    ju64(&w, "lane_slots", s.lane_slots);
    ju64(&w, "queued_partitions", s.queued_partitions);
    ju64(&w, "running_partitions", s.running_partitions);
    ju64(&w, "proofs", s.proofs);
    ju64(&w, "verified", s.verified);
    ju64(&w, "failed_partitions", s.failed_partitions);
    ju64(&w, "faults", s.faults);
    ju64(&w, "retries", s.retries);
    ju64(&w, "lane_resets", s.lane_resets);
    ju64(&w, "lane_step_downs", s.lane_step_downs);
    ju64(&w, "host_bytes_used", s.host_bytes_used);
    ju64(&w, "host_bytes_budget", s.host_bytes_budget);
    jkey(&w, "busy");
    cuzk_json_begin_array(&w);
    double busy[CUZK_MAX_LANES] = {0};
    slot_busy(e, &s, cfg->timeline_events, busy);
    for (size_t i = 0; i < s.lane_slots && i < CUZK_MAX_LANES; i++) {
        char t[32];
        cuzk_json_raw(&w, t, (size_t)snprintf(t, sizeof(t), "%.4f", busy[i]));
    }
    cuzk_json_end_array(&w);
    cuzk_json_end_object(&w);
    write_keys(d, &w);
    uint64_t counts[5] = {0};
    cuzk_error err;
    if (cuzk__daemon_job_counts(d, counts, &err) != CUZK_OK) {
        cuzk_json_writer_free(&w);
        return answer_err(resp, &err);
    }
    jkey(&w, "jobs");
    cuzk_json_begin_object(&w);
    for (unsigned i = 0; i < 5; i++) ju64(&w, cuzk__store_state_name((cuzk_job_state)i), counts[i]);
    cuzk_json_end_object(&w);
    cuzk_json_end_object(&w);
    answer_json(resp, 200, &w);
}

/* This daemon's part in the cluster, and every daemon the store knows. */
static void route_cluster(cuzk__daemon *d, cuzk__response *resp) {
    cuzk__jobstore *js = cuzk__daemon_jobstore(d);
    const cuzk__daemon_config *cfg = cuzk__daemon_config_of(d);
    cuzk__jobstore_daemon *v = NULL;
    size_t n = 0;
    cuzk_error err;
    if (cuzk__jobstore_daemons(js, &v, &n, &err) != CUZK_OK) return answer_err(resp, &err);
    cuzk__daemon_work_stats ws;
    cuzk__daemon_work_stats_get(d, &ws);
    const int shared = cuzk__jobstore_shared(js);
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    cuzk_json_begin_object(&w);
    jstr(&w, "store", cuzk__jobstore_kind(js));
    jstr(&w, "where", cuzk__jobstore_where(js));
    jkey(&w, "self");
    cuzk_json_begin_object(&w);
    ju64(&w, "id", cuzk__jobstore_self(js));
    jstr(&w, "name", cuzk__daemon_name(d));
    ju64(&w, "lease_ms", shared ? cfg->lease_ms : 0);
    ju64(&w, "held", ws.held);
    ju64(&w, "fetching", ws.fetching);
    ju64(&w, "claimed", ws.claimed);
    ju64(&w, "recorded", ws.recorded);
    ju64(&w, "failed", ws.failed);
    ju64(&w, "fenced", ws.fenced);
    ju64(&w, "lost", ws.lost);
    ju64(&w, "ended", ws.ended);
    ju64(&w, "released", ws.released);
    ju64(&w, "requeued", ws.requeued);
    ju64(&w, "store_errors", ws.store_errors);
    ju64(&w, "reconnects", ws.reconnects);
    jkey(&w, "queue_cost_ms");
    cuzk_json_begin_object(&w);
    ju64(&w, "samples", ws.cost_samples);
    jdbl(&w, "median", ws.cost_median_ms);
    jdbl(&w, "p99", ws.cost_p99_ms);
    cuzk_json_end_object(&w);
    cuzk_json_end_object(&w);
    jkey(&w, "daemons");
    cuzk_json_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
        cuzk_json_begin_object(&w);
        ju64(&w, "id", v[i].id);
        jstr(&w, "name", v[i].name);
        jstr(&w, "info", v[i].info);
        jint(&w, "started_ms", v[i].started_ms);
        jint(&w, "heartbeat_age_ms", v[i].heartbeat_age_ms);
        ju64(&w, "held", v[i].held);
        cuzk_json_end_object(&w);
    }
    cuzk_json_end_array(&w);
    cuzk_json_end_object(&w);
    free(v);
    answer_json(resp, 200, &w);
}

static void route_timeline(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp) {
    const char *since_s = req->query != NULL ? req->query(req->query_user, "since_ms") : NULL;
    double since = 0;
    if (since_s != NULL) {
        char *end = NULL;
        errno = 0;
        since = strtod(since_s, &end);
        if (end == since_s || *end != '\0' || errno != 0 || !(since >= 0) || since > 1e15)
            return answer_fail(resp, 400, CUZK_ERR_INVALID_ARG,
                               "since_ms: \"%.32s\" is not a number >= 0", since_s);
    }
    cuzk_timeline_event *ev = malloc(TIMELINE_MAX * sizeof(*ev));
    if (ev == NULL) return answer_fail(resp, 500, CUZK_ERR_NOMEM, "no memory for the timeline");
    const size_t n = cuzk__daemon_timeline(d, since, ev, TIMELINE_MAX);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(cuzk__daemon_engine(d), &s);
    const cuzk__daemon_config *cfg = cuzk__daemon_config_of(d);
    cuzk_options copt;
    cuzk_engine_options eopt;
    cuzk__daemon_config_to_options(cfg, &copt, &eopt);
    const size_t per = s.lane_slots ? s.workers / s.lane_slots : 1;
    double now = cuzk_engine_now_ms(cuzk__daemon_engine(d));
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    cuzk_json_begin_object(&w);
    jdbl(&w, "now_ms", now);
    jkey(&w, "workers");
    cuzk_json_begin_array(&w);
    const int gpu = cfg->backend != CUZK_BACKEND_CPU && copt.n_devices > 0 && cuzk_gpu_count() > 0;
    for (size_t i = 0; i < s.workers; i++) {
        const size_t slot = per ? i / per : 0;
        cuzk_json_begin_object(&w);
        ju64(&w, "worker", i);
        jint(&w, "device", gpu && slot < copt.n_devices ? copt.devices[slot] : -1);
        cuzk_json_end_object(&w);
    }
    cuzk_json_end_array(&w);
    jkey(&w, "events");
    cuzk_json_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
        cuzk_json_begin_object(&w);
        ju64(&w, "job", ev[i].job_id);
        ju64(&w, "partition", ev[i].partition);
        ju64(&w, "worker", ev[i].worker);
        jint(&w, "device", ev[i].device);
        jstr(&w, "stage", cuzk_stage_name(ev[i].stage));
        jdbl(&w, "start_ms", ev[i].start_ms);
        jdbl(&w, "end_ms", ev[i].end_ms);
        cuzk_json_end_object(&w);
    }
    cuzk_json_end_array(&w);
    cuzk_json_end_object(&w);
    free(ev);
    answer_json(resp, 200, &w);
}

static void route_metrics(cuzk__daemon *d, cuzk__response *resp) {
    char *text = NULL;
    size_t len = 0;
    cuzk_error err;
    if (cuzk__metrics_render(cuzk__daemon_engine(d), BUSY_WINDOW_MS, &text, &len, &err) !=
        CUZK_OK)
        return answer_err(resp, &err);
    uint64_t counts[5] = {0};
    if (cuzk__daemon_job_counts(d, counts, &err) != CUZK_OK) {
        free(text);
        return answer_err(resp, &err);
    }
    char extra[4096];
    int k = snprintf(extra, sizeof(extra),
                     "# HELP cuzk_jobs Jobs in the store by state.\n# TYPE cuzk_jobs gauge\n");
    for (unsigned i = 0; i < 5; i++)
        k += snprintf(extra + k, sizeof(extra) - (size_t)k, "cuzk_jobs{state=\"%s\"} %llu\n",
                      cuzk__store_state_name((cuzk_job_state)i), (unsigned long long)counts[i]);
    k += snprintf(extra + k, sizeof(extra) - (size_t)k,
                  "# HELP cuzk_http_requests_total HTTP requests answered.\n"
                  "# TYPE cuzk_http_requests_total counter\n"
                  "cuzk_http_requests_total %llu\n",
                  (unsigned long long)cuzk__daemon_requests(d));
    cuzk__daemon_work_stats ws;
    cuzk__daemon_work_stats_get(d, &ws);
    const struct {
        const char *what;
        uint64_t v;
    } outcomes[] = {{"claimed", ws.claimed}, {"recorded", ws.recorded}, {"failed", ws.failed},
                    {"fenced", ws.fenced},   {"lost", ws.lost},         {"ended", ws.ended},
                    {"released", ws.released}};
    k += snprintf(extra + k, sizeof(extra) - (size_t)k,
                  "# HELP cuzk_partitions_total Partitions this daemon claimed from the store "
                  "(claimed), and how they ended: proof recorded, job failed, result fenced "
                  "(its lease had passed to another daemon), stopped with the lease lost or "
                  "the job ended, given back.\n"
                  "# TYPE cuzk_partitions_total counter\n");
    for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++)
        k += snprintf(extra + k, sizeof(extra) - (size_t)k,
                      "cuzk_partitions_total{outcome=\"%s\"} %llu\n", outcomes[i].what,
                      (unsigned long long)outcomes[i].v);
    k += snprintf(extra + k, sizeof(extra) - (size_t)k,
                  "# HELP cuzk_partitions_held Partitions this daemon holds now.\n"
                  "# TYPE cuzk_partitions_held gauge\n"
                  "cuzk_partitions_held %zu\n"
                  "# HELP cuzk_partitions_requeued_total Partitions of daemons that stopped "
                  "answering that this daemon's reaper put back in the queue.\n"
                  "# TYPE cuzk_partitions_requeued_total counter\n"
                  "cuzk_partitions_requeued_total %llu\n"
                  "# HELP cuzk_store_errors_total Calls of the work side to the store that "
                  "failed (they are tried again).\n"
                  "# TYPE cuzk_store_errors_total counter\n"
                  "cuzk_store_errors_total %llu\n"
                  "# HELP cuzk_store_reconnects_total Connections to PostgreSQL made again "
                  "after one was lost.\n"
                  "# TYPE cuzk_store_reconnects_total counter\n"
                  "cuzk_store_reconnects_total %llu\n",
                  ws.held, (unsigned long long)ws.requeued, (unsigned long long)ws.store_errors,
                  (unsigned long long)ws.reconnects);
    char *all = realloc(text, len + (size_t)k + 1);
    if (all == NULL) {
        free(text);
        return answer_fail(resp, 500, CUZK_ERR_NOMEM, "no memory for the metrics");
    }
    memcpy(all + len, extra, (size_t)k + 1);
    resp->code = 200;
    resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
    resp->body = all;
    resp->len = len + (size_t)k;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

static int starts(const char *s, const char *prefix, const char **rest) {
    const size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0) return 0;
    *rest = s + n;
    return 1;
}

cuzk__body_kind cuzk__route_body(const char *method, const char *path) {
    if (strcmp(method, "POST") != 0) return CUZK__BODY_NONE;
    if (strcmp(path, "/v1/jobs") == 0 || strcmp(path, "/v1/prove") == 0) return CUZK__BODY_SUBMIT;
    if (strcmp(path, "/v1/keys") == 0) return CUZK__BODY_JSON;
    return CUZK__BODY_NONE;
}

/* A fixed route: 405 naming allow unless the method is one of them. */
static int method_ok(const cuzk__request *req, cuzk__response *resp, const char *allow) {
    const size_t ml = strlen(req->method);
    for (const char *p = allow; *p != '\0';) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == ml && memcmp(p, req->method, ml) == 0) return 1;
        p += len;
        while (*p == ',' || *p == ' ') p++;
    }
    answer_fail(resp, 405, CUZK_ERR_INVALID_ARG, "%.16s %.200s: allowed: %s", req->method,
                req->path, allow);
    resp->allow = allow;
    return 0;
}

void cuzk__route_handle(cuzk__daemon *d, const cuzk__request *req, cuzk__response *resp) {
    memset(resp, 0, sizeof(*resp));
    cuzk__daemon_count_request(d);
    const char *p = req->path, *rest = NULL;
    const cuzk__www_file *f = cuzk__www_find(p);
    if (f != NULL) {
        if (!method_ok(req, resp, "GET")) return;
        resp->code = 200;
        resp->content_type = f->content_type;
        resp->body = (char *)f->data;
        resp->len = f->len;
        resp->body_static = 1;
        return;
    }
    if (strcmp(p, "/v1/jobs") == 0) {
        if (!method_ok(req, resp, "GET, POST")) return;
        if (strcmp(req->method, "GET") == 0) return route_list(d, req, resp);
        return route_submit(d, req, resp);
    }
    if (strcmp(p, "/v1/prove") == 0) {
        if (method_ok(req, resp, "POST")) route_prove(d, req, resp);
        return;
    }
    if (starts(p, "/v1/jobs/", &rest)) return route_job(d, req, resp, rest);
    if (strcmp(p, "/v1/status") == 0) {
        if (method_ok(req, resp, "GET")) route_status(d, resp);
        return;
    }
    if (strcmp(p, "/v1/keys") == 0) {
        if (!method_ok(req, resp, "GET, POST")) return;
        if (strcmp(req->method, "POST") == 0) return route_key_add(d, req, resp);
        cuzk_json_writer w;
        cuzk_json_writer_init(&w, 0);
        cuzk_json_begin_object(&w);
        write_keys(d, &w);
        cuzk_json_end_object(&w);
        return answer_json(resp, 200, &w);
    }
    if (starts(p, "/v1/keys/", &rest)) return route_key(d, req, resp, rest);
    if (strcmp(p, "/v1/timeline") == 0) {
        if (method_ok(req, resp, "GET")) route_timeline(d, req, resp);
        return;
    }
    if (strcmp(p, "/v1/cluster") == 0) {
        if (method_ok(req, resp, "GET")) route_cluster(d, resp);
        return;
    }
    if (strcmp(p, "/metrics") == 0) {
        if (method_ok(req, resp, "GET")) route_metrics(d, resp);
        return;
    }
    answer_fail(resp, 404, CUZK_ERR_NOT_FOUND, "no route %.16s %.200s", req->method, p);
}

/* ---- the store as a witness sink --------------------------------------------------------- */

void cuzk__route_spool_sink(cuzk__daemon *d, cuzk__witness_sink *sink) {
    cuzk__jobstore_sink(cuzk__daemon_jobstore(d), sink);
}
