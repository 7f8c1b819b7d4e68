/*
 * daemon_work.c — the daemon's work side (daemon.h): partitions claimed
 * from the job store, proved by the engine one job each, their results
 * recorded.
 *
 * Threads. The claimer claims while the daemon holds fewer partitions
 * than twice its engine's workers (so each worker has one proving and one
 * waiting, and no more is taken from other daemons than can start soon),
 * then waits for a wake-up (a submission here, a partition settled, a
 * notification, a key added) or poll_ms. A partition whose witness is an
 * uploaded payload goes to the fetchers (daemon_fetch.c), which copy it
 * into the scratch folder and then put it in the engine; while they copy,
 * it does not count against those workers (up to [cluster] fetchers
 * more are held), so a copy of gigabytes never keeps the claimer from
 * feeding the engine. The finisher follows the engine
 * (cuzk_engine_wait_settled) and records each settled partition: its proof
 * (complete), its failure (fail), or nothing when it was dropped. On a
 * shared store the heartbeat renews the leases every heartbeat_ms, stops
 * partitions whose lease was lost or whose job ended, and reaps; the
 * listener turns notifications into wake-ups.
 *
 * A result the store cannot take (the database restarting) stays held,
 * with its proof, and is offered again with backoff while the lease is
 * renewed: complete by the same lease is idempotent. Everything the
 * threads share is in the daemon under d->mu; store and engine calls are
 * made without it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/daemon_impl.h"
#include "util/clock.h"
#include "util/error.h"

#define FINISHER_TICK_MS 100
#define EXPIRE_EVERY_MS 60000
#define RETRY_FIRST_MS 200
#define RETRY_MAX_MS 5000
#define LISTEN_TICK_MS 500
#define DRAIN_PENDING_MS 30000 /* a drain waits this long for results the store refuses */

/* ---- held partitions (d->mu held) ------------------------------------------------ */

static cuzk__held *held_find(cuzk__daemon *d, uint64_t engine_id) {
    for (size_t i = 0; engine_id != 0 && i < d->n_held; i++)
        if (d->held[i].engine_id == engine_id) return &d->held[i];
    return NULL;
}

cuzk__held *cuzk__daemon_held_seq(cuzk__daemon *d, uint64_t seq) {
    for (size_t i = 0; i < d->n_held; i++)
        if (d->held[i].seq == seq) return &d->held[i];
    return NULL;
}

void cuzk__daemon_held_remove(cuzk__daemon *d, cuzk__held *h) {
    if (h->fetch_bytes != 0) { /* room for another copy */
        d->fetch_bytes -= h->fetch_bytes;
        pthread_cond_broadcast(&d->fetch);
    }
    free(h->pub);
    *h = d->held[--d->n_held];
}

static void held_remove(cuzk__daemon *d, cuzk__held *h) { cuzk__daemon_held_remove(d, h); }

/* A new entry, zeroed, with its seq (NULL: no memory). */
static cuzk__held *held_add(cuzk__daemon *d) {
    if (d->n_held == d->cap_held) {
        const size_t cap = d->cap_held ? 2 * d->cap_held : 16;
        cuzk__held *v = realloc(d->held, cap * sizeof(*v));
        if (v == NULL) return NULL;
        d->held = v;
        d->cap_held = cap;
    }
    cuzk__held *h = &d->held[d->n_held++];
    memset(h, 0, sizeof(*h));
    h->seq = ++d->next_seq;
    return h;
}

static void cost_sample(cuzk__daemon *d, double ms) {
    d->cost[d->n_cost++ % CUZK__DAEMON_COST_RING] = ms;
}

static size_t target(cuzk__daemon *d) {
    cuzk_engine_stats s;
    cuzk_engine_get_stats(d->engine, &s);
    return s.workers ? 2 * s.workers : 2;
}

/* How many more partitions to claim now (d->mu held): the engine's side
 * (those not being copied) up to goal, and no more than [cluster] fetchers
 * held beyond it while copies are made. */
static size_t want_more(cuzk__daemon *d, size_t goal) {
    size_t copying = 0;
    for (size_t i = 0; i < d->n_held; i++) copying += d->held[i].fetching;
    const size_t engine_side = d->n_held - copying;
    const size_t cap = goal + d->cfg.fetchers;
    size_t want = engine_side < goal ? goal - engine_side : 0;
    if (d->n_held + want > cap) want = d->n_held < cap ? cap - d->n_held : 0;
    return want;
}

/* ---- the claimer ---------------------------------------------------------------- */

