/* clock.h — milliseconds on the monotonic clock, for the stage times that
 * provers and commands report, and deadlines for condition waits. */
#ifndef CUZK_UTIL_CLOCK_H
#define CUZK_UTIL_CLOCK_H

#include <pthread.h>
#include <time.h>

static inline double cuzk__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A condition variable whose timed waits measure cuzk__deadline_in_ms's
 * deadlines on the monotonic clock, so that a step of the wall clock (NTP,
 * an operator) neither ends a wait early nor stretches it. */
static inline int cuzk__cond_init(pthread_cond_t *c) {
    pthread_condattr_t a;
    int rc = pthread_condattr_init(&a);
    if (rc != 0) return rc;
    rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    if (rc == 0) rc = pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
    return rc;
}

/* The deadline ms milliseconds from now (ms >= 0) on the monotonic clock,
 * for pthread_cond_timedwait on a condition variable made by
 * cuzk__cond_init. */
static inline struct timespec cuzk__deadline_in_ms(int ms) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

#endif /* CUZK_UTIL_CLOCK_H */
