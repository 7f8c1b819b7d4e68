/*
 * partitions.c — N proofs of one key at once (cuzk_prove_partitions).
 *
 * The partitions are dealt to the key's lanes: lane l proves l, l + L, ...
 * with its own backend and prepared key, on a thread of its own when there
 * are several. Before each proof a lane announces its next witness
 * (cuzk_backend_stage), so that a GPU copies it while the current one
 * computes. Each proof's self-check runs on a thread beside the lane's next
 * partition: a verification costs tens of milliseconds on the CPU, as much
 * as a 2^22 partition on a GPU, and in line it would hold the device idle.
 * At most one check per lane is in flight; the lane waits for it before
 * starting the next and before it ends, so no failure is missed. The first
 * failure stops the other lanes at their next partition; the lowest
 * failing partition among those tried speaks for the call.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/clock.h"
#include "groth16/proof192.h"
#include "util/mem.h"

/* What every lane of one call reads; proofs, pub and times are written at
 * disjoint indices. */
typedef struct {
    cuzk_key *key;
    const cuzk_witness_input *in;
    size_t n;
    cuzk_proof *proofs;
    uint8_t *pub_out;
    cuzk_proof_times *times;
    atomic_int stop;
} run_shared;

typedef struct {
    const run_shared *sh;
    size_t index;
    cuzk_groth16_proof proof;
    uint64_t (*pub)[4];
    const char *wname;
    double ms;
    cuzk_error err;
    int failed, running;
    pthread_t thread;
} self_check_job;

typedef struct {
    run_shared *sh;
    cuzk__lane *lane;
    size_t first, stride;
    size_t failed; /* the partition that failed (n: none) */
    int stopped;   /* gave up because another lane failed */
    cuzk_status st;
    cuzk_error err;
    pthread_t thread;
} lane_run;

static const char *input_name(const cuzk_witness_input *in) {
    return in->path != NULL ? in->path : "the witness in memory";
}

static void self_check_run(self_check_job *c) {
    const run_shared *sh = c->sh;
    const double t = cuzk__now_ms();
    cuzk__error_clear(&c->err);
    cuzk_status st = cuzk__self_check(sh->key, &sh->key->vk, &c->proof,
                                      (const uint64_t(*)[4])c->pub, c->wname, NULL, &c->err);
    if (st != CUZK_OK && sh->key->have_r1cs) {
        /* the circuit can tell whose fault it is, from the witness again */
        cuzk_witness w;
        cuzk_error le;
        if (cuzk__witness_load(sh->key, &w, &sh->in[c->index], &le) == CUZK_OK) {
            st = cuzk__self_check(sh->key, &sh->key->vk, &c->proof, (const uint64_t(*)[4])c->pub,
                                  c->wname, &w, &c->err);
            cuzk_witness_close(&w);
        }
    }
    c->failed = st != CUZK_OK;
    c->ms = cuzk__now_ms() - t;
}

static void *self_check_main(void *arg) {
    self_check_run(arg);
    return NULL;
}

/* A finished check: its time, or its failure recorded as the lane's. */
static int self_check_report(self_check_job *c, lane_run *R) {
    if (c->failed) {
        R->failed = c->index;
        R->err = c->err;
        R->st = c->err.status;
        return -1;
    }
    if (R->sh->times != NULL) R->sh->times[c->index].self_check_ms = c->ms;
    cuzk__api_log(R->sh->key->ctx, "partition %zu%s: self-check %.1f ms", c->index,
                  R->lane->where, c->ms);
    return 0;
}

static int self_check_wait(self_check_job *c, lane_run *R) {
    if (!c->running) return 0;
    pthread_join(c->thread, NULL);
    c->running = 0;
    return self_check_report(c, R);
}

static void log_times(const cuzk_key *k, size_t i, const char *wname, const char *where,
                      const cuzk_groth16_stage_times *tm, int staged) {
    cuzk__api_log(k->ctx,
                  "partition %zu (%s)%s: total %.1f ms: spmv %.1f, check %.1f, ntt %.1f, "
                  "msm_h %.1f, prep %.1f, batch_add %.1f, tail_msm %.1f, b_g2_msm %.1f, "
                  "key_wait %.1f, finish %.1f; witness %s",
                  i, wname, where, tm->total_ms, tm->spmv_ms, tm->check_ms, tm->ntt_ms,
                  tm->msm_h_ms, tm->prep_ms, tm->batch_add_ms, tm->tail_msm_ms, tm->b_g2_msm_ms,
                  tm->key_wait_ms, tm->finish_ms, staged ? "pre-staged" : "loaded by the proof");
}

