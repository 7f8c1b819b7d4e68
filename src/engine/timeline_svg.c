/*
 * timeline_svg.c — the stages' names and the timeline as an SVG picture
 * (cuzk_stage_name, cuzk_timeline_write_svg of include/cuzk.h).
 *
 * Layout: a title, a legend of the stages drawn, then one lane per worker
 * (sorted by index) and a time axis in seconds under them, with grid lines.
 * Within a lane, events that overlap in time (a self-check beside the next
 * partition's kernels) go to separate rows, the first row free at the
 * event's start, so none hides another. Time 0 is the earliest start drawn.
 * Event rects carry class="ev" and a <title> child (a browser shows it on
 * hover); legend swatches class="key", the background class="bg". The text
 * is built in memory, then written whole through the output writer.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/timeline.h"
#include "util/atomic_write.h"
#include "util/error.h"

#define SVG_W 1600
#define LEFT 170 /* the lane labels */
#define RIGHT 40
#define TOP 64 /* title and legend above the lanes */
#define ROW_H 16
#define LANE_PAD 5
#define MAX_ROWS 8 /* rows per lane; more overlapping events share the last */
#define LEGEND_STEP 118

static const char *const stage_names[CUZK_STAGE_COUNT] = {
    "queued", "load",     "lock_wait", "spmv",     "ntt",    "msm_h",
    "prep",   "batch_add", "tail_msm", "b_g2_msm", "finish", "verify",
};

/* Kernels in blues (the H path) and purples (the MSMs of A, B, C); waiting
 * grey, the host's own work warm, the self-check green. */
static const char *const stage_colours[CUZK_STAGE_COUNT] = {
    "#d9d9d9", /* queued (not drawn) */
    "#bf812d", /* load */
    "#a3a3a3", /* lock_wait */
    "#08519c", /* spmv */
    "#3182bd", /* ntt */
    "#6baed6", /* msm_h */
    "#bcbddc", /* prep */
    "#9e9ac8", /* batch_add */
    "#756bb1", /* tail_msm */
    "#54278f", /* b_g2_msm */
    "#fd8d3c", /* finish */
    "#31a354", /* verify */
};

const char *cuzk_stage_name(cuzk_stage stage) {
    if ((int)stage < 0 || (int)stage >= CUZK_STAGE_COUNT) return "?";
    return stage_names[stage];
}

/* ---- the text, in a growing buffer ------------------------------------------ */

