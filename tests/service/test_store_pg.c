/*
 * test_store_pg.c — the job queue on PostgreSQL (src/service/store_pg.h)
 * against a real server: tests/service/check_store_pg.sh starts a private
 * one (scripts/pg-test-server.sh) and passes CUZK_PG_URL (its database),
 * CUZK_PG_DIR and CUZK_PG_SCRIPT (to restart it). Each test works in a
 * database of its own, created here, so counts start at zero.
 *
 *  - migrations: from an empty database, again (nothing to do), six
 *    processes racing on one empty database (the schema applied once), a
 *    newer schema refused;
 *  - connection strings: a password never appears in a message or in
 *    where(), whether the string parses or not;
 *  - witness payloads: chunked writes and reads at every boundary, abort,
 *    remove, the sweep;
 *  - submit: request ids idempotent (four threads at once make one job),
 *    refusals (witness taken, twice, not complete, unknown; a relative
 *    path; another key) that leave nothing behind; list and counts;
 *  - a bounded queue (max_backlog): eight submitters on their own
 *    connections, released together round after round, never pass the
 *    bound together; a full queue says so (BUSY) and still answers a
 *    request id it knows;
 *  - claims: priority, then job age, then index; keys filtered; a row
 *    locked elsewhere skipped without waiting;
 *  - three daemons (threads with their own connections and owner ids)
 *    claiming one job's partitions at once: each partition claimed and
 *    proved exactly once, spread over the three, the job done once;
 *  - leases: renewals keep a lease; expiry -> the reaper requeues -> another
 *    owner claims -> the first owner's late result is FENCED, the job
 *    completes once with the winner's proofs; release and leave;
 *  - the cluster's view: daemons described, silent ones forgotten (not
 *    while they hold a lease), the queue's length and a job's place in it
 *    (the jobs ahead of keys its daemons serve, as the SQLite store counts
 *    them in test_service_jobstore);
 *  - cancel while claimed (owners learn on renew and complete), fail
 *    (fenced to the lease), collect and expire;
 *  - the server restarted (pg_ctl restart) under three working daemons:
 *    every handle reconnects, every job completes with the right proofs,
 *    the listener is told to resync;
 *  - notifications: job ends and submissions reach a listener; a wait
 *    with nothing to receive times out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "race_rounds.h"
#include "service/store_pg.h"

static const char *g_url;    /* the server's database "cuzk" */
static const char *g_dir;    /* the server's folder (restart) */
static const char *g_script; /* scripts/pg-test-server.sh */

/* ---- helpers -------------------------------------------------------------- */

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* g_url with its database replaced by db. */
static void url_of(char *out, size_t cap, const char *db) {
    const char *slash = strrchr(g_url, '/');
    snprintf(out, cap, "%.*s/%s", (int)(slash - g_url), g_url, db);
}

static void quiet(void *arg, const char *msg) {
    (void)arg;
    (void)msg;
}

/* Runs sql on database db, outside the store. */
static int admin(const char *db, const char *sql) {
    char url[512];
    url_of(url, sizeof(url), db);
    PGconn *c = PQconnectdb(url);
    PQsetNoticeProcessor(c, quiet, NULL);
    int ok = PQstatus(c) == CONNECTION_OK;
    if (ok) {
        PGresult *r = PQexec(c, sql);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
        if (!ok) fprintf(stderr, "admin: %s: %s", sql, PQerrorMessage(c));
        PQclear(r);
    } else {
        fprintf(stderr, "admin: %s", PQerrorMessage(c));
    }
    PQfinish(c);
    return ok;
}

/* The integer the query's first cell holds (-1 on error). */
static long long admin_int(const char *db, const char *sql) {
    char url[512];
    url_of(url, sizeof(url), db);
    PGconn *c = PQconnectdb(url);
    long long v = -1;
    if (PQstatus(c) == CONNECTION_OK) {
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
            v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        else
            fprintf(stderr, "admin: %s: %s", sql, PQerrorMessage(c));
        PQclear(r);
    }
    PQfinish(c);
    return v;
}

/* A new, empty database named db; its URL in out. */
static int fresh_db(char *out, size_t cap, const char *db) {
    char sql[128];
    snprintf(sql, sizeof(sql), "DROP DATABASE IF EXISTS %s", db);
    if (!admin("cuzk", sql)) return 0;
    snprintf(sql, sizeof(sql), "CREATE DATABASE %s", db);
    if (!admin("cuzk", sql)) return 0;
    url_of(out, cap, db);
    return 1;
}

static cuzk__store_pg *open_or_null(const char *url, uint32_t chunk) {
    cuzk__store_pg_options o = {.chunk_bytes = chunk, .reconnect_ms = 20000};
    cuzk__store_pg *s = NULL;
    cuzk_error e;
    if (cuzk__store_pg_open(&s, url, &o, NULL, &e) != CUZK_OK) {
        fprintf(stderr, "open %s: %s\n", url, e.msg);
        return NULL;
    }
    return s;
}

/* The proof bytes owner writes for (job, idx): what the results must hold. */
static void proof_for(cuzk_proof *p, uint64_t job, uint32_t idx, uint64_t owner) {
    uint64_t z = job * 1000003u + idx * 7919u + owner * 104729u;
    for (int i = 0; i < CUZK_PROOF_BYTES; i++) {
        z += 0x9e3779b97f4a7c15ULL;
        uint64_t x = z;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        p->bytes[i] = (uint8_t)(x ^ (x >> 31));
    }
}

/* A job of n partitions whose witnesses are paths "/w/<i>". */
static uint64_t submit_paths(cuzk__store_pg *s, const char *rid, const char *key,
                             cuzk_priority pr, size_t n) {
    cuzk__store_pg_witness *w = calloc(n, sizeof(*w));
    char (*paths)[32] = calloc(n, sizeof(*paths));
    for (size_t i = 0; i < n; i++) {
        snprintf(paths[i], sizeof(paths[i]), "/w/%zu", i);
        w[i].path = paths[i];
    }
    cuzk__store_pg_job job = {.request_id = rid, .key_name = key, .priority = pr,
                              .n_partitions = n, .witnesses = w};
    uint64_t id = 0;
    int existed = 0;
    cuzk_error e;
    cuzk_status st = cuzk__store_pg_submit(s, &job, &id, &existed, &e);
    if (st != CUZK_OK) fprintf(stderr, "submit: %s\n", e.msg);
    CHECK(st == CUZK_OK);
    free(w);
    free(paths);
    return id;
}

static uint64_t register_daemon(cuzk__store_pg *s, const char *name) {
    uint64_t id = 0;
    cuzk_error e;
    cuzk_status st = cuzk__store_pg_register(s, name, &id, &e);
    if (st != CUZK_OK) fprintf(stderr, "register: %s\n", e.msg);
    CHECK(st == CUZK_OK && id > 0);
    return id;
}

static cuzk__store_pg_outcome complete(cuzk__store_pg *s, const cuzk__store_pg_ref *ref,
                                       int *done) {
    cuzk_proof p;
    proof_for(&p, ref->job_id, ref->index, ref->owner);
    uint8_t pub[8];
    for (int i = 0; i < 8; i++) pub[i] = (uint8_t)(ref->index + i);
    cuzk__store_pg_outcome o = CUZK__PG_FENCED;
    cuzk_error e;
    int d = 0;
    cuzk_status st = cuzk__store_pg_complete(s, ref, &p, pub, sizeof(pub), &o, &d, &e);
    if (st != CUZK_OK) fprintf(stderr, "complete: %s\n", e.msg);
    CHECK(st == CUZK_OK);
    if (done != NULL) *done = d;
    return o;
}

static cuzk_job_state state_of(cuzk__store_pg *s, uint64_t id, cuzk__store_pg_job_info *out) {
    cuzk__store_pg_job_info info;
    cuzk_error e;
    cuzk_status st = cuzk__store_pg_get(s, id, &info, &e);
    if (st != CUZK_OK) fprintf(stderr, "get: %s\n", e.msg);
    CHECK(st == CUZK_OK);
    if (out != NULL) *out = info;
    return info.job.state;
}

/* Checks a DONE job's results: n proofs, each the one its recorded owner
 * wrote, owner in allowed (n_allowed of them; 0: any). */
static void check_results(cuzk__store_pg *s, uint64_t id, size_t n, const uint64_t *allowed,
                          size_t n_allowed) {
    cuzk_proof *proofs = calloc(n, sizeof(*proofs));
    uint64_t *owners = calloc(n, sizeof(*owners));
    uint8_t *pub = NULL;
    size_t pb = 0;
    cuzk_error e;
    cuzk_status st = cuzk__store_pg_results(s, id, proofs, owners, n, &pub, &pb, &e);
    if (st != CUZK_OK) fprintf(stderr, "results: %s\n", e.msg);
    CHECK(st == CUZK_OK);
    CHECK_EQ_INT(pb, 8);
    for (size_t i = 0; st == CUZK_OK && i < n; i++) {
        cuzk_proof want;
        proof_for(&want, id, (uint32_t)i, owners[i]);
        CHECK_MEM(proofs[i].bytes, want.bytes, CUZK_PROOF_BYTES);
        if (pub != NULL) CHECK_EQ_INT(pub[i * 8 + 3], (uint8_t)(i + 3));
        int ok = n_allowed == 0;
        for (size_t k = 0; k < n_allowed; k++) ok |= owners[i] == allowed[k];
        CHECK(ok);
    }
    free(pub);
    free(proofs);
    free(owners);
}

