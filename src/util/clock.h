/* clock.h — milliseconds on the monotonic clock, for the stage times that
 * provers and commands report, and deadlines for condition waits. */
#ifndef CUZK_UTIL_CLOCK_H
#define CUZK_UTIL_CLOCK_H

#include <time.h>

static inline double cuzk__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The CLOCK_REALTIME deadline ms milliseconds from now (ms >= 0), what
 * pthread_cond_timedwait takes with a default condition variable. */
static inline struct timespec cuzk__deadline_in_ms(int ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

#endif /* CUZK_UTIL_CLOCK_H */
