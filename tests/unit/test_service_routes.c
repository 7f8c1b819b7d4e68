/*
 * test_service_routes.c — the daemon's API (src/service/routes.c over
 * daemon.c) in process, without sockets: a daemon on the CPU backend with
 * the snarkjs sample as key "sample", its store in a temporary folder.
 * Submissions and their idempotency, long polls, results checked by the
 * verifier, listing, errors with their codes, keys, the timeline, a job
 * resumed from the store at start, and intake refused while draining.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk.h"
#include "harness.h"
#include "io/json.h"
#include "service/config.h"
#include "service/daemon.h"
#include "service/routes.h"
#include "service/store.h"

static char src_dir[1024], tmp[64], zkey[1100], r1cs[1100], wtns[1100], vkjson[1100];
static char other_wtns[128], bad_wtns[128]; /* copies of wtns, altered */

/* ---- requests -------------------------------------------------------------- */

typedef struct {
    const char *names[4], *values[4];
} query;

static const char *q_get(void *user, const char *name) {
    const query *q = user;
    for (size_t i = 0; q != NULL && i < 4 && q->names[i] != NULL; i++)
        if (strcmp(q->names[i], name) == 0) return q->values[i];
    return NULL;
}

/* A request; *root the answer's JSON when it is JSON (free it), else NULL. */
static unsigned call(cuzk__daemon *d, const char *method, const char *path, const query *q,
                     const char *json_body, cuzk_json **root, cuzk__response *keep) {
    cuzk__request req = {method, path, q_get, (void *)q, NULL, json_body ? json_body : "",
                         json_body ? strlen(json_body) : 0};
    cuzk__submit_form *form = NULL;
    cuzk_error err;
    if (cuzk__route_body(method, path) == CUZK__BODY_SUBMIT) {
        cuzk__witness_sink sink;
        cuzk__route_spool_sink(d, &sink);
        CHECK(cuzk__submit_form_new(&form, &sink, &err) == CUZK_OK);
        if (cuzk__submit_form_json(form, json_body, strlen(json_body), &err) != CUZK_OK) {
            cuzk__submit_form_free(form);
            return 400;
        }
        req.form = form;
    }
    cuzk__response resp;
    cuzk__route_handle(d, &req, &resp);
    cuzk__submit_form_free(form);
    if (root != NULL) *root = NULL;
    if (root != NULL && resp.content_type != NULL &&
        strcmp(resp.content_type, "application/json") == 0)
        CHECK(cuzk_json_parse(root, resp.body, resp.len, NULL, &err) == CUZK_OK);
    const unsigned code = resp.code;
    if (resp.code == 405) CHECK(resp.allow != NULL);
    if (keep != NULL)
        *keep = resp;
    else
        cuzk__response_free(&resp);
    return code;
}

static uint64_t get_u64(const cuzk_json *o, const char *k) {
    uint64_t v = UINT64_MAX;
    CHECK(cuzk_json_get_u64(cuzk_json_get(o, k), &v));
    return v;
}

static const char *get_str(const cuzk_json *o, const char *k) {
    const cuzk_json *v = cuzk_json_get(o, k);
    return v != NULL && v->type == CUZK_JSON_STRING ? v->str : "";
}

static const char *error_status(const cuzk_json *root) {
    return get_str(cuzk_json_get(root, "error"), "status");
}

/* ---- a daemon ----------------------------------------------------------------- */

static cuzk__daemon *start(void) {
    cuzk__daemon_config cfg;
    cuzk__daemon_config_defaults(&cfg);
    char db[128], spool[128];
    snprintf(db, sizeof(db), "%s/db", tmp);
    snprintf(spool, sizeof(spool), "%s/spool", tmp);
    cuzk_error err;
    CHECK(cuzk__daemon_config_set(&cfg, "store.database", db, &err) == CUZK_OK);
    CHECK(cuzk__daemon_config_set(&cfg, "store.spool_dir", spool, &err) == CUZK_OK);
    CHECK(cuzk__daemon_config_set(&cfg, "engine.backend", "cpu", &err) == CUZK_OK);
    CHECK(cuzk__daemon_config_set(&cfg, "key.sample.zkey", zkey, &err) == CUZK_OK);
    CHECK(cuzk__daemon_config_set(&cfg, "key.sample.r1cs", r1cs, &err) == CUZK_OK);
    CHECK(cuzk__daemon_config_check(&cfg, &err) == CUZK_OK);
    cuzk__daemon *d = NULL;
    CHECK(cuzk__daemon_start(&d, &cfg, NULL, NULL, &err) == CUZK_OK);
    cuzk__daemon_config_free(&cfg);
    return d;
}

