/*
 * metrics.c — the Prometheus text format of the engine's counts
 * (metrics.h). Every family has its HELP and TYPE lines before its samples;
 * histogram buckets are cumulative and end with le="+Inf" equal to _count,
 * as the format requires. Times are in seconds, the format's unit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/timeline.h"
#include "service/metrics.h"
#include "util/error.h"

typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text *t, const char *fmt, ...) {
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        const size_t cap = 2 * t->cap + (size_t)n + 1;
        char *b = realloc(t->buf, cap);
        if (b == NULL) {
            t->failed = 1;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
}

static void family(text *t, const char *name, const char *type, const char *help) {
    put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void one(text *t, const char *name, const char *type, const char *help, double v) {
    family(t, name, type, help);
    put(t, "%s %.17g\n", name, v);
}

/* Each device's busy fraction over the timeline's last window_ms. */
static void busy(text *t, cuzk_engine *e, size_t workers, double window_ms) {
    family(t, "cuzk_gpu_busy_ratio", "gauge",
           "Share of the last window in which the GPU ran a partition's kernels.");
    const size_t cap = workers * 64 + 1024;
    cuzk_timeline_event *ev = malloc(cap * sizeof(*ev));
    if (ev == NULL) {
        t->failed = 1;
        return;
    }
    const size_t n = cuzk_engine_timeline(e, ev, cap);
    double now = 0;
    int devices[CUZK_MAX_LANES];
    size_t n_dev = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].end_ms > now) now = ev[i].end_ms;
        int seen = ev[i].device < 0;
        for (size_t d = 0; d < n_dev && !seen; d++) seen = devices[d] == ev[i].device;
        if (!seen && n_dev < CUZK_MAX_LANES) devices[n_dev++] = ev[i].device;
    }
    for (size_t d = 0; d < n_dev; d++) {
        const double f = cuzk__timeline_busy(ev, n, devices[d], now - window_ms, now);
        if (f >= 0) put(t, "cuzk_gpu_busy_ratio{device=\"%d\"} %.6f\n", devices[d], f);
    }
    free(ev);
}

cuzk_status cuzk__metrics_render(cuzk_engine *e, double window_ms, char **out, size_t *len,
                                 cuzk_error *err) {
    *out = NULL;
    *len = 0;
    if (e == NULL || window_ms <= 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "metrics: NULL engine or empty window");
    text t = {malloc(4096), 0, 4096, 0};
    t.failed = t.buf == NULL;
    cuzk_engine_stats s;
    cuzk_engine_get_stats(e, &s);
    one(&t, "cuzk_partitions_proved_total", "counter", "Partitions proved.", (double)s.proofs);
    one(&t, "cuzk_partitions_verified_total", "counter",
        "Partitions self-checked before they were returned.", (double)s.verified);
    one(&t, "cuzk_partitions_failed_total", "counter", "Partitions that failed their job.",
        (double)s.failed_partitions);
    one(&t, "cuzk_device_faults_total", "counter", "Device faults (CUZK_ERR_GPU).",
        (double)s.faults);
    one(&t, "cuzk_retries_total", "counter", "Partitions proved again after a device fault.",
        (double)s.retries);
    one(&t, "cuzk_lane_resets_total", "counter", "Lanes reset after a device fault.",
        (double)s.lane_resets);
    one(&t, "cuzk_lane_step_downs_total", "counter",
        "GPU lanes prepared again a memory plan lower after their device memory ran out.",
        (double)s.lane_step_downs);
    one(&t, "cuzk_partitions_queued", "gauge", "Partitions waiting for a worker.",
        (double)s.queued_partitions);
    one(&t, "cuzk_partitions_running", "gauge", "Partitions being proved.",
        (double)s.running_partitions);
    one(&t, "cuzk_workers", "gauge", "Worker threads.", (double)s.workers);
    one(&t, "cuzk_host_bytes_held", "gauge", "Host bytes charged to the memory budget.",
        (double)s.host_bytes_used);
    one(&t, "cuzk_host_bytes_budget", "gauge", "The host memory budget.",
        (double)s.host_bytes_budget);
    one(&t, "cuzk_timeline_events_dropped_total", "counter",
        "Timeline events the ring overwrote.", (double)s.timeline_dropped);
    busy(&t, e, s.workers, window_ms);

    static const double bounds[] = CUZK_STAGE_BUCKET_BOUNDS_MS;
    family(&t, "cuzk_stage_seconds", "histogram", "Time of each stage of a partition.");
    for (int st = 0; st < CUZK_STAGE_COUNT; st++) {
        cuzk_stage_histogram h;
        cuzk_engine_stage_histogram(e, (cuzk_stage)st, &h);
        const char *name = cuzk_stage_name((cuzk_stage)st);
        uint64_t cum = 0;
        for (size_t b = 0; b + 1 < CUZK_STAGE_BUCKETS; b++) {
            cum += h.count[b];
            put(&t, "cuzk_stage_seconds_bucket{stage=\"%s\",le=\"%g\"} %llu\n", name,
                bounds[b] / 1e3, (unsigned long long)cum);
        }
        put(&t, "cuzk_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %llu\n", name,
            (unsigned long long)h.n);
        put(&t, "cuzk_stage_seconds_sum{stage=\"%s\"} %.9g\n", name, h.sum_ms / 1e3);
        put(&t, "cuzk_stage_seconds_count{stage=\"%s\"} %llu\n", name, (unsigned long long)h.n);
    }
    if (t.failed) {
        free(t.buf);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the metrics text");
    }
    *out = t.buf;
    *len = t.len;
    return CUZK_OK;
}
