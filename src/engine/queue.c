/*
 * queue.c — the engine's ordered queue: a binary heap of partitions by
 * (priority, job sequence, partition), bounded by the engine's
 * max_queued_partitions, and beside it the short list of partitions to
 * prove again after a device fault (taken before the heap). Taking from it
 * batches same-key work (cuzk__queue_take).
 */
#include "engine/engine_impl.h"

int cuzk__entry_before(const entry *a, const entry *b) {
    if (a->j->prio != b->j->prio) return a->j->prio > b->j->prio;
    if (a->j->seq != b->j->seq) return a->j->seq < b->j->seq;
    return a->part < b->part;
}

static void swap(entry *h, size_t a, size_t b) {
    const entry t = h[a];
    h[a] = h[b];
    h[b] = t;
}

static void sift_up(entry *h, size_t i) {
    while (i > 0 && cuzk__entry_before(&h[i], &h[(i - 1) / 2])) {
        swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(entry *h, size_t n, size_t i) {
    for (;;) {
        size_t best = i;
        const size_t l = 2 * i + 1, r = l + 1;
        if (l < n && cuzk__entry_before(&h[l], &h[best])) best = l;
        if (r < n && cuzk__entry_before(&h[r], &h[best])) best = r;
        if (best == i) return;
        swap(h, i, best);
        i = best;
    }
}

void cuzk__queue_push(cuzk_engine *e, entry en) {
    e->heap[e->heap_n] = en;
    sift_up(e->heap, e->heap_n++);
}

entry cuzk__queue_pop(cuzk_engine *e) {
    const entry top = e->heap[0];
    e->heap[0] = e->heap[--e->heap_n];
    sift_down(e->heap, e->heap_n, 0);
    return top;
}

/* Removes entry i (any place in the heap). */
static entry remove_at(cuzk_engine *e, size_t i) {
    const entry out = e->heap[i];
    e->heap[i] = e->heap[--e->heap_n];
    if (i < e->heap_n) {
        sift_down(e->heap, e->heap_n, i);
        sift_up(e->heap, i);
    }
    return out;
}

/* A job's key is open: an unnamed key (the caller holds it) or a named one
 * the cache has open. */
static int key_open(const job *j) { return j->ce == NULL || j->ce->key != NULL; }

entry cuzk__queue_take(cuzk_engine *e, double now_ms) {
    const job *top = e->heap[0].j;
    if (key_open(top) || e->opt.batch_wait_ms == 0 ||
        now_ms - top->submit_ms >= (double)e->opt.batch_wait_ms)
        return cuzk__queue_pop(e);
    /* the head's key is closed: partitions of open keys at its priority first
     * (a scan, made only at such a switch) */
    size_t best = SIZE_MAX;
    for (size_t i = 1; i < e->heap_n; i++)
        if (e->heap[i].j->prio == top->prio && key_open(e->heap[i].j) &&
            (best == SIZE_MAX || cuzk__entry_before(&e->heap[i], &e->heap[best])))
            best = i;
    return best == SIZE_MAX ? cuzk__queue_pop(e) : remove_at(e, best);
}

void cuzk__queue_remove_job(cuzk_engine *e, job *j) {
    size_t k = 0;
    for (size_t i = 0; i < e->heap_n; i++)
        if (e->heap[i].j != j) e->heap[k++] = e->heap[i];
    e->heap_n = k;
    for (size_t i = k / 2 + 1; i-- > 0;) sift_down(e->heap, e->heap_n, i);
    k = 0;
    for (size_t i = 0; i < e->retry_n; i++)
        if (e->retry[i].j != j) e->retry[k++] = e->retry[i];
    e->retry_n = k;
    j->queued = 0;
}