/* Waits up to ms for the JOB_END of job: its state, or -1. Other events
 * are skipped. */
static int wait_end(cuzk__store_pg *l, uint64_t job, int ms) {
    const int64_t deadline = mono_ms() + ms;
    for (;;) {
        const int64_t left = deadline - mono_ms();
        if (left <= 0) return -1;
        cuzk__store_pg_event ev;
        int got = 0;
        cuzk_error e;
        if (cuzk__store_pg_wait(l, (int)left, &ev, &got, &e) != CUZK_OK) {
            fprintf(stderr, "wait: %s\n", e.msg);
            return -1;
        }
        if (!got) return -1;
        if (ev.kind == CUZK__PG_EVENT_JOB_END && ev.job_id == job) return (int)ev.state;
    }
}

/* JOB_END events of job among those that arrive within ms. */
static int count_ends(cuzk__store_pg *l, uint64_t job, int ms) {
    int k = 0;
    const int64_t deadline = mono_ms() + ms;
    for (;;) {
        const int64_t left = deadline - mono_ms();
        if (left <= 0) return k;
        cuzk__store_pg_event ev;
        int got = 0;
        cuzk_error e;
        if (cuzk__store_pg_wait(l, (int)left, &ev, &got, &e) != CUZK_OK || !got) return k;
        if (ev.kind == CUZK__PG_EVENT_JOB_END && ev.job_id == job) k++;
    }
}

/* ---- migrations ------------------------------------------------------------ */

static void test_migrations(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_migrate"));
    cuzk__store_pg *s = NULL;
    cuzk_error e;
    int migrated = -1;
    CHECK(cuzk__store_pg_open(&s, url, NULL, &migrated, &e) == CUZK_OK);
    CHECK_EQ_INT(migrated, CUZK__PG_SCHEMA_VERSION);
    cuzk__store_pg_close(s);
    s = NULL;
    CHECK(cuzk__store_pg_open(&s, url, NULL, &migrated, &e) == CUZK_OK);
    CHECK_EQ_INT(migrated, 0);
    cuzk__store_pg_close(s);
    CHECK_EQ_INT(admin_int("t_migrate", "SELECT count(*) FROM cuzk.schema_version"),
                 CUZK__PG_SCHEMA_VERSION);

    /* six processes on one empty database, released together */
    char race[512];
    CHECK(fresh_db(race, sizeof(race), "t_race"));
    enum { N = 6 };
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pids[N];
    fflush(NULL);
    for (int i = 0; i < N; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            close(fds[1]);
            char b;
            (void)!read(fds[0], &b, 1); /* EOF when the parent closes: go */
            cuzk__store_pg *c = NULL;
            int m = -1;
            cuzk_error ce;
            if (cuzk__store_pg_open(&c, race, NULL, &m, &ce) != CUZK_OK) {
                fprintf(stderr, "racer: %s\n", ce.msg);
                _exit(100);
            }
            cuzk__store_pg_close(c);
            _exit(m);
        }
    }
    close(fds[0]);
    sleep_ms(200); /* every child is connected-ready, blocked on the pipe */
    close(fds[1]);
    int applied = 0, failed = 0;
    for (int i = 0; i < N; i++) {
        int ws = 0;
        CHECK(waitpid(pids[i], &ws, 0) == pids[i]);
        const int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 200;
        if (code == CUZK__PG_SCHEMA_VERSION)
            applied++;
        else if (code != 0)
            failed++;
    }
    CHECK_EQ_INT(failed, 0);
    CHECK_EQ_INT(applied, 1);
    CHECK_EQ_INT(admin_int("t_race", "SELECT count(*) FROM cuzk.schema_version"),
                 CUZK__PG_SCHEMA_VERSION);
    CHECK_EQ_INT(admin_int("t_race", "SELECT count(*) FROM information_schema.tables"
                                     " WHERE table_schema = 'cuzk'"),
                 6);

    /* a schema from a newer cuzk is refused */
    CHECK(admin("t_migrate", "INSERT INTO cuzk.schema_version (version) VALUES (999)"));
    s = NULL;
    CHECK(cuzk__store_pg_open(&s, url, NULL, NULL, &e) == CUZK_ERR_UNSUPPORTED);
    CHECK(s == NULL);
    CHECK(strstr(e.msg, "999") != NULL);
}

/* ---- connection strings --------------------------------------------------- */

static void test_no_password_in_messages(void) {
    static const char pw[] = "Sekr1tPassw0rd";
    const char *bad[] = {
        "postgres://cuzk:Sekr1tPassw0rd@127.0.0.1:1/cuzk?connect_timeout=2",
        "postgres://cuzk:Sekr1tPassw0rd@[::1/cuzk",
        "postgresql://cuzk:Sekr1tPassw0rd@127.0.0.1:notaport/cuzk",
        "host=127.0.0.1 port=1 password='Sekr1tPassw0rd' connect_timeout=2",
        "host=127.0.0.1 password=Sekr1tPassw0rd port",
        "host=127.0.0.1 password=Sekr1tPassw0rd bogus=1",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cuzk__store_pg *s = NULL;
        cuzk_error e;
        memset(&e, 0, sizeof(e));
        const cuzk_status st = cuzk__store_pg_open(&s, bad[i], NULL, NULL, &e);
        CHECK(st != CUZK_OK && s == NULL);
        CHECK(e.msg[0] != '\0');
        if (strstr(e.msg, pw) != NULL) fprintf(stderr, "leaked: %s\n", e.msg);
        CHECK(strstr(e.msg, pw) == NULL);
    }
    /* a good connection (the test server trusts any password) */
    const char *at = strstr(g_url, "://cuzk@");
    CHECK(at != NULL);
    if (at == NULL) return;
    char url[512];
    snprintf(url, sizeof(url), "%.*s://cuzk:%s@%s", (int)(at - g_url), g_url, pw, at + 8);
    cuzk__store_pg *s = open_or_null(url, 0);
    CHECK(s != NULL);
    if (s == NULL) return;
    CHECK(strstr(cuzk__store_pg_where(s), pw) == NULL);
    CHECK(strstr(cuzk__store_pg_where(s), "cuzk@127.0.0.1:") != NULL);
    cuzk_error e;
    size_t n = 0;
    cuzk__store_pg_part part;
    const char *keys[] = {"k"};
    CHECK(cuzk__store_pg_claim(s, 424242, keys, 1, 1, 1000, &part, &n, &e) ==
          CUZK_ERR_NOT_FOUND);
    CHECK(strstr(e.msg, pw) == NULL);
    cuzk__store_pg_close(s);
}

/* ---- witness payloads ------------------------------------------------------ */

static uint64_t put_witness(cuzk__store_pg *s, const uint8_t *b, size_t n) {
    cuzk__store_pg_writer *w = NULL;
    cuzk_error e;
    if (cuzk__store_pg_witness_begin(s, &w, &e) != CUZK_OK) {
        fprintf(stderr, "begin: %s\n", e.msg);
        CHECK(0);
        return 0;
    }
    size_t off = 0;
    while (off < n) {
        size_t take = 1 + (size_t)(cuzk_test_rand64() % 1500);
        if (take > n - off) take = n - off;
        if (cuzk__store_pg_witness_append(w, b + off, take, &e) != CUZK_OK) {
            fprintf(stderr, "append: %s\n", e.msg);
            CHECK(0);
            cuzk__store_pg_witness_abort(w);
            return 0;
        }
        off += take;
    }
    uint64_t id = 0;
    if (cuzk__store_pg_witness_commit(w, &id, &e) != CUZK_OK) {
        fprintf(stderr, "commit: %s\n", e.msg);
        CHECK(0);
    }
    return id;
}