static void engine_cancel(cuzk__daemon *d, uint64_t engine_id) {
    cuzk_error err;
    const cuzk_status st = cuzk_engine_cancel(d->engine, engine_id, &err);
    if (st != CUZK_OK && st != CUZK_ERR_NOT_FOUND)
        cuzk__daemon_logf(d, "cancelling a partition in the engine: %s", cuzk_error_text(&err));
}

void cuzk__daemon_give_back(cuzk__daemon *d, cuzk__jobstore_part *p, const char *why) {
    cuzk__jobstore_outcome o;
    cuzk_error err;
    cuzk__jobstore_done_with(d->js, p);
    if (cuzk__jobstore_release(d->js, &p->ref, &o, &err) != CUZK_OK)
        cuzk__daemon_logf(d, "job %llu partition %u: giving it back: %s",
                          (unsigned long long)p->ref.job_id, p->ref.index, cuzk_error_text(&err));
    cuzk__daemon_logf(d, "job %llu partition %u given back: %s", (unsigned long long)p->ref.job_id,
                      p->ref.index, why);
    pthread_mutex_lock(&d->mu);
    d->stats.released++;
    pthread_mutex_unlock(&d->mu);
}

/* A dropped partition's claim, let go without a result: its copy removed
 * and the claim released (nothing to tell: the store answers ENDED or
 * FENCED, or on SQLite takes it out of the claims). */
void cuzk__daemon_forget_claim(cuzk__daemon *d, cuzk__jobstore_part *p) {
    cuzk__jobstore_outcome o;
    cuzk_error err;
    cuzk__jobstore_done_with(d->js, p);
    if (cuzk__jobstore_release(d->js, &p->ref, &o, &err) != CUZK_OK) {
        /* the store is away: the lease lapses, or the heartbeat drops it */
    }
}

/* "partition 0 (...)" of the engine's one-partition job is the job's partition index. */
static void partition_message(char *out, size_t cap, uint32_t index, const char *msg) {
    static const char p0[] = "partition 0 ";
    if (strncmp(msg, p0, sizeof(p0) - 1) == 0)
        snprintf(out, cap, "partition %u %s", index, msg + sizeof(p0) - 1);
    else
        snprintf(out, cap, "partition %u: %s", index, msg);
}

/* The partition could not be proved: its job fails (recorded under its claim). */
static void fail_partition(cuzk__daemon *d, const cuzk__jobstore_ref *ref, cuzk_status status,
                           const char *msg) {
    char text[CUZK_ERROR_MSG_BYTES];
    partition_message(text, sizeof(text), ref->index, msg);
    cuzk__jobstore_outcome o = CUZK__JS_FENCED;
    cuzk_error err;
    if (cuzk__jobstore_fail(d->js, ref, status, text, &o, &err) != CUZK_OK) {
        cuzk__daemon_logf(d, "job %llu: its failure could not be recorded: %s",
                          (unsigned long long)ref->job_id, cuzk_error_text(&err));
        pthread_mutex_lock(&d->mu);
        d->stats.store_errors++;
        pthread_mutex_unlock(&d->mu);
        return;
    }
    if (o == CUZK__JS_RECORDED) {
        cuzk__daemon_logf(d, "job %llu failed: %s", (unsigned long long)ref->job_id, text);
        pthread_mutex_lock(&d->mu);
        d->stats.failed++;
        pthread_mutex_unlock(&d->mu);
        cuzk__daemon_signal_ended(d);
    }
}

/* A held partition that never reached the engine, let go: forgotten when
 * dropped, given back when a drain gave it back. */
static void let_go(cuzk__daemon *d, cuzk__jobstore_part *p, int dropped) {
    if (dropped)
        cuzk__daemon_forget_claim(d, p);
    else
        cuzk__daemon_give_back(d, p, "the daemon is draining");
}

