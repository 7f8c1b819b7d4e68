/*
 * worker.c — the engine's workers. Worker w serves lane slot w % n_slots
 * (a GPU listed, or a CPU lane): it takes the next partition (a retry
 * first, then the queue's head), loads its witness and announces it to the
 * lane (a GPU copies it to the device beside the kernels running there),
 * proves it (the backend holds the device only for the kernels), finishes
 * and self-checks it. Several workers per slot keep a device's kernels
 * back to back: while one computes, another loads, uploads, finishes and
 * verifies.
 *
 * A device fault (CUZK_ERR_GPU) retires the lane, whatever becomes of the
 * partition: the slots sharing it take nothing until their partitions in
 * flight end, then the key's lane is reset (backend closed, key released)
 * and prepared again by the next proof. The partition goes back
 * (max_retries times), to another lane of its key when it has one. A GPU
 * lane whose device memory ran out (CUZK_ERR_DEVICE_NOMEM) is retired the
 * same way but steps down: the next proof prepares it one memory plan lower
 * (down to the CPU), and the partition goes back as often as its lanes can
 * step down. Any other failure fails the job.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"

/* The entry slot s may take: a retry not meant to avoid this lane, else the
 * queue's head. 0 when there is none (or s is retiring, or paused). */
static int take(cuzk_engine *e, size_t s, entry *out) {
    if (e->paused || e->slots[s].retiring) return 0;
    for (size_t i = 0; i < e->retry_n; i++) {
        const entry *r = &e->retry[i];
        const size_t lanes = r->j->n_lanes;
        if (lanes > 1 && s % lanes == r->avoid) continue;
        *out = *r;
        memmove(&e->retry[i], &e->retry[i + 1], (e->retry_n - i - 1) * sizeof(*r));
        e->retry_n--;
        return 1;
    }
    if (e->heap_n == 0) return 0;
    *out = cuzk__queue_take(e, cuzk__engine_now(e));
    return 1;
}

static int slot_on_lane(size_t s, const reset_req *r) {
    return s % r->key->n_lanes == r->lane;
}

/* Retires lane `lane` of key: its slots take nothing until it is reset
 * (step: reset a memory plan lower). */
static void retire(cuzk_engine *e, cuzk_key *key, size_t lane, int step) {
    for (size_t i = 0; i < e->n_resets; i++)
        if (e->resets[i].key == key && e->resets[i].lane == lane) {
            if (!e->resets[i].running) e->resets[i].step |= step;
            return; /* already */
        }
    if (e->n_resets == e->n_workers) return; /* cannot happen: one per fault in flight */
    atomic_fetch_add(&key->refs, 1);
    reset_req *r = &e->resets[e->n_resets++];
    *r = (reset_req){key, lane, 0, step};
    for (size_t s = 0; s < e->n_slots; s++)
        if (slot_on_lane(s, r)) e->slots[s].retiring++;
}

/* Runs the resets whose slots are idle (the lock is dropped meanwhile; the
 * slots stay retired until each is done). */
