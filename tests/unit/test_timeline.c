/*
 * test_timeline.c — the engine's timeline (src/engine/timeline.h): the ring's
 * order, wrap-around and drop count, copies smaller than what is kept,
 * capacity 0, four threads adding at once with nothing lost beyond the
 * capacity and each thread's events in its own order; the busy fraction
 * over overlapping, nested, disjoint and clipped intervals; and the SVG
 * picture (cuzk_timeline_write_svg): one rect per drawn event, one label
 * per worker, the legend of the stages present, time 0 at the first drawn
 * start, overlapping events on separate rows, refusals, /dev/null written
 * in place.
 *
 * Runs in a fresh folder under $TMPDIR (or /tmp), removed at the end.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk.h"
#include "engine/timeline.h"
#include "harness.h"

static char g_dir[256];

static cuzk_timeline_event ev(uint64_t job, uint32_t part, uint32_t worker, int device,
                              cuzk_stage stage, double start, double end) {
    return (cuzk_timeline_event){job, part, worker, device, stage, start, end};
}

/* ---- the ring ------------------------------------------------------------- */

static void test_ring_wrap(void) {
    cuzk__timeline *t = cuzk__timeline_new(5);
    CHECK(t != NULL);
    if (t == NULL) return;
    cuzk_timeline_event out[16];
    CHECK_EQ_INT(cuzk__timeline_copy(t, out, 16), 0);
    for (uint32_t i = 0; i < 3; i++)
        cuzk__timeline_add(t, &(cuzk_timeline_event){.job_id = i, .start_ms = i});
    CHECK_EQ_INT(cuzk__timeline_copy(t, out, 16), 3);
    for (uint32_t i = 0; i < 3; i++) CHECK_EQ_INT(out[i].job_id, i);
    CHECK_EQ_INT(cuzk__timeline_dropped(t), 0);
    /* fewer than kept: the newest, oldest first */
    CHECK_EQ_INT(cuzk__timeline_copy(t, out, 2), 2);
    CHECK_EQ_INT(out[0].job_id, 1);
    CHECK_EQ_INT(out[1].job_id, 2);
    for (uint32_t i = 3; i < 12; i++)
        cuzk__timeline_add(t, &(cuzk_timeline_event){.job_id = i, .start_ms = i});
    CHECK_EQ_INT(cuzk__timeline_copy(t, out, 16), 5);
    for (uint32_t i = 0; i < 5; i++) {
        CHECK_EQ_INT(out[i].job_id, 7 + i);
        CHECK(out[i].start_ms == 7.0 + i); /* the whole event copied */
    }
    CHECK_EQ_INT(cuzk__timeline_dropped(t), 7);
    /* a copy smaller than kept, across the wrap (slot 0 holds event 10) */
    CHECK_EQ_INT(cuzk__timeline_copy(t, out, 3), 3);
    for (uint32_t i = 0; i < 3; i++) CHECK_EQ_INT(out[i].job_id, 9 + i);
    CHECK_EQ_INT(cuzk__timeline_copy(t, out, 0), 0);
    cuzk__timeline_free(t);
}

/* A window of the ring: the events that ended after a time, the newest cap
 * of them, oldest first, across the wrap; ends out of order as threads add
 * them (a later event may have ended earlier) are judged one by one. */
static void test_ring_since(void) {
    cuzk__timeline *t = cuzk__timeline_new(8);
    CHECK(t != NULL);
    if (t == NULL) return;
    cuzk_timeline_event out[16];
    CHECK_EQ_INT(cuzk__timeline_copy_since(t, -1, out, 16), 0);
    for (uint32_t i = 0; i < 13; i++) /* kept: 5..12; event 11 ended at 3 */
        cuzk__timeline_add(t, &(cuzk_timeline_event){.job_id = i, .end_ms = i == 11 ? 3 : i});
    CHECK_EQ_INT(cuzk__timeline_copy_since(t, 6.5, out, 16), 5);
    static const uint64_t want[] = {7, 8, 9, 10, 12};
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(out[i].job_id, want[i]);
    CHECK_EQ_INT(cuzk__timeline_copy_since(t, 6.5, out, 2), 2); /* the newest two */
    CHECK_EQ_INT(out[0].job_id, 10);
    CHECK_EQ_INT(out[1].job_id, 12);
    CHECK_EQ_INT(cuzk__timeline_copy_since(t, -1, out, 16), 8); /* all kept */
    CHECK_EQ_INT(out[0].job_id, 5);
    CHECK_EQ_INT(cuzk__timeline_copy_since(t, 12, out, 16), 0);
    CHECK_EQ_INT(cuzk__timeline_copy_since(t, 0, out, 0), 0);
    CHECK_EQ_INT(cuzk__timeline_copy_since(NULL, 0, out, 4), 0);
    cuzk__timeline_free(t);
}