typedef struct {
    char *p;
    size_t n, cap;
    int nomem; /* an append failed: the text is incomplete */
} buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(buf *b, const char *fmt, ...) {
    if (b->nomem) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int k = vsnprintf(b->p ? b->p + b->n : NULL, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->nomem = 1;
            return;
        }
        if ((size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->n <= (size_t)k) cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->nomem = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
}

/* ---- lanes and rows ------------------------------------------------------ */

typedef struct {
    uint32_t worker;     /* the sort's keys, copied from the event */
    double start, end;
    size_t i;            /* the event */
    unsigned row;
} item;

typedef struct {
    uint32_t worker;
    int device, mixed;   /* mixed: events of several devices */
    size_t first, count; /* its items */
    unsigned rows;
    double y;
} lane;

/* by worker, then start, then end, then the order given */
static int cmp_item(const void *x, const void *y) {
    const item *a = x, *b = y;
    if (a->worker != b->worker) return a->worker < b->worker ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Splits the sorted items into lanes (one per worker) and gives each item
 * the first row of its lane that is free at its start. */
static size_t make_lanes(lane *ln, item *it, size_t m, const cuzk_timeline_event *ev) {
    size_t nl = 0;
    double row_end[MAX_ROWS];
    for (size_t k = 0; k < m; k++) {
        const cuzk_timeline_event *e = &ev[it[k].i];
        if (nl == 0 || ln[nl - 1].worker != e->worker) {
            ln[nl++] = (lane){.worker = e->worker, .device = e->device, .first = k};
            for (int r = 0; r < MAX_ROWS; r++) row_end[r] = -INFINITY;
        }
        lane *l = &ln[nl - 1];
        if (e->device != l->device) l->mixed = 1;
        unsigned row = MAX_ROWS - 1;
        for (unsigned r = 0; r < MAX_ROWS; r++)
            if (row_end[r] <= e->start_ms) {
                row = r;
                break;
            }
        if (e->end_ms > row_end[row]) row_end[row] = e->end_ms;
        it[k].row = row;
        if (row + 1 > l->rows) l->rows = row + 1;
        l->count++;
    }
    return nl;
}

/* ---- the picture --------------------------------------------------------- */

/* A round step (1, 2 or 5 x 10^k) giving about 10 ticks over span seconds,
 * and the decimals its labels need. */
static double tick_step(double span, int *decimals) {
    const double raw = span / 10;
    const double p = pow(10, floor(log10(raw)));
    const double f = raw / p;
    const double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
    const int d = (int)-floor(log10(step) + 1e-9);
    *decimals = d > 0 ? d : 0;
    return step;
}

/* Tick k's x: k steps of seconds at scale pixels per ms. */
static double tick_x(int k, double step, double scale) { return LEFT + k * step * 1000 * scale; }

static void lane_label(buf *b, const lane *l) {
    const double y = l->y + LANE_PAD + (l->rows * ROW_H) / 2.0 + 4; /* the rows' middle */
    put(b, "<text class=\"lane\" x=\"10\" y=\"%.1f\">", y);
    if (l->worker == UINT32_MAX) put(b, "queue");
    else put(b, "worker %u", (unsigned)l->worker);
    if (l->mixed) put(b, " (GPUs vary)");
    else if (l->device >= 0) put(b, " (GPU %d)", l->device);
    else put(b, " (CPU)");
    put(b, "</text>\n");
}

static void draw(buf *b, const cuzk_timeline_event *ev, const item *it, size_t m,
                 const lane *ln, size_t nl, double height, double axis_y) {
    double t0 = INFINITY, t1 = -INFINITY;
    int present[CUZK_STAGE_COUNT] = {0};
    for (size_t k = 0; k < m; k++) {
        const cuzk_timeline_event *e = &ev[it[k].i];
        if (e->start_ms < t0) t0 = e->start_ms;
        if (e->end_ms > t1) t1 = e->end_ms;
        present[e->stage] = 1;
    }
    const double span_ms = t1 - t0 > 1e-6 ? t1 - t0 : 1e-6;
    const double plot_w = SVG_W - LEFT - RIGHT, scale = plot_w / span_ms;

    put(b, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">cuzk engine timeline: "
           "%zu events on %zu workers over %.3f s</text>\n",
        m, nl, (t1 - t0) / 1000);
    /* the legend: the stages drawn, in pipeline order */
    double lx = 10;
    for (int s = 0; s < CUZK_STAGE_COUNT; s++) {
        if (!present[s]) continue;
        put(b, "<rect class=\"key\" x=\"%.0f\" y=\"36\" width=\"12\" height=\"12\" fill=\"%s\"/>"
               "<text x=\"%.0f\" y=\"46\">%s</text>\n",
            lx, stage_colours[s], lx + 16, stage_names[s]);
        lx += LEGEND_STEP;
    }
    /* the axis: grid lines through the lanes, ticks and labels under them */
    int dec;
    const double step = tick_step(span_ms / 1000, &dec);
    const int ticks = (int)floor(span_ms / 1000 / step * (1 + 1e-9)) + 1;
    put(b, "<g stroke=\"#e3e3e3\">\n");
    for (int k = 0; k < ticks; k++) {
        const double x = tick_x(k, step, scale);
        put(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, TOP, x, axis_y);
    }
    for (size_t l = 0; l <= nl; l++) { /* lane separators */
        const double y = l < nl ? ln[l].y : axis_y;
        put(b, "<line x1=\"0\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", y, SVG_W, y);
    }
    put(b, "</g>\n<g stroke=\"#444444\">\n<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
        LEFT, axis_y, LEFT + plot_w, axis_y);
    for (int k = 0; k < ticks; k++) {
        const double x = tick_x(k, step, scale);
        put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, axis_y, x,
            axis_y + 5);
    }
    put(b, "</g>\n<g text-anchor=\"middle\">\n");
    for (int k = 0; k < ticks; k++)
        put(b, "<text x=\"%.1f\" y=\"%.1f\">%.*f</text>\n", tick_x(k, step, scale), axis_y + 18,
            dec, k * step);
    put(b, "</g>\n<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">time (s)</text>\n", SVG_W - 10,
        height - 8);

    for (size_t l = 0; l < nl; l++) {
        lane_label(b, &ln[l]);
        for (size_t k = ln[l].first; k < ln[l].first + ln[l].count; k++) {
            const cuzk_timeline_event *e = &ev[it[k].i];
            const double w = (e->end_ms - e->start_ms) * scale;
            put(b, "<rect class=\"ev\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
                   "fill=\"%s\"><title>job %llu partition %u: %s, %.3f ms</title></rect>\n",
                LEFT + (e->start_ms - t0) * scale, ln[l].y + LANE_PAD + it[k].row * ROW_H + 1,
                w > 0.5 ? w : 0.5, ROW_H - 2, stage_colours[e->stage],
                (unsigned long long)e->job_id, (unsigned)e->partition, stage_names[e->stage],
                e->end_ms - e->start_ms);
        }
    }
}

cuzk_status cuzk_timeline_write_svg(const cuzk_timeline_event *events, size_t n, const char *path,
                                    cuzk_error *err) {
    cuzk__error_clear(err);
    if (path == NULL || *path == '\0')
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "timeline_write_svg: no output path");
    if (events == NULL && n != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "timeline_write_svg: NULL events, n = %zu",
                          n);
    size_t m = 0; /* the events drawn: every stage but QUEUED */
    for (size_t i = 0; i < n; i++) {
        const cuzk_timeline_event *e = &events[i];
        if ((int)e->stage < 0 || (int)e->stage >= CUZK_STAGE_COUNT)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "timeline_write_svg: event %zu: stage %d is not a cuzk_stage", i,
                              (int)e->stage);
        if (!isfinite(e->start_ms) || !isfinite(e->end_ms) || e->end_ms < e->start_ms)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "timeline_write_svg: event %zu: %g ms to %g ms is not a time "
                              "interval", i, e->start_ms, e->end_ms);
        if (e->stage != CUZK_STAGE_QUEUED) m++;
    }
    item *it = calloc(m ? m : 1, sizeof(*it));
    lane *ln = calloc(m ? m : 1, sizeof(*ln));
    buf b = {0};
    cuzk_status st = CUZK_OK;
    if (it == NULL || ln == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "timeline_write_svg: %zu events: out of memory", n);
        goto out;
    }
    for (size_t i = 0, k = 0; i < n; i++)
        if (events[i].stage != CUZK_STAGE_QUEUED)
            it[k++] = (item){events[i].worker, events[i].start_ms, events[i].end_ms, i, 0};
    qsort(it, m, sizeof(*it), cmp_item);
    const size_t nl = make_lanes(ln, it, m, events);
    double y = TOP;
    for (size_t l = 0; l < nl; l++) {
        ln[l].y = y;
        y += ln[l].rows * ROW_H + 2 * LANE_PAD;
    }
    const double axis_y = y, height = m ? axis_y + 44 : 80;
    put(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
            "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
        SVG_W, height, SVG_W, height, SVG_W, height);
    if (m == 0)
        put(&b,
            "<text x=\"10\" y=\"45\" font-size=\"15\">cuzk engine timeline: no events%s</text>\n",
            n ? " to draw (only queued ones)" : "");
    else
        draw(&b, events, it, m, ln, nl, height, axis_y);
    put(&b, "</svg>\n");
    if (b.nomem) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "timeline_write_svg: %zu events: out of memory", n);
        goto out;
    }
    const cuzk__write_piece piece = {b.p, b.n};
    st = cuzk__write_file_atomic(path, &piece, 1, err);
out:
    free(b.p);
    free(ln);
    free(it);
    return st;
}
