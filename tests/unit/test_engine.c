/*
 * test_engine.c — the engine on the CPU backend with the snarkjs sample
 * (examples/sample): the queue's order (priority, then job age), every proof
 * verifying, request ids that make a resubmission idempotent, cancel,
 * backpressure, a failing partition named, and jobs from several threads at
 * once with nothing lost or duplicated.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk.h"
#include "harness.h"

static char zkey[1100], wtns[1100];
static cuzk_context *ctx;
static cuzk_key *key;
static cuzk_vk *vk;
static size_t n_pub;

static cuzk_engine *engine(unsigned workers, size_t max_queued, int paused) {
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    o.workers = workers;
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
    cuzk_engine_destroy(e);
}

/* Two threads submit jobs of random priority to two workers: every job ends
 * done, once, with proofs that verify. */
typedef struct {
    cuzk_engine *e;
    uint64_t ids[6];
    size_t n[6];
} submitter;

static void *submit_main(void *arg) {
    submitter *s = arg;
    for (int i = 0; i < 6; i++) {
        s->n[i] = 1 + (size_t)(cuzk_test_rand64() % 3);
        if (submit(s->e, &s->ids[i], s->n[i], (cuzk_priority)(cuzk_test_rand64() % 4), NULL, -1) !=
            CUZK_OK)
            s->ids[i] = 0;
    }
    return NULL;
}

static void test_concurrent(void) {
    cuzk_engine *e = engine(2, 8, 0);
    submitter s[2];
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        s[t].e = e;
        CHECK(pthread_create(&th[t], NULL, submit_main, &s[t]) == 0);
    }
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 6; i++) {
            CHECK(s[t].ids[i] != 0);
            if (s[t].ids[i] != 0) collect_and_verify(e, s[t].ids[i], s[t].n[i]);
        }
    cuzk_engine_destroy(e);
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
    RUN(test_order);
    RUN(test_request_id_cancel_backpressure);
    RUN(test_failing_partition);
    RUN(test_concurrent);
    cuzk_vk_free(vk);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
    return cuzk_test_finish();
}