static void test_ring_capacity_0(void) {
    cuzk__timeline *t = cuzk__timeline_new(0);
    CHECK(t != NULL);
    cuzk_timeline_event out[4], e = ev(1, 0, 0, 0, CUZK_STAGE_NTT, 0, 1);
    for (int i = 0; i < 3; i++) cuzk__timeline_add(t, &e);
    CHECK_EQ_INT(cuzk__timeline_copy(t, out, 4), 0);
    CHECK_EQ_INT(cuzk__timeline_dropped(t), 3);
    cuzk__timeline_free(t);
    /* NULL: no-ops */
    cuzk__timeline_add(NULL, &e);
    CHECK_EQ_INT(cuzk__timeline_copy(NULL, out, 4), 0);
    CHECK_EQ_INT(cuzk__timeline_dropped(NULL), 0);
    cuzk__timeline_free(NULL);
}

#define THREADS 4
#define PER_THREAD 10000

typedef struct {
    cuzk__timeline *t;
    uint32_t id;
} adder;

static void *add_main(void *arg) {
    const adder *a = arg;
    for (uint32_t i = 0; i < PER_THREAD; i++) {
        const cuzk_timeline_event e = ev(a->id, i, a->id, (int)a->id, CUZK_STAGE_SPMV, i, i + 1);
        cuzk__timeline_add(a->t, &e);
    }
    return NULL;
}

/* THREADS threads add PER_THREAD events each into a ring of capacity; the
 * ring keeps min(capacity, all) of them, and each thread's events that are
 * kept are the last of its own, in its order (the ring keeps a suffix of
 * the order of adding, and each thread adds in its own order). */
static void concurrent_case(size_t capacity) {
    cuzk__timeline *t = cuzk__timeline_new(capacity);
    CHECK(t != NULL);
    if (t == NULL) return;
    adder a[THREADS];
    pthread_t th[THREADS];
    for (uint32_t k = 0; k < THREADS; k++) {
        a[k] = (adder){t, k};
        CHECK(pthread_create(&th[k], NULL, add_main, &a[k]) == 0);
    }
    for (int k = 0; k < THREADS; k++) pthread_join(th[k], NULL);
    const size_t all = (size_t)THREADS * PER_THREAD, kept = capacity < all ? capacity : all;
    cuzk_timeline_event *out = malloc((all + 1) * sizeof(*out));
    CHECK(out != NULL);
    if (out == NULL) return;
    CHECK_EQ_INT(cuzk__timeline_copy(t, out, all + 1), kept);
    CHECK_EQ_INT(cuzk__timeline_dropped(t), all - kept);
    long next[THREADS], seen[THREADS] = {0};
    for (int k = 0; k < THREADS; k++) next[k] = -1;
    int torn = 0, order = 0;
    for (size_t i = 0; i < kept; i++) {
        const uint32_t k = out[i].worker;
        if (k >= THREADS || out[i].job_id != k || out[i].device != (int)k ||
            out[i].start_ms != out[i].partition || out[i].end_ms != out[i].partition + 1.0) {
            torn++;
            continue;
        }
        /* the first one kept fixes where the thread's run starts; each next
         * one is the one after it */
        if (next[k] >= 0 && out[i].partition != (uint32_t)next[k]) order++;
        next[k] = (long)out[i].partition + 1;
        seen[k]++;
    }
    CHECK_EQ_INT(torn, 0);
    CHECK_EQ_INT(order, 0);
    long total = 0;
    for (int k = 0; k < THREADS; k++) {
        total += seen[k];
        if (seen[k] > 0) CHECK_EQ_INT(next[k], PER_THREAD); /* ends at the thread's last */
        if (capacity >= all) CHECK_EQ_INT(seen[k], PER_THREAD);
    }
    CHECK_EQ_INT(total, kept);
    free(out);
    cuzk__timeline_free(t);
}