void cuzk__daemon_work_enqueue(cuzk__daemon *d, uint64_t seq) {
    pthread_mutex_lock(&d->mu);
    cuzk__held *h = cuzk__daemon_held_seq(d, seq);
    if (h == NULL) {
        pthread_mutex_unlock(&d->mu);
        return;
    }
    cuzk__jobstore_part p = h->part;
    int dropped = h->dropped, stopped = h->dropped || h->given_back;
    h->fetching = 0;
    if (stopped) held_remove(d, h);
    pthread_mutex_unlock(&d->mu);
    if (stopped) {
        let_go(d, &p, dropped);
        return;
    }
    const cuzk_witness_input in = {p.path, NULL, 0};
    uint64_t eid = 0;
    cuzk_error err;
    const cuzk_status st = cuzk_engine_submit_named(d->engine, &eid, p.key_name, &in, 1,
                                                    p.priority, NULL, 0, &err);
    /* still this thread's (engine_id 0): found again, maybe stopped meanwhile */
    pthread_mutex_lock(&d->mu);
    h = cuzk__daemon_held_seq(d, seq);
    dropped = h != NULL && h->dropped;
    stopped = h != NULL && (h->dropped || h->given_back);
    if (h != NULL && st == CUZK_OK && !stopped) {
        h->engine_id = eid;
        const size_t r = eid % CUZK__DAEMON_ID_RING;
        d->ids[r].engine_id = eid;
        d->ids[r].job_id = p.ref.job_id;
        d->ids[r].index = p.ref.index;
        pthread_mutex_unlock(&d->mu);
        return;
    }
    if (h != NULL) held_remove(d, h);
    pthread_mutex_unlock(&d->mu);
    if (st == CUZK_OK) engine_cancel(d, eid); /* settles cancelled, unknown to the finisher */
    if (stopped) {
        let_go(d, &p, dropped);
    } else if (st == CUZK_ERR_BUSY) {
        cuzk__daemon_give_back(d, &p, "the engine's queue is full");
    } else {
        cuzk__jobstore_done_with(d->js, &p);
        fail_partition(d, &p.ref, st, cuzk_error_text(&err));
    }
}

/* Holds a claimed partition and brings it to the engine: at once when its
 * witness is a file here, through a fetcher when it is a payload to copy. */
static void take(cuzk__daemon *d, cuzk__jobstore_part *p, double cost_ms) {
    pthread_mutex_lock(&d->mu);
    cuzk__held *h = held_add(d);
    if (h == NULL) {
        pthread_mutex_unlock(&d->mu);
        cuzk__daemon_give_back(d, p, "no memory to hold it");
        return;
    }
    h->part = *p;
    h->cost_ms = cost_ms;
    h->fetching = p->payload != 0;
    const uint64_t seq = h->seq;
    const int fetch = h->fetching;
    d->stats.claimed++;
    if (fetch) pthread_cond_broadcast(&d->fetch);
    pthread_mutex_unlock(&d->mu);
    if (!fetch) cuzk__daemon_work_enqueue(d, seq);
}

/* Claims up to want partitions of keys and takes them; the claim's count. */
static size_t claim_some(cuzk__daemon *d, const char *const *keys, size_t nkeys, size_t want,
                         int *failing) {
    cuzk__jobstore_part *parts = calloc(want, sizeof(*parts));
    if (parts == NULL) return 0;
    size_t n = 0;
    cuzk_error err;
    const double t0 = cuzk__now_ms();
    const cuzk_status st = cuzk__jobstore_claim(d->js, keys, nkeys, want, parts, &n, &err);
    const double dt = cuzk__now_ms() - t0;
    if (st != CUZK_OK) {
        if (!*failing) cuzk__daemon_logf(d, "claiming partitions: %s", cuzk_error_text(&err));
        *failing = 1;
        pthread_mutex_lock(&d->mu);
        d->stats.store_errors++;
        pthread_mutex_unlock(&d->mu);
        free(parts);
        return 0;
    }
    if (*failing) cuzk__daemon_logf(d, "claiming partitions again");
    *failing = 0;
    for (size_t i = 0; i < n; i++) take(d, &parts[i], dt / (double)n);
    free(parts);
    return n;
}

static void *claimer_main(void *arg) {
    cuzk__daemon *d = arg;
    int failing = 0;
    for (;;) {
        pthread_mutex_lock(&d->mu);
        if (d->stop_claimer) {
            pthread_mutex_unlock(&d->mu);
            break;
        }
        const uint64_t seen = d->wake_gen;
        const size_t want = want_more(d, target(d));
        const size_t nkeys = d->n_keys;
        char(*names)[CUZK__CONF_KEY_NAME_MAX + 1] = nkeys ? malloc(nkeys * sizeof(*names)) : NULL;
        const char **keys = nkeys ? malloc(nkeys * sizeof(*keys)) : NULL;
        for (size_t i = 0; names != NULL && keys != NULL && i < nkeys; i++) {
            memcpy(names[i], d->keys[i].name, sizeof(names[i]));
            keys[i] = names[i];
        }
        pthread_mutex_unlock(&d->mu);
        if (want != 0 && names != NULL && keys != NULL) claim_some(d, keys, nkeys, want, &failing);
        free(keys);
        free(names);
        const struct timespec until = cuzk__deadline_in_ms((int)d->cfg.poll_ms);
        pthread_mutex_lock(&d->mu);
        while (!d->stop_claimer && d->wake_gen == seen)
            if (pthread_cond_timedwait(&d->wake, &d->mu, &until) == ETIMEDOUT) break;
        pthread_mutex_unlock(&d->mu);
    }
    return NULL;
}

