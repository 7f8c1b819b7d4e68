/*
 * daemon_fetch.c — the fetchers: [cluster] fetchers threads that copy
 * the uploaded witnesses of claimed partitions (PostgreSQL payloads) into
 * the scratch folder, then put each partition in the engine. The claimer
 * only holds such a partition and goes on claiming, so a copy of gigabytes
 * (a PoRep partition's witness) never keeps the engine from being fed.
 *
 * A held partition marked fetching waits for a fetcher, best first
 * (priority, then the oldest job, then index). The bytes being copied or
 * copied and not yet proved (d->fetch_bytes) stay within d->fetch_budget,
 * the engine's host memory budget, since the engine holds each witness
 * while it proves it; one payload alone may pass it (the engine says what
 * it thinks of that).
 *
 * Stopping. The heartbeat renews the leases of partitions being copied as
 * of any other it holds; a lease lost or a job ended (the heartbeat, or a
 * cancel through this daemon) marks the partition dropped, and a drain
 * marks it given back: the copy stops at its next block, its partial file
 * is removed, and the claim is forgotten or given back to the queue. A
 * partition marked so before its copy began is let go without one.
 */
#include <stdio.h>
#include <string.h>

#include "service/daemon_impl.h"
#include "util/error.h"

/* The next held partition for a fetcher (d->mu held): one stopped before
 * its copy (let go at once), else the best waiting whose payload fits the
 * budget; NULL when none. */
static cuzk__held *next_fetch(cuzk__daemon *d) {
    cuzk__held *best = NULL;
    for (size_t i = 0; i < d->n_held; i++) {
        cuzk__held *h = &d->held[i];
        if (!h->fetching || h->fetch_started) continue;
        if (h->dropped || h->given_back) return h;
        const uint64_t bytes = h->part.payload_bytes;
        if (d->fetch_bytes != 0 && d->fetch_bytes + bytes > d->fetch_budget) continue;
        const cuzk__jobstore_ref *a = &h->part.ref;
        if (best == NULL || h->part.priority > best->part.priority ||
            (h->part.priority == best->part.priority &&
             (a->job_id < best->part.ref.job_id ||
              (a->job_id == best->part.ref.job_id && a->index < best->part.ref.index))))
            best = h;
    }
    return best;
}

typedef struct {
    cuzk__daemon *d;
    uint64_t seq;
} stop_ctx;

/* Asked by the copy before each block: stop once the partition was
 * dropped or given back. */
static int should_stop(void *user) {
    const stop_ctx *c = user;
    pthread_mutex_lock(&c->d->mu);
    const cuzk__held *h = cuzk__daemon_held_seq(c->d, c->seq);
    const int stop = h == NULL || h->dropped || h->given_back || c->d->stop_fetchers;
    pthread_mutex_unlock(&c->d->mu);
    return stop;
}

/* Copies held partition seq's witness (part: its copy of the claim), then
 * puts it in the engine, or lets it go. */
static void fetch_one(cuzk__daemon *d, uint64_t seq, cuzk__jobstore_part part) {
    stop_ctx c = {d, seq};
    cuzk_error err;
    const cuzk_status st = cuzk__jobstore_fetch(d->js, &part, should_stop, &c, &err);
    pthread_mutex_lock(&d->mu);
    cuzk__held *h = cuzk__daemon_held_seq(d, seq);
    const int dropped = h != NULL && h->dropped, given_back = h != NULL && h->given_back;
    if (st == CUZK_OK && h != NULL && !dropped && !given_back) {
        h->part = part; /* its path is the copy now */
        pthread_mutex_unlock(&d->mu);
        cuzk__daemon_work_enqueue(d, seq);
        return;
    }
    if (h != NULL) cuzk__daemon_held_remove(d, h);
    pthread_mutex_unlock(&d->mu);
    cuzk__jobstore_done_with(d->js, &part); /* a copy made just before the stop */
    if (dropped) {
        cuzk__daemon_forget_claim(d, &part);
    } else if (given_back) {
        cuzk__daemon_give_back(d, &part, "the daemon is draining (its witness was being copied)");
    } else if (st == CUZK_ERR_NOT_FOUND) { /* its job ended: the payload went with it */
        cuzk__daemon_give_back(d, &part, "its job ended");
    } else {
        char why[CUZK_ERROR_MSG_BYTES + 32];
        snprintf(why, sizeof(why), "its witness could not be copied: %s", cuzk_error_text(&err));
        cuzk__daemon_give_back(d, &part, why);
    }
    cuzk__daemon_wake_claimer(d);
}

static void *fetcher_main(void *arg) {
    cuzk__daemon *d = arg;
    pthread_mutex_lock(&d->mu);
    for (;;) {
        cuzk__held *h = NULL;
        while (!d->stop_fetchers && (h = next_fetch(d)) == NULL)
            pthread_cond_wait(&d->fetch, &d->mu);
        if (d->stop_fetchers) break;
        h->fetch_started = 1;
        const int stopped = h->dropped || h->given_back;
        if (!stopped) {
            h->fetch_bytes = h->part.payload_bytes;
            d->fetch_bytes += h->fetch_bytes;
        }
        const uint64_t seq = h->seq;
        const cuzk__jobstore_part part = h->part;
        pthread_mutex_unlock(&d->mu);
        if (stopped) /* let go without a copy: the stop is seen at once */
            cuzk__daemon_work_enqueue(d, seq);
        else
            fetch_one(d, seq, part);
        pthread_mutex_lock(&d->mu);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

cuzk_status cuzk__daemon_fetch_start(cuzk__daemon *d, cuzk_error *err) {
    cuzk_engine_stats s;
    cuzk_engine_get_stats(d->engine, &s);
    d->fetch_budget = s.host_bytes_budget;
    const size_t n = d->cfg.fetchers < 1                           ? 1
                     : d->cfg.fetchers > CUZK__DAEMON_FETCHERS_MAX ? CUZK__DAEMON_FETCHERS_MAX
                                                                   : d->cfg.fetchers;
    for (; d->fetchers_started < n; d->fetchers_started++)
        if (pthread_create(&d->fetchers[d->fetchers_started], NULL, fetcher_main, d) != 0)
            return cuzk__fail(err, CUZK_ERR_NOMEM, "daemon: cannot start fetcher thread %zu",
                              d->fetchers_started + 1);
    return CUZK_OK;
}

void cuzk__daemon_fetch_stop(cuzk__daemon *d) {
    if (d->fetchers_started == 0) return;
    pthread_mutex_lock(&d->mu);
    d->stop_fetchers = 1;
    pthread_cond_broadcast(&d->fetch);
    pthread_mutex_unlock(&d->mu);
    for (size_t i = 0; i < d->fetchers_started; i++) pthread_join(d->fetchers[i], NULL);
    d->fetchers_started = 0;
}