static void test_witnesses(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_witness"));
    cuzk__store_pg *s = open_or_null(url, 1000);
    CHECK(s != NULL);
    if (s == NULL) return;
    cuzk_error e;
    const size_t sizes[] = {0, 1, 999, 1000, 1001, 2000, 54321};
    enum { MAXN = 54321 };
    uint8_t *data = malloc(MAXN), *back = malloc(MAXN + 16);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        const size_t n = sizes[k];
        cuzk_test_rand_bytes(data, n);
        const uint64_t id = put_witness(s, data, n);
        CHECK(id != 0);
        uint64_t bytes = 1;
        CHECK(cuzk__store_pg_witness_size(s, id, &bytes, &e) == CUZK_OK);
        CHECK_EQ_INT(bytes, n);
        size_t got = 1;
        CHECK(cuzk__store_pg_witness_read(s, id, 0, back, MAXN + 16, &got, &e) == CUZK_OK);
        CHECK_EQ_INT(got, n);
        CHECK(n == 0 || memcmp(back, data, n) == 0);
        for (int t = 0; t < 20 && n > 0; t++) {
            const uint64_t off = cuzk_test_rand64() % (n + 1);
            const size_t cap = (size_t)(cuzk_test_rand64() % 2600);
            CHECK(cuzk__store_pg_witness_read(s, id, off, back, cap, &got, &e) == CUZK_OK);
            const size_t want = cap < n - off ? cap : (size_t)(n - off);
            CHECK_EQ_INT(got, want);
            CHECK(got == 0 || memcmp(back, data + off, got) == 0);
        }
        CHECK(cuzk__store_pg_witness_read(s, id, n + 5, back, 10, &got, &e) == CUZK_OK);
        CHECK_EQ_INT(got, 0);
        CHECK(cuzk__store_pg_witness_remove(s, id, &e) == CUZK_OK);
        CHECK(cuzk__store_pg_witness_size(s, id, &bytes, &e) == CUZK_ERR_NOT_FOUND);
    }
    /* 3 full chunks written, then aborted: the row and chunks are gone */
    cuzk__store_pg_writer *w = NULL;
    CHECK(cuzk__store_pg_witness_begin(s, &w, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_witness_append(w, data, 3500, &e) == CUZK_OK);
    uint64_t bytes = 0;
    CHECK_EQ_INT(admin_int("t_witness", "SELECT count(*) FROM cuzk.witness_chunks"), 3);
    cuzk__store_pg_witness_abort(w);
    CHECK_EQ_INT(admin_int("t_witness", "SELECT count(*) FROM cuzk.witnesses"), 0);
    CHECK_EQ_INT(admin_int("t_witness", "SELECT count(*) FROM cuzk.witness_chunks"), 0);
    /* one being written is refused for reading; the sweep takes it and a
     * committed one no job references, but only past the age */
    CHECK(cuzk__store_pg_witness_begin(s, &w, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_witness_append(w, data, 1500, &e) == CUZK_OK);
    const uint64_t loose = put_witness(s, data, 10);
    CHECK_EQ_INT(admin_int("t_witness", "SELECT count(*) FROM cuzk.witnesses"), 2);
    const uint64_t open_id = (uint64_t)admin_int("t_witness",
                                                 "SELECT min(id) FROM cuzk.witnesses");
    CHECK(cuzk__store_pg_witness_size(s, open_id, &bytes, &e) == CUZK_ERR_INVALID_ARG);
    size_t removed = 9;
    CHECK(cuzk__store_pg_sweep_witnesses(s, 60000, &removed, &e) == CUZK_OK);
    CHECK_EQ_INT(removed, 0);
    sleep_ms(20);
    CHECK(cuzk__store_pg_sweep_witnesses(s, 10, &removed, &e) == CUZK_OK);
    CHECK_EQ_INT(removed, 2);
    CHECK(cuzk__store_pg_witness_size(s, loose, &bytes, &e) == CUZK_ERR_NOT_FOUND);
    /* the swept writer finds its witness gone */
    uint64_t id = 0;
    CHECK(cuzk__store_pg_witness_commit(w, &id, &e) == CUZK_ERR_NOT_FOUND);
    CHECK(id == 0);
    /* two uploads last written 2 h ago; the one a daemon still holds for a
     * form is touched, and only the other is swept */
    const uint64_t held = put_witness(s, data, 10), left = put_witness(s, data, 10);
    CHECK(admin("t_witness", "UPDATE cuzk.witnesses SET touched_at = now() - interval '2 hours'"));
    CHECK(cuzk__store_pg_witness_touch(s, &held, 1, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_sweep_witnesses(s, 3600000, &removed, &e) == CUZK_OK);
    CHECK_EQ_INT(removed, 1);
    CHECK(cuzk__store_pg_witness_size(s, held, &bytes, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_witness_size(s, left, &bytes, &e) == CUZK_ERR_NOT_FOUND);
    CHECK(cuzk__store_pg_witness_touch(s, NULL, 0, &e) == CUZK_OK);
    free(data);
    free(back);
    cuzk__store_pg_close(s);
}

/* ---- submit ------------------------------------------------------------------ */

typedef struct {
    const char *url;
    uint64_t id;
    int existed;
    cuzk_status st;
    pthread_barrier_t *go;
} submitter;

static void *submit_thread(void *arg) {
    submitter *t = arg;
    cuzk__store_pg *s = open_or_null(t->url, 0);
    pthread_barrier_wait(t->go);
    if (s == NULL) {
        t->st = CUZK_ERR_IO;
        return NULL;
    }
    cuzk__store_pg_witness w[2] = {{.path = "/a"}, {.path = "/b"}};
    cuzk__store_pg_job job = {.request_id = "same", .key_name = "k",
                              .priority = CUZK_PRIORITY_NORMAL, .n_partitions = 2,
                              .witnesses = w};
    cuzk_error e;
    t->st = cuzk__store_pg_submit(s, &job, &t->id, &t->existed, &e);
    if (t->st != CUZK_OK) fprintf(stderr, "submit thread: %s\n", e.msg);
    cuzk__store_pg_close(s);
    return NULL;
}

static void test_submit(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_submit"));
    cuzk__store_pg *s = open_or_null(url, 1000);
    cuzk__store_pg *l = open_or_null(url, 0);
    CHECK(s != NULL && l != NULL);
    if (s == NULL || l == NULL) return;
    cuzk_error e;
    CHECK(cuzk__store_pg_listen(l, CUZK__PG_CHANNEL_NEW, &e) == CUZK_OK);
    uint8_t bytes[3000];
    cuzk_test_rand_bytes(bytes, sizeof(bytes));
    uint64_t wid[3];
    for (int i = 0; i < 3; i++) wid[i] = put_witness(s, bytes, 1000 + 500 * (size_t)i);
    cuzk__store_pg_witness w[3] = {{.witness_id = wid[0]}, {.witness_id = wid[1]},
                                   {.witness_id = wid[2]}};
    cuzk__store_pg_job job = {.request_id = "r1", .key_name = "porep",
                              .priority = CUZK_PRIORITY_HIGH, .n_partitions = 3,
                              .witnesses = w};
    uint64_t id = 0, again = 0;
    int existed = 1;
    CHECK(cuzk__store_pg_submit(s, &job, &id, &existed, &e) == CUZK_OK);
    CHECK(id > 0 && existed == 0);
    cuzk__store_pg_event ev;
    int got = 0;
    CHECK(cuzk__store_pg_wait(l, 2000, &ev, &got, &e) == CUZK_OK);
    CHECK(got && ev.kind == CUZK__PG_EVENT_JOB_NEW && ev.job_id == id);
    CHECK(strcmp(ev.key_name, "porep") == 0);
    /* the same request id: the first job, nothing recorded */
    CHECK(cuzk__store_pg_submit(s, &job, &again, &existed, &e) == CUZK_OK);
    CHECK(again == id && existed == 1);
    cuzk__store_pg_job other = job;
    other.key_name = "winning";
    CHECK(cuzk__store_pg_submit(s, &other, &again, &existed, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "r1") != NULL);
    /* witnesses: taken, named twice, unknown, still being written */
    other = job;
    other.request_id = "r2";
    CHECK(cuzk__store_pg_submit(s, &other, &again, &existed, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "already belongs") != NULL);
    const uint64_t fresh = put_witness(s, bytes, 10);
    cuzk__store_pg_witness twice[2] = {{.witness_id = fresh}, {.witness_id = fresh}};
    other.witnesses = twice;
    other.n_partitions = 2;
    CHECK(cuzk__store_pg_submit(s, &other, &again, &existed, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "two partitions") != NULL);
    cuzk__store_pg_witness unknown[1] = {{.witness_id = 987654}};
    other.witnesses = unknown;
    other.n_partitions = 1;
    CHECK(cuzk__store_pg_submit(s, &other, &again, &existed, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "does not exist") != NULL);
    cuzk__store_pg_writer *wr = NULL;
    CHECK(cuzk__store_pg_witness_begin(s, &wr, &e) == CUZK_OK);
    const uint64_t open_id = (uint64_t)admin_int("t_submit",
                                                 "SELECT max(id) FROM cuzk.witnesses");
    cuzk__store_pg_witness writing[1] = {{.witness_id = open_id}};
    other.witnesses = writing;
    CHECK(cuzk__store_pg_submit(s, &other, &again, &existed, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "still being written") != NULL);
    cuzk__store_pg_witness_abort(wr);
    cuzk__store_pg_witness rel[1] = {{.path = "w0.wtns"}};
    other.witnesses = rel;
    CHECK(cuzk__store_pg_submit(s, &other, &again, &existed, &e) == CUZK_ERR_INVALID_ARG);
    cuzk__store_pg_witness both[1] = {{.witness_id = fresh, .path = "/x"}};
    other.witnesses = both;
    CHECK(cuzk__store_pg_submit(s, &other, &again, &existed, &e) == CUZK_ERR_INVALID_ARG);
    other.witnesses = w;
    other.n_partitions = 3;
    other.priority = (cuzk_priority)7;
    CHECK(cuzk__store_pg_submit(s, &other, &again, &existed, &e) == CUZK_ERR_INVALID_ARG);
    /* the refusals left nothing: one job, its three witnesses taken, the
     * fresh one still free */
    CHECK_EQ_INT(admin_int("t_submit", "SELECT count(*) FROM cuzk.jobs"), 1);
    CHECK_EQ_INT(admin_int("t_submit", "SELECT count(*) FROM cuzk.partitions"), 3);
    CHECK_EQ_INT(admin_int("t_submit",
                           "SELECT count(*) FROM cuzk.witnesses WHERE job_id IS NULL"),
                 1);

    cuzk__store_pg_job_info info;
    CHECK(state_of(s, id, &info) == CUZK_JOB_QUEUED);
    CHECK(info.job.has_request_id && strcmp(info.job.request_id, "r1") == 0);
    CHECK(strcmp(info.job.key_name, "porep") == 0);
    CHECK(info.job.priority == CUZK_PRIORITY_HIGH && info.job.n_partitions == 3);
    CHECK(info.queued == 3 && info.claimed == 0 && info.done == 0);
    CHECK(info.job.created_ms > 1600000000000LL && info.job.finished_ms == 0);

    /* four threads, one request id: one job */
    enum { T = 4 };
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, T);
    submitter t[T];
    pthread_t th[T];
    for (int i = 0; i < T; i++) {
        t[i] = (submitter){.url = url, .go = &go};
        pthread_create(&th[i], NULL, submit_thread, &t[i]);
    }
    int fresh_jobs = 0;
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK(t[i].st == CUZK_OK);
        CHECK(t[i].id == t[0].id);
        fresh_jobs += !t[i].existed;
    }
    pthread_barrier_destroy(&go);
    CHECK_EQ_INT(fresh_jobs, 1);
    CHECK_EQ_INT(admin_int("t_submit", "SELECT count(*) FROM cuzk.jobs"), 2);

    /* list and counts */
    const uint64_t plain = submit_paths(s, NULL, "k", CUZK_PRIORITY_LOW, 1);
    cuzk__store_pg_job_info *jobs = NULL;
    size_t n = 0;
    CHECK(cuzk__store_pg_list(s, 0, 0, 0, &jobs, &n, &e) == CUZK_OK);
    CHECK_EQ_INT(n, 3);
    if (n == 3) {
        CHECK(jobs[0].job.id == id && jobs[1].job.id == t[0].id && jobs[2].job.id == plain);
        CHECK(!jobs[2].job.has_request_id && jobs[2].job.request_id[0] == '\0');
    }
    free(jobs);
    CHECK(cuzk__store_pg_list(s, 0, id, 1, &jobs, &n, &e) == CUZK_OK);
    CHECK(n == 1 && jobs[0].job.id == t[0].id);
    free(jobs);
    CHECK(cuzk__store_pg_list(s, 1u << CUZK_JOB_DONE, 0, 0, &jobs, &n, &e) == CUZK_OK);
    CHECK(n == 0 && jobs == NULL);
    uint64_t counts[5];
    CHECK(cuzk__store_pg_counts(s, counts, &e) == CUZK_OK);
    CHECK(counts[CUZK_JOB_QUEUED] == 3 && counts[CUZK_JOB_RUNNING] == 0);
    cuzk__store_pg_close(l);
    cuzk__store_pg_close(s);
}

/* ---- a bounded queue ------------------------------------------------------------ */

/* The race's callbacks (race_rounds.h): each racer on a connection of its
 * own, the queue counted and emptied outside the store. */
typedef struct {
    const char *url; /* the racers' connections */
    const char *db;  /* admin's */
} race_db;

static void *race_open(void *user) {
    const race_db *d = user;
    return open_or_null(d->url, 0);
}

static race_outcome race_submit(void *conn) {
    cuzk__store_pg_witness w[RACE_PARTS] = {{.path = "/w/0"}, {.path = "/w/1"},
                                            {.path = "/w/2"}};
    cuzk__store_pg_job job = {.key_name = "k", .priority = CUZK_PRIORITY_NORMAL,
                              .n_partitions = RACE_PARTS, .witnesses = w,
                              .max_backlog = RACE_BOUND};
    uint64_t id = 0;
    int existed = 0;
    cuzk_error e;
    const cuzk_status st = cuzk__store_pg_submit(conn, &job, &id, &existed, &e);
    if (st == CUZK_OK) return RACE_ACCEPTED;
    if (st == CUZK_ERR_BUSY) return RACE_BUSY;
    fprintf(stderr, "racer: %s\n", e.msg);
    return RACE_ERROR;
}

static long long race_count_parts(void *user) {
    const race_db *d = user;
    return admin_int(d->db, "SELECT count(*) FROM cuzk.partitions");
}

static int race_empty(void *user) {
    const race_db *d = user;
    return admin(d->db, "DELETE FROM cuzk.jobs");
}

static void race_close(void *conn) { cuzk__store_pg_close(conn); }

static void test_bounded_submit(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_bound"));
    cuzk__store_pg *s = open_or_null(url, 0);
    CHECK(s != NULL);
    if (s == NULL) return;
    cuzk_error e;
    /* one at a time: up to the bound, the queue's partitions counted
     * whatever their key and whether claimed */
    cuzk__store_pg_witness w[4] = {{.path = "/w/0"}, {.path = "/w/1"}, {.path = "/w/2"},
                                   {.path = "/w/3"}};
    cuzk__store_pg_job job = {.request_id = "b1", .key_name = "other",
                              .priority = CUZK_PRIORITY_LOW, .n_partitions = 4, .witnesses = w,
                              .max_backlog = 6};
    uint64_t id = 0, again = 0;
    int existed = 1;
    CHECK(cuzk__store_pg_submit(s, &job, &id, &existed, &e) == CUZK_OK && !existed);
    job.request_id = "b2";
    job.n_partitions = 3;
    CHECK(cuzk__store_pg_submit(s, &job, &again, &existed, &e) == CUZK_ERR_BUSY);
    CHECK(strstr(e.msg, "4 partitions not yet proved") != NULL && strstr(e.msg, "6") != NULL);
    job.n_partitions = 2;
    CHECK(cuzk__store_pg_submit(s, &job, &again, &existed, &e) == CUZK_OK && !existed);
    /* full, but a request id it knows is answered; no bound, no lock */
    job.request_id = "b1";
    job.n_partitions = 4;
    CHECK(cuzk__store_pg_submit(s, &job, &again, &existed, &e) == CUZK_OK);
    CHECK(again == id && existed == 1);
    job.request_id = "b3";
    job.n_partitions = 1;
    CHECK(cuzk__store_pg_submit(s, &job, &again, &existed, &e) == CUZK_ERR_BUSY);
    job.max_backlog = 0;
    CHECK(cuzk__store_pg_submit(s, &job, &again, &existed, &e) == CUZK_OK && !existed);
    CHECK(admin("t_bound", "DELETE FROM cuzk.jobs"));

    /* eight submitters released together, round after round, on an empty
     * queue: exactly RACE_BOUND / RACE_PARTS of them get in each round */
    race_db d = {.url = url, .db = "t_bound"};
    const race_store race = {.user = &d, .open = race_open, .submit = race_submit,
                             .count_parts = race_count_parts, .empty = race_empty,
                             .close = race_close};
    race_rounds(&race);
    cuzk__store_pg_close(s);
}

/* ---- claims ------------------------------------------------------------------- */

static void test_claim_order(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_order"));
    cuzk__store_pg *s = open_or_null(url, 0);
    CHECK(s != NULL);
    if (s == NULL) return;
    const uint64_t d = register_daemon(s, "order");
    const uint64_t low = submit_paths(s, NULL, "k", CUZK_PRIORITY_LOW, 2);
    const uint64_t high = submit_paths(s, NULL, "k", CUZK_PRIORITY_HIGH, 2);
    const uint64_t norm1 = submit_paths(s, NULL, "k", CUZK_PRIORITY_NORMAL, 2);
    const uint64_t norm2 = submit_paths(s, NULL, "k", CUZK_PRIORITY_NORMAL, 1);
    const uint64_t elsewhere = submit_paths(s, NULL, "other", CUZK_PRIORITY_CRITICAL, 1);
    cuzk_error e;
    cuzk__store_pg_part c[16];
    size_t n = 0;
    const char *keys[] = {"k", "unused"};
    /* a row locked by another transaction is skipped, not waited for */
    char lockurl[512];
    url_of(lockurl, sizeof(lockurl), "t_order");
    PGconn *locker = PQconnectdb(lockurl);
    CHECK(PQstatus(locker) == CONNECTION_OK);
    char sql[160];
    snprintf(sql, sizeof(sql),
             "BEGIN; SELECT 1 FROM cuzk.partitions WHERE job_id = %llu AND idx = 0 FOR UPDATE",
             (unsigned long long)high);
    PQclear(PQexec(locker, sql));
    const int64_t t0 = mono_ms();
    CHECK(cuzk__store_pg_claim(s, d, keys, 2, 16, 60000, c, &n, &e) == CUZK_OK);
    CHECK(mono_ms() - t0 < 2000);
    PQclear(PQexec(locker, "COMMIT"));
    PQfinish(locker);
    const struct {
        uint64_t job;
        uint32_t idx;
    } want[] = {{high, 1}, {norm1, 0}, {norm1, 1}, {norm2, 0}, {low, 0}, {low, 1}};
    CHECK_EQ_INT(n, 6);
    for (size_t i = 0; i < n && i < 6; i++) {
        CHECK(c[i].ref.job_id == want[i].job && c[i].ref.index == want[i].idx);
        CHECK(c[i].ref.owner == d && c[i].ref.generation == 1);
        CHECK(strcmp(c[i].key_name, "k") == 0);
        CHECK(strncmp(c[i].witness_path, "/w/", 3) == 0 && c[i].witness_id == 0);
        CHECK(c[i].lease_expires_ms > c[i].created_ms);
    }
    /* the skipped one is there for the next claim; "other" is never ours */
    CHECK(cuzk__store_pg_claim(s, d, keys, 2, 16, 60000, c, &n, &e) == CUZK_OK);
    CHECK(n == 1 && c[0].ref.job_id == high && c[0].ref.index == 0);
    CHECK(cuzk__store_pg_claim(s, d, keys, 2, 16, 60000, c, &n, &e) == CUZK_OK);
    CHECK_EQ_INT(n, 0);
    cuzk__store_pg_job_info info;
    CHECK(state_of(s, high, &info) == CUZK_JOB_RUNNING);
    CHECK(info.claimed == 2 && info.queued == 0);
    CHECK(state_of(s, elsewhere, NULL) == CUZK_JOB_QUEUED);
    /* the daemon row shows what it holds */
    cuzk__store_pg_daemon *dv = NULL;
    size_t nd = 0;
    CHECK(cuzk__store_pg_daemons(s, &dv, &nd, &e) == CUZK_OK);
    CHECK(nd == 1 && dv[0].id == d && dv[0].held == 7 && strcmp(dv[0].name, "order") == 0);
    CHECK(nd == 1 && dv[0].heartbeat_age_ms >= 0 && dv[0].heartbeat_age_ms < 10000);
    free(dv);
    /* arguments refused */
    CHECK(cuzk__store_pg_claim(s, d, keys, 0, 1, 1000, c, &n, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__store_pg_claim(s, d, keys, 1, 0, 1000, c, &n, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__store_pg_claim(s, d, keys, 1, 1, 0, c, &n, &e) == CUZK_ERR_INVALID_ARG);
    const char *empty[] = {""};
    CHECK(cuzk__store_pg_claim(s, d, empty, 1, 1, 1000, c, &n, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__store_pg_claim(s, d + 100, keys, 1, 1, 1000, c, &n, &e) == CUZK_ERR_NOT_FOUND);
    cuzk__store_pg_close(s);
}

/* ---- three daemons ----------------------------------------------------------- */

enum { DAEMONS = 3, MANY = 48 };

typedef struct {
    const char *url;
    pthread_barrier_t *go;
    uint64_t owner;
    int claimed[MANY];
    int dones, errors;
    int fenced;
} worker;

static void *worker_thread(void *arg) {
    worker *w = arg;
    cuzk__store_pg *s = open_or_null(w->url, 0);
    char name[32];
    snprintf(name, sizeof(name), "daemon-%p", arg);
    cuzk_error e;
    if (s == NULL || cuzk__store_pg_register(s, name, &w->owner, &e) != CUZK_OK) w->errors++;
    pthread_barrier_wait(w->go);
    const char *keys[] = {"k"};
    while (s != NULL && w->errors == 0) {
        cuzk__store_pg_part c[3];
        size_t n = 0;
        if (cuzk__store_pg_claim(s, w->owner, keys, 1, 3, 30000, c, &n, &e) != CUZK_OK) {
            fprintf(stderr, "worker claim: %s\n", e.msg);
            w->errors++;
            break;
        }
        if (n == 0) break;
        for (size_t i = 0; i < n; i++) {
            if (c[i].ref.index < MANY) w->claimed[c[i].ref.index]++;
            sleep_ms(2); /* "proving" */
            cuzk_proof p;
            proof_for(&p, c[i].ref.job_id, c[i].ref.index, w->owner);
            uint8_t pub[8];
            for (int k = 0; k < 8; k++) pub[k] = (uint8_t)(c[i].ref.index + k);
            cuzk__store_pg_outcome o;
            int done = 0;
            if (cuzk__store_pg_complete(s, &c[i].ref, &p, pub, 8, &o, &done, &e) != CUZK_OK) {
                fprintf(stderr, "worker complete: %s\n", e.msg);
                w->errors++;
            } else if (o != CUZK__PG_RECORDED) {
                w->fenced++;
            }
            w->dones += done;
        }
    }
    cuzk__store_pg_close(s);
    return NULL;
}

static void test_three_daemons(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_three"));
    cuzk__store_pg *s = open_or_null(url, 0);
    cuzk__store_pg *l = open_or_null(url, 0);
    CHECK(s != NULL && l != NULL);
    if (s == NULL || l == NULL) return;
    cuzk_error e;
    CHECK(cuzk__store_pg_listen(l, CUZK__PG_CHANNEL_END, &e) == CUZK_OK);
    const uint64_t job = submit_paths(s, "three", "k", CUZK_PRIORITY_NORMAL, MANY);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, DAEMONS);
    worker w[DAEMONS];
    pthread_t th[DAEMONS];
    for (int i = 0; i < DAEMONS; i++) {
        memset(&w[i], 0, sizeof(w[i]));
        w[i].url = url;
        w[i].go = &go;
        pthread_create(&th[i], NULL, worker_thread, &w[i]);
    }
    for (int i = 0; i < DAEMONS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    int dones = 0;
    for (int i = 0; i < DAEMONS; i++) {
        CHECK_EQ_INT(w[i].errors, 0);
        CHECK_EQ_INT(w[i].fenced, 0);
        dones += w[i].dones;
        int mine = 0;
        for (int p = 0; p < MANY; p++) mine += w[i].claimed[p];
        CHECK(mine > 0); /* the partitions spread over the three */
    }
    for (int p = 0; p < MANY; p++) {
        int k = 0;
        for (int i = 0; i < DAEMONS; i++) k += w[i].claimed[p];
        CHECK_EQ_INT(k, 1);
    }
    CHECK_EQ_INT(dones, 1);
    cuzk__store_pg_job_info info;
    CHECK(state_of(s, job, &info) == CUZK_JOB_DONE);
    CHECK(info.done == MANY && info.job.finished_ms >= info.job.created_ms);
    const uint64_t owners[DAEMONS] = {w[0].owner, w[1].owner, w[2].owner};
    check_results(s, job, MANY, owners, DAEMONS);
    CHECK_EQ_INT(wait_end(l, job, 3000), CUZK_JOB_DONE);
    CHECK_EQ_INT(count_ends(l, job, 200), 0); /* once */
    cuzk__store_pg_close(l);
    cuzk__store_pg_close(s);
}

/* ---- leases -------------------------------------------------------------------- */

static void test_leases(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_lease"));
    cuzk__store_pg *a = open_or_null(url, 0), *b = open_or_null(url, 0);
    cuzk__store_pg *l = open_or_null(url, 0);
    CHECK(a != NULL && b != NULL && l != NULL);
    if (a == NULL || b == NULL || l == NULL) return;
    cuzk_error e;
    CHECK(cuzk__store_pg_listen(l, CUZK__PG_CHANNEL_END, &e) == CUZK_OK);
    const uint64_t da = register_daemon(a, "a"), db = register_daemon(b, "b");
    const char *keys[] = {"k"};
    const uint64_t job = submit_paths(a, NULL, "k", CUZK_PRIORITY_NORMAL, 3);

    /* a takes two under a short lease; they expire */
    cuzk__store_pg_part ca[3], cb[3];
    size_t n = 0, renewed = 9, requeued = 9;
    CHECK(cuzk__store_pg_claim(a, da, keys, 1, 2, 300, ca, &n, &e) == CUZK_OK);
    CHECK_EQ_INT(n, 2);
    cuzk__store_pg_lease held[2] = {{.ref = ca[0].ref}, {.ref = ca[1].ref}};
    CHECK(cuzk__store_pg_renew(a, da, 300, held, 2, &renewed, &e) == CUZK_OK);
    CHECK(renewed == 2 && held[0].state == CUZK__PG_HELD && held[1].state == CUZK__PG_HELD);
    CHECK(cuzk__store_pg_reap(b, &requeued, &e) == CUZK_OK);
    CHECK_EQ_INT(requeued, 0); /* not expired yet */
    sleep_ms(450);
    CHECK(cuzk__store_pg_reap(b, &requeued, &e) == CUZK_OK);
    CHECK_EQ_INT(requeued, 2);
    CHECK(cuzk__store_pg_renew(a, da, 300, held, 2, &renewed, &e) == CUZK_OK);
    CHECK(renewed == 0 && held[0].state == CUZK__PG_LOST && held[1].state == CUZK__PG_LOST);

    /* b takes all three: the two requeued at generation 2 */
    CHECK(cuzk__store_pg_claim(b, db, keys, 1, 3, 30000, cb, &n, &e) == CUZK_OK);
    CHECK_EQ_INT(n, 3);
    for (size_t i = 0; i < n; i++) {
        CHECK(cb[i].ref.index == i);
        CHECK_EQ_INT(cb[i].ref.generation, i < 2 ? 3 : 1); /* claim, reap, claim */
    }
    /* a's late result is fenced */
    int done = 0;
    CHECK(complete(a, &ca[0].ref, &done) == CUZK__PG_FENCED && done == 0);
    CHECK(complete(b, &cb[0].ref, &done) == CUZK__PG_RECORDED && done == 0);
    CHECK(complete(b, &cb[1].ref, &done) == CUZK__PG_RECORDED && done == 0);
    /* a repeat by the same lease (a retry after a lost commit) changes nothing */
    CHECK(complete(b, &cb[1].ref, &done) == CUZK__PG_RECORDED && done == 0);
    CHECK(complete(b, &cb[2].ref, &done) == CUZK__PG_RECORDED && done == 1);
    CHECK(complete(a, &ca[1].ref, &done) == CUZK__PG_FENCED && done == 0);
    CHECK(state_of(a, job, NULL) == CUZK_JOB_DONE);
    const uint64_t only_b[] = {db};
    check_results(a, job, 3, only_b, 1);
    CHECK_EQ_INT(wait_end(l, job, 3000), CUZK_JOB_DONE);
    CHECK_EQ_INT(count_ends(l, job, 200), 0);

    /* renewals keep a short lease past its first expiry */
    const uint64_t job2 = submit_paths(a, NULL, "k", CUZK_PRIORITY_NORMAL, 1);
    CHECK(cuzk__store_pg_claim(a, da, keys, 1, 1, 300, ca, &n, &e) == CUZK_OK);
    CHECK(n == 1 && ca[0].ref.job_id == job2);
    for (int i = 0; i < 5; i++) {
        sleep_ms(120);
        cuzk__store_pg_lease h = {.ref = ca[0].ref};
        CHECK(cuzk__store_pg_renew(a, da, 300, &h, 1, &renewed, &e) == CUZK_OK);
        CHECK(h.state == CUZK__PG_HELD && renewed == 1);
        CHECK(cuzk__store_pg_reap(b, &requeued, &e) == CUZK_OK);
        CHECK_EQ_INT(requeued, 0);
    }
    CHECK(complete(a, &ca[0].ref, &done) == CUZK__PG_RECORDED && done == 1);

    /* a claim its owner no longer lists (a release it could not record) is
     * not extended by its heartbeats: it lapses and is reaped */
    const uint64_t job4 = submit_paths(a, NULL, "k", CUZK_PRIORITY_NORMAL, 1);
    CHECK(cuzk__store_pg_claim(a, da, keys, 1, 1, 300, ca, &n, &e) == CUZK_OK);
    CHECK(n == 1 && ca[0].ref.job_id == job4);
    for (int i = 0; i < 4; i++) {
        sleep_ms(120);
        CHECK(cuzk__store_pg_renew(a, da, 300, NULL, 0, &renewed, &e) == CUZK_OK);
        CHECK_EQ_INT(renewed, 0);
    }
    CHECK(cuzk__store_pg_reap(b, &requeued, &e) == CUZK_OK);
    CHECK_EQ_INT(requeued, 1);
    CHECK(cuzk__store_pg_claim(b, db, keys, 1, 1, 30000, cb, &n, &e) == CUZK_OK);
    CHECK(n == 1 && cb[0].ref.job_id == job4);
    CHECK(complete(b, &cb[0].ref, &done) == CUZK__PG_RECORDED && done == 1);

    /* release: back to the queue, the old lease fenced */
    const uint64_t job3 = submit_paths(a, NULL, "k", CUZK_PRIORITY_NORMAL, 1);
    CHECK(cuzk__store_pg_claim(a, da, keys, 1, 1, 30000, ca, &n, &e) == CUZK_OK);
    CHECK(n == 1 && ca[0].ref.job_id == job3);
    cuzk__store_pg_outcome o = CUZK__PG_ENDED;
    CHECK(cuzk__store_pg_release(a, &ca[0].ref, &o, &e) == CUZK_OK && o == CUZK__PG_RECORDED);
    CHECK(cuzk__store_pg_release(a, &ca[0].ref, &o, &e) == CUZK_OK && o == CUZK__PG_FENCED);
    CHECK(complete(a, &ca[0].ref, &done) == CUZK__PG_FENCED);
    CHECK(state_of(a, job3, NULL) == CUZK_JOB_QUEUED);

    /* leave: a's partition goes back, a is unknown afterwards */
    CHECK(cuzk__store_pg_claim(a, da, keys, 1, 1, 30000, ca, &n, &e) == CUZK_OK);
    CHECK(n == 1 && ca[0].ref.job_id == job3 && ca[0].ref.generation == 3);
    size_t released = 0;
    CHECK(cuzk__store_pg_leave(a, da, &released, &e) == CUZK_OK);
    CHECK_EQ_INT(released, 1);
    CHECK(cuzk__store_pg_renew(a, da, 1000, NULL, 0, NULL, &e) == CUZK_ERR_NOT_FOUND);
    CHECK(cuzk__store_pg_claim(b, db, keys, 1, 1, 30000, cb, &n, &e) == CUZK_OK);
    CHECK(n == 1 && cb[0].ref.job_id == job3 && cb[0].ref.generation == 5);
    CHECK(complete(a, &ca[0].ref, &done) == CUZK__PG_FENCED);
    CHECK(complete(b, &cb[0].ref, &done) == CUZK__PG_RECORDED && done == 1);
    const uint64_t b_only[] = {db};
    check_results(b, job3, 1, b_only, 1);
    cuzk__store_pg_close(l);
    cuzk__store_pg_close(a);
    cuzk__store_pg_close(b);
}

/* ---- the cluster's view: descriptions, silent daemons, the queue's length ------- */

static void test_cluster_view(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_view"));
    cuzk__store_pg *a = open_or_null(url, 0);
    CHECK(a != NULL);
    if (a == NULL) return;
    cuzk_error e;
    const uint64_t da = register_daemon(a, "a"), db = register_daemon(a, "b");
    CHECK(cuzk__store_pg_describe(a, da, "backend cpu, 1 worker; keys k", &e) == CUZK_OK);
    CHECK(cuzk__store_pg_describe(a, db + 100, "x", &e) == CUZK_ERR_NOT_FOUND);
    char big[CUZK__PG_INFO_BYTES + 1];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK(cuzk__store_pg_describe(a, da, big, &e) == CUZK_ERR_INVALID_ARG);
    cuzk__store_pg_daemon *v = NULL;
    size_t n = 0;
    CHECK(cuzk__store_pg_daemons(a, &v, &n, &e) == CUZK_OK);
    CHECK(n == 2 && v[0].id == da && strcmp(v[0].info, "backend cpu, 1 worker; keys k") == 0);
    CHECK(n == 2 && v[1].id == db && v[1].info[0] == '\0');
    free(v);

    /* the queue's length and a job's place in it: priority, then age, of
     * its key and of those its daemons serve too (a serves k and other, b
     * k, a third one lone; nobody serves orphan) */
    const char *keys[] = {"k"}, *both[] = {"k", "other"}, *lone[] = {"lone"};
    const uint64_t dc = register_daemon(a, "c");
    CHECK(cuzk__store_pg_serve(a, da, both, 2, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_serve(a, db, keys, 1, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_serve(a, dc, lone, 1, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_serve(a, dc + 100, lone, 1, &e) == CUZK_ERR_NOT_FOUND);
    const uint64_t j4 = submit_paths(a, NULL, "lone", CUZK_PRIORITY_CRITICAL, 4);
    const uint64_t j1 = submit_paths(a, NULL, "k", CUZK_PRIORITY_NORMAL, 3);
    const uint64_t j2 = submit_paths(a, NULL, "other", CUZK_PRIORITY_HIGH, 2);
    const uint64_t j3 = submit_paths(a, NULL, "k", CUZK_PRIORITY_NORMAL, 1);
    const uint64_t j5 = submit_paths(a, NULL, "orphan", CUZK_PRIORITY_CRITICAL, 5);
    const uint64_t j6 = submit_paths(a, NULL, "orphan", CUZK_PRIORITY_LOW, 1);
    size_t backlog = 0, ahead = 9;
    CHECK(cuzk__store_pg_backlog(a, &backlog, &e) == CUZK_OK && backlog == 16);
    CHECK(cuzk__store_pg_ahead(a, j4, &ahead, &e) == CUZK_OK && ahead == 0);
    CHECK(cuzk__store_pg_ahead(a, j2, &ahead, &e) == CUZK_OK && ahead == 0);
    CHECK(cuzk__store_pg_ahead(a, j1, &ahead, &e) == CUZK_OK && ahead == 2);
    CHECK(cuzk__store_pg_ahead(a, j3, &ahead, &e) == CUZK_OK && ahead == 5);
    CHECK(cuzk__store_pg_ahead(a, j5, &ahead, &e) == CUZK_OK && ahead == 0);
    CHECK(cuzk__store_pg_ahead(a, j6, &ahead, &e) == CUZK_OK && ahead == 5);
    /* b alone serves k: other's job is no longer ahead of k's */
    CHECK(cuzk__store_pg_serve(a, da, lone, 1, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_ahead(a, j1, &ahead, &e) == CUZK_OK && ahead == 0);
    CHECK(cuzk__store_pg_ahead(a, j3, &ahead, &e) == CUZK_OK && ahead == 3);
    CHECK(cuzk__store_pg_ahead(a, j2, &ahead, &e) == CUZK_OK && ahead == 0);
    CHECK(cuzk__store_pg_serve(a, da, both, 2, &e) == CUZK_OK);
    cuzk__store_pg_part c[2];
    CHECK(cuzk__store_pg_claim(a, da, keys, 1, 2, 30000, c, &n, &e) == CUZK_OK && n == 2);
    /* claimed: no longer waiting, still to prove */
    CHECK(cuzk__store_pg_ahead(a, j3, &ahead, &e) == CUZK_OK && ahead == 3);
    CHECK(cuzk__store_pg_backlog(a, &backlog, &e) == CUZK_OK && backlog == 16);
    int done = 0;
    CHECK(complete(a, &c[0].ref, &done) == CUZK__PG_RECORDED);
    CHECK(cuzk__store_pg_backlog(a, &backlog, &e) == CUZK_OK && backlog == 15);
    cuzk__store_pg_job_info info;
    CHECK(state_of(a, j1, &info) == CUZK_JOB_RUNNING && info.job.n_done == 1);

    /* the SQLite store's case in test_service_jobstore: the same answers */
    char same[512];
    CHECK(fresh_db(same, sizeof(same), "t_view_same"));
    cuzk__store_pg *q = open_or_null(same, 0);
    CHECK(q != NULL);
    if (q != NULL) {
        const uint64_t one = register_daemon(q, "one");
        CHECK(cuzk__store_pg_serve(q, one, both, 2, &e) == CUZK_OK);
        const uint64_t lo = submit_paths(q, NULL, "k", CUZK_PRIORITY_LOW, 3);
        submit_paths(q, NULL, "k", CUZK_PRIORITY_HIGH, 2);
        const uint64_t ot = submit_paths(q, NULL, "other", CUZK_PRIORITY_CRITICAL, 1);
        cuzk__store_pg_part p3[3];
        CHECK(cuzk__store_pg_claim(q, one, keys, 1, 3, 30000, p3, &n, &e) == CUZK_OK && n == 3);
        CHECK(cuzk__store_pg_ahead(q, ot, &ahead, &e) == CUZK_OK && ahead == 0);
        CHECK(cuzk__store_pg_ahead(q, lo, &ahead, &e) == CUZK_OK && ahead == 1);
        cuzk__store_pg_close(q);
    }

    /* silent daemons go, unless they hold a lease */
    size_t removed = 9;
    CHECK(admin("t_view", "UPDATE cuzk.daemons SET heartbeat_at = now() - interval '1 hour'"));
    CHECK(cuzk__store_pg_forget(a, 600000, &removed, &e) == CUZK_OK && removed == 2);
    CHECK(cuzk__store_pg_daemons(a, &v, &n, &e) == CUZK_OK);
    CHECK(n == 1 && v[0].id == da && v[0].held == 1);
    free(v);
    CHECK(cuzk__store_pg_forget(a, 600000, &removed, &e) == CUZK_OK && removed == 0);
    CHECK(cuzk__store_pg_forget(a, -1, &removed, &e) == CUZK_ERR_INVALID_ARG);
    cuzk__store_pg_close(a);
}

/* ---- cancel, fail, collect, expire ---------------------------------------------- */

static void test_cancel_fail(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_cancel"));
    cuzk__store_pg *a = open_or_null(url, 1000), *b = open_or_null(url, 0);
    cuzk__store_pg *l = open_or_null(url, 0);
    CHECK(a != NULL && b != NULL && l != NULL);
    if (a == NULL || b == NULL || l == NULL) return;
    cuzk_error e;
    CHECK(cuzk__store_pg_listen(l, CUZK__PG_CHANNEL_END, &e) == CUZK_OK);
    const uint64_t da = register_daemon(a, "a"), db = register_daemon(b, "b");
    const char *keys[] = {"k"};
    uint8_t bytes[1500];
    cuzk_test_rand_bytes(bytes, sizeof(bytes));
    uint64_t wid[4];
    cuzk__store_pg_witness w[4];
    for (int i = 0; i < 4; i++) {
        wid[i] = put_witness(a, bytes, sizeof(bytes));
        w[i] = (cuzk__store_pg_witness){.witness_id = wid[i]};
    }
    cuzk__store_pg_job jd = {.key_name = "k", .priority = CUZK_PRIORITY_NORMAL,
                             .n_partitions = 4, .witnesses = w};
    uint64_t job = 0;
    int existed = 0;
    CHECK(cuzk__store_pg_submit(a, &jd, &job, &existed, &e) == CUZK_OK);

    /* a claims two, whose witnesses it can read */
    cuzk__store_pg_part ca[4], cb[4];
    size_t n = 0;
    CHECK(cuzk__store_pg_claim(a, da, keys, 1, 2, 30000, ca, &n, &e) == CUZK_OK);
    CHECK_EQ_INT(n, 2);
    uint8_t back[1500];
    size_t got = 0;
    CHECK(ca[0].witness_id == wid[0] && ca[0].witness_bytes == sizeof(bytes));
    CHECK(cuzk__store_pg_witness_read(a, ca[0].witness_id, 0, back, sizeof(back), &got, &e) ==
          CUZK_OK);
    CHECK(got == sizeof(bytes) && memcmp(back, bytes, got) == 0);

    /* cancelled while claimed */
    cuzk_job_state st = CUZK_JOB_QUEUED;
    CHECK(cuzk__store_pg_cancel(b, job, &st, &e) == CUZK_OK && st == CUZK_JOB_CANCELLED);
    CHECK_EQ_INT(wait_end(l, job, 3000), CUZK_JOB_CANCELLED);
    cuzk__store_pg_job_info info;
    CHECK(state_of(b, job, &info) == CUZK_JOB_CANCELLED);
    CHECK(info.dropped == 2 && info.claimed == 2 && info.job.finished_ms > 0);
    CHECK(cuzk__store_pg_claim(b, db, keys, 1, 4, 30000, cb, &n, &e) == CUZK_OK);
    CHECK_EQ_INT(n, 0);
    uint64_t size = 0;
    CHECK(cuzk__store_pg_witness_size(a, wid[0], &size, &e) == CUZK_ERR_NOT_FOUND);
    /* the owner learns on renew (the first) and on complete (the second) */
    cuzk__store_pg_lease h = {.ref = ca[0].ref};
    size_t renewed = 9;
    CHECK(cuzk__store_pg_renew(a, da, 30000, &h, 1, &renewed, &e) == CUZK_OK);
    CHECK(h.state == CUZK__PG_JOB_ENDED && renewed == 0);
    int done = 0;
    CHECK(complete(a, &ca[0].ref, &done) == CUZK__PG_ENDED && done == 0);
    CHECK(complete(a, &ca[1].ref, &done) == CUZK__PG_ENDED && done == 0);
    CHECK(state_of(b, job, &info) == CUZK_JOB_CANCELLED);
    CHECK(info.dropped == 4 && info.claimed == 0 && info.done == 0);
    CHECK(cuzk__store_pg_cancel(b, job, &st, &e) == CUZK_OK && st == CUZK_JOB_CANCELLED);
    cuzk_proof proofs[4];
    CHECK(cuzk__store_pg_results(b, job, proofs, NULL, 4, NULL, NULL, &e) ==
          CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "cancelled") != NULL);

    /* fail, fenced to the lease */
    const uint64_t job2 = submit_paths(a, NULL, "k", CUZK_PRIORITY_NORMAL, 3);
    CHECK(cuzk__store_pg_claim(a, da, keys, 1, 1, 30000, ca, &n, &e) == CUZK_OK && n == 1);
    CHECK(cuzk__store_pg_claim(b, db, keys, 1, 1, 30000, cb, &n, &e) == CUZK_OK && n == 1);
    cuzk__store_pg_outcome o = CUZK__PG_RECORDED;
    cuzk__store_pg_ref stale = cb[0].ref;
    stale.generation += 1;
    CHECK(cuzk__store_pg_fail(b, job2, &stale, CUZK_ERR_WITNESS_UNSATISFIED, "nope", &o, &e) ==
          CUZK_OK);
    CHECK(o == CUZK__PG_FENCED);
    CHECK(state_of(b, job2, NULL) == CUZK_JOB_RUNNING);
    CHECK(cuzk__store_pg_fail(b, job2, &cb[0].ref, CUZK_ERR_WITNESS_UNSATISFIED,
                              "partition 1: constraint 7 fails", &o, &e) == CUZK_OK);
    CHECK(o == CUZK__PG_RECORDED);
    CHECK_EQ_INT(wait_end(l, job2, 3000), CUZK_JOB_FAILED);
    CHECK(state_of(a, job2, &info) == CUZK_JOB_FAILED);
    CHECK(info.job.error_status == CUZK_ERR_WITNESS_UNSATISFIED);
    CHECK(strcmp(info.job.error, "partition 1: constraint 7 fails") == 0);
    CHECK(complete(a, &ca[0].ref, &done) == CUZK__PG_ENDED);
    CHECK(cuzk__store_pg_fail(a, job2, NULL, CUZK_ERR_IO, NULL, &o, &e) == CUZK_OK);
    CHECK(o == CUZK__PG_ENDED);
    CHECK(cuzk__store_pg_fail(a, job2, NULL, CUZK_OK, NULL, &o, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__store_pg_fail(a, 999999, NULL, CUZK_ERR_IO, NULL, &o, &e) ==
          CUZK_ERR_NOT_FOUND);

    /* collect and expire */
    const uint64_t live = submit_paths(a, "live", "k", CUZK_PRIORITY_NORMAL, 1);
    CHECK(cuzk__store_pg_collect(a, live, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__store_pg_collect(a, job, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_get(a, job, &info, &e) == CUZK_ERR_NOT_FOUND);
    CHECK(cuzk__store_pg_collect(a, job, &e) == CUZK_ERR_NOT_FOUND);
    size_t removed = 9;
    CHECK(cuzk__store_pg_expire(a, 60000, &removed, &e) == CUZK_OK);
    CHECK_EQ_INT(removed, 0);
    sleep_ms(20);
    CHECK(cuzk__store_pg_expire(a, 10, &removed, &e) == CUZK_OK);
    CHECK_EQ_INT(removed, 1); /* job2; "live" stays */
    CHECK(state_of(a, live, NULL) == CUZK_JOB_QUEUED);
    CHECK_EQ_INT(admin_int("t_cancel", "SELECT count(*) FROM cuzk.partitions"), 1);
    CHECK_EQ_INT(admin_int("t_cancel", "SELECT count(*) FROM cuzk.witness_chunks"), 0);
    cuzk__store_pg_close(l);
    cuzk__store_pg_close(a);
    cuzk__store_pg_close(b);
}

/* ---- the server restarted under load ----------------------------------------------- */

enum { R_JOBS = 30, R_PARTS = 4 };

typedef struct {
    const char *url;
    atomic_int *stop;
    uint64_t owner;
    int dones, errors, unknown, fenced;
    uint64_t reconnects;
    int ok;
} rworker;

static void *restart_worker(void *arg) {
    rworker *w = arg;
    cuzk__store_pg *s = open_or_null(w->url, 0);
    if (s == NULL) return NULL;
    char name[32];
    snprintf(name, sizeof(name), "r-%p", arg);
    cuzk_error e;
    if (cuzk__store_pg_register(s, name, &w->owner, &e) != CUZK_OK) {
        cuzk__store_pg_close(s);
        return NULL;
    }
    w->ok = 1;
    const char *keys[] = {"k"};
    while (!atomic_load(w->stop)) {
        cuzk__store_pg_part c[2];
        size_t n = 0;
        if (cuzk__store_pg_claim(s, w->owner, keys, 1, 2, 2000, c, &n, &e) != CUZK_OK) {
            w->errors++;
            sleep_ms(20);
            continue;
        }
        if (n == 0) {
            sleep_ms(10);
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            sleep_ms(15); /* "proving" */
            cuzk_proof p;
            proof_for(&p, c[i].ref.job_id, c[i].ref.index, w->owner);
            uint8_t pub[8];
            for (int k = 0; k < 8; k++) pub[k] = (uint8_t)(c[i].ref.index + k);
            for (int attempt = 0; attempt < 50; attempt++) {
                cuzk__store_pg_outcome o;
                int done = 0;
                const cuzk_status st =
                    cuzk__store_pg_complete(s, &c[i].ref, &p, pub, 8, &o, &done, &e);
                if (st == CUZK_OK) {
                    w->dones += done;
                    w->fenced += o != CUZK__PG_RECORDED;
                    break;
                }
                w->errors++;
                if (strstr(e.msg, "may or may not") != NULL) w->unknown++;
                sleep_ms(20);
            }
        }
    }
    w->reconnects = cuzk__store_pg_reconnects(s);
    cuzk__store_pg_close(s);
    return NULL;
}

static void test_restart(void) {
    CHECK(g_dir != NULL && g_script != NULL);
    if (g_dir == NULL || g_script == NULL) return;
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_restart"));
    cuzk__store_pg *s = open_or_null(url, 0), *l = open_or_null(url, 0);
    CHECK(s != NULL && l != NULL);
    if (s == NULL || l == NULL) return;
    cuzk_error e;
    CHECK(cuzk__store_pg_listen(l, CUZK__PG_CHANNEL_END, &e) == CUZK_OK);
    uint64_t jobs[R_JOBS];
    for (int i = 0; i < R_JOBS; i++)
        jobs[i] = submit_paths(s, NULL, "k", CUZK_PRIORITY_NORMAL, R_PARTS);
    atomic_int stop = 0;
    rworker w[DAEMONS];
    pthread_t th[DAEMONS];
    for (int i = 0; i < DAEMONS; i++) {
        memset(&w[i], 0, sizeof(w[i]));
        w[i].url = url;
        w[i].stop = &stop;
        pthread_create(&th[i], NULL, restart_worker, &w[i]);
    }
    /* once some work is done, restart the server under the daemons */
    const int64_t t0 = mono_ms();
    uint64_t counts[5] = {0};
    while (mono_ms() - t0 < 10000) {
        CHECK(cuzk__store_pg_counts(s, counts, &e) == CUZK_OK);
        if (counts[CUZK_JOB_DONE] >= 3) break;
        sleep_ms(10);
    }
    CHECK(counts[CUZK_JOB_DONE] >= 3 && counts[CUZK_JOB_DONE] < R_JOBS);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "bash '%s' restart '%s'", g_script, g_dir);
    CHECK(system(cmd) == 0);
    /* the listener is told to poll again */
    int resync = 0;
    for (int i = 0; i < 200 && !resync; i++) {
        cuzk__store_pg_event ev;
        int got = 0;
        CHECK(cuzk__store_pg_wait(l, 100, &ev, &got, &e) == CUZK_OK);
        resync = got && ev.kind == CUZK__PG_EVENT_RESYNC;
    }
    CHECK(resync);
    /* every job done, reaping what a lost claim left behind */
    int all = 0;
    while (!all && mono_ms() - t0 < 40000) {
        size_t rq = 0;
        cuzk_status st = cuzk__store_pg_reap(s, &rq, &e);
        if (st == CUZK_OK) st = cuzk__store_pg_counts(s, counts, &e);
        all = st == CUZK_OK && counts[CUZK_JOB_DONE] == R_JOBS;
        if (!all) sleep_ms(50);
    }
    CHECK(all);
    atomic_store(&stop, 1);
    int dones = 0, unknown = 0, errors = 0;
    for (int i = 0; i < DAEMONS; i++) {
        pthread_join(th[i], NULL);
        CHECK(w[i].ok);
        CHECK(w[i].reconnects >= 1); /* each lost its connection and made it again */
        dones += w[i].dones;
        unknown += w[i].unknown;
        errors += w[i].errors;
    }
    printf("  restart: %d jobs done by the daemons' calls, %d errors seen (%d with the "
           "outcome unknown), reconnects %llu/%llu/%llu\n",
           dones, errors, unknown, (unsigned long long)w[0].reconnects,
           (unsigned long long)w[1].reconnects, (unsigned long long)w[2].reconnects);
    /* each job ended exactly once (a done reported twice would pass R_JOBS);
     * a completion whose commit outcome was unknown may have ended a job
     * without the caller hearing it */
    CHECK(dones <= R_JOBS && dones + unknown >= R_JOBS);
    CHECK(cuzk__store_pg_reconnects(s) >= 1);
    const uint64_t owners[DAEMONS] = {w[0].owner, w[1].owner, w[2].owner};
    for (int i = 0; i < R_JOBS; i++) {
        CHECK(state_of(s, jobs[i], NULL) == CUZK_JOB_DONE);
        check_results(s, jobs[i], R_PARTS, owners, DAEMONS);
    }
    cuzk__store_pg_close(l);
    cuzk__store_pg_close(s);
}

/* ---- notifications ------------------------------------------------------------------ */

static void test_notify_timeout(void) {
    char url[512];
    CHECK(fresh_db(url, sizeof(url), "t_notify"));
    cuzk__store_pg *l = open_or_null(url, 0), *s = open_or_null(url, 0);
    CHECK(l != NULL && s != NULL);
    if (l == NULL || s == NULL) return;
    cuzk_error e;
    cuzk__store_pg_event ev;
    int got = 1;
    CHECK(cuzk__store_pg_listen(l, 0, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__store_pg_listen(l, CUZK__PG_CHANNEL_END | CUZK__PG_CHANNEL_NEW, &e) == CUZK_OK);
    int64_t t0 = mono_ms();
    CHECK(cuzk__store_pg_wait(l, 150, &ev, &got, &e) == CUZK_OK);
    CHECK(got == 0 && mono_ms() - t0 >= 140);
    t0 = mono_ms();
    CHECK(cuzk__store_pg_wait(l, 0, &ev, &got, &e) == CUZK_OK);
    CHECK(got == 0 && mono_ms() - t0 < 100);
    /* a cancellation's notification arrives only once committed, after the
     * submission's */
    const uint64_t job = submit_paths(s, NULL, "k", CUZK_PRIORITY_NORMAL, 1);
    cuzk_job_state st;
    CHECK(cuzk__store_pg_cancel(s, job, &st, &e) == CUZK_OK);
    CHECK(cuzk__store_pg_wait(l, 2000, &ev, &got, &e) == CUZK_OK);
    CHECK(got && ev.kind == CUZK__PG_EVENT_JOB_NEW && ev.job_id == job);
    CHECK(cuzk__store_pg_wait(l, 2000, &ev, &got, &e) == CUZK_OK);
    CHECK(got && ev.kind == CUZK__PG_EVENT_JOB_END && ev.job_id == job &&
          ev.state == CUZK_JOB_CANCELLED);
    cuzk__store_pg_close(l);
    cuzk__store_pg_close(s);
}

/* A call that waits for a lock it should have skipped hangs: fail instead. */
static void watchdog(int sig) {
    (void)sig;
    static const char msg[] = "test_store_pg: still running after 120 s (a call is waiting "
                              "on a lock?): failed\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(1);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    signal(SIGALRM, watchdog);
    alarm(120);
    g_url = getenv("CUZK_PG_URL");
    g_dir = getenv("CUZK_PG_DIR");
    g_script = getenv("CUZK_PG_SCRIPT");
    if (g_url == NULL || *g_url == '\0')
        return cuzk_test_skip("CUZK_PG_URL is not set (tests/service/check_store_pg.sh "
                              "starts a server and sets it)");
    const int64_t t0 = mono_ms();
    RUN(test_migrations);
    RUN(test_no_password_in_messages);
    RUN(test_witnesses);
    RUN(test_submit);
    RUN(test_bounded_submit);
    RUN(test_claim_order);
    RUN(test_three_daemons);
    RUN(test_leases);
    RUN(test_cluster_view);
    RUN(test_cancel_fail);
    RUN(test_notify_timeout);
    RUN(test_restart);
    printf("%.1f s\n", (double)(mono_ms() - t0) / 1000.0);
    return cuzk_test_finish();
}