/* ---- the finisher ------------------------------------------------------------------ */

/* Offers a proved partition's result to the store (h's copy taken by the
 * caller); removes it from the held when the store answered. */
static void record(cuzk__daemon *d, uint64_t eid, const cuzk__held *h) {
    cuzk__jobstore_outcome o = CUZK__JS_FENCED;
    int job_done = 0;
    cuzk_error err;
    const double t0 = cuzk__now_ms();
    const cuzk_status st = cuzk__jobstore_complete(d->js, &h->part.ref, &h->proof, h->pub,
                                                   h->pub_bytes, &o, &job_done, &err);
    const double dt = cuzk__now_ms() - t0;
    const cuzk__jobstore_ref *r = &h->part.ref;
    pthread_mutex_lock(&d->mu);
    cuzk__held *cur = held_find(d, eid);
    if (st != CUZK_OK) {
        d->stats.store_errors++;
        const int first = cur != NULL && cur->tries == 0;
        if (cur != NULL) {
            unsigned wait = RETRY_FIRST_MS << (cur->tries < 5 ? cur->tries : 5);
            if (wait > RETRY_MAX_MS) wait = RETRY_MAX_MS;
            cur->tries++;
            cur->retry_ms = cuzk__store_now_ms() + wait;
        }
        pthread_mutex_unlock(&d->mu);
        if (first)
            cuzk__daemon_logf(d, "job %llu partition %u: its result could not be recorded (kept, "
                              "offered again): %s",
                              (unsigned long long)r->job_id, r->index, cuzk_error_text(&err));
        return;
    }
    if (o == CUZK__JS_RECORDED) d->stats.recorded++;
    if (o == CUZK__JS_FENCED) d->stats.fenced++;
    if (o == CUZK__JS_ENDED) d->stats.ended++;
    cost_sample(d, h->cost_ms + dt);
    cuzk__jobstore_part part = h->part;
    if (cur != NULL) held_remove(d, cur);
    pthread_mutex_unlock(&d->mu);
    cuzk__jobstore_done_with(d->js, &part);
    if (o == CUZK__JS_FENCED)
        cuzk__daemon_logf(d, "job %llu partition %u: proved after its lease (generation %llu) "
                          "passed to another daemon: the result was discarded (fenced)",
                          (unsigned long long)r->job_id, r->index,
                          (unsigned long long)r->generation);
    if (job_done) cuzk__daemon_signal_ended(d);
    cuzk__daemon_wake_claimer(d);
}

/* The engine settled partition eid: collect it and record its end. */
static void settle(cuzk__daemon *d, uint64_t eid, uint64_t n_public) {
    pthread_mutex_lock(&d->mu);
    cuzk__held *cur = held_find(d, eid);
    if (cur == NULL) {
        pthread_mutex_unlock(&d->mu);
        return;
    }
    cuzk__held h = *cur;
    pthread_mutex_unlock(&d->mu);
    const size_t pub_bytes = (size_t)n_public * 32;
    uint8_t *pub = malloc(pub_bytes + 1);
    cuzk_proof proof;
    cuzk_error err;
    cuzk_status st = pub != NULL ? cuzk_engine_await(d->engine, eid, 0, &proof, pub, NULL, &err)
                                 : cuzk__fail(&err, CUZK_ERR_NOMEM, "no memory for a result");
    if (st == CUZK_ERR_TIMEOUT) { /* not settled after all */
        free(pub);
        return;
    }
    const cuzk__jobstore_ref *r = &h.part.ref;
    if (h.dropped || h.given_back || st == CUZK_ERR_CANCELLED) {
        if (st == CUZK_OK)
            cuzk__daemon_logf(d, "job %llu partition %u: proved after it was stopped (%s): "
                              "the result was discarded",
                              (unsigned long long)r->job_id, r->index,
                              h.given_back ? "given back" : "its lease lost or its job ended");
        free(pub);
        pthread_mutex_lock(&d->mu);
        if ((cur = held_find(d, eid)) != NULL) held_remove(d, cur);
        pthread_mutex_unlock(&d->mu);
        /* cancelled without being asked to (the engine stopping): back to
         * the queue; dropped: the claim goes too (its job ended, or the
         * lease is another's: the store answers ENDED or FENCED) */
        if (!h.dropped && !h.given_back)
            cuzk__daemon_give_back(d, &h.part, "the engine cancelled it");
        else if (h.dropped)
            cuzk__daemon_forget_claim(d, &h.part);
        else
            cuzk__jobstore_done_with(d->js, &h.part);
        cuzk__daemon_wake_claimer(d);
        return;
    }
    if (st != CUZK_OK) {
        free(pub);
        pthread_mutex_lock(&d->mu);
        if ((cur = held_find(d, eid)) != NULL) held_remove(d, cur);
        pthread_mutex_unlock(&d->mu);
        cuzk__jobstore_done_with(d->js, &h.part);
        fail_partition(d, r, st, cuzk_error_text(&err));
        cuzk__daemon_wake_claimer(d);
        return;
    }
    pthread_mutex_lock(&d->mu);
    if ((cur = held_find(d, eid)) != NULL) {
        cur->pending = 1;
        cur->proof = proof;
        cur->pub = pub;
        cur->pub_bytes = pub_bytes;
        h = *cur;
    }
    pthread_mutex_unlock(&d->mu);
    if (cur == NULL) {
        free(pub);
        return;
    }
    record(d, eid, &h);
}

