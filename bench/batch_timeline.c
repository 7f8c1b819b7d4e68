/* batch_timeline.c — see batch_timeline.h. */
#include "batch_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/timeline.h"

/* One partition's event on one worker: a witness load, or a kernel stage
 * (where it ends). */
typedef struct {
    uint64_t job;
    uint32_t part, worker;
    int device, kernel;
    double end;
} part_ev;

static int cmp_part_ev(const void *a, const void *b) {
    const part_ev *x = a, *y = b;
    if (x->job != y->job) return x->job < y->job ? -1 : 1;
    if (x->part != y->part) return x->part < y->part ? -1 : 1;
    return x->worker < y->worker ? -1 : x->worker > y->worker;
}

/* The steady state of device dev: from the end of its first partition's
 * kernels to the end of its last one's (a partition's kernels end with its
 * last kernel event). 0 when it proved fewer than two partitions, -1 when
 * out of memory. */
static int steady_window(const cuzk_timeline_event *ev, size_t n, int dev, double *from,
                         double *to) {
    part_ev *p = malloc((n ? n : 1) * sizeof(*p));
    if (p == NULL) return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (ev[i].device == dev && cuzk__stage_is_kernel(ev[i].stage))
            p[m++] = (part_ev){ev[i].job_id, ev[i].partition, 0, dev, 1, ev[i].end_ms};
    qsort(p, m, sizeof(*p), cmp_part_ev);
    size_t parts = 0;
    for (size_t i = 0; i < m;) {
        double end = p[i].end;
        size_t k = i + 1;
        for (; k < m && p[k].job == p[i].job && p[k].part == p[i].part; k++)
            if (p[k].end > end) end = p[k].end;
        if (parts == 0 || end < *from) *from = end;
        if (parts == 0 || end > *to) *to = end;
        parts++;
        i = k;
    }
    free(p);
    return parts >= 2 && *to > *from;
}

static size_t dev_index(cuzk__batch_report *r, int dev) {
    size_t d = 0;
    while (d < r->n_dev && r->dev[d] != dev) d++;
    if (d == r->n_dev && r->n_dev < CUZK_BATCH_MAX_DEVICES) r->dev[r->n_dev++] = dev;
    return d;
}

/* One partition's records p[0..m) (sorted by worker): who proved it, who
 * tried and ran no kernels. */
static void count_partition(cuzk__batch_report *r, const part_ev *p, size_t m) {
    size_t provers = 0, failed = 0;
    uint64_t failed_lanes = 0, prover_lanes = 0; /* bit s: lane slot s */
    for (size_t i = 0; i < m;) {
        int kernel = 0, device = -1;
        size_t k = i;
        for (; k < m && p[k].worker == p[i].worker; k++)
            if (p[k].kernel) kernel = 1, device = p[k].device;
        const size_t lane = p[i].worker % r->n_lanes;
        if (kernel) {
            provers++;
            prover_lanes |= (uint64_t)1 << lane;
            r->lane_parts[lane]++;
            r->lane_dev[lane] = device;
            if (device >= 0) {
                const size_t d = dev_index(r, device);
                if (d < r->n_dev) r->dev_parts[d]++;
            }
        } else {
            failed++;
            failed_lanes |= (uint64_t)1 << lane;
        }
        i = k;
    }
    if (provers > 0) r->proved++;
    if (provers > 1) r->proved_twice++;
    if (failed > 0) r->failed_attempt++;
    if (failed > 0 && (prover_lanes & ~failed_lanes) != 0) r->moved++;
}

/* Per lane slot and device, from the loads and kernels of every partition. */
static int count_attempts(cuzk__batch_report *r, const cuzk_timeline_event *ev, size_t n) {
    part_ev *p = malloc((n ? n : 1) * sizeof(*p));
    if (p == NULL) return 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const int kernel = cuzk__stage_is_kernel(ev[i].stage);
        if (ev[i].worker == UINT32_MAX || (!kernel && ev[i].stage != CUZK_STAGE_LOAD)) continue;
        p[m++] = (part_ev){ev[i].job_id, ev[i].partition, ev[i].worker, ev[i].device, kernel,
                           ev[i].end_ms};
    }
    qsort(p, m, sizeof(*p), cmp_part_ev);
    for (size_t i = 0; i < m;) {
        size_t k = i + 1;
        while (k < m && p[k].job == p[i].job && p[k].part == p[i].part) k++;
        count_partition(r, p + i, k - i);
        i = k;
    }
    free(p);
    return 1;
}

/* The busy fraction and steady window of the kernel events of ev[0..n)
 * that keep(ev, which) selects (a device's, or a lane slot's); *busy -1
 * without a steady state. 0 when out of memory. */
static int busy_of(const cuzk_timeline_event *ev, size_t n, size_t n_lanes, int by_lane,
                   int which, double *busy, double *window_ms) {
    cuzk_timeline_event *sel = malloc((n ? n : 1) * sizeof(*sel));
    if (sel == NULL) return 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cuzk__stage_is_kernel(ev[i].stage) || ev[i].worker == UINT32_MAX) continue;
        if (by_lane ? ev[i].worker % n_lanes != (size_t)which : ev[i].device != which) continue;
        sel[m] = ev[i];
        sel[m++].device = 0; /* the selection is one "device" to the timeline's helpers */
    }
    double from = 0, to = 0;
    const int w = steady_window(sel, m, 0, &from, &to);
    *busy = -1;
    *window_ms = w > 0 ? to - from : 0;
    if (w > 0) *busy = cuzk__timeline_busy(sel, m, 0, from, to);
    free(sel);
    return w >= 0 && (w == 0 || *busy >= 0);
}