static void test_ring_concurrent(void) {
    concurrent_case((size_t)THREADS * PER_THREAD); /* all kept */
    concurrent_case(1000);                         /* wraps 39 times */
}

/* ---- the busy fraction -------------------------------------------------- */

static int near(double a, double b) { return fabs(a - b) < 1e-12; }

static void test_busy(void) {
    const cuzk_timeline_event e[] = {
        /* device 0: disjoint [0, 10] and [20, 30], [25, 35] overlapping the
         * second, [26, 28] nested in it, given out of order */
        ev(1, 1, 0, 0, CUZK_STAGE_MSM_H, 20, 30),
        ev(1, 0, 0, 0, CUZK_STAGE_SPMV, 0, 10),
        ev(1, 1, 0, 0, CUZK_STAGE_TAIL_MSM, 26, 28),
        ev(1, 2, 0, 0, CUZK_STAGE_B_G2_MSM, 25, 35),
        /* not kernels, or another device: never counted */
        ev(1, 0, 0, 0, CUZK_STAGE_LOCK_WAIT, 10, 20),
        ev(1, 0, 0, 0, CUZK_STAGE_VERIFY, 35, 40),
        ev(1, 0, 0, 0, CUZK_STAGE_QUEUED, 0, 40),
        ev(2, 0, 1, 1, CUZK_STAGE_NTT, 0, 40),
        ev(2, 0, 2, -1, CUZK_STAGE_PREP, 10, 20),
    };
    const size_t n = sizeof(e) / sizeof(e[0]);
    /* union on device 0: [0, 10] + [20, 35] = 25 of 40 */
    CHECK(near(cuzk__timeline_busy(e, n, 0, 0, 40), 25.0 / 40));
    /* clipped: [5, 10] + [20, 30] of [5, 30] */
    CHECK(near(cuzk__timeline_busy(e, n, 0, 5, 30), 15.0 / 25));
    /* a window inside one interval, and one between two */
    CHECK(near(cuzk__timeline_busy(e, n, 0, 21, 29), 1.0));
    CHECK(near(cuzk__timeline_busy(e, n, 0, 11, 19), 0.0));
    CHECK(near(cuzk__timeline_busy(e, n, 1, 0, 40), 1.0));
    CHECK(near(cuzk__timeline_busy(e, n, -1, 0, 40), 0.25));
    CHECK(near(cuzk__timeline_busy(e, n, 7, 0, 40), 0.0));
    CHECK(near(cuzk__timeline_busy(e, n, 0, 10, 10), 0.0)); /* empty window */
    CHECK(near(cuzk__timeline_busy(e, n, 0, 30, 20), 0.0));
    CHECK(near(cuzk__timeline_busy(NULL, 0, 0, 0, 40), 0.0));
    /* touching intervals make one run; a nested one after a longer one */
    const cuzk_timeline_event f[] = {
        ev(1, 0, 0, 3, CUZK_STAGE_NTT, 10, 20),
        ev(1, 0, 0, 3, CUZK_STAGE_SPMV, 0, 10),
        ev(1, 0, 0, 3, CUZK_STAGE_PREP, 0, 50),
        ev(1, 0, 0, 3, CUZK_STAGE_BATCH_ADD, 5, 45),
        ev(1, 0, 0, 3, CUZK_STAGE_MSM_H, 60, 70),
    };
    CHECK(near(cuzk__timeline_busy(f, 2, 3, 0, 40), 0.5));
    CHECK(near(cuzk__timeline_busy(f, 5, 3, 0, 100), 0.6));
    CHECK(near(cuzk__timeline_busy(f + 3, 2, 3, 0, 100), 0.5));
}

/* ---- the SVG ------------------------------------------------------------- */

static void at(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static size_t count(const char *s, const char *what) {
    size_t k = 0;
    for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what)) k++;
    return k;
}

/* The file's text (cuzk_free it), or NULL. */
static char *read_text(const char *path) {
    uint8_t *data = NULL;
    size_t len = 0;
    cuzk_error err;
    if (cuzk_file_read(&data, &len, path, 1 << 24, &err) != CUZK_OK) return NULL;
    return (char *)data;
}