/* One look at every held partition: starts seen, ends settled, results
 * offered again. */
static void finisher_pass(cuzk__daemon *d) {
    pthread_mutex_lock(&d->mu);
    const size_t n = d->n_held;
    struct snap {
        uint64_t eid;
        int pending, started;
        int64_t retry_ms;
    } *s = n ? malloc(n * sizeof(*s)) : NULL;
    size_t m = 0; /* those in the engine: the others are not the finisher's yet */
    for (size_t i = 0; s != NULL && i < n; i++)
        if (d->held[i].engine_id != 0)
            s[m++] = (struct snap){d->held[i].engine_id, d->held[i].pending, d->held[i].started,
                                   d->held[i].retry_ms};
    pthread_mutex_unlock(&d->mu);
    if (s == NULL) return;
    const int64_t now = cuzk__store_now_ms();
    for (size_t i = 0; i < m; i++) {
        if (s[i].pending) {
            if (now < s[i].retry_ms) continue;
            pthread_mutex_lock(&d->mu);
            cuzk__held *cur = held_find(d, s[i].eid);
            cuzk__held h;
            if (cur != NULL) h = *cur;
            pthread_mutex_unlock(&d->mu);
            if (cur != NULL) record(d, s[i].eid, &h);
            continue;
        }
        cuzk_job_info info;
        cuzk_error err;
        const cuzk_status st = cuzk_engine_job_info(d->engine, s[i].eid, &info, &err);
        if (st == CUZK_ERR_NOT_FOUND) { /* not the engine's any more: nothing will settle */
            pthread_mutex_lock(&d->mu);
            cuzk__held *cur = held_find(d, s[i].eid);
            cuzk__jobstore_part part;
            if (cur != NULL) {
                part = cur->part;
                held_remove(d, cur);
            }
            pthread_mutex_unlock(&d->mu);
            if (cur != NULL) cuzk__daemon_give_back(d, &part, "the engine no longer knows it");
            continue;
        }
        if (st != CUZK_OK) continue;
        if (cuzk__store_state_ended(info.state) && info.n_running == 0) {
            settle(d, s[i].eid, info.n_public);
        } else if (!s[i].started && (info.n_running > 0 || info.n_done > 0)) {
            pthread_mutex_lock(&d->mu);
            cuzk__held *cur = held_find(d, s[i].eid);
            if (cur != NULL) cur->started = 1;
            pthread_mutex_unlock(&d->mu);
        }
    }
    free(s);
}

static void expire_results(cuzk__daemon *d) {
    size_t removed = 0;
    cuzk_error err;
    if (cuzk__jobstore_expire(d->js, (int64_t)d->cfg.result_retention_s * 1000, &removed, &err) !=
        CUZK_OK)
        cuzk__daemon_logf(d, "expiring old results: %s", cuzk_error_text(&err));
    else if (removed != 0)
        cuzk__daemon_logf(d, "forgot %zu finished job%s older than %llu s", removed,
                          removed == 1 ? "" : "s", (unsigned long long)d->cfg.result_retention_s);
}

static void *finisher_main(void *arg) {
    cuzk__daemon *d = arg;
    uint64_t seen = 0;
    int64_t next_expire = 0;
    for (;;) {
        pthread_mutex_lock(&d->mu);
        const int stop = d->stop_finisher;
        pthread_mutex_unlock(&d->mu);
        if (stop) break;
        seen = cuzk_engine_wait_settled(d->engine, seen, FINISHER_TICK_MS);
        finisher_pass(d);
        const int64_t now = cuzk__store_now_ms();
        if (now >= next_expire) {
            expire_results(d);
            next_expire = now + EXPIRE_EVERY_MS;
        }
    }
    return NULL;
}