static char body[4096];

static const char *submit_body(const char *key, const char *request_id, const char *witness) {
    char rid[300] = "";
    if (request_id != NULL) snprintf(rid, sizeof(rid), ",\"request_id\":\"%s\"", request_id);
    snprintf(body, sizeof(body), "{\"key\":\"%s\"%s,\"witness_paths\":[\"%s\",\"%s\"]}", key, rid,
             witness, witness);
    return body;
}

/* ---- the tests ------------------------------------------------------------------- */

static void test_jobs(void) {
    cuzk__daemon *d = start();
    cuzk_json *r = NULL;
    CHECK(call(d, "POST", "/v1/jobs", NULL, submit_body("sample", "r-1", wtns), &r, NULL) == 201);
    const uint64_t id = get_u64(r, "id");
    CHECK(get_u64(r, "partitions") == 2 && strcmp(get_str(r, "request_id"), "r-1") == 0);
    cuzk_json_free(r);
    /* the same request id: the same job, 200 */
    CHECK(call(d, "POST", "/v1/jobs", NULL, submit_body("sample", "r-1", wtns), &r, NULL) == 200);
    CHECK(get_u64(r, "id") == id);
    cuzk_json_free(r);

    char path[64];
    snprintf(path, sizeof(path), "/v1/jobs/%llu/await", (unsigned long long)id);
    const query q60 = {{"timeout_ms"}, {"60000"}};
    CHECK(call(d, "GET", path, &q60, NULL, &r, NULL) == 200);
    CHECK(strcmp(get_str(r, "state"), "done") == 0 && get_u64(r, "partitions_done") == 2);
    CHECK(cuzk_json_get(r, "finished_ms")->type == CUZK_JSON_NUMBER);
    cuzk_json_free(r);

    /* the result: both partitions verify against the sample's key */
    snprintf(path, sizeof(path), "/v1/jobs/%llu/result", (unsigned long long)id);
    CHECK(call(d, "GET", path, NULL, NULL, &r, NULL) == 200);
    CHECK(strcmp(get_str(r, "format"), "snarkjs") == 0);
    const cuzk_json *proofs = cuzk_json_get(r, "proofs");
    CHECK(proofs != NULL && proofs->len == 2);
    cuzk_vk *vk = NULL;
    cuzk_error err;
    CHECK(cuzk_vk_read(&vk, vkjson, &err) == CUZK_OK);
    for (size_t i = 0; proofs != NULL && i < proofs->len; i++) {
        const cuzk_json *p = proofs->items[i];
        cuzk_json_writer w;
        char *pj = NULL, *pub = NULL;
        size_t pl = 0, publ = 0;
        cuzk_json member = *cuzk_json_get(p, "proof_json"); /* the value alone, no key */
        member.key = NULL;
        cuzk_json_writer_init(&w, 0);
        cuzk_json_write_tree(&w, &member);
        CHECK(cuzk_json_writer_finish(&w, &pj, &pl) == CUZK_OK);
        member = *cuzk_json_get(p, "public");
        member.key = NULL;
        cuzk_json_writer_init(&w, 0);
        cuzk_json_write_tree(&w, &member);
        CHECK(cuzk_json_writer_finish(&w, &pub, &publ) == CUZK_OK);
        cuzk_proof proof;
        uint8_t *inputs = NULL;
        size_t n_in = 0;
        CHECK(cuzk_proof_from_json(&proof, pj, pl, &err) == CUZK_OK);
        CHECK(cuzk_public_from_json(&inputs, &n_in, pub, publ, &err) == CUZK_OK);
        CHECK(cuzk_verify(vk, &proof, inputs, n_in, &err) == CUZK_OK);
        CHECK(strlen(get_str(p, "proof")) == 2 * CUZK_PROOF_BYTES);
        cuzk_free(inputs);
        free(pj);
        free(pub);
    }
    cuzk_vk_free(vk);
    cuzk_json_free(r);
    const query bin = {{"format"}, {"binary"}};
    cuzk__response raw;
    CHECK(call(d, "GET", path, &bin, NULL, NULL, &raw) == 200);
    CHECK(raw.len == 2 * CUZK_PROOF_BYTES &&
          strcmp(raw.content_type, "application/octet-stream") == 0);
    cuzk__response_free(&raw);
    const query badfmt = {{"format"}, {"xml"}};
    CHECK(call(d, "GET", path, &badfmt, NULL, NULL, NULL) == 400);

    /* a witness that does not exist, or of another size: refused at submission */
    CHECK(call(d, "POST", "/v1/jobs", NULL, submit_body("sample", NULL, "/nonexistent/w.wtns"),
               &r, NULL) == 400);
    CHECK(strstr(get_str(cuzk_json_get(r, "error"), "message"), "/nonexistent/w.wtns") != NULL);
    cuzk_json_free(r);
    CHECK(call(d, "POST", "/v1/jobs", NULL, submit_body("sample", NULL, other_wtns), &r, NULL) ==
          400);
    CHECK(strstr(get_str(cuzk_json_get(r, "error"), "message"), "expects") != NULL);
    cuzk_json_free(r);
    /* one whose header fits but whose values do not satisfy the circuit: the
     * job is accepted and fails, naming the partition */
    CHECK(call(d, "POST", "/v1/jobs", NULL, submit_body("sample", NULL, bad_wtns), &r, NULL) ==
          201);
    const uint64_t bad = get_u64(r, "id");
    cuzk_json_free(r);
    snprintf(path, sizeof(path), "/v1/jobs/%llu/await", (unsigned long long)bad);
    CHECK(call(d, "GET", path, &q60, NULL, &r, NULL) == 200);
    CHECK(strcmp(get_str(r, "state"), "failed") == 0);
    CHECK(strstr(get_str(cuzk_json_get(r, "error"), "message"), "partition 0") != NULL);
    cuzk_json_free(r);
    snprintf(path, sizeof(path), "/v1/jobs/%llu/result", (unsigned long long)bad);
    CHECK(call(d, "GET", path, NULL, NULL, &r, NULL) == 409);
    cuzk_json_free(r);

    /* the list, a page at a time */
    const query page = {{"limit", "state"}, {"1", "done,failed"}};
    CHECK(call(d, "GET", "/v1/jobs", &page, NULL, &r, NULL) == 200);
    CHECK(cuzk_json_get(r, "jobs")->len == 1 && get_u64(r, "next_after") == id);
    cuzk_json_free(r);
    const query rest = {{"after", "state"}, {"1", "done,failed"}};
    CHECK(call(d, "GET", "/v1/jobs", &rest, NULL, &r, NULL) == 200);
    CHECK(cuzk_json_get(r, "jobs")->len == 1 &&
          cuzk_json_get(r, "next_after")->type == CUZK_JSON_NULL);
    cuzk_json_free(r);
    const query badstate = {{"state"}, {"done,lost"}};
    CHECK(call(d, "GET", "/v1/jobs", &badstate, NULL, &r, NULL) == 400);
    cuzk_json_free(r);

    /* cancelling a job that ended leaves it as it ended; collecting forgets it */
    snprintf(path, sizeof(path), "/v1/jobs/%llu/cancel", (unsigned long long)id);
    CHECK(call(d, "POST", path, NULL, NULL, &r, NULL) == 200);
    CHECK(strcmp(get_str(r, "state"), "done") == 0);
    cuzk_json_free(r);
    snprintf(path, sizeof(path), "/v1/jobs/%llu", (unsigned long long)id);
    CHECK(call(d, "DELETE", path, NULL, NULL, NULL, NULL) == 204);
    CHECK(call(d, "GET", path, NULL, NULL, &r, NULL) == 404);
    CHECK(strcmp(error_status(r), "ERR_NOT_FOUND") == 0);
    cuzk_json_free(r);

    /* errors */
    CHECK(call(d, "POST", "/v1/jobs", NULL, submit_body("nokey", NULL, wtns), &r, NULL) == 404);
    cuzk_json_free(r);
    CHECK(call(d, "GET", "/v1/jobs/abc", NULL, NULL, NULL, NULL) == 404);
    CHECK(call(d, "GET", "/v1/jobs/1/bogus", NULL, NULL, NULL, NULL) == 404);
    CHECK(call(d, "PUT", "/v1/jobs", NULL, NULL, NULL, NULL) == 405);
    CHECK(call(d, "GET", "/v1/jobs/1/cancel", NULL, NULL, NULL, NULL) == 405);
    CHECK(call(d, "GET", "/nowhere", NULL, NULL, NULL, NULL) == 404);
    const query badt = {{"timeout_ms"}, {"-5"}};
    CHECK(call(d, "GET", "/v1/jobs/1/await", &badt, NULL, NULL, NULL) == 400);
    cuzk__daemon_stop(d);
}

