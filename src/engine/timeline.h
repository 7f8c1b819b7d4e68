/*
 * timeline.h — the engine's timeline: a ring of the newest events (one stage
 * of one partition on one worker, cuzk_timeline_event of include/cuzk.h),
 * and what the benchmarks compute from them.
 *
 * The ring keeps the last `capacity` events; an event added to a full ring
 * overwrites the oldest, which is counted as dropped. Adding and copying
 * take the ring's own mutex, never the engine's, so a worker records a stage
 * without waiting for the queue. Events are kept in the order they were
 * added, which need not be the order of their starts.
 */
#ifndef CUZK_ENGINE_TIMELINE_H
#define CUZK_ENGINE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

typedef struct cuzk__timeline cuzk__timeline;

/* A ring of capacity events (0: keeps none, counts every event as dropped);
 * NULL when out of memory. */
cuzk__timeline *cuzk__timeline_new(size_t capacity);

/* NULL is a no-op. */
void cuzk__timeline_free(cuzk__timeline *t);

/* Appends a copy of *ev, overwriting the oldest event when the ring is full.
 * Thread-safe; a NULL t is a no-op. */
void cuzk__timeline_add(cuzk__timeline *t, const cuzk_timeline_event *ev);

/* Copies the newest min(cap, kept) events into out, oldest first, and
 * returns how many (0 for a NULL t). */
size_t cuzk__timeline_copy(cuzk__timeline *t, cuzk_timeline_event *out, size_t cap);

/* Copies, oldest first, the newest cap of the kept events that ended after
 * since_ms, and returns how many (0 for a NULL t): a window of the ring
 * without copying the rest of it. */
size_t cuzk__timeline_copy_since(cuzk__timeline *t, double since_ms, cuzk_timeline_event *out,
                                 size_t cap);

/* Events added and no longer kept (overwritten, or all of them at capacity 0). */
uint64_t cuzk__timeline_dropped(cuzk__timeline *t);

/* 1 for the stages that run the device's kernels (SPMV .. B_G2_MSM). */
int cuzk__stage_is_kernel(cuzk_stage stage);

/*
 * The fraction of [from_ms, to_ms] in which device ran kernels: the union of
 * the kernel-stage intervals of ev[0..n) on that device, each clipped to the
 * window, over to_ms - from_ms. Overlapping and nested intervals count once.
 * 0 for an empty window (to_ms <= from_ms); -1 when out of memory.
 */
double cuzk__timeline_busy(const cuzk_timeline_event *ev, size_t n, int device, double from_ms,
                           double to_ms);

#endif /* CUZK_ENGINE_TIMELINE_H */