/* ---- the heartbeat and the listener (a shared store) ---------------------------------- */

/* Marks the held partitions seqs dropped and cancels those in the engine
 * (those not there yet are let go by the thread bringing them: a copy
 * stops at its next block); a result waiting to be recorded is dropped
 * with them. */
static void drop(cuzk__daemon *d, const uint64_t *seqs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        pthread_mutex_lock(&d->mu);
        cuzk__held *h = cuzk__daemon_held_seq(d, seqs[i]);
        uint64_t cancel = 0;
        cuzk__jobstore_part part;
        int removed = 0;
        if (h != NULL && h->pending) {
            part = h->part;
            held_remove(d, h);
            removed = 1;
        } else if (h != NULL && !h->dropped) {
            h->dropped = 1;
            cancel = h->engine_id;
            if (cancel == 0) pthread_cond_broadcast(&d->fetch);
        }
        pthread_mutex_unlock(&d->mu);
        if (removed) cuzk__daemon_forget_claim(d, &part);
        if (cancel != 0) engine_cancel(d, cancel);
    }
    if (n != 0) cuzk__daemon_wake_claimer(d);
}

void cuzk__daemon_work_drop_job(cuzk__daemon *d, uint64_t job_id) {
    pthread_mutex_lock(&d->mu);
    uint64_t *seqs = d->n_held ? malloc(d->n_held * sizeof(*seqs)) : NULL;
    size_t k = 0;
    for (size_t i = 0; seqs != NULL && i < d->n_held; i++)
        if (d->held[i].part.ref.job_id == job_id && !d->held[i].dropped)
            seqs[k++] = d->held[i].seq;
    if (k != 0) d->stats.ended += k;
    pthread_mutex_unlock(&d->mu);
    drop(d, seqs, k);
    free(seqs);
}

static void heartbeat_once(cuzk__daemon *d, int *failing) {
    pthread_mutex_lock(&d->mu);
    const size_t n = d->n_held;
    cuzk__jobstore_lease *v = n ? malloc(n * sizeof(*v)) : NULL;
    uint64_t *seqs = n ? malloc(n * sizeof(*seqs)) : NULL;
    size_t k = 0;
    /* every partition held, those whose witness is being copied too */
    for (size_t i = 0; v != NULL && seqs != NULL && i < n; i++) {
        if (d->held[i].dropped || d->held[i].given_back) continue;
        v[k].ref = d->held[i].part.ref;
        seqs[k++] = d->held[i].seq;
    }
    pthread_mutex_unlock(&d->mu);
    cuzk_error err;
    const double t0 = cuzk__now_ms();
    cuzk_status st = cuzk__jobstore_renew(d->js, v, k, &err);
    const double dt = cuzk__now_ms() - t0;
    if (st != CUZK_OK) {
        if (!*failing)
            cuzk__daemon_logf(d, "heartbeat: %s (the leases lapse after %u ms)",
                              cuzk_error_text(&err), d->cfg.lease_ms);
        *failing = 1;
        pthread_mutex_lock(&d->mu);
        d->stats.store_errors++;
        pthread_mutex_unlock(&d->mu);
    } else {
        if (*failing) cuzk__daemon_logf(d, "heartbeat: the store answers again");
        *failing = 0;
        size_t stop = 0, lost = 0;
        pthread_mutex_lock(&d->mu);
        for (size_t i = 0; i < k; i++) {
            cuzk__held *h = cuzk__daemon_held_seq(d, seqs[i]);
            if (h != NULL) h->cost_ms += dt / (double)k;
            /* settled meanwhile, or its result being recorded (a lease whose
             * proof was just recorded reads as not held: complete says) */
            if (v[i].state == CUZK__JS_HELD || h == NULL ||
                (h->pending && v[i].state == CUZK__JS_LOST))
                continue;
            if (v[i].state == CUZK__JS_LOST) {
                lost++;
                d->stats.lost++;
            } else {
                d->stats.ended++;
            }
            seqs[stop++] = seqs[i];
        }
        pthread_mutex_unlock(&d->mu);
        if (lost != 0)
            cuzk__daemon_logf(d, "%zu partition%s stopped: the lease had passed to another daemon "
                              "(heartbeats too late for lease_ms %u)",
                              lost, lost == 1 ? "" : "s", d->cfg.lease_ms);
        drop(d, seqs, stop);
        size_t requeued = 0;
        if (cuzk__jobstore_reap(d->js, &requeued, &err) != CUZK_OK) {
            cuzk__daemon_logf(d, "reaping expired leases: %s", cuzk_error_text(&err));
        } else if (requeued != 0) {
            cuzk__daemon_logf(d, "put back %zu partition%s whose lease expired (a daemon stopped "
                              "answering)",
                              requeued, requeued == 1 ? "" : "s");
            pthread_mutex_lock(&d->mu);
            d->stats.requeued += requeued;
            pthread_mutex_unlock(&d->mu);
            cuzk__daemon_wake_claimer(d);
        }
    }
    free(v);
    free(seqs);
}

