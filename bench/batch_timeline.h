/*
 * batch_timeline.h — what `cuzk bench batch` reads from the engine's
 * timeline (batch_timeline.c): the milliseconds of each stage summed over
 * all partitions, per GPU the partitions whose kernels it ran and the
 * fraction of its steady state in which it ran kernels, per lane slot the
 * same (CPU lanes have no device), and the partitions' attempts: those proved twice
 * and those with a failed attempt (a witness loaded by a worker that then
 * ran no kernels for it), proved on another lane slot or not.
 *
 * Lane slots follow the engine's workers: worker w serves slot w % slots
 * (src/engine/worker.c), a GPU listed in the context's devices or a CPU
 * lane. The counts hold for the events the ring kept: with
 * timeline_dropped above 0 they cover only the newest partitions.
 */
#ifndef CUZK_BENCH_BATCH_TIMELINE_H
#define CUZK_BENCH_BATCH_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"

#define CUZK_BATCH_MAX_DEVICES 64

typedef struct {
    size_t n; /* events */
    double stage_ms[CUZK_STAGE_COUNT];
    int stage_seen[CUZK_STAGE_COUNT];
    /* GPUs that ran kernels, in the order first seen */
    size_t n_dev;
    int dev[CUZK_BATCH_MAX_DEVICES];
    size_t dev_parts[CUZK_BATCH_MAX_DEVICES]; /* partitions proved there */
    double busy[CUZK_BATCH_MAX_DEVICES];      /* -1: no steady state (one partition) */
    double window_ms[CUZK_BATCH_MAX_DEVICES];
    /* lane slots 0..n_lanes-1 */
    size_t n_lanes;
    int lane_dev[CUZK_MAX_LANES]; /* the GPU of its kernels, -1 a CPU lane, -2 none seen */
    size_t lane_parts[CUZK_MAX_LANES];
    double lane_busy[CUZK_MAX_LANES]; /* as busy, over the slot's workers' kernels */
    double lane_window_ms[CUZK_MAX_LANES];
    size_t proved;       /* partitions with kernels on some worker */
    size_t proved_twice; /* ... on more than one worker */
    size_t failed_attempt; /* partitions loaded by a worker that ran no kernels for them */
    size_t moved;          /* ... and proved on another lane slot */
} cuzk__batch_report;

/* The report of ev[0..n) for an engine of lane_slots slots (1..
 * CUZK_MAX_LANES); 0 when out of memory. */
int cuzk__batch_report_make(cuzk__batch_report *r, const cuzk_timeline_event *ev, size_t n,
                            size_t lane_slots);

/* The report as JSON members (each preceded by ", ", for the object the
 * caller opens), or as indented text lines; dropped: events the ring
 * overwrote. */
void cuzk__batch_report_json(const cuzk__batch_report *r, uint64_t dropped);
void cuzk__batch_report_text(const cuzk__batch_report *r, uint64_t dropped);

#endif /* CUZK_BENCH_BATCH_TIMELINE_H */
