/* timeline.c — see timeline.h. */
#include "engine/timeline.h"

#include <pthread.h>
#include <stdlib.h>

struct cuzk__timeline {
    pthread_mutex_t mu;
    cuzk_timeline_event *ev; /* capacity slots; NULL at capacity 0 */
    size_t capacity;
    size_t next; /* the slot the next event goes to */
    size_t kept;
    uint64_t dropped;
};

cuzk__timeline *cuzk__timeline_new(size_t capacity) {
    cuzk__timeline *t = calloc(1, sizeof(*t));
    if (t == NULL) return NULL;
    if (capacity > 0) {
        t->ev = calloc(capacity, sizeof(*t->ev));
        if (t->ev == NULL) {
            free(t);
            return NULL;
        }
    }
    if (pthread_mutex_init(&t->mu, NULL) != 0) {
        free(t->ev);
        free(t);
        return NULL;
    }
    t->capacity = capacity;
    return t;
}

void cuzk__timeline_free(cuzk__timeline *t) {
    if (t == NULL) return;
    pthread_mutex_destroy(&t->mu);
    free(t->ev);
    free(t);
}

void cuzk__timeline_add(cuzk__timeline *t, const cuzk_timeline_event *ev) {
    if (t == NULL || ev == NULL) return;
    pthread_mutex_lock(&t->mu);
    if (t->capacity == 0) {
        t->dropped++;
    } else {
        t->ev[t->next] = *ev;
        t->next = t->next + 1 == t->capacity ? 0 : t->next + 1;
        if (t->kept < t->capacity) t->kept++;
        else t->dropped++;
    }
    pthread_mutex_unlock(&t->mu);
}

size_t cuzk__timeline_copy(cuzk__timeline *t, cuzk_timeline_event *out, size_t cap) {
    if (t == NULL || out == NULL) return 0;
    pthread_mutex_lock(&t->mu);
    const size_t n = cap < t->kept ? cap : t->kept;
    /* the newest n end just before slot next */
    size_t i = (t->next + t->capacity - n) % (t->capacity ? t->capacity : 1);
    for (size_t k = 0; k < n; k++) {
        out[k] = t->ev[i];
        i = i + 1 == t->capacity ? 0 : i + 1;
    }
    pthread_mutex_unlock(&t->mu);
    return n;
}

size_t cuzk__timeline_copy_since(cuzk__timeline *t, double since_ms, cuzk_timeline_event *out,
                                 size_t cap) {
    if (t == NULL || out == NULL || cap == 0) return 0;
    pthread_mutex_lock(&t->mu);
    const size_t first = (t->next + t->capacity - t->kept) % (t->capacity ? t->capacity : 1);
    size_t match = 0;
    for (size_t k = 0, i = first; k < t->kept; k++, i = i + 1 == t->capacity ? 0 : i + 1)
        match += t->ev[i].end_ms > since_ms;
    size_t skip = match > cap ? match - cap : 0, m = 0;
    for (size_t k = 0, i = first; k < t->kept && m < cap;
         k++, i = i + 1 == t->capacity ? 0 : i + 1) {
        if (t->ev[i].end_ms <= since_ms) continue;
        if (skip != 0) {
            skip--;
            continue;
        }
        out[m++] = t->ev[i];
    }
    pthread_mutex_unlock(&t->mu);
    return m;
}

uint64_t cuzk__timeline_dropped(cuzk__timeline *t) {
    if (t == NULL) return 0;
    pthread_mutex_lock(&t->mu);
    const uint64_t d = t->dropped;
    pthread_mutex_unlock(&t->mu);
    return d;
}

int cuzk__stage_is_kernel(cuzk_stage stage) {
    return stage >= CUZK_STAGE_SPMV && stage <= CUZK_STAGE_B_G2_MSM;
}

/* ---- busy fraction ---------------------------------------------------------- */

typedef struct {
    double a, b;
} span;

static int cmp_span(const void *x, const void *y) {
    const double a = ((const span *)x)->a, b = ((const span *)y)->a;
    return a < b ? -1 : a > b;
}

double cuzk__timeline_busy(const cuzk_timeline_event *ev, size_t n, int device, double from_ms,
                           double to_ms) {
    if (!(to_ms > from_ms) || ev == NULL || n == 0) return 0;
    span *s = malloc(n * sizeof(*s));
    if (s == NULL) return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].device != device || !cuzk__stage_is_kernel(ev[i].stage)) continue;
        const double a = ev[i].start_ms > from_ms ? ev[i].start_ms : from_ms;
        const double b = ev[i].end_ms < to_ms ? ev[i].end_ms : to_ms;
        if (b > a) s[m++] = (span){a, b};
    }
    /* sorted by start, a span that begins after the covered run's end opens
     * a new run; one that begins inside it may only extend it */
    qsort(s, m, sizeof(*s), cmp_span);
    double busy = 0, run_a = 0, run_b = 0;
    for (size_t i = 0; i < m; i++) {
        if (i == 0 || s[i].a > run_b) {
            busy += run_b - run_a;
            run_a = s[i].a;
            run_b = s[i].b;
        } else if (s[i].b > run_b) {
            run_b = s[i].b;
        }
    }
    busy += run_b - run_a;
    free(s);
    return busy / (to_ms - from_ms);
}