static void *heartbeat_main(void *arg) {
    cuzk__daemon *d = arg;
    int failing = 0;
    for (;;) {
        const struct timespec until = cuzk__deadline_in_ms((int)d->heartbeat_ms);
        pthread_mutex_lock(&d->mu);
        while (!d->stop_side)
            if (pthread_cond_timedwait(&d->beat, &d->mu, &until) == ETIMEDOUT) break;
        const int stop = d->stop_side;
        pthread_mutex_unlock(&d->mu);
        if (stop) break;
        heartbeat_once(d, &failing);
    }
    return NULL;
}

static void *listener_main(void *arg) {
    cuzk__daemon *d = arg;
    int failing = 0;
    for (;;) {
        pthread_mutex_lock(&d->mu);
        const int stop = d->stop_side;
        pthread_mutex_unlock(&d->mu);
        if (stop) break;
        cuzk__jobstore_event ev;
        uint64_t id = 0;
        int got = 0;
        cuzk_error err;
        if (cuzk__jobstore_wait(d->js, LISTEN_TICK_MS, &ev, &id, &got, &err) != CUZK_OK) {
            if (!failing)
                cuzk__daemon_logf(d, "notifications: %s (polling every %u ms meanwhile)",
                                  cuzk_error_text(&err), d->cfg.poll_ms);
            failing = 1;
            const struct timespec until = cuzk__deadline_in_ms((int)d->cfg.poll_ms);
            pthread_mutex_lock(&d->mu);
            while (!d->stop_side)
                if (pthread_cond_timedwait(&d->beat, &d->mu, &until) == ETIMEDOUT) break;
            pthread_mutex_unlock(&d->mu);
            continue;
        }
        failing = 0;
        if (!got) continue;
        if (ev != CUZK__JS_EVENT_NEW) cuzk__daemon_signal_ended(d);
        if (ev != CUZK__JS_EVENT_END) cuzk__daemon_wake_claimer(d);
    }
    return NULL;
}

/* ---- start and drain ---------------------------------------------------------------- */

cuzk_status cuzk__daemon_work_start(cuzk__daemon *d, cuzk_error *err) {
    const int shared = cuzk__jobstore_shared(d->js);
    if (pthread_create(&d->finisher, NULL, finisher_main, d) != 0)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "daemon: cannot start the finisher thread");
    d->finisher_started = 1;
    if (shared) { /* before the claimer: only payloads of a shared store are copied */
        const cuzk_status st = cuzk__daemon_fetch_start(d, err);
        if (st != CUZK_OK) return st;
    }
    if (pthread_create(&d->claimer, NULL, claimer_main, d) != 0)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "daemon: cannot start the claimer thread");
    d->claimer_started = 1;
    if (!shared) return CUZK_OK;
    if (pthread_create(&d->heartbeat, NULL, heartbeat_main, d) != 0)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "daemon: cannot start the heartbeat thread");
    d->heartbeat_started = 1;
    if (pthread_create(&d->listener, NULL, listener_main, d) != 0)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "daemon: cannot start the listener thread");
    d->listener_started = 1;
    return CUZK_OK;
}

/* Gives back what is claimed but not started (the engine paused first, so
 * nothing starts meanwhile); those not in the engine yet (a copy of their
 * witness under way) are marked so, and their fetcher gives them back. */
