/*
 * test_step_down.c — a GPU lane stepping down the memory plans when its
 * device memory runs out (src/api/key.c cuzk__lane_prepare and
 * cuzk__lane_step_down, src/engine/worker.c), without a GPU: the keys'
 * GPU backend is a stand-in (cuzk__context_create_standin), the CPU backend
 * with a plan that follows the lane's floor and a preparation that runs
 * out of memory above the most resident mode its pretend card holds.
 * Below streaming the lane proves on the real CPU backend. test_engine
 * walks the same steps on a card. Host memory running out is no reason to
 * step down (CUZK_ERR_NOMEM, not CUZK_ERR_DEVICE_NOMEM).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "gpu/plan.h"
#include "harness.h"

static char zkey[1100], wtns[1100];
static cuzk_backend_ops standin;
static int fits; /* the most resident rung (cuzk__plan_rung) the pretend card holds */
static int offers; /* the stand-in's keys offer a, b, c made on the CPU */
static unsigned standin_prepares; /* preparations that got past the memory check */
/* the host's memory runs out: 1 in the stand-in's preparation, 2 in its proofs */
static int host_short;
/* the stand-in's plan op runs out of device memory where its preparation would */
static int plan_short;

static cuzk__plan_rung floor_of(const cuzk_backend *be) {
    return be->plan_floor > CUZK__PLAN_RUNG_CPU ? CUZK__PLAN_RUNG_CPU
           : be->plan_floor < 0                 ? CUZK__PLAN_RUNG_RESIDENT
                                                : (cuzk__plan_rung)be->plan_floor;
}

/* The plan believes the most resident rung the floor allows fits. */
static cuzk_status standin_plan(cuzk_backend *be, cuzk__plan *out, const cuzk_circuit *c,
                                const cuzk_params *p, const cuzk_zkey *zk, cuzk_error *err) {
    (void)c;
    (void)p;
    (void)zk;
    if (plan_short && (int)floor_of(be) < fits)
        return cuzk__fail(err, CUZK_ERR_DEVICE_NOMEM, "stand-in GPU %d: no room to plan",
                          be->device);
    static const cuzk__plan_mode mode_of[] = {CUZK__PLAN_RESIDENT,       CUZK__PLAN_PARTLY_RESIDENT,
                                              CUZK__PLAN_STREAMING,      CUZK__PLAN_PARTLY_RESIDENT,
                                              CUZK__PLAN_STREAMING,      CUZK__PLAN_CPU};
    memset(out, 0, sizeof(*out));
    const cuzk__plan_rung r = floor_of(be);
    out->mode = mode_of[r];
    out->abc_on_cpu = r == CUZK__PLAN_RUNG_CPU_ABC || r == CUZK__PLAN_RUNG_CPU_ABC_STREAMING;
    out->abc_offered = offers;
    snprintf(out->reason, sizeof(out->reason), "%s: the stand-in's plan (floor %d)",
             cuzk__plan_rung_name(r), be->plan_floor);
    return CUZK_OK;
}

static cuzk_status standin_prepare_zkey(cuzk_backend *be, cuzk_backend_key **out,
                                        const cuzk_zkey *zk, cuzk_error *err) {
    if (host_short == 1)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "stand-in GPU %d: no host memory for a, b, c",
                          be->device);
    if ((int)floor_of(be) < fits)
        return cuzk__fail(err, CUZK_ERR_DEVICE_NOMEM, "stand-in GPU %d: out of device memory %s",
                          be->device, cuzk__plan_rung_name(floor_of(be)));
    standin_prepares++;
    return cuzk_backend_cpu.prepare_zkey(be, out, zk, err);
}

static cuzk_status standin_prove_start(cuzk_backend *be, cuzk_backend_job **out,
                                       cuzk_backend_key *key, const cuzk_witness *w,
                                       cuzk_error *err) {
    if (host_short == 2)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "stand-in GPU %d: no host memory for a witness",
                          be->device);
    return cuzk_backend_cpu.prove_start(be, out, key, w, err);
}

