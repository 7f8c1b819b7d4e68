/*
 * test_service_store.c — the daemon's durable job store (src/service/store.h):
 * submit, get, list, finish and collect round trips; request ids that make a
 * resubmission idempotent (and refuse a different key or partition count);
 * results that survive a close and reopen, and the unfinished jobs a restart
 * resubmits, in order; spool files released when a job ends and removed
 * when it is collected; the sweep (orphans and temporaries removed,
 * referenced and foreign files kept); expiry; submissions from four threads
 * at once (nothing lost or duplicated); a writer killed with SIGKILL in the
 * middle of a stream of submissions (every acknowledged job whole, the
 * database intact); partitions proved one at a time (their order, a proof
 * per partition, the job done with its last, refused once it ended, kept
 * across a restart); refusals that name the path.
 *
 * Runs in a fresh folder under $TMPDIR (or /tmp), removed at the end.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "service/store.h"
#include "util/error.h"

static char g_dir[256];

/* ---- helpers -------------------------------------------------------------- */

static void at(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static void sleep_ms(int ms) {
    const struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static int contains(const cuzk_error *e, const char *s) {
    return strstr(cuzk__error_text(e), s) != NULL;
}

static int put(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return 0;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* 1 when the file at path holds exactly the n bytes at p. */
static int same_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    uint8_t *b = malloc(n + 1);
    size_t k = b ? fread(b, 1, n + 1, f) : 0;
    int same = b != NULL && k == n && memcmp(b, p, n) == 0;
    free(b);
    fclose(f);
    return same;
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* The store of folder g_dir/sub: sub/jobs.db and sub/spool. */
static cuzk__store *open_sub(const char *sub) {
    char d[512], db[600], spool[600];
    at(d, sizeof(d), sub);
    (void)mkdir(d, 0755);
    snprintf(db, sizeof(db), "%s/jobs.db", d);
    snprintf(spool, sizeof(spool), "%s/spool", d);
    cuzk__store *s = NULL;
    cuzk_error err;
    cuzk_status st = cuzk__store_open(&s, db, spool, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) fprintf(stderr, "open %s: %s\n", sub, cuzk__error_text(&err));
    return s;
}

static void spool_dir(char *out, size_t cap, const char *sub) {
    snprintf(out, cap, "%s/%s/spool", g_dir, sub);
}

/* Writes n bytes to a new spool file in random pieces; its name in name. */
/* The harness's generator, for spool_bytes, which threads call too. */
static pthread_mutex_t g_rand_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t rand_shared(void) {
    pthread_mutex_lock(&g_rand_mu);
    const uint64_t v = cuzk_test_rand64();
    pthread_mutex_unlock(&g_rand_mu);
    return v;
}

static cuzk_status spool_bytes(cuzk__store *s, const void *p, size_t n, char *name) {
    cuzk__spool_writer *w = NULL;
    cuzk_error err;
    cuzk_status st = cuzk__store_spool_begin(s, &w, &err);
    if (st != CUZK_OK) return st;
    const uint8_t *b = p;
    size_t off = 0;
    while (off < n) {
        size_t k = 1 + (size_t)(rand_shared() % 70000);
        if (k > n - off) k = n - off;
        st = cuzk__store_spool_append(w, b + off, k, &err);
        if (st != CUZK_OK) {
            cuzk__store_spool_abort(w);
            return st;
        }
        off += k;
    }
    if (cuzk__store_spool_size(w) != n) {
        cuzk__store_spool_abort(w);
        return CUZK_ERR_IO;
    }
    return cuzk__store_spool_commit(w, name, CUZK__STORE_SPOOL_NAME_BYTES, &err);
}

static cuzk_status spool_text(cuzk__store *s, const char *text, char *name) {
    return spool_bytes(s, text, strlen(text), name);
}

/* Entries of dir that are spool files ("wit-...") or their temporaries
 * (".wit-..."). */
static int count_spool(const char *dir, int temporaries) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
        n += temporaries ? strncmp(e->d_name, ".wit-", 5) == 0
                         : strncmp(e->d_name, "wit-", 4) == 0;
    if (d != NULL) closedir(d);
    return n;
}

static cuzk_status submit(cuzk__store *s, const char *rid, const char *key, size_t n,
                          const cuzk__store_witness *w, uint64_t *id, int *existed) {
    cuzk__store_job job = {.request_id = rid, .key_name = key,
                           .priority = CUZK_PRIORITY_NORMAL, .n_partitions = n, .witnesses = w};
    cuzk_error err;
    int ex = 0;
    cuzk_status st = cuzk__store_submit(s, &job, id, existed ? existed : &ex, &err);
    return st;
}

/* A job of n partitions with fresh spool files holding "<tag> <i>". */
static uint64_t submit_spooled(cuzk__store *s, const char *rid, const char *tag, size_t n) {
    cuzk__store_witness w[16];
    char names[16][CUZK__STORE_SPOOL_NAME_BYTES];
    for (size_t i = 0; i < n; i++) {
        char text[64];
        snprintf(text, sizeof(text), "%s %zu", tag, i);
        CHECK_EQ_INT(spool_text(s, text, names[i]), CUZK_OK);
        w[i] = (cuzk__store_witness){.spool = names[i]};
    }
    uint64_t id = 0;
    CHECK_EQ_INT(submit(s, rid, "key", n, w, &id, NULL), CUZK_OK);
    return id;
}

static void rand_proofs(cuzk_proof *p, size_t n) {
    for (size_t i = 0; i < n; i++) cuzk_test_rand_bytes(p[i].bytes, CUZK_PROOF_BYTES);
}

static cuzk_job_state state_of(cuzk__store *s, uint64_t id) {
    cuzk__store_job_info info;
    cuzk_error err;
    if (cuzk__store_get(s, id, &info, &err) != CUZK_OK) return (cuzk_job_state)-1;
    return info.state;
}

/* ---- round trips ---------------------------------------------------------- */

static void test_round_trip(void) {
    cuzk__store *s = open_sub("rt");
    if (s == NULL) return;
    char spool[600], server[600];
    spool_dir(spool, sizeof(spool), "rt");
    at(server, sizeof(server), "rt/server.wit");
    CHECK(put(server, "the client's own file", 21));
    struct stat sb;
    CHECK(stat(spool, &sb) == 0 && (sb.st_mode & 0777) == 0700);

    enum { BYTES = 300000 };
    uint8_t *d0 = malloc(BYTES), *d1 = malloc(BYTES);
    cuzk_test_rand_bytes(d0, BYTES);
    cuzk_test_rand_bytes(d1, BYTES);
    char n0[CUZK__STORE_SPOOL_NAME_BYTES], n1[CUZK__STORE_SPOOL_NAME_BYTES];
    CHECK_EQ_INT(spool_bytes(s, d0, BYTES, n0), CUZK_OK);
    CHECK_EQ_INT(spool_bytes(s, d1, BYTES, n1), CUZK_OK);
    CHECK(strcmp(n0, n1) != 0 && strncmp(n0, "wit-", 4) == 0 && strlen(n0) == 36);
    CHECK_EQ_INT(count_spool(spool, 1), 0); /* no temporary left */

    const int64_t before = cuzk__store_now_ms();
    cuzk__store_witness w[3] = {{.spool = n0}, {.path = server}, {.spool = n1}};
    cuzk__store_job job = {.request_id = "req-a", .key_name = "porep-32g",
                           .priority = CUZK_PRIORITY_HIGH, .n_partitions = 3, .witnesses = w};
    uint64_t a = 0, b = 0;
    int existed = -1;
    cuzk_error err;
    CHECK_EQ_INT(cuzk__store_submit(s, &job, &a, &existed, &err), CUZK_OK);
    CHECK(a > 0 && existed == 0);

    cuzk__store_job_info info;
    CHECK_EQ_INT(cuzk__store_get(s, a, &info, &err), CUZK_OK);
    CHECK(info.id == a && info.has_request_id && strcmp(info.request_id, "req-a") == 0);
    CHECK(strcmp(info.key_name, "porep-32g") == 0 && info.priority == CUZK_PRIORITY_HIGH);
    CHECK(info.n_partitions == 3 && info.state == CUZK_JOB_QUEUED);
    CHECK(info.created_ms >= before && info.created_ms <= cuzk__store_now_ms());
    CHECK(info.finished_ms == 0 && info.error_status == CUZK_OK && info.error[0] == '\0');

    char **paths = NULL;
    size_t np = 0;
    CHECK_EQ_INT(cuzk__store_witness_paths(s, a, &paths, &np, &err), CUZK_OK);
    CHECK(np == 3);
    if (np == 3) {
        CHECK(paths[0] != NULL && same_bytes(paths[0], d0, BYTES));
        CHECK(paths[1] != NULL && strcmp(paths[1], server) == 0);
        CHECK(paths[2] != NULL && same_bytes(paths[2], d1, BYTES));
        CHECK(paths[0] != NULL && strncmp(paths[0], spool, strlen(spool)) == 0);
    }
    char p0[700], p1[700];
    snprintf(p0, sizeof(p0), "%s", np == 3 && paths[0] ? paths[0] : "");
    snprintf(p1, sizeof(p1), "%s", np == 3 && paths[2] ? paths[2] : "");
    free(paths);

    /* a second job: no request id, one partition */
    cuzk__store_witness wb = {.path = server};
    job = (cuzk__store_job){.key_name = "winning", .priority = CUZK_PRIORITY_LOW,
                            .n_partitions = 1, .witnesses = &wb};
    CHECK_EQ_INT(cuzk__store_submit(s, &job, &b, &existed, &err), CUZK_OK);
    CHECK(b > a && existed == 0);
    CHECK_EQ_INT(cuzk__store_get(s, b, &info, &err), CUZK_OK);
    CHECK(!info.has_request_id && info.request_id[0] == '\0');

    /* list: order, mask, paging */
    cuzk__store_job_info *jobs = NULL;
    size_t n = 0;
    CHECK_EQ_INT(cuzk__store_list(s, 0, 0, 0, &jobs, &n, &err), CUZK_OK);
    CHECK(n == 2 && jobs[0].id == a && jobs[1].id == b);
    free(jobs);
    CHECK_EQ_INT(cuzk__store_list(s, 0, a, 0, &jobs, &n, &err), CUZK_OK);
    CHECK(n == 1 && jobs[0].id == b);
    free(jobs);
    CHECK_EQ_INT(cuzk__store_list(s, 0, 0, 1, &jobs, &n, &err), CUZK_OK);
    CHECK(n == 1 && jobs[0].id == a);
    free(jobs);
    CHECK_EQ_INT(cuzk__store_list(s, 1u << CUZK_JOB_DONE, 0, 0, &jobs, &n, &err), CUZK_OK);
    CHECK(n == 0 && jobs == NULL);
    free(jobs);

    CHECK_EQ_INT(cuzk__store_set_running(s, a, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_set_running(s, a, &err), CUZK_OK);
    CHECK(state_of(s, a) == CUZK_JOB_RUNNING);
    uint64_t counts[5];
    CHECK_EQ_INT(cuzk__store_counts(s, counts, &err), CUZK_OK);
    CHECK(counts[CUZK_JOB_QUEUED] == 1 && counts[CUZK_JOB_RUNNING] == 1 &&
          counts[CUZK_JOB_DONE] == 0);
    CHECK_EQ_INT(cuzk__store_list(s, 1u << CUZK_JOB_RUNNING, 0, 0, &jobs, &n, &err), CUZK_OK);
    CHECK(n == 1 && jobs[0].id == a);
    free(jobs);

    cuzk_proof proofs[3], got[3];
    uint8_t pub[3 * 64];
    rand_proofs(proofs, 3);
    cuzk_test_rand_bytes(pub, sizeof(pub));
    uint8_t *gpub = NULL;
    size_t per = 99;
    CHECK_EQ_INT(cuzk__store_results(s, a, got, 3, &gpub, &per, &err), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&err, "running") && gpub == NULL && per == 0);
    CHECK_EQ_INT(cuzk__store_finish(s, a, proofs, 2, pub, 64, &err), CUZK_ERR_INVALID_ARG);
    CHECK(state_of(s, a) == CUZK_JOB_RUNNING && exists(p0));
    CHECK_EQ_INT(cuzk__store_finish(s, a, proofs, 3, pub, 64, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_get(s, a, &info, &err), CUZK_OK);
    CHECK(info.state == CUZK_JOB_DONE && info.finished_ms >= info.created_ms);
    memset(got, 0, sizeof(got));
    CHECK_EQ_INT(cuzk__store_results(s, a, got, 3, &gpub, &per, &err), CUZK_OK);
    CHECK(per == 64 && gpub != NULL);
    CHECK_MEM(got, proofs, sizeof(proofs));
    if (gpub != NULL) CHECK_MEM(gpub, pub, sizeof(pub));
    free(gpub);
    CHECK_EQ_INT(cuzk__store_results(s, a, got, 2, NULL, NULL, &err), CUZK_ERR_INVALID_ARG);

    /* the ended job's spool files are released, the client's file stays */
    CHECK(!exists(p0) && !exists(p1) && exists(server));
    CHECK_EQ_INT(count_spool(spool, 0), 0);
    CHECK_EQ_INT(cuzk__store_witness_paths(s, a, &paths, &np, &err), CUZK_OK);
    CHECK(np == 3 && paths[0] == NULL && paths[1] != NULL && strcmp(paths[1], server) == 0 &&
          paths[2] == NULL);
    free(paths);

    /* an ended job stays as it ended */
    CHECK_EQ_INT(cuzk__store_finish(s, a, proofs, 3, pub, 64, &err), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&err, "already ended (done)"));
    CHECK_EQ_INT(cuzk__store_fail(s, a, CUZK_ERR_GPU, "late", &err), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__store_set_running(s, a, &err), CUZK_ERR_INVALID_ARG);
    cuzk_job_state cs = CUZK_JOB_QUEUED;
    CHECK_EQ_INT(cuzk__store_cancel(s, a, &cs, &err), CUZK_OK);
    CHECK(cs == CUZK_JOB_DONE && state_of(s, a) == CUZK_JOB_DONE);

    /* no public inputs at all */
    CHECK_EQ_INT(cuzk__store_finish(s, b, proofs, 1, NULL, 0, &err), CUZK_OK);
    gpub = (uint8_t *)&per;
    CHECK_EQ_INT(cuzk__store_results(s, b, got, 1, &gpub, &per, &err), CUZK_OK);
    CHECK(gpub == NULL && per == 0);
    CHECK_MEM(got[0].bytes, proofs[0].bytes, CUZK_PROOF_BYTES);

    /* collect: gone, its request id free, ids never given twice */
    CHECK_EQ_INT(cuzk__store_collect(s, a, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_get(s, a, &info, &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_results(s, a, got, 3, NULL, NULL, &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_collect(s, a, &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_collect(s, b, &err), CUZK_OK); /* the newest id */
    CHECK(exists(server));
    uint64_t c = 0;
    CHECK_EQ_INT(submit(s, "req-a", "porep-32g", 1, &wb, &c, &existed), CUZK_OK);
    CHECK(existed == 0 && c > b);
    CHECK_EQ_INT(cuzk__store_counts(s, counts, &err), CUZK_OK);
    CHECK(counts[0] == 1 && counts[1] + counts[2] + counts[3] + counts[4] == 0);
    free(d0);
    free(d1);
    cuzk__store_close(s);
}

/* Failure, cancel, unknown ids and refused transitions. */
static void test_states(void) {
    cuzk__store *s = open_sub("states");
    if (s == NULL) return;
    cuzk_error err;
    char spool[600];
    spool_dir(spool, sizeof(spool), "states");
    uint64_t f = submit_spooled(s, NULL, "fail", 2);
    uint64_t x = submit_spooled(s, NULL, "cancel", 3);
    uint64_t q = submit_spooled(s, NULL, "stays", 1);
    CHECK_EQ_INT(count_spool(spool, 0), 6);

    CHECK_EQ_INT(cuzk__store_fail(s, f, CUZK_OK, "no", &err), CUZK_ERR_INVALID_ARG);
    CHECK(state_of(s, f) == CUZK_JOB_QUEUED);
    CHECK_EQ_INT(cuzk__store_set_running(s, f, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_fail(s, f, CUZK_ERR_WITNESS_UNSATISFIED,
                                  "partition 1: constraint 7 is not satisfied", &err),
                 CUZK_OK);
    cuzk__store_job_info info;
    CHECK_EQ_INT(cuzk__store_get(s, f, &info, &err), CUZK_OK);
    CHECK(info.state == CUZK_JOB_FAILED && info.error_status == CUZK_ERR_WITNESS_UNSATISFIED);
    CHECK(strcmp(info.error, "partition 1: constraint 7 is not satisfied") == 0);
    CHECK(info.finished_ms > 0);
    cuzk_proof got[3];
    CHECK_EQ_INT(cuzk__store_results(s, f, got, 3, NULL, NULL, &err), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&err, "failed, not done"));
    CHECK_EQ_INT(count_spool(spool, 0), 4);

    cuzk_job_state cs = CUZK_JOB_DONE;
    CHECK_EQ_INT(cuzk__store_cancel(s, x, &cs, &err), CUZK_OK);
    CHECK(cs == CUZK_JOB_CANCELLED && state_of(s, x) == CUZK_JOB_CANCELLED);
    CHECK_EQ_INT(count_spool(spool, 0), 1);
    CHECK_EQ_INT(cuzk__store_cancel(s, x, &cs, &err), CUZK_OK);
    CHECK(cs == CUZK_JOB_CANCELLED);
    cuzk_proof p[3];
    rand_proofs(p, 3);
    CHECK_EQ_INT(cuzk__store_finish(s, x, p, 3, NULL, 0, &err), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&err, "cancelled"));
    CHECK_EQ_INT(cuzk__store_set_running(s, x, &err), CUZK_ERR_INVALID_ARG);

    /* no message: the status's sentence; a long one is cut to the buffer */
    uint64_t g = submit_spooled(s, NULL, "g", 1), h = submit_spooled(s, NULL, "h", 1);
    CHECK_EQ_INT(cuzk__store_fail(s, g, CUZK_ERR_GPU, NULL, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_get(s, g, &info, &err), CUZK_OK);
    CHECK(strcmp(info.error, cuzk_strerror(CUZK_ERR_GPU)) == 0);
    char longmsg[2000];
    memset(longmsg, 'm', sizeof(longmsg) - 1);
    longmsg[sizeof(longmsg) - 1] = '\0';
    CHECK_EQ_INT(cuzk__store_fail(s, h, CUZK_ERR_IO, longmsg, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_get(s, h, &info, &err), CUZK_OK);
    CHECK(strlen(info.error) == CUZK_ERROR_MSG_BYTES - 1);

    /* unknown ids */
    const uint64_t none = q + 1000;
    CHECK_EQ_INT(cuzk__store_get(s, none, &info, &err), CUZK_ERR_NOT_FOUND);
    CHECK(contains(&err, "no such job"));
    CHECK_EQ_INT(cuzk__store_get(s, 0, &info, &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_get(s, UINT64_MAX, &info, &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_set_running(s, none, &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_finish(s, none, p, 1, NULL, 0, &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_fail(s, none, CUZK_ERR_IO, "x", &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_cancel(s, none, &cs, &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_collect(s, none, &err), CUZK_ERR_NOT_FOUND);
    char **paths = NULL;
    size_t np = 7;
    CHECK_EQ_INT(cuzk__store_witness_paths(s, none, &paths, &np, &err), CUZK_ERR_NOT_FOUND);
    CHECK(paths == NULL && np == 0);
    CHECK(state_of(s, q) == CUZK_JOB_QUEUED);
    CHECK_EQ_INT(count_spool(spool, 0), 1);
    cuzk__store_close(s);
}

/* A request id: the same job again, refused with another key or count. */
static void test_request_ids(void) {
    cuzk__store *s = open_sub("rid");
    if (s == NULL) return;
    cuzk_error err;
    char spool[600], n1[CUZK__STORE_SPOOL_NAME_BYTES], n2[CUZK__STORE_SPOOL_NAME_BYTES];
    spool_dir(spool, sizeof(spool), "rid");
    CHECK_EQ_INT(spool_text(s, "first", n1), CUZK_OK);
    CHECK_EQ_INT(spool_text(s, "second", n2), CUZK_OK);
    cuzk__store_witness w1 = {.spool = n1}, w2 = {.spool = n2};
    uint64_t id1 = 0, id2 = 0;
    int ex = -1;
    CHECK_EQ_INT(submit(s, "sector-7", "porep", 1, &w1, &id1, &ex), CUZK_OK);
    CHECK(ex == 0);
    CHECK_EQ_INT(submit(s, "sector-7", "porep", 1, &w2, &id2, &ex), CUZK_OK);
    CHECK(ex == 1 && id2 == id1);
    uint64_t counts[5];
    CHECK_EQ_INT(cuzk__store_counts(s, counts, &err), CUZK_OK);
    CHECK(counts[CUZK_JOB_QUEUED] == 1);
    char **paths = NULL;
    size_t np = 0;
    CHECK_EQ_INT(cuzk__store_witness_paths(s, id1, &paths, &np, &err), CUZK_OK);
    CHECK(np == 1 && paths[0] != NULL && same_bytes(paths[0], "first", 5));
    free(paths);

    /* different key or partition count: refused, nothing recorded */
    uint64_t id3 = 77;
    CHECK_EQ_INT(submit(s, "sector-7", "winning", 1, &w2, &id3, &ex), CUZK_ERR_INVALID_ARG);
    CHECK(id3 == 0 && ex == 0);
    cuzk__store_job job = {.request_id = "sector-7", .key_name = "porep", .n_partitions = 2,
                           .witnesses = (cuzk__store_witness[]){{.spool = n2}, {.path = "/x"}}};
    CHECK_EQ_INT(cuzk__store_submit(s, &job, &id3, &ex, &err), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&err, "sector-7") && contains(&err, "2 partitions"));
    CHECK_EQ_INT(cuzk__store_counts(s, counts, &err), CUZK_OK);
    CHECK(counts[CUZK_JOB_QUEUED] == 1);

    /* the caller still owns the second file: it may remove it, not the first */
    char p1[700], p2[700];
    snprintf(p1, sizeof(p1), "%s/%s", spool, n1);
    snprintf(p2, sizeof(p2), "%s/%s", spool, n2);
    CHECK_EQ_INT(cuzk__store_spool_remove(s, n1, &err), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&err, "belongs to job") && exists(p1));
    CHECK_EQ_INT(cuzk__store_spool_remove(s, n2, &err), CUZK_OK);
    CHECK(!exists(p2));
    CHECK_EQ_INT(cuzk__store_spool_remove(s, n2, &err), CUZK_OK); /* already gone */
    CHECK_EQ_INT(cuzk__store_spool_remove(s, "../jobs.db", &err), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&err, "not a spool file name"));

    /* once collected, the id names a new job */
    CHECK_EQ_INT(cuzk__store_collect(s, id1, &err), CUZK_OK);
    CHECK(!exists(p1));
    cuzk__store_witness wp = {.path = "/srv/w.wit"};
    CHECK_EQ_INT(submit(s, "sector-7", "winning", 1, &wp, &id3, &ex), CUZK_OK);
    CHECK(ex == 0 && id3 > id1);
    cuzk__store_close(s);
}

/* Submissions the store refuses: nothing recorded, the caller's files kept. */
static void test_bad_submissions(void) {
    cuzk__store *s = open_sub("bad");
    if (s == NULL) return;
    cuzk_error err;
    char spool[600], n1[CUZK__STORE_SPOOL_NAME_BYTES], p1[700];
    spool_dir(spool, sizeof(spool), "bad");
    CHECK_EQ_INT(spool_text(s, "w", n1), CUZK_OK);
    snprintf(p1, sizeof(p1), "%s/%s", spool, n1);
    char big[300];
    memset(big, 'k', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    const char *missing = "wit-0123456789abcdef0123456789abcdef";
    struct {
        const char *rid, *key;
        int prio;
        size_t n;
        cuzk__store_witness w[2];
        const char *says;
    } cases[] = {
        {NULL, "k", 1, 1, {{0}}, "neither"},
        {NULL, "k", 1, 1, {{.spool = n1, .path = "/a"}}, "both"},
        {NULL, "k", 1, 1, {{.path = "relative/w.wit"}}, "not an absolute"},
        {NULL, "k", 1, 1, {{.spool = "wit-../../etc/passwd"}}, "not a spool file name"},
        {NULL, "k", 1, 1, {{.spool = missing}}, "does not exist"},
        {NULL, "", 1, 1, {{.spool = n1}}, "key name"},
        {NULL, big, 1, 1, {{.spool = n1}}, "key name"},
        {"", "k", 1, 1, {{.spool = n1}}, "request id"},
        {big, "k", 1, 1, {{.spool = n1}}, "request id"},
        {NULL, "k", 4, 1, {{.spool = n1}}, "priority"},
        {NULL, "k", 1, 0, {{.spool = n1}}, "0 partitions"},
        {NULL, "k", 1, 2, {{.spool = n1}, {.spool = n1}}, "already belongs"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cuzk__store_job job = {.request_id = cases[i].rid, .key_name = cases[i].key,
                               .priority = (cuzk_priority)cases[i].prio,
                               .n_partitions = cases[i].n, .witnesses = cases[i].w};
        uint64_t id = 5;
        int ex = 5;
        cuzk_status st = cuzk__store_submit(s, &job, &id, &ex, &err);
        CHECK_EQ_INT(st, CUZK_ERR_INVALID_ARG);
        CHECK(id == 0 && ex == 0);
        if (!contains(&err, cases[i].says))
            fprintf(stderr, "case %zu: \"%s\" does not say \"%s\"\n", i, cuzk__error_text(&err),
                    cases[i].says);
        CHECK(contains(&err, cases[i].says));
    }
    uint64_t counts[5];
    CHECK_EQ_INT(cuzk__store_counts(s, counts, &err), CUZK_OK);
    CHECK(counts[0] + counts[1] + counts[2] + counts[3] + counts[4] == 0);
    CHECK(exists(p1));

    /* a spool file another job holds */
    cuzk__store_witness w = {.spool = n1};
    uint64_t a = 0, b = 0;
    CHECK_EQ_INT(submit(s, NULL, "k", 1, &w, &a, NULL), CUZK_OK);
    CHECK_EQ_INT(submit(s, NULL, "k", 1, &w, &b, NULL), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__store_counts(s, counts, &err), CUZK_OK);
    CHECK(counts[0] == 1 && b == 0);
    /* a spool name buffer too small */
    cuzk__spool_writer *wr = NULL;
    char small[8];
    CHECK_EQ_INT(cuzk__store_spool_begin(s, &wr, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_spool_append(wr, "x", 1, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_spool_commit(wr, small, sizeof(small), &err), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(count_spool(spool, 0), 1);
    CHECK_EQ_INT(count_spool(spool, 1), 0);
    /* an aborted writer leaves nothing */
    CHECK_EQ_INT(cuzk__store_spool_begin(s, &wr, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_spool_append(wr, "abc", 3, &err), CUZK_OK);
    CHECK_EQ_INT(count_spool(spool, 1), 1);
    cuzk__store_spool_abort(wr);
    CHECK_EQ_INT(count_spool(spool, 0) + count_spool(spool, 1), 1);
    cuzk__store_close(s);
}

/* ---- restart -------------------------------------------------------------- */

static void test_reopen(void) {
    cuzk__store *s = open_sub("reopen");
    if (s == NULL) return;
    cuzk_error err;
    uint64_t id[6];
    for (int i = 0; i < 6; i++) {
        char tag[16];
        snprintf(tag, sizeof(tag), "job%d", i);
        id[i] = submit_spooled(s, tag, tag, 1 + (size_t)i % 3);
    }
    cuzk_proof proofs[3];
    uint8_t pub[3 * 96];
    rand_proofs(proofs, 3);
    cuzk_test_rand_bytes(pub, sizeof(pub));
    CHECK_EQ_INT(cuzk__store_set_running(s, id[1], &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_finish(s, id[2], proofs, 3, pub, 96, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_fail(s, id[3], CUZK_ERR_KEY_CORRUPT, "bad point", &err), CUZK_OK);
    cuzk__store_close(s);

    s = open_sub("reopen");
    if (s == NULL) return;
    cuzk__store_job_info info;
    CHECK_EQ_INT(cuzk__store_get(s, id[2], &info, &err), CUZK_OK);
    CHECK(info.state == CUZK_JOB_DONE && info.n_partitions == 3 &&
          strcmp(info.key_name, "key") == 0);
    cuzk_proof got[3];
    uint8_t *gpub = NULL;
    size_t per = 0;
    CHECK_EQ_INT(cuzk__store_results(s, id[2], got, 3, &gpub, &per, &err), CUZK_OK);
    CHECK_MEM(got, proofs, sizeof(proofs));
    CHECK(per == 96 && gpub != NULL);
    if (gpub != NULL) CHECK_MEM(gpub, pub, sizeof(pub));
    free(gpub);
    CHECK_EQ_INT(cuzk__store_get(s, id[3], &info, &err), CUZK_OK);
    CHECK(info.state == CUZK_JOB_FAILED && info.error_status == CUZK_ERR_KEY_CORRUPT &&
          strcmp(info.error, "bad point") == 0);

    /* what a restart resubmits: the unfinished, oldest first, none running */
    CHECK(state_of(s, id[1]) == CUZK_JOB_RUNNING);
    cuzk__store_job_info *jobs = NULL;
    size_t n = 0;
    CHECK_EQ_INT(cuzk__store_recover(s, &jobs, &n, &err), CUZK_OK);
    CHECK(n == 4);
    if (n == 4) {
        CHECK(jobs[0].id == id[0] && jobs[1].id == id[1] && jobs[2].id == id[4] &&
              jobs[3].id == id[5]);
        for (size_t i = 0; i < 4; i++) CHECK(jobs[i].state == CUZK_JOB_QUEUED);
        CHECK(strcmp(jobs[1].request_id, "job1") == 0 && jobs[1].n_partitions == 2);
    }
    for (size_t j = 0; j < n; j++) { /* their witnesses are all there */
        char **paths = NULL;
        size_t np = 0;
        CHECK_EQ_INT(cuzk__store_witness_paths(s, jobs[j].id, &paths, &np, &err), CUZK_OK);
        CHECK(np == jobs[j].n_partitions);
        for (size_t i = 0; i < np; i++) {
            char text[300];
            snprintf(text, sizeof(text), "%s %zu", jobs[j].request_id, i);
            CHECK(paths[i] != NULL && same_bytes(paths[i], text, strlen(text)));
        }
        free(paths);
    }
    free(jobs);
    CHECK(state_of(s, id[1]) == CUZK_JOB_QUEUED);
    uint64_t counts[5];
    CHECK_EQ_INT(cuzk__store_counts(s, counts, &err), CUZK_OK);
    CHECK(counts[0] == 4 && counts[1] == 0 && counts[2] == 1 && counts[3] == 1 && counts[4] == 0);

    /* the newest id collected, then a restart: the next id is still new */
    CHECK_EQ_INT(cuzk__store_collect(s, id[5], &err), CUZK_OK);
    cuzk__store_close(s);
    s = open_sub("reopen");
    if (s == NULL) return;
    uint64_t next = submit_spooled(s, NULL, "next", 1);
    CHECK(next > id[5]);
    cuzk__store_close(s);
}

/* ---- the spool ------------------------------------------------------------ */

static void test_collect_removes_spool(void) {
    cuzk__store *s = open_sub("collect");
    if (s == NULL) return;
    cuzk_error err;
    char spool[600];
    spool_dir(spool, sizeof(spool), "collect");
    uint64_t a = submit_spooled(s, NULL, "a", 3), b = submit_spooled(s, NULL, "b", 2);
    CHECK_EQ_INT(count_spool(spool, 0), 5);
    char **paths = NULL;
    size_t np = 0;
    CHECK_EQ_INT(cuzk__store_witness_paths(s, a, &paths, &np, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_collect(s, a, &err), CUZK_OK); /* queued: collected as it is */
    for (size_t i = 0; i < np; i++) CHECK(paths[i] != NULL && !exists(paths[i]));
    free(paths);
    CHECK_EQ_INT(count_spool(spool, 0), 2);
    CHECK(state_of(s, b) == CUZK_JOB_QUEUED);
    CHECK_EQ_INT(cuzk__store_witness_paths(s, b, &paths, &np, &err), CUZK_OK);
    for (size_t i = 0; i < np; i++) CHECK(paths[i] != NULL && exists(paths[i]));
    free(paths);
    cuzk__store_close(s);
}

static void test_sweep(void) {
    cuzk__store *s = open_sub("sweep");
    if (s == NULL) return;
    cuzk_error err;
    char spool[600], kept[CUZK__STORE_SPOOL_NAME_BYTES], orphan[CUZK__STORE_SPOOL_NAME_BYTES];
    spool_dir(spool, sizeof(spool), "sweep");
    uint64_t a = submit_spooled(s, NULL, "a", 2);
    CHECK_EQ_INT(spool_text(s, "referenced", kept), CUZK_OK);
    cuzk__store_witness w = {.spool = kept};
    uint64_t b = 0;
    CHECK_EQ_INT(submit(s, NULL, "k", 1, &w, &b, NULL), CUZK_OK);
    CHECK_EQ_INT(spool_text(s, "never submitted", orphan), CUZK_OK);
    char p[800];
    snprintf(p, sizeof(p), "%s/.wit-0123456789abcdef0123456789abcdef.Ab3dE9", spool);
    CHECK(put(p, "a writer killed mid-write", 25));
    snprintf(p, sizeof(p), "%s/notes.txt", spool);
    CHECK(put(p, "not the store's", 15));
    snprintf(p, sizeof(p), "%s/wit-short", spool);
    CHECK(put(p, "not the store's either", 22));
    snprintf(p, sizeof(p), "%s/wit-00000000000000000000000000000000", spool);
    CHECK(mkdir(p, 0700) == 0); /* a folder with a spool name: not a file, kept */
    /* this store's own files are never swept, whatever they are */
    size_t removed = 99;
    CHECK_EQ_INT(cuzk__store_sweep_spool(s, &removed, &err), CUZK_OK);
    CHECK(removed == 0);
    cuzk__store_close(s);

    sleep_ms(50); /* the next open's lock stamp is later than every file's */
    s = open_sub("sweep");
    if (s == NULL) return;
    char fresh[CUZK__STORE_SPOOL_NAME_BYTES];
    CHECK_EQ_INT(spool_text(s, "after the open", fresh), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_sweep_spool(s, &removed, &err), CUZK_OK);
    CHECK(removed == 2);
    snprintf(p, sizeof(p), "%s/%s", spool, kept);
    CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/%s", spool, orphan);
    CHECK(!exists(p));
    snprintf(p, sizeof(p), "%s/%s", spool, fresh);
    CHECK(exists(p)); /* written since the open: possibly waiting for its submission */
    CHECK_EQ_INT(count_spool(spool, 1), 0);
    snprintf(p, sizeof(p), "%s/notes.txt", spool);
    CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/wit-short", spool);
    CHECK(exists(p));
    snprintf(p, sizeof(p), "%s/wit-00000000000000000000000000000000", spool);
    CHECK(exists(p));
    char **paths = NULL;
    size_t np = 0;
    CHECK_EQ_INT(cuzk__store_witness_paths(s, a, &paths, &np, &err), CUZK_OK);
    for (size_t i = 0; i < np; i++) CHECK(paths[i] != NULL && exists(paths[i]));
    free(paths);
    CHECK_EQ_INT(cuzk__store_spool_remove(s, fresh, &err), CUZK_OK);
    cuzk__store_close(s);
}

static void test_expire(void) {
    cuzk__store *s = open_sub("expire");
    if (s == NULL) return;
    cuzk_error err;
    cuzk_proof p[1];
    rand_proofs(p, 1);
    uint64_t d = submit_spooled(s, NULL, "queued", 1); /* old but unfinished */
    uint64_t a = submit_spooled(s, NULL, "a", 1), b = submit_spooled(s, NULL, "b", 1);
    uint64_t c = submit_spooled(s, NULL, "c", 1);
    CHECK_EQ_INT(cuzk__store_finish(s, a, p, 1, NULL, 0, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_fail(s, b, CUZK_ERR_GPU, "fault", &err), CUZK_OK);
    cuzk__store_job_info ib, ic;
    CHECK_EQ_INT(cuzk__store_get(s, b, &ib, &err), CUZK_OK);
    while (cuzk__store_now_ms() <= ib.finished_ms) sleep_ms(1);
    CHECK_EQ_INT(cuzk__store_cancel(s, c, NULL, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_get(s, c, &ic, &err), CUZK_OK);
    CHECK(ic.finished_ms > ib.finished_ms);
    size_t removed = 99;
    CHECK_EQ_INT(cuzk__store_expire(s, ib.finished_ms, &removed, &err), CUZK_OK);
    CHECK(removed == 0 || (removed == 1 && state_of(s, a) == (cuzk_job_state)-1));
    CHECK_EQ_INT(cuzk__store_expire(s, ic.finished_ms, &removed, &err), CUZK_OK);
    CHECK(state_of(s, a) == (cuzk_job_state)-1 && state_of(s, b) == (cuzk_job_state)-1);
    CHECK(state_of(s, c) == CUZK_JOB_CANCELLED && state_of(s, d) == CUZK_JOB_QUEUED);
    CHECK_EQ_INT(cuzk__store_expire(s, cuzk__store_now_ms() + 1, &removed, &err), CUZK_OK);
    CHECK(removed == 1 && state_of(s, c) == (cuzk_job_state)-1);
    CHECK(state_of(s, d) == CUZK_JOB_QUEUED);

    /* more than one batch */
    enum { MANY = 300 };
    cuzk__store_witness w = {.path = "/srv/w"};
    for (int i = 0; i < MANY; i++) {
        uint64_t id = 0;
        CHECK_EQ_INT(submit(s, NULL, "k", 1, &w, &id, NULL), CUZK_OK);
        CHECK_EQ_INT(cuzk__store_cancel(s, id, NULL, &err), CUZK_OK);
    }
    CHECK_EQ_INT(cuzk__store_expire(s, cuzk__store_now_ms() + 1, &removed, &err), CUZK_OK);
    CHECK(removed == MANY);
    uint64_t counts[5];
    CHECK_EQ_INT(cuzk__store_counts(s, counts, &err), CUZK_OK);
    CHECK(counts[0] == 1 && counts[1] + counts[2] + counts[3] + counts[4] == 0);
    cuzk__store_close(s);
}

/* ---- threads -------------------------------------------------------------- */

enum { THREADS = 4, SHARED = 40, OWN = 20, CHURN = 60 };

typedef struct {
    cuzk__store *s;
    int t;
    uint64_t shared[SHARED];
    int existed[SHARED];
    uint64_t own[OWN];
    uint64_t churn[CHURN];
    int failures;
} thread_arg;

/* Jobs through their whole life, one transaction after another, with no
 * spool I/O between them: submit, running, finish, results, collect. */
static void churn(thread_arg *a) {
    cuzk_error err;
    for (int k = 0; k < CHURN; k++) {
        char path[64];
        snprintf(path, sizeof(path), "/srv/t%d/k%d.wit", a->t, k);
        cuzk__store_witness w[2] = {{.path = path}, {.path = path}};
        cuzk__store_job job = {.key_name = "churn", .n_partitions = 2, .witnesses = w};
        uint64_t id = 0;
        int ex = 0;
        cuzk_proof p[2], got[2];
        for (size_t i = 0; i < 2; i++) memset(p[i].bytes, a->t * 64 + k, CUZK_PROOF_BYTES);
        p[1].bytes[0] ^= 1;
        char **paths = NULL;
        size_t np = 0;
        int ok = cuzk__store_submit(a->s, &job, &id, &ex, &err) == CUZK_OK && !ex &&
                 cuzk__store_set_running(a->s, id, &err) == CUZK_OK &&
                 cuzk__store_witness_paths(a->s, id, &paths, &np, &err) == CUZK_OK &&
                 np == 2 && strcmp(paths[1], path) == 0 &&
                 cuzk__store_finish(a->s, id, p, 2, NULL, 0, &err) == CUZK_OK &&
                 cuzk__store_results(a->s, id, got, 2, NULL, NULL, &err) == CUZK_OK &&
                 memcmp(got, p, sizeof(p)) == 0 && cuzk__store_collect(a->s, id, &err) == CUZK_OK;
        free(paths);
        if (!ok) {
            fprintf(stderr, "thread %d, job %d: %s\n", a->t, k, cuzk__error_text(&err));
            a->failures++;
        }
        a->churn[k] = id;
    }
}

static void *submitter(void *p) {
    thread_arg *a = p;
    cuzk_error err;
    for (int k = 0; k < SHARED + OWN; k++) {
        const int shared = k < SHARED;
        const size_t n = shared ? 1 + (size_t)k % 3 : 1;
        char names[3][CUZK__STORE_SPOOL_NAME_BYTES];
        cuzk__store_witness w[3];
        for (size_t i = 0; i < n; i++) {
            char text[64];
            snprintf(text, sizeof(text), "t%d k%d p%zu", a->t, k, i);
            if (spool_text(a->s, text, names[i]) != CUZK_OK) a->failures++;
            w[i] = (cuzk__store_witness){.spool = names[i]};
        }
        char rid[32];
        snprintf(rid, sizeof(rid), "shared-%d", k);
        uint64_t id = 0;
        int ex = 0;
        cuzk__store_job job = {.request_id = shared ? rid : NULL, .key_name = "key",
                               .n_partitions = n, .witnesses = w};
        if (cuzk__store_submit(a->s, &job, &id, &ex, &err) != CUZK_OK) {
            fprintf(stderr, "thread %d: %s\n", a->t, cuzk__error_text(&err));
            a->failures++;
        }
        if (ex)
            for (size_t i = 0; i < n; i++)
                if (cuzk__store_spool_remove(a->s, names[i], &err) != CUZK_OK) a->failures++;
        if (shared) {
            a->shared[k] = id;
            a->existed[k] = ex;
        } else {
            a->own[k - SHARED] = id;
        }
        if (k == SHARED / 2) churn(a);
    }
    return NULL;
}

static atomic_int g_readers_stop;

static void *reader(void *p) {
    cuzk__store *s = p;
    cuzk_error err;
    long bad = 0;
    while (!g_readers_stop) {
        cuzk__store_job_info *jobs = NULL;
        size_t n = 0;
        uint64_t counts[5];
        if (cuzk__store_list(s, 0, 0, 0, &jobs, &n, &err) != CUZK_OK) bad++;
        for (size_t i = 1; i < n; i++)
            if (jobs[i].id <= jobs[i - 1].id) bad++;
        free(jobs);
        if (cuzk__store_counts(s, counts, &err) != CUZK_OK) bad++;
    }
    return (void *)bad;
}

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_threads(void) {
    cuzk__store *s = open_sub("threads");
    if (s == NULL) return;
    char spool[600];
    spool_dir(spool, sizeof(spool), "threads");
    static thread_arg args[THREADS];
    pthread_t th[THREADS], rd;
    g_readers_stop = 0;
    CHECK(pthread_create(&rd, NULL, reader, s) == 0);
    for (int t = 0; t < THREADS; t++) {
        memset(&args[t], 0, sizeof(args[t]));
        args[t].s = s;
        args[t].t = t;
        CHECK(pthread_create(&th[t], NULL, submitter, &args[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    g_readers_stop = 1;
    void *bad = NULL;
    pthread_join(rd, &bad);
    CHECK(bad == NULL);
    size_t expected_files = 0;
    for (int t = 0; t < THREADS; t++) CHECK(args[t].failures == 0);
    for (int k = 0; k < SHARED; k++) {
        int firsts = 0;
        for (int t = 0; t < THREADS; t++) {
            CHECK(args[t].shared[k] != 0 && args[t].shared[k] == args[0].shared[k]);
            firsts += !args[t].existed[k];
        }
        CHECK_EQ_INT(firsts, 1);
        expected_files += 1 + (size_t)k % 3;
    }
    expected_files += THREADS * OWN;
    static uint64_t all[SHARED + THREADS * (OWN + CHURN)];
    size_t m = 0;
    for (int t = 0; t < THREADS; t++)
        for (int k = 0; k < CHURN; k++) all[m++] = args[t].churn[k];
    qsort(all, m, sizeof(all[0]), cmp_u64);
    for (size_t i = 1; i < m; i++) CHECK(all[i] != all[i - 1]);
    m = 0; /* the jobs left */
    for (int k = 0; k < SHARED; k++) all[m++] = args[0].shared[k];
    for (int t = 0; t < THREADS; t++)
        for (int k = 0; k < OWN; k++) all[m++] = args[t].own[k];
    for (int t = 0; t < THREADS; t++)
        for (int k = 0; k < CHURN; k++) all[m++] = args[t].churn[k];
    qsort(all, m, sizeof(all[0]), cmp_u64);
    for (size_t i = 1; i < m; i++) CHECK(all[i] != all[i - 1]);
    m = 0;
    for (int k = 0; k < SHARED; k++) all[m++] = args[0].shared[k];
    for (int t = 0; t < THREADS; t++)
        for (int k = 0; k < OWN; k++) all[m++] = args[t].own[k];
    qsort(all, m, sizeof(all[0]), cmp_u64);

    cuzk__store_job_info *jobs = NULL;
    size_t n = 0;
    cuzk_error err;
    CHECK_EQ_INT(cuzk__store_list(s, 0, 0, 0, &jobs, &n, &err), CUZK_OK);
    CHECK_EQ_INT(n, m);
    for (size_t i = 0; i < n && i < m; i++) CHECK(jobs[i].id == all[i]);
    /* every job's files there, and no others */
    size_t files = 0;
    for (size_t j = 0; j < n; j++) {
        char **paths = NULL;
        size_t np = 0;
        CHECK_EQ_INT(cuzk__store_witness_paths(s, jobs[j].id, &paths, &np, &err), CUZK_OK);
        for (size_t i = 0; i < np; i++) CHECK(paths[i] != NULL && exists(paths[i]));
        files += np;
        free(paths);
    }
    free(jobs);
    CHECK_EQ_INT(files, expected_files);
    CHECK_EQ_INT(count_spool(spool, 0), expected_files);
    CHECK_EQ_INT(count_spool(spool, 1), 0);
    cuzk__store_close(s);
}

/* ---- a writer killed mid-stream ------------------------------------------ */

typedef struct {
    int64_t i;
    uint64_t id;
    int32_t finished; /* 0 submitted, 1 finished, 2 collected */
} ack;

/* The proof bytes the crash child records for job i, partition p. */
static void crash_proof(cuzk_proof *out, int64_t i, size_t p) {
    for (size_t k = 0; k < CUZK_PROOF_BYTES; k++)
        out->bytes[k] = (uint8_t)(i * 31 + (int64_t)p * 7 + (int64_t)k);
}

static size_t crash_parts(int64_t i) { return 1 + (size_t)(i % 5); }

/* The child: submits job after job (of every three, one is then finished
 * and one collected), and writes an ack for each call once it returned.
 * Never returns. */
static void crash_child(int fd, int64_t first) {
    cuzk__store *s = open_sub("crash");
    if (s == NULL) _exit(2);
    cuzk_error err;
    for (int64_t i = first; i < first + 100000; i++) {
        const size_t n = crash_parts(i);
        char names[5][CUZK__STORE_SPOOL_NAME_BYTES], text[4200];
        cuzk__store_witness w[5];
        for (size_t p = 0; p < n; p++) {
            int k = snprintf(text, sizeof(text), "job %lld part %zu ", (long long)i, p);
            memset(text + k, 'w', sizeof(text) - 1 - (size_t)k);
            text[sizeof(text) - 1] = '\0';
            if (spool_text(s, text, names[p]) != CUZK_OK) _exit(3);
            w[p] = (cuzk__store_witness){.spool = names[p]};
        }
        char rid[32];
        snprintf(rid, sizeof(rid), "crash-%lld", (long long)i);
        cuzk__store_job job = {.request_id = rid, .key_name = "crash", .n_partitions = n,
                               .witnesses = w};
        ack a = {i, 0, 0};
        int ex = 0;
        if (cuzk__store_submit(s, &job, &a.id, &ex, &err) != CUZK_OK || ex) _exit(4);
        if (write(fd, &a, sizeof(a)) != (ssize_t)sizeof(a)) _exit(5);
        if (i % 3 == 0) {
            cuzk_proof proofs[5];
            uint8_t pub[5 * 32];
            for (size_t p = 0; p < n; p++) crash_proof(&proofs[p], i, p);
            memset(pub, (int)(i & 0xff), sizeof(pub));
            if (cuzk__store_finish(s, a.id, proofs, n, pub, 32, &err) != CUZK_OK) _exit(6);
            a.finished = 1;
            if (write(fd, &a, sizeof(a)) != (ssize_t)sizeof(a)) _exit(5);
        } else if (i % 3 == 1) {
            if (cuzk__store_collect(s, a.id, &err) != CUZK_OK) _exit(6);
            a.finished = 2;
            if (write(fd, &a, sizeof(a)) != (ssize_t)sizeof(a)) _exit(5);
        }
    }
    _exit(7);
}

/* The database as SQLite sees it, from a connection of its own. */
static void check_integrity(const char *db_path) {
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlite3_stmt *q = NULL;
    CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(q) == SQLITE_ROW &&
          strcmp((const char *)sqlite3_column_text(q, 0), "ok") == 0);
    sqlite3_finalize(q);
    CHECK(sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &q, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(q) == SQLITE_DONE);
    sqlite3_finalize(q);
    CHECK(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &q, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(q) == SQLITE_ROW &&
          strcmp((const char *)sqlite3_column_text(q, 0), "wal") == 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

static void test_crash(void) {
    char d[512], db[600], spool[600];
    at(d, sizeof(d), "crash");
    (void)mkdir(d, 0755);
    snprintf(db, sizeof(db), "%s/jobs.db", d);
    spool_dir(spool, sizeof(spool), "crash");
    static ack acks[20000];
    static char last_of_round[20000];
    size_t n_acks = 0;
    int64_t next = 0;
    for (int round = 0; round < 8; round++) {
        int fds[2];
        CHECK(pipe(fds) == 0);
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            crash_child(fds[1], next);
        }
        close(fds[1]);
        const size_t want = n_acks + 8 + (size_t)(cuzk_test_rand64() % 24);
        ack a;
        while (n_acks < want && read(fds[0], &a, sizeof(a)) == (ssize_t)sizeof(a))
            acks[n_acks++] = a;
        sleep_ms((int)(cuzk_test_rand64() % 4)); /* somewhere in a submission */
        CHECK(kill(pid, SIGKILL) == 0);
        int ws = 0;
        CHECK(waitpid(pid, &ws, 0) == pid && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
        if (WIFEXITED(ws)) fprintf(stderr, "the writer exited with %d\n", WEXITSTATUS(ws));
        /* acks in the pipe when it died were acknowledged too */
        while (n_acks < sizeof(acks) / sizeof(acks[0]) &&
               read(fds[0], &a, sizeof(a)) == (ssize_t)sizeof(a))
            acks[n_acks++] = a;
        close(fds[0]);
        CHECK(n_acks >= want);
        if (n_acks > 0) last_of_round[n_acks - 1] = 1;
        for (size_t k = 0; k < n_acks; k++)
            if (acks[k].i >= next) next = acks[k].i + 1;
        next += 1; /* a job submitted but not acknowledged keeps its request id */

        check_integrity(db);
        sleep_ms(50);
        cuzk__store *s = open_sub("crash");
        if (s == NULL) return;
        cuzk_error err;
        /* every acknowledged job is there, whole, unless its collection was
         * acknowledged too */
        for (size_t k = 0; k < n_acks; k++) {
            cuzk__store_job_info info;
            int collected = 0;
            for (size_t c = k; c < n_acks && c < k + 2; c++)
                collected |= acks[c].id == acks[k].id && acks[c].finished == 2;
            if (collected) {
                CHECK_EQ_INT(cuzk__store_get(s, acks[k].id, &info, &err), CUZK_ERR_NOT_FOUND);
                continue;
            }
            char rid[32];
            snprintf(rid, sizeof(rid), "crash-%lld", (long long)acks[k].i);
            cuzk_status st = cuzk__store_get(s, acks[k].id, &info, &err);
            /* a round's last job may have been collected, its ack lost */
            if (st == CUZK_ERR_NOT_FOUND && acks[k].i % 3 == 1 && last_of_round[k]) continue;
            CHECK_EQ_INT(st, CUZK_OK);
            CHECK(strcmp(info.request_id, rid) == 0 &&
                  info.n_partitions == crash_parts(acks[k].i));

            if (acks[k].finished) CHECK(info.state == CUZK_JOB_DONE);
        }
        /* every job in the store is consistent: queued with all its files,
         * or done with all its proofs and no files */
        cuzk__store_job_info *jobs = NULL;
        size_t n = 0;
        CHECK_EQ_INT(cuzk__store_list(s, 0, 0, 0, &jobs, &n, &err), CUZK_OK);
        size_t submitted = 0;
        for (size_t k = 0; k < n_acks; k++) submitted += !acks[k].finished;
        CHECK(submitted >= 4);
        size_t files = 0;
        for (size_t j = 0; j < n; j++) {
            const int64_t i = strtoll(jobs[j].request_id + 6, NULL, 10);
            CHECK(jobs[j].n_partitions == crash_parts(i));
            char **paths = NULL;
            size_t np = 0;
            CHECK_EQ_INT(cuzk__store_witness_paths(s, jobs[j].id, &paths, &np, &err), CUZK_OK);
            CHECK(np == jobs[j].n_partitions);
            if (jobs[j].state == CUZK_JOB_QUEUED) {
                for (size_t p = 0; p < np; p++) {
                    char head[64];
                    int hl = snprintf(head, sizeof(head), "job %lld part %zu ", (long long)i, p);
                    char buf[64] = {0};
                    FILE *f = paths[p] ? fopen(paths[p], "rb") : NULL;
                    CHECK(f != NULL);
                    if (f != NULL) {
                        CHECK(fread(buf, 1, (size_t)hl, f) == (size_t)hl &&
                              memcmp(buf, head, (size_t)hl) == 0);
                        CHECK(fseek(f, 0, SEEK_END) == 0 && ftell(f) == 4199);
                        fclose(f);
                    }
                }
                files += np;
            } else {
                CHECK(jobs[j].state == CUZK_JOB_DONE);
                for (size_t p = 0; p < np; p++) CHECK(paths[p] == NULL);
                cuzk_proof got[5], want_p;
                uint8_t *pub = NULL;
                size_t per = 0;
                CHECK_EQ_INT(cuzk__store_results(s, jobs[j].id, got, 5, &pub, &per, &err),
                             CUZK_OK);
                for (size_t p = 0; p < np; p++) {
                    crash_proof(&want_p, i, p);
                    CHECK_MEM(got[p].bytes, want_p.bytes, CUZK_PROOF_BYTES);
                }
                CHECK(per == 32 && pub != NULL && pub[0] == (uint8_t)(i & 0xff));
                free(pub);
            }
            free(paths);
        }
        free(jobs);
        /* what the kill left in the spool goes; what the jobs name stays */
        size_t removed = 0;
        CHECK_EQ_INT(cuzk__store_sweep_spool(s, &removed, &err), CUZK_OK);
        CHECK_EQ_INT(count_spool(spool, 0), files);
        CHECK_EQ_INT(count_spool(spool, 1), 0);
        cuzk__store_close(s);
        check_integrity(db);
    }
}

/* ---- refusals ------------------------------------------------------------- */

/* ---- partitions one at a time ---------------------------------------------------- */

static void test_partitions(void) {
    cuzk__store *s = open_sub("parts");
    if (s == NULL) return;
    char spool[600];
    spool_dir(spool, sizeof(spool), "parts");
    cuzk_error err;
    /* a low job of 3 spooled partitions, then a high job of 2 given by path */
    const uint64_t lo = submit_spooled(s, NULL, "lo", 3);
    cuzk__store_witness wp[2] = {{.path = "/srv/w0"}, {.path = "/srv/w1"}};
    cuzk__store_job job = {.key_name = "other", .priority = CUZK_PRIORITY_HIGH,
                           .n_partitions = 2, .witnesses = wp};
    uint64_t hi = 0;
    int existed = 0;
    CHECK_EQ_INT(cuzk__store_submit(s, &job, &hi, &existed, &err), CUZK_OK);
    size_t backlog = 0, ahead = 0;
    CHECK_EQ_INT(cuzk__store_backlog(s, &backlog, &err), CUZK_OK);
    CHECK(backlog == 5);
    /* the order: the high job's partitions first, then the low one's by index */
    cuzk__store_part parts[8];
    size_t n = 0;
    CHECK_EQ_INT(cuzk__store_pending(s, 8, parts, &n, &err), CUZK_OK);
    CHECK(n == 5);
    if (n == 5) {
        CHECK(parts[0].job_id == hi && parts[0].index == 0 && strcmp(parts[0].path, "/srv/w0") == 0);
        CHECK(parts[1].job_id == hi && parts[1].index == 1 && strcmp(parts[1].key_name, "other") == 0);
        CHECK(parts[1].priority == CUZK_PRIORITY_HIGH && parts[1].n_partitions == 2);
        for (uint32_t i = 0; i < 3; i++) {
            CHECK(parts[2 + i].job_id == lo && parts[2 + i].index == i);
            CHECK(strncmp(parts[2 + i].path, spool, strlen(spool)) == 0);
            CHECK(parts[2 + i].job_state == CUZK_JOB_QUEUED);
        }
    }
    CHECK_EQ_INT(cuzk__store_pending(s, 2, parts, &n, &err), CUZK_OK);
    CHECK(n == 2 && parts[1].job_id == hi);
    CHECK_EQ_INT(cuzk__store_ahead(s, CUZK_PRIORITY_NORMAL, lo, &ahead, &err), CUZK_OK);
    CHECK(ahead == 2);
    CHECK_EQ_INT(cuzk__store_ahead(s, CUZK_PRIORITY_HIGH, hi, &ahead, &err), CUZK_OK);
    CHECK(ahead == 0);

    /* proofs one by one: RUNNING, then DONE with the last, spool released */
    cuzk_proof pr[3];
    rand_proofs(pr, 3);
    uint8_t pub[3][64];
    cuzk_test_rand_bytes(&pub[0][0], sizeof(pub));
    int done = -1;
    CHECK_EQ_INT(cuzk__store_record(s, lo, 1, &pr[1], pub[1], 64, &done, &err), CUZK_OK);
    CHECK(done == 0 && state_of(s, lo) == CUZK_JOB_RUNNING);
    cuzk__store_job_info info;
    CHECK_EQ_INT(cuzk__store_get(s, lo, &info, &err), CUZK_OK);
    CHECK(info.n_done == 1);
    /* a second proof of one partition keeps the first */
    cuzk_proof other;
    rand_proofs(&other, 1);
    CHECK_EQ_INT(cuzk__store_record(s, lo, 1, &other, pub[0], 64, &done, &err), CUZK_OK);
    CHECK(done == 0);
    CHECK_EQ_INT(cuzk__store_pending(s, 8, parts, &n, &err), CUZK_OK);
    CHECK(n == 4);
    CHECK_EQ_INT(cuzk__store_record(s, lo, 0, &pr[0], pub[0], 64, &done, &err), CUZK_OK);
    CHECK_EQ_INT(count_spool(spool, 0), 3);
    CHECK_EQ_INT(cuzk__store_record(s, lo, 2, &pr[2], pub[2], 64, &done, &err), CUZK_OK);
    CHECK(done == 1 && state_of(s, lo) == CUZK_JOB_DONE);
    CHECK_EQ_INT(count_spool(spool, 0), 0);
    cuzk_proof got[3];
    uint8_t *gp = NULL;
    size_t per = 0;
    CHECK_EQ_INT(cuzk__store_results(s, lo, got, 3, &gp, &per, &err), CUZK_OK);
    CHECK(per == 64 && gp != NULL && memcmp(got, pr, sizeof(pr)) == 0 &&
          memcmp(gp, pub, sizeof(pub)) == 0);
    free(gp);
    CHECK_EQ_INT(cuzk__store_get(s, lo, &info, &err), CUZK_OK);
    CHECK(info.n_done == 3);

    /* refusals: a job that ended, an index out of range, an unknown job */
    CHECK_EQ_INT(cuzk__store_record(s, lo, 0, &other, NULL, 0, &done, &err), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&err, "already ended (done)"));
    CHECK_EQ_INT(cuzk__store_record(s, hi, 2, &other, NULL, 0, &done, &err), CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_record(s, hi + 100, 0, &other, NULL, 0, &done, &err),
                 CUZK_ERR_NOT_FOUND);
    CHECK_EQ_INT(cuzk__store_cancel(s, hi, NULL, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_record(s, hi, 0, &other, NULL, 0, &done, &err), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&err, "cancelled"));
    CHECK_EQ_INT(cuzk__store_pending(s, 8, parts, &n, &err), CUZK_OK);
    CHECK(n == 0);
    CHECK_EQ_INT(cuzk__store_backlog(s, &backlog, &err), CUZK_OK);
    CHECK(backlog == 0);

    /* a restart keeps the proofs recorded: only the rest is pending again */
    const uint64_t r = submit_spooled(s, NULL, "r", 3);
    CHECK_EQ_INT(cuzk__store_record(s, r, 0, &pr[0], NULL, 0, &done, &err), CUZK_OK);
    cuzk__store_close(s);
    s = open_sub("parts");
    if (s == NULL) return;
    cuzk__store_job_info *rec = NULL;
    CHECK_EQ_INT(cuzk__store_recover(s, &rec, &n, &err), CUZK_OK);
    CHECK(n == 1 && rec[0].id == r && rec[0].n_done == 1);
    free(rec);
    CHECK_EQ_INT(cuzk__store_pending(s, 8, parts, &n, &err), CUZK_OK);
    CHECK(n == 2 && parts[0].index == 1 && parts[1].index == 2);
    cuzk__store_close(s);
}

static void test_bad_paths(void) {
    char d[512], db[700], spool[700], file[700];
    at(d, sizeof(d), "paths");
    CHECK(mkdir(d, 0755) == 0);
    snprintf(spool, sizeof(spool), "%s/spool", d);
    cuzk__store *s = (cuzk__store *)1;
    cuzk_error err;

    /* the database path is a folder */
    CHECK_EQ_INT(cuzk__store_open(&s, d, spool, &err), CUZK_ERR_INVALID_ARG);
    CHECK(s == NULL && contains(&err, d) && contains(&err, "folder"));
    /* its folder is missing */
    snprintf(db, sizeof(db), "%s/missing/jobs.db", d);
    CHECK_EQ_INT(cuzk__store_open(&s, db, spool, &err), CUZK_ERR_IO);
    CHECK(s == NULL && contains(&err, db));
    /* a file that is not a database */
    snprintf(db, sizeof(db), "%s/garbage.db", d);
    uint8_t junk[8192];
    cuzk_test_rand_bytes(junk, sizeof(junk));
    CHECK(put(db, junk, sizeof(junk)));
    CHECK_EQ_INT(cuzk__store_open(&s, db, spool, &err), CUZK_ERR_IO);
    CHECK(s == NULL && contains(&err, db));
    CHECK(same_bytes(db, junk, sizeof(junk))); /* left as it was */
    /* another program's SQLite database, and a newer cuzk's */
    snprintf(db, sizeof(db), "%s/other.db", d);
    sqlite3 *x = NULL;
    CHECK(sqlite3_open(db, &x) == SQLITE_OK);
    CHECK(sqlite3_exec(x, "CREATE TABLE songs (title TEXT)", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(x);
    CHECK_EQ_INT(cuzk__store_open(&s, db, spool, &err), CUZK_ERR_INVALID_ARG);
    CHECK(s == NULL && contains(&err, db) && contains(&err, "another program"));
    snprintf(db, sizeof(db), "%s/newer.db", d);
    s = open_sub("paths-newer");
    cuzk__store_close(s);
    char made[700];
    snprintf(made, sizeof(made), "%s/paths-newer/jobs.db", g_dir);
    CHECK(sqlite3_open(made, &x) == SQLITE_OK);
    CHECK(sqlite3_exec(x, "PRAGMA user_version = 99", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(x);
    char sp2[700];
    snprintf(sp2, sizeof(sp2), "%s/paths-newer/spool", g_dir);
    CHECK_EQ_INT(cuzk__store_open(&s, made, sp2, &err), CUZK_ERR_UNSUPPORTED);
    CHECK(s == NULL && contains(&err, made) && contains(&err, "99"));

    /* the spool path is a file, or lies under one */
    snprintf(db, sizeof(db), "%s/jobs.db", d);
    snprintf(file, sizeof(file), "%s/plain", d);
    CHECK(put(file, "x", 1));
    CHECK_EQ_INT(cuzk__store_open(&s, db, file, &err), CUZK_ERR_INVALID_ARG);
    CHECK(s == NULL && contains(&err, file) && contains(&err, "not a folder"));
    char under[800];
    snprintf(under, sizeof(under), "%s/plain/spool", d);
    CHECK_EQ_INT(cuzk__store_open(&s, db, under, &err), CUZK_ERR_IO);
    CHECK(s == NULL && contains(&err, under));
    /* a spool folder that cannot be written (root writes anywhere) */
    if (geteuid() != 0) {
        char ro[800];
        snprintf(ro, sizeof(ro), "%s/readonly", d);
        CHECK(mkdir(ro, 0500) == 0);
        CHECK_EQ_INT(cuzk__store_open(&s, db, ro, &err), CUZK_ERR_IO);
        CHECK(s == NULL && contains(&err, ro));
        chmod(ro, 0700);
    }
    /* missing parents are made; a second store over one spool is refused */
    snprintf(under, sizeof(under), "%s/a/b/spool", d);
    cuzk__store *s1 = NULL, *s2 = NULL;
    CHECK_EQ_INT(cuzk__store_open(&s1, db, under, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk__store_open(&s2, db, under, &err), CUZK_ERR_BUSY);
    CHECK(s2 == NULL && contains(&err, under));
    cuzk__store_close(s1);
    CHECK_EQ_INT(cuzk__store_open(&s2, db, under, &err), CUZK_OK);
    cuzk__store_close(s2);
    CHECK_EQ_INT(cuzk__store_open(NULL, db, under, &err), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk__store_open(&s, "", under, &err), CUZK_ERR_INVALID_ARG);
}

/* ---- main ----------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof(g_dir), "%s/cuzk_store_XXXXXX", t && *t ? t : "/tmp");
    if (mkdtemp(g_dir) == NULL) {
        perror(g_dir);
        return 1;
    }
    RUN(test_round_trip);
    RUN(test_states);
    RUN(test_request_ids);
    RUN(test_bad_submissions);
    RUN(test_reopen);
    RUN(test_collect_removes_spool);
    RUN(test_sweep);
    RUN(test_expire);
    RUN(test_partitions);
    RUN(test_threads);
    RUN(test_crash);
    RUN(test_bad_paths);
    if (nftw(g_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "%s: cannot remove: %s\n", g_dir, strerror(errno));
    return cuzk_test_finish();
}