static void run_resets(cuzk_engine *e) {
    for (size_t i = 0; i < e->n_resets; i++) {
        reset_req *r = &e->resets[i];
        if (r->running) continue;
        int idle = 1;
        for (size_t s = 0; s < e->n_slots && idle; s++)
            if (slot_on_lane(s, r) && e->slots[s].busy != 0) idle = 0;
        if (!idle) continue;
        r->running = 1;
        cuzk_key *key = r->key;
        const size_t lane = r->lane;
        const int step = r->step;
        pthread_mutex_unlock(&e->mu);
        const char *to = NULL;
        if (step && (to = cuzk__lane_step_down(&key->lanes[lane])) != NULL) {
            /* the floor: the plan itself comes with the next preparation's log */
            if (strcmp(to, "the CPU") == 0)
                cuzk__api_log(e->ctx, "engine: lane %zu of a key ran out of device memory: it "
                                      "proves on the CPU from now on",
                              lane);
            else
                cuzk__api_log(e->ctx, "engine: lane %zu of a key ran out of device memory: it "
                                      "proves with no plan above %s from now on",
                              lane, to);
        } else {
            cuzk__api_log(e->ctx, "engine: lane %zu of a key reset after a device fault", lane);
            cuzk__lane_reset(&key->lanes[lane]);
        }
        pthread_mutex_lock(&e->mu);
        cuzk__cache_unprepared(e, key);
        if (to != NULL) e->stats.lane_step_downs++;
        for (size_t k = 0; k < e->n_resets; k++) /* the array may have moved on */
            if (e->resets[k].key == key && e->resets[k].lane == lane && e->resets[k].running) {
                for (size_t s = 0; s < e->n_slots; s++)
                    if (slot_on_lane(s, &e->resets[k])) e->slots[s].retiring--;
                e->resets[k] = e->resets[--e->n_resets];
                break;
            }
        e->stats.lane_resets++;
        pthread_cond_broadcast(&e->work);
        pthread_mutex_unlock(&e->mu); /* the last reference may free the key */
        cuzk__key_unref(key);
        pthread_mutex_lock(&e->mu);
        i = (size_t)-1; /* the list changed: from the start */
    }
}

static void event(cuzk_engine *e, const job *j, size_t part, uint32_t worker, int device,
                  cuzk_stage stage, double start, double end) {
    if (end <= start && stage != CUZK_STAGE_QUEUED) return;
    const cuzk_timeline_event ev = {j->id, (uint32_t)part, worker, device, stage, start, end};
    cuzk__timeline_add(e->timeline, &ev);
    cuzk__engine_count_stage(e, stage, end - start);
}

/* The kernels of one proof from its stage times, end to end from the
 * moment it held the device (the backend reports sums per stage). */
static void kernel_events(cuzk_engine *e, const job *j, size_t part, uint32_t w, int dev,
                          double t, const cuzk_proof_times *tm) {
    const struct {
        cuzk_stage stage;
        double ms;
    } k[] = {{CUZK_STAGE_SPMV, tm->abc_ms - tm->cpu_abc_ms + tm->check_ms},
             {CUZK_STAGE_NTT, tm->ntt_ms},
             {CUZK_STAGE_MSM_H, tm->msm_h_ms},             {CUZK_STAGE_PREP, tm->prep_ms},
             {CUZK_STAGE_BATCH_ADD, tm->batch_add_ms},     {CUZK_STAGE_TAIL_MSM, tm->tail_msm_ms},
             {CUZK_STAGE_B_G2_MSM, tm->b_g2_msm_ms}};
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
        event(e, j, part, w, dev, k[i].stage, t, t + k[i].ms);
        t += k[i].ms;
    }
}

static int job_live(cuzk_engine *e, const job *j) {
    pthread_mutex_lock(&e->mu);
    const int live = !cuzk__job_ended(j);
    pthread_mutex_unlock(&e->mu);
    return live;
}

/* One partition on slot s, outside the lock: CUZK_OK with the proof, its
 * public inputs and times; CUZK_ERR_CANCELLED when its job ended meanwhile
 * (checked between the stages). */