static void lane_prove(lane_run *R) {
    run_shared *sh = R->sh;
    cuzk_key *k = sh->key;
    cuzk__lane *L = R->lane;
    cuzk_error *err = &R->err;
    const size_t n_pub = (size_t)k->n_public;
    cuzk_witness ws[2]; /* the current partition's witness beside the lane's next one */
    int open[2] = {0, 0};
    cuzk_backend_job *job = NULL;
    int staged_any = 0;
    self_check_job chk;
    memset(&chk, 0, sizeof(chk));
    chk.sh = sh;
    R->st = CUZK_ERR_NOMEM;
    R->failed = sh->n;
    uint64_t(*pub)[4] = malloc((n_pub ? n_pub : 1) * sizeof(*pub));
    chk.pub = malloc((n_pub ? n_pub : 1) * sizeof(*pub));
    if (pub == NULL || chk.pub == NULL) {
        cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu public inputs", n_pub);
        goto out;
    }
    const double t = cuzk__now_ms();
    if (atomic_load(&sh->stop)) {
        R->stopped = 1;
        goto out;
    }
    if ((R->st = cuzk__lane_prepare(L, err)) != CUZK_OK) goto out;
    cuzk__api_log(k->ctx, "prepare (%s%s) %.1f ms", k->ops->name, L->where, cuzk__now_ms() - t);
    size_t i = R->first;
    if (i < sh->n) {
        R->failed = i;
        if ((R->st = cuzk__witness_load(k, &ws[0], &sh->in[i], err)) != CUZK_OK) goto out;
        open[0] = 1;
        /* announced too, so that announcements follow the proofs' order even
         * when the key's copy worker is still running from an earlier call */
        if ((R->st = cuzk_backend_stage(&L->be, L->bkey, &ws[0], err)) != CUZK_OK) goto out;
        staged_any = 1;
    }
    for (size_t q = 0; i < sh->n; i += R->stride, q++) {
        if (atomic_load(&sh->stop)) {
            R->stopped = 1;
            goto out;
        }
        R->failed = i;
        const size_t cur = q % 2, nxt = (q + 1) % 2;
        const size_t in = i + R->stride;
        const double t0 = cuzk__now_ms();
        /* the lane's next witness is announced before this proof starts */
        if (in < sh->n) {
            if ((R->st = cuzk__witness_load(k, &ws[nxt], &sh->in[in], err)) != CUZK_OK) {
                R->failed = in;
                goto out;
            }
            open[nxt] = 1;
            if ((R->st = cuzk_backend_stage(&L->be, L->bkey, &ws[nxt], err)) != CUZK_OK) {
                R->failed = in;
                goto out;
            }
            staged_any = 1;
        }
        if ((R->st = cuzk_backend_prove_start(&L->be, &job, L->bkey, &ws[cur], err)) != CUZK_OK)
            goto out;
        for (size_t j = 0; j < n_pub; j++) memcpy(pub[j], ws[cur].values + 4 * (j + 1), 32);
        cuzk_witness_close(&ws[cur]);
        open[cur] = 0;
        uint64_t r[4], s[4];
        cuzk_groth16_proof proof;
        if ((R->st = cuzk_groth16_random_scalar(r, err)) != CUZK_OK ||
            (R->st = cuzk_groth16_random_scalar(s, err)) != CUZK_OK)
            goto out;
        R->st = cuzk_backend_prove_finish(&L->be, &proof, job, r, s, err);
        cuzk__wipe(r, sizeof(r));
        cuzk__wipe(s, sizeof(s));
        if (R->st != CUZK_OK) goto out;
        cuzk_proof192_encode(sh->proofs[i].bytes, &proof);
        if (sh->pub_out != NULL)
            for (size_t j = 0; j < n_pub; j++)
                cuzk__scalar_to_bytes(sh->pub_out + 32 * (i * n_pub + j), pub[j]);
        const cuzk_groth16_stage_times *tm = cuzk_backend_job_times(job);
        if (sh->times != NULL) {
            cuzk__times_from_stage(&sh->times[i], tm, job->witness_staged);
            sh->times[i].total_ms = cuzk__now_ms() - t0;
        }
        log_times(k, i, input_name(&sh->in[i]), L->where, tm, job->witness_staged);
        cuzk_backend_release_job(&L->be, job);
        job = NULL;
        if (k->ctx->opt.self_check) { /* the previous check first, then this one */
            if (self_check_wait(&chk, R) != 0) goto out;
            chk.index = i;
            chk.proof = proof;
            chk.wname = input_name(&sh->in[i]);
            memcpy(chk.pub, pub, n_pub * sizeof(*pub));
            if (pthread_create(&chk.thread, NULL, self_check_main, &chk) == 0) {
                chk.running = 1;
            } else { /* no thread: check in line */
                self_check_run(&chk);
                if (self_check_report(&chk, R) != 0) goto out;
            }
        }
    }
    if (self_check_wait(&chk, R) != 0) goto out;
    R->failed = sh->n;
    R->st = CUZK_OK;
out:
    /* A check still in flight is for an earlier partition than anything that
     * failed or stopped the lane since, so its failure is the lane's. */
    if (self_check_wait(&chk, R) != 0) R->stopped = 0;
    if (R->st != CUZK_OK && !R->stopped) atomic_store(&sh->stop, 1);
    if (job != NULL) cuzk_backend_release_job(&L->be, job);
    /* the key lives on: withdraw announcements before their witnesses close */
    if (staged_any)
        for (int b = 0; b < 2; b++)
            if (open[b]) cuzk_backend_withdraw(&L->be, L->bkey, &ws[b]);
    for (int b = 0; b < 2; b++)
        if (open[b]) cuzk_witness_close(&ws[b]);
    free(pub);
    free(chk.pub);
}