/* The log lines of the context. */
static pthread_mutex_t book_mu = PTHREAD_MUTEX_INITIALIZER;
static char book[32768];

static void book_line(void *user, const char *line) {
    (void)user;
    pthread_mutex_lock(&book_mu);
    const size_t used = strlen(book);
    snprintf(book + used, sizeof(book) - used, "%s\n", line);
    pthread_mutex_unlock(&book_mu);
}

static int count_in_book(const char *what) {
    pthread_mutex_lock(&book_mu);
    int n = 0;
    for (const char *at = book; (at = strstr(at, what)) != NULL; at++) n++;
    pthread_mutex_unlock(&book_mu);
    return n;
}

static void book_clear(void) {
    pthread_mutex_lock(&book_mu);
    book[0] = '\0';
    pthread_mutex_unlock(&book_mu);
}

/* A GPU context over the stand-in on a pretend card that holds at most
 * rung `holds`, its keys offering a, b, c on the CPU or not (offered), the
 * log cleared, and the sample key opened on it; 0 (both NULL) after a
 * failed check. */
static int standin_key(int holds, int offered, cuzk_context **ctx, cuzk_key **key) {
    fits = holds;
    offers = offered;
    standin_prepares = 0;
    book_clear();
    *ctx = NULL;
    *key = NULL;
    cuzk_options co;
    cuzk_options_init(&co);
    co.backend = CUZK_BACKEND_GPU;
    co.threads = 1;
    co.log = book_line;
    cuzk_error err;
    CHECK(cuzk__context_create_standin(ctx, &co, &standin, &err) == CUZK_OK);
    if (*ctx == NULL) return 0;
    CHECK(cuzk_key_open_zkey(*ctx, key, zkey, &err) == CUZK_OK);
    if (*key != NULL) return 1;
    fprintf(stderr, "  %s\n", err.msg);
    cuzk_context_destroy(*ctx);
    *ctx = NULL;
    return 0;
}

/* A job of n partitions through an engine over ctx with a fault plan; its
 * outcome, err and the engine's counts. */
static cuzk_status run_job(cuzk_context *ctx, cuzk_key *key, size_t n, const char *fault_stage,
                           unsigned nth, cuzk_engine_stats *s, cuzk_error *err) {
    cuzk_engine_options o;
    cuzk_engine_options_init(&o);
    o.workers_per_device = 2;
    o.fault_stage = fault_stage;
    o.fault_nth = nth;
    o.fault_status = CUZK_ERR_DEVICE_NOMEM;
    cuzk_engine *e = NULL;
    cuzk_status st = cuzk_engine_create(&e, ctx, &o, err);
    if (st != CUZK_OK) return st;
    cuzk_witness_input in[6];
    for (size_t i = 0; i < n; i++) in[i] = (cuzk_witness_input){.path = wtns};
    uint64_t id = 0;
    st = cuzk_engine_submit(e, &id, key, in, n, CUZK_PRIORITY_NORMAL, NULL, -1, err);
    cuzk_proof proofs[6];
    uint8_t pub[6 * 64 * 32];
    if (st == CUZK_OK) st = cuzk_engine_await(e, id, -1, proofs, pub, NULL, err);
    if (st == CUZK_OK) {
        cuzk_vk *vk = NULL;
        cuzk_error verr;
        CHECK(cuzk_vk_from_key(&vk, key, &verr) == CUZK_OK);
        const size_t np = vk ? cuzk_vk_n_public(vk) : 0;
        for (size_t i = 0; vk != NULL && i < n && np <= 64; i++)
            CHECK(cuzk_verify(vk, &proofs[i], pub + i * np * 32, np, &verr) == CUZK_OK);
        cuzk_vk_free(vk);
    }
    cuzk_engine_get_stats(e, s);
    cuzk_engine_destroy(e);
    return st;
}