static cuzk_status prove_one(cuzk_engine *e, size_t s, uint32_t w, job *j, size_t part,
                             cuzk_key *key, cuzk_proof *proof, uint8_t *pub, cuzk_proof_times *t,
                             cuzk_error *err) {
    cuzk__lane *L = &key->lanes[s % key->n_lanes];
    const double t_load = cuzk__engine_now(e);
    cuzk_witness wit;
    cuzk_status st = cuzk__witness_load(key, &wit, &j->in[part], err);
    if (st != CUZK_OK) return st;
    if (e->loaded_hook != NULL) e->loaded_hook(e->loaded_hook_user);
    if ((st = cuzk__lane_prepare(L, err)) != CUZK_OK) {
        cuzk_witness_close(&wit);
        return st;
    }
    const int dev = L->device;
    int announced = 0;
    if ((st = cuzk_backend_stage(&L->be, L->bkey, &wit, err)) == CUZK_OK) announced = 1;
    const double t_start = cuzk__engine_now(e);
    event(e, j, part, w, dev, CUZK_STAGE_LOAD, t_load, t_start);
    if (st != CUZK_OK || !job_live(e, j)) {
        if (announced) cuzk_backend_withdraw(&L->be, L->bkey, &wit); /* before it closes */
        cuzk_witness_close(&wit);
        return st != CUZK_OK ? st : cuzk__fail(err, CUZK_ERR_CANCELLED, "job cancelled");
    }
    cuzk_pending_proof *p = NULL;
    st = cuzk__prove_start_loaded(key, s, &p, &wit, err); /* takes the witness */
    if (st != CUZK_OK) {
        cuzk_backend_withdraw(&L->be, L->bkey, &wit); /* its announcement, if left */
        cuzk_witness_close(&wit);
        return st;
    }
    const double t_fin = cuzk__engine_now(e);
    if (job_live(e, j))
        st = cuzk_prove_finish(p, proof, pub, t, err);
    else
        st = cuzk__fail(err, CUZK_ERR_CANCELLED, "job cancelled");
    cuzk_pending_proof_release(p);
    if (st != CUZK_OK) return st;
    /* a, b, c made on the CPU come before the lock: the witness's load, not kernels */
    const double t_cpu = t_start + t->cpu_abc_ms;
    if (t->cpu_abc_ms > 0) event(e, j, part, w, dev, CUZK_STAGE_LOAD, t_start, t_cpu);
    event(e, j, part, w, dev, CUZK_STAGE_LOCK_WAIT, t_cpu, t_cpu + t->lock_wait_ms);
    kernel_events(e, j, part, w, dev, t_cpu + t->lock_wait_ms, t);
    event(e, j, part, w, dev, CUZK_STAGE_FINISH, t_fin, t_fin + t->finish_ms);
    event(e, j, part, w, dev, CUZK_STAGE_VERIFY, t_fin + t->finish_ms,
          t_fin + t->finish_ms + t->self_check_ms);
    return CUZK_OK;
}

/* What a partition's outcome does to its job (the lock held); 1 when the
 * partition goes back for a retry. */
static int settle(cuzk_engine *e, size_t s, entry en, cuzk_key *key, cuzk_status st,
                   const cuzk_proof *proof, const uint8_t *pub, const cuzk_proof_times *t,
                   const cuzk_error *perr) {
    job *j = en.j;
    const size_t np = (size_t)j->n_public;
    /* A lane that faulted, or whose device memory ran out where it can step
     * down, is reset whatever becomes of the partition: failed, retried or
     * its job already ended. */
    const size_t lane = key != NULL ? s % key->n_lanes : 0;
    const int fault = st == CUZK_ERR_GPU && key != NULL;
    const int step = st == CUZK_ERR_DEVICE_NOMEM && key != NULL &&
                     cuzk__lane_can_step_down(&key->lanes[lane]);
    if (st == CUZK_ERR_GPU) e->stats.faults++;
    if (fault || step) retire(e, key, lane, step);
    if (cuzk__job_ended(j)) {
        cuzk__job_drop_inputs(e, j); /* this partition's, or all once none runs */
        if (j->running == 0) {
            e->settled++;
            pthread_cond_broadcast(&e->changed); /* a cancelled job is quiet now */
        }
        return 0;
    }
    if (st == CUZK_OK) {
        j->proofs[en.part] = *proof;
        memcpy(j->pub + en.part * np * 32, pub, np * 32);
        j->times[en.part] = *t;
        e->stats.proofs++;
        if (e->ctx->opt.self_check) e->stats.verified++;
        if (++j->done == j->n) cuzk__job_end(e, j, CUZK_JOB_DONE);
        return 0;
    }
    /* The partition goes back after a device fault (at most max_retries
     * times) or when its lane can step down a plan (bounded: each step
     * lowers the lane's floor for good). The retry list holds one partition
     * a worker; a lane that keeps faulting while the others are busy fails
     * its partitions instead. */
    if ((step || (fault && en.attempt < e->opt.max_retries)) && e->retry_n < e->n_workers) {
        en.avoid = lane;
        en.attempt += fault;
        en.requeued = 1;
        e->retry[e->retry_n++] = en; /* room: one per partition in flight */
        j->queued++;
        e->stats.retries++;
        pthread_cond_broadcast(&e->work);
        return 1;
    }
    const char *name = j->in[en.part].path ? j->in[en.part].path : "the witness in memory";
    cuzk__fail(&j->err, st, "partition %zu (%s): %s", en.part, name, cuzk__error_text(perr));
    e->stats.failed_partitions++;
    cuzk__job_end(e, j, CUZK_JOB_FAILED);
    return 0;
}