static void *lane_main(void *arg) {
    lane_prove(arg);
    return NULL;
}

cuzk_status cuzk_prove_partitions(cuzk_key *key, cuzk_proof *proofs, uint8_t *public_inputs,
                                  cuzk_proof_times *times, size_t *failed,
                                  const cuzk_witness_input *witnesses, size_t n,
                                  cuzk_error *err) {
    cuzk__error_clear(err);
    if (failed != NULL) *failed = n;
    if (key == NULL || proofs == NULL || witnesses == NULL || n == 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "prove_partitions: NULL argument or no partition");
    if (n > SIZE_MAX / sizeof(cuzk_proof_times) ||
        (key->n_public != 0 && n > SIZE_MAX / 32 / key->n_public))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "prove_partitions: %zu partitions: too many",
                          n);
    run_shared sh;
    memset(&sh, 0, sizeof(sh));
    sh.key = key;
    sh.in = witnesses;
    sh.n = n;
    sh.proofs = proofs;
    sh.pub_out = public_inputs;
    sh.times = times;
    atomic_init(&sh.stop, 0);
    if (times != NULL) memset(times, 0, n * sizeof(*times));
    const size_t n_lanes = key->n_lanes < n ? key->n_lanes : n; /* a lane with nothing idles */
    lane_run *runs = calloc(n_lanes, sizeof(*runs));
    if (runs == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu lanes", n_lanes);
    cuzk__api_log(key->ctx, "%s: %zu partition%s in %zu lane%s (%s)",
                  key->circuit_path != NULL ? key->circuit_path : key->path, n,
                  n == 1 ? "" : "s", n_lanes, n_lanes == 1 ? "" : "s", key->ops->name);
    for (size_t l = 0; l < n_lanes; l++) {
        runs[l].sh = &sh;
        runs[l].lane = &key->lanes[l];
        runs[l].first = l;
        runs[l].stride = n_lanes;
        cuzk__error_clear(&runs[l].err);
    }
    cuzk_status st = CUZK_OK;
    size_t started = 0;
    if (n_lanes == 1) {
        lane_prove(&runs[0]);
        started = 1;
    } else {
        for (; started < n_lanes; started++)
            if (pthread_create(&runs[started].thread, NULL, lane_main, &runs[started]) != 0) {
                atomic_store(&sh.stop, 1);
                st = cuzk__fail(err, CUZK_ERR_NOMEM, "cannot start the thread of lane %zu",
                                started);
                break;
            }
        for (size_t l = 0; l < started; l++) pthread_join(runs[l].thread, NULL);
    }
    if (st == CUZK_OK) {
        const lane_run *bad = NULL;
        for (size_t l = 0; l < n_lanes; l++)
            if (runs[l].st != CUZK_OK && !runs[l].stopped &&
                (bad == NULL || runs[l].failed < bad->failed))
                bad = &runs[l];
        if (bad != NULL) {
            const cuzk_error e = bad->err;
            const cuzk_status bs = e.status != CUZK_OK ? e.status : bad->st;
            if (failed != NULL) *failed = bad->failed;
            if (bad->failed < n)
                st = cuzk__fail(err, bs, "partition %zu (%s)%s: %s", bad->failed,
                                input_name(&witnesses[bad->failed]), bad->lane->where,
                                cuzk__error_text(&e));
            else if (bad->lane->where[0] != '\0')
                st = cuzk__fail(err, bs, "GPU %d: %s", bad->lane->device, cuzk__error_text(&e));
            else
                st = cuzk__fail(err, bs, "%s", cuzk__error_text(&e));
        } else {
            for (size_t l = 0; l < n_lanes && st == CUZK_OK; l++)
                if (runs[l].st != CUZK_OK) /* stopped with no lane failing: cannot happen */
                    st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                    "internal: lane %zu stopped without a failure", l);
        }
    }
    free(runs);
    return st;
}