/* Starts with <svg and ends with </svg> (and a newline at most). */
static int framed(const char *s) {
    const size_t n = strlen(s);
    size_t end = n;
    while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == ' ')) end--;
    return strncmp(s, "<svg", 4) == 0 && end >= 6 && memcmp(s + end - 6, "</svg>", 6) == 0 &&
           count(s, "<svg") == 1 && count(s, "</svg>") == 1;
}

/* The value of attribute attr of the rect whose title contains title, or NAN. */
static double rect_attr(const char *s, const char *title, const char *attr) {
    const char *t = strstr(s, title);
    if (t == NULL) return NAN;
    const char *r = t;
    while (r > s && strncmp(r, "<rect", 5) != 0) r--;
    char key[32];
    snprintf(key, sizeof key, " %s=\"", attr);
    const char *a = strstr(r, key);
    if (a == NULL || a > t) return NAN;
    return strtod(a + strlen(key), NULL);
}

static void test_svg(void) {
    const cuzk_timeline_event e[] = {
        /* queued before everything: not drawn, and not time 0 */
        ev(7, 0, UINT32_MAX, -1, CUZK_STAGE_QUEUED, 100, 1000),
        ev(7, 1, UINT32_MAX, -1, CUZK_STAGE_QUEUED, 100, 1900),
        /* worker 0 on GPU 0: partition 0, then its self-check beside
         * partition 2's kernels */
        ev(7, 0, 0, 0, CUZK_STAGE_LOAD, 1000, 1100),
        ev(7, 0, 0, 0, CUZK_STAGE_SPMV, 1100, 1200),
        ev(7, 0, 0, 0, CUZK_STAGE_NTT, 1200, 1212.5),
        ev(7, 0, 0, 0, CUZK_STAGE_MSM_H, 1212.5, 1500),
        ev(7, 0, 0, 0, CUZK_STAGE_FINISH, 1500, 1510),
        ev(7, 0, 0, 0, CUZK_STAGE_VERIFY, 1510, 1700),
        ev(7, 2, 0, 0, CUZK_STAGE_SPMV, 1520, 1600),
        /* worker 1 on GPU 1, worker 3 on the CPU */
        ev(7, 1, 1, 1, CUZK_STAGE_LOCK_WAIT, 1900, 2000),
        ev(7, 1, 1, 1, CUZK_STAGE_TAIL_MSM, 2000, 2300),
        ev(8, 0, 3, -1, CUZK_STAGE_B_G2_MSM, 1800, 3000),
    };
    const size_t n = sizeof(e) / sizeof(e[0]);
    char path[512];
    at(path, sizeof path, "t.svg");
    cuzk_error err;
    CHECK(cuzk_timeline_write_svg(e, n, path, &err) == CUZK_OK);
    char *s = read_text(path);
    CHECK(s != NULL);
    if (s == NULL) return;
    CHECK(framed(s));
    CHECK_EQ_INT(count(s, "class=\"ev\""), n - 2);
    CHECK_EQ_INT(count(s, "<title>"), n - 2);
    CHECK_EQ_INT(count(s, "</rect>"), n - 2); /* each event rect closed after its title */
    /* lanes: one label per worker, with its device */
    CHECK_EQ_INT(count(s, "class=\"lane\""), 3);
    CHECK(strstr(s, ">worker 0 (GPU 0)</text>") != NULL);
    CHECK(strstr(s, ">worker 1 (GPU 1)</text>") != NULL);
    CHECK(strstr(s, ">worker 3 (CPU)</text>") != NULL);
    CHECK(strstr(s, "queue") == NULL);
    /* the legend: the stages drawn, and only those */
    static const cuzk_stage present[] = {
        CUZK_STAGE_LOAD,     CUZK_STAGE_LOCK_WAIT, CUZK_STAGE_SPMV,     CUZK_STAGE_NTT,
        CUZK_STAGE_MSM_H,    CUZK_STAGE_TAIL_MSM,  CUZK_STAGE_B_G2_MSM, CUZK_STAGE_FINISH,
        CUZK_STAGE_VERIFY};
    static const cuzk_stage absent[] = {CUZK_STAGE_QUEUED, CUZK_STAGE_PREP, CUZK_STAGE_BATCH_ADD};
    char name[64];
    for (size_t i = 0; i < sizeof(present) / sizeof(present[0]); i++) {
        snprintf(name, sizeof name, ">%s</text>", cuzk_stage_name(present[i]));
        CHECK_EQ_INT(count(s, name), 1);
    }
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
        snprintf(name, sizeof name, ">%s</text>", cuzk_stage_name(absent[i]));
        CHECK_EQ_INT(count(s, name), 0);
    }
    CHECK_EQ_INT(count(s, "class=\"key\""), 9);
    /* hover text, and time 0 at the first drawn start (LOAD at 1000 ms):
     * its rect at the plot's left edge, the same x as the axis's "0" label */
    CHECK(strstr(s, "<title>job 7 partition 0: ntt, 12.500 ms</title>") != NULL);
    const double x0 = rect_attr(s, "job 7 partition 0: load,", "x");
    const double x_spmv = rect_attr(s, "job 7 partition 0: spmv,", "x");
    const double x_end = rect_attr(s, "job 8 partition 0: b_g2_msm,", "x") +
                         rect_attr(s, "job 8 partition 0: b_g2_msm,", "width");
    CHECK(x0 > 0 && x0 < 400);
    CHECK(strstr(s, "<text x=\"") != NULL);
    char zero[64];
    snprintf(zero, sizeof zero, "<text x=\"%.1f\" y=", x0);
    CHECK(strstr(s, zero) != NULL); /* the tick labelled 0 */
    /* 100 ms of a 2000 ms span at the same scale as the whole */
    CHECK(fabs((x_spmv - x0) / (x_end - x0) - 100.0 / 2000) < 1e-3);
    CHECK(x_end > 1500 && x_end <= 1600);
    /* overlapping events of one worker on separate rows; others on the first */
    const double y_verify = rect_attr(s, "job 7 partition 0: verify,", "y");
    const double y_spmv2 = rect_attr(s, "job 7 partition 2: spmv,", "y");
    const double y_load = rect_attr(s, "job 7 partition 0: load,", "y");
    CHECK(y_verify == y_load);
    CHECK(y_spmv2 > y_verify);
    /* the lanes stack: worker 1 below worker 0's two rows, worker 3 below it */
    const double y_w1 = rect_attr(s, "job 7 partition 1: tail_msm,", "y");
    const double y_w3 = rect_attr(s, "job 8 partition 0: b_g2_msm,", "y");
    CHECK(y_w1 > y_spmv2 && y_w3 > y_w1);
    /* nothing that would break the XML */
    CHECK(strchr(s, '&') == NULL);
    CHECK(strstr(s, "nan") == NULL && strstr(s, "inf") == NULL);
    cuzk_free(s);

    /* written again over the old picture: replaced whole */
    CHECK(cuzk_timeline_write_svg(e, 3, path, &err) == CUZK_OK);
    s = read_text(path);
    CHECK(s != NULL && framed(s) && count(s, "class=\"ev\"") == 1);
    cuzk_free(s);
    CHECK(unlink(path) == 0);
}