/* A card that holds only streaming, a key without a, b, c on the CPU: the
 * lane's preparation steps down twice within the one call; a proof that
 * runs out of memory then sends the lane to the CPU and the job completes
 * there; the CPU lane has no step left, so the next out of memory fails
 * its job. */
static void test_prepare_then_proof(void) {
    cuzk_context *ctx;
    cuzk_key *key;
    cuzk_error err;
    if (!standin_key(CUZK__PLAN_RUNG_STREAMING, 0, &ctx, &key)) return;
    cuzk_key_info info;
    cuzk_key_get_info(key, &info);
    CHECK(info.backend == CUZK_BACKEND_GPU);
    CHECK(cuzk_key_prepare(key, &err) == CUZK_OK);
    CHECK_EQ_INT(count_in_book("ran out of device memory"), 2);
    CHECK_EQ_INT(count_in_book("(plan: resident) ran out of device memory"), 1);
    CHECK_EQ_INT(count_in_book("prepared again partly resident"), 1);
    CHECK_EQ_INT(count_in_book("prepared again streaming"), 1);
    CHECK_EQ_INT(standin_prepares, 1);

    cuzk_engine_stats s;
    CHECK(run_job(ctx, key, 6, "ntt", 2, &s, &err) == CUZK_OK);
    CHECK(s.lane_step_downs == 1 && s.retries == 1 && s.faults == 0);
    CHECK(s.proofs == 6 && s.verified == 6 && s.failed_partitions == 0);
    CHECK_EQ_INT(count_in_book("it proves on the CPU from now on"), 1);
    CHECK_EQ_INT(standin_prepares, 1); /* the CPU backend, not the stand-in, since */

    const cuzk_status st = run_job(ctx, key, 3, "msm_h", 1, &s, &err);
    CHECK(st == CUZK_ERR_DEVICE_NOMEM);
    CHECK(strstr(err.msg, "out of device memory (injected") != NULL);
    CHECK(s.lane_step_downs == 0 && s.retries == 0 && s.failed_partitions == 1);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
}

/* A card that holds nothing: the preparation walks every rung down to the
 * CPU, and the key proves there; a key with room from the start never
 * steps, and one step at a time takes it down through each rung: those
 * with a, b, c on the CPU where the key offers them, else from streaming
 * to the CPU. */
static void test_walks(void) {
    static const int full[] = {CUZK__PLAN_RUNG_RESIDENT,  CUZK__PLAN_RUNG_PARTLY,
                               CUZK__PLAN_RUNG_STREAMING, CUZK__PLAN_RUNG_CPU_ABC,
                               CUZK__PLAN_RUNG_CPU_ABC_STREAMING, CUZK__PLAN_RUNG_CPU};
    static const int bare[] = {CUZK__PLAN_RUNG_RESIDENT, CUZK__PLAN_RUNG_PARTLY,
                               CUZK__PLAN_RUNG_STREAMING, CUZK__PLAN_RUNG_CPU};
    for (int offered = 0; offered < 2; offered++) {
        const int *ladder = offered ? full : bare;
        const int n = offered ? 6 : 4;
        for (int i = 0; i <= n; i++) { /* i = n: a card that holds not even the CPU's rung */
            const int holds = i < n ? ladder[i] : CUZK__PLAN_RUNG_CPU + 1;
            cuzk_context *ctx;
            cuzk_key *key;
            cuzk_error err;
            if (!standin_key(holds, offered, &ctx, &key)) return;
            CHECK(cuzk_key_prepare(key, &err) == CUZK_OK);
            const int steps = i < n ? i : n - 1;
            CHECK_EQ_INT(count_in_book("ran out of device memory"), steps);
            CHECK_EQ_INT(standin_prepares, holds < CUZK__PLAN_RUNG_CPU ? 1 : 0);
            CHECK_EQ_INT(count_in_book("prepared again on the CPU"), holds >= CUZK__PLAN_RUNG_CPU);
            CHECK_EQ_INT(count_in_book("prepared again partly resident with a, b, c on the CPU"),
                         offered && steps >= 3);
            CHECK_EQ_INT(count_in_book("prepared again streaming with a, b, c on the CPU"),
                         offered && steps >= 4);
            if (!offered) CHECK_EQ_INT(count_in_book("with a, b, c"), 0);
            /* then one out of memory a job, down to the CPU and no further */
            for (int at = steps; at < n; at++) {
                cuzk_engine_stats s;
                const cuzk_status st = run_job(ctx, key, 4, "tail_msm", 1, &s, &err);
                if (ladder[at] < CUZK__PLAN_RUNG_CPU) {
                    CHECK(st == CUZK_OK);
                    CHECK(s.lane_step_downs == 1 && s.proofs == 4);
                } else {
                    CHECK(st == CUZK_ERR_DEVICE_NOMEM);
                    CHECK(s.lane_step_downs == 0 && s.failed_partitions == 1);
                }
            }
            cuzk_key_release(key);
            cuzk_context_destroy(ctx);
        }
    }
}