static void test_prove_keys_status(void) {
    cuzk__daemon *d = start();
    cuzk_json *r = NULL;
    const query q = {{"timeout_ms"}, {"60000"}};
    CHECK(call(d, "POST", "/v1/prove", &q, submit_body("sample", NULL, wtns), &r, NULL) == 200);
    CHECK(strcmp(get_str(r, "state"), "done") == 0);
    CHECK(cuzk_json_get(cuzk_json_get(r, "result"), "proofs")->len == 2);
    const uint64_t id = get_u64(r, "id");
    cuzk_json_free(r);

    /* the timeline names the store's job */
    CHECK(call(d, "GET", "/v1/timeline", NULL, NULL, &r, NULL) == 200);
    const cuzk_json *ev = cuzk_json_get(r, "events");
    CHECK(ev != NULL && ev->len > 0 && get_u64(ev->items[0], "job") == id);
    CHECK(cuzk_json_get(r, "workers")->len >= 1);
    cuzk_json_free(r);

    /* keys: another name for the same files, a name in use, a missing file */
    char kb[3000];
    snprintf(kb, sizeof(kb), "{\"name\":\"again\",\"zkey\":\"%s\"}", zkey);
    CHECK(call(d, "POST", "/v1/keys", NULL, kb, &r, NULL) == 201);
    CHECK(strcmp(get_str(r, "tier"), "cold") == 0);
    cuzk_json_free(r);
    CHECK(call(d, "POST", "/v1/keys", NULL, kb, &r, NULL) == 400);
    cuzk_json_free(r);
    CHECK(call(d, "POST", "/v1/keys", NULL, "{\"name\":\"x\",\"zkey\":\"/nonexistent.zkey\"}", &r,
               NULL) == 404);
    cuzk_json_free(r);
    CHECK(call(d, "POST", "/v1/keys", NULL, "{\"name\":\"bad name\",\"zkey\":\"/a\"}", &r,
               NULL) == 400);
    cuzk_json_free(r);
    const query warm = {{"tier"}, {"warm"}};
    CHECK(call(d, "POST", "/v1/keys/again/preload", &warm, NULL, &r, NULL) == 200);
    CHECK(strcmp(get_str(r, "tier"), "warm") == 0);
    cuzk_json_free(r);
    CHECK(call(d, "POST", "/v1/keys/again/preload", NULL, NULL, &r, NULL) == 200);
    CHECK(strcmp(get_str(r, "tier"), "hot") == 0);
    cuzk_json_free(r);
    CHECK(call(d, "POST", "/v1/keys/again/evict", NULL, NULL, &r, NULL) == 200);
    CHECK(strcmp(get_str(r, "tier"), "cold") == 0);
    cuzk_json_free(r);
    CHECK(call(d, "POST", "/v1/keys/none/evict", NULL, NULL, NULL, NULL) == 404);
    CHECK(call(d, "GET", "/v1/keys/again/evict", NULL, NULL, NULL, NULL) == 405);

    CHECK(call(d, "GET", "/v1/status", NULL, NULL, &r, NULL) == 200);
    CHECK(strcmp(get_str(r, "backend"), "cpu") == 0);
    CHECK(cuzk_json_get(r, "keys")->len == 2);
    CHECK(get_u64(cuzk_json_get(r, "jobs"), "done") == 1);
    CHECK(get_u64(cuzk_json_get(r, "engine"), "verified") == 2);
    cuzk_json_free(r);
    cuzk__response m;
    CHECK(call(d, "GET", "/metrics", NULL, NULL, NULL, &m) == 200);
    CHECK(strstr(m.body, "cuzk_jobs{state=\"done\"} 1") != NULL);
    cuzk__response_free(&m);
    CHECK(call(d, "GET", "/", NULL, NULL, NULL, &m) == 200);
    CHECK(strncmp(m.content_type, "text/html", 9) == 0);
    cuzk__response_free(&m);

    /* draining: intake refused (503), the rest answers */
    cuzk__daemon_drain(d);
    CHECK(call(d, "POST", "/v1/jobs", NULL, submit_body("sample", NULL, wtns), &r, NULL) == 503);
    CHECK(strcmp(error_status(r), "ERR_BUSY") == 0);
    cuzk_json_free(r);
    CHECK(call(d, "GET", "/v1/status", NULL, NULL, &r, NULL) == 200);
    CHECK(cuzk_json_get(r, "draining")->type == CUZK_JSON_TRUE);
    cuzk_json_free(r);
    cuzk__daemon_stop(d);
}