static void give_back_unstarted(cuzk__daemon *d) {
    pthread_mutex_lock(&d->mu);
    const size_t n = d->n_held;
    cuzk__jobstore_part *parts = n ? malloc(n * sizeof(*parts)) : NULL;
    uint64_t *eids = n ? malloc(n * sizeof(*eids)) : NULL;
    size_t k = 0;
    for (size_t i = 0; parts != NULL && eids != NULL && i < n; i++) {
        cuzk__held *h = &d->held[i];
        if (h->dropped || h->given_back || h->pending || h->started) continue;
        if (h->engine_id == 0) {
            h->given_back = 1;
            pthread_cond_broadcast(&d->fetch);
            continue;
        }
        cuzk_job_info info;
        cuzk_error err;
        if (cuzk_engine_job_info(d->engine, h->engine_id, &info, &err) != CUZK_OK ||
            info.n_running > 0 || info.n_done > 0 || cuzk__store_state_ended(info.state))
            continue;
        h->given_back = 1;
        parts[k] = h->part;
        eids[k++] = h->engine_id;
    }
    d->stats.released += k;
    pthread_mutex_unlock(&d->mu);
    for (size_t i = 0; i < k; i++) {
        engine_cancel(d, eids[i]);
        cuzk__jobstore_outcome o;
        cuzk_error err;
        if (cuzk__jobstore_release(d->js, &parts[i].ref, &o, &err) != CUZK_OK)
            cuzk__daemon_logf(d, "job %llu partition %u: giving it back: %s",
                              (unsigned long long)parts[i].ref.job_id, parts[i].ref.index,
                              cuzk_error_text(&err));
    }
    if (k != 0)
        cuzk__daemon_logf(d, "draining: gave back %zu partition%s not started", k,
                          k == 1 ? "" : "s");
    free(parts);
    free(eids);
}

void cuzk__daemon_work_drain(cuzk__daemon *d) {
    if (d->claimer_started) {
        pthread_mutex_lock(&d->mu);
        d->stop_claimer = 1;
        pthread_cond_broadcast(&d->wake);
        pthread_mutex_unlock(&d->mu);
        pthread_join(d->claimer, NULL);
        d->claimer_started = 0;
    }
    if (d->engine != NULL) {
        cuzk_engine_pause(d->engine, 1);
        if (d->js != NULL) give_back_unstarted(d);
    }
    /* what runs finishes; the finisher records it (results the store
     * refuses are waited for a while, then left to the leases) */
    const int64_t give_up = cuzk__store_now_ms() + DRAIN_PENDING_MS;
    while (d->finisher_started) {
        pthread_mutex_lock(&d->mu);
        size_t live = 0;
        for (size_t i = 0; i < d->n_held; i++) live += !d->held[i].pending;
        const size_t n = d->n_held;
        pthread_mutex_unlock(&d->mu);
        if (n == 0 || (live == 0 && cuzk__store_now_ms() > give_up)) break;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (d->finisher_started) {
        pthread_mutex_lock(&d->mu);
        d->stop_finisher = 1;
        pthread_mutex_unlock(&d->mu);
        pthread_join(d->finisher, NULL);
        d->finisher_started = 0;
    }
    cuzk__daemon_fetch_stop(d);
    pthread_mutex_lock(&d->mu);
    d->stop_side = 1;
    pthread_cond_broadcast(&d->beat);
    pthread_mutex_unlock(&d->mu);
    if (d->heartbeat_started) pthread_join(d->heartbeat, NULL);
    if (d->listener_started) pthread_join(d->listener, NULL);
    d->heartbeat_started = d->listener_started = 0;
    if (d->js != NULL) {
        size_t released = 0;
        cuzk_error err;
        if (cuzk__jobstore_leave(d->js, &released, &err) != CUZK_OK)
            cuzk__daemon_logf(d, "leaving the cluster: %s", cuzk_error_text(&err));
        else if (released != 0)
            cuzk__daemon_logf(d, "left: %zu partition%s went back to the queue", released,
                              released == 1 ? "" : "s");
    }
}

/* ---- statistics ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void cuzk__daemon_work_stats_get(cuzk__daemon *d, cuzk__daemon_work_stats *s) {
    double *v = malloc(CUZK__DAEMON_COST_RING * sizeof(*v));
    pthread_mutex_lock(&d->mu);
    *s = d->stats;
    s->held = d->n_held;
    for (size_t i = 0; i < d->n_held; i++) s->fetching += d->held[i].fetching;
    const size_t n = d->n_cost < CUZK__DAEMON_COST_RING ? (size_t)d->n_cost : CUZK__DAEMON_COST_RING;
    if (v != NULL) memcpy(v, d->cost, n * sizeof(*v));
    pthread_mutex_unlock(&d->mu);
    s->reconnects = cuzk__jobstore_reconnects(d->js);
    s->cost_samples = v != NULL ? n : 0;
    s->cost_median_ms = s->cost_p99_ms = 0;
    if (v != NULL && n != 0) {
        qsort(v, n, sizeof(*v), cmp_double);
        s->cost_median_ms = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        s->cost_p99_ms = v[(size_t)((double)(n - 1) * 0.99)];
    }
    free(v);
}
