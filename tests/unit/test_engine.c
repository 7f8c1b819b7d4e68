/*
 * test_engine.c — the engine on the CPU backend with the snarkjs sample
 * (examples/sample): the queue's order (priority, then job age), every proof
 * verifying, request ids that make a resubmission idempotent, cancel,
 * backpressure, a failing partition named, and jobs from several threads at
 * once with nothing lost or duplicated; the host memory budget (held under a
 * flood, back to zero after cancels), injected device faults survived by a
 * retry on another lane (CPU lanes standing in for devices) and the lane
 * reset even when the partition fails, the key cache's budget with keys
 * opening at once, the counts and the timeline.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk.h"
#include "engine/engine_impl.h"
#include "harness.h"

static char zkey[1100], wtns[1100];
static cuzk_context *ctx;
static cuzk_key *key;
static cuzk_vk *vk;
static size_t n_pub;

static cuzk_engine *engine(unsigned workers, size_t max_queued, int paused) {
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    o.workers_per_device = workers;
    o.max_queued_partitions = max_queued;
    o.start_paused = paused;
    cuzk_engine *e = NULL;
    cuzk_error err;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_OK);
    return e;
}

static cuzk_status submit(cuzk_engine *e, uint64_t *id, size_t n, cuzk_priority prio,
                          const char *request_id, int timeout_ms) {
    cuzk_witness_input in[8];
    for (size_t i = 0; i < n; i++) in[i] = (cuzk_witness_input){.path = wtns};
    cuzk_error err;
    return cuzk_engine_submit(e, id, key, in, n, prio, request_id, timeout_ms, &err);
}

/* Waits for the job to end (without collecting it); its info. */
static cuzk_job_info wait_ended(cuzk_engine *e, uint64_t id) {
    cuzk_job_info info;
    cuzk_error err;
    for (int spins = 0; spins < 30000; spins++) {
        if (cuzk_engine_job_info(e, id, &info, &err) != CUZK_OK || info.state >= CUZK_JOB_DONE)
            break;
        const struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return info;
}

/* The engine's stats once its lane resets reach n (a reset runs after the
 * partition that asked for it has settled), or after 30 s. */
static cuzk_engine_stats stats_after_resets(cuzk_engine *e, uint64_t n) {
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    for (int spins = 0; spins < 30000 && s.lane_resets < n; spins++) {
        const struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        cuzk_engine_get_stats(e, &s);
    }
    return s;
}

/* Collects a job and checks every proof. */
static void collect_and_verify(cuzk_engine *e, uint64_t id, size_t n) {
    cuzk_proof proofs[8];
    uint8_t *pub = malloc(n * n_pub * 32 + 1);
    cuzk_error err;
    CHECK(cuzk_engine_await(e, id, -1, proofs, pub, NULL, &err) == CUZK_OK);
    for (size_t i = 0; i < n; i++)
        CHECK(cuzk_verify(vk, &proofs[i], pub + i * n_pub * 32, n_pub, &err) == CUZK_OK);
    free(pub);
}

static void test_order(void) {
    cuzk_engine *e = engine(1, 64, 1);
    uint64_t a, b, c, d, f;
    CHECK(submit(e, &a, 2, CUZK_PRIORITY_NORMAL, NULL, 0) == CUZK_OK);
    CHECK(submit(e, &b, 1, CUZK_PRIORITY_LOW, NULL, 0) == CUZK_OK);
    CHECK(submit(e, &c, 1, CUZK_PRIORITY_HIGH, NULL, 0) == CUZK_OK);
    CHECK(submit(e, &d, 1, CUZK_PRIORITY_CRITICAL, NULL, 0) == CUZK_OK);
    CHECK(submit(e, &f, 1, CUZK_PRIORITY_NORMAL, NULL, 0) == CUZK_OK);
    cuzk_job_info ia, id;
    cuzk_error err;
    CHECK(cuzk_engine_job_info(e, a, &ia, &err) == CUZK_OK && ia.state == CUZK_JOB_QUEUED);
    CHECK(ia.queued_ahead == 2); /* the critical and the high job */
    CHECK(cuzk_engine_job_info(e, d, &id, &err) == CUZK_OK && id.queued_ahead == 0);
    cuzk_engine_pause(e, 0);
    const uint64_t order[5] = {d, c, a, f, b};
    uint64_t seq[5];
    for (int i = 0; i < 5; i++) {
        const cuzk_job_info info = wait_ended(e, order[i]);
        CHECK(info.state == CUZK_JOB_DONE);
        seq[i] = info.finish_seq;
    }
    for (int i = 1; i < 5; i++) CHECK(seq[i - 1] < seq[i]);
    collect_and_verify(e, a, 2);
    for (int i = 0; i < 5; i++)
        if (order[i] != a) collect_and_verify(e, order[i], 1);
    CHECK(cuzk_engine_job_info(e, a, &ia, &err) == CUZK_ERR_NOT_FOUND); /* collected */
    cuzk_engine_destroy(e);
}

static void test_request_id_cancel_backpressure(void) {
    cuzk_engine *e = engine(1, 3, 1);
    uint64_t x, y, z, w;
    cuzk_error err;
    CHECK(submit(e, &x, 2, CUZK_PRIORITY_NORMAL, "req-1", 0) == CUZK_OK);
    CHECK(submit(e, &y, 2, CUZK_PRIORITY_NORMAL, "req-1", 0) == CUZK_OK && y == x);
    CHECK(submit(e, &y, 1, CUZK_PRIORITY_NORMAL, "req-1", 0) == CUZK_ERR_INVALID_ARG);
    /* 2 of 3 queued: a job of 2 waits for room, then gives up */
    CHECK(submit(e, &z, 2, CUZK_PRIORITY_NORMAL, NULL, 30) == CUZK_ERR_BUSY);
    CHECK(submit(e, &z, 4, CUZK_PRIORITY_NORMAL, NULL, 0) == CUZK_ERR_INVALID_ARG);
    {   /* timed waits last their time (deadline and wait on one clock) */
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK(cuzk_engine_await(e, x, 60, NULL, NULL, NULL, &err) == CUZK_ERR_TIMEOUT);
        CHECK(cuzk_engine_wait_settled(e, 0, 60) == 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                          (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        CHECK(ms >= 119.0 && ms < 60000.0);
    }
    {   /* a queue whose size in bytes would overflow is refused */
        cuzk_engine_options o;
        cuzk_engine_options_init(&o);
        o.max_queued_partitions = SIZE_MAX / 32 + 2;
        cuzk_engine *huge = NULL;
        CHECK(cuzk_engine_create(&huge, ctx, &o, &err) == CUZK_ERR_INVALID_ARG && huge == NULL);
        CHECK(strstr(err.msg, "max_queued_partitions") != NULL);
    }
    /* cancel frees the room at once */
    CHECK(cuzk_engine_cancel(e, x, &err) == CUZK_OK);
    CHECK(cuzk_engine_await(e, x, 0, NULL, NULL, NULL, &err) == CUZK_ERR_CANCELLED);
    CHECK(cuzk_engine_await(e, x, 0, NULL, NULL, NULL, &err) == CUZK_ERR_NOT_FOUND);
    CHECK(cuzk_engine_cancel(e, x, &err) == CUZK_ERR_NOT_FOUND);
    CHECK(submit(e, &z, 3, CUZK_PRIORITY_NORMAL, NULL, 0) == CUZK_OK);
    /* a full queue: this one waits until the workers make room */
    cuzk_engine_pause(e, 0);
    CHECK(submit(e, &w, 2, CUZK_PRIORITY_NORMAL, NULL, -1) == CUZK_OK);
    collect_and_verify(e, z, 3);
    collect_and_verify(e, w, 2);
    cuzk_engine_destroy(e);
}

static void test_failing_partition(void) {
    cuzk_engine *e = engine(1, 16, 0);
    cuzk_witness_input in[3] = {{.path = wtns}, {.path = "/nonexistent/w.wtns"}, {.path = wtns}};
    uint64_t id;
    cuzk_error err;
    CHECK(cuzk_engine_submit(e, &id, key, in, 3, CUZK_PRIORITY_NORMAL, NULL, 0, &err) == CUZK_OK);
    CHECK(cuzk_engine_await(e, id, -1, NULL, NULL, NULL, &err) == CUZK_ERR_IO);
    CHECK(strstr(err.msg, "partition 1 (/nonexistent/w.wtns)") != NULL);
    /* a FIFO is refused, never read (its reader would wait for a writer
     * forever), and so is a witness cut short after it was checked */
    char dir[] = "/tmp/cuzk-engine-XXXXXX", fifo[64], cut[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(cut, sizeof cut, "%s/cut.wtns", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(cuzk_engine_key_add(e, "k", &(cuzk_key_source){.zkey = zkey}, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_check_witness(e, "k", fifo, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "not a regular file") != NULL);
    FILE *src = fopen(wtns, "rb"), *dst = fopen(cut, "wb");
    CHECK(src != NULL && dst != NULL);
    char buf[4096];
    size_t got;
    while (src != NULL && dst != NULL && (got = fread(buf, 1, sizeof buf, src)) > 0)
        CHECK(fwrite(buf, 1, got, dst) == got);
    if (src) fclose(src);
    if (dst) fclose(dst);
    CHECK(cuzk_engine_key_check_witness(e, "k", cut, &err) == CUZK_OK);
    CHECK(truncate(cut, 100) == 0);
    cuzk_witness_input bad[2] = {{.path = fifo}, {.path = cut}};
    for (int i = 0; i < 2; i++) {
        CHECK(cuzk_engine_submit(e, &id, key, &bad[i], 1, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
              CUZK_OK);
        CHECK(cuzk_engine_await(e, id, -1, NULL, NULL, NULL, &err) != CUZK_OK);
        CHECK(strstr(err.msg, bad[i].path) != NULL);
        if (i == 0) CHECK(strstr(err.msg, "not a regular file") != NULL);
    }
    unlink(fifo);
    unlink(cut);
    rmdir(dir);
    cuzk_engine_destroy(e);
}

/* Submissions waiting for room are let in by priority, then arrival: a
 * CRITICAL job of 3 partitions that waits for room is let in before a
 * LOW job of 1 that came after it, though the LOW one fits first (job ids
 * are given as jobs are let in). */
typedef struct {
    cuzk_engine *e;
    size_t n;
    cuzk_priority prio;
    uint64_t id;
    cuzk_status st;
} waiting_submit;
static void *waiting_submit_main(void *arg) {
    waiting_submit *w = arg;
    w->st = submit(w->e, &w->id, w->n, w->prio, NULL, -1);
    return NULL;
}
static size_t waiters(cuzk_engine *e) {
    size_t n = 0;
    pthread_mutex_lock(&e->mu);
    for (const cuzk__admit_waiter *w = e->waiters; w != NULL; w = w->next) n++;
    pthread_mutex_unlock(&e->mu);
    return n;
}
static void test_admission_order(void) {
    cuzk_engine *e = engine(1, 4, 1);
    if (e == NULL) return;
    uint64_t full;
    CHECK(submit(e, &full, 4, CUZK_PRIORITY_LOW, NULL, 0) == CUZK_OK);
    waiting_submit w[2] = {{e, 3, CUZK_PRIORITY_CRITICAL, 0, CUZK_OK},
                           {e, 1, CUZK_PRIORITY_LOW, 0, CUZK_OK}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        CHECK(pthread_create(&t[i], NULL, waiting_submit_main, &w[i]) == 0);
        for (int spins = 0; spins < 30000 && waiters(e) != (size_t)i + 1; spins++) {
            const struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        CHECK(waiters(e) == (size_t)i + 1);
    }
    /* one that would not wait is turned away while others wait ahead */
    uint64_t none;
    CHECK(submit(e, &none, 1, CUZK_PRIORITY_NORMAL, NULL, 0) == CUZK_ERR_BUSY);
    cuzk_engine_pause(e, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(w[0].st == CUZK_OK && w[1].st == CUZK_OK);
    CHECK(w[0].id < w[1].id);
    collect_and_verify(e, full, 4);
    collect_and_verify(e, w[0].id, 3);
    collect_and_verify(e, w[1].id, 1);
    cuzk_engine_destroy(e);
}

/* Two threads submit jobs of random priority to two workers: every job ends
 * done, once, with proofs that verify. */
typedef struct {
    cuzk_engine *e;
    uint64_t ids[6];
    size_t n[6];
    cuzk_priority prio[6];
} submitter;

/* (the sizes and priorities drawn before the threads start: the test's
 * generator is not thread-safe, and a seed replays the run) */
static void *submit_main(void *arg) {
    submitter *s = arg;
    for (int i = 0; i < 6; i++)
        if (submit(s->e, &s->ids[i], s->n[i], s->prio[i], NULL, -1) != CUZK_OK) s->ids[i] = 0;
    return NULL;
}

static void test_concurrent(void) {
    cuzk_engine *e = engine(2, 8, 0);
    submitter s[2];
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        s[t].e = e;
        for (int i = 0; i < 6; i++) {
            s[t].n[i] = 1 + (size_t)(cuzk_test_rand64() % 3);
            s[t].prio[i] = (cuzk_priority)(cuzk_test_rand64() % 4);
        }
    }
    for (int t = 0; t < 2; t++) CHECK(pthread_create(&th[t], NULL, submit_main, &s[t]) == 0);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 6; i++) {
            CHECK(s[t].ids[i] != 0);
            if (s[t].ids[i] != 0) collect_and_verify(e, s[t].ids[i], s[t].n[i]);
        }
    cuzk_engine_destroy(e);
}

/* The sample's witness values (the .wtns's last n_vars x 32 bytes). */
static uint8_t *wtns_file;
static size_t wtns_len, n_vars;

static cuzk_witness_input values_input(void) {
    return (cuzk_witness_input){.values = wtns_file + wtns_len - n_vars * 32, .n_values = n_vars};
}

static uint64_t bytes_used(cuzk_engine *e) {
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    return st.host_bytes_used;
}

/* Witness values held by queued jobs count against the budget: a flood
 * waits for room, and cancels give every byte back. */
static void test_budget(void) {
    const uint64_t job_bytes = 2 * n_vars * 32;
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    o.workers_per_device = 1;
    o.start_paused = 1;
    o.host_memory_budget = 3 * job_bytes; /* three jobs of two partitions */
    cuzk_engine *e = NULL;
    cuzk_error err;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_OK);
    if (e == NULL) return;
    cuzk_witness_input in[7];
    for (int i = 0; i < 7; i++) in[i] = values_input();
    uint64_t id[4];
    for (int i = 0; i < 3; i++)
        CHECK(cuzk_engine_submit(e, &id[i], key, in, 2, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
              CUZK_OK);
    CHECK(bytes_used(e) == 3 * job_bytes);
    CHECK(cuzk_engine_submit(e, &id[3], key, in, 2, CUZK_PRIORITY_NORMAL, NULL, 20, &err) ==
          CUZK_ERR_BUSY);
    CHECK(strstr(err.msg, "host memory budget") != NULL);
    CHECK(bytes_used(e) == 3 * job_bytes);
    /* more than the whole budget in one job can never fit */
    CHECK(cuzk_engine_submit(e, &id[3], key, in, 7, CUZK_PRIORITY_NORMAL, NULL, -1, &err) ==
          CUZK_ERR_INVALID_ARG);
    /* a cancelled queued job gives its bytes back at once */
    CHECK(cuzk_engine_cancel(e, id[0], &err) == CUZK_OK);
    CHECK(bytes_used(e) == 2 * job_bytes);
    CHECK(cuzk_engine_submit(e, &id[3], key, in, 2, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
          CUZK_OK);
    /* running: cancel one as it runs; the others complete */
    cuzk_engine_pause(e, 0);
    CHECK(cuzk_engine_cancel(e, id[1], &err) == CUZK_OK);
    CHECK(cuzk_engine_await(e, id[0], -1, NULL, NULL, NULL, &err) == CUZK_ERR_CANCELLED);
    CHECK(cuzk_engine_await(e, id[1], -1, NULL, NULL, NULL, &err) == CUZK_ERR_CANCELLED);
    collect_and_verify(e, id[2], 2);
    collect_and_verify(e, id[3], 2);
    CHECK(bytes_used(e) == 0);
    cuzk_engine_destroy(e);
}

/* The engine's loaded hook (engine_impl.h): the first partition loaded
 * waits there until the test lets it go. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int held, go;
} load_gate;
static void gate_hold(void *user) {
    load_gate *g = user;
    pthread_mutex_lock(&g->mu);
    if (g->held++ == 0)
        while (!g->go) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

/* A job cancelled while one partition is being proved gives back the
 * values of the others at once: partition 0 is held once its witness has
 * loaded, until the test lets it go. */
static void test_budget_cancel_running(void) {
    load_gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    cuzk_engine *e = engine(1, 16, 0);
    if (e == NULL) return;
    e->loaded_hook = gate_hold;
    e->loaded_hook_user = &g;
    cuzk_witness_input in[4] = {{.path = wtns}, values_input(), values_input(), values_input()};
    uint64_t id;
    cuzk_error err;
    CHECK(cuzk_engine_submit(e, &id, key, in, 4, CUZK_PRIORITY_NORMAL, NULL, 0, &err) == CUZK_OK);
    int held = 0;
    for (int spins = 0; spins < 30000 && !held; spins++) {
        pthread_mutex_lock(&g.mu);
        held = g.held;
        pthread_mutex_unlock(&g.mu);
        const struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    CHECK(held == 1);
    cuzk_job_info info = {0};
    CHECK(cuzk_engine_job_info(e, id, &info, &err) == CUZK_OK);
    CHECK(info.n_running == 1);
    /* three partitions' values and the witness loaded */
    CHECK(bytes_used(e) == 4 * n_vars * 32);
    CHECK(cuzk_engine_cancel(e, id, &err) == CUZK_OK);
    CHECK(bytes_used(e) == n_vars * 32);
    pthread_mutex_lock(&g.mu); /* the partition goes on, and stops: its job ended */
    g.go = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    CHECK(cuzk_engine_await(e, id, -1, NULL, NULL, NULL, &err) == CUZK_ERR_CANCELLED);
    CHECK(bytes_used(e) == 0);
    cuzk_engine_destroy(e);
}

/* An injected device fault: the partition is proved again on the other
 * lane, the faulting lane is reset and serves again; with retries off the
 * job fails naming the partition and the fault, and the lane is reset all
 * the same. */
static void test_fault_retry(void) {
    cuzk_options co;
    cuzk_options_init(&co);
    co.backend = CUZK_BACKEND_CPU;
    co.threads = 2;
    co.cpu_lanes = 2;
    cuzk_context *c2 = NULL;
    cuzk_key *k2 = NULL;
    cuzk_error err;
    CHECK(cuzk_context_create(&c2, &co, &err) == CUZK_OK);
    CHECK(c2 != NULL && cuzk_key_open_zkey(c2, &k2, zkey, &err) == CUZK_OK);
    if (k2 == NULL) {
        cuzk_context_destroy(c2);
        return;
    }
    {   /* a key of another context is refused */
        cuzk_engine *other = engine(1, 4, 1);
        cuzk_witness_input one = {.path = wtns};
        uint64_t id;
        CHECK(cuzk_engine_submit(other, &id, k2, &one, 1, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
              CUZK_ERR_INVALID_ARG);
        cuzk_engine_destroy(other);
    }
    const char *stages[] = {"spmv", "ntt", "msm_h", "batch_add", "tail_msm", "b_g2_msm"};
    for (int round = 0; round < 2; round++) {
        cuzk_engine_options o;
        cuzk_engine_options_init(&o);
        o.workers_per_device = 1;
        o.fault_stage = stages[cuzk_test_rand64() % 6];
        o.fault_nth = 1 + (unsigned)(cuzk_test_rand64() % 3);
        o.max_retries = (unsigned)(1 - round);
        cuzk_engine *e = NULL;
        CHECK(cuzk_engine_create(&e, c2, &o, &err) == CUZK_OK);
        if (e == NULL) break;
        cuzk_witness_input in[5];
        for (int i = 0; i < 5; i++) in[i] = (cuzk_witness_input){.path = wtns};
        uint64_t id;
        CHECK(cuzk_engine_submit(e, &id, k2, in, 5, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
              CUZK_OK);
        cuzk_proof proofs[5];
        uint8_t pub[5 * 64 * 32];
        const cuzk_status st = cuzk_engine_await(e, id, -1, proofs, pub, NULL, &err);
        cuzk_engine_stats s;
        cuzk_engine_get_stats(e, &s);
        CHECK(s.faults == 1);
        CHECK(s.lane_slots == 2 && s.workers == 2);
        if (round == 0) {
            CHECK(st == CUZK_OK);
            CHECK(s.retries == 1 && s.proofs == 5 && s.verified == 5);
            for (int i = 0; st == CUZK_OK && i < 5 && n_pub <= 64; i++)
                CHECK(cuzk_verify(vk, &proofs[i], pub + i * n_pub * 32, n_pub, &err) == CUZK_OK);
            /* the lane is back: another job on both lanes */
            CHECK(cuzk_engine_submit(e, &id, k2, in, 4, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
                  CUZK_OK);
            CHECK(cuzk_engine_await(e, id, -1, NULL, NULL, NULL, &err) == CUZK_OK);
            s = stats_after_resets(e, 1);
            CHECK(s.lane_resets == 1 && s.proofs == 9);
        } else {
            CHECK(st == CUZK_ERR_GPU);
            CHECK(strstr(err.msg, "injected fault") != NULL && strstr(err.msg, o.fault_stage));
            CHECK(strncmp(err.msg, "partition ", 10) == 0);
            CHECK(s.retries == 0 && s.failed_partitions == 1);
            /* the lane that faulted is reset although its partition failed */
            CHECK(cuzk_engine_submit(e, &id, k2, in, 4, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
                  CUZK_OK);
            CHECK(cuzk_engine_await(e, id, -1, NULL, NULL, NULL, &err) == CUZK_OK);
            s = stats_after_resets(e, 1);
            CHECK(s.lane_resets == 1 && s.faults == 1);
        }
        cuzk_engine_destroy(e);
    }
    cuzk_key_release(k2);
    cuzk_context_destroy(c2);
}

/* Out of memory on a CPU lane: nothing to step down to, so the job fails
 * with the partition and the cause named, and nothing is retried. */
static void test_nomem_cpu(void) {
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    o.workers_per_device = 1;
    o.fault_stage = "ntt";
    o.fault_nth = 2;
    o.fault_status = CUZK_ERR_DEVICE_NOMEM;
    cuzk_engine *e = NULL;
    cuzk_error err;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_OK);
    if (e == NULL) return;
    uint64_t id;
    CHECK(submit(e, &id, 3, CUZK_PRIORITY_NORMAL, NULL, 0) == CUZK_OK);
    const cuzk_status st = cuzk_engine_await(e, id, -1, NULL, NULL, NULL, &err);
    CHECK(st == CUZK_ERR_DEVICE_NOMEM);
    CHECK(strncmp(err.msg, "partition 1 ", 12) == 0 &&
          strstr(err.msg, "out of device memory") != NULL);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    CHECK(s.retries == 0 && s.lane_step_downs == 0 && s.failed_partitions == 1);
    cuzk_engine_destroy(e);
    /* an injected status other than the two is refused */
    o.fault_status = CUZK_ERR_IO;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "fault_status") != NULL);
}

/* The log lines of a context, kept for a test to look at. */
typedef struct {
    pthread_mutex_t mu;
    char text[16384];
} log_book;

static void book_line(void *user, const char *line) {
    log_book *b = user;
    pthread_mutex_lock(&b->mu);
    const size_t used = strlen(b->text);
    snprintf(b->text + used, sizeof b->text - used, "%s\n", line);
    pthread_mutex_unlock(&b->mu);
}

/* A GPU lane whose device memory runs out mid-proof steps down a memory
 * plan at each time, resident to partly resident to streaming to the CPU,
 * and every job still completes with proofs that verify. */
static void test_gpu_step_down(void) {
    if (cuzk_gpu_count() <= 0) {
        CHECK(getenv("CUZK_GPU_REQUIRED") == NULL);
        printf("  (no GPU: skipped)\n");
        return;
    }
    static log_book book = {PTHREAD_MUTEX_INITIALIZER, ""};
    cuzk_options co;
    cuzk_options_init(&co);
    co.backend = CUZK_BACKEND_GPU;
    co.log = book_line;
    co.log_user = &book;
    cuzk_context *cg = NULL;
    cuzk_key *kg = NULL;
    cuzk_error err;
    CHECK(cuzk_context_create(&cg, &co, &err) == CUZK_OK);
    CHECK(cg != NULL && cuzk_key_open_zkey(cg, &kg, zkey, &err) == CUZK_OK);
    if (kg == NULL) {
        cuzk_context_destroy(cg);
        return;
    }
    static const char *stages[] = {"ntt", "msm_h", "batch_add", "tail_msm", "b_g2_msm"};
    static const char *const then[] = {"it proves with no plan above partly resident from now on",
                                       "it proves with no plan above streaming from now on",
                                       "it proves on the CPU from now on"};
    for (int step = 0; step < 3; step++) {
        cuzk_engine_options o;
        cuzk_engine_options_init(&o);
        o.fault_stage = stages[cuzk_test_rand64() % 5];
        o.fault_nth = 1 + (unsigned)(cuzk_test_rand64() % 3);
        o.fault_status = CUZK_ERR_DEVICE_NOMEM;
        cuzk_engine *e = NULL;
        CHECK(cuzk_engine_create(&e, cg, &o, &err) == CUZK_OK);
        if (e == NULL) break;
        uint64_t id;
        cuzk_witness_input in[6];
        for (int i = 0; i < 6; i++) in[i] = (cuzk_witness_input){.path = wtns};
        CHECK(cuzk_engine_submit(e, &id, kg, in, 6, CUZK_PRIORITY_NORMAL, NULL, -1, &err) ==
              CUZK_OK);
        cuzk_proof proofs[6];
        uint8_t pub[6 * 64 * 32];
        const cuzk_status st = cuzk_engine_await(e, id, -1, proofs, pub, NULL, &err);
        CHECK(st == CUZK_OK);
        if (st != CUZK_OK) fprintf(stderr, "  step %d: %s\n", step, err.msg);
        for (int i = 0; st == CUZK_OK && i < 6 && n_pub <= 64; i++)
            CHECK(cuzk_verify(vk, &proofs[i], pub + i * n_pub * 32, n_pub, &err) == CUZK_OK);
        cuzk_engine_stats s;
        cuzk_engine_get_stats(e, &s);
        CHECK(s.lane_step_downs == 1 && s.retries == 1 && s.faults == 0 && s.proofs == 6);
        cuzk_engine_destroy(e);
        pthread_mutex_lock(&book.mu);
        const int said = strstr(book.text, then[step]) != NULL;
        pthread_mutex_unlock(&book.mu);
        CHECK(said);
        if (!said) fprintf(stderr, "  step %d: no \"%s\" in the log:\n%s", step, then[step],
                           book.text);
    }
    /* the plans the lane took, in its log: each step says it stepped down */
    CHECK(strstr(book.text, "partly resident (stepped down") != NULL);
    CHECK(strstr(book.text, "streaming (stepped down") != NULL);
    cuzk_key_release(kg);
    cuzk_context_destroy(cg);
}

/* Every partition leaves its stages on the timeline, in order, on a worker
 * of the engine. */
static void test_timeline(void) {
    cuzk_engine *e = engine(2, 16, 0);
    uint64_t id;
    CHECK(submit(e, &id, 3, CUZK_PRIORITY_NORMAL, NULL, 0) == CUZK_OK);
    collect_and_verify(e, id, 3);
    cuzk_timeline_event ev[256];
    const size_t n = cuzk_engine_timeline(e, ev, 256);
    int seen[3][CUZK_STAGE_COUNT];
    memset(seen, 0, sizeof(seen));
    for (size_t i = 0; i < n; i++) {
        CHECK(ev[i].job_id == id && ev[i].partition < 3 && ev[i].stage < CUZK_STAGE_COUNT);
        if (ev[i].job_id != id || ev[i].partition >= 3 || ev[i].stage >= CUZK_STAGE_COUNT) continue;
        CHECK(ev[i].end_ms >= ev[i].start_ms && ev[i].start_ms >= 0);
        CHECK(ev[i].stage == CUZK_STAGE_QUEUED ? ev[i].worker == UINT32_MAX : ev[i].worker < 2);
        CHECK(ev[i].device == -1);
        seen[ev[i].partition][ev[i].stage]++;
    }
    for (int p = 0; p < 3; p++) {
        CHECK(seen[p][CUZK_STAGE_QUEUED] == 1 && seen[p][CUZK_STAGE_LOAD] == 1);
        CHECK(seen[p][CUZK_STAGE_MSM_H] == 1 && seen[p][CUZK_STAGE_VERIFY] == 1);
    }
    CHECK(strcmp(cuzk_stage_name(CUZK_STAGE_MSM_H), "msm_h") == 0);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    CHECK(s.proofs == 3 && s.verified == 3 && s.timeline_dropped == 0 && s.running_partitions == 0);
    cuzk_engine_destroy(e);
}

/* Named keys: opened by the first submission, closed to make room for
 * another under the byte budget (least recently used first, never one in
 * use), reopened for a job that waits while it is closed, evicted and
 * preloaded on request. */
static void test_key_cache(void) {
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    o.workers_per_device = 1;
    o.start_paused = 1;
    o.batch_wait_ms = 0; /* strict order: a's job, then b's (test_key_batching) */
    cuzk_engine *e = NULL;
    cuzk_error err;
    cuzk_key_source src = {.zkey = zkey};
    /* the budget: one key's files, so two named keys cannot both be open */
    cuzk_engine_key_info info;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_add(e, "probe", &src, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_get_info(e, "probe", &info, &err) == CUZK_OK && info.bytes > 0);
    cuzk_engine_destroy(e);
    o.key_cache_bytes = info.bytes + info.bytes / 2;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_OK);
    if (e == NULL) return;
    CHECK(cuzk_engine_key_add(e, "a", &src, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_add(e, "b", &src, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_add(e, "a", &src, &err) == CUZK_ERR_INVALID_ARG);
    const cuzk_key_source bad = {.zkey = "/nonexistent/k.zkey"};
    CHECK(cuzk_engine_key_add(e, "c", &bad, &err) == CUZK_ERR_IO);
    CHECK(strstr(err.msg, "/nonexistent/k.zkey") != NULL);
    const cuzk_key_source both = {.zkey = zkey, .circuit = zkey, .params = zkey};
    CHECK(cuzk_engine_key_add(e, "d", &both, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_engine_key_get_info(e, "a", &info, &err) == CUZK_OK && info.tier == CUZK_KEY_COLD);
    CHECK(cuzk_engine_key_get_info(e, "zz", &info, &err) == CUZK_ERR_NOT_FOUND);

    cuzk_witness_input in[2] = {{.path = wtns}, {.path = wtns}};
    uint64_t ja, jb;
    CHECK(cuzk_engine_submit_named(e, &ja, "a", in, 2, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
          CUZK_OK);
    CHECK(cuzk_engine_key_get_info(e, "a", &info, &err) == CUZK_OK);
    CHECK(info.tier == CUZK_KEY_WARM && info.loads == 1);
    /* b opens: a is idle (its job only waits), so a closes to make room */
    CHECK(cuzk_engine_submit_named(e, &jb, "b", in, 1, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
          CUZK_OK);
    CHECK(cuzk_engine_key_get_info(e, "a", &info, &err) == CUZK_OK);
    CHECK(info.tier == CUZK_KEY_COLD && info.evictions == 1);
    CHECK(cuzk_engine_submit_named(e, &jb, "nope", in, 1, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
          CUZK_ERR_NOT_FOUND);
    /* a's job runs: a opens again (b closing), then b's job reopens b */
    cuzk_engine_pause(e, 0);
    collect_and_verify(e, ja, 2);
    collect_and_verify(e, jb, 1);
    CHECK(cuzk_engine_key_get_info(e, "a", &info, &err) == CUZK_OK && info.loads == 2);
    CHECK(cuzk_engine_key_get_info(e, "b", &info, &err) == CUZK_OK);
    CHECK(info.tier == CUZK_KEY_HOT && info.loads == 2 && info.running == 0);
    /* on request: evict, preload hot, and a proof from the preloaded key */
    CHECK(cuzk_engine_key_evict(e, "b", &err) == CUZK_OK);
    CHECK(cuzk_engine_key_get_info(e, "b", &info, &err) == CUZK_OK && info.tier == CUZK_KEY_COLD);
    CHECK(cuzk_engine_key_preload(e, "b", CUZK_KEY_HOT, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_get_info(e, "b", &info, &err) == CUZK_OK);
    CHECK(info.tier == CUZK_KEY_HOT && info.loads == 3);
    CHECK(cuzk_engine_submit_named(e, &jb, "b", in, 2, CUZK_PRIORITY_NORMAL, NULL, 0, &err) ==
          CUZK_OK);
    collect_and_verify(e, jb, 2);
    CHECK(cuzk_engine_key_get_info(e, "b", &info, &err) == CUZK_OK && info.loads == 3);
    cuzk_engine_destroy(e);
}

/* Two keys opening at once with room for two keys, a third open and idle:
 * each opening counts the other's bytes, so the idle key closes and no more
 * than two are ever open (the budget held with nothing in use). */
struct named_submit {
    cuzk_engine *e;
    const char *name;
    pthread_barrier_t *start;
    cuzk_status st;
};

static void *submit_named_main(void *arg) {
    struct named_submit *ns = arg;
    const cuzk_witness_input in[1] = {{.path = wtns}};
    uint64_t id;
    cuzk_error err;
    pthread_barrier_wait(ns->start);
    ns->st = cuzk_engine_submit_named(ns->e, &id, ns->name, in, 1, CUZK_PRIORITY_NORMAL, NULL,
                                      0, &err);
    return NULL;
}

static void test_key_cache_opening_together(void) {
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    o.start_paused = 1; /* the jobs wait: every open key stays idle */
    cuzk_engine *e = NULL;
    cuzk_error err;
    const cuzk_key_source src = {.zkey = zkey};
    cuzk_engine_key_info info;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_add(e, "probe", &src, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_get_info(e, "probe", &info, &err) == CUZK_OK && info.bytes > 0);
    cuzk_engine_destroy(e);
    o.key_cache_bytes = 2 * info.bytes + info.bytes / 2;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_OK);
    if (e == NULL) return;
    const char *names[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) CHECK(cuzk_engine_key_add(e, names[i], &src, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_preload(e, "c", CUZK_KEY_WARM, &err) == CUZK_OK);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    struct named_submit ns[2] = {{e, "a", &start, CUZK_ERR_BUSY},
                                 {e, "b", &start, CUZK_ERR_BUSY}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, submit_named_main, &ns[i]) == 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    int open = 0;
    for (int i = 0; i < 3; i++) {
        CHECK(cuzk_engine_key_get_info(e, names[i], &info, &err) == CUZK_OK);
        open += info.tier != CUZK_KEY_COLD;
    }
    CHECK(ns[0].st == CUZK_OK && ns[1].st == CUZK_OK);
    CHECK(open == 2);
    cuzk_engine_destroy(e);
}

/*
 * Same-key batching: keys a and b of which only one fits the cache, jobs
 * a, b, a, b queued while paused (b is open, a closed, after the
 * submissions). Batched, b's two jobs go first, then a opens once for its
 * two; in strict order (batch_wait_ms 0, or a wait already past its bound)
 * the keys swap at every job.
 */
static void run_abab(unsigned batch_wait_ms, int wait_first, uint64_t finish_rank[4],
                     uint64_t *loads) {
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    o.workers_per_device = 1;
    o.start_paused = 1;
    o.batch_wait_ms = batch_wait_ms;
    cuzk_engine *e = NULL;
    cuzk_error err;
    cuzk_key_source src = {.zkey = zkey};
    cuzk_engine_key_info info;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_add(e, "probe", &src, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_get_info(e, "probe", &info, &err) == CUZK_OK);
    cuzk_engine_destroy(e);
    o.key_cache_bytes = info.bytes + info.bytes / 2;
    CHECK(cuzk_engine_create(&e, ctx, &o, &err) == CUZK_OK);
    if (e == NULL) return;
    CHECK(cuzk_engine_key_add(e, "a", &src, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_add(e, "b", &src, &err) == CUZK_OK);
    const cuzk_witness_input in[1] = {{.path = wtns}};
    uint64_t ids[4];
    for (int i = 0; i < 4; i++)
        CHECK(cuzk_engine_submit_named(e, &ids[i], i % 2 ? "b" : "a", in, 1,
                                       CUZK_PRIORITY_NORMAL, NULL, 0, &err) == CUZK_OK);
    if (wait_first) usleep(20000); /* past a bound of 1 ms */
    cuzk_engine_pause(e, 0);
    for (uint64_t seen = 0; seen < 4;) seen = cuzk_engine_wait_settled(e, seen, -1);
    for (int i = 0; i < 4; i++) {
        cuzk_job_info ji;
        CHECK(cuzk_engine_job_info(e, ids[i], &ji, &err) == CUZK_OK && ji.state == CUZK_JOB_DONE);
        finish_rank[i] = ji.finish_seq;
        collect_and_verify(e, ids[i], 1);
    }
    *loads = 0;
    CHECK(cuzk_engine_key_get_info(e, "a", &info, &err) == CUZK_OK);
    *loads += info.loads;
    CHECK(cuzk_engine_key_get_info(e, "b", &info, &err) == CUZK_OK);
    *loads += info.loads;
    cuzk_engine_destroy(e);
}

static void test_key_batching(void) {
    uint64_t rank[4], loads;
    /* batched: b's jobs (1 and 3) first; a opens once more after the four
     * opens of the submissions */
    run_abab(10000, 0, rank, &loads);
    CHECK(rank[1] < rank[0] && rank[3] < rank[0] && rank[0] < rank[2]);
    CHECK(loads == 5);
    /* strict order: a, b, a, b, each opening its key */
    run_abab(0, 0, rank, &loads);
    CHECK(rank[0] < rank[1] && rank[1] < rank[2] && rank[2] < rank[3]);
    CHECK(loads == 8);
    /* a hold already past its bound: strict order too */
    run_abab(1, 1, rank, &loads);
    CHECK(rank[0] < rank[1] && rank[1] < rank[2] && rank[2] < rank[3]);
    CHECK(loads == 8);
}

/* With a GPU: two workers on the card's one lane (witness staging beside
 * the other's kernels), an injected fault in one of the kernels survived by
 * a retry after the lane's reset, and every proof verifying. Skipped
 * without a GPU unless CUZK_GPU_REQUIRED is set. */
static void test_gpu_lane(void) {
    if (cuzk_gpu_count() <= 0) {
        CHECK(getenv("CUZK_GPU_REQUIRED") == NULL);
        printf("  (no GPU: skipped)\n");
        return;
    }
    cuzk_options co;
    cuzk_options_init(&co);
    co.backend = CUZK_BACKEND_GPU;
    cuzk_context *cg = NULL;
    cuzk_key *kg = NULL;
    cuzk_error err;
    CHECK(cuzk_context_create(&cg, &co, &err) == CUZK_OK);
    CHECK(cg != NULL && cuzk_key_open_zkey(cg, &kg, zkey, &err) == CUZK_OK);
    if (kg == NULL) {
        cuzk_context_destroy(cg);
        return;
    }
    static const char *stages[] = {"spmv", "ntt", "msm_h", "batch_add", "tail_msm", "b_g2_msm"};
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    o.fault_stage = stages[cuzk_test_rand64() % 6];
    o.fault_nth = 1 + (unsigned)(cuzk_test_rand64() % 4);
    cuzk_engine *e = NULL;
    CHECK(cuzk_engine_create(&e, cg, &o, &err) == CUZK_OK);
    cuzk_witness_input in[8];
    for (int i = 0; i < 8; i++) in[i] = (i % 2) ? values_input() : (cuzk_witness_input){.path = wtns};
    uint64_t id[2];
    cuzk_proof proofs[8];
    cuzk_proof_times times[8];
    uint8_t pub[8 * 64 * 32];
    int staged = 0;
    for (int r = 0; e != NULL && r < 2; r++)
        CHECK(cuzk_engine_submit(e, &id[r], kg, in, 8, CUZK_PRIORITY_NORMAL, NULL, -1, &err) ==
              CUZK_OK);
    for (int r = 0; e != NULL && r < 2; r++) {
        const cuzk_status st = cuzk_engine_await(e, id[r], -1, proofs, pub, times, &err);
        CHECK(st == CUZK_OK);
        if (st != CUZK_OK) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        for (int i = 0; i < 8 && n_pub <= 64; i++)
            CHECK(cuzk_verify(vk, &proofs[i], pub + i * n_pub * 32, n_pub, &err) == CUZK_OK);
        for (int i = 0; i < 8; i++) staged += times[i].witness_staged;
    }
    printf("  %d of 16 witnesses pre-staged beside the other worker's kernels\n", staged);
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    CHECK(s.workers == 2 && s.lane_slots == 1);
    CHECK(s.faults == 1 && s.retries == 1 && s.lane_resets == 1);
    CHECK(s.proofs == 16 && s.verified == 16 && s.host_bytes_used == 0);
    cuzk_engine_destroy(e);
    cuzk_key_release(kg);
    cuzk_context_destroy(cg);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *src = getenv("CUZK_SOURCE_DIR");
    snprintf(zkey, sizeof zkey, "%s/examples/sample/circuit.zkey", src ? src : ".");
    snprintf(wtns, sizeof wtns, "%s/examples/sample/witness.wtns", src ? src : ".");
    cuzk_options o;
    cuzk_options_init(&o);
    o.backend = CUZK_BACKEND_CPU;
    o.threads = 1;
    cuzk_error err;
    if (cuzk_context_create(&ctx, &o, &err) != CUZK_OK ||
        cuzk_key_open_zkey(ctx, &key, zkey, &err) != CUZK_OK ||
        cuzk_vk_from_key(&vk, key, &err) != CUZK_OK) {
        fprintf(stderr, "fixture: %s\n", cuzk_error_text(&err));
        return 1;
    }
    n_pub = cuzk_vk_n_public(vk);
    cuzk_key_info info;
    cuzk_key_get_info(key, &info);
    n_vars = (size_t)info.n_vars;
    if (cuzk_file_read(&wtns_file, &wtns_len, wtns, (size_t)1 << 30, &err) != CUZK_OK ||
        wtns_len < n_vars * 32) {
        fprintf(stderr, "fixture: %s\n", cuzk_error_text(&err));
        return 1;
    }
    RUN(test_order);
    RUN(test_request_id_cancel_backpressure);
    RUN(test_admission_order);
    RUN(test_failing_partition);
    RUN(test_concurrent);
    RUN(test_budget);
    RUN(test_budget_cancel_running);
    RUN(test_fault_retry);
    RUN(test_timeline);
    RUN(test_key_cache);
    RUN(test_key_cache_opening_together);
    RUN(test_key_batching);
    RUN(test_gpu_lane);
    RUN(test_nomem_cpu);
    RUN(test_gpu_step_down);
    cuzk_free(wtns_file);
    cuzk_vk_free(vk);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
    return cuzk_test_finish();
}