static void test_svg_empty(void) {
    char path[512];
    at(path, sizeof path, "empty.svg");
    cuzk_error err;
    CHECK(cuzk_timeline_write_svg(NULL, 0, path, &err) == CUZK_OK);
    char *s = read_text(path);
    CHECK(s != NULL);
    if (s != NULL) {
        CHECK(framed(s));
        CHECK(strstr(s, "no events") != NULL);
        CHECK_EQ_INT(count(s, "class=\"ev\""), 0);
    }
    cuzk_free(s);
    /* queued events only: nothing drawn either */
    const cuzk_timeline_event q = ev(1, 0, UINT32_MAX, -1, CUZK_STAGE_QUEUED, 0, 5);
    CHECK(cuzk_timeline_write_svg(&q, 1, path, &err) == CUZK_OK);
    s = read_text(path);
    CHECK(s != NULL && framed(s) && strstr(s, "no events") != NULL &&
          count(s, "class=\"ev\"") == 0);
    cuzk_free(s);
    CHECK(unlink(path) == 0);
}

static void test_svg_refusals(void) {
    char path[512], dir[512];
    at(path, sizeof path, "bad.svg");
    const cuzk_timeline_event good = ev(1, 0, 0, 0, CUZK_STAGE_NTT, 0, 5);
    cuzk_timeline_event bad = good;
    cuzk_error err;
    CHECK(cuzk_timeline_write_svg(&good, 1, NULL, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_timeline_write_svg(&good, 1, "", &err) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_timeline_write_svg(NULL, 1, path, &err) == CUZK_ERR_INVALID_ARG);
    bad.stage = CUZK_STAGE_COUNT;
    CHECK(cuzk_timeline_write_svg(&bad, 1, path, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "event 0") != NULL && strstr(err.msg, "stage 12") != NULL);
    bad = good;
    bad.end_ms = -1;
    CHECK(cuzk_timeline_write_svg(&bad, 1, path, &err) == CUZK_ERR_INVALID_ARG);
    bad = good;
    bad.start_ms = NAN;
    CHECK(cuzk_timeline_write_svg(&bad, 1, path, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(access(path, F_OK) != 0); /* nothing written for a refusal */
    /* the writer's refusals: a directory; a folder that does not exist */
    at(dir, sizeof dir, "sub");
    CHECK(mkdir(dir, 0755) == 0);
    CHECK(cuzk_timeline_write_svg(&good, 1, dir, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, dir) != NULL);
    CHECK(rmdir(dir) == 0);
    at(path, sizeof path, "missing/t.svg");
    CHECK(cuzk_timeline_write_svg(&good, 1, path, &err) == CUZK_ERR_IO);
    CHECK(strstr(err.msg, "missing/t.svg") != NULL);
}

/* A device target is written in place, never replaced by a file. */
static void test_svg_dev_null(void) {
    struct stat before, after;
    CHECK(stat("/dev/null", &before) == 0);
    const cuzk_timeline_event e = ev(1, 0, 0, 0, CUZK_STAGE_NTT, 0, 5);
    cuzk_error err;
    CHECK(cuzk_timeline_write_svg(&e, 1, "/dev/null", &err) == CUZK_OK);
    CHECK(stat("/dev/null", &after) == 0);
    CHECK(S_ISCHR(after.st_mode));
    CHECK(after.st_ino == before.st_ino && after.st_rdev == before.st_rdev);
}

static void test_stage_names(void) {
    CHECK(strcmp(cuzk_stage_name(CUZK_STAGE_QUEUED), "queued") == 0);
    CHECK(strcmp(cuzk_stage_name(CUZK_STAGE_LOCK_WAIT), "lock_wait") == 0);
    CHECK(strcmp(cuzk_stage_name(CUZK_STAGE_B_G2_MSM), "b_g2_msm") == 0);
    CHECK(strcmp(cuzk_stage_name(CUZK_STAGE_VERIFY), "verify") == 0);
    CHECK(strcmp(cuzk_stage_name(CUZK_STAGE_COUNT), "?") == 0);
    CHECK(strcmp(cuzk_stage_name((cuzk_stage)-1), "?") == 0);
    /* every stage named, and no two alike */
    for (int a = 0; a < CUZK_STAGE_COUNT; a++) {
        CHECK(strcmp(cuzk_stage_name((cuzk_stage)a), "?") != 0);
        for (int b = 0; b < a; b++)
            CHECK(strcmp(cuzk_stage_name((cuzk_stage)a), cuzk_stage_name((cuzk_stage)b)) != 0);
    }
    CHECK(cuzk__stage_is_kernel(CUZK_STAGE_SPMV) && cuzk__stage_is_kernel(CUZK_STAGE_B_G2_MSM));
    CHECK(!cuzk__stage_is_kernel(CUZK_STAGE_LOCK_WAIT));
    CHECK(!cuzk__stage_is_kernel(CUZK_STAGE_FINISH) && !cuzk__stage_is_kernel(CUZK_STAGE_QUEUED));
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof(g_dir), "%s/cuzk_timeline_XXXXXX", t && *t ? t : "/tmp");
    if (mkdtemp(g_dir) == NULL) {
        perror(g_dir);
        return 1;
    }
    RUN(test_ring_wrap);
    RUN(test_ring_since);
    RUN(test_ring_capacity_0);
    RUN(test_ring_concurrent);
    RUN(test_busy);
    RUN(test_stage_names);
    RUN(test_svg);
    RUN(test_svg_empty);
    RUN(test_svg_refusals);
    RUN(test_svg_dev_null);
    if (rmdir(g_dir) != 0) fprintf(stderr, "%s: %s\n", g_dir, strerror(errno));
    return cuzk_test_finish();
}