void *cuzk__worker_main(void *arg) {
    cuzk_engine *e = ((cuzk__worker_arg *)arg)->e;
    const size_t w = ((cuzk__worker_arg *)arg)->index;
    const size_t s = w % e->n_slots;
    free(arg);
    pthread_mutex_lock(&e->mu);
    for (;;) {
        entry en;
        while (!e->stop && !take(e, s, &en)) pthread_cond_wait(&e->work, &e->mu);
        if (e->stop) break;
        job *j = en.j;
        j->queued--;
        j->running++;
        j->proving[en.part] = 1;
        if (j->state == CUZK_JOB_QUEUED) j->state = CUZK_JOB_RUNNING;
        e->slots[s].busy++;
        /* the loaded witness, in flight until the proof has started */
        const uint64_t wbytes = j->n_vars * 32;
        e->host_used += wbytes;
        const size_t np = (size_t)j->n_public;
        if (!en.requeued)
            event(e, j, en.part, UINT32_MAX, -1, CUZK_STAGE_QUEUED, j->submit_ms,
                  cuzk__engine_now(e));
        pthread_cond_broadcast(&e->changed); /* room in the queue */
        cuzk_error perr;
        cuzk__error_clear(&perr);
        cuzk_key *key = NULL; /* a named key may open here (the lock dropped meanwhile) */
        cuzk_status st = cuzk__cache_acquire(e, j, &key, &perr);
        pthread_mutex_unlock(&e->mu);

        cuzk_proof proof;
        cuzk_proof_times t;
        memset(&t, 0, sizeof(t));
        uint8_t *pub = malloc(np * 32 + 1);
        if (st == CUZK_OK)
            st = pub == NULL
                     ? cuzk__fail(&perr, CUZK_ERR_NOMEM, "no memory")
                     : prove_one(e, s, (uint32_t)w, j, en.part, key, &proof, pub, &t, &perr);

        pthread_mutex_lock(&e->mu);
        e->host_used -= wbytes;
        e->slots[s].busy--;
        j->running--;
        j->proving[en.part] = 0;
        if (key != NULL) cuzk__cache_release(e, j, st == CUZK_OK);
        const uint64_t job_id = j->id;
        const int retried = settle(e, s, en, key, st, &proof, pub, &t, &perr);
        free(pub);
        /* outside the lock: the last reference may free a key, and a log
         * callback may call the engine */
        pthread_mutex_unlock(&e->mu);
        if (retried)
            cuzk__api_log(e->ctx, "engine: job %llu partition %zu: %s; retried",
                          (unsigned long long)job_id, en.part, cuzk__error_text(&perr));
        cuzk__key_unref(key);
        pthread_mutex_lock(&e->mu);
        if (e->n_resets != 0) run_resets(e);
        pthread_cond_broadcast(&e->changed); /* the budget has room again */
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
