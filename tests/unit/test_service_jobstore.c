/*
 * test_service_jobstore.c — the job store's interface (src/service/jobstore.h)
 * over its SQLite implementation, where claims live in the process: claims
 * in priority, job and index order, never the same partition twice; a stale
 * claim (given back, then claimed again) FENCED on complete, fail and
 * release; a job done with its last partition's proof; a failure; renew
 * telling HELD, LOST and JOB_ENDED; the partitions waiting ahead of a job
 * less those claimed, whatever their key (the one daemon serves every key
 * of its jobs: test_store_pg's test_cluster_view gets the same answers
 * from PostgreSQL); the backlog; collect refused for a live job; leave
 * giving back what is held; uploads checked at their spool path; a
 * bounded queue (max_backlog) that eight submitters released together,
 * round after round, never pass together, and that still answers a request
 * id it knows when full.
 *
 * Runs in a fresh folder under /tmp, removed at the end.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "race_rounds.h"
#include "service/jobstore.h"
#include "util/error.h"

static char g_dir[64];

/* The store in g_dir's database name (a file and a spool folder). */
static cuzk__jobstore *open_store_named(const char *name) {
    char db[128], spool[128];
    snprintf(db, sizeof(db), "%s/%s.db", g_dir, name);
    snprintf(spool, sizeof(spool), "%s/%s-spool", g_dir, name);
    const cuzk__jobstore_options o = {.store = "sqlite", .database = db, .spool_dir = spool};
    cuzk__jobstore *js = NULL;
    cuzk_error err;
    const cuzk_status st = cuzk__jobstore_open(&js, &o, NULL, NULL, &err);
    if (st != CUZK_OK) fprintf(stderr, "open: %s\n", cuzk__error_text(&err));
    CHECK_EQ_INT(st, CUZK_OK);
    return js;
}

static cuzk__jobstore *open_store(void) { return open_store_named("jobs"); }

/* A job of n partitions given by server path. */
static uint64_t submit(cuzk__jobstore *js, const char *key, cuzk_priority pr, size_t n) {
    cuzk__store_witness w[8];
    for (size_t i = 0; i < n; i++) w[i] = (cuzk__store_witness){.path = "/srv/w"};
    const cuzk__store_job job = {.key_name = key, .priority = pr, .n_partitions = n,
                                 .witnesses = w};
    uint64_t id = 0;
    int existed = 0;
    cuzk_error err;
    CHECK_EQ_INT(cuzk__jobstore_submit(js, &job, &id, &existed, &err), CUZK_OK);
    return id;
}

static cuzk__jobstore_outcome complete(cuzk__jobstore *js, const cuzk__jobstore_ref *ref,
                                       int *done) {
    cuzk_proof p;
    memset(p.bytes, (int)ref->index + 1, sizeof(p.bytes));
    uint8_t pub[32];
    memset(pub, (int)ref->index, sizeof(pub));
    cuzk__jobstore_outcome o = CUZK__JS_ENDED;
    cuzk_error err;
    CHECK_EQ_INT(cuzk__jobstore_complete(js, ref, &p, pub, sizeof(pub), &o, done, &err), CUZK_OK);
    return o;
}

static cuzk_job_state state_of(cuzk__jobstore *js, uint64_t id, cuzk__jobstore_job *out) {
    cuzk__jobstore_job j;
    cuzk_error err;
    CHECK_EQ_INT(cuzk__jobstore_get(js, id, &j, &err), CUZK_OK);
    if (out != NULL) *out = j;
    return j.rec.state;
}