/* A job in the store that no daemon ran (as a crash leaves it) is resumed. */
static void test_resume(void) {
    char db[128], spool[128];
    snprintf(db, sizeof(db), "%s/db", tmp);
    snprintf(spool, sizeof(spool), "%s/spool", tmp);
    cuzk__store *s = NULL;
    cuzk_error err;
    CHECK(cuzk__store_open(&s, db, spool, &err) == CUZK_OK);
    const cuzk__store_witness w[1] = {{NULL, wtns}};
    const cuzk__store_job job = {.request_id = "resume-me", .key_name = "sample",
                                 .priority = CUZK_PRIORITY_HIGH, .n_partitions = 1,
                                 .witnesses = w};
    uint64_t id = 0;
    int existed = 1;
    CHECK(cuzk__store_submit(s, &job, &id, &existed, &err) == CUZK_OK && !existed);
    CHECK(cuzk__store_set_running(s, id, &err) == CUZK_OK);
    cuzk__store_close(s);

    cuzk__daemon *d = start();
    cuzk__daemon_job j;
    CHECK(cuzk__daemon_job_await(d, id, 60000, &j, &err) == CUZK_OK);
    CHECK(j.rec.state == CUZK_JOB_DONE);
    cuzk__daemon_result res;
    CHECK(cuzk__daemon_job_result(d, id, &res, &err) == CUZK_OK);
    CHECK(res.n == 1 && res.format == CUZK__FORMAT_SNARKJS && res.n_public == 5);
    cuzk__daemon_result_free(&res);
    cuzk__daemon_stop(d);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *src = getenv("CUZK_SOURCE_DIR");
    snprintf(src_dir, sizeof(src_dir), "%s", src ? src : ".");
    snprintf(zkey, sizeof zkey, "%s/examples/sample/circuit.zkey", src_dir);
    snprintf(r1cs, sizeof r1cs, "%s/examples/sample/circuit.r1cs", src_dir);
    snprintf(wtns, sizeof wtns, "%s/examples/sample/witness.wtns", src_dir);
    snprintf(vkjson, sizeof vkjson, "%s/examples/sample/verification_key.json", src_dir);
    snprintf(tmp, sizeof(tmp), "/tmp/cuzk-test-routes.XXXXXX");
    if (mkdtemp(tmp) == NULL) return cuzk_test_skip("no temporary folder");
    /* the sample's witness with its count raised (another circuit's, by its
     * header), and with its last value changed (no longer satisfying) */
    snprintf(other_wtns, sizeof(other_wtns), "%s/other.wtns", tmp);
    snprintf(bad_wtns, sizeof(bad_wtns), "%s/bad.wtns", tmp);
    uint8_t *w = NULL;
    size_t wn = 0;
    cuzk_error err;
    if (cuzk_file_read(&w, &wn, wtns, 1u << 20, &err) != CUZK_OK || wn < 96)
        return cuzk_test_skip("the sample witness cannot be read");
    w[60]++;
    FILE *f = fopen(other_wtns, "wb");
    CHECK(f != NULL && fwrite(w, 1, wn, f) == wn && fclose(f) == 0);
    w[60]--;
    w[wn - 32] ^= 1;
    f = fopen(bad_wtns, "wb");
    CHECK(f != NULL && fwrite(w, 1, wn, f) == wn && fclose(f) == 0);
    cuzk_free(w);
    RUN(test_jobs);
    RUN(test_prove_keys_status);
    RUN(test_resume);
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return cuzk_test_finish();
}