/* The host out of memory, in the preparation or in a proof: the status
 * says so, the lane stays on its plan and the job fails, naming it. */
static void test_host_memory(void) {
    cuzk_context *ctx;
    cuzk_key *key;
    cuzk_error err;
    if (!standin_key(CUZK__PLAN_RUNG_RESIDENT, 1, &ctx, &key)) return;
    host_short = 1;
    CHECK_EQ_INT(cuzk_key_prepare(key, &err), CUZK_ERR_NOMEM);
    CHECK(strstr(err.msg, "no host memory for a, b, c") != NULL);
    CHECK_EQ_INT(count_in_book("ran out of device memory"), 0);
    CHECK_EQ_INT(standin_prepares, 0);
    host_short = 2;
    cuzk_engine_stats s;
    const cuzk_status st = run_job(ctx, key, 3, NULL, 0, &s, &err);
    CHECK_EQ_INT(st, CUZK_ERR_NOMEM);
    CHECK(strstr(err.msg, "no host memory for a witness") != NULL);
    CHECK(s.lane_step_downs == 0 && s.retries == 0 && s.failed_partitions >= 1);
    CHECK_EQ_INT(count_in_book("ran out of device memory"), 0);
    CHECK_EQ_INT(standin_prepares, 1); /* the resident plan, once */
    host_short = 0;
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
}

/* The device out of memory before the plan op answers (its own sizing
 * failed): the lane steps down from its floor, one rung a try, to the rung
 * the card holds. */
static void test_no_plan(void) {
    cuzk_context *ctx;
    cuzk_key *key;
    cuzk_error err;
    if (!standin_key(CUZK__PLAN_RUNG_STREAMING, 0, &ctx, &key)) return;
    plan_short = 1;
    CHECK_EQ_INT(cuzk_key_prepare(key, &err), CUZK_OK);
    CHECK_EQ_INT(count_in_book("(plan: not made) ran out of device memory"), 2);
    CHECK_EQ_INT(count_in_book("prepared again streaming"), 1);
    CHECK_EQ_INT(standin_prepares, 1);
    plan_short = 0;
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *src = getenv("CUZK_SOURCE_DIR");
    snprintf(zkey, sizeof zkey, "%s/examples/sample/circuit.zkey", src ? src : ".");
    snprintf(wtns, sizeof wtns, "%s/examples/sample/witness.wtns", src ? src : ".");
    standin = cuzk_backend_cpu;
    standin.name = "stand-in";
    standin.plan = standin_plan;
    standin.prepare_zkey = standin_prepare_zkey;
    standin.prove_start = standin_prove_start;
    RUN(test_prepare_then_proof);
    RUN(test_walks);
    RUN(test_host_memory);
    RUN(test_no_plan);
    return cuzk_test_finish();
}