static void test_claims(void) {
    cuzk__jobstore *js = open_store();
    if (js == NULL) return;
    CHECK(strcmp(cuzk__jobstore_kind(js), "sqlite") == 0 && !cuzk__jobstore_shared(js));
    CHECK(cuzk__jobstore_self(js) == 0);
    cuzk_error err;
    const uint64_t lo = submit(js, "k", CUZK_PRIORITY_LOW, 3);
    const uint64_t hi = submit(js, "k", CUZK_PRIORITY_HIGH, 2);
    const uint64_t other = submit(js, "other", CUZK_PRIORITY_CRITICAL, 1);
    size_t backlog = 0;
    CHECK_EQ_INT(cuzk__jobstore_backlog(js, &backlog, &err), CUZK_OK);
    CHECK(backlog == 6);

    /* the served key only, best first; a second claim skips the first's */
    const char *keys[] = {"k"};
    cuzk__jobstore_part p[8];
    size_t n = 0;
    CHECK_EQ_INT(cuzk__jobstore_claim(js, keys, 1, 3, p, &n, &err), CUZK_OK);
    CHECK(n == 3);
    if (n != 3) return;
    CHECK(p[0].ref.job_id == hi && p[0].ref.index == 0 && p[1].ref.job_id == hi &&
          p[1].ref.index == 1 && p[2].ref.job_id == lo && p[2].ref.index == 0);
    CHECK(strcmp(p[2].path, "/srv/w") == 0 && p[2].payload == 0 && !p[2].temporary);
    CHECK(state_of(js, hi, NULL) == CUZK_JOB_RUNNING && state_of(js, lo, NULL) == CUZK_JOB_RUNNING);
    cuzk__jobstore_job j;
    state_of(js, lo, &j);
    CHECK(j.claimed == 1 && j.rec.n_done == 0);
    /* ahead of the critical job: nothing; of the low one's next: the other
     * key's job (the high one is all claimed) */
    state_of(js, other, &j);
    CHECK(j.ahead == 0);
    state_of(js, lo, &j);
    CHECK(j.ahead == 1);
    CHECK_EQ_INT(cuzk__jobstore_claim(js, keys, 1, 8, p + 3, &n, &err), CUZK_OK);
    CHECK(n == 2 && p[3].ref.job_id == lo && p[3].ref.index == 1 && p[4].ref.index == 2);
    CHECK_EQ_INT(cuzk__jobstore_claim(js, keys, 1, 8, p + 5, &n, &err), CUZK_OK);
    CHECK(n == 0);

    /* a claim given back and claimed again: the old ref is fenced */
    cuzk__jobstore_outcome o = CUZK__JS_ENDED;
    CHECK_EQ_INT(cuzk__jobstore_release(js, &p[3].ref, &o, &err), CUZK_OK);
    CHECK(o == CUZK__JS_RECORDED);
    CHECK_EQ_INT(cuzk__jobstore_release(js, &p[3].ref, &o, &err), CUZK_OK);
    CHECK(o == CUZK__JS_FENCED);
    cuzk__jobstore_part again;
    CHECK_EQ_INT(cuzk__jobstore_claim(js, keys, 1, 1, &again, &n, &err), CUZK_OK);
    CHECK(n == 1 && again.ref.job_id == lo && again.ref.index == 1 &&
          again.ref.generation != p[3].ref.generation);
    int done = -1;
    CHECK(complete(js, &p[3].ref, &done) == CUZK__JS_FENCED && done == 0);
    CHECK(state_of(js, lo, &j) == CUZK_JOB_RUNNING && j.rec.n_done == 0);

    /* renew: held, lost (the stale ref), and a job that ended */
    CHECK_EQ_INT(cuzk__jobstore_cancel(js, hi, NULL, &err), CUZK_OK);
    cuzk__jobstore_lease l[3] = {{.ref = again.ref}, {.ref = p[3].ref}, {.ref = p[0].ref}};
    CHECK_EQ_INT(cuzk__jobstore_renew(js, l, 3, &err), CUZK_OK);
    CHECK(l[0].state == CUZK__JS_HELD && l[1].state == CUZK__JS_LOST &&
          l[2].state == CUZK__JS_JOB_ENDED);
    CHECK(complete(js, &p[0].ref, &done) == CUZK__JS_ENDED);
    CHECK_EQ_INT(cuzk__jobstore_release(js, &p[1].ref, &o, &err), CUZK_OK);

    /* the low job done with its last proof; the results in order */
    CHECK(complete(js, &p[2].ref, &done) == CUZK__JS_RECORDED && done == 0);
    CHECK(complete(js, &again.ref, &done) == CUZK__JS_RECORDED && done == 0);
    CHECK(complete(js, &p[4].ref, &done) == CUZK__JS_RECORDED && done == 1);
    CHECK(complete(js, &p[4].ref, &done) == CUZK__JS_FENCED); /* its claim is gone */
    CHECK(state_of(js, lo, &j) == CUZK_JOB_DONE && j.rec.n_done == 3 && j.claimed == 0);
    cuzk_proof proofs[3];
    uint64_t owners[3] = {9, 9, 9};
    uint8_t *pub = NULL;
    size_t pub_bytes = 0;
    CHECK_EQ_INT(cuzk__jobstore_results(js, lo, proofs, owners, 3, &pub, &pub_bytes, &err),
                 CUZK_OK);
    CHECK(pub_bytes == 32 && pub != NULL && owners[0] == 0 && owners[2] == 0);
    for (int i = 0; i < 3; i++) CHECK(proofs[i].bytes[0] == i + 1 && pub[i * 32] == i);
    free(pub);

    /* a failure fails the job, fenced to its claim */
    const uint64_t f = submit(js, "k", CUZK_PRIORITY_NORMAL, 2);
    CHECK_EQ_INT(cuzk__jobstore_claim(js, keys, 1, 2, p, &n, &err), CUZK_OK);
    CHECK(n == 2 && p[0].ref.job_id == f);
    CHECK_EQ_INT(cuzk__jobstore_fail(js, &p[0].ref, CUZK_ERR_WITNESS_UNSATISFIED,
                                     "partition 0: constraint 7", &o, &err), CUZK_OK);
    CHECK(o == CUZK__JS_RECORDED);
    CHECK(state_of(js, f, &j) == CUZK_JOB_FAILED && j.rec.error_status == CUZK_ERR_WITNESS_UNSATISFIED);
    CHECK(strstr(j.rec.error, "constraint 7") != NULL);
    CHECK_EQ_INT(cuzk__jobstore_fail(js, &p[0].ref, CUZK_ERR_IO, NULL, &o, &err), CUZK_OK);
    CHECK(o == CUZK__JS_FENCED);
    CHECK_EQ_INT(cuzk__jobstore_fail(js, &p[1].ref, CUZK_ERR_IO, NULL, &o, &err), CUZK_OK);
    CHECK(o == CUZK__JS_ENDED);

    /* collect: refused while live, done once ended */
    const uint64_t live = submit(js, "k", CUZK_PRIORITY_NORMAL, 1);
    CHECK_EQ_INT(cuzk__jobstore_collect(js, live, &err), CUZK_ERR_INVALID_ARG);
    CHECK(strstr(cuzk__error_text(&err), "cancel it first") != NULL);
    CHECK_EQ_INT(cuzk__jobstore_claim(js, keys, 1, 1, p, &n, &err), CUZK_OK);
    CHECK(n == 1);
    size_t released = 0;
    CHECK_EQ_INT(cuzk__jobstore_leave(js, &released, &err), CUZK_OK);
    CHECK(released == 1);
    CHECK(complete(js, &p[0].ref, &done) == CUZK__JS_FENCED);
    CHECK_EQ_INT(cuzk__jobstore_cancel(js, live, NULL, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__jobstore_collect(js, live, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__jobstore_get(js, live, &j, &err), CUZK_ERR_NOT_FOUND);

    /* no notifications, no other daemons */
    cuzk__jobstore_event ev;
    uint64_t id = 0;
    int got = 1;
    CHECK_EQ_INT(cuzk__jobstore_wait(js, 0, &ev, &id, &got, &err), CUZK_ERR_UNSUPPORTED);
    CHECK(got == 0);
    cuzk__jobstore_daemon *v = NULL;
    CHECK_EQ_INT(cuzk__jobstore_daemons(js, &v, &n, &err), CUZK_OK);
    CHECK(n == 0 && v == NULL);
    cuzk__jobstore_close(js);
}

/* An upload through the sink: its check file is the spool file itself. */
static void test_upload(void) {
    cuzk__jobstore *js = open_store();
    if (js == NULL) return;
    cuzk__witness_sink sink;
    cuzk__jobstore_sink(js, &sink);
    void *w = NULL;
    cuzk_error err;
    CHECK_EQ_INT(sink.begin(sink.user, &w, &err), CUZK_OK);
    CHECK_EQ_INT(sink.append(w, "wtns-bytes", 10, &err), CUZK_OK);
    char name[CUZK__STORE_SPOOL_NAME_BYTES];
    CHECK_EQ_INT(sink.commit(w, name, sizeof(name), &err), CUZK_OK);
    char path[4096];
    int temporary = 1;
    CHECK_EQ_INT(cuzk__jobstore_upload_check_file(js, name, path, sizeof(path), &temporary, &err),
                 CUZK_OK);
    CHECK(!temporary && access(path, R_OK) == 0 && strstr(path, name) != NULL);
    sink.remove(sink.user, name);
    CHECK(access(path, F_OK) != 0);
    cuzk__jobstore_close(js);
}

/* ---- a bounded queue ------------------------------------------------------------ */

/* The race's callbacks (race_rounds.h): every racer on the one store, whose
 * claims and bound live in this process. */
static void *race_open(void *user) { return user; }

static race_outcome race_submit(void *conn) {
    cuzk__store_witness w[RACE_PARTS] = {{.path = "/srv/w"}, {.path = "/srv/w"},
                                         {.path = "/srv/w"}};
    const cuzk__store_job job = {.key_name = "k", .n_partitions = RACE_PARTS, .witnesses = w,
                                 .max_backlog = RACE_BOUND};
    uint64_t id = 0;
    int existed = 0;
    cuzk_error err;
    const cuzk_status st = cuzk__jobstore_submit(conn, &job, &id, &existed, &err);
    if (st == CUZK_OK) return RACE_ACCEPTED;
    if (st == CUZK_ERR_BUSY) return RACE_BUSY;
    fprintf(stderr, "racer: %s\n", cuzk__error_text(&err));
    return RACE_ERROR;
}

static long long race_count_parts(void *user) {
    size_t backlog = 0;
    cuzk_error err;
    if (cuzk__jobstore_backlog(user, &backlog, &err) != CUZK_OK) {
        fprintf(stderr, "backlog: %s\n", cuzk__error_text(&err));
        return -1;
    }
    return (long long)backlog;
}

/* Cancels and collects every job: an empty queue. Nonzero when done. */
static int empty_queue(void *user) {
    cuzk__jobstore *js = user;
    cuzk__jobstore_job *v = NULL;
    size_t n = 0;
    cuzk_error err;
    int ok = cuzk__jobstore_list(js, 0, 0, 0, &v, &n, &err) == CUZK_OK;
    for (size_t i = 0; ok && i < n; i++)
        ok = cuzk__jobstore_cancel(js, v[i].rec.id, NULL, &err) == CUZK_OK &&
             cuzk__jobstore_collect(js, v[i].rec.id, &err) == CUZK_OK;
    if (!ok) fprintf(stderr, "empty: %s\n", cuzk__error_text(&err));
    free(v);
    return ok;
}

static void race_close(void *conn) { (void)conn; }

static void test_bounded_submit(void) {
    cuzk__jobstore *js = open_store_named("bound");
    if (js == NULL) return;
    cuzk_error err;
    cuzk__store_witness w[4] = {{.path = "/srv/w"}, {.path = "/srv/w"}, {.path = "/srv/w"},
                                {.path = "/srv/w"}};
    cuzk__store_job job = {.request_id = "b1", .key_name = "other", .n_partitions = 4,
                           .witnesses = w, .max_backlog = 6};
    uint64_t id = 0, again = 0;
    int existed = 1;
    CHECK_EQ_INT(cuzk__jobstore_submit(js, &job, &id, &existed, &err), CUZK_OK);
    CHECK(!existed);
    job.request_id = "b2";
    job.n_partitions = 3;
    CHECK_EQ_INT(cuzk__jobstore_submit(js, &job, &again, &existed, &err), CUZK_ERR_BUSY);
    CHECK(strstr(cuzk__error_text(&err), "4 partitions not yet proved") != NULL);
    job.n_partitions = 2;
    CHECK_EQ_INT(cuzk__jobstore_submit(js, &job, &again, &existed, &err), CUZK_OK);
    /* full, but a request id it knows is answered; no bound, no refusal */
    job.request_id = "b1";
    job.n_partitions = 4;
    CHECK_EQ_INT(cuzk__jobstore_submit(js, &job, &again, &existed, &err), CUZK_OK);
    CHECK(again == id && existed == 1);
    job.request_id = "b3";
    job.n_partitions = 1;
    CHECK_EQ_INT(cuzk__jobstore_submit(js, &job, &again, &existed, &err), CUZK_ERR_BUSY);
    job.max_backlog = 0;
    CHECK_EQ_INT(cuzk__jobstore_submit(js, &job, &again, &existed, &err), CUZK_OK);
    CHECK(empty_queue(js));

    /* eight submitters released together, round after round, on an empty
     * queue: exactly RACE_BOUND / RACE_PARTS of them get in each round */
    const race_store race = {.user = js, .open = race_open, .submit = race_submit,
                             .count_parts = race_count_parts, .empty = empty_queue,
                             .close = race_close};
    race_rounds(&race);
    cuzk__jobstore_close(js);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    snprintf(g_dir, sizeof(g_dir), "/tmp/cuzk-test-jobstore-XXXXXX");
    if (mkdtemp(g_dir) == NULL) return cuzk_test_skip("cannot make a temporary folder");
    RUN(test_claims);
    RUN(test_upload);
    RUN(test_bounded_submit);
    if (nftw(g_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "%s: cannot remove\n", g_dir);
    return cuzk_test_finish();
}