int cuzk__batch_report_make(cuzk__batch_report *r, const cuzk_timeline_event *ev, size_t n,
                            size_t lane_slots) {
    memset(r, 0, sizeof(*r));
    r->n = n;
    r->n_lanes = lane_slots == 0 ? 1 : lane_slots > CUZK_MAX_LANES ? CUZK_MAX_LANES : lane_slots;
    for (size_t s = 0; s < r->n_lanes; s++) r->lane_dev[s] = -2;
    for (size_t i = 0; i < n; i++) {
        if ((int)ev[i].stage < 0 || ev[i].stage >= CUZK_STAGE_COUNT) continue;
        r->stage_ms[ev[i].stage] += ev[i].end_ms - ev[i].start_ms;
        r->stage_seen[ev[i].stage] = 1;
        if (ev[i].device >= 0 && cuzk__stage_is_kernel(ev[i].stage))
            (void)dev_index(r, ev[i].device);
    }
    if (!count_attempts(r, ev, n)) return 0;
    for (size_t d = 0; d < r->n_dev; d++)
        if (!busy_of(ev, n, r->n_lanes, 0, r->dev[d], &r->busy[d], &r->window_ms[d])) return 0;
    for (size_t s = 0; s < r->n_lanes; s++)
        if (!busy_of(ev, n, r->n_lanes, 1, (int)s, &r->lane_busy[s], &r->lane_window_ms[s]))
            return 0;
    return 1;
}

void cuzk__batch_report_json(const cuzk__batch_report *r, uint64_t dropped) {
    printf(", \"timeline_events\": %zu, \"timeline_dropped\": %llu, \"stage_ms\": {", r->n,
           (unsigned long long)dropped);
    const char *sep = "";
    for (int s = 0; s < CUZK_STAGE_COUNT; s++)
        if (r->stage_seen[s]) {
            printf("%s\"%s\": %.3f", sep, cuzk_stage_name((cuzk_stage)s), r->stage_ms[s]);
            sep = ", ";
        }
    printf("}, \"busy\": [");
    for (size_t d = 0; d < r->n_dev; d++) {
        printf("%s{\"device\": %d, \"partitions\": %zu, \"fraction\": ", d ? ", " : "", r->dev[d],
               r->dev_parts[d]);
        if (r->busy[d] < 0) printf("null");
        else printf("%.4f", r->busy[d]);
        printf(", \"window_s\": %.4f}", r->window_ms[d] / 1000);
    }
    printf("], \"lanes\": [");
    for (size_t s = 0; s < r->n_lanes; s++) {
        printf("%s{\"lane\": %zu, \"device\": ", s ? ", " : "", s);
        if (r->lane_dev[s] >= 0) printf("%d", r->lane_dev[s]);
        else printf("null");
        printf(", \"partitions\": %zu, \"fraction\": ", r->lane_parts[s]);
        if (r->lane_busy[s] < 0) printf("null");
        else printf("%.4f", r->lane_busy[s]);
        printf(", \"window_s\": %.4f}", r->lane_window_ms[s] / 1000);
    }
    printf("], \"partitions_proved\": %zu, \"partitions_proved_twice\": %zu, "
           "\"partitions_with_failed_attempt\": %zu, \"retried_on_other_lane\": %zu",
           r->proved, r->proved_twice, r->failed_attempt, r->moved);
}

void cuzk__batch_report_text(const cuzk__batch_report *r, uint64_t dropped) {
    if (r->n == 0) {
        printf("  no timeline events\n");
        return;
    }
    printf("  stage ms summed over partitions (%zu timeline events", r->n);
    if (dropped) printf(", the oldest %llu dropped", (unsigned long long)dropped);
    printf("):\n   ");
    int col = 3;
    for (int s = 0; s < CUZK_STAGE_COUNT; s++) {
        if (!r->stage_seen[s]) continue;
        char item[64];
        const int k = snprintf(item, sizeof item, " %s %.1f", cuzk_stage_name((cuzk_stage)s),
                               r->stage_ms[s]);
        if (col + k > 80) {
            printf("\n   ");
            col = 3;
        }
        printf("%s", item);
        col += k;
    }
    printf("\n");
    for (size_t d = 0; d < r->n_dev; d++) {
        if (r->busy[d] < 0)
            printf("  GPU %d: %zu partition%s, kernels of one partition only, no steady state\n",
                   r->dev[d], r->dev_parts[d], r->dev_parts[d] == 1 ? "" : "s");
        else
            printf("  GPU %d: %zu partitions, kernels running %.1f%% of its steady state "
                   "(%.3f s)\n",
                   r->dev[d], r->dev_parts[d], 100 * r->busy[d], r->window_ms[d] / 1000);
    }
    for (size_t s = 0; r->n_lanes > 1 && s < r->n_lanes; s++) {
        printf("  lane slot %zu: %zu partitions", s, r->lane_parts[s]);
        if (r->lane_busy[s] >= 0)
            printf(", kernels running %.1f%% of its steady state", 100 * r->lane_busy[s]);
        printf("\n");
    }
    if (r->failed_attempt != 0 || r->proved_twice != 0)
        printf("  %zu partition%s with a failed attempt, %zu proved on another lane slot; %zu "
               "proved twice\n",
               r->failed_attempt, r->failed_attempt == 1 ? "" : "s", r->moved, r->proved_twice);
}
